"""A profile's rules in words, written once, from the profile's declared parameters.

The site's viewer heads every game with this line; anything else that tells
a person the rules of a profile reads it here rather than writing its own
from the profile's fields.
"""

from __future__ import annotations

from .profile import RuleProfile


def rules_text(p: RuleProfile) -> str:
    """One line naming the profile and what a reader of its games needs to know of its rules."""
    pts = p.points
    total = p.deal_points
    if p.dealer_forced_bid is None:
        forced = "four passes void the deal (redeal)"
    else:
        forced = "after three passes the dealer must bid " + (
            f"{p.dealer_forced_bid} or more" if p.forced_bid_any else str(p.dealer_forced_bid))
    if p.dealer_low_bid is not None:
        forced += f"; after three passes the dealer may bid from {p.dealer_low_bid}"
    auction = {"once_around": ", one round", "until_three_pass": ", rounds until three have passed",
               "open": ", open rounds (re-entry) until three passes follow a bid"}[p.auction]
    bids = f"bids {p.min_bid}-{p.max_bid}" + (" from the dealer's right" if p.bid_start == "right" else "") + auction
    if p.bid_suits:
        bids += ", each bid naming its trump (suits " + ">".join(p.suit_order) + ")"
    if p.dark_bid is not None:
        forced += f"; before the deal a seat may bid {total} in the dark, worth {p.dark_bid}"
    extra = [(p.off_jack_trump and pts.off_jack, f"off-jack {pts.off_jack} (a trump)"), (pts.king, f"King {pts.king}"),
             (pts.queen, f"Queen {pts.queen}"), (pts.nine, f"nine {pts.nine}"), (pts.three, f"three {pts.three}"),
             (p.joker, f"the joker {pts.joker} (the lowest trump)")]
    points = (f"{total} points a deal (High {pts.high}, Low {pts.low}, Jack {pts.jack}, Game {pts.game}, pedros "
              f"{pts.right_pedro} and {pts.left_pedro}" + "".join(f", {t}" for on, t in extra if on)
              + f"; Low to its {p.low_goes_to})")
    each = sum(p.packets)
    deck = ""
    if len(p.deck_ranks) < 13 or p.joker:
        deck = (f"{p.deck_size} cards ({p.deck_ranks if len(p.deck_ranks) < 13 else 'all ranks'}"
                + (" and the joker" if p.joker else "") + "), ")
    hands = (deck + f"{each} cards each" + (f" and a {p.kitty}-card kitty for the maker" if p.kitty else "")
             + (f" and {p.widow} face down each, which a seat may take up after its bid; no fill" if p.widow else "")
             + f", {p.hand_size} tricks; " + (f"{p.second_deal} more cards each once trump is named; " if p.second_deal else ""))
    if p.discard == "keep":
        hands += "nobody discards but the maker, as many as the kitty gave"
    elif p.discard == "choose":
        hands += f"each seat discards at least {p.min_discard}" + (" face up" if p.discards_face_up else "")
    else:
        hands += (f"every trump kept, plain cards chosen to make {p.hand_size}" if p.discard == "to_hand_size"
                  else "every non-trump discarded")
        if p.extra_trumps == "discard":
            hands += f", trumps beyond {p.hand_size} shown and discarded"
        elif p.extra_trumps == "one_per_trick":
            hands += f", trumps beyond {p.hand_size} played one under each trick"
    left = p.stock_size
    if p.rob == "none":
        rob = (f"no rob (the {left} card{'s' if left > 1 else ''} left stay{'' if left > 1 else 's'} face down, unseen)"
               if left > 0 else "no rob (the stock is dealt out)")
    elif p.rob == "free":
        rob = ("the dealer robs freely from the " + ("stock" if p.rob_from == "stock" else "stock and the discards")
               + ", trumps left face up")
    else:
        rob = ("the dealer robs the stock's trumps" if p.rob != "choose" else
               "the dealer robs the cards it needs, or every trump of the stock; cards left stay face down"
               if p.rob_all == "may" else f"the dealer robs the cards it needs (every trump of the stock when more "
               f"than {p.hand_size}); cards left stay face down")
    play = {"follow": "follow suit or trump",
            "trumps_only": "only trumps are played; a hand out of trumps is laid face up and sits out",
            "oregon": "a plain lead allows any card and keeps the lead unless trumped; a seat that cannot follow a "
                      "trump lead throws its hand in",
            "monterey": "follow suit or trump; a seat that cannot follow a trump lead throws its hand in"}[p.play]
    if p.first_lead_trump:
        play += "; the first lead a trump if the maker holds one"
    scoring = ("standard scoring" if p.scoring == "standard" else "difference scoring, set: " + (
        "defenders' points plus the bid" if p.set_rule == "points_plus_bid" else "the deal's total plus the shortfall"))
    if p.defender_discards_to_bidders:
        scoring += ", defenders' discarded points to the bidders"
    if p.full_bid_doubles:
        scoring += f", a made {total} scores {2 * total}"
    end = f"game to {p.target}" + (f" (bidder goes out from {p.deciding_threshold})" if p.deciding_threshold is not None else "")
    end += (", won only by making a bid" if p.win_requires_bid else "") + (
        f", a bid of {p.moon_bid} shoots the moon" if p.moon_bid is not None else "") + (
        f", lost at {p.lose_at}" if p.lose_at is not None else "")
    end += {"play_on": "", "bidders": ", both past it: the bidders win",
            "higher_or_bidders": ", both past it: the higher score, a tie to the bidders",
            "maker_or_best_card": ", several past it: the maker, else the one credited with the deal's highest point card",
            "bidders_or_higher": ", several past it: the maker, then its partner, else the highest score (a tie plays on)",
            }[p.both_reach]
    parts = [bids, forced, points, hands, rob, play, scoring, end]
    if p.sides != "pairs" or p.players != 4:
        table = f"{p.players} seats, " + ("two pairs" if p.sides == "pairs" else "each for himself" if p.sides == "each" else
                                          "the maker and the holder of a " + ("card" if p.call == "card" else "trump")
                                          + " it calls, not in its hand, against the rest" + (" (or the maker alone, every score doubled)" if p.call_alone else ""))
        if p.kitty_before_trump:
            table += f"; the {p.kitty}-card kitty is the maker's before it names trump"
        parts.insert(0, table)
    return f"Rules: {p.name}: " + "; ".join(parts) + "."
