"""The one hostile bot: `attack.py ATTACK` tries one attack and reports it.

Standalone attacks print one JSON object (what happened) and then wait on
stdin. `attack.py partner CHANNEL send|recv` plays a real game (first legal
option) and tries to pass a token derived from its hand to its partner
through CHANNEL; the sender writes `SENT n` and the receiver `LEARNED n`
(or `LEARNED none`) to stderr, where the harness keeps it.
"""
import ctypes
import errno
import json
import os
import socket
import sys
import time
import zlib

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
MACHINE = os.uname().machine
NR = {  # x86_64 / aarch64
    "keyctl": (250, 219), "add_key": (248, 217), "ptrace": (101, 117), "process_vm_readv": (310, 270),
    "userfaultfd": (323, 282), "io_uring_setup": (425, 425), "bpf": (321, 280), "perf_event_open": (298, 241),
    "unshare": (272, 97), "setns": (308, 268), "mount": (165, 40), "kexec_load": (246, 104),
    "init_module": (175, 105), "clock_settime": (227, 112), "settimeofday": (164, 170),
    "inotify_init1": (294, 26), "fanotify_init": (300, 262), "flock": (73, 32), "personality": (135, 92),
    "clone": (56, 220), "clone3": (435, 435), "open_by_handle_at": (304, 265), "kcmp": (312, 272),
    "pidfd_getfd": (438, 438), "syslog": (103, 116), "acct": (163, 89), "swapon": (167, 224),
    "reboot": (169, 142), "sethostname": (170, 161), "chroot": (161, 51), "pivot_root": (155, 41),
    "fsopen": (430, 430), "open_tree": (428, 428), "move_pages": (279, 239), "delete_module": (176, 106),
    "sysinfo": (99, 179), "io_setup": (206, 0), "io_destroy": (207, 1), "io_submit": (209, 2),
    "io_getevents": (208, 4), "mincore": (27, 232), "readahead": (187, 213), "cachestat": (451, 451),
    "madvise": (28, 233), "prctl": (157, 167), "membarrier": (324, 283),
    "setpriority": (141, 140), "sched_setparam": (142, 118), "sched_setscheduler": (144, 119),
    "sched_setattr": (314, 274),
}


def nr(name):
    return NR[name][0 if MACHINE == "x86_64" else 1]


def sc(name, *args):
    """Raw syscall: 'ok' or the errno name."""
    ctypes.set_errno(0)
    res = libc.syscall(nr(name), *[ctypes.c_long(a) for a in args])
    if res == -1:
        return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
    if name == "clone" and res == 0:
        os._exit(0)
    return "ok"


def sc_child(name, *args):
    """`sc` in a child process: a call that works and then crashes its caller (gVisor's own
    io_uring does, under ptrace) still gets its answer reported."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.write(w, sc(name, *args).encode())
        finally:
            os._exit(0)
    os.close(w)
    answer = os.read(r, 64).decode() or "crashed"
    os.close(r)
    os.waitpid(pid, 0)
    return answer


def attempt(fn):
    try:
        return {"ok": True, "value": fn()}
    except OSError as exc:
        return {"ok": False, "errno": errno.errorcode.get(exc.errno, str(exc.errno))}


def write(path, data="x"):
    with open(path, "w") as fh:
        fh.write(data)
    return True


def read(path):
    with open(path, "rb") as fh:
        return fh.read(4096).decode("latin-1")


HERE = os.path.dirname(os.path.abspath(__file__))
#: A file both partners see (their bot folder, bound read-only) and no other test touches.
SHARED = os.path.join(HERE, "shared.txt")
#: Files of the bot folder the harness evicted from the page cache before the game.
COLD = [os.path.join(HERE, "cold", f"{i:02d}") for i in range(1, 31)]


# ------------------------------------------------------------ standalone attacks
def a_sysctl():
    """Host root via core_pattern, and other host-wide sysctls."""
    out = {}
    for name, value in (("kernel/core_pattern", "|/scratch/evil %p"), ("vm/panic_on_oom", "1"),
                        ("kernel/pid_max", "4194304"), ("fs/file-max", "100"),
                        ("kernel/hostname", "pwned"), ("vm/drop_caches", "3")):
        out[name] = attempt(lambda: write(f"/proc/sys/{name}", value))
    out["sysrq"] = attempt(lambda: write("/proc/sysrq-trigger", "h"))
    out["core_pattern_now"] = read("/proc/sys/kernel/core_pattern") if os.path.exists("/proc/sys/kernel/core_pattern") else ""
    return out


def a_ids():
    status = dict(line.split(":\t", 1) for line in read("/proc/self/status").splitlines() if ":\t" in line)
    return {"uid_map": read("/proc/self/uid_map"), "gid_map": read("/proc/self/gid_map"),
            "uid": os.getuid(), "euid": os.geteuid(), "groups": os.getgroups(),
            "caps": {k: status.get(k, "0").strip() for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")},
            "no_new_privs": status.get("NoNewPrivs", "").strip(), "seccomp": status.get("Seccomp", "").strip(),
            "fds": sorted(os.listdir("/proc/self/fd")), "pid": os.getpid()}


def clone_pidfd():
    """A fork by raw clone(CLONE_PIDFD | SIGCHLD): the pidfd's inode number, or the errno."""
    pidfd = ctypes.c_int(-1)
    ctypes.set_errno(0)
    pid = libc.syscall(nr("clone"), ctypes.c_long(0x1000 | 17), ctypes.c_long(0), ctypes.c_long(ctypes.addressof(pidfd)),
                       ctypes.c_long(0), ctypes.c_long(0))
    if pid == 0:
        os._exit(0)
    if pid < 0:
        return {"ok": False, "errno": errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))}
    os.waitpid(pid, 0)
    if pidfd.value < 0:  # a kernel that forks but ignores the flag (gVisor's) hands back no pidfd
        return {"ok": False, "errno": "no pidfd"}
    return {"ok": True, "value": os.fstat(pidfd.value).st_ino}


