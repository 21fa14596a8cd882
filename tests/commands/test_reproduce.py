"""A fault in a tournament comes with a command that replays it, and the
command really sends the bot the same decision again."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from arena.commands import main

from ..schedule.conftest import FIRST, write_config

TESTBOT = Path(__file__).resolve().parents[1] / "fixtures" / "testbot"


def test_fault_line_carries_a_working_reproduce_command(tmp_path, capsys):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "bot.py").write_text((TESTBOT / "bot.py").read_text())
    (bad / "bot.yaml").write_text('name: bad\ncommand: ["{python}", "bot.py"]\nenv: {MODE: illegal, AT: "2"}\n')
    cfg = write_config(tmp_path, entries=[str(FIRST), str(bad)])
    assert main(["run", str(cfg), "--skip-check", "--no-rate"]) == 0
    err = capsys.readouterr().err
    assert "reproduce: arena reproduce" in err
    lines = [json.loads(x) for x in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    repros = [r for ln in lines for r in ln["run"]["reproduce"]]
    faults = [f for ln in lines for g in ln["games"] for f in g["faults"]]
    assert len(repros) == len(faults) >= 1
    r = repros[0]
    assert r["bot"] == "bad" and r["kind"] == "illegal"
    argv = shlex.split(r["command"])
    assert argv[:2] == ["arena", "reproduce"]
    # Running it plays the recorded game again with the bot live (the other seats
    # replay the record): a bot that goes wrong on its second decision does again.
    assert main(argv[1:]) == 1
    out = capsys.readouterr().out
    assert "recorded fault: illegal" in out and "reproduced: illegal" in out
    assert "answered differently" not in out
    # Once the bot is fixed, the same command reports that the fault is gone.
    (bad / "bot.yaml").write_text('name: bad\ncommand: ["{python}", "bot.py"]\nenv: {MODE: good}\n')
    assert main(argv[1:]) == 0
    assert "not reproduced" in capsys.readouterr().out


def test_a_fault_at_a_table_of_five_reproduces(tmp_path, capsys):
    """The reproduce command of a fault in a five-hand tournament (five seats, by rotation) plays the
    recorded game again with the bot live at its seat."""
    import shutil

    bots = []
    for i, env in enumerate(['{PICK: first}', '{PICK: last}', '{PICK: first}', '{PICK: last}',
                             '{MODE: illegal, AT: "3"}']):
        d = tmp_path / f"b{i}"
        d.mkdir()
        shutil.copy(TESTBOT / "bot.py", d / "bot.py")
        (d / "bot.yaml").write_text(f'name: b{i}\ncommand: ["{{python}}", "bot.py"]\nenv: {env}\n')
        bots.append(str(d))
    cfg = write_config(tmp_path, entries=bots, match={"sandbox": "none", "format": "deals", "deals": 1,
                                                      "profile": "five-hand"})
    assert main(["run", str(cfg), "--skip-check", "--no-rate"]) == 0
    lines = [json.loads(x) for x in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    repros = [r for ln in lines for r in ln["run"]["reproduce"]]
    assert len(repros) == 5 and all(r["bot"] == "b4" for r in repros)  # one fault in each rotation
    assert {r["seat"] for r in repros} == set(range(5))  # the bot held each seat once
    capsys.readouterr()
    for r in repros[:2]:
        assert main(shlex.split(r["command"])[1:]) == 1
        out = capsys.readouterr().out
        assert "recorded fault: illegal" in out and "reproduced: illegal" in out
