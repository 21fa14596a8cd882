"""The SDK's helpers agree with the engine: cards, trump order, points, legality, sampling."""

from __future__ import annotations

import random
from collections import Counter

from arena.engine import action_from_dict
from arena.engine.cards import TRUMP_TABLES
from arena.engine.profile import RuleProfile

import cinch_bot as sdk
from cinch_bot.legal import is_legal, random_legal


def test_card_parsing_and_colours():
    assert sdk.rank("TD") == "T" and sdk.suit("TD") == "D"
    assert sdk.card_index("10h") == sdk.card_index("TH")
    assert sdk.sister_suit("H") == "D" and sdk.sister_suit("S") == "C"
    assert sdk.left_pedro("S") == "5C"
    assert sdk.is_trump("5C", "S") and not sdk.is_trump("5C", "H")
    assert sdk.effective_suit("5D", "H") == "H" and sdk.effective_suit("6D", "H") == "D"


def test_trump_order_and_points_match_engine():
    prof = RuleProfile()
    for t, s in enumerate("CDHS"):
        order = sdk.trumps_high_to_low(s)
        assert [("L" if c == sdk.left_pedro(s) else c[0]) for c in order] == list(sdk.TRUMP_ORDER)
        engine_order = sorted(TRUMP_TABLES[t].trumps, key=lambda c: -TRUMP_TABLES[t].power[c])
        assert [sdk.card_index(c) for c in order] == engine_order
        table = prof.point_table(t)
        assert [sdk.card_points(n, s) for n in sdk.CARD_NAMES] == list(table)
        assert sum(sdk.card_points(n, s) for n in sdk.CARD_NAMES) == 14


def test_trick_winner_worked_example():
    # docs/rules.md section 6: hearts trump, KC 5D 6H 5H -> 6H (third card) wins.
    assert sdk.trick_winner(["KC", "5D", "6H", "5H"], "H") == 2
    assert sdk.trick_winner(["KC", "AC", "2D", "QC"], "H") == 1


def test_the_joker_in_the_sdk():
    """JK parses, is a trump of every suit with no printed suit, ranks below the 2
    and carries the profile's points (sixty-three-joker, rules 12.11)."""
    from arena.engine import get_profile

    jk = get_profile("sixty-three-joker").model_dump(mode="json")
    assert sdk.card_index("JK") == sdk.card_index("jk") == sdk.JOKER == 52 and sdk.card_name(52) == "JK"
    assert sdk.names([0, 52]) == ["2C", "JK"] and sdk.indices(["JK", "AS"]) == [52, 51]
    assert (sdk.rank("JK"), sdk.suit("JK"), sdk.rank_value("JK")) == ("JK", "", -1)
    for s in "CDHS":
        assert sdk.is_trump("JK", s) and sdk.effective_suit("JK", s) == s
        assert sdk.trumps_high_to_low(s, jk)[-2:] == ["2" + s, "JK"]  # the lowest trump
        assert sdk.trump_power("JK", s, jk) == 0 < sdk.trump_power("2" + s, s, jk)
        assert sdk.card_points("JK", s, jk) == 15 and sdk.card_points("3" + s, s, jk) == 0
    assert sdk.trick_winner(["4C", "JK", "2H", "AC"], "H", jk) == 2  # the 2 of trumps beats the joker
    assert sdk.trick_winner(["AC", "JK", "KC", "QC"], "H", jk) == 1  # the joker trumps a plain lead
    assert len(sdk.deck_of(jk)) == 53 and 52 in sdk.deck_of(jk) and 52 not in sdk.deck_of(None)
    assert sum(sdk.tables_for(jk)[2].points) == 63


def test_random_legal_is_legal_for_every_kind(states):
    rng = random.Random(3)
    kinds = Counter()
    for st in states:
        action = random_legal(st.legal, st.kind, rng)
        assert st.choice.is_legal(action_from_dict(action)), (st.legal, action)
        assert is_legal(action, st.legal, st.kind)
        kinds[st.kind] += 1
        if st.kind == "play" and st.legal["under"]:
            kinds["under"] += 1
    assert set(kinds) == {"bid", "trump", "rob", "play", "under"}


def test_random_legal_rob_is_spread_over_subsets(states):
    st = next(s for s in states if s.kind == "rob" and len(s.legal["from"]) >= s.legal["take"] + 2 and s.legal["take"] >= 1)
    rng = random.Random(5)
    picks = Counter(frozenset(random_legal(st.legal, "rob", rng)["take"]) for _ in range(300))
    assert len(picks) >= 3
    assert all(len(p) == st.legal["take"] for p in picks)


def test_is_legal_rejects_what_the_engine_rejects(states):
    rng = random.Random(9)
    for st in states[:3000]:
        if st.kind == "play":
            bad = {"type": "play", "card": next(c for c in sdk.CARD_NAMES if c not in st.legal["cards"])}
        elif st.kind == "rob":
            bad = {"type": "rob", "take": st.legal["from"][: st.legal["take"] + 1]}
        elif st.kind == "bid":
            bad = {"type": "bid", "amount": 6}
        else:
            bad = {"type": "pass"}
        if st.kind == "play" and st.legal["under"]:
            good = random_legal(st.legal, "play", rng)
            dup = dict(good, under=[good["card"]] * st.legal["under"])
            assert not is_legal(dup, st.legal, "play")
        assert not is_legal(bad, st.legal, st.kind)
        assert not st.choice.is_legal(action_from_dict(bad))