def host_wide_ids():
    """Calls that answer with host-wide counters: socket and netns cookies, pidfd and memfd inode numbers."""
    import struct
    a, b = socket.socketpair()
    return {
        "so_cookie": attempt(lambda: struct.unpack("Q", a.getsockopt(socket.SOL_SOCKET, 57, 8))[0]),
        "so_netns_cookie": attempt(lambda: struct.unpack("Q", a.getsockopt(socket.SOL_SOCKET, 71, 8))[0]),
        # The peer of one's own socketpair is oneself: SO_PEERPIDFD is pidfd_open by another door.
        "so_peerpidfd": attempt(lambda: os.fstat(struct.unpack("i", a.getsockopt(socket.SOL_SOCKET, 77, 4))[0]).st_ino),
        "so_passpidfd": attempt(lambda: a.setsockopt(socket.SOL_SOCKET, 76, 1) or "ok"),  # SCM_PIDFD messages
        "pidfd_open": attempt(lambda: os.fstat(os.pidfd_open(os.getpid())).st_ino),
        "clone_pidfd": clone_pidfd(),
        "memfd_create": attempt(lambda: os.fstat(os.memfd_create("cinch")).st_ino),
        # Ordinary socket options stay: a runtime asks for these.
        "so_type": attempt(lambda: a.getsockopt(socket.SOL_SOCKET, socket.SO_TYPE)),
        "so_peercred": attempt(lambda: len(a.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))),
        "so_sndbuf": attempt(lambda: a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536) or "ok"),
    }


def a_host_ids():
    return host_wide_ids()


