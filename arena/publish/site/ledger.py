"""What a site remembers of the results it has read, so that a rebuild reads only what was appended.

A site folder keeps, beside its pages, ``.cinch-state/``:

* ``ledger.jsonl``, append-only: one entry per results line read, in file
  order: the line as the ratings and the pages read it (its games' records
  reduced to profile, key and limits: ``slim_line``), its digest, where it
  stands in its file, when it finished, and its faults as the pages show
  them;
* ``time/``: each bot version's decision latencies, start-up times and bank
  left, appended (the time-use percentiles need every value);
* ``bootstrap-memo.bin``, rewritten by every build: the ratings' bootstrap
  sums per matchup and pairing (``ratings.memo``), so a rebuild adds up
  again only those of the pairings that gained blocks;
* ``cache.json``, rewritten by every build: where each results file (and its
  runs file) was read up to, and what is folded over every game read: the
  statistics from the engine's replays, the crosstable cells, the average
  opponents' groups, the block results, each bot's time use, the bot ids and
  page names of the last build, and the ratings of the history's runs.

Everything here is keyed by a bot's (name, digest), never by its id, since an
id changes when a second version of a name appears. The cache names the code
it was made by and the options that shape it: another code version, other
options, a results file that no longer starts with what was read, or a line
appended to any file but the last one, and the state is dropped and the site
built from scratch, which gives the same files. A build killed at any point
leaves the ledger and the time files longer than the cache says; the next
build cuts them back and reads the same lines again.
"""

from __future__ import annotations

import hashlib
import json
import os
from array import array
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Iterator, Sequence

import orjson

from ...engine import decision_kind
from ...match.game import settings_profile
from ...match.show import seat_names
from ...results import (GameLine, JsonObject, ResultLine, ResultsError, ResultsScan, RunInfo, line_digest, seatings,
                        stored_line, trusted_line)
from ...ratings.memo import ResampleMemo
from ...schedule.ladder import read_runs_from
from ..load import BotInfo, _ref, block_score, game_contests
from .stats import BotStats, GameRun, HONOURS, TimeSummary, TimeUse, add_deal, add_time_use, record_profile

STATE = ".cinch-state"
FORMAT = 1
#: the code a state was made by: a state another version made is not trusted
STATE_CODE = ("publish", "ratings", "results", "engine", "match/show.py", "match/game.py", "schedule/ladder.py")
#: the code the viewer's frames come from (a replay file whose head names another is written again)
FRAMES_CODE = ("engine", "publish/site/frames.py", "match/show.py", "match/stored.py")
#: what is kept of a game record for the ratings and the pages (the deals themselves are replayed once)
RECORD_KEPT = ("format", "version", "profile", "key", "first_dealer", "max_deals", "fixed_deals")

Ref = tuple[str, str]


def code_digest(parts: Sequence[str]) -> str:
    """A digest of the named modules and packages of ``arena`` (their .py files, sorted)."""
    h = hashlib.blake2b(digest_size=12)
    root = Path(str(resources.files("arena")))
    for part in parts:
        node = root / part
        files = [node] if part.endswith(".py") else sorted(node.rglob("*.py"))
        for f in files:
            h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def refkey(ref: Ref) -> str:
    return f"{ref[0]}@{ref[1]}"


def keyref(key: str) -> Ref:
    name, _, digest = key.rpartition("@")
    return name, digest


# ------------------------------------------------------------------ a line as the site keeps it


def _slim_deal(d: dict[str, Any]) -> dict[str, Any]:
    """What the ratings read of a deal at a called-partner table (``engine.deal_sides``, ``load.table_game``)."""
    out: dict[str, Any] = {k: d[k] for k in ("redeal", "scores_before", "scores_after", "maker") if k in d}
    events = d.get("events") or []
    calls, plays = decision_kind("call").events, decision_kind("play").events
    called = next((e.get("card") for e in events if e.get("type") in calls), None)
    out["events"] = [e for e in events if e.get("type") in calls
                     or (called is not None and e.get("type") in plays and e.get("card") == called)]
    return out


