"""Can this host hold a sandbox spec? One probe, before the first bot of a node.

A cluster node is a machine the host may never have logged into: its bwrap,
cgroups, uid range and helpers are whatever its image brought. Rather than
let every game on it fail one by one (each a harness error, retried), the
first block a process plays checks the host once: it starts a trivial
process through the very same ``launch`` a bot goes through, with the
competition's level and limits, and raises ``HostUnfit`` naming what is
missing. The verdict is cached per process and per spec.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from threading import Lock

from .errors import HarnessError
from .limits import Level
from .spec import SandboxSpec

#: What each level needs on the host besides bwrap: helpers it runs.
_HELPERS: dict[Level, tuple[str, ...]] = {
    Level.GVISOR: ("prlimit", "setpriv", "unshare"),
    Level.BWRAP: ("prlimit", "setpriv", "unshare"),
    Level.RLIMIT: ("prlimit",),
    Level.NONE: (),
}
_PROBE = ["/bin/sh", "-c", "exit 0"]
_PROBE_WAIT_S = 30.0  # a floor on a starved machine, never a measure of speed

_verdicts: dict[str, str | None] = {}
_lock = Lock()


class HostUnfit(HarnessError):
    """This host cannot run bots at the spec's level and limits; nothing about any bot."""


def _problems(spec: SandboxSpec) -> list[str]:
    helpers = _HELPERS[spec.level]
    if spec.level is Level.BWRAP and os.geteuid() != 0:
        helpers = ("prlimit",)  # setpriv and unshare are the root path's uid drop and staging
    if spec.level is Level.GVISOR and os.geteuid() != 0:
        helpers = ("prlimit", "unshare", "setpriv")  # runsc as a pid namespace's init, dying with us
    missing = [h for h in helpers if shutil.which(h) is None]
    if missing:
        return [f"missing {', '.join(missing)} (util-linux) on PATH"]
    with tempfile.TemporaryDirectory(prefix="cinch-arena-selfcheck-") as folder:
        os.chmod(folder, 0o755)
        try:
            proc = spec.launch(_PROBE, folder)
        except HarnessError as e:
            return [str(e)]
        except (OSError, ValueError) as e:  # e.g. a uid lease folder that cannot be made
            return [f"{type(e).__name__}: {e}"]
        try:
            status = proc.wait(_PROBE_WAIT_S)
        except Exception as e:  # noqa: BLE001 - the probe itself is ours: any failure is the host's
            return [f"the probe process did not finish: {e}"]
        finally:
            proc.close()
        if status != 0:
            return [f"the probe process exited with {status}: {proc.stderr_text().strip()[-500:] or 'no message'}"]
    return []


def check_host(spec: SandboxSpec, where: str = "this host") -> None:
    """Raise ``HostUnfit`` if ``spec`` cannot run here; cached, so cheap after the first call."""
    key = spec.model_dump_json(exclude={"env"})
    with _lock:
        if key not in _verdicts:
            import warnings

            with warnings.catch_warnings():  # the probe is trusted: its level warning tells nobody anything
                warnings.simplefilter("ignore")
                problems = _problems(spec)
            _verdicts[key] = "; ".join(problems) or None
        verdict = _verdicts[key]
    if verdict is not None:
        raise HostUnfit(
            f"{where} cannot run bots at sandbox level {spec.level.value} with the configured limits: {verdict}"
        )
