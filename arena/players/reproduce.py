"""``arena reproduce``: a recorded fault, played again on this machine.

The recorded game is replayed up to the faulting decision with the bot live
(same seed, the very messages it saw in the tournament) and every other seat
playing its recorded actions, so a bot that depends only on its seed faults
again in the same way, and a fixed bot shows that the fault is gone.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..engine import load_record, recorded_decisions, recorded_source
from ..match.game import GameResult, play_game
from ..match.settings import MatchSettings
from ..sandbox import HarnessError
from .base import Decision, Fault, Player, PlayerReport
from .check import settings_from_args
from .manifest import BotEntry, ManifestError, load_entry
from .process import ProcessPlayer


def _find_fault(results: Path, block_key: str, half: int, decision: int) -> tuple[dict[str, Any], dict[str, Any]]:
    for line in results.read_text().splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if row.get("block_key") != block_key:
            continue
        game = row["games"][half]
        for f in game["faults"]:
            if f["decision"] == decision:
                return game, f
    raise SystemExit(f"arena reproduce: no fault at decision {decision} of game {half} of block {block_key} in {results}")


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
    live = ProcessPlayer(entry, seed, settings)
    players = [_Scripted(by_seat[s], live if s == seat else None, decision) for s in range(4)]
    match = settings.model_copy(
        update={
            "profile": rec.profile,
            "format": "deals" if rec.fixed_deals else "game",
            "deals": rec.fixed_deals or settings.deals,
            "max_deals": rec.max_deals,
        }
    )
    try:
        result = play_game(players, match, rec.key or "", source=recorded_source(rec), stop_at=decision)
    finally:
        for p in players:
            p.close()
    return result, players[seat]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog="arena reproduce", description="Play a recorded game again up to a bot's fault, with that bot live."
    )
    ap.add_argument("results", help="results.jsonl of the tournament")
    ap.add_argument("--bot", required=True, help="the bot's folder")
    ap.add_argument("--block", required=True, help="block key")
    ap.add_argument("--game", type=int, required=True, choices=[0, 1])
    ap.add_argument("--decision", type=int, required=True)
    ap.add_argument("--sandbox", default="bwrap", choices=["bwrap", "rlimit", "none"])
    ap.add_argument("--decision-ms", type=int, default=1000)
    args = ap.parse_args(argv)
    try:
        game_row, fault = _find_fault(Path(args.results), args.block, args.game, args.decision)
        entry = load_entry(args.bot)
        settings = settings_from_args(args)
        result, seat = reproduce_fault(
            game_row["record"], fault["seat"], game_row["seeds"][fault["seat"]], args.decision, entry, settings
        )
    except (ManifestError, HarnessError, ValueError) as e:
        print(f"arena reproduce: {e}", file=sys.stderr)
        return 3
    print(f"recorded fault: {fault['kind']}: {fault['message']}")
    if seat.diverged:
        print(f"note: the bot answered differently than in the tournament at decisions {seat.diverged}"
              " (its play does not depend on its seed alone); the recorded actions were used")
    again = [f for f in result.faults if f.decision == args.decision]
    if again:
        print(f"reproduced: {again[0].fault.kind}: {again[0].fault.message}")
        return 1
    answer = seat.answer
    print(f"not reproduced: the bot answered {answer.action if answer else 'nothing'} this time")
    return 0