def a_syscalls():
    """Every call the filter must refuse, each answered with an errno."""
    # Buffers a call reads or writes are kept alive across it: the address of a temporary is freed
    # memory by the time the call runs, and a kernel that answers (gVisor's sysinfo does) would write
    # into the interpreter's heap (a crash some runs later).
    key_type, key_desc = ctypes.create_string_buffer(b"user"), ctypes.create_string_buffer(b"cinch")
    info, params = ctypes.create_string_buffer(256), ctypes.create_string_buffer(120)
    out = {
        "keyctl_join": sc("keyctl", 1, 0),  # KEYCTL_JOIN_SESSION_KEYRING
        "add_key": sc("add_key", ctypes.addressof(key_type), ctypes.addressof(key_desc), 0, 0, -4),
        "ptrace_traceme": sc("ptrace", 0, 0, 0, 0),
        "process_vm_readv": sc("process_vm_readv", 1, 0, 0, 0, 0, 0),
        "userfaultfd": sc("userfaultfd", 0),
        "bpf": sc("bpf", 0, 0, 0), "perf_event_open": sc("perf_event_open", 0, 0, -1, -1, 0),
        "unshare_user": sc("unshare", 0x10000000), "unshare_ns": sc("unshare", 0x00020000),
        "setns": sc("setns", 0, 0), "mount": sc("mount", 0, 0, 0, 0, 0),
        "kexec_load": sc("kexec_load", 0, 0, 0, 0), "init_module": sc("init_module", 0, 0, 0),
        "delete_module": sc("delete_module", 0, 0), "clock_settime": sc("clock_settime", 0, 0),
        "settimeofday": sc("settimeofday", 0, 0), "inotify_init1": sc("inotify_init1", 0),
        "fanotify_init": sc("fanotify_init", 0, 0), "clone_newuser": sc("clone", 0x10000000 | 17, 0, 0, 0, 0),
        "clone3": sc("clone3", 0, 0), "open_by_handle_at": sc("open_by_handle_at", 0, 0, 0),
        "kcmp": sc("kcmp", 1, 1, 0, 0, 0), "pidfd_getfd": sc("pidfd_getfd", 0, 0, 0),
        "syslog": sc("syslog", 3, 0, 0), "acct": sc("acct", 0), "swapon": sc("swapon", 0, 0),
        "reboot": sc("reboot", 0, 0, 0, 0), "sethostname": sc("sethostname", 0, 0),
        "chroot": sc("chroot", 0), "pivot_root": sc("pivot_root", 0, 0), "fsopen": sc("fsopen", 0, 0),
        "open_tree": sc("open_tree", -100, 0, 0), "move_pages": sc("move_pages", 1, 0, 0, 0, 0, 0),
        "personality_noaslr": sc("personality", 0x0040000),
        "sysinfo": sc("sysinfo", ctypes.addressof(info)),
    }
    import fcntl
    import struct
    fd = os.open(SHARED, os.O_RDONLY)
    lock = struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 1, 0)
    out["getlk"] = attempt(lambda: fcntl.fcntl(fd, fcntl.F_GETLK, struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 1, 0)) and 0)
    out["dnotify"] = attempt(lambda: fcntl.fcntl(os.open("/usr", os.O_RDONLY), 1026, 0x1))
    out["setpipe_sz"] = attempt(lambda: fcntl.fcntl(os.pipe()[0], 1031, 1 << 20))
    out["fadvise_dontneed"] = attempt(lambda: os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED))
    out["rwf_nowait"] = attempt(lambda: os.preadv(fd, [bytearray(16)], 0, os.RWF_NOWAIT))
    out["rwf_nowait_write"] = attempt(lambda: os.pwritev(os.open("/tmp/w", os.O_CREAT | os.O_WRONLY), [b"x"], 0, os.RWF_NOWAIT))
    out["tiocsti"] = attempt(lambda: fcntl.ioctl(0, 0x5412, b"x"))
    out["netlink"] = attempt(lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0).close())
    out["packet"] = attempt(lambda: socket.socket(17, socket.SOCK_RAW, 0).close())
    out["inet_socket"] = attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).close())
    out["inet6_socket"] = attempt(lambda: socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).close())
    out["inet_socketpair"] = attempt(lambda: socket.socketpair(socket.AF_INET))
    # Linux AIO, io_uring and the page-cache residency probes: none of it.
    ctx = ctypes.c_ulong(0)
    out["io_setup"] = sc("io_setup", 128, ctypes.addressof(ctx))
    out["io_submit"] = sc("io_submit", 0, 1, ctypes.addressof(ctypes.c_void_p(0)))
    out["io_getevents"] = sc("io_getevents", 0, 1, 1, 0, 0)
    out["io_uring_setup"] = sc_child("io_uring_setup", 1, ctypes.addressof(params))
    page = ctypes.create_string_buffer(4096)
    addr = ctypes.addressof(page)
    out["mincore"] = sc("mincore", addr & ~4095, 4096, ctypes.addressof(page))
    out["readahead"] = sc("readahead", fd, 0, 4096)
    out["cachestat"] = sc("cachestat", fd, ctypes.addressof(page), ctypes.addressof(page), 0)
    out["madvise_mergeable"] = sc("madvise", addr & ~4095, 4096, 12)
    out["madvise_pageout"] = sc("madvise", addr & ~4095, 4096, 21)
    out["prctl_set_mm"] = sc("prctl", 35, 1, 0, 0, 0)
    out["membarrier"] = sc("membarrier", 0, 0, 0)
    # Harmless no-ops: a lock succeeds (nobody else in the mount namespace could see it).
    out["flock"] = attempt(lambda: fcntl.flock(fd, fcntl.LOCK_EX) or "ok")
    out["setlk"] = attempt(lambda: fcntl.fcntl(fd, fcntl.F_SETLK, lock) and "ok")
    out["ofd_setlk"] = attempt(lambda: fcntl.fcntl(fd, 37, lock) and "ok")
    # Allowed things still work (the filter must not break ordinary bots).
    out["fork"] = attempt(lambda: os.waitpid(os.fork() or os._exit(0), 0) and "forked")
    out["thread"] = attempt(lambda: __import__("threading").Thread(target=lambda: None).start() or "ok")
    out["unix_socket"] = attempt(lambda: socket.socket(socket.AF_UNIX).close() or "ok")
    out["unix_socketpair"] = attempt(lambda: [s.close() for s in socket.socketpair()] and "ok")
    out["preadv2"] = attempt(lambda: os.preadv(fd, [bytearray(16)], 0, 0))
    out["pipe_fionread"] = attempt(lambda: fcntl.ioctl(os.pipe()[0], 0x541B, b"\0\0\0\0") and "ok")
    out.update(host_wide_ids())
    return out


