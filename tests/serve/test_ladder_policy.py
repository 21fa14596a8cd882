"""The ladder's choice of blocks as pure functions: the minimum (fewest rated games first, ties by block then
name), then continuous play (the largest expected reduction of the adjacent rating differences' variance)."""

from __future__ import annotations

from itertools import combinations

import pytest

from arena.serve.choice import Block, Missing, adjacent_variance, covariance, pick_batch, pick_continuous, reduction


def test_the_least_known_entrants_play_first_and_a_batch_spreads() -> None:
    missing = [Missing(f"{a}-{b}", k, (a, b)) for a, b in [("a", "b"), ("a", "c"), ("b", "c")] for k in range(2)]
    # c is new (no games): both its pairings' first blocks come before any second block
    assert pick_batch(missing, {"a": 10, "b": 10}, 2) == [("a-c", 0), ("b-c", 0)]
    # a chosen block counts for its entrants: the next pick moves on instead of repeating c's pairing
    assert pick_batch(missing, {"a": 10, "b": 10}, 3)[2] == ("a-c", 1)
    # ties by block, then by the pairing's name; deterministic whatever the input order
    assert pick_batch(list(reversed(missing)), {}, 6) == pick_batch(missing, {}, 6)
    assert pick_batch(missing, {}, 1) == [("a-b", 0)]


def test_a_batch_never_exceeds_its_size_or_what_is_missing() -> None:
    missing = [Missing("a-b", k, ("a", "b")) for k in range(3)]
    assert pick_batch(missing, {}, 2) == [("a-b", 0), ("a-b", 1)]
    assert pick_batch(missing, {}, 10) == [("a-b", 0), ("a-b", 1), ("a-b", 2)]
    assert pick_batch([], {}, 4) == []


def test_a_block_the_harness_failed_on_goes_after_the_others() -> None:
    missing = [Missing(f"{a}-{b}", 0, (a, b)) for a, b in [("a", "b"), ("a", "c"), ("b", "c")]]
    assert pick_batch(missing, {}, 1) == [("a-b", 0)]
    assert pick_batch(missing, {}, 3, {("a-b", 0): 1}) == [("a-c", 0), ("b-c", 0), ("a-b", 0)]
    assert pick_batch(missing, {}, 3, {("a-b", 0): 2, ("a-c", 0): 1})[0] == ("b-c", 0)


def test_a_table_block_counts_its_games_for_every_entrant() -> None:
    """Five-hand: a table block's idents are its five entrants (the IndexError of issue 39 took side_a[0])."""
    tables = [Block("t1", 0, ("a", "b", "c", "d", "e"), 5), Block("t2", 0, ("b", "c", "d", "e", "f"), 5)]
    assert pick_batch(tables, {"a": 5}, 2) == [("t2", 0), ("t1", 0)]  # f (no games) before a


def _round_robin(names: str, blocks: dict[str, int], default: int) -> tuple[list[Block], list[Block]]:
    """(stored, missing): each pairing with its stored blocks and its next 4."""
    stored, missing = [], []
    for a, b in combinations(names, 2):
        n = blocks.get(a + b, default)
        stored += [Block(a + b, k, (a, b)) for k in range(n)]
        missing += [Block(a + b, k, (a, b)) for k in range(n, n + 4)]
    return stored, missing


def test_continuous_play_goes_to_the_one_pairing_far_less_certain_than_the_rest() -> None:
    """Ranking a > b > c > d; every pairing has 20 blocks but b-c, the adjacent pair in the middle, has 2:
    its difference is the least certain, and the next blocks go there."""
    stored, missing = _round_robin("abcd", {"bc": 2}, 20)
    got = pick_continuous(missing, stored, list("abcd"), 3)
    assert got == [("bc", 2), ("bc", 3), ("bc", 4)]
    # the choice is the expected reduction: b-c's block lowers the adjacent variance most
    cov = covariance(stored, list("abcd"))
    gains = {p: reduction(cov, [(i, j, 1.0)]) for p, i, j in [("ab", 0, 1), ("bc", 1, 2), ("cd", 2, 3), ("ad", 0, 3)]}
    assert max(gains, key=lambda p: gains[p]) == "bc" and gains["bc"] > 2 * gains["ab"]


