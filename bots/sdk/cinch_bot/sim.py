"""A lightweight trick-play simulator and a determinizing sampler for search.

The engine's ``Deal`` replays a whole deal from a deck; a search bot only
needs the trick-play remainder of one, thousands of times per decision, so
this module keeps just that state (hands, open trick, captured points) on
integer cards with the SDK's ``Tables``. A test cross-checks its results
against the engine.
"""

from __future__ import annotations

import random
from typing import Any

from .cards import Tables, card_index, param
from .strategy import Facts, choose_play, choose_under


class PlayState:
    """The trick-play part of a deal with every hand known (a determinization).

    ``mode`` is the profile's ``play``: ``follow`` (rules 6: four cards a
    trick), ``trumps_only`` (pidro: only trumps are played, a seat out of
    trumps sits out), ``oregon`` (a plain lead allows any card and only a
    trump beats it, a seat that cannot follow a trump lead throws its hand
    in and sits out) or ``monterey`` (as oregon, but plain leads are
    followed and ranked as in rules 6). Outside ``follow``, ``in_trick``
    holds the seats of the current trick, in order; ``first_trump``: the
    first lead is a trump when the leader has one.
    """

    __slots__ = ("t", "hands", "trick", "to_act", "tricks_done", "won", "low_side", "remaining_trumps", "bidder_side",
                 "in_trick", "over", "oregon", "ranked", "first_trump", "tricks")

    def __init__(
        self,
        t: Tables,
        hands: list[list[int]],
        trick: list[tuple[int, int]],
        to_act: int,
        tricks_done: int,
        won: list[int],
        low_side: int,
        bidder_side: int,
        mode: str = "follow",
        tricks: int = 6,
        first_trump: bool = False,
    ) -> None:
        self.t = t
        self.tricks = tricks  # tricks a deal (the profile's hand_size); a longer hand plays extras under its first card
        self.hands = hands
        self.trick = trick
        self.to_act = to_act
        self.tricks_done = tricks_done
        self.won = won  # points per side so far (captured, or credited from cards out of play), Low excluded
        self.low_side = low_side  # side that held Low when play began (it keeps that point)
        self.bidder_side = bidder_side
        self.remaining_trumps = {c for h in hands for c in h if t.power[c] >= 0}
        self.in_trick: tuple[int, ...] | None = None
        self.over = False
        self.oregon = mode in ("oregon", "monterey")  # every seat holding a card plays; no trump for a trump lead: out
        self.ranked = mode == "monterey"  # plain leads followed and ranked as in rules 6
        self.first_trump = first_trump
        if mode != "follow":
            if trick:
                lead, in_it = trick[0][0], {x for x, _ in trick}
                self.in_trick = tuple(x for x in ((lead + i) % 4 for i in range(4)) if x in in_it or self._active(x))
            else:
                self._start_trick(to_act)

    def copy(self) -> "PlayState":
        s = PlayState.__new__(PlayState)
        s.t = self.t
        s.hands = [list(h) for h in self.hands]
        s.trick = list(self.trick)
        s.to_act = self.to_act
        s.tricks_done = self.tricks_done
        s.won = list(self.won)
        s.low_side = self.low_side
        s.bidder_side = self.bidder_side
        s.remaining_trumps = set(self.remaining_trumps)
        s.in_trick = self.in_trick
        s.over = self.over
        s.oregon = self.oregon
        s.ranked = self.ranked
        s.first_trump = self.first_trump
        s.tricks = self.tricks
        return s

    @property
    def done(self) -> bool:
        return self.over if self.in_trick is not None else self.tricks_done >= self.tricks

    def _active(self, seat: int) -> bool:
        """Whether ``seat`` plays the next trick: it holds a card (oregon) or a trump (trumps only)."""
        hand = self.hands[seat]
        if self.oregon:
            return bool(hand)
        power = self.t.power
        return any(power[c] >= 0 for c in hand)

    def _start_trick(self, leader: int) -> None:
        """The seats still in play the next trick, led by ``leader`` or, if it is
        out, the next of them clockwise; none left ends the deal."""
        active = [s for s in range(4) if self._active(s)]
        if not active:
            self.in_trick, self.over = (), True
            return
        while leader not in active:
            leader = (leader + 1) % 4
        self.in_trick = tuple(s for s in ((leader + i) % 4 for i in range(4)) if s in active)
        self.to_act = leader

    def legal(self) -> list[int]:
        """Legal top cards for the seat to act (long hands: tops that leave enough under cards)."""
        t = self.t
        hand = self.hands[self.to_act]
        trick = self.trick
        if self.in_trick is None:
            tops = t.legal_follow(hand, trick[0][1] if trick else None)
        elif not self.oregon or (trick and t.esuit[trick[0][1]] == t.trump):
            tops = [c for c in hand if t.power[c] >= 0]
        elif not trick:  # any card leads (the first lead a trump where the profile says so)
            first = self.first_trump and self.tricks_done == 0
            tops = ([c for c in hand if t.power[c] >= 0] if first else []) or list(hand)
        elif self.ranked:  # follow the plain suit or trump, else any card
            tops = t.legal_follow(hand, trick[0][1])
        else:  # oregon: any card follows a plain lead
            tops = list(hand)
        if self.tricks_done == 0 and len(hand) > self.tricks:
            need = len(hand) - self.tricks
            pool = sum(1 for c in hand if c in t.pointless)
            # (a sampled long hand may hold too few pointless trumps for the rule: keep every top then)
            tops = [c for c in tops if pool - (c in t.pointless) >= need] or tops
        return tops

    def play(self, card: int) -> None:
        """Play ``card`` for the seat to act; a long hand adds its weakest pointless trumps under it."""
        t = self.t
        seat = self.to_act
        hand = self.hands[seat]
        hand.remove(card)
        gone = [card]
        if self.tricks_done == 0 and len(hand) >= self.tricks:
            n = len(hand) - self.tricks + 1
            pool = [c for c in hand if c in t.pointless]
            if len(pool) < n:  # too few pointless trumps (the off-jack's profiles): any trumps go under (rules 6.5)
                pool = [c for c in hand if t.is_trump[c]]
            under = choose_under(card, pool, n, t)
            for c in under:
                hand.remove(c)
            gone.extend(under)
        for c in gone:
            self.remaining_trumps.discard(c)
        trick = self.trick
        trick.append((seat, card))
        if self.in_trick is not None:
            self._next_in_trick()
            return
        if len(trick) < 4:
            self.to_act = (seat + 1) % 4
            return
        led = t.esuit[trick[0][1]]
        win_seat, best = trick[0][0], -2
        for s, c in trick:
            st = t.strength(c, led)
            if st > best:
                win_seat, best = s, st
        self._close(win_seat)

    def _close(self, winner: int) -> None:
        """The trick's points (under cards are pointless trumps) go to ``winner``'s side; it leads next."""
        cap = self.t.captured
        self.won[winner % 2] += sum(cap[c] for _, c in self.trick)
        self.trick = []
        self.tricks_done += 1
        self.to_act = winner
        if self.in_trick is not None:
            self._start_trick(winner)

    def _next_in_trick(self) -> None:
        """The next seat of a trick with seats sitting out, or the trick's end: the
        highest trump wins, a trick without one goes to its leader."""
        t = self.t
        power = t.power
        trick = self.trick
        trump_led = t.esuit[trick[0][1]] == t.trump
        while True:
            in_trick = self.in_trick
            assert in_trick is not None
            n = len(trick)
            if n == len(in_trick):
                if self.ranked:
                    led = t.esuit[trick[0][1]]
                    self._close(max(trick, key=lambda p: t.strength(p[1], led))[0])
                else:
                    best = max(trick, key=lambda p: power[p[1]])
                    self._close(best[0] if power[best[1]] >= 0 else trick[0][0])
                return
            nxt = in_trick[n]
            if self.oregon and trump_led and not any(power[c] >= 0 for c in self.hands[nxt]):
                self.hands[nxt] = []  # cannot follow the trump lead: the hand goes, the seat sits out
                self.in_trick = tuple(x for x in in_trick if x != nxt)
                continue
            self.to_act = nxt
            return

    def points(self) -> tuple[int, int]:
        """Final points per side; where the profile leaves Low with its holder, credited to that side."""
        p = list(self.won)
        if self.t.low_to_holder and self.low_side >= 0:
            p[self.low_side] += self.t.points[self.t.low]
        return p[0], p[1]

    def policy_move(self) -> int:
        """The greedy policy's choice for the seat to act (full information)."""
        seat = self.to_act
        hand = self.hands[seat]
        legal = self.legal()
        if len(legal) == 1:
            return legal[0]
        outside = [c for c in self.remaining_trumps if c not in hand]
        return choose_play(hand, legal, self.trick, seat, self.t, outside, self.bidder_side)

    def rollout(self) -> tuple[int, int]:
        while not self.done:
            self.play(self.policy_move())
        return self.points()


