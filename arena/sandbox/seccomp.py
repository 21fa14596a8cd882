"""The syscall filter every bot runs under at level bwrap.

A classic BPF program for seccomp, assembled here (no library): the filter
is a fixed deny list with a few argument checks, small enough that a
dependency on libseccomp and its Python binding (not on PyPI for every
platform, a Debian package otherwise) would buy nothing but install trouble.
bwrap loads it (`--seccomp FD`) right before it executes the bot.

What is refused, and why (every refusal returns an errno, never a kill):
- cross-process and kernel-state calls a game bot never needs and an
  attacker uses: ptrace, process_vm_*, kcmp, pidfd_getfd, bpf,
  perf_event_open, userfaultfd, io_uring, keyrings, mount and namespace
  calls (also clone() with namespace flags; clone3 answers ENOSYS so libc
  falls back to clone), kexec, modules, clocks, swap, reboot, syslog,
  quotas, host/domain names, port I/O, file handles (open_by_handle_at).
- channels between partners on shared inodes or host-global state:
  inotify, fanotify, flock, fcntl record locks, leases and dnotify,
  fadvise DONTNEED and RWF_NOWAIT reads (page-cache probing), and
  sysinfo(): its host-wide thread count carried a partner's 4-bit symbol
  per move, 188 of 200 right, when measured (programs get memory size from
  /proc/meminfo, which shows the bot's own limit; glibc's
  sysconf(_SC_PHYS_PAGES) is meaningless inside).
- TIOCSTI/TIOCLINUX (typing into a terminal), socket families other
  than unix and IP, personality flags other than the harmless ones.
A foreign ABI (i386 `int 0x80`, x32) is refused as a whole.
"""

from __future__ import annotations

import errno
import platform
import struct
from dataclasses import dataclass
from functools import lru_cache

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


def _arg_low(i: int) -> int:
    """Offset of the low 32 bits of syscall argument `i` (little-endian)."""
    return 16 + 8 * i


@dataclass(frozen=True)
class _Arch:
    audit: int
    nr: dict[str, int]
    x32_bit: bool = False


# Syscall numbers per ABI. Names missing from an ABI do not exist there.
_COMMON_NAMES = (
    "ptrace keyctl add_key request_key flock inotify_init inotify_init1 inotify_add_watch "
    "inotify_rm_watch fanotify_init fanotify_mark process_vm_readv process_vm_writev userfaultfd "
    "io_uring_setup io_uring_enter io_uring_register bpf perf_event_open mount umount2 pivot_root "
    "chroot unshare setns kexec_load kexec_file_load init_module finit_module delete_module "
    "clock_settime clock_adjtime settimeofday adjtimex swapon swapoff reboot syslog acct quotactl "
    "quotactl_fd sethostname setdomainname iopl ioperm vhangup uselib ustat sysfs _sysctl "
    "name_to_handle_at open_by_handle_at kcmp pidfd_getfd move_mount open_tree fsopen fsconfig "
    "fsmount fspick mount_setattr process_madvise migrate_pages move_pages lookup_dcookie nfsservctl "
    "create_module get_kernel_syms query_module process_mrelease memfd_secret vserver afs_syscall "
    "tuxcall security"
).split()

_X86_64 = dict(zip(_COMMON_NAMES, (
    101, 250, 248, 249, 73, 253, 294, 254, 255, 300, 301, 310, 311, 323, 425, 426, 427, 321, 298,
    165, 166, 155, 161, 272, 308, 246, 320, 175, 313, 176, 227, 305, 164, 159, 167, 168, 169, 103,
    163, 179, 443, 170, 171, 172, 173, 153, 134, 136, 139, 156, 303, 304, 312, 438, 429, 428, 430,
    431, 432, 433, 442, 440, 256, 279, 212, 180, 174, 177, 178, 448, 447, 236, 183, 184, 185,
)))
_X86_64.update(sysinfo=99, clone=56, clone3=435, ioctl=16, personality=135, socket=41, fcntl=72,
               fadvise64=221, preadv2=327, pwritev2=328)

_AARCH64_NR = (
    117, 219, 217, 218, 32, None, 26, 27, 28, 262, 263, 270, 271, 282, 425, 426, 427, 280, 241,
    40, 39, 41, 51, 97, 268, 104, 294, 105, 273, 106, 112, 266, 170, 171, 224, 225, 142, 116,
    89, 60, 443, 161, 162, None, None, 58, None, None, None, None, 264, 265, 272, 438, 429, 428,
    430, 431, 432, 433, 442, 440, 238, 239, 18, 42, None, None, None, 448, 447, None, None, None, None,
)
_AARCH64 = {n: v for n, v in zip(_COMMON_NAMES, _AARCH64_NR) if v is not None}
_AARCH64.update(sysinfo=179, clone=220, clone3=435, ioctl=29, personality=92, socket=198, fcntl=25,
                fadvise64=223, preadv2=286, pwritev2=287)

ARCHES: dict[str, _Arch] = {
    "x86_64": _Arch(0xC000003E, _X86_64, x32_bit=True),
    "aarch64": _Arch(0xC00000B7, _AARCH64),
}

