"""The cluster machinery without a cluster: node bookkeeping, the loop's bounded in-flight
work, refusals that spend no attempt, a cluster with no room left, the sandbox self-check,
connection errors, and (with the session's embedded Ray) the harness shipped with the job."""

from __future__ import annotations

import io
import random
from collections import deque
from pathlib import Path

import pytest

from arena.results import ResultsStore
from arena.sandbox import HostUnfit, SandboxSpec, check_host
from arena.schedule import load_config, plan_tasks, run_block, run_tasks
from arena.schedule.backends import Finished, SerialBackend, explain_connect_error
from arena.schedule.nodes import NodeInfo, NodePool
from arena.commands.progress import Progress
from arena.schedule.scheduler import LoopEvents, NoCapacity
from arena.schedule.unit import BlockTask

from .conftest import FAST_MATCH, fake_entry, policy_factory, write_config


def test_pool_fills_the_freest_node_within_the_cap_and_drops_refused_and_lost_nodes() -> None:
    pool = NodePool(cap=5)
    assert pool.update([NodeInfo("a" * 20, "10.0.0.1", 4, True), NodeInfo("b" * 20, "10.0.0.2", 2, True),
                        NodeInfo("c" * 20, "10.0.0.3", 8, False)]) == []  # the first view is not news
    assert pool.capacity == 5  # 6 CPUs alive, capped at 5
    taken = [pool.take() for _ in range(6)]
    # the freest node first (ties: the first known), five in all
    assert [n.address if n else None for n in taken] == ["10.0.0.1", "10.0.0.1", "10.0.0.1", "10.0.0.2",
                                                        "10.0.0.1", None]
    said = pool.refuse("b" * 20, "cannot run bots at sandbox level bwrap: no bwrap")
    assert said == ("node 10.0.0.2 (bbbbbbbbbbbb) refused: cannot run bots at sandbox level bwrap: no bwrap;"
                    " no more blocks go there (1 usable node left)")
    assert pool.refuse("b" * 20, "again") is None  # said once per node
    assert pool.capacity == 4 and pool.take() is None  # node a alone is left, with its 4 slots busy
    pool.give_back("a" * 20)
    assert pool.take().address == "10.0.0.1"
    assert pool.update([NodeInfo("a" * 20, "10.0.0.1", 4, False), NodeInfo("d" * 20, "10.0.0.4", 1, True)]) == [
        "node 10.0.0.1 (aaaaaaaaaaaa) was lost; its blocks are played again elsewhere",
        "node 10.0.0.4 (dddddddddddd) joined with 1 CPUs"]
    assert pool.capacity == 1 and pool.take().address == "10.0.0.4"
    pool.lost("d" * 20)
    assert pool.capacity == 0 and pool.take() is None
    why = pool.why_none()
    assert "10.0.0.1 (aaaaaaaaaaaa): lost" in why and "refused: cannot run bots" in why


def test_pool_keeps_one_block_waiting_per_node_when_asked() -> None:
    pool = NodePool(ahead=1)
    pool.update([NodeInfo("a" * 20, "10.0.0.1", 2, True), NodeInfo("b" * 20, "10.0.0.2", 1, True)])
    assert pool.capacity == 5
    assert [n.address for n in (pool.take() for _ in range(5))] == ["10.0.0.1", "10.0.0.1", "10.0.0.2",
                                                                   "10.0.0.1", "10.0.0.2"]
    assert pool.take() is None


def test_empty_pool_says_so() -> None:
    pool = NodePool()
    pool.update([])
    assert pool.capacity == 0 and pool.take() is None
    assert pool.why_none() == "the Ray cluster has no nodes with CPUs"


