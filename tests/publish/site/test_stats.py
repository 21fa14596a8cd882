"""The Cinch statistics: a hand-built deal with answers worked out by hand, then the engine as the oracle."""

from __future__ import annotations

import json
import random

import pytest

from arena.engine import Game, game_record
from arena.engine.cards import card_str
from arena.engine.actions import PASS
from arena.engine.profile import get_profile
from arena.engine.profile import point_cards
from arena.publish.site.stats import HONOURS, BotStats, GameRun, DealCounts, add_deal, PEDROS, TimeUse, add_time_use, cinch_stats, game_facts, percentile
from arena.engine import profile_names
from tests.profiles import quick_first


def hand_deal(low_to: str = "holder") -> DealCounts:
    """Hearts trump, seat 1 (the dealer) bids 9 over seat 3's 8 and is set (3 points); three tricks shown.

    Trick 1 (seat 1 leads): 5H (right pedro, seat 2) and AH (High, seat 1); seat 1 wins.
    Trick 2: 5D (left pedro, played by seat 0) and JH (Jack, seat 3); seat 0 wins.
    Trick 3: TH (Game, seat 1) under-card 3H; 2H (Low) played by seat 3; seat 2 wins.
    Written by hand as the engine's facts would give it: Low scores for the side that held it (seat 3's)
    under ``low_goes_to: holder``, for the trick's winner's under ``capturer``.
    """
    tricks = [(1, [(1, "AH", ()), (2, "5H", ()), (3, "4C", ()), (0, "KS", ())]),
              (0, [(0, "5D", ()), (1, "9C", ()), (2, "QC", ()), (3, "JH", ())]),
              (2, [(2, "7S", ()), (3, "2H", ()), (0, "8S", ()), (1, "TH", ("3H",))])]
    names = {"AH": "high", "2H": "low", "JH": "jack", "TH": "game", "5H": "right_pedro", "5D": "left_pedro"}
    credit = {"AH": 1, "JH": 0, "TH": 0, "2H": 1 if low_to == "holder" else 0}
    return DealCounts(1, [(2, 0, False), (3, 8, False), (0, 0, False), (1, 9, False)], maker=1, bid=9, made=False,
                     points=(11, 3), tricks=tricks, names=names, credit=credit)


def count(*deals: DealCounts, bots: list[str], profile: str = "pagat62") -> dict[str, BotStats]:
    table: dict[str, BotStats] = {}
    for d in deals:
        add_deal(d, bots, table, get_profile(profile))
    return table


def under(st: dict, name: str = "pagat62") -> dict:
    """Each bot's statistics under one profile."""
    return {b: v[name] for b, v in st.items() if name in v}


def test_hand_built_deal_gives_the_hand_worked_answers() -> None:
    bots = ["north", "east", "south", "west"]
    st = count(hand_deal(), bots=bots)
    n, e, s, w = (st[b] for b in bots)
    assert (w.bids, w.bid_sum, e.bids, e.bid_sum) == (1, 8, 1, 9)
    assert (s.passes, n.passes, e.passes) == (1, 1, 0)
    assert e.contracts == {9: [0, 1]} and not w.contracts
    assert (e.bidder_deals, e.points_as_bidder) == (1, 3)
    # defenders: seats 0 and 2 (north, south), 11 points; east and west never defend here
    assert (n.defender_deals, n.points_as_defender, s.points_as_defender, e.defender_deals) == (1, 11, 11, 0)
    # right pedro: south played it into east's trick (captured by east, lost by south);
    # left pedro: north played it and won the trick (captured by north, not lost)
    assert (e.pedros_captured, s.pedros_lost, n.pedros_captured, n.pedros_lost) == (1, 1, 1, 0)
    assert w.pedros_captured == w.pedros_lost == 0
    # High in east's trick (side 1); Jack in north's trick (side 0); Game in south's trick (side 0);
    # Low played by west, so side 1 held it although south won the trick
    assert e.honours == w.honours == {"high": 1, "low": 1, "jack": 0, "game": 0, "off_jack": 0, "king": 0, "queen": 0, "nine": 0, "three": 0, "joker": 0}
    assert n.honours == s.honours == {"high": 0, "low": 0, "jack": 1, "game": 1, "off_jack": 0, "king": 0, "queen": 0, "nine": 0, "three": 0, "joker": 0}
    assert all(x.deals == 1 for x in st.values())
    assert n.applies()["void_deals"] and not n.applies()["forced"]  # pagat62 never voids a deal


def test_low_goes_with_its_trick_under_a_capturer_profile() -> None:
    st = count(hand_deal("capturer"), bots=["n", "e", "s", "w"])
    assert st["s"].honours["low"] == st["n"].honours["low"] == 1  # south won the trick west played Low into
    assert st["w"].honours["low"] == 0


