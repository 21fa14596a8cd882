"""Reusable Cinch know-how: hand evaluation and a greedy card-play policy.

These are plain functions on integer cards (see ``cards.Tables``) so that a
search bot can call them thousands of times per decision in rollouts, and a
simple bot can call them once on its real view. Nothing here is random.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .bot import Bot
from .cards import OFF_JACK_POWER, SUITS, TABLES, Tables, card_index, card_name, deck_of, param
from .legal import bid_action, other_legal

# Trump power values (see Tables.power): A=13 K=12 Q=11 J=10 T=9 5=4 left=3 2=0.
_A, _K, _Q, _J, _T, _R5, _L5 = 13, 12, 11, 10, 9, 4, 3


def estimate_points(hand: Iterable[int], trump: int, dealer: bool = False, tables: Sequence[Tables] = TABLES) -> float:
    """Rough expected points for the maker's side if ``trump`` is named.

    Held point cards count by how safe they are (a pedro is safer with high
    trumps to cover it), each at the profile's value (``tables``, from
    ``tables_for``); the side also expects a share of the points it does not
    hold that grows with trump control. Tuned by self-play on pagat62.
    """
    t = tables[trump]
    cards = list(hand)
    off = 1 if t.joker else 0  # with the joker every other trump sits one higher; the joker counts as -1 here
    value = {t.power[c] - off: t.points[c] for c in cards if t.power[c] >= 0}
    powers = sorted(value, reverse=True)
    n = len(powers)
    high = sum(1 for p in powers if p >= _J)
    est = 0.0
    if _A in value:
        est += value[_A]
    if _J in value:
        est += value[_J] * (0.75 if (_A in value or _K in value) else 0.55)
    if _T in value:
        est += value[_T] * (0.55 + 0.05 * high)
    if OFF_JACK_POWER in value:  # the off-jack, a trump where the profile says so
        est += value[OFF_JACK_POWER] * (0.65 if (_A in value or _K in value) else 0.45)
    for p in powers:  # point trumps of other profiles (sixty-three's king, nine, three or joker; lipton's king)
        if p not in (_A, _J, _T, _R5, _L5, 0, OFF_JACK_POWER) and value[p]:
            cover = sum(1 for q in powers if q > p)
            est += value[p] * min(0.95, 0.4 + 0.15 * cover + (0.2 if p >= _K else 0.0))
    for pedro in (_R5, _L5):
        if pedro in value:
            cover = sum(1 for p in powers if p > pedro)
            est += value[pedro] * min(0.95, 0.45 + 0.12 * cover)
    if 0 in value:  # Low: certain where it stays with its holder, else as exposed as a small trump
        est += value[0] * (1.0 if t.low_to_holder else 0.3 + 0.1 * high)
    unheld = t.total - sum(t.points[c] for c in cards)
    share = min(0.6, 0.22 + 0.07 * high + 0.03 * n + (0.05 if dealer else 0.0))
    return est + unheld * share + (0.6 if dealer else 0.0) * (t.total / 14)


def best_trump(hand: Iterable[int], dealer: bool = False, tables: Sequence[Tables] = TABLES,
               suits: Iterable[str] | None = None) -> tuple[int, float]:
    """The suit with the highest estimate among ``suits`` (default all four), and that estimate."""
    cards = list(hand)
    allowed = [SUITS.index(x) for x in suits] if suits is not None else range(4)
    scored = [(estimate_points(cards, s, dealer, tables), s) for s in allowed]
    est, suit = max(scored)
    return suit, est


def choose_bid(view: dict[str, Any], legal: dict[str, Any], margin: float = 0.5,
               tables: Sequence[Tables] = TABLES, estimate: float | None = None) -> dict[str, Any]:
    """Bid the cheapest legal amount the hand supports, else pass.

    The bid promises points, so bidding higher than needed only adds risk;
    overcalling the partner is done only with a clearly better hand.
    ``estimate``: the points the hand's side expects as maker, where the caller
    has a better figure than ``estimate_points`` (a search bot's); bids that
    name their suit always use ``estimate_points``, suit by suit.
    """
    if view.get("phase") == "dark" and legal.get("pass"):
        return {"type": "pass"}  # a blind bid of every point is almost always set: never worth its value
    hand = [card_index(c) for c in view["hand"]]
    dealer = view["seat"] == view["dealer"]
    partner_bid = max((b["amount"] for b in view.get("bids", []) if b["seat"] == view["partner"]), default=0)
    extra = margin + (1.5 if partner_bid else 0.0)
    if legal.get("suited"):  # each bid names its trump: the suit whose cheapest bid the hand best covers
        cheapest: dict[str, int] = {}
        for o in legal["suited"]:
            cheapest[o["suit"]] = min(o["amount"], cheapest.get(o["suit"], o["amount"]))
        spare, suit = max((estimate_points(hand, SUITS.index(x), dealer, tables) - a, x) for x, a in cheapest.items())
        if not legal.get("pass") or spare >= extra:
            return bid_action(legal, cheapest[suit], suit)
        return {"type": "pass"}
    est = best_trump(hand, dealer, tables)[1] if estimate is None else estimate
    bids = legal.get("bids", [])
    if not legal.get("pass"):
        return {"type": "bid", "amount": bids[0]}
    if not bids:
        return {"type": "pass"}
    if est >= bids[0] + extra:
        return {"type": "bid", "amount": bids[0]}
    return {"type": "pass"}


def keep_key(c: int, t: Tables) -> tuple[int, int, int]:
    """How much a card is worth keeping once trump is named, higher first:
    point trumps, then other trumps by power, then plain cards by rank."""
    if t.power[c] >= 0:
        return (2 if t.points[c] else 1, t.points[c], t.power[c])
    return (0, 0, c % 13)


def choose_rob(legal: dict[str, Any], t: Tables | None = None) -> list[str]:
    """The ``take`` best cards of ``from``: trumps first where the rob offers
    them (a free rob), then plain cards that can still win a trick (aces, kings).

    A trump the dealer leaves goes out of play (and may count for the
    bidders), so it is always worth more than a plain card.
    """
    cards = [card_index(c) for c in legal["from"]]
    cards.sort(key=(lambda c: keep_key(c, t)) if t is not None else (lambda c: c % 13), reverse=True)
    return [card_name(c) for c in cards[: int(legal["take"])]]


def choose_discard(legal: dict[str, Any], t: Tables, keep_plain: int = 12) -> list[str]:
    """Discard ``least`` to ``most`` cards of ``from``: keep trumps (point
    trumps and high ones first) and plain cards of rank ``keep_plain`` or
    better (default: aces), let the rest go for fresh cards from the stock.

    Point trumps are kept before anything else: a discarded one is lost, and
    where the profile says so a defender's counts for the bidders.
    """
    pool = [card_index(c) for c in legal["from"]]
    least, most = int(legal["least"]), int(legal["most"])
    ranked = sorted(pool, key=lambda c: keep_key(c, t), reverse=True)
    wanted = sum(1 for c in ranked if t.power[c] >= 0 or c % 13 >= keep_plain)
    keep = min(max(wanted, len(pool) - most), len(pool) - least)
    return [card_name(c) for c in ranked[keep:]]


def choose_under(top: int, under_from: Sequence[int], n: int, t: Tables) -> list[int]:
    """Cards to play under the top: the weakest pointless trumps, keeping strong ones."""
    pool = sorted((c for c in under_from if c != top), key=lambda c: t.power[c])
    return pool[:n]


def _cheap_key(c: int, t: Tables) -> tuple[int, int, int]:
    """Order for throwing a card away: no points at stake, plain before trump, low first.

    Where Low (the 2 of trump) stays with its holder it counts as free.
    """
    pts = t.captured[c]
    trump = t.power[c] >= 0
    return (pts, 1 if trump else 0, t.power[c] if trump else c % 13)


def seat_sides(view: Mapping[str, Any]) -> list[int]:
    """Each seat's side as the view tells it: pairs 0+2 and 1+3; at other tables the
    view's ``sides`` (0: the maker's), a seat whose side is not known yet counted as
    a side of its own (``2 + seat``: nobody's partner)."""
    sides = view.get("sides")
    if sides is None:
        return [s % 2 for s in range(4)]
    return [x if x is not None else 2 + s for s, x in enumerate(sides)]


def choose_call(legal: Mapping[str, Any], t: Tables) -> dict[str, Any]:
    """Call the highest trump the maker does not hold (its holder is the strongest
    partner); with no trump to call, go alone where allowed, else any legal card."""
    cards = [card_index(c) for c in legal.get("cards", [])]
    trumps = [c for c in cards if t.power[c] >= 0]
    if trumps:
        return {"type": "call", "card": card_name(max(trumps, key=lambda c: t.power[c]))}
    if legal.get("alone"):
        return {"type": "call", "alone": True}
    return {"type": "call", "card": card_name(cards[0])}


def choose_play(
    hand: Sequence[int],
    legal: Sequence[int],
    trick: Sequence[tuple[int, int]],
    seat: int,
    t: Tables,
    outside_trumps: Iterable[int],
    bidder_side: int,
    sides: Sequence[int] | None = None,
) -> int:
    """A greedy card choice for ``seat``.

    ``trick`` holds the (seat, card) plays so far; ``outside_trumps`` the
    trumps that other seats may still hold. Rules of thumb: draw trumps with
    the boss trump, cash point trumps once nothing outside can beat them,
    give points to a trick the partner has surely won (or that we win as the
    last player), win pointed tricks cheaply, otherwise throw the cheapest card.
    ``sides`` gives each seat's side at tables other than four in pairs
    (``seat_sides``); None: pairs, seats 0+2 and 1+3.
    """
    side = sides or (0, 1, 0, 1)
    power = t.power
    pts = t.points
    cap = t.captured  # what a trick winner takes for each card
    top_out = max((power[c] for c in outside_trumps), default=-1)
    if len(legal) == 1:
        return legal[0]
    if not trick:
        return _lead(hand, legal, t, top_out, side[seat] == bidder_side)
    led = t.esuit[trick[0][1]]
    best_seat, best_card, best = trick[0][0], trick[0][1], t.strength(trick[0][1], led)
    for s, c in trick[1:]:
        st = t.strength(c, led)
        if st > best:
            best_seat, best_card, best = s, c, st
    after = len(side) - 1 - len(trick)
    at_stake = sum(cap[c] for _, c in trick)
    if side[best_seat] == side[seat]:  # partner is winning
        safe = after == 0 or (power[best_card] >= 0 and power[best_card] > top_out)
        if safe:
            return max(legal, key=lambda c: (cap[c], -_cheap_key(c, t)[1], -_cheap_key(c, t)[2]))
        return min(legal, key=lambda c: _cheap_key(c, t))
    winners = [c for c in legal if t.strength(c, led) > best]
    if winners:
        if after == 0:
            # Last to play: win, and take our own point card home if we can.
            return max(winners, key=lambda c: (cap[c], -t.strength(c, led)))
        bosses = [c for c in winners if power[c] >= 0 and power[c] > top_out]
        if bosses and (at_stake > 0 or any(_big(pts[c], t) for c in hand)):
            return min(bosses, key=lambda c: (cap[c], power[c]))
        if at_stake > 0:
            return max(winners, key=lambda c: (t.strength(c, led), -pts[c]))
    return min(legal, key=lambda c: _cheap_key(c, t))


def _big(points: int, t: Tables) -> bool:
    """A card worth protecting on its own (a pedro in pagat62): a third of the deal's points or more."""
    return 3 * points >= t.total > 0


def _lead(hand: Sequence[int], legal: Sequence[int], t: Tables, top_out: int, bidding: bool) -> int:
    power, pts, cap = t.power, t.points, t.captured
    trumps = [c for c in legal if power[c] >= 0]
    if trumps:
        bosses = sorted((c for c in trumps if power[c] > top_out), key=lambda c: -power[c])
        if bosses:
            if top_out < 0:  # nothing outside can beat any trump: cash the points first
                return max(trumps, key=lambda c: (cap[c], power[c]))
            pointed = [c for c in bosses if _big(pts[c], t)]
            if pointed:
                return pointed[0]
            return bosses[0]  # draw trumps with the boss
        if bidding and len(trumps) >= 3:
            # Push out the opponents' high trumps with a pointless middle trump.
            mids = [c for c in trumps if cap[c] == 0]
            if mids:
                return max(mids, key=lambda c: power[c])
    plains = [c for c in legal if power[c] < 0]
    if plains:
        aces = [c for c in plains if c % 13 == 12]
        if aces:
            return aces[0]
        return min(plains, key=lambda c: c % 13)
    return min(legal, key=lambda c: _cheap_key(c, t))


class Facts:
    """What a play-phase view implies, in integers, for strategies and samplers.

    ``outside_trumps`` are trumps not in the hand, not yet played and not laid
    away: every trump out of play is face up (discards of profiles that show
    them, extra trumps, trumps a robbing dealer leaves), so these are the
    trumps the other seats hold, but under ``rob: choose`` (california),
    where the dealer may leave trumps face down in the stock: the dealer
    knows them (``out``), the others do not. ``voids[s]`` are suits seat ``s`` showed out
    of. ``laid[s]`` are the cards seat ``s`` laid away as far as this seat
    knows; ``out`` those surely out of play, ``maybe`` those a reshuffled pile
    may have brought back. ``tables`` (``tables_for(profile)``) give the
    game's point values; ``profile`` its other rules.
    """

    def __init__(self, view: dict[str, Any], tables: Sequence[Tables] = TABLES,
                 profile: Mapping[str, Any] | None = None) -> None:
        self.seat: int = view["seat"]
        self.trump: int = SUITS.index(view["trump"])
        self.t: Tables = tables[self.trump]
        self.profile = profile
        self.hand = [card_index(c) for c in view["hand"]]
        self.maker: int = view["maker"]
        self.bid: int = view["bid"]
        self.sides = seat_sides(view)
        self.n = len(self.sides)
        self.bidder_side = self.sides[self.maker]
        self.dark = any(d["amount"] for d in view.get("dark") or ())  # the maker bid before the deal
        self.played: set[int] = set()
        self.played_by: list[list[int]] = [[] for _ in range(self.n)]
        self.voids: list[set[int]] = [set() for _ in range(self.n)]
        self.trick: list[tuple[int, int]] = []
        self.tricks_done = 0
        self.won_points = [0] * (max(self.sides) + 1)  # per side, captured so far (Low excluded where it stays with its holder)
        t = self.t
        # Only where seats must follow a plain suit does a card of another suit show a void
        # (a trump lead left unfollowed sends the seat out, and it then holds nothing).
        follow = param(profile, "play") in ("follow", "monterey")
        for tr in view.get("tricks", []):
            plays = [(p["seat"], card_index(p["card"]), [card_index(u) for u in p.get("under", [])]) for p in tr["plays"]]
            if plays:
                led = t.esuit[plays[0][1]]
                for s, c, under in plays:
                    self.played.add(c)
                    self.played.update(under)
                    self.played_by[s].append(c)
                    self.played_by[s].extend(under)
                    if follow and t.esuit[c] != led and not (led != self.trump and t.esuit[c] == self.trump):
                        self.voids[s].add(led)
            if tr.get("winner") is None:
                self.trick = [(s, c) for s, c, _ in plays]
            else:
                self.tricks_done += 1
                side = self.sides[tr["winner"]]
                for s, c, under in plays:
                    for x in (c, *under):
                        self.won_points[side] += t.captured[x]
        mine = set(self.hand)
        # Cards laid away, by the seat that laid them (face up: public; own discards: known).
        shown = [[card_index(c) for c in cards] for cards in (view.get("shown") or [[]] * self.n)]
        own = [card_index(c) for c in view.get("discarded", [])]
        self.laid: list[list[int]] = [list(cards) for cards in shown]
        self.laid[self.seat] += [c for c in own if c not in shown[self.seat]]
        laid = {c for cards in self.laid for c in cards} - mine - self.played
        # Discards go to the pile, and a reshuffled pile (or a dealer robbing the discards)
        # brings them back into play; extra trumps shown and trumps a robbing dealer
        # leaves stay out for good.
        face_up = {c for cards in shown for c in cards}
        pile = (face_up | set(own)) if param(profile, "discard") == "choose" else set(own) - face_up
        robbed = param(profile, "rob_from") == "stock_and_discards" and self.seat != view.get("dealer")
        back = pile & laid if view.get("reshuffles", 0) > 0 or robbed else set()
        self.out: set[int] = laid - back  # surely out of play
        if param(profile, "rob") == "choose" and view.get("rob_stock"):  # what this dealer left in the stock
            taken = {card_index(c) for c in view.get("rob_taken") or ()}
            left = {card_index(c) for c in view["rob_stock"]} - taken - mine - self.played
            self.out |= left
            laid = laid | left
        self.maybe: set[int] = back  # laid away, possibly back in a hand
        self.deck = deck_of(profile)  # the cards in play this game (lipton: 32)
        self.outside_trumps = [c for c in t.trumps
                               if c in self.deck and c not in mine and c not in self.played and c not in laid]


#: The take_widow answer: a widow taken up (monterey-widow).
_TAKE = {"type": "take_widow"}


class EvaluatingBot(Bot):
    """Bids, names trumps, discards, robs and buries extra cards by hand evaluation;
    a subclass only says which card to play (``choose_top``).

    The heuristic and Monte Carlo baselines differ only in card play, so
    this is the one place their shared decisions live.
    """

    margin = 0.5  # points of safety asked of a hand before it bids

    def decide(self, kind: str, view: dict[str, Any], legal: dict[str, Any]) -> dict[str, Any]:
        """Every choice reads the game's profile (``self.tables``) and the legal
        choice; a kind added by a profile is answered legally (``other_legal``)."""
        tables = self.tables
        if kind == "bid":
            return choose_bid(view, legal, self.margin, tables)
        if kind == "trump":
            hand = [card_index(c) for c in view["hand"]]
            suit, _ = best_trump(hand, view["seat"] == view["dealer"], tables, legal.get("suits") or SUITS)
            return {"type": "trump", "suit": SUITS[suit]}
        if kind == "rob":
            trump = view.get("trump")
            return {"type": "rob", "take": choose_rob(legal, tables[SUITS.index(trump)] if trump else None)}
        if kind == "discard":
            # Before trump is named (a kitty taken first), judge the cards by the suit it would name.
            trump = SUITS.index(view["trump"]) if view.get("trump") else best_trump(
                [card_index(c) for c in view["hand"]], False, tables)[0]
            # Where only trumps are played a plain card never takes a trick: keep none.
            keep_plain = 13 if param(self.profile, "play") == "trumps_only" else 12
            return {"type": "discard", "cards": choose_discard(legal, tables[trump], keep_plain)}
        if kind == "call":  # a called partner (five-hand, railroad): the trump is named
            return choose_call(legal, tables[SUITS.index(view["trump"])])
        if kind == "take_widow" and _TAKE in (legal.get("options") or []):
            # Taken up before it is seen (monterey-widow, rules 12.14): every trump is kept, so the four cards can
            # only add to the hand's estimate, while a widow left lies out of play, its points for nobody.
            return dict(_TAKE)
        if kind != "play":
            return other_legal(legal, kind, self.rng)
        facts = Facts(view, tables, self.profile)
        top = self.choose_top(view, facts, [card_index(c) for c in legal["cards"]])
        n = int(legal.get("under") or 0)
        if not n:
            return {"type": "play", "card": card_name(top)}
        under = choose_under(top, [card_index(c) for c in legal["under_from"]], n, facts.t)
        return {"type": "play", "card": card_name(top), "under": [card_name(c) for c in under]}

    def choose_top(self, view: dict[str, Any], facts: Facts, cards: list[int]) -> int:
        """The card to play (the top card, for a long hand) among the legal ``cards``."""
        raise NotImplementedError
