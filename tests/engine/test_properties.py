"""Properties over many random deals: conservation, information hiding,
legality, determinism of chance. Heavier versions run with ``-m slow``."""

from __future__ import annotations

import copy
import random
import re

import pytest

from arena.engine import (
    PASS,
    Bid,
    Game,
    IllegalAction,
    NameTrump,
    Play,
    Rob,
    RuleProfile,
    deal_record,
)
from arena.engine.cards import TrumpTable
from arena.engine.chance import deck as keyed_deck
from arena.engine.chance import first_dealer as keyed_first_dealer
from engine_helpers import card_points, cs, is_trump_txt, seat_order

CARD_RE = re.compile(r"^[2-9TJQKA][CDHS]$")


def dict_cards(obj) -> set[str]:
    """Every card-shaped string anywhere in a JSON-like value (one set filled on a walk: a set per
    node made this a fifth of the slow property test's time)."""
    out: set[str] = set()
    todo = [obj]
    while todo:
        x = todo.pop()
        if isinstance(x, str):
            if CARD_RE.match(x):
                out.add(x)
        elif isinstance(x, dict):
            todo.extend(x.values())
        elif isinstance(x, (list, tuple)):
            todo.extend(x)
    return out


def twin_of(deal):
    """A deep copy of the deal to try an action on, its immutable parts shared: the profile, the trump
    table, the tuples it holds and its past events (copying them changed nothing and was over half of
    the slow property test's time). The caller checks the original is left as it was."""
    keep = [getattr(deal, k, None) for k in type(deal).__slots__]
    keep = [v for v in keep if isinstance(v, (RuleProfile, TrumpTable)) or isinstance(v, (tuple, frozenset)) and _hashable(v)]
    keep += [e for e in deal.events if _hashable(e)]  # hashable: no list inside to share
    return copy.deepcopy(deal, {id(v): v for v in keep})


def _hashable(x) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


class Knowledge:
    """What each seat has seen, tracked from the outside (rules 9)."""

    def __init__(self, deal) -> None:
        self.deal = deal
        deck = deal.deck
        self.seen: list[set[int]] = [set(), set(), set(), set()]
        for i, seat in enumerate(seat_order(deal.dealer)):  # own dealt cards, from the deck
            for r in range(3):
                self.seen[seat].update(deck[12 * r + 3 * i : 12 * r + 3 * i + 3])
        self.n_events = 0

    def update(self) -> None:
        d = self.deal
        for seat in range(4):
            self.seen[seat].update(d.hands[seat])  # its own hand, including received cards
        if d.phase == "rob":  # the dealer looks through the stock to decide
            self.seen[d.dealer].update(d.stock)
        self.seen[d.dealer].update(d.rob_stock)  # robbed (also when the rob was forced)
        for ev in d.events[self.n_events :]:
            if ev[0] == "act" and isinstance(ev[2], Play):
                for s in range(4):
                    self.seen[s].add(ev[2].card)
                    self.seen[s].update(ev[2].under)
        self.n_events = len(d.events)

    def check(self, game: Game) -> None:
        from arena.engine import card_str

        self.update()
        for seat in range(4):
            v = game.view(seat)
            named = v.cards_named()
            assert named <= self.seen[seat], (seat, sorted(named - self.seen[seat]))
            seen_txt = {card_str(x) for x in self.seen[seat]}
            leaked = dict_cards(v.to_dict()) - seen_txt
            assert not leaked, (seat, leaked)
            assert v.seat == seat and v.partner == (seat + 2) % 4


