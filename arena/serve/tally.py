"""What the ladder keeps of its store between batches, read once: each batch reads only what was appended.

The store only grows, and a batch used to parse and validate all of it
(about 1.3 ms of CPU a block, 13 s at 20,000 games) for each of its steps.
A ``Follow`` keeps a summary of the lines read in a file of the competition
folder, with where its reading stopped, and reads only the lines appended
since (``ResultsScan`` from that byte: a torn last line is left for later,
a key already read counts once: the keys read are kept as each unit's runs
of block numbers, ``Runs``, so a ladder that plays a unit's blocks in order
keeps two numbers a unit, however many it stored). A store that no longer holds the last line
read where it was read (cut after a kill and written again) is read again
from its start. Two summaries:

* ``Tally``: each version's games, points and faults, added in the store's
  order as ``results.standings`` adds them, so FOLDER/standings.json gives
  the same figures to the last bit;
* ``Index``: what the ladder's choice reads of the store, per unit (a
  pairing's or a table's key): its stored block numbers (the keys read) and
  its games' wins of each bot name over each other (``choice.pairwise``),
  summed; and the config hashes seen. Counts per unit, never a row per game: the store
  grows for as long as the ladder runs, the units only with new versions.
"""

from __future__ import annotations

import bisect
import json
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar, Iterable, Mapping, TypeVar

from ..results import ResultLine, ResultsError, ResultsScan, results_path, seatings
from ..results.standings import Standing
from ..results.store import still_holds, tail_digest
from .choice import Contest, contests, pairwise_of

F = TypeVar("F", bound="Follow")


class Runs:
    """A set of (unit, block number) kept as each unit's runs of consecutive numbers (a flat list of
    [first, after] bounds): the keys a ladder stores per unit are mostly 0, 1, 2, ... so this grows with the
    units and the gaps between their blocks, not with the blocks."""

    def __init__(self, bounds: Mapping[str, list[int]] | None = None) -> None:
        self.bounds: dict[str, list[int]] = {u: list(b) for u, b in (bounds or {}).items()}
        for b in self.bounds.values():
            if len(b) % 2 or any(x >= y for x, y in zip(b, b[1:])) or any(not isinstance(x, int) for x in b):
                raise ValueError("runs must be increasing [first, after] bounds")

    def __contains__(self, key: object) -> bool:
        if not (isinstance(key, tuple) and len(key) == 2):
            return False
        b = self.bounds.get(key[0])
        return b is not None and bisect.bisect_right(b, key[1]) % 2 == 1

    def add(self, unit: str, block: int) -> bool:
        """Add a key; False if it was there already."""
        b = self.bounds.setdefault(unit, [])
        i = bisect.bisect_right(b, block)
        if i % 2:
            return False
        # block lies in the gap before b[i] (or after the last run): join the runs it touches
        joins_left = i > 0 and b[i - 1] == block
        joins_right = i < len(b) and b[i] == block + 1
        if joins_left and joins_right:
            del b[i - 1:i + 1]
        elif joins_left:
            b[i - 1] = block + 1
        elif joins_right:
            b[i] = block
        else:
            b[i:i] = [block, block + 1]
        return True

    def blocks(self, unit: str) -> set[int]:
        b = self.bounds.get(unit, [])
        return {n for lo, hi in zip(b[::2], b[1::2]) for n in range(lo, hi)}

    def units(self) -> list[str]:
        return list(self.bounds)


@dataclass
class Follow:
    """Where the reading of the store stopped; a subclass adds its summary's fields and ``add``."""

    STATE: ClassVar[str] = ""  # its file in the competition folder
    FORMAT: ClassVar[int] = 1  # a file of another format is read again from the store

    offset: int = 0  # the byte after the last whole line read
    lines: int = 0  # lines before ``offset`` (blank ones too: ResultsScan's count)
    tail_at: int = 0  # where the last line read starts, and its digest: the store must still hold it there
    tail: str = ""
    blocks: int = 0  # lines kept (each key once)
    read: Runs = field(default_factory=Runs)  # each kept line's key

    @classmethod
    def load(cls: type[F], folder: Path) -> F:
        """The summary kept in FOLDER, or a new one (nothing read) if there is none or it cannot be read."""
        try:
            d = json.loads((folder / cls.STATE).read_text())
            if d.pop("format") != cls.FORMAT:
                return cls()
            d["read"] = Runs(d["read"])
            return cls(**d)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return cls()

    def save(self, folder: Path) -> None:
        doc = {f.name: getattr(self, f.name) for f in fields(self)}
        doc["read"], doc["format"] = self.read.bounds, self.FORMAT
        tmp = folder / (self.STATE + ".tmp")
        tmp.write_text(json.dumps(doc, separators=(",", ":")))
        os.replace(tmp, folder / self.STATE)

    def _holds(self, path: Path) -> bool:
        """The store still holds the last line read where it was read."""
        return still_holds(path, self.offset, self.tail_at, self.tail)

    def catch_up(self: F, out: Path) -> F:
        """This summary with what the store in ``out`` gained (all of it, if it changed where it was read)."""
        path = results_path(out)
        if not path.exists():
            return type(self)()
        me = self if self._holds(path) else type(self)()
        scan = ResultsScan(path, start=me.offset, line=me.lines)
        last = None
        for line, at, n in scan:
            if (line.pairing, line.block) in me.read:  # ResultsScan skips a key repeated within a read; this,
                continue  # one read before
            me.take(line, at, n)
            last = at
        if last is not None:
            with open(path, "rb") as f:
                f.seek(last)
                me.tail_at, me.tail = last, tail_digest(f.read(scan.end - last))
        me.offset, me.lines = scan.end, scan.lines
        return me

    def take(self, line: ResultLine, at: int = 0, length: int = 0) -> None:
        """Count one more stored line (its key not read before; where it stands in the store: ``at``,
        ``length``)."""
        self.read.add(line.pairing, line.block)
        self.blocks += 1
        self.add(line, at, length)

    def add(self, line: ResultLine, at: int, length: int) -> None:
        raise NotImplementedError


