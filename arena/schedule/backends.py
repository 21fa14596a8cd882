"""Backends: where block tasks run. Serial (in this process) or Ray.

Both run the very same task function (``task.run_block``) behind one small
interface: ``submit`` a task with its attempt number, ``wait`` for the next
one to finish (in whatever order), ``close``. Retries are the scheduler's
business, not the backend's, so both retry the same way.
"""

from __future__ import annotations

import functools
import logging
import os
import signal
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol, Required, TypedDict

from ..players import BotEntry
from ..players.manifest import library_path
from ..sandbox import HarnessError, HostUnfit, reaper
from .nodes import NodeInfo, NodePool
from .task import TaskOutput, run_block
from .unit import BlockHook, Unit


@dataclass
class Finished:
    task: Unit
    attempt: int
    output: TaskOutput | None = None
    error: str | None = None  # why it failed: never scored
    retry: bool = False  # a harness error or a lost worker: worth another attempt
    requeue: bool = False  # the node refused before playing: send it elsewhere, the attempt not spent
    latency_s: float = 0.0  # submit to result, as the driver saw it (scheduling overhead = this - run.wall_s)


class Backend(Protocol):
    name: str
    capacity: int  # tasks worth keeping in flight now (a cluster's changes as nodes come and go)
    notices: list[str]  # what the user should hear (a node refused or lost); the loop drains it

    def submit(self, task: Unit, attempt: int, go_on: BlockHook | None = None) -> None:
        """``go_on``: asked after each block of a batch (``task.run_block``); a backend that plays
        the batch elsewhere may ignore it (the batch then plays whole)."""
        ...

    def wait(self) -> Finished: ...

    def close(self) -> None: ...


TaskFn = Callable[..., TaskOutput]


def describe(e: BaseException) -> str:
    """One short line for a failure report."""
    first = (str(e).strip().splitlines() or [""])[0]
    return f"{type(e).__name__}: {first[:300]}"


class SerialBackend:
    """Runs each task in this process when it is waited for: for debugging and tests."""

    name = "serial"
    capacity = 1
    plays_in_wait = True  # the loop tops it up only once a finished block's lines are stored


    def __init__(self, entries: Mapping[str, BotEntry], task_fn: TaskFn = run_block,
                 halt: threading.Event | None = None) -> None:
        self.entries = dict(entries)
        self.halt = halt
        self.task_fn = task_fn
        self.queue: deque[tuple[Unit, int, BlockHook | None]] = deque()
        self.notices: list[str] = []

    def submit(self, task: Unit, attempt: int, go_on: BlockHook | None = None) -> None:
        self.queue.append((task, attempt, go_on))

    def wait(self) -> Finished:
        if self.halt is not None and self.halt.is_set():
            raise KeyboardInterrupt("halt")  # before the next block: the one playing has finished
        task, attempt, go_on = self.queue.popleft()
        try:
            extra = {"go_on": go_on} if go_on is not None else {}
            out = self.task_fn(task, self.entries, attempt=attempt, backend=self.name, **extra)
        except Exception as e:  # noqa: BLE001 - any failure is the harness's: never scored
            return Finished(task, attempt, error=describe(e), retry=isinstance(e, HarnessError))
        return Finished(task, attempt, output=out)

    def close(self) -> None:
        self.queue.clear()


def _ray_block(task: Unit, attempt: int, manifests: list[BotEntry], *bundles: bytes) -> TaskOutput:
    """Worker side: check this node's sandbox (once per process), unpack the bots by digest, play the block."""
    import ray

    from ..sandbox import check_host
    from .bundle import materialize

    t0 = time.monotonic()
    node = ray.get_runtime_context().get_node_id()
    check_host(task.settings.sandbox_spec(manifests[0]), f"node {socket.gethostname()} ({node[:12]})")
    local = {e.ident: materialize(e, data) for e, data in zip(manifests, bundles)}
    ship_s = time.monotonic() - t0
    out = run_block(task, local, attempt=attempt, backend="ray")
    for line in out.lines:
        line.run.node = node  # type: ignore[attr-defined]  # RunInfo takes extra keys
        line.run.ship_s = round(ship_s, 4)  # type: ignore[attr-defined]
    return out


