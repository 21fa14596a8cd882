"""The launch plan: which layers, in which order, with which argv, for every level,
root or not, staged or not (golden: written out in full, not computed)."""

from __future__ import annotations

import pytest

from arena.sandbox import Level, Limits
from arena.sandbox.plan import LAYERS, PlanInputs, ScratchMount, StageBind, plan_launch

BWRAP = ("/b/bwrap", "--unshare-user", "--", )
RUNSC = ("/usr/bin/runsc", "--rootless", "run", "--bundle", "/run/cinch-arena/gvisor/x", "cinch-x")
CMD = ("/usr/bin/python3", "bot.py")
READY = ["/bin/sh", "-c", "command -v \"$1\" >/dev/null 2>&1 || { printf '\\025'; exit 127; }; "
         "printf '\\006' && exec \"$@\"", "sh"]
JOIN = "echo 0 > /sys/fs/cgroup/x/cgroup.procs"
STAGE = (StageBind("/root/c/bots/minimal", "/run/cinch-arena/stage/0", True),
         StageBind("/root/c/.venv/lib/python3.11/site-packages", "/run/cinch-arena/stage/1", True))
LIMITS = Limits(max_processes=8, open_files=32, file_size_bytes=1000, memory_bytes=1 << 20)
SCRATCH = ScratchMount(4096, 100, 2000000007)
SCRATCH_DIRS = (" && mkdir -m 1777 /run/cinch-arena/stage/tmp /run/cinch-arena/stage/shm"
                " && install -d -o 2000000007 -g 2000000007 -m 0700 /run/cinch-arena/stage/home")
SETPRIV = ["setpriv", "--reuid", "2000000007", "--regid", "2000000007", "--clear-groups", "--bounding-set=-all",
           "--inh-caps=-all", "--no-new-privs", "--pdeathsig", "KILL", "--"]


def inputs(level: Level, *, root: bool, staged: bool, cgroup: bool = True) -> PlanInputs:
    return PlanInputs(level=level, cmd=CMD, bot_dir="/root/c/bots/minimal", limits=LIMITS, prlimit="/usr/bin/prlimit",
                      memory_cgroup=cgroup, pids_cgroup=cgroup, cgroup_join=JOIN if cgroup else "", root=root,
                      uid=2000000007 if root and level in (Level.BWRAP, Level.GVISOR) else None,
                      stage=STAGE if staged else (),
                      scratch=SCRATCH if root and level is Level.BWRAP else None, bwrap=BWRAP if level is Level.BWRAP else (),
                      runsc=RUNSC if level is Level.GVISOR else (),
                      env=(("LANG", "C.UTF-8"), ("PATH", "/usr/bin")), pass_fds=(5, 6))


GOLDEN = {
    (Level.NONE, False, False): ["/usr/bin/python3", "bot.py"],
    (Level.NONE, True, False): ["/usr/bin/python3", "bot.py"],
    (Level.RLIMIT, False, False): [
        "/usr/bin/prlimit", "--core=0", "--fsize=1000", "--nofile=32", "--",
        "/bin/sh", "-c", JOIN + ' && exec "$@"', "sh", *READY, *CMD],
    (Level.RLIMIT, True, False): [
        "/usr/bin/prlimit", "--core=0", "--fsize=1000", "--nofile=32", "--",
        "/bin/sh", "-c", JOIN + ' && exec "$@"', "sh", *READY, *CMD],
    (Level.BWRAP, False, False): [
        "/usr/bin/prlimit", "--core=0", "--fsize=1000", "--nofile=32", "--",
        "/bin/sh", "-c", JOIN + ' && exec "$@"', "sh", *BWRAP, *READY, *CMD],
    (Level.BWRAP, True, False): [
        "unshare", "--mount", "--propagation", "private", "--",
        "/usr/bin/prlimit", "--core=0", "--fsize=1000", "--nofile=32", "--nproc=8", "--",
        "/bin/sh", "-c", JOIN + " && mount -t tmpfs -o mode=0755,size=4096,nr_inodes=104 cinch-stage"
        " /run/cinch-arena/stage" + SCRATCH_DIRS + ' && exec "$@"', "sh", *SETPRIV, *BWRAP, *READY, *CMD],
    (Level.BWRAP, True, True): [
        "unshare", "--mount", "--propagation", "private", "--",
        "/usr/bin/prlimit", "--core=0", "--fsize=1000", "--nofile=32", "--nproc=8", "--",
        "/bin/sh", "-c", JOIN + " && mount -t tmpfs -o mode=0755,size=4096,nr_inodes=106 cinch-stage"
        " /run/cinch-arena/stage" + SCRATCH_DIRS
        + " && mkdir /run/cinch-arena/stage/0 /run/cinch-arena/stage/1"
        " && mount --bind -o ro /root/c/bots/minimal /run/cinch-arena/stage/0"
        " && mount --bind -o ro /root/c/.venv/lib/python3.11/site-packages /run/cinch-arena/stage/1"
        ' && exec "$@"', "sh", *SETPRIV, *BWRAP, *READY, *CMD],
    # gvisor: runsc as a pid namespace's init (it reaps what it leaves); its limits hold inside, on
    # the host only no core dumps; the ready step and the bot are the bundle's, not the host's argv
    (Level.GVISOR, True, False): [
        "setpriv", "--pdeathsig", "KILL", "--", "unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "--",
        "/usr/bin/prlimit", "--core=0", "--",
        "/bin/sh", "-c", JOIN + ' && exec "$@"', "sh", *SETPRIV, *RUNSC],
    (Level.GVISOR, False, False): [
        "setpriv", "--pdeathsig", "KILL", "--", "unshare", "--user", "--map-current-user", "--pid", "--fork",
        "--kill-child", "--mount-proc", "--",
        "/usr/bin/prlimit", "--core=0", "--",
        "/bin/sh", "-c", JOIN + ' && exec "$@"', "sh", *RUNSC],
}
NAMES = {
    (Level.NONE, False, False): ["bot"],
    (Level.NONE, True, False): ["bot"],
    (Level.RLIMIT, False, False): ["prlimit", "host-sh", "ready", "bot"],
    (Level.RLIMIT, True, False): ["prlimit", "host-sh", "ready", "bot"],
    (Level.BWRAP, False, False): ["prlimit", "host-sh", "bwrap", "ready", "bot"],
    (Level.BWRAP, True, False): ["unshare", "prlimit", "host-sh", "setpriv", "bwrap", "ready", "bot"],
    (Level.BWRAP, True, True): ["unshare", "prlimit", "host-sh", "setpriv", "bwrap", "ready", "bot"],
    (Level.GVISOR, True, False): ["unshare", "prlimit", "host-sh", "setpriv", "runsc", "ready", "bot"],
    (Level.GVISOR, False, False): ["unshare", "prlimit", "host-sh", "runsc", "ready", "bot"],
}


