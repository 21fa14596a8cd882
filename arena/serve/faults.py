"""A team's faults in ladder games, and its tempo audit, read from the results store: private to that team.

Each fault the runner stored (a results line's ``run.reproduce``: kind,
message, the bot's stderr tail, the reproduce command) belongs to the bot
that made it, and a ladder bot's name is its team's. The host's command
names host paths (the results file, the ladder's copy of the bot); the team
is shown it with those as placeholders (``results.jsonl``, ``BOT_FOLDER``)
and can download the block's line (its ``run`` part emptied: it may hold
another team's stderr and the host's name) to run it on its own machine.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from pydantic import BaseModel, Field

from ..publish.site.model import public_command
from ..publish.tempo import TempoAudit, TempoSeat, audit
from ..results import JsonObject, ResultsError, ResultsScan, comparable, results_path, stored_line


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


class FaultIndex:
    """The store's faults by team, read only from where the last read ended when the results file grew (a
    file that shrank or changed before that point is read again whole). Only the faults and where each
    line stands are kept, not the lines: the store grows without end."""

    def __init__(self, results: Path) -> None:
        self.results = results
        self._seen: tuple[int, int] | None = None
        self._faults: list[Fault] = []
        self._at: dict[tuple[str, int], tuple[int, int]] = {}  # each block's line: (offset, length)
        self._end = self._lines = 0
        self._keys: set[tuple[str, int]] = set()
        self._head = b""
        self._tempo: TempoAudit | None = None  # the tempo audit of the lines, made when first asked
        self._lock = threading.Lock()

    def _load(self) -> None:
        path = results_path(self.results)
        try:
            st = path.stat()
            with open(path, "rb") as f:
                head = f.read(min(self._end, 4096))
        except FileNotFoundError:
            self._seen, self._faults, self._at, self._end, self._lines, self._keys = None, [], {}, 0, 0, set()
            self._tempo = None
            return
        stamp = (st.st_size, st.st_mtime_ns)
        if stamp == self._seen:
            return
        if st.st_size < self._end or head != self._head[:len(head)]:  # not appended to: read whole again
            self._faults, self._at, self._end, self._lines, self._keys = [], {}, 0, 0, set()
        scan = ResultsScan(path, start=self._end, line=self._lines, seen=set(self._keys))
        faults, at = list(self._faults), dict(self._at)
        try:
            for ln, off, n in scan:
                for r in ln.run.reproduce:
                    game = ln.games[r.game]
                    faults.append(Fault(
                        team=r.bot, pairing=ln.pairing, block=ln.block, game_id=r.game_id,
                        digest=game.seats[r.seat].digest, seat=r.seat, kind=r.kind, message=r.message,
                        stderr=r.stderr or "", command=public_command(r.command)))
                at[ln.task_key] = (off, n)
        except ResultsError:
            return  # keep what was read last; the ladder's next batch repairs or reports the store
        with open(path, "rb") as f:
            self._head = f.read(min(scan.end, 4096))
        self._seen, self._faults, self._at, self._tempo = stamp, faults, at, None
        self._end, self._lines, self._keys = scan.end, scan.lines, scan.seen

    def of(self, team: str | None) -> list[Fault]:
        """The faults of ``team``'s bots (every team's for None: the host)."""
        with self._lock:
            self._load()
            return [f for f in self._faults if team is None or f.team == team]

    def tempo(self, team: str | None) -> list[TempoSeat]:
        """The tempo audit's figures of ``team``'s bots, a row per bot and seat (``arena.publish.tempo``;
        every team's for the host)."""
        with self._lock:
            self._load()
            if self._tempo is None:
                try:  # streamed: the store is never in memory whole
                    self._tempo = audit(line for line, _, _ in ResultsScan(self.results)) if self._seen else audit([])
                except ResultsError:  # a line the ladder's next batch repairs or reports: nothing to show yet
                    return []
            return [f for f in self._tempo.seats if team is None or f.bot == team]

    def block_line(self, team: str | None, pairing: str, block: int) -> JsonObject | None:
        """The block's results line with an empty ``run``, if ``team`` has a fault in it (None for the host: any)."""
        with self._lock:
            self._load()
            if team is not None and not any(f.team == team and f.pairing == pairing and f.block == block
                                            for f in self._faults):
                return None
            where = self._at.get((pairing, block))
            if where is None:
                return None
            with open(results_path(self.results), "rb") as f:
                f.seek(where[0])
                line = stored_line(f.read(where[1]))
            return {**comparable(line), "run": {}}
