"""Validate a submission with the check-bot logic, in a child process.

The child runs ``check_entry`` on the competition's match settings (its
sandbox and profile) and prints one JSON line; a crash, a hang past the
timeout or a bad manifest is that submission's rejection, never the server's.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass

from ..match import MatchSettings


@dataclass(frozen=True)
class Verdict:
    ok: bool
    report: str  # private to the team: may hold the bot's stderr


def validate(folder: str, settings: MatchSettings, games: int, timeout_s: float) -> Verdict:
    """The submission's verdict; whatever the child does (crash, hang, kill its parent) is only that verdict.

    The child runs in a session of its own, so on a timeout the whole of it
    (the harness and any bot process it started) is killed, and a bot that
    signals its process group reaches the validator, not the server.
    """
    argv = [sys.executable, "-m", "arena.serve.validate", folder, settings.model_dump_json(), str(games)]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True) as child:
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
        return Verdict(False, f"the validation failed (exit {child.returncode}): {err[-2000:].strip()}")
    try:
        verdict = json.loads(lines[-1])
        return Verdict(bool(verdict["ok"]), str(verdict["report"]))
    except (ValueError, KeyError, TypeError):
        return Verdict(False, f"the validation failed: it printed no verdict ({lines[-1][:200]!r})")


def _kill_group(child: subprocess.Popen[str]) -> None:
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _child(folder: str, settings_json: str, games: int) -> dict[str, object]:
    from ..match.check import check_entry
    from ..players import ManifestError, load_entry

    settings = MatchSettings.model_validate_json(settings_json)
    try:
        entry = load_entry(folder)
        settings.limits_for(entry.manifest.limits)
        report = check_entry(entry, settings, games=games)
    except Exception as e:  # a bad manifest or a refused profile is a verdict, said in one line
        if not isinstance(e, (ManifestError, ValueError, OSError)):
            raise
        return {"ok": False, "report": f"{type(e).__name__}: {e}"}
    lines = [report.summary()]
    for v in report.violations:
        if v.fault.stderr:
            lines.append(f"stderr at {v.where}:\n{v.fault.stderr}")
    return {"ok": report.ok, "report": "\n".join(lines)}


if __name__ == "__main__":
    print(json.dumps(_child(sys.argv[1], sys.argv[2], int(sys.argv[3]))))
