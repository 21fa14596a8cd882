"""Rule profiles: the rule variants of the seeds as data, not code forks.

``pagat62`` is the default: every field's default is its rule. The other
systems of the seeds are registered at the end of this module
(docs/rules.md, section 11, gives each one's source and decisions).
Combinations the engine cannot play are refused at validation, naming
the field.
"""

from __future__ import annotations

from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

if TYPE_CHECKING:  # the one JSON alias (below every floor; a bot's sandbox mounts the engine alone)
    from .._json import JsonObject

from .cards import ALL_CARDS, Card, JOKER, NUM_CARDS, RANK_2, RANK_5, RANK_A, RANK_J, RANK_T, TrumpTable, make_card, sister, trump_tables

RANK_3, RANK_9, RANK_Q, RANK_K = 1, 7, 10, 11


class PointValues(BaseModel):
    """Points carried by each point card (all of them trumps)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    high: int = 1
    jack: int = 1
    game: int = 1
    right_pedro: int = 5
    left_pedro: int = 5
    low: int = 1
    off_jack: int = 0  # the sister suit's jack, a point only where it is a trump (off_jack_trump)
    king: int = 0  # later point cards of trump (sixty-three: king 25, nine 9, three 15; eighty-three: queen 20)
    queen: int = 0
    nine: int = 0
    three: int = 0
    joker: int = 0  # the joker, a point only where the deck has one (sixty-three-joker: 15)

    @property
    def total(self) -> int:
        return (
            self.high + self.jack + self.game + self.right_pedro + self.left_pedro + self.low + self.off_jack
            + self.king + self.queen + self.nine + self.three + self.joker
        )


class RuleProfile(BaseModel):
    """One set of Cinch rules; docs/rules.md, section Profiles, lists them.

    Every field defaults to ``pagat62``'s rule, so a profile is the list of
    its differences; the deal state machine reads these fields (no profile
    is a fork of the code).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "pagat62"
    target: int = Field(62, ge=1, description="score that wins the game (rules 8)")
    deciding_threshold: int | None = Field(
        55,
        description="both sides at or above this before a deal make it a deciding deal (bidder goes out); "
        "None: no deciding deals",
    )
    min_bid: int = Field(7, ge=1)
    max_bid: int = Field(14, ge=1)
    dealer_forced_bid: int | None = Field(
        7, description="bid the dealer must make when all others pass; None: the deal is void and redealt"
    )
    hand_size: int = Field(6, ge=1, description="cards each hand is filled to after the discard; tricks a deal")
    points: PointValues = PointValues()
    low_goes_to: Literal["holder", "capturer"] = "holder"
    scoring: Literal["standard", "difference"] = "standard"
    extra_trumps: Literal["play_under", "discard", "one_per_trick"] = Field(
        "play_under",
        description="a hand of more than hand_size trumps plays the extras under its first card, "
        "or shows and discards them (its holder chooses which) before the rob, "
        "or plays one of them under each of its cards from the first trick on until they are gone (five-hand)",
    )
    rob_from: Literal["stock", "stock_and_discards"] = Field(
        "stock", description="what the dealer robs: the stock, or the stock and every discard"
    )
    # -- fields added with the profiles of issue 13 (absent from pagat62 records) --
    players: int = Field(4, ge=2, le=6, description="seats at the table: 4, or 2-6 with sides other than 'pairs'")
    sides: Literal["pairs", "each", "called"] = Field(
        "pairs",
        description="fixed partnerships of opposite seats (0+2 against 1+3); each seat for itself (cut-throat); "
        "or the maker and the seat it calls against the rest, new every deal (five-hand, railroad)",
    )
    call: Literal["card", "trump"] | None = Field(
        None,
        description="with sides 'called': once hands are complete the maker calls a card it does not hold (any "
        "card, or a trump); its holder is the maker's partner and plays it to the first trick",
    )
    call_alone: bool = Field(
        False, description="the maker may call no card and play alone against all, for double scores (railroad)"
    )
    kitty_before_trump: bool = Field(
        False, description="the maker takes the kitty when the auction ends, before it names the trump (five-hand)"
    )
    forced_bid_any: bool = Field(
        False, description="the dealer who must bid may bid any amount from dealer_forced_bid up, not just it"
    )
    bid_start: Literal["left", "right"] = Field(
        "left",
        description="bidding starts at the dealer's left and goes clockwise, or at the dealer's right and "
        "goes anticlockwise; the dealer speaks last either way",
    )
    auction: Literal["once_around", "until_three_pass", "open"] = Field(
        "once_around",
        description="one turn each; rounds until three seats have passed (a pass is final); or rounds with "
        "re-entry until three passes in a row follow a bid (oregon)",
    )
    bid_suits: bool = Field(
        False, description="each bid names its trump suit; a bid beats another by amount, then by suit_order"
    )
    suit_order: str = Field("SHCD", description="with bid_suits: the suits from highest to lowest")
    dealer_low_bid: int | None = Field(
        None, description="after three passes with no bid, the dealer may bid from this amount (below min_bid)"
    )
    discard: Literal["non_trumps", "choose", "to_hand_size", "keep"] = Field(
        "non_trumps",
        description="every non-trump is discarded; each seat in turn chooses its discards; or each seat keeps "
        "every trump and chooses the plain cards that make up hand_size (extras beyond it: extra_trumps); "
        "or every seat keeps its cards (only the maker puts down as many as the kitty gave it)",
    )
    second_deal: int = Field(0, ge=0, description="cards dealt to each seat after the bidding (sixty-three: 4)")
    deck_ranks: str = Field("23456789TJQKA", description="the ranks in the deck (lipton: 259TJQKA, 32 cards)")
    packets: tuple[int, ...] = Field((3, 3, 3), description="the dealing rounds: cards to each seat per round")
    kitty: int = Field(0, ge=0, description="cards dealt face down aside after the hands; the maker takes them")
    min_discard: int = Field(0, ge=0, description="with discard 'choose': the fewest cards a seat may discard")
    discards_face_up: bool = Field(False, description="discards (and trumps left in a robbed stock) are public")
    rob: Literal["take_trumps", "free", "choose", "none"] = Field(
        "take_trumps",
        description="the dealer takes every trump of the stock and chooses the rest; or chooses freely "
        "(trumps it leaves are discarded face up, out of play); or chooses the cards it needs, and may take "
        "every trump of the stock instead when there are more than it needs (california: cards it leaves "
        "stay face down, out of play; rob_all)",
    )
    rob_all: Literal["may", "must"] = Field(
        "may",
        description="with rob 'choose': when the stock holds more trumps than the dealer needs it may take exactly "
        "all of them instead (california); or, only when the stock holds more than hand_size trumps, it must take "
        "them all (monterey-draw: 'must')",
    )
    defender_discards_to_bidders: bool = Field(
        False, description="point trumps discarded by the defenders count for the bidders"
    )
    set_rule: Literal["minus_bid", "points_plus_bid", "total_plus_gap"] = Field(
        "minus_bid",
        description="when the bidders are set: they lose the bid (defenders keep their points), or the defenders "
        "score their points plus the bid, or the deal's total plus the bid's shortfall",
    )
    full_bid_doubles: bool = Field(
        False, description="bidders who bid and make the deal's whole total score double it"
    )
    moon_bid: int | None = Field(
        None, description="a bid of at least this wins the game at once if made and loses it if set"
    )
    win_requires_bid: bool = Field(
        False, description="a side wins by reaching the target only in a deal it bid and made"
    )
    first_lead_trump: bool = Field(False, description="the maker's first lead must be a trump (if it holds one)")
    play: Literal["follow", "trumps_only", "oregon", "monterey"] = Field(
        "follow",
        description="follow suit or trump (rules 6); only trumps are played and a seat out of trumps "
        "lays its hand face up and sits out (pidro); or a plain lead allows any card and keeps the lead "
        "unless trumped, and a seat that cannot follow a trump lead throws its hand in and sits out (oregon); "
        "or follow as in rules 6, but a seat that cannot follow a trump lead sits out (monterey)",
    )
    off_jack_trump: bool = Field(
        False, description="the jack of the trump's sister suit is a trump, between the jack and the ten"
    )
    lose_at: int | None = Field(
        None, description="a side whose score falls to this or below loses the game (e.g. -105)"
    )
    widow: int = Field(
        0, ge=0,
        description="cards dealt face down before each seat after its hand; the seat takes them up after its own "
        "bid or pass, and hands are not filled after the discard (monterey-widow: 4)",
    )
    dark_bid: int | None = Field(
        None,
        description="before the cards are dealt, each seat in bidding order may bid the deal's whole total in the "
        "dark; the first to do so is the maker, and scores this if its side takes every point, else loses it "
        "(louisiana's option: 28)",
    )
    joker: bool = Field(
        False,
        description="a 53-card deck: the joker (JK) is the lowest trump whatever suit is named, below the 2",
    )
    both_reach: Literal["play_on", "bidders", "higher_or_bidders", "maker_or_best_card", "bidders_or_higher"] = Field(
        "play_on",
        description="both sides at the target after a deal: play on (deciding deals), the bidders of the deal "
        "win, or the higher score wins and a tie goes to the bidders; at a table of single scores, more than one "
        "seat at the target: the maker if it is one, else the one credited with the deal's highest point card "
        "(cut-throat), or the maker, then its partner, then the highest score, a tie playing on (five-hand, railroad)",
    )

    @model_validator(mode="after")
    def _check(self) -> "RuleProfile":
        self._check_table()
        total = self.points.total
        if self.min_bid > self.max_bid:
            raise ValueError(f"min_bid ({self.min_bid}) is above max_bid ({self.max_bid})")
        if self.max_bid > total:
            raise ValueError(f"max_bid ({self.max_bid}) is above the {total} points of a deal")
        if self.dealer_forced_bid is not None and not 1 <= self.dealer_forced_bid <= self.max_bid:
            raise ValueError(f"dealer_forced_bid ({self.dealer_forced_bid}) is outside 1-{self.max_bid}")
        if not self.deck_ranks or any(r not in "23456789TJQKA" for r in self.deck_ranks) or len(set(self.deck_ranks)) != len(self.deck_ranks):
            raise ValueError(f"deck_ranks ({self.deck_ranks!r}) must be distinct ranks of 23456789TJQKA")
        if self.stock_size < 0:
            raise ValueError(f"packets, kitty and second_deal deal more than the {self.deck_size} cards of the deck")
        if self.discard == "keep":
            if self.hand_size != sum(self.packets) or self.stock_size or self.rob != "none":
                raise ValueError("discard: 'keep' needs hand_size = the cards dealt, no stock and rob 'none'")
        elif self.hand_size != 6 or (sum(self.packets) != 9 and self.discard != "to_hand_size" and self.players == 4):
            raise ValueError("hand_size: only 6, from nine cards dealt (or more with discard 'to_hand_size'), "
                             "is implemented with discards")
        if self.discard == "to_hand_size" and sum(self.packets) + self.second_deal < self.hand_size:
            raise ValueError("packets: discard 'to_hand_size' needs at least hand_size cards dealt to each seat")
        if self.kitty and self.discard not in ("keep", "to_hand_size"):
            raise ValueError("kitty: the maker takes it only with discard 'keep' or 'to_hand_size' (then puts cards down)")
        if self.discard == "choose" and self.extra_trumps == "discard":
            raise ValueError("extra_trumps: 'discard' goes with discard 'non_trumps' (with 'choose' a seat keeps at most hand_size)")
        if self.discard == "choose" and not 9 - self.hand_size <= self.min_discard <= 9:
            raise ValueError(f"min_discard ({self.min_discard}): with discard 'choose' a seat must discard {9 - self.hand_size}-9 cards")
        if self.second_deal and self.discard != "to_hand_size":
            raise ValueError("second_deal: deals the stock out, so it goes with rob 'none' and discard 'to_hand_size'")
        if self.rob != "none" and self.stock_size == 0:
            raise ValueError(f"rob: {self.rob!r} needs a stock to rob, but packets, kitty and second_deal deal out the deck")
        if self.rob == "none" and self.discard not in ("to_hand_size", "keep") and not self.widow:
            # with no rob, whatever stock is left stays face down, out of play; the dealer must need no cards
            raise ValueError("rob: 'none' leaves the dealer nothing to fill from; it goes with discard 'to_hand_size' "
                             "or 'keep', or with widows (no fill)")
        if self.discard == "to_hand_size" and self.extra_trumps != "discard" and self.players == 4:
            raise ValueError("discard: 'to_hand_size' goes with extra_trumps 'discard'")
        if self.discard != "choose" and self.min_discard:
            raise ValueError("min_discard: only with discard 'choose'")
        if self.rob_all != "may" and self.rob != "choose":
            raise ValueError("rob_all: 'must' goes with rob 'choose' (the dealer otherwise takes every trump, or any cards)")
        if self.rob_from == "stock_and_discards" and self.rob != "free":
            raise ValueError("rob_from: 'stock_and_discards' goes with rob 'free'")
        if self.moon_bid is not None and not self.min_bid <= self.moon_bid <= self.max_bid:
            raise ValueError(f"moon_bid ({self.moon_bid}) is outside the bid range {self.min_bid}-{self.max_bid}")
        if self.scoring == "standard" and self.set_rule != "minus_bid":
            raise ValueError("set_rule: standard scoring sets the bidders back by their bid ('minus_bid')")
        if self.scoring == "difference" and self.set_rule == "minus_bid":
            raise ValueError("set_rule: difference scoring pays the defenders ('points_plus_bid' or 'total_plus_gap')")
        if self.play == "trumps_only" and self.extra_trumps != "discard" and self.discard != "choose":
            raise ValueError("play: 'trumps_only' needs hands of at most six cards (discard 'choose' or extra_trumps 'discard')")
        if self.points.off_jack and not self.off_jack_trump:
            raise ValueError("points.off_jack: the off-jack carries points only with off_jack_trump")
        if self.points.joker and not self.joker:
            raise ValueError("points.joker: the joker carries points only in a deck with one (joker: true)")
        if self.lose_at is not None and self.lose_at >= 0:
            raise ValueError(f"lose_at ({self.lose_at}) must be below 0")
        if sorted(self.suit_order) != sorted("CDHS"):
            raise ValueError(f"suit_order ({self.suit_order!r}) must list C, D, H and S once each")
        if self.dealer_low_bid is not None and not 1 <= self.dealer_low_bid <= self.min_bid:
            raise ValueError(f"dealer_low_bid ({self.dealer_low_bid}) must be 1 to min_bid")
        if self.dealer_low_bid is not None and self.dealer_forced_bid is not None:
            raise ValueError("dealer_low_bid: only when nobody must bid (dealer_forced_bid null)")
        if self.full_bid_doubles and self.scoring != "standard":
            raise ValueError("full_bid_doubles: only with standard scoring")
        if self.extra_trumps == "one_per_trick" and self.play != "follow":
            raise ValueError("extra_trumps: 'one_per_trick' is played with play 'follow' (every seat in every trick)")
        if self.widow and (self.discard != "non_trumps" or self.play == "follow" or self.extra_trumps != "play_under"):
            raise ValueError(
                "widow: hands are not filled, so it needs discard 'non_trumps', extra_trumps 'play_under' and a play "
                "in which a seat without cards sits out (not 'follow')"
            )
        if self.dark_bid is not None:
            if self.dark_bid < total:
                raise ValueError(f"dark_bid ({self.dark_bid}) is worth less than the {total} points it must take")
            if self.bid_suits or self.scoring != "standard" or self.max_bid != total:
                raise ValueError("dark_bid: needs bids without a suit, standard scoring and max_bid = the deal's points")
        return self

    def _check_table(self) -> None:
        """A table of other than four, or sides other than fixed pairs, plays the follow
        rules of pagat62 with standard scoring (what the seeds' tables of 2-6 use)."""
        if self.sides == "pairs":
            if self.players != 4:
                raise ValueError(f"players ({self.players}): fixed pairs sit four; other tables need sides 'each' or 'called'")
            if self.call is not None or self.call_alone or self.both_reach in ("maker_or_best_card", "bidders_or_higher"):
                raise ValueError("call, call_alone and the single-score both_reach rules need sides other than 'pairs'")
            return
        if (self.sides == "called") != (self.call is not None):
            raise ValueError("call: a called partner needs sides 'called', and sides 'called' needs a call")
        if self.sides == "called" and self.players < 3:
            raise ValueError("sides: 'called' needs at least three players")
        if self.call_alone and self.call is None:
            raise ValueError("call_alone: only with a call")
        if self.play != "follow" or self.scoring != "standard" or self.dark_bid is not None or self.bid_suits:
            raise ValueError("sides other than 'pairs' play 'follow' with standard scoring, no dark bids and no suit bids")
        if self.auction != "once_around" or self.widow or self.rob not in ("take_trumps", "none"):
            raise ValueError("sides other than 'pairs' bid once around, with no widows, and rob 'take_trumps' or 'none'")
        if self.both_reach not in ("maker_or_best_card", "bidders_or_higher"):
            raise ValueError(f"both_reach: {self.both_reach!r} is for fixed pairs; single scores take "
                             "'maker_or_best_card' or 'bidders_or_higher'")
        if self.lose_at is not None or self.win_requires_bid or self.moon_bid is not None:
            raise ValueError("lose_at, win_requires_bid and moon_bid are for fixed pairs")
        if self.deciding_threshold is not None:
            raise ValueError("deciding_threshold: bidder-goes-out deals are for fixed pairs (null)")
        if sum(self.packets) < self.hand_size:
            raise ValueError("packets: each seat needs at least hand_size cards dealt")
        if self.kitty_before_trump and not self.kitty:
            raise ValueError("kitty_before_trump: needs a kitty")

    @cached_property
    def score_slots(self) -> int:
        """How many scores a game keeps: one per side of fixed pairs, else one per seat."""
        return 2 if self.sides == "pairs" else self.players

    @cached_property
    def stock_size(self) -> int:
        """Cards left in the stock once hands, widows, kitty and any second deal are dealt
        (with rob 'none' they stay face down, out of play: sixty-three-joker's one card)."""
        return self.deck_size - self.players * (sum(self.packets) + self.second_deal + self.widow) - self.kitty

    @cached_property
    def deck_size(self) -> int:
        """Cards in the deck: four per rank, plus the joker."""
        return 4 * len(self.deck_ranks) + self.joker

    @cached_property
    def shuffled_cards(self) -> int:
        """How many card indices the keyed deck shuffles (docs/rules.md 3): 0..51,
        or 0..52 with the joker; a short deck then drops its missing ranks."""
        return ALL_CARDS if self.joker else NUM_CARDS

    @cached_property
    def deck_cards(self) -> frozenset[int]:
        """Every card of the profile's deck (the joker included where it has one)."""
        return self.short_deck or frozenset(range(self.shuffled_cards))

    @cached_property
    def short_deck(self) -> frozenset[int] | None:
        """The cards of a deck with fewer ranks than 13 (None: all the shuffled cards)."""
        if len(self.deck_ranks) == 13:
            return None
        ranked = (c for c in range(NUM_CARDS) if "23456789TJQKA"[c % 13] in self.deck_ranks)
        return frozenset((*ranked, JOKER) if self.joker else ranked)

    @cached_property
    def deal_points(self) -> int:
        """Points carried by the cards of one deal."""
        return self.points.total

    @cached_property
    def may_lose_points(self) -> bool:
        """Whether cards can leave play or be laid face up (discards, a robbed stock, a
        hand that sits out): deals then track the shown cards and the points out of play."""
        return (
            self.discard == "choose" or self.rob in ("free", "choose") or self.extra_trumps == "discard"
            or self.play != "follow"
            or self.kitty > 0 or self.widow > 0 or (self.rob == "none" and self.stock_size > 0)
        )

    def record_dict(self) -> JsonObject:
        """The profile as records and hello messages carry it: every field pagat62
        records always had, then each later field that differs from its default
        (docs/records.md lists the defaults), so pagat62 records stay as they were."""
        full = self.model_dump(mode="json")
        for later in _LATER_POINTS:  # later point fields, likewise
            if not full["points"][later]:
                del full["points"][later]
        return {k: v for k, v in full.items() if k in _LEGACY_FIELDS or v != _DEFAULTS[k]}

    def hash_dict(self) -> dict[str, object]:
        """Every parameter, as ``model_dump(mode="json")``, but the table fields at their defaults
        (``TABLE_FIELDS``): what a tournament's configuration hash reads."""
        full = self.model_dump(mode="json")
        return {k: v for k, v in full.items() if k not in TABLE_FIELDS or v != _DEFAULTS[k]}

    @cached_property
    def _tables(self) -> tuple[tuple[tuple[int, ...], frozenset[int]], ...]:
        """Point table and pointless trumps per trump suit, built once per profile
        (hashing a pydantic model per deal would cost more than the deal's scoring)."""
        oj, jk = self.off_jack_trump, self.joker
        return tuple((_point_table(self.points, t, oj), _pointless(self.points, t, oj, jk)) for t in range(4))

    def trump_table(self, trump: int) -> TrumpTable:
        """The trump order of this profile once ``trump`` is named (off-jack, joker)."""
        return trump_tables(self.off_jack_trump, self.joker)[trump]

    def point_table(self, trump: int) -> tuple[int, ...]:
        """Points of each card (all 53 indices) once ``trump`` is named."""
        return self._tables[trump][0]

    def low_card(self, trump: int) -> int:
        return make_card(RANK_2, trump)

    def pointless_trumps(self, trump: int) -> frozenset[int]:
        """Trumps that may be played under the top card (rules 6, extra cards)."""
        return self._tables[trump][1]


