"""The file-system side of a launch: reading a bot folder, copies, staging, scratch removal.

A bot folder is hostile input. It is walked with `lstat` only and never
through a link: regular files and folders are accepted, and links whose
target stays inside the folder or points into the system folders every
sandbox shows (a venv's `bin/python3 -> /usr/bin/python3`) are kept as links,
never followed by the harness; anything else (a link out, FIFOs, devices,
sockets) refuses the folder with `FolderRefused`, a fault of that bot naming
the path. Reading is capped in files and bytes
and done in chunks, so no folder can hang the harness or fill its memory.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .errors import BotFault

#: Most files (and folders) a bot folder may hold.
MAX_FILES = 20_000
#: Most names in a path below the bot folder (``a/b/c`` is 3): every walk, copy and removal here is
#: iterative, but other tools (and the stdlib's ``shutil``) recurse per level.
MAX_DEPTH = 64
#: Most bytes all the files of a bot folder may hold together (apparent size,
#: holes included: a sparse file counts at its full length).
MAX_BYTES = 256 * 1024 * 1024
#: Folders and file names that are caches or version control, not the bot:
#: left out of its identity, and at level bwrap hidden from the bot (so no
#: byte the identity does not cover can be read or run).
CACHE_DIRS = frozenset({"__pycache__", ".git", ".pytest_cache", ".mypy_cache"})
CACHE_SUFFIXES = (".pyc", ".pyo")
_CHUNK = 1 << 20


class FolderRefused(BotFault):
    """A bot folder the harness will not read: a link, a special file, or over a cap."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"bot folder refused: {path}: {reason}")
        self.path = path
        self.reason = reason


@dataclass
class FolderListing:
    """What a walk of a bot folder found: its files, its caches, whether any uid can read it."""

    root: str
    files: list[tuple[str, str, int]] = field(default_factory=list)  # (relative path, path, size), sorted
    caches: list[str] = field(default_factory=list)  # paths of cache folders and files, hidden from the bot
    empty_dirs: list[str] = field(default_factory=list)  # relative paths of folders holding no file, sorted
    links: list[tuple[str, str]] = field(default_factory=list)  # (relative path, target text), sorted
    world_readable: bool = True  # every folder o+rx, every file o+r


#: Absolute link targets a bot folder may hold: the system folders every sandbox shows (a venv's
#: interpreter). Resolved inside the sandbox's view only; the harness never follows them.
SYSTEM_TARGETS = ("/usr/", "/bin/", "/lib/", "/lib64/")
_MAX_HOPS = 40


def link_stays_inside(rel: str, links: dict[str, str]) -> bool:
    """Whether the link at `rel` (relative to the folder) resolves, through the folder's own
    links, to a path inside the folder or into `SYSTEM_TARGETS`: resolved component by component
    as the kernel would (`u -> .` then `u/../x` leaves the folder, and is caught), never on disk."""
    parts = rel.split("/")
    pending = _target_parts(parts[:-1], links[rel])
    if pending and pending[0] == "/":
        return _system(pending)
    here: list[str] = []
    hops = 0
    while pending:
        part = pending.pop(0)
        if part == "/":
            return _system(["/", *pending])
        if part in ("", "."):
            continue
        if part == "..":
            if not here:
                return False  # above the folder
            here.pop()
            continue
        here.append(part)
        key = "/".join(here)
        if key in links:
            hops += 1
            if hops > _MAX_HOPS:
                return False
            here.pop()
            target = _target_parts(here, links[key])
            if target and target[0] == "/":
                return _system([*target, *pending])
            pending, here = [*target, *pending], []  # the target's components, from the folder's top
    return True


def _target_parts(base: list[str], text: str) -> list[str]:
    """A link's target as components: absolute ones start with "/", relative ones are joined to `base`."""
    if text.startswith("/"):
        return ["/", *[p for p in text.split("/") if p]]
    return [*base, *[p for p in text.split("/") if p]]


def _system(parts: list[str]) -> bool:
    path = os.path.normpath("/" + "/".join(p for p in parts if p != "/"))
    return any(path.startswith(t) for t in SYSTEM_TARGETS)


def is_cache(name: str, is_dir: bool) -> bool:
    """True for a cache folder or compiled file (`__pycache__`, `*.pyc`)."""
    return name in CACHE_DIRS if is_dir else name.endswith(CACHE_SUFFIXES)


