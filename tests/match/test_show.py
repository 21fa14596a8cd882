"""Games as text under every rule profile: the renderer follows the engine's replay."""

from __future__ import annotations

import random
import re

import pytest

from arena.engine import PROFILES, Game, ReplayMismatch, game_record
from arena.match.show import render_game


def random_record(name: str, seed: int) -> dict:
    game = Game(PROFILES[name], key=f"show-{seed}", max_deals=4)
    rng = random.Random(seed)
    while not game.over:
        game.apply(game.choice.sample(rng))
    return game_record(game)


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_every_card_played_and_every_event_is_shown(name: str) -> None:
    for seed in range(3):
        record = random_record(name, seed)
        seats = int(record["profile"].get("players", 4))
        text = render_game(record, ["a", "b", "c", "d", "e", "f"][:seats])
        deals = text.split("--- deal ")[1:]
        assert len(deals) == len(record["deals"])
        for d, block in zip(record["deals"], deals):
            plays = [e for e in d["events"] if e["type"] == "play"]
            shown = re.findall(r"^  trick \d+: (.*) -> (?:[NESW]|P\d)$", block, re.M)
            assert sum(len(t.split(", ")) for t in shown) == len(plays)
            assert len(shown) == len(d.get("trick_winners") or [])
            for e in d["events"]:
                if e["type"] == "discard":
                    assert f"discards [{' '.join(e['cards']) or '-'}]" in block
                if e["type"] == "rob":
                    assert f"choosing [{' '.join(e['take']) or '-'}]" in block
                if e["type"] == "call":  # a called partner (rules 14)
                    assert ("goes alone" if e.get("alone") else f"calls {e['card']}") in block
            if d.get("redeal"):
                assert "the deal is void" in block
            elif d.get("points") is not None:
                assert "points " + " : ".join(map(str, d["points"])) in block


def test_an_edited_record_is_refused_not_shown() -> None:
    record = random_record("pagat62", 1)
    record["deals"][0]["scores_after"] = [99, 99]
    with pytest.raises(ReplayMismatch):
        render_game(record)


def test_the_card_left_undealt_under_the_joker_is_shown_after_the_deal() -> None:
    record = random_record("sixty-three-joker", 2)
    blocks = render_game(record).split("--- deal ")[1:]
    for d, block in zip(record["deals"], blocks):
        played = d.get("redeal") is None
        assert (f"left undealt, face down, seen by nobody: {d['deck'][-1]}" in block) == played
        if played:
            assert "JK" in block


def test_a_widow_left_face_down_is_shown_with_its_answer() -> None:
    """monterey-widow (rules 12.14): each widow with its cards, a left one marked, and each seat's
    answer beside its bid or pass."""
    record = random_record("monterey-widow", 4)
    blocks = render_game(record).split("--- deal ")[1:]
    left_seen = 0
    for d, block in zip(record["deals"], blocks):
        for e in d["events"]:
            if e["type"] in ("take_widow", "leave_widow"):
                seat = "NESW"[e["seat"]]
                answer = "takes its widow" if e["type"] == "take_widow" else "leaves its widow"
                assert re.search(rf"\b{seat} (?:pass|\d+)(?: \(forced\))? \({answer}\)", block), (seat, answer)
                widow = re.search(rf"^  widow {seat} +(.*)$", block, re.M)
                assert widow and widow.group(1).endswith("(left: face up, out of play, once the bidding is over)") == (e["type"] == "leave_widow")
                left_seen += e["type"] == "leave_widow"
        assert "left undealt" not in block
    assert left_seen
