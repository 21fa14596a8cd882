"""The report's intervals and LOS (docs/ratings.md, *Error bars and likelihood of superiority*): centred
on the estimate with Student's t on the resamples' degrees of freedom, withheld ("too few blocks") where
the sample cannot carry them, identical for exchangeable records, in pairs and at tables alike."""

from __future__ import annotations

import math
import random
import statistics

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.ratings import rate
from arena.ratings.data import BlockOutcome, GameOutcome, TableBlock, TableGame
from arena.ratings.report import (MIN_DF, TOO_FEW_BLOCKS, BootstrapFits, centred_interval, los_table,
                                  parameter_df, percentile_interval)
from arena.ratings.tables import deal_contests, finish_contests
from arena.ratings.tdist import t_cdf, t_quantile

RESAMPLES = ["auto", "key", "pairing", "block"]


def test_student_t_known_values() -> None:
    for df, q in [(1, 12.7062047), (2, 4.3026527), (3, 3.1824463), (9, 2.2621572), (19, 2.0930241), (math.inf, 1.9599640)]:
        assert t_quantile(0.975, df) == pytest.approx(q, abs=1e-6)
        assert t_cdf(t_quantile(0.975, df), df) == pytest.approx(0.975, abs=1e-10)
    assert t_cdf(-2.0, 4) == pytest.approx(0.0580582618, abs=1e-9)  # a textbook table value
    assert t_cdf(0.0, 7) == 0.5 and t_quantile(0.025, 5) == pytest.approx(-t_quantile(0.975, 5))
    with pytest.raises(ValueError):
        t_cdf(1.0, 0)
    with pytest.raises(ValueError):
        t_quantile(1.0, 3)


def test_centred_interval_holds_its_estimate_and_needs_degrees_of_freedom() -> None:
    vals = [10.0, 12.0, 30.0, 31.0]  # skewed resamples, whose percentile interval misses the estimate 5
    lo, hi = percentile_interval(vals)
    assert not lo <= 5.0 <= hi
    ci = centred_interval(5.0, vals, df=3)
    assert ci is not None and ci[0] < 5.0 < ci[1]
    assert ci[1] - 5.0 == pytest.approx(5.0 - ci[0]) == pytest.approx(t_quantile(0.975, 3) * statistics.stdev(vals), rel=1e-9)
    assert centred_interval(5.0, vals, df=MIN_DF - 1) is None and centred_interval(5.0, [], df=10) is None
    assert centred_interval(0.9, [0.5, 1.0], df=50, bounds=(-1.0, 1.0))[1] == 1.0  # a correlation stays in range


def test_degrees_of_freedom_count_the_units_that_move_a_parameter() -> None:
    strata = [[[0], [1], [2]], [[3], [4]], [[5]]]
    assert parameter_df(strata, [True] * 6) == 2 + 1 + 0
    assert parameter_df(strata, [True, False, False, True, True, False]) == 1 + 1  # one unit of three: 1
    assert parameter_df([[[0, 1], [2, 3]]], [False, False, False, True]) == 1


# ------------------------------------------------------------ random results: every interval holds its estimate


def _pairs(draw: st.DrawFn) -> list[BlockOutcome]:
    bots = [f"p{i}" for i in range(draw(st.integers(2, 4)))]
    out = []
    for i, a in enumerate(bots):
        for b in bots[i + 1:]:
            for k in range(draw(st.integers(1, 5))):
                s1, s2 = draw(st.sampled_from([0.0, 0.5, 1.0])), draw(st.sampled_from([0.0, 0.5, 1.0]))
                out.append(BlockOutcome(f"{a}-{b}#{k}", f"{a}-{b}",
                                        (GameOutcome((a, a), (b, b), s1), GameOutcome((b, b), (a, a), s2))))
    return out


def _tables(draw: st.DrawFn) -> list[TableBlock]:
    n = draw(st.sampled_from([3, 5]))
    bots = [f"t{i}" for i in range(n + draw(st.integers(0, 1)))]
    tables = [bots[:n]] if len(bots) == n else [bots[:n], bots[1:]]
    called = n == 5
    out = []
    for k in range(draw(st.integers(1, 5))):
        for table in tables:
            games = []
            for r in range(n):
                seats = tuple(table[(s - r) % n] for s in range(n))
                if called:
                    deals = []
                    for _ in range(draw(st.integers(1, 3))):
                        maker = draw(st.integers(0, n - 1))
                        partner = draw(st.sampled_from([None, *[s for s in range(n) if s != maker]]))
                        sides = [0 if s in (maker, partner) else 1 for s in range(n)]
                        won = draw(st.booleans())
                        deals.append((sides, [float((sd == 0) == won) for sd in sides], maker))
                    games.append(TableGame(seats, None, tuple(float(x) for x in range(n)), deal_contests(seats, deals)))
                else:
                    scores = tuple(float(draw(st.integers(0, 3))) for _ in range(n))
                    g = TableGame(seats, None, scores)
                    games.append(TableGame(seats, None, scores, finish_contests(g)))
            out.append(TableBlock(f"{'+'.join(table)}#{k}", "+".join(table), tuple(games)))
    return out


