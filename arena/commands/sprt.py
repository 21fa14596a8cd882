"""``arena sprt``: a tournament of candidate against baseline whose stopping rule is an SPRT.

It is ``arena run`` with a config built from the options: the same block
keys, config hash, retries, results store, stderr files, progress and
resume (run the same command again after any stop). Exit codes: 0 passed,
1 failed, 2 inconclusive at --max-blocks, 3 error (bad input included).
"""

from __future__ import annotations

import io
import json
import secrets
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..players import TimeSettings, load_entry
from ..ratings import EXIT_ERROR, MATCHUP_LABELS, format_gain, format_status
from ..schedule.config import build_tournament
from ..schedule.runner import RunOptions, RunRefused, run_tournament
from ..schedule.stopping import SPRTStop
from .common import (CommandError, parse, parser, profile_from_args, profile_option, sandbox_option, time_from_args,
                     time_options)
from .run import report_run
from .running import RunDisplay, refusal_text

SEED_FILE = "sprt-seed"


def build_parser() -> Any:
    ap = parser("sprt", "Regression-test a candidate against a baseline with a GSPRT on duplicate blocks "
                "(matchups C+C vs B+B and C+B vs B+B; the run passes only if every matchup passes).")
    ap.add_argument("--candidate", required=True, help="candidate bot folder (or bot.yaml)")
    ap.add_argument("--baseline", required=True, help="baseline bot folder (or bot.yaml)")
    ap.add_argument("--elo0", type=float, default=0.0, help="H0: candidate is this much better, per-bot Elo (default 0)")
    ap.add_argument("--elo1", type=float, default=10.0, help="H1: candidate is this much better, per-bot Elo (default 10)")
    ap.add_argument("--alpha", type=float, default=0.05, help="false-pass rate of the whole run (default 0.05)")
    ap.add_argument("--beta", type=float, default=0.05, help="false-fail rate of the whole run (default 0.05)")
    ap.add_argument("--max-blocks", type=int, default=400, help="blocks per matchup before giving up (default 400)")
    ap.add_argument("--min-blocks", type=int, default=10, help="blocks per matchup before any decision (default 10)")
    ap.add_argument("--points", action="store_true", help="score blocks by the points difference (deals format)")
    ap.add_argument("--points0", type=float, default=0.0, help="with --points, H0: points per block per bot (default 0)")
    ap.add_argument("--points1", type=float, default=5.0, help="with --points, H1: points per block per bot (default 5)")
    ap.add_argument("--format", choices=["game", "deals"], help="match format (default game; deals with --points)")
    ap.add_argument("--deals", type=int, default=8, help="deals per game in the deals format (default 8)")
    profile_option(ap)
    sandbox_option(ap)
    time_options(ap, "free")
    ap.add_argument("--restart", choices=["per-game", "per-lineage"],
                    help="one bot process per lineage kept up over a batch of blocks, or a fresh one every game"
                         " (docs/tournaments.md, Lineages; default per-lineage, and per-game for a folder"
                         " played per-game before)")
    ap.add_argument("--lineage-blocks", type=int,
                    help="with --restart per-lineage: blocks of a matchup one batch plays (default 8; with one"
                         " worker a batch ends at the verdict, on Ray it may run past it by up to this many blocks)")
    ap.add_argument("--seed", help="seed for the block keys (default: the folder's, else random; printed)")
    ap.add_argument("--out", help="results folder (default runs/sprt/CANDIDATE-vs-BASELINE)")
    ap.add_argument("--workers", type=int, help="blocks played at once: more than 1 starts an embedded Ray instance with"
                    " that many CPUs (default 1: in this process); with --ray-address, at most this many over the"
                    " whole cluster (default: every CPU it has)")
    ap.add_argument("--ray-address", help="play on an existing Ray cluster: HOST:PORT of its head, or ray://HOST:PORT"
                    " (default: $RAY_ADDRESS when --workers is above 1); see docs/cluster.md")
    ap.add_argument("--matchups", default="pair,mixed", help="comma list of pair (C+C vs B+B), mixed (C+B vs B+B)")
    ap.add_argument("--skip-check", action="store_true", help="do not run the conformance check first")
    ap.add_argument("--new-version", action="store_true", help="with --out: a bot whose files changed since the"
                    " folder's last run enters as a new version; the test starts again on its own blocks")
    ap.add_argument("--json", dest="json_out", help="write the final status as JSON to this file")
    ap.add_argument("--quiet", action="store_true", help="print only the final result")
    return ap


