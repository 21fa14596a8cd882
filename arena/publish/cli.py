"""``arena rate`` and ``arena sprt``.

``arena rate RESULTS``: results.jsonl -> leaderboard.md / .json / .html.
``arena sprt``: play a candidate against a baseline until a GSPRT decides.
Exit codes are listed in docs/leaderboards.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import secrets
import sys
from pathlib import Path
from typing import Any, Sequence, TextIO

from ..ratings import RatingFitError, rate
from . import leaderboard
from .load import ResultsError, convert, read_results, side_a_sample
from .provenance import gather, read_config, read_meta
from .sprt import (EXIT_ERROR, EXIT_PASSED, MATCHUP_LABELS, SPRTRun,
                   format_status)

RATE_OK, RATE_ERROR = 0, 2


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so each command picks its own exit code."""

    def error(self, message: str) -> Any:  # type: ignore[override]
        raise _UsageError(f"{self.prog}: {message}")


class _UsageError(Exception):
    pass


def parse_anchor(text: str) -> tuple[str, float]:
    """``NAME`` or ``NAME=RATING`` (rating 0 by default)."""
    name, sep, value = text.partition("=")
    if not name:
        raise ValueError("anchor needs a bot name")
    if not sep:
        return name, 0.0
    try:
        return name, float(value)
    except ValueError:
        raise ValueError(f"anchor rating {value!r} is not a number") from None


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "results"


# ---------------------------------------------------------------- rate


def _rate_parser() -> _Parser:
    ap = _Parser(prog="arena rate", description="Rate a results file and write leaderboards (md, json, html).")
    ap.add_argument("results", help="results.jsonl (or the folder holding it)")
    ap.add_argument("--out", help="output folder (default leaderboards/<config name>/)")
    ap.add_argument("--anchor", help="NAME[=RATING]: pin this bot's rating (default: the config's anchor, else mean 0)")
    ap.add_argument("--bootstrap", type=int, default=1000, help="block bootstrap resamples for intervals and LOS (0 = none)")
    ap.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    ap.add_argument("--config", help="tournament config, for the reproducibility facts when tournament.json is absent")
    ap.add_argument("--no-prior", action="store_true", help="plain maximum likelihood (fails on perfect scores)")
    ap.add_argument("--quiet", action="store_true", help="do not print the table")
    return ap


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None, err: TextIO, *, ok: int, error: int) -> argparse.Namespace | int:
    """Parsed arguments, or the exit status to return (usage errors print, --help is ok)."""
    try:
        return parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except _UsageError as e:
        print(e, file=err)
        return error
    except SystemExit as e:  # --help
        return ok if not e.code else error


