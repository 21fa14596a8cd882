"""The append-only results file: one JSON line per finished duplicate block.

A line is written, flushed and fsync'd only once its block is complete, so
after a crash the file holds whole blocks plus at most one torn last line,
which ``load`` cuts off. Lines are keyed by (pairing, block); a key seen
twice keeps its first line, so a resumed run can never count a block twice.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Iterable

from pydantic import ValidationError

from .schema import ResultLine

RESULTS_NAME = "results.jsonl"
STDERR_DIR = "stderr"


class StoreError(RuntimeError):
    """The results file cannot be used as it is (corrupt, or from another config)."""


def comparable(line: dict[str, Any]) -> dict[str, Any]:
    """A line without its run-dependent part, for comparing two runs."""
    return {k: v for k, v in line.items() if k != "run"}


class ResultsStore:
    def __init__(self, out: str | os.PathLike[str]) -> None:
        self.out = Path(out)
        self.path = self.out / RESULTS_NAME
        self.lines: dict[tuple[str, int], dict[str, Any]] = {}
        self.repaired_bytes = 0
        self.duplicates = 0

    def load(self, expect_hash: str | None = None) -> dict[tuple[str, int], dict[str, Any]]:
        """Read finished blocks, cutting off a torn last line; check the config hash."""
        self.lines = {}
        if not self.path.exists():
            return self.lines
        data = self.path.read_bytes()
        keep = data.rfind(b"\n") + 1  # everything after the last newline is torn
        body = data[:keep]
        raw_lines = body.split(b"\n")[:-1]
        for i, raw in enumerate(raw_lines):
            try:
                obj = json.loads(raw)
                line = ResultLine.model_validate(obj)
            except (ValueError, ValidationError) as e:
                if i == len(raw_lines) - 1:  # a last line that does not parse is torn too
                    keep -= len(raw) + 1
                    break
                raise StoreError(f"{self.path}: line {i + 1} is corrupt ({type(e).__name__}); not touching the file") from None
            if expect_hash is not None and line.config_hash != expect_hash:
                raise StoreError(
                    f"{self.path}: line {i + 1} was produced with config hash {line.config_hash}, but this config hashes to"
                    f" {expect_hash}: seed, match settings or deal files changed. Use a new 'out' folder"
                    " (adding entries or blocks is allowed, changing how games are played is not)."
                )
            if line.task_key in self.lines:
                self.duplicates += 1
                continue
            self.lines[line.task_key] = obj
        if keep < len(data):
            self.repaired_bytes = len(data) - keep
            with open(self.path, "r+b") as f:
                f.truncate(keep)
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


def write_stderr(out: str | os.PathLike[str], pairing: str, block: int, half: int, seat: int, bot: str, text: str) -> Path | None:
    """Keep one game seat's (already capped) stderr next to the results."""
    if not text:
        return None
    folder = Path(out) / STDERR_DIR / _safe(pairing)
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / f"{block}-{half}-seat{seat}-{_safe(bot)}.txt"
    p.write_text(text)
    return p


def read_lines(path: str | os.PathLike[str]) -> Iterable[dict[str, Any]]:
    """Every whole line of a results file, without repairing it."""
    with open(path, "rb") as f:
        for raw in f:
            if raw.endswith(b"\n"):
                yield json.loads(raw)
