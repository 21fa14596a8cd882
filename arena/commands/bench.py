"""``arena bench ...``: the benchmarks' options; each prints a summary and, last, one JSON line."""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any, Callable

from .common import CommandError, Parser, parse, parser, profile_from_args

CHECKOUT = Path(__file__).resolve().parents[2]


def _engine(ap: Parser) -> None:
    ap.add_argument("--seconds", type=float, default=3.0, help="how long to play (default 3)")
    ap.add_argument("--seed", type=int, default=0, help="seed of decks and decisions (default 0)")
    ap.add_argument("--profile", default="pagat62",
                    help="rule profile to play (default pagat62), or 'all' for every registered profile in turn")


def _protocol(ap: Parser) -> None:
    ap.add_argument("--decisions", type=int, default=2000)
    ap.add_argument("--starts", type=int, default=20)
    ap.add_argument("--no-pin", action="store_true", help="let the kernel place the processes (noisier)")


def _scheduler(ap: Parser) -> None:
    ap.add_argument("--blocks", type=int, default=8, help="blocks per round (2 games each)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds of each measurement (median kept)")
    ap.add_argument("--sandbox", default="rlimit", choices=["none", "rlimit", "bwrap", "gvisor"])
    ap.add_argument("--deals", type=int, default=0, help="play fixed-length games of this many deals (0: full games)")
    ap.add_argument("--bots", nargs="+", type=Path, default=[CHECKOUT / "bots" / "minimal", CHECKOUT / "bots" / "random"],
                    help="two or more bot folders, played in round-robin pairings (default: minimal and random)")
    ap.add_argument("--no-cluster", action="store_true", help="skip the two-node loopback cluster")
    ap.add_argument("--restart", choices=["per-game", "per-lineage"], default="per-game",
                    help="match.restart of the blocks played (docs/tournaments.md, Lineages)")
    ap.add_argument("--lineage-blocks", type=int, default=2, help="with --restart per-lineage: blocks per batch")


def _fairtime(ap: Parser) -> None:
    ap.add_argument("--matches", type=int, default=os.cpu_count() or 1, help="matches at once (default: cores)")
    ap.add_argument("--blocks", type=int, default=0, help="blocks to play (default: one per match slot)")
    ap.add_argument("--deals", type=int, default=3, help="deals per game")
    ap.add_argument("--decision-ms", type=int, default=100)
    ap.add_argument("--hogs", type=int, default=2, help="CPU-hog processes running alongside")
    ap.add_argument("--hog-nice", type=int, default=0, help="niceness of the hogs (diagnosis only)")
    ap.add_argument("--no-pause", action="store_true", help="do not freeze bots while not on move (diagnosis)")
    ap.add_argument("--nice", default="-5", help="worker priority, as in a tournament config ('none': leave it)")
    ap.add_argument("--sandbox", default="bwrap", choices=["none", "rlimit", "bwrap", "gvisor"])
    ap.add_argument("--bot", type=Path, default=CHECKOUT / "tests" / "fixtures" / "testbot" / "busy.yaml",
                    help="bot folder or manifest (default: the test bot burning 50 ms per decision)")


def _bots(ap: Parser) -> None:
    ap.add_argument("--blocks", type=int, default=20, help="duplicate blocks per pairing (2 games each)")
    ap.add_argument("--key", default="bench-bots", help="deal key prefix")
    ap.add_argument("--pairing", action="append", help="A:B bot names (repeatable); default montecarlo:heuristic and heuristic:random")
    ap.add_argument("--profile", default="pagat62", help="rule profile to play (default pagat62)")


def _solver(ap: Parser) -> None:
    ap.add_argument("--profile", default="pagat62", help="rule profile of the positions and games (default pagat62)")
    ap.add_argument("--positions", type=int, default=40, help="positions solved at each of 6, 5 and 4 tricks left")
    ap.add_argument("--twin", type=int, default=5, help="of those at 4 tricks left, how many the Python twin solves too")
    ap.add_argument("--decisions", type=int, default=0,
                    help="also time this many pimc decisions in games against heuristic (e.g. 1000)")
    ap.add_argument("--key", default="bench-solver", help="deal key prefix of those games")


def _rotation(ap: Parser) -> None:
    ap.add_argument("--profile", default="cutthroat-3", help="a table of other than four in pairs (default cutthroat-3)")
    ap.add_argument("--blocks", type=int, default=20, help="blocks of n rotated games (default 20)")
    ap.add_argument("--bots", help="comma-separated baselines seated round the table in turn (default heuristic,random)")
    ap.add_argument("--key", default="bench-rotation", help="deal key prefix")


