"""Tables of other than four (docs/rules.md 14): cut-throat for 2-6, five-hand and railroad.

Conformance under every new profile (a few games here, 200 under the slow
suite), the called partner hidden from every seat that may not know it yet,
the call's obligations, and the profile checks that name their field.
"""

from __future__ import annotations

import random

import pytest
from pydantic import ValidationError

from arena.engine import Game, RuleProfile, get_profile, profile_info
from arena.engine.conformance import check_profile
from arena.engine.profile import variant

TABLES = [f"cutthroat-{n}" for n in range(2, 7)] + ["five-hand", "railroad"]


def _random_game(name: str, key: str, seed: int, max_deals: int = 12):
    """A seeded random game, passing half the time (as the conformance check does),
    yielding (game, deal) before every decision."""
    game = Game(get_profile(name), key=key, max_deals=max_deals)
    rng = random.Random(seed)
    while not game.over:
        yield game
        choice = game.choice
        if choice.kind == "bid" and getattr(choice, "can_pass", False) and rng.random() < 0.5:
            game.apply(choice.actions()[0])  # the pass comes first
        else:
            game.apply(choice.sample(rng))


@pytest.mark.parametrize("name", TABLES)
def test_every_table_conforms_in_a_few_games(name: str) -> None:
    report = check_profile(get_profile(name), games=2, seed=7, max_deals=12)
    assert report.ok and report.deals > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", TABLES)
def test_every_table_conforms_over_200_games(name: str) -> None:
    report = check_profile(get_profile(name), games=200, seed=1)
    assert report.ok, report.summary()


@pytest.mark.parametrize("name", TABLES)
def test_the_table_has_its_seats_and_one_score_each(name: str) -> None:
    p = get_profile(name)
    info = profile_info(p)
    assert info.players == p.players and info.sides == p.sides
    assert ("call" in info.decision_kinds) == (p.call is not None)
    dealers = set()
    for k in range(40):
        game = Game(p, key=f"seats-{k}", max_deals=3)
        assert len(game.scores) == p.players and 0 <= game.first_dealer < p.players
        dealers.add(game.first_dealer)
        deal = game.deal
        assert len(deal.hands) == p.players and all(len(h) == sum(p.packets) for h in deal.dealt)
    assert dealers == set(range(p.players))  # the lot can fall to every seat


@pytest.mark.parametrize("name", ["five-hand", "railroad"])
def test_the_called_partner_is_hidden_until_its_card_is_played(name: str) -> None:
    """At every decision, every seat's view: before the called card is played only
    its holder knows; once played (and after the deal) everyone does."""
    seen_hidden = seen_known = 0
    for g in range(6):
        for game in _random_game(name, f"hide-{g}", g):
            deal = game.deal
            if deal.called is None:
                continue
            played = any(c == deal.called for t in deal.tricks[:1] for _, c, _ in t.plays)
            for seat in range(deal.n):
                view = game.view(seat)
                d = view.to_dict()
                if played or seat == deal.partner:
                    assert view.sides == deal.side_of
                    seen_known += 1
                else:
                    assert view.partner is None and d["partner"] is None
                    assert [s for s, side in enumerate(d["sides"]) if side is not None] == sorted({deal.maker, seat})
                    assert d["sides"][seat] == (0 if seat == deal.maker else 1)
                    seen_hidden += 1
                assert d["called"] is not None  # the call itself is public
    assert seen_hidden and seen_known


@pytest.mark.parametrize("name", ["five-hand", "railroad"])
def test_the_holder_plays_the_called_card_to_the_first_trick(name: str) -> None:
    checked = alone = 0
    for g in range(8):
        game = Game(get_profile(name), key=f"call-{g}", max_deals=10)
        rng = random.Random(g)
        while not game.over:
            game.apply(game.choice.sample(rng))
        for deal in game.deals:
            if deal.redeal:
                continue
            first = {seat: card for seat, card, _ in deal.tricks[0].plays}
            if deal.partner is not None:
                assert first[deal.partner] == deal.called
                assert deal.side_of[deal.partner] == deal.side_of[deal.maker] == 0
                checked += 1
            else:
                assert deal.side_of.count(0) == 1
                alone += deal.alone
            change = [a - b for a, b in zip(deal.scores_after, deal.scores_before)]
            factor = 2 if deal.alone else 1
            for seat in range(deal.n):  # every seat scores its side's result
                side = deal.side_of[seat]
                own = deal.points[side] if side != 0 or deal.made else -deal.high
                assert change[seat] == factor * own
    assert checked
    if name == "railroad":
        assert alone


def test_a_railroad_call_is_a_trump_or_alone_and_five_hand_any_card() -> None:
    for name, trump_only, alone in (("railroad", True, True), ("five-hand", False, False)):
        for game in _random_game(name, "calls", 3, max_deals=3):
            if game.choice.kind != "call":
                continue
            deal = game.deal
            choice = game.choice
            assert choice.alone is alone
            assert not set(choice.cards) & set(deal.hands[deal.maker])
            assert all(deal.table.is_trump[c] for c in choice.cards) is trump_only