@st.composite
def tournaments(draw: st.DrawFn) -> tuple[list, str, tuple[str, float] | None]:
    blocks = _pairs(draw) if draw(st.booleans()) else _tables(draw)
    bots = sorted({b for blk in blocks for g in blk.games for b in (g.seats if isinstance(blk, TableBlock) else g.side_a)})
    anchor = draw(st.sampled_from([None, (bots[0], 0.0)]))
    return blocks, draw(st.sampled_from(RESAMPLES)), anchor


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tournaments(), st.integers(0, 3))
def test_every_reported_interval_holds_its_estimate(t: tuple[list, str, tuple[str, float] | None], seed: int) -> None:
    blocks, resample, anchor = t
    rep = rate(blocks, bootstrap=25, seed=seed, resample=resample, anchor=anchor)
    for b in rep.bots:
        assert (b.ci_low is None) == (b.ci_high is None)
        if b.ci_low is not None:
            assert b.ci_low - 1e-9 <= b.rating <= b.ci_high + 1e-9, (b, resample)
        assert b.df is not None and (b.withheld == TOO_FEW_BLOCKS) == (b.df < MIN_DF)
        if b.withheld:
            assert b.ci_low is None
    m = rep.table.maker_advantage if rep.table else None
    if m and m.ci_low is not None:
        assert m.ci_low - 1e-9 <= m.rating <= m.ci_high + 1e-9
    for lk in (rep.luck, rep.luck_points):
        if lk is not None and lk.rho_ci is not None:
            assert lk.rho_ci[0] - 1e-9 <= lk.rho <= lk.rho_ci[1] + 1e-9
            lo, hi = lk.factor_ci  # the factor's interval is the image of rho's: it holds the factor
            assert lo - 1e-9 <= lk.factor and (hi is None or lk.factor <= hi + 1e-9)
    by = {b.bot: b for b in rep.bots}
    for a, row in rep.los.items():
        for b, x in row.items():
            assert (x is None) == (min(by[a].df, by[b].df) < MIN_DF)  # type: ignore[type-var]
            if x is not None:
                assert 0.0 <= x <= 1.0 and rep.los[b][a] == pytest.approx(1.0 - x, abs=1e-9)


# ------------------------------------------------------------ too few blocks


def _five_hand(blocks: int, seed: int = 1) -> list[TableBlock]:
    from arena.bench.ratings import table_tournament

    return table_tournament({"a": -100.0, "b": 0.0, "c": 0.0, "d": 50.0, "e": 100.0}, blocks, random.Random(seed),
                            maker_edge=100.0)


def test_one_table_of_two_blocks_is_too_few_for_any_interval_or_los() -> None:
    """The issue's case: five entrants at five-hand, 2 blocks. A stratified resample keeps 1 of the 2
    blocks (weighted 2): one degree of freedom, and every interval and LOS says so instead of a figure."""
    rep = rate(_five_hand(2), bootstrap=100, seed=0)
    assert all(b.withheld == TOO_FEW_BLOCKS and b.ci_low is None and b.df == 1 for b in rep.bots)
    m = rep.table.maker_advantage
    assert m.withheld == TOO_FEW_BLOCKS and m.ci_low is None and m.df == 1
    assert all(x is None for row in rep.los.values() for x in row.values()) and rep.los
    four = rate(_five_hand(4), bootstrap=100, seed=0)
    assert all(b.df == 3 and b.ci_low is not None for b in four.bots) and four.table.maker_advantage.ci_low is not None
    assert all(x is not None for row in four.los.values() for x in row.values())


