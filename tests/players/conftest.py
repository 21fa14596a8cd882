from pathlib import Path

import pytest

from arena.players import BotEntry, Manifest, load_entry
from arena.players.process import ProcessPlayer

TESTBOT = Path(__file__).resolve().parents[1] / "fixtures" / "testbot"


@pytest.fixture
def first_bot() -> BotEntry:
    return load_entry(Path(__file__).resolve().parents[2] / "bots" / "minimal")


def hostile(mode: str, at: int = 3) -> BotEntry:
    base = load_entry(TESTBOT / "hostile.yaml")
    m = Manifest(**{**base.manifest.model_dump(), "env": {"MODE": mode, "AT": str(at)}})
    return BotEntry(manifest=m, dir=base.dir, digest=base.digest)


def factory(settings):
    return lambda entry, seed: ProcessPlayer(entry, seed, settings)
