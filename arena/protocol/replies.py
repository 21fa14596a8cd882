"""What a bot sends (protocol v1): the models every line from a bot is validated against.

Kept apart from the harness's own messages (``messages``, which re-exports
these), so that a run loads only what it validates: the harness builds what
it sends as plain dicts (``wire``), and the models of those are for the
schema and the tests.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

PROTOCOL_VERSIONS: tuple[int, ...] = (1,)


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- bot -> harness ----------------------------------------------------------


class HelloReply(_Msg):
    type: Literal["hello"]
    protocol: int = Field(description="the version the bot chose")
    name: str = Field(min_length=1, max_length=100)
    version: str = Field("", max_length=100)


class _ActionFields(_Msg):
    """The fields an action may carry (each decision kind uses some)."""

    alone: bool | None = None
    amount: int | None = None
    suit: str | None = None
    take: list[str] | None = None
    cards: list[str] | None = None
    card: str | None = None
    under: list[str] | None = None


class ActionMsg(_ActionFields):
    type: Literal["pass", "bid", "trump", "discard", "rob", "play", "call", "take_widow", "leave_widow"]


class ActionReply(_Msg):
    type: Literal["action"]
    id: int
    action: ActionMsg


class OtherActionMsg(_ActionFields):
    """An action of a decision kind registered at run time (``arena.engine.register_kind``): the codec
    reads it with this model once its ``type`` is one the engine registered, and only then."""

    type: str


class OtherActionReply(_Msg):
    type: Literal["action"]
    id: int
    action: OtherActionMsg


FromBot = Annotated[Union[HelloReply, ActionReply], Field(discriminator="type")]
