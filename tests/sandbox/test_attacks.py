"""The hostile bot (hostile/attack.py, one script, one attack per run) against level bwrap.

Each test runs one attack and asserts it is contained; partner attacks play
a real game with two attacking partners and assert the receiver learns
nothing, with a control at level none proving each channel really works.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import pytest

from arena.match.game import play_game
from arena.match.settings import MatchSettings
from arena.players.manifest import BotEntry, Manifest
from arena.players.policy import PolicyPlayer
from arena.players.process import ProcessPlayer
from arena.sandbox import Limits, UidRange, launch
from arena.sandbox.bwrap import PROC_FAKE, proc_fakes, proc_masks
from arena.sandbox.errors import BotExited, CommandNotFound, HarnessError

from .conftest import HOSTILE, SMALL

pytestmark = [pytest.mark.bwrap, pytest.mark.contained]
ATTACK = HOSTILE / "attack.py"
REFUSED = {"EPERM", "ENOSYS", "EACCES", "EAFNOSUPPORT", "EOPNOTSUPP", "ENOTSUP", "EROFS", "ENOTTY", "EINVAL",
           "ENOPROTOOPT"}


def attack_dir(tmp_path: Path, name: str = "attack") -> Path:
    bot_dir = tmp_path / name
    bot_dir.mkdir()
    shutil.copy(ATTACK, bot_dir / "attack.py")
    (bot_dir / "shared.txt").write_text("a file of this test's own, seen by both partners\n")
    return bot_dir


def run_attack(start, tmp_path: Path, attack: str, **kw: Any) -> tuple[dict[str, Any], Any]:
    bot_dir = attack_dir(tmp_path, f"attack-{attack}")
    kw["env"] = {"PYTHONFAULTHANDLER": "1", **kw.get("env", {})}  # a crash writes where it was to stderr
    bot = start([sys.executable, str(bot_dir / "attack.py"), attack], bot_dir, **kw)
    try:
        line = bot.read_line(30)
    except BotExited as exc:  # say how it ended: its stderr holds a crash's own report
        raise AssertionError(f"the {attack} attack ended ({bot.exit_status}) before it reported; stderr:\n"
                             f"{bot.stderr_text()[-4000:]}") from exc
    return json.loads(line), bot


def host_uid(pid: int) -> int:
    """The effective uid of `pid` as the host sees it."""
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("Uid:"):
                return int(line.split()[2])
    raise AssertionError("no Uid line")


def test_never_host_root_and_sysctls_are_read_only(start, tmp_path) -> None:
    out, bot = run_attack(start, tmp_path, "sysctl")
    for name, res in out.items():
        if isinstance(res, dict):
            assert res["ok"] is False, (name, res)
            assert res["errno"] in REFUSED | {"ENOENT"}, (name, res)
    assert "evil" not in out["core_pattern_now"]
    with open("/proc/sys/kernel/core_pattern") as fh:
        assert "evil" not in fh.read()
    assert host_uid(bot.sandbox_pid) != 0


def sandbox_host_pids(bot) -> list[int]:
    """Every host process of a bot's sandbox (bwrap and the bot; at gvisor runsc, its file server,
    the Sentry and its stubs)."""
    from arena.sandbox import proctree

    return proctree.descendants(bot.pid)


def test_uid_map_and_credentials(start, tmp_path, contained_level) -> None:
    out, bot = run_attack(start, tmp_path, "ids")
    assert out["uid"] == 65534 and out["euid"] == 65534
    assert all(int(v, 16) == 0 for v in out["caps"].values())
    assert out["fds"] == ["0", "1", "2", "3"]  # stdio and the listing itself: nothing inherited
    if contained_level == "gvisor":
        # Its uid map is its own kernel's; what counts is the host: every process of the sandbox
        # (runsc, its file server, the Sentry running the bot) holds the seat's leased uid.
        if os.geteuid() == 0:
            uids = {host_uid(pid) for pid in sandbox_host_pids(bot)[1:]}
            assert uids == {bot.host_uid}, uids
            assert UidRange.default().first <= bot.host_uid <= UidRange.default().last
        return
    inside, outside, count = (int(x) for x in out["uid_map"].split())
    assert (inside, count) == (65534, 1)
    assert outside != 0  # the map never reaches host root
    assert all(int(line.split()[1]) != 0 for line in out["gid_map"].splitlines())
    if os.geteuid() == 0:
        # The host sees the bot (and the bwrap around it) as the leased uid.
        assert outside == bot.host_uid == host_uid(bot.sandbox_pid) == host_uid(bot.pid)
        assert UidRange.default().first <= bot.host_uid <= UidRange.default().last
    assert out["no_new_privs"] == "1" and out["seccomp"] == "2"


def test_each_sandbox_has_its_own_uid_and_the_lease_is_released(start, tmp_path) -> None:
    if os.geteuid() != 0:
        pytest.skip("only a root harness can run bots under uids of their own")
    # Leases are host-wide (one lease folder for every harness on the machine): a range of this
    # run's own, so the same test running in another checkout at once cannot take its uids.
    first = 1_900_000_000 + 2 * int.from_bytes(os.urandom(4), "big") % 50_000_000
    rng = UidRange(first=first, last=first + 1)
    a = run_attack(start, tmp_path, "ids", uid_range=rng)[1]
    bot_dir = attack_dir(tmp_path, "second")
    b = start([sys.executable, str(bot_dir / "attack.py"), "ids"], bot_dir, uid_range=rng)
    assert {a.host_uid, b.host_uid} == {rng.first, rng.last}
    with pytest.raises(HarnessError, match="in use"):
        start([sys.executable, str(bot_dir / "attack.py"), "ids"], bot_dir, uid_range=rng)
    uid = a.host_uid
    a.close()
    c = start([sys.executable, str(bot_dir / "attack.py"), "ids"], bot_dir, uid_range=rng)
    assert c.host_uid == uid


#: What the syscall attack must find working: ordinary calls, and locks that succeed without effect.
WORKING = {"fork", "thread", "unix_socket", "unix_socketpair", "preadv2", "pipe_fionread", "flock", "setlk", "ofd_setlk",
           "so_type", "so_peercred", "so_sndbuf"}
#: Host-wide counters a call reads (docs/sandbox.md, "Syscall filter"), and the errno that refuses each:
#: what a kernel without the call or option answers, which the runtimes that use them fall back from.
HOST_IDS = {"so_cookie": "ENOPROTOOPT", "so_netns_cookie": "ENOPROTOOPT", "so_peerpidfd": "ENOPROTOOPT",
            "so_passpidfd": "ENOPROTOOPT", "pidfd_open": "ENOSYS", "memfd_create": "ENOSYS", "clone_pidfd": "EINVAL"}


def _host_state() -> tuple[int, str, str]:
    with open("/proc/self/mountinfo") as fh:  # the harness's own (images, launch areas) aside
        mounts = len([line for line in fh.read().splitlines() if " cinch-arena " not in line])
    with open("/proc/sys/kernel/hostname") as fh, open("/proc/sys/kernel/core_pattern") as cp:
        return mounts, fh.read(), cp.read()


def test_refused_syscalls_return_an_errno(start, tmp_path, contained_level) -> None:
    before = _host_state()
    out, bot = run_attack(start, tmp_path, "syscalls")
    if contained_level == "gvisor":
        # Every call is answered by the bot's own kernel (gVisor's Sentry): namespaces, mounts,
        # inotify, AIO act inside it or are refused; the host sees none of it, and the sandbox's
        # host processes hold no capability.
        for name in WORKING - {"ofd_setlk"}:  # gVisor has no open-file-description locks (EINVAL)
            assert out[name]["ok"] is True, (name, out[name])
        assert _host_state() == before
        host_userns = os.readlink("/proc/self/ns/user")
        for pid in sandbox_host_pids(bot)[1:]:
            with open(f"/proc/{pid}/status") as fh:
                caps = dict(line.split(":\t", 1) for line in fh if line.startswith("Cap"))
            # capabilities held in a user namespace of the sandbox's own (runsc's rootless one)
            # are nothing on the host; in the host's, none at all
            if os.geteuid() == 0 and os.readlink(f"/proc/{pid}/ns/user") == host_userns:
                assert int(caps["CapEff"], 16) == 0, (pid, caps)
            if os.geteuid() == 0:
                assert host_uid(pid) == bot.host_uid, pid
        return
    for name, res in out.items():
        if name in WORKING:
            assert res["ok"] is True, (name, res)
        elif isinstance(res, dict):
            assert res["ok"] is False and res["errno"] in REFUSED, (name, res)
        else:
            assert res in REFUSED, (name, res)
    assert out["clone3"] == "ENOSYS"  # so libc falls back to clone
    # No Linux AIO of any kind, no io_uring, no page-cache residency probe: "not implemented".
    for name in ("io_setup", "io_submit", "io_getevents", "io_uring_setup", "mincore", "readahead", "cachestat"):
        assert out[name] == "ENOSYS", (name, out[name])
    for name in ("inet_socket", "inet6_socket", "inet_socketpair", "netlink", "packet"):
        assert out[name]["errno"] == "EAFNOSUPPORT", (name, out[name])
    assert out["rwf_nowait"]["errno"] == out["rwf_nowait_write"]["errno"] == errno.errorcode[errno.EOPNOTSUPP]
    for name, want in HOST_IDS.items():
        assert out[name] == {"ok": False, "errno": want}, (name, out[name])
    assert bot.exit_status is None  # refused, not killed


def test_host_wide_ids_are_the_kernels_answers_without_the_filter(start, tmp_path) -> None:
    """The control: at level none each call of HOST_IDS works on this kernel, so the refusals at bwrap
    above are the filter's (SO_PEERPIDFD and SO_PASSPIDFD are Linux 6.5's: older kernels refuse them)."""
    out, _ = run_attack(start, tmp_path, "host_ids", level="none")
    release = tuple(int(x) for x in os.uname().release.split(".")[:2])
    for name in HOST_IDS:
        if name in ("so_peerpidfd", "so_passpidfd") and release < (6, 5):
            continue
        assert out[name]["ok"] is True, (name, out[name])
    assert out["so_cookie"]["value"] > 0 and out["pidfd_open"]["value"] > 0 and out["memfd_create"]["value"] > 0
    assert out["so_peerpidfd"].get("value", out["pidfd_open"]["value"]) == out["pidfd_open"]["value"]  # one's own pidfd


#: Every call that lowers a thread's priority or changes its scheduling policy (issue 41).
PRIORITY_CALLS = ("setpriority", "sched_setscheduler_idle", "sched_setscheduler_batch", "sched_setparam",
                  "sched_setattr", "thread_setpriority", "thread_sched_setscheduler_idle")


def test_priority_changes_are_refused_and_a_niced_autogroup_is_seen(start, tmp_path, contained_level) -> None:
    """A thread at nice 19 or SCHED_IDLE is runnable, waiting for a core, at little CPU, and the judge
    takes a seat's wait for a core for the machine's: a bot could sleep past its slot unfaulted on a busy
    machine. At bwrap every such call is refused (EPERM, the bot runs on); the one door no syscall rule
    closes, its session's autogroup (/proc/self/autogroup), is seen by the judge (``lowered``), which then
    gives the seat no credit for its waits. At gvisor the Sentry keeps a nice of its own, refuses every
    policy but SCHED_OTHER, and no host thread of the sandbox changes."""
    from arena.players.transport import ProcessTransport

    out, bot = run_attack(start, tmp_path, "priority")
    seat = ProcessTransport(bot)
    if contained_level == "gvisor":
        assert out["setpriority"] == "ok" and out["nice"] == 19  # the Sentry's own bookkeeping
        for name in ("sched_setscheduler_idle", "sched_setscheduler_batch", "thread_sched_setscheduler_idle"):
            assert out[name] == "EINVAL", (name, out[name])  # only SCHED_OTHER exists there
        assert out["sched_setparam"] in REFUSED and out["sched_setattr"] in REFUSED, out
        assert out["autogroup"]["ok"] is False, out
        assert not seat.lowered()  # no host thread's nice, policy or autogroup moved
    else:
        for name in PRIORITY_CALLS:
            assert out[name] == "EPERM", (name, out[name])
        # the bot's threads keep the judge's own nice (a serial run's ``nice`` setting may have moved this
        # test process's: the bot inherits it)
        judge_nice = os.getpriority(os.PRIO_PROCESS, 0)
        assert out["nice"] == out["thread_nice"] == judge_nice and out["policy"] == out["thread_policy"] == 0, out
        assert out["autogroup"]["ok"] is True and out["autogroup"]["value"].endswith("nice 19"), out
        assert seat.lowered()  # the autogroup's nice, read from the host
    assert out["policy"] == 0
    assert bot.exit_status is None  # refused, not killed


def test_priority_changes_work_without_the_filter(start, tmp_path) -> None:
    """The control: at level none (no filter) each call works on this kernel and the judge sees it."""
    from arena.players.transport import ProcessTransport

    out, bot = run_attack(start, tmp_path, "priority", level="none")
    for name in PRIORITY_CALLS:
        assert out[name] == "ok", (name, out[name])
    assert out["nice"] == out["thread_nice"] == 19 and out["policy"] == out["thread_policy"] == 5, out  # SCHED_IDLE
    assert ProcessTransport(bot).lowered()


def test_an_honest_seat_is_not_lowered(start, tmp_path, contained_level) -> None:
    from arena.players.transport import ProcessTransport

    _, bot = run_attack(start, tmp_path, "ids")
    assert not ProcessTransport(bot).lowered()


def test_locks_succeed_without_taking_effect(start, tmp_path) -> None:
    """flock and F_SETLK return 0 in the sandbox, and the host sees no lock: nothing to signal with."""
    import fcntl

    out, bot = run_attack(start, tmp_path, "syscalls")
    assert out["flock"]["ok"] and out["setlk"]["ok"], out
    # The bot still holds its "exclusive" flock (it waits on stdin with the file open).
    with open(tmp_path / "attack-syscalls" / "shared.txt", "rb+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)  # would raise BlockingIOError if it were real
        fcntl.lockf(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    assert bot.exit_status is None


def test_nothing_of_the_host_or_other_bots_is_visible(start, tmp_path, contained_level) -> None:
    other = attack_dir(tmp_path, "other-bot")
    (other / "secret.txt").write_text("other bot's secret")
    other_bot = start([sys.executable, str(other / "attack.py"), "ids"], other)
    other_bot.read_line(30)
    out, bot = run_attack(start, tmp_path, "look_around",
                          env={"HARNESS_PID": str(os.getpid()), "OTHER_BOT_FILE": str(other / "secret.txt")})
    assert not out["harness_visible"] and len(out["pids"]) <= 3
    if contained_level == "bwrap":  # at gvisor /sys is its own kernel's (gVisor makes one)
        assert out["sys"] is False and out["cgroup_fs"] is False
    assert out["other_bot"]["ok"] is False
    assert out["cpuinfo_twice"]
    if contained_level == "gvisor":  # /proc is its own kernel's: none of it is the host's
        for name, res in [*out["proc"].items(), *out["counters"].items()]:
            text = res if isinstance(res, str) else res["value"] if res["ok"] else ""
            assert not text.strip() or text != host_proc(name), name
    else:
        fakes = proc_fakes(SMALL.memory_bytes)
        for name, text in out["proc"].items():
            assert text.encode() == fakes[name][:4096], name
        for name, res in out["counters"].items():
            assert not res["ok"] or res["value"] == "", (name, res)
    assert out["write_bot_dir"]["ok"] is False and out["tty"]["ok"] is False
    if "setuid" in out:
        assert out["setuid"]["rc"] != 0 and not out["setuid"]["mounted"], out["setuid"]
    # kill(-1) reached nobody outside: the other bot and the harness live on.
    assert other_bot.exit_status is None and bot.exit_status is None


def host_proc(name: str) -> str:
    """The host's own /proc/NAME as the attack reads it (its first 4 KiB), or '' if unreadable."""
    try:
        with open(f"/proc/{name}", "rb") as fh:
            return fh.read(4096).decode("latin-1")
    except OSError:
        return ""


