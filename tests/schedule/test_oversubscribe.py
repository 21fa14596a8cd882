"""A fixed tempo plays more blocks at once than there are cores, within a memory budget (issue 41)."""

from __future__ import annotations

from pathlib import Path

from arena.schedule import load_config
from arena.schedule.oversubscribe import BLOCK_MB, PER_CORE, cores, fixed_tempo_workers
from arena.schedule.runner import choose_backend

from .conftest import FAST_MATCH, write_config


def test_the_budget_and_the_cores_bound_the_blocks_at_once() -> None:
    assert fixed_tempo_workers("gvisor", 2, budget_mb=100_000)[0] == 2 * PER_CORE  # cores bound it
    assert fixed_tempo_workers("gvisor", 2, budget_mb=3 * BLOCK_MB["gvisor"])[0] == 3  # memory bounds it
    assert fixed_tempo_workers("gvisor", 2, budget_mb=0)[0] == 2  # never fewer than the cores
    n, why = fixed_tempo_workers("bwrap", 2, budget_mb=1000)
    assert why.startswith(f"tempo fixed: {n} blocks at once on 2 cores") and "memory budget 1000 MB" in why


def test_never_more_blocks_at_once_than_units_to_play() -> None:
    """A Ray worker that would get no unit costs its start all the same: a run of 3 units starts 3."""
    n, why = fixed_tempo_workers("gvisor", 2, budget_mb=100_000, units=3)
    assert n == 3 and why.endswith("; the run has 3 units to play)")
    assert fixed_tempo_workers("gvisor", 2, budget_mb=100_000, units=1)[0] == 1
    assert fixed_tempo_workers("gvisor", 2, budget_mb=100_000, units=50)[0] == 2 * PER_CORE
    assert fixed_tempo_workers("gvisor", 2, budget_mb=100_000, units=0)[0] == 2 * PER_CORE  # nothing known


def test_only_a_fixed_tempo_on_an_embedded_instance_without_workers_given(tmp_path: Path) -> None:
    def choice(**fields: object):
        cfg = {k: v for k, v in {"backend": "ray", **fields}.items()}
        data = write_config(tmp_path, **cfg)
        text = data.read_text().replace("workers: 1\n", "") if "workers" not in fields else data.read_text()
        data.write_text(text)
        return choose_backend(load_config(data))

    fixed = {**FAST_MATCH, "time": {"tempo": "fixed", "decision_ms": 100}}
    c = choice(match=fixed)
    assert c.why is not None and c.why.startswith(f"tempo fixed: {c.workers} blocks at once on {cores()} cores")
    assert c.workers >= cores()
    assert choice(match=fixed, workers=3).workers == 3  # the user's number stands
    assert choice(match=FAST_MATCH).why is None  # free tempo: one block a core, as before
    assert choice(match=fixed, backend="serial").why is None
