"""Every message the harness sends is an instance of the protocol models (and so of the schema).

The harness builds its messages as plain dicts for speed (``arena.protocol.wire``);
these tests hold every kind of them, in real games and at the edge-case
positions, against the pydantic models the schema is generated from.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from pydantic import TypeAdapter

from arena.engine import RuleProfile
from arena.match import MatchSettings, play_game
from arena.match.check import probe_positions
from arena.match.game import game_start_notice
from arena.players import Decision, Fault, Player
from arena.protocol import PROTOCOL_VERSIONS, wire
from arena.protocol.messages import ToBot

TO_BOT: TypeAdapter[Any] = TypeAdapter(ToBot)


class Recorder(Player):
    """Plays uniformly at random and keeps every message it is sent."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.seen: list[dict[str, Any]] = []

    def notify(self, msg: dict[str, Any]) -> Fault | None:
        self.seen.append(msg)
        return None

    def decide(self, request: dict[str, Any]) -> Decision:
        # what ProcessPlayer adds before sending
        self.seen.append({**request, "time_left_ms": 1000, "decision_ms": 100})
        from arena.engine import action_from_dict
        legal = request["legal"]
        kind = request["kind"]
        if kind == "bid":
            action = {"type": "pass"} if legal["pass"] and self.rng.random() < 0.6 else {"type": "bid", "amount": legal["bids"][0]}
        elif kind == "trump":
            action = {"type": "trump", "suit": self.rng.choice(legal["suits"])}
        elif kind == "rob":
            action = {"type": "rob", "take": self.rng.sample(legal["from"], legal["take"])}
        else:
            card = legal["cards"][0]
            under = [c for c in legal["under_from"] if c != card][: legal["under"]]
            action = {"type": "play", "card": card, "under": under}
        return Decision(action_from_dict(action))


@pytest.mark.parametrize("fmt", ["game", "deals"])
def test_every_message_of_real_games_is_a_valid_protocol_message(fmt: str) -> None:
    settings = MatchSettings.model_validate({"format": fmt, "deals": 3, "max_deals": 30, "reveal_players": True})
    kinds: set[str] = set()
    for key in ("w1", "w2", "w3"):
        players = [Recorder(s) for s in range(4)]
        play_game(players, settings, key, players_by_seat=["a", "b", "c", "d"])
        for p in players:
            for msg in p.seen:
                TO_BOT.validate_python(msg)
                kinds.add(msg["type"] if msg["type"] != "decide" else f"decide:{msg['kind']}")
    assert {"game", "deal", "deal_end", "game_end", "decide:bid", "decide:trump", "decide:play"} <= kinds


def test_edge_case_positions_and_the_handshake_are_valid() -> None:
    settings = MatchSettings()
    for name, build in probe_positions().items():
        game = build()
        seat = game.to_act
        TO_BOT.validate_python(game_start_notice(settings)(seat, 2**53 - 1))
        TO_BOT.validate_python(wire.deal_start(game, seat))
        TO_BOT.validate_python({**wire.decide(game, seat, game.choice, 1), "time_left_ms": 5, "decision_ms": 5})
    TO_BOT.validate_python(wire.hello(PROTOCOL_VERSIONS, 2**53 - 1, "cinch-arena test", RuleProfile().model_dump(mode="json")))
    TO_BOT.validate_python(wire.bye(None))
    TO_BOT.validate_python(wire.bye("protocol version 7 is not supported"))


def test_the_models_refuse_what_the_harness_must_never_send() -> None:
    """The check above can fail: an unknown field or a seed beyond 2^53 is refused."""
    g = probe_positions()["play"]()
    msg = {**wire.decide(g, g.to_act, g.choice, 1), "time_left_ms": 5, "decision_ms": 5}
    msg["view"]["stock"] = ["AS"]  # a leak of hidden cards would be an extra field
    with pytest.raises(ValueError):
        TO_BOT.validate_python(msg)
    with pytest.raises(ValueError):
        TO_BOT.validate_python(wire.hello(PROTOCOL_VERSIONS, 2**53, "x", RuleProfile().model_dump(mode="json")))


@pytest.mark.parametrize("name", ["cutthroat-3", "cutthroat-6", "five-hand", "railroad"])
def test_every_message_at_tables_of_other_than_four_is_valid(name: str) -> None:
    """Seats up to five, a score per seat, sides and the call: every message a
    table of n seats sends is a protocol message, and the call is asked as one."""
    from arena.engine import get_profile

    profile = get_profile(name)
    settings = MatchSettings.model_validate({"profile": name, "max_deals": 6, "reveal_players": True})
    kinds: set[str] = set()
    players = [CallingRecorder(s) for s in range(profile.players)]
    play_game(players, settings, f"tables-{name}", players_by_seat=[f"b{s}" for s in range(profile.players)])
    for p in players:
        for msg in p.seen:
            TO_BOT.validate_python(msg)
            kinds.add(msg["type"] if msg["type"] != "decide" else f"decide:{msg['kind']}")
            if msg["type"] in ("deal", "game_end"):
                assert len(msg["scores"]) == profile.players
            if msg["type"] == "decide":
                assert msg["view"]["players"] == profile.players and len(msg["view"]["sides"]) == profile.players
    assert {"game", "deal", "deal_end", "decide:bid", "decide:play"} <= kinds
    assert ("decide:call" in kinds) == (profile.call is not None)


class CallingRecorder(Recorder):
    """A Recorder that answers a call (the first card it may call) and a discard too."""

    def decide(self, request: dict[str, Any]) -> Decision:
        if request["kind"] not in ("call", "discard"):
            return super().decide(request)
        from arena.engine import action_from_dict

        self.seen.append({**request, "time_left_ms": 1000, "decision_ms": 100})
        legal = request["legal"]
        if request["kind"] == "discard":  # (five-hand: plain cards down to six)
            return Decision(action_from_dict(legal["any"]))
        assert set(legal) == {"cards", "alone", "any"}
        return Decision(action_from_dict({"type": "call", "card": legal["cards"][0]}))
