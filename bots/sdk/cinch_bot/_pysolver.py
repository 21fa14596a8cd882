"""The pure-Python twin of the compiled core (``_solver.c``): the same search, step for step.

Where the C module is not built, ``cinch_bot.solver`` runs this instead. It is a line-by-line
port, not another algorithm: the same move order, the same transposition table (size, hash,
probing, replacement) and the same node count, so a node budget stops both at the same
position and a bot gives the same answers either way (tests/bots/test_solver.py compares them
on many positions). It is about a hundred times slower. Read ``_solver.c`` for the why of each
step; the comments here only mark what the port must keep.
"""

from __future__ import annotations

from typing import Any

NC = 53
INF = 10000
M64 = (1 << 64) - 1
TT_BITS = 14
TT_SIZE = 1 << TT_BITS
TT_PROBE = 8
M_OREGON, M_MONTEREY = 2, 3


def _signed(b: int) -> int:
    return b - 256 if b > 127 else b


def _pop(x: int) -> int:
    return bin(x).count("1")


class _Aborted(Exception):
    """Over the node budget (the C core unwinds with a flag; here an exception)."""


class State:
    __slots__ = ("hand", "tseat", "tcard", "in_trick", "to_act", "tricks_done", "over")

    def __init__(self, hand: list[int], tseat: list[int], tcard: list[int], in_trick: list[int] | None,
                 to_act: int, tricks_done: int, over: bool) -> None:
        self.hand, self.tseat, self.tcard, self.in_trick = hand, tseat, tcard, in_trick
        self.to_act, self.tricks_done, self.over = to_act, tricks_done, over

    def copy(self) -> "State":
        return State(list(self.hand), list(self.tseat), list(self.tcard),
                     None if self.in_trick is None else list(self.in_trick), self.to_act, self.tricks_done, self.over)


