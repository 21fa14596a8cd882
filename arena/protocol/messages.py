"""Protocol v1 messages between the harness and a bot (JSON Lines).

The pydantic models are the single source of truth: the JSON Schema
(``arena/protocol/protocol.schema.json``, shipped with the package) is
generated from them and a test keeps the two in sync. What the *bot* sends
is validated against them on every line (it is untrusted input); what the
harness sends is built by ``wire`` as plain dicts for speed, and the tests
check every kind of message it sends against these models. The bot's
replies live in ``replies`` (re-exported here), so a run need not build the
models of the harness's own messages.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

from .replies import _Msg
from .replies import (  # what a bot sends, in its own module (the models every bot line is validated against)
    PROTOCOL_VERSIONS as PROTOCOL_VERSIONS, ActionMsg as ActionMsg, ActionReply as ActionReply, FromBot as FromBot,
    HelloReply as HelloReply,
)


# -- harness -> bot ----------------------------------------------------------


class ProfileParams(BaseModel):
    """A rule profile with every one of its parameters (the engine's ``RuleProfile``
    fields, docs/rules.md, Profiles). Profiles added later bring parameters of
    their own, so a bot reads the ones it knows and ignores the rest."""

    model_config = ConfigDict(extra="allow")

    name: str = Field(min_length=1, description="the profile's registered name, e.g. pagat62")


class Hello(_Msg):
    """First message: the versions the harness speaks, the bot's seed and the rules it will play."""

    type: Literal["hello"] = "hello"
    protocol: list[int] = Field(description="protocol versions the harness speaks")
    seed: int = Field(ge=0, lt=2**53, description="seed for the bot's own randomness in its first game (each game's comes in `game`); below 2^53 so every JSON reader holds it exactly")
    harness: str = Field(description="harness name and version")
    profile: ProfileParams = Field(description="the rule profile of the game(s) to come, with all its parameters")


class TimeControl(_Msg):
    startup_ms: int = Field(description="allowance from process start to the hello reply")
    decision_ms: int = Field(description="limit for one decision (bot CPU time, with a wall-clock ceiling)")
    bank_ms: int = Field(description="total time for the whole game")


class GameStart(_Msg):
    type: Literal["game"] = "game"
    seat: int = Field(ge=0, le=5)
    seed: int = Field(ge=0, lt=2**53, description="seed for the bot's own randomness in this game: differs per game and"
                      " seat; in a process's first game, the hello's seed")
    profile: ProfileParams = Field(description="the rule profile of this game, with all its parameters")
    match_format: Literal["game", "deals"]
    deals: int | None = Field(None, description="number of deals in the 'deals' format")
    time: TimeControl
    players: list[str] | None = Field(None, description="bot names by seat, only if the tournament reveals them")


class BidRecord(_Msg):
    seat: int = Field(ge=0, le=5)
    amount: int = Field(description="the bid, or 0 for a pass")
    forced: bool = Field(description="the engine applied it: it was the only legal option")
    suit: str | None = Field(None, description="the suit the bid named, under profiles whose bids name one; absent otherwise")


class TrickPlay(_Msg):
    seat: int = Field(ge=0, le=5)
    card: str = Field(description="the top card (the one that competes for the trick)")
    under: list[str] | None = Field(None, description="cards played under the top card (long hands: the first trick, or one a trick under one_per_trick); absent when none")


class TrickRecord(_Msg):
    leader: int = Field(ge=0, le=5)
    plays: list[TrickPlay] = Field(description="in play order; the last trick of a view may be open (fewer than 4, even empty)")
    winner: int | None = Field(description="seat that won it; null while the trick is open")


