"""Decision kinds describe themselves (issue 45): nothing above the engine and the protocol branches
on a kind's name, and a kind registered later is prompted, typed, replayed, told and probed by the
same code, unchanged."""

from __future__ import annotations

import ast
import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from arena.engine import (
    DECISION_KINDS, Choice, DecisionKind, Game, Narrator, ReplayWriter, decision_kind, event_kind, get_profile,
    register_kind, unregister_kind,
)
from arena.engine.record import game_record
from arena.match.check import _situation
from arena.match.show import render_deal
from arena.players.human import parse_reply, show_legal
from arena.publish.site import frames

ARENA = Path(__file__).resolve().parents[2] / "arena"
#: Where a kind's name may be compared: the engine (which defines the kinds) and the protocol (whose wire
#: models name them).
ALLOWED = ("engine", "protocol")
#: Names compared with a kind's word that are not kinds: a deal's phase, and a profile field whose value
#: happens to be one ("extra_trumps": "discard").
NOT_KINDS = {"phase", "phase_before", "extra_trumps"}
WORDS = {w for k in DECISION_KINDS for w in (k, *decision_kind(k).events)}


def _words(node: ast.expr) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value} & WORDS
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return set().union(*(_words(e) for e in node.elts)) if node.elts else set()
    return set()


def _name(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def kind_comparisons(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, words) of every comparison of something with a decision kind's name or event type."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            words = set().union(*(_words(s) for s in sides))
            if words and not any(_name(s) in NOT_KINDS for s in sides):
                out.append((node.lineno, ", ".join(sorted(words))))
    return out


def test_nothing_above_the_engine_and_the_protocol_branches_on_a_kind_name() -> None:
    found = []
    for path in sorted(ARENA.rglob("*.py")):
        if path.relative_to(ARENA).parts[0] in ALLOWED:
            continue
        found += [f"{path.relative_to(ARENA)}:{line}: {w}" for line, w in kind_comparisons(ast.parse(path.read_text()))]
    assert found == []


def test_the_grep_finds_a_branch_on_a_kind_name() -> None:
    """The check above can fail: an if-chain on kinds (or a membership test of event types) is found,
    a deal's phase is not."""
    src = ('if kind == "bid":\n    pass\nelif kind in ("rob", "call"):\n    pass\n'
           'x = [e for e in ev if e["type"] == "leave_widow"]\nif deal.phase == "play":\n    pass\n')
    assert [line for line, _ in kind_comparisons(ast.parse(src))] == [1, 3, 5]


class _Toy(DecisionKind):
    """A kind a profile might add: ring a bell, or not; its own words for the replay and the viewer."""

    def replay(self, event: dict[str, Any], out: ReplayWriter) -> None:
        out.line(f"{out.label(event['seat'])} {'rings' if event['type'] == 'toy_ring' else 'keeps quiet'}")

    def narrate(self, event: dict[str, Any], out: Narrator) -> None:
        out.say(f"{out.name(event['seat'])} rings the bell." if event["type"] == "toy_ring" else "Silence.")


class _ToyChoice(Choice):
    kind = "toy"
    __slots__ = ("seat",)

    def __init__(self, seat: int) -> None:
        self.seat = seat


@pytest.fixture
def toy() -> Any:
    kind = register_kind(_Toy("toy", ("toy_ring", "toy_quiet"), "whether to ring the bell"))
    yield kind
    unregister_kind("toy")
    assert event_kind("toy_ring") is None


def _played(name: str = "pagat62") -> Game:
    game = Game(key="toy", profile=get_profile(name), max_deals=1)
    rng = random.Random(1)
    while not game.over:
        game.apply(game.choice.sample(rng))
    return game


def test_a_registered_kind_is_prompted_and_typed_by_the_human_seat(toy: DecisionKind) -> None:
    legal = {"options": [{"type": "toy_ring"}, {"type": "toy_quiet"}], "any": {"type": "toy_quiet"}}
    assert show_legal("toy", legal) == "toy: type one of 1 toy_ring, 2 toy_quiet"
    assert parse_reply("toy", legal, "2") == {"type": "toy_quiet"}
    assert parse_reply("toy", legal, "toy_ring") == {"type": "toy_ring"}
    assert parse_reply("toy", legal, "any") == {"type": "toy_quiet"}
    with pytest.raises(ValueError, match="type one of 1 toy_ring, 2 toy_quiet"):
        parse_reply("toy", legal, "3")


def test_a_registered_kind_is_written_in_the_text_replay_and_told_in_the_viewer(toy: DecisionKind) -> None:
    game = _played()
    d = game_record(game)["deals"][0]
    events = d["events"]
    first_play = next(i for i, e in enumerate(events) if event_kind(e["type"]) is decision_kind("play"))
    toy_events = [{"type": "toy_ring", "seat": 1}, {"type": "toy_quiet", "seat": 2}]
    d = {**d, "events": events[:first_play] + toy_events + events[first_play:]}
    text = render_deal(d, game.deals[0]).splitlines()
    assert "  E seat 1 rings" in text and "  S seat 2 keeps quiet" in text
    said = frames._describe(game.deals[0], toy_events, False, frames._Namer([], 4), "play", [0])
    assert said.startswith("E rings the bell. Silence.")


def test_an_unregistered_kind_gets_the_defaults_everywhere() -> None:
    """No subclass at all: typed by its listed options, replayed and told as "seat type"."""
    register_kind(DecisionKind("bell", ("bell",)))
    try:
        game = _played()
        d = game_record(game)["deals"][0]
        d = {**d, "events": [*d["events"], {"type": "bell", "seat": 3}]}
        assert "  W seat 3 bell" in render_deal(d, game.deals[0]).splitlines()
        said = frames._describe(game.deals[0], [{"type": "bell", "seat": 3}], False, frames._Namer([], 4), "play", [0])
        assert said.startswith("W bell.")
        assert show_legal("bell", {"any": {"type": "bell"}}) == "bell: type any (one legal choice)"
        with pytest.raises(ValueError, match="type any"):
            parse_reply("bell", {"any": {"type": "bell"}}, "ring")
    finally:
        unregister_kind("bell")


def test_check_bot_probes_a_registered_kind_under_its_own_name(toy: DecisionKind) -> None:
    game = Game(key="toy", profile=get_profile("pagat62"))
    stand_in = SimpleNamespace(choice=_ToyChoice(0), deal=game.deal)
    assert _situation(stand_in) == "toy"  # type: ignore[arg-type]
    assert toy.probes(get_profile("pagat62")) == {"toy"}
