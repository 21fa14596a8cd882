"""The append-only results file: one JSON line per finished duplicate block.

A line is written, flushed and fsync'd only once its block is complete, so
after a crash the file holds whole blocks plus at most one torn last line.
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
from typing import Any, Iterable

from pydantic import ValidationError

from .schema import ResultLine, game_id

RESULTS_NAME = "results.jsonl"
STDERR_DIR = "stderr"


class ResultsError(ValueError):
    """A results file that cannot be used as it is (unreadable, corrupt, or from another config)."""


def comparable(line: dict[str, Any]) -> dict[str, Any]:
    """A line without its run-dependent part, for comparing two runs."""
    return {k: v for k, v in line.items() if k != "run"}


def line_key(obj: dict[str, Any]) -> tuple[str, int]:
    return (str(obj.get("pairing")), int(obj.get("block", -1)))


@dataclass
class LoadedResults:
    """A parsed results file: its whole lines (first of each key, file order) and what was skipped."""

    path: Path
    lines: list[dict[str, Any]] = field(default_factory=list)
    torn_bytes: int = 0  # bytes after the last whole line (a write cut short)
    duplicates: int = 0  # lines whose (pairing, block) key was already seen

    @property
    def torn(self) -> bool:
        return self.torn_bytes > 0

    @property
    def sha256(self) -> str:
        return scored_digest(self.lines)

    def by_key(self) -> dict[tuple[str, int], dict[str, Any]]:
        return {line_key(x): x for x in self.lines}


def results_path(path: str | os.PathLike[str]) -> Path:
    """A results file, or the folder holding ``results.jsonl``."""
    p = Path(path)
    return p / RESULTS_NAME if p.is_dir() else p


def read_results(path: str | os.PathLike[str], *, validate: bool = True) -> LoadedResults:
    """Read a results file without modifying it (see the module docstring).

    ``validate`` checks every line against the results schema, so a line
    that is JSON but not a results line is reported, naming the line.
    """
    p = results_path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise ResultsError(f"{p}: cannot read results: {e.strerror}") from None
    keep = data.rfind(b"\n") + 1  # everything after the last newline is torn
    raw_lines = data[:keep].split(b"\n")[:-1]
    out = LoadedResults(p)
    seen: set[tuple[str, int]] = set()
    for i, raw in enumerate(raw_lines):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
            if not isinstance(obj, dict):
                raise ValueError("not a JSON object")
            if validate:
                ResultLine.model_validate(obj)
        except (ValueError, ValidationError) as e:
            if i == len(raw_lines) - 1:  # a last line that does not parse is torn too
                keep -= len(raw) + 1
                break
            raise ResultsError(f"{p}: line {i + 1} is not a results line ({_why(e)}); the file is left as it is") from None
        key = line_key(obj)
        if key in seen:
            out.duplicates += 1
            continue
        seen.add(key)
        for half, g in enumerate(obj.get("games") or []):
            if isinstance(g, dict) and not g.get("id"):
                g["id"] = game_id(key[0], key[1], half)
        out.lines.append(obj)
    out.torn_bytes = len(data) - keep
    return out


def _why(e: Exception) -> str:
    if isinstance(e, ValidationError):
        err = e.errors()[0]
        return f"{'.'.join(str(x) for x in err['loc']) or 'line'}: {err['msg']}"
    return str(e) or type(e).__name__


def scored_digest(lines: Iterable[dict[str, Any]]) -> str:
    """SHA-256 of the lines' scored content (``run`` dropped), in key order.

    Two runs of the same tournament (any worker count, any order of
    completion) name the same data, and a leaderboard names exactly the data
    it was computed from.
    """
    h = hashlib.sha256()
    for obj in sorted(lines, key=line_key):
        h.update(json.dumps(comparable(obj), sort_keys=True, separators=(",", ":")).encode() + b"\n")
    return h.hexdigest()


class ResultsStore:
    """The results file of one output folder, as its runner sees it."""

    def __init__(self, out: str | os.PathLike[str]) -> None:
        self.out = Path(out)
        self.path = self.out / RESULTS_NAME
        self.lines: dict[tuple[str, int], dict[str, Any]] = {}
        self.repaired_bytes = 0
        self.duplicates = 0

    def load(self, expect_hash: str | None = None) -> dict[tuple[str, int], dict[str, Any]]:
        """Read finished blocks, cut off a torn last line, check the config hash."""
        self.lines = {}
        if not self.path.exists():
            return self.lines
        res = read_results(self.path)
        for i, line in enumerate(res.lines):
            if expect_hash is not None and line.get("config_hash") != expect_hash:
                raise ResultsError(
                    f"{self.path}: block {line.get('block')} of {line.get('pairing')} was produced with config hash"
                    f" {line.get('config_hash')}, but this config hashes to {expect_hash}: seed, match settings or"
                    " deal files changed. Use a new 'out' folder."
                )
        self.lines = res.by_key()
        self.duplicates = res.duplicates
        if res.torn:
            self.repaired_bytes = res.torn_bytes
            with open(self.path, "r+b") as f:
                f.truncate(f.seek(0, os.SEEK_END) - res.torn_bytes)
                f.flush()
                os.fsync(f.fileno())
        return self.lines

    def append(self, line: ResultLine) -> bool:
        """Write one finished block durably; False if its key is already stored."""
        if line.task_key in self.lines:
            return False
        text = line.to_json()
        self.out.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            payload = (text + "\n").encode()
            written = 0
            while written < len(payload):
                written += os.write(fd, payload[written:])
            os.fsync(fd)
        finally:
            os.close(fd)
        self.lines[line.task_key] = json.loads(text)
        return True

    def sorted_lines(self) -> list[dict[str, Any]]:
        return [self.lines[k] for k in sorted(self.lines)]


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