class Core:
    """Same constructor and ``solve``/``set_pointless`` as ``_solver.Core``."""

    def __init__(self, power2: bytes, esuit: bytes, cap: bytes, trump: int, mode: int, tricks: int,
                 first_trump: bool) -> None:
        if len(power2) != NC or len(esuit) != NC or len(cap) != NC:
            raise ValueError(f"power2, esuit and cap: {NC} bytes each")
        if not (0 <= trump <= 3 and 0 <= mode <= 3 and 1 <= tricks <= 13):
            raise ValueError("trump 0-3, mode 0-3, tricks 1-13")
        self.power = [_signed(b) for b in power2]
        self.esuit = [_signed(b) for b in esuit]
        self.cap = [_signed(b) for b in cap]
        self.rank = [c % 13 for c in range(NC)]
        self.trump, self.mode, self.tricks, self.first_trump = trump, mode, tricks, bool(first_trump)
        self.oregon = mode in (M_OREGON, M_MONTEREY)
        self.ranked = mode == M_MONTEREY
        self.trumps = sum(1 << c for c in range(NC) if self.power[c] >= 0)
        self.capmask = sum(1 << c for c in range(NC) if self.cap[c])
        self.suitmask = [0] * 5
        for c in range(NC):
            if not 0 <= self.esuit[c] <= 4:
                raise ValueError("esuit 0-4")
            self.suitmask[self.esuit[c]] |= 1 << c
        key = [100 + self.power[c] if self.power[c] >= 0 else self.rank[c] for c in range(NC)]
        self.order = [sorted((c for c in range(NC) if self.esuit[c] == su), key=lambda c: -key[c]) for su in range(5)]
        if any(len(o) > 16 for o in self.order):
            raise ValueError("more than 16 cards of one suit")
        self.pointless = 0
        self.table: list[Any] = []
        self.nodes = self.limit = 0

    def set_pointless(self, mask: int) -> None:
        self.pointless = mask & self.trumps

    # ---- the trick rules ----

    def strength(self, c: int, led: int) -> int:
        p = self.power[c]
        if p >= 0:
            return 100 + p
        return self.rank[c] if self.esuit[c] == led else -1

    def is_done(self, s: State) -> bool:
        return s.over if s.in_trick is not None else s.tricks_done >= self.tricks

    def active(self, s: State, seat: int) -> bool:
        return s.hand[seat] != 0 if self.oregon else (s.hand[seat] & self.trumps) != 0

    def start_trick(self, s: State, leader: int) -> None:
        if not any(self.active(s, x) for x in range(4)):
            s.in_trick, s.over = [], True
            return
        while not self.active(s, leader):
            leader = (leader + 1) % 4
        s.in_trick = [x for x in ((leader + i) % 4 for i in range(4)) if self.active(s, x)]
        s.to_act = leader

    def legal_follow(self, hand: int, led_card: int) -> int:
        if led_card < 0:
            return hand
        led = self.esuit[led_card]
        if led == self.trump:
            return (hand & self.trumps) or hand
        f = hand & self.suitmask[led]
        return f | (hand & self.trumps) if f else hand

    def legal(self, s: State) -> int:
        hand = s.hand[s.to_act]
        lead = s.tcard[0] if s.tcard else -1
        if s.in_trick is None:
            tops = self.legal_follow(hand, lead)
        elif not self.oregon or (lead >= 0 and self.esuit[lead] == self.trump):
            tops = hand & self.trumps
        elif lead < 0:
            t = hand & self.trumps if self.first_trump and s.tricks_done == 0 else 0
            tops = t or hand
        elif self.ranked:
            tops = self.legal_follow(hand, lead)
        else:
            tops = hand
        n = _pop(hand)
        if s.tricks_done == 0 and n > self.tricks:
            need, pool = n - self.tricks, _pop(hand & self.pointless)
            keep = 0
            for c in range(NC):
                if tops >> c & 1 and pool - (self.pointless >> c & 1) >= need:
                    keep |= 1 << c
            if keep:
                tops = keep
        return tops

    def close_trick(self, s: State, winner: int) -> int:
        pts = sum(self.cap[c] for c in s.tcard)
        s.tseat, s.tcard = [], []
        s.tricks_done += 1
        s.to_act = winner
        if s.in_trick is not None:
            self.start_trick(s, winner)
        return pts if winner % 2 == 0 else -pts

    def next_in_trick(self, s: State) -> int:
        trump_led = self.esuit[s.tcard[0]] == self.trump
        while True:
            assert s.in_trick is not None
            n = len(s.tcard)
            if n == len(s.in_trick):
                win = 0
                if self.ranked:
                    led, best = self.esuit[s.tcard[0]], -1000
                    for i in range(n):
                        st = self.strength(s.tcard[i], led)
                        if st > best:
                            best, win = st, i
                    return self.close_trick(s, s.tseat[win])
                best = -1000
                for i in range(n):
                    p = self.power[s.tcard[i]]
                    if p > best:
                        best, win = p, i
                return self.close_trick(s, s.tseat[win] if best >= 0 else s.tseat[0])
            nxt = s.in_trick[n]
            if self.oregon and trump_led and not s.hand[nxt] & self.trumps:
                s.hand[nxt] = 0
                s.in_trick = [x for x in s.in_trick if x != nxt]
                continue
            s.to_act = nxt
            return 0

    def play(self, s: State, card: int) -> int:
        seat = s.to_act
        hand = s.hand[seat] & ~(1 << card)
        left = _pop(hand)
        if s.tricks_done == 0 and left >= self.tricks:
            n = left - self.tricks + 1
            pool = hand & self.pointless
            if _pop(pool) < n:
                pool = hand & self.trumps
            for c in reversed(self.order[self.trump]):  # the n weakest of the pool
                if n <= 0:
                    break
                if pool >> c & 1:
                    hand &= ~(1 << c)
                    n -= 1
        s.hand[seat] = hand
        s.tseat.append(seat)
        s.tcard.append(card)
        if s.in_trick is not None:
            return self.next_in_trick(s)
        if len(s.tcard) < 4:
            s.to_act = (seat + 1) % 4
            return 0
        led, best, win = self.esuit[s.tcard[0]], -1000, 0
        for i in range(4):
            st = self.strength(s.tcard[i], led)
            if st > best:
                best, win = st, i
        return self.close_trick(s, s.tseat[win])

    # ---- search ----

    def moves(self, s: State, lm: int, rep_of: dict[int, int] | None = None) -> list[int]:
        hand = s.hand[s.to_act]
        longhand = s.tricks_done == 0 and _pop(hand) > self.tricks
        live = s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]
        for c in s.tcard:
            live |= 1 << c
        out: list[int] = []
        for su in [self.trump] + [x for x in range(4) if x != self.trump]:
            prev = -1
            mine = lm & self.suitmask[su]
            if not mine:
                continue
            for c in self.order[su]:
                if not mine:
                    break
                if not live >> c & 1:
                    continue
                mine &= ~(1 << c)
                free = self.cap[c] == 0
                if lm >> c & 1:
                    if prev >= 0 and free and not longhand:
                        if rep_of is not None:
                            rep_of[c] = prev
                    else:
                        out.append(c)
                        if rep_of is not None:
                            rep_of[c] = c
                        prev = c if free else -1
                else:
                    prev = -1
        return out

    def remaining_points(self, s: State) -> int:
        m = (s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]) & self.capmask
        pts = sum(self.cap[c] for c in range(NC) if m >> c & 1)
        return pts + sum(self.cap[c] for c in s.tcard)

    def tt_key(self, s: State) -> tuple[int, ...]:
        k = [0, 0, 0, 0, 0]
        live = s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]
        k5 = live & self.capmask
        for su in range(4):
            idx = su * 16
            if not live & self.suitmask[su]:
                continue
            for c in self.order[su]:
                b = 1 << c
                if not live & b:
                    continue
                pos = 1 << idx
                idx += 1
                owner = 0 if s.hand[0] & b else 1 if s.hand[1] & b else 2 if s.hand[2] & b else 3
                k[owner] |= pos
                if self.cap[c]:
                    k[4] |= pos
        return (k[0], k[1], k[2], k[3], k[4], k5)

    @staticmethod
    def tt_hash(k: tuple[int, ...], s: State) -> int:
        h = (k[0] * 0x9E3779B97F4A7C15) & M64
        h ^= (((k[1] + 0x632BE59BD9B4E019) & M64) * 0xBF58476D1CE4E5B9) & M64
        h ^= (((k[2] + 0x8CB92BA72F3D8DD7) & M64) * 0x94D049BB133111EB) & M64
        h ^= (((k[3] + 0x2545F4914F6CDD1D) & M64) * 0xD6E8FEB86659FD93) & M64
        h ^= ((k[4] ^ ((k[5] * 0xFF51AFD7ED558CCD) & M64)) * 0xC4CEB9FE1A85EC53) & M64
        h ^= ((s.to_act * 16 + s.tricks_done) * 0xA0761D6478BD642F) & M64
        h ^= h >> 29
        return (h >> 32) & 0xFFFFFFFF

    def order_moves(self, s: State, mv: list[int]) -> list[int]:
        side = s.to_act % 2
        led = self.esuit[s.tcard[0]] if s.tcard else -1
        by_power = s.in_trick is not None and not self.ranked
        win_seat, win_str, pts = -1, -1000, 0
        for seat, card in zip(s.tseat, s.tcard):
            st = self.power[card] if by_power else self.strength(card, led)
            if st > win_str:
                win_str, win_seat = st, seat
            pts += self.cap[card]
        last = len(s.tcard) == len(s.in_trick) - 1 if s.in_trick is not None else len(s.tcard) == 3
        scores = []
        for c in mv:
            cap = self.cap[c]
            st = self.power[c] if by_power else self.strength(c, self.esuit[c] if led < 0 else led)
            if not s.tcard:
                sc = st - 8 * cap
            elif win_seat % 2 == side:
                sc = (300 if last else 200) + 10 * cap - st
            elif st > win_str:
                sc = 400 + 10 * cap - st if last else 300 + pts - st
            else:
                sc = -10 * cap - st
            scores.append(sc)
        order = sorted(range(len(mv)), key=lambda i: -scores[i])  # stable, as the C insertion sort
        return [mv[i] for i in order]

    def search(self, s: State, alpha: int, beta: int) -> int:
        self.nodes += 1
        if self.nodes > self.limit:
            raise _Aborted
        if self.is_done(s):
            return 0
        rem = self.remaining_points(s)
        if rem == 0:
            return 0
        if rem <= alpha:
            return rem
        if -rem >= beta:
            return -rem
        if s.tricks_done > 0:
            hands = s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]
            side, sure = -1, 0
            for c in self.order[self.trump]:
                b = 1 << c
                own = -1
                if hands & b:
                    own = 0 if s.hand[0] & b else 1 if s.hand[1] & b else 2 if s.hand[2] & b else 3
                else:
                    for seat, card in zip(s.tseat, s.tcard):
                        if card == c:
                            own = seat
                    if own < 0:
                        continue
                if side < 0:
                    side = own % 2
                if own % 2 != side:
                    break
                sure += self.cap[c]
            if sure:
                lo, hi = 2 * sure - rem, rem - 2 * sure
                if side == 0:
                    if lo >= beta:
                        return lo
                elif hi <= alpha:
                    return hi
        slot = -1
        tt_move = -1
        key: tuple[int, ...] = ()
        table = self.table
        if not s.tcard:
            key = self.tt_key(s)
            h = self.tt_hash(key, s)
            for i in range(TT_PROBE):
                j = (h + i) & (TT_SIZE - 1)
                x = table[j]
                if x is None:
                    if slot < 0:
                        slot = j
                    break
                if x[0] == key and x[1] == s.to_act and x[2] == s.tricks_done:
                    lb, ub = x[3], x[4]
                    if lb >= beta:
                        return lb
                    if ub <= alpha:
                        return ub
                    if lb == ub:
                        return lb
                    alpha = max(alpha, lb)
                    beta = min(beta, ub)
                    tt_move = x[5]
                    slot = j
                    break
            if slot < 0:
                slot = h & (TT_SIZE - 1)
        mv = self.moves(s, self.legal(s))
        if not mv:
            return 0
        mv = self.order_moves(s, mv)
        if tt_move in mv:
            mv.remove(tt_move)
            mv.insert(0, tt_move)
        maximise = s.to_act % 2 == 0
        a0, b0 = alpha, beta
        best = -INF if maximise else INF
        best_move = mv[0]
        for card in mv:
            child = s.copy()
            d = self.play(child, card)
            v = d + self.search(child, alpha - d, beta - d)
            if maximise:
                if v > best:
                    best, best_move = v, card
                alpha = max(alpha, v)
            else:
                if v < best:
                    best, best_move = v, card
                beta = min(beta, v)
            if alpha >= beta:
                break
        if slot >= 0:
            x = table[slot]
            if x is None or not (x[0] == key and x[1] == s.to_act and x[2] == s.tricks_done):
                lb, ub = -INF, INF
            else:
                lb, ub = x[3], x[4]
            if best <= a0:
                ub = min(ub, best)
            elif best >= b0:
                lb = max(lb, best)
            else:
                lb = ub = best
            table[slot] = (key, s.to_act, s.tricks_done, lb, ub, best_move)
        return best

    def exact(self, s: State, guess: int) -> int:
        rem = 0 if self.is_done(s) else self.remaining_points(s)
        lo, hi = -rem, rem
        g = min(max(guess, lo), hi)
        while lo < hi:
            beta = g + 1 if g == lo else g
            v = self.search(s, beta - 1, beta)
            if v < beta:
                hi = v
            else:
                lo = v
            g = v
        return lo

    def solve(self, h0: int, h1: int, h2: int, h3: int, trick: tuple[tuple[int, int], ...], to_act: int,
              tricks_done: int, in_trick: tuple[int, ...] | None, over: bool, cards: Any,
              limit: int, guess: int = 0) -> tuple[Any, int]:
        """As ``_solver.Core.solve``: (the value or each card's value, or None past ``limit``; nodes)."""
        hands = [h0, h1, h2, h3]
        if any(h < 0 or h >> NC for h in hands):
            raise ValueError("a hand holds a card outside 0-52")
        if len(trick) > 4 or any(not (0 <= x <= 3 and 0 <= c < NC) for x, c in trick):
            raise ValueError("trick: at most 4 (seat, card) pairs, seat 0-3, card 0-52")
        if not (0 <= to_act <= 3 and 0 <= tricks_done <= 13):
            raise ValueError("to_act 0-3, tricks_done 0-13")
        if not -INF <= guess <= INF:
            raise ValueError("guess: a points difference")
        s = State(hands, [x for x, _ in trick], [c for _, c in trick],
                  None if in_trick is None else list(in_trick), to_act, tricks_done, bool(over))
        self.table = [None] * TT_SIZE
        self.nodes, self.limit = 0, limit
        try:
            if cards is None:
                return self.exact(s, guess), self.nodes
            lm = 0 if self.is_done(s) else self.legal(s)
            rep_of: dict[int, int] = {}
            if lm:
                self.moves(s, lm, rep_of)
            have: dict[int, int] = {}
            out = []
            for c in cards:
                if not (0 <= c < NC and lm >> c & 1):
                    raise ValueError(f"card {c} is not legal here")
                rc = rep_of.get(c, c)
                if rc not in have:
                    child = s.copy()
                    d = self.play(child, rc)
                    have[rc] = d + self.exact(child, guess - d)
                    guess = have[rc]
                out.append(have[rc])
            return out, self.nodes
        except _Aborted:
            return None, self.nodes