def test_proc_shows_nothing_host_wide(start, tmp_path, contained_level) -> None:
    """Host-wide /proc files read empty and host-wide folders are empty, at bwrap; at level none
    the same probe finds them full (the list is real). At gvisor /proc is the bot's own kernel's."""
    out, _ = run_attack(start, tmp_path, "proc_hostwide")
    if contained_level == "gvisor":
        for name, res in out["files"].items():
            text = res["value"] if res["ok"] else ""
            assert not text.strip() or text != host_proc(name), (name, text[:200])
        for name, res in out["dirs"].items():
            if res["ok"] and res["value"]:
                assert res["value"] != sorted(os.listdir(f"/proc/{name}")), name
        return
    assert out["files"] and out["dirs"]
    for name, res in out["files"].items():
        assert not res["ok"] or res["value"] == "", (name, res)
    for name, res in out["dirs"].items():
        assert not res["ok"] or res["value"] == [], (name, res)
    # Every top-level entry but the kept ones reads empty or not at all (allow-list, not a list of names).
    kept = {"self", "thread-self", "mounts", "net", "sys", *PROC_FAKE}
    leaks = {name: got for name, got in out["top"].items() if name not in kept and got not in (0, "link") and got not in REFUSED}
    assert leaks == {}, leaks
    empty, hidden = proc_masks()
    assert {"cgroups", "interrupts", "sys/kernel/pty/nr"} <= set(empty) and {"irq", "fs", "sys/fs"} <= set(hidden)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (tmp_path / "none").mkdir()
        host, _ = run_attack(start, tmp_path / "none", "proc_hostwide", level="none")
    full = [n for n, res in host["files"].items() if res["ok"] and res["value"]]
    assert {"cgroups", "interrupts", "sys/fs/aio-nr", "sys/fs/file-nr"} <= set(full), full
    assert any(res["ok"] and res["value"] for res in host["dirs"].values())


