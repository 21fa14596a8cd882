"""``arena run CONFIG``: run (or resume, or extend) a tournament.

Publishing (the live table, the leaderboard, the site) is imported where it
is first used, not at start-up: the games begin without it, and a run with
no ``site`` never loads the site's code (docs/benchmarks.md, start-up).
"""

from __future__ import annotations

import io
import sys
import time
from pathlib import Path
from typing import Any, Callable

from ..match.check import describe_evidence
from ..players import Fault
from ..results import ResultLine, ResultsError, read_results
from ..schedule import load_config
from ..schedule.config import ConfigOverrides
from ..schedule.runner import EntriesFailed, RunOptions, RunRefused, RunResult, run_tournament
from .common import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, CommandError, parse, parser, time_from_args, time_options
from .running import RunDisplay, refusal_text

SHOW_FAULTS = 10


def build_parser() -> Any:
    ap = parser("run", "Run a tournament from a YAML config (resumable: run it again after any stop).")
    ap.add_argument("config", help="tournament config (YAML)")
    ap.add_argument("--workers", type=int, help="blocks played at once: the embedded Ray instance's CPUs (default: this"
                    " machine's); on a cluster, at most this many over the whole cluster (default: every CPU it has)")
    ap.add_argument("--blocks", type=int, help="duplicate blocks per pairing")
    ap.add_argument("--seed", help="tournament seed (kept secret until the run completes)")
    ap.add_argument("--out", help="output folder (relative to the working directory)")
    ap.add_argument("--leaderboard", help="where to write the leaderboard (default: the config's, else <out>/leaderboard)")
    ap.add_argument("--backend", choices=["ray", "serial"])
    ap.add_argument("--ray-address", help="play on an existing Ray cluster: HOST:PORT of its head, or ray://HOST:PORT"
                    " for Ray Client (default: $RAY_ADDRESS, else an embedded instance); see docs/cluster.md")
    ap.add_argument("--extend", action="store_true", help="the config adds entries or blocks to the folder's tournament: play them")
    ap.add_argument("--new-version", action="store_true", help="a bot whose files changed enters as a new version (rated"
                    " separately; each bot's latest version is ranked, earlier ones are listed under the ranking)")
    ap.add_argument("--retire", action="append", metavar="NAME@VERSION", help="leave this version of a bot out of the"
                    " ratings (the manifest's version or a digest prefix; repeatable; joins the config's retire: list)")
    ap.add_argument("--skip-check", action="store_true", help="do not run the conformance check before the first game")
    time_options(ap)
    ap.add_argument("--site", help="write the static site here at the end, with provisional standings while it runs"
                                   " (default: the config's site)")
    ap.add_argument("--no-rate", action="store_true", help="do not rate the results at the end")
    ap.add_argument("--quiet", action="store_true", help="no progress line and no live standings table while it"
                    " runs (messages and the final report still print)")
    return ap


def main(argv: list[str]) -> int:
    args = parse(build_parser(), argv)
    err = sys.stderr
    overrides: ConfigOverrides = {
        "workers": args.workers, "blocks": args.blocks, "seed": args.seed, "out": args.out,
        "backend": args.backend, "ray_address": args.ray_address, "leaderboard": args.leaderboard,
        "site": args.site, "retire": args.retire, "time": time_from_args(args) or None,
    }
    t = load_config(args.config, overrides)
    stop = None
    if t.config.sprt:
        from ..schedule.stopping import SPRTStop

        stop = SPRTStop.for_tournament(t)
    site = Path(t.config.site) if t.config.site else None
    live = lazy_live_table(t.out, [e.name for e in t.entries])
    display = RunDisplay("arena run", lambda s: print(s, file=err, flush=True),
                         io.StringIO() if args.quiet else err,
                         listener=live_site(t.out, site, err) if site else None, table=None if args.quiet else live)
    try:
        result = run_tournament(t, options=RunOptions(extend=args.extend, new_versions=args.new_version,
                                                      skip_check=args.skip_check), stop=stop, observer=display)
    except EntriesFailed as e:  # the bots' fault, not the input's: the code of a failed check
        print(f"arena run: {refusal_text(e)}", file=err)
        return EXIT_FAILED
    except RunRefused as e:
        raise CommandError(refusal_text(e)) from None
    report_run(result, err)
    if result.interrupted or not result.complete or args.no_rate:
        show_standings(t.out, live, err)
    if result.interrupted:
        print("arena run: interrupted; run the same command again to resume", file=err)
        return EXIT_INTERRUPTED
    if not result.complete:
        return EXIT_FAILED
    print(f"arena run: complete; seed published in {t.out / 'summary.json'}", file=err)
    code = EXIT_OK
    if not args.no_rate:
        dest = Path(t.config.leaderboard) if t.config.leaderboard else t.out / "leaderboard"
        code = publish_step(t.out, dest, err)
    if site and code == EXIT_OK:
        code = site_step(t.out, site, err)
    return code