def test_a_bot_partnering_itself_counts_its_side_once() -> None:
    st = count(hand_deal(), bots=["a", "b", "a", "b"])
    assert st["a"].deals == st["b"].deals == 1
    assert (st["a"].defender_deals, st["a"].points_as_defender) == (1, 11)
    assert st["b"].honours == {"high": 1, "low": 1, "jack": 0, "game": 0, "off_jack": 0, "king": 0, "queen": 0, "nine": 0, "three": 0, "joker": 0}
    # per seat: both pedros were captured by the winners' seats, a's right pedro went to b
    assert (st["b"].pedros_captured, st["a"].pedros_captured, st["a"].pedros_lost) == (1, 1, 1)


def _forced_deal(amount: int, forced_flag: bool) -> DealCounts:
    return DealCounts(3, [(s, 0, False) for s in range(3)] + [(3, amount, forced_flag)], forced=3, maker=3, bid=amount,
                     made=True, points=(2, 12))


def test_forced_dealer_bid() -> None:
    st = count(_forced_deal(7, True), bots=["a", "b", "c", "d"])
    assert (st["d"].forced, st["d"].forced_made, st["d"].bids, st["d"].average_bid) == (1, 1, 0, None)
    assert st["d"].contracts == {7: [1, 0]}
    assert st["a"].average_bid is None and st["a"].points_as_bidder is None and st["a"].passes == 1
    # chicago1890: the dealer must bid but chooses the amount (not a forced event): still a forced dealer bid
    chi = count(_forced_deal(9, False), bots=["a", "b", "c", "d"], profile="chicago1890")
    assert (chi["d"].forced, chi["d"].forced_made, chi["d"].bids) == (1, 1, 0)
    # foster1897: nobody is forced; four passes void the deal, counted per side, and the forced count does not apply
    void = DealCounts(3, [(s, 0, False) for s in range(4)], redeal=True)
    fos = count(void, bots=["a", "b", "a", "b"], profile="foster1897")
    assert (fos["a"].void_deals, fos["a"].passes, fos["a"].deals) == (1, 2, 0)
    assert fos["a"].applies()["forced"] and not fos["a"].applies()["void_deals"]


def test_the_engine_gives_the_facts() -> None:
    """The counts of engine deals: the forced bid where the profile forces one, never where it redeals;
    an unfinished deal (a game saved mid-play) is not counted."""
    for profile in ("pagat62", "chicago1890", "foster1897"):
        rng = random.Random(5)
        seen_forced = False
        for k in range(40):
            g = Game(get_profile(profile), key=f"facts-{k}", max_deals=3)
            while not g.over:
                _policy(rng, g)
            for d, f in zip(g.deals, game_facts(game_record(g)) or []):
                passes_first = [a for _, a, _ in d.bids[:3]] == [0, 0, 0] and len(d.bids) > 3 and d.bids[3][1] > 0
                assert (f.forced == 3) == (passes_first and get_profile(profile).dealer_forced_bid is not None)
                seen_forced |= f.forced is not None
                assert f.redeal == d.redeal and f.points == (d.points or (0, 0))
        assert seen_forced == (get_profile(profile).dealer_forced_bid is not None), profile
    g = Game(get_profile("pagat62"), key="half", max_deals=3)
    for _ in range(10):
        g.apply(g.choice.sample(random.Random(1)))
    assert game_facts(game_record(g)) == []  # the first deal is not over


def _policy(rng: random.Random, game: Game) -> None:
    """Random legal play that passes often (so redeals and forced dealer bids happen)."""
    ch = game.choice
    game.apply(PASS if ch.kind == "bid" and ch.can_pass and rng.random() < 0.6 else ch.sample(rng))


