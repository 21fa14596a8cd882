"""Shared helpers: hostile bots copied into private bot folders, a JSON probe client."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from arena.sandbox import BotProcess, Level, Limits, SandboxUnavailable, check_bwrap, find_bwrap, launch

HOSTILE = Path(__file__).parent / "hostile"

#: Short limits keep the suite fast and the hostile bots cheap.
SMALL = Limits(memory_bytes=128 * 1024 * 1024, max_processes=32, file_size_bytes=1024 * 1024,
               max_line_bytes=64 * 1024, stderr_bytes=4096)


def bwrap_works() -> str | None:
    try:
        check_bwrap(find_bwrap())
    except SandboxUnavailable as exc:
        return str(exc)
    return None


def gvisor_works() -> str | None:
    """Why level gvisor cannot run here, or None."""
    from arena.sandbox.gvisor import find_runsc, runsc_version

    try:
        runsc_version(find_runsc())
    except SandboxUnavailable as exc:
        return str(exc)
    return None


def need_gvisor() -> None:
    """Skip (saying why) where runsc is missing; in CI (`CI` set, .ci/run installs it) fail instead."""
    reason = gvisor_works()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"level gvisor must run in CI: {reason}")
        pytest.skip(f"level gvisor unavailable: {reason}")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = bwrap_works()
    if reason is None:
        return
    skip = pytest.mark.skip(reason=f"bwrap unusable: {reason}")
    for item in items:
        if "bwrap" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def hostile(tmp_path: Path) -> Callable[..., tuple[list[str], Path]]:
    """hostile("fork_bomb", *args) -> (argv, bot_dir) with the script in its own folder."""
    counter = iter(range(1000))

    def make(name: str, *args: str) -> tuple[list[str], Path]:
        bot_dir = tmp_path / f"bot-{name}-{next(counter)}"
        bot_dir.mkdir()
        shutil.copy(HOSTILE / f"{name}.py", bot_dir / f"{name}.py")
        return [sys.executable, str(bot_dir / f"{name}.py"), *args], bot_dir

    return make


@pytest.fixture
def scratch_root(tmp_path: Path) -> Path:
    root = tmp_path / "scratch-root"
    root.mkdir(mode=0o700)
    return root


#: The levels for hostile code. A test module marked ``contained`` runs every test that starts
#: bots through `start` (or `probe`) without naming a level at each of them: bwrap in the default
#: suite, gvisor (a sandbox start of about half a second each) with the slow checks.
CONTAINED = [pytest.param("bwrap", id="bwrap"), pytest.param("gvisor", id="gvisor", marks=pytest.mark.slow)]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "contained_level" in metafunc.fixturenames and metafunc.definition.get_closest_marker("contained"):
        metafunc.parametrize("contained_level", CONTAINED)


@pytest.fixture
def contained_level() -> str:
    """The level `start` uses when a test names none (bwrap, unless the module is marked ``contained``)."""
    return "bwrap"


@pytest.fixture
def start(scratch_root: Path, contained_level: str) -> Iterator[Callable[..., BotProcess]]:
    """launch() that always closes what it started, even when a test fails."""
    started: list[BotProcess] = []
    if contained_level == "gvisor":
        need_gvisor()

    def _start(argv: list[str], bot_dir: Path, level: Level | str | None = None,
               limits: Limits = SMALL, **kw: Any) -> BotProcess:
        level = contained_level if level is None else level
        if Level(level) is Level.GVISOR:
            need_gvisor()
        bot = launch(argv, bot_dir=bot_dir, level=level, limits=limits,
                     scratch_root=kw.pop("scratch_root", scratch_root), **kw)
        started.append(bot)
        return bot

    yield _start
    for bot in started:
        bot.close()


class Probe:
    """Client of hostile/probe.py: one request, one JSON answer."""

    def __init__(self, bot: BotProcess) -> None:
        self.bot = bot
        assert json.loads(bot.read_line(10.0)) == {"hello": True}

    def __call__(self, action: str, **args: Any) -> dict[str, Any]:
        self.bot.write_line(json.dumps({"action": action, **args}))
        return json.loads(self.bot.read_line(10.0))


@pytest.fixture
def probe(hostile: Callable[..., tuple[list[str], Path]], start: Callable[..., BotProcess]) -> Callable[..., Probe]:
    def _probe(level: Level | str | None = None, **kw: Any) -> Probe:
        argv, bot_dir = hostile("probe")
        return Probe(start(argv, bot_dir, level=level, **kw))

    return _probe


def pid_alive(pid: int) -> bool:
    """True if `pid` exists in any state, zombies included (a zombie is a leftover too)."""
    return os.path.exists(f"/proc/{pid}")


def failing_bwrap(folder: Path) -> Path:
    """A stand-in bwrap in ``folder`` that answers --version and the self-test but fails every
    sandbox setup (as a host whose tmpfs mounts are refused): the harness's failure, not a bot's."""
    fake = folder / "bwrap"
    fake.write_text("#!/bin/sh\n"
                    "[ \"$1\" = --version ] && { echo 'bubblewrap 0.11.0'; exit 0; }\n"
                    "for a; do last=$a; done\n"
                    "[ \"$last\" = /bin/true ] && exit 0\n"
                    "echo 'bwrap: Can not mount tmpfs on /newroot/tmp' >&2; exit 1\n")
    fake.chmod(0o755)
    return fake
