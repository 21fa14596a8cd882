"""Protocol v1: the schema file matches the models, the codec refuses bad
input with a clear reason, and choices go on the wire as constraints."""

import json
import random

import pytest

from arena.engine import Game, action_from_dict, parse_cards
from arena.match.check import probe_positions
from arena.protocol import ActionReply, HelloReply, MalformedMessage, choice_to_dict, decode_from_bot
from arena.protocol.schema import SCHEMA_PATH, render


def test_schema_file_is_generated_from_the_models():
    assert SCHEMA_PATH.read_text() == render(), "run: python -c 'from arena.protocol import schema; schema.write()'"


def test_schema_describes_both_directions():
    schema = json.loads(render())
    to_bot = json.dumps(schema["$defs"]["to_bot"]) + json.dumps(schema["$defs"])
    for kind in ("hello", "game", "deal", "decide", "deal_end", "game_end", "bye"):
        assert f'"const": "{kind}"' in to_bot
    assert "action" in json.dumps(schema["$defs"]["from_bot"])


def test_one_root_schema_a_validator_takes_as_it_is():
    """`arena schema` prints one schema: its root accepts a message of either direction, and each
    direction is a definition of it ($defs/to_bot, $defs/from_bot) for a validator to check one side."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(render())
    jsonschema.Draft202012Validator.check_schema(schema)
    root = jsonschema.Draft202012Validator(schema)

    def side(d):
        return jsonschema.Draft202012Validator({**schema, "anyOf": [{"$ref": f"#/$defs/{d}"}]})

    game = Game(key="schema-root")
    view = game.view(game.to_act).to_dict()
    decide = {"type": "decide", "id": 1, "kind": game.choice.kind, "view": view, "legal": choice_to_dict(game.choice),
              "time_left_ms": 100, "decision_ms": 10}
    reply = {"type": "action", "id": 1, "action": {"type": "pass"}}
    hello = {"type": "hello", "protocol": 1, "name": "x", "version": "2"}
    for msg in (decide, {"type": "bye", "reason": None}):
        assert root.is_valid(msg) and side("to_bot").is_valid(msg) and not side("from_bot").is_valid(msg)
    for msg in (reply, hello):
        assert root.is_valid(msg) and side("from_bot").is_valid(msg) and not side("to_bot").is_valid(msg)
    for bad in ({"type": "dance"}, {**reply, "id": "one"}, {**decide, "view": {}}, [1, 2]):
        assert not root.is_valid(bad)


def test_valid_replies_decode():
    hello = decode_from_bot(b'{"type":"hello","protocol":1,"name":"x","version":"2"}')
    assert isinstance(hello, HelloReply) and hello.name == "x"
    reply = decode_from_bot(b'{"type":"action","id":7,"action":{"type":"play","card":"KC","under":["3H"]}}')
    assert isinstance(reply, ActionReply) and reply.id == 7
    assert action_from_dict(vars(reply.action)).under == tuple(parse_cards(["3H"]))


@pytest.mark.parametrize(
    "line,fragment",
    [
        (b"{not json", "not valid JSON"),
        (b"\xff\xfe", "not valid JSON"),
        (b"[1,2]", "invalid message"),
        (b'{"type":"action","action":{"type":"pass"}}', "id"),
        (b'{"type":"action","id":1,"action":{"type":"dance"}}', "action.type"),
        (b'{"type":"action","id":1,"action":{"type":"pass"},"extra":1}', "extra"),
        (b'{"type":"hello","protocol":1}', "name"),
    ],
)
def test_malformed_lines_are_refused_with_the_reason(line, fragment):
    with pytest.raises(MalformedMessage) as e:
        decode_from_bot(line)
    assert fragment in str(e.value)


@pytest.mark.parametrize(
    "action,fragment",
    [
        ({"type": "trump"}, "missing field 'suit'"),
        ({"type": "bid", "amount": "7"}, "integer"),
        ({"type": "play", "card": "1Z"}, "not a card"),
        ({"type": "rob", "take": "AS"}, "list"),
    ],
)
def test_unreadable_actions_name_the_problem(action, fragment):
    with pytest.raises(ValueError) as e:
        action_from_dict(action)
    assert fragment in str(e.value)


def test_choices_are_sent_as_constraints_not_combinations():
    positions = probe_positions()
    rob = positions["rob_after_reshuffle"]()
    wire = choice_to_dict(rob.choice)
    assert set(wire) == {"take", "from", "automatic"}
    assert wire["take"] == rob.choice.count and len(wire["from"]) == len(rob.choice.candidates)
    extra = positions["extra_cards"]()
    wire = choice_to_dict(extra.choice)
    assert wire["under"] == extra.choice.under_count > 0
    # every card named is one the seat holds
    assert set(wire["cards"]) | set(wire["under_from"]) <= set(extra.view(extra.to_act).to_dict()["hand"])


def test_every_wire_choice_round_trips_through_a_legal_action():
    rng = random.Random(5)
    for key in range(30):
        game = Game(key=f"wire-{key}")
        while not game.over:
            choice = game.choice
            wire = json.loads(json.dumps(choice_to_dict(choice)))
            if choice.kind == "play":
                top = wire["cards"][0]
                under = [c for c in wire["under_from"] if c != top][: wire["under"]]
                action = {"type": "play", "card": top, **({"under": under} if under else {})}
            elif choice.kind == "rob":
                action = {"type": "rob", "take": wire["from"][: wire["take"]]}
            elif choice.kind == "bid":
                action = {"type": "pass"} if wire["pass"] else {"type": "bid", "amount": wire["bids"][0]}
            else:
                action = {"type": "trump", "suit": rng.choice(wire["suits"])}
            game.apply(action_from_dict(action))


def _hostile_replies() -> list[bytes]:
    """Action replies of every core type, and mutations of them a hostile bot might send: every field
    set to values of each JSON type, keys added, dropped and doubled, the id's and the type's words
    changed, the text cut short, escaped and padded."""
    base = [{"type": "pass"}, {"type": "bid", "amount": 7}, {"type": "bid", "amount": 8, "suit": "H"},
            {"type": "trump", "suit": "S"}, {"type": "rob", "take": ["AS", "2C"]}, {"type": "discard", "cards": []},
            {"type": "play", "card": "KC"}, {"type": "play", "card": "KC", "under": ["3H"]},
            {"type": "call", "alone": True}, {"type": "call", "card": "AH"}, {"type": "take_widow"},
            {"type": "leave_widow", "alone": None}]
    values: list[object] = [None, 0, 1, -1, 7, 1.0, 7.5, True, False, "", "AS", "H", "7", "pass", [], ["AS"], [1],
                            ["AS", None], [["AS"]], {}, {"a": 1}, 2**63, 2**64 + 1, -(2**63) - 1, "Ä"]
    fields = ["type", "alone", "amount", "suit", "take", "cards", "card", "under", "extra"]
    lines: list[bytes] = []

    def reply(action: object, rid: object = 1, **more: object) -> None:
        lines.append(json.dumps({"type": "action", "id": rid, "action": action, **more}).encode())

    for action in base:
        reply(action)
        for field in fields:
            for v in values:
                reply({**action, field: v})
            reply({k: w for k, w in action.items() if k != field})
        for rid in values:
            reply(action, rid)
        for kind in ["Action", "hello", "decide", None, 1]:
            lines.append(json.dumps({"type": kind, "id": 1, "action": action}).encode())
        reply(action, 1, extra=1)
        lines.append(json.dumps({"id": 1, "action": action}).encode())
        lines.append(json.dumps({"type": "action", "action": action}).encode())
        text = json.dumps({"type": "action", "id": 1, "action": action}).encode()
        lines += [text[:i] for i in range(len(text))]
        lines += [b" " + text + b" \r", text + b"x", text.replace(b'"', b"'"), text.replace(b":", b": "),
                  text.replace(b'"type"', b'"t\\u0079pe"'), text.replace(b"1", b"1.0", 1), text.replace(b"1", b"01", 1),
                  text.replace(b'"id": 1', b'"id": 1, "id": 2'), text.replace(b'"id": 1', b'"id": "x", "id": 1'),
                  text.replace(b'{"type": "action"', b'{"type": "hello", "type": "action"'),
                  text.replace(b'"action": {', b'"action": {"amount": 1.0, "amount": 2, '),
                  text.replace(b'"action": {', b'"action": {"card": 5, '), text.replace(b"1", b"true", 1),
                  text.replace(b"}", b"}}", 1), b"\xef\xbb\xbf" + text, text + b"\n" + text, text.replace(b"KC", b"K\xc3\x84")]
    return lines


def test_the_plain_reading_of_a_reply_gives_the_models_verdict_on_every_hostile_reply():
    """``read_action`` (the harness's reading of a common reply, without the models) takes a line only
    where the models take it, with the same id and fields: on every other line the models speak."""
    from arena.protocol.codec import read_action

    taken = 0
    lines = _hostile_replies()
    assert len(lines) > 3000
    for line in lines:
        plain = read_action(line)
        if plain is None:
            continue
        taken += 1
        reply = decode_from_bot(line)  # raises if the models refuse what the plain reading took
        assert isinstance(reply, ActionReply) and reply.id == plain[0], line
        full = vars(reply.action)
        assert {k: v for k, v in full.items() if v is not None} == {k: v for k, v in plain[1].items() if v is not None}, line
        assert all(type(full[k]) is type(v) for k, v in plain[1].items() if v is not None), line
    # and it does take the common replies, else it would speed nothing up
    assert taken > 100
    assert read_action(b'{"type":"action","id":3,"action":{"type":"play","card":"AS","under":["3H"]}}') == (
        3, {"type": "play", "card": "AS", "under": ["3H"]})
