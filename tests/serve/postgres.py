"""A throwaway PostgreSQL server from the system's packages, for the serve tests' second database.

Debian's ``postgresql`` package puts ``initdb`` and ``pg_ctl`` under
/usr/lib/postgresql/VERSION/bin. The server gets a fresh data folder and
listens only on a unix socket inside it (no TCP port). PostgreSQL refuses to
run as root, so under root it runs as ``nobody``. Where the binaries are
missing the tests are skipped with the reason, except in CI (env ``CI`` set),
where .ci/run installs the package and a missing server is a failure.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

USER = "arena"  # the server's superuser (trust authentication on its own socket)


def binaries() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[4]))
    return Path(found[-1]).parent if found else None


def unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason}: CI must run the PostgreSQL tests (.ci/run installs the postgresql package)")
    pytest.skip(f"{reason} (apt-get install postgresql; .ci/run does)")


class Server:
    """initdb + pg_ctl on a temporary folder; ``url(db)`` for SQLAlchemy, ``create()`` for a fresh database."""

    def __init__(self) -> None:
        bindir = binaries()
        if bindir is None:
            unavailable("no PostgreSQL server binaries under /usr/lib/postgresql/*/bin")
        assert bindir is not None
        self.bin = bindir
        # short: a unix socket's path is at most ~107 bytes
        self.root = Path(tempfile.mkdtemp(prefix="pg-"))
        self.data, self.sock = self.root / "data", self.root / "sock"
        self.sock.mkdir()
        self.as_user: dict[str, object] = {}
        if os.getuid() == 0:
            self.as_user = {"user": "nobody", "group": "nogroup", "extra_groups": []}
            os.chmod(self.root, 0o755)
            shutil.chown(self.root, "nobody", "nogroup")
            shutil.chown(self.sock, "nobody", "nogroup")
        self._run("initdb", "-D", str(self.data), "-U", USER, "--auth=trust", "--no-sync", "-E", "UTF8")
        self.start()

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "log"), "-w", "-t", "120", "start",
                  "-o", f"-k {self.sock} -c listen_addresses='' -c fsync=off")

    def halt(self) -> None:
        """Stop the server, its data kept (``start`` brings it back)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def _run(self, tool: str, *args: str) -> None:
        done = subprocess.run([str(self.bin / tool), *args], capture_output=True, text=True, timeout=180,
                              cwd=self.root, **self.as_user)  # type: ignore[call-overload]
        if done.returncode != 0:
            log = (self.root / "log").read_text() if (self.root / "log").exists() else ""
            raise RuntimeError(f"{tool} failed ({done.returncode}): {done.stderr.strip()}\n{log[-2000:]}")

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://{USER}@/{database}?host={self.sock}"

    def create(self) -> str:
        """A new empty database; its SQLAlchemy URL."""
        import sqlalchemy as sa

        name = f"t_{uuid.uuid4().hex[:12]}"
        engine = sa.create_engine(self.url("postgres"), isolation_level="AUTOCOMMIT")
        with engine.connect() as c:
            c.execute(sa.text(f'CREATE DATABASE "{name}"'))
        engine.dispose()
        return self.url(name)

    def stop(self) -> None:
        try:
            self.halt()
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
