"""Lineages: which bot processes play which games when processes stay up between games.

With ``match.restart: per-lineage`` the unit of work is a *batch*: up to
``match.lineage_blocks`` consecutive blocks of one pairing (block numbers
``b`` with the same ``b // lineage_blocks``), played in block order. A batch
keeps eight processes, one per (half, seat): the lineage (pairing, half,
seat) plays that seat of that half in each block of the batch. Batch
boundaries come from the config alone, never from the worker count, so the
same config gives the same batches (and results) on any number of workers.

Why no process meets a deal twice: a block's two halves share one deal key,
but they are different lineages; within a lineage each game belongs to a
different block, and block ``b``'s key is ``derive_key(seed, "block", b)``,
distinct for distinct ``b``. A lineage never leaves its pairing and batch,
so the same block of another pairing (same deals) is always someone else's
process. ``check_plan`` checks exactly this over the deals each process
would meet (deal-file decks included) and refuses a plan that breaks it.

The unit that restarts: a batch with a block missing from the store is
played again from its first block with fresh processes (lines already
stored are kept, not rewritten), so a bot that remembers earlier games
plays exactly as in the uninterrupted run; the store only ever holds whole
blocks (both games).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from .unit import BatchTask, BlockTask, Unit, blocks_of


class PlanRefused(ValueError):
    """Some process of the plan would meet a deal twice."""


def batch_index(task: BlockTask) -> int:
    return task.block // task.settings.lineage_blocks


def make_units(tasks: Sequence[BlockTask], stored: Collection[tuple[str, int]] = ()) -> list[Unit]:
    """The units of work still to play for ``tasks`` (in start order), given the ``stored`` block keys.

    Per-game tasks stay single blocks, stored ones dropped. Per-lineage tasks
    are grouped by (pairing, batch index), each group in block order, groups
    ordered by their first task; a batch with every block stored is dropped,
    one with any block missing is played whole, from its first block.
    """
    groups: dict[tuple[str, int], list[BlockTask]] = {}
    order: list[Unit | tuple[str, int]] = []
    for t in tasks:
        if t.settings.restart != "per-lineage":
            if t.key not in stored:
                order.append(t)
            continue
        g = (t.pairing, batch_index(t))
        if g not in groups:
            groups[g] = []
            order.append(g)
        groups[g].append(t)
    units: list[Unit] = []
    for u in order:
        if isinstance(u, tuple):
            if all(t.key in stored for t in groups[u]):
                continue
            units.append(BatchTask(tuple(sorted(groups[u], key=lambda t: t.block))))
        else:
            units.append(u)
    check_plan(units)
    return units


def deals_met(task: BlockTask) -> set[tuple[str, str]]:
    """What a process playing one game of this block is dealt: its deal key's decks and any deal file's."""
    met: set[tuple[str, str]] = {("key", task.block_key)}
    if task.deal_file is not None:
        met |= {("deck", " ".join(d.deck)) for d in task.deal_file.deals}
    return met


def lineages(unit: Unit) -> dict[tuple[str, int, int | str], list[BlockTask]]:
    """(pairing, half, seat) -> the blocks that process plays, in order (one block for a per-game unit);
    at a table (table, rotation, entrant): the entrant's process of that rotation, whatever its seat."""
    blocks = blocks_of(unit)
    first = blocks[0]
    if first.table:
        return {(first.pairing, r, e): list(blocks) for r in range(len(first.table)) for e in sorted(first.table)}
    return {(first.pairing, half, seat): list(blocks) for half in (0, 1) for seat in range(4)}


def check_plan(units: Sequence[Unit]) -> None:
    """Refuse a plan in which one process would meet a deal twice (``PlanRefused`` names it)."""
    for unit in units:
        blocks = blocks_of(unit)
        if any(b.pairing != blocks[0].pairing or b.settings != blocks[0].settings
               or sorted(b.table) != sorted(blocks[0].table) for b in blocks):
            raise PlanRefused(f"batch at block {blocks[0].block} mixes pairings, tables or settings")
        where = "entrant" if blocks[0].table else "seat"
        for (pairing, half, seat), played in lineages(unit).items():
            seen: dict[tuple[str, str], int] = {}
            for b in played:
                for deal in deals_met(b):
                    if deal in seen:
                        raise PlanRefused(
                            f"the process of pairing {pairing}, game {half}, {where} {seat} would meet the same deal"
                            f" ({deal[0]} {deal[1][:16]}) in block {seen[deal]} and block {b.block}")
                    seen[deal] = b.block
