"""The bot folder is hostile input, and a bare command name binds no home.

A FIFO, a link to /dev/zero, a huge sparse file or a stray .pyc in a bot
folder must neither hang nor flood the harness, nor run under the identity
of honest source; a command found in ~/.local/bin must not expose ~/.local.
"""

from __future__ import annotations

import json
import os
import py_compile
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from arena.players import load_entry
from arena.players.manifest import folder_digest
from arena.sandbox import CommandNotFound, BotExited, Level, launch
from arena.sandbox.files import FolderRefused, default_scratch_root, readable_copy, walk_folder

MINIMAL = Path(__file__).resolve().parents[2] / "bots" / "minimal"
REPO = Path(__file__).resolve().parents[2]


def bot_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "bot"
    folder.mkdir()
    for f in ("bot.py", "bot.yaml"):
        (folder / f).write_bytes((MINIMAL / f).read_bytes())
    return folder


def check_bot(folder: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """`arena check-bot FOLDER --json` in a child with a timeout: a hang fails the test, not the suite."""
    return subprocess.run([sys.executable, "-c", "import sys; from arena.commands import main; sys.exit(main(sys.argv[1:]))", "check-bot", str(folder), "--json", *extra],
                          capture_output=True, text=True, timeout=120, cwd=REPO)


@pytest.mark.parametrize("kind", ["fifo", "dev_zero_link", "link_out", "link_up", "link_out_through_a_link", "socket"])
def test_a_special_file_refuses_the_folder_naming_it_without_hanging(tmp_path, kind):
    folder = bot_folder(tmp_path)
    odd = folder / "data" / "thing"
    odd.parent.mkdir()
    if kind == "fifo":
        os.mkfifo(odd)
    elif kind == "dev_zero_link":
        odd.symlink_to("/dev/zero")
    elif kind == "link_out":
        odd.symlink_to("/etc/passwd")
    elif kind == "link_up":
        odd.symlink_to("../../other-bot/secret")
    elif kind == "link_out_through_a_link":  # each link alone stays inside; resolved together they leave
        (folder / "data" / "here").symlink_to(".")
        odd.symlink_to("here/../../..")
    else:
        import socket

        s = socket.socket(socket.AF_UNIX)
        s.bind(str(odd))
        s.close()
    with pytest.raises(FolderRefused, match=str(odd)):
        walk_folder(folder)
    entry = load_entry(folder)  # loads (no read of the odd file); faults at launch
    assert entry.digest != folder_digest(MINIMAL)
    proc = check_bot(folder, "--sandbox", "none")
    assert proc.returncode == 1, proc.stderr
    out = json.loads(proc.stdout)
    assert not out["ok"] and len(out["violations"]) == 1
    text = json.dumps(out["violations"])
    assert "bot folder refused" in text and str(odd) in text


@pytest.mark.bwrap
def test_a_fifo_refuses_the_folder_at_bwrap_too(tmp_path):
    folder = bot_folder(tmp_path)
    os.mkfifo(folder / "pipe")
    proc = check_bot(folder)
    assert proc.returncode == 1, proc.stderr
    assert "a FIFO" in proc.stdout


def test_a_300_mib_sparse_file_is_refused_by_the_byte_cap_without_being_read(tmp_path):
    folder = bot_folder(tmp_path)
    with open(folder / "huge.bin", "wb") as fh:
        fh.truncate(300 * 1024 * 1024)
    with pytest.raises(FolderRefused, match="more than"):
        walk_folder(folder)
    proc = check_bot(folder, "--sandbox", "none")
    assert proc.returncode == 1 and "bot folder refused" in proc.stdout


def test_too_many_files_refuses_the_folder(tmp_path):
    folder = bot_folder(tmp_path)
    for i in range(30):
        (folder / f"f{i}").write_text("x")
    assert len(walk_folder(folder).files) == 32
    with pytest.raises(FolderRefused, match="more than 20 files"):
        walk_folder(folder, max_files=20)


def test_a_copy_keeps_holes_as_holes_and_a_failed_copy_leaves_nothing(tmp_path, monkeypatch):
    # A scratch root of this test's own: the machine's is shared with every test and bot running
    # beside it, whose copies come and go while this one looks.
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    folder = bot_folder(tmp_path)
    with open(folder / "sparse.bin", "wb") as fh:
        fh.write(b"head")
        fh.seek(100 * 1024 * 1024)
        fh.write(b"tail")
    listing = walk_folder(folder)
    copy = Path(readable_copy(listing))
    try:
        st = (copy / "sparse.bin").stat()
        assert st.st_size == 100 * 1024 * 1024 + 4 and st.st_blocks * 512 < 1024 * 1024
        assert folder_digest(copy) == folder_digest(folder)
    finally:
        import shutil

        shutil.rmtree(copy.parent)
    before = set(default_scratch_root().iterdir())
    (folder / "bot.py").unlink()  # gone between the walk and the copy
    with pytest.raises(FolderRefused):
        readable_copy(listing)
    assert set(default_scratch_root().iterdir()) == before


def _pyc_beside_honest_source(folder: Path) -> None:
    """strategy.py says "honest"; __pycache__ holds a .pyc of other code that Python would run instead
    (unchecked-hash: never compared with the source)."""
    (folder / "strategy.py").write_text("WORD = 'honest'\n")
    evil = folder.parent / "evil.py"
    evil.write_text("WORD = 'evil'\n")
    tag = sys.implementation.cache_tag
    (folder / "__pycache__").mkdir()
    py_compile.compile(str(evil), cfile=str(folder / "__pycache__" / f"strategy.{tag}.pyc"),
                       invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH, doraise=True)
    (folder / "sourceless.pyc").write_bytes((folder / "__pycache__" / f"strategy.{tag}.pyc").read_bytes())


def test_caches_are_outside_the_identity(tmp_path):
    folder = bot_folder(tmp_path)
    plain = folder_digest(folder)
    _pyc_beside_honest_source(folder)
    (folder / "strategy.py").unlink()
    assert folder_digest(folder) == plain  # so the bot must never read them: see the next test


@pytest.mark.bwrap
def test_a_pyc_of_other_code_does_not_run_under_the_identity_of_honest_source(tmp_path):
    folder = bot_folder(tmp_path)
    _pyc_beside_honest_source(folder)
    script = ("import strategy, sys; print(strategy.WORD)\n"
              "try:\n    import sourceless; print('sourceless', sourceless.WORD)\n"
              "except Exception as e:\n    print('no sourceless', type(e).__name__)\n")
    with launch([sys.executable, "-c", script], bot_dir=folder, level=Level.BWRAP) as bot:
        assert bot.read_line(30) == b"honest"
        assert bot.read_line(30).startswith(b"no sourceless")


def _fake_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".local" / "bin").mkdir(parents=True)
    (home / ".local" / "share").mkdir()
    (home / ".local" / "share" / "secret").write_text("the-home-secret\n")
    cmd = home / ".local" / "bin" / "fakecmd"
    cmd.write_text('#!/bin/sh\ncat "$(dirname "$0")/../share/secret"\n')
    cmd.chmod(0o755)
    return home