def main_rate(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Rate RESULTS and write leaderboard.{md,json,html}; 0 on success, 2 on any error."""
    out_s, err = stdout or sys.stdout, stderr or sys.stderr
    args = _parse(_rate_parser(), argv, err, ok=RATE_OK, error=RATE_ERROR)
    if isinstance(args, int):
        return args
    if args.bootstrap < 0:
        print("arena rate: --bootstrap must be >= 0", file=err)
        return RATE_ERROR
    try:
        res = read_results(args.results)
        conv = convert(res.lines)
    except ResultsError as e:
        print(f"arena rate: {e}", file=err)
        return RATE_ERROR
    if not conv.blocks:
        print(f"arena rate: {res.path}: no finished blocks to rate", file=err)
        return RATE_ERROR
    if res.torn:
        print(f"arena rate: {res.path}: ignored a torn last line", file=err)
    meta = read_meta(res.path)
    cfg = None
    if args.config:
        try:
            cfg = read_config(args.config)
        except Exception as e:  # noqa: BLE001 - ConfigError and whatever loading a bot folder raises
            print(f"arena rate: {e}", file=err)
            return RATE_ERROR
    prov = gather(res.lines, conv.bots, meta=meta, config=cfg)

    anchor: tuple[str, float] | None = None
    try:
        if args.anchor:
            anchor = parse_anchor(args.anchor)
        elif (meta or {}).get("anchor") or (cfg or {}).get("anchor"):
            anchor = (str((meta or {}).get("anchor") or (cfg or {}).get("anchor")), 0.0)
    except ValueError as e:
        print(f"arena rate: --anchor: {e}", file=err)
        return RATE_ERROR
    if anchor is not None and anchor[0] not in conv.bots:
        by_name = [b.id for b in conv.bots.values() if b.name == anchor[0]]
        if len(by_name) != 1:
            print(f"arena rate: anchor {anchor[0]!r} is not a bot in these results "
                  f"(bots: {', '.join(sorted(conv.bots))})", file=err)
            return RATE_ERROR
        anchor = (by_name[0], anchor[1])

    try:
        report = rate(conv.blocks, anchor=anchor, prior=not args.no_prior, bootstrap=args.bootstrap, seed=args.seed)
    except RatingFitError as e:
        print(f"arena rate: cannot fit ratings: {e}", file=err)
        return RATE_ERROR
    doc = leaderboard.build(report, prov, res, anchor=anchor)

    name = prov.config_name or _safe_name(res.path.resolve().parent.name)
    out = Path(args.out) if args.out else Path("leaderboards") / _safe_name(name)
    try:
        write_leaderboard(doc, out)
    except OSError as e:
        print(f"arena rate: cannot write {out}: {e.strerror}", file=err)
        return RATE_ERROR
    if not args.quiet:
        print(leaderboard.main_table(doc), file=out_s)
        print(f"\nanchor: {report.anchor}; written to {out}/leaderboard.{{md,json,html}}", file=out_s)
    return RATE_OK


def write_leaderboard(doc: dict[str, Any], out: Path) -> None:
    """Write the three files; each is replaced atomically."""
    out.mkdir(parents=True, exist_ok=True)
    for fname, text in (("leaderboard.json", leaderboard.to_json(doc)),
                        ("leaderboard.md", leaderboard.render_markdown(doc)),
                        ("leaderboard.html", leaderboard.render_html(doc))):
        tmp = out / (fname + ".tmp")
        tmp.write_text(text)
        tmp.replace(out / fname)


# ---------------------------------------------------------------- sprt


def _sprt_parser() -> _Parser:
    ap = _Parser(prog="arena sprt", description="Regression-test a candidate against a baseline with a GSPRT "
                 "on duplicate blocks (two matchups: C+C vs B+B and C+B vs B+B; both must pass).")
    ap.add_argument("--candidate", required=True, help="candidate bot folder (or bot.yaml)")
    ap.add_argument("--baseline", required=True, help="baseline bot folder (or bot.yaml)")
    ap.add_argument("--elo0", type=float, default=0.0, help="H0: candidate is this much better, per-bot Elo (default 0)")
    ap.add_argument("--elo1", type=float, default=10.0, help="H1: candidate is this much better, per-bot Elo (default 10)")
    ap.add_argument("--alpha", type=float, default=0.05, help="false-pass rate (default 0.05)")
    ap.add_argument("--beta", type=float, default=0.05, help="false-fail rate (default 0.05)")
    ap.add_argument("--max-blocks", type=int, default=400, help="blocks per matchup before giving up (default 400)")
    ap.add_argument("--min-blocks", type=int, default=10, help="blocks per matchup before any decision (default 10)")
    ap.add_argument("--sigma-pg", type=float, help="per-game standard deviation for the Elo -> normalized Elo "
                    "conversion (default: estimated from the blocks so far)")
    ap.add_argument("--points", action="store_true", help="score blocks by the points difference (deals format)")
    ap.add_argument("--format", choices=["game", "deals"], help="match format (default game; deals with --points)")
    ap.add_argument("--deals", type=int, default=8, help="deals per game in the deals format (default 8)")
    ap.add_argument("--sandbox", choices=["bwrap", "rlimit", "none"], default="bwrap")
    ap.add_argument("--seed", help="seed for the block keys (default: random, printed)")
    ap.add_argument("--workers", type=int, default=1, help="blocks played in parallel (more than 1 uses Ray)")
    ap.add_argument("--matchups", default="pair,mixed", help="comma list of pair (C+C vs B+B), mixed (C+B vs B+B)")
    ap.add_argument("--json", dest="json_out", help="write the final status as JSON to this file")
    ap.add_argument("--quiet", action="store_true", help="print only the final result")
    return ap


def _task_pairing(matchup: str) -> str:
    return {"pair": "candidate+candidate~baseline+baseline", "mixed": "candidate+baseline~baseline+baseline"}[matchup]


def main_sprt(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run the SPRT; exit 0 passed, 1 failed, 2 inconclusive at the maximum, 3 error."""
    out, err = stdout or sys.stdout, stderr or sys.stderr
    args = _parse(_sprt_parser(), argv, err, ok=EXIT_PASSED, error=EXIT_ERROR)
    if isinstance(args, int):
        return args
    fmt = args.format or ("deals" if args.points else "game")
    matchups = [m.strip() for m in args.matchups.split(",") if m.strip()]
    problems = []
    if args.points and fmt != "deals":
        problems.append("--points needs --format deals")
    if any(m not in MATCHUP_LABELS for m in matchups) or not matchups or len(set(matchups)) != len(matchups):
        problems.append("--matchups takes pair and/or mixed")
    if args.max_blocks < 1 or args.min_blocks < 1 or args.workers < 1 or args.deals < 1:
        problems.append("--max-blocks, --min-blocks, --workers and --deals must be positive")
    try:
        run = SPRTRun.standard(args.elo0, args.elo1, alpha=args.alpha, beta=args.beta, max_blocks=args.max_blocks,
                               mode="points" if args.points else "pentanomial", sigma_pg=args.sigma_pg,
                               min_blocks=args.min_blocks, matchups=matchups if not problems else ("pair",))
    except ValueError as e:
        problems.append(str(e))
    if problems:
        for p in problems:
            print(f"arena sprt: {p}", file=err)
        return EXIT_ERROR

    try:
        return _play_sprt(args, run, fmt, matchups, out, err)
    except KeyboardInterrupt:
        print("arena sprt: interrupted", file=err)
        return EXIT_ERROR


def _play_sprt(args: argparse.Namespace, run: SPRTRun, fmt: str, matchups: list[str], out: TextIO, err: TextIO) -> int:
    from ..engine import derive_key
    from ..match import MatchSettings
    from ..players import ManifestError, load_entry
    from ..schedule.backends import make_backend
    from ..schedule.task import BlockTask

    try:
        cand = load_entry(args.candidate)
        base = load_entry(args.baseline)
        settings = MatchSettings.model_validate({"format": fmt, "deals": args.deals, "sandbox": args.sandbox})
    except (ManifestError, OSError, ValueError) as e:
        print(f"arena sprt: {e}", file=err)
        return EXIT_ERROR
    seed = args.seed or secrets.token_hex(8)
    facts = json.dumps({"sprt": 1, "seed": seed, "match": settings.model_dump(mode="json")}, sort_keys=True)
    config_hash = hashlib.sha256(facts.encode()).hexdigest()[:32]
    sides = {"pair": ((cand.ident, cand.ident), (base.ident, base.ident)),
             "mixed": ((cand.ident, base.ident), (base.ident, base.ident))}
    print(f"arena sprt: candidate {cand.ident} vs baseline {base.ident}; seed {seed}; format {fmt}"
          f"{f' ({args.deals} deals)' if fmt == 'deals' else ''}; sandbox {args.sandbox}; "
          f"{'points' if args.points else 'pentanomial'} GSPRT, alpha {args.alpha} beta {args.beta}, "
          f"max {args.max_blocks} blocks per matchup", file=out)
    for m, t in run.tests.items():
        print(f"  {MATCHUP_LABELS[m]}: per-bot Elo [{t.bot_elo0:g}, {t.bot_elo1:g}] -> matchup Elo "
              f"[{t.elo0:g}, {t.elo1:g}]", file=out)

    entries = {cand.ident: cand, base.ident: base}
    try:
        backend = make_backend("serial" if args.workers <= 1 else "ray", entries, args.workers)
    except Exception as e:  # noqa: BLE001 - e.g. Ray missing or failing to start
        print(f"arena sprt: cannot start the backend: {type(e).__name__}: {e}", file=err)
        return EXIT_ERROR
    next_index = {m: 0 for m in matchups}
    fed = {m: 0 for m in matchups}
    ready: dict[str, dict[int, tuple[float, float | None]]] = {m: {} for m in matchups}
    in_flight = 0
    attempts = 3
    try:
        while run.pending():
            while in_flight < backend.capacity:
                open_ms = [m for m in run.pending() if next_index[m] < args.max_blocks
                           and next_index[m] - fed[m] < backend.capacity]
                if not open_ms:
                    break
                m = min(open_ms, key=lambda k: (next_index[k], matchups.index(k)))
                i = next_index[m]
                next_index[m] += 1
                a, b = sides[m]
                backend.submit(BlockTask(_task_pairing(m), i, derive_key(seed, "block", i), a, b, settings,
                                         config_hash), 1)
                in_flight += 1
            if in_flight == 0:
                break
            fin = backend.wait()
            in_flight -= 1
            m = next(k for k in matchups if _task_pairing(k) == fin.task.pairing)
            if fin.output is None:
                if fin.attempt >= attempts:
                    print(f"arena sprt: harness error in {MATCHUP_LABELS[m]} block {fin.task.block} after "
                          f"{attempts} attempts: {fin.error}", file=err)
                    return EXIT_ERROR
                backend.submit(fin.task, fin.attempt + 1)
                in_flight += 1
                continue
            line = fin.output.line.model_dump(mode="json", by_alias=True)
            ready[m][fin.task.block] = side_a_sample(line)
            while fed[m] in ready[m] and m in run.pending():
                total, points = ready[m].pop(fed[m])
                fed[m] += 1
                run.add(m, total, points)
                if not args.quiet:
                    print(format_status(run.tests[m].status()), file=out, flush=True)
    finally:
        backend.close()

    verdict = run.verdict()
    print("", file=out)
    for m, t in run.tests.items():
        print(format_status(t.status()), file=out)
    code = run.exit_code()
    print(f"arena sprt: {verdict.upper()} (exit {code})", file=out)
    if args.json_out:
        _write_sprt_json(Path(args.json_out), run, verdict, code, cand, base, seed, fmt, args)
    return code


def _write_sprt_json(path: Path, run: SPRTRun, verdict: str, code: int, cand: Any, base: Any, seed: str, fmt: str,
                     args: argparse.Namespace) -> None:
    from dataclasses import asdict

    doc = {
        "format": "cinch-sprt", "version": 1, "verdict": verdict, "exit": code, "seed": seed,
        "candidate": {"name": cand.name, "version": cand.manifest.version, "digest": cand.digest},
        "baseline": {"name": base.name, "version": base.manifest.version, "digest": base.digest},
        "match_format": fmt, "deals": args.deals if fmt == "deals" else None, "sandbox": args.sandbox,
        "mode": "points" if args.points else "pentanomial", "alpha": args.alpha, "beta": args.beta,
        "elo0": args.elo0, "elo1": args.elo1, "max_blocks": args.max_blocks,
        "matchups": {m: asdict(t.status()) | {"pentanomial": list(t.counts)} for m, t in run.tests.items()},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1, default=str) + "\n")
