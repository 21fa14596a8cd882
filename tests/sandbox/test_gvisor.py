"""Level gvisor: a kernel of its own per seat, a view of resident images and private copies.

The hostile-bot suites (test_attacks, test_hostile, test_containment) run at gvisor too, with
the slow checks; these are the level's own properties, quick enough for the default suite.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import pytest

from arena.match.game import play_game
from arena.match.settings import MatchSettings
from arena.players import load_entry
from arena.sandbox import CommandNotFound, Level, Limits, SandboxUnavailable, launch, proctree
from arena.sandbox.gvisor import RUNSC_ENV, find_runsc
from arena.sandbox.image import home_root

from .conftest import SMALL, need_gvisor, pid_alive

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.bwrap

LOOK = r"""
import json, os, sys
out = {"usr_bin": sorted(os.listdir("/usr/bin")), "etc": sorted(os.listdir("/etc")),
       "root": sorted(os.listdir("/")), "cwd": os.getcwd(), "uid": os.getuid(),
       "statfs": list(os.statvfs("/usr")[:6]), "pids": sorted(p for p in os.listdir("/proc") if p.isdigit())}
print(json.dumps(out), flush=True)
sys.stdin.readline()
st = os.statvfs("/usr")
print(json.dumps(list(st[:6])), flush=True)
sys.stdin.readline()
"""


def bot(tmp_path: Path, source: str, name: str = "bot") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "bot.py").write_text(source)
    return folder


@pytest.fixture(autouse=True)
def _gvisor() -> None:
    need_gvisor()


def test_the_view_holds_only_the_runtime_and_statfs_never_moves(tmp_path, start) -> None:
    folder = bot(tmp_path, LOOK)
    b = start([sys.executable, "bot.py"], folder, level="gvisor")
    seen = json.loads(b.read_line(30))
    assert seen["uid"] == 65534 and seen["cwd"] == str(folder) and seen["pids"] == ["1"]
    assert "python3" in seen["usr_bin"] and "sh" in seen["usr_bin"]
    # the image is Python's runtime, not the host's /usr: no compiler, no other interpreter
    assert not {"gcc", "cc", "node", "java", "runsc", "bwrap", "sudo", "apt-get"} & set(seen["usr_bin"]), seen["usr_bin"]
    assert "shadow" not in seen["etc"] and "hostname" not in seen["etc"]
    # the host writes: a statfs of the view does not move (its images are tmpfs of their own)
    with open(tmp_path / "host-write", "wb") as fh:
        fh.write(os.urandom(8 << 20))
        fh.flush()
        os.fsync(fh.fileno())
    b.write_line("again")
    assert json.loads(b.read_line(30)) == seen["statfs"]


def test_the_runtime_image_is_one_resident_tmpfs_shared_by_every_seat(tmp_path, start) -> None:
    folder = bot(tmp_path, "import sys\nprint('up', flush=True)\nsys.stdin.readline()\n")
    a = start([sys.executable, "bot.py"], folder, level="gvisor")
    c = start([sys.executable, "bot.py"], folder, level="gvisor")
    assert a.read_line(30) == b"up" and c.read_line(30) == b"up"
    images = home_root() / "images"
    with open("/proc/self/mountinfo") as fh:
        mounts = [line.split() for line in fh]
    if os.geteuid() == 0:  # each image is a read-only tmpfs of its own
        ours = [m for m in mounts if m[4].startswith(str(images) + "/")]
        assert ours and all(m[m.index("-") + 1] == "tmpfs" and "ro" in m[5].split(",") for m in ours), ours
    # both seats' bundles bind the same image, and each its own copy of the bot folder
    configs = [json.loads((proc.area.path / "config.json").read_text()) for proc in (a, c)]  # type: ignore[union-attr]
    sources = [{m["destination"]: m["source"] for m in cfg["mounts"] if m["type"] == "bind"} for cfg in configs]
    assert sources[0]["/usr"] == sources[1]["/usr"]
    assert sources[0][str(folder)] != sources[1][str(folder)]


MOUNTS = r"""
import json, os, sys
mounts = sorted(line.split()[1] for line in open("/proc/self/mounts"))
here = os.getcwd()
try:
    open(os.path.join(here, "new"), "w").close()
    wrote = True
except OSError:
    wrote = False
lib = sys.argv[1]
print(json.dumps({"mounts": mounts, "cwd": here, "wrote": wrote, "lib": open(os.path.join(lib, "lib.py")).read(),
                  "etc": os.path.exists("/etc/passwd")}), flush=True)
