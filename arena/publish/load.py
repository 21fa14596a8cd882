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
from dataclasses import dataclass, field, fields
from typing import Any, Iterable, Sequence

import orjson

from ..engine import deal_sides
from ..match.game import settings_profile
from ..ratings import BlockOutcome, GameOutcome
from ..ratings.data import TableBlock, TableGame
from ..ratings.tables import deal_contests, finish_contests
from ..results import BotRef, GameLine, LoadedResults, PairsLine, ResultLine, ResultsError, Seating, TableLine, read_results
from ..results import bot_ids as shared_ids

#: A results line as the ratings take it.
Block = BlockOutcome | TableBlock


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
    lines: Sequence[ResultLine] = ()

    @property
    def formats(self) -> set[str]:
        """The match formats the lines' games were played in ("game", "deals")."""
        return {"deals" if _is_deals(g) else "game" for ln in self.lines for g in ln.games}


def _ref(seat: BotRef) -> tuple[str, str]:
    """(name, digest) of a seat; a seat without a name is refused, naming it."""
    if not seat.bot:
        raise ResultsError(f"seat without a bot name: {seat.model_dump()!r}")
    return seat.ref


def bot_ids(lines: Iterable[ResultLine]) -> dict[tuple[str, str], BotInfo]:
    """Id for every (name, digest) in the lines: the name when it is unambiguous (the one rule
    of ``arena.results.bot_ids``, which the runner's standings use too)."""
    lines = list(lines)
    for line in lines:
        for g in line.games:
            for s in g.seats:
                _ref(s)  # a seat without a name is refused, naming the seat
    return {(n, d): BotInfo(bid, n, d) for (n, d), bid in shared_ids(lines).items()}


def _flag_for_draw(g: GameLine) -> str:
    if g.end == "cap" or (g.unfinished and g.end != "deals"):
        return "capped"
    if g.end == "deals":
        return "drawn_deals"
    return "draw"


