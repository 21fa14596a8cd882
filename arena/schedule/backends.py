"""Backends: where block tasks run. Serial (in this process) or Ray.

Both run the very same task function (``task.run_block``) behind one small
interface: ``submit`` a task with its attempt number, ``wait`` for the next
one to finish (in whatever order), ``close``. Retries are the scheduler's
business, not the backend's, so both retry the same way.
"""

from __future__ import annotations

import logging
import os
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol

from ..players import BotEntry
from ..sandbox import HarnessError
from .task import BlockTask, TaskOutput, run_block


@dataclass
class Finished:
    task: BlockTask
    attempt: int
    output: TaskOutput | None = None
    error: str | None = None  # why it failed: never scored
    retry: bool = False  # a harness error or a lost worker: worth another attempt


class Backend(Protocol):
    name: str
    capacity: int  # tasks worth keeping in flight

    def submit(self, task: BlockTask, attempt: int) -> None: ...

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

    def __init__(self, entries: Mapping[str, BotEntry], task_fn: TaskFn = run_block) -> None:
        self.entries = dict(entries)
        self.task_fn = task_fn
        self.queue: deque[tuple[BlockTask, int]] = deque()

    def submit(self, task: BlockTask, attempt: int) -> None:
        self.queue.append((task, attempt))

    def wait(self) -> Finished:
        task, attempt = self.queue.popleft()
        try:
            out = self.task_fn(task, self.entries, attempt=attempt, backend=self.name)
        except Exception as e:  # noqa: BLE001 - any failure is the harness's: never scored
            return Finished(task, attempt, error=describe(e), retry=isinstance(e, HarnessError))
        return Finished(task, attempt, output=out)

    def close(self) -> None:
        self.queue.clear()


def _ray_block(task: BlockTask, attempt: int, manifests: list[BotEntry], *bundles: bytes) -> TaskOutput:
    """Worker side: unpack the bots by digest, then play the block."""
    from .bundle import materialize

    local = {e.ident: materialize(e, data) for e, data in zip(manifests, bundles)}
    return run_block(task, local, attempt=attempt, backend="ray")


def ray_init_kwargs(workers: int, address: str | None) -> dict[str, Any]:
    """Arguments for ``ray.init``: an embedded instance, or an existing cluster.

    For an existing cluster Ray itself reads token authentication
    (``RAY_AUTH_MODE``, ``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH`` or the
    default token file) from the environment; nothing here gets in its way.
    """
    common: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False}
    if address:
        return {"address": address, **common}
    return {"address": "local", "num_cpus": workers, "include_dashboard": False, **common}


class _KnownNotice(logging.Filter):
    """Drops Ray's notice that token authentication is on (it is, as it should be):
    printed on every embedded start, it tells a user nothing to act on. A notice
    that authentication is *off* still reaches the user."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "Token authentication is enabled" not in record.getMessage()


def quiet_ray_notices() -> None:
    logger = logging.getLogger("ray._private.authentication.authentication_token_setup")
    if not any(isinstance(f, _KnownNotice) for f in logger.filters):
        logger.addFilter(_KnownNotice())


class RayBackend:
    """One Ray task per block, each bot's folder put in the object store once."""

    name = "ray"

    def __init__(
        self, entries: Mapping[str, BotEntry], workers: int, address: str | None = None, *, capacity: int | None = None
    ) -> None:
        import ray

        from .bundle import pack

        self.ray = ray
        self._owns = False
        if not ray.is_initialized():
            quiet_ray_notices()
            ray.init(**ray_init_kwargs(workers, address))
            self._owns = True
        cpus = int(ray.cluster_resources().get("CPU", workers)) if address else workers  # type: ignore[no-untyped-call]
        self.capacity = capacity or max(1, cpus) * 2
        self.entries = dict(entries)
        self._bundles = {ident: ray.put(pack(e)) for ident, e in self.entries.items()}
        self._remote = ray.remote(num_cpus=1, max_retries=0)(_ray_block)
        self._pending: dict[Any, tuple[BlockTask, int]] = {}

    def submit(self, task: BlockTask, attempt: int) -> None:
        idents = task.idents
        ref = self._remote.remote(task, attempt, [self.entries[i] for i in idents], *[self._bundles[i] for i in idents])
        self._pending[ref] = (task, attempt)

    def wait(self) -> Finished:
        ray = self.ray
        done, _ = ray.wait(list(self._pending), num_returns=1)
        ref = done[0]
        task, attempt = self._pending.pop(ref)
        try:
            return Finished(task, attempt, output=ray.get(ref))
        except ray.exceptions.RayTaskError as e:
            cause = e.cause if getattr(e, "cause", None) is not None else e
            return Finished(task, attempt, error=describe(cause), retry=isinstance(cause, HarnessError))
        except ray.exceptions.RayError as e:  # worker or node lost, object lost: not the task's doing
            return Finished(task, attempt, error=f"worker lost: {describe(e)}", retry=True)

    def close(self) -> None:
        for ref in list(self._pending):
            try:
                self.ray.cancel(ref, force=True)
            except Exception:  # noqa: BLE001 - best effort on the way out
                pass
        self._pending.clear()
        if self._owns:
            self.ray.shutdown()


def make_backend(kind: str, entries: Mapping[str, BotEntry], workers: int, address: str | None = None) -> Backend:
    if kind == "serial":
        return SerialBackend(entries)
    if kind == "ray":
        return RayBackend(entries, workers, address or os.environ.get("RAY_ADDRESS") or None)
    raise ValueError(f"unknown backend {kind!r}")
