"""The assembled filter, run by a small classic-BPF interpreter: every ABI, no sandbox needed."""

from __future__ import annotations

import errno
import struct

import pytest

from arena.sandbox import seccomp
from arena.sandbox.seccomp import ALLOW, ALLOWED, ARCHES, EPERM_CALLS, NOOP_CALLS, RULES, Rule, build_filter

_ERRNO, _ALLOW = 0x00050000, 0x7FFF0000


def run(program: bytes, arch: str, call: str | int, *args: int) -> int:
    """The filter's return value for one syscall (classic BPF: A register, absolute loads, jumps, returns)."""
    nr = ARCHES[arch].nr[call] if isinstance(call, str) else call
    data = struct.pack("<iI", nr, ARCHES[arch].audit) + b"\0" * 8
    data += b"".join(struct.pack("<Q", a & (2**64 - 1)) for a in (list(args) + [0] * 6)[:6])
    return execute(program, data)


def execute(program: bytes, data: bytes) -> int:
    """Run `program` over seccomp_data `data` (nr, arch, ip, six arguments)."""
    code = [struct.unpack_from("<HBBI", program, i) for i in range(0, len(program), 8)]
    pc, acc = 0, 0
    while True:
        op, jt, jf, k = code[pc]
        if op == 0x20:
            acc = struct.unpack_from("<I", data, k)[0]
        elif op == 0x06:
            return k
        elif op in (0x15, 0x35, 0x45):
            hit = acc == k if op == 0x15 else acc >= k if op == 0x35 else bool(acc & k)
            pc += jt if hit else jf
        else:
            raise AssertionError(f"unexpected opcode {op:#x}")
        pc += 1


def answer(verdict: int) -> str | int:
    return "allow" if verdict == _ALLOW else verdict - _ERRNO


@pytest.mark.parametrize("arch", sorted(ARCHES))
def test_every_named_call_gets_its_verdict(arch) -> None:
    program = build_filter(arch)
    for call in ALLOWED & ARCHES[arch].nr.keys():
        assert answer(run(program, arch, call)) == "allow", call
    for call in EPERM_CALLS & ARCHES[arch].nr.keys():
        assert answer(run(program, arch, call)) == errno.EPERM, call
    for call in NOOP_CALLS:
        assert answer(run(program, arch, call)) == 0, call  # returns 0 without running


@pytest.mark.parametrize("arch", sorted(ARCHES))
def test_default_deny_answers_enosys(arch) -> None:
    program = build_filter(arch)
    for call in ("io_setup", "io_submit", "io_getevents", "io_destroy", "io_pgetevents", "io_uring_setup",
                 "io_uring_enter", "mincore", "readahead", "cachestat", "clone3"):
        assert answer(run(program, arch, call)) == errno.ENOSYS, call
    assert answer(run(program, arch, 1000)) == errno.ENOSYS  # a number no kernel has yet


@pytest.mark.parametrize("arch", sorted(ARCHES))
def test_argument_rules(arch) -> None:
    program = build_filter(arch)
    af_unix, af_inet, af_inet6 = 1, 2, 10
    assert answer(run(program, arch, "socket", af_unix, 1, 0)) == "allow"
    for family in (af_inet, af_inet6, 16, 17):
        assert answer(run(program, arch, "socket", family, 1, 0)) == errno.EAFNOSUPPORT
        assert answer(run(program, arch, "socketpair", family, 1, 0)) == errno.EAFNOSUPPORT
    for call in ("preadv2", "pwritev2"):
        assert answer(run(program, arch, call, 3, 0, 1, 0, 0, 0)) == "allow"
        assert answer(run(program, arch, call, 3, 0, 1, 0, 0, 0x8 | 0x1)) == errno.EOPNOTSUPP  # RWF_NOWAIT
    assert answer(run(program, arch, "fadvise64", 3, 0, 0, 4)) == errno.EPERM  # DONTNEED
    assert answer(run(program, arch, "fadvise64", 3, 0, 0, 3)) == "allow"
    assert answer(run(program, arch, "clone", 0x10000000 | 17)) == errno.EPERM  # CLONE_NEWUSER
    assert answer(run(program, arch, "clone", 0x003D0F00)) == "allow"  # a thread
    assert answer(run(program, arch, "fcntl", 3, 7)) == 0  # F_SETLKW: succeeds without effect
    assert answer(run(program, arch, "fcntl", 3, 5)) == errno.EPERM  # F_GETLK: who holds a lock
    assert answer(run(program, arch, "fcntl", 3, 1031)) == errno.EPERM  # F_SETPIPE_SZ: a per-user quota
    assert answer(run(program, arch, "ioctl", 0, 0x5412)) == errno.ENOTTY  # TIOCSTI
    assert answer(run(program, arch, "ioctl", 0, 0x541B)) == "allow"  # FIONREAD
    assert answer(run(program, arch, "madvise", 0, 4096, 12)) == errno.EINVAL  # MERGEABLE (KSM)
    assert answer(run(program, arch, "madvise", 0, 4096, 4)) == "allow"
    assert answer(run(program, arch, "prctl", 15)) == "allow"  # PR_SET_NAME
    assert answer(run(program, arch, "prctl", 35)) == errno.EINVAL  # PR_SET_MM


