"""bot.yaml is hostile input wherever it is read (arena run, check-bot, the server): a size cap checked before
reading, YAML without aliases and with a depth limit; any failure is that entry's ManifestError, never a crash
of the harness (exit 3) nor memory the entry chose."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from arena.players import ManifestError, load_entry
from arena.players.manifest import MAX_MANIFEST_BYTES
from arena.players.yamlerrors import MAX_DEPTH

from tests.cli import arena

GOOD = 'name: b\ncommand: ["{python}", "bot.py"]\n'
#: 631 bytes in the issue: each line nine of the one before, the last expands to 9**9 strings (gigabytes).
ALIAS_BOMB = "a: &a [" + ",".join(['"lol"'] * 9) + "]\n" + "".join(
    f"{c}: &{c} [" + ",".join([f"*{p}"] * 9) + "]\n" for p, c in zip("abcdefgh", "bcdefghi"))


def bot(folder: Path, text: str | bytes = GOOD) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.yaml").write_bytes(text if isinstance(text, bytes) else text.encode())
    (folder / "bot.py").write_text("print(1)\n")
    return folder


def refused(folder: Path, words: str) -> str:
    with pytest.raises(ManifestError, match=words) as e:
        load_entry(folder)
    assert str(folder / "bot.yaml") in str(e.value)  # the entry named
    return str(e.value)


def test_an_alias_bomb_is_refused_before_it_expands(tmp_path: Path) -> None:
    assert len(ALIAS_BOMB) < 700
    refused(bot(tmp_path / "b", ALIAS_BOMB), r"not valid YAML: aliases \(\*name\) are not accepted \(line 2")
    refused(bot(tmp_path / "c", GOOD + "x: &one 1\ny: *one\n"), "aliases")  # even a harmless one


def test_a_deeply_nested_manifest_is_refused_not_a_recursion_error(tmp_path: Path) -> None:
    """40 KB of nesting made the YAML composer raise RecursionError: exit 3 in arena run and check-bot."""
    flow = GOOD + "x: " + "[" * 20_000 + "]" * 20_000 + "\n"
    block = GOOD + "".join(" " * i + "k:\n" for i in range(200)) + " " * 200 + "k: 1\n"
    assert len(flow) > 40_000
    refused(bot(tmp_path / "flow", flow), rf"nested more than {MAX_DEPTH} levels deep")
    refused(bot(tmp_path / "block", block), rf"nested more than {MAX_DEPTH} levels deep")
    ok = GOOD + "description: nested\nlimits: {memory_bytes: 1000000}\n"
    assert load_entry(bot(tmp_path / "ok", ok)).manifest.limits is not None


def test_a_huge_sparse_manifest_is_refused_by_its_size_before_reading(tmp_path: Path) -> None:
    """A 3 GiB sparse bot.yaml was read whole (MemoryError); its size is checked on the open file first."""
    folder = bot(tmp_path / "b")
    with open(folder / "bot.yaml", "r+b") as f:
        f.truncate(3 << 30)  # holes: no disk used
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    refused(folder, rf"{3 << 30} bytes, over the limit of {MAX_MANIFEST_BYTES} for a manifest")
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 64 << 10  # KiB: nothing of it read
    refused(bot(tmp_path / "c", GOOD + "#" * MAX_MANIFEST_BYTES), "over the limit")


def test_other_unreadable_manifests_are_the_entrys_refusal(tmp_path: Path) -> None:
    refused(bot(tmp_path / "digits", GOOD + "x: " + "1" * 5000 + "\n"), r"not valid YAML: Exceeds the limit")
    refused(bot(tmp_path / "date", GOOD + "x: 2001-13-45\n"), r"not valid YAML: month must be in 1\.\.12")
    refused(bot(tmp_path / "latin1", b"name: caf\xe9\ncommand: [x]\n"), r"not UTF-8 text \(byte 9\)")
    refused(bot(tmp_path / "python", GOOD + "x: !!python/object/apply:os.system [id]\n"), "not valid YAML")
    link = tmp_path / "link"
    link.mkdir()
    (tmp_path / "real.yaml").write_text(GOOD)
    os.symlink(tmp_path / "real.yaml", link / "bot.yaml")
    refused(link, r"cannot be read \(a symbolic link\); it must be a plain file")
    fifo = tmp_path / "fifo"
    fifo.mkdir()
    os.mkfifo(fifo / "bot.yaml")
    refused(fifo, r"not a plain file")  # never opened for a blocking read


def test_check_bot_and_arena_run_refuse_the_entry_instead_of_crashing(tmp_path: Path) -> None:
    deep = bot(tmp_path / "deep", GOOD + "x: " + "[" * 20_000 + "]" * 20_000 + "\n")
    got = arena("check-bot", deep, "--sandbox", "none")
    assert got.code == 2 and "nested more than" in got.err and "RecursionError" not in got.err + got.out
    good = Path(__file__).resolve().parents[2] / "bots" / "minimal"
    config = tmp_path / "t.yaml"
    config.write_text(f"name: t\nseed: s\nentries: [{good}, {deep}]\nmatch: {{sandbox: none}}\nout: {tmp_path / 'out'}\n")
    got = arena("run", config)
    assert got.code == 2 and "entries.1" in got.err and "nested more than" in got.err


def test_a_folder_with_a_name_that_is_not_utf8_gets_a_digest(tmp_path: Path) -> None:
    """The digest hashes the names' bytes (``os.fsencode``): a Latin-1 file name no longer crashes it."""
    folder = bot(tmp_path / "b")
    (folder / os.fsdecode(b"caf\xe9.txt")).write_text("x")
    entry = load_entry(folder)
    assert entry.refused is None and len(entry.digest) == 64
    out = subprocess.run([sys.executable, "-c", "import sys; from arena.players import load_entry; "
                          "print(load_entry(sys.argv[1]).digest)", str(folder)], capture_output=True, text=True)
    assert out.stdout.strip() == entry.digest  # the same in another process
