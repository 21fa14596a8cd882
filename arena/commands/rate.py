"""``arena rate RESULTS``: results.jsonl -> leaderboard.md / .json / .html."""

from __future__ import annotations

import sys

from ..publish import leaderboard
from ..publish.rate import parse_anchor, rate_results
from .common import EXIT_OK, parse, parser


def main(argv: list[str]) -> int:
    ap = parser("rate", "Rate a results file and write leaderboards (md, json, html).")
    ap.add_argument("results", help="results.jsonl (or the folder holding it)")
    ap.add_argument("--out", help="output folder (default leaderboards/<config name>/)")
    ap.add_argument("--anchor", help="NAME[=RATING]: pin this bot's rating (default: the config's anchor, else mean 0)")
    ap.add_argument("--bootstrap", type=int, default=1000, help="block bootstrap resamples for intervals and LOS (0 = none)")
    ap.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    ap.add_argument("--config", help="tournament config, for the reproducibility facts when tournament.json is absent")
    ap.add_argument("--no-prior", action="store_true", help="plain maximum likelihood (fails on perfect scores)")
    ap.add_argument("--quiet", action="store_true", help="do not print the table")
    ap.add_argument("--retire", action="append", default=[], metavar="NAME@VERSION",
                    help="leave this bot version out of the ratings (manifest version or digest prefix; repeatable;"
                    " joins the run's retire: list)")
    args = parse(ap, argv)
    pub = rate_results(args.results, args.out, anchor=parse_anchor(args.anchor) if args.anchor else None,
                       bootstrap=args.bootstrap, seed=args.seed, config=args.config, prior=not args.no_prior,
                       retire=args.retire)
    if pub.results.torn:
        print(f"arena rate: {pub.results.path}: ignored a torn last line", file=sys.stderr)
    if not args.quiet:
        print(leaderboard.main_table(pub.doc))
        print(f"\nanchor: {pub.report.anchor}; written to {pub.out}/leaderboard.{{md,json,html}}"
              f" and the tempo audit to {pub.out}/tempo.json")
    for f in pub.tempo.seats if pub.tempo else []:
        if f.flagged:  # the host must hear of it even with --quiet
            print(f"arena rate: tempo audit flags {f.bot} at seat {f.seat}: {f.why}", file=sys.stderr)
    return EXIT_OK
