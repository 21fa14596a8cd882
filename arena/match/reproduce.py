"""``arena reproduce``: a recorded fault, played again on this machine.

The recorded game is replayed up to the faulting decision with the bot live
(same seed, the very messages it saw in the tournament) and every other seat
playing its recorded actions, so a bot that depends only on its seed faults
again in the same way, and a fixed bot shows that the fault is gone.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any, Mapping, cast

from .._json import JsonObject
from ..engine import Action, load_record, recorded_decisions, recorded_source
from ..players import BotEntry, Decision, Fault, Player, PlayerReport
from ..results import Reproduce, ResultLine
from .game import GameResult, close_all, play_game
from .keys import DealKey
from .settings import MatchSettings


class _Scripted(Player):
    """A seat that plays the recorded actions. If it wraps the live bot, the
    bot is asked every decision too (so it sees exactly the game it saw in
    the tournament) and its answer at ``stop`` is the one reported."""

    def __init__(self, recorded: dict[int, Action], live: Player | None, stop: int) -> None:
        self.recorded = recorded
        self.live = live
        self.stop = stop
        self.name = live.name if live else "recorded"
        self.diverged: list[int] = []
        self.answer: Decision | None = None

    def start(self) -> Fault | None:
        return self.live.start() if self.live else None

    def notify(self, msg: JsonObject) -> Fault | None:
        return self.live.notify(msg) if self.live else None

    def decide(self, request: JsonObject) -> Decision:
        n = cast(int, request["id"])  # the game loop's own request
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
    record: JsonObject, seat: int, seed: int, decision: int, entry: BotEntry, settings: MatchSettings
) -> tuple[GameResult, _Scripted]:
    """Play the recorded game again up to ``decision``: the bot at ``seat``
    is live (same seed, same messages), every other seat replays the record."""
    rec = load_record(record)
    seats = rec.profile.players  # four, or a table's n seats
    by_seat: list[dict[int, Action]] = [{} for _ in range(seats)]
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
    players = [_Scripted(by_seat[s], live if s == seat else None, decision) for s in range(seats)]
    try:
        result = play_game(players, match, DealKey(rec.key or ""), source=recorded_source(rec), stop_at=decision)
    finally:
        reports = close_all(players)
    for f in result.faults:
        if f.fault.stderr is None and f.seat == seat:
            f.fault.stderr = reports[seat].stderr[-2000:] or None
    return result, players[seat]


def fault_commands(line: ResultLine, results: Path, bot_dirs: Mapping[str, str], settings: Any) -> list[Reproduce]:
    """Each fault of a block line with the shell command that replays it on this machine (``arena reproduce``,
    or ``arena check-bot`` for a bot that failed before its first decision) and its evidence: stored in the
    line's ``run.reproduce``, where the run's report and the host's private site read it."""
    out: list[Reproduce] = []
    for half, game in enumerate(line.games):
        runf = {(f["seat"], f["decision"]): f for f in (line.run.games[half].get("faults") or [])}
        for f in game.faults:
            if f.seat is None:  # the judge names every fault's seat: nothing to replay otherwise
                continue
            ref = game.seats[f.seat]
            bot_dir = shlex.quote(bot_dirs.get(f"{ref.bot}@{ref.digest[:12]}", f.bot))
            opts = f"--sandbox {settings.sandbox.value} --decision-ms {settings.time.decision_ms}"
            if f.decision == 0:  # failed before its first decision: the start-up is what to check
                cmd = f"arena check-bot {bot_dir} {opts} --games 0"
            else:
                cmd = (
                    f"arena reproduce {shlex.quote(str(results))} --bot {bot_dir} --game {game.id}"
                    f" --decision {f.decision} {opts}"
                )
            run_fault = runf.get((f.seat, f.decision))
            out.append(Reproduce(game=half, game_id=game.id, seat=f.seat, bot=f.bot, kind=f.kind,
                                 message=_with_measured(f.message, run_fault), reply=f.reply,
                                 stderr=(run_fault or {}).get("stderr"), command=cmd))
    return out


def _with_measured(message: str, run_fault: JsonObject | None) -> str:
    """A fault's message with the times measured on this run, when there were any."""
    measured = (run_fault or {}).get("measured")
    return f"{message} ({measured})" if measured else message
