"""A team's faults in ladder games, and its tempo audit, read from the results store: private to that team.

Each fault the runner stored (a results line's ``run.reproduce``: kind,
message, the bot's stderr tail, the reproduce command) belongs to the bot
that made it, and a ladder bot's name is its team's. The host's command
names host paths (the results file, the ladder's copy of the bot); the team
is shown it with those as placeholders (``results.jsonl``, ``BOT_FOLDER``)
and can download the block's line (its ``run`` part emptied: it may hold
another team's stderr and the host's name) to run it on its own machine.

The store grows for as long as the ladder runs, so nothing here holds a row
per stored line: ``FaultState`` (a ``tally.Follow``: it reads only what the
store gained, its keys as runs of block numbers) keeps, in
FOLDER/fault-state, each team's faults in a file of their own (with where
each fault's line stands in the store), each (bot, seat)'s tempo rows
(``publish.tempo``: one fixed-size record a decision) in a file of their
own, and the tempo audit's figures of each (bot, seat), recomputed from its
rows only when it gained some. In memory: file lengths, counts and figures,
per team and seat. A view reads its team's file, never the store.
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
import shutil
import struct
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Iterator

from pydantic import BaseModel, Field

from ..publish.site.ledger import code_digest
from ..publish.site.model import public_command
from ..publish.tempo import SeatTempo, TempoSeat, collect
from ..publish.tempo import _Row as Row  # one asked decision as ``collect`` keeps it
from ..results import JsonObject, ResultLine, ResultsError, ResultsScan, comparable, results_path, stored_line
from .tally import Follow

STATE_DIR = "fault-state"
#: the code whose output the state keeps: a state another version made is read again from the store
STATE_CODE = ("publish/tempo.py", "engine", "serve/faults.py")
_ROW = struct.Struct("<Hddi")  # a tempo row: its stratum's number in the seat's list, idle, latency, hand points
_FLUSH = 1 << 20  # bytes of rows and faults held before they are appended to their files


class Fault(BaseModel):
    """A fault of one of the team's bots in a ladder game, with what it needs to reproduce it."""
    team: str
    pairing: str = Field(description="the block's pairing key (with ``block``: GET /api/faults/block.jsonl)")
    block: int
    game_id: str
    digest: str = Field(description="the faulting version's bot digest")
    seat: int
    kind: str
    message: str
    stderr: str = Field(description="the tail of the bot's stderr the harness kept")
    command: str | None = Field(description="the reproduce command, with results.jsonl and BOT_FOLDER for the host's paths")


@functools.lru_cache(maxsize=1)
def _code() -> str:
    return code_digest(STATE_CODE)


