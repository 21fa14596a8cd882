"""An exact solver for the rest of a deal with every hand known (double dummy).

Perfect-information Monte Carlo deals the unseen cards many times and
solves each deal exactly; this module is the exact part. It searches any
trick-play state with the interface of the Monte Carlo bot's ``PlayState``
(``copy``, ``legal``, ``play``, ``done``, ``points``, ``hands``, ``trick``,
``to_act``, ``tricks_done``, ``in_trick``), so every rule profile that state
models (point values, Low to holder or capturer, trumps-only and oregon
play, long hands with under cards, cards out of play) is solved with the
same rules the simulator plays, and no trick rule is copied here.

The objective is the points difference of the remaining tricks, side 0
minus side 1: side 0's seats maximise it, side 1's minimise it. The search
is alpha-beta with a transposition table keyed on the position (hands,
open trick, seat to act, seats in the trick), not on the points taken so
far, so positions reached by different orders of play share one entry;
the table's best move is tried first, then cards by descending power.
Under cards of a long hand follow the simulator's fixed rule (the weakest
pointless trumps), so they are not searched.
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from . import _pysolver

EXACT, LOWER, UPPER = 0, 1, 2


class State(Protocol):
    """What the solver needs of a trick-play state."""

    hands: list[list[int]]
    trick: list[tuple[int, int]]
    to_act: int
    tricks_done: int
    in_trick: tuple[int, ...] | None

    def copy(self) -> Any: ...
    def legal(self) -> list[int]: ...
    def play(self, card: int) -> None: ...
    @property
    def done(self) -> bool: ...
    def points(self) -> tuple[int, int]: ...


@dataclass(frozen=True)
class Solution:
    """``points``: each side's final points under best play by both sides;
    ``best``: the best card for the seat to act (None when the deal is over);
    ``values``: the difference (side 0 minus side 1, final) after each legal card;
    ``nodes``: positions searched."""

    points: tuple[int, int]
    best: int | None
    values: dict[int, int]
    nodes: int


class Solver:
    """Alpha-beta with a transposition table; one table may serve many solves of one deal."""

    def __init__(self) -> None:
        self.table: dict[Any, tuple[int, int, int | None]] = {}
        self.nodes = 0

    @staticmethod
    def key(st: State) -> Any:
        return (tuple(tuple(sorted(h)) for h in st.hands), tuple(st.trick), st.to_act, st.in_trick,
                st.tricks_done == 0)

    def _future(self, st: State) -> int:
        p = st.points()
        return p[0] - p[1]

    def search(self, st: State, alpha: int, beta: int) -> int:
        """The remaining points difference (side 0 minus side 1) from ``st``, within the window."""
        self.nodes += 1
        if st.done:
            return 0
        key = self.key(st)
        hit = self.table.get(key)
        tt_move = None
        if hit is not None:
            flag, value, tt_move = hit
            if flag == EXACT:
                return value
            if flag == LOWER and value >= beta:
                return value
            if flag == UPPER and value <= alpha:
                return value
        moves = st.legal()
        power = getattr(getattr(st, "t", None), "power", None)
        if power is not None:
            moves = sorted(moves, key=lambda c: -power[c])
        if tt_move in moves:
            moves.remove(tt_move)
            moves.insert(0, tt_move)
        maximise = st.to_act % 2 == 0
        a0, b0 = alpha, beta
        best_val = -10**9 if maximise else 10**9
        best_move = moves[0]
        base = self._future(st)
        for card in moves:
            child = st.copy()
            child.play(card)
            v = self._future(child) - base + self.search(child, alpha - (self._future(child) - base),
                                                         beta - (self._future(child) - base))
            if maximise:
                if v > best_val:
                    best_val, best_move = v, card
                alpha = max(alpha, v)
            else:
                if v < best_val:
                    best_val, best_move = v, card
                beta = min(beta, v)
            if alpha >= beta:
                break
        flag = UPPER if best_val <= a0 else LOWER if best_val >= b0 else EXACT
        self.table[key] = (flag, best_val, best_move)
        return best_val

    def value(self, st: State) -> int:
        """The exact remaining difference from ``st`` (full window)."""
        return self.search(st, -10**6, 10**6)

    def solve(self, st: State) -> Solution:
        """Every legal card's exact value, the best card and the points under best play."""
        start = self.nodes
        if st.done:
            return Solution(st.points(), None, {}, 0)
        base = self._future(st)
        now = st.points()
        values: dict[int, int] = {}
        for card in st.legal():
            child = st.copy()
            child.play(card)
            values[card] = now[0] - now[1] + self._future(child) - base + self.value(child)
        pick = max if st.to_act % 2 == 0 else min
        best = pick(values, key=lambda c: values[c])
        # the points themselves: follow one best line to the end
        line = st.copy()
        while not line.done:
            target = self.value(line)
            b = self._future(line)
            for card in line.legal():
                child = line.copy()
                child.play(card)
                if self._future(child) - b + self.value(child) == target:
                    break
            line = child
        return Solution(line.points(), best, values, self.nodes - start)


