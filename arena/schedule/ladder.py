"""The ladder: a competition folder remembers its runs, one line per run that played games.

``runs.jsonl`` next to the results holds, for every ``arena run`` that added
blocks, how many results lines the folder held when it ended and which
entries it had. The results file is append-only and its reader keeps file
order, so run *n* covers exactly the first ``lines`` lines: a site can rate
the competition as of each run without any clock. A run killed before it
could write its line is covered by the next run's line.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable, Mapping

from pydantic import BaseModel, StrictInt

RUNS_NAME = "runs.jsonl"


class RunEntry(BaseModel):
    """An entry of the run, as ``tournament.json`` named it."""

    name: str | None = None
    version: str | None = None
    digest: str | None = None


class RunRecord(BaseModel):
    """One line of ``runs.jsonl``: the run's number, the results lines the folder held when it ended, the
    blocks it played, whether the tournament was complete, and its entries."""

    run: int = 0
    lines: StrictInt
    played: int = 0
    complete: bool = False
    entries: list[RunEntry] = []


def record_run(out: Path, *, lines: int, played: int, complete: bool,
               entries: Iterable[Mapping[str, object]]) -> RunRecord:
    """Append this run's line (durably: the results it names are already fsync'd)."""
    runs = read_runs(out)
    named = [RunEntry(name=_text(e.get("name")), version=_text(e.get("version")), digest=_text(e.get("digest")))
             for e in entries]
    row = RunRecord(run=len(runs) + 1, lines=lines, played=played, complete=complete,
                    entries=sorted(named, key=lambda e: (str(e.name), str(e.digest))))
    fd = os.open(out / RUNS_NAME, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (json.dumps(row.model_dump(), sort_keys=True) + "\n").encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    return row


def _text(v: object) -> str | None:
    return None if v is None else str(v)


def read_runs(folder: Path) -> list[RunRecord]:
    """The folder's runs in order; a torn or foreign line ends the list (what follows cannot be placed)."""
    return read_runs_from(folder)[0]


def read_runs_from(folder: Path, start: int = 0, last: int = -1) -> tuple[list[RunRecord], int]:
    """The runs after byte ``start`` of the folder's runs file (``last``: the ``lines`` of the run before
    it), and the byte after the last one taken, for a reader that keeps what it read. A line cut short,
    foreign, or going back stops the list there."""
    try:
        with open(folder / RUNS_NAME, "rb") as f:
            f.seek(start)
            data = f.read()
    except OSError:
        return [], start
    runs: list[RunRecord] = []
    end = start
    for raw in data.splitlines(keepends=True):
        if not raw.endswith(b"\n"):
            break
        try:
            row = RunRecord.model_validate_json(raw)
        except ValueError:
            break
        if row.lines < (runs[-1].lines if runs else last):
            break
        runs.append(row)
        end += len(raw)
    return runs, end