def a_priority():
    """Lower its own priority or change its scheduling policy, as a bot would to keep a thread always
    runnable at little CPU (issue 41: a seat with a thread waiting for a core is not judged late, and
    that wait is taken for the machine's): each call's answer, and what the kernel then says it is.
    Also in a second thread (its own tid), and the session's autogroup (/proc/self/autogroup)."""
    import threading
    sched_idle, sched_batch = 5, 3
    attr = ctypes.create_string_buffer(56)  # struct sched_attr: size, policy, flags, nice, ...
    ctypes.memmove(attr, (48).to_bytes(4, "little") + sched_idle.to_bytes(4, "little") + bytes(8)
                   + (19).to_bytes(4, "little"), 20)
    param = ctypes.c_int(0)
    out = {
        "setpriority": sc("setpriority", 0, 0, 19),  # PRIO_PROCESS, self, nice 19
        "sched_setscheduler_idle": sc("sched_setscheduler", 0, sched_idle, ctypes.addressof(param)),
        "sched_setscheduler_batch": sc("sched_setscheduler", 0, sched_batch, ctypes.addressof(param)),
        "sched_setparam": sc("sched_setparam", 0, ctypes.addressof(param)),
        "sched_setattr": sc("sched_setattr", 0, ctypes.addressof(attr), 0),
    }
    seen = {}

    def in_thread():
        tid = threading.get_native_id()
        seen["thread_setpriority"] = sc("setpriority", 0, tid, 19)
        seen["thread_sched_setscheduler_idle"] = sc("sched_setscheduler", tid, sched_idle, ctypes.addressof(param))
        seen["thread_nice"] = os.getpriority(os.PRIO_PROCESS, tid)
        seen["thread_policy"] = os.sched_getscheduler(tid)

    t = threading.Thread(target=in_thread)
    t.start()
    t.join()
    out.update(seen)
    out["autogroup"] = attempt(lambda: write("/proc/self/autogroup", "19") and read("/proc/self/autogroup").strip())
    out["nice"] = os.getpriority(os.PRIO_PROCESS, 0)
    out["policy"] = os.sched_getscheduler(0)
    return out


def kill_everyone():
    """SIGKILL to every process this one may signal (from a child, so the bot survives to report)."""
    pid = os.fork()
    if pid == 0:
        try:
            os.kill(-1, 9)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    return "sent"


def a_look_around():
    """Other processes, /sys, host counters, other bots' folders, setuid binaries."""
    harness = int(os.environ.get("HARNESS_PID", "0"))
    other = os.environ.get("OTHER_BOT_FILE", "")
    pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    out = {"pids": pids, "harness_visible": os.path.exists(f"/proc/{harness}"),
           "sys": os.path.exists("/sys"), "cgroup_fs": os.path.exists("/sys/fs/cgroup"),
           "other_bot": attempt(lambda: read(other)) if other else None,
           "proc": {n: read(f"/proc/{n}") for n in ("stat", "loadavg", "meminfo", "uptime")},
           "cpuinfo_twice": read("/proc/cpuinfo") == read("/proc/cpuinfo"),
           "counters": {n: attempt(lambda: read(f"/proc/{n}")) for n in
                        ("interrupts", "sys/fs/file-nr", "sys/fs/inode-nr", "keys", "key-users", "locks",
                         "schedstat", "diskstats", "vmstat", "sys/kernel/random/entropy_avail")},
           "kill_all": attempt(kill_everyone),
           "write_bot_dir": attempt(lambda: write(os.path.join(os.getcwd(), "evil"))),
           "tty": attempt(lambda: os.open("/dev/tty", os.O_RDWR))}
    setuid = [p for p in ("/usr/bin/mount", "/usr/bin/su", "/usr/bin/passwd", "/bin/mount")
              if os.path.exists(p) and os.stat(p).st_mode & 0o4000]
    if setuid:
        import subprocess
        proc = subprocess.run([setuid[0], "-t", "tmpfs", "x", "/scratch"] if "mount" in setuid[0] else [setuid[0], "--help"],
                              capture_output=True, text=True)
        out["setuid"] = {"binary": setuid[0], "rc": proc.returncode,
                         "mounted": "x /scratch" in read("/proc/self/mounts")}
    return out