def solve(st: State) -> Solution:
    """Solve ``st`` with a fresh table."""
    return Solver().solve(st)


def _load_core() -> Any:
    """The compiled core (``_solver.c``), when it is built and built from the source shipped
    beside it; else None (``_pysolver``: the same answers, slower)."""
    try:
        from . import _solver  # type: ignore[attr-defined]
    except ImportError:
        return None
    source = Path(__file__).with_name("_solver.c")
    try:
        sha = hashlib.sha256(source.read_bytes()).hexdigest()
    except OSError:
        sha = None
    if sha != _solver.SOURCE_SHA256:
        print(f"cinch_bot.solver: {_solver.__file__} was not built from {source} (rebuild: pip install the "
              "project again); solving in pure Python", file=sys.stderr)
        return None
    return _solver


_core = _load_core()
_cores: dict[Any, Any] = {}
UNLIMITED = 1 << 62
"""A node limit no search reaches."""


def compiled() -> bool:
    """Whether the solver runs the compiled core (else its pure-Python twin, ``_pysolver``)."""
    return _core is not None


def _mode(st: Any) -> int:
    """The play mode as the core numbers it: follow 0, trumps only 1, oregon 2, monterey 3."""
    if st.in_trick is None:
        return 0
    return 3 if st.ranked else 2 if st.oregon else 1


def core_for(st: Any, python: bool = False) -> Any:
    """The core for ``st``'s trump tables, play mode, tricks a deal and first-lead rule (kept:
    one per combination), compiled unless ``python`` or not built."""
    t = st.t
    python = python or _core is None
    key = (id(t), _mode(st), st.tricks, st.first_trump, python)
    hit = _cores.get(key)
    if hit is not None:
        return hit[1]
    if any(not 0 <= c < 128 for c in t.captured):
        raise ValueError("the solver counts at most 127 points a card")
    power2 = bytes(int(2 * p) & 0xFF if p >= 0 else 0xFF for p in t.power)
    esuit = bytes(e if 0 <= e <= 3 else 4 for e in t.esuit)
    cap = bytes(t.captured)
    make = _pysolver.Core if python else _core.Core
    core = make(power2, esuit, cap, t.trump, key[1], st.tricks, st.first_trump)
    core.set_pointless(sum(1 << c for c in t.pointless))
    _cores[key] = (t, core)  # (the tables kept alive: their id stays theirs)
    return core


def _args(st: Any) -> tuple[Any, ...]:
    h = [sum(1 << c for c in hand) for hand in st.hands]
    return (h[0], h[1], h[2], h[3], tuple(st.trick), st.to_act, st.tricks_done, st.in_trick, st.done)


def solve_cards(st: Any, cards: list[int] | None = None, limit: int = UNLIMITED,
                python: bool = False, guess: int | None = None) -> tuple[list[int] | None, int]:
    """The exact final points difference (side 0 minus side 1) after each of ``cards`` (default:
    every legal card) of the seat to act in the play state ``st`` (``cinch_bot.sim.PlayState``),
    both sides playing best from there, and the positions searched; None instead of the values
    when the search would pass ``limit`` positions. The compiled core and its Python twin
    (``python``) give the same values and count the same positions. ``guess``: of the first
    card's final difference, where the caller has one (it saves probes, not accuracy)."""
    if cards is None:
        cards = st.legal()
    p = st.points()
    base = p[0] - p[1]
    rem, nodes = core_for(st, python).solve(*_args(st), cards, limit, 0 if guess is None else guess - base)
    return (None if rem is None else [base + v for v in rem]), nodes


def solve_value(st: Any, limit: int = UNLIMITED, python: bool = False,
                guess: int | None = None) -> tuple[int | None, int]:
    """The exact final points difference under best play from ``st``, and the positions searched
    (None past ``limit``); ``guess`` as for ``solve_cards``."""
    p = st.points()
    base = p[0] - p[1]
    rem, nodes = core_for(st, python).solve(*_args(st), None, limit, 0 if guess is None else guess - base)
    return (None if rem is None else base + rem), nodes
