"""A ladder's store with many versions, hand-built (no engine games): for the pages' layout at scale.

``teams`` teams upload ``versions`` versions each, round after round; each new version plays a block
against the latest version of each of the next ``opponents`` teams (a ring), and every round is a batch of the ladder (a line
of ``runs.jsonl``). The entries name each version's folder as the server does (``TEAM-vN``) and carry a
manifest version of their own ("0.N"), so a page can show either.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

from tests.publish.helpers import game, line, meta, seat, write


def version_digest(team: str, v: int) -> str:
    return hashlib.sha256(f"{team}-v{v}".encode()).hexdigest()


def ladder_store(folder: Path, teams: int, versions: int, seed: int = 7, opponents: int = 2) -> Path:
    rng = random.Random(seed)
    names = [f"team{i:02d}" for i in range(teams)]
    strength = {n: rng.uniform(-200, 200) for n in names}
    latest: dict[str, dict[str, str]] = {}
    lines: list[dict[str, Any]] = []
    runs = []
    entries = []
    for v in range(1, versions + 1):
        for n in names:
            latest[n] = seat(n, version_digest(n, v))
            entries.append({"name": n, "digest": version_digest(n, v), "version": f"0.{v}", "dir": f"/srv/ladder/{n}-v{v}"})
        for i, n in enumerate(names):
            for k in range(1, opponents + 1):
                if teams == 1:
                    break
                a, b = latest[n], latest[names[(i + k) % teams]]
                if a["digest"] == b["digest"]:
                    continue
                p = 1.0 / (1.0 + 10 ** (-(strength[a["bot"]] - strength[b["bot"]] + 30 * v) / 400.0))
                wins = [rng.random() < p for _ in range(2)]
                g0 = game([a, b, a, b], 0, 0 if wins[0] else 1)
                g1 = game([b, a, b, a], 1, 1 if wins[1] else 0)
                ln = line((a["bot"], a["bot"]), (b["bot"], b["bot"]), len(lines), g0, g1,
                          pairing=f"{a['digest'][:6]}~{b['digest'][:6]}")
                ln["side_a"], ln["side_b"] = [a, a], [b, b]
                lines.append(ln)
        runs.append({"run": v, "lines": len(lines), "played": len(lines) - (runs[-1]["lines"] if runs else 0),
                     "complete": True, "entries": []})
    write(folder / "results.jsonl", lines)
    m = meta(name="ladder")
    m["entries"] = entries
    (folder / "tournament.json").write_text(json.dumps(m))
    (folder / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))
    return folder


def labels(teams: int, versions: int) -> dict[tuple[str, str], str]:
    """What the server calls each version: ``team03 v2``."""
    return {(f"team{i:02d}", version_digest(f"team{i:02d}", v)): f"team{i:02d} v{v}"
            for i in range(teams) for v in range(1, versions + 1)}