def _illegal_variants(deal, rng: random.Random):
    """Actions that break a rule at this decision."""
    ch = deal.choice
    seat = ch.seat
    others = [x for s in range(4) if s != seat for x in deal.hands[s]]
    out: list = [None, "pass", NameTrump(7) if ch.kind == "trump" else NameTrump(0)]
    if ch.kind == "bid":
        lo = min(ch.amounts)
        out += [Bid(lo - 1), Bid(15), Bid(6), Play(deal.hands[seat][0])]
        if not ch.can_pass:
            out.append(PASS)
    elif ch.kind == "trump":
        out += [PASS, Bid(14), NameTrump(-1)]
    elif ch.kind == "rob":
        k = ch.count
        cands = list(ch.candidates)
        if k < len(cands):
            out.append(Rob(tuple(cands[: k + 1])))
        if k > 0:
            out.append(Rob(tuple(cands[: k - 1])))
            out.append(Rob(tuple(cands[: k - 1]) + tuple(deal.hands[seat][:1])))  # a card not in the stock
            if ch.must_take:
                out.append(Rob(tuple(cands[: k - 1]) + ch.must_take[:1]))  # a trump is not a choice
        out.append(Play(cands[0]) if cands else PASS)
    else:
        illegal_cards = [x for x in range(52) if x not in ch.cards]
        if others:
            out.append(Play(rng.choice(others), ((),)[0] if not ch.under_count else tuple(ch.under_from[: ch.under_count])))
        if illegal_cards:
            out.append(Play(rng.choice(illegal_cards)))
        top = ch.cards[0]
        if ch.under_count:
            pool = [x for x in ch.under_from if x != top]
            out.append(Play(top))
            out.append(Play(top, tuple(pool[: ch.under_count - 1])))
            out.append(Play(top, tuple(pool[: ch.under_count]) + (top,)))
            trump = "CDHS"[deal.trump]
            from arena.engine import card_str

            pointy = [x for x in deal.hands[seat] if card_points(card_str(x), trump) and x != top]
            if pointy:
                out.append(Play(top, tuple(pool[: ch.under_count - 1]) + (pointy[0],)))
        else:
            hand_rest = [x for x in deal.hands[seat] if x != top]
            if hand_rest:
                out.append(Play(top, (hand_rest[0],)))  # under cards outside a long first-trick play
        out.append(Bid(7))
    return out


def run_games(n_games: int, base: int, deep_checks: bool) -> dict[str, int]:
    stats = {"reshuffle": 0, "blind": 0, "long": 0, "deals": 0, "illegal": 0, "accepted_copies": 0}
    for gi in range(n_games):
        rng = random.Random(base + gi)
        g = Game(key=f"prop-{base + gi}", max_deals=6 if gi % 2 else 3)
        know = Knowledge(g.deal)
        while not g.over:
            deal = g.deal
            if know.deal is not deal:
                know = Knowledge(deal)
            know.check(g)
            ch = g.choice
            if deep_checks:
                for bad in _illegal_variants(deal, rng):
                    if bad is not None and ch.is_legal(bad):
                        continue
                    before = deal_record(deal)
                    with pytest.raises(IllegalAction) as e:
                        g.apply(bad)  # type: ignore[arg-type]
                    assert str(bad) in str(e.value) and f"seat {ch.seat}" in str(e.value)
                    assert deal_record(deal) == before and g.deal is deal
                    stats["illegal"] += 1
                if ch.enumerable and rng.random() < 0.2:
                    acts = ch.actions()
                    assert acts and len(set(map(str, acts))) == len(acts)
                    record = deal_record(deal)
                    for a in acts:  # every listed action is accepted
                        assert ch.is_legal(a)
                        twin = twin_of(deal)
                        twin.apply(a)
                        assert twin.events[len(deal.events)] == ("act", ch.seat, a, False)
                        stats["accepted_copies"] += 1
                    assert deal_record(deal) == record  # the twins shared nothing they changed
            act = ch.sample(rng)
            assert ch.is_legal(act)
            g.apply(act)
            if deal.done:
                know.check_done = True  # type: ignore[attr-defined]
                check_finished_deal(deal, stats)
                know.update()
                for seat in range(4):  # the finished deal's last view still hides the rest
                    v_named = set()
                    from arena.engine.view import deal_view

                    v_named = deal_view(deal, seat).cards_named()
                    assert v_named <= know.seen[seat]
    return stats


def check_finished_deal(deal, stats: dict[str, int]) -> None:
    from arena.engine import card_str, cards_str

    stats["deals"] += 1
    trump = "CDHS"[deal.trump]
    assert sum(deal.points) == 14
    # all 14 trumps were in the hands when play began: they all appear in the tricks
    played = [card_str(x) for t in deal.tricks for _, top, under in t.plays for x in (top, *under)]
    assert len(played) == len(set(played))
    assert sum(1 for x in played if is_trump_txt(x, trump)) == 14
    assert all(len(h) == 0 for h in deal.hands)
    assert len(deal.tricks) == 6 and all(len(t.plays) == 4 for t in deal.tricks)
    # every hand had at least 6 cards, extra ones only trumps
    for seat in range(4):
        n = sum(1 + len(u) for t in deal.tricks for s, _, u in t.plays if s == seat)
        assert n >= 6
        if n > 6:
            stats["long"] += 1
            mine = [card_str(x) for t in deal.tricks for s, top, u in t.plays if s == seat for x in (top, *u)]
            assert all(is_trump_txt(x, trump) for x in mine)
    # the cards dealt, kept, discarded and received account for all 52
    for seat in range(4):
        dealt = cards_str(deal.dealt[seat])
        assert sorted(cards_str(deal.discarded[seat])) == sorted(x for x in dealt if not is_trump_txt(x, trump))
    stats["reshuffle"] += deal.reshuffles > (1 if deal.blind else 0)
    stats["blind"] += bool(deal.blind)


