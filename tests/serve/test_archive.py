"""Hostile archives are refused with one sentence and write nothing outside the folder."""

from __future__ import annotations

import io
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from arena.serve.archive import ArchiveRefused, Limits, unpack


def tgz(entries: list[tarfile.TarInfo | tuple[str, bytes]]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for e in entries:
            if isinstance(e, tarfile.TarInfo):
                tf.addfile(e)
            else:
                info = tarfile.TarInfo(e[0])
                info.size = len(e[1])
                tf.addfile(info, io.BytesIO(e[1]))
    return buf.getvalue()


def member(name: str, kind: bytes, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, linkname
    return info


def snapshot(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.fixture
def box(tmp_path: Path) -> Path:
    (tmp_path / "folder").mkdir()
    return tmp_path


def refused(box: Path, data: bytes, words: str, limits: Limits = Limits()) -> None:
    before = snapshot(box)
    with pytest.raises(ArchiveRefused, match=words) as e:
        unpack(data, box / "folder" / "sub", limits)
    assert "\n" not in str(e.value)
    outside = {p for p in snapshot(box) - before if not p.startswith("folder")}
    assert outside == set(), "nothing may be written outside the competition folder"


def test_a_plain_bot_folder_unpacks(box: Path) -> None:
    n = unpack(tgz([("bot.yaml", b"name: x\n"), ("src/bot.py", b"print(1)\n")]), box / "folder" / "sub")
    assert n.entries == 3 and (box / "folder/sub/src/bot.py").read_bytes() == b"print(1)\n"
    zbuf = io.BytesIO()
    with zipfile.ZipFile(zbuf, "w") as zf:
        zf.writestr("bot.yaml", "name: y\n")
    assert unpack(zbuf.getvalue(), box / "folder" / "z").entries == 1


def test_zip_slip_is_refused(box: Path) -> None:
    refused(box, tgz([("../../evil.txt", b"x")]), r"climbs out")
    zbuf = io.BytesIO()
    with zipfile.ZipFile(zbuf, "w") as zf:
        zf.writestr("../../evil.txt", "x")
    refused(box, zbuf.getvalue(), r"climbs out")


def test_absolute_paths_are_refused(box: Path) -> None:
    refused(box, tgz([(str(box / "evil.txt"), b"x")]), r"absolute path")


def test_links_are_refused(box: Path) -> None:
    refused(box, tgz([member("etc", tarfile.SYMTYPE, "/etc")]), r"is a link")
    refused(box, tgz([("a", b"x"), member("b", tarfile.LNKTYPE, "a")]), r"is a link")
    zbuf = io.BytesIO()
    with zipfile.ZipFile(zbuf, "w") as zf:
        info = zipfile.ZipInfo("etc")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(info, "/etc")
    refused(box, zbuf.getvalue(), r"link or special")


def test_devices_and_fifos_are_refused(box: Path) -> None:
    refused(box, tgz([member("fifo", tarfile.FIFOTYPE)]), r"device, FIFO")
    refused(box, tgz([member("null", tarfile.CHRTYPE)]), r"device, FIFO")


def test_a_name_given_twice_is_refused(box: Path) -> None:
    refused(box, tgz([("a", b"x"), ("a", b"y")]), r"appears twice")


def test_size_file_count_and_bomb_limits(box: Path) -> None:
    refused(box, b"\x1f\x8b" + b"0" * 2000, r"over the limit", Limits(max_bytes=1000))
    refused(box, tgz([(f"f{i}", b"") for i in range(11)]), r"more than 10 files", Limits(max_files=10))
    zeros = tgz([("zeros", b"\0" * (4 << 20))])
    assert len(zeros) < 10_000
    refused(box, zeros, r"unpacks to more than", Limits(max_unpacked=1 << 20))
    refused(box, b"not an archive", r"neither")


@pytest.mark.slow
def test_a_1gb_bomb_and_200000_files_are_refused_at_the_defaults(box: Path) -> None:
    """The issue's figures at the default limits, the archives generated as streams."""
    import gzip

    raw = io.BytesIO()
    with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1) as gz, tarfile.open(fileobj=gz, mode="w|") as tf:
        info = tarfile.TarInfo("zeros")
        info.size = 1 << 30

        class Zeros(io.RawIOBase):
            left = 1 << 30

            def readinto(self, b):  # type: ignore[no-untyped-def,override]
                n = min(len(b), self.left)
                b[:n] = bytes(n)
                self.left -= n
                return n

        tf.addfile(info, Zeros())
    refused(box, raw.getvalue(), r"unpacks to more than")
    refused(box, tgz([(f"f{i}", b"") for i in range(200_000)]), r"more than 2000 files")
    assert not os.path.exists(box / "folder" / "sub")
