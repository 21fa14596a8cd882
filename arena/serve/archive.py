"""Unpack an uploaded bot archive without trusting it.

Our own walker, not ``extractall``: every entry is judged before a byte is
written, only regular files and folders are made, every file and folder
counts against ``max_files``, no path is deeper than ``max_depth``, and the
uncompressed bytes are counted while writing, so a decompression bomb stops
at the cap. Nothing recurses on anything the archive decides: a tar's
extension headers (GNU long names, pax) are capped before ``tarfile`` reads
them and may not chain, a zip's central directory is capped before
``zipfile`` reads it, and only the stored and deflate methods are taken.
Any failure of the archive libraries is the archive's refusal. Each refusal
is one sentence naming the entry (``ArchiveRefused``), never a host path.

The module imports only the standard library: the server runs it in a child
process of its own (``python -m arena.serve.archive``, see
:func:`unpack_in_child`) under a memory cap, a CPU cap and a wall-clock
limit, so no archive can grow the server or hold its interpreter.
"""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any, Callable, TypedDict, TypeVar

CHUNK = 1 << 16
MANIFEST = "bot.yaml"
#: Largest tar extension header (a GNU long name or long link, a pax header): ``tarfile`` reads one whole
#: into memory, so it is refused above this before it is read.
MAX_HEADER_BYTES = 64 << 10
#: All extension headers of one archive together (each member keeps its pax header in memory).
MAX_HEADERS_TOTAL = 4 << 20
#: Extension headers before one entry: ``tarfile`` reads each chain by recursion.
MAX_HEADER_CHAIN = 4
#: Longest entry path (bytes of UTF-8) and longest single name: full paths stay far below PATH_MAX.
MAX_NAME_BYTES = 1024
MAX_COMPONENT_BYTES = 255
#: How far the unpacker's memory may grow past what the interpreter holds when it starts (RLIMIT_DATA).
MEMORY_HEADROOM = 48 << 20
#: Zip compression methods taken: the others (Deflate64, bzip2, LZMA with its dictionary of the archive's
#: choosing, AES) are refused by name.
ZIP_METHODS = {0: "stored", 8: "deflate"}
ZIP_METHOD_NAMES = {1: "shrink", 6: "implode", 9: "Deflate64", 12: "bzip2", 14: "LZMA", 93: "Zstandard",
                    95: "xz", 98: "PPMd", 99: "AES encryption"}

T = TypeVar("T")


class ArchiveRefused(ValueError):
    """An archive broke a rule; the message is the one sentence shown to the team."""


class UnpackFailed(RuntimeError):
    """The server could not unpack an archive for a reason of its own (a full disk, no interpreter)."""


@dataclass(frozen=True)
class Limits:
    max_bytes: int = 50 << 20  # the upload itself
    max_files: int = 2000  # files and folders, each one
    max_unpacked: int = 200 << 20  # total bytes written while unpacking
    max_depth: int = 64  # names in an entry's path (sandbox.files.MAX_DEPTH is the ceiling)
    cpu_seconds: int = 60  # the unpacker's CPU time (RLIMIT_CPU)
    wall_seconds: float = 300.0  # the unpacker's wall-clock time


@dataclass(frozen=True)
class Unpacked:
    """What an unpack made: its files and folders, bytes written, and the unpacker's memory (kernel figures
    of the child process: resident set at its start and at its peak, KiB; 0 when unpacked in-process)."""

    entries: int
    bytes: int
    rss_start_kib: int = 0
    rss_peak_kib: int = 0


def shown(name: str) -> str:
    """An entry's name as a message shows it: quoted, bytes that are not UTF-8 and control characters
    escaped (one line, printable), at most 120 characters."""
    text = name.encode("utf-8", "backslashreplace").decode("utf-8")
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return "'" + text[:120] + ("..." if len(text) > 120 else "") + "'"


