"""Which host files a program needs to run: the view of level gvisor.

At level gvisor a bot sees no host folder whole. It sees copies of what its
runtime needs (docs/sandbox.md, "What a bot sees at gvisor"), and this
module says what that is, from the host's files alone, without running
anything of the bot's:

- a program's link chain (`/usr/bin/java` -> `/etc/alternatives/java` ->
  the JDK) and, for an ELF file, its loader and the closure of its
  `DT_NEEDED` libraries, searched the way the dynamic loader does
  (RPATH/RUNPATH with `$ORIGIN`, `/etc/ld.so.conf`, the default folders);
- an interpreter's data: Python's standard library (without site-packages),
  a JDK's home (without its development folders);
- a script's `#!` interpreter, and the base interpreter a venv's
  `pyvenv.cfg` names.

Only system folders (`SYSTEM_PREFIXES`) and folders the caller vouches for
are ever looked at: a path a manifest names anywhere else is not even
`stat`ed, so a bot cannot learn what the host holds by asking for it.
"""

from __future__ import annotations

import os
import re
import stat
import struct
from dataclasses import dataclass, field
from functools import lru_cache
from glob import glob
from typing import Iterable

#: Host folders a bot's runtime may come from without the host listing them.
SYSTEM_PREFIXES = ("/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/lib32/", "/libx32/", "/etc/", "/opt/")
#: PATH inside the sandbox, where a bare command name is looked up (the same at bwrap).
VIEW_PATH = ("/usr/local/bin", "/usr/bin", "/bin")
#: Folders of an interpreter's tree no bot needs (packages installed on the host, a JDK's
#: sources and development files): left out of the view to keep it small.
SKIP_NAMES = frozenset({"site-packages", "dist-packages", "jmods", "include", "man", "demo", "src.zip", "sample"})
#: Links followed before a path is taken as unresolvable (a loop).
_MAX_LINKS = 40
_ELF_MAGIC = b"\x7fELF"
_PT_INTERP, _PT_DYNAMIC, _PT_LOAD = 3, 2, 1
_DT_NEEDED, _DT_STRTAB, _DT_RPATH, _DT_RUNPATH = 1, 5, 15, 29
_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")


@dataclass
class Runtime:
    """Host paths a program needs: whole trees, single files, and the links on the way."""

    trees: set[str] = field(default_factory=set)
    files: set[str] = field(default_factory=set)
    links: dict[str, str] = field(default_factory=dict)  # path of a link -> its text

    def update(self, other: "Runtime") -> None:
        self.trees |= other.trees
        self.files |= other.files
        self.links.update(other.links)

    def paths(self) -> list[str]:
        """Every path this runtime names, sorted (what an image of it holds)."""
        return sorted({*self.trees, *self.files, *self.links})


def under(path: str, prefixes: Iterable[str]) -> bool:
    """True if `path` is one of `prefixes` (folders, with or without the slash) or lies below one."""
    for p in prefixes:
        p = p.rstrip("/")
        if path == p or path.startswith(p + "/"):
            return True
    return False


def system_path(path: str) -> bool:
    return os.path.isabs(path) and under(os.path.normpath(path), [p.rstrip("/") for p in SYSTEM_PREFIXES])


def resolve(path: str, links: dict[str, str], allowed: Iterable[str] = ()) -> str | None:
    """The real path of `path`, recording every link met on the way in `links`.

    None if a component is missing, a link loops, or the path leaves the
    system folders and `allowed` (it is then not looked at further).
    """
    allowed = tuple(allowed)
    path = os.path.normpath(path)
    for _ in range(_MAX_LINKS):
        if not (system_path(path) or under(path, allowed)):
            return None
        parts = path.split("/")[1:]
        cur = ""
        for i, part in enumerate(parts):
            nxt = f"{cur}/{part}"
            try:
                st = os.lstat(nxt)
            except OSError:
                return None
            if stat.S_ISLNK(st.st_mode):
                text = os.readlink(nxt)
                links[nxt] = text
                base = text if text.startswith("/") else os.path.join(cur or "/", text)
                path = os.path.normpath(os.path.join(base, *parts[i + 1:]))
                break
            cur = nxt
        else:
            return cur or "/"
    return None


# ------------------------------------------------------------------ ELF
@dataclass(frozen=True)
class ElfInfo:
    bits: int
    machine: int
    interp: str | None
    needed: tuple[str, ...]
    search: tuple[str, ...]  # RPATH (if no RUNPATH) then RUNPATH entries, $ORIGIN expanded
    runpath: bool


def _read_at(fh: object, offset: int, size: int) -> bytes:
    fh.seek(offset)  # type: ignore[attr-defined]
    data: bytes = fh.read(size)  # type: ignore[attr-defined]
    return data