@lru_cache(maxsize=16)
def point_cards(trump: int, off_jack: bool = False) -> tuple[tuple[str, Card], ...]:
    """The card each ``PointValues`` field names once ``trump`` is named (the off-jack only where it is a
    trump): the one table of which card is which point, for the scoring and for whoever names them."""
    return (("joker", JOKER), ("king", make_card(RANK_K, trump)), ("queen", make_card(RANK_Q, trump)),
            ("nine", make_card(RANK_9, trump)), ("three", make_card(RANK_3, trump)),
            *((("off_jack", make_card(RANK_J, sister(trump))),) if off_jack else ()),
            ("high", make_card(RANK_A, trump)), ("jack", make_card(RANK_J, trump)), ("game", make_card(RANK_T, trump)),
            ("right_pedro", make_card(RANK_5, trump)), ("left_pedro", make_card(RANK_5, sister(trump))),
            ("low", make_card(RANK_2, trump)))


@lru_cache(maxsize=64)
def _point_table(p: PointValues, trump: int, off_jack: bool = False) -> tuple[int, ...]:
    table = [0] * ALL_CARDS  # the joker's value: validation keeps it 0 without a joker in the deck
    for name, card in point_cards(trump, off_jack):
        table[card] = getattr(p, name)
    return tuple(table)


