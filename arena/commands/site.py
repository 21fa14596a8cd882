"""``arena site RESULTS... --out DIR``: the competition's static site; ``arena site frames FILE``: one file's games for the viewer."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..publish.rate import parse_anchor
from ..publish.site import build_site
from ..match.stored import read_games
from ..publish.site.frames import replay_file
from .common import EXIT_OK, CommandError, parse, parser


def frames(argv: list[str]) -> int:
    """``arena site frames FILE [--game ID]``: the viewer's data of a file's games, for the "open a game" page."""
    ap = parser("site frames", "Replay the games of a results file, a record or a saved game through the engine and "
                "write the viewer's data (JSON) for viewer.html to open.")
    ap.add_argument("file", help="results.jsonl (or its folder), a game record, or an `arena play --save` file")
    ap.add_argument("--game", help="only this game id (and its duplicate twin, when the file holds it)")
    ap.add_argument("--out", help="write here instead of to stdout")
    args = parse(ap, argv)
    try:
        data = replay_file(read_games(args.file), args.game)
    except ValueError as e:
        raise CommandError(str(e)) from None
    text = json.dumps(data, separators=(",", ":")) + "\n"
    if args.out:
        try:
            Path(args.out).write_text(text)
        except OSError as e:
            raise CommandError(f"{args.out}: cannot write it: {e.strerror}") from None
    else:
        sys.stdout.write(text)
    return EXIT_OK


def main(argv: list[str]) -> int:
    if argv[:1] == ["frames"]:
        return frames(argv[1:])
    ap = parser("site", "Write a static site: leaderboard, a page per bot, every game replayable, history per run. "
                "(`arena site frames FILE` writes one file's games for the site's viewer.html.)")
    ap.add_argument("results", nargs="+", help="results.jsonl files (or folders holding them) of one competition")
    ap.add_argument("--out", required=True, help="folder for the site (created; a previous site there is replaced)")
    ap.add_argument("--anchor", help="NAME[=RATING]: pin this bot's rating (default: the config's anchor, else mean 0)")
    ap.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples of the final table (0 = none)")
    ap.add_argument("--history-bootstrap", type=int, default=200,
                    help="bootstrap resamples of each earlier run's table in the history (0 = none)")
    ap.add_argument("--retire", action="append", default=[], metavar="NAME@VERSION",
                    help="leave this bot version out of the ratings (manifest version or digest prefix; repeatable;"
                    " joins the run's retire: list)")
    ap.add_argument("--private", action="store_true", help="the host's own copy: bot folders, reproduce commands with"
                    " this machine's paths and the faults' stderr tails (public pages show none of them)")
    args = parse(ap, argv)
    if args.bootstrap < 0 or args.history_bootstrap < 0:
        raise CommandError("--bootstrap and --history-bootstrap must be >= 0")
    b = build_site(args.results, args.out, anchor=parse_anchor(args.anchor) if args.anchor else None,
                   bootstrap=args.bootstrap, history_bootstrap=args.history_bootstrap, retire=args.retire,
                   private=args.private)
    comp = b.model.comp
    print(f"arena site: {len(comp.games)} games, {len(b.model.slugs)} bots, {len(comp.runs)} runs: {b.files} files "
          f"({b.written} changed) in {b.out}; open {b.out}/index.html", file=sys.stderr)
    return EXIT_OK
