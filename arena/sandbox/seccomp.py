"""The syscall filter every bot runs under at level bwrap: an allow-list.

A classic BPF program for seccomp, assembled here (no library: a table of
names and a few argument checks need no libseccomp binding, which is not on
PyPI for every platform). bwrap loads it (`--seccomp FD`) right before it
executes the bot.

Default deny. A call is answered in one of four ways:
- allowed (`ALLOWED`): what the supported runtimes need, measured with
  strace on Python (threads, numpy), Node (worker_threads), the JVM, Go,
  Rust and C (pthreads) playing whole games, plus the ordinary POSIX calls
  of the same families (files, memory, threads, signals, time, pipes,
  polling, unix sockets, process control inside the bot's pid namespace);
- allowed or refused by its arguments (`RULES`): clone without namespace
  flags or CLONE_PIDFD, a short list of ioctl/fcntl/prctl/madvise requests,
  sockets of family AF_UNIX only, fadvise without DONTNEED,
  preadv2/pwritev2 without RWF_NOWAIT (page-cache probes), socket options
  but the host-wide socket and netns cookies and pidfds of peers;
- refused with EPERM (`EPERM_CALLS`): what a bot has no business doing and
  an attacker tries (ptrace, mounts, namespaces, keyrings, inotify, kernel
  state, host-wide counters such as sysinfo), and any change of a thread's
  priority or scheduling policy;
- succeeding without effect (`NOOP_CALLS`, SECCOMP_RET_ERRNO with errno 0,
  which makes the call return 0 without running it): flock, and setting
  fcntl record locks. Inside the bot's private mount namespace nobody else
  could see such a lock; refusing them made the JVM print a warning on
  stdout and broke its handshake.
Every other call, known or not yet invented, answers ENOSYS: libc and the
runtimes take that as "older kernel" and fall back (clone3 to clone, statx
to fstatat, ...). That is also how all of Linux AIO (io_setup, io_submit,
...), io_uring, mincore, readahead and cachestat are refused, and
memfd_create and pidfd_open: their descriptors' inode numbers come from
host-wide counters (the kernel's shmem mount, pidfs), and runtimes that use
them probe first and fall back from ENOSYS (a kernel before 3.17 and 5.3).

A foreign ABI (i386 `int 0x80`, x32) is refused as a whole. The kernel
caches the verdict of calls allowed whatever their arguments, so the length
of the list costs nothing per call. To allow a call a runtime needs, add it
to `ALLOWED` (and to `syscalls.py` if it is new there); docs/sandbox.md
says how to measure what a runtime calls.
"""

from __future__ import annotations

import errno
import platform
import struct
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from .syscalls import AARCH64, X86_64

# BPF opcodes (linux/filter.h, linux/seccomp.h)
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_OFF_NR = 0
_OFF_ARCH = 4

#: A verdict: allow the call, or return this errno without running it (0: return 0).
Verdict = Literal["allow"] | int
ALLOW: Verdict = "allow"


def _arg_low(i: int) -> int:
    """Offset of the low 32 bits of syscall argument `i` (little-endian)."""
    return 16 + 8 * i


@dataclass(frozen=True)
class _Arch:
    audit: int
    nr: dict[str, int]
    x32_bit: bool = False


ARCHES: dict[str, _Arch] = {
    "x86_64": _Arch(0xC000003E, X86_64, x32_bit=True),
    "aarch64": _Arch(0xC00000B7, AARCH64),
}

