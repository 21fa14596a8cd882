"""What a bootstrap added up per matchup and per pairing, kept for the next bootstrap of a growing store.

A bootstrap resample weighs each block by how often its unit (a deal key)
was drawn; what a resample's fit and its luck figure need is added up per
matchup (its games and score) and per pairing (its sums of squares), each
over that cell's own blocks. A ladder's batch adds a few blocks to a few
cells: with the same draws (the same seed, number of resamples and units),
every other cell's sums are the same numbers, so ``ResampleMemo`` keeps
each cell's sums beside a digest of what they were made from (its blocks'
units and results) and hands them back when the digest still matches. A
cell's sums are a pure function of the draws and that content, so a reused
entry is, to the last bit, what adding up again gives: a report made with a
memo is the report made without one.
"""

from __future__ import annotations

import hashlib
import json
from array import array
from dataclasses import dataclass, field
from typing import Callable, Sequence

#: per cell: the digest of its content, then its rows (one value per resample each), kept as arrays of doubles
#: (a quarter of a list of floats: a server's memo at 20,000 stored games took 38 MB as lists)
Cell = tuple[str, list["array[float]"]]


def digest(content: object) -> str:
    """A digest of a cell's content (numbers and strings; ``repr`` of a float is exact)."""
    return hashlib.blake2b(repr(content).encode(), digest_size=16).hexdigest()


@dataclass
class ResampleMemo:
    """Per section (what is summed: the fit's matchups, a luck statistic's pairings), the draws it was summed
    under and each cell's sums. Cells no call asked for since ``begin`` are dropped by ``end``."""

    sections: dict[str, tuple[str, dict[str, Cell]]] = field(default_factory=dict)
    _used: dict[str, set[str]] = field(default_factory=dict)
    hits: int = 0
    misses: int = 0

    def begin(self) -> None:
        self._used = {}
        self.hits = self.misses = 0

    def cells(self, section: str, draws: str) -> dict[str, Cell]:
        """The section's cells if they were summed under ``draws`` (else none: a new section)."""
        kept = self.sections.get(section)
        if kept is None or kept[0] != draws:
            kept = self.sections[section] = (draws, {})
        self._used.setdefault(section, set())
        return kept[1]

    def get(self, section: str, draws: str, key: str, content: object,
            make: Callable[[], Sequence[Sequence[float]]]) -> Sequence[Sequence[float]]:
        """The cell's rows: kept ones when its content is what they were made from, else ``make()``'s."""
        cells = self.cells(section, draws)
        self._used[section].add(key)
        d = digest(content)
        hit = cells.get(key)
        if hit is not None and hit[0] == d:
            self.hits += 1
            return hit[1]
        self.misses += 1
        rows = [array("d", row) for row in make()]  # the same doubles
        cells[key] = (d, rows)
        return rows

    def end(self) -> None:
        """Forget the sections and cells this round did not use (a pairing whose blocks left, a statistic)."""
        self.sections = {s: (d, {k: c for k, c in cells.items() if k in self._used[s]})
                         for s, (d, cells) in self.sections.items() if s in self._used}

    def to_bytes(self) -> bytes:
        """One JSON line (sections, draws, cells: key, digest, rows, row length) then the values as doubles."""
        head: list[object] = []
        values = array("d")
        for s, (d, cells) in sorted(self.sections.items()):
            rows_of = []
            for k, (cd, rows) in cells.items():
                rows_of.append([k, cd, len(rows), len(rows[0]) if rows else 0])
                for row in rows:
                    values.extend(row)
            head.append([s, d, rows_of])
        return json.dumps(head, separators=(",", ":")).encode() + b"\n" + values.tobytes()

    @classmethod
    def from_bytes(cls, data: bytes) -> "ResampleMemo":
        """As ``to_bytes`` wrote it; ``ValueError`` for anything else."""
        text, sep, raw = data.partition(b"\n")
        if not sep:
            raise ValueError("not a resample memo")
        values = array("d")
        values.frombytes(raw)  # ValueError when not whole doubles
        memo = cls()
        at = 0
        for s, d, rows_of in json.loads(text):
            cells: dict[str, Cell] = {}
            for k, cd, n, width in rows_of:
                rows = []
                for _ in range(n):
                    rows.append(values[at:at + width])
                    at += width
                cells[str(k)] = (str(cd), rows)
            memo.sections[str(s)] = (str(d), cells)
        if at != len(values):
            raise ValueError("a resample memo of another length")
        return memo
