"""One output folder, one running tournament: an advisory lock with its holder's name.

The lock is an ``flock`` on ``<out>/.lock``, so it is released by the
kernel however the holder ends (kill -9 included); the file says who holds
it, so a second run can tell the user which process to wait for.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import sys
import time
from pathlib import Path

LOCK_NAME = ".lock"


class FolderBusy(RuntimeError):
    """Another run holds the folder (``holder``: who, as its lock file says)."""

    def __init__(self, message: str, holder: str = "holder unknown") -> None:
        super().__init__(message)
        self.holder = holder


class FolderLock:
    def __init__(self, folder: Path, name: str = LOCK_NAME) -> None:
        self.path = Path(folder) / name
        self._fd: int | None = None

    def acquire(self) -> "FolderLock":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise FolderBusy(f"{self.path.parent} is in use by another run ({holder}); wait for it to end or use"
                             " another output folder", holder) from None
        os.ftruncate(fd, 0)
        info = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.strftime("%Y-%m-%d %H:%M:%S"),
                "command": " ".join(sys.argv[:6])}
        os.write(fd, json.dumps(info).encode())
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None

    def __enter__(self) -> "FolderLock":
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def _holder(fd: int) -> str:
    try:
        info = json.loads(os.pread(fd, 4096, 0) or b"{}")
        return f"pid {info.get('pid')} on {info.get('host')} since {info.get('since')}: {info.get('command')}"
    except (OSError, ValueError):
        return "holder unknown"
