"""The ladder never runs dry: past every pairing's minimum each batch plays on, where the ranking is least
certain, the same blocks in two folders given the same submissions (the 10-team runs on 2 workers and on a
cluster are in test_ladder_backends, slow)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.results import comparable, read_results
from arena.serve.ladder import run_batch
from arena.serve.serve import open_service

from .test_ladder_backends import accepted


def play(folder: Path) -> list[str]:
    """Three batches of 2 blocks among three teams: the minimum (3 pairings x 1 block), then on."""
    yaml_path = folder / "competition.yaml"
    yaml_path.write_text(yaml_path.read_text().replace("ladder_blocks: 8", "ladder_blocks: 2"))
    svc = open_service(folder)
    assert [run_batch(svc) for _ in range(3)] == [2, 1, 2]
    got = read_results(folder / "results").lines
    per: dict[str, list[int]] = {}
    for ln in got:
        per.setdefault(ln["pairing"], []).append(ln["block"])
    assert len(per) == 3 and sum(len(b) for b in per.values()) == 5
    assert all(sorted(b) == list(range(len(b))) for b in per.values())  # each pairing's blocks in order, once
    meta = json.loads((folder / "results" / "tournament.json").read_text())
    assert meta["blocks"] == max(len(b) for b in per.values())  # the tournament grew only as far as it played
    return sorted(json.dumps(comparable(x), sort_keys=True) for x in got)


def test_past_the_minimum_each_batch_plays_on(tmp_path: Path) -> None:
    play(accepted(tmp_path / "c", teams=3))


@pytest.mark.slow
def test_two_folders_given_the_same_submissions_play_the_same_blocks(tmp_path: Path) -> None:
    assert play(accepted(tmp_path / "one", teams=3)) == play(accepted(tmp_path / "two", teams=3))