def walk_folder(root: str | os.PathLike[str], *, max_files: int = MAX_FILES, max_bytes: int = MAX_BYTES,
                max_depth: int = MAX_DEPTH) -> FolderListing:
    """Every regular file under `root` by `lstat`, never following a link.

    Raises FolderRefused for a symlink, FIFO, socket or device (anywhere,
    caches included), for more than `max_files` entries (files and folders
    alike), `max_bytes` bytes or a path more than `max_depth` names deep.
    Nothing is opened: a FIFO is refused, never read. Iterative: no depth
    reaches the stack.
    """
    top = os.path.realpath(root)
    out = FolderListing(top)
    if os.stat(top).st_mode & 0o005 != 0o005:
        out.world_readable = False
    seen = 0
    total = 0
    dirs: list[str] = []
    pending = [""]
    while pending:
        rel_dir = pending.pop()
        here = os.path.join(top, rel_dir) if rel_dir else top
        entries: list[os.DirEntry[str]] = []
        try:
            with os.scandir(here) as listing:
                for entry in listing:  # counted as they come: a folder of a million names is never held
                    seen += 1
                    if seen > max_files:
                        raise FolderRefused(top, f"more than {max_files} files and folders")
                    entries.append(entry)
        except OSError as exc:
            raise FolderRefused(here, f"cannot list it ({exc.strerror})") from None
        entries.sort(key=lambda e: e.name)
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            if rel.count("/") >= max_depth:
                raise FolderRefused(entry.path, f"more than {max_depth} names deep below the bot folder")
            st = entry.stat(follow_symlinks=False)
            mode = st.st_mode
            if stat.S_ISDIR(mode):
                if mode & 0o005 != 0o005:
                    out.world_readable = False
                in_cache = any(p in CACHE_DIRS for p in rel.split("/")[:-1])
                if is_cache(entry.name, True) and not in_cache:
                    out.caches.append(entry.path)
                elif not in_cache:
                    dirs.append(rel)
                pending.append(rel)
                continue
            if stat.S_ISLNK(mode):
                in_cache = any(p in CACHE_DIRS for p in rel.split("/")[:-1])
                if not in_cache:
                    out.links.append((rel, os.readlink(entry.path)))
                continue
            if not stat.S_ISREG(mode):
                raise FolderRefused(entry.path, _kind(mode) + " (only regular files, folders and links inside "
                                                 "the folder are accepted)")
            if mode & 0o004 != 0o004:
                out.world_readable = False
            total += st.st_size
            if total > max_bytes:
                raise FolderRefused(top, f"more than {max_bytes} bytes of files")
            in_cache = any(p in CACHE_DIRS for p in rel.split("/")[:-1])
            if in_cache or is_cache(entry.name, False):
                if not in_cache:
                    out.caches.append(entry.path)
                continue
            out.files.append((rel, entry.path, st.st_size))
    out.files.sort()
    out.links.sort()
    table = dict(out.links)
    for rel, text in out.links:
        if not link_stays_inside(rel, table):
            raise FolderRefused(os.path.join(top, rel), f"a symbolic link to {text!r}, out of the folder "
                                "(a link may point inside it, or into /usr, /bin, /lib, /lib64)")
    # Folders no file or other folder of the listing lies in: their names too are read by the bot.
    inner = {rel.rsplit("/", 1)[0] for rel, _, _ in out.files if "/" in rel}
    inner |= {rel.rsplit("/", 1)[0] for rel, _ in out.links if "/" in rel}
    inner |= {d.rsplit("/", 1)[0] for d in dirs if "/" in d}
    inner = {p for d in inner for p in _prefixes(d)}
    out.empty_dirs = sorted(d for d in dirs if d not in inner)
    return out


def _prefixes(rel: str) -> list[str]:
    parts = rel.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def read_chunks(path: str, size: int) -> Iterator[bytes]:
    """The bytes of regular file `path` in chunks, at most `size` of them (its lstat size).

    Opened with O_NOFOLLOW | O_NONBLOCK and checked to be the regular file
    walked, so a file swapped for a FIFO or a link meanwhile cannot hang or
    redirect the read.
    """
    fd = _open_walked(path, "read")
    try:
        left = size
        while left > 0:
            chunk = os.read(fd, min(_CHUNK, left))
            if not chunk:
                break
            left -= len(chunk)
            yield chunk
    finally:
        os.close(fd)


def default_scratch_root() -> Path:
    """Harness-owned folder holding every launch's scratch dir and copies (mode 0700)."""
    root = Path(tempfile.gettempdir()) / f"cinch-arena-scratch-{os.geteuid()}"
    root.mkdir(mode=0o700, exist_ok=True)
    return root


