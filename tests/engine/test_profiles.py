"""The rule profiles of docs/rules.md section 11: each mechanism on decks
built to order, the registry, and the generic conformance check (which must
pass for every profile and must fail for a broken engine)."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from arena.engine import (
    PASS,
    PROFILES,
    Bid,
    Discard,
    Game,
    IllegalAction,
    NameTrump,
    PointValues,
    Play,
    Rob,
    RuleProfile,
    TakeWidow,
    cards_str,
    game_record,
    get_profile,
    profile_names,
    replay,
    variant,
)
from arena.engine.actions import BidChoice
from arena.engine.conformance import ConformanceError, check_profile
from arena.engine.deal import Deal
from engine_helpers import ScriptSource, build_deck, c, card_points, cs, make_deal

SEED_PROFILES = [
    "pagat62", "italian91", "louisiana", "california", "foster1897", "bicycle", "chicago1890", "ru51", "pidro",
    "oregon", "sixty-three", "sixty-three-joker", "lipton", "monterey-draw", "louisiana-dark", "monterey-widow",
    "eighty-three", "eighty-three-joker",
]


# -- the registry -------------------------------------------------------------


def test_every_seed_profile_is_registered_and_round_trips_through_its_record_form():
    assert set(SEED_PROFILES) <= set(profile_names())
    for name in SEED_PROFILES:
        p = get_profile(name)
        assert p.name == name
        assert RuleProfile.model_validate(json.loads(json.dumps(p.record_dict()))) == p


def test_pagat62_record_form_has_exactly_the_fields_its_records_always_had():
    assert list(get_profile("pagat62").record_dict()) == [
        "name", "target", "deciding_threshold", "min_bid", "max_bid", "dealer_forced_bid", "hand_size", "points",
        "low_goes_to", "scoring", "extra_trumps", "rob_from",
    ]
    # a later field appears only where a profile changes it
    assert get_profile("ru51").record_dict()["auction"] == "until_three_pass"
    assert "auction" not in get_profile("foster1897").record_dict()


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"max_bid": 15}, "max_bid"),
        ({"discard": "choose", "min_discard": 1}, "min_discard"),
        ({"rob_from": "stock_and_discards"}, "rob_from"),
        ({"moon_bid": 20}, "moon_bid"),
        ({"scoring": "difference"}, "set_rule"),
        ({"set_rule": "total_plus_gap"}, "set_rule"),
        ({"dealer_forced_bid": 0}, "dealer_forced_bid"),
        ({"discard": "choose", "min_discard": 3, "extra_trumps": "discard"}, "extra_trumps"),
        ({"hand_size": 7}, "hand_size"),
    ],
)
def test_an_impossible_combination_is_refused_naming_the_field(changes, field):
    with pytest.raises(ValueError, match=field):
        RuleProfile(**changes)


def test_variant_is_validated_again():
    moon = variant("california", name="california-moon", moon_bid=14)
    assert moon.moon_bid == 14 and moon.points.jack == 3
    with pytest.raises(ValueError, match="moon_bid"):
        variant("california", moon_bid=3)


# -- bidding ------------------------------------------------------------------


def _asked_order(deal: Deal, bids: list[int | None]) -> list[int]:
    seats = []
    for amount in bids:
        seats.append(deal.to_act)
        deal.apply(PASS if amount is None else Bid(amount))
    return seats


def test_california_bids_from_the_dealers_right_anticlockwise_dealer_last():
    deal, _ = make_deal(build_deck(0, {}), dealer=0, profile=get_profile("california"))
    assert _asked_order(deal, [6, None, 7, None]) == [3, 2, 1, 0]
    assert deal.maker == 1 and deal.high == 7 and deal.phase == "trump"


@pytest.mark.parametrize("name", ["louisiana", "louisiana-dark"])
def test_louisiana_dealer_after_three_passes_may_bid_six_besides_its_ordinary_bids(name):
    """seeds/004: "if nobody bids, the dealer is allowed to bid 6": an extra bid below the
    minimum of 7, not the dealer's only option (it was forced at 6)."""
    deal, _ = make_deal(build_deck(2, {}), dealer=2, profile=get_profile(name))
    while deal.phase == "dark":
        deal.apply(PASS)
    choice = deal.choice
    assert choice.amounts[0] == 7  # the first seat may not bid 6
    for _ in range(3):
        deal.apply(PASS)
    choice = deal.choice
    assert deal.to_act == 2 and not choice.can_pass and choice.amounts == tuple(range(6, 15))
    with pytest.raises(IllegalAction):
        deal.apply(PASS)
    deal.apply(Bid(9))
    assert deal.bids[-1] == (2, 9, False) and deal.maker == 2 and deal.phase == "trump"


def test_chicago_dealer_must_bid_but_chooses_the_amount():
    deal, _ = make_deal(build_deck(1, {}), dealer=1, profile=get_profile("chicago1890"))
    for _ in range(3):
        deal.apply(PASS)
    choice = deal.choice
    assert deal.to_act == 1 and not choice.can_pass and choice.amounts == tuple(range(1, 15))
    with pytest.raises(IllegalAction):
        deal.apply(PASS)
    deal.apply(Bid(4))
    assert deal.maker == 1 and deal.high == 4


def test_ru51_auction_goes_round_until_three_have_passed_and_a_pass_is_final():
    deal, _ = make_deal(build_deck(0, {}), dealer=0, profile=get_profile("ru51"))
    # 1 bids 1, 2 bids 2, 3 passes, 0 bids 3, 1 bids 4, 2 passes, 0 passes: 1 wins at 4
    assert _asked_order(deal, [1, 2, None, 3, 4, None, None]) == [1, 2, 3, 0, 1, 2, 0]
    assert deal.maker == 1 and deal.high == 4 and deal.phase == "trump"


def test_ru51_three_passes_at_the_start_leave_the_dealer_to_bid():
    deal, _ = make_deal(build_deck(3, {}), dealer=3, profile=get_profile("ru51"))
    assert _asked_order(deal, [None, None, None]) == [0, 1, 2]
    assert deal.to_act == 3 and not deal.choice.can_pass


def test_foster_all_pass_is_a_redeal_that_scores_nothing_and_replays():
    decks = [build_deck(0, {}), build_deck(1, {})]
    game = Game(get_profile("foster1897"), source=ScriptSource(decks, 0, "redeal"))
    for _ in range(4):
        game.apply(PASS)
    first = game.deals[0]
    assert first.redeal and first.done and first.scores_after == (0, 0) and first.maker is None
    assert len(game.deals) == 2 and game.deal.dealer == 1 and not game.over
    view = game.view(2).to_dict()
    assert view["previous"][0]["redeal"] is True and view["previous"][0]["maker"] is None
    rec = json.loads(json.dumps(game_record(game)))
    assert rec["deals"][0]["redeal"] is True and "points" not in rec["deals"][0]
    assert game_record(replay(rec)) == rec


# -- discards, the rob, cards out of play ---------------------------------------

