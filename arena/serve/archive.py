"""Unpack an uploaded bot archive without trusting it.

Our own walker, not ``extractall``: every entry is judged before a byte is
written, only regular files and folders are made, and the total uncompressed
size is counted while writing so a decompression bomb stops at the cap.
Each refusal is one sentence (``ArchiveRefused``).
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Iterator

CHUNK = 1 << 16


class ArchiveRefused(ValueError):
    """An archive broke a rule; the message is the one sentence shown to the team."""


@dataclass(frozen=True)
class Limits:
    max_bytes: int = 50 << 20  # the upload itself
    max_files: int = 2000
    max_unpacked: int = 200 << 20  # total bytes written while unpacking


def _safe_name(name: str) -> PurePosixPath:
    """A relative path inside the destination, or a refusal naming the entry."""
    if "\\" in name or "\x00" in name:
        raise ArchiveRefused(f"the entry {name!r} has a backslash or NUL in its name")
    p = PurePosixPath(name)
    if p.is_absolute():
        raise ArchiveRefused(f"the entry {name!r} has an absolute path")
    if ".." in p.parts:
        raise ArchiveRefused(f"the entry {name!r} climbs out of the folder with '..'")
    parts = [x for x in p.parts if x not in ("", ".")]
    return PurePosixPath(*parts) if parts else PurePosixPath(".")


def _entries_tar(tf: tarfile.TarFile) -> Iterator[tuple[str, bool, IO[bytes] | None]]:
    for m in tf:
        if m.issym() or m.islnk():
            raise ArchiveRefused(f"the entry {m.name!r} is a link; links are not accepted")
        if m.isdev() or m.isfifo() or not (m.isreg() or m.isdir()):
            raise ArchiveRefused(f"the entry {m.name!r} is a device, FIFO or other special file")
        yield m.name, m.isdir(), (tf.extractfile(m) if m.isreg() else None)


def _entries_zip(zf: zipfile.ZipFile) -> Iterator[tuple[str, bool, IO[bytes] | None]]:
    for info in zf.infolist():
        mode = info.external_attr >> 16
        if mode and stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
            raise ArchiveRefused(f"the entry {info.filename!r} is a link or special file; only files are accepted")
        yield info.filename, info.is_dir(), (None if info.is_dir() else zf.open(info))


def unpack(data: bytes, dest: Path, limits: Limits = Limits()) -> int:
    """Unpack ``data`` (a .tar.gz or .zip) into the new folder ``dest``; returns the file count.
    A refused archive leaves no ``dest`` behind."""
    if len(data) > limits.max_bytes:
        raise ArchiveRefused(f"the archive is {len(data)} bytes, over the limit of {limits.max_bytes}")
    dest.mkdir(parents=True)
    try:
        return _unpack(data, dest.resolve(), limits)
    except ArchiveRefused:
        shutil.rmtree(dest, ignore_errors=True)
        raise


def _unpack(data: bytes, root: Path, limits: Limits) -> int:
    if data[:2] == b"\x1f\x8b":
        try:
            tf = tarfile.open(fileobj=io.BytesIO(data), mode="r:gz")
        except (tarfile.TarError, OSError, EOFError) as e:
            raise ArchiveRefused(f"the archive is not a readable .tar.gz ({e})") from None
        entries = _entries_tar(tf)
    elif data[:4] == b"PK\x03\x04":
        try:
            entries = _entries_zip(zipfile.ZipFile(io.BytesIO(data)))
        except zipfile.BadZipFile as e:
            raise ArchiveRefused(f"the archive is not a readable .zip ({e})") from None
    else:
        raise ArchiveRefused("the upload is neither a .tar.gz nor a .zip")
    files = written = 0
    try:
        for name, is_dir, src in entries:
            rel = _safe_name(name)
            target = root / rel
            if os.path.commonpath([root, target.resolve()]) != str(root):
                raise ArchiveRefused(f"the entry {name!r} would land outside the folder")
            if is_dir:
                target.mkdir(parents=True, exist_ok=True)
                continue
            files += 1
            if files > limits.max_files:
                raise ArchiveRefused(f"the archive has more than {limits.max_files} files")
            target.parent.mkdir(parents=True, exist_ok=True)
            assert src is not None
            # O_EXCL|O_NOFOLLOW: a name given twice, or anything already there, is never followed or overwritten
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
            with os.fdopen(fd, "wb") as out:
                while chunk := src.read(CHUNK):
                    written += len(chunk)
                    if written > limits.max_unpacked:
                        raise ArchiveRefused(f"the archive unpacks to more than {limits.max_unpacked} bytes")
                    out.write(chunk)
    except FileExistsError as e:
        raise ArchiveRefused(f"the entry {Path(e.filename or '').name!r} appears twice in the archive") from None
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as e:
        raise ArchiveRefused(f"the archive is damaged ({type(e).__name__})") from None
    return files


def pack(botdir: Path) -> bytes:
    """A .tar.gz of a bot folder with its files at the root: what `arena submit` uploads."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for p in sorted(botdir.rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts:
                tf.add(p, arcname=str(p.relative_to(botdir)), recursive=False)
    return buf.getvalue()