sys.stdin.readline()
"""


def test_private_copies_and_etc_lie_in_the_launch_s_own_root_not_in_mounts_of_their_own(start) -> None:
    """Each bind is a connection to runsc's file server with a Sentry thread waiting on it, which
    every freeze and thaw of the seat wakes: the bot folder, its libraries and the image's /etc
    are copies in the launch's own read-only root (a folder under /tmp is still bound, the kernel's
    /tmp would hide it there). Private, read-only and whole all the same."""
    if not os.path.isdir("/var/tmp"):
        pytest.skip("no /var/tmp here to hold a bot folder outside /tmp")
    with tempfile.TemporaryDirectory(dir="/var/tmp") as top:
        folder, lib = Path(top) / "bot", Path(top) / "lib"
        folder.mkdir()
        lib.mkdir()
        (folder / "bot.py").write_text(MOUNTS)
        (lib / "lib.py").write_text("VALUE = 7\n")
        a = start([sys.executable, "bot.py", str(lib)], folder, level="gvisor", extra_ro_paths=[str(lib)])
        seen = json.loads(a.read_line(30))
        assert seen["cwd"] == str(folder) and seen["lib"] == "VALUE = 7\n" and seen["etc"]
        assert not seen["wrote"] and not (folder / "new").exists()
        assert str(folder) not in seen["mounts"] and str(lib) not in seen["mounts"], seen["mounts"]
        assert "/etc" not in seen["mounts"] and "/usr" in seen["mounts"], seen["mounts"]
        config = json.loads((a.area.path / "config.json").read_text())  # type: ignore[union-attr]
        binds = {m["destination"] for m in config["mounts"] if m["type"] == "bind"}
        assert binds == {"/usr"}, binds
        # the copy is the launch's own, in its area; the host's folder is untouched
        assert (a.area.path / "rootfs" / str(folder).lstrip("/") / "bot.py").read_text() == MOUNTS  # type: ignore[union-attr]


def test_a_game_at_gvisor_is_the_game_at_bwrap(tmp_path) -> None:
    """Same seeds, same decisions, same record: the level changes nothing a result carries."""
    entry = load_entry(ROOT / "bots" / "heuristic")  # the SDK as a library: a private copy at gvisor
    records = {}
    for level in ("bwrap", "gvisor"):
        settings = MatchSettings.model_validate({"sandbox": level, "format": "deals", "deals": 2})
        players = [settings.player(entry, 7 + seat) for seat in range(4)]
        try:
            result = play_game(players, settings, "levels-agree")
        finally:
            for p in players:
                p.close()
        assert not result.faults, result.faults
        records[level] = result.record
    assert records["gvisor"] == records["bwrap"]


def test_a_missing_program_is_one_message_whether_or_not_the_host_has_it(tmp_path) -> None:
    private = tmp_path / "private"
    (private / "bin").mkdir(parents=True)
    tool = private / "bin" / "tool"
    tool.write_text("#!/bin/sh\necho leaked\n")
    tool.chmod(0o755)
    private.chmod(0o700)
    folder = bot(tmp_path, "")
    messages = []
    for argv in ([str(tool)], [str(private / "bin" / "nothing")], ["pyhton3", "bot.py"], ["./missing"]):
        with pytest.raises(CommandNotFound) as info:
            launch(argv, bot_dir=folder, level="gvisor", limits=SMALL)
        messages.append(str(info.value))
    assert messages[0].replace(str(tool), "X") == messages[1].replace(str(private / "bin" / "nothing"), "X")
    assert "names no program" in messages[2] and "PATH" in messages[2]
    assert "its bot folder" in messages[3]


def test_closing_leaves_no_process_no_copy_and_no_mount(tmp_path) -> None:
    folder = bot(tmp_path, "import os, sys\nos.fork() or os.fork()\nprint('up', flush=True)\nsys.stdin.read()\n")
    b = launch([sys.executable, "bot.py"], bot_dir=folder, level="gvisor", limits=SMALL)
    assert b.read_line(30) == b"up"
    pids = proctree.descendants(b.pid)
    area = b.area.path  # type: ignore[union-attr]
    assert len(pids) >= 4 and area.is_dir()
    b.close()
    left = [p for p in pids if pid_alive(p)]
    assert left == [], left  # zombies count: runsc reaps its kernel, our unshare reaps runsc
    assert not area.exists()
    with open("/proc/self/mountinfo") as fh:
        assert str(area) not in fh.read()
    assert b.trouble == []


#: What the kernel may charge a dying task past the limit (16 pages), far under one 8 MiB allocation.
FORCED_CHARGE = 16 * 4096


def test_memory_is_capped_with_the_kernel_and_judged_the_bot_s(tmp_path) -> None:
    folder = bot(tmp_path, "import sys\nprint('up', flush=True)\nb = []\n"
                           "while True:\n    b.append(bytearray(8 << 20))\n")
    b = launch([sys.executable, "bot.py"], bot_dir=folder, level="gvisor", limits=SMALL)
    try:
        assert b.read_line(30) == b"up"
        status = b.wait(60)
        assert status != 0 and b.memory_limit_hit()
        # A task the cgroup is killing is charged past the limit so it can exit (the kernel's forced
        # charge for dying tasks): measured one page over under load, so a few pages, not a megabyte.
        assert (b.cgroup.memory_peak() or 0) <= SMALL.memory_bytes + FORCED_CHARGE  # type: ignore[union-attr,operator]
    finally:
        b.close()


def test_a_seat_is_frozen_off_move_even_without_pause_idle(tmp_path) -> None:
    entry = load_entry(ROOT / "bots" / "minimal")
    settings = MatchSettings.model_validate({"sandbox": "gvisor", "time": {"pause_idle": False}})
    player = settings.player(entry, 1)
    try:
        assert player.start() is None
        proc = player.proc.proc  # type: ignore[union-attr]
        assert proc.paused and proc.cgroup.has("freeze")
        with open(proc.cgroup.paths["freezer"] / "freezer.state") as fh:
            assert fh.read().strip() in ("FROZEN", "FREEZING")
    finally:
        player.close()


SPIN = """
import os, sys, time
if os.fork() == 0:
    while True: pass
