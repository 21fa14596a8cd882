"""A launch as a plan: the named layers a bot command is wrapped in, and the one place that runs it.

`plan_launch` is pure: from facts gathered beforehand (the resolved command,
the cgroup's join step, the leased uid, what must be staged, bwrap's own
argv) it returns the layers outermost first, each an argv prefix that
ends by exec'ing the next. `run_plan` spawns it. The order is fixed and
each layer's invariant is stated in `LAYERS`; docs/sandbox.md lists them.
"""

from __future__ import annotations

import shlex
import subprocess
from dataclasses import dataclass, field
from typing import Mapping

from .errors import HarnessError
from .limits import Level, Limits

#: Byte the sandbox writes on stdout right before exec'ing the bot: proof
#: that the setup succeeded. It can never come from the bot itself.
READY_MARKER = b"\x06"
#: Byte the sandbox writes instead when the bot's command names no program in the bot's own view.
NOT_FOUND_MARKER = b"\x15"
#: The readiness step: the command is looked up in the bot's own view (its PATH, its folder), never
#: on the host; then announce and become the bot (the same at every contained level).
READY_SCRIPT = ("command -v \"$1\" >/dev/null 2>&1 || { printf '\\025'; exit 127; }; "
                "printf '\\006' && exec \"$@\"")

#: Every layer, outermost first, with the invariant it keeps. A plan holds
#: a subsequence of these in this order.
LAYERS: dict[str, str] = {
    "unshare": "a private mount namespace, only when root stages folders or mounts the scratch: "
               "those mounts never reach the host's mount table and vanish with the launch; at gvisor a "
               "pid namespace runsc is the init of (it reaps what it leaves), killed with the harness",
    "prlimit": "rlimits (no core dumps, file size, open files, CPU backstop, processes per uid) "
               "set by exec before any later layer runs, so every process of the bot inherits them",
    "host-sh": "root's (or the harness's) own steps with a fixed environment: joins the bot's cgroups "
               "before anything of the bot exists, then mounts the stage and the capped scratch; "
               "nothing a manifest sets reaches it",
    "setpriv": "root harness only: becomes the leased uid, no groups, no capabilities, no new "
               "privileges, killed if the harness dies; bwrap and the bot never run as root",
    "bwrap": "the namespaces, the read-only allow-list, the capped scratch and the syscall filter; "
             "its argv ends with '--'",
    "runsc": "level gvisor: a kernel of its own (gVisor's Sentry) for the bot, rootless as the leased uid, "
             "no network, its view made only of resident images and private copies; the ready step "
             "and the bot run inside it, from the bundle's config",
    "ready": "the sandbox's last step: writes the ready byte, then execs the bot, so any byte "
             "after it is the bot's",
    "bot": "the bot's own command, argv[0] resolved on the harness's PATH",
}


@dataclass(frozen=True)
class StageBind:
    """One root-made read-only bind of a host path the bot's uid cannot reach, into the stage."""

    src: str
    dst: str
    is_dir: bool


@dataclass(frozen=True)
class ScratchMount:
    """The bot's one writable area: the stage tmpfs itself, mounted by root in the private
    mount namespace, capped in bytes and inodes, holding home (the bot's uid, 0700), tmp
    and shm (1777), plus the empty mount points of the stage binds (which the bot never sees)."""

    size: int
    inodes: int
    uid: int


@dataclass(frozen=True)
class PlanInputs:
    """Everything a plan is made from, gathered (with its side effects) before planning."""

    level: Level
    cmd: tuple[str, ...]
    bot_dir: str
    limits: Limits
    prlimit: str = "prlimit"
    memory_cgroup: bool = False
    pids_cgroup: bool = False
    cgroup_join: str = ""
    root: bool = False
    uid: int | None = None
    stage_dir: str = "/run/cinch-arena/stage"
    stage: tuple[StageBind, ...] = ()
    scratch: ScratchMount | None = None
    bwrap: tuple[str, ...] = ()  # bwrap and its options, ending in "--" (level bwrap)
    runsc: tuple[str, ...] = ()  # runsc's whole command line (level gvisor); the bot runs from its bundle
    env: tuple[tuple[str, str], ...] = ()  # environment of the outermost process
    pass_fds: tuple[int, ...] = ()