FOSTER_HANDS = {  # dealer 0; seat 1 bids, hearts
    1: "KH QH 9H 2C 3C 4C 6C 7C 8C",
    2: "AH 3H 2S 3S 4S 6S 7S 8S 9S",
    3: "JH 4H 2D 3D 4D 6D 7D 8D 9D",
    0: "TH 6H 9C TC JC QC KC AC 2H",
}
FOSTER_STOCK = "5H 5D 7H 8H TS JS QS KS AS TD JD QD KD AD 5C 5S"


def _foster_to_discards(profile: str = "foster1897") -> Deal:
    deal, _ = make_deal(build_deck(0, FOSTER_HANDS, FOSTER_STOCK), dealer=0, profile=get_profile(profile))
    deal.apply(Bid(3))
    for _ in range(3):
        deal.apply(PASS)
    deal.apply(NameTrump(2))
    return deal


def test_foster_each_seat_in_turn_discards_at_least_three_face_up():
    deal = _foster_to_discards()
    assert deal.phase == "discard" and deal.to_act == 1
    choice = deal.choice
    assert (choice.kind, choice.least, choice.most) == ("discard", 3, 9)
    with pytest.raises(IllegalAction):
        deal.apply(Discard(tuple(cs("2C 3C"))))  # fewer than three
    deal.apply(Discard(tuple(cs("2C 3C 4C 6C 7C 8C"))))
    assert deal.to_act == 2
    # discards are public: every seat's view shows them
    for seat in range(4):
        assert deal_shown(deal, seat)[1] == ["2C", "3C", "4C", "6C", "7C", "8C"]


def deal_shown(deal: Deal, seat: int) -> list[list[str]]:
    from arena.engine.view import deal_view

    return deal_view(deal, seat).to_dict()["shown"]


def test_foster_free_rob_leftover_trumps_face_up_and_defenders_discards_count_for_bidders():
    deal = _foster_to_discards()
    deal.apply(Discard(tuple(cs("2C 3C 4C 6C 7C 8C"))))  # seat 1 (bidder) keeps KH QH 9H
    deal.apply(Discard(tuple(cs("AH 2S 3S 4S 6S 7S"))))  # seat 2 (defender) throws the ace of trumps
    deal.apply(Discard(tuple(cs("JH 2D 3D 4D 6D 7D"))))  # seat 3 (bidder) throws the jack of trumps
    deal.apply(Discard(tuple(cs("9C TC JC"))))  # the dealer (defender) keeps six
    # fill, one hand after the other from the dealer's left: three cards each
    assert cards_str(deal.received[1]) == ["5H", "5D", "7H"]
    assert cards_str(deal.received[2]) == ["8H", "TS", "JS"]
    assert cards_str(deal.received[3]) == ["QS", "KS", "AS"]
    # the dealer holds six already: nothing to take, so the (forced) rob leaves the stock's trumps
    assert deal.phase == "play"
    assert deal.events[-1][2] == Rob(())
    assert deal_shown(deal, 1)[0] == ["9C", "TC", "JC"]  # its discards; TD .. AD 5C 5S hold no trump
    rng = random.Random(3)
    while not deal.done:
        deal.apply(deal.choice.sample(rng))
    # independent count: trick points (Low to the capturer) + AH for the bidders; JH is lost
    pts = [0, 0]
    for t in deal.tricks:
        for _, top, under in t.plays:
            for x in (top, *under):
                pts[t.winner % 2] += card_points(cards_str([x])[0], "H")
    pts[1] += 1  # AH, discarded by a defender
    assert list(deal.points) == pts and deal.lost == 1
    assert sum(deal.points) + deal.lost == 14


def test_foster_dealer_leaving_trumps_in_the_stock_lays_them_face_up_out_of_play():
    hands = dict(FOSTER_HANDS)
    deal, _ = make_deal(build_deck(0, hands, FOSTER_STOCK), dealer=0, profile=get_profile("foster1897"))
    deal.apply(Bid(3))
    for _ in range(3):
        deal.apply(PASS)
    deal.apply(NameTrump(2))
    for seat_discard in ("2C 3C 4C", "2S 3S 4S", "2D 3D 4D", "9C TC JC QC KC AC"):
        deal.apply(Discard(tuple(cs(seat_discard))))
    # 1, 2, 3 hold six; the dealer (TH 6H 2H) needs three from the whole stock
    choice = deal.choice
    assert choice.kind == "rob" and choice.count == 3 and choice.must_take == ()
    assert set(cards_str(choice.candidates)) == set(FOSTER_STOCK.split())
    deal.apply(Rob(tuple(cs("5H 5D 7H"))))
    assert cards_str(deal.shown[0]) == ["9C", "TC", "JC", "QC", "KC", "AC", "8H"]  # its discards, then the stock's last trump
    assert (0, c("8H")) in deal.out and c("8H") not in deal.stock
    for seat in (1, 2, 3):
        assert "8H" in deal_shown(deal, seat)[0]
        assert "KS" not in {x for cards in deal_shown(deal, seat) for x in cards}


def test_ru51_extra_trumps_are_shown_and_discarded_and_the_dealer_robs_the_discards_too():
    hands = {
        1: "AH KH QH JH TH 9H 8H 7H 2C",  # eight trumps
        2: "2S 3S 4S 6S 7S 8S 9S TS JS",
        3: "2D 3D 4D 6D 7D 8D 9D TD JD",
        0: "3C 4C 6C 7C 8C 9C TC JC QC",
    }
    deal, _ = make_deal(build_deck(0, hands), dealer=0, profile=get_profile("ru51"))
    deal.apply(Bid(5))
    for _ in range(3):
        deal.apply(PASS)
    deal.apply(NameTrump(2))
    choice = deal.choice
    assert (deal.phase, deal.to_act, choice.least, choice.most) == ("discard", 1, 2, 2)
    with pytest.raises(IllegalAction):
        deal.apply(Discard(tuple(cs("2C 7H"))))  # the 2C was discarded already: not in the hand
    deal.apply(Discard(tuple(cs("8H 7H"))))
    assert sorted(cards_str(deal.shown[1])) == ["7H", "8H"]
    rob = deal.choice
    assert rob.kind == "rob" and deal.to_act == 0
    pool = set(cards_str(rob.candidates))
    assert {"2C", "2S", "JD", "3C"} <= pool  # the face-down discards, the dealer's own included
    assert not {"7H", "8H"} & pool  # shown extras are out of play
    from arena.engine.view import deal_view

    assert set(cards_str(deal_view(deal, 0).rob_stock)) == pool
    assert deal_view(deal, 2).rob_stock is None