print("spinning", flush=True)
time.sleep(3600)
"""


def test_the_freezer_holds_the_sentry_and_its_stubs_and_a_frozen_spinner_gets_no_cpu(tmp_path) -> None:
    """Only the Sentry's tree is in the freezer group (runsc and its file server never run the bot's
    code, and leaving them out halves a freeze's cost), yet every process stays capped, metered and
    killed with the seat, and a bot spinning in a child it forked gets no CPU while frozen."""
    folder = bot(tmp_path, SPIN)
    b = launch([sys.executable, "bot.py"], bot_dir=folder, level="gvisor", limits=SMALL)
    try:
        assert b.read_line(30) == b"spinning"
        cg = b.cgroup
        assert cg is not None and b.sandbox_pid is not None
        everyone = set(cg.pids())
        frozen = {int(x) for x in (cg.paths["freezer"] / "cgroup.procs").read_text().split()}
        sentry = [p for p in frozen if open(f"/proc/{p}/cmdline", "rb").read().startswith(b"runsc-sandbox")]
        assert len(sentry) == 1
        assert frozen == set(proctree.descendants(sentry[0])) & everyone  # the Sentry and its stubs
        assert b.sandbox_pid in everyone - frozen  # runsc itself: capped and metered, not frozen
        assert any(open(f"/proc/{p}/cmdline", "rb").read().startswith(b"runsc-gofer") for p in everyone - frozen)
        for _ in range(3):
            b.pause(wait=True)
            before = b.cpu_time()
            time.sleep(0.3)  # a frozen Sentry runs nothing of the bot however long this takes
            assert b.cpu_time() - before < 0.05
            b.resume()
            deadline = time.monotonic() + 30
            while b.cpu_time() - before < 0.05 and time.monotonic() < deadline:
                time.sleep(0.01)
            assert b.cpu_time() - before >= 0.05  # thawed, the child spins again
        kept = set(cg.pids())
    finally:
        b.close()
    assert not any(pid_alive(p) for p in kept)


def test_where_runsc_is_missing_the_refusal_is_one_sentence_naming_the_fallback(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(RUNSC_ENV, str(tmp_path / "no-runsc"))
    with pytest.raises(SandboxUnavailable) as info:
        launch(["/bin/true"], bot_dir=tmp_path, level="gvisor")
    text = str(info.value)
    assert "gvisor" in text and "runsc" in text and "--sandbox bwrap" in text and "apt-get install runsc" in text
    assert text.count(". ") == 0  # one sentence
    monkeypatch.delenv(RUNSC_ENV)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SandboxUnavailable, match="not installed here"):
        find_runsc()


@pytest.mark.slow
def test_an_unprivileged_harness_runs_gvisor_too(tmp_path) -> None:
    """As a plain user (no mounts, no uid leases): images and launch areas in /dev/shm, runsc rootless."""
    if os.geteuid() != 0:
        pytest.skip("this test drops from root to a plain uid; run as a plain user, every gvisor test is this case")
    from arena.sandbox.files import world_reachable

    import pydantic

    if not all(world_reachable(str(p)) for p in (ROOT / "arena", Path(pydantic.__file__).parent, sys.executable)):
        pytest.skip("this checkout (or its venv) is in a folder a plain uid cannot reach (a 0700 home): "
                    "a plain user runs the harness from a checkout of their own")
    home = Path(tempfile.mkdtemp(prefix="cinch-unpriv-"))
    home.chmod(0o755)
    folder = home / "bot"
    folder.mkdir()
    (folder / "bot.py").write_text("import os\nprint('uid', os.getuid(), flush=True)\n")
    script = home / "run.py"
    script.write_text(
        "import warnings, sys\nfrom arena.sandbox import launch\n"
        f"b = launch([sys.executable, 'bot.py'], bot_dir={str(folder)!r}, level='gvisor', allow_unlimited=True)\n"
        "print(b.read_line(60).decode(), flush=True)\nb.close()\nprint('closed', b.trouble)\n")
    for p in (home, folder, folder / "bot.py", script):
        os.chown(p, 65534, 65534)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "PYTHONPATH": str(ROOT)}
    try:
        proc = subprocess.run(["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups",
                               sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=env)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.splitlines() == ["uid 65534", "closed []"], proc.stdout
    finally:
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree("/dev/shm/cinch-arena-65534", ignore_errors=True)


PYC = r"""
import importlib.util, json, os, sys
sys.path.insert(0, sys.argv[1])
import lib
cached = lib.__spec__.cached
head = open(cached, "rb").read(16) if os.path.exists(cached) else b""
print(json.dumps({"word": lib.WORD, "cached": cached, "flags": int.from_bytes(head[4:8], "little"),
                  "hash_ok": head[8:16] == importlib.util.source_hash(open(lib.__file__, "rb").read())}), flush=True)
