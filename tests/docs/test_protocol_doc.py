"""docs/protocol.md says what the harness sends: every decision kind, the trump order a bot needs to
know who takes a trick, how many cards `dealt` holds, and where the profile a stateless bot needs is."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from arena.engine import Game, get_profile, parse_cards, parse_suit, profile_names
from arena.engine.cards import TrumpTable, card_str
from arena.match import MatchSettings
from arena.match.game import game_start_notice
from arena.protocol import PROTOCOL_VERSIONS, wire

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
FLAT = re.sub(r"\s+", " ", DOC)


def kinds_asked() -> set[str]:
    """The decision kinds real games under every profile ask."""
    seen: set[str] = set()
    for name in profile_names():
        game = Game(key=f"kinds-{name}", profile=get_profile(name), max_deals=3)
        rng = random.Random(name)
        while not game.over:
            seen.add(game.choice.kind)
            game.apply(game.choice.sample(rng))
    return seen


def test_decide_names_every_kind_the_table_documents_and_the_engine_asks() -> None:
    said = re.search(r"`decide` has `kind` (.*?) \(or a kind", FLAT)
    assert said, "the Decisions section says which kinds decide has"
    named = set(re.findall(r"`(\w+)`", said.group(1)))
    table = set(re.findall(r"^\| (\w+) \| `\{", DOC, re.M))
    assert named == table
    assert kinds_asked() <= named | {"any"}, kinds_asked() - named


def test_the_trump_order_given_for_hearts_is_the_engines() -> None:
    written = re.search(r"With hearts: `([^`]+)`", FLAT)
    assert written, "protocol.md gives the trump order"
    table = TrumpTable(parse_suit("H"))
    engine = sorted(table.trumps, key=lambda c: -table.power[c])
    assert parse_cards(written.group(1).split()) == engine, [card_str(c) for c in engine]


def test_dealt_counts_the_doc_gives_are_the_profiles() -> None:
    row = next(ln for ln in DOC.splitlines() if ln.startswith("| `dealt`"))
    counts = re.findall(r"(\d+) under `([\w-]+)`", row)
    assert len(counts) >= 3 and "the 9 dealt" not in row
    for n, name in counts:
        assert sum(get_profile(name).packets) == int(n), name
    sizes = {sum(get_profile(p).packets) for p in profile_names()}
    assert sizes <= {int(n) for n, _ in counts}, sizes  # every size a profile deals is named


def test_the_profile_a_bot_keeps_is_where_the_doc_says() -> None:
    assert "so a bot can be stateless" not in FLAT
    assert "it comes once per game, in `hello` and `game`" in FLAT
    profile = get_profile("sixty-three").model_dump(mode="json")
    hello = wire.hello(PROTOCOL_VERSIONS, 1, "test", profile)
    game = game_start_notice(MatchSettings.model_validate({"profile": "sixty-three"}))(0, 1)
    assert hello["profile"]["points"] == game["profile"]["points"] == profile["points"]
    view = Game(key="v", profile=get_profile("sixty-three")).view(0).to_dict()
    assert "profile" not in view and "target" not in view  # hence: keep it from game


@pytest.mark.parametrize("anchor", ["#/$defs/to_bot", "#/$defs/from_bot", "#/$defs/Decide", "#/$defs/View"])
def test_the_schema_definitions_the_doc_names_exist(anchor: str) -> None:
    from arena.protocol.schema import protocol_schema

    assert anchor in DOC
    assert anchor.rsplit("/", 1)[1] in protocol_schema()["$defs"]