def test_pidro_only_trumps_are_played_and_a_hand_out_of_trumps_sits_out():
    from arena.engine.view import deal_view

    for k in range(40):
        deal, _ = make_deal(build_deck(k % 4, {}, ()), dealer=k % 4, profile=get_profile("pidro"))
        rng = random.Random(k)
        while not deal.done:
            ch = deal.choice
            if ch.kind == "play":
                trumps = deal.table.trumps
                assert set(ch.cards) == {x for x in deal.hands[ch.seat] if x in trumps}
                for s in range(4):  # a seat out of the trick holds nothing: its hand is face up
                    if s not in deal._in_trick:
                        assert deal.hands[s] == []
            deal.apply(PASS if ch.kind == "bid" and ch.can_pass and rng.random() < 0.3 else ch.sample(rng))
        if deal.redeal:
            continue
        trumps = deal.table.trumps
        held_at_play = {s: [x for t in deal.tricks for seat, x, _ in t.plays if seat == s] for s in range(4)}
        # each trick has one card per seat that still held a trump when it began
        for i, t in enumerate(deal.tricks):
            still_in = {s for s in range(4) if len(held_at_play[s]) > i}
            assert {seat for seat, _, _ in t.plays} == still_in
        assert all(x in trumps for x in (c for t in deal.tricks for _, c, _ in t.plays))
        assert all(not h for h in deal.hands)  # every hand played out or laid face up
        shown = deal_view(deal, (k + 1) % 4).to_dict()["shown"]  # what every seat sees
        for s in range(4):
            held = (set(deal.dealt[s]) | set(deal.received[s])) - set(deal.discarded[s])
            laid = set(cards_str(held - set(held_at_play[s])))
            assert laid <= set(shown[s]) and set(shown[s]) == set(cards_str(deal.shown[s]))


# -- scoring and the end of the game ---------------------------------------------


class _Scorer:
    """The scoring rules of docs/rules.md 7 and 11, written from the document."""

    def __init__(self, p: RuleProfile, b: int, bid: int, pts: tuple[int, int], dark: bool = False) -> None:
        self.p, self.b, self.bid, self.pts, self.dark = p, b, bid, pts, dark

    def delta(self) -> tuple[int, int]:
        p, b, bid, pts = self.p, self.b, self.bid, self.pts
        d = 1 - b
        made = pts[b] >= bid
        delta = [0, 0]
        if p.scoring == "standard":
            delta[d] = pts[d]
            delta[b] = (2 * bid if p.full_bid_doubles and bid == p.deal_points else pts[b]) if made else -bid
            if self.dark:  # a bid in the dark (12.6): its value, made or lost
                delta[b] = p.dark_bid if made else -p.dark_bid  # type: ignore[assignment, operator]
        elif made:
            diff = pts[b] - pts[d]
            delta[b if diff > 0 else d] = abs(diff)
        else:
            delta[d] = p.deal_points + bid - pts[b] if p.set_rule == "total_plus_gap" else pts[d] + bid
        return (delta[0], delta[1])


def _trick_points(deal: Deal) -> list[int]:
    """Points won in tricks, counted from the profile's point values and its Low rule."""
    p = deal.profile
    trump = "CDHS"[deal.trump]
    sister = {"H": "D", "D": "H", "S": "C", "C": "S"}[trump]
    values = {"A" + trump: p.points.high, "J" + trump: p.points.jack, "T" + trump: p.points.game,
              "5" + trump: p.points.right_pedro, "5" + sister: p.points.left_pedro, "2" + trump: p.points.low}
    pts = [0, 0]
    for t in deal.tricks:
        for seat, top, under in t.plays:
            for x in cards_str((top, *under)):
                side = t.winner % 2
                if x == "2" + trump and p.low_goes_to == "holder":
                    side = seat % 2  # played by its holder: the holder's side keeps it
                pts[side] += values.get(x, 0)
    return pts


@pytest.mark.parametrize("name", SEED_PROFILES)
def test_points_and_scores_agree_with_the_document_over_random_deals(name):
    from arena.engine import KeyedSource

    profile = get_profile(name)
    rng = random.Random(name)
    branches = set()
    for k in range(150):
        deal = Deal(profile, k, k % 4, (0, 0), KeyedSource(f"score-{name}"))
        while not deal.done:
            ch = deal.choice
            deal.apply(PASS if ch.kind == "bid" and ch.can_pass and rng.random() < 0.6 else ch.sample(rng))
        if deal.redeal:
            branches.add("redeal")
            continue
        if not profile.may_lose_points:
            assert list(deal.points) == _trick_points(deal)
        b = deal.maker % 2
        want = _Scorer(profile, b, deal.high, deal.points, deal.in_dark).delta()
        assert (deal.scores_after[0] - deal.scores_before[0], deal.scores_after[1] - deal.scores_before[1]) == want
        branches.add("made" if deal.made else "set")
    assert {"made", "set"} <= branches


def test_california_a_made_sixteen_scores_thirty_two():
    """Sixteen made is rare at random: build it. Seat 3 (dealer's right, first to
    bid) holds the eight highest trumps and Low (which stays with its holder),
    and always plays its highest trump: every trick is its side's."""
    hands = {
        3: "AH KH QH JH TH 9H 8H 7H 2H",
        2: "2C 3C 4C 6C 7C 8C 9C TC JC",
        1: "2S 3S 4S 6S 7S 8S 9S TS JS",
        0: "2D 3D 4D 6D 7D 8D 9D TD JD",
    }
    deal, _ = make_deal(build_deck(0, hands), dealer=0, profile=get_profile("california"))
    deal.apply(Bid(16))
    assert deal.phase == "trump" and [b[2] for b in deal.bids] == [False, True, True, True]  # the rest is forced
    deal.apply(NameTrump(2))
    rng = random.Random(0)
    power = deal.table.power
    while not deal.done:
        ch = deal.choice
        if ch.seat == 3 and ch.kind == "play":
            top = max(ch.cards, key=lambda x: power[x])
            under = tuple(x for x in ch.under_from if x != top)[: ch.under_count]
            deal.apply(Play(top, under))
        else:
            deal.apply(ch.sample(rng))
    assert deal.points == (0, 16) and deal.made and deal.scores_after == (0, 32)


# -- the end of the game ------------------------------------------------------------


def _game_from(profile: RuleProfile, scores: tuple[int, int], key: str = "end") -> Game:
    from arena.engine import KeyedSource

    g = Game(profile, source=KeyedSource(key))
    g.deals.clear()
    g.scores = scores
    g._start_deal()
    return g


def _play_out(g: Game, rng: random.Random) -> Deal:
    deal = g.deal
    while not deal.done:
        g.apply(g.choice.sample(rng))
    return deal


def test_italian91_only_bidders_making_their_bid_go_out():
    profile = get_profile("italian91")
    seen = set()
    for k in range(200):
        g = _game_from(profile, (88, 88), key=f"it-{k}")
        deal = _play_out(g, random.Random(k))
        after = deal.scores_after
        b = deal.maker % 2
        if deal.made and after[b] >= 91:
            assert (g.over, g.winner) == (True, b)
            seen.add("bidders out")
        else:
            assert not g.over  # the defenders passing 91 do not win
            if after[1 - b] >= 91:
                seen.add("defenders over, no win")
    assert seen == {"bidders out", "defenders over, no win"}


def test_moon_option_wins_or_loses_the_game_in_one_deal():
    profile = variant("california", name="california-moon", moon_bid=14)
    results = set()
    for k in range(60):
        g = _game_from(profile, (0, 0), key=f"moon-{k}")
        g.apply(Bid(14))
        deal = _play_out(g, random.Random(k))
        b = deal.maker % 2
        assert g.over and g.end_reason == "moon" and g.winner == (b if deal.made else 1 - b)
        results.add(deal.made)
    assert results == {True, False}