def _parts(name: str, limits: Limits) -> list[str]:
    """The relative path of an entry as its names, or a refusal naming the entry."""
    if "\\" in name or "\x00" in name:
        raise ArchiveRefused(f"the entry {shown(name)} has a backslash or NUL in its name")
    try:
        raw = name.encode("utf-8")
    except UnicodeEncodeError:
        raise ArchiveRefused(f"the entry {shown(name)} has a name that is not UTF-8") from None
    if name.startswith("/"):
        raise ArchiveRefused(f"the entry {shown(name)} has an absolute path")
    parts = [x for x in name.split("/") if x not in ("", ".")]
    if ".." in parts:
        raise ArchiveRefused(f"the entry {shown(name)} climbs out of the folder with '..'")
    if len(raw) > MAX_NAME_BYTES or any(len(x.encode()) > MAX_COMPONENT_BYTES for x in parts):
        raise ArchiveRefused(f"the entry {shown(name)} has a name longer than {MAX_NAME_BYTES} bytes "
                             f"(or a part longer than {MAX_COMPONENT_BYTES})")
    if len(parts) > limits.max_depth:
        raise ArchiveRefused(f"the entry {shown(name)} is {len(parts)} names deep, over the limit of "
                             f"{limits.max_depth}")
    return parts


# --- tar ------------------------------------------------------------------------------------------------

_EXTENSIONS = {tarfile.GNUTYPE_LONGNAME: "GNU long-name", tarfile.GNUTYPE_LONGLINK: "GNU long-link",
               tarfile.XHDTYPE: "pax", tarfile.XGLTYPE: "pax global", tarfile.SOLARIS_XHDTYPE: "pax"}


class _Header(tarfile.TarInfo):
    """A tar header judged before ``tarfile`` acts on it: an extension header over its cap, a chain of
    them, or a sparse file (whose maps ``tarfile`` reads whole) is refused before its data is read."""

    def _proc_member(self, tf: tarfile.TarFile) -> tarfile.TarInfo:
        kind = _EXTENSIONS.get(self.type)
        if kind is None:
            if self.type == tarfile.GNUTYPE_SPARSE:
                raise ArchiveRefused(f"the entry {shown(self.name)} is a sparse file; only plain files are accepted")
            return super()._proc_member(tf)  # type: ignore[misc,no-any-return]
        if self.size > MAX_HEADER_BYTES:
            raise ArchiveRefused(f"the archive has a {kind} header of {self.size} bytes, over the limit of "
                                 f"{MAX_HEADER_BYTES}")
        state: dict[str, int] = tf.__dict__.setdefault("_arena_headers", {"chain": 0, "total": 0})
        state["total"] += self.size
        if state["total"] > MAX_HEADERS_TOTAL:
            raise ArchiveRefused(f"the archive's extension headers hold more than {MAX_HEADERS_TOTAL} bytes")
        if state["chain"] >= MAX_HEADER_CHAIN:
            raise ArchiveRefused(f"the archive has more than {MAX_HEADER_CHAIN} extension headers in a row")
        state["chain"] += 1
        try:
            return super()._proc_member(tf)  # type: ignore[misc,no-any-return]
        finally:
            state["chain"] -= 1

    def _proc_gnusparse_10(self, next: tarfile.TarInfo, pax_headers: dict[str, str],  # noqa: A002
                           tarfile: tarfile.TarFile) -> None:
        raise ArchiveRefused(f"the entry {shown(next.name)} is a sparse file; only plain files are accepted")


@dataclass
class _Entry:
    name: str
    kind: str  # "file", "dir" or a refusal's word for anything else
    executable: bool
    open: Callable[[], IO[bytes]] | None


def _entries_tar(tf: tarfile.TarFile) -> Iterator[_Entry]:
    for m in tf:
        if m.sparse is not None:
            raise ArchiveRefused(f"the entry {shown(m.name)} is a sparse file; only plain files are accepted")
        if m.issym() or m.islnk():
            raise ArchiveRefused(f"the entry {shown(m.name)} is a link; links are not accepted")
        if not (m.isreg() or m.isdir()):
            raise ArchiveRefused(f"the entry {shown(m.name)} is a device, FIFO or other special file")
        yield _Entry(m.name, "dir" if m.isdir() else "file", bool(m.mode & 0o111),
                     _opener(tf, m) if m.isreg() else None)