SOL_SOCKET, SO_COOKIE, SO_NETNS_COOKIE, SO_PASSPIDFD, SO_PEERPIDFD = 1, 57, 71, 76, 77


@pytest.mark.parametrize("arch", sorted(ARCHES))
def test_host_wide_cookies_and_pidfds_are_refused(arch) -> None:
    """Socket and netns cookies and pidfd inode numbers are host-wide counters: refused as an older
    kernel answers (the runtimes of the matrix never ask), every neighbouring call still allowed."""
    program = build_filter(arch)
    for option in (SO_COOKIE, SO_NETNS_COOKIE, SO_PEERPIDFD):
        assert answer(run(program, arch, "getsockopt", 3, SOL_SOCKET, option, 0, 0)) == errno.ENOPROTOOPT, option
        # The kernel reads level and option as ints: high bits set change nothing.
        assert answer(run(program, arch, "getsockopt", 3, 1 << 32 | SOL_SOCKET, 1 << 40 | option)) == errno.ENOPROTOOPT
    for option in (4, 7, 8, 17, 38, 56, 58, 70, 72, 76):  # SO_ERROR, SO_SNDBUF, SO_RCVBUF, SO_PEERCRED, SO_PROTOCOL...
        assert answer(run(program, arch, "getsockopt", 3, SOL_SOCKET, option, 0, 0)) == "allow", option
    for level in (0, 6, 41, 0x10000 | SOL_SOCKET):  # the same numbers at IP, TCP, IPv6 (and not a level's low bits)
        assert answer(run(program, arch, "getsockopt", 3, level, SO_COOKIE, 0, 0)) == "allow", level
    assert answer(run(program, arch, "setsockopt", 3, SOL_SOCKET, SO_PASSPIDFD, 0, 4)) == errno.ENOPROTOOPT
    for option in (7, 8, 16, SO_COOKIE):  # SO_SNDBUF, SO_RCVBUF, SO_PASSCRED
        assert answer(run(program, arch, "setsockopt", 3, SOL_SOCKET, option, 0, 4)) == "allow", option
    assert answer(run(program, arch, "setsockopt", 3, 6, SO_PASSPIDFD, 0, 4)) == "allow"
    # clone with CLONE_PIDFD: EINVAL (the kernel's word for flags it will not take); without, a thread or fork.
    thread, fork, pidfd = 0x003D0F00, 17, 0x1000
    for flags in (fork | pidfd, 0x4111 | pidfd, pidfd):  # fork-like, posix_spawn's CLONE_VM|CLONE_VFORK, bare
        assert answer(run(program, arch, "clone", flags)) == errno.EINVAL, hex(flags)
    assert answer(run(program, arch, "clone", 0x10000000 | pidfd | fork)) == errno.EPERM  # namespaces first
    assert answer(run(program, arch, "clone", thread)) == answer(run(program, arch, "clone", fork)) == "allow"
    assert answer(run(program, arch, "clone", 0x4111)) == "allow"
    # pidfd_open and memfd_create: ENOSYS, "a kernel before 5.3 / 3.17", which their users probe for.
    for call in ("pidfd_open", "memfd_create"):
        for args in ((1, 0), (0, 1)):
            assert answer(run(program, arch, call, *args)) == errno.ENOSYS, call
    # What stays: signalling through a pidfd one has (a /proc/<pid> folder fd is one), memfd seals on any fd.
    assert answer(run(program, arch, "pidfd_send_signal", 3, 0, 0, 0)) == "allow"
    assert answer(run(program, arch, "fcntl", 3, 1033)) == "allow"


def test_a_foreign_abi_is_refused_whole() -> None:
    program = build_filter("x86_64")
    data_i386 = struct.pack("<iI", 0, 0x40000003)
    assert answer(execute(program, data_i386 + b"\0" * 56)) == errno.ENOSYS
    x32_read = 0x40000000
    assert answer(run(program, "x86_64", x32_read)) == errno.ENOSYS


def test_the_measured_runtime_calls_are_all_answered_without_enosys() -> None:
    """What strace saw Python, numpy, Node, the JVM, Go, Rust and C call in whole games (docs/sandbox.md)."""
    measured = ("access arch_prctl brk capget clock_getres clock_nanosleep clone close connect epoll_create1 "
                "epoll_ctl epoll_pwait eventfd2 execve exit exit_group faccessat2 fchdir fcntl flock fstat ftruncate "
                "futex getcwd getdents64 getegid geteuid getgid getpid getppid getrandom getrlimit getrusage gettid "
                "getuid ioctl kill lseek madvise mbind mkdir mmap mprotect munmap nanosleep newfstatat openat pipe2 "
                "pkey_alloc poll prctl pread64 prlimit64 read readlink rseq rt_sigaction rt_sigprocmask rt_sigreturn "
                "sched_getaffinity sched_yield set_robust_list set_tid_address sigaltstack socket statx tgkill uname "
                "unlink write").split()
    for call in measured:
        verdict = seccomp.verdict_of(call)
        assert verdict == ALLOW or isinstance(verdict, Rule) or verdict == 0, call
    assert set(RULES) <= set(ARCHES["x86_64"].nr)