@lru_cache(maxsize=64)
def _pointless(p: PointValues, trump: int, off_jack: bool = False, joker: bool = False) -> frozenset[int]:
    pts = _point_table(p, trump, off_jack)
    return frozenset(c for c in trump_tables(off_jack, joker)[trump].trumps if pts[c] == 0)


_LATER_POINTS = ("off_jack", "king", "queen", "nine", "three", "joker")
LEGACY_POINT_FIELDS = frozenset(("high", "jack", "game", "right_pedro", "left_pedro", "low"))
LEGACY_PROFILE_FIELDS = _LEGACY_FIELDS = frozenset(
    ("name", "target", "deciding_threshold", "min_bid", "max_bid", "dealer_forced_bid", "hand_size", "points",
     "low_goes_to", "scoring", "extra_trumps", "rob_from")
)
"""The profile fields records have always carried (version 2); later fields appear only when not default."""
TABLE_FIELDS = frozenset(("sides", "call", "call_alone", "kitty_before_trump", "rob_all"))
"""Fields added since the tables of other than four (docs/rules.md 14; ``rob_all``, 12.13). A dump that is hashed
to name a configuration (``hash_dict``) leaves them out at their defaults, so every earlier configuration keeps its
hash."""
_DEFAULTS: dict[str, object] = RuleProfile.model_construct().model_dump(mode="json")