# -- the conformance check ------------------------------------------------------------


@pytest.mark.parametrize("name", SEED_PROFILES)
def test_every_profile_passes_the_conformance_check(name):
    report = check_profile(get_profile(name), games=5, seed=1, max_deals=8)
    assert report.ok and report.games == 5 and report.decisions > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PROFILES))
def test_every_profile_passes_the_conformance_check_at_length(name):
    report = check_profile(get_profile(name), games=200, seed=7, max_deals=40)
    assert report.deals >= 1000


def test_conformance_catches_a_view_that_leaks_a_hidden_card(monkeypatch):
    import arena.engine.game as game_module

    real = game_module.deal_view

    def leaky(deal, seat, previous=()):
        v = real(deal, seat, previous)
        return dataclasses.replace(v, rob_taken=tuple(deal.hands[(seat + 1) % 4]))

    monkeypatch.setattr(game_module, "deal_view", leaky)
    with pytest.raises(ConformanceError, match="never saw"):
        check_profile(get_profile("foster1897"), games=2, max_deals=3)


@pytest.mark.parametrize("bad", [{"tuple": (1, 2)}, {1: "an int key"}, {"nan": float("nan")}], ids=["tuple", "int-key", "nan"])
def test_conformance_catches_a_view_that_does_not_survive_json(monkeypatch, bad):
    from arena.engine.view import View

    real = View.to_dict
    monkeypatch.setattr(View, "to_dict", lambda self: {**real(self), "extra": bad})
    with pytest.raises(ConformanceError, match="does not survive JSON"):
        check_profile(get_profile("pagat62"), games=1, max_deals=1)


def test_conformance_catches_a_forced_decision_that_is_asked(monkeypatch):
    monkeypatch.setattr(BidChoice, "only", lambda self: None)
    with pytest.raises(ConformanceError, match="forced"):
        check_profile(get_profile("pagat62"), games=3, max_deals=3)


def test_conformance_catches_points_that_do_not_add_up(monkeypatch):
    real = Deal._score

    def lossy(self):
        real(self)
        self.points = (self.points[0] + 1, self.points[1])

    monkeypatch.setattr(Deal, "_score", lossy)
    report = check_profile(get_profile("ru51"), games=2, max_deals=3, raise_on_failure=False)
    assert not report.ok and any("out of play" in f for f in report.failures)


# -- records --------------------------------------------------------------------------


def _random_record(name: str | RuleProfile, key: str = "rec") -> dict:
    g = Game(name if isinstance(name, RuleProfile) else get_profile(name), key=key, max_deals=4)
    rng = random.Random(key)
    while not g.over:
        ch = g.choice
        g.apply(PASS if ch.kind == "bid" and ch.can_pass and rng.random() < 0.5 else ch.sample(rng))
    return json.loads(json.dumps(game_record(g)))


def test_record_version_three_only_where_a_later_field_is_used():
    from arena.engine import load_record

    # south-east louisiana (a forced 7): its changes are all in the first twelve fields
    assert _random_record(variant("louisiana", name="louisiana-se", dealer_forced_bid=7, forced_bid_any=False))["version"] == 2
    assert _random_record("louisiana")["version"] == 3  # forced_bid_any, a later field
    rec = _random_record("foster1897")
    assert rec["version"] == 3 and rec["profile"]["discard"] == "choose"
    assert any(e["type"] == "discard" for d in rec["deals"] for e in d["events"])
    as_v2 = dict(rec, version=2)
    with pytest.raises(ValueError, match="record version 3"):
        load_record(as_v2)


def test_a_record_carries_the_whole_profile_even_when_it_is_not_registered():
    """An ad-hoc variant replays from its record alone: the record names every changed field."""
    moon = variant("california", name="my-club-moon", moon_bid=14, target=40)
    g = Game(moon, key="adhoc", max_deals=3)
    rng = random.Random(0)
    while not g.over:
        g.apply(g.choice.sample(rng))
    rec = json.loads(json.dumps(game_record(g)))
    assert "my-club-moon" not in PROFILES
    again = replay(rec)
    assert again.profile == moon and game_record(again) == rec


@pytest.mark.parametrize("name", ["foster1897", "ru51", "pidro", "california"])
def test_deal_files_drive_every_profile_and_records_replay_without_the_file(name):
    """The same deal file under another profile: same decks, the profile's own
    rules, and a record that replays from itself alone (the file is not needed)."""
    from arena.engine import DealFile, FileSource, KeyedSource
    from arena.engine.dealfile import FileDeal

    decks = [cards_str(KeyedSource("file").deck(k)) for k in range(3)]
    dfile = DealFile(first_dealer=1, deals=[FileDeal(deck=d, reshuffle_key="file-r") for d in decks])
    g = Game(get_profile(name), source=FileSource(dfile, "after"), max_deals=5)
    rng = random.Random(name)
    while not g.over:
        ch = g.choice
        g.apply(PASS if ch.kind == "bid" and ch.can_pass and rng.random() < 0.4 else ch.sample(rng))
    rec = json.loads(json.dumps(game_record(g)))
    assert [d["deck"] for d in rec["deals"][:3]] == decks[: len(rec["deals"])]
    assert [d["origin"] for d in rec["deals"]][:3] == ["file"] * min(3, len(rec["deals"]))
    assert game_record(replay(rec)) == rec


# -- later mechanisms, ready for the profiles that need them -----------------------------

OFF_JACK = variant("pagat62", name="off-jack-test", off_jack_trump=True, points=PointValues(off_jack=1), max_bid=15)


def test_off_jack_is_a_trump_between_jack_and_ten_and_carries_its_point():
    from arena.engine.cards import OFF_JACK_TABLES

    t = OFF_JACK_TABLES[2]  # hearts: the jack of diamonds is a trump
    assert t.is_trump[c("JD")] and t.esuit[c("JD")] == 2
    assert t.power[c("JH")] > t.power[c("JD")] > t.power[c("TH")]
    assert len(t.trumps) == 15 and OFF_JACK.deal_points == 15
    assert OFF_JACK.point_table(2)[c("JD")] == 1 and c("JD") not in OFF_JACK.pointless_trumps(2)
    report = check_profile(OFF_JACK, games=4, seed=2, max_deals=8)
    assert report.ok
    with pytest.raises(ValueError, match="off_jack"):
        RuleProfile(points=PointValues(off_jack=1))


def test_off_jack_records_are_version_three_and_replay():
    g = Game(OFF_JACK, key="oj", max_deals=2)
    rng = random.Random(5)
    while not g.over:
        g.apply(g.choice.sample(rng))
    rec = json.loads(json.dumps(game_record(g)))
    assert rec["version"] == 3 and rec["profile"]["points"]["off_jack"] == 1
    assert game_record(replay(rec)) == rec
    assert "off_jack" not in game_record(Game(key="p"))["profile"]["points"]


