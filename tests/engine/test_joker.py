"""The joker (docs/rules.md 12.11, `sixty-three-joker`): card 52 written JK, the
lowest trump whatever suit is named, a 53-card keyed deck, deal files and
records of 53 cards, and the one card the second deal leaves out of play."""

from __future__ import annotations

import hashlib
import json
import random
import struct

import pytest

from arena.engine import (
    DealFile,
    FileSource,
    Game,
    PointValues,
    ReplayMismatch,
    RuleProfile,
    card_str,
    cards_str,
    game_record,
    get_profile,
    load_record,
    parse_card,
    replay,
    variant,
)
from arena.engine.cards import CARD_INDEX, JOKER, TRUMP_TABLES
from arena.engine.chance import deck
from arena.engine.record import record_version
from arena.engine.view import deal_view
from engine_helpers import c, trump_order

JK = get_profile("sixty-three-joker")


def _spec_deck(key: object, k: int, n: int) -> list[int]:
    """Fisher-Yates over cards 0..n-1 with n words of the documented stream (records.md)."""
    raw = hashlib.shake_256(f"cinch/v1|deck|{key}|{k}".encode()).digest(8 * n)
    w = struct.unpack(f"<{n}Q", raw)
    items = list(range(n))
    for i in range(n - 1, 0, -1):
        j = w[i] % (i + 1)
        items[i], items[j] = items[j], items[i]
    return items


def _played(profile: RuleProfile, key: str, max_deals: int = 3, source=None) -> Game:
    g = Game(profile, key=key, max_deals=max_deals, source=source)
    rng = random.Random(key)
    while not g.over:
        g.apply(g.choice.sample(rng))
    return g


def test_the_joker_is_card_52_written_jk():
    assert JOKER == 52 and card_str(JOKER) == "JK" and CARD_INDEX["JK"] == JOKER
    assert parse_card("JK") == parse_card(" jk ") == JOKER
    assert cards_str([0, JOKER, 51]) == ["2C", "JK", "AS"]
    for bad in ("J", "JKK", "KJ", "JX"):
        with pytest.raises(ValueError, match="not a card"):
            parse_card(bad)


@pytest.mark.parametrize("trump", "CDHS")
def test_the_joker_is_the_lowest_trump_of_any_suit(trump):
    t = JK.trump_table("CDHS".index(trump))
    order = [c(x) for x in trump_order(trump)]  # the 14 trumps of pagat62, highest first
    assert t.is_trump[JOKER] and t.esuit[JOKER] == "CDHS".index(trump)
    assert all(t.power[x] > t.power[JOKER] >= 0 for x in order)
    assert t.trumps == frozenset(order) | {JOKER}
    # without the joker in the deck the tables know no such card
    plain = TRUMP_TABLES["CDHS".index(trump)]
    assert not plain.is_trump[JOKER] and JOKER not in plain.trumps and plain.power[JOKER] < 0


@pytest.mark.parametrize("trump", range(4))
def test_sixty_three_joker_points(trump):
    table = JK.point_table(trump)
    assert sum(table) == 63 == JK.deal_points
    assert table[JOKER] == 15 and table[c("3" + "CDHS"[trump])] == 0 and table[c("2" + "CDHS"[trump])] == 1
    assert JOKER not in JK.pointless_trumps(trump)
    assert JK.low_card(trump) == c("2" + "CDHS"[trump])  # Low stays the trump 2 ([decision])
    # a joker worth nothing is a pointless trump (it may go under a top card)
    free = variant(JK, name="jk0", points=PointValues(king=25, nine=9, three=15))
    assert JOKER in free.pointless_trumps(trump)


def test_profile_fields_and_their_errors():
    assert (JK.deck_size, JK.stock_size, JK.shuffled_cards) == (53, 1, 53)
    assert JK.deck_cards == frozenset(range(53))
    rd = JK.record_dict()
    assert rd["joker"] is True and rd["points"]["joker"] == 15 and "three" not in rd["points"]
    assert RuleProfile.model_validate(rd) == JK and record_version(JK) == 3
    plain = get_profile("sixty-three").record_dict()
    assert "joker" not in plain and "joker" not in plain["points"]
    with pytest.raises(ValueError, match="points.joker"):
        RuleProfile(points=PointValues(joker=1))
    with pytest.raises(ValueError, match="rob: 'none'"):  # a dealer with nothing to fill from
        RuleProfile(rob="none")
    with pytest.raises(ValueError, match="rob: 'take_trumps' needs a stock"):
        variant("sixty-three", name="x", rob="take_trumps")
    # a joker in a short deck: the 32 cards and the joker
    short = variant("lipton", name="lipton-jk", joker=True, kitty=5)
    assert short.deck_size == 33 and JOKER in short.deck_cards and short.stock_size == 0
    g = _played(short, "short-jk", max_deals=2)
    assert all(set(d.deck) == short.deck_cards and len(d.deck) == 33 for d in g.deals)
    with pytest.raises(ValueError, match="rob: 'none' needs|deal more than the 33 cards"):
        variant("lipton", name="x", joker=True, kitty=6)


def test_a_joker_profile_deals_the_documented_53_card_shuffle():
    assert deck("k", 2, 53) == _spec_deck("k", 2, 53)
    assert deck("k", 2) == _spec_deck("k", 2, 52)  # 52-card profiles: unchanged
    g = Game(JK, key="spec")
    assert list(g.deal.deck) == _spec_deck("spec", 0, 53)


