"""The cgroup v2 file protocol, against a fake hierarchy (these hosts run v1).

What the kernel does with the values (enforcing memory.max, killing on
cgroup.kill) cannot be checked here; that the right files get the right
values, and that the answers are read correctly, can.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from arena.sandbox import Limits
from arena.sandbox import cgroup as cg


def fake_root(tmp_path: Path, enabled: str = "memory pids cpu") -> Path:
    """A delegated folder as the kernel shows it, with our group folder already enabled."""
    root = tmp_path / "delegated"
    for folder in (root, root / cg.GROUP_DIR):
        folder.mkdir()
        (folder / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
        (folder / "cgroup.subtree_control").write_text(enabled + "\n")
    return root


def test_delegated_root_is_taken_from_the_environment(tmp_path, monkeypatch) -> None:
    root = fake_root(tmp_path)
    monkeypatch.setenv(cg.V2_ROOT_ENV, str(root))
    cg.v2_parent.cache_clear()
    try:
        assert cg.v2_parent() == root / cg.GROUP_DIR
    finally:
        cg.v2_parent.cache_clear()


def test_root_without_memory_and_pids_is_not_used(tmp_path, monkeypatch) -> None:
    root = fake_root(tmp_path, enabled="cpu")
    (root / "cgroup.controllers").write_text("cpu io\n")  # memory and pids not delegated to us
    monkeypatch.setenv(cg.V2_ROOT_ENV, str(root))
    cg.v2_parent.cache_clear()
    try:
        assert cg.v2_parent() is None
    finally:
        cg.v2_parent.cache_clear()


def test_group_protocol(tmp_path) -> None:
    parent = fake_root(tmp_path) / cg.GROUP_DIR
    group = cg.BotCgroupV2.create(Limits(memory_bytes=64 * 2**20, max_processes=12), parent)
    path = group.path
    assert path.parent == parent
    assert (path / "memory.max").read_text() == str(64 * 2**20)
    assert (path / "pids.max").read_text() == "12"
    assert group.has("memory") and group.has("pids") and not group.has("freeze")

    # join: the shell that runs the script writes its own pid.
    out = subprocess.run(["/bin/sh", "-c", group.join_script() + " && echo $$"], capture_output=True, text=True)
    assert (path / "cgroup.procs").read_text().split() == out.stdout.split()

    (path / "cpu.stat").write_text("usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\n")
    assert group.has("cpu") and group.cpu_time() == 1.5
    (path / "memory.events").write_text("low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n")
    assert not group.oom_killed()
    (path / "memory.events").write_text("low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n")
    assert group.oom_killed()

    # written through a kept descriptor at offset 0 (the kernel's file takes each write whole)
    (path / "cgroup.freeze").write_text("0")
    (path / "cgroup.events").write_text("populated 1\nfrozen 1\n")
    group.freeze(wait=True)
    assert group.has("freeze") and (path / "cgroup.freeze").read_text() == "1"
    group.thaw()
    assert (path / "cgroup.freeze").read_text() == "0"

    (path / "cgroup.procs").write_text("12\n34\n")
    assert group.pids() == [12, 34]
    (path / "cgroup.kill").write_text("0\n")
    (path / "cgroup.events").write_text("populated 0\nfrozen 0\n")
    group.kill_all()
    assert (path / "cgroup.kill").read_text() == "1"

    for f in path.iterdir():  # the kernel's files vanish with the group; a fake's must go first
        f.unlink()
    group.destroy()
    assert not path.exists() and group.paths == {}


def test_limits_left_open_write_nothing(tmp_path) -> None:
    parent = fake_root(tmp_path) / cg.GROUP_DIR
    group = cg.BotCgroupV2.create(Limits(memory_bytes=None, max_processes=None), parent)
    assert not (group.path / "memory.max").exists() and not (group.path / "pids.max").exists()
    os.rmdir(group.path)


def test_v1_host_prefers_v1(monkeypatch) -> None:
    if not cg.parent_dirs():
        pytest.skip("no writable cgroup v1 here")
    group = cg.create_cgroup(Limits())
    try:
        assert isinstance(group, cg.BotCgroup)
    finally:
        assert group is not None
        group.destroy()