sys.stdin.readline()
"""


def test_copied_modules_come_compiled_and_a_pyc_runs_only_beside_its_own_source(tmp_path, start) -> None:
    """The harness compiles a copy's modules (the seat no longer compiles them inside gVisor at
    every start) as checked-hash pycs: one of other code in the host folder is never copied, and
    a source changed on the host under the same size, time and inode (the harness's compiled
    cache then still holds the old code) runs as it now reads, not as it was compiled."""
    folder, lib = bot(tmp_path, PYC), tmp_path / "lib"
    lib.mkdir()
    (lib / "lib.py").write_text("WORD = 'one'\n")
    (lib / "__pycache__").mkdir()
    evil = tmp_path / "evil.py"
    evil.write_text("WORD = 'bad'\n")
    import py_compile
    py_compile.compile(str(evil), cfile=str(lib / "__pycache__" / f"lib.{sys.implementation.cache_tag}.pyc"),
                       invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH, doraise=True)
    a = start([sys.executable, "bot.py", str(lib)], folder, level="gvisor", extra_ro_paths=[str(lib)])
    seen = json.loads(a.read_line(30))
    assert seen["word"] == "one" and seen["flags"] == 0b11 and seen["hash_ok"], seen
    assert seen["cached"].startswith(str(lib) + "/__pycache__/"), seen
    a.close()
    st = os.stat(lib / "lib.py")
    (lib / "lib.py").write_text("WORD = 'two'\n")  # same size, same inode, the time put back
    os.utime(lib / "lib.py", ns=(st.st_atime_ns, st.st_mtime_ns))
    b = start([sys.executable, "bot.py", str(lib)], folder, level="gvisor", extra_ro_paths=[str(lib)])
    assert json.loads(b.read_line(30))["word"] == "two"


def test_compiled_modules_are_never_written_through_a_link_of_the_bot_s_folder(tmp_path) -> None:
    from arena.sandbox.bytecode import folder_pycs, write_pycs
    from arena.sandbox.files import walk_folder

    src = tmp_path / "src"
    src.mkdir()
    (src / "mod.py").write_text("X = 1\n")
    (src / "pkg").mkdir()
    (src / "pkg" / "sub.py").write_text("Y = (\n")  # not Python: no pyc, no error
    pycs = folder_pycs(walk_folder(src), "/view/src")
    assert list(pycs) == [f"__pycache__/mod.{sys.implementation.cache_tag}.pyc"]
    outside = tmp_path / "outside"
    outside.mkdir()
    copy = tmp_path / "copy"
    copy.mkdir()
    os.symlink(outside, copy / "__pycache__")  # as a copied link of the bot's folder would be
    write_pycs(copy, pycs)
    assert list(outside.iterdir()) == []
    clean = tmp_path / "clean"
    clean.mkdir()
    write_pycs(clean, pycs)
    assert oct((clean / "__pycache__").stat().st_mode & 0o777) == "0o755"
    assert (clean / next(iter(pycs))).stat().st_mode & 0o777 == 0o644