#: Host-wide /proc files and folders (counters partners could move or read, host facts).
HOSTWIDE = ("cgroups", "interrupts", "softirqs", "buddyinfo", "vmstat", "zoneinfo", "diskstats", "partitions",
            "keys", "key-users", "locks", "modules", "kallsyms", "iomem", "filesystems", "swaps", "crypto",
            "sys/fs/aio-nr", "sys/fs/aio-max-nr", "sys/fs/file-nr", "sys/fs/inode-nr", "sys/fs/dentry-state",
            "sys/kernel/random/entropy_avail", "sys/kernel/pty/nr")
HOSTWIDE_DIRS = ("irq", "fs", "pressure", "bus", "driver", "sysvipc", "tty", "sys/fs", "sys/dev")


def a_proc_hostwide():
    """What of /proc's host-wide state can be read: files' content, folders' entries."""
    files = {n: attempt(lambda: read(f"/proc/{n}")) for n in HOSTWIDE if os.path.exists(f"/proc/{n}")}
    dirs = {n: attempt(lambda: sorted(os.listdir(f"/proc/{n}"))) for n in HOSTWIDE_DIRS if os.path.exists(f"/proc/{n}")}
    top = {}
    for name in sorted(e for e in os.listdir("/proc") if not e.isdigit()):
        path = f"/proc/{name}"
        if os.path.islink(path):
            top[name] = "link"
        elif os.path.isdir(path):
            res = attempt(lambda: len(os.listdir(path)))
            top[name] = res["value"] if res["ok"] else res["errno"]
        else:
            res = attempt(lambda: len(read(path)))
            top[name] = res["value"] if res["ok"] else res["errno"]
    return {"files": files, "dirs": dirs, "top": top}


def _socket_pair(family):
    """A connected pair: loopback TCP where the family is allowed, else a unix socket pair."""
    if family == "inet":
        srv = socket.socket()
        srv.bind(("127.0.0.1", 0))
        srv.listen(1)
        a = socket.create_connection(srv.getsockname())
        b = srv.accept()[0]
        srv.close()
        return a, b
    return socket.socketpair()


def a_socket_hoard():
    """Queue as much as possible in socket buffers (kernel memory outside the process).

    PROCS processes, each filling PAIRS connected pairs (SO_SNDBUF raised) without reading
    them, over loopback TCP if the sandbox allows AF_INET, else AF_UNIX. Reports the family
    and the total queued; everything is held until stdin closes."""
    procs, pairs, cap = (int(os.environ.get(k, d)) for k, d in (("PROCS", "4"), ("PAIRS", "64"), ("CAP", str(1 << 30))))
    try:
        socket.socket().close()
        family = "inet"
    except OSError:
        family = "unix"
    reader, writer = os.pipe()
    for _ in range(procs):
        if os.fork() == 0:
            held, total = [], 0
            chunk = b"x" * 65536
            try:
                for _ in range(pairs):
                    pair = _socket_pair(family)
                    held += pair
                    for s in pair:
                        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 30)
                        s.setblocking(False)
                        while total < cap:
                            try:
                                total += s.send(chunk)
                            except OSError:
                                break
            except OSError:
                pass
            os.write(writer, f"{total}\n".encode())
            sys.stdin.read()
            os._exit(0)
    got = b""
    while got.count(b"\n") < procs:
        data = os.read(reader, 4096)
        if not data:
            break
        got += data
    return {"family": family, "queued": sum(int(x) for x in got.split()), "procs": got.count(b"\n")}


def a_fill_disk():
    """Exhaust scratch bytes, then inodes; report what it got."""
    total = 0
    chunk = b"x" * (1 << 20)
    try:
        with open("/scratch/big", "wb") as fh:
            while total < (1 << 34):
                fh.write(chunk)
                total += len(chunk)
    except OSError as exc:
        full = errno.errorcode.get(exc.errno)
    os.unlink("/scratch/big")
    files = 0
    try:
        while files < 2_000_000:
            open(f"/scratch/f{files}", "w").close()
            files += 1
    except OSError as exc:
        inodes = errno.errorcode.get(exc.errno)
    return {"bytes": total, "bytes_error": full, "files": files, "files_error": inodes}


def a_leave_mess():
    """Leave scratch impossible to clean naively: deep tree, odd modes, fifo, socket."""
    base = os.environ.get("HOME", "/scratch")
    os.chdir(base)
    depth = 0
    for depth in range(int(os.environ.get("DEPTH", "3000"))):
        os.mkdir("d")
        os.chdir("d")
    os.mkfifo("fifo")
    s = socket.socket(socket.AF_UNIX)
    s.bind("sock")
    open("locked", "w").close()
    os.chmod("locked", 0)
    os.chdir(base)
    os.mkdir("sealed")
    open("sealed/x", "w").close()
    os.chmod("sealed", 0)
    return {"depth": depth + 1}


