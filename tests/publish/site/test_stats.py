"""The Cinch statistics: a hand-built deal with answers worked out by hand, then the engine as the oracle."""

from __future__ import annotations

import random

import pytest

from arena.engine import Game, game_record
from arena.engine.cards import card_str
from arena.publish.site.stats import TimeUse, add_time_use, cinch_stats, percentile


def play(seat: int, card: str, under: tuple[str, ...] = ()) -> dict:
    ev = {"type": "play", "card": card, "seat": seat, "forced": False}
    if under:
        ev["under"] = list(under)
    return ev


def hand_deal() -> dict:
    """Hearts trump, seat 1 (the dealer) bids 9 over seat 3's 8 and is set (3 points); three tricks shown.

    Trick 1 (seat 1 leads): 5H (right pedro, seat 2) and AH (High, seat 1); seat 1 wins.
    Trick 2: 5D (left pedro, played by seat 0) and JH (Jack, seat 3); seat 0 wins.
    Trick 3: TH (Game, seat 1) under-card 3H; 2H (Low) played by seat 3; seat 2 wins.
    """
    bids = [{"type": "pass", "seat": 2, "forced": False}, {"type": "bid", "amount": 8, "seat": 3, "forced": False},
            {"type": "pass", "seat": 0, "forced": False}, {"type": "bid", "amount": 9, "seat": 1, "forced": False}]
    tricks = [play(1, "AH"), play(2, "5H"), play(3, "4C"), play(0, "KS"),
              play(0, "5D"), play(1, "9C"), play(2, "QC"), play(3, "JH"),
              play(2, "7S"), play(3, "2H"), play(0, "8S"), play(1, "TH", ("3H",))]
    return {"index": 0, "dealer": 1, "maker": 1, "bid": 9, "trump": "H", "made": False, "points": [11, 3],
            "trick_winners": [1, 0, 2], "events": bids + [{"type": "trump", "suit": "H", "seat": 1, "forced": False}]
            + tricks}


def test_hand_built_deal_gives_the_hand_worked_answers() -> None:
    bots = ["north", "east", "south", "west"]
    st = cinch_stats([({"deals": [hand_deal()]}, bots)])
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
    assert e.honours == w.honours == {"high": 1, "jack": 0, "game": 0, "low": 1}
    assert n.honours == s.honours == {"high": 0, "jack": 1, "game": 1, "low": 0}
    assert all(x.deals == 1 for x in st.values())


def test_low_goes_with_its_trick_under_a_captor_profile() -> None:
    st = cinch_stats([({"profile": {"low_goes_to": "captor"}, "deals": [hand_deal()]}, ["n", "e", "s", "w"])])
    assert st["s"].honours["low"] == st["n"].honours["low"] == 1  # south won the trick west played Low into
    assert st["w"].honours["low"] == 0


def test_a_bot_partnering_itself_counts_its_side_once() -> None:
    st = cinch_stats([({"deals": [hand_deal()]}, ["a", "b", "a", "b"])])
    assert st["a"].deals == st["b"].deals == 1
    assert (st["a"].defender_deals, st["a"].points_as_defender) == (1, 11)
    assert st["b"].honours == {"high": 1, "jack": 0, "game": 0, "low": 1}
    # per seat: both pedros were captured by the winners' seats, a's right pedro went to b
    assert (st["b"].pedros_captured, st["a"].pedros_captured, st["a"].pedros_lost) == (1, 1, 1)


def test_forced_dealer_bid_and_unfinished_deals() -> None:
    d = {"index": 0, "dealer": 3, "maker": 3, "bid": 7, "trump": "S", "made": True, "points": [2, 12],
         "trick_winners": [], "events": [{"type": "pass", "seat": s, "forced": False} for s in range(3)]
         + [{"type": "bid", "amount": 7, "seat": 3, "forced": True}]}
    unfinished = {"index": 1, "dealer": 0, "events": [{"type": "bid", "amount": 7, "seat": 1, "forced": False}]}
    st = cinch_stats([({"deals": [d, unfinished]}, ["a", "b", "c", "d"])])
    assert (st["d"].forced7, st["d"].forced7_made, st["d"].bids, st["d"].average_bid) == (1, 1, 0, None)
    assert st["d"].contracts == {7: [1, 0]}
    assert st["b"].bids == 0  # the unfinished deal is not counted
    assert st["a"].average_bid is None and st["a"].points_as_bidder is None


def _engine_oracle(game: Game, bots: list[str]) -> dict[str, dict[str, int]]:
    """The same counts straight from the engine's deal objects (tricks, low holder, points)."""
    out: dict[str, dict[str, int]] = {}
    get = lambda b: out.setdefault(b, {"captured": 0, "lost": 0, "low": 0, "bidder_points": 0, "made": 0})  # noqa: E731
    for deal in game.deals:
        if not deal.done:
            continue
        trump = "CDHS"[deal.trump]
        sister = {"H": "D", "D": "H", "S": "C", "C": "S"}[trump]
        pedros = {"5" + trump, "5" + sister}
        for trick in deal.tricks:
            for seat, top, under in trick.plays:
                for c in (top, *under):
                    if card_str(c) in pedros:
                        get(bots[trick.winner])["captured"] += 1
                        if seat % 2 != trick.winner % 2:
                            get(bots[seat])["lost"] += 1
        for b in sorted({bots[deal.low_holder], bots[(deal.low_holder + 2) % 4]}):
            get(b)["low"] += 1
        get(bots[deal.maker])["bidder_points"] += deal.points[deal.maker % 2]
        get(bots[deal.maker])["made"] += int(deal.made)
    return out


@pytest.mark.parametrize("seats", [["a", "b", "c", "d"], ["a", "b", "a", "b"]])
def test_statistics_agree_with_the_engine_on_random_games(seats: list[str]) -> None:
    rng = random.Random(7)
    games = []
    oracle: dict[str, dict[str, int]] = {}
    for k in range(25):
        g = Game(key=f"stats-{k}", max_deals=12)
        while not g.over:
            g.apply(g.choice.sample(rng))
        games.append((game_record(g), seats))
        for b, row in _engine_oracle(g, seats).items():
            acc = oracle.setdefault(b, dict.fromkeys(row, 0))
            for f, v in row.items():
                acc[f] += v
    st = cinch_stats(games)
    assert set(st) == set(oracle)
    for b, row in oracle.items():
        s = st[b]
        made = sum(v[0] for v in s.contracts.values())
        assert (s.pedros_captured, s.pedros_lost, s.honours["low"], s.bidder_points, made) == (
            row["captured"], row["lost"], row["low"], row["bidder_points"], row["made"]), b
    # 14 points a deal: every pedro is captured by someone, and High/Low/Jack/Game each go to one side
    deals = sum(len(r["deals"]) for r, _ in games)
    assert sum(s.pedros_captured for s in st.values()) == 2 * deals
    if len(set(seats)) == 4:
        assert sum(s.honours["high"] for s in st.values()) == 2 * deals  # two bots per side


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
    add_time_use(run_game, ["a", "b", "a", "c"], 1000.0, table)
    assert table["a"].bank_left == [975.0]  # seat 2 made no decision: nothing to say about its bank
    assert table["b"].bank_left == [999.0]  # no CPU figures: the wall-clock latencies were charged
    assert table["c"].summary()["latency_p50_ms"] == 2.0
    add_time_use(run_game, ["a", "b", "a", "c"], None, table)
    assert table["a"].bank_left == [975.0] and len(table["a"].latencies) == 4