def test_lose_at_ends_the_game_for_the_side_that_falls_through_the_floor():
    floor = variant("pagat62", name="floor-test", lose_at=-20, deciding_threshold=None)
    ended = 0
    for k in range(40):
        g = _game_from(floor, (-15, -15), key=f"floor-{k}")
        deal = _play_out(g, random.Random(k))
        low = [s for s in (0, 1) if deal.scores_after[s] <= -20]
        if low:
            assert (g.over, g.end_reason, g.winner) == (True, "floor", 1 - low[0])
            ended += 1
        else:
            assert not g.over
    assert ended > 0
    with pytest.raises(ValueError, match="lose_at"):
        RuleProfile(lose_at=5)


# -- oregon ------------------------------------------------------------------------------


def _oregon_deal(dealer: int = 0) -> Deal:
    deal, _ = make_deal(build_deck(dealer, {}), dealer=dealer, profile=get_profile("oregon"))
    return deal


def test_oregon_bids_rank_by_amount_then_suit_spades_highest():
    deal = _oregon_deal()
    assert Bid(6, 1) in deal.choice.options and Bid(5, 1) not in deal.choice.options
    deal.apply(Bid(6, 1))  # 6 diamonds
    legal = deal.choice.options
    assert Bid(6, 0) in legal and Bid(6, 1) not in legal  # clubs beat diamonds at 6
    deal.apply(Bid(6, 3))  # 6 spades
    legal = deal.choice.options
    assert min(legal, key=lambda b: (b.amount, "DCHS".index("CDHS"[b.suit]))) == Bid(7, 1)
    with pytest.raises(IllegalAction):
        deal.apply(Bid(6, 2))
    with pytest.raises(IllegalAction):
        deal.apply(Bid(7))  # a bid must name its suit


def test_oregon_auction_allows_reentry_and_ends_after_three_passes_in_a_row():
    deal = _oregon_deal()
    seats = _asked_order(deal, [None, None, None, None])
    assert seats == [1, 2, 3, 0] and deal.redeal  # the dealer may pass too: a void deal
    deal = _oregon_deal()
    deal.apply(PASS)
    deal.apply(PASS)
    deal.apply(PASS)
    assert Bid(5, 1) in deal.choice.options and deal.choice.can_pass  # the dealer's 5
    deal.apply(Bid(5, 1))
    deal.apply(Bid(6, 1))  # seat 1 passed before and comes back in
    assert deal.to_act == 2 and deal.phase == "bid"
    for _ in range(3):
        deal.apply(PASS)
    assert deal.maker == 1 and deal.trump == 1 and deal.phase in ("rob", "play")  # no trump decision


def test_oregon_tie_past_63_goes_to_the_bidders_else_the_higher_score():
    profile = get_profile("oregon")
    seen = set()
    for k in range(150):
        g = _game_from(profile, (60, 60), key=f"or-{k}")
        rng = random.Random(k)
        deal = g.deal
        while not deal.done:  # the first seat bids the lowest bid and the rest pass: bids get made
            ch = g.choice
            if ch.kind == "bid":
                g.apply(PASS if deal.high else ch.options[0])
            else:
                g.apply(ch.sample(rng))
        a = deal.scores_after
        if a[0] >= 63 and a[1] >= 63:
            want = deal.maker % 2 if a[0] == a[1] else (0 if a[0] > a[1] else 1)
            assert (g.over, g.winner) == (True, want)
            seen.add("tie" if a[0] == a[1] else "both")
    assert "both" in seen


# -- sixty-three -------------------------------------------------------------------------


def test_sixty_three_deals_four_more_keeps_six_and_counts_63():
    profile = get_profile("sixty-three")
    assert profile.deal_points == 63
    for k in range(30):
        deal, _ = make_deal(build_deck(k % 4, {}), dealer=k % 4, profile=profile)
        rng = random.Random(k)
        while deal.phase in ("bid", "trump"):
            deal.apply(deal.choice.sample(rng))
        assert all(len(r) == 4 for r in deal.received) and deal.stock == []
        while deal.phase == "discard":
            ch = deal.choice
            trumps = deal.table.trumps
            held = deal.hands[ch.seat]
            n_trumps = sum(x in trumps for x in held)
            if n_trumps < 6:  # choose plain cards only, keeping every trump
                assert set(ch.candidates) == {x for x in held if x not in trumps} and ch.least == len(held) - 6
            else:  # plain cards went already; extras shown
                assert all(x in trumps for x in held) and ch.least == n_trumps - 6
            deal.apply(ch.sample(rng))
        assert deal.phase == "play" and [len(h) for h in deal.hands] == [6, 6, 6, 6]
        assert not any(e[0] == "act" and e[2].__class__.__name__ == "Rob" for e in deal.events)
        while not deal.done:
            deal.apply(deal.choice.sample(rng))
        assert sum(deal.points) + deal.lost == 63


# -- lipton ------------------------------------------------------------------------------


def test_lipton_short_deck_kitty_for_the_maker_only_and_seven_tricks():
    from arena.engine import KeyedSource
    from arena.engine.view import deal_view

    profile = get_profile("lipton")
    for k in range(20):
        source = KeyedSource(f"lip-{k}")
        deal = Deal(profile, 0, k % 4, (0, 0), source)
        full = source.deck(0)
        assert list(deal.deck) == [x for x in full if cards_str([x])[0][0] in "259TJQKA"] and len(deal.deck) == 32
        assert [len(h) for h in deal.hands] == [7, 7, 7, 7] and len(deal.kitty) == 4 and deal.stock == []
        rng = random.Random(k)
        while deal.phase in ("bid", "trump"):
            for s in range(4):  # the kitty is nobody's to see before the maker takes it
                assert not set(deal.kitty) & deal_view(deal, s).cards_named()
            deal.apply(deal.choice.sample(rng))
        maker = deal.maker
        ch = deal.choice
        assert (ch.kind, ch.seat, ch.least, ch.most, len(ch.candidates)) == ("discard", maker, 4, 4, 11)
        for s in range(4):
            seen = set(deal.kitty) & deal_view(deal, s).cards_named()
            assert seen == (set(deal.kitty) if s == maker else set())
        while not deal.done:
            deal.apply(deal.choice.sample(rng))
        assert len(deal.tricks) == 7 and sum(deal.points) + deal.lost == 35


# -- monterey-draw -------------------------------------------------------------------------


def test_monterey_first_lead_is_a_trump_and_a_seat_without_trumps_sits_out_on_a_trump_lead():
    from arena.engine import KeyedSource

    profile = get_profile("monterey-draw")
    sat_out = 0
    for k in range(60):
        deal = Deal(profile, k, k % 4, (0, 0), KeyedSource("monterey"))
        rng = random.Random(k)
        while not deal.done:
            ch = deal.choice
            if ch.kind == "play":
                trick = deal.tricks[-1]
                trumps = [x for x in deal.hands[ch.seat] if x in deal.table.trumps]
                if len(deal.tricks) == 1 and not trick.plays and trumps:
                    assert set(ch.cards) == set(trumps)  # the first lead
                if trick.plays and trick.led == deal.trump:
                    assert trumps and set(ch.cards) == set(trumps)  # a seat without one is never asked
            deal.apply(ch.sample(rng))
        for t in deal.tricks:
            if len(t.plays) < 4:
                sat_out += 1
                assert t.led == deal.trump or any(len(u.plays) < 4 for u in deal.tricks[: deal.tricks.index(t)])
        assert sum(deal.points) + deal.lost == 16
    assert sat_out > 0


