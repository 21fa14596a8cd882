"""What pairing saved: paired against unpaired variance, from the blocks themselves."""

from __future__ import annotations

import math
import random

import pytest

from arena.ratings import BlockOutcome, GameOutcome, candidate_halves, format_gain, pairing_gain


def test_known_answer() -> None:
    halves = [(1.0, 0.0), (0.0, 1.0), (1.0, 1.0), (0.0, 0.0), (1.0, 0.0), (0.0, 1.0)]
    t = [a + b for a, b in halves]
    d = [a - b for a, b in halves]
    mt, md = sum(t) / 6, sum(d) / 6
    vt = sum((x - mt) ** 2 for x in t) / 5
    vd = sum((x - md) ** 2 for x in d) / 5
    g = pairing_gain(halves)
    assert g.blocks == 6 and g.df == 5
    assert g.paired_var == pytest.approx(vt) and g.unpaired_var == pytest.approx((vt + vd) / 2)
    assert g.rho == pytest.approx((vt - vd) / (vt + vd))
    assert g.factor == pytest.approx(g.unpaired_var / g.paired_var)


def test_recovers_the_simulated_correlation() -> None:
    rng = random.Random(1)
    # candidate's points in the two halves: shared card luck c (enters with opposite signs) plus play noise
    halves = []
    for _ in range(4000):
        c = rng.gauss(0, 20)
        halves.append((3 + c + rng.gauss(0, 10), 3 - c + rng.gauss(0, 10)))
    g = pairing_gain(halves, "points")
    rho = -400 / 500
    assert g.rho == pytest.approx(rho, abs=0.02)
    assert g.factor == pytest.approx(1 / (1 + rho), rel=0.1)
    assert "points difference" in format_gain(g) and "4000 blocks" in format_gain(g)


def test_groups_are_centred_separately() -> None:
    # Two groups with very different means and no luck: pooling raw results would invent a correlation.
    rng = random.Random(2)
    a = [(rng.gauss(10, 1), rng.gauss(10, 1)) for _ in range(500)]
    b = [(rng.gauss(-10, 1), rng.gauss(-10, 1)) for _ in range(500)]
    assert pairing_gain({"a": a, "b": b}).rho == pytest.approx(0.0, abs=0.08)
    assert pairing_gain(a + b).rho > 0.9  # what ignoring the groups would say


@pytest.mark.parametrize("halves,phrase", [([], "too few"), ([(1.0, 0.0)] * 2, "too few"),
                                           ([(1.0, 0.0)] * 10, "nothing to measure")])
def test_degenerate_samples_say_so(halves: list[tuple[float, float]], phrase: str) -> None:
    g = pairing_gain(halves)
    assert g.factor is None and g.rho is None and phrase in (g.note or "")
    assert phrase in format_gain(g)


def test_cards_decide_everything() -> None:
    g = pairing_gain([(1.0, 0.0), (0.0, 1.0)] * 5)  # every block 1-1: block totals never vary
    assert g.rho == -1.0 and g.factor == math.inf
    assert "removed all of the variance" in format_gain(g)
    assert g.to_dict()["factor"] is None


def test_candidate_halves_from_blocks() -> None:
    c, b = ("c", "c"), ("b", "b")
    blocks = [BlockOutcome("1", "p", (GameOutcome(c, b, 1.0, points_diff=12), GameOutcome(b, c, 1.0, points_diff=5))),
              BlockOutcome("2", "p", (GameOutcome(b, c, 0.5, points_diff=0), GameOutcome(c, b, 0.0, points_diff=-7)))]
    assert candidate_halves(blocks, c) == [(1.0, 0.0), (0.5, 0.0)]
    assert candidate_halves(blocks, c, "points") == [(12.0, -5.0), (0.0, -7.0)]
    with pytest.raises(ValueError):
        candidate_halves(blocks, ("x", "x"))
    with pytest.raises(ValueError):
        candidate_halves([BlockOutcome("3", "p", (GameOutcome(c, b, 1.0), GameOutcome(b, c, 0.0)))], c, "points")


# -- duplicate by rotation at a table of n seats ------------------------------------------


def test_rotation_gain_is_about_one_when_the_rotations_are_independent() -> None:
    import random as _random

    from arena.ratings.luck import rotation_gain

    rng = _random.Random(3)
    results = [[[rng.gauss(10 * e, 5) for _ in range(3)] for e in range(3)] for _ in range(2000)]
    g = rotation_gain(results)
    assert g.rotations == 3 and g.blocks == 2000 and g.factor is not None
    assert 0.9 < g.factor < 1.1  # (entrant strengths differ by 10: centred away, never counted as luck)


def test_rotation_gain_is_large_when_the_cards_decide() -> None:
    """Each rotation deals the same cards: an entrant holding the good seat this time holds the
    bad one next time, so its block total hardly varies though single games vary a lot."""
    import random as _random

    from arena.ratings.luck import rotation_gain

    rng = _random.Random(4)
    results = []
    for _ in range(300):
        luck = [rng.gauss(0, 10) for _ in range(3)]  # the cards of each seat
        luck = [x - sum(luck) / 3 for x in luck]
        results.append([[luck[(e + r) % 3] + rng.gauss(0, 1) for r in range(3)] for e in range(3)])
    g = rotation_gain(results)
    assert g.factor is not None and g.factor > 20


def test_rotation_gain_needs_blocks() -> None:
    from arena.ratings.luck import rotation_gain

    assert rotation_gain([[[1.0, 2.0], [0.0, 3.0]]]).factor is None  # one block: no spread of totals