# Default sizes keep the suite fast (about a second each); the sizes that
# used to run by default, and larger, run with ``-m slow``.
@pytest.mark.parametrize(
    "n_games, min_deals, min_illegal",
    [(16, 60, 2500), pytest.param(80, 250, 10_000, marks=pytest.mark.slow)],
)
def test_properties_over_random_games(n_games: int, min_deals: int, min_illegal: int):
    stats = run_games(n_games, 0, deep_checks=True)
    assert stats["deals"] > min_deals and stats["illegal"] > min_illegal and stats["accepted_copies"] > 250
    assert stats["long"] >= 1, stats


@pytest.mark.parametrize(
    "n_games, min_deals, min_long", [(60, 250, 3), pytest.param(300, 1200, 4, marks=pytest.mark.slow)]
)
def test_conservation_over_many_deals(n_games: int, min_deals: int, min_long: int):
    stats = run_games(n_games, 10_000, deep_checks=False)
    assert stats["deals"] > min_deals
    assert stats["long"] >= min_long and stats["blind"] > 0, stats


@pytest.mark.slow
def test_properties_slow():
    stats = run_games(1000, 100_000, deep_checks=True)
    # a reshuffle during the fill is rare in random deals; test_deal_rules builds one
    assert stats["deals"] > 3000 and stats["blind"] > 0 and stats["long"] > 10, stats


def test_all_trumps_in_hands_after_rob():
    for seed in range(2000):
        rng = random.Random(seed)
        g = Game(key=f"rob-{seed}")
        while g.deal.phase in ("bid", "trump", "rob"):
            g.apply(g.choice.sample(rng))
        deal = g.deal
        from arena.engine import cards_str

        trump = "CDHS"[deal.trump]
        in_hands = [x for h in deal.hands for x in cards_str(h)]
        assert sum(1 for x in in_hands if is_trump_txt(x, trump)) == 14
        assert all(len(h) >= 6 for h in deal.hands)
        for seat in range(4):
            if len(deal.hands[seat]) > 6:
                assert all(is_trump_txt(x, trump) for x in cards_str(deal.hands[seat]))
        assert not any(is_trump_txt(x, trump) for x in cards_str(deal.stock) + cards_str(deal.pile))
        assert len(in_hands) + len(deal.stock) + len(deal.pile) == 52


def test_same_key_same_chance_whatever_the_players_do():
    for key in range(25):
        games = []
        for policy in range(3):
            rng = random.Random(1000 * policy + key)
            g = Game(key=f"dup-{key}", max_deals=3 + policy * 4)
            while not g.over:
                ch = g.choice
                if policy == 2 and ch.kind == "bid":
                    g.apply(ch.actions()[-1])  # always bid as high as allowed
                else:
                    g.apply(ch.sample(rng))
            games.append(g)
        first = games[0]
        for g in games:
            assert g.first_dealer == first.first_dealer == keyed_first_dealer(f"dup-{key}")
            for d in g.deals:
                assert list(d.deck) == keyed_deck(f"dup-{key}", d.index)
                assert d.dealer == (g.first_dealer + d.index) % 4
        common = min(len(g.deals) for g in games)
        assert common >= 3
        for k in range(common):
            assert len({tuple(g.deals[k].deck) for g in games}) == 1


def test_dealfile_and_key_after_file():
    from arena.engine import DealFile, FileSource

    df = DealFile.from_key("df", 2)
    g = Game(source=FileSource(df, "after"), max_deals=4)
    rng = random.Random(5)
    while not g.over:
        g.apply(g.choice.sample(rng))
    assert g.first_dealer == keyed_first_dealer("df")
    assert [d.origin for d in g.deals] == ["file", "file", "key-after-file", "key-after-file"]
    assert list(g.deals[1].deck) == keyed_deck("df", 1)
    assert list(g.deals[2].deck) == keyed_deck("after", 2)
    # explicit decks in a file
    custom = DealFile(first_dealer=2, deals=[{"deck": [f"{r}{s}" for s in "SHDC" for r in "AKQJT98765432"], "reshuffle_key": "r"}])
    g2 = Game(source=FileSource(custom, "x"))
    assert g2.deal.dealer == 2 and list(g2.deal.deck) == cs([f"{r}{s}" for s in "SHDC" for r in "AKQJT98765432"])
    with pytest.raises(ValueError):
        DealFile(first_dealer=0, deals=[{"deck": ["AS"] * 52, "reshuffle_key": "r"}])
    with pytest.raises(ValueError):
        DealFile(first_dealer=0, version=2, deals=[{"deck": custom.deals[0].deck, "reshuffle_key": "r"}])
