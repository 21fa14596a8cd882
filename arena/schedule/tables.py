"""Tables of n seats: which entrants sit together, block by block, and in what order.

At a table without fixed pairs (docs/rules.md 14) a tournament's unit is a *table*: n
distinct entrants, keyed by their identities (sorted), so reordering entries changes
nothing. Each block of a table is played by rotation (docs/tournaments.md): the same
deals n times, the entrants rotated through the seats.

* ``round_robin`` with ``schedule.tables: all`` (the default): every combination of n
  entrants, each block.
* ``round_robin`` with ``schedule.tables: T``: a balanced design of T tables per block
  (``balanced``): each entrant plays exactly T*n/E tables in every block, and every two
  entrants meet as evenly as the builder manages (the spread is measured and reported).
* ``gauntlet``: the candidate at every table, the other n-1 seats every combination of
  baselines, or a balanced design of them with ``schedule.tables: T``.

The seat order of a table in a block comes from the block's key (a keyed shuffle), so over
the blocks the entrants' neighbours change as well as their cards.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from itertools import combinations
from math import comb
from typing import Sequence

from ..match.keys import DealKey, seat_key
from ..players import BotEntry

#: Most tables a block may have under ``schedule.tables: all``; beyond it a balanced design is asked for.
MAX_ALL = 252


@dataclass(frozen=True)
class Table:
    """n entrants, sorted by identity; the key names the table in results and game ids."""

    entrants: tuple[BotEntry, ...]

    @property
    def key(self) -> str:
        return "table:" + "+".join(e.ident for e in self.entrants)

    @property
    def bots(self) -> list[BotEntry]:
        return list(self.entrants)


def _by_ident(entries: Sequence[BotEntry]) -> list[BotEntry]:
    return sorted(entries, key=lambda e: e.ident)


def valid_counts(entrants: int, size: int, upto: int = 4) -> list[int]:
    """The first table counts per block for which every entrant can play equally often."""
    return [t for t in range(1, entrants * size + 1) if (t * size) % entrants == 0][:upto]


def balanced(ids: Sequence[str], size: int, per_block: int, blocks: int) -> list[list[tuple[str, ...]]]:
    """``blocks`` blocks of ``per_block`` tables of ``size`` distinct ids each, built online (block b
    depends only on blocks before it, so raising the block count keeps every earlier table).

    A block starts greedily: each table takes, seat by seat, one of the ids that have played
    least so far (so the play counts never differ by more than one, and are equal after every
    block when ``per_block * size`` is a multiple of ``len(ids)``), among those the one that has
    met the table's members least. Then swaps of two ids between two of the block's tables, which
    keep every play count, are made while one lowers the sum of squared meeting counts over the
    whole plan so far; a few greedy starts are tried and the most even block is kept.
    """
    return [list(b) for b in _balanced(tuple(sorted(ids)), size, per_block, blocks)]


#: Designs kept (each with its state, so asking for more blocks builds only the new ones): a server's ladder
#: asks for one block more every few batches.
DESIGNS_KEPT = 8
_designs: OrderedDict[tuple[tuple[str, ...], int, int], "_Design"] = OrderedDict()


@dataclass
class _Design:
    """A balanced design built so far: its blocks and the play and meeting counts after them."""

    blocks: list[tuple[tuple[str, ...], ...]]
    plays: dict[str, int]
    meet: dict[tuple[str, str], int]


def _balanced(ids: tuple[str, ...], size: int, per_block: int, blocks: int) -> tuple[tuple[tuple[str, ...], ...], ...]:
    """The cached, incremental builder of ``balanced``: block b depends only on the blocks before it, so a
    design asked for with more blocks continues the one kept (a run asks for its plan more than once)."""
    e = len(ids)
    if size > e:
        raise ValueError(f"a table of {size} needs at least {size} entrants, got {e}")
    key = (ids, size, per_block)
    d = _designs.pop(key, None) or _Design([], dict.fromkeys(ids, 0),
                                          {(a, b): 0 for a in ids for b in ids if a != b})
    _designs[key] = d  # most recently used last
    while len(_designs) > DESIGNS_KEPT:
        _designs.popitem(last=False)
    while len(d.blocks) < blocks:
        best: tuple[int, list[list[str]], dict[tuple[str, str], int], dict[str, int]] | None = None
        for start in range(min(e, STARTS)):  # a few greedy starts, each evened out; the most even is kept
            m, p = dict(d.meet), dict(d.plays)
            blk = _greedy(list(ids), size, per_block, m, p, start)
            _even_out(blk, m)
            cost = sum(v * v for v in m.values())
            if best is None or cost < best[0]:
                best = (cost, blk, m, p)
        assert best is not None
        _, blk, d.meet, d.plays = best
        d.blocks.append(tuple(tuple(sorted(t)) for t in blk))
    return tuple(d.blocks[:blocks])


#: Greedy starts tried per block of a balanced design (each turns the tie order by one).
STARTS = 6


def _greedy(ids: list[str], size: int, per_block: int, meet: dict[tuple[str, str], int], plays: dict[str, int],
            turn: int) -> list[list[str]]:
    """One block's tables, seat by seat: an id of the fewest plays, then of the fewest meetings with
    the table so far, then the next in the order turned by ``turn`` (updates ``meet`` and ``plays``)."""
    e = len(ids)
    blk: list[list[str]] = []
    for t in range(per_block):
        chosen: list[str] = []
        for _ in range(size):
            free = [x for x in ids if x not in chosen]
            low = min(plays[x] for x in free)
            pick = min((x for x in free if plays[x] == low),
                       key=lambda x: (sum(meet[(x, c)] for c in chosen), (ids.index(x) - turn - t) % e))
            chosen.append(pick)
            plays[pick] += 1
        _seat(chosen, meet, 1)
        blk.append(chosen)
    return blk


def _seat(table: Sequence[str], meet: dict[tuple[str, str], int], d: int) -> None:
    for a in table:
        for b in table:
            if a != b:
                meet[(a, b)] += d


def _even_out(tables: list[list[str]], meet: dict[tuple[str, str], int]) -> None:
    """Swap ids between tables while a swap lowers the sum of squared meeting counts (``meet``
    holds this block's tables too and is kept up to date). Deterministic: a fixed scan order."""
    better = True
    while better:
        better = False
        for i in range(len(tables)):
            for j in range(i + 1, len(tables)):
                ti, tj = tables[i], tables[j]
                for a in list(ti):
                    if a in tj:
                        continue
                    for b in list(tj):
                        if b in ti:
                            continue
                        net: dict[tuple[str, str], int] = {}
                        for x in ti:
                            if x != a:
                                net[(a, x)] = net.get((a, x), 0) - 1
                                net[(b, x)] = net.get((b, x), 0) + 1
                        for y in tj:
                            if y != b:
                                net[(b, y)] = net.get((b, y), 0) - 1
                                net[(a, y)] = net.get((a, y), 0) + 1
                        delta = sum((meet[p] + d) ** 2 - meet[p] ** 2 for p, d in net.items() if d)
                        if delta < 0:
                            _seat(ti, meet, -1)
                            _seat(tj, meet, -1)
                            ti[ti.index(a)] = b
                            tj[tj.index(b)] = a
                            _seat(ti, meet, 1)
                            _seat(tj, meet, 1)
                            better = True
                            break
                    if better:
                        break
def meetings(plan: Sequence[Sequence[tuple[str, ...]]]) -> dict[tuple[str, str], int]:
    """How often each two ids (sorted) sit at one table over the plan's blocks."""
    out: dict[tuple[str, str], int] = {}
    for blk in plan:
        for t in blk:
            for a, b in combinations(sorted(t), 2):
                out[(a, b)] = out.get((a, b), 0) + 1
    return out


def table_plan(kind: str, entries: Sequence[BotEntry], size: int, blocks: int, tables: int | None,
               candidate: BotEntry | None = None, baselines: Sequence[BotEntry] = ()) -> list[list[Table]]:
    """The tables of each block (``ValueError`` says what cannot be built)."""
    fixed = [candidate] if kind == "gauntlet" and candidate is not None else []
    pool = _by_ident(baselines if kind == "gauntlet" else entries)
    seats = size - len(fixed)
    if kind not in ("round_robin", "gauntlet"):
        raise ValueError(f"schedule {kind!r} is for two pairs; a table of {size} plays round_robin or gauntlet")
    if len(pool) < seats:
        who = "baselines" if fixed else "entries"
        raise ValueError(f"a table of {size} seats needs at least {seats} {who}, got {len(pool)}")
    by_ident = {e.ident: e for e in pool}
    if tables is None:
        return [[Table(tuple(_by_ident([*fixed, *c]))) for c in combinations(pool, seats)]] * blocks
    plan = balanced([e.ident for e in pool], seats, tables, blocks)
    return [[Table(tuple(_by_ident([*fixed, *(by_ident[i] for i in t)]))) for t in blk] for blk in plan]


def plan_problem(kind: str, entrants: int, size: int, tables: int | None) -> str | None:
    """Why ``schedule.tables`` cannot be used with these counts (None: it can)."""
    pool, seats = (entrants - 1, size - 1) if kind == "gauntlet" else (entrants, size)
    if pool < seats or seats < 1:
        return None  # the entries' count is reported on its own
    if tables is None:
        if comb(pool, seats) > MAX_ALL:
            return (f"every combination is {comb(pool, seats)} tables a block (at most {MAX_ALL}): give a number of "
                    f"tables for a balanced design, e.g. {', '.join(map(str, valid_counts(pool, seats)))}")
        return None
    if (tables * seats) % pool:
        return (f"{tables} tables of {seats} {'baselines' if kind == 'gauntlet' else 'entrants'} cannot give each of "
                f"the {pool} the same number of games; use one of {', '.join(map(str, valid_counts(pool, seats)))}")
    return None


def seat_order(table: Table, block_key: DealKey) -> tuple[BotEntry, ...]:
    """The table's entrants by seat in rotation 0 of a block: a shuffle keyed by the block's key,
    so the same config gives the same order on any worker count."""
    return tuple(sorted(table.entrants, key=lambda e: (seat_key(block_key, e.ident), e.ident)))