@lru_cache(maxsize=4096)
def elf_info(path: str) -> ElfInfo | None:
    """Loader, needed libraries and search path of an ELF file, or None if it is none.

    Only the headers are read (never run). A file that lies about its
    offsets reads as "no libraries": the worst that does is a library missing
    from the view, and the bot that named it fails to start.
    """
    try:
        with open(path, "rb") as fh:
            ident = fh.read(64)
            if len(ident) < 52 or ident[:4] != _ELF_MAGIC:
                return None
            bits = 64 if ident[4] == 2 else 32
            end = "<" if ident[5] == 1 else ">"
            if bits == 64:
                machine, = struct.unpack_from(end + "H", ident, 18)
                phoff, = struct.unpack_from(end + "Q", ident, 32)
                phentsize, phnum = struct.unpack_from(end + "HH", ident, 54)
            else:
                machine, = struct.unpack_from(end + "H", ident, 18)
                phoff, = struct.unpack_from(end + "I", ident, 28)
                phentsize, phnum = struct.unpack_from(end + "HH", ident, 42)
            if phnum > 4096 or phentsize < (56 if bits == 64 else 32):
                return None
            table = _read_at(fh, phoff, phentsize * phnum)
            loads: list[tuple[int, int, int]] = []  # (vaddr, offset, filesz)
            interp = None
            dynamic: tuple[int, int] | None = None
            for i in range(phnum):
                raw = table[i * phentsize:(i + 1) * phentsize]
                if len(raw) < phentsize:
                    break
                if bits == 64:
                    ptype, _flags, off, vaddr, _paddr, filesz = struct.unpack_from(end + "IIQQQQ", raw)
                else:
                    ptype, off, vaddr, _paddr, filesz = struct.unpack_from(end + "IIIII", raw)
                if ptype == _PT_LOAD:
                    loads.append((vaddr, off, filesz))
                elif ptype == _PT_INTERP and filesz < 4096:
                    interp = _read_at(fh, off, filesz).split(b"\0", 1)[0].decode("utf-8", "replace") or None
                elif ptype == _PT_DYNAMIC and filesz < 1 << 20:
                    dynamic = (off, filesz)
            needed: list[int] = []
            rpath: list[int] = []
            runpath: list[int] = []
            strtab = None
            if dynamic is not None:
                data = _read_at(fh, *dynamic)
                step = 16 if bits == 64 else 8
                fmt = end + ("qQ" if bits == 64 else "iI")
                for j in range(0, len(data) - step + 1, step):
                    tag, val = struct.unpack_from(fmt, data, j)
                    if tag == 0:
                        break
                    if tag == _DT_NEEDED:
                        needed.append(val)
                    elif tag == _DT_RPATH:
                        rpath.append(val)
                    elif tag == _DT_RUNPATH:
                        runpath.append(val)
                    elif tag == _DT_STRTAB:
                        strtab = val
            strings: list[str] = []
            if strtab is not None:
                base = next((off + strtab - va for va, off, size in loads if va <= strtab < va + size), None)
                if base is not None:
                    def text(at: int) -> str:
                        raw = _read_at(fh, base + at, 4096)
                        return raw.split(b"\0", 1)[0].decode("utf-8", "replace")
                    names = tuple(text(v) for v in needed)
                    strings = [text(v) for v in (runpath or rpath)]
                else:
                    names = ()
            else:
                names = ()
    except (OSError, struct.error, ValueError):
        return None
    origin = os.path.dirname(path)
    search = tuple(os.path.normpath(p.replace("$ORIGIN", origin).replace("${ORIGIN}", origin))
                   for s in strings for p in s.split(":") if p)
    return ElfInfo(bits, machine, interp, tuple(n for n in names if n), search, bool(runpath))


@lru_cache(maxsize=1)
def loader_dirs() -> tuple[str, ...]:
    """The dynamic loader's folders: /etc/ld.so.conf (with its includes), then the defaults."""
    out: list[str] = []

    def read(conf: str, depth: int = 0) -> None:
        try:
            with open(conf) as fh:
                lines = fh.read().splitlines()
        except OSError:
            return
        for line in lines:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            if line.startswith("include") and depth < 4:
                for pattern in line.split()[1:]:
                    if not pattern.startswith("/"):
                        pattern = os.path.join(os.path.dirname(conf), pattern)
                    for inc in sorted(glob(pattern)):
                        read(inc, depth + 1)
            elif line.startswith("/"):
                out.append(os.path.normpath(line))

    read("/etc/ld.so.conf")
    out += ["/lib64", "/usr/lib64", "/lib", "/usr/lib"]
    return tuple(dict.fromkeys(out))


def _find_library(name: str, want: ElfInfo, search: tuple[str, ...], links: dict[str, str],
                  allowed: tuple[str, ...]) -> str | None:
    if "/" in name:
        real = resolve(name, links, allowed)
        return real if real and _compatible(real, want) else None
    for folder in (*search, *loader_dirs()):
        candidate = os.path.join(folder, name)
        trial: dict[str, str] = {}
        real = resolve(candidate, trial, allowed)
        if real and _compatible(real, want):
            links.update(trial)
            return real
    return None


def _compatible(path: str, want: ElfInfo) -> bool:
    info = elf_info(path)
    return info is not None and info.bits == want.bits and info.machine == want.machine


