"""The bot protocol: message models, JSON Lines codec and schema. No processes here.

The models of what the harness sends (``messages``) are loaded on first use:
a run validates only what bots send (``replies``) and builds its own
messages as plain dicts (``wire``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names
from . import wire
from .codec import MalformedMessage, choice_to_dict, decode_from_bot, encode
from .replies import PROTOCOL_VERSIONS, ActionReply, HelloReply

if TYPE_CHECKING:
    from .messages import Bye, DealEnd, DealStart, Decide, GameEnd, GameStart, Hello, TimeControl, View

__getattr__ = lazy_names(__name__, {".messages": (
    "Bye", "DealEnd", "DealStart", "Decide", "GameEnd", "GameStart", "Hello", "TimeControl", "View")})


__all__ = [
    "ActionReply", "Bye", "DealEnd", "DealStart", "Decide", "GameEnd", "GameStart", "Hello", "HelloReply",
    "MalformedMessage", "PROTOCOL_VERSIONS", "TimeControl", "View", "choice_to_dict", "decode_from_bot", "encode",
    "wire",
]