def test_pairs_of_one_block_each_withhold_and_a_bootstrap_of_zero_says_nothing() -> None:
    one = [BlockOutcome(f"{a}-{b}#0", f"{a}-{b}", (GameOutcome((a, a), (b, b), 1.0), GameOutcome((b, b), (a, a), 0.5)))
           for a, b in (("x", "y"), ("x", "z"), ("y", "z"))]
    rep = rate(one, bootstrap=50)
    assert rep.resample == "key" and all(b.withheld == TOO_FEW_BLOCKS and b.df == 0 for b in rep.bots)
    assert rep.los["x"]["y"] is None
    none = rate(one, bootstrap=0)
    assert all(b.df is None and b.withheld is None and b.ci_low is None for b in none.bots) and none.los == {}


# ------------------------------------------------------------ identical records


def _mirror(blocks: list[TableBlock], a: str, b: str) -> list[TableBlock]:
    """The blocks again with bots ``a`` and ``b`` swapped (tables renamed to match)."""
    def sw(x: str) -> str:
        return b if x == a else a if x == b else x

    out = []
    for blk in blocks:
        games = tuple(TableGame(tuple(sw(s) for s in g.seats), g.winner, g.scores,
                                tuple(GameOutcome(tuple(map(sw, c.side_a)), tuple(map(sw, c.side_b)), c.score_a,
                                                  maker_a=c.maker_a) for c in g.contests)) for g in blk.games)
        tid = "+".join(sorted(sw(x) for x in blk.table_id.split("+")))
        out.append(TableBlock(f"{tid}#{blk.deal_key}", tid, games))
    return out


def _cutthroat(blocks: int, seed: int) -> list[TableBlock]:
    """Tables {a, b, c} and {a2, b, c} with the same results, a2 in a's place: identical records at
    different tables, which independent per-table draws would split."""
    from arena.bench.ratings import table_tournament

    rng = random.Random(seed)
    base = table_tournament({"a": 50.0, "b": 0.0, "c": -80.0}, blocks, rng, contests="finish")
    base = [TableBlock(f"a+b+c#{blk.deal_key}", "a+b+c", blk.games) for blk in base]
    extra = table_tournament({"a": 0.0, "b": 30.0, "d": 0.0}, blocks, rng, contests="finish")  # a's own table
    extra = [TableBlock(f"a+b+d#{blk.deal_key}", "a+b+d", blk.games) for blk in extra]
    return base + _mirror(base, "a", "a2") + extra + _mirror(extra, "a", "a2")


@pytest.mark.parametrize("resample", ["pairing", "key", "block"])
@pytest.mark.parametrize("seed", [1, 2])
def test_identical_records_at_different_tables_get_identical_intervals_and_los_one_half(resample: str, seed: int) -> None:
    blocks = _cutthroat(6, seed)
    rep = rate(blocks, bootstrap=150, seed=seed, resample=resample)
    by = {b.bot: b for b in rep.bots}
    assert by["a"].rating == pytest.approx(by["a2"].rating, abs=1e-6)
    assert by["a"].ci_low is not None and by["a"].ci_high - by["a"].ci_low > 1.0
    assert (by["a"].ci_low, by["a"].ci_high) == pytest.approx((by["a2"].ci_low, by["a2"].ci_high), abs=1e-6)
    assert rep.los["a"]["a2"] == 0.5 and rep.los["a2"]["a"] == 0.5
    for other in ("b", "c", "d"):  # and each has the same chance against every other bot
        assert rep.los["a"][other] == pytest.approx(rep.los["a2"][other], abs=1e-9)


def test_without_pooling_the_per_table_draws_split_identical_records() -> None:
    """What the pooling removes: the same resamples read bot by bot give the two copies different
    spreads (the draws of their tables differ), as the issue measured (ends 8 Elo apart)."""
    from arena.ratings.report import bootstrap_fits, parameter_interval

    bf = bootstrap_fits(_cutthroat(6, 1), bootstrap=150, seed=1, resample="pairing")
    i, j = bf.bots.index("a"), bf.bots.index("a2")
    assert bf.orbits[i] == bf.orbits[j] == (i, j)
    raw = BootstrapFits(bf.bots, bf.full, bf.samples, bf.draws, 0, bf.resample, bf.terms, bf.df)
    ci, cj = parameter_interval(raw, i), parameter_interval(raw, j)
    assert ci is not None and cj is not None and abs(ci[0] - cj[0]) > 0.01
    assert los_table(raw)["a"]["a2"] == pytest.approx(0.5, abs=1e-6)  # equal ratings: the t form is 1/2 anyway
    assert parameter_interval(bf, i) == pytest.approx(parameter_interval(bf, j), abs=1e-9)


