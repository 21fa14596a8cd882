"""Compiled bytecode for the private copies of a launch at level gvisor.

A bot's folder and its libraries are copied without their caches (a `.pyc`
of other code would run under the identity of honest source), so each seat
compiled every module it imports, inside gVisor, at every start. The
harness compiles a library's modules instead (not the bot's own folder's:
the bot sees exactly its files there), once per source file per process,
and writes them into the copy as *checked-hash* pycs (PEP 552): the interpreter
inside reads the source beside it and runs the pyc only if the source's
hash matches, so a pyc never runs code other than the source it sits by,
whatever changed on the host meanwhile. A pyc for another interpreter
(another cache tag or magic number) is ignored by the bot's.
"""

from __future__ import annotations

import importlib.util
import marshal
import os
import sys
from typing import Mapping

from .files import FolderListing

#: PEP 552 flags: hash-based (bit 0), checked against the source on every import (bit 1).
_CHECKED_HASH = (0b11).to_bytes(4, "little")
#: Sources compiled this process: (path, size, mtime, inode, view path) -> the pyc's bytes or None.
_compiled: dict[tuple[str, int, int, int, str], bytes | None] = {}
_MAX_KEPT = 4096


def pyc_bytes(source: str, view_path: str) -> bytes | None:
    """The checked-hash pyc of `source` as the bot's interpreter would compile it at `view_path`
    (its `__file__` inside), or None (not Python this interpreter compiles, or unreadable)."""
    try:
        st = os.stat(source)
    except OSError:
        return None
    key = (source, st.st_size, st.st_mtime_ns, st.st_ino, view_path)
    if key in _compiled:
        return _compiled[key]
    out: bytes | None = None
    try:
        with open(source, "rb") as fh:
            data = fh.read()
        code = compile(data, view_path, "exec", dont_inherit=True, optimize=0)
        out = importlib.util.MAGIC_NUMBER + _CHECKED_HASH + importlib.util.source_hash(data) + marshal.dumps(code)
    except (OSError, SyntaxError, ValueError):
        out = None
    if len(_compiled) >= _MAX_KEPT:
        _compiled.clear()
    _compiled[key] = out
    return out


def folder_pycs(listing: FolderListing, view_path: str) -> dict[str, bytes]:
    """The pycs of a walked folder's `.py` files, by their path relative to the folder
    (`pkg/__pycache__/mod.TAG.pyc`); none if this interpreter writes no caches."""
    tag = sys.implementation.cache_tag
    if tag is None:
        return {}
    out: dict[str, bytes] = {}
    for rel, path, _size in listing.files:
        if not rel.endswith(".py"):
            continue
        folder, _, name = rel.rpartition("/")
        pyc = pyc_bytes(path, os.path.join(view_path, rel))
        if pyc is not None:
            cached = f"__pycache__/{name[:-3]}.{tag}.pyc"
            out[f"{folder}/{cached}" if folder else cached] = pyc
    return out


def write_pycs(dest: str | os.PathLike[str], pycs: Mapping[str, bytes]) -> None:
    """Write `pycs` under the copied folder `dest` (folders 0755, files 0644), read-only to the bot
    as the copy is. Only a `__pycache__` made here is written to: one the copy already holds (a
    file or a link of the bot's folder, never a cache, which copies leave out) is left as it is
    and never followed."""
    made: dict[str, bool] = {}
    for rel, data in pycs.items():
        target = os.path.join(dest, rel)
        folder = os.path.dirname(target)
        if folder not in made:
            try:
                os.mkdir(folder, 0o755)
                os.chmod(folder, 0o755)
                made[folder] = True
            except OSError:
                made[folder] = False
        if not made[folder]:
            continue
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(target, 0o644)


def pycs_size(pycs: Mapping[str, bytes]) -> tuple[int, int]:
    """Bytes and entries (files and `__pycache__` folders) the pycs take in a copy."""
    return sum(len(b) for b in pycs.values()), len(pycs) + len({os.path.dirname(r) for r in pycs})
