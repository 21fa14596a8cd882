"""The bot base class and the stdio loop of protocol v1.

All decision logic lives in the ``Bot`` object and ``run`` only does I/O,
so the harness can also drive the same object in-process (benchmarks,
tests) by calling the hooks with the very dicts it would send on the wire.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any, BinaryIO

from .cards import PAGAT62, Tables, tables_for

PROTOCOL = 1


class Bot:
    """Subclass and override ``decide`` (and any hook you need).

    ``self.rng`` is the bot's only source of randomness, seeded from the
    harness's seed (hello's, then each ``game``'s own), so a bot plays each
    game reproducibly given its seed, however many games its process plays.
    Overrides of ``start_game`` must call ``super().start_game(game, seed)``.
    """

    name: str = "bot"
    version: str = "0"

    def __init__(self) -> None:
        self.seed = 0
        self.rng = random.Random(0)
        self.game: dict[str, Any] = {}
        self.hello: dict[str, Any] = {}

    @property
    def profile(self) -> dict[str, Any]:
        """The rules being played, with all their parameters: from the ``game``
        message, else from ``hello``, else pagat62's (before either arrived)."""
        return self.game.get("profile") or self.hello.get("profile") or PAGAT62

    @property
    def tables(self) -> tuple[Tables, ...]:
        """``tables_for(self.profile)``: per-trump tables with this game's point values."""
        return tables_for(self.profile)

    def start(self, hello: dict[str, Any]) -> None:
        """The harness's ``hello`` (protocol versions, seed, the profile); reseeds from its seed."""
        self.hello = hello
        self.reseed(int(hello.get("seed", 0)))

    def reseed(self, seed: int) -> None:
        """Reset the randomness from ``seed`` (called on hello and game start)."""
        self.seed = seed
        self.rng = random.Random(seed)

    def start_game(self, game: dict[str, Any], seed: int) -> None:
        """The ``game`` message (seat, seed, profile, time control); ``seed`` is this game's."""
        self.game = game
        self.reseed(seed)

    def start_deal(self, deal: dict[str, Any]) -> None:
        """The ``deal`` message (index, dealer, 9-card hand, scores)."""

    def decide(self, kind: str, view: dict[str, Any], legal: dict[str, Any]) -> dict[str, Any]:
        """Return the action dict for a ``bid``/``trump``/``rob``/``play`` decision
        (or a kind a rule profile adds: ``random_legal`` answers any kind legally)."""
        raise NotImplementedError

    def end_deal(self, msg: dict[str, Any]) -> None:
        """The ``deal_end`` message (points, made, scores, final view)."""

    def end_game(self, msg: dict[str, Any]) -> None:
        """The ``game_end`` message (scores, winner, reason)."""


def _write(out: BinaryIO, obj: dict[str, Any]) -> None:
    out.write(json.dumps(obj, separators=(",", ":")).encode("utf-8") + b"\n")
    out.flush()


def run(bot: Bot, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
    """Speak protocol v1 on ``stdin``/``stdout`` until ``bye`` or end of input.

    Errors in the bot propagate (the harness records the crash with stderr):
    hiding them behind a fallback move would hide bugs from the author.
    """
    inp = stdin if stdin is not None else sys.stdin.buffer
    out = stdout if stdout is not None else sys.stdout.buffer
    seed = 0
    for raw in inp:
        line = raw.strip()
        if not line:
            continue
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            seed = int(msg.get("seed", 0))
            bot.start(msg)
            # Protocol 1 is the only version spoken; a harness that does not
            # offer it refuses with ``bye``, which ends the loop below.
            _write(out, {"type": "hello", "protocol": PROTOCOL, "name": bot.name, "version": str(bot.version)})
        elif kind == "game":  # each game's own seed (a harness before it had only hello's)
            bot.start_game(msg, int(msg.get("seed", seed)))
        elif kind == "deal":
            bot.start_deal(msg)
        elif kind == "decide":
            action = bot.decide(msg["kind"], msg["view"], msg["legal"])
            _write(out, {"type": "action", "id": msg["id"], "action": action})
        elif kind == "deal_end":
            bot.end_deal(msg)
        elif kind == "game_end":
            bot.end_game(msg)
        elif kind == "bye":
            return
