"""``arena play``, ``arena replay``, ``arena export-deals`` and ``arena schema``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine import DealFile, ReplayMismatch, replay
from ..match import DealKey, MatchSettings, bot_seed, play_game
from ..match.game import close_all
from ..match.show import SEAT_NAMES, render_game, saved_game
from ..match.stored import StoredGamesError, read_games
from ..players import Player, load_entry, require_profile
from ..players.human import HumanPlayer
from .common import EXIT_OK, CommandError, parse, parser, profile_from_args, profile_option, sandbox_option

if TYPE_CHECKING:
    from .._json import JsonObject

#: The baseline bots of a source checkout (absent from an installed package).
CHECKOUT_BOTS = Path(__file__).resolve().parents[2] / "bots"


def main(argv: list[str]) -> int:
    ap = parser("play", "Play one game and show it deal by deal.")
    ap.add_argument("bots", nargs="*", help="2 bots (N/S, E/W partnerships) or 4 (seats N E S W); at a table of n seats "
                    "(cut-throat, five-hand, railroad) 1 to n bots, seated P1 ... Pn in turn; default heuristic vs random")
    ap.add_argument("--key", default="play", help="deal key (same key, same cards)")
    sandbox_option(ap)
    profile_option(ap)
    ap.add_argument("--format", default="game", choices=["game", "deals"])
    ap.add_argument("--deals", type=int, default=8)
    ap.add_argument("--save", help="write the game (record and players) as JSON here; arena replay reads it")
    ap.add_argument("--human", metavar="SEAT", type=str.upper, choices=list(SEAT_NAMES),
                    help="play this seat yourself (N, E, S or W): its view is shown and you type each choice;"
                         " the bots play the other seats")
    args = parse(ap, argv)
    paths = args.bots or [str(CHECKOUT_BOTS / "heuristic"), str(CHECKOUT_BOTS / "random")]
    settings = MatchSettings.model_validate({"sandbox": args.sandbox, "format": args.format, "deals": args.deals,
                                             "profile": profile_from_args(args)})
    seats = settings.profile.players
    if settings.profile.sides != "pairs":  # the bots given take the seats in turn, round the table
        if not 1 <= len(paths) <= seats:
            raise CommandError(f"give 1 to {seats} bots for the {seats} seats of {settings.profile.name}")
        paths = [paths[s % len(paths)] for s in range(seats)]
    if len(paths) == 2:
        paths = [paths[0], paths[1], paths[0], paths[1]]
    if len(paths) != seats:
        raise CommandError("give 2 bots (partnerships N/S and E/W) or 4 (seats N E S W)")
    entries = [load_entry(p) for p in paths]
    for e in entries:
        require_profile(e, settings.profile.name)  # before any bot starts
    human = SEAT_NAMES.index(args.human) if args.human else None
    names = [("you" if s == human else e.name) for s, e in enumerate(entries)]
    key = DealKey(args.key)
    players: list[Player] = [HumanPlayer(sys.stdin.readline, sys.stdout) if s == human
                             else settings.player(e, bot_seed(key, 0, s)) for s, e in enumerate(entries)]
    try:
        result = play_game(players, settings, key, players_by_seat=names)
    finally:
        close_all(players)
    print(render_game(result.record, names))
    for f in result.faults:
        print(f"fault: seat {f.seat} ({f.bot}) {f.fault.kind}: {f.fault.text}")
    if args.save:
        Path(args.save).write_text(json.dumps(saved_game(result.record, names)) + "\n")
    return EXIT_OK


def load_games(path: str, game: str | None) -> list[tuple[JsonObject, list[str] | None, str]]:
    """(record, names, label) of the games a file holds (``match.stored.read_games``), or of the one
    ``game`` names."""
    try:
        games = read_games(path)
    except StoredGamesError as e:
        raise CommandError(str(e)) from None
    if game is not None:
        games = [g for g in games if g.id == game]
        if not games:
            raise CommandError(f"{path}: no game with id {game!r}; run arena replay {path} to list them")
    return [(g.record, g.names or None, g.label or Path(path).name) for g in games]


def main_replay(argv: list[str]) -> int:
    ap = parser("replay", "Show a stored game again from its record alone.")
    ap.add_argument("record", help="a game record, a file from arena play --save, or a results.jsonl")
    ap.add_argument("--game", help="in a results file: the game's id (arena replay RESULTS lists them)")
    args = parse(ap, argv)
    games = load_games(args.record, args.game)
    if len(games) > 1:
        print(f"{len(games)} games; show one with --game ID:")
        for _, names, label in games:
            print(f"  {label} ({' '.join(names or [])})")
        return EXIT_OK
    for record, names, _ in games:
        try:
            game = replay(record)  # raises if the record does not replay to the same result
        except (ReplayMismatch, ValueError, KeyError, TypeError) as e:
            raise CommandError(f"{args.record}: the record does not replay: {e}") from None
        print(render_game(record, names, game))
    return EXIT_OK


def main_export_deals(argv: list[str]) -> int:
    ap = parser("export-deals", "Write a deal file from a key's seeded stream.")
    ap.add_argument("key")
    ap.add_argument("out")
    ap.add_argument("--deals", type=int, default=30)
    profile_option(ap)  # the deck the profile shuffles: 52 cards, 53 with the joker
    args = parse(ap, argv)
    profile = profile_from_args(args)
    DealFile.from_key(args.key, args.deals, profile.shuffled_cards).save(args.out)
    print(f"wrote {args.deals} deals of key {args.key!r} ({profile.shuffled_cards} cards, profile {profile.name}) to {args.out}")
    return EXIT_OK


def main_schema(argv: list[str]) -> int:
    from ..protocol.schema import render

    parse(parser("schema", "Print the JSON Schema of the bot protocol (it ships with the harness)."), argv)
    print(render(), end="")
    return EXIT_OK