@pytest.mark.parametrize("key", list(GOLDEN), ids=lambda k: f"{k[0].value}-{'root' if k[1] else 'user'}-"
                         f"{'staged' if k[2] else 'plain'}")
def test_each_combination_has_its_golden_layers(key):
    level, root, staged = key
    plan = plan_launch(inputs(level, root=root, staged=staged))
    assert plan.names == NAMES[key]
    assert plan.argv == GOLDEN[key]
    assert plan.cwd == ("/" if level in (Level.BWRAP, Level.GVISOR) else "/root/c/bots/minimal")
    if level is Level.GVISOR:  # what runs inside the bot's own kernel, from the bundle
        assert [a for layer in plan.inside for a in layer.argv] == [*READY, *CMD]
    assert plan.env == {"LANG": "C.UTF-8", "PATH": "/usr/bin"}
    assert all(layer.invariant for layer in plan.layers)
    # outermost first, in the one order LAYERS states
    order = list(LAYERS)
    assert [order.index(n) for n in plan.names] == sorted(order.index(n) for n in plan.names)


def test_without_a_cgroup_there_is_no_host_shell_and_memory_falls_back_to_rlimit_data():
    plan = plan_launch(inputs(Level.RLIMIT, root=False, staged=False, cgroup=False))
    assert plan.names == ["prlimit", "ready", "bot"]
    assert plan.argv[:7] == ["/usr/bin/prlimit", "--core=0", f"--data={1 << 20}", "--fsize=1000", "--nofile=32",
                             "--nproc=8", "--"]


def test_impossible_plans_are_refused():
    with pytest.raises(ValueError, match="root"):
        plan_launch(inputs(Level.BWRAP, root=False, staged=True))
    with pytest.raises(ValueError, match="level bwrap"):
        plan_launch(inputs(Level.RLIMIT, root=True, staged=True))
    with pytest.raises(ValueError, match="bwrap's argv"):
        plan_launch(PlanInputs(level=Level.BWRAP, cmd=CMD, bot_dir="/b", limits=LIMITS))


def test_the_bwrap_layer_binds_roots_capped_scratch_masks_caches_and_execs_the_staged_copy():
    from arena.sandbox import bwrap as bw

    try:
        real = bw.find_bwrap()
    except Exception as exc:  # noqa: BLE001 - no bwrap here: nothing to build
        pytest.skip(str(exc))
    common = dict(bot_dir="/b", extra_ro=[], status_fd=3, seccomp_fd=4, data_fds={}, scratch_bytes=4096, env={})
    argv = bw.build_argv(real, **common, scratch_src="/run/s", exec_path="/run/s/7/bwrap",
                         hide=[("/b/__pycache__", True), ("/b/x.pyc", False)])
    assert argv[0] == "/run/s/7/bwrap" and argv[-1] == "--"
    joined = " ".join(argv)
    for mount in ("--bind /run/s/tmp /tmp", "--bind /run/s/home /scratch", "--bind /run/s/shm /dev/shm",
                  "--tmpfs /b/__pycache__ --remount-ro /b/__pycache__", "--ro-bind /dev/null /b/x.pyc"):
        assert mount in joined
    assert "--tmpfs /scratch" not in joined and "--tmpfs /tmp" not in joined
    plain = " ".join(bw.build_argv(real, **common))
    assert plain.startswith(real + " ") and "--size 4096 --perms 0700 --tmpfs /scratch" in plain
