"""The ladder's pairing policy as a pure function: fewest rated games first, ties by block then name."""

from __future__ import annotations

from arena.serve.ladder import Missing, pick_batch


def test_the_least_known_entrants_play_first_and_a_batch_spreads() -> None:
    missing = [Missing(f"{a}-{b}", k, a, b) for a, b in [("a", "b"), ("a", "c"), ("b", "c")] for k in range(2)]
    # c is new (no games): both its pairings' first blocks come before any second block
    assert pick_batch(missing, {"a": 10, "b": 10}, 2) == [("a-c", 0), ("b-c", 0)]
    # a chosen block counts for its entrants: the next pick moves on instead of repeating c's pairing
    assert pick_batch(missing, {"a": 10, "b": 10}, 3)[2] == ("a-c", 1)
    # ties by block, then by the pairing's name; deterministic whatever the input order
    assert pick_batch(list(reversed(missing)), {}, 6) == pick_batch(missing, {}, 6)
    assert pick_batch(missing, {}, 1) == [("a-b", 0)]


def test_a_batch_never_exceeds_its_size_or_what_is_missing() -> None:
    missing = [Missing("a-b", k, "a", "b") for k in range(3)]
    assert pick_batch(missing, {}, 2) == [("a-b", 0), ("a-b", 1)]
    assert pick_batch(missing, {}, 10) == [("a-b", 0), ("a-b", 1), ("a-b", 2)]
    assert pick_batch([], {}, 4) == []


def test_a_block_the_harness_failed_on_goes_after_the_others() -> None:
    missing = [Missing(f"{a}-{b}", 0, a, b) for a, b in [("a", "b"), ("a", "c"), ("b", "c")]]
    assert pick_batch(missing, {}, 1) == [("a-b", 0)]
    assert pick_batch(missing, {}, 3, {("a-b", 0): 1}) == [("a-c", 0), ("b-c", 0), ("a-b", 0)]
    assert pick_batch(missing, {}, 3, {("a-b", 0): 2, ("a-c", 0): 1})[0] == ("b-c", 0)