class DealSummaryMsg(_Msg):
    index: int
    dealer: int
    maker: int | None = Field(description="null for a deal every seat passed (redeal)")
    bid: int
    trump: str | None
    points: list[int] = Field(description="points won by side 0 and side 1 (at cut-throat: by each seat)")
    made: bool
    scores_after: list[int]
    redeal: bool | None = Field(None, description="true for a deal every seat passed (the profile redeals); absent otherwise")
    dark: bool | None = Field(None, description="true when the maker bid in the dark, before the deal; absent otherwise")
    sides: list[int] | None = Field(None, description="tables of other than fixed pairs: each seat's side in the deal")
    called: str | None = Field(None, description="a called partner: the card called; absent when the maker went alone")


class DarkBid(_Msg):
    seat: int = Field(ge=0, le=5)
    amount: int = Field(description="0 for a pass, else the dark bid (the deal's whole total)")


class View(_Msg):
    """Everything one seat may know (docs/rules.md, information sets); nothing more."""

    seat: int = Field(ge=0, le=5)
    partner: int | None = Field(
        ge=0, le=5,
        description="fixed pairs: the seat opposite; a called partner (five-hand, railroad): the maker's partner "
        "once this seat may know it (its holder from the call, everyone once the called card is played), its "
        "partner for the maker's partner; null at cut-throat, for a defender, and before anyone may know")
    dealer: int = Field(ge=0, le=5)
    deal_index: int = Field(ge=0)
    phase: Literal["dark", "bid", "take_widow", "trump", "discard", "rob", "call", "play", "done"] = Field(
        description="'dark': a bid before the cards are dealt (profiles with dark_bid); the hand is empty; "
        "'take_widow': a seat that has just bid or passed takes up its widow or leaves it (profiles with widow)")
    scores: list[int] = Field(description="scores before this deal, side 0 first")
    hand: list[str] = Field(description="the cards this seat holds now")
    dealt: list[str] = Field(description="the cards dealt to this seat")
    discarded: list[str] = Field(description="the cards this seat discarded")
    received: list[str] = Field(description="the cards this seat received in the fill (or took up: a widow, a kitty)")
    bids: list[BidRecord] = Field(description="the bidding so far, in order")
    maker: int | None = Field(description="the seat that won the bidding, once bidding is over")
    bid: int | None = Field(description="the winning bid, once bidding is over")
    trump: str | None
    discard_counts: list[int] = Field(description="how many cards each seat discarded")
    receive_counts: list[int] = Field(description="how many cards each seat received (the dealer: took when robbing)")
    reshuffles: int = Field(description="how many times the discard pile became the stock in this deal")
    rob_stock: list[str] | None = Field(description="dealer only: the stock it robbed")
    rob_taken: list[str] | None = Field(description="dealer only: what it took")
    tricks: list[TrickRecord]
    previous: list[DealSummaryMsg] = Field(description="earlier deals of this game")
    points: list[int] | None = Field(description="points of this deal, once it is over")
    scores_after: list[int] | None
    shown: list[list[str]] | None = Field(
        None,
        description="per seat, the cards it laid face up (discards, extra trumps, trumps left in a robbed stock); "
        "absent under profiles that never show cards",
    )
    dark: list[DarkBid] | None = Field(
        None, description="profiles with dark_bid: each seat's turn before the deal, in order (amount 0: it passed)")
    players: int | None = Field(None, ge=2, le=6, description="tables of other than fixed pairs: the seats (absent: 4)")
    sides: list[int | None] | None = Field(
        None,
        description="tables of other than fixed pairs: each seat's side in this deal as this seat knows it (0: the "
        "maker's side); at cut-throat each seat is its own side; with a called partner null for a seat whose side "
        "this seat cannot know yet (docs/protocol.md, A called partner); absent under fixed pairs")
    called: str | None = Field(None, description="a called partner: the card the maker called (null: it went alone); absent before the call")
    alone: bool | None = Field(None, description="a called partner: whether the maker went alone; absent before the call")


class SuitedBid(_Msg):
    amount: int
    suit: str


class BidLegal(_Msg):
    pass_: bool = Field(alias="pass", description="false only for the dealer when the profile forces a bid")
    bids: list[int] = Field(description="the amounts that may be bid")
    suited: list[SuitedBid] | None = Field(
        None, description="under profiles whose bids name the trump: every legal (amount, suit); absent otherwise"
    )


