"""The bot protocol: message models, JSON Lines codec and schema. No processes here."""

from . import wire
from .codec import MalformedMessage, choice_to_dict, decode_from_bot, encode
from .messages import (
    PROTOCOL_VERSIONS,
    ActionReply,
    Bye,
    DealEnd,
    DealStart,
    Decide,
    GameEnd,
    GameStart,
    Hello,
    HelloReply,
    TimeControl,
    View,
)

__all__ = [
    "ActionReply", "Bye", "DealEnd", "DealStart", "Decide", "GameEnd", "GameStart", "Hello", "HelloReply",
    "MalformedMessage", "PROTOCOL_VERSIONS", "TimeControl", "View", "choice_to_dict", "decode_from_bot", "encode",
    "wire",
]
