"""Which blocks the ladder plays next: pure functions of the store's blocks, the ranking and the harness's failures.

Two phases (docs/server.md, "Which blocks a batch plays"):

* **the minimum** (:func:`pick_batch`): while a unit (a pairing of two ranked versions, or a table of n)
  has fewer than ``ladder_pairing_blocks`` blocks, the batch takes the missing blocks whose entrants have
  the fewest rated games, so a new version meets everyone before anyone plays again;
* **continuous play** (:func:`pick_continuous`): once every unit has its minimum, each block goes to the
  unit whose next block most reduces the summed variance of the rating differences between versions
  adjacent in the ranking, the intervals that decide the order the leaderboard shows.

The variance model is the fit's information matrix with unit weights: a block of a pairing adds 1 to its
two versions' edge (its two games, each informative about their difference), a block at a table of n adds
``1/(n-1)`` to each of the table's pairs (each entrant's block split among its n-1 rivals); a weak ridge
(``PRIOR``) stands for the fit's prior and keeps the matrix invertible. The covariance of the ratings is
its inverse; a block's reduction follows from rank-one updates (Sherman-Morrison). Everything here is
arithmetic on its arguments in a fixed order: the same store, ranking and failures give the same choice.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from ..results import ResultLine, seatings

#: The ridge on the information matrix: a hundredth of a block against an average version.
PRIOR = 0.01


@dataclass(frozen=True)
class Block:
    """One block of a unit (a pairing's or a table's key): its number, its entrants' idents, its games."""

    pairing: str
    block: int
    idents: tuple[str, ...]
    games: int = 2


#: A block not yet in the store (the name the minimum's policy has always used).
Missing = Block


def pick_batch(missing: Sequence[Block], games: Mapping[str, int], n: int,
               failed: Mapping[tuple[str, int], int] | None = None) -> list[tuple[str, int]]:
    """The blocks to play next: repeatedly the one whose entrants have the fewest rated games.

    Greedy over the batch: a chosen block counts its games for each entrant, so a batch spreads
    over the least-known entrants instead of piling on one. Ties go to the lower block number,
    then the pairing's name: deterministic. A block the harness failed on (``failed``: how often,
    since the server started) goes after every block that failed less, so it cannot starve them.
    """
    failed = failed or {}
    seen = dict(games)
    left = list(missing)
    out: list[tuple[str, int]] = []
    while left and len(out) < n:
        best = min(left, key=lambda m: (failed.get((m.pairing, m.block), 0), sum(seen.get(i, 0) for i in m.idents),
                                        m.block, m.pairing))
        left.remove(best)
        out.append((best.pairing, best.block))
        for i in best.idents:
            seen[i] = seen.get(i, 0) + best.games
    return out


#: one game as ``pairwise`` reads it: each side's bot names (sorted, each once) and the side that won
Contest = tuple[list[list[str]], int | None]


def contests(line: ResultLine) -> list[Contest]:
    """The line's games as ``pairwise`` reads them (what the ladder's index keeps of a stored block)."""
    return [([sorted({b.bot for b in st.bots(side)}) for side in range(len(st.sides))], st.winner)
            for st in seatings(line)]


def pairwise(lines: Sequence[ResultLine]) -> dict[tuple[str, str], float]:
    """Wins of each bot name over each other, from results lines: a game of two pairs gives the winning
    side's bots a win over each bot of the other side, a table's winner one over every other seat; a game
    nobody won gives each such pair half a win each way. A bot partnering itself counts once."""
    return pairwise_of(c for line in lines for c in contests(line))


def pairwise_of(games: Iterable[Contest]) -> dict[tuple[str, str], float]:
    """``pairwise`` of the games given as ``contests``, in their order."""
    wins: dict[tuple[str, str], float] = {}

    def add(a: str, b: str, w: float) -> None:
        if a != b:
            wins[(a, b)] = wins.get((a, b), 0.0) + w

    for groups, winner in games:
        for i, gi in enumerate(groups):
            for j, gj in enumerate(groups):
                if i == j:
                    continue
                w = 0.5 if winner is None else float(winner == i)
                for a in gi:
                    for b in gj:
                        add(a, b, w)
    return wins


def strength_order(names: Sequence[str], wins: Mapping[tuple[str, str], float]) -> list[str]:
    """``names`` best first by a Bradley-Terry fit of the pairwise wins (Hunter's MM iterations, each name
    also given one drawn game against an average one as a prior, so every strength is finite); ties
    (equal to 12 digits) by name. The ratings fit of the site does more (seats, partners, intervals); the
    order of neighbours is all the choice needs, and this one accounts for whom each version met."""
    names = sorted(names)
    p = dict.fromkeys(names, 1.0)
    for _ in range(200):
        new = {}
        for a in names:
            won = 0.5 + sum(wins.get((a, b), 0.0) for b in names)
            den = 1.0 / (p[a] + 1.0) + sum((wins.get((a, b), 0.0) + wins.get((b, a), 0.0)) / (p[a] + p[b])
                                           for b in names if b != a)
            new[a] = won / den
        moved = max((abs(new[a] - p[a]) / p[a] for a in names), default=0.0)
        p = new
        if moved < 1e-10:
            break
    return sorted(names, key=lambda a: (-round(p[a], 12), a))


