"""A profile's rules in words, written once, from what the engine declares.

Each clause of the rules line (``RULES``) owns the profile fields it puts
into words: every field of ``RuleProfile`` (but its name) is owned by one
clause, so a new field has its words written here or a test fails, and
nothing else writes them. A decision kind registered at run time that the
profile's deals ask adds its own ``description`` (``kinds.DecisionKind``).
The site's viewer heads every game with this line; anything else that
tells a person the rules of a profile reads it here (``forced_bid``: the
dealer's bid after three passes, as the site's statistics name it) rather
than writing its own from the profile's fields.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .kinds import decision_kind
from .deal import STAGES
from .profile import RuleProfile


@dataclass(frozen=True)
class Rule:
    """One clause of the rules line: the profile fields it owns, and its words ("" where the
    profile has nothing to say of them, as a table of fixed pairs at four)."""

    name: str
    fields: tuple[str, ...]
    words: Callable[[RuleProfile], str]


def forced_bid(p: RuleProfile) -> str | None:
    """What the dealer must bid after three passes ("7", "6 or more"); None: nobody must bid."""
    if p.dealer_forced_bid is None:
        return None
    return f"{p.dealer_forced_bid} or more" if p.forced_bid_any else str(p.dealer_forced_bid)


def _table(p: RuleProfile) -> str:
    if p.sides == "pairs" and p.players == 4:
        return ""
    table = f"{p.players} seats, " + (
        "two pairs" if p.sides == "pairs" else "each for himself" if p.sides == "each" else
        "the maker and the holder of a " + ("card" if p.call == "card" else "trump") + " it calls, not in its hand, "
        "against the rest" + (" (or the maker alone, every score doubled)" if p.call_alone else ""))
    if p.kitty_before_trump:
        table += f"; the {p.kitty}-card kitty is the maker's before it names trump"
    return table


_AUCTION = {"once_around": ", one round", "until_three_pass": ", rounds until three have passed",
            "open": ", open rounds (re-entry) until three passes follow a bid"}


def _bids(p: RuleProfile) -> str:
    bids = f"bids {p.min_bid}-{p.max_bid}" + (" from the dealer's right" if p.bid_start == "right" else "") + _AUCTION[p.auction]
    if p.bid_suits:
        bids += ", each bid naming its trump (suits " + ">".join(p.suit_order) + ")"
    return bids


def _forced(p: RuleProfile) -> str:
    amount = forced_bid(p)
    forced = "four passes void the deal (redeal)" if amount is None else f"after three passes the dealer must bid {amount}"
    if p.dealer_low_bid is not None:
        forced += f"; after three passes the dealer may bid from {p.dealer_low_bid}"
    if p.dark_bid is not None:
        forced += f"; before the deal a seat may bid {p.deal_points} in the dark, worth {p.dark_bid}"
    return forced


def _points(p: RuleProfile) -> str:
    pts = p.points
    extra = [(p.off_jack_trump and pts.off_jack, f"off-jack {pts.off_jack} (a trump)"), (pts.king, f"King {pts.king}"),
             (pts.queen, f"Queen {pts.queen}"), (pts.nine, f"nine {pts.nine}"), (pts.three, f"three {pts.three}"),
             (p.joker, f"the joker {pts.joker} (the lowest trump)")]
    return (f"{p.deal_points} points a deal (High {pts.high}, Low {pts.low}, Jack {pts.jack}, Game {pts.game}, pedros "
            f"{pts.right_pedro} and {pts.left_pedro}" + "".join(f", {t}" for on, t in extra if on)
            + f"; Low to its {p.low_goes_to})")


def _hands(p: RuleProfile) -> str:
    deck = ""
    if len(p.deck_ranks) < 13 or p.joker:
        deck = (f"{p.deck_size} cards ({p.deck_ranks if len(p.deck_ranks) < 13 else 'all ranks'}"
                + (" and the joker" if p.joker else "") + "), ")
    hands = (deck + f"{sum(p.packets)} cards each" + (f" and a {p.kitty}-card kitty for the maker" if p.kitty else "")
             + (f" and {p.widow} face down each, which a seat may take up after its bid; no fill" if p.widow else "")
             + f", {p.hand_size} tricks; " + (f"{p.second_deal} more cards each once trump is named; " if p.second_deal else ""))
    if p.discard == "keep":
        return hands + "nobody discards but the maker, as many as the kitty gave"
    if p.discard == "choose":
        return hands + f"each seat discards at least {p.min_discard}" + (" face up" if p.discards_face_up else "")
    hands += (f"every trump kept, plain cards chosen to make {p.hand_size}" if p.discard == "to_hand_size"
              else "every non-trump discarded")
    if p.extra_trumps == "discard":
        hands += f", trumps beyond {p.hand_size} shown and discarded"
    elif p.extra_trumps == "one_per_trick":
        hands += f", trumps beyond {p.hand_size} played one under each trick"
    return hands


def _rob(p: RuleProfile) -> str:
    left = p.stock_size
    if p.rob == "none":
        return (f"no rob (the {left} card{'s' if left > 1 else ''} left stay{'' if left > 1 else 's'} face down, unseen)"
                if left > 0 else "no rob (the stock is dealt out)")
    if p.rob == "free":
        return ("the dealer robs freely from the " + ("stock" if p.rob_from == "stock" else "stock and the discards")
                + ", trumps left face up")
    if p.rob != "choose":
        return "the dealer robs the stock's trumps"
    if p.rob_all == "may":
        return "the dealer robs the cards it needs, or every trump of the stock; cards left stay face down"
    return (f"the dealer robs the cards it needs (every trump of the stock when more than {p.hand_size}); "
            "cards left stay face down")


_PLAY = {"follow": "follow suit or trump",
         "trumps_only": "only trumps are played; a hand out of trumps is laid face up and sits out",
         "oregon": "a plain lead allows any card and keeps the lead unless trumped; a seat that cannot follow a "
                   "trump lead throws its hand in",
         "monterey": "follow suit or trump; a seat that cannot follow a trump lead throws its hand in"}


def _play(p: RuleProfile) -> str:
    return _PLAY[p.play] + ("; the first lead a trump if the maker holds one" if p.first_lead_trump else "")


def _scoring(p: RuleProfile) -> str:
    scoring = ("standard scoring" if p.scoring == "standard" else "difference scoring, set: " + (
        "defenders' points plus the bid" if p.set_rule == "points_plus_bid" else "the deal's total plus the shortfall"))
    if p.defender_discards_to_bidders:
        scoring += ", defenders' discarded points to the bidders"
    if p.full_bid_doubles:
        scoring += f", a made {p.deal_points} scores {2 * p.deal_points}"
    return scoring


_BOTH_REACH = {
    "play_on": "", "bidders": ", both past it: the bidders win",
    "higher_or_bidders": ", both past it: the higher score, a tie to the bidders",
    "maker_or_best_card": ", several past it: the maker, else the one credited with the deal's highest point card",
    "bidders_or_higher": ", several past it: the maker, then its partner, else the highest score (a tie plays on)",
}


def _end(p: RuleProfile) -> str:
    end = f"game to {p.target}" + (f" (bidder goes out from {p.deciding_threshold})" if p.deciding_threshold is not None else "")
    end += (", won only by making a bid" if p.win_requires_bid else "") + (
        f", a bid of {p.moon_bid} shoots the moon" if p.moon_bid is not None else "") + (
        f", lost at {p.lose_at}" if p.lose_at is not None else "")
    return end + _BOTH_REACH[p.both_reach]


#: The clauses of the rules line, in its order; every profile field but ``name`` is owned by one.
RULES: tuple[Rule, ...] = (
    Rule("table", ("players", "sides", "call", "call_alone", "kitty_before_trump"), _table),
    Rule("bids", ("min_bid", "max_bid", "bid_start", "auction", "bid_suits", "suit_order"), _bids),
    Rule("forced", ("dealer_forced_bid", "forced_bid_any", "dealer_low_bid", "dark_bid"), _forced),
    Rule("points", ("points", "off_jack_trump", "low_goes_to"), _points),
    Rule("hands", ("deck_ranks", "joker", "packets", "kitty", "widow", "hand_size", "second_deal", "discard",
                   "min_discard", "discards_face_up", "extra_trumps"), _hands),
    Rule("rob", ("rob", "rob_from", "rob_all"), _rob),
    Rule("play", ("play", "first_lead_trump"), _play),
    Rule("scoring", ("scoring", "set_rule", "defender_discards_to_bidders", "full_bid_doubles"), _scoring),
    Rule("end", ("target", "deciding_threshold", "win_requires_bid", "moon_bid", "lose_at", "both_reach"), _end),
)


def rules_text(p: RuleProfile) -> str:
    """One line naming the profile and what a reader of its games needs to know of its rules: each
    clause of ``RULES`` that has words, then each registered kind its deals ask, in its own words."""
    parts = [text for rule in RULES if (text := rule.words(p))]
    parts += [f"{kind.name}: {decision_kind(kind.name).description}" for kind in STAGES if kind.asked_in(p)]
    return f"Rules: {p.name}: " + "; ".join(parts) + "."
