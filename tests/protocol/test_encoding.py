"""``wire.encode`` writes, for every message, the very bytes of the standard library's
``json.dumps(msg, separators=(",", ":"))`` plus a newline, whichever encoder it used:
what a bot receives does not depend on the harness's encoder."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from arena.engine import get_profile, profile_names
from arena.match import MatchSettings, play_game
from arena.players import Decision, Fault, Player
from arena.protocol import wire


def stdlib(msg: dict[str, Any]) -> bytes:
    return json.dumps(msg, separators=(",", ":")).encode() + b"\n"


class Encoding(Player):
    """Plays a random legal action (from the engine's choice) and encodes every message it gets."""

    def __init__(self, seat: int, game_choice: Any, lines: list[tuple[bytes, bytes]]) -> None:
        self.name, self.lines, self.rng, self.choice = f"e{seat}", lines, random.Random(seat), game_choice

    def notify(self, msg: dict[str, Any]) -> Fault | None:
        self.lines.append((wire.encode(msg), stdlib(msg)))
        return None

    def decide(self, request: dict[str, Any]) -> Decision:
        request["time_left_ms"], request["decision_ms"] = 59_000, 1000
        self.lines.append((wire.encode(request), stdlib(request)))
        return Decision(self.choice().sample(self.rng))


@pytest.mark.parametrize("name", profile_names())
def test_every_message_of_a_game_is_the_standard_librarys_bytes(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = MatchSettings.model_validate({"profile": name, "format": "deals", "deals": 3, "reveal_players": True})
    lines: list[tuple[bytes, bytes]] = []
    box: list[Any] = []
    players = [Encoding(s, lambda: box[0].choice, lines) for s in range(get_profile(name).players)]
    # the players answer a random action of the engine's own choice (any kind): the loop's game, kept
    import arena.match.game as game_module

    real = game_module.Game

    def keep(*a: Any, **k: Any) -> Any:
        box.append(real(*a, **k))
        return box[-1]

    monkeypatch.setattr(game_module, "Game", keep)
    result = play_game(players, settings, f"enc-{name}", players_by_seat=["Ann", "Bo", "Cy", "Di", "Ed", "Flo"][:len(players)])
    assert result.forfeit_by is None and not result.faults
    assert len(lines) > 30
    for ours, theirs in lines:
        assert ours == theirs


@pytest.mark.parametrize("msg", [
    {"type": "decide", "id": 1, "view": {"name": "Zoë \u2603"}},  # not ASCII: the standard library escapes it
    {"type": "deal", "index": 2 ** 70},  # beyond 64 bits: orjson refuses it
    {"type": "deal_end", "text": "tab\there \u0001 \u007f quote\" back\\ slash/"},
    {"type": "game", "profile": {"name": "pagat62", "x": 1.5, "y": 1e16, "z": 1e-7}, "players": ["Zoë"]},
    {"type": "bye", "reason": None},
])
def test_edge_cases_are_the_standard_librarys_bytes_too(msg: dict[str, Any]) -> None:
    assert wire.encode(msg) == stdlib(msg)
