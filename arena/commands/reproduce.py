"""``arena reproduce``: a recorded fault, played again on this machine."""

from __future__ import annotations

from typing import Any

from ..match.check import describe_evidence
from ..match.reproduce import reproduce_fault
from ..players import Fault, load_entry
from ..results import GameLine, ResultLine, read_results
from .check import settings_from_args
from .common import EXIT_FAILED, EXIT_OK, CommandError, decision_ms_option, parse, parser, sandbox_option


def find_game(results: str, game: str, block: str | None = None) -> tuple[ResultLine, GameLine]:
    """(results line, game) named by a game id, or by block key/index and half (0/1)."""
    res = read_results(results)
    for line in res.lines:
        for half, g in enumerate(line.games):
            if block is None and g.id == game:
                return line, g
            if block is not None and game == str(half) and block in (line.block_key, str(line.block)):
                return line, g
    ids = sorted(g.id or "?" for ln in res.lines for g in ln.games)
    shown = ", ".join(ids[:6]) + (" ..." if len(ids) > 6 else "")
    raise CommandError(f"{res.path}: no game {game!r}{f' in block {block}' if block else ''} (game ids: {shown or 'none'})")


def main(argv: list[str]) -> int:
    ap = parser("reproduce", "Play a recorded game again up to a bot's fault, with that bot live.")
    ap.add_argument("results", help="results.jsonl of the tournament (or its folder)")
    ap.add_argument("--bot", required=True, help="the bot's folder")
    ap.add_argument("--game", required=True, help="the game's id (or 0/1 with --block)")
    ap.add_argument("--block", help="block key or index (only with --game 0 or 1)")
    ap.add_argument("--decision", type=int, required=True)
    sandbox_option(ap)
    decision_ms_option(ap, 1000)
    args = parse(ap, argv)
    _, game = find_game(args.results, args.game, args.block)
    fault = next((f for f in game.faults if f.decision == args.decision and f.seat is not None), None)
    if fault is None or fault.seat is None:
        raise CommandError(f"game {game.id} has no fault at decision {args.decision}"
                           f" (faults at: {[f.decision for f in game.faults] or 'none'})")
    entry = load_entry(args.bot)
    result, seat = reproduce_fault(game.record, fault.seat, game.seeds[fault.seat], args.decision, entry,
                                   settings_from_args(args))
    print(f"recorded fault: {fault.kind}: {fault.message}")
    if seat.diverged:
        print(f"note: the bot answered differently than in the tournament at decisions {seat.diverged}"
              " (its play does not depend on its seed alone); the recorded actions were used")
    again = [f for f in result.faults if f.decision == args.decision]
    if again:
        print(f"reproduced: {again[0].fault.kind}: {again[0].fault.text}{describe_evidence(again[0].fault)}")
        return EXIT_FAILED
    answer = seat.answer
    shown = answer.action if answer else "nothing"
    tail = describe_evidence(Fault("", "", None, None, answer.fault.stderr)) if answer and answer.fault else ""
    print(f"not reproduced: the bot answered {shown} this time{tail}")
    return EXIT_OK