@dataclass
class FaultState(Follow):
    """What the fault index keeps of the lines read: per team, its faults file's number, length and count;
    per (bot, seat), its tempo rows file's number, length in rows, games, strata (in the order they first
    appear: the audit's groups) and figures (None: to be recomputed from the rows)."""

    STATE: ClassVar[str] = f"{STATE_DIR}/index.json"
    FORMAT: ClassVar[int] = 1

    code: str = ""
    teams: dict[str, list[int]] = field(default_factory=dict)  # team -> [file number, bytes, faults]
    seats: dict[str, list[Any]] = field(default_factory=dict)  # "bot\0seat" -> [file, rows, games, strata, figures]
    files: int = 0  # file numbers given out

    def __post_init__(self) -> None:
        self._out: dict[str, bytearray] = {}  # file name -> bytes to append (written by ``flush``)
        self._held = 0
        self._dir: Path | None = None  # where the files are (``bind``): held bytes are appended as they add up

    def bind(self, dir: Path) -> "FaultState":
        self._dir = dir
        return self

    def _lengths(self) -> dict[str, int]:
        """Each file's length as this state has it."""
        out = {_faults_file(n): size for n, size, _ in self.teams.values()}
        out.update({_rows_file(s[0]): s[1] * _ROW.size for s in self.seats.values()})
        return out

    def valid(self, dir: Path) -> bool:
        """Made by this code, and every file at least as long as this state says (a kill leaves them longer:
        ``flush`` cuts them back); never trusted blindly."""
        try:
            return self.code == _code() and all(
                not size or (dir / name).stat().st_size >= size for name, size in self._lengths().items())
        except (OSError, ValueError, TypeError, IndexError):
            return False

    def add(self, line: ResultLine, at: int, length: int) -> None:
        for i, r in enumerate(line.run.reproduce):
            game = line.games[r.game]
            fault = Fault(team=r.bot, pairing=line.pairing, block=line.block, game_id=r.game_id,
                          digest=game.seats[r.seat].digest, seat=r.seat, kind=r.kind, message=r.message,
                          stderr=r.stderr or "", command=public_command(r.command))
            raw = json.dumps({**fault.model_dump(), "at": at, "length": length, "i": i}).encode() + b"\n"
            team = self.teams.get(r.bot)
            if team is None:
                team = self.teams[r.bot] = [self._number(), 0, 0]
            self._append(_faults_file(team[0]), raw)
            team[1] += len(raw)
            team[2] += 1
        for (bot, seat), st in collect([line]).items():
            k = f"{bot}\0{seat}"
            row = self.seats.get(k)
            if row is None:
                row = self.seats[k] = [self._number(), 0, 0, [], None]
            row[2] += st.games
            strata: list[list[str]] = row[3]
            index = {(a, b): n for n, (a, b) in enumerate(strata)}
            packed = bytearray()
            for r2 in st.rows:
                n = index.get(r2.stratum)
                if n is None:
                    n = index[r2.stratum] = len(strata)
                    strata.append(list(r2.stratum))
                packed += _ROW.pack(n, r2.idle, r2.latency, r2.hand)
            if packed:
                self._append(_rows_file(row[0]), bytes(packed))
                row[1] += len(st.rows)
            row[4] = None  # its figures change (games at least)

    def _number(self) -> int:
        self.files += 1
        return self.files - 1

    def _append(self, name: str, raw: bytes) -> None:
        self._out.setdefault(name, bytearray()).extend(raw)
        self._held += len(raw)
        if self._held >= _FLUSH and self._dir is not None:
            self.flush(self._dir)

    def flush(self, dir: Path) -> None:
        """Append what is held to its files, each first cut back to what this state had of it before (what a
        killed reader appended past it)."""
        lengths = self._lengths()
        for name, raw in self._out.items():
            with open(dir / name, "ab") as f:
                f.truncate(lengths[name] - len(raw))
                f.write(raw)
        self._out, self._held = {}, 0

    def figures(self, dir: Path) -> None:
        """Recompute the figures of each (bot, seat) that gained games, from its rows file."""
        for k, row in self.seats.items():
            if row[4] is None:
                bot, _, seat = k.partition("\0")
                st = SeatTempo(bot, int(seat), list(_rows(dir / _rows_file(row[0]), row[1], row[3])), row[2])
                row[4] = st.figures(0).model_dump()

    def faults(self, dir: Path, team: str) -> Iterator[KeptFault]:
        """The team's faults as their file keeps them, in the store's order."""
        t = self.teams.get(team)
        if t is None:
            return
        with open(dir / _faults_file(t[0]), "rb") as f:
            raw = f.read(t[1])
        for row in raw.splitlines():
            kept = json.loads(row)
            at, length, i = kept.pop("at"), kept.pop("length"), kept.pop("i")
            yield KeptFault(Fault(**kept), at, length, i)


@dataclass(frozen=True)
class KeptFault:
    """A fault as its team's file keeps it: with where its block's results line is in the store
    (``at``, ``length``) and its place among the line's faults (``i``), the store's order."""

    fault: Fault
    at: int
    length: int
    i: int


def _faults_file(n: int) -> str:
    return f"faults-{n}.jsonl"


def _rows_file(n: int) -> str:
    return f"tempo-{n}.bin"


def _rows(path: Path, n: int, strata: list[list[str]]) -> Iterator[Row]:
    if not n:
        return  # a seat without a timed decision has no file
    with open(path, "rb") as f:
        raw = f.read(n * _ROW.size)
    kinds = [(a, b) for a, b in strata]
    for s, idle, latency, hand in _ROW.iter_unpack(raw):
        yield Row(kinds[s], idle, latency, hand)