#: The registered profiles by name. Add one with ``register_profile``.
PROFILES: dict[str, RuleProfile] = {"pagat62": RuleProfile()}


def register_profile(profile: RuleProfile) -> RuleProfile:
    """Make ``profile`` known by its name (a name taken by a different profile is refused)."""
    known = PROFILES.get(profile.name)
    if known is not None and known != profile:
        raise ValueError(f"rule profile {profile.name!r} is already registered with other parameters")
    PROFILES[profile.name] = profile
    return profile


def profile_names() -> list[str]:
    """Registered profile names, sorted."""
    return sorted(PROFILES)


def get_profile(name: str) -> RuleProfile:
    try:
        return PROFILES[name]
    except KeyError:
        import difflib

        close = difflib.get_close_matches(name, PROFILES, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(f"unknown rule profile {name!r}{hint}; known: {', '.join(profile_names())}") from None


def variant(base: RuleProfile | str, **changes: object) -> RuleProfile:
    """``base`` with some fields changed, validated again (a profile's options,
    e.g. ``variant("california", moon_bid=14, name="california-moon")``)."""
    profile = get_profile(base) if isinstance(base, str) else base
    data = profile.model_dump()
    data.update(changes)
    return RuleProfile.model_validate(data)


# -- the systems of the seeds (docs/rules.md section 11) ----------------------

_JACK3 = PointValues(jack=3)
_FOSTER = RuleProfile(
    name="foster1897", target=51, deciding_threshold=None, min_bid=1, max_bid=14, dealer_forced_bid=None,
    discard="choose", min_discard=3, discards_face_up=True, rob="free", defender_discards_to_bidders=True,
    low_goes_to="capturer", scoring="difference", set_rule="points_plus_bid", both_reach="bidders",
)
for _p in (
    # italian91 and oregon: Low to its capturer, as the Double Pedro they follow counts it (docs/rules.md 12.5, 12.10)
    RuleProfile(
        name="italian91", target=91, deciding_threshold=None, max_bid=16, points=_JACK3, win_requires_bid=True,
        low_goes_to="capturer",
    ),
    # after three passes the dealer "is allowed to bid 6": below the minimum, besides its ordinary bids
    RuleProfile(name="louisiana", dealer_forced_bid=6, forced_bid_any=True),
    RuleProfile(name="louisiana-dark", dealer_forced_bid=6, forced_bid_any=True, dark_bid=28),
    RuleProfile(
        name="california", target=52, deciding_threshold=None, min_bid=6, max_bid=16, dealer_forced_bid=6,
        bid_start="right", points=_JACK3, full_bid_doubles=True, win_requires_bid=True, rob="choose",
    ),
    _FOSTER,
    variant(_FOSTER, name="bicycle", set_rule="total_plus_gap"),
    variant(_FOSTER, name="chicago1890", dealer_forced_bid=1, forced_bid_any=True),
    variant(_FOSTER, name="pidro", play="trumps_only"),
    RuleProfile(
        name="monterey-draw", target=91, deciding_threshold=None, min_bid=6, max_bid=16, dealer_forced_bid=6,
        points=_JACK3, play="monterey", first_lead_trump=True, both_reach="bidders", rob="choose",
        rob_all="must",
    ),
    RuleProfile(
        name="monterey-widow", target=91, deciding_threshold=None, min_bid=6, max_bid=16, dealer_forced_bid=6,
        points=_JACK3, play="monterey", first_lead_trump=True, both_reach="bidders", widow=4, rob="none",
    ),
    RuleProfile(
        name="lipton", target=105, lose_at=-105, deciding_threshold=None, min_bid=15, max_bid=35,
        dealer_forced_bid=15, deck_ranks="259TJQKA", packets=(3, 4), kitty=4, hand_size=7, discard="keep",
        rob="none", off_jack_trump=True, points=PointValues(king=20, off_jack=1), low_goes_to="capturer",
        both_reach="bidders",
    ),
    RuleProfile(
        name="sixty-three", target=152, deciding_threshold=None, min_bid=1, max_bid=63, dealer_forced_bid=1,
        forced_bid_any=True, auction="until_three_pass", points=PointValues(king=25, nine=9, three=15),
        second_deal=4, discard="to_hand_size", extra_trumps="discard", rob="none", both_reach="bidders",
        low_goes_to="capturer",  # seeds/004: every point goes to the winner of the trick holding it
    ),
    RuleProfile(
        name="oregon", target=63, deciding_threshold=None, min_bid=6, max_bid=15, dealer_forced_bid=None,
        dealer_low_bid=5, auction="open", bid_suits=True, off_jack_trump=True, points=PointValues(off_jack=1),
        play="oregon", both_reach="higher_or_bidders", low_goes_to="capturer",
    ),
    RuleProfile(
        name="ru51", target=51, deciding_threshold=None, min_bid=1, max_bid=14, dealer_forced_bid=1,
        forced_bid_any=True, auction="until_three_pass", extra_trumps="discard", discards_face_up=False,
        rob="free", rob_from="stock_and_discards", low_goes_to="capturer", scoring="difference",
        set_rule="points_plus_bid", both_reach="bidders",
    ),
):
    register_profile(_p)

# sixty-three with the joker (docs/rules.md 12.11): the joker replaces the three as the
# 15-point card; the one card left after the second deal stays face down, never seen
register_profile(variant("sixty-three", name="sixty-three-joker", joker=True, points=PointValues(king=25, nine=9, joker=15)))

# eighty-three (docs/rules.md 12.15), sixty-three's Maine relative: the queen 20 as well, twelve
# cards each and the rest a kitty for the maker (four cards, five with the joker), bids from 30
_EIGHTY_THREE = variant(
    "sixty-three", name="eighty-three", points=PointValues(king=25, queen=20, nine=9, three=15), min_bid=30, max_bid=83,
    dealer_forced_bid=30, packets=(3, 3, 3, 3), second_deal=0, kitty=4,
)
register_profile(_EIGHTY_THREE)
register_profile(variant(_EIGHTY_THREE, name="eighty-three-joker", joker=True, kitty=5,
                         points=PointValues(king=25, queen=20, nine=9, joker=15)))


# tables of other than four, and sides other than fixed pairs (docs/rules.md section 14)
_SINGLE: dict[str, object] = {"deciding_threshold": None, "both_reach": "maker_or_best_card"}
# Low to the seat that captures it at every one of these tables (docs/rules.md 14): seeds/002 and 003 count
# every point from the tricks, and seeds/004's general rule does, with holder exceptions only in the sections
# that state one (California, Louisiana, Monterey)
for _n in range(2, 7):  # cut-throat: seeds/002 "2-6 individual players", each for himself (seeds/003), to 51
    register_profile(RuleProfile(
        name=f"cutthroat-{_n}", players=_n, sides="each", target=51, packets=(3, 3, 2) if _n == 6 else (3, 3, 3),
        low_goes_to="capturer", **_SINGLE,
    ))
# five-hand (seeds/004 "Пять рук Педро"): ten cards each, the two left for the maker before it names trump,
# bids 6-16 (the Jack counts 3, as in the California section it follows), keep every trump and make up six,
# a hand of more trumps playing one extra under each trick until they are gone, the maker calls any card it
# does not hold; game to 104
register_profile(RuleProfile(
    name="five-hand", players=5, sides="called", call="card", target=104, deciding_threshold=None,
    both_reach="bidders_or_higher", min_bid=6, max_bid=16, dealer_forced_bid=6, points=_JACK3,
    packets=(3, 3, 4), kitty=2, kitty_before_trump=True, discard="to_hand_size", rob="none",
    extra_trumps="one_per_trick", low_goes_to="capturer",
))
# railroad (seeds/004 "Железная дорога Педро"): five seats, six cards each, the draw of pagat62, then the
# maker calls a trump it does not hold (or goes alone, doubled); game to 62
register_profile(RuleProfile(
    name="railroad", players=5, sides="called", call="trump", call_alone=True, target=62, deciding_threshold=None,
    both_reach="bidders_or_higher", packets=(3, 3), low_goes_to="capturer",
))
