"""A small real competition, played once per session: three bots, one of them faulting."""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path
from typing import Callable, Iterator

import pytest
import yaml

from arena.publish.site import build_site
from tests.cli import arena

from .browser import Browser, find_browser

REPO = Path(__file__).resolve().parents[3]
TESTBOT = REPO / "tests" / "fixtures" / "testbot"
EXE = find_browser()


def bot_folder(root: Path, name: str, env: dict[str, str]) -> Path:
    """A copy of the test bot with its own manifest (its own digest)."""
    d = root / name
    d.mkdir(parents=True)
    shutil.copy(TESTBOT / "bot.py", d / "bot.py")
    (d / "bot.yaml").write_text(yaml.safe_dump({"name": name, "version": "1", "command": ["{python}", "bot.py"],
                                                "env": env}))
    return d


def play(cfg_dir: Path, entries: list[Path], *, out: Path, extend: bool = False, **fields: object) -> None:
    data = {"name": "sitetest", "entries": [str(e) for e in entries], "seed": "site-seed", "blocks": 1,
            "match": {"sandbox": "none", "format": "game", "max_deals": 14}, "out": str(out),
            "backend": "serial", "workers": 1}
    data.update(fields)
    cfg = cfg_dir / "config.yaml"
    cfg.write_text(yaml.safe_dump(data))
    ran = arena("run", cfg, "--skip-check", "--no-rate", *(["--extend"] if extend else []))
    assert ran.code == 0, ran.err


def shared(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """The folder ``name``, built by ``build`` once for the whole run: under pytest-xdist every worker that needs
    it waits for the first to build it (a lock in the run's folder, above each worker's own) and reads the same
    one (seconds of CPU each that a second worker spent again). The tests only read it."""
    root = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    folder, built = root / f"shared-{name}", root / f"shared-{name}.built"
    with open(root / f"shared-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not built.exists():
            shutil.rmtree(folder, ignore_errors=True)  # what a worker that failed half-way left
            folder.mkdir()
            build(folder)
            built.touch()
    return folder


@pytest.fixture(scope="session")
def competition(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """results of first, last and crashy (illegal move at its 30th decision): 3 pairings, 6 games."""

    def build(root: Path) -> None:
        bots = [bot_folder(root, "first", {"PICK": "first", "NOISY": "1"}),
                bot_folder(root, "last", {"PICK": "last"}),
                bot_folder(root, "crashy", {"PICK": "first", "MODE": "illegal", "AT": "30", "NOISY": "1"})]
        play(root, bots, out=root / "out")

    return shared(tmp_path_factory, "competition", build) / "out"


@pytest.fixture(scope="session")
def site(competition: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The competition's site (with viewer.html, which opens any record file)."""
    return shared(tmp_path_factory, "site", lambda root: build_site([competition], root / "site", bootstrap=100)) / "site"


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """One headless Chromium for the session (only started by tests that need it)."""
    if EXE is None:
        pytest.skip("no Chromium: install it with `apt-get install chromium` (.ci/run does) to run the browser tests")
    b = Browser(EXE)
    try:
        yield b
    finally:
        b.close()


@pytest.fixture(scope="session")
def club(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A competition under another rule profile (foster1897: void deals, face-up discards, the free rob)
    between two baseline bots, and its site: (results folder, site folder)."""

    def build(root: Path) -> None:
        play(root, [REPO / "bots" / "random", REPO / "bots" / "heuristic"], out=root / "out", name="foster-club",
             seed="club-seed", match={"sandbox": "none", "format": "game", "max_deals": 12, "profile": "foster1897"})
        build_site([root / "out"], root / "site", bootstrap=50)

    root = shared(tmp_path_factory, "club", build)
    return root / "out", root / "site"