def _monterey_rob() -> Deal:
    """California's deck at monterey-draw (bids from the left): seat 1 bids 6 and names hearts; the
    dealer (five trumps) needs one card, and the fill leaves TH 5H 5D 5S, three trumps."""
    deal, _ = make_deal(build_deck(0, CALIFORNIA_HANDS, CALIFORNIA_STOCK), dealer=0, profile=get_profile("monterey-draw"))
    for action in (Bid(6), PASS, PASS, PASS, NameTrump(2)):
        deal.apply(action)
    return deal


def test_monterey_dealer_chooses_the_cards_it_needs_when_six_trumps_or_fewer_are_left():
    """seeds/004, the draw form: the dealer "выбирает карты, необходимые ему для доведения своей
    руки до 6" (chooses the cards it needs to reach six) and must take them all only "если в колоде
    осталось более 6" trumps (rules 12.13). The profile made it take every trump of the stock."""
    deal = _monterey_rob()
    choice = deal.choice
    assert choice.kind == "rob" and choice.must_take == () and choice.count == 1 and choice.or_all == ()
    assert set(cards_str(choice.candidates)) == {"TH", "5H", "5D", "5S"}
    with pytest.raises(IllegalAction):  # every trump is no rob here: more than it needs, and not a "must"
        deal.apply(Rob(tuple(cs("TH 5H 5D"))))
    deal.apply(Rob(tuple(cs("5H"))))
    assert len(deal.hands[0]) == 6 and set(cards_str(deal.stock)) == {"TH", "5D", "5S"}
    rng = random.Random(2)
    while not deal.done:
        deal.apply(deal.choice.sample(rng))
    assert deal.lost == 6 and sum(deal.points) == 16 - 6  # Game and the left pedro, face down, for nobody
    from arena.engine.view import deal_view

    for seat in (1, 2, 3):
        assert not set(cs("TH 5D")) & deal_view(deal, seat).cards_named()


def test_monterey_dealer_must_take_every_trump_when_more_than_six_are_left():
    """With 52 cards the stock never holds more than six trumps at the rob (the others' fills take at
    least eleven of its sixteen cards); with the joker it can: then the dealer takes all seven."""
    from arena.engine import JOKER

    hands = {0: "2C 3C 4C 6C 7C 8C 9C TC JC", 1: "AH KH QH JH TH 9H QC KC AC",
             2: "8H 2S 3S 4S 6S 7S 8S 9S TS", 3: "7H JS QS KS AS 5C 5S 2D 3D"}
    deck = build_deck(0, hands, "4D 6D 7D 8D 9D TD JD QD KD AD 6H 5H 4H 3H 2H 5D") + [JOKER]
    profile = variant("monterey-draw", name="monterey-draw-joker", joker=True)
    deal, _ = make_deal(deck, dealer=0, profile=profile)
    for action in (Bid(6), PASS, PASS, PASS, NameTrump(2)):
        deal.apply(action)
    assert deal.phase == "play"  # the rob was forced: every trump, nothing to choose
    assert set(cards_str(deal.rob_taken)) == {"6H", "5H", "4H", "3H", "2H", "5D", "JK"} == set(cards_str(deal.hands[0]))
    assert deal.stock == [] and deal.events[-1][2] == Rob(()) and deal.events[-1][3] is True


def test_with_52_cards_the_monterey_dealer_always_chooses():
    """rules 12.13: the others' fill takes at least eleven of the sixteen stock cards whenever it holds
    seven trumps, so with 52 cards the dealer is never made to take every trump, and has no or_all."""
    from arena.engine import KeyedSource

    profile = get_profile("monterey-draw")
    asked = 0
    for k in range(200):
        deal = Deal(profile, k, k % 4, (0, 0), KeyedSource("monterey-rob"))
        rng = random.Random(k)
        while not deal.done and deal.phase != "play":
            if deal.phase == "rob":
                ch = deal.choice
                assert ch.must_take == () and ch.or_all == () and set(ch.candidates) == set(deal.stock)
                asked += 1
            deal.apply(deal.choice.sample(rng))
    assert asked > 50


def test_conformance_catches_an_illegal_action_that_gets_through(monkeypatch):
    from arena.engine.actions import PlayChoice

    monkeypatch.setattr(PlayChoice, "is_legal", lambda self, action: True)
    report = check_profile(get_profile("pagat62"), games=2, max_deals=2, raise_on_failure=False)
    assert any("accepted" in f or "changed the game" in f for f in report.failures)


def test_a_long_hand_with_too_few_pointless_trumps_puts_point_trumps_under() -> None:
    """Under oregon (seven point trumps with the off-jack) a hand of eight trumps
    may hold one pointless trump; its first play then takes any trumps under
    (rules 6.5) instead of offering no legal play."""
    import random as _random

    from arena.engine import Game, get_profile, game_record, replay
    from arena.engine.actions import PASS

    key = "viewer-oregon-36"  # a seeded game that deals such a hand (found by the site's tests)
    rng = _random.Random(key)
    game = Game(get_profile("oregon"), key=key, max_deals=8)
    seen = []
    while not game.over:
        ch = game.choice
        if ch.kind == "play" and ch.under_count:
            deal = game.deals[-1]
            pointless = [c for c in deal.hands[ch.seat] if c in get_profile("oregon").pointless_trumps(deal.trump)]
            seen.append((len(pointless), ch.under_count, len(ch.cards)))
            assert ch.cards, "a long hand must always have a legal top"
        game.apply(PASS if ch.kind == "bid" and ch.can_pass and rng.random() < 0.6 else ch.sample(rng))
    assert any(n < need for n, need, _ in seen)  # the case under test happened
    record = game_record(game)
    assert replay(record).scores == game.scores
    assert all(sum(d["points"]) == 15 for d in record["deals"] if d.get("points") is not None)


# -- louisiana's bid in the dark and monterey's widow ---------------------------------------------


def test_a_bid_in_the_dark_is_asked_before_any_card_is_dealt_and_scores_its_own_value():
    profile = get_profile("louisiana-dark")
    deal = Deal(profile, 0, 0, (0, 0), ScriptSource([list(range(52))]))
    assert deal.phase == "dark" and deal.dealt == ((), (), (), ()) and not any(deal.hands)
    choice = deal.choice
    assert isinstance(choice, BidChoice) and choice.can_pass and list(choice.amounts) == [14]
    assert deal.to_act == 1
    view = Game(profile, source=ScriptSource([list(range(52))])).view(1).to_dict()
    assert view["phase"] == "dark" and view["hand"] == [] and view["dealt"] == [] and view["dark"] == []
    with pytest.raises(IllegalAction):
        deal.apply(Bid(13))
    deal.apply(PASS)
    deal.apply(Bid(14))  # seat 2: the maker, and the cards are dealt now
    assert deal.phase == "trump" and deal.maker == 2 and deal.high == 14 and deal.in_dark
    assert all(len(h) == 9 for h in deal.hands) and deal.bids == []
    while not deal.done:
        deal.apply(deal.choice.sample(random.Random(1)))
    bidders = deal.points[0]  # type: ignore[index]
    assert deal.scores_after == ((28 if bidders == 14 else -28), deal.points[1])  # type: ignore[index]


