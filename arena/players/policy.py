"""In-process players: a bot object called directly, for benchmarks and tests.

The object has the SDK's shape (``bots/sdk``): ``start_game``, ``start_deal``,
``decide(kind, view, legal)``, ``end_deal``, ``end_game``, and receives the
very dicts a bot process would read, so the same bot code runs both ways.
"""

from __future__ import annotations

import time
from typing import Any

from .._json import JsonObject
from ..engine import action_from_dict
from .base import Decision, Fault, Player, PlayerReport


class PolicyPlayer(Player):
    def __init__(self, bot: Any, seed: int) -> None:
        self.bot = bot
        self.seed = seed
        self.name = getattr(bot, "name", type(bot).__name__)
        self.version = getattr(bot, "version", "")
        self._report = PlayerReport(self.name, self.version)

    def notify(self, msg: JsonObject) -> Fault | None:
        kind = str(msg["type"])
        hook = {"game": "start_game", "deal": "start_deal", "deal_end": "end_deal", "game_end": "end_game"}.get(kind)
        fn = getattr(self.bot, hook, None) if hook else None
        if fn is not None:
            if kind == "game":
                seed = msg.get("seed", self.seed)
                fn(msg, int(seed) if isinstance(seed, (int, float, str)) else self.seed)
            else:
                fn(msg)
        return None

    def decide(self, request: JsonObject) -> Decision:
        t0 = time.perf_counter()
        try:
            raw = self.bot.decide(request["kind"], request["view"], request["legal"])
            action = action_from_dict(raw)
        except Exception as e:  # an in-process bot's bug is still the bot's fault
            return Decision(None, Fault("crash", f"{type(e).__name__}: {e}", request), time.perf_counter() - t0)
        dt = time.perf_counter() - t0
        self._report.latencies_ms.append(dt * 1000)
        return Decision(action, None, dt, raw=str(raw))

    def close(self) -> PlayerReport:
        return self._report