def main(argv: list[str]) -> int:
    args = parse(build_parser(), argv)
    out_s, err = sys.stdout, sys.stderr
    fmt = args.format or ("deals" if args.points else "game")
    if args.points and fmt != "deals":
        raise CommandError("--points needs --format deals", EXIT_ERROR)
    cand, base = load_entry(args.candidate), load_entry(args.baseline)
    out = Path(args.out) if args.out else Path("runs") / "sprt" / f"{cand.ident}-vs-{base.ident}".replace("@", "-")
    seed = args.seed or _stored_seed(out) or secrets.token_hex(8)
    data = {
        "name": "sprt",
        "entries": [str(Path(args.candidate).resolve()), str(Path(args.baseline).resolve())],
        "schedule": {"kind": "sprt", "candidate": str(Path(args.candidate).resolve()),
                     "baselines": [str(Path(args.baseline).resolve())],
                     "matchups": [m.strip() for m in args.matchups.split(",") if m.strip()]},
        "sprt": {"elo0": args.elo0, "elo1": args.elo1, "alpha": args.alpha, "beta": args.beta,
                 "mode": "points" if args.points else "pentanomial", "min_blocks": args.min_blocks,
                 "points0": args.points0, "points1": args.points1},
        "blocks": args.max_blocks,
        "seed": seed,
        "match": {"format": fmt, "deals": args.deals, "sandbox": args.sandbox, "profile": profile_from_args(args).name,
                  "time": time_from_args(args),
                  **({"restart": args.restart} if args.restart else {}),
                  **({"lineage_blocks": args.lineage_blocks} if args.lineage_blocks is not None else {})},
        **({"workers": args.workers} if args.workers is not None else {}),
        **({"ray_address": args.ray_address} if args.ray_address else {}),
        "backend": "ray" if args.ray_address or (args.workers or 1) > 1 else "serial",
        "out": str(out.resolve()),
    }
    t = build_tournament(data, Path.cwd(), "arena sprt options")
    out.mkdir(parents=True, exist_ok=True)
    (out / SEED_FILE).write_text(seed + "\n")

    def on_block(m: str, status: Any) -> None:
        if not args.quiet:
            print(format_status(status), file=out_s, flush=True)

    stop = SPRTStop.for_tournament(t, on_block)
    if not args.quiet:
        print(f"arena sprt: candidate {cand.ident} vs baseline {base.ident}; seed {seed}; format {fmt}"
              f"{f' ({args.deals} deals)' if fmt == 'deals' else ''}; sandbox {args.sandbox};"
              f" {time_text(t.settings.time)}; results in {out}", file=out_s)
        unit = "points per block" if args.points else "Elo"
        for m, test in stop.run.tests.items():
            print(f"  {MATCHUP_LABELS[m]}: per-bot {unit} [{test.bot_elo0:g}, {test.bot_elo1:g}] -> matchup {unit}"
                  f" [{test.elo0:g}, {test.elo1:g}]", file=out_s)
        print(f"  {stop.run.error_rates()}", file=out_s)
    display = RunDisplay("arena sprt", (lambda s: None) if args.quiet else (lambda s: print(s, file=err, flush=True)),
                         io.StringIO() if args.quiet else err)
    try:
        result = run_tournament(t, options=RunOptions(skip_check=args.skip_check, new_versions=args.new_version),
                                stop=stop, observer=display)
    except RunRefused as e:
        raise CommandError(refusal_text(e)) from None
    if result.interrupted:
        print(f"arena sprt: interrupted; run the same command again to resume (seed {seed}, results in {out})", file=err)
        return EXIT_ERROR
    if not stop.done:
        report_run(result, err)
        print(f"arena sprt: harness failures left the test undecided; run the same command again to retry"
              f" (results in {out})", file=err)
        return EXIT_ERROR
    run = stop.run
    verdict, code = run.verdict(), run.exit_code()
    if not args.quiet:
        print("", file=out_s)
    for test in run.tests.values():
        print(format_status(test.status()), file=out_s)
    blocks = sum(t_.n for t_ in run.tests.values())
    print(f"arena sprt: {blocks} blocks ({2 * blocks} games) on the deals of seed {seed}"
          f" (block keys derive_key(seed, 'block', i), i < {max(t_.n for t_ in run.tests.values())}); results in {out}",
          file=out_s)
    print(f"arena sprt: what pairing saved: {format_gain(stop.gain())}", file=out_s)
    print(f"arena sprt: {verdict.upper()} (exit {code})", file=out_s)
    if args.json_out:
        doc = {
            "format": "cinch-sprt", "version": 1, "verdict": verdict, "exit": code, "seed": seed,
            "candidate": {"name": cand.name, "version": cand.manifest.version, "digest": cand.digest},
            "baseline": {"name": base.name, "version": base.manifest.version, "digest": base.digest},
            "match_format": fmt, "deals": args.deals if fmt == "deals" else None, "sandbox": args.sandbox,
            "time": t.settings.time.model_dump(mode="json"),
            "profile": t.settings.profile.model_dump(mode="json"),
            "mode": "points" if args.points else "pentanomial", "alpha": args.alpha, "beta": args.beta,
            "elo0": args.elo0, "elo1": args.elo1, "max_blocks": args.max_blocks, "results": str(out),
            "matchups": {m: asdict(t_.status()) | {"pentanomial": list(t_.counts)} for m, t_ in run.tests.items()},
            "pairing_gain": asdict(stop.gain()),
        }
        Path(args.json_out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json_out).write_text(json.dumps(doc, indent=1, default=str) + "\n")
    return code


def time_text(t: TimeSettings) -> str:
    """The time control in words, for the run's header line."""
    if t.fixed:
        return (f"tempo fixed ({t.decision_ms} ms CPU a decision, answers released {t.slot_s * 1000:.0f} ms after"
                " their request)")
    return f"tempo free ({t.decision_ms} ms CPU a decision)"


def _stored_seed(out: Path) -> str | None:
    try:
        return (out / SEED_FILE).read_text().strip() or None
    except OSError:
        return None