def remove_tree(path: Path) -> str | None:
    """Remove a folder whatever is in it (any depth, modes, fifos, sockets).

    Every sub-folder is first moved up to the top level, so no path ever gets
    deep and at most two descriptors are open: depth cannot exhaust the stack,
    PATH_MAX or the descriptor limit. Returns what could not be removed
    instead of raising.
    """
    try:
        os.chmod(path, 0o700)
        top = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"scratch {path} not removed: {exc}"
    moved = 0
    try:
        pending = [e.name for e in os.scandir(top)]
        while pending:
            name = pending.pop()
            st = os.stat(name, dir_fd=top, follow_symlinks=False)
            if not stat.S_ISDIR(st.st_mode):
                os.unlink(name, dir_fd=top)
                continue
            os.chmod(name, 0o700, dir_fd=top)
            sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=top)
            try:
                for entry in os.scandir(sub):
                    if entry.is_dir(follow_symlinks=False):
                        moved += 1
                        flat = f".flat-{moved}"
                        os.rename(entry.name, flat, src_dir_fd=sub, dst_dir_fd=top)
                        pending.append(flat)
                    else:
                        os.unlink(entry.name, dir_fd=sub)
            finally:
                os.close(sub)
            os.rmdir(name, dir_fd=top)
        os.close(top)
        top = -1
        os.rmdir(path)
    except OSError as exc:
        return f"scratch {path} not fully removed: {exc}"
    finally:
        if top >= 0:
            os.close(top)
    return None


def world_reachable(path: str) -> bool:
    """True if any uid can reach `path` (every ancestor o+x) and list/read it (o+r)."""
    parts = Path(path).parts
    for i in range(1, len(parts)):
        try:
            mode = os.stat(os.path.join(*parts[:i])).st_mode
        except OSError:
            return False
        if not mode & stat.S_IXOTH:
            return False
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return True  # bwrap skips what does not exist
    return bool(mode & stat.S_IROTH and (not stat.S_ISDIR(mode) or mode & stat.S_IXOTH))


def readable_copy(listing: FolderListing) -> str:
    """A copy of the walked bot folder with modes any uid can read, in a root-only folder.

    For a bot folder with private modes; it reaches the bot's uid through
    the staging binds, never through the host's path permissions. A copy
    that fails part-way is removed before the error goes on.
    """
    holder = Path(tempfile.mkdtemp(prefix="bot-copy-", dir=default_scratch_root()))
    dest = holder / "bot"
    try:
        copy_listing(listing, dest)
    except BaseException:
        remove_tree(holder)
        raise
    return str(dest)


def copy_listing(listing: FolderListing, dest: Path) -> None:
    """Copy the walked files and links (no caches) to the new folder `dest`, readable by any
    uid (folders 0755, files 0644 or 0755), in chunks, holes kept as holes; links as links (never
    followed). Iterative: no depth reaches the stack."""
    dest.mkdir(mode=0o755)
    dest.chmod(0o755)
    made: set[str] = set()

    def folders(rel: str) -> None:  # each missing folder of `rel` in turn, outermost first: no recursion
        parts = rel.split("/")
        for i in range(1, len(parts) + 1):
            sub = "/".join(parts[:i])
            if sub not in made:
                os.mkdir(dest / sub, 0o755)
                os.chmod(dest / sub, 0o755)
                made.add(sub)

    for rel in listing.empty_dirs:
        folders(rel)
    for rel, src, size in listing.files:
        target = dest / rel
        if "/" in rel:
            folders(rel.rsplit("/", 1)[0])
        _copy_sparse(src, str(target), size)
        os.chmod(target, 0o755 if os.stat(src, follow_symlinks=False).st_mode & 0o111 else 0o644)
    for rel, text in listing.links:  # as links: never followed here, resolved in the bot's own view
        if "/" in rel:
            folders(rel.rsplit("/", 1)[0])
        os.symlink(text, dest / rel)



def _open_walked(path: str, doing: str) -> int:
    """Open a file the walk saw as regular, never following a link or blocking on a FIFO, and check it still is."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise FolderRefused(path, f"cannot open it ({exc.strerror})") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise FolderRefused(path, f"changed into a special file while {doing}")
    return fd

def _copy_sparse(src: str, dest: str, size: int) -> None:
    """Copy regular file `src` (at most `size` bytes) to a new `dest`, data only: holes stay holes."""
    fd_in = _open_walked(src, "copied")
    try:
        fd_out = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            pos = 0
            while pos < size:
                try:
                    pos = os.lseek(fd_in, pos, os.SEEK_DATA)
                    end = min(os.lseek(fd_in, pos, os.SEEK_HOLE), size)
                except OSError:  # ENXIO: only a hole is left
                    break
                while pos < end:
                    chunk = os.pread(fd_in, min(_CHUNK, end - pos), pos)
                    if not chunk:
                        end = pos
                        break
                    os.pwrite(fd_out, chunk, pos)
                    pos += len(chunk)
            os.ftruncate(fd_out, size)
        finally:
            os.close(fd_out)
    finally:
        os.close(fd_in)
