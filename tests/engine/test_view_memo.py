"""``Game.view_dict``: the request's view built from what changed (``ViewMemo``) is, at every
decision and every deal's end, exactly the view built from scratch, under every profile."""

from __future__ import annotations

import random

import pytest

from arena.engine import Game, get_profile, profile_names
from arena.engine.jsontext import dumps
from arena.engine.view import deal_view, summarize


def _from_scratch(game: Game, seat: int, index: int) -> dict[str, object]:
    previous = tuple(summarize(d) for d in game.deals[:index])
    return deal_view(game.deals[index], seat, previous).to_dict()


@pytest.mark.parametrize("name", profile_names())
def test_the_memo_view_is_the_view_from_scratch_at_every_decision(name: str) -> None:
    profile = get_profile(name)
    rng = random.Random(name)
    checked = 0
    for g in range(2):
        game = Game(profile, key=f"memo-{name}-{g}", max_deals=6)
        while not game.over:
            seat, index = game.to_act, len(game.deals) - 1
            assert game.view_dict(seat) == _from_scratch(game, seat, index)
            # a seat not on move too: the memo's tricks are public, the rest is the seat's own
            other = (seat + 1) % profile.players
            assert game.view_dict(other) == _from_scratch(game, other, index)
            game.apply(game.choice.sample(rng))
            checked += 1
            if len(game.deals) - 1 > index or game.over:  # the deal just ended: its end's view, seat by seat
                for s in range(profile.players):
                    assert game.view_dict(s, index) == _from_scratch(game, s, index)
    assert checked > 40


@pytest.mark.parametrize("name", ["pagat62", "railroad", "sixty-three"])
def test_a_memo_view_is_a_new_dict_each_time(name: str) -> None:
    """A caller that changes the dict it got (as a player adds its time figures, or an in-process bot
    edits its view) changes no later view: in the middle of play, where a seat's view is kept."""
    profile = get_profile(name)
    game = Game(profile, key="memo-fresh")
    rng = random.Random(3)
    while len(game.deals) < 3 or len(game.deal.tricks) < 2:
        game.apply(game.choice.sample(rng))
    seat = game.to_act
    first = game.view_dict(seat)
    again = game.view_dict(seat)
    assert first == again and first is not again
    for key, value in first.items():
        if isinstance(value, list):
            value.append("junk")
    first["maker"] = "junk"
    assert game.view_dict(seat) == _from_scratch(game, seat, len(game.deals) - 1)
    assert len(game.view_dict(seat)["previous"]) == 2


@pytest.mark.parametrize("name", profile_names())
def test_the_view_s_text_is_the_view_encoded_at_every_decision(name: str) -> None:
    """``Game.view_bytes`` (a request's view made from parts encoded once) is the view's dict encoded
    (``jsontext.dumps``), byte for byte: for the seat on move, another seat, and every deal's end."""
    profile = get_profile(name)
    rng = random.Random(f"text-{name}")
    checked = 0
    for g in range(2):
        game = Game(profile, key=f"text-{name}-{g}", max_deals=6)
        while not game.over:
            seat, index = game.to_act, len(game.deals) - 1
            for s in (seat, (seat + 1) % profile.players):
                assert game.view_bytes(s) == dumps(game.view_dict(s)) == dumps(_from_scratch(game, s, index))
            game.apply(game.choice.sample(rng))
            checked += 1
            if len(game.deals) - 1 > index or game.over:
                for s in range(profile.players):
                    assert game.view_bytes(s, index) == dumps(_from_scratch(game, s, index))
    assert checked > 40