#: Allowed whatever their arguments.
ALLOWED = frozenset("""
read write readv writev pread64 pwrite64 preadv pwritev open openat openat2 creat close close_range
lseek stat fstat lstat newfstatat statx statfs fstatfs access faccessat faccessat2
getdents getdents64 getcwd chdir fchdir readlink readlinkat
mkdir mkdirat rmdir unlink unlinkat rename renameat renameat2 link linkat symlink symlinkat
mknod mknodat chmod fchmod fchmodat fchmodat2 chown fchown lchown fchownat umask
truncate ftruncate fallocate fsync fdatasync utime utimes utimensat futimesat
getxattr lgetxattr fgetxattr listxattr llistxattr flistxattr setxattr lsetxattr fsetxattr
removexattr lremovexattr fremovexattr
dup dup2 dup3 pipe pipe2 sendfile splice tee vmsplice copy_file_range
select pselect6 poll ppoll epoll_create epoll_create1 epoll_ctl epoll_wait epoll_pwait epoll_pwait2
eventfd eventfd2 signalfd signalfd4 timerfd_create timerfd_settime timerfd_gettime
brk mmap mprotect munmap mremap msync mbind get_mempolicy set_mempolicy
pkey_alloc pkey_free pkey_mprotect map_shadow_stack mseal
futex futex_waitv futex_wake futex_wait futex_requeue set_robust_list get_robust_list set_tid_address rseq
fork vfork execve execveat exit exit_group wait4 waitid
kill tkill tgkill pidfd_send_signal
rt_sigaction rt_sigprocmask rt_sigreturn rt_sigpending rt_sigtimedwait rt_sigsuspend
rt_sigqueueinfo rt_tgsigqueueinfo sigaltstack pause restart_syscall
nanosleep clock_nanosleep clock_gettime clock_getres gettimeofday time times alarm getitimer setitimer
timer_create timer_settime timer_gettime timer_getoverrun timer_delete
getpid getppid gettid getuid geteuid getgid getegid getgroups getresuid getresgid
getpgrp getpgid setpgid getsid setsid capget uname getcpu getrandom
getrlimit setrlimit prlimit64 getrusage getpriority
sched_yield sched_getaffinity sched_setaffinity sched_getparam sched_getscheduler
sched_get_priority_max sched_get_priority_min sched_rr_get_interval
arch_prctl
bind listen accept accept4 connect shutdown getsockname getpeername
sendto recvfrom sendmsg recvmsg sendmmsg recvmmsg
""".split())

#: Refused with EPERM: cross-process and kernel-state calls, mounts and
#: namespaces, channels between partners on shared inodes or host-wide
#: state (keyrings, inotify, fanotify, sysinfo's host-wide thread count), and
#: every change of a thread's priority or scheduling policy (a thread at nice 19
#: or SCHED_IDLE is runnable, waiting for a core, at little CPU: the judge takes
#: a seat's wait for a core for the machine's, docs/sandbox.md "Tempo").
EPERM_CALLS = frozenset("""
setpriority sched_setscheduler sched_setparam sched_setattr
ptrace process_vm_readv process_vm_writev kcmp pidfd_getfd process_madvise process_mrelease
move_pages migrate_pages bpf perf_event_open userfaultfd memfd_secret
keyctl add_key request_key inotify_init inotify_init1 inotify_add_watch inotify_rm_watch
fanotify_init fanotify_mark mount umount2 pivot_root chroot unshare setns
move_mount open_tree fsopen fsconfig fsmount fspick mount_setattr name_to_handle_at open_by_handle_at
kexec_load kexec_file_load init_module finit_module delete_module
clock_settime clock_adjtime settimeofday adjtimex swapon swapoff reboot syslog acct
quotactl quotactl_fd sethostname setdomainname iopl ioperm vhangup sysinfo
""".split())

#: Return 0 without running (locks inside a private mount namespace: nobody else sees them).
NOOP_CALLS = frozenset({"flock"})

CLONE_NS_FLAGS = (0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000
                  | 0x20000000 | 0x40000000 | 0x00000080)  # NEWNS CGROUP UTS IPC USER PID NET TIME
