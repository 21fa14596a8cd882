"""Results lines -> rating inputs (``BlockOutcome``).

The ratings math (``arena.ratings``) wants, per game, the two partnerships as
bot ids, side A's score, a flag for games stopped without a winner, who
forfeited, and the faults. The results store writes, per game, the bot at
each seat and the *engine* side that won. This module is the only place that
translates one into the other, so every conversion rule lives here:

* **Side A of a ``GameOutcome`` is always engine side 0 (seats 0 and 2).**
  Both games of a block use the same deals, so seats 0+2 hold the same cards
  in both halves; the ratings code needs exactly that ("side A names the same
  seats in both halves"). The results' per-game ``side_a`` (the engine side
  where partnership A sits) is used only to check that the line is a proper
  swap, and for the partnership labels.
* ``winner`` null is a draw: flag ``capped`` when ``end == "cap"`` (or the
  game is marked unfinished), ``drawn_deals`` for a deals-format game that
  ended level, ``draw`` otherwise.
* A forfeit is a loss for the forfeiting seat's side (flag ``forfeit``), and
  ``forfeit_by`` (a seat) becomes the bot id at that seat.
* ``points_diff`` is engine side 0's score minus side 1's (``scores``); it is
  filled in for deals-format games only, where points are the measure.
* A bot's id is its name, or ``name@digest12`` when one results file holds
  the same name with different digests (a changed bot must not be merged
  with its old self).
* **A table's line** (``table``, a table of n seats played by rotation)
  becomes a ``TableBlock``: each game a ``TableGame`` (the bot at each
  seat, the winning seat, each seat's final score) with the contests the
  fit counts (``arena.ratings.tables``): every two seats by their finish
  at cut-throat (``sides: each``), each scored deal's maker side against
  the rest at a called-partner table, the deal's sides read from the
  record by the engine (``deal_sides``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Iterable

from ..engine import deal_sides
from ..match.game import settings_profile
from ..ratings import BlockOutcome, GameOutcome
from ..ratings.data import TableBlock, TableGame
from ..ratings.tables import deal_contests, finish_contests
from ..results import LoadedResults, ResultsError, read_results
from ..results import bot_ids as shared_ids, seat_ref


@dataclass
class BotInfo:
    """What the results say about one entrant (id used in the ratings)."""

    id: str
    name: str
    digest: str


@dataclass
class Conversion:
    """Rating inputs built from results lines, with the bots they name."""

    blocks: list[BlockOutcome] | list[TableBlock]
    bots: dict[str, BotInfo]  # id -> info
    formats: set[str] = field(default_factory=set)  # match formats seen ("game", "deals")


def _ref(seat: dict[str, Any]) -> tuple[str, str]:
    """(name, digest) of a seat entry; accepts ``name`` or ``bot`` for the name."""
    name, digest = seat_ref(seat)
    if not name:
        raise ResultsError(f"seat without a bot name: {seat!r}")
    return name, digest


def bot_ids(lines: Iterable[dict[str, Any]]) -> dict[tuple[str, str], BotInfo]:
    """Id for every (name, digest) in the lines: the name when it is unambiguous (the one rule
    of ``arena.results.bot_ids``, which the runner's standings use too)."""
    lines = list(lines)
    for line in lines:
        for g in line.get("games", []):
            for s in g.get("seats", []):
                _ref(s)  # a seat without a name is refused, naming the seat
    return {(n, d): BotInfo(bid, n, d) for (n, d), bid in shared_ids(lines).items()}


def _flag_for_draw(g: dict[str, Any]) -> str:
    end = g.get("end")
    if end == "cap" or (g.get("unfinished") and end != "deals"):
        return "capped"
    if end == "deals":
        return "drawn_deals"
    return "draw"


def game_outcome(g: dict[str, Any], ids: dict[tuple[str, str], BotInfo], where: str = "") -> GameOutcome:
    """One results game -> ``GameOutcome`` with side A = engine side 0."""
    seats = g.get("seats")
    if not isinstance(seats, list) or len(seats) != 4:
        raise ResultsError(f"{where}: a game needs 4 seats")
    bots = [ids[_ref(s)].id for s in seats]
    side0, side1 = (bots[0], bots[2]), (bots[1], bots[3])
    winner = g.get("winner")
    forfeit_seat = g.get("forfeit_by")
    forfeit_bot: str | None = None
    flag: str | None = None
    if forfeit_seat is not None:
        if not (isinstance(forfeit_seat, int) and 0 <= forfeit_seat <= 3):
            raise ResultsError(f"{where}: forfeit_by must be a seat 0..3, got {forfeit_seat!r}")
        forfeit_bot = bots[forfeit_seat]
        score = 0.0 if forfeit_seat % 2 == 0 else 1.0  # the forfeiting side loses
        flag = "forfeit"
    elif winner is None:
        score = 0.5
        flag = _flag_for_draw(g)
    elif winner in (0, 1):
        score = 1.0 if winner == 0 else 0.0
    else:
        raise ResultsError(f"{where}: winner must be 0, 1 or null, got {winner!r}")
    points: float | None = None
    scores = g.get("scores")
    if _is_deals(g) and isinstance(scores, list) and len(scores) == 2:
        points = float(scores[0]) - float(scores[1])
    faults = []
    for f in g.get("faults") or []:
        seat = f.get("seat")
        bot = bots[seat] if isinstance(seat, int) and 0 <= seat <= 3 else str(f.get("bot", "?"))
        faults.append((bot, str(f.get("kind", "unknown"))))
    return GameOutcome(side0, side1, score, flag=flag, forfeit_by=forfeit_bot, points_diff=points,
                       faults=tuple(faults))


def _is_deals(g: dict[str, Any]) -> bool:
    """Deals format: the record says fixed deals, or the game ended on the deal count."""
    rec = g.get("record") or {}
    return bool(rec.get("fixed_deals")) or g.get("end") == "deals"


def table_game(g: dict[str, Any], ids: dict[tuple[str, str], BotInfo], where: str = "") -> TableGame:
    """One game of a table's line -> ``TableGame`` with its contests."""
    seats = g.get("seats")
    if not isinstance(seats, list) or not 2 <= len(seats) <= 6:
        raise ResultsError(f"{where}: a table's game needs 2 to 6 seats")
    n = len(seats)
    bots = tuple(ids[_ref(s)].id for s in seats)
    scores = g.get("scores")
    if not (isinstance(scores, list) and len(scores) == n):
        raise ResultsError(f"{where}: a table's game needs one score per seat")
    forfeit, winner = g.get("forfeit_by"), g.get("winner")
    for name, seat in (("forfeit_by", forfeit), ("winner", winner)):
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < n):
            raise ResultsError(f"{where}: {name} must be a seat 0..{n - 1}, got {seat!r}")
    flag = "forfeit" if forfeit is not None else _flag_for_draw(g) if winner is None else None
    faults = []
    for f in g.get("faults") or []:
        seat = f.get("seat")
        faults.append((bots[seat] if isinstance(seat, int) and 0 <= seat < n else str(f.get("bot", "?")),
                       str(f.get("kind", "unknown"))))
    rec = g.get("record") or {}
    players, sides = settings_profile(rec)
    if players != n:
        raise ResultsError(f"{where}: the record's profile seats {players}, the game {n}")
    base = TableGame(bots, None if forfeit is not None else winner, tuple(float(x) for x in scores), (), flag,
                     forfeit, tuple(faults), unfinished=g.get("end") == "cap")
    if sides == "called":
        deals = []
        for d in rec.get("deals") or []:
            side = deal_sides(d, n, sides)
            if side is not None:
                deals.append((side, [a - b for a, b in zip(d["scores_after"], d["scores_before"])], int(d["maker"])))
        contests = deal_contests(bots, deals, forfeit)
    else:
        contests = finish_contests(base)
    return TableGame(base.seats, base.winner, base.scores, contests, flag, forfeit, base.faults, base.unfinished)


