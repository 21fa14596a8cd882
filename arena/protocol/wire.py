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

from .._json import Json, JsonObject
from ..engine import SUITS, Choice, Game, PlayChoice, cards_str
from ..engine.view import cards_json
from ..engine.jsontext import dumps, loads
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
    if type(msg) is Encoded:
        return msg.line
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


class Encoded(dict[str, Json]):
    """A message with its line already written (``encode`` returns it as it is): made for one
    player, which reads it or has it sent, and changed by nobody."""

    __slots__ = ("line",)

    def __init__(self, msg: JsonObject, line: bytes) -> None:
        super().__init__(msg)
        self.line = line


def game_starts(profile: JsonObject, match_format: str, deals: int | None, time: JsonObject,
                players: Sequence[str] | None) -> Callable[[int, int], JsonObject]:
    """``game_start`` for a seat and its seed, all of a game's four encoded from one text of what they
    share (the rule profile, most of the line: the standard library's encoding is slow on it)."""
    shared = _dumps({"profile": profile, "match_format": match_format, "deals": deals, "time": time,
                     "players": list(players) if players is not None else None}).encode()

    def notice(seat: int, seed: int) -> JsonObject:
        line = b'{"type":"game","seat":%d,"seed":%d,%b\n' % (seat, seed, shared[1:])
        return Encoded(game_start(seat, seed, profile, match_format, deals, time, players), line)
    return notice


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


class Request:
    """A ``decide`` request as the bytes a bot reads; its dict made only when asked (a fault keeps
    it, an in-process player reads it).

    ``request`` builds the text from parts encoded once (``Game.view_bytes``):
    the same bytes as ``encode`` of ``decide``'s dict with the player's time
    figures added (tests/protocol/test_encoding.py). A request made ``of`` a
    dict (a test's, a replay's) is that dict, which ``set_time`` adds to,
    as players always did; its text is then that dict encoded.
    """

    __slots__ = ("id", "kind", "_head", "_dict", "_time")

    def __init__(self, request_id: int, kind: str, head: bytes | None, msg: dict[str, Any] | None) -> None:
        self.id, self.kind, self._head, self._dict = request_id, kind, head, msg
        self._time: tuple[int, int] | None = None

    @classmethod
    def of(cls, msg: dict[str, Any]) -> "Request":
        return cls(msg["id"], msg["kind"], None, msg)

    def set_time(self, time_left_ms: int, decision_ms: int) -> None:
        """The player's time figures, sent after the legal choice (``time_left_ms``, ``decision_ms``)."""
        self._time = (time_left_ms, decision_ms)
        if self._dict is not None:
            self._dict["time_left_ms"], self._dict["decision_ms"] = time_left_ms, decision_ms

    def line(self) -> bytes:
        """The JSON line, newline included."""
        if self._head is None:
            assert self._dict is not None
            return encode(self._dict)
        if self._time is None:
            return self._head + b"}\n"
        return b'%b,"time_left_ms":%d,"decision_ms":%d}\n' % (self._head, *self._time)

    def to_dict(self) -> dict[str, Any]:
        """The message as a dict, made once (read from its text) and the same object after: what a
        player adds to it, a fault that keeps it sees, as when requests were dicts."""
        if self._dict is None:
            self._dict = loads(self.line())
        return self._dict


#: The core kinds' names as JSON strings (a kind a profile adds is encoded when asked).
_KIND_TEXT = {k: dumps(k) for k in ("bid", "trump", "rob", "play")}


def request(game: Game, seat: int, choice: Choice, request_id: int) -> Request:
    """``decide(...)`` as its text, made from the view's parts encoded once and the legal choice."""
    kind = choice.kind
    head = b'{"type":"decide","id":%d,"kind":%b,"view":%b,"legal":%b' % (
        request_id, _KIND_TEXT.get(kind) or dumps(kind), game.view_bytes(seat), choice_text(choice))
    return Request(request_id, kind, head, None)


def choice_text(choice: Choice) -> bytes:
    """``dumps(choice_to_dict(choice))``: a play's (most requests) written straight from its cards."""
    if type(choice) is PlayChoice:
        return b'{"cards":%b,"under":%d,"under_from":%b}' % (
            cards_json(choice.cards), choice.under_count, cards_json(choice.under_from))
    return dumps(choice_to_dict(choice))


def deal_end(game: Game, index: int, seat: int) -> dict[str, Any]:
    return deal_ends(game, index, (seat,))[0]


def deal_ends(game: Game, index: int, seats: Sequence[int]) -> list[JsonObject]:
    """``deal_end`` for each of ``seats``, each with its line written (``Encoded``): ``deal_end_notices``' dicts."""
    return [n.to_dict() for n in deal_end_notices(game, index, seats)]


class Notice:
    """A notice as the line a bot reads, its dict (an ``Encoded`` of that line) made only when asked: a
    player that writes it to a bot sends the line (``ProcessPlayer``), the others read the dict."""

    __slots__ = ("line", "_fields", "_view", "_dict")

    def __init__(self, line: bytes, fields: JsonObject, view: bytes) -> None:
        self.line, self._fields, self._view = line, fields, view
        self._dict: Encoded | None = None

    def to_dict(self) -> Encoded:
        """The message as a dict (its fields and its view read back from the text), made once."""
        if self._dict is None:
            self._dict = Encoded({**self._fields, "view": loads(self._view)}, self.line)
        return self._dict


def notice_dict(msg: JsonObject | Notice) -> JsonObject:
    """A notice as a dict, whichever form it came in."""
    return msg.to_dict() if type(msg) is Notice else msg  # type: ignore[return-value]


def deal_end_notices(game: Game, index: int, seats: Sequence[int]) -> list[Notice]:
    """``deal_end`` for each of ``seats`` as its line: the deal's outcome encoded once for all of them,
    each seat's view spliced in as its text (``Game.view_bytes``); the bytes of encoding each dict
    (tests/protocol/test_encoding.py). The view is read back to a dict only if a player asks."""
    d = game.deals[index]
    fields: JsonObject = {
        "type": "deal_end", "index": index, "maker": d.maker, "bid": d.high,
        "trump": SUITS[d.trump] if d.trump is not None else None,
        "points": list(d.points or ()), "made": d.made, "scores": list(d.scores_after or ()),
    }
    head = dumps(fields)[:-1] + b',"view":'
    out: list[Notice] = []
    for seat in seats:
        view = game.view_bytes(seat, index)
        out.append(Notice(b"%b%b}\n" % (head, view), fields, view))
    return out


def game_end(scores: Sequence[int], winner: int | None, reason: str) -> dict[str, Any]:
    return {"type": "game_end", "scores": list(scores), "winner": winner, "reason": reason}


def bye(reason: str | None) -> dict[str, Any]:
    return {"type": "bye", "reason": reason}
