"""A profile's rules in words (issue 45): each profile field is put into words by one clause of the
engine's rules line, and the line reads as it did before the clauses were declared."""

from __future__ import annotations

import pytest

from arena.engine import RULES, RuleProfile, forced_bid, get_profile, profile_names, rules_text, variant


def test_every_profile_field_is_put_into_words_by_one_clause() -> None:
    """A field added to RuleProfile without its words (or claimed by two clauses) fails here."""
    owned = [f for rule in RULES for f in rule.fields]
    assert sorted(owned) == sorted(set(owned)), "a field owned by two clauses"
    assert set(owned) == set(RuleProfile.model_fields) - {"name"}


@pytest.mark.parametrize("name", profile_names())
def test_the_rules_line_is_its_clauses_words(name: str) -> None:
    p = get_profile(name)
    parts = [w for rule in RULES if (w := rule.words(p))]
    assert rules_text(p) == f"Rules: {name}: " + "; ".join(parts) + "."
    assert all(w.strip() == w and not w.endswith(";") for w in parts)


def test_the_rules_lines_read_as_before() -> None:
    """Pinned: the viewer's rules line did not change when the clauses were declared."""
    assert rules_text(get_profile("pagat62")) == (
        "Rules: pagat62: bids 7-14, one round; after three passes the dealer must bid 7; 14 points a deal (High 1, "
        "Low 1, Jack 1, Game 1, pedros 5 and 5; Low to its holder); 9 cards each, 6 tricks; every non-trump "
        "discarded; the dealer robs the stock's trumps; follow suit or trump; standard scoring; game to 62 (bidder "
        "goes out from 55).")
    assert rules_text(get_profile("five-hand")) == (
        "Rules: five-hand: 5 seats, the maker and the holder of a card it calls, not in its hand, against the rest; "
        "the 2-card kitty is the maker's before it names trump; bids 6-16, one round; after three passes the dealer "
        "must bid 6; 16 points a deal (High 1, Low 1, Jack 3, Game 1, pedros 5 and 5; Low to its capturer); 10 cards "
        "each and a 2-card kitty for the maker, 6 tricks; every trump kept, plain cards chosen to make 6, trumps "
        "beyond 6 played one under each trick; no rob (the stock is dealt out); follow suit or trump; standard "
        "scoring; game to 104, several past it: the maker, then its partner, else the highest score (a tie plays on).")


def test_a_changed_field_changes_its_own_clause_only() -> None:
    base = get_profile("pagat62")
    for field, value in (("bid_start", "right"), ("first_lead_trump", True), ("moon_bid", 14), ("lose_at", -50),
                         ("full_bid_doubles", True), ("dealer_forced_bid", None), ("dark_bid", 20)):
        changed = variant(base, name="pagat62-x", **{field: value})
        owner = next(r for r in RULES if field in r.fields)
        differ = [r.name for r in RULES if r.words(changed) != r.words(base)]
        assert differ == [owner.name], field


def test_the_forced_bid_is_said_once() -> None:
    assert [forced_bid(get_profile(n)) for n in ("pagat62", "louisiana", "foster1897")] == ["7", "6 or more", None]
    assert "after three passes the dealer must bid 6 or more" in rules_text(get_profile("louisiana"))
    assert "four passes void the deal (redeal)" in rules_text(get_profile("foster1897"))
