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

import threading
from pathlib import Path
from typing import Any

from ..publish.site.model import public_command
from ..publish.tempo import audit
from ..results import ResultsError, comparable, read_results, results_path


class FaultIndex:
    """The store's faults by team, read again only when the results file changed (size and mtime)."""

    def __init__(self, results: Path) -> None:
        self.results = results
        self._seen: tuple[int, int] | None = None
        self._faults: list[dict[str, Any]] = []
        self._lines: dict[tuple[str, int], dict[str, Any]] = {}
        self._tempo: dict[str, Any] | None = None  # the tempo audit of the lines, made when first asked
        self._lock = threading.Lock()

    def _load(self) -> None:
        path = results_path(self.results)
        try:
            st = path.stat()
        except FileNotFoundError:
            self._seen, self._faults, self._lines, self._tempo = None, [], {}, None
            return
        stamp = (st.st_size, st.st_mtime_ns)
        if stamp == self._seen:
            return
        try:
            lines = read_results(self.results).lines
        except ResultsError:
            return  # keep what was read last; the ladder's next batch repairs or reports the store
        faults = []
        for ln in lines:
            for r in (ln.get("run") or {}).get("reproduce") or []:
                game = ln["games"][r["game"]]
                faults.append({
                    "team": r["bot"], "pairing": ln["pairing"], "block": ln["block"], "game_id": r["game_id"],
                    "digest": game["seats"][r["seat"]].get("digest"), "seat": r["seat"], "kind": r["kind"],
                    "message": r.get("message", ""), "stderr": r.get("stderr") or "",
                    "command": public_command(r.get("command")),
                })
        self._seen, self._faults, self._tempo = stamp, faults, None
        self._lines = {(ln["pairing"], ln["block"]): ln for ln in lines}

    def of(self, team: str | None) -> list[dict[str, Any]]:
        """The faults of ``team``'s bots (every team's for None: the host)."""
        with self._lock:
            self._load()
            return [f for f in self._faults if team is None or f["team"] == team]

    def tempo(self, team: str | None) -> list[dict[str, Any]]:
        """The tempo audit's figures of ``team``'s bots (``arena.publish.tempo``; every team's for the host)."""
        with self._lock:
            self._load()
            if self._tempo is None:
                self._tempo = audit(self._lines.values())
            return [f for f in self._tempo["bots"] if team is None or f["bot"] == team]

    def block_line(self, team: str | None, pairing: str, block: int) -> dict[str, Any] | None:
        """The block's results line with an empty ``run``, if ``team`` has a fault in it (None for the host: any)."""
        with self._lock:
            self._load()
            if team is not None and not any(f["team"] == team and f["pairing"] == pairing and f["block"] == block
                                            for f in self._faults):
                return None
            line = self._lines.get((pairing, block))
            return {**comparable(line), "run": {}} if line is not None else None