def a_linger():
    """Ignore the end of its input and live on (as a bot outliving its harness would)."""
    import signal
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    sys.stdout.write("{}\n")
    sys.stdout.flush()
    while True:
        time.sleep(3600)


ATTACKS = {"linger": a_linger, "sysctl": a_sysctl, "ids": a_ids, "syscalls": a_syscalls, "host_ids": a_host_ids,
           "priority": a_priority,
           "look_around": a_look_around, "fill_disk": a_fill_disk, "proc_hostwide": a_proc_hostwide, "socket_hoard": a_socket_hoard, "leave_mess": a_leave_mess}


# ------------------------------------------------------------ partner channels
#: Names of one test's own (its bot folder's): two tests running at once never read each other's tokens.
TAG = "%08x" % (zlib.crc32(HERE.encode()) & 0x7FFFFFFF)
TOKEN = f"cinch-token-{TAG}-"
KEY = (int(TAG, 16) & 0x7FFF) << 16  # System V keys: this test's own range


def ch_keyring_send(n):
    desc = ctypes.create_string_buffer(f"{TOKEN}{n}".encode())
    key = libc.syscall(nr("add_key"), ctypes.c_char_p(b"user"), desc, ctypes.c_char_p(b"x"), ctypes.c_long(1),
                       ctypes.c_long(-3))  # the session keyring the harness's children share
    if key < 0:
        raise OSError(ctypes.get_errno(), "add_key")
    libc.syscall(nr("keyctl"), ctypes.c_long(2), ctypes.c_long(key), ctypes.c_long(5))  # expire in 5 s


def ch_keyring_recv():
    for line in read("/proc/keys").splitlines():
        if TOKEN in line:
            return int(line.rsplit(TOKEN, 1)[1].split(":")[0].split()[0])
    return None


_held = []


WATCHED = os.environ.get("WATCHED", SHARED)  # the test's own file, opened by no other process


def ch_lock_send(n):
    import fcntl
    import struct
    fd = os.open(WATCHED, os.O_RDONLY)
    _held.append(fd)
    fcntl.fcntl(fd, fcntl.F_SETLK, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 10_000 + n, 1, 0))


def ch_lock_recv():
    import fcntl
    import struct
    fd = os.open(WATCHED, os.O_RDONLY)
    for n in range(1, 31):
        res = fcntl.fcntl(fd, fcntl.F_GETLK, struct.pack("hhqqi", fcntl.F_WRLCK, 0, 10_000 + n, 1, 0))
        if struct.unpack("hhqqi", res)[0] != fcntl.F_UNLCK:
            return n
    return None


_inotify = {}


def ch_inotify_setup():
    fd = libc.syscall(nr("inotify_init1"), ctypes.c_long(os.O_NONBLOCK))
    if fd < 0:
        raise OSError(ctypes.get_errno(), "inotify_init1")
    # IN_OPEN | IN_CLOSE_NOWRITE: alternating events, so the kernel does not merge repeats
    libc.inotify_add_watch(ctypes.c_int(fd), ctypes.c_char_p(WATCHED.encode()), ctypes.c_uint32(0x30))
    _inotify["fd"] = fd


def ch_inotify_send(n):
    for _ in range(n):
        os.close(os.open(WATCHED, os.O_RDONLY))


def ch_inotify_recv():
    """The units seen so far: events queue up, so each read adds to the count (see CUMULATIVE)."""
    try:
        data = os.read(_inotify["fd"], 65536)
    except (BlockingIOError, KeyError):
        data = b""
    # An open and a close per unit, 16 bytes each: count events, not pairs, since a read can fall
    # between a unit's open and its close (counting pairs per read lost that unit).
    _inotify["events"] = _inotify.get("events", 0) + len(data) // 16
    return _inotify["events"] // 2 or None


def ch_abstract_send(n):
    s = socket.socket(socket.AF_UNIX)
    s.bind(f"\0{TOKEN}{n}")
    s.listen(1)
    _held.append(s)


def ch_abstract_recv():
    for n in range(1, 31):
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(f"\0{TOKEN}{n}")
            return n
        except OSError:
            pass
        finally:
            s.close()
    return None


def ch_shm_send(n):
    write(f"/dev/shm/{TOKEN}", str(n))


def ch_shm_recv():
    try:
        n = int(read(f"/dev/shm/{TOKEN}"))
        os.unlink(f"/dev/shm/{TOKEN}")
        return n
    except OSError:
        return None


def ch_sysv_send(n):
    if libc.shmget(ctypes.c_int(KEY + n), ctypes.c_size_t(4096), ctypes.c_int(0o1666)) < 0:
        raise OSError(ctypes.get_errno(), "shmget")