def test_four_seats_declining_in_the_dark_deal_the_cards_and_bid_as_louisiana():
    profile = get_profile("louisiana-dark")
    deal = Deal(profile, 0, 3, (0, 0), ScriptSource([list(range(52))]))
    assert _asked_order(deal, [None, None, None, None]) == [0, 1, 2, 3]
    assert deal.phase == "bid" and deal.to_act == 0 and all(len(h) == 9 for h in deal.hands)
    assert deal.dark == [(0, 0), (1, 0), (2, 0), (3, 0)]
    _asked_order(deal, [None, None, None, 6])
    assert deal.bids[-1] == (3, 6, False) and not deal.in_dark  # the dealer's 6 (or more), as louisiana


def test_a_dark_deal_is_marked_in_its_record_and_replays():
    profile = get_profile("louisiana-dark")
    rng = random.Random(7)
    game = Game(profile, key="dark-record", max_deals=6)
    while not game.over:
        ch = game.choice
        dark = game.deal.phase == "dark"
        game.apply(Bid(14) if dark and game.to_act == game.deal.dealer else PASS if dark else ch.sample(rng))
    rec = json.loads(json.dumps(game_record(game)))
    assert rec["version"] == 3 and rec["profile"]["dark_bid"] == 28
    assert all(d.get("dark") is True for d in rec["deals"])  # the dealer bid in the dark every deal
    assert game_record(replay(rec)) == rec
    doctored = json.loads(json.dumps(rec))
    del doctored["deals"][0]["dark"]
    with pytest.raises(ValueError):
        replay(doctored)


def test_a_widow_is_hidden_until_its_seat_has_bid_and_hands_are_not_filled():
    profile = get_profile("monterey-widow")
    game = Game(profile, source=ScriptSource([list(range(52))]))
    deal = game.deal
    widows = {s: list(w) for s, w in enumerate(deal.widows)}
    assert sorted(len(w) for w in widows.values()) == [4, 4, 4, 4] and deal.stock == []
    for seat, action in ((1, PASS), (2, Bid(6)), (3, PASS), (0, PASS)):  # a widow joins its hand once its seat has spoken
        assert game.to_act == seat
        for other in range(4):
            assert not game.view(other).cards_named() & set(widows[seat]), (other, seat)
        game.apply(action)
        assert game.to_act == seat and game.choice.kind == "take_widow" and deal.phase == "take_widow"
        assert not game.view(seat).cards_named() & set(widows[seat])  # it decides before it looks
        game.apply(TakeWidow(True))
        assert set(widows[seat]) <= set(deal.hands[seat]) and game.view(seat).received == tuple(widows[seat])
        assert game.view((seat + 1) % 4).receive_counts[seat] == 4
    assert deal.maker == 2 and deal.phase == "trump" and len(deal.hands[2]) == 13
    game.apply(NameTrump(3))
    assert deal.phase == "play"
    table = deal.table
    assert all(all(table.is_trump[c] for c in h) for h in deal.hands)  # type: ignore[union-attr]
    assert sum(len(h) for h in deal.hands) + sum(len(d) for d in deal.discarded) == 52  # nothing filled


def test_a_seat_may_leave_its_widow_which_is_turned_face_up_out_of_play_after_the_bidding():
    """seeds/004, the widow form: "После того, как каждый игрок делает ставку или пасует, он может
    забрать оставшиеся 4 карты" (after each player bids or passes, he *may* take up his other 4
    cards) and "Эти карты нельзя просмотреть до тех пор, пока не состоятся торги" (they may not be
    looked at until the bidding is done; rules 12.14). The profile took every widow up; a widow left
    stays face down, unseen, until the bidding is over, then lies face up, out of play: its points
    count for nobody."""
    profile = get_profile("monterey-widow")
    game = Game(profile, source=ScriptSource([list(range(52))]))
    deal = game.deal
    widows = {s: list(w) for s, w in enumerate(deal.widows)}
    game.apply(PASS)  # seat 1
    choice = game.choice
    assert choice.kind == "take_widow" and choice.seat == 1 and choice.only() is None
    assert set(choice.actions()) == {TakeWidow(True), TakeWidow(False)}
    with pytest.raises(IllegalAction):
        game.apply(PASS)  # the auction waits for the widow's answer
    game.apply(TakeWidow(False))
    assert len(deal.hands[1]) == 9 and deal.received[1] == [] and game.to_act == 2 and deal.phase == "bid"
    assert game.view(2).receive_counts[1] == 0  # that it was left is public; its cards are not, yet
    left = set(widows[1])  # QH KH AH 2S
    for seat, action in ((2, Bid(6)), (3, PASS), (0, PASS)):
        for other in range(4):
            assert not game.view(other).cards_named() & left
        game.apply(action)
        game.apply(TakeWidow(True))
    assert deal.phase == "trump" and set(deal.shown[1]) == left  # the bidding is over: face up
    for other in range(4):
        assert left <= game.view(other).cards_named() and set(game.view(other).shown[1]) == left
    game.apply(NameTrump(2))  # hearts: QH KH AH out of play, the AH (High) among them
    rng = random.Random(3)
    while not deal.done:
        game.apply(game.choice.sample(rng))
    assert left <= {c for s, c in deal.out if s == 1} and not left & {c for t in deal.tricks for _, c, _ in t.plays}
    assert deal.lost >= 1 and sum(deal.points) + deal.lost == 16  # High, for nobody


def test_a_widow_decision_is_recorded_and_replays_and_the_wire_lists_both_answers():
    from arena.protocol.codec import choice_to_dict

    profile = get_profile("monterey-widow")
    rng = random.Random(5)
    game = Game(profile, key="widow-record", max_deals=4)
    while not game.over:
        ch = game.choice
        if ch.kind == "take_widow":
            assert choice_to_dict(ch)["options"] == [{"type": "take_widow"}, {"type": "leave_widow"}]
        game.apply(ch.sample(rng))
    rec = json.loads(json.dumps(game_record(game)))
    types = {e["type"] for d in rec["deals"] for e in d["events"]}
    assert {"take_widow", "leave_widow"} <= types
    assert game_record(replay(rec)) == rec


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"widow": 4}, "rob"),  # the widows take the whole stock: nothing is left to rob
        ({"name": "x", "widow": 4, "rob": "none", "play": "follow"}, "widow"),
        ({"dark_bid": 10}, "dark_bid"),
        ({"dark_bid": 28, "max_bid": 13}, "dark_bid"),
        ({"dark_bid": 28, "bid_suits": True}, "dark_bid"),
    ],
)
def test_widow_and_dark_bid_combinations_are_refused_naming_the_field(changes, field):
    with pytest.raises(ValueError, match=f"Value error, {field}[ :]"):  # the message, not the echoed input
        RuleProfile(**changes)