def _engine_oracle(game: Game, bots: list[str]) -> dict[str, dict[str, int]]:
    """The same counts straight from the engine's deal objects (tricks, low holder, cards out of play),
    themselves checked against the engine's points for every deal."""
    out: dict[str, dict[str, int]] = {}
    keys = ("captured", "lost", "laid_away", "bidder_points", "made", "forced", "void", *HONOURS)
    get = lambda b: out.setdefault(b, dict.fromkeys(keys, 0))  # noqa: E731
    p = game.profile
    for deal in game.deals:
        if not deal.done:
            continue
        n = deal.n
        side_of = deal.side_of or tuple(range(n))  # the deal's sides (pairs, each seat, or maker and partner)
        side_bots = [sorted({bots[s] for s in range(n) if side_of[s] == k}) for k in range(max(side_of) + 1)]
        if deal.redeal:
            for side in side_bots:
                for b in side:
                    get(b)["void"] += 1
            continue
        passes = 0
        for seat, amount, _ in deal.bids:
            if (amount and passes == n - 1 and p.dealer_forced_bid is not None
                    and not any(a for _, a, _ in deal.bids[:n - 1])):
                get(bots[seat])["forced"] += 1
            passes += amount == 0
        table = p.point_table(deal.trump)
        cards = {card_str(c): k for k, c in point_cards(deal.trump, p.off_jack_trump)}
        b_side = side_of[deal.maker]
        scored = [0] * len(side_bots)
        for trick in deal.tricks:
            for seat, top, under_ in trick.plays:
                for c in (top, *under_):
                    name = cards.get(card_str(c))
                    if not table[c] or name is None:
                        continue
                    if name in PEDROS:
                        get(bots[trick.winner])["captured"] += 1
                        if side_of[seat] != side_of[trick.winner]:
                            get(bots[seat])["lost"] += 1
                        scored[side_of[trick.winner]] += table[c]
                    else:
                        side = (side_of[deal.low_holder] if name == "low" and p.low_goes_to == "holder"
                                else side_of[trick.winner])
                        scored[side] += table[c]
                        for b in side_bots[side]:
                            get(b)[name] += 1
        for seat, c in deal.out:
            name = cards.get(card_str(c))
            if not table[c] or name is None:
                continue
            if name in PEDROS and seat >= 0:
                get(bots[seat])["laid_away"] += 1
            if p.defender_discards_to_bidders and seat >= 0 and side_of[seat] != b_side:
                scored[b_side] += table[c]
                if name not in PEDROS:
                    for b in side_bots[b_side]:
                        get(b)[name] += 1
        assert tuple(scored) == deal.points, (p.name, deal.index)  # the oracle scores like the engine
        get(bots[deal.maker])["bidder_points"] += deal.points[b_side]
        get(bots[deal.maker])["made"] += int(deal.made)
    return out


@pytest.mark.parametrize("profile", quick_first(profile_names()))
@pytest.mark.parametrize("seats", [["a", "b", "c", "d", "e", "f"], ["a", "b", "a", "b", "a", "b"]])
def test_statistics_agree_with_the_engine_on_random_games(seats: list[str], profile: str) -> None:
    seats = seats[:get_profile(profile).players]
    rng = random.Random(7)
    games = []
    oracle: dict[str, dict[str, int]] = {}
    why = BotStats(get_profile(profile)).applies()
    wanted = [f for key, f in (("forced", "forced"), ("void_deals", "void"), ("pedros_laid_away", "laid_away"))
              if why[key] is None]  # mechanisms the profile has: play on (to 80 games) until each shows
    for k in range(80):
        if k >= 12 and all(sum(row[f] for row in oracle.values()) for f in wanted):
            break
        g = Game(get_profile(profile), key=f"stats-{k}", max_deals=12)
        while not g.over:
            _policy(rng, g)
        games.append((game_record(g), seats))
        for b, row in _engine_oracle(g, seats).items():
            acc = oracle.setdefault(b, dict.fromkeys(row, 0))
            for f, v in row.items():
                acc[f] += v
    st = under(cinch_stats(games), profile)
    assert set(st) == set(oracle)
    for b, row in oracle.items():
        s = st[b]
        made = sum(v[0] for v in s.contracts.values())
        assert (s.pedros_captured, s.pedros_lost, s.pedros_laid_away, s.bidder_points, made, s.forced, s.void_deals) == (
            row["captured"], row["lost"], row["laid_away"], row["bidder_points"], row["made"], row["forced"], row["void"]), b
        assert s.honours == {h: row[h] for h in HONOURS}, b
    # the sample exercises every mechanism the profile has, so the comparison above is not of zeros
    for key, total in (("forced", sum(s.forced for s in st.values())), ("void_deals", sum(s.void_deals for s in st.values())),
                       ("pedros_laid_away", sum(s.pedros_laid_away for s in st.values()))):
        assert (total > 0) == (why[key] is None), (key, total)
    deals = sum(1 for r, _ in games for d in r["deals"] if "maker" in d)
    if not get_profile(profile).may_lose_points:  # every pedro is played, so captured by someone
        assert sum(s.pedros_captured for s in st.values()) == 2 * deals


def test_percentiles_need_enough_values() -> None:
    assert percentile([], 0.5) is None
    assert percentile([4.0], 0.5) == 4.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.0  # nearest rank: ceil(0.5 * 4) = 2nd value
    vals = [float(i) for i in range(1, 100)]
    assert percentile(vals, 0.99) is None  # 99 values cannot carry a 99th percentile
    vals.append(100.0)
    assert percentile(vals, 0.99) == 99.0