#: Calls refused with ENOSYS (so libc falls back) rather than EPERM.
ENOSYS_CALLS = frozenset({"clone3"})
#: Calls refused outright (everything of the common list).
DENIED = frozenset(_COMMON_NAMES) | ENOSYS_CALLS | {"sysinfo"}

CLONE_NS_FLAGS = (0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000
                  | 0x20000000 | 0x40000000 | 0x00000080)  # NEWNS CGROUP UTS IPC USER PID NET TIME
TIOCSTI, TIOCLINUX = 0x5412, 0x541C
PERSONALITIES_OK = (0x0, 0x0008, 0x20000, 0x20008, 0xFFFFFFFF)
SOCKET_FAMILIES_OK = (1, 2, 10)  # AF_UNIX, AF_INET, AF_INET6
FCNTL_REFUSED = (5, 6, 7, 36, 37, 38, 1024, 1025, 1026)  # [OFD_]GETLK/SETLK/SETLKW, leases, dnotify
FADV_DONTNEED = 4
RWF_NOWAIT = 0x8


class _Asm:
    """A tiny assembler: instructions with symbolic jump targets."""

    def __init__(self) -> None:
        self.code: list[tuple[int, str | int, str | int, int]] = []
        self.labels: dict[str, int] = {}

    def op(self, code: int, k: int, jt: str | int = 0, jf: str | int = 0) -> None:
        self.code.append((code, jt, jf, k))

    def label(self, name: str) -> None:
        self.labels[name] = len(self.code)

    def ret(self, value: int) -> None:
        self.op(_RET_K, value)

    def assemble(self) -> bytes:
        out = bytearray()
        for i, (code, jt, jf, k) in enumerate(self.code):
            offs = []
            for target in (jt, jf):
                off = target if isinstance(target, int) else self.labels[target] - i - 1
                if not 0 <= off <= 255:
                    raise ValueError(f"seccomp jump out of range at {i}: {off}")
                offs.append(off)
            out += struct.pack("<HBBI", code, offs[0], offs[1], k & 0xFFFFFFFF)
        return bytes(out)


def _errno(e: int) -> int:
    return _RET_ERRNO | e


def build_filter(arch_name: str | None = None) -> bytes:
    """The BPF program for `arch_name` (default: this machine), as bytes for bwrap."""
    name = arch_name or platform.machine()
    arch = ARCHES.get(name)
    if arch is None:
        raise ValueError(f"no seccomp syscall table for {name!r} (have {sorted(ARCHES)})")
    nr = arch.nr
    a = _Asm()
    a.op(_LD_W_ABS, _OFF_ARCH)
    a.op(_JEQ_K, arch.audit, jt=0, jf="enosys")
    a.op(_LD_W_ABS, _OFF_NR)
    if arch.x32_bit:
        a.op(_JGE_K, 0x40000000, jt="enosys", jf=0)

    def arg_check(call: str, arg: int, body: list[tuple[int, int, str | int, str | int]]) -> None:
        """`if nr == call: load arg; run body (jumps to returns)`; else fall through."""
        a.op(_JEQ_K, nr[call], jt=0, jf=len(body) + 1)
        a.op(_LD_W_ABS, _arg_low(arg))
        for code, k, jt, jf in body:
            a.op(code, k, jt, jf)

    arg_check("clone", 0, [(_JSET_K, CLONE_NS_FLAGS, "eperm", "allow")])
    arg_check("ioctl", 1, [(_JEQ_K, TIOCSTI, "eperm", 0), (_JEQ_K, TIOCLINUX, "eperm", "allow")])
    arg_check("personality", 0, [(_JEQ_K, p, "allow", 0) for p in PERSONALITIES_OK] + [(_JEQ_K, 0, "allow", "eperm")])
    arg_check("socket", 0, [(_JEQ_K, f, "allow", 0) for f in SOCKET_FAMILIES_OK] + [(_JEQ_K, 0, "eafnosupport", "eafnosupport")])
    arg_check("fcntl", 1, [(_JEQ_K, c, "eperm", 0) for c in FCNTL_REFUSED] + [(_JEQ_K, 0, "allow", "allow")])
    arg_check("fadvise64", 3, [(_JEQ_K, FADV_DONTNEED, "eperm", "allow")])
    for call in ("preadv2", "pwritev2"):
        arg_check(call, 5, [(_JSET_K, RWF_NOWAIT, "eopnotsupp", "allow")])
    for call in sorted(DENIED):
        if call in nr:
            a.op(_JEQ_K, nr[call], jt="enosys" if call in ENOSYS_CALLS else "eperm", jf=0)
    a.label("allow")
    a.ret(_RET_ALLOW)
    a.label("eperm")
    a.ret(_errno(errno.EPERM))
    a.label("enosys")
    a.ret(_errno(errno.ENOSYS))
    a.label("eafnosupport")
    a.ret(_errno(errno.EAFNOSUPPORT))
    a.label("eopnotsupp")
    a.ret(_errno(errno.EOPNOTSUPP))
    return a.assemble()


@lru_cache(maxsize=4)
def filter_bytes(arch_name: str | None = None) -> bytes:
    """Cached `build_filter()`: the program is the same for every launch."""
    return build_filter(arch_name)
