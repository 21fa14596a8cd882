"""The judge's hold on this host: where its bots' groups and launch areas are.

`reaper` does the work with the standard library only (its watcher runs it as
a script), so it cannot ask `cgroup` and `image` where things are; this module
does, and is what the rest of the harness calls: `watch()` before a bot's
group is made, `claim(folder)` for a state folder's judge.
"""

from __future__ import annotations

from pathlib import Path

from . import reaper


def places() -> tuple[list[Path], Path]:
    """This host's bot-group folders and gVisor launch-area folder (their modules load when first asked:
    a command's start-up does not pay for the image code, tests/commands/test_startup.py)."""
    from .cgroup import group_dirs
    from .image import launch_base

    return group_dirs(), launch_base()


def watch() -> None:
    """Start this process's watcher if it has none (a dictionary lookup after the first call)."""
    reaper.watch_in(*places())


def claim(folder: Path, *, hold: bool = True) -> tuple[str, int]:
    """Make this process the judge of the state folder `folder` (`reaper.claim_in`)."""
    return reaper.claim_in(folder, *places(), hold=hold)