def test_a_five_hand_table_symmetric_in_two_bots_gives_them_one_interval() -> None:
    """One table, every contest matched by its image with c and d swapped: under every resampling the
    two bots are exchangeable, so their intervals coincide and their LOS is 1/2."""
    blocks = _five_hand(6)
    sym = []
    for blk, im in zip(blocks, _mirror(blocks, "c", "d")):
        games = tuple(TableGame(g.seats, g.winner, g.scores, g.contests + h.contests) for g, h in zip(blk.games, im.games))
        sym.append(TableBlock(blk.block_id, blk.table_id, games))
    for resample in ("pairing", "key", "block"):
        rep = rate(sym, bootstrap=120, seed=4, resample=resample)
        by = {b.bot: b for b in rep.bots}
        assert (by["c"].ci_low, by["c"].ci_high) == pytest.approx((by["d"].ci_low, by["d"].ci_high), abs=1e-6)
        assert rep.los["c"]["d"] == 0.5


def test_the_anchor_is_exchangeable_with_no_one() -> None:
    """Anchored at a, a's rating never moves; its copy a2 still has a real interval."""
    rep = rate(_cutthroat(6, 1), bootstrap=150, seed=1, resample="pairing", anchor=("a", 0.0))
    by = {b.bot: b for b in rep.bots}
    assert by["a"].ci_low == by["a"].ci_high == 0.0
    assert by["a2"].ci_high - by["a2"].ci_low > 1.0 and by["a2"].rating == pytest.approx(0.0, abs=1e-6)
    assert rep.los["a"]["a2"] == pytest.approx(0.5, abs=1e-6)


def _brute_orbits(blocks: list[BlockOutcome], resample: str) -> list[tuple[int, ...]]:
    """Every pair of tied bots compared whole (the definition ``exchangeable`` must agree with)."""
    from arena.ratings.report import _structure, bootstrap_fits, resampling_units

    bf = bootstrap_fits(blocks, bootstrap=0, resample=resample)
    strata = resampling_units(blocks, resample)
    base = _structure(blocks, strata, {})
    n = len(bf.bots)
    same = [[i == j or (abs(bf.full[i] - bf.full[j]) <= 1e-6 * (1.0 + abs(bf.full[i])) and _structure(
        blocks, strata, {bf.bots[i]: bf.bots[j], bf.bots[j]: bf.bots[i]}) == base) for j in range(n)] for i in range(n)]
    orbits = []
    for i in range(n):  # the swaps found are transpositions of one group: its orbits are the connected parts
        seen, todo = {i}, [i]
        while todo:
            k = todo.pop()
            for j in range(n):
                if same[k][j] and j not in seen:
                    seen.add(j)
                    todo.append(j)
        orbits.append(tuple(sorted(seen)))
    return orbits


@pytest.mark.parametrize("seed", range(12))
def test_exchangeable_records_are_found_as_by_comparing_every_tied_pair_whole(seed: int) -> None:
    """A round robin where many bots tie in score (a ladder's usual state) and some are copies of
    another: the quick screen before the whole comparison finds exactly the orbits the whole comparison
    of every tied pair finds."""
    from arena.ratings.report import bootstrap_fits

    rng = random.Random(seed)
    bots = [f"b{i}" for i in range(7)]
    copies = {"b5": "b1", "b6": "b1"} if seed % 2 else {"b6": "b2"}
    real = [b for b in bots if b not in copies]
    result = {(a, b, k): rng.choice([0.0, 1.0, 1.0, 0.0, 0.5]) for a in real for b in real for k in range(3)}

    def score(a: str, b: str, k: int, half: int) -> float:
        a, b = copies.get(a, a), copies.get(b, b)
        if a == b:
            return 0.5
        return result[(a, b, k)] if half == 0 else 1.0 - result[(b, a, k)]

    blocks = [BlockOutcome(f"{a}-{b}#{k}", f"{a}-{b}", (GameOutcome((a, a), (b, b), score(a, b, k, 0)),
                                                      GameOutcome((b, b), (a, a), 1.0 - score(a, b, k, 1))))
              for i, a in enumerate(bots) for b in bots[i + 1:] for k in range(3)]
    for resample in ("key", "pairing"):
        bf = bootstrap_fits(blocks, bootstrap=0, resample=resample)
        assert bf.orbits[:len(bf.bots)] == _brute_orbits(blocks, resample)
    assert any(len(o) > 1 for o in bootstrap_fits(blocks, bootstrap=0).orbits)  # the copies are found