@dataclass(frozen=True)
class Layer:
    name: str
    argv: tuple[str, ...]

    @property
    def invariant(self) -> str:
        return LAYERS[self.name]


@dataclass(frozen=True)
class LaunchPlan:
    layers: tuple[Layer, ...]
    cwd: str
    env: dict[str, str] = field(default_factory=dict)
    pass_fds: tuple[int, ...] = ()
    inside: tuple[Layer, ...] = ()  # level gvisor: the layers its bundle runs inside the sandbox

    @property
    def names(self) -> list[str]:
        return [layer.name for layer in (*self.layers, *self.inside)]

    @property
    def argv(self) -> list[str]:
        return [a for layer in self.layers for a in layer.argv]


def prlimit_options(inp: PlanInputs) -> list[str]:
    """rlimits as prlimit options: set in the child by exec, never via preexec_fn."""
    limits = inp.limits
    opts: list[str] = ["--core=0"]  # no core dumps: a crash must not write (or pipe) anything on the host
    if inp.level is Level.GVISOR:
        # The bot's own limits hold inside its kernel (the bundle's rlimits); on the host only the
        # Sentry runs, which needs descriptors and threads of its own.
        return opts
    if limits.memory_bytes is not None and not inp.memory_cgroup:
        opts.append(f"--data={limits.memory_bytes}")
    if limits.file_size_bytes is not None:
        opts.append(f"--fsize={limits.file_size_bytes}")
    if limits.cpu_seconds is not None:
        opts.append(f"--cpu={limits.cpu_seconds}")
    if limits.open_files is not None:
        opts.append(f"--nofile={limits.open_files}")
    if limits.max_processes is not None and (inp.uid is not None or (not inp.root and not inp.pids_cgroup)):
        # Counted per host uid: exact with a leased uid per seat; without one
        # (an unprivileged harness) it is the harness's own uid's budget.
        opts.append(f"--nproc={limits.max_processes}")
    return opts


def stage_script(stage_dir: str, binds: tuple[StageBind, ...], scratch: ScratchMount | None = None) -> str:
    """Shell that mounts a tmpfs on `stage_dir` (with `scratch`: capped at its bytes and, beyond
    the folders made here, its inodes), makes the scratch folders and binds each source read-only
    below it. Few programs: each exec is a start-up cost of every launch."""
    d = shlex.quote(stage_dir)
    made = 3 + len(binds)  # home, tmp, shm and the mount points use inodes of their own
    opts = f"size={scratch.size},nr_inodes={scratch.inodes + made + 1}" if scratch else "size=64k"
    steps = [f"mount -t tmpfs -o mode=0755,{opts} cinch-stage {d}"]
    if scratch is not None:
        steps.append(f"mkdir -m 1777 {d}/tmp {d}/shm")
        steps.append(f"install -d -o {scratch.uid} -g {scratch.uid} -m 0700 {d}/home")
    dirs = [shlex.quote(b.dst) for b in binds if b.is_dir]
    files = [shlex.quote(b.dst) for b in binds if not b.is_dir]
    if dirs:
        steps.append("mkdir " + " ".join(dirs))
    if files:
        steps.append("touch " + " ".join(files))
    steps += [f"mount --bind -o ro {shlex.quote(b.src)} {shlex.quote(b.dst)}" for b in binds]
    return " && ".join(steps)


