"""A fixed tempo plays more blocks at once than there are cores, within a memory budget (issue 41)."""

from __future__ import annotations

from pathlib import Path

from arena.schedule import load_config
from arena.schedule.oversubscribe import PER_CORE, SEATS_MB, WORKER_MB, cores, fixed_tempo_workers
from arena.schedule.runner import choose_backend

from .conftest import FAST_MATCH, write_config


def test_the_budget_and_the_cores_bound_the_blocks_at_once() -> None:
    assert fixed_tempo_workers("gvisor", 2, budget_mb=100_000).blocks == 2 * PER_CORE  # cores bound it
    # memory bounds it: two workers and the seats of five blocks
    assert fixed_tempo_workers("gvisor", 2, budget_mb=2 * WORKER_MB + 5 * SEATS_MB["gvisor"] + 1).blocks == 5
    assert fixed_tempo_workers("gvisor", 2, budget_mb=0).blocks == 2  # never fewer than the cores
    o = fixed_tempo_workers("bwrap", 2, budget_mb=1000)
    assert o.why.startswith(f"tempo fixed: {o.blocks} blocks at once on 2 cores") and "memory budget 1000 MB" in o.why


def test_one_worker_process_a_core_plays_the_blocks_in_threads() -> None:
    """A worker's start and memory are paid once a core, not once a block; every block has a thread."""
    o = fixed_tempo_workers("gvisor", 2, budget_mb=100_000)
    assert (o.workers, o.threads) == (2, PER_CORE) and "2 worker processes of up to 6 threads" in o.why
    o = fixed_tempo_workers("gvisor", 2, budget_mb=2 * WORKER_MB + 5 * SEATS_MB["gvisor"] + 1)
    assert (o.blocks, o.workers, o.threads) == (5, 2, 3)  # 3 + 2: no block without a thread
    o = fixed_tempo_workers("gvisor", 4, budget_mb=100_000, units=3)
    assert (o.blocks, o.workers, o.threads) == (3, 3, 1)  # no worker process without a unit


def test_never_more_blocks_at_once_than_units_to_play() -> None:
    """A Ray worker that would get no unit costs its start all the same: a run of 3 units starts 3."""
    o = fixed_tempo_workers("gvisor", 2, budget_mb=100_000, units=3)
    assert o.blocks == 3 and o.why.endswith("; the run has 3 units to play)")
    assert fixed_tempo_workers("gvisor", 2, budget_mb=100_000, units=1).blocks == 1
    assert fixed_tempo_workers("gvisor", 2, budget_mb=100_000, units=50).blocks == 2 * PER_CORE
    assert fixed_tempo_workers("gvisor", 2, budget_mb=100_000, units=0).blocks == 2 * PER_CORE  # nothing known


def test_only_a_fixed_tempo_on_an_embedded_instance_without_workers_given(tmp_path: Path) -> None:
    def choice(**fields: object):
        cfg = {k: v for k, v in {"backend": "ray", **fields}.items()}
        data = write_config(tmp_path, **cfg)
        text = data.read_text().replace("workers: 1\n", "") if "workers" not in fields else data.read_text()
        data.write_text(text)
        return choose_backend(load_config(data))

    fixed = {**FAST_MATCH, "time": {"tempo": "fixed", "decision_ms": 100}}
    c = choice(match=fixed)
    assert c.why is not None and c.why.startswith("tempo fixed: ") and f" on {cores()} cores, {c.workers} worker" in c.why
    assert c.workers == cores() and 1 <= c.threads <= PER_CORE  # a worker process a core (the budget: this machine's)
    assert (choice(match=fixed, workers=3).workers, choice(match=fixed, workers=3).threads) == (3, 1)  # the user's number stands
    assert choice(match=FAST_MATCH).why is None  # free tempo: one block a core, as before
    assert choice(match=fixed, backend="serial").why is None
