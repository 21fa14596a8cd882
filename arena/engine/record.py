"""Game and deal records: the public, versioned format for analysis and replay.

A record holds every chance outcome (each deal's deck, every reshuffle of
the discard pile) and every action in order with its seat and ``forced``
flag, so a game replays exactly without its key. ``docs/records.md``
documents the format; bump ``RECORD_VERSION`` on any incompatible change.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .actions import Action, Play, action_from_dict, action_to_dict
from .cards import CARD_NAMES, SUITS, Card, cards_str, parse_cards
from .deal import Deal
from .game import Game
from .profile import RuleProfile

RECORD_FORMAT = "cinch-game"
RECORD_VERSION = 1


def deal_record(deal: Deal) -> dict[str, Any]:
    """The record of one deal (finished or not); docs/records.md describes it."""
    events: list[dict[str, Any]] = []
    append = events.append
    names = CARD_NAMES
    for ev in deal.events:
        if ev[0] == "act":
            _, seat, action, forced = ev
            if type(action) is Play and not action.under:  # most events: a plain card play
                append({"type": "play", "card": names[action.card], "seat": seat, "forced": forced})
                continue
            d = action_to_dict(action)
            d["seat"] = seat
            d["forced"] = forced
            append(d)
        else:
            append({"type": "reshuffle", "j": ev[1], "stock": cards_str(ev[2])})
    rec: dict[str, Any] = {
        "index": deal.index,
        "dealer": deal.dealer,
        "origin": deal.origin,
        "deck": cards_str(deal.deck),
        "scores_before": list(deal.scores_before),
        "events": events,
    }
    if deal.done:
        rec.update(
            maker=deal.maker,
            bid=deal.high,
            trump=SUITS[deal.trump],  # type: ignore[index]
            trick_winners=[t.winner for t in deal.tricks],
            points=list(deal.points),  # type: ignore[arg-type]
            made=deal.made,
            scores_after=list(deal.scores_after),  # type: ignore[arg-type]
        )
    return rec


def game_record(game: Game) -> dict[str, Any]:
    return {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "profile": game.profile.model_dump(),
        "key": game.key,
        "first_dealer": game.first_dealer,
        "max_deals": game.max_deals,
        "fixed_deals": game.fixed_deals,
        "deals": [deal_record(d) for d in game.deals],
        "scores": list(game.scores),
        "over": game.over,
        "winner": game.winner,
        "end": game.end_reason,
    }


# -- validation at the boundary -------------------------------------------


class EventModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["pass", "bid", "trump", "rob", "play", "reshuffle"]
    seat: int | None = Field(None, ge=0, le=3)
    forced: bool | None = None
    amount: int | None = None
    suit: str | None = None
    take: list[str] | None = None
    card: str | None = None
    under: list[str] | None = None
    j: int | None = None
    stock: list[str] | None = None


class DealRecordModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    index: int = Field(ge=0)
    dealer: int = Field(ge=0, le=3)
    origin: str
    deck: list[str] = Field(min_length=52, max_length=52)
    scores_before: list[int] = Field(min_length=2, max_length=2)
    events: list[EventModel]
    maker: int | None = None
    bid: int | None = None
    trump: str | None = None
    trick_winners: list[int] | None = None
    points: list[int] | None = None
    made: bool | None = None
    scores_after: list[int] | None = None


class GameRecordModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    format: Literal["cinch-game"]
    version: int
    profile: RuleProfile
    key: str | None
    first_dealer: int = Field(ge=0, le=3)
    max_deals: int
    fixed_deals: int | None
    deals: list[DealRecordModel]
    scores: list[int]
    over: bool
    winner: int | None
    end: str | None


class ReplayMismatch(ValueError):
    """Replaying a record gave a different game: the record is corrupt or foreign."""


class RecordedSource:
    """Chance outcomes read back from a record instead of a key."""

    def __init__(self, first_dealer: int, decks: Sequence[list[Card]], reshuffles: dict[tuple[int, int], list[Card]], origins: Sequence[str], key: str | None) -> None:
        self._first = first_dealer
        self._decks = decks
        self._reshuffles = reshuffles
        self._origins = origins
        self.key = key

    def first_dealer(self) -> int:
        return self._first

    def deck(self, k: int) -> list[Card]:
        if k >= len(self._decks):
            raise ReplayMismatch(f"the game goes on past the {len(self._decks)} recorded deals")
        return list(self._decks[k])

    def reshuffle(self, k: int, j: int, pile: Sequence[Card]) -> list[Card]:
        try:
            return list(self._reshuffles[(k, j)])
        except KeyError:
            raise ReplayMismatch(f"deal {k} needs reshuffle {j}, which the record lacks") from None

    def origin(self, k: int) -> str:
        return self._origins[k]


def load_record(data: dict[str, Any]) -> GameRecordModel:
    """Validate a record; refuse versions this code does not read."""
    rec = GameRecordModel.model_validate(data)
    if rec.version != RECORD_VERSION:
        raise ValueError(f"record version {rec.version} is not supported (this harness reads version {RECORD_VERSION})")
    return rec


def replay(data: dict[str, Any]) -> Game:
    """Rebuild a game from its record alone and check it is the same game.

    The replayed game's record must equal the given one field for field, so
    any edit (an action, a deck, a result) raises ``ReplayMismatch``.
    """
    rec = load_record(data)
    try:
        game = _replay(rec)
    except ReplayMismatch:
        raise
    except ValueError as e:  # an illegal recorded action, a deck that is not a deck, a bad card
        raise ReplayMismatch(f"the record does not replay: {e}") from e
    mine = game_record(game)
    theirs = rec.model_dump(exclude_none=True)
    for k, (a, b) in enumerate(zip(mine["deals"], theirs["deals"])):
        if _without_none(a) != b:
            diff = sorted(f for f in set(a) | set(b) if a.get(f) != b.get(f))
            raise ReplayMismatch(f"deal {k}: the replayed deal differs from the record in {', '.join(diff)}")
    if _without_none(mine) != theirs:
        diff = sorted(f for f in set(mine) | set(theirs) if _without_none(mine).get(f) != theirs.get(f))
        raise ReplayMismatch(f"the replayed game differs from the record in {', '.join(diff)}")
    return game


def _without_none(d: dict[str, Any]) -> dict[str, Any]:
    """Drop None fields the way ``model_dump(exclude_none=True)`` does (recursively)."""
    out: dict[str, Any] = {}
    for k, v in d.items():
        if v is None:
            continue
        if isinstance(v, dict):
            v = _without_none(v)
        elif isinstance(v, list):
            v = [_without_none(x) if isinstance(x, dict) else x for x in v]
        out[k] = v
    return out


def recorded_source(rec: GameRecordModel) -> RecordedSource:
    """The chance outcomes of a record, to play its game again (with any players)."""
    decks = [parse_cards(d.deck) for d in rec.deals]
    reshuffles = {
        (d.index, e.j or 0): parse_cards(e.stock or []) for d in rec.deals for e in d.events if e.type == "reshuffle"
    }
    return RecordedSource(rec.first_dealer, decks, reshuffles, [d.origin for d in rec.deals], rec.key)


def recorded_decisions(rec: GameRecordModel) -> list[tuple[int, Action]]:
    """(seat, action) of every decision a player was asked for, in order."""
    return [
        (e.seat, action_from_dict(e.model_dump(exclude_none=True)))  # type: ignore[misc]
        for d in rec.deals
        for e in d.events
        if e.type != "reshuffle" and not e.forced
    ]


def _replay(rec: GameRecordModel) -> Game:
    source = recorded_source(rec)
    game = Game(rec.profile, source=source, max_deals=rec.max_deals, fixed_deals=rec.fixed_deals)
    for d in rec.deals:
        if game.over:
            raise ReplayMismatch(f"the game ended before recorded deal {d.index}")
        deal = game.deal
        if deal.index != d.index:
            raise ReplayMismatch(f"expected deal {d.index}, engine is at deal {deal.index}")
        for e in d.events:
            if e.type == "reshuffle" or e.forced:
                continue  # chance and forced moves are reproduced by the engine itself
            if game.over or game.deal is not deal:
                raise ReplayMismatch(f"deal {d.index} ended before its recorded action {e.type} by seat {e.seat}")
            if deal.to_act != e.seat:
                raise ReplayMismatch(f"deal {d.index}: recorded seat {e.seat} acts, the engine expects seat {deal.to_act}")
            game.apply(action_from_dict(e.model_dump(exclude_none=True)))
        if deal_record(deal)["events"] != [e.model_dump(exclude_none=True) for e in d.events]:
            raise ReplayMismatch(f"deal {d.index}: the replayed events differ from the record")
    return game
