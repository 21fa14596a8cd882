"""``arena bench rotation``: duplicate by rotation at a table of n seats, and what it buys.

The baselines play in-process (``PolicyPlayer``) blocks of n games on one deal key
each, the entrants rotated through the seats (``rotation_match``); the last line is
one JSON object with each entrant's results and the variance factor of the design
(docs/ratings.md, "Duplicate by rotation").
"""

from __future__ import annotations

import json
import time
from typing import Any

from arena.match.settings import MatchSettings

from .bots import load_bot_class, rotation_match


def run(args: Any) -> int:
    settings = MatchSettings(profile=args.profile)
    n = settings.profile.players
    names = (args.bots or "heuristic,random").split(",")
    entrants = [names[s % len(names)] for s in range(n)]
    t0 = time.perf_counter()
    r = rotation_match([load_bot_class(x) for x in entrants], args.blocks, args.key, settings)
    out = {"bench": "rotation", "profile": settings.profile.name, "entrants": entrants,
           "wall_s": round(time.perf_counter() - t0, 1), **r}
    for e, name in enumerate(entrants):
        print(f"{name} (entrant {e + 1}): mean final score {r['mean_final_score'][e]}, win rate {r['win_rate'][e]}")
    for k in ("gain_final_score", "gain_win"):
        g = r[k]
        print(f"{g['statistic']}: factor {g['factor']} (unpaired {g['unpaired_var']} / paired {g['paired_var']},"
              f" {g['blocks']} blocks of {g['rotations']})")
    print(json.dumps(out, sort_keys=True))
    return 0
