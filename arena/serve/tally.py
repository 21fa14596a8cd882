"""The ladder's standings (FOLDER/standings.json) kept by reading only what the store gained.

``arena.results.standings`` over every stored line gives each bot's games,
points and faults; after every batch that meant parsing and validating the
whole store (about 1.3 ms of CPU a block, 13 s at 20,000 games). A ``Tally``
keeps the same sums per version (name, digest) in FOLDER/standings-state.json
with where its reading of the store stopped, and reads only the lines
appended since. The sums are added in the store's order, as ``standings``
adds them, so the figures are the same to the last bit. A store that no
longer starts with what was read (a torn last line cut off after a kill)
is read again from its start.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..results import ResultsScan, results_path
from ..results.standings import Standing, seat_ref

STATE = "standings-state.json"
FORMAT = 1


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _key(key: tuple[str, int]) -> str:
    return hashlib.blake2b(f"{key[0]}\0{key[1]}".encode(), digest_size=8).hexdigest()


@dataclass
class Tally:
    """Games, points and faults per (name, digest) over the lines read, in their order; ``odd`` counts the
    faults of a seat no game has (blamed on the bot the fault names)."""

    offset: int = 0  # the byte after the last whole line read
    lines: int = 0  # lines before ``offset`` (blank ones too: ResultsScan's count)
    tail_at: int = 0  # where the last line read starts, and its digest: the store must still hold it there
    tail: str = ""
    blocks: int = 0  # lines kept (each key once)
    sums: dict[str, list[Any]] = field(default_factory=dict)  # "name\0digest" -> [games, points, faults]
    odd: dict[str, int] = field(default_factory=dict)
    seen: set[str] = field(default_factory=set)  # each kept line's key, hashed (a repeated key counts once)

    @classmethod
    def load(cls, folder: Path) -> "Tally":
        """The tally in FOLDER, or a new one (nothing read) if there is none or it cannot be read."""
        try:
            d = json.loads((folder / STATE).read_text())
            if d.get("format") != FORMAT:
                return cls()
            return cls(d["offset"], d["lines"], d["tail_at"], d["tail"], d["blocks"], d["sums"], d["odd"],
                       set(d["seen"]))
        except (OSError, ValueError, KeyError, TypeError):
            return cls()

    def save(self, folder: Path) -> None:
        doc = {"format": FORMAT, "offset": self.offset, "lines": self.lines, "tail_at": self.tail_at,
               "tail": self.tail, "blocks": self.blocks, "sums": self.sums, "odd": self.odd,
               "seen": sorted(self.seen)}
        tmp = folder / (STATE + ".tmp")
        tmp.write_text(json.dumps(doc, separators=(",", ":")))
        os.replace(tmp, folder / STATE)

    def _holds(self, path: Path) -> bool:
        """The store still holds the last line read where it was read."""
        if not self.offset:
            return True
        try:
            if path.stat().st_size < self.offset:
                return False
            with open(path, "rb") as f:
                f.seek(self.tail_at)
                return _digest(f.read(self.offset - self.tail_at)) == self.tail
        except OSError:
            return False

    def catch_up(self, out: Path) -> "Tally":
        """Read what the store in ``out`` gained (all of it again if it changed where it was read)."""
        path = results_path(out)
        if not path.exists():
            return Tally()
        me = self if self._holds(path) else Tally()
        scan = ResultsScan(path, start=me.offset, line=me.lines)
        last = None
        for line, at, n in scan:
            k = _key((str(line.get("pairing")), int(line.get("block", 0))))
            if k in me.seen:  # ResultsScan skips a key repeated within this read; this, one read before
                continue
            me.seen.add(k)
            me.add(line)
            last = (at, n)
        if last is not None:
            me.tail_at = last[0]
            with open(path, "rb") as f:
                f.seek(last[0])
                me.tail = _digest(f.read(scan.end - last[0]))
        me.offset, me.lines = scan.end, scan.lines
        return me

    def add(self, line: dict[str, Any]) -> None:
        """One stored line's games, as ``results.standings`` counts them."""
        self.blocks += 1
        table = line.get("table") is not None
        for g in line["games"]:
            refs = ["\0".join(seat_ref(s)) for s in g["seats"]]
            if table:
                for s, r in enumerate(refs):
                    row = self.sums.setdefault(r, [0, 0.0, 0])
                    row[0] += 1
                    row[1] += 1.0 / len(refs) if g["winner"] is None else float(g["winner"] == s)
            for side in () if table else (0, 1):
                pts = 0.5 if g["winner"] is None else float(g["winner"] == side)
                for r in dict.fromkeys((refs[side], refs[side + 2])):
                    row = self.sums.setdefault(r, [0, 0.0, 0])
                    row[0] += 1
                    row[1] += pts
            for f in g["faults"]:
                seat = f.get("seat")
                if isinstance(seat, int) and 0 <= seat < len(refs):
                    self.sums.setdefault(refs[seat], [0, 0.0, 0])[2] += 1
                else:
                    self.odd[str(f["bot"])] = self.odd.get(str(f["bot"]), 0) + 1

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

    def copy(self) -> "Tally":
        return Tally(self.offset, self.lines, self.tail_at, self.tail, self.blocks,
                     {k: list(v) for k, v in self.sums.items()}, dict(self.odd), set(self.seen))
