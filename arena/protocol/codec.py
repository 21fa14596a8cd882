"""JSON Lines framing, and the engine's choices in their wire form."""

from __future__ import annotations

import random
from typing import Any, get_args

from pydantic import BaseModel, TypeAdapter, ValidationError

from ..engine import (
    SUITS, BidChoice, Choice, DiscardChoice, PlayChoice, RobChoice, SuitBidChoice, TrumpChoice, action_to_dict, cards_str,
)
from ..engine.actions import CORE_ACTION_TYPES, action_types
from ..engine.jsontext import loads
from .replies import ActionMsg, ActionReply, FromBot, HelloReply, OtherActionReply

_from_bot: TypeAdapter[HelloReply | ActionReply] = TypeAdapter(FromBot)
_validate_json = _from_bot.validator.validate_json  # the core validator: no wrapper call per message
_validate_other = TypeAdapter(OtherActionReply).validator.validate_json


class MalformedMessage(ValueError):
    """A line from a bot that is not valid JSON or not a valid message."""


def encode(msg: BaseModel) -> bytes:
    return msg.model_dump_json(exclude_none=False).encode("utf-8") + b"\n"


def decode_from_bot(line: bytes) -> HelloReply | ActionReply:
    """Parse and validate one line in a single pass (this is on the hot path)."""
    try:
        reply: HelloReply | ActionReply = _validate_json(line)
        return reply
    except ValidationError as e:
        first = e.errors()[0]
        if first["loc"] == ("action", "action", "type") and first["type"] == "literal_error":
            other = _registered_action(line, first["input"])
            if other is not None:
                return other
        if first["type"] == "json_invalid":
            raise MalformedMessage(f"not valid JSON: {first['msg']}") from None
        where = ".".join(str(p) for p in first["loc"]) or "message"
        raise MalformedMessage(f"invalid message at {where}: {first['msg']}") from None


#: What ``read_action`` takes without the models: the action types of ``ActionMsg`` and the type of
#: each optional field's value (a list: of strings).
_ACTION_TYPES = frozenset(get_args(ActionMsg.model_fields["type"].annotation))
_FIELD_TYPES: dict[str, type] = {"alone": bool, "amount": int, "suit": str, "card": str, "take": list, "cards": list,
                                 "under": list}


def read_action(line: bytes) -> tuple[int, dict[str, Any]] | None:
    """(id, action fields) of an action reply in its plainest form, read without the models; None for
    any other line, whose verdict ``decode_from_bot`` then gives.

    It takes only what ``ActionReply`` takes, with the same values: ASCII
    text without escapes, exactly the reply's three keys, an int id, an
    action of a core type whose other keys are the model's fields, each
    null or of its exact JSON type (an int, not a float or a bool; a list
    of strings). Anything the models would coerce (a whole float, ``1`` for
    ``true``) or refuse goes to them (tests/protocol/test_protocol.py holds
    the two to the same verdicts on a corpus of hostile replies). Duplicate
    keys read as the models read them: the last one counts.
    """
    if b"\\" in line or not line.isascii():
        return None
    try:
        msg = loads(line)
    except (ValueError, RecursionError):
        return None
    if type(msg) is not dict or len(msg) != 3 or msg.get("type") != "action":
        return None
    rid, action = msg.get("id"), msg.get("action")
    if type(rid) is not int or type(action) is not dict or type(action.get("type")) is not str:
        return None
    for key, value in action.items():
        if key == "type":
            if value not in _ACTION_TYPES:
                return None
            continue
        want = _FIELD_TYPES.get(key)
        if want is None or value is not None and type(value) is not want:
            return None
        if isinstance(value, list) and any(type(x) is not str for x in value):
            return None
    return rid, action


def _registered_action(line: bytes, type_: object) -> ActionReply | None:
    """The reply, when its action's type is one a decision kind registered at run time names (the
    engine's ``action_types`` beyond the core ones); else None. Read only after the core model refused
    the line, so the replies of the core kinds pay nothing for it."""
    if type_ in CORE_ACTION_TYPES or type_ not in action_types():
        return None
    try:
        other = _validate_other(line)  # the same fields, any type
    except ValidationError:
        return None  # refused as it was: the error the core model gave
    action = ActionMsg.model_construct(**other.action.model_dump())  # (validated above, field for field)
    return ActionReply.model_construct(type="action", id=other.id, action=action)


#: The decision kinds every bot of protocol v1 must know; rule profiles may add others.
CORE_KINDS = ("bid", "trump", "rob", "play")
_ANY_RNG_SEED = "legal.any"


def choice_to_dict(choice: Choice) -> dict[str, Any]:
    """The legal choice as sent to bots: constraints, not lists of combinations.

    A kind outside ``CORE_KINDS`` (a rule profile's own decision) describes
    itself (``Choice.to_wire()``, else the list of its ``options``) and always
    carries ``any``: one legal action, the same for the same decision, that a
    bot which does not know the kind may send back as it is.
    """
    if isinstance(choice, PlayChoice):
        return {"cards": cards_str(choice.cards), "under": choice.under_count, "under_from": cards_str(choice.under_from)}
    if isinstance(choice, SuitBidChoice):  # a bid names its suit (oregon)
        return {"pass": choice.can_pass, "bids": list(choice.amounts),
                "suited": [{"amount": b.amount, "suit": SUITS[b.suit]} for b in choice.options]}  # type: ignore[index]
    if isinstance(choice, BidChoice):
        return {"pass": choice.can_pass, "bids": list(choice.amounts)}
    if isinstance(choice, RobChoice):
        rob: dict[str, Any] = {"take": choice.count, "from": cards_str(choice.candidates), "automatic": cards_str(choice.must_take)}
        if choice.or_all:  # california: or exactly every trump of the stock
            rob["or_all"] = cards_str(choice.or_all)
        return rob
    if isinstance(choice, TrumpChoice):
        suits = getattr(choice, "suits", None)  # a profile may allow fewer than four
        return {"suits": [SUITS[s] for s in suits] if suits is not None else list(SUITS)}
    own = getattr(choice, "to_wire", None)
    if isinstance(choice, DiscardChoice):
        legal: dict[str, Any] = {"least": choice.least, "most": choice.most, "from": cards_str(choice.candidates)}
    elif own is not None:
        legal = dict(own())
    elif choice.enumerable:
        legal = {"options": [action_to_dict(a) for a in choice.actions()]}
    else:
        raise TypeError(f"choice {choice!r} neither describes itself (to_wire) nor can be enumerated")
    legal["any"] = action_to_dict(choice.sample(random.Random(_ANY_RNG_SEED)))
    return legal