#: A pidfd of the child: its inode number (pidfs) follows process creation on the whole host.
CLONE_PIDFD = 0x00001000
#: ioctl requests on the bot's own descriptors: is it a tty, its size, bytes to read, (non)blocking, close-on-exec.
IOCTLS_OK = (0x5401, 0x540F, 0x5413, 0x541B, 0x5421, 0x5450, 0x5451)  # TCGETS TIOCGPGRP TIOCGWINSZ FIONREAD FIONBIO FIONCLEX FIOCLEX
#: fcntl commands: dup, fd flags, status flags, memfd seals.
FCNTL_OK = (0, 1, 2, 3, 4, 1030, 1033, 1034)  # F_DUPFD GETFD SETFD GETFL SETFL DUPFD_CLOEXEC ADD_SEALS GET_SEALS
#: Taking a record lock succeeds without effect, as flock does; asking who holds one (F_GETLK) is refused.
FCNTL_NOOP = (6, 7, 37, 38)  # F_SETLK F_SETLKW F_OFD_SETLK F_OFD_SETLKW
#: madvise advice on the bot's own memory (not MERGEABLE: KSM sharing; not COLD/PAGEOUT: evicting shared file pages).
MADVISE_OK = (0, 1, 2, 3, 4, 8, 9, 10, 11, 14, 15, 16, 17, 18, 19, 22, 23)
#: prctl options: thread names, death signal, dumpable, no_new_privs, seccomp/caps queries, THP, subreaper, VMA names.
PRCTL_OK = (1, 2, 3, 4, 15, 16, 21, 23, 36, 37, 38, 39, 40, 41, 42, 0x53564D41)
PERSONALITIES_OK = (0x0, 0x0008, 0x20000, 0x20008, 0xFFFFFFFF)
AF_UNIX = 1
FADV_DONTNEED = 4
RWF_NOWAIT = 0x8
#: Socket options (asm-generic/socket.h, the same on x86_64 and aarch64): the cookies are host-wide
#: counters (one per socket, one per network namespace); a peer's pidfd (also on a socketpair of
#: one's own, then one's own pidfd) and SCM_PIDFD messages are pidfds by another door.
SOL_SOCKET = 1
SO_COOKIE, SO_NETNS_COOKIE, SO_PASSPIDFD, SO_PEERPIDFD = 57, 71, 76, 77


@dataclass(frozen=True)
class Rule:
    """A call decided by its argument `arg`: the first test that matches gives the verdict, else `default`.

    A verdict may be another Rule, on another argument: a decision by two arguments (getsockopt's
    level, then its option)."""

    arg: int
    tests: tuple[Test, ...]
    default: Verdict | Rule


#: ("eq", value, verdict): the argument equals value; ("set", mask, verdict): it has a bit of mask.
Test = tuple[Literal["eq", "set"], int, "Verdict | Rule"]


def _eq(values: tuple[int, ...], verdict: Verdict | Rule) -> tuple[Test, ...]:
    return tuple(("eq", v, verdict) for v in values)


def _sol_socket(options: tuple[int, ...]) -> Rule:
    """Refuse `options` at level SOL_SOCKET as a kernel without them does (ENOPROTOOPT); allow the rest."""
    return Rule(1, (("eq", SOL_SOCKET, Rule(2, _eq(options, errno.ENOPROTOOPT), ALLOW)),), ALLOW)


RULES: dict[str, Rule] = {
    "clone": Rule(0, (("set", CLONE_NS_FLAGS, errno.EPERM), ("set", CLONE_PIDFD, errno.EINVAL)), ALLOW),
    "ioctl": Rule(1, _eq(IOCTLS_OK, ALLOW), errno.ENOTTY),
    "fcntl": Rule(1, _eq(FCNTL_OK, ALLOW) + _eq(FCNTL_NOOP, 0), errno.EPERM),
    "madvise": Rule(2, _eq(MADVISE_OK, ALLOW), errno.EINVAL),
    "prctl": Rule(0, _eq(PRCTL_OK, ALLOW), errno.EINVAL),
    "personality": Rule(0, _eq(PERSONALITIES_OK, ALLOW), errno.EPERM),
    "socket": Rule(0, _eq((AF_UNIX,), ALLOW), errno.EAFNOSUPPORT),
    "socketpair": Rule(0, _eq((AF_UNIX,), ALLOW), errno.EAFNOSUPPORT),
    "fadvise64": Rule(3, (("eq", FADV_DONTNEED, errno.EPERM),), ALLOW),
    "preadv2": Rule(5, (("set", RWF_NOWAIT, errno.EOPNOTSUPP),), ALLOW),
    "pwritev2": Rule(5, (("set", RWF_NOWAIT, errno.EOPNOTSUPP),), ALLOW),
    "getsockopt": _sol_socket((SO_COOKIE, SO_NETNS_COOKIE, SO_PEERPIDFD)),
    "setsockopt": _sol_socket((SO_PASSPIDFD,)),
}
#: The answer to every call not named above.
DEFAULT: Verdict = errno.ENOSYS


