"""Shipping bot folders to workers by digest, without a shared filesystem.

The driver packs each bot folder once (``pack``); a worker unpacks it into a
cache folder named by the digest (``materialize``) unless it is already
there, and checks the unpacked files against the digest before first use,
so a worker can never play a different bot than the one the results name.
"""

from __future__ import annotations

import io
import os
import shutil
import tarfile
import tempfile
from pathlib import Path

from ..players import BotEntry, folder_digest
from ..players.manifest import ManifestError, identity_digest, library_path
from ..sandbox import HarnessError
from ..sandbox.files import walk_folder


def cache_root() -> Path:
    """Where workers keep unpacked bots (``ARENA_BOT_CACHE`` overrides)."""
    return Path(os.environ.get("ARENA_BOT_CACHE") or Path(tempfile.gettempdir()) / "cinch-arena-bots")


def pack(entry: BotEntry) -> bytes:
    """A gzip tar of the bot folder's files (the same walk the digest covers: no links,
    no special files, no caches); empty for a refused folder, which never runs."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        if not entry.refused:
            listing = walk_folder(entry.dir)
            for rel in listing.empty_dirs:
                tar.add(os.path.join(listing.root, rel), arcname=rel, recursive=False)
            for rel, path, _ in listing.files:
                tar.add(path, arcname=rel, recursive=False)
            for rel, _ in listing.links:  # the link itself, which the digest covers by its text
                tar.add(os.path.join(listing.root, rel), arcname=rel, recursive=False)
    return buf.getvalue()


def materialize(entry: BotEntry, data: bytes, root: Path | None = None) -> BotEntry:
    """The entry with ``dir`` pointing at a verified local copy of its folder."""
    root = root or cache_root()
    target = root / entry.folder_digest
    if entry.refused:  # it faults before any launch: nothing to unpack or verify
        return entry
    if not target.is_dir():
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{entry.folder_digest[:12]}-", dir=root))
        try:
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
                _safe_extract(tar, tmp)
            got = folder_digest(tmp)
            if got != entry.folder_digest:
                raise HarnessError(
                    f"bot {entry.ident}: unpacked folder has digest {got[:12]}, expected {entry.folder_digest[:12]}"
                )
            try:
                os.rename(tmp, target)
            except OSError:
                if not target.is_dir():  # a concurrent worker did not win the race either
                    raise
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    check_libraries(entry)
    return entry.model_copy(update={"dir": str(target)})


def check_libraries(entry: BotEntry) -> None:
    """The harness libraries a bot runs with (SDK, engine) come from this
    node's installation, not from the bundle: refuse to play if they are
    missing here or differ from the driver's, since the bot's identity (and
    its play) includes them."""
    libs = entry.manifest.libraries
    if not libs:
        return
    missing = []
    for lib in libs:
        try:
            if not library_path(lib).is_dir():
                missing.append(lib)
        except ManifestError:
            missing.append(lib)
    if missing:
        raise HarnessError(f"bot {entry.ident}: library {', '.join(missing)} is not installed on this node")
    here = identity_digest(entry.folder_digest, libs)
    if here != entry.digest:
        raise HarnessError(
            f"bot {entry.ident}: the libraries {', '.join(libs)} on this node differ from the driver's"
            f" (identity {here[:12]} here, {entry.digest[:12]} there)"
        )


def _safe_extract(tar: tarfile.TarFile, dest: Path) -> None:
    """Extract only regular files and folders that stay inside ``dest``.

    The bundles are ours, but a worker should not trust bytes it was sent;
    Python before 3.11.4 has no ``extractall(filter=...)`` to do this for us.
    """
    base = dest.resolve()
    members = tar.getmembers()
    for m in members:
        target = os.path.normpath(os.path.join(base, m.name))
        if not (m.isfile() or m.isdir() or m.issym()) or not Path(target).is_relative_to(base) or ".." in Path(m.name).parts:
            raise HarnessError(f"bot bundle holds an unsafe entry {m.name!r}")
    # links last, so no file is written through one; the digest check after unpacking walks the
    # folder again as hostile input (a link out of it is refused there)
    for m in sorted(members, key=lambda m: m.issym()):
        if m.issym():
            out = base / m.name
            out.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(m.linkname, out)
            continue
        if m.isdir():
            (base / m.name).mkdir(parents=True, exist_ok=True)
            continue
        out = base / m.name
        out.parent.mkdir(parents=True, exist_ok=True)
        src = tar.extractfile(m)
        assert src is not None
        out.write_bytes(src.read())
        out.chmod(m.mode & 0o755 | 0o644)

