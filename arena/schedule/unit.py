"""The units of work: one duplicate block (of a pairing or of a table) and a batch of one
pairing's blocks played by the same lineage processes (``match.restart: per-lineage``).

Plain frozen data, shipped to workers as they are: what to play, never how
(``task.run_block`` plays them, ``lineage`` checks which processes meet which deals).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Union

from ..engine import DealFile
from ..match import DealKey, MatchSettings
from ..results import ResultLine


@dataclass(frozen=True)
class BlockTask:
    """One block: of a pairing (``side_a``, ``side_b``: two games, partnerships swapped) or, at a
    table of n seats, of a table (``table``: its entrants by seat in rotation 0; n games by
    rotation). ``pairing`` is the pairing's or the table's key."""

    pairing: str
    block: int
    block_key: DealKey  # the block's deal key: a task never carries the tournament seed
    side_a: tuple[str, ...]  # bot idents (two, or none at a table)
    side_b: tuple[str, ...]
    settings: MatchSettings
    config_hash: str
    deal_file: DealFile | None = None
    nice: int | None = None  # process priority to play at; shapes timing only, never results
    table: tuple[str, ...] = ()  # bot idents by seat in rotation 0, at a table of n seats

    @property
    def key(self) -> tuple[str, int]:
        return (self.pairing, self.block)

    @property
    def idents(self) -> list[str]:
        return sorted(set(self.side_a) | set(self.side_b) | set(self.table))

    @property
    def games(self) -> int:
        """Games in the block: two, or one per rotation of a table."""
        return len(self.table) if self.table else 2


@dataclass(frozen=True)
class BatchTask:
    """The blocks one set of lineage processes plays, in order (all of one pairing)."""

    blocks: tuple[BlockTask, ...]

    @property
    def first(self) -> BlockTask:
        return self.blocks[0]

    @property
    def key(self) -> tuple[str, int]:
        return self.first.key

    @property
    def pairing(self) -> str:
        return self.first.pairing

    @property
    def block(self) -> int:
        return self.first.block

    @property
    def settings(self) -> MatchSettings:
        return self.first.settings

    @property
    def nice(self) -> int | None:
        return self.first.nice

    @property
    def idents(self) -> list[str]:
        return self.first.idents


#: What a backend runs: one block (``restart: per-game``) or a batch (``per-lineage``).
Unit = Union[BlockTask, BatchTask]
#: Asked after each block of a batch with its provisional line: go on with the next block?
BlockHook = Callable[[BlockTask, ResultLine], bool]


def blocks_of(unit: Unit) -> tuple[BlockTask, ...]:
    return unit.blocks if isinstance(unit, BatchTask) else (unit,)