def elf_closure(paths: Iterable[str], runtime: Runtime, allowed: tuple[str, ...] = ()) -> None:
    """Add to `runtime` the loader and every library the ELF files among `paths` need, transitively."""
    pending = [p for p in paths]
    seen: set[str] = set()
    while pending:
        path = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        info = elf_info(path)
        if info is None:
            continue
        if info.interp:
            real = resolve(info.interp, runtime.links, allowed)
            if real:
                runtime.files.add(real)
                pending.append(real)
        for name in info.needed:
            real = _find_library(name, info, info.search, runtime.links, allowed)
            if real:
                runtime.files.add(real)
                pending.append(real)


# --------------------------------------------------------------- programs
def find_in_view(name: str, listed: Iterable[str] = ()) -> str | None:
    """A bare command name looked up where the bot's view has programs: the folders of the
    harness's PATH that lie inside folders the host lists for bots (`listed`), then the
    sandbox's own PATH (system folders). None if it names none."""
    listed = [p for p in listed if p.startswith("/")]
    host_path = [d for d in os.environ.get("PATH", "").split(os.pathsep)
                 if d.startswith("/") and listed and under(os.path.normpath(d), listed)]
    for folder in (*host_path, *VIEW_PATH):
        candidate = os.path.join(folder, name)
        try:
            st = os.stat(candidate)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_mode & 0o111:
            return candidate
    return None


def _python_data(real: str, runtime: Runtime, allowed: tuple[str, ...]) -> None:
    """A Python interpreter's standard library (`<prefix>/lib/pythonX.Y`), without site-packages."""
    name = os.path.basename(real)
    match = re.match(r"^python(\d+\.\d+)", name)
    if not match or os.path.basename(os.path.dirname(real)) != "bin":
        return
    prefix = os.path.dirname(os.path.dirname(real))
    # the names a bot may call it by (`python3` for a subprocess), where they are this interpreter
    for alias in ("python3", "python"):
        trial: dict[str, str] = {}
        if resolve(os.path.join(os.path.dirname(real), alias), trial, allowed) == real:
            runtime.links.update(trial)
    stdlib = os.path.join(prefix, "lib", f"python{match.group(1)}")
    if os.path.isfile(os.path.join(stdlib, "os.py")):
        runtime.trees.add(stdlib)
        # Debian's sitecustomize and the like point into /etc: their chains come with the tree's links.


def _jdk_data(real: str, runtime: Runtime) -> None:
    """A JDK's (or JRE's) home, for its `bin/java`."""
    if os.path.basename(real) not in ("java", "javaw") or os.path.basename(os.path.dirname(real)) != "bin":
        return
    home = os.path.dirname(os.path.dirname(real))
    if os.path.isfile(os.path.join(home, "lib", "modules")):
        runtime.trees.add(home)


def _shebang(path: str) -> list[str]:
    try:
        with open(path, "rb") as fh:
            head = fh.read(256)
    except OSError:
        return []
    if not head.startswith(b"#!"):
        return []
    return head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()


def program_runtime(program: str, runtime: Runtime, allowed: tuple[str, ...] = (), depth: int = 0) -> str | None:
    """Add what `program` (an absolute path in the view) needs to run; its real path, or None.

    `allowed` are folders outside the system ones the caller vouches for
    (the harness's own interpreter, host-listed runtimes, the bot folder).
    """
    real = resolve(program, runtime.links, allowed)
    if real is None or depth > 4:
        return real
    try:
        st = os.stat(real)
    except OSError:
        return None
    if stat.S_ISDIR(st.st_mode):
        return real
    runtime.files.add(real)
    _python_data(real, runtime, allowed)
    _jdk_data(real, runtime)
    elf_closure([real], runtime, allowed)
    words = _shebang(real)
    if words:
        interp = words[0]
        program_runtime(interp, runtime, allowed, depth + 1)
        if os.path.basename(interp) == "env" and len(words) > 1 and not words[1].startswith("-"):
            found = find_in_view(words[1])
            if found:
                program_runtime(found, runtime, allowed, depth + 1)
    return real


def venv_base(cfg_path: str, runtime: Runtime, allowed: tuple[str, ...] = ()) -> None:
    """The base interpreter a venv's `pyvenv.cfg` names (`home`), when it is in the view's folders."""
    try:
        with open(cfg_path, "rb") as fh:
            text = fh.read(4096).decode("utf-8", "replace")
    except OSError:
        return
    home = next((line.split("=", 1)[1].strip() for line in text.splitlines()
                 if line.split("=", 1)[0].strip() == "home" and "=" in line), None)
    version = next((line.split("=", 1)[1].strip() for line in text.splitlines()
                    if line.split("=", 1)[0].strip() in ("version", "version_info") and "=" in line), "")
    if not home or not os.path.isabs(home):
        return
    minor = ".".join(version.split(".")[:2])
    for name in ([f"python{minor}"] if minor else []) + ["python3", "python"]:
        candidate = os.path.join(home, name)
        if system_path(candidate) or under(candidate, allowed):
            if program_runtime(candidate, runtime, allowed):
                return


def is_python(program: str) -> bool:
    return bool(_PYTHON.match(os.path.basename(program)))
