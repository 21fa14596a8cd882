"""Host uids for bots: one unprivileged uid per running sandbox, never 0.

Everything the kernel keys by uid (keyrings, inotify and process quotas,
RLIMIT_NPROC, signal permission) is then private to one seat. Leases are
`flock`s on one file per uid in a root-only folder, so concurrent harness
processes and Ray workers on one host never hand out the same uid; a lease
dies with the process holding it, so a crashed harness leaks nothing.
"""

from __future__ import annotations

import errno
import fcntl
import os
import random
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .errors import HarnessError

#: Environment variable that moves the default range: "FIRST-LAST" (inclusive).
RANGE_ENV = "CINCH_ARENA_UIDS"
DEFAULT_FIRST = 2_000_000_000
DEFAULT_COUNT = 4096
#: Where the lease files live (root-only). Same path for every harness process.
LEASE_DIR = Path(os.environ.get("CINCH_ARENA_UID_LEASES", "/run/cinch-arena/uid-leases"))


class UidRange(BaseModel):
    """An inclusive range of host uids (and gids of the same numbers) reserved for bots."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    first: int = Field(DEFAULT_FIRST, ge=1000, le=4_294_967_293)
    last: int = Field(DEFAULT_FIRST + DEFAULT_COUNT - 1, ge=1000, le=4_294_967_293)

    @model_validator(mode="after")
    def _ordered(self) -> "UidRange":
        if self.last < self.first:
            raise ValueError(f"uid range {self.first}-{self.last} is empty")
        if self.first <= 65534 <= self.last:
            raise ValueError("uid range must not contain 65534 (nobody)")
        return self

    @classmethod
    def parse(cls, text: str) -> "UidRange":
        first, _, last = text.partition("-")
        try:
            return cls(first=int(first), last=int(last or first))
        except ValueError as exc:
            raise ValueError(f"bad uid range {text!r} (want FIRST-LAST): {exc}") from None

    @classmethod
    def default(cls) -> "UidRange":
        text = os.environ.get(RANGE_ENV)
        return cls.parse(text) if text else cls()


class UidLease:
    """One uid held for one sandbox; `release()` (idempotent) gives it back."""

    def __init__(self, uid: int, fd: int | None) -> None:
        self.uid = uid
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock
            self._fd = None

    def __repr__(self) -> str:
        return f"<UidLease {self.uid}>"


def _lease_dir() -> Path:
    LEASE_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = LEASE_DIR.lstat()
    if st.st_uid != os.geteuid() or st.st_mode & 0o077:
        raise HarnessError(f"uid lease folder {LEASE_DIR} must be ours and mode 0700")
    return LEASE_DIR


def lease_uid(uid_range: UidRange | None = None) -> UidLease:
    """A free uid of the range, held until released.

    Only a root harness can run bots under other uids; otherwise the bot
    shares the harness's own uid (see docs/sandbox.md) and the lease is a no-op.
    """
    if os.geteuid() != 0:
        return UidLease(os.geteuid(), None)
    rng = uid_range or UidRange.default()
    folder = _lease_dir()
    size = rng.last - rng.first + 1
    start = random.randrange(size)  # spread leases so concurrent processes rarely collide
    for i in range(size):
        uid = rng.first + (start + i) % size
        fd = os.open(folder / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                continue
            raise HarnessError(f"cannot lease uid {uid}: {exc}") from exc
        return UidLease(uid, fd)
    raise HarnessError(f"all {size} bot uids of {rng.first}-{rng.last} are in use on this host")