UNDEALT = 4
"""The sampler's place for cards no seat was dealt (sixty-three-joker's one card)."""


class Sampler:
    """Deals the cards a seat cannot see to the other hands, consistent with its view.

    Known constraints: every trump not in my hand and not played is in some
    other hand; seat s kept ``9 - discard_count`` trumps, so it still holds
    at least that many minus the trumps it has played; a seat that failed
    to follow a suit is void in it (in trump too, if it did not follow a
    trump lead). Non-trumps in other hands came from the fill, so any unseen
    non-trump may be there; the rest of the unseen cards are in the pile or
    stock. The dealer's own rob stock leftovers are out of play. A sample
    honours every void whenever some deal can (cards move between seats by
    augmenting paths when a greedy choice would strand a seat).
    """

    def __init__(self, view: dict[str, Any], facts: Facts) -> None:
        f = facts
        t = f.t
        self.f = f
        me = f.seat
        seen = set(f.hand) | f.played | f.out
        if view.get("rob_stock"):
            seen |= {card_index(c) for c in view["rob_stock"]}
        # Trumps surely in the other hands; where another seat may have put trumps down face
        # down (lipton's maker after the kitty, unshown chosen discards) they only may be.
        discard = param(f.profile, "discard")
        hidden = discard == "keep" or (discard == "choose" and not param(f.profile, "discards_face_up"))
        hidden = hidden and any(n for s, n in enumerate(view["discard_counts"]) if s != me)
        self.trumps = [] if hidden else list(f.outside_trumps)
        # Cards that may be in a hand: unseen plain cards, laid-away trumps a reshuffle may
        # have brought back, and trumps that may have been put down unseen.
        self.plains = [c for c in f.deck if c not in seen and (t.power[c] < 0 or c in f.maybe or hidden)]
        self.credit_to_bidders = bool(param(f.profile, "defender_discards_to_bidders"))
        kept_trumps = param(f.profile, "discard") == "non_trumps"  # every kept card is a trump
        rob = param(f.profile, "rob")
        # a long hand is all trumps: the fill and the rob stop at six (california's dealer who takes
        # every trump of the stock takes nothing else)
        long_all_trumps = kept_trumps and rob in ("take_trumps", "choose")
        hand_size = self.hand_size = int(param(f.profile, "hand_size"))
        dealt = sum(param(f.profile, "packets"))  # cards each seat was dealt (a second deal and a kitty are received)
        self.others = [s for s in range(4) if s != me]
        dc, rc = view["discard_counts"], view["receive_counts"]
        self.mode = str(param(f.profile, "play"))
        self.trumps_only = self.mode == "trumps_only"
        shown = view.get("shown") or [[]] * 4
        face_up = param(f.profile, "discard") == "choose" and bool(param(f.profile, "discards_face_up"))
        in_trick = {x for x, _ in f.trick}
        gone: set[int] = set()  # seats that sat out: missing from a finished trick, or passed over in this one
        if self.mode != "follow":
            for tr in view.get("tricks", []):
                seats = {p["seat"] for p in tr["plays"]}
                if tr.get("winner") is not None:
                    gone |= set(range(4)) - seats
            if f.trick:
                lead = f.trick[0][0]
                gone |= {x for x in ((lead + i) % 4 for i in range((me - lead) % 4)) if x not in in_trick}
        self.size = {}
        self.must = {}
        for s in self.others:
            played = f.played_by[s]
            self.size[s] = dealt - dc[s] + rc[s] - len(played)
            kept = dealt - dc[s] if kept_trumps else 0
            if long_all_trumps and dealt - dc[s] + rc[s] > hand_size:
                kept = dealt - dc[s] + rc[s]  # a long hand: the fill and the rob stop at six, so all of it is trumps
            self.must[s] = min(self.size[s], max(0, kept - sum(1 for c in played if t.power[c] >= 0)))
            if self.trumps_only:
                # A seat out of trumps lays its (plain) cards face up after its discards and
                # sits out; a seat still holding cards that has not played to this trick holds a trump.
                after = shown[s][dc[s]:] if face_up else shown[s]
                self.size[s] -= sum(1 for c in after if t.power[card_index(c)] < 0)
                if self.size[s] > 0 and s not in in_trick:
                    self.must[s] = max(self.must[s], 1)
            if s in gone:
                self.size[s] = self.must[s] = 0
        self.trump_ok = [s for s in self.others if f.trump not in f.voids[s]]
        # Cards no seat was dealt (sixty-three with the joker: one, face down, no rob), or that
        # california's dealer left in the stock (seen by the dealer alone): sampled into a place
        # of their own, which may hold a trump and shows no void.
        passes = dealt + int(param(f.profile, "second_deal")) + int(param(f.profile, "widow") or 0)
        left = len(f.deck) - 4 * passes - int(param(f.profile, "kitty"))
        if rob == "none":
            self.undealt = left
        elif rob == "choose" and me != view.get("dealer") and view.get("phase") in ("play", "done"):
            self.undealt = max(0, left - sum(rc))  # (a reshuffle takes the whole stock: nothing left)
        else:
            self.undealt = 0

    def sample(self, rng: random.Random) -> list[list[int]]:
        f = self.f
        hands: list[list[int]] = [[], [], [], [], []]  # (place 4: cards nobody was dealt)
        hands[f.seat] = list(f.hand)
        others, size, must, trump_ok = self.others, self.size, self.must, self.trump_ok
        voids = f.voids
        if self.undealt:  # one more place, with room for the undealt cards and no voids
            others, trump_ok = [*others, UNDEALT], [*trump_ok, UNDEALT]
            size, must = {**size, UNDEALT: self.undealt}, {**must, UNDEALT: 0}
            voids = [*voids, set()]
        trumps = list(self.trumps)
        rng.shuffle(trumps)
        pos = 0
        for s in others:
            m = must[s]
            hands[s].extend(trumps[pos : pos + m])
            pos += m
        rest = trumps[pos:]
        holder: dict[int, int] = {}  # card -> the seat it was sampled into (the trumps beyond ``must`` and plains)
        if rest:
            slots = [s for s in trump_ok for _ in range(size[s] - must[s])]
            if len(slots) < len(rest):  # inconsistent inference: relax the trump voids
                slots = [s for s in others for _ in range(size[s] - must[s])]
            rng.shuffle(slots)
            for c, s in zip(rest, slots):
                holder[c] = s
        plains = list(self.plains)
        rng.shuffle(plains)
        movable = rest + plains
        esuit = f.t.esuit

        def augment(s: int, tried: set[int]) -> bool:
            """Kuhn's augmenting path: a card seat ``s`` may hold, taken from a seat that can
            hold another instead, so a greedy choice never breaks a void a deal could keep."""
            for c in movable:
                if c in tried or esuit[c] in voids[s]:
                    continue
                tried.add(c)
                h = holder.get(c)
                if h is None or augment(h, tried):
                    holder[c] = s
                    return True
            return False

        # Most constrained seat first, each taking the next unused card it may hold.
        for s in sorted(others, key=lambda s: -len(voids[s])):
            # (what it holds already: trumps beyond ``must``, and cards an augmenting path gave it)
            need = size[s] - len(hands[s]) - sum(1 for h in holder.values() if h == s)
            for c in plains:
                if need <= 0:
                    break
                if c not in holder and esuit[c] not in voids[s]:
                    holder[c] = s
                    need -= 1
            while need > 0 and augment(s, set()):
                need -= 1
            for c in plains:  # no deal honours every void the view implies: relax them
                if need <= 0:
                    break
                if c not in holder:
                    holder[c] = s
                    need -= 1
        for c in movable:
            if c in holder:
                hands[holder[c]].append(c)
        return hands[:4]

    def state(self, hands: list[list[int]], view: dict[str, Any]) -> PlayState:
        """The determinization ``hands`` as a play state: points won so far, Low's
        holder, and the points of cards out of play that count for the bidders."""
        f = self.f
        t = f.t
        low = t.low
        low_side = -1
        for s in range(4):
            if low in f.played_by[s] or low in hands[s]:
                low_side = s % 2
        won = list(f.won_points)
        if self.credit_to_bidders:
            held = {c for h in hands for c in h} | f.played
            by: dict[int, int] = {}
            dealer = int(view["dealer"])
            for s in ((dealer + 1 + i) % 4 for i in range(4)):  # the engine's attribution: the dealer last (12.1)
                for c in f.laid[s]:
                    by[c] = s
            b = f.bidder_side
            won[b] += sum(t.points[c] for c, s in by.items() if s % 2 != b and c not in held)
        return PlayState(t, hands, list(f.trick), f.seat, f.tricks_done, won, low_side, f.bidder_side, self.mode,
                         self.hand_size, bool(param(f.profile, "first_lead_trump")))