class TrumpLegal(_Msg):
    suits: list[str]


class RobLegal(_Msg):
    take: int = Field(description="how many cards to take from 'from'")
    from_: list[str] = Field(alias="from", description="the cards to choose from")
    automatic: list[str] = Field(description="cards the dealer takes anyway (every trump)")
    or_all: list[str] | None = Field(
        None, description="under rob 'choose' (california), when the stock holds more trumps than the dealer needs: "
        "the one other legal take, exactly these cards (every trump of the stock); absent otherwise")


class DiscardLegal(_Msg):
    least: int = Field(description="the fewest cards to discard")
    most: int = Field(description="the most cards to discard")
    from_: list[str] = Field(alias="from", description="the cards to choose from (the seat's hand)")
    any: dict[str, Any] = Field(description="one legal action, valid as the reply's action as it is (discard is not a core kind)")


class PlayLegal(_Msg):
    cards: list[str] = Field(description="cards that may be played as the top card")
    under: int = Field(description="how many cards go under the top card (0 but for a long hand: its first play, or under five-hand's one_per_trick each play while its extras last)")
    under_from: list[str] = Field(description="pointless trumps the under cards are chosen from (empty when under is 0)")


class CallLegal(_Msg):
    cards: list[str] = Field(description="the cards the maker may call (any card, or any trump, it does not hold)")
    alone: bool = Field(description="whether the maker may call no card and play alone (railroad)")
    any: dict[str, Any] = Field(description="one legal action, valid as the reply's action as it is (call is not a core kind)")


class OtherLegal(BaseModel):
    """The legal choice of a decision kind a rule profile adds: its own fields,
    plus ``any``, one legal action a bot that does not know the kind may send back."""

    model_config = ConfigDict(extra="allow")

    any: dict[str, Any] = Field(description="one legal action, valid as the reply's action as it is")


class DealStart(_Msg):
    type: Literal["deal"] = "deal"
    index: int
    dealer: int
    hand: list[str] = Field(description="the cards dealt to this seat (9 under pagat62; the profile's packets decide)")
    scores: list[int] = Field(description="scores before this deal, side 0 (seats 0+2) first; one per seat at tables of single scores")


class Decide(_Msg):
    """A decision request; ``view`` and ``legal`` are all a stateless bot needs."""

    type: Literal["decide"] = "decide"
    id: int = Field(description="echo it in the reply")
    kind: str = Field(description="bid, take_widow, trump, discard, rob, call or play; a rule profile may add kinds "
                      "(their legal carries 'any')")
    view: View
    legal: BidLegal | TrumpLegal | DiscardLegal | RobLegal | PlayLegal | CallLegal | OtherLegal = Field(description="the legal choice, as constraints")
    time_left_ms: int = Field(description="what is left of the game's time bank")
    decision_ms: int = Field(description="limit for this decision")


class DealEnd(_Msg):
    type: Literal["deal_end"] = "deal_end"
    index: int
    maker: int | None = Field(description="null for a deal every seat passed (redeal)")
    bid: int
    trump: str | None
    points: list[int]
    made: bool | None
    scores: list[int] = Field(description="scores after the deal")
    view: View = Field(description="the seat's final view of the deal")


class GameEnd(_Msg):
    type: Literal["game_end"] = "game_end"
    scores: list[int]
    winner: int | None = Field(description="winning side (0: seats 0+2, 1: seats 1+3), at tables of single scores the winning seat; null for none")
    reason: str = Field(description="target, bidder_out, moon, floor, deals (fixed-deal format), cap, or forfeit")


class Bye(_Msg):
    """Last message; the bot should exit. ``reason`` explains a refusal."""

    type: Literal["bye"] = "bye"
    reason: str | None = None


ToBot = Annotated[Union[Hello, GameStart, DealStart, Decide, DealEnd, GameEnd, Bye], Field(discriminator="type")]