def ch_sysv_recv():
    for n in range(1, 31):
        shm = libc.shmget(ctypes.c_int(KEY + n), ctypes.c_size_t(0), ctypes.c_int(0))
        if shm >= 0:
            libc.shmctl(ctypes.c_int(shm), ctypes.c_int(0), None)  # IPC_RMID: leave nothing behind
            return n
    return None


def ch_flock_send(n):
    import fcntl
    fd = os.open(COLD[n - 1], os.O_RDONLY)
    _held.append(fd)
    fcntl.flock(fd, fcntl.LOCK_EX)


def ch_flock_recv():
    import fcntl
    for n, path in enumerate(COLD, 1):
        fd = os.open(path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return n
        finally:
            os.close(fd)
    return None


class _IOCB(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint64), ("key", ctypes.c_uint32), ("rw_flags", ctypes.c_int32),
                ("opcode", ctypes.c_uint16), ("reqprio", ctypes.c_int16), ("fildes", ctypes.c_uint32),
                ("buf", ctypes.c_uint64), ("nbytes", ctypes.c_uint64), ("offset", ctypes.c_int64),
                ("reserved2", ctypes.c_uint64), ("flags", ctypes.c_uint32), ("resfd", ctypes.c_uint32)]


class _Event(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint64), ("obj", ctypes.c_uint64), ("res", ctypes.c_int64), ("res2", ctypes.c_int64)]


_aio = {}


def ch_aio_setup():
    ctx = ctypes.c_ulong(0)
    if libc.syscall(nr("io_setup"), ctypes.c_long(64), ctypes.byref(ctx)) < 0:
        raise OSError(ctypes.get_errno(), "io_setup")
    _aio["ctx"] = ctx.value


def ch_aio_send(n):
    with open(COLD[n - 1], "rb") as fh:  # an ordinary read brings the file into the page cache
        fh.read()


def _cached(path):
    """Is the first page of `path` in the page cache? An AIO read with RWF_NOWAIT says so."""
    fd = os.open(path, os.O_RDONLY)
    try:
        buf = ctypes.create_string_buffer(4096)
        cb = _IOCB(opcode=0, fildes=fd, buf=ctypes.addressof(buf), nbytes=4096, offset=0, rw_flags=0x8)
        cbp = ctypes.pointer(cb)
        if libc.syscall(nr("io_submit"), ctypes.c_ulong(_aio["ctx"]), ctypes.c_long(1), ctypes.byref(cbp)) != 1:
            raise OSError(ctypes.get_errno(), "io_submit")
        ev = _Event()
        if libc.syscall(nr("io_getevents"), ctypes.c_ulong(_aio["ctx"]), ctypes.c_long(1), ctypes.c_long(1),
                        ctypes.byref(ev), None) != 1:
            raise OSError(ctypes.get_errno(), "io_getevents")
        return ev.res > 0
    finally:
        os.close(fd)


def ch_aio_recv():
    if "ctx" not in _aio:
        return None
    hot = [n for n, path in enumerate(COLD, 1) if _cached(path)]
    # A probe that misses still starts reading the page in, and under load that read can finish
    # before the probe returns: a cold file may read as hot. The sender's file is hot for sure.
    sys.stderr.write(f"HOT {' '.join(map(str, hot))}\n")
    return hot[0] if len(hot) == 1 else None


def _aio_nr():
    return int(read("/proc/sys/fs/aio-nr"))


AIO_UNIT = 512  # events per context: a unit far above what another AIO user of the host adds at once


def _io_setup(events):
    ctx = ctypes.c_ulong(0)
    if libc.syscall(nr("io_setup"), ctypes.c_long(events), ctypes.byref(ctx)) < 0:
        raise OSError(ctypes.get_errno(), "io_setup")
    return ctx


def ch_aio_nr_setup():
    """The receiver measures what one context adds to the host-wide fs.aio-nr (the least of
    three tries: anything else on the host can only add to it)."""
    steps = []
    for _ in range(3):
        base = _aio_nr()
        ctx = _io_setup(AIO_UNIT)
        steps.append(_aio_nr() - base)
        libc.syscall(nr("io_destroy"), ctx)
    _aio["per"] = min(steps)
    _aio["base"] = _aio_nr()


def ch_aio_nr_send(n):
    _held.extend(_io_setup(AIO_UNIT) for _ in range(n))


def ch_aio_nr_recv():
    if not _aio.get("per"):
        return None
    steps = (_aio_nr() - _aio["base"]) / _aio["per"]
    return round(steps) if steps >= 0.5 else None


