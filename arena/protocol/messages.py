"""Protocol v1 messages between the harness and a bot (JSON Lines).

The pydantic models are the single source of truth: ``docs/protocol.schema.json``
is generated from them and a test keeps the two in sync. Views inside
``decide`` are typed as free objects here because their shape is the
engine's ``View.to_dict()`` (documented in docs/protocol.md); what is
validated strictly is what the *bot* sends, since that is untrusted input.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

PROTOCOL_VERSIONS: tuple[int, ...] = (1,)


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- harness -> bot ----------------------------------------------------------


class Hello(_Msg):
    """First message: the versions the harness speaks and the bot's seed."""

    type: Literal["hello"] = "hello"
    protocol: list[int] = Field(description="protocol versions the harness speaks")
    seed: int = Field(description="seed for the bot's own randomness (differs per game)")
    harness: str = Field(description="harness name and version")


class TimeControl(_Msg):
    startup_ms: int = Field(description="allowance from process start to the hello reply")
    decision_ms: int = Field(description="limit for one decision (bot CPU time, with a wall-clock ceiling)")
    bank_ms: int = Field(description="total time for the whole game")


class GameStart(_Msg):
    type: Literal["game"] = "game"
    seat: int = Field(ge=0, le=3)
    profile: dict[str, Any] = Field(description="the rule profile (RuleProfile fields)")
    match_format: Literal["game", "deals"]
    deals: int | None = Field(None, description="number of deals in the 'deals' format")
    time: TimeControl
    players: list[str] | None = Field(None, description="bot names by seat, only if the tournament reveals them")


class DealStart(_Msg):
    type: Literal["deal"] = "deal"
    index: int
    dealer: int
    hand: list[str] = Field(description="the 9 cards dealt to this seat")
    scores: list[int] = Field(description="scores before this deal, side 0 (seats 0+2) first")


class Decide(_Msg):
    """A decision request; ``view`` and ``legal`` are all a stateless bot needs."""

    type: Literal["decide"] = "decide"
    id: int = Field(description="echo it in the reply")
    kind: Literal["bid", "trump", "rob", "play"]
    view: dict[str, Any] = Field(description="what this seat knows (RULES 9); see docs/protocol.md")
    legal: dict[str, Any] = Field(description="the legal choice; see docs/protocol.md")
    time_left_ms: int = Field(description="what is left of the game's time bank")
    decision_ms: int = Field(description="limit for this decision")


class DealEnd(_Msg):
    type: Literal["deal_end"] = "deal_end"
    index: int
    maker: int
    bid: int
    trump: str
    points: list[int]
    made: bool
    scores: list[int] = Field(description="scores after the deal")
    view: dict[str, Any] = Field(description="the seat's final view of the deal")


class GameEnd(_Msg):
    type: Literal["game_end"] = "game_end"
    scores: list[int]
    winner: int | None = Field(description="winning side (0: seats 0+2, 1: seats 1+3), null for none")
    reason: str = Field(description="target, bidder_out, deals (fixed-deal format), cap, or forfeit")


class Bye(_Msg):
    """Last message; the bot should exit. ``reason`` explains a refusal."""

    type: Literal["bye"] = "bye"
    reason: str | None = None


ToBot = Annotated[Union[Hello, GameStart, DealStart, Decide, DealEnd, GameEnd, Bye], Field(discriminator="type")]


# -- bot -> harness ----------------------------------------------------------


class HelloReply(_Msg):
    type: Literal["hello"]
    protocol: int = Field(description="the version the bot chose")
    name: str = Field(min_length=1, max_length=100)
    version: str = Field("", max_length=100)


class ActionMsg(_Msg):
    type: Literal["pass", "bid", "trump", "rob", "play"]
    amount: int | None = None
    suit: str | None = None
    take: list[str] | None = None
    card: str | None = None
    under: list[str] | None = None


class ActionReply(_Msg):
    type: Literal["action"]
    id: int
    action: ActionMsg


FromBot = Annotated[Union[HelloReply, ActionReply], Field(discriminator="type")]
