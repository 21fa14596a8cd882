"""Bot manifests: errors name the file and field; identity follows the code."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.players import ManifestError, load_entry
from arena.players import manifest as mf

GOOD = 'name: b\nversion: "2"\ncommand: ["{python}", "bot.py"]\n'


def bot(folder: Path, yaml: str = GOOD, code: str = "print('hi')\n") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.yaml").write_text(yaml)
    (folder / "bot.py").write_text(code)
    return folder


@pytest.mark.parametrize(
    "yaml,fragment",
    [
        ("name: b\n", "bot.yaml: command: Field required"),
        ('name: "bad name"\ncommand: [x]\n', "bot.yaml:1: name:"),
        ("name: b\ncommand: [x]\nlibraries: [numpy]\n", "bot.yaml:3: libraries.0:"),
        ("name: b\ncommand: [x]\ncolour: red\n", "bot.yaml:3: colour: unknown field; known fields: name, version, command"),
        ("name: b\ncommand: [x]\nlimits: {memory_bytes: -1}\n", "bot.yaml:3: limits.memory_bytes:"),
        ("name: [unclosed\n", "not valid YAML"),
        ("- name: b\n", "(top level): expected a mapping"),
    ],
)
def test_manifest_errors_name_the_file_and_field(tmp_path, yaml, fragment):
    folder = bot(tmp_path / "b", yaml)
    with pytest.raises(ManifestError) as e:
        load_entry(folder)
    assert str(folder / "bot.yaml") in str(e.value) and fragment in str(e.value)


def test_every_mistake_of_a_manifest_is_listed_at_once_with_the_field_a_typo_meant(tmp_path):
    folder = bot(tmp_path / "b", 'name: b\nversion: "1"\ncomand: ["{python}", "bot.py"]\nlibaries: [sdk]\n')
    with pytest.raises(ManifestError) as e:
        load_entry(folder)
    where = str(folder / "bot.yaml")
    assert str(e.value).splitlines() == [
        f"{where}: command: Field required ('comand' is written instead?)",
        f"{where}:3: comand: unknown field (did you mean 'command'?)",
        f"{where}:4: libaries: unknown field (did you mean 'libraries'?)",
    ]


def test_missing_manifest_is_named(tmp_path):
    with pytest.raises(ManifestError, match="no bot manifest"):
        load_entry(tmp_path)


def test_digest_follows_every_file_and_ignores_bytecode(tmp_path):
    a = load_entry(bot(tmp_path / "a"))
    same = load_entry(bot(tmp_path / "same"))
    assert a.digest == same.digest and a.ident.startswith("b@")
    (tmp_path / "same" / "__pycache__").mkdir()
    (tmp_path / "same" / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0")
    assert load_entry(tmp_path / "same").digest == a.digest
    assert load_entry(bot(tmp_path / "c", code="print('ho')\n")).digest != a.digest
    (tmp_path / "same" / "data.txt").write_text("x")
    assert load_entry(tmp_path / "same").digest != a.digest


def test_identity_includes_the_libraries_a_bot_runs_with(tmp_path, monkeypatch):
    sdk = tmp_path / "sdk"
    sdk.mkdir()
    (sdk / "lib.py").write_text("X = 1\n")
    monkeypatch.setitem(mf.LIBRARY_PATHS, "sdk", sdk)
    plain = load_entry(bot(tmp_path / "plain"))
    uses = load_entry(bot(tmp_path / "uses", GOOD + "libraries: [sdk]\n"))
    assert plain.digest == plain.files_digest  # no library: the folder digest itself
    before = uses.digest
    assert before != uses.files_digest
    (sdk / "lib.py").write_text("X = 2\n")  # a new SDK is a new bot
    after = load_entry(tmp_path / "uses")
    assert after.digest != before and after.files_digest == uses.files_digest
    assert load_entry(tmp_path / "plain").digest == plain.digest


def test_a_librarys_module_built_from_its_c_source_is_covered_by_the_source(tmp_path, monkeypatch):
    """The SDK's compiled solver core differs from machine to machine; its source does not (and
    the module loads only when built from it), so the source stands for it. Any other file of a
    library, and a module in a bot's own folder, still counts byte for byte."""
    sdk = tmp_path / "sdk"
    sdk.mkdir()
    (sdk / "_core.c").write_text("int x;\n")
    monkeypatch.setitem(mf.LIBRARY_PATHS, "sdk", sdk)
    uses = bot(tmp_path / "uses", GOOD + "libraries: [sdk]\n")
    before = load_entry(uses).digest
    module = sdk / "_core.cpython-311-x86_64-linux-gnu.so"
    module.write_bytes(b"\x7fELF one build")
    assert load_entry(uses).digest == before
    module.write_bytes(b"\x7fELF another build")
    assert load_entry(uses).digest == before
    (sdk / "_core.c").write_text("int y;\n")  # new source: a new bot
    assert load_entry(uses).digest != before
    (sdk / "_other.cpython-311-x86_64-linux-gnu.so").write_bytes(b"no source beside it")
    changed = load_entry(uses).digest
    (sdk / "_other.cpython-311-x86_64-linux-gnu.so").write_bytes(b"no source beside it, changed")
    assert load_entry(uses).digest != changed
    own = load_entry(uses).files_digest
    (uses / "_core.c").write_text("int z;\n")
    (uses / "_core.cpython-311-x86_64-linux-gnu.so").write_bytes(b"a bot's own build")
    mine = load_entry(uses).files_digest
    (uses / "_core.cpython-311-x86_64-linux-gnu.so").write_bytes(b"a bot's own build, changed")
    assert load_entry(uses).files_digest not in (own, mine)


def test_command_entry_digest_covers_the_script(tmp_path):
    (tmp_path / "bot.py").write_text("print(1)\n")
    a = mf.command_entry(["python3", "bot.py"], cwd=str(tmp_path))
    (tmp_path / "bot.py").write_text("print(2)\n")
    b = mf.command_entry(["python3", "bot.py"], cwd=str(tmp_path))
    assert a.digest != b.digest and a.name == "cli-bot"