def test_scratch_is_capped_in_bytes_and_files_count_against_memory(start, tmp_path) -> None:
    limits = SMALL.model_copy(update={"scratch_bytes": 4 * 1024 * 1024, "file_size_bytes": 64 * 1024 * 1024,
                                      "memory_bytes": 48 * 1024 * 1024})
    bot_dir = attack_dir(tmp_path)
    bot = start([sys.executable, str(bot_dir / "attack.py"), "fill_disk"], bot_dir, limits=limits)
    try:
        out = json.loads(bot.read_line(60))
        assert out["bytes_error"] == "ENOSPC" and out["bytes"] <= limits.scratch_bytes
        assert out["files_error"] in ("ENOSPC", "ENOMEM") and out["files"] < 100_000, out
    except BotExited:  # or it was killed at its memory limit while making files
        assert bot.memory_limit_hit()
    bot.close()
    assert bot.trouble == []
    # nothing left on the host's disk: this bot's own scratch folder is gone (a glob over /tmp
    # would see other runs' bots, and matched no scratch folder's name anyway)
    assert bot.scratch_dir is None or not bot.scratch_dir.exists()


@pytest.mark.parametrize("level", ["bwrap", "rlimit"])
def test_socket_buffers_are_charged_to_the_memory_limit(start, tmp_path, level) -> None:
    """A bot at 64 MiB filling socket buffers it never reads (loopback TCP where AF_INET is allowed,
    unix pairs at bwrap) gets no more than its limit: it is stopped there, or its sends stall."""
    limits = SMALL.model_copy(update={"memory_bytes": 64 * 1024 * 1024})
    cap = 150 * 1024 * 1024  # per process: the attack never takes more of the host than this
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bot_dir = attack_dir(tmp_path)
        bot = start([sys.executable, str(bot_dir / "attack.py"), "socket_hoard"], bot_dir, level=level, limits=limits,
                    env={"PROCS": "2", "PAIRS": "32", "CAP": str(cap)})
    try:
        out = json.loads(bot.read_line(60))
    except BotExited:
        assert bot.memory_limit_hit(), bot.stderr_text()
        return
    assert out["family"] == ("unix" if level == "bwrap" else "inet")
    assert out["procs"] == 2 and 0 < out["queued"] <= limits.memory_bytes, out


