"""The example bots of docs/examples/ load, and run the way docs/protocol.md
says: in the sandbox, from a read-only copy of their folder, without network."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tabulate

from arena.engine import Game
from arena.match import MatchSettings
from arena.players import load_entry
from arena.match.check import check_entry
from arena.players.manifest import Manifest, ManifestError
from arena.protocol import choice_to_dict
from arena.sandbox import SandboxUnavailable, check_bwrap, find_bwrap

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"
JS_BOT = ROOT / "bots" / "js-random"  # the node example docs/protocol.md points to


def _bwrap_or_skip() -> None:
    try:
        check_bwrap(find_bwrap())
    except SandboxUnavailable as e:
        pytest.skip(f"bwrap unusable: {e}")


def test_every_example_manifest_loads():
    folders = sorted(p for p in EXAMPLES.iterdir() if (p / "bot.yaml").is_file())
    assert {p.name for p in folders} >= {"c-bot", "python-vendored"}
    for folder in [*folders, JS_BOT]:
        entry = load_entry(folder)
        assert entry.dir == str(folder.resolve()) and len(entry.digest) == 64


def test_manifest_rules_the_protocol_doc_states():
    assert Manifest(name="x", command=["./bot"]).version == "0"  # version is optional
    with pytest.raises(ValueError):
        Manifest(name="x", command=["./bot"], version=1.0)  # an unquoted YAML number is refused
    for ok in ("a", "My.Bot+2", "bot_v-1", "9lives"):
        Manifest(name=ok, command=["./bot"])
    for bad in ("-bot", ".bot", "my bot", "bot/1", "", "x" * 65):
        with pytest.raises(ValueError):
            Manifest(name=bad, command=["./bot"])
    with pytest.raises(ValueError):
        Manifest(name="x", command=["./bot"], sdk=True)  # unknown fields are refused


def test_a_missing_manifest_is_named(tmp_path):
    with pytest.raises(ManifestError, match="bot.yaml"):
        load_entry(tmp_path)


def _copy(name: str, tmp_path: Path) -> Path:
    dest = tmp_path / name
    shutil.copytree(EXAMPLES / name, dest)
    return dest


@pytest.mark.bwrap
def test_compiled_example_conforms_in_the_sandbox(tmp_path):
    _bwrap_or_skip()
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler on this machine")
    folder = _copy("c-bot", tmp_path)
    subprocess.run([cc, "-O2", "-o", "bot", "bot.c"], cwd=folder, check=True)  # as its bot.yaml says
    report = check_entry(load_entry(folder), MatchSettings(), games=0)
    assert report.ok, report.summary()
    assert report.decisions >= 7


@pytest.mark.bwrap
def test_vendored_package_is_found_in_the_bot_folder(tmp_path):
    _bwrap_or_skip()
    folder = _copy("python-vendored", tmp_path)
    # stands in for `pip install --target vendor -r requirements.txt` (no network in tests)
    shutil.copytree(Path(tabulate.__file__).parent, folder / "vendor" / "tabulate")
    (folder / "vendor" / "tabulate" / "__init__.py").write_text(
        (folder / "vendor" / "tabulate" / "__init__.py").read_text()
        + "\nimport sys as _s\nprint('tabulate from', __file__, file=_s.stderr)\n"
    )
    entry = load_entry(folder)
    report = check_entry(entry, MatchSettings(), games=0)
    assert report.ok, report.summary()
    # one game's opening decision, to read the stderr the harness keeps
    game = Game(key="vendored")
    seat = game.to_act
    player = MatchSettings().player(entry, 1)
    try:
        assert player.start() is None
        player.notify({"type": "deal", "index": 0, "dealer": game.deal.dealer, "hand": ["2C"] * 9, "scores": [0, 0]})
        req = {"type": "decide", "id": 1, "kind": game.choice.kind, "view": game.view(seat).to_dict(), "legal": choice_to_dict(game.choice)}
        assert player.decide(req).fault is None
    finally:
        stderr = player.close().stderr
    assert f"tabulate from {folder}/vendor/tabulate/__init__.py" in stderr
    assert "2C  2C" in stderr  # the table the bot logged with the vendored package


@pytest.mark.bwrap
def test_vendored_example_without_its_packages_fails_to_start(tmp_path):
    """Nothing is installed at run time, and in the sandbox ``{python}`` does
    not see the harness's installed packages (tabulate is one of them):
    without vendor/ the bot cannot start."""
    _bwrap_or_skip()
    system = [Path(p) / "tabulate" for p in ("/usr/lib/python3/dist-packages", f"/usr/local/lib/python3.{sys.version_info[1]}/dist-packages")]
    if any(p.exists() for p in system):
        pytest.skip("this system's Python has tabulate installed system-wide")
    folder = _copy("python-vendored", tmp_path)
    report = check_entry(load_entry(folder), MatchSettings(), games=0)
    assert not report.ok
    assert {v.fault.kind for v in report.violations} == {"crash"}