def slim_game(g: GameLine) -> GameLine:
    """A game without its record's deals (their number kept as the record's ``deal_count``); the deals' sides
    stay where the ratings count a table's contests by deal (a called-partner table)."""
    rec = g.record
    kept: dict[str, Any] = {k: rec[k] for k in RECORD_KEPT if k in rec}
    deals = rec.get("deals") or []
    if len(g.seats) != 4 and settings_profile(rec)[1] == "called":
        kept["deals"] = [_slim_deal(d) for d in deals if isinstance(d, dict)]
    kept["deal_count"] = len(deals)
    return g.model_copy(update={"record": kept})


def slim_line(line: ResultLine) -> ResultLine:
    """A results line as the ratings, the provenance and the pages read it: without ``run`` and the deals."""
    return line.model_copy(update={"games": [slim_game(g) for g in line.games], "run": RunInfo()})


def deal_count(g: GameLine) -> int:
    """Deals in a game, full or slim."""
    if "deal_count" in g.record:
        return int(g.record["deal_count"])
    return len(g.record.get("deals") or [])


def public_command(cmd: str | None) -> str | None:
    """A reproduce command without the host's paths: the results file becomes ``results.jsonl`` (wherever the
    reader keeps it) and the bot's folder ``BOT_FOLDER``; every other word is kept."""
    import shlex

    if cmd is None:
        return None
    try:
        words = shlex.split(cmd)
    except ValueError:
        return "not published (the host's command did not parse)"
    placeholder = {"reproduce": "results.jsonl", "check-bot": "BOT_FOLDER", "--bot": "BOT_FOLDER"}
    out = [placeholder.get(words[i - 1], w) if i and not w.startswith("-") else w for i, w in enumerate(words)]
    return shlex.join(out)


@dataclass
class FaultRow:
    """One fault as the pages show it (``fault_rows``); ``at``: the seat it is blamed on, if a seat; ``bot``:
    the bot it names, until the site's model puts the blamed bot's id there."""

    game: str
    seat: int
    kind: str
    message: str
    decision: Any
    deal: Any
    request: Any
    reply: Any
    stderr: str | None
    command: str | None
    seat_name: str = "?"  # how the game names the seat (N E S W, or P1 ... Pn at a table of n seats)
    bot: str = ""
    at: int | None = None


def fault_rows(line: ResultLine, half: int, private: bool) -> list[FaultRow]:
    """One game's faults as the pages show them; public: no stderr, reproduce commands without host paths."""
    st = line.seating(half)
    run = line.run
    repro = [r for r in run.reproduce if r.game == half]
    tails = {(f.seat, f.decision): f.stderr for f in GameRun.of(run.games, half).faults}
    where = seat_names(len(st.seats))
    rows = []
    for f in st.game.faults:
        seat, at = f.seat, st.fault_seat(f)
        cmd = next((r.command for r in repro if r.seat == seat and r.kind == f.kind), None)
        stderr = tails.get((seat, f.decision))
        if stderr is None:
            stderr = next((r.stderr for r in repro if r.seat == seat), None)
        if not private:
            stderr, cmd = None, public_command(cmd)
        rows.append(FaultRow(str(st.game.id), -1 if seat is None else seat, f.kind, f.message, f.decision, f.deal,
                             f.request, f.reply, stderr, cmd, where[at] if at is not None and at < len(where) else "?",
                             f.bot, at))
    return rows


def _fault_json(f: FaultRow) -> dict[str, object]:
    return {"game": f.game, "seat": f.seat, "at": f.at, "bot": f.bot, "kind": f.kind, "message": f.message,
            "decision": f.decision, "deal": f.deal, "request": f.request, "reply": f.reply, "stderr": f.stderr,
            "command": f.command, "seat_name": f.seat_name}


# ------------------------------------------------------------------ the state