def verdict_of(call: str) -> Verdict | Rule:
    """How the filter answers `call` (a Rule when its arguments decide)."""
    if call in RULES:
        return RULES[call]
    if call in ALLOWED:
        return ALLOW
    if call in EPERM_CALLS:
        return errno.EPERM
    if call in NOOP_CALLS:
        return 0
    return DEFAULT


class _Asm:
    """A tiny assembler: straight-line code, every jump a short forward skip."""

    def __init__(self) -> None:
        self.code: list[tuple[int, int, int, int]] = []

    def op(self, code: int, k: int, jt: int = 0, jf: int = 0) -> None:
        if not (0 <= jt <= 255 and 0 <= jf <= 255):
            raise ValueError(f"seccomp jump out of range at {len(self.code)}")
        self.code.append((code, jt, jf, k))

    def ret(self, verdict: Verdict | Rule) -> None:
        """Return `verdict`, or decide by a nested rule (code that never falls through either way)."""
        if isinstance(verdict, Rule):
            self.code += _rule_body(verdict)
        else:
            self.op(_RET_K, _RET_ALLOW if verdict == ALLOW else _RET_ERRNO | int(verdict))

    def assemble(self) -> bytes:
        return b"".join(struct.pack("<HBBI", c, jt, jf, k & 0xFFFFFFFF) for c, jt, jf, k in self.code)


def _rule_body(rule: Rule) -> list[tuple[int, int, int, int]]:
    """Load the argument, test it, return: code that never falls through."""
    body = _Asm()
    body.op(_LD_W_ABS, _arg_low(rule.arg))
    for kind, value, verdict in rule.tests:
        then = _Asm()
        then.ret(verdict)
        body.op(_JEQ_K if kind == "eq" else _JSET_K, value, jt=0, jf=len(then.code))
        body.code += then.code
    body.ret(rule.default)
    return body.code


def build_filter(arch_name: str | None = None) -> bytes:
    """The BPF program for `arch_name` (default: this machine), as bytes for bwrap."""
    name = arch_name or platform.machine()
    arch = ARCHES.get(name)
    if arch is None:
        raise ValueError(f"no seccomp syscall table for {name!r} (have {sorted(ARCHES)})")
    a = _Asm()
    a.op(_LD_W_ABS, _OFF_ARCH)
    a.op(_JEQ_K, arch.audit, jt=1, jf=0)
    a.ret(errno.ENOSYS)
    a.op(_LD_W_ABS, _OFF_NR)
    if arch.x32_bit:
        a.op(_JGE_K, 0x40000000, jt=0, jf=1)
        a.ret(errno.ENOSYS)
    named = sorted(set(ALLOWED) | set(RULES) | EPERM_CALLS | NOOP_CALLS)
    for call, number in sorted(((c, arch.nr[c]) for c in named if c in arch.nr), key=lambda cn: cn[1]):
        verdict = verdict_of(call)
        if isinstance(verdict, Rule):
            body = _rule_body(verdict)
            a.op(_JEQ_K, number, jt=0, jf=len(body))
            a.code += body
        else:
            a.op(_JEQ_K, number, jt=0, jf=1)
            a.ret(verdict)
    a.ret(DEFAULT)
    return a.assemble()


@lru_cache(maxsize=4)
def filter_bytes(arch_name: str | None = None) -> bytes:
    """Cached `build_filter()`: the program is the same for every launch."""
    return build_filter(arch_name)