def lazy_live_table(results: Path, entrants: list[str]) -> Callable[[list[ResultLine]], str]:
    """The live standings' renderer, its publishing code loaded at the first table it draws."""
    made: list[Callable[[list[ResultLine]], str]] = []

    def table(lines: list[ResultLine]) -> str:
        if not made:
            from ..publish.live import live_renderer

            made.append(live_renderer(results, entrants=entrants))
        return made[0](lines)

    return table


def show_standings(results: Path, table: Callable[[list[ResultLine]], str], err: Any) -> None:
    """The standings the leaderboard would show, when no leaderboard is written: the whole results file (every
    version, every earlier run), the same fit and table as the leaderboard, without its intervals."""
    try:
        lines = read_results(results).lines
    except ResultsError as e:
        print(f"arena run: no standings: {e}", file=err)
        return
    if lines:
        print(f"standings (the leaderboard's ranking; its intervals come with arena rate):\n{table(lines)}", file=err)


def live_site(results: Path, site: Path, err: Any) -> Callable[[int, int], None]:
    """After each finished block: the site's leaderboard page from the blocks so far, marked provisional.

    A failure here is reported once and never stops the games. The page
    reads the whole results file, so on a large competition it is refreshed
    only once ten times its own build time has passed (at most ~10% of the
    run goes to it); the last block always refreshes it.
    """
    failed: list[str] = []
    last = {"at": -1e9, "took": 0.0}

    def refresh(done: int, total: int) -> None:
        now = time.monotonic()
        if failed or (done < total and now - last["at"] < 10 * last["took"]):
            return
        from ..publish.rate import PublishError
        from ..publish.site import write_provisional

        try:
            write_provisional(results, site, done=done, total=total)
            last["at"], last["took"] = now, time.monotonic() - now
        except (PublishError, ResultsError, OSError) as e:
            failed.append(str(e))
            print(f"arena run: provisional site not written (the games go on): {e}", file=err)

    return refresh


def site_step(results: Path, site: Path, err: Any) -> int:
    """The final site; the results are complete whatever happens here."""
    from ..publish.rate import PublishError
    from ..publish.site import build_site

    try:
        b = build_site([results], site)
    except PublishError as e:
        print(f"arena run: the games are done but the site failed: {e}; `arena site {results} --out {site}` "
              "writes it", file=err)
        return EXIT_FAILED
    print(f"arena run: site written to {b.out}/index.html ({b.files} files)", file=err)
    return EXIT_OK


def publish_step(results: Path, dest: Path, err: Any) -> int:
    """Rate the finished results; the games are safe whatever happens here."""
    from ..publish.leaderboard import main_table
    from ..publish.rate import PublishError, rate_results

    try:
        pub = rate_results(results, dest)
    except KeyboardInterrupt:
        print(f"arena run: interrupted while rating; the results are complete: `arena rate {results}"
              f" --out {dest}` writes the leaderboard", file=err)
        return EXIT_INTERRUPTED
    except PublishError as e:
        print(f"arena run: the games are done but rating failed: {e}", file=err)
        return EXIT_FAILED
    print(f"standings (the leaderboard's ranking):\n{main_table(pub.doc, 'simple')}", file=err)
    print(f"arena run: leaderboard written to {pub.out}/leaderboard.{{md,json,html}}", file=err)
    return EXIT_OK


def report_run(result: RunResult, err: Any) -> None:
    """Every fault with its evidence and reproduce command, and what is missing (the standings are the
    leaderboard's, printed by the rating step or ``show_standings``)."""
    repros = [r for ln in result.lines for r in ln.run.reproduce]
    for r in repros[:SHOW_FAULTS]:
        evidence = describe_evidence(Fault(r.kind, r.message, None, r.reply, r.stderr))
        print(f"arena run: fault: {r.bot} {r.kind} in game {r.game if r.game_id is None else r.game_id} (seat {r.seat}):"
              f" {r.message}{evidence}\n    reproduce: {r.command}", file=err)
    if len(repros) > SHOW_FAULTS:
        print(f"arena run: ... {len(repros) - SHOW_FAULTS} more faults; each results line's run.reproduce lists them",
              file=err)
    outcome = result.outcome
    if not result.complete and not result.interrupted:
        for (pairing, block), why in (outcome.failures if outcome else []):
            print(f"arena run: harness failure, not scored: {pairing} block {block}: {why}", file=err)
        missing = len(result.tasks) - len(result.lines)
        print(f"arena run: {missing} blocks missing; run the same command again to retry them", file=err)
