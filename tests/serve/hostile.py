"""Hostile archives, built as an entrant would build them: with tarfile, zipfile and gzip, a few bytes patched
by hand where the libraries refuse to write such a thing (an unsupported zip method, a corrupt stream).

Each builder returns the upload's bytes (or writes a large one to a file).
"""

from __future__ import annotations

import functools
import gzip
import io
import os
import shutil
import subprocess
import struct
import tarfile
import zipfile
from pathlib import Path

MANIFEST = b'name: x\ncommand: ["{python}", "bot.py"]\n'


Entry = tarfile.TarInfo | tuple[str | tarfile.TarInfo, bytes]


def tgz(entries: list[Entry], fmt: int = tarfile.PAX_FORMAT) -> bytes:
    """A .tar.gz of entries: a header alone (a folder, a link, a device), or (name or header, data)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=fmt) as tf:
        for e in entries:
            if isinstance(e, tarfile.TarInfo):
                tf.addfile(e)
                continue
            info = e[0] if isinstance(e[0], tarfile.TarInfo) else tarfile.TarInfo(e[0])
            info.size = len(e[1])
            tf.addfile(info, io.BytesIO(e[1]))
    return buf.getvalue()


def member(name: str, kind: bytes, linkname: str = "", mode: int = 0o644) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mode = kind, linkname, mode
    return info


def a_file(name: str, data: bytes, mode: int = 0o644) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), mode
    return info, data


def bot_tgz(extra: list[Entry] | None = None) -> bytes:
    return tgz([("bot.yaml", MANIFEST), ("bot.py", b"print(1)\n"), *(extra or [])])


def deep(depth: int, name: str = "a") -> bytes:
    """A file ``depth`` folders deep (``depth`` folder names, then the file), beside bot.yaml."""
    return bot_tgz([("/".join([name] * depth) + "/f", b"x")])


def empty_folders(n: int) -> bytes:
    return bot_tgz([member(f"d{i}/", tarfile.DIRTYPE, mode=0o755) for i in range(n)])


def chained_headers(n: int) -> bytes:
    """``n`` pax headers in a row before one entry (``tarfile`` reads each chain by recursion)."""
    one = tarfile.TarInfo("x")
    one.type = tarfile.XHDTYPE
    record = b"11 foo=bar\n"
    one.size = len(record)
    block = one.tobuf(tarfile.USTAR_FORMAT) + record + bytes(512 - len(record))
    body = block * n + a_file("bot.yaml", MANIFEST)[0].tobuf(tarfile.USTAR_FORMAT) + MANIFEST
    body += bytes(-len(body) % 512) + bytes(1024)
    return gzip.compress(body)


def long_header(size: int, kind: bytes = tarfile.GNUTYPE_LONGNAME, out: Path | None = None) -> bytes | Path:
    """A tar whose first header is a GNU long name (or pax header) of ``size`` bytes, streamed through gzip:
    a few hundred KB on the wire for hundreds of MiB of header (written to ``out`` if given)."""
    data = _long_header(size, kind)
    if out:
        out.write_bytes(data)
        return out
    return data


@functools.lru_cache(maxsize=8)
def _long_header(size: int, kind: bytes) -> bytes:
    """Built once per process (a second of CPU for 256 MiB; several tests upload the same one)."""
    head = tarfile.TarInfo("././@LongLink")
    head.type, head.size = kind, size
    sink = io.BytesIO()
    with gzip.GzipFile(fileobj=sink, mode="wb", compresslevel=6) as gz:
        gz.write(head.tobuf(tarfile.GNU_FORMAT))
        filler = b"a" * (1 << 20)
        left = size
        while left > 0:
            n = min(left, len(filler))
            gz.write(filler[:n])
            left -= n
        gz.write(bytes(-size % 512))
        gz.write(a_file("bot.yaml", MANIFEST)[0].tobuf(tarfile.GNU_FORMAT) + MANIFEST + bytes(-len(MANIFEST) % 512))
        gz.write(bytes(1024))
    return sink.getvalue()


def pax_at_cap(name: str, cap: int) -> tuple[tarfile.TarInfo, bytes]:
    """A file whose pax header is ``cap`` bytes (a long comment record): the largest header allowed."""
    info, data = a_file(name, b"y\n")
    value = "c" * (cap - len(" comment=\n") - len(str(cap)))
    assert len(f"{cap} comment={value}\n") == cap  # the one record, its length counting its own digits
    info.pax_headers = {"comment": value}
    return info, data


def corrupt_tgz() -> bytes:
    """A .tar.gz of a bot whose deflate stream is corrupt: the first block after the gzip header claims the
    reserved block type (zlib: "invalid block type")."""
    good = bytearray(bot_tgz([("big.txt", os.urandom(20_000).hex().encode())]))
    assert good[3] == 0  # no optional gzip fields: the deflate stream starts at byte 10
    good[10] |= 0b110  # BTYPE 11
    return bytes(good)


def corrupt_tgz_late() -> bytes:
    """A .tar.gz whose deflate stream turns corrupt after its first 64 KiB (bot.yaml and an incompressible
    file read fine, then a block of the reserved type): ``tarfile.open`` succeeds and the error comes while
    the entries are read (zlib.error, a 500 before)."""
    import zlib

    raw = tgz([("bot.yaml", MANIFEST), ("noise", os.urandom(64 << 10)), ("bot.py", b"print(1)\n" * 4000)])
    tar = gzip.decompress(raw)
    z = zlib.compressobj(6, zlib.DEFLATED, -15)
    head = z.compress(tar[:66 << 10]) + z.flush(zlib.Z_FULL_FLUSH)  # byte-aligned after this
    return (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + head + b"\x07" + os.urandom(64)
            + struct.pack("<II", zlib.crc32(tar), len(tar) & 0xFFFFFFFF))


def a_zip(files: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED, top: str = "") -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf:
        for name, data in files.items():
            zf.writestr(top + name, data)
    return buf.getvalue()


def _patch_zip(data: bytes, *, method: int | None = None, flags: int | None = None) -> bytes:
    """Every local and central header's compression method (or general-purpose flags) rewritten."""
    out = bytearray(data)
    for sig, flag_at, method_at in ((b"PK\x03\x04", 6, 8), (b"PK\x01\x02", 8, 10)):
        at = out.find(sig)
        while at >= 0:
            if flags is not None:
                out[at + flag_at:at + flag_at + 2] = struct.pack("<H", flags)
            if method is not None:
                out[at + method_at:at + method_at + 2] = struct.pack("<H", method)
            at = out.find(sig, at + 4)
    return bytes(out)


