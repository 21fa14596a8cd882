"""Every message the harness sends, built in one place.

Messages are plain dicts (building a pydantic model per decision would
cost more than the round trip it describes); their shape is the models'
in ``messages``, and the tests validate every kind built here against
them. ``encode`` is the one serialiser of the harness side.
"""

from __future__ import annotations

import importlib
import json
from typing import Any, Callable, Sequence

from ..engine import SUITS, Choice, Game, cards_str
from .codec import choice_to_dict

_dumps = json.JSONEncoder(separators=(",", ":")).encode
_fast: Callable[..., bytes] | None = None
_NEWLINE = 0
try:  # a dependency; an environment made before it was one writes the same bytes, slower
    _orjson = importlib.import_module("orjson")
    _fast, _NEWLINE = _orjson.dumps, _orjson.OPT_APPEND_NEWLINE
except ImportError:
    pass
#: The messages of a game's play, built from the engine's views and choices: ints, card and
#: suit names, booleans and nulls only, no floats (which orjson writes differently).
_FAST_KINDS = frozenset({"decide", "deal", "deal_end"})


def encode(msg: dict[str, Any]) -> bytes:
    """One JSON line, newline included: the bytes of ``json.dumps(msg, separators=(",", ":"))``.

    The messages of play (about 300 a game, most of them requests with a
    whole view) go through orjson, several times faster than the standard
    library; its output is the same bytes for what they hold (no floats,
    which the two write differently: tests/protocol/test_encoding.py holds
    every profile's messages to it), and a line with a character the
    standard library escapes and orjson does not (beyond ASCII, or DEL), or
    that orjson refuses (an int beyond 64 bits), is written by the standard
    library. The rest (hello, game, game_end, bye)
    carry the rule profile and the time settings and are written by the
    standard library always.
    """
    if _fast is not None and msg.get("type") in _FAST_KINDS:
        try:
            line = _fast(msg, option=_NEWLINE)
        except TypeError:
            pass
        else:
            if line.isascii() and b"\x7f" not in line:
                return line
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
    return {"type": "decide", "id": request_id, "kind": choice.kind, "view": game.view_dict(seat),
            "legal": choice_to_dict(choice)}


def deal_end(game: Game, index: int, seat: int) -> dict[str, Any]:
    d = game.deals[index]
    return {
        "type": "deal_end", "index": index, "maker": d.maker, "bid": d.high,
        "trump": SUITS[d.trump] if d.trump is not None else None,
        "points": list(d.points or ()), "made": d.made, "scores": list(d.scores_after or ()),
        "view": game.view_dict(seat, index),
    }


def game_end(scores: Sequence[int], winner: int | None, reason: str) -> dict[str, Any]:
    return {"type": "game_end", "scores": list(scores), "winner": winner, "reason": reason}


def bye(reason: str | None) -> dict[str, Any]:
    return {"type": "bye", "reason": reason}
