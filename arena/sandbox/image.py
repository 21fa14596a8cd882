"""Resident images: what a bot at level gvisor reads, in memory that no seat can evict or watch.

One Linux page cache is shared by every process of a host, and gVisor's
file server reads through it: a seat that reads a shared file caches it,
its partner can time the same read (docs/sandbox.md, "Residual channels").
So at level gvisor a bot reads nothing of the host's disks:

- **Runtime images** (`runtime_image`): the files a runtime needs
  (`arena.sandbox.runtime`), copied once into a tmpfs of their own. tmpfs
  pages are always resident (these machines have no swap), so a read
  costs the same whether or not anyone read it before, and no seat can
  push a page out. Images are shared by every seat of the host and kept
  while any process uses them; a root harness mounts each as a tmpfs of
  its own (its `statfs` never moves), an unprivileged one keeps them in a
  folder of `/dev/shm`.
- **The launch area** (`LaunchArea`): per bot process, a tmpfs holding a
  private copy of the bot folder and of its libraries, its scratch
  (home, tmp, shm, capped in bytes and files), the OCI bundle and gVisor's
  state. It goes with the process.
"""

from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import fcntl
import hashlib
import json
import os
import re
import shutil
import stat
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

from . import reaper
from .bytecode import write_pycs
from .errors import HarnessError
from .files import FolderListing, copy_listing, remove_tree
from .runtime import SKIP_NAMES, Runtime, elf_closure, elf_info, resolve

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT = 1, 2, 4, 32
MNT_DETACH = 2
#: Folders at the top of a system view, each bound whole from an image.
TOP_FOLDERS = ("/usr", "/etc", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", "/opt")
#: Files of the view's /etc written by the harness: no host user is named.
GENERATED = {
    "/etc/passwd": b"root:x:0:0:root:/root:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/scratch:/usr/sbin/nologin\n",
    "/etc/group": b"root:x:0:\nnogroup:x:65534:\n",
}
#: Host files every view holds (the loader's cache and configuration, the time zone).
BASE_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/nsswitch.conf", "/etc/localtime")
BASE_TREES = ("/etc/ld.so.conf.d",)
_MARK = ".cinch-image"
#: Changes whenever what an image holds or how it is bound changes: older images are not reused.
IMAGE_FORMAT = 1
_lock = threading.Lock()
_held: dict[str, int] = {}  # image key -> descriptor holding its shared lock for this process's life
_plans: dict[str, "ImagePlan"] = {}


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)


def mount_tmpfs(target: str, size: int, inodes: int, mode: int = 0o755, flags: int = MS_NOSUID | MS_NODEV) -> None:
    """Mount a tmpfs of `size` bytes and `inodes` files on `target` (root only).

    gVisor's file server re-binds what it serves inside a user namespace, where the flags of
    the mount below are locked: whatever is set here it must set again, so a launch area (the
    sandbox's root, remounted read-only with no other flag) is mounted with none."""
    opts = f"size={max(size, 1 << 20)},nr_inodes={max(inodes, 64)},mode={mode:o}".encode()
    if _libc().mount(b"cinch-arena", target.encode(), b"tmpfs", flags, opts) != 0:
        err = ctypes.get_errno()
        raise HarnessError(f"cannot mount a tmpfs on {target}: {os.strerror(err)}")


def remount_ro(target: str) -> None:
    flags = MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV  # read-only: no read ever updates an atime
    if _libc().mount(b"cinch-arena", target.encode(), b"tmpfs", flags, None) != 0:
        raise HarnessError(f"cannot make {target} read-only: {os.strerror(ctypes.get_errno())}")


def unmount(target: str) -> bool:
    """Detach the mount on `target`; True if there was one."""
    return bool(_libc().umount2(target.encode(), MNT_DETACH) == 0)


def can_mount() -> bool:
    return os.geteuid() == 0


def home_root() -> Path:
    """Where images and launch areas live: root's /run/cinch-arena, else a folder of /dev/shm."""
    if can_mount():
        return Path("/run/cinch-arena")
    return Path("/dev/shm") / f"cinch-arena-{os.geteuid()}"


def launch_base() -> Path:
    """The folder of gVisor's launch areas (one per seat, named by its judge: the reaper ends them)."""
    return home_root() / "gvisor"


def _folder(path: Path, mode: int) -> Path:
    path.mkdir(mode=mode, parents=True, exist_ok=True)
    os.chmod(path, mode)
    return path