@dataclass
class Entry:
    """One line of a results file as read. ``line`` is None for a block an earlier file already gave (the
    same games: counted as a duplicate)."""

    src: int
    at: float
    offset: int
    length: int
    digest: str
    key: tuple[str, int]
    line: ResultLine | None
    faults: list[list[FaultRow]] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps({"s": self.src, "at": self.at, "o": self.offset, "n": self.length, "d": self.digest,
                           "k": list(self.key), "l": None if self.line is None else self.line.to_dict(),
                           "f": [[_fault_json(f) for f in fs] for fs in self.faults]}, separators=(",", ":"))

    @classmethod
    def from_json(cls, raw: bytes, memo: dict[Any, Any] | None = None) -> "Entry":
        """An entry as ``to_json`` wrote it; with ``memo`` (one per ledger read), the parts lines repeat
        (seats, sides, rule profiles) are one object each across the ledger (``results.trusted_line``,
        ``_one``): the ledger is this code's own, written from lines checked when read."""
        exact = True
        try:
            d = orjson.loads(raw)  # several times faster than json on the ledger's lines, the same values
        except orjson.JSONDecodeError:  # NaN or Infinity (json writes them; orjson does not read them)
            d, exact = json.loads(raw), False
        line = None
        if d["l"] is not None:
            memo = {} if memo is None else memo
            for g in d["l"]["games"]:
                if isinstance(g["record"].get("profile"), dict):
                    g["record"]["profile"] = _one(g["record"]["profile"], memo, exact)
            line = trusted_line(d["l"], memo)
        return cls(d["s"], d["at"], d["o"], d["n"], d["d"], (d["k"][0], d["k"][1]), line,
                   [[FaultRow(**f) for f in fs] for fs in d["f"]])


def read_ledger(path: Path, size: int) -> Iterator[Entry]:
    """The entries of the first ``size`` bytes of a ledger, read one line at a time: the file is never held
    whole (at 20,000 stored games it is 30 MB, and its bytes and their lines were held at once beside the
    entries made from them). ``Rebuild`` when the file is shorter than ``size`` or a line is cut there."""
    memo: dict[Any, Any] = {}
    left = size
    with open(path, "rb") as f:
        while left > 0:
            raw = f.readline(left)
            if not raw.endswith(b"\n"):
                raise Rebuild("the ledger is shorter than its cache says")
            left -= len(raw)
            yield Entry.from_json(raw, memo)


def _frozen(v: Any) -> Any:
    """A hashable twin of a JSON value (what ``_one`` keys on)."""
    if isinstance(v, dict):
        return tuple((k, _frozen(x)) for k, x in v.items())
    if isinstance(v, list):
        return ("\0list", *map(_frozen, v))
    if isinstance(v, (bool, float)):  # True == 1 == 1.0: equal keys, other JSON
        return (type(v).__name__, v)
    return v


def _one(v: Any, memo: dict[Any, Any], exact_json: bool = False) -> Any:
    """One object for equal JSON values across a ledger. ``exact_json``: the value came from orjson, which
    read no NaN, so its orjson text (keys in order; true, 1 and 1.0 apart) is a key, made many times faster
    than ``_frozen``'s."""
    if not isinstance(v, dict):
        return v
    return memo.setdefault((b"\0json", orjson.dumps(v)) if exact_json else _frozen(v), v)


@dataclass
class Source:
    """How far one results file (and its runs file) has been read."""

    path: str
    offset: int = 0
    lines: int = 0  # lines before ``offset`` (for messages naming a line)
    head: str = ""  # digest of its first line read, and of its last: the file must still start with them
    tail: str = ""
    tail_at: int = 0
    duplicates: int = 0
    torn: int = 0
    runs_offset: int = 0
    runs: list[list[int]] = field(default_factory=list)  # [lines, played] of each run in its runs file

    def to_dict(self) -> dict[str, object]:
        """As the cache keeps it: the file named by a digest of its path (a public site names no host path)."""
        return {**self.__dict__, "path": _digest(self.path.encode())}


class Rebuild(Exception):
    """The state cannot be carried on (see the module docstring): build from scratch."""


def _blank_stats(profile_text: str) -> BotStats:
    return BotStats(record_profile({"profile": json.loads(profile_text)}))


def _stats_to(st: BotStats) -> dict[str, object]:
    d = {k: v for k, v in st.__dict__.items() if k != "profile"}
    d["contracts"] = [[k, v] for k, v in st.contracts.items()]
    return d


def _stats_from(profile_text: str, d: dict[str, Any]) -> BotStats:
    st = _blank_stats(profile_text)
    for k, v in d.items():
        if k == "contracts":
            st.contracts = {int(level): list(mk) for level, mk in v}
        elif k == "honours":
            st.honours = {h: int(v.get(h, 0)) for h in HONOURS}
        else:
            setattr(st, k, v)
    return st