@pytest.mark.bwrap
def test_a_bare_command_found_in_a_home_binds_nothing_of_it(tmp_path, monkeypatch):
    home = _fake_home(tmp_path)
    monkeypatch.setenv("PATH", f"{home}/.local/bin:{os.environ['PATH']}")
    monkeypatch.delenv("CINCH_ARENA_RO_PATHS", raising=False)
    folder = bot_folder(tmp_path)
    with pytest.raises(CommandNotFound, match="names no program"):  # looked up in the bot's view only
        launch(["fakecmd"], bot_dir=folder, level=Level.BWRAP)


@pytest.mark.bwrap
def test_a_home_folder_the_host_lists_is_bound(tmp_path, monkeypatch):
    home = _fake_home(tmp_path)
    monkeypatch.setenv("PATH", f"{home}/.local/bin:{os.environ['PATH']}")
    monkeypatch.setenv("CINCH_ARENA_RO_PATHS", f"{home}/.local")
    folder = bot_folder(tmp_path)
    with launch(["fakecmd"], bot_dir=folder, level=Level.BWRAP) as bot:
        assert bot.read_line(30) == b"the-home-secret"


def test_a_fifo_in_a_bot_folder_does_not_hang_a_tournament_and_its_fault_is_recorded(tmp_path):
    folder = bot_folder(tmp_path)
    (folder / "bot.yaml").write_text((folder / "bot.yaml").read_text().replace("name: minimal", "name: fifobot"))
    os.mkfifo(folder / "pipe")
    (tmp_path / "t.yaml").write_text(
        f"name: f\nentries: [bot, {REPO / 'bots' / 'random'}]\nblocks: 1\nseed: s\nbackend: serial\n"
        "match: {sandbox: none, format: deals, deals: 2}\nout: out\n")
    arena = [sys.executable, "-c", "import sys; from arena.commands import main; sys.exit(main(sys.argv[1:]))"]
    checked = subprocess.run([*arena, "run", "t.yaml", "--no-rate"], cwd=tmp_path, capture_output=True, text=True,
                             timeout=300)
    assert checked.returncode == 1 and "1 of 2 entries failed" in checked.stderr  # the bot's fault
    assert f"{folder / 'pipe'}: a FIFO" in checked.stderr
    ran = subprocess.run([*arena, "run", "t.yaml", "--no-rate", "--skip-check"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr[-2000:]
    games = [g for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()
             for g in json.loads(line)["games"]]
    assert games and all(f"{folder / 'pipe'}: a FIFO" in json.dumps(g) for g in games)


def test_a_refused_folder_ships_to_workers_as_nothing_and_still_faults_there(tmp_path):
    from arena.schedule.bundle import materialize, pack

    folder = bot_folder(tmp_path)
    (folder / "zero").symlink_to("/dev/zero")
    entry = load_entry(folder)
    assert entry.refused and "a symbolic link" in entry.refused
    shipped = materialize(entry, pack(entry), root=tmp_path / "cache")
    assert shipped.refused == entry.refused and not (tmp_path / "cache").exists()


def test_check_bot_of_a_command_naming_a_folder_with_a_fifo_fails_without_hanging(tmp_path):
    folder = bot_folder(tmp_path)
    os.mkfifo(folder / "pipe")
    proc = subprocess.run([sys.executable, "-c", "import sys; from arena.commands import main; sys.exit(main(sys.argv[1:]))",
                           "check-bot", "--sandbox", "none", "--", sys.executable, "bot/bot.py", "bot"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "a FIFO" in proc.stdout


def test_an_empty_folder_is_part_of_the_identity_and_survives_copies_and_shipping(tmp_path):
    """The bot can read a folder's name even when it holds no file: it is in the digest."""
    from arena.schedule.bundle import materialize, pack

    folder = bot_folder(tmp_path)
    plain = folder_digest(folder)
    (folder / "mode" / "aggressive").mkdir(parents=True)
    (folder / "lib" / "__pycache__").mkdir(parents=True)  # a cache only: lib holds nothing of the bot
    marked = folder_digest(folder)
    assert marked != plain
    assert walk_folder(folder).empty_dirs == ["lib", "mode/aggressive"]
    copy = Path(readable_copy(walk_folder(folder)))
    try:
        assert folder_digest(copy) == marked
    finally:
        import shutil

        shutil.rmtree(copy.parent)
    entry = load_entry(folder)
    shipped = materialize(entry, pack(entry), root=tmp_path / "cache")
    assert folder_digest(shipped.dir) == marked


def _venv(folder: Path) -> Path:
    """`python -m venv` as an author runs it: links kept (bin/python3 -> the system's, lib64 -> lib)."""
    python = next(p for p in ("/usr/bin/python3.11", "/usr/bin/python3") if os.access(p, os.X_OK))
    subprocess.run([python, "-m", "venv", "--without-pip", str(folder / "venv")], check=True, timeout=120)
    assert (folder / "venv" / "bin" / "python3").is_symlink() and (folder / "venv" / "lib64").is_symlink()
    return folder / "venv"


def test_links_inside_the_folder_are_kept_and_are_part_of_its_identity(tmp_path):
    folder = bot_folder(tmp_path)
    venv = _venv(folder)
    (folder / "data").mkdir()
    (folder / "data" / "weights.txt").write_text("1 2 3")
    (folder / "weights").symlink_to("data/weights.txt")
    listing = walk_folder(folder)
    links = dict(listing.links)
    assert links["weights"] == "data/weights.txt" and links["venv/lib64"] == "lib"
    assert any(t.startswith("/usr/bin/python3") for t in links.values())  # the venv's interpreter: into the system
    before = folder_digest(folder)
    (folder / "weights").unlink()
    (folder / "weights").symlink_to("data/../data/weights.txt")  # the same file, another link: another bot
    assert folder_digest(folder) != before
    copy = tmp_path / "copy"
    from arena.sandbox.files import copy_listing

    copy_listing(walk_folder(folder), copy)  # as the sandbox copies a private folder: links stay links
    assert os.readlink(copy / "weights") == "data/../data/weights.txt" and (copy / "venv" / "lib64").is_symlink()
    assert folder_digest(copy) == folder_digest(folder) and (venv / "pyvenv.cfg").is_file()


@pytest.mark.bwrap
@pytest.mark.parametrize("level", ["bwrap", pytest.param("gvisor", marks=pytest.mark.slow)])
def test_a_bot_in_a_python_m_venv_folder_plays(tmp_path, level):
    """A folder made with `python -m venv` (no --copies, its links kept) runs at every contained
    level, its interpreter resolved in the bot's own view."""
    if level == "gvisor":
        from .conftest import need_gvisor

        need_gvisor()
    folder = bot_folder(tmp_path)
    _venv(folder)
    (folder / "bot.yaml").write_text('name: venv-bot\ncommand: ["venv/bin/python", "bot.py"]\n')
    from arena.match import MatchSettings
    from arena.match.check import check_entry

    report = check_entry(load_entry(folder), MatchSettings.model_validate({"sandbox": level}), games=1)
    assert report.ok, report.summary()
    assert report.decisions > 0


def test_a_folder_with_links_ships_to_workers_and_a_link_out_in_a_bundle_is_refused(tmp_path):
    """Bundles carry a folder's links (as links; its identity covers them); a bundle a worker is
    sent with a link leading out of the folder does not unpack as that bot."""
    import io
    import tarfile

    from arena.sandbox import HarnessError
    from arena.schedule.bundle import materialize, pack

    folder = bot_folder(tmp_path)
    _venv(folder)
    entry = load_entry(folder)
    got = materialize(entry, pack(entry), tmp_path / "cache")
    assert got.dir != entry.dir and (Path(got.dir) / "venv" / "lib64").is_symlink()
    assert folder_digest(got.dir) == entry.folder_digest
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        info = tarfile.TarInfo("bot.py")
        info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(info)
    with pytest.raises((HarnessError, FolderRefused)):
        materialize(entry, buf.getvalue(), tmp_path / "cache2")
