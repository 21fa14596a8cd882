"""The append-only results file: one JSON line per finished duplicate block.

A line is written and fsync'd only once its block is complete (a batch's
lines in one write and one fsync), so after a crash the file holds whole
blocks plus at most one torn last line.
``read_results`` is the one reader of the file (rating, publishing, replay
and resume all use it): it never modifies the file, skips a torn last line,
keeps the first line of a repeated (pairing, block) key, and refuses a
corrupt line anywhere else. ``ResultsStore`` adds writing and the repair of
a torn tail, which only the runner that owns the folder may do.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Collection, Iterable, Iterator, Sequence

import orjson
from pydantic import ValidationError

from .schema import BotRef, JsonObject, ResultLine, game_id, parse_line, scored_dict

RESULTS_NAME = "results.jsonl"
STDERR_DIR = "stderr"


class ResultsError(ValueError):
    """A results file that cannot be used as it is (unreadable, corrupt, or from another config)."""


def comparable(line: ResultLine | JsonObject) -> JsonObject:
    """A line (or its JSON object) without its run-dependent part, for comparing two runs."""
    if not isinstance(line, dict):
        return scored_dict(line)
    return {k: v for k, v in line.items() if k != "run"}


def line_key(line: ResultLine) -> tuple[str, int]:
    return line.task_key


def stored_line(raw: bytes | str) -> ResultLine:
    """One stored line's text as a results line, each game named by its ``game_id`` (a line written before
    games had ids names none); ``ValueError`` (or pydantic's ``ValidationError``) when it is not one."""
    try:
        obj = orjson.loads(raw)  # faster than json on lines of whole records, the same values
    except orjson.JSONDecodeError:  # what orjson does not read (NaN, integers past 64 bits): json's rules
        obj = json.loads(raw)
    if not isinstance(obj, dict):
        raise ValueError("not a JSON object")
    games = obj.get("games")
    if isinstance(games, list) and any(isinstance(g, dict) and not g.get("id") for g in games):
        pairing, block = obj.get("pairing"), obj.get("block")
        if isinstance(pairing, str) and isinstance(block, int):
            for half, g in enumerate(games):
                if isinstance(g, dict) and not g.get("id"):
                    g["id"] = game_id(pairing, block, half)
    return parse_line(obj)


@dataclass
class LoadedResults:
    """A parsed results file: its whole lines (first of each key, file order) and what was skipped."""

    path: Path
    lines: list[ResultLine] = field(default_factory=list)
    torn_bytes: int = 0  # bytes after the last whole line (a write cut short)
    duplicates: int = 0  # lines whose (pairing, block) key was already seen

    @property
    def torn(self) -> bool:
        return self.torn_bytes > 0

    @property
    def sha256(self) -> str:
        return scored_digest(self.lines)

    def by_key(self) -> dict[tuple[str, int], ResultLine]:
        return {x.task_key: x for x in self.lines}


def results_path(path: str | os.PathLike[str]) -> Path:
    """A results file, or the folder holding ``results.jsonl``."""
    p = Path(path)
    return p / RESULTS_NAME if p.is_dir() else p


def read_results(path: str | os.PathLike[str]) -> LoadedResults:
    """Read a results file without modifying it (see the module docstring).

    Every line is checked against the results schema (``parse_line``), so a
    line that is JSON but not a results line is reported, naming the line.
    """
    scan = ResultsScan(path)
    out = LoadedResults(scan.path)
    out.lines = [obj for obj, _, _ in scan]
    out.torn_bytes, out.duplicates = scan.torn_bytes, scan.duplicates
    return out


class ResultsScan:
    """The lines of a results file from byte ``start`` on, one at a time: ``read_results``'s rules, streamed.

    Iterating yields ``(line, offset, length)`` of each whole line kept (a
    repeated key is counted in ``duplicates``, a blank line skipped), so a
    reader that remembers ``end`` (the byte after the last whole line taken)
    and the keys it has ``seen`` can read only what was appended since, and
    a large file never sits in memory at once. After the iteration
    ``torn_bytes`` counts what follows ``end``: a last line cut short, or one
    that does not parse. ``line`` is the number of lines before ``start``
    (for messages naming a line).
    """

    def __init__(self, path: str | os.PathLike[str], *, start: int = 0, line: int = 0,
                 seen: set[tuple[str, int]] | None = None) -> None:
        self.path = results_path(path)
        self.start, self.end, self.lines = start, start, line
        self.seen: set[tuple[str, int]] = set() if seen is None else seen
        self.torn_bytes = 0
        self.duplicates = 0

    def __iter__(self) -> Iterator[tuple[ResultLine, int, int]]:
        try:
            f = open(self.path, "rb")
        except OSError as e:
            raise ResultsError(f"{self.path}: cannot read results: {e.strerror}") from None
        with f:
            f.seek(self.start)
            pos = self.start
            bad: tuple[int, Exception] | None = None  # a line that did not parse: torn if nothing follows it
            for raw in f:
                if not raw.endswith(b"\n"):  # everything after the last newline is torn
                    break
                if bad is not None:
                    raise ResultsError(f"{self.path}: line {bad[0]} is not a results line ({_why(bad[1])}); the file"
                                       " is left as it is") from None
                self.lines += 1
                at, pos = pos, pos + len(raw)
                if not raw.strip():
                    self.end = pos
                    continue
                try:
                    line = stored_line(raw)
                    key = line.task_key
                except (ValueError, ValidationError) as e:
                    bad = (self.lines, e)
                    self.lines -= 1
                    continue
                self.end = pos
                if key in self.seen:
                    self.duplicates += 1
                    continue
                self.seen.add(key)
                yield line, at, len(raw)
            size = f.seek(0, os.SEEK_END)
        self.torn_bytes = size - self.end


def _why(e: Exception) -> str:
    if isinstance(e, ValidationError):
        err = e.errors()[0]
        return f"{'.'.join(str(x) for x in err['loc']) or 'line'}: {err['msg']}"
    return str(e) or type(e).__name__


def line_digest(line: ResultLine | JsonObject) -> str:
    """SHA-256 of one line's scored content (``run`` dropped), canonical JSON."""
    return hashlib.sha256(json.dumps(comparable(line), sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def combined_digest(keyed: Iterable[tuple[tuple[str, int], str]]) -> str:
    """SHA-256 of the lines' own digests (``line_digest``) in key order: what ``scored_digest`` is, from
    digests a reader kept, so results appended to need not be read again to name them."""
    h = hashlib.sha256()
    for _, digest in sorted(keyed):
        h.update(digest.encode() + b"\n")
    return h.hexdigest()


def scored_digest(lines: Iterable[ResultLine]) -> str:
    """The digest of the lines' scored content: each line's ``line_digest``, combined in key order.

    Two runs of the same tournament (any worker count, any order of
    completion) name the same data, and a leaderboard names exactly the data
    it was computed from.
    """
    return combined_digest((x.task_key, line_digest(x)) for x in lines)


def without_records(line: ResultLine, shared: dict[tuple[str, str], BotRef] | None = None) -> ResultLine:
    """A line without the bulk only a replay or the timings need: its games' ``record`` (left empty) and its
    run's per-game facts (``run.games``: each decision's latency). What is left scores, rates and names the
    block: about a twentieth of a line of full games. With ``shared`` (one per store), equal seats are one
    ``BotRef`` across the lines kept."""
    refs: dict[tuple[str, str], BotRef] = {} if shared is None else shared

    def one(seats: list[BotRef]) -> list[BotRef]:
        return [refs.setdefault(s.ref, s) for s in seats]

    games = [g.model_copy(update={"record": {}, "seats": one(g.seats)}) for g in line.games]
    update: dict[str, object] = {"games": games, "run": line.run.model_copy(update={"games": []})}
    for side in ("side_a", "side_b", "table"):
        if getattr(line, side, None) is not None:
            update[side] = one(getattr(line, side))
    return line.model_copy(update=update)


def tail_digest(data: bytes) -> str:
    """The digest of a store's last line read, kept to tell later that the file still holds it."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def still_holds(path: Path, offset: int, tail_at: int, tail: str) -> bool:
    """The file still holds, at ``tail_at``..``offset``, the line whose ``tail_digest`` is ``tail``
    (nothing read yet holds trivially): a reader that stopped there may go on from ``offset``."""
    if not offset:
        return True
    try:
        if path.stat().st_size < offset:
            return False
        with open(path, "rb") as f:
            f.seek(tail_at)
            return tail_digest(f.read(offset - tail_at)) == tail
    except OSError:
        return False


@dataclass
class StoreIndex:
    """What a runner needs of its stored lines to resume, without keeping them: each stored key with its
    game count, each config hash read (with the first key that has it), and where the reading stopped (the
    byte after the last whole line, and that line's place and digest, which the file must still hold there).

    Kept by whoever runs the same folder again and again (a server's ladder), in memory and in a file
    (``read``, ``write``: a restarted server reads only what was appended since it last wrote it), it lets each
    ``ResultsStore.load`` parse only what was appended since: ``parsed`` counts every line parsed by this
    process. A file that no longer holds the last line read where it was read is read again from its start.

    Kill -9 safe: the index only ever names lines already fsync'd, and the file is replaced whole. A file
    written before the store gained lines (a kill between the two) makes the next load read those lines from
    its ``offset``, each key once; a file that cannot be read, is of another format, or names a line the
    store no longer holds where it was read, is read again from the store's start."""

    FORMAT: ClassVar[int] = 1

    offset: int = 0
    lines: int = 0  # lines before ``offset`` (ResultsScan's count, blank ones too)
    tail_at: int = 0
    tail: str = ""
    games: dict[tuple[str, int], int] = field(default_factory=dict)
    hashes: dict[str, tuple[str, int]] = field(default_factory=dict)
    parsed: int = 0

    def holds(self, path: Path) -> bool:
        """The file still holds the last line read where it was read."""
        return still_holds(path, self.offset, self.tail_at, self.tail)

    def reset(self) -> None:
        """Nothing read (``parsed`` goes on counting)."""
        self.offset = self.lines = self.tail_at = 0
        self.tail = ""
        self.games, self.hashes = {}, {}

    def take(self, key: tuple[str, int], games: int, config_hash: str) -> None:
        self.games[key] = games
        self.hashes.setdefault(config_hash, key)

    def moved_to(self, at: int, raw: bytes) -> None:
        """The whole line ``raw`` at byte ``at`` is the last one read."""
        self.tail_at, self.tail, self.offset = at, tail_digest(raw), at + len(raw)

    @classmethod
    def read(cls, path: Path) -> "StoreIndex":
        """The index kept in ``path`` (``write``), or a new one (nothing read) if there is none or it is not
        one this code wrote whole."""
        try:
            d = orjson.loads(path.read_bytes())
            if d.get("format") != cls.FORMAT:
                return cls()
            ix = cls(offset=int(d["offset"]), lines=int(d["lines"]), tail_at=int(d["tail_at"]), tail=str(d["tail"]))
            for pairing, rows in d["games"].items():
                for block, games in rows:
                    ix.games[pairing, int(block)] = int(games)
            ix.hashes = {str(h): (str(pairing), int(block)) for h, pairing, block in d["hashes"]}
            if not 0 <= ix.tail_at <= ix.offset or (ix.offset > 0) != bool(ix.tail):
                return cls()
            return ix
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return cls()

    def write(self, path: Path) -> None:
        """Keep the index in ``path``, replaced whole (a kill leaves the old file or the new one): each
        pairing's stored block numbers with their game counts, not a row per key."""
        by_pairing: dict[str, list[list[int]]] = {}
        for (pairing, block), games in sorted(self.games.items()):
            by_pairing.setdefault(pairing, []).append([block, games])
        doc = {"format": self.FORMAT, "offset": self.offset, "lines": self.lines, "tail_at": self.tail_at,
               "tail": self.tail, "games": by_pairing,
               "hashes": [[h, pairing, block] for h, (pairing, block) in self.hashes.items()]}
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as f:
            f.write(orjson.dumps(doc))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)


class ResultsStore:
    """The results file of one output folder, as its runner sees it.

    ``records`` False keeps each line ``without_records`` (the whole lines stay in the file). With an
    ``index`` (``StoreIndex``) the store keeps no stored line at all: ``lines`` holds only those this store
    appends, ``keys`` every stored one, and a load parses only what the index has not read (a server's
    ladder: its store grows without end, and each batch needs only which blocks are stored).
    """

    def __init__(self, out: str | os.PathLike[str], *, records: bool = True, index: StoreIndex | None = None) -> None:
        self.out = Path(out)
        self.path = self.out / RESULTS_NAME
        self.records = records
        self.index = index
        self.lines: dict[tuple[str, int], ResultLine] = {}
        self._refs: dict[tuple[str, str], BotRef] = {}  # one BotRef per bot version across the lines kept
        self.repaired_bytes = 0
        self.duplicates = 0

    @property
    def keys(self) -> Collection[tuple[str, int]]:
        """The key of every stored line (read or appended)."""
        return self.lines.keys() if self.index is None else self.index.games.keys()

    def games_of(self, key: tuple[str, int]) -> int:
        """How many games the stored line of ``key`` has."""
        return len(self.lines[key].games) if self.index is None else self.index.games[key]

    def load(self, expect_hash: str | None = None) -> dict[tuple[str, int], ResultLine]:
        """Read finished blocks, cut off a torn last line, check the config hash (``read_results``'s rules,
        read one line at a time; with an index, only from where it stopped)."""
        self.lines = {}
        ix = self.index
        if not self.path.exists():
            if ix is not None:
                ix.reset()
            return self.lines
        if ix is not None:
            if not ix.holds(self.path):
                ix.reset()
            if expect_hash is not None:
                for h, (pairing, block) in ix.hashes.items():
                    if h != expect_hash:
                        raise ResultsError(_other_hash(self.path, pairing, block, h, expect_hash))
        scan = (ResultsScan(self.path) if ix is None
                else ResultsScan(self.path, start=ix.offset, line=ix.lines, seen=set(ix.games)))
        read: list[tuple[tuple[str, int], int, str]] = []
        last: int | None = None
        for line, at, _ in scan:
            if expect_hash is not None and line.config_hash != expect_hash:
                raise ResultsError(_other_hash(self.path, line.pairing, line.block, line.config_hash, expect_hash))
            if ix is None:
                self.lines[line.task_key] = line if self.records else without_records(line, self._refs)
            else:
                read.append((line.task_key, len(line.games), line.config_hash))  # taken once the scan is whole
                ix.parsed += 1
                last = at
        self.duplicates = scan.duplicates
        if ix is not None:
            for key, games, h in read:
                ix.take(key, games, h)
            if last is not None:
                with open(self.path, "rb") as f:
                    f.seek(last)
                    ix.moved_to(last, f.read(scan.end - last))
            ix.offset, ix.lines = scan.end, scan.lines
        if scan.torn_bytes:
            self.repaired_bytes = scan.torn_bytes
            with open(self.path, "r+b") as f:
                f.truncate(f.seek(0, os.SEEK_END) - scan.torn_bytes)
                f.flush()
                os.fsync(f.fileno())
        return self.lines

    def append(self, line: ResultLine) -> bool:
        """Write one finished block durably; False if its key is already stored."""
        return self.append_all([line])[0]

    def append_all(self, lines: Sequence[ResultLine]) -> list[bool]:
        """Write a unit's finished blocks durably in one write and one fsync (a batch's lines: an fsync
        costs several ms, as much as a game's harness work); for each line, False if its key was already
        stored (or comes twice). One write keeps the file's rule: a crash leaves whole lines and at most
        one torn last line."""
        fresh: list[tuple[ResultLine, bytes]] = []
        taken: set[tuple[str, int]] = set()
        wrote: list[bool] = []
        for line in lines:
            new = line.task_key not in self.keys and line.task_key not in taken
            wrote.append(new)
            if new:
                taken.add(line.task_key)
                fresh.append((line, (line.to_json() + "\n").encode()))
        if not fresh:
            return wrote
        self.out.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        payload = b"".join(raw for _, raw in fresh)
        try:
            at = os.lseek(fd, 0, os.SEEK_END)
            written = 0
            while written < len(payload):
                written += os.write(fd, payload[written:])
            os.fsync(fd)
        finally:
            os.close(fd)
        for line, raw in fresh:
            self.lines[line.task_key] = line if self.records else without_records(line, self._refs)
            if self.index is not None:
                self.index.take(line.task_key, len(line.games), line.config_hash)
                self.index.lines += 1
                self.index.moved_to(at, raw)
            at += len(raw)
        return wrote

    def sorted_lines(self) -> list[ResultLine]:
        return [self.lines[k] for k in sorted(self.lines)]


def _other_hash(path: Path, pairing: str, block: int, got: str, expect: str) -> str:
    return (f"{path}: block {block} of {pairing} was produced with config hash {got}, but this config hashes to"
            f" {expect}: seed, match settings or deal files changed. Use a new 'out' folder.")


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.@+~-]", "_", name)[:200]


def stderr_path(out: str | os.PathLike[str], pairing: str, block: int, half: int, seat: int, bot: str) -> Path:
    """Where one game seat's stderr is kept next to the results."""
    return Path(out) / STDERR_DIR / _safe(pairing) / f"{block}-{half}-seat{seat}-{_safe(bot)}.txt"


def write_stderr(out: str | os.PathLike[str], pairing: str, block: int, half: int, seat: int, bot: str, text: str) -> Path | None:
    """Keep one game seat's (already capped) stderr next to the results."""
    if not text:
        return None
    p = stderr_path(out, pairing, block, half, seat, bot)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p