class _ThreadedWorker:
    """Worker side, a Ray actor that plays up to ``max_concurrency`` units at once, each in a thread
    of its own (``_ray_block`` each): with a fixed tempo a game mostly waits on its slots, so one
    process drives several, and its start and memory are paid once for all of them. The judge
    thread's own waits are not charged to the bot (``ProcessPlayer.decide``: the harness's wait)."""

    def play(self, task: Unit, attempt: int, manifests: list[BotEntry], *bundles: bytes) -> TaskOutput:
        return _ray_block(task, attempt, manifests, *bundles)


@dataclass
class _Crewman:
    """One threaded worker (a Ray actor handle) and the units it plays now."""

    handle: Any
    busy: int = 0


class RuntimeEnv(TypedDict):
    """Ray's ``runtime_env`` of a job (``harness_runtime_env``)."""

    py_modules: list[str]
    working_dir: str
    excludes: list[str]


class RayInit(TypedDict, total=False):
    """The arguments of ``ray.init`` (``ray_init_kwargs``): a cluster's address, or an embedded instance's."""

    address: Required[str]
    logging_level: Required[int]
    log_to_driver: Required[bool]
    runtime_env: Required[RuntimeEnv]
    num_cpus: int
    include_dashboard: bool
    _node_ip_address: str


def harness_runtime_env() -> RuntimeEnv:
    """The harness's own code, shipped with the job: the ``arena`` and ``cinch_bot`` packages
    this driver runs from. Ray uploads them once to the cluster and puts them first on every
    worker's import path, so a node needs only Python, Ray and the dependencies; the libraries
    bots get (SDK, engine) are these shipped copies."""
    import arena

    dirs = [str(Path(arena.__file__).resolve().parent), str(library_path("sdk"))]
    # An empty working_dir: without one Ray puts the driver's current folder first on the workers'
    # import path, and a driver started from a checkout would then have its node's workers import
    # the checkout instead of what was shipped.
    return {"py_modules": dirs, "working_dir": _empty_dir(), "excludes": ["__pycache__", "*.pyc"]}


@functools.lru_cache(maxsize=1)
def _empty_dir() -> str:
    import atexit
    import shutil
    import tempfile

    path = tempfile.mkdtemp(prefix="cinch-arena-job-")
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def ray_init_kwargs(workers: int, address: str | None) -> RayInit:
    """Arguments for ``ray.init``: an embedded instance, or an existing cluster (``HOST:PORT`` or ``ray://``).

    The embedded instance registers on loopback and starts no dashboard. For
    an existing cluster Ray itself reads token authentication
    (``RAY_AUTH_MODE``, ``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH`` or the
    default token file) from the environment; nothing here gets in its way.
    """
    env = harness_runtime_env()
    if address:
        return {"address": address, "logging_level": logging.WARNING, "log_to_driver": False, "runtime_env": env}
    return {"address": "local", "num_cpus": workers, "include_dashboard": False, "_node_ip_address": "127.0.0.1",
            "logging_level": logging.WARNING, "log_to_driver": False, "runtime_env": env}


class _KnownNotice(logging.Filter):
    """Drops Ray's notices that ask nothing of the user: token authentication is *on*
    (as it should be; printed on every embedded start) and the harness's packages being
    pushed to the cluster. A notice that authentication is *off* still reaches the user."""

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        return not ("Token authentication is enabled" in text or "file package" in text)


def quiet_ray_notices() -> None:
    for name in ("ray._private.authentication.authentication_token_setup", "ray._private.runtime_env.packaging"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, _KnownNotice) for f in logger.filters):
            logger.addFilter(_KnownNotice())


RECONNECT_S = 120.0  # how long a run waits for a restarted head ($ARENA_RAY_RECONNECT_S)
HEAD_LOST_S = 5.0  # unreachable this long: the head is gone (Ray itself gives up on it after 60 s)
GCS_TIMEOUT_S = 2.0  # one question to the head
CLIENT_TRIES = 3  # Ray Client starts a server per job, which a loaded head may not manage in time


def _host_port(address: str) -> tuple[str, int] | None:
    host, sep, port = address.rpartition(":")
    return (host, int(port)) if sep and port.isdigit() and host else None


