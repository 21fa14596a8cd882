"""What a bot at level bwrap can and cannot see or touch."""

from __future__ import annotations

import errno
import os
import socket
from pathlib import Path

import pytest

from arena.sandbox.bwrap import SANDBOX_UID, SCRATCH_MOUNT

pytestmark = [pytest.mark.bwrap, pytest.mark.contained]

REPO = Path(__file__).resolve().parents[2]


def test_uid_is_unprivileged_and_capabilities_are_empty(probe) -> None:
    p = probe()
    st = p("status")["value"]
    uids = st["Uid"].split()
    assert uids[0] != "0" and int(uids[0]) == SANDBOX_UID
    assert int(st["CapEff"], 16) == 0
    assert int(st["CapPrm"], 16) == 0
    assert int(st["CapBnd"], 16) == 0


def test_no_network_only_loopback(probe) -> None:
    # The listener is on the host's loopback; a bot in its own network
    # namespace must not reach it.
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    server.setblocking(False)
    port = server.getsockname()[1]
    try:
        p = probe()
        res = p("connect_tcp", port=port)
        assert res["ok"] is False
        with pytest.raises(BlockingIOError):
            server.accept()
        devs = p("netdev")["value"]
        names = {line.split(":")[0].strip() for line in devs.splitlines()[2:]}
        assert names == {"lo"}
    finally:
        server.close()


def test_filesystem_is_read_only_outside_scratch(probe) -> None:
    p = probe()
    bot_dir = p("ids")["value"]["cwd"]
    for path in (f"{bot_dir}/evil.txt", "/usr/evil.txt", "/evil.txt", "/etc/evil.txt"):
        res = p("write", path=path)
        assert res["ok"] is False, path
        assert res["errno"] in (errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOENT), res
    assert not os.path.exists(f"{bot_dir}/evil.txt")
    assert p("write", path=f"{SCRATCH_MOUNT}/ok.txt")["ok"] is True
    assert p("write", path="/tmp/ok.txt")["ok"] is True


def test_file_size_limit_holds_in_scratch(probe) -> None:
    p = probe()
    res = p("write", path=f"{SCRATCH_MOUNT}/big", size=2 * 1024 * 1024)  # limit 1 MiB
    assert res["ok"] is False
    assert res["errno"] == errno.EFBIG


def test_harness_files_are_invisible(probe, tmp_path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    (results / "standings.json").write_text("{}")
    p = probe()
    for path in (str(results / "standings.json"), str(REPO / "pyproject.toml"),
                 "/etc/shadow"):
        res = p("read", path=path)
        assert res["ok"] is False, (path, res)
    assert p("exists", path=str(REPO))["value"] is False
    # The harness's home shows at most the interpreter's install dir bound into it.
    home = p("listdir", path=os.path.expanduser("~"))
    assert home["ok"] is False or set(home["value"]) <= {".pyenv"}, home
    # Only the allow-listed /etc entries are present.
    etc = set(p("listdir", path="/etc")["value"])
    assert "shadow" not in etc and "hostname" not in etc


def test_environment_is_cleared_to_the_allow_list(probe, monkeypatch) -> None:
    monkeypatch.setenv("ARENA_TEST_SECRET", "do-not-leak")
    p = probe(env={"BOT_SEED": "42"})
    env = p("env")["value"]
    assert "ARENA_TEST_SECRET" not in env
    assert env["BOT_SEED"] == "42"
    assert env["HOME"] == SCRATCH_MOUNT
    assert set(env) <= {"PATH", "LANG", "HOME", "TMPDIR", "BOT_SEED", "PWD"}


def test_scratch_is_fresh_per_launch_and_removed_after(probe) -> None:
    first = probe()
    assert first("write", path=f"{SCRATCH_MOUNT}/left-behind")["ok"]
    assert first.bot.scratch_dir is None  # a tmpfs inside the sandbox: nothing on the host disk
    first.bot.close()
    second = probe()
    assert second("exists", path=f"{SCRATCH_MOUNT}/left-behind")["value"] is False
    assert second("listdir", path=SCRATCH_MOUNT)["value"] == []


def test_partners_share_nothing(probe) -> None:
    a = probe()
    b = probe()
    # Each scratch is its own tmpfs.
    assert a("write", path=f"{SCRATCH_MOUNT}/secret")["ok"]
    assert b("exists", path=f"{SCRATCH_MOUNT}/secret")["value"] is False
    # /tmp and /dev/shm are private tmpfs.
    assert a("write", path="/tmp/drop")["ok"] and a("write", path="/dev/shm/drop")["ok"]
    assert b("exists", path="/tmp/drop")["value"] is False
    assert b("exists", path="/dev/shm/drop")["value"] is False
    # Abstract unix sockets live in the (separate) network namespaces.
    assert a("listen_abstract", name="cinch-partner")["value"] == "listening"
    assert a("connect_abstract", name="cinch-partner")["value"] == "connected"  # the check works
    assert b("connect_abstract", name="cinch-partner")["ok"] is False


def test_bot_cannot_signal_partner_or_harness(probe) -> None:
    a = probe()
    b = probe()
    ids_b = b("ids")["value"]
    assert ids_b["pid"] == 1  # its own pid namespace: it is that namespace's init
    for pid in (a.bot.sandbox_pid, a.bot.pid, os.getpid(), os.getppid()):
        res = b("kill", pid=pid)
        assert res["ok"] is False, pid
        assert res["errno"] == errno.ESRCH
    assert b("kill", pid=-1)["ok"] is False  # nobody else in its namespace
    # Partner and harness are alive and well.
    assert a("ids")["ok"] is True
    assert a.bot.exit_status is None


def test_bwrap_level_has_no_controlling_tty(probe) -> None:
    p = probe()
    assert p("read", path="/dev/tty")["ok"] is False