def test_the_card_left_after_the_second_deal_is_out_of_play_and_unseen():
    g = Game(JK, key="left-over")
    rng = random.Random(3)
    seen_jk = False
    for _ in range(40):
        deal = g.deal
        while g.deal is deal and not g.over:
            last = deal.deck[-1]
            for seat in range(4):  # nobody, dealer included, ever sees the last card
                assert last not in deal_view(deal, seat).cards_named()
            g.apply(g.choice.sample(rng))
        if deal.redeal:
            continue
        assert deal.stock == [last] and all(last not in h for h in deal.hands)
        assert (-1, last) in deal.out  # laid away by nobody
        assert sum(deal.points) + deal.lost == 63 and deal.lost >= JK.point_table(deal.trump)[last]
        seen_jk |= any(card == JOKER for t in deal.tricks for _, card, _ in t.plays)
        if g.over:
            break
    assert seen_jk


def test_a_joker_game_record_replays_and_a_tampered_one_does_not():
    g = _played(JK, "jk-record")
    rec = json.loads(json.dumps(game_record(g)))
    assert rec["version"] == 3 and all(len(d["deck"]) == 53 and "JK" in d["deck"] for d in rec["deals"])
    assert game_record(replay(rec)) == rec
    moved = json.loads(json.dumps(rec))
    d0 = moved["deals"][0]["deck"]
    i = d0.index("JK")
    d0[i], d0[-1] = d0[-1], d0[i]  # the joker swapped with the undealt card
    with pytest.raises(ReplayMismatch):
        replay(moved)
    short = json.loads(json.dumps(rec))
    short["deals"][0]["deck"].remove("JK")
    with pytest.raises(ValueError, match="a deck of 52 cards, the profile deals 53"):
        load_record(short)


def test_deal_files_of_53_cards(tmp_path):
    df = DealFile.from_key("jk-file", 2, JK.shuffled_cards)
    assert all(len(d.deck) == 53 and "JK" in d.deck for d in df.deals)
    df.save(tmp_path / "d.json")
    loaded = DealFile.load(tmp_path / "d.json")
    assert loaded == df
    loaded.check_profile(JK)
    g = _played(JK, "after", max_deals=3, source=FileSource(loaded, "after"))
    assert [cards_str(d.deck) for d in g.deals[:2]] == [d.deck for d in df.deals]
    assert g.deals[2].origin == "key-after-file" and len(g.deals[2].deck) == 53
    # the wrong size for the profile is refused, naming the deal and what the profile deals
    with pytest.raises(ValueError, match=r"deals\.0\.deck: 53 cards \(with the joker JK\), but profile 'pagat62' deals the 52 cards, no joker"):
        loaded.check_profile(get_profile("pagat62"))
    plain = DealFile.from_key("jk-file", 1)
    with pytest.raises(ValueError, match=r"deals\.0\.deck: 52 cards \(without the joker\), but profile 'sixty-three-joker' deals the 52 cards and the joker JK"):
        plain.check_profile(JK)
    with pytest.raises(ValueError, match="not a permutation of the profile's 53 cards"):
        Game(JK, source=FileSource(plain, "x"))
    # a deck must be the 52 or the 52 and the joker, each card once
    bad = df.model_dump()
    bad["deals"][0]["deck"][0] = bad["deals"][0]["deck"][1]
    with pytest.raises(ValueError, match="exactly once"):
        DealFile.model_validate(bad)


def test_the_joker_is_a_general_field_a_robbing_profile_can_use_too():
    """pagat62 with the joker (a club's own variant): the stock of 17 is robbed, the joker
    is a trump the dealer must take and a long hand may play it under its top card."""
    from arena.engine.conformance import check_profile

    p = variant("pagat62", name="pagat62-joker", joker=True, max_bid=15,
                points=PointValues(joker=1))
    assert (p.deck_size, p.stock_size, p.deal_points) == (53, 17, 15)
    report = check_profile(p, games=6, seed=3, max_deals=8)
    assert report.ok and report.decisions > 0
    took = 0
    for k in range(60):
        g = Game(p, key=f"rob-jk-{k}", max_deals=1)
        rng = random.Random(k)
        while not g.over and g.deal.phase != "rob":
            g.apply(g.choice.sample(rng))
        if g.over:
            continue
        ch = g.choice
        if JOKER in g.deal.stock:
            assert JOKER in ch.must_take  # a trump of the stock: the dealer takes it (rules 5.4)
            took += 1
    assert took > 0


def test_the_joker_is_foreign_to_a_profile_without_it():
    """Under pagat62 JK is a card no rule allows: played, it is refused naming JK; in a
    record's deck in place of a card, the record does not replay."""
    from arena.engine import IllegalAction, Play, action_from_dict

    g = Game(get_profile("pagat62"), key="no-joker")
    rng = random.Random(0)
    while g.choice.kind != "play":
        g.apply(g.choice.sample(rng))
    with pytest.raises(IllegalAction, match="JK"):
        g.apply(action_from_dict({"type": "play", "card": "JK"}))
    rec = json.loads(json.dumps(game_record(_played(get_profile("pagat62"), "no-joker-rec", max_deals=1))))
    rec["deals"][0]["deck"][-1] = "JK"
    with pytest.raises(ReplayMismatch, match="not a permutation of the profile's 52 cards"):
        replay(rec)
