"""Every message the harness sends, built in one place.

Messages are plain dicts (building a pydantic model per decision would
cost more than the round trip it describes); their shape is the models'
in ``messages``, and the tests validate every kind built here against
them. ``encode`` is the one serialiser of the harness side.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from ..engine import SUITS, Choice, Game, cards_str
from .codec import choice_to_dict

_dumps = json.JSONEncoder(separators=(",", ":")).encode


def encode(msg: dict[str, Any]) -> bytes:
    """One JSON line, newline included."""
    return (_dumps(msg) + "\n").encode()


def hello(versions: Sequence[int], seed: int, harness: str, profile: dict[str, Any]) -> dict[str, Any]:
    """``profile``: the rule profile's parameters, all of them (``RuleProfile.model_dump()``)."""
    return {"type": "hello", "protocol": list(versions), "seed": seed, "harness": harness, "profile": profile}


def game_start(seat: int, seed: int, profile: dict[str, Any], match_format: str, deals: int | None,
               time: dict[str, Any], players: Sequence[str] | None) -> dict[str, Any]:
    return {"type": "game", "seat": seat, "seed": seed, "profile": profile, "match_format": match_format, "deals": deals,
            "time": time, "players": list(players) if players is not None else None}


def deal_start(game: Game, seat: int) -> dict[str, Any]:
    deal = game.deal
    return {"type": "deal", "index": deal.index, "dealer": deal.dealer, "hand": cards_str(deal.dealt[seat]),
            "scores": list(deal.scores_before)}


def decide(game: Game, seat: int, choice: Choice, request_id: int) -> dict[str, Any]:
    """The request for the seat on move: its view and the legal choice, nothing else.

    The player adds its time figures (``time_left_ms``, ``decision_ms``).
    """
    return {"type": "decide", "id": request_id, "kind": choice.kind, "view": game.view(seat).to_dict(),
            "legal": choice_to_dict(choice)}


def deal_end(game: Game, index: int, seat: int) -> dict[str, Any]:
    from ..engine.view import deal_view, summarize

    d = game.deals[index]
    previous = tuple(summarize(x) for x in game.deals[:index])
    return {
        "type": "deal_end", "index": index, "maker": d.maker, "bid": d.high,
        "trump": SUITS[d.trump] if d.trump is not None else None,
        "points": list(d.points or ()), "made": d.made, "scores": list(d.scores_after or ()),
        "view": deal_view(d, seat, previous).to_dict(),
    }


def game_end(scores: Sequence[int], winner: int | None, reason: str) -> dict[str, Any]:
    return {"type": "game_end", "scores": list(scores), "winner": winner, "reason": reason}


def bye(reason: str | None) -> dict[str, Any]:
    return {"type": "bye", "reason": reason}