def zip_method(method: int) -> bytes:
    """A bot zip whose entries claim compression method ``method`` (9 Deflate64, 99 AES, 14 LZMA...)."""
    return _patch_zip(a_zip({"bot.yaml": MANIFEST, "bot.py": b"print(1)\n"}, zipfile.ZIP_STORED), method=method)


def zip_encrypted() -> bytes:
    """A bot zip whose entries carry the encryption flag, as ``zip -e`` writes them."""
    return _patch_zip(a_zip({"bot.yaml": MANIFEST, "bot.py": b"print(1)\n"}), flags=0x1)


def corrupt_zip() -> bytes:
    """A deflated bot zip whose compressed data is overwritten in the middle (headers intact)."""
    data = bytearray(a_zip({"bot.yaml": MANIFEST, "bot.py": os.urandom(20_000).hex().encode()}))
    start = data.find(b"bot.py") + len("bot.py") + 100
    data[start:start + 32] = b"\x00\xff" * 16
    return bytes(data)


@functools.lru_cache(maxsize=4)
def zip_many_entries(n: int) -> bytes:
    """A zip of ``n`` empty entries: a central directory of ``n`` records (about 50 bytes each). Built once per
    process (100,000 entries: nearly two seconds of CPU; two tests upload them)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("bot.yaml", MANIFEST)
        for i in range(n):
            zf.writestr(f"{i:x}", b"")
    return buf.getvalue()


def compiled_c_bot(tmp: Path) -> Path:
    """docs/examples/c-bot built with cc in a folder of its own (the test skips without a compiler)."""
    import pytest

    if shutil.which("cc") is None:
        pytest.skip("no C compiler (cc)")
    bot = tmp / "c-bot"
    shutil.copytree(Path(__file__).resolve().parents[2] / "docs" / "examples" / "c-bot", bot)
    subprocess.run(["cc", "-O2", "-o", str(bot / "bot"), str(bot / "bot.c")], check=True)
    return bot
