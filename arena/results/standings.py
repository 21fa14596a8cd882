"""Live standings: each bot's score rate over the games it has played.

A game gives its winning partnership 1, the losers 0, and 0.5 each when it
is unfinished; a bot partnering itself counts once per game. This is a
progress figure, not a rating (the ratings step does the real fit).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable


@dataclass
class Standing:
    bot: str
    games: int = 0
    points: float = 0.0
    faults: int = 0

    @property
    def rate(self) -> float:
        return self.points / self.games if self.games else 0.0


def standings(lines: Iterable[dict[str, Any]]) -> list[Standing]:
    """Bots by score rate (best first), ties by name."""
    table: dict[str, Standing] = {}
    for line in lines:
        for g in line["games"]:
            for side in (0, 1):
                bots = {g["seats"][s]["bot"] for s in (side, side + 2)}
                pts = 0.5 if g["winner"] is None else float(g["winner"] == side)
                for b in bots:
                    st = table.setdefault(b, Standing(b))
                    st.games += 1
                    st.points += pts
            for f in g["faults"]:
                table.setdefault(f["bot"], Standing(f["bot"])).faults += 1
    return sorted(table.values(), key=lambda s: (-s.rate, s.bot))
