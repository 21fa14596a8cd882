"""The ladder never runs dry: past every pairing's minimum each batch plays on, where the ranking is least
certain, the same blocks in two folders given the same submissions (the 10-team runs on 2 workers and on a
cluster are in test_ladder_backends, slow)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.results import comparable, read_results
from arena.serve.ladder import batch_blocks, choose, ladder_tournament, room, run_batch
from arena.serve.tally import Stored
from arena.serve.serve import open_service

from .test_ladder_backends import accepted


def play(folder: Path, batches: list[int]) -> list[str]:
    """Batches of at most 2 blocks: the minimum (every pairing's 1 block) first, then on past it."""
    yaml_path = folder / "competition.yaml"
    yaml_path.write_text(yaml_path.read_text().replace("ladder_blocks: 8", "ladder_blocks: 2"))
    svc = open_service(folder)
    assert [run_batch(svc) for _ in batches] == batches
    got = [ln.to_dict() for ln in read_results(folder / "results").lines]
    per: dict[str, list[int]] = {}
    for ln in got:
        per.setdefault(ln["pairing"], []).append(ln["block"])
    assert sum(len(b) for b in per.values()) == sum(batches) and all(per.values())
    assert all(sorted(b) == list(range(len(b))) for b in per.values())  # each pairing's blocks in order, once
    meta = json.loads((folder / "results" / "tournament.json").read_text())
    assert meta["blocks"] == max(len(b) for b in per.values())  # the tournament grew only as far as it played
    return sorted(json.dumps(comparable(x), sort_keys=True) for x in got)


def test_past_the_minimum_each_batch_plays_on(tmp_path: Path) -> None:
    play(accepted(tmp_path / "c", teams=2), [1, 2])  # the one pairing's minimum, then a full batch past it


@pytest.mark.slow
def test_two_folders_given_the_same_submissions_play_the_same_blocks(tmp_path: Path) -> None:
    one, two = (play(accepted(tmp_path / n, teams=3), [2, 1, 2]) for n in ("one", "two"))  # 3 pairings' minimum
    assert one == two


def test_a_batch_is_ladder_blocks_for_each_worker_and_the_minimum_is_the_same_in_any_batching(tmp_path: Path) -> None:
    """2 workers get a batch of twice the blocks (both busy to its end); until every pairing has its minimum
    that batch is exactly one worker's two batches, in the same order."""
    folder = accepted(tmp_path / "c", teams=4)  # 6 pairings, a block each to the minimum
    one, two = (open_service(folder, competition={"workers": w, "ladder_blocks": 2}) for w in (1, 2))
    assert batch_blocks(one.config.competition) == 2 and batch_blocks(two.config.competition) == 4
    out = folder / "results"
    t2 = ladder_tournament(two, room(out, two.config.competition))
    t1 = ladder_tournament(one, room(out, one.config.competition))
    assert t1 is not None and t2 is not None
    together = choose(t2, Stored.of({}), two.config.competition, {})
    first = choose(t1, Stored.of({}), one.config.competition, {})
    second = choose(t1, Stored.of({k: [] for k in first}), one.config.competition, {})
    assert len(together) == 4 and first + second == together
    assert len(set(together)) == 4 and {b for _, b in together} == {0}
