"""Live standings: each bot's score rate over the games it has played.

A game gives its winning partnership 1, the losers 0, and 0.5 each when it
is unfinished; a bot partnering itself counts once per game. At a table of
n seats (a line with ``table``) the winning seat gets 1, the others 0, and
each 1/n when nobody won. This is a progress figure, not a rating (the
ratings step does the real fit).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping


@dataclass
class Standing:
    bot: str
    games: int = 0
    points: float = 0.0
    faults: int = 0

    @property
    def rate(self) -> float:
        return self.points / self.games if self.games else 0.0


def seat_ref(seat: Mapping[str, Any]) -> tuple[str, str]:
    """(name, digest) of a results seat; the name is under ``bot`` (or ``name``)."""
    name = seat.get("name", seat.get("bot"))
    return (name if isinstance(name, str) else ""), str(seat.get("digest", ""))


def bot_ids(lines: Iterable[dict[str, Any]]) -> dict[tuple[str, str], str]:
    """The id every (name, digest) in the lines is shown and rated under: the name, or
    ``name@digest12`` when the lines hold that name with several digests (two versions of
    a bot, or an SPRT's candidate copied from its baseline, must never be merged)."""
    digests: dict[str, set[str]] = {}
    for line in lines:
        for g in line.get("games") or []:
            for seat in g.get("seats") or []:
                name, digest = seat_ref(seat)
                digests.setdefault(name, set()).add(digest)
    return {(n, d): n if len(ds) == 1 else f"{n}@{d[:12]}" for n, ds in digests.items() for d in ds}


def standings(lines: Iterable[dict[str, Any]]) -> list[Standing]:
    """Bots (by ``bot_ids``) by score rate, best first, ties by id."""
    lines = list(lines)
    ids = bot_ids(lines)
    table: dict[str, Standing] = {}
    for line in lines:
        for g in line["games"]:
            seats = [ids[seat_ref(s)] for s in g["seats"]]
            if line.get("table") is not None:
                for s, b in enumerate(seats):
                    st = table.setdefault(b, Standing(b))
                    st.games += 1
                    st.points += 1.0 / len(seats) if g["winner"] is None else float(g["winner"] == s)
            for side in () if line.get("table") is not None else (0, 1):
                bots = {seats[side], seats[side + 2]}
                pts = 0.5 if g["winner"] is None else float(g["winner"] == side)
                for b in bots:
                    st = table.setdefault(b, Standing(b))
                    st.games += 1
                    st.points += pts
            for f in g["faults"]:
                seat = f.get("seat")
                bot = seats[seat] if isinstance(seat, int) and 0 <= seat < len(seats) else f["bot"]
                table.setdefault(bot, Standing(bot)).faults += 1
    return sorted(table.values(), key=lambda s: (-s.rate, s.bot))


def side_a_halves(line: dict[str, Any], statistic: str = "score") -> tuple[float, float] | None:
    """Partnership A's result in each game of the block: score (1, 1/2, 0) or points difference.

    None for points when a game carries no scores.
    """
    out: list[float] = []
    for g in line["games"]:
        side = g["side_a"]
        if statistic == "points":
            sc = g.get("scores")
            if not (isinstance(sc, list) and len(sc) == 2):
                return None
            out.append(float(sc[side]) - float(sc[1 - side]))
        else:
            w = g.get("winner")
            out.append(0.5 if w is None else float(w == side))
    return out[0], out[1]


def side_a_sample(line: dict[str, Any]) -> tuple[float, float | None]:
    """Partnership A's block total (0..2) and points difference over both games.

    Used by the SPRT, which always seats the candidate side as partnership
    A, so it needs no bot ids (candidate and baseline may even be the same
    program). Draws and caps count 1/2; a forfeit has a winner. The points
    difference is None unless both games carry two scores.
    """
    total = 0.0
    points: float | None = 0.0
    for g in line["games"]:
        side = g["side_a"]
        w = g.get("winner")
        total += 0.5 if w is None else float(w == side)
        sc = g.get("scores")
        if points is not None and isinstance(sc, list) and len(sc) == 2:
            points += float(sc[side]) - float(sc[1 - side])
        else:
            points = None
    return total, points
