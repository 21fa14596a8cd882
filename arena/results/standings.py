"""Live standings, and the one rule naming a bot version (``bot_ids``).

A game gives each side its ``Seating.points``: the winning partnership 1,
the losers 0 and 0.5 each when it is unfinished; at a table of n seats the
winning seat 1, the others 0, and each 1/n when nobody won. A bot partnering
itself counts once per game. This is a progress figure, not a rating (the
ratings step does the real fit).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .schema import ResultLine, seatings


@dataclass
class Standing:
    bot: str
    games: int = 0
    points: float = 0.0
    faults: int = 0

    @property
    def rate(self) -> float:
        return self.points / self.games if self.games else 0.0


def bot_ids(lines: Iterable[ResultLine]) -> dict[tuple[str, str], str]:
    """The id every (name, digest) in the lines is shown and rated under: the name, or
    ``name@digest12`` when the lines hold that name with several digests (two versions of
    a bot, or an SPRT's candidate copied from its baseline, must never be merged). The one
    reader of bot versions: the standings, the ratings (``publish.load``) and the site use it."""
    digests: dict[str, set[str]] = {}
    for line in lines:
        for g in line.games:
            for seat in g.seats:
                digests.setdefault(seat.bot, set()).add(seat.digest)
    return {(n, d): n if len(ds) == 1 else f"{n}@{d[:12]}" for n, ds in digests.items() for d in ds}


def standings(lines: Iterable[ResultLine]) -> list[Standing]:
    """Bots (by ``bot_ids``) by score rate, best first, ties by id."""
    lines = list(lines)
    ids = bot_ids(lines)
    table: dict[str, Standing] = {}
    for line in lines:
        for st in seatings(line):
            seats = [ids[s.ref] for s in st.seats]
            for side, members in enumerate(st.sides):
                for b in {seats[s] for s in members}:
                    row = table.setdefault(b, Standing(b))
                    row.games += 1
                    row.points += st.points(side)
            for f in st.game.faults:
                seat = st.fault_seat(f)
                bot = seats[seat] if seat is not None else f.bot
                table.setdefault(bot, Standing(bot)).faults += 1
    return sorted(table.values(), key=lambda s: (-s.rate, s.bot))


def side_a_halves(line: ResultLine, statistic: str = "score") -> tuple[float, float] | None:
    """Partnership A's result in each game of a block of two pairs: score (1, 1/2, 0) or points difference.

    None for points when a game carries no scores.
    """
    out: list[float] = []
    for st in seatings(line):
        side = st.side_a
        assert side is not None, "partnership A sits only at a block of two pairs"
        if statistic == "points":
            out.append(float(st.game.scores[side]) - float(st.game.scores[1 - side]))
        else:
            out.append(st.points(side))
    return out[0], out[1]


def side_a_sample(line: ResultLine) -> tuple[float, float | None]:
    """Partnership A's block total (0..2) and points difference over both games.

    Used by the SPRT, which always seats the candidate side as partnership
    A, so it needs no bot ids (candidate and baseline may even be the same
    program). Draws and caps count 1/2; a forfeit has a winner.
    """
    total = 0.0
    points = 0.0
    for st in seatings(line):
        side = st.side_a
        assert side is not None, "partnership A sits only at a block of two pairs"
        total += st.points(side)
        points += float(st.game.scores[side]) - float(st.game.scores[1 - side])
    return total, points
