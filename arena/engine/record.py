"""Game and deal records: the public, versioned format for analysis and replay.

A record holds every chance outcome (each deal's deck, every reshuffle of
the discard pile) and every action in order with its seat and ``forced``
flag, so a game replays exactly without its key, plus each deal's
reshuffle key, so any reshuffle of a deal (also one another line of play
would need) can be dealt again. ``docs/records.md`` documents the format;
bump ``RECORD_VERSION`` on any change of shape and keep reading the old ones.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal, cast

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

from .actions import Action, Play, action_from_dict, action_to_dict, action_types
from .cards import CARD_NAMES, SUITS, Card, cards_str, parse_cards
from .chance import reshuffle as keyed_reshuffle
from .deal import Deal
from .forms import DealForm, EventForm, GameRecordForm
from .game import Game
from .profile import LEGACY_POINT_FIELDS, LEGACY_PROFILE_FIELDS, RuleProfile

if TYPE_CHECKING:  # the one JSON alias (below every floor; a bot's sandbox mounts the engine alone)
    from .._json import JsonObject

RECORD_FORMAT = "cinch-game"
RECORD_VERSION = 2
PROFILES_RECORD_VERSION = 3
READABLE_VERSIONS = (1, 2, 3)
"""Version 2 added ``reshuffle_key`` to deal records and ``kind`` to reshuffle
events; version 3 added the profile fields beyond the first twelve,
``discard`` events and void deals (``redeal``). A game that needs none of
version 3's additions is written as version 2, so every ``pagat62`` record
is what it always was; version 1 and 2 records still load and replay."""


def record_version(profile: RuleProfile) -> int:
    """The version a game under ``profile`` is written as (see READABLE_VERSIONS)."""
    d = profile.record_dict()
    points = d["points"]
    legacy = set(d) <= LEGACY_PROFILE_FIELDS and isinstance(points, dict) and set(points) <= LEGACY_POINT_FIELDS
    return RECORD_VERSION if legacy else PROFILES_RECORD_VERSION


def deal_record(deal: Deal) -> DealForm:
    """The record of one deal (finished or not); docs/records.md describes it."""
    events: list[EventForm] = []
    append = events.append
    names = CARD_NAMES
    for ev in deal.events:
        if ev[0] == "act":
            _, seat, action, forced = ev
            if type(action) is Play and not action.under:  # most events: a plain card play
                append({"type": "play", "card": names[action.card], "seat": seat, "forced": forced})
                continue
            d: EventForm = action_to_dict(action)  # type: ignore[assignment]  # an action's form, then its seat
            d["seat"] = seat
            d["forced"] = forced
            append(d)
        else:
            append({"type": "reshuffle", "j": ev[1], "kind": ev[3], "stock": cards_str(ev[2])})
    rec: DealForm = {
        "index": deal.index,
        "dealer": deal.dealer,
        "origin": deal.origin,
        "reshuffle_key": deal.reshuffle_key,
        "deck": cards_str(deal.deck),
        "scores_before": list(deal.scores_before),
        "events": events,
    }
    if deal.redeal:  # every seat passed: no trump, no play, no score
        rec["redeal"] = True
        rec["scores_after"] = list(deal.scores_after)  # type: ignore[arg-type]
    elif deal.done:  # the keys in this order (a record's bytes)
        rec["maker"] = deal.maker  # type: ignore[typeddict-item]  # a deal over has a maker and a result
        rec["bid"] = deal.high
        rec["trump"] = SUITS[deal.trump]  # type: ignore[index]
        rec["trick_winners"] = [t.winner for t in deal.tricks]
        rec["points"] = list(deal.points)  # type: ignore[arg-type]
        rec["made"] = deal.made  # type: ignore[typeddict-item]
        rec["scores_after"] = list(deal.scores_after)  # type: ignore[arg-type]
        if deal.in_dark:  # the maker bid before the deal (the bid's value is the profile's dark_bid)
            rec["dark"] = True
    return rec


def deal_sides(deal: DealForm, players: int, sides: str) -> list[int] | None:
    """Each seat's side in a scored deal of a record (a deal record's dict; None for a deal not
    scored: a void deal, or one a forfeit cut short). Pairs: seats 0+2 are side 0; each for
    himself: every seat its own side; a called partner: the maker and the seat that played the
    called card (its holder must play it to the first trick, docs/rules.md 14) are side 0, the
    rest side 1, the maker alone when it went alone or nobody held the card."""
    if deal.get("redeal") or deal.get("scores_after") is None or deal.get("maker") is None:
        return None
    if sides == "pairs":
        return [s % 2 for s in range(players)]
    if sides == "each":
        return list(range(players))
    maker = int(deal["maker"])
    events = deal.get("events") or []
    called = next((e.get("card") for e in events if e.get("type") == "call"), None)
    partner = next((e.get("seat") for e in events if e.get("type") == "play" and called is not None
                    and e.get("card") == called), None)
    return [0 if s == maker or s == partner else 1 for s in range(players)]


def game_record(game: Game) -> dict[str, Any]:
    """A game's record (a ``GameRecordForm``), as a dict: readers above the engine (a benchmark's
    replay check) still hold it as one."""
    rec: GameRecordForm = {
        "format": RECORD_FORMAT,
        "version": record_version(game.profile),
        "profile": game.profile.record_dict(),
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
    return rec  # type: ignore[return-value]


# -- validation at the boundary -------------------------------------------


def _event_type(value: str) -> str:
    """An event's type: a reshuffle, or an action type the engine reads (``actions.action_types``)."""
    known = (*action_types(), "reshuffle")
    if value not in known:
        expected = ", ".join(f"'{t}'" for t in known[:-1]) + f" or '{known[-1]}'"
        raise PydanticCustomError("literal_error", "Input should be {expected}", {"expected": expected})
    return value


class EventModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Annotated[str, AfterValidator(_event_type)]  # an action type (the core ones, or a registered kind's), or "reshuffle"
    seat: int | None = Field(None, ge=0, le=5)
    forced: bool | None = None
    amount: int | None = None
    suit: str | None = None
    take: list[str] | None = None
    cards: list[str] | None = None
    card: str | None = None
    alone: bool | None = None
    under: list[str] | None = None
    j: int | None = None
    kind: Literal["fill", "rob"] | None = None
    stock: list[str] | None = None


class DealRecordModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    index: int = Field(ge=0)
    dealer: int = Field(ge=0, le=5)
    origin: str
    reshuffle_key: str | None = None
    deck: list[str] = Field(min_length=1, max_length=53, description="the profile's deck: 52 cards, 53 with the joker, or a short deck's (lipton: 32)")
    scores_before: list[int] = Field(min_length=2, max_length=6)
    events: list[EventModel]
    maker: int | None = None
    bid: int | None = None
    trump: str | None = None
    trick_winners: list[int] | None = None
    points: list[int] | None = None
    made: bool | None = None
    redeal: bool | None = None
    dark: bool | None = None
    scores_after: list[int] | None = None


class GameRecordModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    format: Literal["cinch-game"]
    version: int
    profile: RuleProfile
    key: str | None
    first_dealer: int = Field(ge=0, le=5)
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

    def __init__(
        self,
        first_dealer: int,
        decks: Sequence[list[Card]],
        reshuffles: dict[tuple[int, int], list[Card]],
        origins: Sequence[str],
        key: str | None,
        reshuffle_keys: Sequence[str | None] = (),
    ) -> None:
        self._first = first_dealer
        self._decks = decks
        self._reshuffles = reshuffles
        self._origins = origins
        self._reshuffle_keys = reshuffle_keys
        self.key = key

    def first_dealer(self, players: int = 4) -> int:
        return self._first

    def deck(self, k: int, cards: int = 52) -> list[Card]:
        """The recorded deck (``cards``, the profile's deck size, is the engine's to check)."""
        if k >= len(self._decks):
            raise ReplayMismatch(f"the game goes on past the {len(self._decks)} recorded deals")
        return list(self._decks[k])

    def reshuffle(self, k: int, j: int, pile: Sequence[Card]) -> list[Card]:
        """The recorded reshuffle; one the game did not need (other players
        may) is dealt from the deal's recorded reshuffle key."""
        recorded = self._reshuffles.get((k, j))
        if recorded is not None:
            return list(recorded)
        rkey = self.reshuffle_key(k)
        if rkey is None:
            raise ReplayMismatch(f"deal {k} needs reshuffle {j}, which the record lacks (and it names no reshuffle key)")
        return keyed_reshuffle(rkey, k, j, pile)

    def origin(self, k: int) -> str:
        return self._origins[k]

    def reshuffle_key(self, k: int) -> str | None:
        return self._reshuffle_keys[k] if k < len(self._reshuffle_keys) else None