# ------------------------------------------------------------------ plans
@dataclass
class ImagePlan:
    """Every entry of an image, by its path in the view: folders, files (with their host source), links."""

    dirs: set[str] = field(default_factory=set)
    files: dict[str, str] = field(default_factory=dict)  # view path -> host path
    links: dict[str, str] = field(default_factory=dict)  # view path -> link text
    data: dict[str, bytes] = field(default_factory=dict)  # view path -> generated content
    trees: set[str] = field(default_factory=set)  # folders copied whole
    size: int = 0

    def key(self) -> str:
        h = hashlib.sha256(f"cinch-arena image {IMAGE_FORMAT}\n".encode())
        for path in sorted(self.files):
            st = os.stat(self.files[path])
            h.update(f"F {path} {st.st_size} {st.st_mtime_ns} {st.st_ino}\n".encode())
        for path in sorted(self.links):
            h.update(f"L {path} {self.links[path]}\n".encode())
        for path in sorted(self.dirs):
            h.update(f"D {path}\n".encode())
        for path in sorted(self.data):
            h.update(f"G {path} ".encode() + hashlib.sha256(self.data[path]).digest() + b"\n")
        return h.hexdigest()[:32]

    def mounts(self) -> list[str]:
        """The folders of the view to bind from the image: the top system folders whole,
        elsewhere the smallest folders that hold the image's entries."""
        roots: set[str] = set()
        top_links = self.top_links()
        for path in [*self.files, *self.links, *self.data, *self.trees]:
            top = "/" + path.split("/")[1]
            if top in top_links:
                continue
            if top in TOP_FOLDERS:
                roots.add(top)
            elif os.path.dirname(path) != "/":
                roots.add(path if path in self.trees else os.path.dirname(path))
        ordered = sorted(roots, key=lambda p: (p.count("/"), p))
        kept: list[str] = []
        for root in ordered:
            if not any(root == k or root.startswith(k + "/") for k in kept):
                kept.append(root)
        return sorted(kept)

    def top_links(self) -> dict[str, str]:
        """Links directly under / (the merged-usr `/bin -> usr/bin`): made in each launch's root."""
        return {p: t for p, t in self.links.items() if os.path.dirname(p) == "/"}


def _skip(name: str) -> bool:
    return name in SKIP_NAMES or bool(re.match(r"config-\d", name))


def _walk_tree(tree: str, plan: ImagePlan, work: Runtime, allowed: tuple[str, ...]) -> list[str]:
    """Add a host folder's entries to `plan` (links as links; what a link out of it points at to
    `work`); returns the files that may be ELF objects."""
    elves: list[str] = []
    real_tree = resolve(tree, work.links, allowed)
    if real_tree is None or not os.path.isdir(real_tree):
        return elves
    plan.trees.add(real_tree)
    pending = [real_tree]
    while pending:
        here = pending.pop()
        plan.dirs.add(here)
        try:
            entries = list(os.scandir(here))
        except OSError:
            continue
        for entry in entries:
            if _skip(entry.name):
                continue
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                pending.append(entry.path)
            elif stat.S_ISLNK(st.st_mode):
                text = os.readlink(entry.path)
                plan.links[entry.path] = text
                target = os.path.normpath(text if text.startswith("/") else os.path.join(here, text))
                if not target.startswith(real_tree + "/"):
                    real = resolve(target, work.links, allowed)
                    if real and os.path.isdir(real):
                        work.trees.add(real)
                    elif real:
                        work.files.add(real)
            elif stat.S_ISREG(st.st_mode):
                plan.files[entry.path] = entry.path
                plan.size += st.st_size
                if st.st_mode & 0o111 or ".so" in entry.name:
                    elves.append(entry.path)
    return elves


def plan_image(rt: Runtime, allowed: tuple[str, ...] = ()) -> ImagePlan:
    """The entries of an image of `rt`: its trees walked (links kept as links, the targets of
    links that leave a tree added), the libraries of every ELF file in them, and the base /etc."""
    work = Runtime(set(rt.trees) | set(BASE_TREES), set(rt.files), dict(rt.links))
    for path in BASE_FILES:
        real = resolve(path, work.links, allowed)
        if real:
            work.files.add(real)
    plan = ImagePlan()
    done_trees: set[str] = set()
    while True:
        elves: list[str] = []
        for tree in sorted(t for t in work.trees if t not in done_trees):
            done_trees.add(tree)
            elves += _walk_tree(tree, plan, work, allowed)
        for path in sorted(work.files - plan.files.keys()):
            try:
                st = os.stat(path)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                plan.files[path] = path
                plan.size += st.st_size
                elves.append(path)
        if not elves and not (work.trees - done_trees):
            break
        elf_closure(elves, work, allowed)
        if not (work.files - plan.files.keys()) and not (work.trees - done_trees):
            break
    for link, text in work.links.items():
        plan.links.setdefault(link, text)
    for path, data in GENERATED.items():
        plan.files.pop(path, None)
        plan.data[path] = data
        plan.size += len(data)
    # every folder on the way to an entry is in the image too
    for path in [*plan.files, *plan.links, *plan.data, *list(plan.dirs)]:
        parent = os.path.dirname(path)
        while parent not in ("/", "") and parent not in plan.dirs:
            plan.dirs.add(parent)
            parent = os.path.dirname(parent)
    for link in list(plan.links):
        plan.files.pop(link, None)
        plan.dirs.discard(link)
    return plan