@dataclass
class Tally(Follow):
    """Games, points and faults per (name, digest) over the lines read, in their order; ``odd`` counts the
    faults of a seat no game has (blamed on the bot the fault names)."""

    sums: dict[str, list[Any]] = field(default_factory=dict)  # "name\0digest" -> [games, points, faults]
    odd: dict[str, int] = field(default_factory=dict)

    STATE: ClassVar[str] = "standings-state.json"
    FORMAT: ClassVar[int] = 2  # 1 kept each line's key, hashed

    def add(self, line: ResultLine, at: int = 0, length: int = 0) -> None:
        """One stored line's games, as ``results.standings`` counts them (by version: an id names one)."""
        for st in seatings(line):
            refs = ["\0".join(s.ref) for s in st.seats]
            for side, members in enumerate(st.sides):
                for r in dict.fromkeys(refs[s] for s in members):
                    row = self.sums.setdefault(r, [0, 0.0, 0])
                    row[0] += 1
                    row[1] += st.points(side)
            for f in st.game.faults:
                seat = st.fault_seat(f)
                if seat is not None:
                    self.sums.setdefault(refs[seat], [0, 0.0, 0])[2] += 1
                else:
                    self.odd[f.bot] = self.odd.get(f.bot, 0) + 1

    def standings(self) -> list[Standing]:
        """``results.standings`` of the lines read: bots by their ids, by score rate, ties by id."""
        digests: dict[str, set[str]] = {}
        for r in self.sums:
            name, _, digest = r.partition("\0")
            digests.setdefault(name, set()).add(digest)
        table: dict[str, Standing] = {}
        for r, (games, points, faults) in self.sums.items():
            name, _, digest = r.partition("\0")
            bid = name if len(digests[name]) == 1 else f"{name}@{digest[:12]}"
            table[bid] = Standing(bid, games, points, faults)
        for bid, n in self.odd.items():
            table.setdefault(bid, Standing(bid)).faults += n
        return sorted(table.values(), key=lambda s: (-s.rate, s.bot))


@dataclass(frozen=True)
class Stored:
    """The store as the ladder's choice reads it: each unit's stored block numbers, and its games' wins of
    each bot name over each other (``choice.pairwise``: multiples of a half, so their sums are exact in any
    order)."""

    blocks: Mapping[str, set[int]]
    wins: Mapping[str, Mapping[tuple[str, str], float]]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, tuple) and len(key) == 2 and key[1] in self.blocks.get(key[0], ())

    @classmethod
    def of(cls, games: Mapping[tuple[str, int], Iterable[Contest]]) -> "Stored":
        """From each stored block's games as ``choice.contests`` gives them."""
        blocks: dict[str, set[int]] = {}
        wins: dict[str, dict[tuple[str, str], float]] = {}
        for (pairing, block), cs in games.items():
            blocks.setdefault(pairing, set()).add(block)
            into = wins.setdefault(pairing, {})
            for pair, w in pairwise_of(cs).items():
                into[pair] = into.get(pair, 0.0) + w
        return cls(blocks, wins)


@dataclass
class Index(Follow):
    """Per unit: its games' pairwise wins, summed; with the keys read (``Follow.read``), ``Stored``."""

    STATE: ClassVar[str] = "ladder-index.json"
    FORMAT: ClassVar[int] = 3  # 1 kept a row per stored block, 2 a block number per stored block

    units: dict[str, dict[str, float]] = field(default_factory=dict)  # unit -> {"a\0b": wins of a over b}
    hashes: list[str] = field(default_factory=list)  # the config hashes of the lines read

    def add(self, line: ResultLine, at: int = 0, length: int = 0) -> None:
        wins = self.units.setdefault(line.pairing, {})
        for (a, b), w in pairwise_of(contests(line)).items():
            k = f"{a}\0{b}"
            wins[k] = wins.get(k, 0.0) + w
        if line.config_hash not in self.hashes:
            self.hashes.append(line.config_hash)

    def stored(self, expect_hash: str) -> Stored:
        """What the choice reads of the store; ResultsError for a line of another config, as the store's own
        load says it."""
        other = [h for h in self.hashes if h != expect_hash]
        if other:
            raise ResultsError(f"the ladder's results hold blocks produced with config hash {other[0]}, but this"
                               f" config hashes to {expect_hash}: seed, match settings or deal files changed")
        return Stored({u: self.read.blocks(u) for u in self.units},
                      {u: {(a, b): float(w) for k, w in wins.items() for a, _, b in [k.partition("\0")]}
                       for u, wins in self.units.items()})