def _opener(tf: tarfile.TarFile, m: tarfile.TarInfo) -> Callable[[], IO[bytes]]:
    def open_member() -> IO[bytes]:
        f = tf.extractfile(m)
        assert f is not None  # a regular member
        return f
    return open_member


class _CappedReads(io.RawIOBase):
    """A file that refuses any single read larger than ``cap``: ``zipfile`` reads the central directory in
    one call, sized by the archive, so it is capped before it is read."""

    def __init__(self, f: IO[bytes], cap: int) -> None:
        self.f, self.cap = f, cap

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        return self.f.seek(offset, whence)

    def tell(self) -> int:
        return self.f.tell()

    def read(self, n: int | None = -1) -> bytes:
        if n is None or n < 0:
            here = self.f.tell()
            n = self.f.seek(0, 2) - here
            self.f.seek(here)
        if n > self.cap:
            raise ArchiveRefused(f"the archive's central directory is over {self.cap} bytes, more than "
                                 "its file limit needs")
        return self.f.read(n)

    def readinto(self, b: Any) -> int:
        data = self.read(len(b))
        b[:len(data)] = data
        return len(data)


def _entries_zip(zf: zipfile.ZipFile, limits: Limits) -> Iterator[_Entry]:
    infos = zf.infolist()
    if len(infos) > limits.max_files:
        raise ArchiveRefused(f"the archive has more than {limits.max_files} files and folders")
    for info in infos:
        mode = info.external_attr >> 16 if info.create_system == 3 else 0
        if mode and stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
            raise ArchiveRefused(f"the entry {shown(info.filename)} is a link or special file; only files are accepted")
        is_dir = info.is_dir() or stat.S_ISDIR(mode)
        if not is_dir:
            if info.flag_bits & 0x41:
                raise ArchiveRefused(f"the entry {shown(info.filename)} is encrypted; upload it unencrypted")
            if info.compress_type not in ZIP_METHODS:
                name = ZIP_METHOD_NAMES.get(info.compress_type, "an unknown one")
                raise ArchiveRefused(f"the entry {shown(info.filename)} is compressed with method "
                                     f"{info.compress_type} ({name}); only stored and deflate are accepted")
        yield _Entry(info.filename, "dir" if is_dir else "file", bool(mode & 0o111),
                     None if is_dir else (lambda info=info: zf.open(info)))  # type: ignore[misc]


# --- the walk -------------------------------------------------------------------------------------------

def _damaged(e: BaseException) -> ArchiveRefused:
    if isinstance(e, MemoryError):
        return ArchiveRefused("the archive needs more memory to unpack than the server allows")
    first = (str(e).splitlines() or [""])[0][:160]
    detail = f"{type(e).__name__}: {first}" if first else type(e).__name__
    return ArchiveRefused(f"the archive is damaged or unreadable ({shown(detail)[1:-1]})")


def _lib(call: Callable[[], T]) -> T:
    """Call into an archive library: whatever it raises (zlib.error, an encrypted or unknown entry, a bad
    header, a truncated stream) is the archive's refusal, never the server's error."""
    try:
        return call()
    except ArchiveRefused:
        raise
    except Exception as e:  # noqa: BLE001 - every library failure on hostile bytes is a refusal
        raise _damaged(e) from None


def unpack(src: str | os.PathLike[str] | bytes, dest: Path, limits: Limits = Limits(), *,
           clean_up: bool = True) -> Unpacked:
    """Unpack ``src`` (a .tar.gz or .zip, as a file path or bytes) into the new folder ``dest``.

    ``bot.yaml`` must be at the archive's root, or the archive's only top-level entry must be a folder
    holding it, which is then taken as the bot's folder. A refused archive leaves no ``dest`` behind
    (``clean_up`` False: the caller removes it; the child leaves that to the server).
    """
    if isinstance(src, (bytes, bytearray)):
        f: IO[bytes] = io.BytesIO(src)
    else:
        f = open(src, "rb")  # noqa: SIM115 - closed below
    try:
        size = f.seek(0, 2)
        f.seek(0)
        if size > limits.max_bytes:
            raise ArchiveRefused(f"the archive is {size} bytes, over the limit of {limits.max_bytes}")
        os.mkdir(dest, 0o755)
        try:
            done = _unpack(f, dest.resolve(), limits)
            _take_top_folder(dest)
            return done
        except BaseException:
            if clean_up:
                _remove(dest)
            raise
    finally:
        f.close()


