"""The parameterised test bot (tests/fixtures/testbot) in its behaviours."""

from __future__ import annotations

from pathlib import Path

from arena.players import BotEntry, Manifest, load_entry

TESTBOT = Path(__file__).resolve().parent / "fixtures" / "testbot"


def hostile(mode: str, at: int = 3) -> BotEntry:
    """The test bot misbehaving as ``mode`` at its ``at``-th decision."""
    base = load_entry(TESTBOT / "hostile.yaml")
    m = Manifest(**{**base.manifest.model_dump(), "env": {"MODE": mode, "AT": str(at)}})
    return BotEntry(manifest=m, dir=base.dir, digest=base.digest)


def factory(settings):
    return settings.player
