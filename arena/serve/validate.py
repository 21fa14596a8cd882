"""Validate a submission with the check-bot logic, in a child process.

The child runs ``check_entry`` on the competition's match settings (its
sandbox and profile) and prints one JSON line; a crash, a hang past the
timeout or a bad manifest is that submission's rejection, never the server's.
The child holds a memory limit of its own (RLIMIT_DATA, set by itself before
it reads the manifest) and dies with the server (PR_SET_PDEATHSIG), so a
kill -9 of the server leaves no validation running beside the restarted one's.
"""

from __future__ import annotations

import io
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..match import MatchSettings
from .archive import die_with, pack

log = logging.getLogger("arena.serve.validate")
#: On a cluster: how much longer than ``check_timeout_s`` the server waits for a node's verdict (shipping,
#: the child's start) before it rejects; the node kills its own validation at ``check_timeout_s``.
CLUSTER_GRACE_S = 120.0


@dataclass(frozen=True)
class Verdict:
    ok: bool
    report: str  # private to the team: may hold the bot's stderr


def hide_paths(text: str, folder: str, shown_as: str = "") -> str:
    """``text`` with the host's path of a bot folder taken out: a team reads its report, never the
    server's folders (``folder/x`` becomes ``x``, the folder itself ``shown_as`` or "the bot's folder")."""
    for f in {folder, os.path.realpath(folder)}:
        text = text.replace(f + "/", shown_as).replace(f, shown_as.rstrip("/") or "the bot's folder")
    return text


def memory_for(settings: MatchSettings, validation_bytes: int) -> int:
    """The validation child's RLIMIT_DATA: the competition's figure, or its bots' memory limit plus room for
    the harness if that is higher (a bot at level none or rlimit inherits the child's limit)."""
    bot = settings.ceiling.memory_bytes  # no manifest can ask for more
    return max(validation_bytes, (bot or 0) + (256 << 20))


def validate(folder: str, settings: MatchSettings, games: int, timeout_s: float,
             memory_bytes: int = 2 << 30) -> Verdict:
    """The submission's verdict; whatever the child does (crash, hang, kill its parent) is only that verdict.

    The child runs in a session of its own, so on a timeout the whole of it
    (the harness and any bot process it started) is killed, and a bot that
    signals its process group reaches the validator, not the server.
    """
    argv = [sys.executable, "-m", "arena.serve.validate", folder, settings.model_dump_json(), str(games),
            str(os.getpid()), str(memory_for(settings, memory_bytes))]
    # the child imports the harness this process runs (on a Ray node: the copy shipped with the job)
    here = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(x for x in (here, os.environ.get("PYTHONPATH")) if x)}
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True, env=env) as child:
        try:
            out, err = child.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _kill_group(child)
            try:
                child.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                pass  # a process outside the group holds the pipes: the verdict does not wait for it
            return Verdict(False, f"the validation did not finish within {timeout_s:g} s")
        finally:
            _kill_group(child)  # anything the child left running
    lines = out.strip().splitlines()
    if child.returncode != 0 or not lines:
        return Verdict(False, hide_paths(f"the validation failed (exit {child.returncode}): {err[-2000:].strip()}",
                                         folder))
    try:
        verdict = json.loads(lines[-1])
        return Verdict(bool(verdict["ok"]), str(verdict["report"]))
    except (ValueError, KeyError, TypeError):
        return Verdict(False, f"the validation failed: it printed no verdict ({lines[-1][:200]!r})")


def _on_node(data: bytes, settings_json: str, games: int, timeout_s: float, memory_bytes: int) -> tuple[bool, str]:
    """A Ray task: unpack the submission in a folder of this node's own and validate it there (the same
    child, sandbox and wall-clock kill as on the server); the folder is removed after."""
    from ..schedule.bundle import _safe_extract

    tmp = Path(tempfile.mkdtemp(prefix="cinch-validate-"))
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            _safe_extract(tar, tmp)
        v = validate(str(tmp), MatchSettings.model_validate_json(settings_json), games, timeout_s, memory_bytes)
        return v.ok, v.report
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def validate_on_cluster(folder: str, settings: MatchSettings, games: int, timeout_s: float,
                        memory_bytes: int = 2 << 30) -> Verdict:
    """``validate`` as a task on the Ray cluster the server is connected to: the folder shipped with the
    task, the node's child killed at ``timeout_s``. A task the cluster loses (a node gone) is validated
    here instead; a node that never answers is the submission's rejection, as a hang is."""
    import ray

    remote = ray.remote(num_cpus=1, max_retries=0)(_on_node)
    ref = remote.remote(pack(Path(folder)), settings.model_dump_json(), games, timeout_s, memory_bytes)
    try:
        ok, report = ray.get(ref, timeout=timeout_s + CLUSTER_GRACE_S)
    except ray.exceptions.GetTimeoutError:
        return Verdict(False, f"the validation did not finish within {timeout_s:g} s")
    except ray.exceptions.RayError as e:
        log.warning("validation not placed on the cluster (%s); validating on the server", type(e).__name__)
        return validate(folder, settings, games, timeout_s, memory_bytes)
    log.info("validated on the Ray cluster")
    return Verdict(bool(ok), str(report))


def _kill_group(child: subprocess.Popen[str]) -> None:
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _cap_memory(limit: int) -> None:
    """RLIMIT_DATA on this process (the soft limit; a bot's own sandbox may set its own below the hard)."""
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    resource.setrlimit(resource.RLIMIT_DATA, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))


def _child(folder: str, settings_json: str, games: int) -> dict[str, object]:
    from ..match.check import check_entry
    from ..players import ManifestError, load_entry

    settings = MatchSettings.model_validate_json(settings_json)
    try:
        entry = load_entry(folder)
        settings.limits_for(entry.manifest.limits)
        report = check_entry(entry, settings, games=games)
    except Exception as e:  # a bad manifest or a refused profile is a verdict, said in one line
        if not isinstance(e, (ManifestError, ValueError, OSError, MemoryError)):
            raise
        return {"ok": False, "report": hide_paths(f"{type(e).__name__}: {e}", folder)}
    lines = [report.summary()]
    for v in report.violations:
        if v.fault.stderr:
            lines.append(f"stderr at {v.where}:\n{v.fault.stderr}")
    return {"ok": report.ok, "report": hide_paths("\n".join(lines), folder)}


if __name__ == "__main__":
    die_with(int(sys.argv[4]))
    _cap_memory(int(sys.argv[5]))
    print(json.dumps(_child(sys.argv[1], sys.argv[2], int(sys.argv[3]))))
