"""A real multi-node Ray cluster on loopback, for the cluster benchmark and tests.

Each node is a ``ray start --block`` process started in a session of its own,
with its own temp folder, ports picked free on 127.0.0.1 and token
authentication on (a token file of its own, never ``~/.ray``). Stopping
kills exactly the processes of those sessions (recorded leaders, then any
process whose session id is one of theirs): never anything by name, so other
Ray instances on the machine are left alone.
"""

from __future__ import annotations

import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

LOOPBACK = "127.0.0.1"
START_TRIES = 3
START_WAIT_S = 180.0  # a floor for a loaded machine; start-up normally takes seconds


WORKER_PORTS = 64  # per node: Ray workers listen too


def _is_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("", port))
        except OSError:
            return False
    return True


def port_block(n: int) -> int:
    """The first of ``n`` consecutive free ports below the ephemeral range (so the kernel hands none of them out)."""
    rng = random.Random()
    for _ in range(200):
        base = rng.randrange(20000, 32000 - n)
        if all(_is_free(p) for p in range(base, base + n)):
            return base
    raise RuntimeError(f"no {n} consecutive free ports found")


def free_port() -> int:
    return port_block(1)


def session_pids(sid: int) -> list[int]:
    """Every live process whose session id is ``sid`` (ours: we made the session)."""
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            pids.append(int(d))
    return pids


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


@dataclass
class RayNode:
    proc: subprocess.Popen[bytes]
    log: Path
    cpus: int

    @property
    def sid(self) -> int:
        return self.proc.pid  # started with start_new_session: the leader's pid is the session id

    def pid_of(self, comm: str) -> int:
        """The pid of this node's process named ``comm`` (e.g. ``raylet``)."""
        for pid in session_pids(self.sid):
            if _comm(pid) == comm:
                return pid
        raise LookupError(f"no {comm} process in this node's session; log: {self.log}")


@dataclass
class LoopbackCluster:
    root: Path
    python: str = sys.executable
    port: int = field(default_factory=free_port)
    nodes: list[RayNode] = field(default_factory=list)
    token: str = field(default_factory=lambda: secrets.token_hex(32))
    extra_env: dict[str, str] = field(default_factory=dict)
    _short: Path | None = None
    _started: int = 0

    @property
    def address(self) -> str:
        return f"{LOOPBACK}:{self.port}"

    @property
    def token_path(self) -> Path:
        return self.root / "auth_token"

    def env(self) -> dict[str, str]:
        """Environment for a driver or node of this cluster: token authentication on, our token."""
        self.root.mkdir(parents=True, exist_ok=True)
        if not self.token_path.exists():
            self.token_path.write_text(self.token)
            self.token_path.chmod(0o600)
        env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
        env.update({"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(self.token_path),
                    "RAY_USAGE_STATS_ENABLED": "0", **self.extra_env})
        return env

    def start_head(self, cpus: int = 1, env: dict[str, str] | None = None, client_port: int | None = None) -> RayNode:
        """The head; ``client_port`` also starts Ray Client's server there (needs ``ray[client]``)."""
        client = [f"--ray-client-server-port={client_port}"] if client_port else []
        return self._start(["--head", f"--port={self.port}", "--include-dashboard=false", *client], cpus, None, env)

    def add_node(self, cpus: int = 1, *, python: str | None = None, cwd: str | None = None,
                 env: dict[str, str] | None = None) -> RayNode:
        return self._start([f"--address={self.address}"], cpus, python, env, cwd)

    def _start(self, role: list[str], cpus: int, python: str | None, env: dict[str, str] | None,
               cwd: str | None = None) -> RayNode:
        """Start one node; on a failed start (another program took a port between our check and Ray's bind)
        try again with other ports, a few times."""
        errors = []
        for _ in range(START_TRIES):
            try:
                return self._start_once(role, cpus, python, env, cwd)
            except RuntimeError as e:
                errors.append(str(e))
        raise RuntimeError(f"ray start failed {START_TRIES} times; the last:\n{errors[-1]}")

    def _start_once(self, role: list[str], cpus: int, python: str | None, env: dict[str, str] | None,
                    cwd: str | None) -> RayNode:
        i = self._started
        self._started += 1
        self.root.mkdir(parents=True, exist_ok=True)
        if self._short is None:  # Ray's unix socket paths must stay under 108 bytes: a short folder of ours
            self._short = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))
        temp = self._short / f"n{i}"
        temp.mkdir()
        names = ("node-manager-port", "object-manager-port", "metrics-export-port", "dashboard-agent-listen-port",
                 "dashboard-agent-grpc-port", "runtime-env-agent-port")
        base = port_block(len(names) + WORKER_PORTS)
        ports = [f"--{name}={base + k}" for k, name in enumerate(names)]
        lo = base + len(names)
        argv = [python or self.python, "-c", "import sys; from ray.scripts.scripts import main; sys.exit(main())",
                "start", *role, f"--node-ip-address={LOOPBACK}", f"--num-cpus={cpus}", f"--temp-dir={temp}",
                "--disable-usage-stats", *ports, f"--min-worker-port={lo}", f"--max-worker-port={lo + WORKER_PORTS - 1}",
                "--block"]
        log = self.root / f"node{i}.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    env={**self.env(), **(env or {})}, cwd=cwd or str(temp), start_new_session=True)
        node = RayNode(proc, log, cpus)
        deadline = time.monotonic() + START_WAIT_S
        while b"Ray runtime started" not in log.read_bytes():
            if proc.poll() is not None or time.monotonic() > deadline:
                self.kill_node(node)
                raise RuntimeError(f"ray start failed (exit {proc.poll()}):\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
        self.nodes.append(node)
        return node

    def kill_node(self, node: RayNode) -> None:
        """Kill every process of one node at once (SIGKILL), as a machine that died."""
        for pid in session_pids(node.sid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            node.proc.wait(30)
        except subprocess.TimeoutExpired:
            pass

    def stop(self) -> None:
        """Stop every node we started, workers first; only processes of their sessions."""
        for node in reversed(self.nodes):
            if node.proc.poll() is None:
                node.proc.send_signal(signal.SIGTERM)  # `ray start --block` stops its own processes
                try:
                    node.proc.wait(20)
                except subprocess.TimeoutExpired:
                    pass
            self.kill_node(node)
        self.nodes.clear()
        if self._short is not None:
            shutil.rmtree(self._short, ignore_errors=True)
            self._short = None

    def __enter__(self) -> "LoopbackCluster":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