TIME_KINDS = ("latencies", "startup", "bank_left")
#: the ratings' bootstrap sums (``ratings.memo``), rewritten by every build
MEMO = "bootstrap-memo.bin"


class SiteState:
    """The ledger, the folds and the caches of one site folder, kept in ``dir`` (None: in memory only;
    by default the site's own ``.cinch-state``)."""

    def __init__(self, dir: Path | None, key: dict[str, Any]) -> None:
        self.dir = dir
        self.key = key
        self.entries: list[Entry] = []
        self.sources: list[Source] = []
        self.ledger_bytes = 0
        self.ids: dict[str, list[str]] = {}  # refkey -> [id, slug] of the last build
        self.retired: list[str] | None = None  # refkeys the folds left out (None: nothing folded yet)
        self.cells: dict[tuple[str, str], list[Any]] = {}  # (row, col) refkeys -> [game ids, score, w, d, l]
        self.opp: dict[tuple[str, tuple[str, ...]], int] = {}  # (bot, its opponents' refkeys) -> games
        self.blocks: dict[str, int] = {}  # block results: partnership A's score -> blocks
        self.stats: dict[tuple[str, str], tuple[str, BotStats]] = {}  # (refkey, profile name) -> (profile, counts)
        self.time: dict[str, list[int]] = {}  # refkey -> stored lengths of its three time files
        self.time_summary: dict[str, TimeSummary] = {}
        self.history: dict[str, Any] = {"key": None, "runs": {}}  # run end -> {refkey: row}
        self.folded = 0  # entries whose games are in the folds (cells, opponents, blocks)
        self.changed_cells: set[tuple[str, str]] = set()
        self.fresh = True
        self._saved = 0  # entries the ledger on disk holds
        self._new_time: dict[str, dict[str, list[float]]] = {}
        self.memo = ResampleMemo()  # the ratings' bootstrap sums of the last build (``ratings.memo``)

    # ---------------------------------------------------------- load and save

    @classmethod
    def new(cls, dir: Path | None, key: dict[str, Any], paths: Sequence[Path]) -> "SiteState":
        """A state that has read nothing (its first save replaces what ``dir`` held)."""
        st = cls(dir, key)
        st.sources = [Source(str(p)) for p in paths]
        return st

    @classmethod
    def open(cls, dir: Path | None, key: dict[str, Any], paths: Sequence[Path]) -> "SiteState":
        """The state in ``dir`` when it was made by this code with these options, else a new one."""
        st = cls.new(dir, key, paths)
        if st.dir is None or not (st.dir / "cache.json").is_file():
            return st
        try:
            st._load([str(p) for p in paths])
        except (Rebuild, OSError, ValueError, KeyError, TypeError, IndexError):
            st = cls.new(dir, key, paths)
        return st

    def _load(self, paths: list[str]) -> None:
        assert self.dir is not None
        cache = json.loads((self.dir / "cache.json").read_text())
        if cache.get("format") != FORMAT or cache.get("key") != self.key:
            raise Rebuild("another code version or other options")
        sources = [Source(**s) for s in cache["sources"]]
        if [s.path for s in sources] != [_digest(p.encode()) for p in paths]:
            raise Rebuild("other results files")
        for s, p in zip(sources, paths):
            s.path = p
        for s in sources:
            self._check_prefix(s)
        self.entries = list(read_ledger(self.dir / "ledger.jsonl", cache["ledger_bytes"]))
        if len(self.entries) != cache["entries"]:
            raise Rebuild("the ledger does not match its cache")
        self.sources, self.ledger_bytes = sources, cache["ledger_bytes"]
        self.ids = cache["ids"]
        self.retired = cache["retired"]
        self.cells = {(a, b): v for a, b, v in cache["cells"]}
        self.opp = {(b, tuple(o)): n for b, o, n in cache["opp"]}
        self.blocks = cache["blocks"]
        self.stats = {(r, name): (text, _stats_from(text, d)) for r, name, text, d in cache["stats"]}
        self.time = {r: lens for r, lens in cache["time"]}
        self.time_summary = {r: TimeSummary(**s) for r, s in cache["time_summary"]}
        self.history = cache["history"]
        self.folded = cache["folded"]
        self.fresh, self._saved = False, len(self.entries)
        try:  # any memo gives the same numbers (each sum is checked against what it was made from): none is fine
            self.memo = ResampleMemo.from_bytes((self.dir / MEMO).read_bytes())
        except (OSError, ValueError):
            self.memo = ResampleMemo()

    def _check_prefix(self, s: Source) -> None:
        """The results file still starts with the lines read from it (append-only), else ``Rebuild``."""
        if not s.offset:
            return
        p = Path(s.path)
        try:
            if p.stat().st_size < s.offset:
                raise Rebuild(f"{p} is shorter than what was read")
            with open(p, "rb") as f:
                first = f.readline()
                f.seek(s.tail_at)
                last = f.read(s.offset - s.tail_at)
        except OSError:
            raise Rebuild(f"{p} cannot be read") from None
        if _digest(first) != s.head or _digest(last) != s.tail:
            raise Rebuild(f"{p} changed where it was read")

    def save(self) -> None:
        """Append the new ledger entries and time values, then write the cache (the commit point)."""
        if self.dir is None:
            return
        if self.fresh:  # what another version left is of no use (only the state's own files are removed)
            import shutil

            shutil.rmtree(self.dir / "time", ignore_errors=True)
            for name in ("cache.json", "cache.json.tmp", "ledger.jsonl", MEMO):
                (self.dir / name).unlink(missing_ok=True)
        self.dir.mkdir(parents=True, exist_ok=True)
        new = b"".join(e.to_json().encode() + b"\n" for e in self.entries[self._saved:])
        with open(self.dir / "ledger.jsonl", "ab") as f:
            f.truncate(self.ledger_bytes)  # a killed build's entries are cut, then written again
            f.seek(self.ledger_bytes)
            f.write(new)
        self.ledger_bytes += len(new)
        for r, kinds in self._new_time.items():
            (self.dir / "time").mkdir(exist_ok=True)
            lens = self.time.get(r, [0, 0, 0])
            for i, kind in enumerate(TIME_KINDS):
                with open(self._time_path(r, i), "ab") as f:
                    f.truncate(lens[i] * 8)
                    f.seek(lens[i] * 8)
                    array("d", kinds[kind]).tofile(f)
                lens[i] += len(kinds[kind])
            self.time[r] = lens
        self._new_time = {}
        memo = self.dir / MEMO
        memo.with_name(MEMO + ".tmp").write_bytes(self.memo.to_bytes())
        os.replace(memo.with_name(MEMO + ".tmp"), memo)
        cache = {"format": FORMAT, "key": self.key, "sources": [s.to_dict() for s in self.sources],
                 "ledger_bytes": self.ledger_bytes, "entries": len(self.entries), "ids": self.ids,
                 "retired": self.retired, "cells": [[a, b, v] for (a, b), v in self.cells.items()],
                 "opp": [[b, list(o), n] for (b, o), n in self.opp.items()], "blocks": self.blocks,
                 "stats": [[r, name, text, _stats_to(st)] for (r, name), (text, st) in self.stats.items()],
                 "time": [[r, lens] for r, lens in self.time.items()],
                 "time_summary": [[r, asdict(s)] for r, s in self.time_summary.items()],
                 "history": self.history, "folded": self.folded}
        tmp = self.dir / "cache.json.tmp"
        tmp.write_text(json.dumps(cache, separators=(",", ":"), sort_keys=True))
        os.replace(tmp, self.dir / "cache.json")
        self._saved, self.fresh = len(self.entries), False

    def _time_path(self, r: str, i: int) -> Path:
        assert self.dir is not None
        return self.dir / "time" / f"{_digest(r.encode())}.{i}"

    # ---------------------------------------------------------- reading new lines

    def read(self, private: bool, bank_ms: float | None, time_use: bool = True) -> list[int]:
        """Read what was appended to the results files; the indices of the new entries."""
        seen: dict[tuple[str, int], tuple[int, str]] = {}
        per_file: list[set[tuple[str, int]]] = [set() for _ in self.sources]
        for e in self.entries:
            if e.line is not None:
                seen[e.line.task_key] = (e.src, e.digest)
        for e in self.entries:
            per_file[e.src].add(e.key)
        new: list[int] = []
        last = len(self.sources) - 1
        for si, s in enumerate(self.sources):
            scan = ResultsScan(s.path, start=s.offset, line=s.lines, seen=per_file[si])
            for obj, off, n in scan:
                if si != last and not self.fresh:
                    raise Rebuild(f"{s.path} grew, and files after it were read already")
                new.append(len(self.entries))
                self._take(si, obj, off, n, seen, private, bank_ms, time_use)
            s.duplicates += scan.duplicates
            s.torn = scan.torn_bytes
            if scan.end > s.offset:
                with open(s.path, "rb") as f:
                    if not s.head:
                        s.head = _digest(f.readline())
                    if new and self.entries[-1].src == si:
                        s.tail_at = self.entries[-1].offset
                    f.seek(s.tail_at)
                    s.tail = _digest(f.read(scan.end - s.tail_at))
            s.offset, s.lines = scan.end, scan.lines
            rows, s.runs_offset = read_runs_from(Path(s.path).parent, s.runs_offset, s.runs[-1][0] if s.runs else -1)
            s.runs += [[r.lines, r.played] for r in rows]
        return new

    def _take(self, si: int, obj: ResultLine, off: int, n: int, seen: dict[tuple[str, int], tuple[int, str]],
              private: bool, bank_ms: float | None, time_use: bool) -> None:
        digest = line_digest(obj)
        key = obj.task_key
        at = float(obj.run.finished_at or 0)
        if key in seen:
            other, old = seen[key]
            if old != digest:
                raise ResultsError(f"{self.sources[si].path}: block {key[1]} of {key[0]} is also in "
                                   f"{self.sources[other].path} with other games; a site shows one competition:"
                                   " give results of the same tournament")
            self.entries.append(Entry(si, at, off, n, digest, key, None))
            return
        seen[key] = (si, digest)
        games = obj.games
        faults = [fault_rows(obj, h, private) for h in range(len(games))]
        self.entries.append(Entry(si, at, off, n, digest, key, slim_line(obj), faults))
        if time_use:
            run_games = obj.run.games
            for h, g in enumerate(games):
                if h < len(run_games) and isinstance(run_games[h], dict):
                    refs = [refkey(_ref(s)) for s in g.seats]
                    tu: dict[str, TimeUse] = {}
                    add_time_use(GameRun.of(run_games, h), refs, bank_ms, tu)
                    for r, t in tu.items():
                        into = self._new_time.setdefault(r, {k: [] for k in TIME_KINDS})
                        for k in TIME_KINDS:
                            into[k] += getattr(t, k)

    def replay_of(self, gid: str, e_index: int, half: int, args: dict[str, Any]) -> None:
        """Keep where game ``gid``'s record is and what its replay shows (``build.replay_on_demand``)."""
        if self.dir is None:
            return
        e = self.entries[e_index]
        d = self.dir / REPLAY_OF
        d.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"path": self.sources[e.src].path, "offset": e.offset, "length": e.length, "half": half,
                           "args": args}, sort_keys=True)
        tmp = d / f"{gid}.json.tmp"
        tmp.write_text(text)
        os.replace(tmp, d / f"{gid}.json")

    def raw_games(self, e: Entry) -> list[tuple[JsonObject, int | None]]:
        """(record, forfeit_by) of each game of an entry's whole line, read again from its file: the line was
        checked when it was read, so its JSON alone (as ``stored_line`` keeps a record: the object read), not a
        model of it (a fifth of the cost of reading a line again)."""
        with open(self.sources[e.src].path, "rb") as f:
            f.seek(e.offset)
            raw = f.read(e.length)
        try:
            games = orjson.loads(raw)["games"]
            out = [(g["record"], g["forfeit_by"]) for g in games]
            if all(isinstance(r, dict) and (fb is None or isinstance(fb, int)) for r, fb in out):
                return out
        except (orjson.JSONDecodeError, KeyError, TypeError):
            pass
        return [(g.record, g.forfeit_by) for g in stored_line(raw).games]  # what orjson does not read

    # ---------------------------------------------------------- folds

    def fold(self, retired: set[str]) -> None:
        """Crosstable cells, opponents' groups and block results over the entries not folded yet (all of them
        again when the retired versions changed: their games leave the cells). ``changed_cells``: the cells
        that gained a game (every cell after a fold from scratch)."""
        if self.folded == len(self.entries) and self.retired == sorted(retired):
            return
        before: dict[tuple[str, str], int] | None = {k: len(v[0]) for k, v in self.cells.items()}
        if self.retired is None or sorted(retired) != self.retired:
            self.cells, self.opp, self.blocks, self.folded, before = {}, {}, {}, 0, None
            self.retired = sorted(retired)
        ids = _identity_ids(self.entries[self.folded:])
        for e in self.entries[self.folded:]:
            if e.line is not None:
                self._fold_line(e.line, retired, ids)
        self.folded = len(self.entries)
        self.changed_cells = {k for k, v in self.cells.items() if before is None or before.get(k) != len(v[0])}

    def _fold_line(self, line: ResultLine, retired: set[str], ids: dict[Ref, BotInfo]) -> None:
        sc = block_score(line)
        if sc in (0.0, 0.5, 1.0, 1.5, 2.0):
            self.blocks[repr(sc)] = self.blocks.get(repr(sc), 0) + 1
        for st in seatings(line):
            gid = str(st.game.id)
            seats = [refkey(_ref(s)) for s in st.seats]
            if retired & set(seats):
                continue
            groups, cells = game_contests(st, ids)
            for b, opp in groups:
                self._opponents(b, opp)
            for x, y, sc in cells:
                self._count(x, y, sc, gid)

    def _count(self, row: str, col: str, sc: float, gid: str) -> None:
        c = self.cells.setdefault((row, col), [[], 0.0, 0, 0, 0])
        c[0].append(gid)
        c[1] += sc
        c[2] += sc == 1.0
        c[3] += sc == 0.5
        c[4] += sc == 0.0

    def _opponents(self, b: str, opp: list[str]) -> None:
        k = (b, tuple(opp))
        self.opp[k] = self.opp.get(k, 0) + 1

    def count_stats(self, e_index: int, half: int, record: dict[str, Any], facts: list[Any] | None) -> None:
        """One game's Cinch statistics (its deals' facts from the engine's replay; None: it does not replay)."""
        e = self.entries[e_index]
        assert e.line is not None
        bot_at = [refkey(_ref(s)) for s in e.line.games[half].seats]
        profile = record_profile(record)
        text = json.dumps(record.get("profile") or {}, sort_keys=True)
        into: dict[str, BotStats] = {}
        for b in set(bot_at) if facts is None else bot_at:
            k = (b, profile.name)
            if k not in self.stats:
                self.stats[k] = (text, BotStats(profile))
            into[b] = self.stats[k][1]
        if facts is None:  # counted nowhere rather than counted wrong; the page says how many
            for b in set(bot_at):
                into[b].unreplayable += 1
            return
        for f in facts:
            add_deal(f, bot_at, into, profile)

    def time_use(self) -> dict[str, TimeSummary]:
        """Each bot version's time use, the summaries of those with new values computed again."""
        for r, kinds in self._new_time.items():
            tu = TimeUse()
            lens = self.time.get(r, [0, 0, 0])
            for i, k in enumerate(TIME_KINDS):
                old = array("d")
                if lens[i]:
                    with open(self._time_path(r, i), "rb") as f:
                        old.fromfile(f, lens[i])
                setattr(tu, k, old.tolist() + kinds[k])
            self.time_summary[r] = tu.summary()
        return self.time_summary


#: in the state: per game whose replay a server makes on demand, where its record is and what the replay shows
REPLAY_OF = "replay-of"


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _identity_ids(entries: Sequence[Entry]) -> dict[Ref, BotInfo]:
    """Every (name, digest) of the entries, its id being its refkey: the folds' keys, stable across versions."""
    out: dict[Ref, BotInfo] = {}
    for e in entries:
        if e.line is None:
            continue
        for g in e.line.games:
            for s in g.seats:
                ref = _ref(s)
                if ref not in out:
                    out[ref] = BotInfo(refkey(ref), *ref)
    return out
