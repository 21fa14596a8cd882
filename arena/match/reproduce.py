"""``arena reproduce``: a recorded fault, played again on this machine.

The recorded game is replayed up to the faulting decision with the bot live
(same seed, the very messages it saw in the tournament) and every other seat
playing its recorded actions, so a bot that depends only on its seed faults
again in the same way, and a fixed bot shows that the fault is gone.
"""

from __future__ import annotations

from typing import Any

from ..engine import load_record, recorded_decisions, recorded_source
from ..players import BotEntry, Decision, Fault, Player, PlayerReport
from .game import GameResult, close_all, play_game
from .settings import MatchSettings


class _Scripted(Player):
    """A seat that plays the recorded actions. If it wraps the live bot, the
    bot is asked every decision too (so it sees exactly the game it saw in
    the tournament) and its answer at ``stop`` is the one reported."""

    def __init__(self, recorded: dict[int, Any], live: Player | None, stop: int) -> None:
        self.recorded = recorded
        self.live = live
        self.stop = stop
        self.name = live.name if live else "recorded"
        self.diverged: list[int] = []
        self.answer: Decision | None = None

    def start(self) -> Fault | None:
        return self.live.start() if self.live else None

    def notify(self, msg: dict[str, Any]) -> Fault | None:
        return self.live.notify(msg) if self.live else None

    def decide(self, request: dict[str, Any]) -> Decision:
        n = request["id"]
        if self.live is not None:
            answer = self.live.decide(request)
            if n == self.stop:
                self.answer = answer
                return answer
            if answer.fault is not None or answer.action != self.recorded[n]:
                self.diverged.append(n)
        return Decision(self.recorded[n])

    def close(self) -> PlayerReport:
        return self.live.close() if self.live else PlayerReport(self.name)


def reproduce_fault(
    record: dict[str, Any], seat: int, seed: int, decision: int, entry: BotEntry, settings: MatchSettings
) -> tuple[GameResult, _Scripted]:
    """Play the recorded game again up to ``decision``: the bot at ``seat``
    is live (same seed, same messages), every other seat replays the record."""
    rec = load_record(record)
    by_seat: list[dict[int, Any]] = [{}, {}, {}, {}]
    for n, (s, action) in enumerate(recorded_decisions(rec), start=1):
        by_seat[s][n] = action
    match = settings.model_copy(
        update={
            "profile": rec.profile,
            "format": "deals" if rec.fixed_deals else "game",
            "deals": rec.fixed_deals or settings.deals,
            "max_deals": rec.max_deals,
        }
    )
    live = match.player(entry, seed)  # its hello names the recorded game's profile
    players = [_Scripted(by_seat[s], live if s == seat else None, decision) for s in range(4)]
    try:
        result = play_game(players, match, rec.key or "", source=recorded_source(rec), stop_at=decision)
    finally:
        reports = close_all(players)
    for f in result.faults:
        if f.fault.stderr is None and f.seat == seat:
            f.fault.stderr = reports[seat].stderr[-2000:] or None
    return result, players[seat]