# ----------------------------------------------------------------- images
@dataclass(frozen=True)
class Image:
    """A built runtime image: its host folder and the view folders to bind from it."""

    key: str
    root: str  # host folder whose `tree/` mirrors the view
    mounts: tuple[str, ...]
    top_links: tuple[tuple[str, str], ...]

    def source(self, view_path: str) -> str:
        return os.path.join(self.root, "tree", view_path.lstrip("/"))

    def size(self, view_path: str) -> tuple[int, int]:
        """Bytes and entries of the image's folder `view_path` (links and folders count as entries)."""
        total = entries = 0
        for folder, dirs, files in os.walk(self.source(view_path)):
            entries += len(dirs) + len(files)
            total += sum(os.lstat(os.path.join(folder, f)).st_size for f in files)
        return total, entries


def _images_dir() -> Path:
    return _folder(home_root() / "images", 0o711)


def _lock_file(path: Path, how: int) -> int | None:
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, how)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def _build(plan: ImagePlan, folder: Path) -> None:
    """Copy the plan into `folder` (its own tmpfs for root), then make it read-only."""
    entries = len(plan.files) + len(plan.links) + len(plan.dirs) + len(plan.data) + 16
    if can_mount():
        # every file takes whole pages; folders and links take a page each at most
        size = sum(-(-os.stat(src).st_size // 4096) * 4096 for src in plan.files.values())
        mount_tmpfs(str(folder), size + entries * 4096 + (4 << 20), entries, 0o755)
    tree = folder / "tree"
    tree.mkdir(mode=0o755)
    for path in sorted(plan.dirs, key=lambda p: p.count("/")):
        (tree / path.lstrip("/")).mkdir(mode=0o755, exist_ok=True)
    for path, text in plan.links.items():
        dest = tree / path.lstrip("/")
        dest.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        os.symlink(text, dest)
    for path, src in plan.files.items():
        dest = tree / path.lstrip("/")
        mode = os.stat(src).st_mode
        shutil.copyfile(src, dest, follow_symlinks=True)
        os.chmod(dest, 0o755 if mode & 0o111 else 0o644)  # never setuid, setgid or sticky
    for path, data in plan.data.items():
        dest = tree / path.lstrip("/")
        dest.write_bytes(data)
        os.chmod(dest, 0o644)
    for path in plan.dirs:
        os.chmod(tree / path.lstrip("/"), 0o755)
    (folder / _MARK).write_text(json.dumps({"mounts": plan.mounts(), "top_links": plan.top_links()}))
    if can_mount():
        remount_ro(str(folder))


def _drop(folder: Path) -> None:
    if can_mount():
        unmount(str(folder))
    remove_tree(folder)


def sweep_images(keep: Iterable[str] = ()) -> None:
    """Remove every image no living process holds (with the images lock held)."""
    base = _images_dir()
    keep = set(keep)
    for entry in os.scandir(base):
        if not entry.name.endswith(".lock") or entry.name[:-5] in keep or entry.name[:-5] in _held:
            continue
        key = entry.name[:-5]
        fd = _lock_file(base / entry.name, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if fd is None:
            continue
        try:
            _drop(base / key)
            os.unlink(base / entry.name)
        finally:
            os.close(fd)


def runtime_image(rt: Runtime, allowed: tuple[str, ...] = ()) -> Image:
    """The image of `rt`, built on first use on this host and held for this process's life."""
    plan_id = json.dumps([sorted(rt.trees), sorted(rt.files), sorted(rt.links.items()), sorted(allowed)])
    with _lock:
        plan = _plans.get(plan_id)
        if plan is None:
            plan = _plans[plan_id] = plan_image(rt, allowed)
        key = plan.key()
        base = _images_dir()
        folder = base / key
        if key not in _held:
            big = _lock_file(base / ".images.lock", fcntl.LOCK_EX)
            assert big is not None
            try:
                fd = _lock_file(base / f"{key}.lock", fcntl.LOCK_SH)
                assert fd is not None
                if not (folder / _MARK).exists():
                    sweep_images(keep=[key])
                    if folder.exists():
                        _drop(folder)  # a build that died half-way
                    folder.mkdir(mode=0o755)
                    try:
                        _build(plan, folder)
                    except BaseException:
                        _drop(folder)
                        os.close(fd)
                        raise
                _held[key] = fd
            finally:
                os.close(big)
        meta = json.loads((folder / _MARK).read_text())
    return Image(key, str(folder), tuple(meta["mounts"]), tuple(sorted(meta["top_links"].items())))


# ------------------------------------------------------------ launch areas
@dataclass
class LaunchArea:
    """The per-process folder of one launch at level gvisor (see the module's docstring)."""

    path: Path
    mounted: bool
    lock_fd: int
    copies: dict[str, str] = field(default_factory=dict)  # view path -> host folder of its private copy

    @classmethod
    def create(cls, *, copy_bytes: int, copy_entries: int, uid: int | None) -> "LaunchArea":
        base = _folder(launch_base(), 0o711)
        _sweep_areas(base)
        name = f"{reaper.names()}-{uuid.uuid4().hex[:16]}"  # the judge's: its watcher removes it
        lock = _lock_file(base / f"{name}.lock", fcntl.LOCK_EX)
        assert lock is not None
        path = base / name
        path.mkdir(mode=0o711)
        mounted = False
        try:
            if can_mount():
                # the copies' pages, the bundle and gVisor's state: written by the harness, never by the bot
                size = copy_bytes + copy_entries * 4096 + (4 << 20)
                mount_tmpfs(str(path), size, copy_entries + 256, 0o711, flags=0)
                mounted = True
            area = cls(path, mounted, lock)
            for sub, mode in (("rootfs", 0o755), ("state", 0o700), ("copies", 0o755)):
                _folder(path / sub, mode)
            if uid is not None:
                for sub in ("rootfs", "state"):
                    os.chown(path / sub, uid, uid)
            return area
        except BaseException:
            if mounted:
                unmount(str(path))
            remove_tree(path)
            os.close(lock)
            raise

    def copy_folder(self, view_path: str, listing: FolderListing, pycs: Mapping[str, bytes] = {}) -> str:
        """A private copy of a walked folder, to be bound read-only at `view_path`, with the
        harness's compiled `pycs` (`arena.sandbox.bytecode`)."""
        dest = self.path / "copies" / str(len(self.copies))
        copy_listing(listing, dest)
        write_pycs(dest, pycs)
        self.copies[view_path] = str(dest)
        return str(dest)

    def in_root(self, view_path: str) -> Path:
        """Where `view_path` lies in this launch's own root (its folders above made, 0755): a copy
        made there needs no bind. Each bind is a connection to runsc's file server, and the
        Sentry keeps a thread waiting on each that every freeze and thaw of the seat wakes
        (docs/sandbox.md, "Where a decision's time goes")."""
        dest = self.path / "rootfs" / view_path.lstrip("/")
        here = self.path / "rootfs"
        for name in Path(view_path.lstrip("/")).parent.parts:
            here = here / name
            if not here.is_dir():
                here.mkdir(mode=0o755)
                here.chmod(0o755)
        self.copies[view_path] = str(dest)
        return dest

    def copy_into_root(self, view_path: str, listing: FolderListing, pycs: Mapping[str, bytes] = {}) -> None:
        """A private copy of a walked folder at `view_path` of the root itself (read-only there),
        with the harness's compiled `pycs` (`arena.sandbox.bytecode`)."""
        dest = self.in_root(view_path)
        copy_listing(listing, dest)
        write_pycs(dest, pycs)

    def copy_image_folder(self, image: "Image", view_path: str) -> None:
        """The image's (small) folder `view_path` copied into the root: links as links, modes kept."""
        shutil.copytree(image.source(view_path), self.in_root(view_path), symlinks=True)

    def close(self) -> str | None:
        """Unmount and remove the area; what could not be removed, or None."""
        problem = None
        if self.mounted:
            unmount(str(self.path))
        problem = remove_tree(self.path)
        try:
            os.unlink(str(self.path) + ".lock")
        except OSError:
            pass
        os.close(self.lock_fd)
        return problem


_swept: set[str] = set()


def _sweep_areas(base: Path) -> None:
    """Once per process: remove the launch areas of harness processes that died without closing them."""
    if str(base) in _swept:
        return
    _swept.add(str(base))
    for entry in os.scandir(base):
        if not entry.name.endswith(".lock"):
            continue
        fd = _lock_file(base / entry.name, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if fd is None:
            continue
        try:
            folder = base / entry.name[:-5]
            if can_mount():
                unmount(str(folder))
            remove_tree(folder)
            os.unlink(base / entry.name)
        finally:
            os.close(fd)


@atexit.register
def _release_images() -> None:
    for fd in _held.values():
        try:
            os.close(fd)
        except OSError:
            pass
    _held.clear()