def test_bank_left_is_the_bank_minus_the_time_charged() -> None:
    table: dict[str, TimeUse] = {}
    run_game = {"players": [{"latency_ms": [10.0, 30.0], "cpu_ms": [5.0, 20.0], "startup_ms": 50.0},
                            {"latency_ms": [1.0], "cpu_ms": []}, {"latency_ms": [], "cpu_ms": []},
                            {"latency_ms": [2.0, 2.0]}]}
    add_time_use(GameRun.of([run_game], 0), ["a", "b", "a", "c"], 1000.0, table)
    assert table["a"].bank_left == [975.0]  # seat 2 made no decision: nothing to say about its bank
    assert table["b"].bank_left == [999.0]  # no CPU figures: the wall-clock latencies were charged
    assert table["c"].summary().latency_p50_ms == 2.0
    add_time_use(GameRun.of([run_game], 0), ["a", "b", "a", "c"], None, table)
    assert table["a"].bank_left == [975.0] and len(table["a"].latencies) == 4


def test_a_record_that_does_not_replay_is_left_out_and_counted() -> None:
    g = Game(get_profile("foster1897"), key="unreplayable", max_deals=4)
    rng = random.Random(3)
    while not g.over:
        _policy(rng, g)
    good = game_record(g)
    bad = json.loads(json.dumps(good))
    bad["deals"][0]["deck"] = bad["deals"][0]["deck"][::-1]  # not the deal the events were played from
    st = under(cinch_stats([(good, ["a", "b", "a", "b"]), (bad, ["a", "b", "a", "b"])]), "foster1897")
    alone = under(cinch_stats([(good, ["a", "b", "a", "b"])]), "foster1897")
    assert st["a"].unreplayable == st["b"].unreplayable == 1
    assert st["a"].to_dict() | {"unreplayable": 0} == alone["a"].to_dict()  # nothing of the bad game is counted


@pytest.mark.parametrize("profile", profile_names() + ["no-pedros"])
def test_a_figure_the_profile_lacks_says_why_never_a_zero_or_a_blank(profile: str) -> None:
    """A bot page's statistics under a profile without a mechanism or a point card (a degenerate one too:
    pedros worth nothing) show the engine's words for it, with every count still 0."""
    from arena.engine import PointValues, profile_info, variant
    from arena.publish.site.pages import _stats_view

    p = (variant("pagat62", name="no-pedros", points=PointValues(right_pedro=0, left_pedro=0, high=5, low=5), max_bid=12)
         if profile == "no-pedros" else get_profile(profile))
    st = BotStats(p, deals=3)
    rows = dict(_stats_view(p.name, st).rows)
    why = st.applies()
    lacks = profile_info(p).lacks
    assert why["forced"] == lacks("dealer_must_bid") and why["void_deals"] == lacks("redeal")
    assert why["pedros_laid_away"] == lacks("trumps_leave_play") and why["pedros"] == lacks("pedros")
    for label, value in rows.items():
        assert value not in ("", None) and str(value).strip(), label
    shown = {str(v) for v in rows.values()}
    for key, words in why.items():
        if words is None:
            continue
        assert words.strip()
        gone = key in ("off_jack", "king", "queen", "nine", "three", "joker")  # such a row is left out
        first = why["pedros"] if key == "pedros_laid_away" and why["pedros"] else words  # pedros worth nothing say so first
        assert gone or f"does not apply under {p.name}: {first}" in shown, key
    pedro_rows = [v for k, v in rows.items() if k.startswith("pedros ")]
    if why["pedros"]:
        assert pedro_rows == [f"does not apply under {p.name}: the pedros carry no points"] * 3
    else:
        assert pedro_rows[:2] == [0, 0]
    if profile == "no-pedros":
        assert not any(k.startswith("deals its side scored") and "does not apply" in str(v) for k, v in rows.items())


def test_a_run_record_of_the_wrong_shape_reads_as_missing() -> None:
    """The run part of a line is never scored: a seat, a number or a fault of another type is left out, never
    an exception that stops the site's build."""
    odd = GameRun.of([{"players": ["x", {"latency_ms": [1.0, "slow", True], "startup_ms": "soon"}],
                       "faults": [{"seat": "0", "stderr": 3}, "y"]}, None], 0)
    assert odd.players[0] is None and odd.players[1] is not None
    assert odd.players[1].latency_ms == (1.0,) and odd.players[1].startup_ms is None
    assert [(f.seat, f.stderr) for f in odd.faults] == [(None, None)]
    assert GameRun.of([None], 0) == GameRun() == GameRun.of([], 3)