def _edges(idents: Sequence[str], index: Mapping[str, int]) -> list[tuple[int, int, float]]:
    """The information one block adds: (i, j, weight) for each two of its entrants that are ranked."""
    ids = sorted({index[x] for x in idents if x in index})
    if len(ids) < 2:
        return []
    w = 1.0 / (len(set(idents)) - 1)
    return [(i, j, w) for i, j in combinations(ids, 2)]


def _inverse(a: list[list[float]]) -> list[list[float]]:
    """The inverse of a small symmetric positive definite matrix (Gauss-Jordan; no pivot is needed)."""
    k = len(a)
    m = [row[:] + [1.0 if r == c else 0.0 for c in range(k)] for r, row in enumerate(a)]
    for col in range(k):
        inv = 1.0 / m[col][col]
        m[col] = [x * inv for x in m[col]]
        for r in range(k):
            f = m[r][col]
            if r != col and f:
                pr = m[col]
                m[r] = [x - f * y for x, y in zip(m[r], pr)]
    return [row[k:] for row in m]


def covariance(stored: Sequence[Block], order: Sequence[str]) -> list[list[float]]:
    """The ratings' covariance (up to the games' common variance) of the versions in ``order``."""
    index = {x: i for i, x in enumerate(order)}
    k = len(order)
    a = [[PRIOR if r == c else 0.0 for c in range(k)] for r in range(k)]
    for b in stored:
        for i, j, w in _edges(b.idents, index):
            a[i][i] += w
            a[j][j] += w
            a[i][j] -= w
            a[j][i] -= w
    return _inverse(a)


def adjacent_variance(cov: Sequence[Sequence[float]]) -> list[float]:
    """Var(r_k - r_k+1) for each two versions next to each other in the ranking."""
    return [cov[k][k] + cov[k + 1][k + 1] - 2 * cov[k][k + 1] for k in range(len(cov) - 1)]


def _update(cov: list[list[float]], i: int, j: int, w: float) -> list[list[float]]:
    """The covariance after weight ``w`` more on the edge (i, j): Sherman-Morrison."""
    k = len(cov)
    v = [cov[r][i] - cov[r][j] for r in range(k)]
    d = 1.0 + w * (v[i] - v[j])
    f = w / d
    return [[cov[r][c] - f * v[r] * v[c] for c in range(k)] for r in range(k)]


def reduction(cov: list[list[float]], edges: Sequence[tuple[int, int, float]]) -> float:
    """How much one more block with these edges lowers the summed adjacent variance."""
    k = len(cov)
    if not edges or k < 2:
        return 0.0
    if len(edges) == 1:  # a pairing: the closed form, without a new matrix
        i, j, w = edges[0]
        v = [cov[r][i] - cov[r][j] for r in range(k)]
        d = 1.0 + w * (v[i] - v[j])
        return w * sum((v[t] - v[t + 1]) ** 2 for t in range(k - 1)) / d
    after = cov
    for i, j, w in edges:
        after = _update(after, i, j, w)
    return sum(adjacent_variance(cov)) - sum(adjacent_variance(after))


def pick_continuous(missing: Sequence[Block], stored: Sequence[Block], order: Sequence[str], n: int,
                    failed: Mapping[tuple[str, int], int] | None = None) -> list[tuple[str, int]]:
    """The next ``n`` blocks by expected reduction of the adjacent rating differences' variance.

    ``order`` is the ranking (best first); ``stored`` the blocks in the store between its versions;
    ``missing`` the blocks that may be played (each unit's next ones). Each unit offers its lowest
    missing block (among those the harness failed on least); the unit with the largest reduction
    wins (ties: the unit with fewer stored blocks, then the lower block, then the name), its block
    is counted as played, and the next pick is made on the updated covariance.
    """
    failed = failed or {}
    index = {x: i for i, x in enumerate(order)}
    cov = covariance(stored, order)
    count: dict[str, int] = {}
    for b in stored:
        count[b.pairing] = count.get(b.pairing, 0) + 1
    left: dict[str, list[Block]] = {}
    for b in sorted(missing, key=lambda m: (failed.get((m.pairing, m.block), 0), m.block, m.pairing)):
        left.setdefault(b.pairing, []).append(b)
    out: list[tuple[str, int]] = []
    while len(out) < n and left:
        def rank(key: str) -> tuple[int, float, int, int, str]:
            b = left[key][0]
            gain = reduction(cov, _edges(b.idents, index))
            return (failed.get((b.pairing, b.block), 0), -gain, count.get(key, 0), b.block, key)
        key = min(left, key=rank)
        b = left[key].pop(0)
        if not left[key]:
            del left[key]
        out.append((b.pairing, b.block))
        count[key] = count.get(key, 0) + 1
        for i, j, w in _edges(b.idents, index):
            cov = _update(cov, i, j, w)
    return out