def test_continuous_play_spreads_when_the_pairings_are_alike_and_prefers_adjacent_ones() -> None:
    stored, missing = _round_robin("abcd", {}, 10)
    got = pick_continuous(missing, stored, list("abcd"), 3)
    assert len(set(got)) == 3 and {p for p, _ in got} <= {"ab", "bc", "cd"}  # neighbours in the ranking first
    # its picks lower the variance it aims at, each one less than the one before (diminishing returns)
    cov = covariance(stored, list("abcd"))
    before = sum(adjacent_variance(cov))
    for p, _ in got:
        i, j = "abcd".index(p[0]), "abcd".index(p[1])
        from arena.serve.choice import _update
        cov = _update(cov, i, j, 1.0)
    assert sum(adjacent_variance(cov)) < before


def test_continuous_play_is_deterministic_and_respects_failures_and_size() -> None:
    stored, missing = _round_robin("abcde", {"ce": 3}, 8)
    one = pick_continuous(missing, stored, list("abcde"), 4)
    assert one == pick_continuous(list(reversed(missing)), list(reversed(stored)), list("abcde"), 4)
    assert len(one) == 4
    first = one[0]
    assert pick_continuous(missing, stored, list("abcde"), 4, {first: 1})[0] != first  # a failed block waits
    assert pick_continuous([], stored, list("abcde"), 4) == []
    assert len(pick_continuous(missing[:2], stored, list("abcde"), 10)) == 2


def test_continuous_play_at_tables_goes_to_the_table_of_the_uncertain_versions() -> None:
    """Five-hand with six versions: six tables (each leaves one out); the table without f has 1 block, the
    others 6: f's neighbours are well known, a-e among themselves less so; the next block goes there."""
    names = "abcdef"
    stored, missing = [], []
    for out in names:
        ids = tuple(x for x in names if x != out)
        n = 1 if out == "f" else 6
        stored += [Block("t-" + out, k, ids, 5) for k in range(n)]
        missing += [Block("t-" + out, k, ids, 5) for k in range(n, n + 2)]
    got = pick_continuous(missing, stored, list(names), 1)
    assert got == [("t-f", 1)]
    cov = covariance(stored, list(names))
    assert all(v > 0 for v in adjacent_variance(cov))


@pytest.mark.parametrize("k", [2, 7])
def test_the_covariance_is_the_inverse_of_the_information(k: int) -> None:
    names = [chr(97 + i) for i in range(k)]
    stored = [Block(a + b, 0, (a, b)) for a, b in combinations(names, 2)]
    cov = covariance(stored, names)
    # information: k-1 + PRIOR on the diagonal, -1 off it
    from arena.serve.choice import PRIOR
    info = [[(k - 1 + PRIOR) if r == c else -1.0 for c in range(k)] for r in range(k)]
    for r in range(k):
        for c in range(k):
            got = sum(info[r][x] * cov[x][c] for x in range(k))
            assert abs(got - (1.0 if r == c else 0.0)) < 1e-9


def test_the_ranking_accounts_for_whom_each_version_met() -> None:
    """a beat b 6-4, b beat c 9-1, c beat d 9-1: b's score rate (65%) is above a's (60%), but a is above b
    in a fit of who beat whom, and the choice's neighbours are those of the fit."""
    from arena.serve.choice import strength_order

    wins = {("a", "b"): 6.0, ("b", "a"): 4.0, ("b", "c"): 9.0, ("c", "b"): 1.0, ("c", "d"): 9.0, ("d", "c"): 1.0}
    assert strength_order(["d", "c", "b", "a"], wins) == ["a", "b", "c", "d"]
    assert strength_order(["y", "x"], {}) == ["x", "y"]  # no games: by name
    assert strength_order([], {}) == []


def test_pairwise_wins_from_results_lines_of_pairs_and_tables() -> None:
    from arena.results import BotRef, GameLine, PairsLine, TableLine
    from arena.serve.choice import pairwise

    def game(names: str, winner: int | None) -> GameLine:  # the fields pairwise reads, built without the checks
        return GameLine.model_construct(seats=[BotRef.model_construct(bot=n) for n in names], winner=winner)

    lines = [PairsLine.model_construct(games=[game("abab", 0), game("baba", None)]),
             TableLine.model_construct(games=[game("abc", 2), game("cab", None)])]
    got = pairwise(lines)
    assert got[("a", "b")] == 1.0 + 0.5 + 0.5 and got[("b", "a")] == 0.5 + 0.5
    assert got[("c", "a")] == 1.0 + 0.5 and got[("a", "c")] == 0.5 and got[("c", "b")] == 1.5
