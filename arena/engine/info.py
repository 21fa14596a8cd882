"""What a profile's rules can produce, and the facts of one deal, declared once.

As OpenSpiel's GameType and GameInfo do for its games, the engine says per
profile which decision kinds and mechanisms it has, its point cards and the
longest possible deal; and per deal the facts that others (check-bot's
probes, the site's statistics, the text replay, the tests) would otherwise
re-derive from raw events: the dealer's bid after three passes, who captured
each point card, the cards out of play and who laid them away, whether the
stock was rebuilt. docs/rules.md section 13 describes both.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .cards import Card
from .deal import STAGES, Deal
from .profile import PointValues, RuleProfile, point_cards

DECISION_KINDS = ("bid", "take_widow", "trump", "discard", "rob", "call", "play")


@dataclass(frozen=True, slots=True)
class ProfileInfo:
    """The decision kinds and mechanisms of one profile (``profile_info``)."""

    name: str
    players: int
    sides: str  # "pairs", "each" or "called" (RuleProfile.sides)
    decision_kinds: frozenset[str]  # of DECISION_KINDS, and of the registered kinds its deals ask: what a seat can be asked
    dark_bid: bool  # a round of bids in the dark before the cards are dealt
    suited_bids: bool  # each bid names its trump: no trump decision
    dealer_must_bid: bool  # after three passes the dealer may not pass
    forced_dealer_bid: bool  # ... and has one amount: the engine bids it (``forced`` in the record)
    redeal: bool  # four passes void the deal
    widow: bool  # face-down cards each seat may take up after its bid (a take_widow decision); no fill
    kitty: bool  # cards for the maker only
    joker: bool  # a 53rd card, the lowest trump
    rob: str  # "take_trumps", "free", "choose" or "none" (RuleProfile.rob)
    discard: str  # "non_trumps", "choose", "to_hand_size" or "keep" (RuleProfile.discard)
    face_up_discards: bool  # chosen discards are laid face up (public)
    second_deal: bool  # more cards to each seat once trump is named
    extra_trumps_shown: bool  # trumps beyond a full hand are shown and discarded (a discard decision)
    long_hands: bool  # a hand of more than hand_size cards plays its extras under its first card (or cards)
    sit_out: bool  # a seat can sit out tricks (play other than "follow")
    untrumped_lead_holds: bool  # a plain lead allows any card and wins unless trumped (oregon)
    reshuffle: bool  # the stock can run out during the fill or the rob: the discards are reshuffled
    cards_out_of_play: bool  # a card can be in no hand when play begins, its points then lost or credited
    points_out_of_play: bool  # ... and it can be a point card (a hand thrown in holds no trump; a widow left is out of play whole)
    point_cards: tuple[tuple[str, int], ...]  # (PointValues field, value) of every card that scores
    deal_points: int
    max_deal_actions: int  # no deal has more action events than this (forced ones included)
    call: bool = False  # the maker calls its partner (sides "called")
    trumps_leave_play: bool = False  # a trump can be out of play when the tricks begin (discarded, shown, left)

    def lacks(self, feature: str) -> str | None:
        """Why the profile has no ``feature``, in the words a page shows instead of a figure (None: it has it).
        ``feature``: a ``PointValues`` field (a point card: "joker" is the card's points), ``"pedros"``, or a
        mechanism of ``ABSENT``."""
        scoring = {name for name, _ in self.point_cards}
        if feature in PointValues.model_fields:
            return None if feature in scoring else f"{feature.replace('_', '-').capitalize()} carries no points"
        if feature == "pedros":
            return None if scoring & {"right_pedro", "left_pedro"} else "the pedros carry no points"
        if feature not in ABSENT:
            raise KeyError(f"no feature {feature!r} of a profile (known: {', '.join([*ABSENT, 'pedros'])} and point cards)")
        return None if getattr(self, feature) else ABSENT[feature]

    def max_game_actions(self, max_deals: int) -> int:
        """No game of at most ``max_deals`` deals has more action events than this."""
        return self.max_deal_actions * max_deals


#: What a profile without a mechanism says where a figure of it would stand (``ProfileInfo.lacks``):
#: the mechanism's ``ProfileInfo`` field -> the words, written once here for every page.
ABSENT: dict[str, str] = {
    "dealer_must_bid": "nobody must bid: four passes void the deal",
    "redeal": "the dealer must bid after three passes, so no deal is void",
    "trumps_leave_play": "no trump leaves play before the tricks",
    "dark_bid": "nobody may bid in the dark",
    "widow": "no seat is dealt a widow",
    "kitty": "no kitty is dealt",
    "call": "the maker calls no partner",
    "second_deal": "no cards are dealt once trump is named",
    "sit_out": "every seat plays every trick",
}


def _max_bids(p: RuleProfile) -> int:
    """The most bid events an auction can have."""
    if p.auction == "once_around":
        return p.players
    lowest = min(x for x in (p.min_bid, p.dealer_forced_bid, p.dealer_low_bid) if x is not None)
    amounts = p.max_bid - lowest + 1
    if p.auction == "until_three_pass":  # every bid raises the last; each seat passes once
        return amounts + 4
    keys = amounts * (4 if p.bid_suits else 1)  # open: at most two passes between raises, three to end
    return 3 * keys + 4


@lru_cache(maxsize=256)
def profile_info(profile: RuleProfile) -> ProfileInfo:
    """What ``profile``'s rules can produce, read from its parameters once."""
    p = profile
    chosen = p.discard != "non_trumps" or p.extra_trumps == "discard"
    n = p.players
    kinds = {"bid", "play"}
    if not p.bid_suits:
        kinds.add("trump")
    if chosen:
        kinds.add("discard")
    if p.rob != "none":
        kinds.add("rob")
    if p.call is not None:
        kinds.add("call")
    if p.widow:
        kinds.add("take_widow")
    kinds |= {s.name for s in STAGES if s.asked_in(p)}  # kinds registered at run time that its deals ask
    forced = p.dealer_forced_bid is not None and not p.forced_bid_any and not p.bid_suits
    points = tuple((name, v) for name, v in p.points.model_dump().items() if v)
    actions = ((n if p.dark_bid is not None else 0) + _max_bids(p) + (n if p.widow else 0) + 1 + n + (p.rob != "none")
               + (p.call is not None)
               + n * p.hand_size + sum(s.most(p) for s in STAGES if s.asked_in(p)))
    return ProfileInfo(
        name=p.name,
        players=p.players,
        sides=p.sides,
        decision_kinds=frozenset(kinds),
        dark_bid=p.dark_bid is not None,
        suited_bids=p.bid_suits,
        dealer_must_bid=p.dealer_forced_bid is not None,
        forced_dealer_bid=forced,
        redeal=p.dealer_forced_bid is None,
        widow=p.widow > 0,
        kitty=p.kitty > 0,
        joker=p.joker,
        rob=p.rob,
        discard=p.discard,
        face_up_discards=p.discards_face_up,
        second_deal=p.second_deal > 0,
        extra_trumps_shown=p.extra_trumps == "discard",
        long_hands=not chosen or (p.discard == "to_hand_size" and p.extra_trumps != "discard"),
        sit_out=p.play != "follow",
        untrumped_lead_holds=p.play == "oregon",
        reshuffle=p.rob != "none" and not p.widow and p.discard in ("non_trumps", "choose"),
        cards_out_of_play=p.may_lose_points,
        # a kitty only loses points where the maker's discard may be a trump (five-hand keeps every trump)
        points_out_of_play=(p.discard == "choose" or p.rob in ("free", "choose") or p.extra_trumps == "discard"
                            or (p.kitty > 0 and p.discard in ("choose", "keep")) or (p.rob == "none" and p.stock_size > 0)
                            or p.widow > 0),
        point_cards=points,
        deal_points=p.deal_points,
        max_deal_actions=actions,
        call=p.call is not None,
        # discarded, shown, left by a free rob, or in a widow left (monterey-widow); a discard that keeps every
        # trump (to the hand's size, extras played under: five-hand) lays none away
        trumps_leave_play=p.discard in ("choose", "keep") or p.rob == "free" or p.extra_trumps == "discard" or p.widow > 0,
    )


@dataclass(frozen=True, slots=True)
class PointCapture:
    """Where one point card's points went."""

    card: Card
    points: int
    trick: int  # index of the trick it was played to; -1: out of play
    seat: int  # the trick's winner; out of play: the seat that laid it away (-1: never dealt)
    side: int | None  # the side credited (Low to its holder's side where the profile says so); None: nobody
    name: str = ""  # the PointValues field it scores as ("high", "right_pedro", ...)


@dataclass(frozen=True, slots=True)
class DealFacts:
    """The facts of one deal that others would re-derive from its events."""

    dealer_bid: tuple[int, int, bool] | None  # (seat, amount, forced): the dealer's bid after three passes where it must bid
    captures: tuple[PointCapture, ...]  # every point card of the trump, once the deal is scored
    out_of_play: tuple[tuple[Card, int], ...]  # (card, laid away by seat or -1) once play has begun
    rebuilt: tuple[str, ...]  # "fill" or "rob" per reshuffle of the discards into the stock, in order

    sides: int = 2  # how many sides the deal's points are counted for (one per seat at cut-throat)

    def side_points(self) -> tuple[int, ...]:
        """The points each side is credited by ``captures`` (the deal's points when scored)."""
        pts = [0] * self.sides
        for c in self.captures:
            if c.side is not None:
                pts[c.side] += c.points
        return tuple(pts)


def deal_facts(deal: Deal) -> DealFacts:
    """The facts of ``deal`` so far (captures only once it is scored)."""
    p = deal.profile
    dealer_bid = None
    n = deal.n
    if p.dealer_forced_bid is not None and len(deal.bids) >= n and deal.bids[n - 1][0] == deal.dealer:
        if not any(a for _, a, _ in deal.bids[: n - 1]) and deal.bids[n - 1][1]:
            s, amount, forced = deal.bids[n - 1]
            dealer_bid = (s, amount, forced)
    captures: list[PointCapture] = []
    if deal.points is not None and deal.trump is not None and deal.maker is not None:
        table = p.point_table(deal.trump)
        names = dict((c, n) for n, c in point_cards(deal.trump, p.off_jack_trump))
        low = p.low_card(deal.trump)
        side_of = deal.side_of
        bidders = side_of[deal.maker]
        for i, trick in enumerate(deal.tricks):
            assert trick.winner is not None
            for _, top, under in trick.plays:
                for c in (top, *under):
                    if table[c]:
                        holder = low == c and p.low_goes_to == "holder" and deal.low_holder is not None
                        side = side_of[deal.low_holder] if holder else side_of[trick.winner]  # type: ignore[index]
                        captures.append(PointCapture(c, table[c], i, trick.winner, side, names[c]))
        for s, c in deal.out:
            if table[c]:
                to_bidders = p.defender_discards_to_bidders and s >= 0 and side_of[s] != bidders
                captures.append(PointCapture(c, table[c], -1, s, bidders if to_bidders else None, names[c]))
    rebuilt = tuple(str(ev[3]) for ev in deal.events if ev[0] == "reshuffle")
    sides = deal.n if p.sides == "each" else 2
    return DealFacts(dealer_bid, tuple(captures), tuple((c, s) for s, c in deal.out), rebuilt, sides)