def _faults(st: Seating, bots: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """(bot id, kind) of each fault: the bot at the seat it names, else the name it gives."""
    out = []
    for f in st.game.faults:
        seat = st.fault_seat(f)
        out.append((bots[seat] if seat is not None else f.bot, f.kind))
    return tuple(out)


def game_outcome(st: Seating, ids: dict[tuple[str, str], BotInfo]) -> GameOutcome:
    """One game of two pairs -> ``GameOutcome`` with side A = engine side 0."""
    g = st.game
    bots = [ids[_ref(s)].id for s in g.seats]
    side0, side1 = (bots[0], bots[2]), (bots[1], bots[3])
    forfeit_bot: str | None = None
    flag: str | None = None
    if g.forfeit_by is not None:
        forfeit_bot = bots[g.forfeit_by]
        score = 0.0 if st.side_of(g.forfeit_by) == 0 else 1.0  # the forfeiting side loses
        flag = "forfeit"
    elif g.winner is None:
        score = 0.5
        flag = _flag_for_draw(g)
    else:
        score = st.points(0)
    points: float | None = None
    if _is_deals(g):
        points = float(g.scores[0]) - float(g.scores[1])
    return GameOutcome(side0, side1, score, flag=flag, forfeit_by=forfeit_bot, points_diff=points,
                       faults=_faults(st, bots))


def game_contests(st: Seating, ids: dict[tuple[str, str], BotInfo]) -> tuple[list[tuple[str, list[str]]],
                                                                              list[tuple[str, str, float]]]:
    """What a crosstable counts of one game, whatever its shape: each bot with the bots it played against
    (a bot partnering itself once), and each (row, column, row's score) of two bots on different sides: at
    two pairs the partnership's result (a forfeit loses), at a table where the two finished
    (``TableGame.finish``). Lists in a fixed order (the site folds them in it)."""
    if st.side_a is None:
        tg = table_game(st, ids)
        groups = [(x, [y for j, y in enumerate(tg.seats) if j != i]) for i, x in enumerate(tg.seats)]
        return groups, [(x, y, tg.finish(i, j)) for i, x in enumerate(tg.seats) for j, y in enumerate(tg.seats)
                        if x != y]
    out = game_outcome(st, ids)
    sides = [sorted(set(out.side_a)), sorted(set(out.side_b))]
    groups = [(b, list(out.side_a if s == 1 else out.side_b)) for s in (0, 1) for b in sides[s]]
    cells: list[tuple[str, str, float]] = []
    for x in sides[0]:
        for y in sides[1]:
            if x != y:
                cells += [(x, y, out.score_a), (y, x, 1.0 - out.score_a)]
    return groups, cells


def block_score(line: ResultLine) -> float | None:
    """Partnership A's score over a block of two pairs (0, 0.5, ..., 2); None at a table."""
    return line.score_a if isinstance(line, PairsLine) else None


def _is_deals(g: GameLine) -> bool:
    """Deals format: the record says fixed deals, or the game ended on the deal count."""
    return bool(g.record.get("fixed_deals")) or g.end == "deals"


def table_game(st: Seating, ids: dict[tuple[str, str], BotInfo]) -> TableGame:
    """One game of a table's line -> ``TableGame`` with its contests."""
    g = st.game
    n = len(g.seats)
    bots = tuple(ids[_ref(s)].id for s in g.seats)
    forfeit, winner = g.forfeit_by, g.winner
    flag = "forfeit" if forfeit is not None else _flag_for_draw(g) if winner is None else None
    players, sides = settings_profile(g.record)
    if players != n:
        raise ResultsError(f"the record's profile seats {players}, the game {n}")
    base = TableGame(bots, None if forfeit is not None else winner, tuple(float(x) for x in g.scores), (), flag,
                     forfeit, _faults(st, bots), unfinished=g.end == "cap")
    if sides == "called":
        deals = []
        for d in g.record.get("deals") or []:
            side = deal_sides(d, n, sides)
            if side is not None:
                deals.append((side, [a - b for a, b in zip(d["scores_after"], d["scores_before"])], int(d["maker"])))
        contests = deal_contests(bots, deals, forfeit)
    else:
        contests = finish_contests(base)
    return TableGame(base.seats, base.winner, base.scores, contests, flag, forfeit, base.faults, base.unfinished)


def table_block(line: TableLine, ids: dict[tuple[str, str], BotInfo]) -> TableBlock:
    """One table's line (a block by rotation) -> ``TableBlock``."""
    try:
        return TableBlock(line.where, line.pairing, tuple(table_game(line.seating(h), ids)
                                                          for h in range(len(line.games))))
    except ValueError as e:
        raise ResultsError(f"{line.where}: {e}") from None


def block_outcome(line: PairsLine, ids: dict[tuple[str, str], BotInfo]) -> BlockOutcome:
    """One results line (a duplicate block) -> ``BlockOutcome``."""
    outs = [game_outcome(line.seating(h), ids) for h in (0, 1)]
    _check_sides(line, ids)
    try:
        return BlockOutcome(line.where, line.pairing, (outs[0], outs[1]))
    except ValueError as e:
        raise ResultsError(f"{line.where}: {e}") from None


def _check_sides(line: PairsLine, ids: dict[tuple[str, str], BotInfo]) -> None:
    """Partnership A must sit on each game's ``side_a``."""
    want = sorted(ids[_ref(s)].id for s in line.side_a)
    for h in (0, 1):
        st = line.seating(h)
        assert st.side_a is not None  # a pairs line's game names it (the schema)
        got = sorted(ids[_ref(s)].id for s in st.bots(st.side_a))
        if got != want:
            raise ResultsError(f"{line.where}: game {h}: partnership A {want} is not at engine side {st.side_a} ({got})")


def line_block(line: ResultLine, ids: dict[tuple[str, str], BotInfo]) -> Block:
    """One results line -> its rating input: a ``BlockOutcome`` (two pairs) or a ``TableBlock``."""
    return table_block(line, ids) if isinstance(line, TableLine) else block_outcome(line, ids)


def convert(lines: Sequence[ResultLine], ids: dict[tuple[str, str], BotInfo] | None = None,
            made: Sequence[Block] | None = None, own: bool = False) -> Conversion:
    """All lines -> blocks, in a stable order (pairing, block).

    ``ids``: the bot ids of a larger set of lines these are taken from (a
    retired version's blocks left out), so a bot keeps the id it has there; ``own``: they are these lines'
    own (``bot_ids(lines)``), so every bot they name plays here. ``made``: each line's block already converted
    with these ids (``Inputs``), in the order of ``lines``.
    """
    own = own or ids is None
    ids = bot_ids(lines) if ids is None else ids
    order = sorted(range(len(lines)), key=lambda i: lines[i].task_key)
    kinds = {isinstance(ln, TableLine) for ln in lines}
    if len(kinds) > 1:
        raise ResultsError("the results mix blocks of two pairs and blocks of tables of n seats: rate each apart")
    blocks: Any = [made[i] for i in order] if made is not None else [line_block(lines[i], ids) for i in order]
    if own:
        return Conversion(blocks, {b.id: b for b in ids.values()}, lines)
    used = {_ref(s) for ln in lines for g in ln.games for s in g.seats}
    return Conversion(blocks, {b.id: b for k, b in ids.items() if k in used}, lines)


def load_blocks(path: str | os.PathLike[str]) -> tuple[LoadedResults, Conversion]:
    """Read a results file and convert it in one go."""
    res = read_results(path)
    return res, convert(res.lines)


# ------------------------------------------------------------------ each line's block, kept


_GAME = tuple(f.name for f in fields(GameOutcome))  # the order ``Inputs`` writes a game's values in
_TABLE_GAME = tuple(f.name for f in fields(TableGame))
assert _GAME == ("side_a", "side_b", "score_a", "flag", "forfeit_by", "points_diff", "faults", "maker_a")
assert _TABLE_GAME == ("seats", "winner", "scores", "contests", "flag", "forfeit_by", "faults", "unfinished")


def _made(cls: type, names: Sequence[str], values: Iterable[Any]) -> Any:
    """A frozen dataclass from values it was written from (``Inputs.to_bytes``): not checked again."""
    obj: Any = object.__new__(cls)
    obj.__dict__.update(zip(names, values))
    return obj


@dataclass
class Inputs:
    """Each results line's block (``line_block``), kept from one build to the next so a rebuild converts only
    the lines appended since (a site's state keeps it: ``site.build``). ``made`` holds what the blocks were made
    from: the key of the state that made them (the code and options), the bot ids, and a digest of the lines'
    own digests in order; ``update`` reuses the blocks only while all of it still holds."""

    key: str = ""
    ids: dict[tuple[str, str], str] = field(default_factory=dict)
    digests: list[str] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    reused: int = 0  # lines the last ``update`` did not convert

    def kept(self, key: str, digests: Sequence[str]) -> int | None:
        """How many of the lines whose digests are ``digests`` were converted here under ``key`` (the kept lines
        are their prefix); None if they are not."""
        n = len(self.digests)
        return n if key == self.key and n <= len(digests) and list(digests[:n]) == self.digests else None

    def bots(self, key: str, lines: Sequence[ResultLine], digests: Sequence[str]) -> dict[tuple[str, str], BotInfo] | None:
        """``bot_ids(lines)`` without reading every seat again: the kept ids, when these are the kept lines
        followed by lines that name no other bot version (the ids depend on nothing else); else None."""
        n = self.kept(key, digests)
        if n is None:
            return None
        if any(_ref(s) not in self.ids for ln in lines[n:] for g in ln.games for s in g.seats):
            return None
        return {ref: BotInfo(bid, *ref) for ref, bid in self.ids.items()}

    def update(self, key: str, lines: Sequence[ResultLine], digests: Sequence[str],
               ids: dict[tuple[str, str], BotInfo]) -> list[Block]:
        """The blocks of ``lines`` (whose ``line_digest``s are ``digests``), converted with ``ids``: those of a
        prefix of lines already converted under the same key and ids are reused, the rest converted."""
        n = self.kept(key, digests)
        same = n is not None and all(ids[ref].id == bid if ref in ids else False for ref, bid in self.ids.items())
        keep = n if same and n is not None else 0
        blocks = self.blocks[:keep] + [line_block(ln, ids) for ln in lines[keep:]]
        self.key, self.digests, self.blocks, self.reused = key, list(digests), blocks, keep
        self.ids = {ref: b.id for ref, b in ids.items()}
        return blocks

    def to_bytes(self) -> bytes:
        """JSON: the key, ids and digests, each distinct game once and each block as indices of its games."""
        games: dict[Any, int] = {}
        rows: list[Any] = []

        def game(g: GameOutcome) -> int:
            return games.setdefault(g, len(games))

        for b in self.blocks:
            if isinstance(b, TableBlock):
                rows.append([b.block_id, b.table_id, 1, [[list(t.seats), t.winner, list(t.scores),
                                                          [game(c) for c in t.contests], t.flag, t.forfeit_by,
                                                          [list(f) for f in t.faults], t.unfinished] for t in b.games]])
            else:
                rows.append([b.block_id, b.pairing_id, 0, [game(g) for g in b.games]])
        table = [[list(g.side_a), list(g.side_b), g.score_a, g.flag, g.forfeit_by, g.points_diff,
                  [list(f) for f in g.faults], g.maker_a] for g in games]
        return orjson.dumps({"key": self.key, "ids": [[n, d, i] for (n, d), i in self.ids.items()],
                             "digests": self.digests, "games": table, "blocks": rows})

    @classmethod
    def from_bytes(cls, data: bytes) -> "Inputs":
        """As ``to_bytes`` wrote it; ``ValueError`` (or ``KeyError``, ``TypeError``, ``IndexError``) for anything
        else. Blocks are rebuilt without their checks (they were checked when converted)."""
        d = orjson.loads(data)
        games = [_made(GameOutcome, _GAME, (tuple(a), tuple(b), float(s), fl, fb, None if p is None else float(p),
                                            tuple(tuple(f) for f in fs), bool(m)))
                 for a, b, s, fl, fb, p, fs, m in d["games"]]
        blocks: list[Block] = []
        for bid, group, kind, gs in d["blocks"]:
            if kind:
                rot = tuple(_made(TableGame, _TABLE_GAME, (tuple(st), w, tuple(map(float, sc)),
                                                            tuple(games[c] for c in cs), fl, fb,
                                                            tuple(tuple(f) for f in fs), bool(u)))
                            for st, w, sc, cs, fl, fb, fs, u in gs)
                blocks.append(_made(TableBlock, ("block_id", "table_id", "games"), (bid, group, rot)))
            else:
                blocks.append(_made(BlockOutcome, ("block_id", "pairing_id", "games"),
                                    (bid, group, tuple(games[i] for i in gs))))
        digests = [str(x) for x in d["digests"]]
        if len(digests) != len(blocks):
            raise ValueError("kept rating inputs of another length")
        return cls(str(d["key"]), {(str(n), str(dg)): str(i) for n, dg, i in d["ids"]}, digests, blocks)
