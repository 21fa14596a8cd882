"""The declared metadata (arena.engine.info) agrees with what the engine does:
every decision asked is of a declared kind, no deal is longer than declared,
the per-deal facts credit exactly the deal's points, and a mechanism seen in
play is one the profile declares."""

from __future__ import annotations

import random

import pytest

from arena.engine import DECISION_KINDS, PASS, Game, deal_facts, get_profile, profile_info, profile_names


def games(name: str, n: int):
    for key in range(n):
        game = Game(get_profile(name), key=f"info-{key}", max_deals=6)
        rng = random.Random(key)
        asked: list[tuple[str, str]] = []
        while not game.over:
            choice = game.choice
            asked.append((game.deal.phase, choice.kind))
            game.apply(choice.sample(rng))
        yield game, asked


@pytest.mark.parametrize("name", profile_names())
def test_what_the_engine_does_is_what_the_profile_declares(name):
    info = profile_info(get_profile(name))
    assert info.decision_kinds <= set(DECISION_KINDS) and {"bid", "play"} <= info.decision_kinds
    for game, asked in games(name, 12):
        assert {kind for _, kind in asked} <= info.decision_kinds
        if any(phase == "dark" for phase, _ in asked):
            assert info.dark_bid
        for deal in game.deals:
            acts = [e for e in deal.events if e[0] == "act"]
            assert len(acts) <= info.max_deal_actions
            facts = deal_facts(deal)
            if deal.redeal:
                assert info.redeal and not facts.captures
                continue
            # the facts credit exactly the points the deal scored, each point card once
            assert facts.side_points() == deal.points
            assert sum(c.points for c in facts.captures) == info.deal_points
            assert len({c.card for c in facts.captures}) == len(facts.captures)
            if facts.rebuilt:
                assert info.reshuffle
            if any(c.trick < 0 for c in facts.captures):
                assert info.cards_out_of_play and info.points_out_of_play
            # each capture is named as the profile's point table values it
            values = deal.profile.points.model_dump()
            assert all(values[c.name] == c.points for c in facts.captures)
            for seat, amount, forced in deal.bids:
                if forced and amount:  # the engine bid for the dealer: declared, and in the facts
                    assert info.forced_dealer_bid and facts.dealer_bid == (seat, amount, True)
            if facts.dealer_bid is not None:
                assert info.dealer_must_bid and facts.dealer_bid[2] == info.forced_dealer_bid
            if any(len(t.plays) < deal.n for t in deal.tricks):  # a seat sat the trick out
                assert info.sit_out
            under = any(u for t in deal.tricks for _, _, u in t.plays)
            assert not under or info.long_hands


def test_declarations_of_some_profiles_by_hand():
    pagat = profile_info(get_profile("pagat62"))
    assert pagat.decision_kinds == {"bid", "trump", "rob", "play"} and pagat.forced_dealer_bid and pagat.long_hands
    assert pagat.point_cards == (("high", 1), ("jack", 1), ("game", 1), ("right_pedro", 5), ("left_pedro", 5), ("low", 1))
    assert pagat.max_deal_actions == 4 + 1 + 4 + 1 + 24 and pagat.max_game_actions(200) == 200 * 34
    oregon = profile_info(get_profile("oregon"))
    assert "trump" not in oregon.decision_kinds and oregon.suited_bids and oregon.redeal and not oregon.dealer_must_bid
    chicago = profile_info(get_profile("chicago1890"))
    assert chicago.dealer_must_bid and not chicago.forced_dealer_bid and "discard" in chicago.decision_kinds
    assert not chicago.long_hands and chicago.rob == "free"
    sixty3 = profile_info(get_profile("sixty-three-joker"))
    assert "rob" not in sixty3.decision_kinds and sixty3.joker and not sixty3.reshuffle and sixty3.deal_points == 63
    assert profile_info(get_profile("louisiana-dark")).dark_bid and profile_info(get_profile("monterey-widow")).widow


def test_a_forced_dealer_bid_and_a_reshuffle_are_in_the_facts():
    """pagat62: three passes and the engine bids 7 for the dealer; found over seeded games."""
    seen_forced = seen_rebuilt = False
    for key in range(300):
        game = Game(get_profile("pagat62"), key=f"facts-{key}")
        rng = random.Random(key)
        while len(game.deals) == 1:
            ch = game.choice
            game.apply(PASS if ch.kind == "bid" and ch.can_pass and rng.random() < 0.7 else ch.sample(rng))
        facts = deal_facts(game.deals[0])
        if facts.dealer_bid is not None:
            assert facts.dealer_bid == (game.deals[0].dealer, 7, True)
            seen_forced = True
        if facts.rebuilt:
            assert game.deals[0].reshuffles == len(facts.rebuilt) and set(facts.rebuilt) <= {"fill", "rob"}
            seen_rebuilt = True
        if seen_forced and seen_rebuilt:
            break
    assert seen_forced and seen_rebuilt


@pytest.mark.parametrize("name", profile_names())
def test_a_profile_says_in_words_what_it_lacks(name: str) -> None:
    """``lacks`` is None exactly where the profile has the mechanism or the point card, else a sentence
    (the words a page shows instead of a figure): never a blank."""
    from arena.engine.info import ABSENT

    p = get_profile(name)
    info = profile_info(p)
    for feature in ABSENT:
        words = info.lacks(feature)
        assert (words is None) == bool(getattr(info, feature)), feature
        assert words is None or len(words) > 10
    points = p.points.model_dump()
    for card, value in points.items():
        assert (info.lacks(card) is None) == (value != 0), card
    assert (info.lacks("pedros") is None) == bool(points["right_pedro"] or points["left_pedro"])
    with pytest.raises(KeyError, match="no feature 'widows'"):
        info.lacks("widows")


def test_what_a_profile_lacks_reads_its_rules() -> None:
    pagat, widow, five = (profile_info(get_profile(n)) for n in ("pagat62", "monterey-widow", "five-hand"))
    assert pagat.lacks("widow") == "no seat is dealt a widow" and widow.lacks("widow") is None
    assert pagat.lacks("call") == "the maker calls no partner" and five.lacks("call") is None
    assert pagat.lacks("trumps_leave_play") == "no trump leaves play before the tricks"
    assert widow.lacks("trumps_leave_play") is None  # a widow left lays its cards away
    assert five.lacks("trumps_leave_play") is not None  # its discard keeps every trump
    assert pagat.lacks("king") == "King carries no points" and pagat.lacks("off_jack") == "Off-jack carries no points"
    assert profile_info(get_profile("sixty-three-joker")).lacks("joker") is None
    assert profile_info(get_profile("foster1897")).lacks("dealer_must_bid") == "nobody must bid: four passes void the deal"