def plan_launch(inp: PlanInputs) -> LaunchPlan:
    """The layers that run `inp.cmd` at `inp.level`, outermost first. Pure: no I/O."""
    env = dict(inp.env)
    bot = Layer("bot", inp.cmd)
    if inp.level is Level.NONE:
        return LaunchPlan((bot,), cwd=inp.bot_dir, env=env)
    if (inp.stage or inp.scratch) and not (inp.root and inp.level is Level.BWRAP):
        raise ValueError("only a root harness at level bwrap stages folders or mounts the scratch")
    if inp.runsc and inp.level is not Level.GVISOR:
        raise ValueError("runsc's argv is only for level gvisor")
    if inp.uid is not None and not inp.root:
        raise ValueError("only a root harness leases uids")
    ready = Layer("ready", ("/bin/sh", "-c", READY_SCRIPT, "sh"))
    layers: list[Layer] = []
    mounts = bool(inp.stage or inp.scratch)
    if inp.level is Level.GVISOR:
        # runsc as the init of a pid namespace of its own: whatever it leaves when killed (the
        # Sentry, its file server, their stubs) dies with it and is reaped by it, never
        # orphaned to the host's init as zombies
        # `setpriv --pdeathsig` first: our unshare dies with the harness, and with it (--kill-child)
        # the namespace, so no sandbox outlives the harness that started it
        reaper: tuple[str, ...] = ("--user", "--map-current-user") if not inp.root else ()
        layers.append(Layer("unshare", ("setpriv", "--pdeathsig", "KILL", "--", "unshare", *reaper, "--pid", "--fork",
                                        "--kill-child", "--mount-proc", "--")))
    elif mounts:
        layers.append(Layer("unshare", ("unshare", "--mount", "--propagation", "private", "--")))
    layers.append(Layer("prlimit", (inp.prlimit, *prlimit_options(inp), "--")))
    staging = stage_script(inp.stage_dir, inp.stage, inp.scratch) if mounts else ""
    steps = [s for s in (inp.cgroup_join, staging) if s]
    if steps:
        layers.append(Layer("host-sh", ("/bin/sh", "-c", " && ".join(steps) + ' && exec "$@"', "sh")))
    contained = inp.level in (Level.BWRAP, Level.GVISOR)
    if inp.level is Level.BWRAP and (not inp.bwrap or inp.bwrap[-1] != "--"):
        raise ValueError("level bwrap needs bwrap's argv, ending in '--'")
    if inp.level is Level.GVISOR and not inp.runsc:
        raise ValueError("level gvisor needs runsc's argv")
    if contained and inp.uid is not None:
        uid = str(inp.uid)
        layers.append(Layer("setpriv", (
            "setpriv", "--reuid", uid, "--regid", uid, "--clear-groups", "--bounding-set=-all",
            "--inh-caps=-all", "--no-new-privs", "--pdeathsig", "KILL", "--")))
    if inp.level is Level.BWRAP:
        layers.append(Layer("bwrap", inp.bwrap))
    if inp.level is Level.GVISOR:
        layers.append(Layer("runsc", inp.runsc))
        # the ready step and the bot are the bundle's process, inside the bot's own kernel
        return LaunchPlan(tuple(layers), cwd="/", env=env, pass_fds=inp.pass_fds, inside=(ready, bot))
    layers += [ready, bot]
    # At bwrap the working folder is set inside (--chdir); the host side starts at /.
    return LaunchPlan(tuple(layers), cwd="/" if contained else inp.bot_dir, env=env,
                      pass_fds=inp.pass_fds)


def inside_argv(cmd: tuple[str, ...]) -> list[str]:
    """What runs inside the bot's own kernel at level gvisor: the ready step, then the bot."""
    return ["/bin/sh", "-c", READY_SCRIPT, "sh", *cmd]


def run_plan(plan: LaunchPlan) -> subprocess.Popen[bytes]:
    """Spawn a plan: pipes for stdin/stdout/stderr, a new session, only the plan's descriptors."""
    argv = plan.argv
    try:
        return subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            bufsize=0, cwd=plan.cwd, env=plan.env, start_new_session=True,
            pass_fds=plan.pass_fds, close_fds=True)
    except OSError as exc:
        raise HarnessError(f"cannot start {argv[0]!r}: {exc}") from exc


def host_env(env: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """An environment as the plan's sorted pairs."""
    return tuple(sorted(env.items()))