def _ratings(ap: Parser) -> None:
    def kinds(text: str) -> str:
        import argparse

        from arena.bench.ratings import KINDS

        bad = [k for k in text.split(",") if k not in KINDS]
        if bad:
            raise argparse.ArgumentTypeError(f"unknown table kind {bad[0]!r}; known: {', '.join(KINDS)}")
        return text

    def counts(allowed: tuple[int, ...] | None) -> Callable[[str], str]:
        def check(text: str) -> str:
            import argparse

            try:
                vals = [int(x) for x in text.split(",")]
            except ValueError:
                raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of whole numbers") from None
            if any(v < 1 or (allowed is not None and v not in allowed) for v in vals):
                raise argparse.ArgumentTypeError(f"{text!r}: each must be " + (
                    " or ".join(map(str, allowed)) if allowed else "at least 1"))
            return text
        return check

    ap.add_argument("--profiles", type=kinds, default="cutthroat-3,five-hand", help="tables modelled (default both)")
    ap.add_argument("--entrants", type=counts((5, 6)), default="5,6", help="entrants (5 and/or 6; default both)")
    ap.add_argument("--blocks", type=counts(None), default="2,4,20,40", help="blocks per tournament (default 2,4,20,40)")
    ap.add_argument("--tournaments", type=int, default=100, help="tournaments per cell (default 100)")
    ap.add_argument("--big", type=int, default=400, help="tournaments per cell at 20 blocks (default 400)")
    ap.add_argument("--bootstrap", type=int, default=200, help="bootstrap resamples per tournament (default 200)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the simulation (default 0)")
    ap.add_argument("--workers", type=int, default=1, help="processes (default 1; the figures do not depend on it)")
    ap.add_argument("--resample", default="auto", choices=["auto", "key", "pairing", "block"],
                    help="the bootstrap's unit (default auto, as a leaderboard)")


def _site(ap: Parser) -> None:
    ap.add_argument("--games", type=int, default=10_000, help="games in the synthetic competition (default 10000)")
    ap.add_argument("--bots", type=int, default=8, help="bots in its round robin (default 8)")
    ap.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples of the final table")
    ap.add_argument("--history-bootstrap", type=int, default=200, help="resamples of each earlier run's table")


def _bot_at_level(text: str) -> tuple[str, str]:
    """BOT:LEVEL, BOT a folder of bots/ (or a path), LEVEL a sandbox level."""
    import argparse

    bot, sep, level = text.partition(":")
    if not sep or level not in ("none", "rlimit", "bwrap", "gvisor"):
        raise argparse.ArgumentTypeError(f"{text!r} is not BOT:LEVEL with LEVEL none, rlimit or bwrap")
    if not (CHECKOUT / "bots" / bot / "bot.yaml").is_file() and not (Path(bot) / "bot.yaml").is_file():
        raise argparse.ArgumentTypeError(f"{text!r}: no bot folder {bot!r} (in bots/ or as a path)")
    return bot, level


def _tournament(ap: Parser) -> None:
    ap.add_argument("--blocks", type=int, default=16,
                    help="duplicate blocks (2 games each) per configuration and restart mode (default 16)")
    ap.add_argument("--lineage-blocks", type=int, default=8, help="blocks per batch: a lineage's length (default 8)")
    ap.add_argument("--deals", type=int, default=0, help="play fixed-length games of this many deals (0: full games)")
    ap.add_argument("--config", action="append", metavar="BOT:LEVEL", type=_bot_at_level,
                    help="a bot of bots/ at a sandbox level (repeatable); default minimal at none, rlimit, bwrap and heuristic at bwrap")
    ap.add_argument("--tempo", metavar="BOT:LEVEL", type=_bot_at_level,
                    help="games per second with tempo free and fixed, side by side, of this bot at this level (default"
                         " heuristic at gvisor, at bwrap without runsc; measured unless --config is given alone)")
    ap.add_argument("--tempo-blocks", type=int, default=8, help="blocks per pairing of each tempo's round robin (default 8; 0: skip)")
    ap.add_argument("--tempo-only", action="store_true",
                    help="measure only the tempo part (--tempo's bot and level, default as there; --tempo-blocks at least 1)")