def _unpack(f: IO[bytes], root: Path, limits: Limits) -> Unpacked:
    magic = f.read(4)
    f.seek(0)
    if magic[:2] == b"\x1f\x8b":
        tf = _lib(lambda: tarfile.open(fileobj=f, mode="r:gz", tarinfo=_Header))
        entries = _entries_tar(tf)
    elif magic == b"PK\x03\x04":
        cap = max(256 << 10, limits.max_files * 512)  # 512 bytes a record: room for long names and extras
        zf = _lib(lambda: zipfile.ZipFile(_CappedReads(f, cap)))
        entries = _entries_zip(zf, limits)
    else:
        raise ArchiveRefused("the upload is neither a .tar.gz nor a .zip")
    made: dict[str, str] = {}  # relative path -> "dir" or "file"
    written = 0

    def count(rel: str, kind: str, name: str) -> None:
        if made.get(rel) is not None:
            raise ArchiveRefused(f"the entry {shown(name)} appears twice in the archive (or as a file and a folder)")
        if len(made) >= limits.max_files:
            raise ArchiveRefused(f"the archive has more than {limits.max_files} files and folders")
        made[rel] = kind

    def folder(parts: list[str], name: str) -> None:
        for i in range(1, len(parts) + 1):  # each missing folder in turn: no recursion, each one counted
            rel = "/".join(parts[:i])
            if made.get(rel) == "dir":
                continue
            count(rel, "dir", name)
            os.mkdir(root / rel, 0o755)

    while (e := _lib(lambda: next(entries, None))) is not None:
        parts = _parts(e.name, limits)
        if not parts:
            continue  # the root itself ("./")
        if e.kind == "dir":
            folder(parts, e.name)
            continue
        folder(parts[:-1], e.name)
        rel = "/".join(parts)
        count(rel, "file", e.name)
        assert e.open is not None
        src = _lib(e.open)
        # O_EXCL|O_NOFOLLOW: nothing already there is ever followed or overwritten
        fd = os.open(root / rel, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "wb") as out:
            os.fchmod(fd, 0o755 if e.executable else 0o644)  # the executable bit kept; never setuid, setgid, sticky
            while chunk := _lib(lambda: src.read(CHUNK)):
                written += len(chunk)
                if written > limits.max_unpacked:
                    raise ArchiveRefused(f"the archive unpacks to more than {limits.max_unpacked} bytes")
                out.write(chunk)
    return Unpacked(len(made), written)


def _take_top_folder(dest: Path) -> None:
    """``bot.yaml`` at the root, or the only top-level entry a folder holding it (``zip -r bot.zip bot``):
    that folder becomes the root. Anything else is refused, saying so."""
    if os.path.isfile(dest / MANIFEST) and not os.path.islink(dest / MANIFEST):
        return
    top = os.listdir(dest)
    if len(top) == 1 and os.path.isdir(dest / top[0]) and os.path.isfile(dest / top[0] / MANIFEST):
        lifted = dest.with_name(dest.name + ".top")
        os.rename(dest / top[0], lifted)
        os.rmdir(dest)
        os.rename(lifted, dest)
        return
    raise ArchiveRefused(f"the archive has no {MANIFEST} at its root, nor a single folder holding one")


def _remove(path: Path) -> None:
    from ..sandbox.files import remove_tree  # not at import: the child process stays on the standard library

    remove_tree(path)


# --- the child process ----------------------------------------------------------------------------------

