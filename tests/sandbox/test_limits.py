"""Limits model: defaults and the manifest <- tournament override."""

import pytest
from pydantic import ValidationError

from arena.sandbox import Limits
from arena.sandbox.limits import GiB, MiB


def test_defaults_are_the_documented_ones() -> None:
    lim = Limits()
    assert lim.memory_bytes == 1 * GiB
    assert lim.max_processes == 64
    assert lim.cpu_seconds is None
    assert lim.file_size_bytes == 64 * MiB
    assert lim.max_line_bytes == 1 * MiB
    assert lim.stderr_bytes == 1 * MiB


def test_merge_takes_only_fields_the_override_sets() -> None:
    manifest = Limits(memory_bytes=256 * MiB, max_processes=8)
    tournament = Limits(max_processes=16, cpu_seconds=30)
    merged = manifest.merge(tournament)
    assert merged.max_processes == 16
    assert merged.cpu_seconds == 30
    assert merged.memory_bytes == 256 * MiB  # not named by the tournament: manifest kept


def test_merge_accepts_a_dict_and_none() -> None:
    base = Limits(memory_bytes=256 * MiB)
    assert base.merge(None) is base
    merged = base.merge({"memory_bytes": None, "stderr_bytes": 10})
    assert merged.memory_bytes is None
    assert merged.stderr_bytes == 10
    assert merged.max_processes == 64


def test_invalid_values_and_unknown_fields_are_rejected() -> None:
    with pytest.raises(ValidationError):
        Limits(max_processes=0)
    with pytest.raises(ValidationError):
        Limits.model_validate({"memroy_bytes": 1})