def _serve(ap: Parser) -> None:
    def sizes(text: str) -> list[int]:
        import argparse

        try:
            vals = sorted({int(x) for x in text.split(",")})
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of game counts") from None
        if not vals or vals[0] < 2:
            raise argparse.ArgumentTypeError(f"{text!r}: each stored size must be at least 2 games")
        return vals

    ap.add_argument("--sandbox", default="rlimit", choices=["none", "rlimit", "bwrap", "gvisor"])
    ap.add_argument("--games", type=int, default=1, help="full games in each validation (default 1)")
    def cases(text: str) -> str:
        import argparse

        bad = [c for c in text.split(",") if c not in ("uploads", "scale", "ladder")]
        if bad:
            raise argparse.ArgumentTypeError(f"unknown case {bad[0]!r}; known: uploads, scale, ladder")
        return text

    ap.add_argument("--cases", type=cases, default="uploads,scale,ladder",
                    help="comma-separated: uploads (to verdict, to the first rated block), scale (the store's size),"
                         " ladder (games per second on 1 and 2 workers and a cluster); default all three")
    def teams(text: str) -> int:
        import argparse

        if not text.isdigit() or int(text) < 3:
            raise argparse.ArgumentTypeError(f"{text!r}: the scale case needs at least 3 teams")
        return int(text)

    ap.add_argument("--teams", type=teams, default=50, help="scale case: accepted teams (default 50, at least 3)")
    ap.add_argument("--stored", type=sizes, default=[2000, 20000],
                    help="scale case: stored games before each timed batch (default 2000,20000)")
    ap.add_argument("--scratch", type=int, default=10_000, help="scale case: games of the build from scratch (default 10000)")
    ap.add_argument("--bootstrap", type=int, default=200, help="scale case: the site's bootstrap (default 200, the server's)")
    ap.add_argument("--pool", type=int, default=6, help="scale case: real blocks per block number the stored games are"
                    " drawn from (default 6)")
    ap.add_argument("--keep", type=Path, help="scale case: build the competition in this new folder and keep it")
    ap.add_argument("--ladder-teams", type=teams, default=10, help="ladder case: accepted teams (default 10)")
    ap.add_argument("--batches", type=int, default=4, help="ladder case: batches timed per backend (default 4)")
    ap.add_argument("--no-cluster", action="store_true", help="ladder case: skip the two-node loopback cluster")
    ap.add_argument("--ladder-bot", default="minimal", choices=["minimal", "random", "heuristic", "montecarlo"],
                    help="ladder case: the bot every team enters (default minimal, which answers at once: the harness's"
                         " own cost; heuristic thinks as a competition's bots do)")


def _startup(ap: Parser) -> None:
    ap.add_argument("--repeat", type=int, default=5, help="fresh interpreters per case, the least kept (default 5)")


BENCHES: dict[str, tuple[Callable[[Parser], None], str]] = {
    "engine": (_engine, "random deals with full records per CPU second, one process"),
    "protocol": (_protocol, "harness round trip per decision against a raw JSON-lines client; sandbox start"),
    "scheduler": (_scheduler, "games per second with 1 and 2 Ray workers and on a two-node loopback cluster"),
    "fairtime": (_fairtime, "timeouts of a well-behaved bot under CPU hogs (matches = cores)"),
    "bots": (_bots, "in-process duplicate blocks between the baselines"),
    "solver": (_solver, "the exact solver's positions per second at 6, 5, 4 tricks left; pimc's CPU time a decision"),
    "rotation": (_rotation, "in-process duplicate by rotation at a table of n seats, and what it buys"),
    "ratings": (_ratings, "the ratings' intervals at tables against known strengths: coverage, withheld, LOS"),
    "site": (_site, "build time of the static site of a 10,000-game competition, one core"),
    "serve": (_serve, "arena serve: uploads to their verdicts; a batch and site rebuild at 2,000 and 20,000 stored games; ladder games/s"),
    "tournament": (_tournament, "ms per game of serial tournaments per restart mode, split, against the raw-pipe floor"),
    "startup": (_startup, "the imports the arena command pays before it works: --help, arena run, a one-block run"),
}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in BENCHES:
        names = ", ".join(BENCHES)
        if argv and argv[0] in ("-h", "--help"):
            print(f"usage: arena bench {{{names}}} [OPTIONS]\n" + "\n".join(f"  {k:<10} {d}" for k, (_, d) in BENCHES.items()))
            return 0
        raise CommandError(f"give a benchmark: {names}")
    name = argv[0]
    add, desc = BENCHES[name]
    ap = parser(f"bench {name}", desc)
    add(ap)
    args: Any = parse(ap, argv[1:])
    if name in ("engine", "bots", "rotation", "solver") and args.profile != "all":  # a bad name is bad input, before anything runs
        profile_from_args(args)
    elif name == "bots":
        raise CommandError("--profile all: arena bench bots plays one profile at a time")
    module = importlib.import_module(f"arena.bench.{name}")
    return int(module.run(args))