def _reachable(where: tuple[str, int]) -> bool:
    try:
        socket.create_connection(where, timeout=2.0).close()
    except OSError:
        return False
    return True


def _token_auth_on() -> bool:
    """Whether this driver talks to Ray with a token (a connection that worked without one means the cluster asks none)."""
    try:
        from ray._raylet import AuthenticationMode, get_authentication_mode  # type: ignore[attr-defined]

        return bool(get_authentication_mode() == AuthenticationMode.TOKEN)
    except ImportError:  # another Ray version: its environment variable says the same
        return os.environ.get("RAY_AUTH_MODE", "").lower() == "token"


def explain_connect_error(address: str | None, e: BaseException) -> str:
    """One sentence for a failed ``ray.init``: a missing or wrong token says how to give it."""
    chain = f"{e} {e.__cause__ or ''}"
    where = f"the Ray cluster at {address}" if address else "the embedded Ray instance"
    if "Authentication" in chain or "InvalidAuthToken" in chain:
        return (f"{where} refused this driver's token (token authentication is on there):"
                " set RAY_AUTH_MODE=token and RAY_AUTH_TOKEN_PATH=<the cluster's token file> (or RAY_AUTH_TOKEN),"
                " see docs/cluster.md")
    return f"cannot connect to {where}: {describe(e)}"


class ClusterUnavailable(HarnessError):
    """No node of the cluster can take blocks, or the cluster itself went away: the run stops, resumable."""


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopSignals:
    """Ctrl-C and SIGTERM while blocks play on Ray: the handlers only note the signal, and ``check`` (the
    backend's loop, at least once per poll period) raises ``KeyboardInterrupt`` there.

    Python runs a signal's handler wherever the main thread is next at a bytecode boundary, and in a Ray
    driver that is often inside Ray's own code (a callback from its core, a finaliser), where a
    ``KeyboardInterrupt`` raised by the default handler can be swallowed; Ray also installs a SIGTERM handler
    of its own. How often a signal landed there depended on the machine's load (issue 33: a 200-block run
    finished instead of stopping). A handler that raises nothing cannot be lost, and a handler someone
    replaced (Ray's ``init`` on a reconnection) is put back at each check. Only the main thread can set
    handlers: elsewhere (a server's ladder thread) this does nothing and the caller stops the loop itself.
    """

    def __init__(self, halt: threading.Event | None = None) -> None:
        self.got: int | None = None
        self.halt = halt  # another thread's stop (a server's ladder): checked like a signal
        self.saved: dict[int, Any] = {}
        self.active = threading.current_thread() is threading.main_thread()
        if self.active:
            self.saved = {s: signal.getsignal(s) for s in STOP_SIGNALS}

    def _note(self, signum: int, frame: Any) -> None:
        self.got = signum

    def install(self) -> None:
        """Put this handler in place (again): after whatever ``ray.init`` set."""
        if self.active:
            for s in STOP_SIGNALS:
                if signal.getsignal(s) != self._note:
                    signal.signal(s, self._note)

    def check(self) -> None:
        self.install()
        if self.got is not None:
            raise KeyboardInterrupt(signal.Signals(self.got).name)
        if self.halt is not None and self.halt.is_set():
            raise KeyboardInterrupt("halt")

    def restore(self) -> None:
        """The handlers from before the backend started (a second Ctrl-C while Ray shuts down acts at once)."""
        if self.active:
            for s, h in self.saved.items():
                signal.signal(s, h if h is not None else signal.SIG_DFL)
            self.active = False