@pytest.mark.parametrize(("changes", "field"), [
    ({"players": 5}, "players"),
    ({"players": 5, "sides": "called"}, "call"),
    ({"players": 2, "sides": "called", "call": "card", "both_reach": "bidders_or_higher", "deciding_threshold": None}, "'called'"),
    ({"sides": "each", "deciding_threshold": None}, "both_reach"),
    ({"sides": "each", "both_reach": "maker_or_best_card"}, "deciding_threshold"),
    ({"call_alone": True}, "call"),
])
def test_tables_the_engine_cannot_play_are_refused_naming_the_field(changes: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationError, match=field):
        variant(RuleProfile(), **changes)


def test_four_seats_each_for_himself_is_seed_003s_table() -> None:
    p = get_profile("cutthroat-4")
    assert p.players == 4 and p.sides == "each" and p.target == 51 and p.score_slots == 4


@pytest.mark.parametrize("name", ["cutthroat-3", "five-hand", "railroad"])
def test_deal_sides_reads_the_engines_sides_from_the_record(name: str) -> None:
    """``deal_sides`` (what the ratings count) gives each scored deal's sides exactly as the engine
    had them, for called partners, lone makers and called cards nobody held alike."""
    from arena.engine import deal_sides, game_record

    seen: set[str] = set()
    for seed in range(6):
        game = None
        for game in _random_game(name, f"sides-{seed}", seed):
            pass
        assert game is not None
        rec = game_record(game)
        p = game.profile
        for deal, d in zip(game.deals, rec["deals"]):
            got = deal_sides(d, p.players, p.sides)
            if deal.redeal or not deal.done:
                assert got is None
                continue
            assert got is not None and tuple(got) == tuple(deal.side_of), (seed, deal.index)
            seen.add("alone" if got.count(0) == 1 else "pair")
    if name != "cutthroat-3":
        assert seen == {"alone", "pair"} or name == "five-hand" and "pair" in seen


# ------------------------------------------------------------ the seeds' point rules (issue 34)


def _played_games(name: str, games: int, seed: int = 0, max_deals: int = 12):
    """Seeded random games under ``name`` played to the end (or the cap)."""
    for g in range(games):
        game = None
        for game in _random_game(name, f"seedrule-{seed}-{g}", seed * 1000 + g, max_deals=max_deals):
            pass
        assert game is not None
        yield game


def _points_from_tricks(deal) -> tuple[int, ...]:  # type: ignore[no-untyped-def]
    """Every point to the side of the seat that won the trick holding its card (seeds/002, 003,
    004's general rule), the cards out of play counting for nobody (none at these tables)."""
    table = deal.profile.point_table(deal.trump)
    pts = [0] * (deal.n if deal.profile.sides == "each" else 2)
    for t in deal.tricks:
        for _, top, under in t.plays:
            for c in (top, *under):
                pts[deal.side_of[t.winner]] += table[c]
    return tuple(pts)


@pytest.mark.parametrize("name", [*TABLES, "italian91", "oregon"])
def test_every_point_goes_to_the_winner_of_the_trick_that_holds_it(name: str) -> None:
    """Cut-throat (seeds/002: "все очки начисляются победителям трюков, содержащих определенные карты, а не
    игрокам, у которых они изначально были"), five-hand and railroad (seeds/004's general rule), italian91 and
    oregon ("like Double Pedro", whose tricks count every point): Low too goes to the trick's winner, and a
    maker whose side captured less than its bid is set. Some deal must have Low captured away from its holder."""
    moved = 0
    for game in _played_games(name, 6):
        for deal in game.deals:
            if deal.redeal or not deal.done:
                continue
            assert deal.points == _points_from_tricks(deal), (game.key, deal.index)
            b = deal.side_of[deal.maker]
            assert deal.made == (deal.points[b] >= deal.high)
            low = deal.profile.low_card(deal.trump)
            won = next((t.winner for t in deal.tricks for _, c, u in t.plays if low in (c, *u)), None)
            moved += won is not None and deal.low_holder is not None and deal.side_of[won] != deal.side_of[deal.low_holder]
    assert moved


def test_a_five_hand_long_hand_plays_one_extra_under_each_trick_until_they_are_gone() -> None:
    """seeds/004, five-hand: a seat of more than six trumps keeps them all, "разыгрывая наименьшие карты без
    очков (3, 4, 6 и т. Д.) одновременно с каждой рукой, пока лишние не исчезнут": one pointless trump under
    each of its first k plays (k = its extras), none after; every trick a card from every seat."""
    p = get_profile("five-hand")
    long_hands = 0
    for game in _played_games("five-hand", 40, seed=3, max_deals=6):
        for deal in game.deals:
            if deal.redeal or not deal.done:
                continue
            assert len(deal.tricks) == 6 and all(len(t.plays) == 5 for t in deal.tricks)
            pointless = p.pointless_trumps(deal.trump)
            for seat in range(deal.n):
                unders = [u for t in deal.tricks for s, _, u in t.plays if s == seat]
                extra = sum(len(u) for u in unders)
                assert [len(u) for u in unders] == [1] * extra + [0] * (6 - extra), (game.key, deal.index, seat)
                assert all(c in pointless for u in unders for c in u)
                long_hands += extra > 1
    assert long_hands  # hands of eight trumps or more were dealt and played