def load_record(data: JsonObject | GameRecordForm) -> GameRecordModel:
    """Validate a record; refuse versions this code does not read."""
    rec = GameRecordModel.model_validate(data)
    if rec.version not in READABLE_VERSIONS:
        known = ", ".join(map(str, READABLE_VERSIONS))
        raise ValueError(f"record version {rec.version} is not supported (this harness reads versions {known})")
    size = rec.profile.deck_size
    seats = rec.profile.players
    if rec.first_dealer >= seats:
        raise ValueError(f"first_dealer {rec.first_dealer}: the profile seats {seats}")
    for d in rec.deals:
        if len(d.deck) != size:
            raise ValueError(f"deal {d.index}: a deck of {len(d.deck)} cards, the profile deals {size}")
        if d.dealer >= seats or any(e.seat is not None and e.seat >= seats for e in d.events):
            raise ValueError(f"deal {d.index}: a seat beyond the profile's {seats}")
        if len(d.scores_before) != rec.profile.score_slots:
            raise ValueError(f"deal {d.index}: {len(d.scores_before)} scores, the profile keeps {rec.profile.score_slots}")
    given = data.get("profile")
    fields = given if isinstance(given, dict) else {}  # the profile's fields as the record names them
    later = sorted(set(fields) - LEGACY_PROFILE_FIELDS)
    points = fields.get("points")
    if isinstance(points, dict):
        later += [f"points.{k}" for k in sorted(set(points) - LEGACY_POINT_FIELDS)]
    if rec.version == PROFILES_RECORD_VERSION and record_version(rec.profile) != rec.version:
        # one version per content: a game that needs nothing of version 3 is written as version 2
        raise ValueError(f"record version {rec.version} is for profiles with later fields; this record's profile makes it version {RECORD_VERSION}")
    if rec.version < PROFILES_RECORD_VERSION:
        if later:
            raise ValueError(f"profile fields {', '.join(later)} need record version {PROFILES_RECORD_VERSION}, not {rec.version}")
        for d in rec.deals:
            if d.redeal is not None or d.dark is not None or any(e.type == "discard" for e in d.events):
                raise ValueError(f"deal {d.index}: redeals and discard events need record version {PROFILES_RECORD_VERSION}")
    if rec.version >= 2:
        for d in rec.deals:
            for e in d.events:
                if e.type == "reshuffle" and e.kind is None:
                    raise ValueError(f"deal {d.index}: a version {rec.version} reshuffle event needs 'kind' (fill or rob)")
    else:
        for d in rec.deals:
            if d.reshuffle_key is not None or any(e.kind is not None for e in d.events):
                raise ValueError(f"deal {d.index}: version 1 records have no reshuffle_key or reshuffle kind")
    return rec


def _as_version(deal_rec: DealForm, version: int) -> DealForm:
    """A deal record written now, in the shape of an older ``version``."""
    if version >= 2:
        return deal_rec
    out = deal_rec.copy()
    del out["reshuffle_key"]
    out["events"] = [e.copy() for e in deal_rec["events"]]
    for e in out["events"]:
        e.pop("kind", None)
    return out


def replay(data: JsonObject | GameRecordForm) -> Game:
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
    mine: GameRecordForm = game_record(game)  # type: ignore[assignment]
    mine["version"] = rec.version
    mine["deals"] = [_as_version(d, rec.version) for d in mine["deals"]]
    # the profile compares in its record form (later fields only where not default)
    theirs = _without_none({**rec.model_dump(exclude_none=True), "profile": rec.profile.record_dict()})
    for k, (a, b) in enumerate(zip(mine["deals"], cast("list[dict[str, object]]", theirs["deals"]))):
        if _without_none(a) != b:
            diff = sorted(f for f in set(a) | set(b) if a.get(f) != b.get(f))
            raise ReplayMismatch(f"deal {k}: the replayed deal differs from the record in {', '.join(diff)}")
    if _without_none(mine) != theirs:
        diff = sorted(f for f in set(mine) | set(theirs) if _without_none(mine).get(f) != theirs.get(f))
        raise ReplayMismatch(f"the replayed game differs from the record in {', '.join(diff)}")
    return game


def _without_none(d: Mapping[str, object]) -> dict[str, object]:
    """Drop None fields the way ``model_dump(exclude_none=True)`` does (recursively)."""
    out: dict[str, object] = {}
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
    origins = [d.origin for d in rec.deals]
    return RecordedSource(rec.first_dealer, decks, reshuffles, origins, rec.key, [d.reshuffle_key for d in rec.deals])


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
        if _as_version(deal_record(deal), rec.version)["events"] != [e.model_dump(exclude_none=True) for e in d.events]:
            raise ReplayMismatch(f"deal {d.index}: the replayed events differ from the record")
    return game