def _vm_kib(field: str) -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def die_with(parent: int) -> None:
    """SIGKILL this process (a child of the server's) when the server's thread that started it ends, a kill -9
    of the server included (PR_SET_PDEATHSIG); if the server is gone already, end now. The unpacker and the
    validation child call it first thing: neither runs on beside a restarted server."""
    import ctypes
    import signal

    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # 1: PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(1)


def _cap_self(limits: Limits) -> None:
    """The child's own limits, set before it opens the archive (it is single-threaded: no preexec_fn)."""
    import resource

    data = _vm_kib("VmData") * 1024 + MEMORY_HEADROOM
    resource.setrlimit(resource.RLIMIT_DATA, (data, data))
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class _ChildReport(TypedDict, total=False):
    """The unpacking child's one line to the server: what it made (``Unpacked``'s fields) or why it
    refused, and its memory (KiB) at its start and peak."""

    ok: dict[str, int]
    refused: str
    rss_start_kib: int
    rss_peak_kib: int


def _child(argv: list[str]) -> int:
    src, dest, limits = argv[0], Path(argv[1]), Limits(**json.loads(argv[2]))
    die_with(int(argv[3]))
    start = _vm_kib("VmRSS")
    _cap_self(limits)
    try:
        done = unpack(src, dest, limits, clean_up=False)  # the server removes it: no import here
        out: _ChildReport = {"ok": asdict(done)}
    except ArchiveRefused as e:
        out = {"refused": str(e)}
    except MemoryError:
        out = {"refused": str(_damaged(MemoryError()))}
    out["rss_start_kib"], out["rss_peak_kib"] = start, _vm_kib("VmHWM")
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


def unpack_in_child(src: Path, dest: Path, limits: Limits = Limits()) -> Unpacked:
    """:func:`unpack` in a child process under RLIMIT_DATA (its start plus ``MEMORY_HEADROOM``), RLIMIT_CPU
    and a wall-clock limit: the server's memory and interpreter never see the archive. Raises
    ArchiveRefused (its sentence) or UnpackFailed (the server's own trouble); ``dest`` is gone after both."""
    argv = [sys.executable, "-m", "arena.serve.archive", str(src), str(dest), json.dumps(asdict(limits)),
            str(os.getpid())]
    try:
        child = subprocess.run(argv, capture_output=True, text=True, timeout=limits.wall_seconds, check=False)
    except subprocess.TimeoutExpired:
        _remove(dest)
        raise ArchiveRefused(f"unpacking the archive took longer than {limits.wall_seconds:g} s") from None
    except OSError as e:
        _remove(dest)
        raise UnpackFailed(f"the unpacker could not start: {e}") from None
    try:
        got: _ChildReport = json.loads(child.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        _remove(dest)
        if child.returncode in (-9, -24):  # SIGKILL, SIGXCPU: over the CPU cap
            raise ArchiveRefused("unpacking the archive needed more CPU time than the server allows") from None
        raise UnpackFailed(f"the unpacker failed (exit {child.returncode}): {child.stderr[-500:].strip()}") from None
    if "refused" in got:
        _remove(dest)
        refusal = ArchiveRefused(got["refused"])
        refusal.rss_start_kib, refusal.rss_peak_kib = got["rss_start_kib"], got["rss_peak_kib"]  # type: ignore[attr-defined]
        raise refusal
    return Unpacked(**{**got["ok"], "rss_start_kib": got["rss_start_kib"], "rss_peak_kib": got["rss_peak_kib"]})


def pack(botdir: Path) -> bytes:
    """A .tar.gz of a bot folder with its files at the root: what `arena submit` uploads. The same walk as
    the bot's identity (no caches, no links; any depth without recursion), modes kept."""
    from ..sandbox.files import walk_folder

    listing = walk_folder(botdir)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for rel in listing.empty_dirs:
            tf.add(os.path.join(listing.root, rel), arcname=rel, recursive=False)
        for rel, path, _ in listing.files:
            tf.add(path, arcname=rel, recursive=False)
    return buf.getvalue()


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1:]))