def _sockstat_alloc():
    for line in read("/proc/net/sockstat").splitlines():
        if line.startswith("TCP:"):
            fields = line.split()
            return int(fields[fields.index("alloc") + 1])
    raise OSError(errno.ENOENT, "no TCP line")


def ch_sockstat_setup():
    _aio["alloc"] = _sockstat_alloc()


def ch_sockstat_send(n):
    for _ in range(4 * n):  # host-wide "TCP: alloc" counts every TCP socket
        _held.append(socket.socket(socket.AF_INET, socket.SOCK_STREAM))


def ch_sockstat_recv():
    if "alloc" not in _aio:
        return None
    delta = _sockstat_alloc() - _aio["alloc"]
    return round(delta / 4) if delta >= 4 else None


def token(hand):
    return 1 + sum(json.dumps(hand).encode()) % 30


#: Channels whose receiver counts events as they arrive: the sender may be stopped between its
#: opens (an idle seat is paused), so the receiver reads at every decision and reports at the end.
CUMULATIVE = {"inotify"}
#: Channels whose probe changes what it reads (an AIO read with RWF_NOWAIT that misses starts
#: reading the page in): the receiver probes once, at the end of the game, when the sender has
#: long since read its deal notice (it answered decisions after it).
AT_END = {"aio"}


def partner(channel, role):
    send = globals()[f"ch_{channel}_send"]
    recv = globals()[f"ch_{channel}_recv"]
    setup = globals().get(f"ch_{channel}_setup")
    learned = "unset"
    if role == "recv" and setup:
        try:
            setup()
        except OSError as exc:
            sys.stderr.write(f"SETUP failed {exc}\n")
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            say({"type": "hello", "protocol": 1, "name": "attack", "version": "1"})
        elif kind == "deal" and role == "send" and msg["index"] == 0:
            n = token(msg["hand"])
            try:
                send(n)
                sys.stderr.write(f"SENT {n}\n")
            except OSError as exc:
                sys.stderr.write(f"SENT {n} failed {errno.errorcode.get(exc.errno, exc.errno)}\n")
            sys.stderr.flush()
        elif kind == "decide":
            if role == "recv" and learned == "unset" and channel not in AT_END:
                end = time.monotonic() + 0.3
                got = None
                while got is None and time.monotonic() < end:
                    try:
                        got = recv()
                    except OSError:
                        got = None
                    time.sleep(0.01)
                learned = got
                if channel not in CUMULATIVE:
                    sys.stderr.write(f"LEARNED {'none' if got is None else got}\n")
                    sys.stderr.flush()
            elif role == "recv" and channel in CUMULATIVE:
                learned = recv() or learned
            say({"type": "action", "id": msg["id"], "action": first(msg["kind"], msg["legal"])})
        elif kind == "bye":
            if role == "recv" and channel in CUMULATIVE:  # what arrived after the last decision counts too
                learned = recv() or learned
            if role == "recv" and channel in AT_END:
                try:
                    learned = recv()
                except OSError:
                    learned = None
            break
    if role == "recv" and channel in CUMULATIVE | AT_END:
        sys.stderr.write(f"LEARNED {'none' if learned in (None, 'unset') else learned}\n")
        sys.stderr.flush()


def first(kind, legal):
    if kind == "bid":
        return {"type": "pass"} if legal["pass"] else {"type": "bid", "amount": legal["bids"][0]}
    if kind == "trump":
        return {"type": "trump", "suit": legal["suits"][0]}
    if kind == "rob":
        return {"type": "rob", "take": legal["from"][: legal["take"]]}
    top = legal["cards"][0]
    under = [c for c in legal["under_from"] if c != top][: legal["under"]]
    return {"type": "play", "card": top, **({"under": under} if under else {})}


def timestamps():
    """Play first-legal, writing `<type> <CLOCK_MONOTONIC ns>` to stderr as each message is read
    (`TS_CLOCK=realtime`: CLOCK_REALTIME, the one clock a kernel of its own shares with the host)."""
    clock = time.time_ns if os.environ.get("TS_CLOCK") == "realtime" else time.monotonic_ns
    for line in sys.stdin:
        msg = json.loads(line)
        sys.stderr.write(f"{msg['type']} {clock()}\n")
        sys.stderr.flush()
        if msg["type"] == "hello":
            say({"type": "hello", "protocol": 1, "name": "timestamps", "version": "1"})
        elif msg["type"] == "decide":
            say({"type": "action", "id": msg["id"], "action": first(msg["kind"], msg["legal"])})
        elif msg["type"] == "bye":
            break


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    if sys.argv[1] == "partner":
        partner(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "timestamps":
        timestamps()
    else:
        say(ATTACKS[sys.argv[1]]())
        sys.stdin.read()