def table_block(line: dict[str, Any], ids: dict[tuple[str, str], BotInfo]) -> TableBlock:
    """One table's line (a block by rotation) -> ``TableBlock``."""
    where = f"{line.get('pairing')}#{line.get('block')}"
    games = line.get("games")
    if not isinstance(games, list) or len(games) != len(line.get("table") or ()):
        raise ResultsError(f"{where}: a table's block has one game per seat of the table")
    try:
        return TableBlock(where, str(line.get("pairing")), tuple(table_game(g, ids, where) for g in games))
    except ValueError as e:
        raise ResultsError(f"{where}: {e}") from None


def block_outcome(line: dict[str, Any], ids: dict[tuple[str, str], BotInfo]) -> BlockOutcome:
    """One results line (a duplicate block) -> ``BlockOutcome``."""
    where = f"{line.get('pairing')}#{line.get('block')}"
    games = line.get("games")
    if not isinstance(games, list) or len(games) != 2:
        raise ResultsError(f"{where}: a block needs exactly two games")
    outs = [game_outcome(g, ids, where) for g in games]
    _check_sides(line, games, ids, where)
    try:
        return BlockOutcome(f"{where}", str(line.get("pairing")), (outs[0], outs[1]))
    except ValueError as e:
        raise ResultsError(f"{where}: {e}") from None


def _check_sides(line: dict[str, Any], games: list[dict[str, Any]], ids: dict[tuple[str, str], BotInfo],
                 where: str) -> None:
    """Partnership A must sit on each game's ``side_a`` (when the line names it)."""
    if "side_a" not in line:
        return
    want = sorted(ids[_ref(s)].id for s in line["side_a"])
    for h, g in enumerate(games):
        side = g.get("side_a")
        if side not in (0, 1):
            raise ResultsError(f"{where}: game {h} side_a must be 0 or 1")
        got = sorted(ids[_ref(g["seats"][s])].id for s in (side, side + 2))
        if got != want:
            raise ResultsError(f"{where}: game {h}: partnership A {want} is not at engine side {side} ({got})")


def convert(lines: list[dict[str, Any]], ids: dict[tuple[str, str], BotInfo] | None = None) -> Conversion:
    """All lines -> blocks, in a stable order (pairing, block).

    ``ids``: the bot ids of a larger set of lines these are taken from (a
    retired version's blocks left out), so a bot keeps the id it has there.
    """
    ids = bot_ids(lines) if ids is None else ids
    ordered = sorted(lines, key=lambda ln: (str(ln.get("pairing")), int(ln.get("block", 0))))
    tables = [ln for ln in ordered if ln.get("table") is not None]
    if tables and len(tables) != len(ordered):
        raise ResultsError("the results mix blocks of two pairs and blocks of tables of n seats: rate each apart")
    blocks: list[BlockOutcome] | list[TableBlock] = (
        [table_block(ln, ids) for ln in ordered] if tables else [block_outcome(ln, ids) for ln in ordered])
    formats = {"deals" if _is_deals(g) else "game" for ln in lines for g in ln.get("games", [])}
    used = {_ref(s) for ln in lines for g in ln.get("games", []) for s in g.get("seats", [])}
    return Conversion(blocks, {b.id: b for k, b in ids.items() if k in used}, formats)


def load_blocks(path: str | os.PathLike[str]) -> tuple[LoadedResults, Conversion]:
    """Read a results file and convert it in one go."""
    res = read_results(path)
    return res, convert(res.lines)
