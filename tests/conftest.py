"""Fixtures shared by every test package."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any, Iterator

import pytest

from arena.players import BotEntry, load_entry

REPO = Path(__file__).resolve().parents[1]

# A shell starts a background job (`make test &`, nohup in a script) with Ctrl-C ignored, and the commands the
# interrupt tests start would inherit that and never stop on SIGINT: give the suite what a terminal gives.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def first_bot() -> BotEntry:
    """The minimal reference bot: always the first legal option."""
    return load_entry(REPO / "bots" / "minimal")


@pytest.fixture(scope="session")
def ray_session() -> Iterator[Any]:
    """One embedded Ray instance for every Ray test of the session (starting Ray takes seconds)."""
    ray = pytest.importorskip("ray")
    from arena.schedule.backends import quiet_ray_notices, ray_init_kwargs

    quiet_ray_notices()
    ray.init(**ray_init_kwargs(2, None))  # as `arena run` starts it: the harness shipped with the job
    yield ray
    ray.shutdown()