class RayBackend:
    """One Ray task per block, placed by the backend on a node with a free CPU; with ``threads`` above
    one, one worker process a CPU plays that many units at once (``_ThreadedWorker``).

    Each bot's folder is put in the object store once. Blocks go to nodes
    with hard node affinity, as many per node as it has CPUs (``NodePool``),
    so the work in flight (tasks and their result objects) stays bounded
    however many blocks a tournament has, a node that refused the sandbox
    check gets nothing more, and a block lost with its node is retried on
    another.
    """

    name = "ray"

    def __init__(
        self, entries: Mapping[str, BotEntry], workers: int, address: str | None = None, *,
        capacity: int | None = None, cap: int | None = None, poll_s: float = 1.0,
        reconnect_s: float | None = None, halt: threading.Event | None = None, threads: int = 1,
    ) -> None:
        import ray

        self.ray = ray
        self.address = address
        self.workers = workers
        self.notices: list[str] = []
        self._owns = False
        self.signals = StopSignals(halt)  # the handlers from before ray.init, restored by close
        if not ray.is_initialized():
            self._connect()
            self._owns = True
            reaper.adopt()  # the embedded instance's processes end with this run's judge, however it ends
        self.signals.install()
        # An explicit capacity (the bench) is exact; otherwise one block per CPU plus one waiting per node,
        # within `cap` on a cluster and within `workers` on an instance someone else started.
        self.threads = max(1, threads)
        limit = capacity or (cap if address else None if self._owns else workers * self.threads)
        self.pool = NodePool(limit, ahead=0 if capacity else 1, per_cpu=self.threads)
        self.poll_s = poll_s
        self.reconnect_s = reconnect_s if reconnect_s is not None else float(
            os.environ.get("ARENA_RAY_RECONNECT_S") or RECONNECT_S)
        self._refreshed = 0.0
        self._unreachable_since: float | None = None
        self.entries = dict(entries)
        self._remote = ray.remote(num_cpus=1, max_retries=0)(_ray_block)
        self._worker: Any = ray.remote(_ThreadedWorker)  # options (its threads, where) as each is made
        self._crews: dict[str, list[_Crewman]] = {}  # node id -> its threaded workers
        self._crewman: dict[Any, _Crewman] = {}  # reference -> the threaded worker that plays it
        self._pending: dict[Any, tuple[Unit, int, str, float]] = {}
        self._lost: deque[tuple[Unit, int]] = deque()  # in flight when the cluster went away
        self.timings: list[tuple[float, float]] = []  # (submit to result, unit's wall) of each unit: the bench reads it
        self._start_job()

    def _connect(self) -> None:
        quiet_ray_notices()
        tries = CLIENT_TRIES if str(self.address).startswith("ray://") else 1
        for i in range(tries):
            try:
                self.ray.init(**ray_init_kwargs(self.workers, self.address))
                break
            except ConnectionAbortedError as e:  # Ray Client's server for this job did not start in time
                if i + 1 == tries:
                    raise ClusterUnavailable(explain_connect_error(self.address, e)) from e
                self.ray.shutdown()
                time.sleep(2.0)
            except (ConnectionError, RuntimeError) as e:
                raise ClusterUnavailable(explain_connect_error(self.address, e)) from e
        if self.address and not _token_auth_on():  # the one authentication notice that matters
            self.notices.append(
                f"the Ray cluster at {self.address} accepts callers without a token (token authentication is off"
                " there): anyone who reaches its ports can run code on its nodes; see docs/cluster.md")

    def _start_job(self) -> None:
        """What a (re)connected job needs: the bots in the object store, the nodes, the head's address."""
        from .bundle import pack

        self._bundles = {ident: self.ray.put(pack(e)) for ident, e in self.entries.items()}
        self._reconnectable = bool(self.address) and not str(self.address).startswith("ray://")
        self.pool.nodes.clear()
        self._refresh(force=True)

    @property
    def capacity(self) -> int:
        return self.pool.capacity

    @capacity.setter
    def capacity(self, n: int) -> None:  # the bench varies the width of one instance
        self.pool.cap = n

    def _refresh(self, force: bool = False) -> None:
        """Ray's view of the nodes, at most once per poll period unless forced; notices a head that went away."""
        now = time.monotonic()
        if not force and now - self._refreshed < self.poll_s:
            return
        self._refreshed = now
        try:
            infos = self._nodes_now()
        except Exception as e:  # noqa: BLE001 - the head did not answer (or a new head answered)
            if not self._reconnectable:
                raise ClusterUnavailable(f"the Ray instance stopped answering: {describe(e)}") from e
            self._unreachable_since = self._unreachable_since or now
            if "WrongClusterID" in str(e) or now - self._unreachable_since >= HEAD_LOST_S:
                self._reconnect()
            return
        self._unreachable_since = None
        self.notices += self.pool.update(infos)

    def _nodes_now(self) -> list[NodeInfo]:
        """The nodes as the head knows them. Through the driver's GCS client, which raises when the head is
        down or was replaced (``ray.nodes()`` would hang, or end the process on a restarted head)."""
        ray = self.ray
        try:
            client = ray._private.worker.global_worker.gcs_client
            get = client.get_all_node_info
        except AttributeError:  # Ray Client, or a Ray without it: the public call
            return [NodeInfo(n["NodeID"], str(n.get("NodeManagerAddress", "?")),
                             int(n.get("Resources", {}).get("CPU", 0)), bool(n.get("Alive")))
                    for n in ray.nodes()]  # type: ignore[no-untyped-call, unused-ignore]  # typed in some Ray releases
        out = []
        for info in get(timeout=GCS_TIMEOUT_S).values():
            state = info.DESCRIPTOR.fields_by_name["state"].enum_type.values_by_number[info.state].name
            out.append(NodeInfo(info.node_id.hex(), str(info.node_manager_address),
                                int(info.resources_total.get("CPU", 0)), state == "ALIVE"))
        return out

    def submit(self, task: Unit, attempt: int, go_on: BlockHook | None = None) -> None:
        """``go_on`` is not used: the batch plays whole on its worker (blocks past a verdict are kept)."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        node = self.pool.take()
        if node is None:
            self._refresh(force=True)
            node = self.pool.take()
        if node is None:
            raise ClusterUnavailable(self.pool.why_none() + "; the blocks finished so far are saved:"
                                     " run the same command again to resume")
        idents = task.idents
        where = NodeAffinitySchedulingStrategy(node.id, soft=False)
        manifests, bundles = [self.entries[i] for i in idents], [self._bundles[i] for i in idents]
        if self.threads > 1:
            man = self._crewman_on(node.id, node.slots, where)
            ref = man.handle.play.remote(task, attempt, manifests, *bundles)
            man.busy += 1
            self._crewman[ref] = man
        else:
            ref = self._remote.options(scheduling_strategy=where).remote(task, attempt, manifests, *bundles)
        self._pending[ref] = (task, attempt, node.id, time.monotonic())

    def _crewman_on(self, node_id: str, cpus: int, where: Any) -> _Crewman:
        """The threaded worker on the node to give a unit: a new one while the node has a CPU without
        one and none is idle, else the least busy (a unit beyond its threads waits in its queue)."""
        crew = self._crews.setdefault(node_id, [])
        if len(crew) < max(1, cpus) and all(m.busy for m in crew):
            crew.append(_Crewman(self._worker.options(num_cpus=1, max_restarts=0, max_concurrency=self.threads,
                                                      scheduling_strategy=where).remote()))
        return min(crew, key=lambda m: m.busy)

    def _reconnect(self) -> None:
        """The head is gone: drop this job (before Ray ends the process for it), wait for the head to come
        back within ``reconnect_s`` and start again; the blocks that were in flight are played again."""
        assert self.address is not None
        ray = self.ray
        self.notices.append(f"the Ray head at {self.address} is unreachable; the {len(self._pending)} blocks in flight"
                            f" will be played again; waiting up to {self.reconnect_s:.0f} s for it to come back")
        for task, attempt, _, _ in self._pending.values():
            self._lost.append((task, attempt))
        self._pending.clear()
        self._crews.clear()
        self._crewman.clear()
        ray.shutdown()
        deadline = time.monotonic() + self.reconnect_s
        target = _host_port(self.address)
        while True:
            if target is None or _reachable(target):
                try:
                    self._connect()
                    break
                except ClusterUnavailable:
                    pass
            if time.monotonic() > deadline:
                self._owns = False
                raise ClusterUnavailable(
                    f"the Ray cluster at {self.address} went away and was not back within {self.reconnect_s:.0f} s;"
                    " the blocks finished so far are saved: run the same command again to resume")
            time.sleep(1.0)
        self._unreachable_since = None
        self._start_job()
        self.notices.append(f"reconnected to the Ray cluster at {self.address}"
                            f" ({len(self.pool.usable)} usable node{'s' * (len(self.pool.usable) != 1)})")

    def wait(self) -> Finished:
        """The next finished task; a Ctrl-C or SIGTERM (``StopSignals``) raises ``KeyboardInterrupt`` here,
        within a poll period however busy the machine is."""
        ray = self.ray
        while True:
            self.signals.check()
            if self._lost:
                task, attempt = self._lost.popleft()
                return Finished(task, attempt, error="the cluster's head went away", requeue=True)
            done, _ = ray.wait(list(self._pending), num_returns=1, timeout=self.poll_s)
            self.signals.check()
            self._refresh()  # at most once per poll period: nodes that joined or left, the head's health
            if done and not self._lost:  # after a reconnection every old reference is void
                break
        ref = done[0]
        task, attempt, node_id, sent = self._pending.pop(ref)
        self.pool.give_back(node_id)
        man = self._crewman.pop(ref, None)
        if man is not None:
            man.busy -= 1
        try:
            out: TaskOutput = ray.get(ref)
            latency = time.monotonic() - sent
            batch = getattr(out.line.run, "batch", None)  # a batch's lines each carry their games' time only
            self.timings.append((latency, batch["wall_s"] if batch else out.line.run.wall_s))
            return Finished(task, attempt, output=out, latency_s=latency)
        except ray.exceptions.RayTaskError as e:
            cause = e.cause if getattr(e, "cause", None) is not None else e
            if isinstance(cause, HostUnfit):
                head, sep, rest = str(cause).partition(" cannot run bots")  # the pool names the node itself
                said = self.pool.refuse(node_id, ("cannot run bots" + rest) if sep else head)
                if said:
                    self.notices.append(said)
                return Finished(task, attempt, error=describe(cause), requeue=True)
            return Finished(task, attempt, error=describe(cause), retry=isinstance(cause, HarnessError))
        except ray.exceptions.RayError as e:  # worker or node lost, object lost: not the task's doing
            if man is not None and isinstance(e, ray.exceptions.RayActorError):  # its process is gone: a new one
                crew = self._crews.get(node_id, [])
                if man in crew:
                    crew.remove(man)
            self._refresh(force=True)
            return Finished(task, attempt, error=f"worker lost: {describe(e)}", retry=True)

    def close(self) -> None:
        """Stop what is in flight. Our own connection is simply shut down: Ray ends the job's tasks
        with it. Cancelling each task first races their replies, and Ray aborts the driver
        ("Tried to complete task that was not pending", a C++ stack trace instead of the
        one line of an interrupted run), so tasks are cancelled only on an instance someone
        else keeps running, and not when ``halt`` stopped the loop: the server that set it shuts
        its instance down next."""
        self.signals.restore()
        if self._owns:
            self._pending.clear()
            self.ray.shutdown()
            return
        if self.signals.halt is not None and self.signals.halt.is_set():
            self._pending.clear()  # a server stopping: it shuts its instance down itself, which ends them
            return
        for ref in list(self._pending):
            try:
                self.ray.cancel(ref, force=True)
            except Exception:  # noqa: BLE001 - best effort on the way out (a threaded worker's call cannot be forced)
                pass
        for man in [m for crew in self._crews.values() for m in crew]:
            try:
                self.ray.kill(man.handle)  # ends the units it plays, as a forced cancel does a task
            except Exception:  # noqa: BLE001 - best effort on the way out
                pass
        self._crews.clear()
        self._crewman.clear()
        self._pending.clear()


def make_backend(kind: str, entries: Mapping[str, BotEntry], workers: int, address: str | None = None,
                 *, cap: int | None = None, halt: threading.Event | None = None, threads: int = 1) -> Backend:
    """``workers``: the embedded instance's CPUs; ``cap``: at most this many blocks at once on a cluster;
    ``halt``: another thread's stop, which ends ``wait`` with ``KeyboardInterrupt`` as a Ctrl-C does;
    ``threads``: units one worker process plays at once (Ray only)."""
    if kind == "serial":
        return SerialBackend(entries, halt=halt)
    if kind == "ray":
        return RayBackend(entries, workers, address or os.environ.get("RAY_ADDRESS") or None, cap=cap, halt=halt,
                          threads=threads)
    raise ValueError(f"unknown backend {kind!r}")