class FaultIndex:
    """The store's faults and tempo audit by team, kept in FOLDER/fault-state (``FaultState``) and brought up
    to date with what the store gained when it changed (``refresh``: the ladder calls it after each batch,
    a view when the store grew since). A file of the state that is missing, short, made by another code or
    not readable, or a store that no longer holds the last line read where it was read, and the state is
    made again from the whole store."""

    def __init__(self, results: Path) -> None:
        self.results = results
        self.dir = Path(results).parent / STATE_DIR
        self._state: FaultState | None = None
        self._stamp: tuple[int, int] | None = None
        self._broken = False  # the last read met a line that is not a results line: no audit to show
        self._lock = threading.Lock()

    def refresh(self) -> None:
        """Bring the state up to date with the store (only what it gained is read)."""
        with self._lock, self._flock():
            self._refresh()

    def _flock(self) -> Any:
        self.dir.mkdir(parents=True, exist_ok=True)
        return _Flock(self.dir / "lock")

    def _refresh(self) -> None:
        path = results_path(self.results)
        try:
            st = path.stat()
        except FileNotFoundError:
            self._state, self._stamp, self._broken = FaultState(code=_code()), None, False
            return
        stamp = (st.st_size, st.st_mtime_ns)
        if stamp == self._stamp:
            return
        state = self._state if self._state is not None and self._state.valid(self.dir) else self._load()
        if not state._holds(path):  # cut and written again: read whole
            state = self._fresh()
        try:
            state = state.bind(self.dir).catch_up(self.results)
        except ResultsError:  # keep what was read last; the ladder's next batch repairs or reports the store
            self._state, self._broken = self._load(), True
            return
        if state.offset == 0 and not state.code:
            state = self._fresh()  # catch_up's own new state (the store is gone)
        state.flush(self.dir)
        state.figures(self.dir)
        state.save(self.dir.parent)
        self._state, self._stamp, self._broken = state, stamp, False

    def _load(self) -> FaultState:
        state = FaultState.load(self.dir.parent)
        return state if state.valid(self.dir) else self._fresh()

    def _fresh(self) -> FaultState:
        """A new state over an emptied folder (what another state left there is of no use)."""
        for p in self.dir.iterdir():
            if p.name != "lock":
                p.unlink() if p.is_file() else shutil.rmtree(p, ignore_errors=True)
        return FaultState(code=_code())

    def _read(self) -> FaultState:
        self._refresh()
        assert self._state is not None
        return self._state

    def of(self, team: str | None) -> list[Fault]:
        """The faults of ``team``'s bots (every team's for None: the host), in the store's order."""
        with self._lock, self._flock():
            st = self._read()
            rows = [r for t in ([team] if team is not None else list(st.teams)) for r in st.faults(self.dir, t)]
            if team is None:
                rows.sort(key=lambda r: (r.at, r.i))
            return [r.fault for r in rows]

    def tempo(self, team: str | None) -> list[TempoSeat]:
        """The tempo audit's figures of ``team``'s bots, a row per bot and seat (``arena.publish.tempo``;
        every team's for the host), by bot, then seat."""
        with self._lock, self._flock():
            st = self._read()
            if self._broken:
                return []  # a line the ladder's next batch repairs or reports: nothing to show yet
            keys = sorted((bot, int(seat)) for k in st.seats for bot, _, seat in [k.partition("\0")])
            return [TempoSeat.model_validate(st.seats[f"{bot}\0{seat}"][4]) for bot, seat in keys
                    if team is None or bot == team]

    def block_line(self, team: str | None, pairing: str, block: int) -> JsonObject | None:
        """The block's results line with an empty ``run``, if ``team`` has a fault in it (None for the host: any)."""
        with self._lock, self._flock():
            st = self._read()
            where = next(((r.at, r.length) for t in ([team] if team is not None else list(st.teams))
                          for r in st.faults(self.dir, t) if r.fault.pairing == pairing and r.fault.block == block),
                         None)
            if where is None and team is None and (pairing, block) in st.read:  # the host's, without a fault:
                where = next(((at, n) for ln, at, n in ResultsScan(self.results)  # found as the store is read
                              if (ln.pairing, ln.block) == (pairing, block)), None)
            if where is None:
                return None
            with open(results_path(self.results), "rb") as f:
                f.seek(where[0])
                line = stored_line(f.read(where[1]))
            return {**comparable(line), "run": {}}


class _Flock:
    """An exclusive lock on a file, for the length of a ``with``: two services on one folder (a test, the
    host's command beside the server) do not write the state at once."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __enter__(self) -> None:
        self.f = open(self.path, "a")
        fcntl.flock(self.f, fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        self.f.close()