class Cluster:
    """A fake cluster backend: tasks finish in random order; the first task sent to node "bad" is
    refused by its self-check (and the node never gets another); one block loses its worker once."""

    name = "fake"

    def __init__(self, tasks_fn, slots: int, seed: int = 1) -> None:
        self.fn = tasks_fn
        self.slots = slots
        self.rng = random.Random(seed)
        self.pending: list[tuple[BlockTask, int]] = []
        self.notices: list[str] = []
        self.max_inflight = 0
        self.bad_node_up = True
        self.lost_once: set[tuple[str, int]] = set()
        self.sent = 0

    @property
    def capacity(self) -> int:
        return self.slots + (1 if self.bad_node_up else 0)

    def submit(self, task: BlockTask, attempt: int) -> None:
        self.pending.append((task, attempt))
        self.sent += 1
        self.max_inflight = max(self.max_inflight, len(self.pending))

    def wait(self) -> Finished:
        task, attempt = self.pending.pop(self.rng.randrange(len(self.pending)))
        if self.bad_node_up:
            self.bad_node_up = False
            self.notices.append("node bad refused")
            return Finished(task, attempt, error="HostUnfit: no bwrap", requeue=True)
        if task.block == 7 and task.key not in self.lost_once:
            self.lost_once.add(task.key)
            return Finished(task, attempt, error="worker lost", retry=True)
        return Finished(task, attempt, output=self.fn(task, attempt))

    def close(self) -> None:
        pass


def _policy_tournament(tmp_path: Path, blocks: int):
    # per-game: these tests count the loop's units block by block (a lineage batch is one unit)
    t = load_config(write_config(tmp_path, blocks=blocks, match=dict(FAST_MATCH, deals=1, restart="per-game")))
    entries = {e.ident: e for e in t.entries}
    modes = {e.name: ("first" if e.name == "first" else "last") for e in t.entries}
    play = lambda task, attempt: run_block(task, entries, attempt=attempt, make_player=policy_factory(modes))  # noqa: E731
    return t, play


def test_loop_keeps_in_flight_work_bounded_and_refusals_spend_no_attempt(tmp_path: Path) -> None:
    t, play = _policy_tournament(tmp_path, blocks=400)
    store = ResultsStore(t.out)
    backend = Cluster(play, slots=3)
    events = Progress(400, [], io.StringIO(), period=1e9)
    outcome = run_tasks(plan_tasks(t), backend, store, events=events)
    assert backend.max_inflight <= 4  # never more than the capacity, whatever the number of blocks
    assert outcome.played == 400 and not outcome.failures and outcome.retries == 1  # the lost worker only
    assert sorted(store.lines) == sorted(x.key for x in plan_tasks(t))  # every block once
    attempts = {k: ln.run.attempt for k, ln in store.lines.items()}
    assert [k for k, a in attempts.items() if a != 1] == [(plan_tasks(t)[0].pairing, 7)]  # the lost one, once more
    assert backend.sent == 402 and attempts[(plan_tasks(t)[0].pairing, 7)] == 2  # + the refused and the lost one
    assert "cluster: node bad refused" in events.stream.getvalue()


class Shrinking(Cluster):
    """Every node goes away after the first block."""

    @property
    def capacity(self) -> int:
        return 0 if self.sent else 1

    def wait(self) -> Finished:
        task, attempt = self.pending.pop()
        return Finished(task, attempt, error="worker lost", retry=True)


def test_loop_with_blocks_left_and_no_room_stops_with_the_resume_hint(tmp_path: Path) -> None:
    t, play = _policy_tournament(tmp_path, blocks=3)
    with pytest.raises(NoCapacity, match="3 left unplayed; .*run the same command again to resume"):
        run_tasks(plan_tasks(t), Shrinking(play, slots=1), ResultsStore(t.out))


class Ordered(Cluster):
    """Blocks finish in the order they were sent; every submit and every stored line is logged."""

    def __init__(self, tasks_fn, slots: int, log: list[tuple[str, int]]) -> None:
        super().__init__(tasks_fn, slots)
        self.bad_node_up = False
        self.log = log

    def submit(self, task: BlockTask, attempt: int) -> None:
        self.log.append(("submit", task.block))
        super().submit(task, attempt)

    def wait(self) -> Finished:
        task, attempt = self.pending.pop(0)
        return Finished(task, attempt, output=self.fn(task, attempt))