class OrderedReshuffle(ScriptSource):
    """Reshuffles put the pile in card order, ``last`` at the bottom."""

    def __init__(self, deck, dealer, last):
        super().__init__([deck], dealer)
        self.last = set(last)

    def reshuffle(self, k, j, pile):
        return sorted(pile, key=lambda x: (x in self.last, x))


@pytest.mark.parametrize("name", ["foster1897", "bicycle", "chicago1890"])
def test_a_trump_a_bidder_discarded_and_the_dealers_free_rob_left_counts_as_the_dealers(name):
    """12.1: a trump left by a free rob counts as laid away by the dealer, also one another
    seat discarded that a reshuffle (5.3) brought back into the stock. Here a bidder throws
    every point trump, the fill runs out, the reshuffled pile keeps them, and the dealer
    (a defender) leaves them: all 14 points are the bidders' (they were credited to the
    bidder by its seat number and counted for nobody)."""
    hands = {
        1: "6C 7C 8C 9C TC JC QC KC AC",
        2: "2S 3S 4S 5S 6S 7S 8S 9S TS",
        3: "AH JH TH 5H 5D 2H 2C 3C 4C",
        0: "JS QS KS AS 2D 3D 4D 6D 7D",
    }
    points = cs("AH JH TH 5H 5D 2H")
    source = OrderedReshuffle(build_deck(0, hands, "8D 9D TD JD QD KD AD KH QH 9H 8H 7H 6H 4H 3H 5C"), 0, points)
    deal = Deal(get_profile(name), 0, 0, (0, 0), source)
    deal.apply(Bid(1))  # seat 1: side 1 bids
    for _ in range(3):
        deal.apply(PASS)
    deal.apply(NameTrump(2))
    for seat in (1, 2, 3):
        deal.apply(Discard(tuple(deal.hands[seat])))  # everything
    deal.apply(Discard(tuple(cs("2D 3D 4D"))))  # the dealer keeps six: its rob takes nothing
    assert deal.reshuffles == 1 and deal.phase == "play"
    assert set(points) <= set(deal.shown[0])  # left in the stock, laid face up by the dealer
    laid = {card: seat for seat, card in deal.out}
    assert all(laid[x] == 0 for x in points)
    rng = random.Random(5)
    while not deal.done:
        deal.apply(deal.choice.sample(rng))
    assert deal.points == (0, 14) and deal.lost == 0


@pytest.mark.parametrize("name", ["sixty-three", "sixty-three-joker", "eighty-three", "eighty-three-joker"])
def test_sixty_three_low_goes_to_the_trick_that_captures_it(name):
    """seeds/004: "all points go to the winners of the tricks holding the cards", and
    Sixty-three states no exception for the 2 (Louisiana and California do)."""
    assert get_profile(name).low_goes_to == "capturer"
    checked = 0
    for key in range(200):
        game = Game(get_profile(name), key=f"low-{key}")
        rng = random.Random(key)
        while len(game.deals) == 1 and not game.over:
            game.apply(game.choice.sample(rng))
        deal = game.deals[0]
        if deal.redeal or deal.low_holder is None:
            continue
        low = deal.profile.low_card(deal.trump)
        (winner,) = [t.winner for t in deal.tricks for _, top, under in t.plays if low in (top, *under)]
        if winner % 2 != deal.low_holder % 2:  # captured from the other side: its point moves
            rerun = Game(variant(name, low_goes_to="holder"), key=f"low-{key}")
            rng = random.Random(key)
            while len(rerun.deals) == 1 and not rerun.over:
                rerun.apply(rerun.choice.sample(rng))
            held = rerun.deals[0].points
            gained = [deal.points[s] - held[s] for s in (0, 1)]
            assert gained[winner % 2] == 1 and gained[deal.low_holder % 2] == -1
            checked += 1
            if checked == 3:
                break
    assert checked == 3


# -- california's rob: the cards it needs, or every trump ----------------------------------------

CALIFORNIA_HANDS = {
    0: "2H 3H 4H 6H 7H 2C 3C 4C 6C",
    1: "AH KH QH 7C 8C 9C TC JC QC",
    2: "JH KC AC 2S 3S 4S 6S 7S 8S",
    3: "8H 9H 9S TS JS QS KS AS 2D",
}
CALIFORNIA_STOCK = "3D 4D 6D 7D 8D 9D TD JD QD KD AD 5C TH 5H 5D 5S"


def _california_rob() -> Deal:
    """The dealer (five trumps) needs one card; the fill leaves TH 5H 5D 5S: three trumps."""
    deal, _ = make_deal(build_deck(0, CALIFORNIA_HANDS, CALIFORNIA_STOCK), dealer=0, profile=get_profile("california"))
    for action in (PASS, PASS, Bid(6), PASS, NameTrump(2)):  # from the dealer's right: 3, 2, 1 bids 6, 0
        deal.apply(action)
    return deal


def test_california_dealer_chooses_the_cards_it_needs_and_may_leave_trumps():
    """seeds/004: the dealer "chooses the cards it needs to bring its hand to 6" and "may
    take them all" when more trumps are left (Monterey's dealer "must"): it was made to take
    every trump. A trump it leaves stays face down, out of play: its points count for nobody."""
    deal = _california_rob()
    choice = deal.choice
    assert choice.kind == "rob" and choice.must_take == () and choice.count == 1
    assert set(cards_str(choice.candidates)) == {"TH", "5H", "5D", "5S"}
    assert set(cards_str(choice.or_all)) == {"TH", "5H", "5D"}
    with pytest.raises(IllegalAction):
        deal.apply(Rob(tuple(cs("TH 5H"))))  # neither the one card it needs nor every trump
    deal.apply(Rob(tuple(cs("5S"))))  # a plain card: the three trumps stay in the stock
    assert deal.phase == "play" and len(deal.hands[0]) == 6
    assert set(cards_str(deal.stock)) == {"TH", "5H", "5D"}
    rng = random.Random(1)
    while not deal.done:
        deal.apply(deal.choice.sample(rng))
    assert deal.lost == 11 and sum(deal.points) == 16 - 11  # Game 1 and both pedros, for nobody
    for seat in (1, 2, 3):  # face down: no other seat sees them
        from arena.engine.view import deal_view

        assert not set(cs("TH 5H 5D")) & deal_view(deal, seat).cards_named()


def test_california_dealer_may_take_every_trump_and_plays_the_extras_under():
    deal = _california_rob()
    deal.apply(Rob(tuple(cs("5D TH 5H"))))  # any order: a rob is a set
    assert len(deal.hands[0]) == 8 and deal.stock == [c("5S")]
    rng = random.Random(2)
    while deal.to_act != 0:
        deal.apply(deal.choice.sample(rng))
    first = deal.choice
    assert first.kind == "play" and first.under_count == 2  # down to five after the first trick (rules 6.5)
    while not deal.done:
        deal.apply(deal.choice.sample(rng))
    assert deal.lost == 0 and sum(deal.points) == 16
