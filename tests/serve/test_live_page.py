"""The live page while a batch plays: rewritten after every block while the ladder is small, and once the
ladder is large only when the blocks it lacks are a share of it (each rewrite reads every stored block
again), always after the batch's last block, with the right counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import arena.serve.ladder as ladder
from arena.serve.serve import open_service

from .test_ladder_backends import accepted


def _batches(folder: Path, share: int, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    svc = open_service(folder, competition={"workers": 1, "ladder_blocks": 2})
    pages: list[tuple[int, int]] = []
    real = ladder.write_provisional

    def spy(results: Any, out: Any, *, done: int, total: int, **more: Any) -> Any:
        pages.append((done, total))
        return real(results, out, done=done, total=total, **more)

    monkeypatch.setattr(ladder, "write_provisional", spy)
    monkeypatch.setattr(ladder, "LIVE_SHARE", share)
    assert [ladder.run_batch(svc) for _ in range(3)] == [2, 1, 2]  # the minimum's 3 blocks, then on
    assert "5 of 5 blocks" in (folder / "live" / "index.html").read_text()  # the last block is always shown
    return pages


@pytest.mark.slow  # six real ladder batches, about 4 s of CPU: in CI's slow step, out of make test's budget
def test_a_large_ladder_rewrites_the_live_page_when_the_blocks_it_lacks_are_a_share_of_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    every = _batches(accepted(tmp_path / "a", teams=3), 100, monkeypatch)  # 3 pairings, the ladder under 100 blocks
    assert every == [(1, 2), (2, 2), (3, 3), (4, 5), (5, 5)]
    # a share of 1: a block's page waits until the blocks it lacks are as many as the ladder's blocks
    assert _batches(accepted(tmp_path / "b", teams=3), 1, monkeypatch) == [(1, 2), (2, 2), (3, 3), (5, 5)]
