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


#: sha256 of every request of four seeded games (below), as the harness wrote them before requests were
#: made from parts encoded once (``wire.encode`` of ``wire.decide``'s dict, measured on that code)
REQUESTS_SHA256 = "d693833ca2cb3c1ae08f35622e5fe4ec19fbc52c716f5640560bd0958d247d02"


def test_a_request_s_text_is_the_bytes_bots_always_read() -> None:
    """``wire.request`` (the view's parts encoded once, no dict) writes the very bytes of ``decide``'s
    dict encoded, time figures included, at every decision of seeded games of four kinds of table;
    and those are the bytes the harness wrote before (pinned), so no bot sees a byte change."""
    import hashlib

    from arena.engine import Game

    digest = hashlib.sha256()
    for name in ("pagat62", "five-hand", "oregon", "cutthroat-3"):
        game = Game(get_profile(name), key=f"pin-{name}", max_deals=8)
        rng = random.Random(name)
        n = 0
        while not game.over:
            n += 1
            request = wire.request(game, game.to_act, game.choice, n)
            request.set_time(100_000 - n, 1000)
            old = {**wire.decide(game, game.to_act, game.choice, n), "time_left_ms": 100_000 - n, "decision_ms": 1000}
            assert request.line() == wire.encode(old) == stdlib(old)
            assert request.to_dict() == old and request.to_dict() is request.to_dict()
            digest.update(request.line())
            game.apply(game.choice.sample(rng))
    assert digest.hexdigest() == REQUESTS_SHA256


#: sha256 of every deal_end line of the same four seeded games, as the harness wrote them before the
#: four seats' notices shared one encoded outcome and took their views as text (measured on that code)
DEAL_ENDS_SHA256 = "a8c782838532e7c0eade2f0782e018638a10c0f5a8c63594227a5d409d68e5b2"


def test_a_deal_end_s_line_is_the_bytes_bots_always_read() -> None:
    """``wire.deal_ends`` and ``deal_end_notices`` (the outcome encoded once, each view spliced in as text) write, for every seat
    of every deal, the bytes of its dict encoded, that dict is the view read back, and the lines are
    those the harness wrote before (pinned)."""
    import hashlib

    from arena.engine import Game

    digest = hashlib.sha256()
    for name in ("pagat62", "five-hand", "oregon", "cutthroat-3"):
        game = Game(get_profile(name), key=f"pin-{name}", max_deals=8)
        rng = random.Random(name)
        while not game.over:
            deal = game.deal
            game.apply(game.choice.sample(rng))
            if deal.done:
                seats = range(game.profile.players)
                for seat, lazy, notice in zip(seats, wire.deal_end_notices(game, deal.index, seats),
                                              wire.deal_ends(game, deal.index, seats)):
                    assert lazy.line == wire.encode(notice) == wire.encode(lazy.to_dict())  # (its dict made last)
                    plain = dict(notice)
                    assert plain["view"] == game.view(seat, deal.index).to_dict()
                    assert wire.encode(notice) == stdlib(plain) == wire.encode(wire.deal_end(game, deal.index, seat))
                    digest.update(wire.encode(notice))
    assert digest.hexdigest() == DEAL_ENDS_SHA256
