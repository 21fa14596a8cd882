"""Fixtures shared by every test package."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.players import BotEntry, load_entry

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def first_bot() -> BotEntry:
    """The minimal reference bot: always the first legal option."""
    return load_entry(REPO / "bots" / "minimal")
