"""The bootstrap's memo (``ratings.memo``): a report made with the sums of an earlier, smaller store is the
report made from scratch, to the last bit, while only the cells the new blocks touched are summed again."""

from __future__ import annotations

import dataclasses
import random

import pytest

from arena.ratings import BlockOutcome, rate
from arena.ratings.memo import ResampleMemo
from simulate import round_robin

TRUE = {"a": 120.0, "b": 60.0, "c": 0.0, "d": -40.0, "e": -90.0, "f": -150.0}


def _with_points(blocks: list[BlockOutcome], rng: random.Random) -> list[BlockOutcome]:
    """Each game a points difference matching its result, so the points' luck figure is made too."""
    out = []
    for blk in blocks:
        games = tuple(dataclasses.replace(g, points_diff=float((1 if g.score_a == 1.0 else -1 if g.score_a == 0.0
                                                                 else 0) * rng.randint(1, 20)))
                      for g in blk.games)
        out.append(BlockOutcome(blk.block_id, blk.pairing_id, games))  # type: ignore[arg-type]
    return out


def ladder(seed: int = 3) -> list[BlockOutcome]:
    """A ladder's store: every pairing's blocks 0-4 (deal keys shared across pairings), in a shuffled order
    (pairings get their blocks at different times), the last bot's blocks at the end (it entered late)."""
    rng = random.Random(seed)
    blocks = _with_points(round_robin(TRUE, 5, rng), rng)
    early = [b for b in blocks if "f" not in b.pairing_id]
    late = [b for b in blocks if "f" in b.pairing_id]
    rng.shuffle(early)
    return early + late


def same(a: object, b: object) -> None:
    assert a == b  # dataclass equality: every rating, interval, LOS and luck figure, exactly


def test_a_growing_store_rated_with_the_memo_gives_the_reports_from_scratch() -> None:
    blocks = ladder()
    keys = {b.deal_key for b in blocks}
    start = next(n for n in range(len(blocks)) if {b.deal_key for b in blocks[:n]} == keys) + 2
    memo = ResampleMemo()
    same(rate(blocks[:start], bootstrap=40, seed=7, memo=memo), rate(blocks[:start], bootstrap=40, seed=7))
    assert memo.hits == 0 and memo.misses > 0
    steps = 0
    for end in range(start + 3, len(blocks) + 1, 3):
        memo = ResampleMemo.from_bytes(memo.to_bytes())  # as a site keeps it between builds
        got = rate(blocks[:end], bootstrap=40, seed=7, memo=memo)
        same(got, rate(blocks[:end], bootstrap=40, seed=7))
        # three new blocks touch at most three matchups and three pairings of each luck statistic
        # (a bot's first block adds a parameter: every matchup's cell is then read again, by name)
        assert memo.misses <= 9 and memo.hits > 0, (end, memo.misses, memo.hits)
        steps += 1
    assert steps > 10


def test_other_draws_or_other_blocks_are_summed_again() -> None:
    """A memo of other draws (another seed, another number of resamples, a deal key more) or of other
    blocks under the same names (a retired version's blocks left out) gives the report from scratch."""
    blocks = ladder()
    memo = ResampleMemo()
    rate(blocks[:-10], bootstrap=30, seed=1, memo=memo)
    for kw in ({"bootstrap": 30, "seed": 2}, {"bootstrap": 25, "seed": 1}):
        m = ResampleMemo.from_bytes(memo.to_bytes())
        same(rate(blocks, memo=m, **kw), rate(blocks, **kw))  # type: ignore[arg-type]
        assert m.hits == 0
    fewer = [b for b in blocks if b.pairing_id != "a-b"]
    m = ResampleMemo.from_bytes(memo.to_bytes())
    same(rate(fewer, bootstrap=30, seed=1, memo=m), rate(fewer, bootstrap=30, seed=1))
    one_key = [b for b in blocks if b.deal_key != "4"]
    m = ResampleMemo.from_bytes(memo.to_bytes())
    same(rate(one_key, bootstrap=30, seed=1, memo=m), rate(one_key, bootstrap=30, seed=1))
    assert m.hits == 0  # a key fewer: other draws


def test_a_memo_forgets_what_no_longer_exists_and_refuses_what_is_not_one() -> None:
    blocks = ladder()
    memo = ResampleMemo()
    rate(blocks, bootstrap=20, seed=1, memo=memo)
    big = len(memo.to_bytes())
    rate([b for b in blocks if "f" not in b.pairing_id], bootstrap=20, seed=1, memo=memo)
    assert len(memo.to_bytes()) < big  # the pairings of f are gone from it
    assert ResampleMemo.from_bytes(ResampleMemo().to_bytes()).sections == {}
    for bad in (b"", b"no newline", b'[["fit","x",[["k","d",1,3]]]]\n' + b"\0" * 16, b"[]\n\0\0\0"):
        with pytest.raises(ValueError):
            ResampleMemo.from_bytes(bad)
