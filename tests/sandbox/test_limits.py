"""Limits: defaults, and the policy that a bot may only ever ask for less."""

import os
import sys

import pytest
from pydantic import ValidationError

from arena.sandbox import BotExited, Level, Limits, LimitsError, effective_limits, launch
from arena.sandbox.limits import GiB, MiB


def test_defaults_are_the_documented_ones() -> None:
    lim = Limits()
    assert lim.memory_bytes == 1 * GiB
    assert lim.max_processes == 64
    assert lim.cpu_seconds is None
    assert lim.file_size_bytes == 64 * MiB
    assert lim.max_line_bytes == 1 * MiB
    assert lim.stderr_bytes == 1 * MiB
    assert lim.scratch_bytes == 64 * MiB


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


def test_a_bot_may_lower_its_limits() -> None:
    got = effective_limits(Limits(), Limits(memory_bytes=256 * MiB, max_processes=8))
    assert got.memory_bytes == 256 * MiB and got.max_processes == 8
    assert got.stderr_bytes == Limits().stderr_bytes  # not asked: the ceiling
    assert effective_limits(Limits(), None) == Limits()
    assert effective_limits(Limits(), {"open_files": 16}).open_files == 16


@pytest.mark.parametrize("asked,field", [
    ({"memory_bytes": None}, "memory_bytes"),
    ({"max_processes": None}, "max_processes"),
    ({"stderr_bytes": 1 << 30}, "stderr_bytes"),
    ({"memory_bytes": 2 * GiB}, "memory_bytes"),
    ({"file_size_bytes": None, "open_files": 8}, "file_size_bytes"),
])
def test_a_bot_can_never_lift_a_limit(asked, field) -> None:
    for requested in (asked, Limits(**asked)):
        with pytest.raises(LimitsError) as info:
            effective_limits(Limits(), requested)
        assert info.value.field == field and f"limits.{field}" in str(info.value)


def test_the_ceiling_comes_from_the_competition() -> None:
    from arena.match.settings import MatchSettings

    st = MatchSettings(limits={"memory_bytes": 2 * GiB})
    assert st.limits_for(None).memory_bytes == 2 * GiB
    assert st.limits_for(Limits(memory_bytes=GiB + 1)).memory_bytes == GiB + 1  # below this ceiling
    with pytest.raises(LimitsError, match="limits.memory_bytes"):
        st.limits_for(Limits(memory_bytes=3 * GiB))
    # A config that sets no limits still has the built-in ceiling (configs/quickstart.yaml).
    with pytest.raises(LimitsError, match="limits.stderr_bytes"):
        MatchSettings().limits_for(Limits(stderr_bytes=1073741824))


def test_manifest_asking_for_no_limit_is_refused_at_load(tmp_path) -> None:
    from arena.players import ManifestError, load_entry

    (tmp_path / "bot.yaml").write_text("name: b\ncommand: [x]\nlimits: {memory_bytes: null, max_processes: null}\n")
    with pytest.raises(ManifestError, match="limits.max_processes|limits.memory_bytes"):
        load_entry(tmp_path)


def test_manifest_too_large_for_the_competition_is_the_bots_fault(tmp_path) -> None:
    from arena.match.settings import MatchSettings
    from arena.players import load_entry

    (tmp_path / "bot.yaml").write_text("name: b\ncommand: [x]\nlimits: {stderr_bytes: 1073741824}\n")
    player = MatchSettings().player(load_entry(tmp_path), 1)
    fault = player.start()
    assert fault is not None and "limits.stderr_bytes" in fault.message
    assert player.proc is None  # nothing was started
    player.close()


@pytest.mark.bwrap
@pytest.mark.skipif(os.geteuid() != 0, reason="the inode cap is root's tmpfs mount (an unprivileged bwrap has no option for it)")
def test_scratch_is_capped_in_inodes_across_home_tmp_and_shm(tmp_path):
    """30,000 empty files used to fit in one launch (bytes were capped, inodes not)."""
    script = ("import os, errno\nn = 0\n"
              "try:\n"
              "    for d in ('/scratch', '/tmp', '/dev/shm'):\n"
              "        for i in range(30000):\n"
              "            open(f'{d}/f{i}', 'w').close(); n += 1\n"
              "except OSError as e:\n    print(n, errno.errorcode[e.errno], flush=True)\n"
              "else:\n    print(n, 'none', flush=True)\n")
    limits = Limits(scratch_inodes=300, memory_bytes=256 * 1024 * 1024)
    with launch([sys.executable, "-c", script], bot_dir=tmp_path, level=Level.BWRAP, limits=limits) as bot:
        count, err = bot.read_line(60).split()
    assert err == b"ENOSPC" and 250 <= int(count) <= 300


def test_a_manifest_may_lower_the_scratch_caps_but_not_raise_them():
    ceiling = Limits()
    assert effective_limits(ceiling, {"scratch_inodes": 100, "scratch_bytes": MiB}).scratch_inodes == 100
    with pytest.raises(LimitsError, match="limits.scratch_inodes"):
        effective_limits(ceiling, {"scratch_inodes": ceiling.scratch_inodes + 1})


MAKE_FILES = ("import os, errno\nn = 0\n"
              "try:\n"
              "    for i in range(30000):\n"
              "        open(f'/scratch/f{i}', 'w').close(); n += 1\n"
              "except OSError as e:\n    print(n, errno.errorcode[e.errno], flush=True)\n"
              "else:\n    print(n, 'none', flush=True)\n")


@pytest.mark.bwrap
@pytest.mark.parametrize("level", [pytest.param("gvisor", marks=pytest.mark.slow), "bwrap"])
@pytest.mark.skipif(os.geteuid() != 0, reason="the inode cap at bwrap is root's tmpfs mount")
def test_a_bot_making_30000_files_in_scratch_hits_its_levels_documented_cap(tmp_path, level):
    """docs/sandbox.md footnote 4: at bwrap `scratch_inodes` (ENOSPC); at gvisor runsc's tmpfs takes no
    inode count, so the files are bounded by `memory_bytes` (the bot's kernel holds them)."""
    if level == "gvisor":
        from .conftest import need_gvisor

        need_gvisor()
    limits = Limits(memory_bytes=64 * MiB)
    with launch([sys.executable, "-c", MAKE_FILES], bot_dir=tmp_path, level=level, limits=limits) as bot:
        try:
            count, err = bot.read_line(120).split()
        except BotExited:
            count, err = b"-1", b"killed"
        if level == "bwrap":
            assert err == b"ENOSPC" and limits.scratch_inodes - 10 <= int(count) <= limits.scratch_inodes
        else:  # killed at its memory cap, or refused memory, before the 30,000th file
            assert int(count) < 30000 and bot.memory_limit_hit(), (count, err)
