"""What the ladder keeps of its store between batches, read once: each batch reads only what was appended.

The store only grows, and a batch used to parse and validate all of it
(about 1.3 ms of CPU a block, 13 s at 20,000 games) for each of its steps.
A ``Follow`` keeps a summary of the lines read in a file of the competition
folder, with where its reading stopped, and reads only the lines appended
since (``ResultsScan`` from that byte: a torn last line is left for later,
a key already read counts once). A store that no longer holds the last line
read where it was read (cut after a kill and written again) is read again
from its start. Two summaries:

* ``Tally``: each version's games, points and faults, added in the store's
  order as ``results.standings`` adds them, so FOLDER/standings.json gives
  the same figures to the last bit;
* ``Index``: each stored block's key with its games' seat names and winners
  (what the ladder's choice reads: which blocks are stored, who beat whom),
  and the config hashes seen.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from ..results import ResultsError, ResultsScan, results_path
from ..results.standings import Standing, seat_ref

FORMAT = 1
F = TypeVar("F", bound="Follow")


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _key(pairing: str, block: int) -> str:
    return hashlib.blake2b(f"{pairing}\0{block}".encode(), digest_size=8).hexdigest()


@dataclass
class Follow:
    """Where the reading of the store stopped; a subclass adds its summary's fields and ``add``."""

    STATE: ClassVar[str] = ""  # its file in the competition folder

    offset: int = 0  # the byte after the last whole line read
    lines: int = 0  # lines before ``offset`` (blank ones too: ResultsScan's count)
    tail_at: int = 0  # where the last line read starts, and its digest: the store must still hold it there
    tail: str = ""
    blocks: int = 0  # lines kept (each key once)
    seen: set[str] = field(default_factory=set)  # each kept line's key, hashed

    @classmethod
    def load(cls: type[F], folder: Path) -> F:
        """The summary kept in FOLDER, or a new one (nothing read) if there is none or it cannot be read."""
        try:
            d = json.loads((folder / cls.STATE).read_text())
            if d.pop("format") != FORMAT:
                return cls()
            d["seen"] = set(d["seen"])
            return cls(**d)
        except (OSError, ValueError, KeyError, TypeError):
            return cls()

    def save(self, folder: Path) -> None:
        doc = {f.name: getattr(self, f.name) for f in fields(self)}
        doc["seen"], doc["format"] = sorted(self.seen), FORMAT
        tmp = folder / (self.STATE + ".tmp")
        tmp.write_text(json.dumps(doc, separators=(",", ":")))
        os.replace(tmp, folder / self.STATE)

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

    def catch_up(self: F, out: Path) -> F:
        """This summary with what the store in ``out`` gained (all of it, if it changed where it was read)."""
        path = results_path(out)
        if not path.exists():
            return type(self)()
        me = self if self._holds(path) else type(self)()
        scan = ResultsScan(path, start=me.offset, line=me.lines)
        last = None
        for line, at, n in scan:
            k = _key(str(line.get("pairing")), int(line.get("block", 0)))
            if k in me.seen:  # ResultsScan skips a key repeated within this read; this, one read before
                continue
            me.seen.add(k)
            me.take(line)
            last = at
        if last is not None:
            with open(path, "rb") as f:
                f.seek(last)
                me.tail_at, me.tail = last, _digest(f.read(scan.end - last))
        me.offset, me.lines = scan.end, scan.lines
        return me

    def take(self, line: dict[str, Any]) -> None:
        """Count one more stored line (its key not read before)."""
        self.blocks += 1
        self.add(line)

    def add(self, line: dict[str, Any]) -> None:
        raise NotImplementedError


@dataclass
class Tally(Follow):
    """Games, points and faults per (name, digest) over the lines read, in their order; ``odd`` counts the
    faults of a seat no game has (blamed on the bot the fault names)."""

    STATE: ClassVar[str] = "standings-state.json"

    sums: dict[str, list[Any]] = field(default_factory=dict)  # "name\0digest" -> [games, points, faults]
    odd: dict[str, int] = field(default_factory=dict)

    def add(self, line: dict[str, Any]) -> None:
        """One stored line's games, as ``results.standings`` counts them."""
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


@dataclass
class Index(Follow):
    """Each stored block: its key, whether it is a table's, and per game its seats' names and its winner."""

    STATE: ClassVar[str] = "ladder-index.json"

    rows: list[list[Any]] = field(default_factory=list)  # [pairing, block, table?, [[names...], winner], ...]
    hashes: list[str] = field(default_factory=list)  # the config hashes of the lines read

    def add(self, line: dict[str, Any]) -> None:
        games = [[[str(x.get("name", x.get("bot", ""))) for x in g.get("seats") or []], g.get("winner")]
                 for g in line.get("games") or []]
        self.rows.append([str(line["pairing"]), int(line["block"]), line.get("table") is not None, *games])
        h = str(line.get("config_hash"))
        if h not in self.hashes:
            self.hashes.append(h)

    def stored(self, expect_hash: str) -> dict[tuple[str, int], dict[str, Any]]:
        """The stored blocks as the ladder's choice reads them (``plan``'s keys; ``choice.pairwise``'s seats
        and winners), each seat one shared object; ResultsError for a line of another config, as the store's
        own load says it."""
        other = [h for h in self.hashes if h != expect_hash]
        if other:
            raise ResultsError(f"the ladder's results hold blocks produced with config hash {other[0]}, but this"
                               f" config hashes to {expect_hash}: seed, match settings or deal files changed")
        seat: dict[str, dict[str, str]] = {}
        out: dict[tuple[str, int], dict[str, Any]] = {}
        for pairing, block, table, *games in self.rows:
            out[(pairing, block)] = {"table": {} if table else None, "games": [
                {"seats": [seat.setdefault(n, {"name": n}) for n in names], "winner": w} for names, w in games]}
        return out
