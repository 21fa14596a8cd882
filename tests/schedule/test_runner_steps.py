"""The runner as a library: steps that return data, an observer told each of them, and no message of its own."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from arena.schedule import (
    Admission,
    BotsChanged,
    ExtensionNotAsked,
    OtherTournament,
    Plan,
    RunObserver,
    RunOptions,
    admit,
    load_config,
    plan,
    run_tournament,
)

from arena.results import ResultLine

from .conftest import FIRST, write_config

SCHEDULE = Path(__file__).resolve().parents[2] / "arena" / "schedule"


class Recorder(RunObserver):
    def __init__(self) -> None:
        self.seen: list[Any] = []

    def admitted(self, admission: Admission) -> None:
        self.seen.append(("admitted", len(admission.changed), admission.repaired_bytes))

    def planned(self, t: Any, p: Plan) -> None:
        self.seen.append(("planned", len(p.tasks), len(p.todo), len(p.stored)))

    def checking(self, entries: list[Any]) -> None:
        self.seen.append(("checking", len(entries)))

    def started(self, capacity: int) -> None:
        self.seen.append(("started", capacity))

    def line(self, line: ResultLine) -> None:
        self.seen.append(("line", line.block))

    def finished(self) -> None:
        self.seen.append(("finished",))


def test_run_tournament_tells_its_observer_each_step_and_prints_nothing(tmp_path: Path, capsys) -> None:
    t = load_config(write_config(tmp_path, blocks=2))
    rec = Recorder()
    result = run_tournament(t, options=RunOptions(skip_check=True), observer=rec)
    assert result.complete and len(result.lines) == 2
    assert rec.seen == [("admitted", 0, 0), ("planned", 2, 2, 0), ("started", 1), ("line", 0), ("line", 1),
                        ("finished",)]
    again = Recorder()
    assert run_tournament(load_config(write_config(tmp_path, blocks=2)), observer=again).complete
    assert again.seen == [("admitted", 0, 0), ("planned", 2, 0, 2)]  # nothing to play: no check, no backend
    assert capsys.readouterr() == ("", "")  # the library says nothing; the commands render its data


def test_admit_refuses_with_data_the_caller_renders(tmp_path: Path) -> None:
    bot = tmp_path / "mybot"
    bot.mkdir()
    (bot / "bot.py").write_text((FIRST.parent / "bot.py").read_text())
    (bot / "bot.yaml").write_text('name: mine\nversion: "1"\ncommand: ["{python}", "bot.py"]\nenv: {PICK: first}\n')
    cfg = write_config(tmp_path, entries=[str(bot), str(FIRST)])
    run_tournament(load_config(cfg), options=RunOptions(skip_check=True))
    (bot / "bot.py").write_text((bot / "bot.py").read_text() + "\n# changed\n")
    with pytest.raises(BotsChanged) as changed:
        admit(load_config(cfg), RunOptions())
    (c,) = changed.value.changed
    assert (c.name, c.files, c.old_version, c.new_version) == ("mine", ["bot.py"], "1", "1")
    assert c.old_digest != c.new_digest
    renewed = admit(load_config(cfg), RunOptions(new_versions=True))
    assert [x.name for x in renewed.changed] == ["mine"] and [e["name"] for e in renewed.earlier_entries] == ["mine"]
    (bot / "bot.py").write_text((bot / "bot.py").read_text().removesuffix("\n# changed\n"))
    with pytest.raises(ExtensionNotAsked) as more:
        admit(load_config(write_config(tmp_path, entries=[str(bot), str(FIRST)], blocks=2)), RunOptions())
    assert more.value.added == ["blocks 1 -> 2"]
    with pytest.raises(OtherTournament) as other:
        admit(load_config(write_config(tmp_path, entries=[str(bot), str(FIRST)], seed="another")), RunOptions())
    assert other.value.differs == ["seed"]
    # a refused admission wrote nothing, and planning reads what is stored
    cfg = write_config(tmp_path, entries=[str(bot), str(FIRST)])
    a = admit(load_config(cfg), RunOptions())
    p = plan(load_config(cfg), a.store)
    assert len(p.stored) == 1 and p.todo == [] and p.playing == []


def strings(path: Path) -> list[str]:
    """The string literals of a module (f-strings' parts included), docstrings left out."""
    tree = ast.parse(path.read_text())
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in docs]


def test_the_schedule_floor_holds_no_command_line_text() -> None:
    """Messages naming a command or its options are rendered by arena/commands, not written here."""
    said = [s for p in SCHEDULE.glob("*.py") for s in strings(p)]
    assert any("holds another tournament" in s for s in said)  # the scan sees the floor's strings
    for pattern in (r"arena (run|sprt|check-bot|reproduce)", r"--(new-version|extend|skip-check)\b"):
        assert not [s for s in said if re.search(pattern, s)], pattern
    calls = [n for p in SCHEDULE.glob("*.py") for n in ast.walk(ast.parse(p.read_text()))
             if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "print"]
    assert calls == []
