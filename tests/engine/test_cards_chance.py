"""Cards, trump ranking (rules 1-2) and the keyed chance functions (rules 3)."""

from __future__ import annotations

import hashlib
import struct

import pytest

from arena.engine import card_str, derive_key, parse_card, parse_suit
from arena.engine.cards import TRUMP_TABLES
from arena.engine.chance import KeyedSource, deck, first_dealer, reshuffle
from engine_helpers import ALL_CARDS, c, card_points, cs, trump_order


def test_card_text_round_trip_and_errors():
    assert [card_str(parse_card(t)) for t in ALL_CARDS] == ALL_CARDS
    assert sorted(parse_card(t) for t in ALL_CARDS) == list(range(52))
    assert parse_card("10h") == parse_card("TH")
    for bad in ("1H", "5X", "", "AHH", "Z"):
        with pytest.raises(ValueError, match="not a card"):
            parse_card(bad)
    assert parse_suit("h") == parse_suit("H")
    with pytest.raises(ValueError):
        parse_suit("X")


@pytest.mark.parametrize("trump", "CDHS")
def test_trump_ranking_matches_rules_table(trump):
    t = TRUMP_TABLES[parse_suit(trump)]
    order = trump_order(trump)
    assert len(order) == 14 and len(set(order)) == 14
    powers = [t.power[c(x)] for x in order]
    assert powers == sorted(powers, reverse=True) and len(set(powers)) == 14
    # the left pedro sits between the right pedro and the 4 of trump
    sister = {"H": "D", "D": "H", "S": "C", "C": "S"}[trump]
    assert t.power[c("5" + trump)] > t.power[c("5" + sister)] > t.power[c("4" + trump)]
    # it counts as trump, not as its printed suit
    assert t.esuit[c("5" + sister)] == parse_suit(trump)
    assert t.is_trump[c("5" + sister)]
    assert {card_str(x) for x in t.trumps} == set(order)
    # every other card of the sister suit is plain; the plain suits are untouched
    for x in ALL_CARDS:
        if x not in order:
            assert t.power[c(x)] < 0 and not t.is_trump[c(x)]
            assert t.esuit[c(x)] == parse_suit(x[1])
    # sister suit has 12 cards, the other two plain suits 13
    counts = {s: sum(1 for x in ALL_CARDS if t.esuit[c(x)] == parse_suit(s)) for s in "CDHS"}
    assert counts[trump] == 14 and counts[sister] == 12
    assert sorted(counts.values()) == [12, 13, 13, 14]


@pytest.mark.parametrize("trump", "CDHS")
def test_points_total_14_per_trump(trump):
    from arena.engine import RuleProfile

    table = RuleProfile().point_table(parse_suit(trump))
    assert sum(table) == 14
    for x in ALL_CARDS:
        assert table[c(x)] == card_points(x, trump), x
    pointless = {card_str(x) for x in RuleProfile().pointless_trumps(parse_suit(trump))}
    assert pointless == {x for x in trump_order(trump) if card_points(x, trump) == 0}
    assert len(pointless) == 8


# -- chance (rules 3) -------------------------------------------------------


def _spec_words(label: str, parts: tuple, n: int) -> list[int]:
    """The stream exactly as the chance.py docstring specifies it."""
    text = "cinch/v1|" + label + "|" + "|".join(str(p) for p in parts)
    raw = hashlib.shake_256(text.encode()).digest(8 * n)
    return [struct.unpack_from("<Q", raw, 8 * i)[0] for i in range(n)]


def _spec_shuffle(items: list[int], label: str, parts: tuple) -> list[int]:
    items = list(items)
    w = _spec_words(label, parts, len(items))
    for i in range(len(items) - 1, 0, -1):
        j = w[i] % (i + 1)
        items[i], items[j] = items[j], items[i]
    return items


@pytest.mark.parametrize("key", [0, 1, "abc", "tournament-7/3", 123456789])
def test_chance_follows_its_documented_specification(key):
    assert first_dealer(key) == _spec_words("dealer", (key,), 1)[0] % 4
    for k in range(3):
        assert deck(key, k) == _spec_shuffle(list(range(52)), "deck", (key, k))
    pile = cs("KS 2C 9D AH 3C TD")
    for j in range(2):
        assert reshuffle(key, 4, j, pile) == _spec_shuffle(sorted(pile), "reshuffle", (key, 4, j))


def test_chance_is_deterministic_and_a_permutation():
    for key in range(200):
        d = deck(key, key % 5)
        assert d == deck(key, key % 5)
        assert sorted(d) == list(range(52))
        assert first_dealer(key) in range(4)
        assert first_dealer(key) == first_dealer(key)
    # different deals and keys differ (a collision would be astronomically unlikely)
    assert deck(1, 0) != deck(1, 1) != deck(2, 1)
    # integer 7 and text "7" are the same key
    assert deck(7, 0) == deck("7", 0) and first_dealer(7) == first_dealer("7")


def test_first_dealer_uses_all_four_seats():
    counts = [0, 0, 0, 0]
    for key in range(2000):
        counts[first_dealer(key)] += 1
    assert all(350 < n < 650 for n in counts), counts


def test_deck_positions_look_uniform():
    """Crude sanity check of the shuffle: each card's top-position frequency."""
    tops = [0] * 52
    for key in range(5200):
        tops[deck(key, 0)[0]] += 1
    assert min(tops) > 50 and max(tops) < 160


def test_reshuffle_depends_only_on_the_pile_contents():
    pile = cs("KS 2C 9D AH 3C TD 7S 8S")
    out = reshuffle("k", 0, 0, pile)
    assert sorted(out) == sorted(pile)
    assert reshuffle("k", 0, 0, list(reversed(pile))) == out
    assert reshuffle("k", 0, 0, sorted(pile)) == out
    assert reshuffle("k", 0, 1, pile) != out or reshuffle("k", 1, 0, pile) != out
    assert reshuffle("k", 0, 0, []) == [] and reshuffle("k", 0, 0, [5]) == [5]


def test_keyed_source_and_derive_key():
    s = KeyedSource(42)
    assert s.key == "42" and s.first_dealer() == first_dealer(42)
    assert s.deck(3) == deck(42, 3) and s.origin(0) == "key"
    assert derive_key("t", 1) == derive_key("t", 1)
    assert derive_key("t", 1) != derive_key("t", 2) != derive_key("t2", 1)
    assert isinstance(derive_key(1), str) and len(derive_key(1)) == 24
