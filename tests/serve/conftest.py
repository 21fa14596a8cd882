"""A competition folder, its database (SQLite, and PostgreSQL in the slow suite) and a real uvicorn server.

Every test that takes ``db_url`` runs twice: on the embedded SQLite default
(``None``: FOLDER/competition.sqlite) and on a real PostgreSQL server the
tests start themselves (``tests/serve/postgres.py``), marked slow.
"""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest

from arena.publish import BotRow
from arena.serve import db
from arena.serve.app import Service
from arena.serve.archive import pack
from arena.serve.serve import open_service, uvicorn_config

from .postgres import Server

ROOT = Path(__file__).resolve().parents[2]
CONFIG = """\
competition:
  name: test cup
  submissions_per_day: 3
  check_games: 0
  check_timeout_s: 60
  workers: 1
match:
  sandbox: none
"""


def bot_archive(folder: Path = ROOT / "bots" / "minimal", variant: str = "") -> bytes:
    """The bot folder packed; ``variant``: with one more file holding it, so the upload is not identical
    to an earlier version (which the server answers "same as version N" without queueing it)."""
    if not variant:
        return pack(folder)
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "bot"
        shutil.copytree(folder, copy)
        (copy / "variant.txt").write_text(variant)
        return pack(copy)


def row(name: str, digest: str, rating: float, ci_low: float | None = None, ci_high: float | None = None,
        games: int = 0, score_pct: float | None = None, faults: int = 0) -> BotRow:
    """A leaderboard row with the figures a ladder's ratings show (the rest as a bot without faults has them)."""
    return BotRow(rank=None, bot=name, name=name, version=None, digest=digest, rating=rating, ci_low=ci_low,
                  ci_high=ci_high, interval_df=None, interval_withheld=None, games=games, score=0.0,
                  score_pct=score_pct, wins=0, draws=0, losses=0, forfeits=0, faults={}, faults_total=faults)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def postgres() -> Iterator[Server]:
    server = Server()
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def db_url(request: pytest.FixtureRequest) -> str | None:
    """The competition's database: None for the default SQLite file in the folder, else a fresh PostgreSQL one."""
    if request.param == "sqlite":
        return None
    server: Server = request.getfixturevalue("postgres")
    return server.create()


@pytest.fixture
def comp(tmp_path: Path) -> Path:
    (tmp_path / "competition.yaml").write_text(CONFIG)
    return tmp_path


class Live:
    def __init__(self, svc: Service, url: str, tokens: dict[str, str]) -> None:
        self.svc, self.url, self.tokens = svc, url, tokens


def start(svc: Service, *, worker: bool) -> tuple[str, object]:
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn_config(svc, "127.0.0.1", port))  # the server's own settings and guards
    threading.Thread(target=server.run, daemon=True).start()
    if worker:
        threading.Thread(target=svc.worker, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    return f"http://127.0.0.1:{port}", server


@pytest.fixture
def live(comp: Path, db_url: str | None) -> Iterator[Live]:
    """The server without its validation worker: submissions stay queued."""
    svc = open_service(comp, db_url)
    tokens = {n: db.add_team(svc.engine, n) for n in ("red", "blue")}
    tokens["host"] = db.add_team(svc.engine, "host", admin=True)
    url, server = start(svc, worker=False)
    yield Live(svc, url, tokens)
    server.should_exit = True  # type: ignore[attr-defined]
    svc.engine.dispose()