@pytest.mark.parametrize("level", ["bwrap", "rlimit"])
def test_a_mess_left_in_scratch_is_cleaned_without_blame_on_the_harness(start, tmp_path, level) -> None:
    # Depth 1500 broke a recursive rmtree (RecursionError). The host scratch of
    # level rlimit goes on a tmpfs here only to keep the test fast.
    root = Path(tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out, bot = run_attack(start, tmp_path, "leave_mess", level=level, env={"DEPTH": "1500"},
                                  scratch_root=root)
        assert out["depth"] == 1500
        bot.close()  # never raises
        assert bot.trouble == []
        assert list(root.iterdir()) == []
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_manifest_env_never_reaches_host_side_helpers(start, tmp_path, contained_level) -> None:
    bot_dir = attack_dir(tmp_path)
    bot = start([sys.executable, str(bot_dir / "attack.py"), "ids"], bot_dir,
                env={"LD_PRELOAD": "/nonexistent/evil.so", "CINCH_MARK": "bot-only"})
    bot.read_line(30)
    # at bwrap the helpers before the bot; at gvisor every host process of the sandbox (the bot
    # itself runs inside its own kernel, its environment is not a host process's)
    helpers = [bot.pid] if contained_level == "bwrap" else sandbox_host_pids(bot)
    for pid in helpers:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            host_env = fh.read()
        assert b"LD_PRELOAD" not in host_env and b"CINCH_MARK" not in host_env, pid
    if contained_level == "bwrap":
        with open(f"/proc/{bot.sandbox_pid}/environ", "rb") as fh:  # the bot itself
            assert b"CINCH_MARK=bot-only" in fh.read()


def test_bot_folder_under_a_private_home_is_reachable(start, tmp_path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    bot_dir = attack_dir(home, "bot")
    private = attack_dir(home, "private-bot")
    private.chmod(0o700)
    (private / "attack.py").chmod(0o600)
    for d in (bot_dir, private):
        bot = start([sys.executable, str(d / "attack.py"), "ids"], d)
        assert json.loads(bot.read_line(30))["uid"] == 65534, bot.stderr_text()


def test_absolute_command_outside_the_bot_folder_binds_nothing(start, tmp_path) -> None:
    """A command naming a host path outside the bot's view runs nothing of it, and the verdict
    is the same whether the path exists or not: the host is never asked (issue 31, item 7)."""
    private = tmp_path / "private"
    secret_dir = private / "runs" / "bin"
    secret_dir.mkdir(parents=True)
    (private / "runs" / "keys.json").write_text("block keys")
    private.chmod(0o700)
    tool = secret_dir / "tool"
    tool.write_text("#!/bin/sh\ncat ../keys.json\n")
    tool.chmod(0o755)
    bot_dir = attack_dir(tmp_path)
    messages = []
    for path in (tool, secret_dir / "no-such-tool"):
        with pytest.raises(CommandNotFound) as info:
            start([str(path)], bot_dir)
        messages.append(str(info.value).replace(str(path), "PATH"))
    assert messages[0] == messages[1], messages


def test_untrusted_bot_without_limits_is_refused_unless_allowed(tmp_path, scratch_root) -> None:
    from arena.sandbox import SandboxUnavailable

    bot_dir = attack_dir(tmp_path)
    argv = [sys.executable, str(bot_dir / "attack.py"), "ids"]
    for missing in ({"memory_bytes": None}, {"max_processes": None}):
        with pytest.raises(SandboxUnavailable, match="allow_unlimited"):
            launch(argv, bot_dir=bot_dir, limits=Limits(**missing), scratch_root=scratch_root)
    with launch(argv, bot_dir=bot_dir, limits=Limits(memory_bytes=None), scratch_root=scratch_root,
                allow_unlimited=True) as bot:
        assert json.loads(bot.read_line(30))["uid"] == 65534


@pytest.mark.parametrize("level", ["rlimit", "none"])
def test_trusted_levels_warn(tmp_path, scratch_root, level) -> None:
    from arena.sandbox import UncontainedWarning

    bot_dir = attack_dir(tmp_path)
    with pytest.warns(UncontainedWarning, match="trusted"):
        bot = launch([sys.executable, str(bot_dir / "attack.py"), "ids"], bot_dir=bot_dir, level=level,
                     limits=SMALL, scratch_root=scratch_root)
    with bot:
        bot.read_line(30)


# ------------------------------------------------------------------ partners
CHANNELS = ["keyring", "lock", "inotify", "abstract", "shm", "sysv", "flock", "aio", "aio_nr", "sockstat"]
#: Channels whose control at level none reads a counter the whole host moves ("TCP: alloc" of
#: /proc/net/sockstat: every TCP socket of every process): no control there, it would be flaky.
#: At bwrap both halves are refused (no AF_INET socket; the counter moves by none of the bot's calls).
HOST_NOISY = {"sockstat"}


COLD_FILES = range(1, 31)


def cold_files(bot_dir: Path) -> None:
    """Thirty files of the bot folder, evicted from the page cache (for the page-cache channel)."""
    cold = bot_dir / "cold"
    cold.mkdir()
    for i in COLD_FILES:
        path = cold / f"{i:02d}"
        path.write_bytes(bytes([i]) * 8192)
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


class FirstLegal:
    """An in-process opponent: the first legal option, always."""

    name = "first-legal"

    def decide(self, kind: str, view: dict, legal: dict) -> dict:
        sys.path.insert(0, str(HOSTILE))
        from attack import first  # type: ignore[import-not-found]

        return first(kind, legal)


def partner_game(tmp_path: Path, channel: str, level: str) -> tuple[str, str]:
    """Seats 0 and 2 are attacking partners; returns (sender's and receiver's stderr)."""
    bot_dir = attack_dir(tmp_path, f"partners-{channel}-{level}")
    cold_files(bot_dir)
    settings = MatchSettings.model_validate({
        "sandbox": level, "format": "deals", "deals": 1, "limits": SMALL.model_dump(),
        "time": {"decision_ms": 2000, "startup_ms": 20000}})
    # The inotify and lock channels use one file: a host file (/etc/passwd) is opened by every
    # process on the machine that looks up a user, and those opens garbled the count (learned 18
    # of 30). This game's own file, world-reachable so each sandbox binds the same inode, is
    # opened by these two bots alone.
    watched_dir = Path(tempfile.mkdtemp(prefix="cinch-watched-"))
    watched_dir.chmod(0o755)
    watched = watched_dir / "watched"
    watched.write_text("x")
    watched.chmod(0o644)
    players: list[Any] = []
    for seat in range(4):
        if seat % 2 == 0:
            role = "send" if seat == 0 else "recv"
            entry = BotEntry(manifest=Manifest(name=f"attack-{role}", command=["{python}", "attack.py", "partner", channel, role],
                                               env={"WATCHED": str(watched)}),
                             dir=str(bot_dir), digest="test")
            spec = settings.sandbox_spec(entry)
            spec = spec.model_copy(update={"extra_ro_paths": (*spec.extra_ro_paths, str(watched_dir))})
            players.append(ProcessPlayer(entry, seat, settings.time, spec, profile=settings.profile))
        else:
            players.append(PolicyPlayer(FirstLegal(), seat))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = play_game(players, settings, f"partners-{channel}")
        finally:
            reports = [p.close() for p in players]
            shutil.rmtree(watched_dir, ignore_errors=True)
    assert not result.faults, result.faults
    return reports[0].stderr, reports[2].stderr


def _learned(stderr: str) -> str:
    return next(line.split()[1] for line in stderr.splitlines() if line.startswith("LEARNED"))


def _sent(stderr: str) -> str:
    return next(line.split()[1] for line in stderr.splitlines() if line.startswith("SENT"))


@pytest.mark.parametrize("channel", CHANNELS)
def test_partners_learn_nothing_at_bwrap(tmp_path, channel) -> None:
    sent, received = partner_game(tmp_path, channel, "bwrap")
    assert "SENT" in sent, sent
    if channel in HOST_NOISY:
        # the receiver reads a counter every process on the host moves, so on a busy machine it reads
        # something whatever the sender does: the channel is closed when the sender cannot move it at all
        assert " failed " in sent, (channel, sent, received)
        return
    assert _learned(received) == "none", (channel, sent, received)


@pytest.mark.parametrize("channel", [c for c in CHANNELS if c not in HOST_NOISY])
def test_partner_channels_work_without_a_sandbox(tmp_path, channel) -> None:
    """Control: at level none the very same bots do pass the token (the attack is real)."""
    if channel == "keyring" and os.geteuid() != 0:
        pytest.skip("session keyring sharing checked as root")
    sent, received = partner_game(tmp_path, channel, "none")
    if channel == "aio" and _learned(received) == "none":
        # The page-cache probe is noisy under load (a probe that misses may still read as a hit,
        # attack.py ch_aio_recv): the channel is shown real when the sent file is among the hot
        # ones and not every file is.
        hot = next(line.split()[1:] for line in received.splitlines() if line.startswith("HOT"))
        assert _sent(sent) in hot and len(hot) < len(COLD_FILES), (channel, sent, received)
        return
    assert _learned(received) == _sent(sent), (channel, sent, received)


def test_check_bot_command_sees_only_its_own_file(start, tmp_path) -> None:
    from arena.players.manifest import command_entry

    work = tmp_path / "checkout"
    (work / "runs").mkdir(parents=True)
    (work / "runs" / "keys.json").write_text("block keys")
    (work / "bot.py").write_text(
        "import json, os, sys\n"
        "secret = sys.argv[1]\n"
        "print(json.dumps({'here': sorted(os.listdir(os.path.dirname(os.path.abspath(__file__)))),\n"
        "                  'cwd': sorted(os.listdir('.')), 'secret': os.path.exists(secret)}), flush=True)\n")
    entry = command_entry([sys.executable, "bot.py", str(work / "runs" / "keys.json")], cwd=str(work))
    assert not Path(entry.dir).is_relative_to(work)
    bot = start(entry.manifest.command, Path(entry.dir))
    out = json.loads(bot.read_line(30))
    assert out == {"here": ["bot.py"], "cwd": ["1"], "secret": False}, out


@pytest.mark.parametrize("level", ["bwrap", pytest.param("gvisor", marks=pytest.mark.slow)])
def test_bot_dies_with_its_harness(tmp_path, level) -> None:
    """A harness that dies (crash, kill -9) takes its bots with it: no process outlives its uid lease."""
    import subprocess

    if level == "gvisor":
        from .conftest import need_gvisor

        need_gvisor()
    bot_dir = attack_dir(tmp_path)
    code = ("import sys, os, warnings\n"
            "from arena.sandbox import launch, proctree\n"
            f"b = launch([sys.executable, {str(bot_dir / 'attack.py')!r}, 'linger'], bot_dir={str(bot_dir)!r}, level={level!r})\n"
            "b.read_line(30)\n"
            "print(*proctree.descendants(b.pid), flush=True)\n"
            "os._exit(0)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=str(Path(__file__).resolve().parents[2]))
    pids = [int(x) for x in out.stdout.split()]
    assert len(pids) >= 2, out.stderr
    def running(pid: int) -> bool:  # a zombie left to a host init that does not reap is not running
        try:
            with open(f"/proc/{pid}/stat") as fh:
                return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
        except FileNotFoundError:
            return False

    deadline = time.monotonic() + 10
    while any(running(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not any(running(p) for p in pids)


# ------------------------------------------------------------------ pause_idle
class _Windows:
    """A transport that notes, on the host's monotonic clock, when its bot may run: from the write
    of each request to the read of its reply; and when bye was sent."""

    def __init__(self, inner: Any, clock: Any = time.monotonic_ns) -> None:
        self.inner, self.windows, self.bye_ns, self.clock = inner, [], None, clock
        self._open: int | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def write_line(self, data: bytes, timeout: float = 5.0) -> None:
        if b'"type":"bye"' in data.replace(b" ", b""):
            self.bye_ns = self.bye_ns or self.clock()
        elif b'"type":"decide"' in data.replace(b" ", b""):
            self._open = self.clock()
        self.inner.write_line(data, timeout)

    def read_line(self, timeout: float) -> bytes:
        line = self.inner.read_line(timeout)
        if self._open is not None:
            self.windows.append((self._open, self.clock()))
            self._open = None
        return line


@pytest.mark.parametrize("level", ["bwrap", "rlimit", pytest.param("gvisor", marks=pytest.mark.slow)])
def test_pause_idle_lets_only_the_seat_on_move_run(tmp_path, level) -> None:
    """With pause_idle every notice a bot reads, it reads while on move (between a request and
    its reply): a frozen seat never runs, so it cannot race its partner for the CPU."""
    from arena.players.process import ProcessPlayer, sandbox_launcher

    bot_dir = attack_dir(tmp_path)
    settings = MatchSettings.model_validate({
        "sandbox": level, "format": "deals", "deals": 2, "limits": SMALL.model_dump(),
        "time": {"decision_ms": 2000, "startup_ms": 20000, "pause_idle": True}})
    # gVisor keeps a monotonic clock of its own: there both sides read the wall clock
    realtime = level == "gvisor"
    entry = BotEntry(manifest=Manifest(name="timestamps", command=["{python}", "attack.py", "timestamps"],
                                       env={"TS_CLOCK": "realtime"} if realtime else {}),
                     dir=str(bot_dir), digest="test")
    transports: list[_Windows] = []

    def launcher(*args: Any) -> Any:
        transports.append(_Windows(sandbox_launcher(settings.sandbox_spec(entry))(*args),
                                   time.time_ns if realtime else time.monotonic_ns))
        return transports[-1]

    players = [ProcessPlayer(entry, seat, settings.time, settings.sandbox_spec(entry), launcher=launcher,
                             profile=settings.profile) for seat in range(4)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = play_game(players, settings, "pause-idle")
        finally:
            reports = [p.close() for p in players]
    assert not result.faults, result.faults
    notices = 0
    for transport, report in zip(transports, reports):
        for line in report.stderr.splitlines():
            kind, ns = line.split()
            if kind in ("hello", "decide", "bye") or int(ns) >= transport.bye_ns:
                continue
            notices += 1
            assert any(a <= int(ns) <= b for a, b in transport.windows), (kind, ns, transport.windows)
    assert notices >= 16, reports[0].stderr  # each seat's game, deal, deal_end and second deal were checked