class Logged(LoopEvents):
    def __init__(self, log: list[tuple[str, int]]) -> None:
        self.log = log

    def line(self, line) -> None:  # type: ignore[no-untyped-def]
        self.log.append(("line", line.block))


def test_a_backend_that_plays_elsewhere_gets_the_next_block_before_the_last_ones_lines_are_stored(
        tmp_path: Path) -> None:
    """Its worker plays on while the driver stores the finished block (the store's fsync, a server's live
    page); the serial backend, which plays in ``wait``, is topped up after, the stopping rule having seen it."""
    t, play = _policy_tournament(tmp_path, blocks=3)
    log: list[tuple[str, int]] = []
    outcome = run_tasks(plan_tasks(t), Ordered(play, 1, log), ResultsStore(t.out), events=Logged(log))
    assert outcome.played == 3
    assert log == [("submit", 0), ("submit", 1), ("line", 0), ("submit", 2), ("line", 1), ("line", 2)]
    (tmp_path / "serial").mkdir()
    t2, play2 = _policy_tournament(tmp_path / "serial", blocks=3)
    log.clear()

    class LoggedSerial(SerialBackend):
        def submit(self, task, attempt, go_on=None) -> None:  # type: ignore[no-untyped-def]
            log.append(("submit", task.block))
            super().submit(task, attempt, go_on)

    serial = LoggedSerial({e.ident: e for e in t2.entries}, lambda task, e, **kw: play2(task, kw["attempt"]))
    assert run_tasks(plan_tasks(t2), serial, ResultsStore(t2.out), events=Logged(log)).played == 3
    assert log == [("submit", 0), ("line", 0), ("submit", 1), ("line", 1), ("submit", 2), ("line", 2)]


def test_host_self_check_names_the_level_and_what_is_missing() -> None:
    spec = SandboxSpec(level="bwrap", bwrap_path="/nonexistent/bwrap")
    with pytest.raises(HostUnfit, match=r"^node n1 cannot run bots at sandbox level bwrap with the configured"
                                        r" limits: bwrap binary '/nonexistent/bwrap' does not exist"):
        check_host(spec, "node n1")
    with pytest.raises(HostUnfit):  # the verdict is kept: the same answer without probing again
        check_host(spec, "node n1")
    check_host(SandboxSpec(level="none"))  # a plain process always runs


def test_connect_errors_say_how_to_give_the_token() -> None:
    class AuthenticationError(Exception):
        pass

    e = ConnectionError("Failed to connect to Ray cluster at 10.0.0.1:6379")
    e.__cause__ = AuthenticationError("RPC error: InvalidAuthToken: Authentication token is missing or incorrect")
    text = explain_connect_error("10.0.0.1:6379", e)
    assert text.startswith("the Ray cluster at 10.0.0.1:6379 refused this driver's token")
    assert "RAY_AUTH_MODE=token" in text and "RAY_AUTH_TOKEN_PATH" in text
    other = explain_connect_error("10.0.0.1:6379", ConnectionError("Could not find any running Ray instance"))
    assert other == "cannot connect to the Ray cluster at 10.0.0.1:6379: ConnectionError: Could not find any running Ray instance"


@pytest.mark.slow  # seconds of CPU: in CI's slow step, out of make test's budget
@pytest.mark.ray
def test_workers_run_the_harness_shipped_with_the_job(ray_session) -> None:
    import arena

    @ray_session.remote(num_cpus=1)
    def where() -> tuple[str, str]:
        import arena as there
        from arena.players.manifest import library_path

        return there.__file__, str(library_path("sdk"))

    harness, sdk = ray_session.get(where.remote())
    assert "runtime_resources" in harness and "runtime_resources" in sdk  # Ray's copy, not this checkout
    assert harness != arena.__file__
    assert Path(harness).read_bytes() == Path(arena.__file__).read_bytes()
