"""The JSON forms of the engine's data, typed: an action, a legal choice, a record's event, a view.

These are what records hold and bots read (docs/protocol.md, docs/records.md);
the engine builds them as plain dicts (a class per message would cost more
than the message), and these classes say which keys each has and what their
values are, so the code that reads them is checked. A decision kind
registered at run time may add fields of its own to its action's form: the
engine reads those only through that kind.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NotRequired, Required, TypedDict

if TYPE_CHECKING:  # the one JSON alias (below every floor; a bot's sandbox mounts the engine alone)
    from .._json import JsonObject


class ActionForm(TypedDict, total=False):
    """An action: its ``type`` and the fields that type uses (records and replies)."""

    type: Required[str]
    amount: int
    suit: str
    card: str
    under: list[str]
    take: list[str]
    cards: list[str]
    alone: bool


class EventForm(ActionForm, total=False):
    """One event of a deal's record: an action with its seat and whether it was forced, or a reshuffle
    (``j``, ``kind``, ``stock``)."""

    seat: int
    forced: bool
    j: int
    kind: str
    stock: list[str]


class DealForm(TypedDict):
    """One deal of a game's record (``record.deal_record``, docs/records.md): the keys in the record's
    order; the outcome's only once the deal is over (a void deal's ``redeal`` and ``scores_after``)."""

    index: int
    dealer: int
    origin: str
    reshuffle_key: NotRequired[str | None]  # from version 2
    deck: list[str]
    scores_before: list[int]
    events: list[EventForm]
    redeal: NotRequired[bool]
    maker: NotRequired[int]
    bid: NotRequired[int]
    trump: NotRequired[str]
    trick_winners: NotRequired[list[int | None]]
    points: NotRequired[list[int]]
    made: NotRequired[bool]
    scores_after: NotRequired[list[int]]
    dark: NotRequired[bool]


class GameRecordForm(TypedDict):
    """A game's record (``record.game_record``): what results lines and saved games hold."""

    format: str
    version: int
    profile: JsonObject  # the profile's record form (``RuleProfile.record_dict``)
    key: str | None
    first_dealer: int
    max_deals: int
    fixed_deals: int | None
    deals: list[DealForm]
    scores: list[int]
    over: bool
    winner: int | None
    end: str | None


class SuitedBid(TypedDict):
    amount: int
    suit: str


#: A legal choice as bots read it (``arena.protocol.choice_to_dict``): each kind uses some of these keys
#: (some are Python words, hence this form of the class).
LegalForm = TypedDict("LegalForm", {
    "cards": list[str], "under": int, "under_from": list[str],  # play (also call: cards)
    "pass": bool, "bids": list[int], "suited": list[SuitedBid],  # bid
    "take": int, "from": list[str], "automatic": list[str], "or_all": list[str],  # rob (discard: from)
    "suits": list[str],  # trump
    "least": int, "most": int,  # discard
    "alone": bool,  # call
    "options": list[ActionForm], "any": ActionForm,  # a kind outside the core ones
}, total=False)


class BidForm(TypedDict):
    seat: int
    amount: int
    forced: bool
    suit: NotRequired[str]  # bids that name their suit (None: a pass names none)


class PlayForm(TypedDict):
    seat: int
    card: str
    under: NotRequired[list[str]]


class TrickForm(TypedDict):
    leader: int
    plays: list[PlayForm]
    winner: int | None


class DarkForm(TypedDict):
    seat: int
    amount: int


class SummaryForm(TypedDict):
    """A finished deal's public outcome in a view's ``previous``."""

    index: int
    dealer: int
    maker: int | None
    bid: int
    trump: str | None
    points: list[int]
    made: bool
    scores_after: list[int]
    redeal: NotRequired[bool]
    dark: NotRequired[bool]
    sides: NotRequired[list[int]]
    called: NotRequired[str]


class ViewForm(TypedDict):
    """One seat's view as bots read it (``View.to_dict``): the keys in the wire's order."""

    seat: int
    partner: int | None
    dealer: int
    deal_index: int
    phase: str
    scores: list[int]
    hand: list[str]
    dealt: list[str]
    discarded: list[str]
    received: list[str]
    bids: list[BidForm]
    maker: int | None
    bid: int | None
    trump: str | None
    discard_counts: list[int]
    receive_counts: list[int]
    reshuffles: int
    rob_stock: list[str] | None
    rob_taken: list[str] | None
    tricks: list[TrickForm]
    previous: list[SummaryForm]
    points: list[int] | None
    scores_after: list[int] | None
    shown: NotRequired[list[list[str]] | None]
    dark: NotRequired[list[DarkForm]]
    players: NotRequired[int]
    sides: NotRequired[list[int | None] | None]
    called: NotRequired[str | None]
    alone: NotRequired[bool]


__all__ = ["ActionForm", "BidForm", "DarkForm", "DealForm", "EventForm", "GameRecordForm", "LegalForm", "PlayForm", "SuitedBid",
           "SummaryForm", "TrickForm", "ViewForm"]
