"""Config validation: every error names the file, the field and the problem."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from arena.schedule import ConfigError, load_config

from .conftest import FAST_MATCH, FIRST, LAST, write_config


def _error(tmp_path: Path, **fields) -> str:
    p = write_config(tmp_path, **fields)
    with pytest.raises(ConfigError) as e:
        load_config(p)
    return str(e.value)


def test_a_good_config_loads(tmp_path: Path) -> None:
    t = load_config(write_config(tmp_path, seed=7))
    assert [e.name for e in t.entries] == ["first", "last"]
    assert t.config.seed == "7"
    assert t.out == tmp_path / "out"


def test_bad_time_control_names_the_field(tmp_path: Path) -> None:
    msg = _error(tmp_path, match={**FAST_MATCH, "time": {"decision_ms": 0}})
    assert msg == f"{tmp_path / 'config.yaml'}:11: match.time.decision_ms: Input should be greater than 0 (got 0)"


def test_unknown_field_is_named_with_its_line_and_a_suggestion(tmp_path: Path) -> None:
    assert f"{tmp_path / 'config.yaml'}:3: blokcs: unknown field (did you mean 'blocks'?)" == _error(tmp_path, blokcs=3)


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    """Misspelt keys all show up, each with its line and the field it probably meant."""
    cfg = tmp_path / "config.yaml"
    cfg.write_text(f"name: t\nentires: [{FIRST}, {LAST}]\nsed: 1\nblcoks: 2\nmatch: {{sandbox: none}}\n")
    with pytest.raises(ConfigError) as info:
        load_config(cfg)
    lines = str(info.value).splitlines()
    assert f"{cfg}:2: entires: unknown field (did you mean 'entries'?)" in lines
    assert f"{cfg}:3: sed: unknown field (did you mean 'seed'?)" in lines
    assert f"{cfg}:4: blcoks: unknown field (did you mean 'blocks'?)" in lines
    assert any(ln.startswith(f"{cfg}: entries: Field required") and "'entires'" in ln for ln in lines)


def test_each_problem_is_also_a_field_and_a_message(tmp_path: Path) -> None:
    """``ConfigError.problems``: what a caller acts on (the ladder retires the entry a problem names) without
    reading the text; a message may itself hold ``entries.0:`` (a bot's name), which the field never confuses."""
    tricky = tmp_path / "tricky"
    tricky.mkdir()
    (tricky / "bot.yaml").write_text("name: first\ncommand: [x]\n")
    with pytest.raises(ConfigError) as info:
        load_config(write_config(tmp_path, entries=[str(FIRST), str(tmp_path / "nobot"), str(tricky)]))
    fields = [f for f, _ in info.value.problems]
    assert fields == ["entries.1", "entries.2"]
    assert info.value.problems[1][1] == "bot name 'first' is already used by entries.0"
    with pytest.raises(ConfigError) as info:
        load_config(write_config(tmp_path, blocks=0, blokcs=3))
    assert {f for f, _ in info.value.problems} == {"blocks", "blokcs"}


def test_yaml_syntax_error_names_the_file_and_line(tmp_path: Path) -> None:
    cfg = tmp_path / "config.yaml"
    cfg.write_text("name: t\nentries: [a, b\nseed: 1\n")
    with pytest.raises(ConfigError) as info:
        load_config(cfg)
    assert str(info.value).startswith(f"{cfg}:") and "unicode string" not in str(info.value)


def test_missing_bot_folder(tmp_path: Path) -> None:
    msg = _error(tmp_path, entries=[str(FIRST), str(tmp_path / "nobot")])
    assert "entries.1: no bot folder or manifest at" in msg and "nobot" in msg


def test_bad_manifest_names_entry_and_manifest_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "bot.yaml").write_text(yaml.safe_dump({"name": "bad bot!", "command": ["x"]}))
    msg = _error(tmp_path, entries=[str(FIRST), str(bad)])
    assert "entries.1:" in msg and "bad/bot.yaml:3: name: " in msg


def test_every_mistake_of_every_manifest_is_listed_at_once(tmp_path: Path) -> None:
    for name, text in (("one", 'name: one\ncomand: [x]\n'), ("two", 'name: two\ncommand: [x]\nlibaries: [sdk]\n')):
        (tmp_path / name).mkdir()
        (tmp_path / name / "bot.yaml").write_text(text)
    msg = _error(tmp_path, entries=[str(tmp_path / "one"), str(FIRST), str(tmp_path / "two")])
    lines = msg.splitlines()
    assert any("entries.0:" in ln and "one/bot.yaml:2: comand: unknown field (did you mean 'command'?)" in ln for ln in lines)
    assert any("entries.0:" in ln and "one/bot.yaml: command: Field required ('comand' is written instead?)" in ln
               for ln in lines)
    assert any("entries.2:" in ln and "two/bot.yaml:3: libaries: unknown field (did you mean 'libraries'?)" in ln
               for ln in lines)


def test_schedule_and_count_errors(tmp_path: Path) -> None:
    assert "schedule: Value error, a gauntlet needs 'candidate'" in _error(tmp_path, schedule={"kind": "gauntlet"})
    assert "entries: mixed partnerships need at least 4 entries" in _error(tmp_path, schedule={"kind": "mixed"})
    assert "schedule.candidate:" in _error(tmp_path, schedule={"kind": "gauntlet", "candidate": "nobody"})
    assert "blocks: Input should be greater than or equal to 1" in _error(tmp_path, blocks=0)
    assert "entries.1: bot name 'first' is already used by entries.0" in _error(tmp_path, entries=[str(FIRST), str(FIRST)])


def test_relative_paths_resolve_against_the_config_folder(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    p = write_config(tmp_path / "sub", entries=[str(FIRST), str(LAST)], out="results-here")
    assert load_config(p).out == tmp_path / "sub" / "results-here"


def test_config_hash_covers_what_shapes_results_only(tmp_path: Path) -> None:
    base = load_config(write_config(tmp_path)).config_hash()
    same = [dict(workers=2), dict(backend="ray"), dict(out=str(tmp_path / "elsewhere")), dict(blocks=5), dict(entries=[str(LAST), str(FIRST)]),
            dict(ray_address="ray://x:1")]
    for fields in same:
        assert load_config(write_config(tmp_path, **fields)).config_hash() == base, fields
    differ = [dict(seed="other"), dict(match={**FAST_MATCH, "deals": 3}), dict(match={**FAST_MATCH, "time": {"decision_ms": 5}}),
              dict(match={**FAST_MATCH, "sandbox": "rlimit"}), dict(match={**FAST_MATCH, "faults": {"mode": "substitute"}})]
    for fields in differ:
        assert load_config(write_config(tmp_path, **fields)).config_hash() != base, fields


def test_profile_by_name(tmp_path: Path) -> None:
    assert load_config(write_config(tmp_path, match={**FAST_MATCH, "profile": "pagat62"})).settings.profile.name == "pagat62"
    assert "unknown rule profile" in _error(tmp_path, match={**FAST_MATCH, "profile": "nope"})


def test_a_manifest_above_the_competitions_limits_is_refused_naming_the_field(tmp_path: Path) -> None:
    from ..cli import arena

    greedy = tmp_path / "greedy"
    greedy.mkdir()
    (greedy / "bot.py").write_text((FIRST.parent / "bot.py").read_text())
    (greedy / "bot.yaml").write_text('name: greedy\ncommand: ["{python}", "bot.py"]\nlimits: {memory_bytes: 4294967296}\n')
    msg = _error(tmp_path, entries=[str(FIRST), str(greedy)], match={**FAST_MATCH, "limits": {"memory_bytes": 268435456}})
    assert "entries.1" in msg and "memory_bytes" in msg
    ran = arena("check-bot", greedy, "--sandbox", "none", "--games", "0")
    assert ran.code == 2 and "memory_bytes" in ran.err and "Traceback" not in ran.err


def test_a_deal_file_of_the_wrong_size_for_the_profile_is_refused(tmp_path: Path) -> None:
    from arena.engine import DealFile

    DealFile.from_key("plain", 1).save(tmp_path / "deals52.json")
    DealFile.from_key("joker", 1, 53).save(tmp_path / "deals53.json")
    joker_match = {**FAST_MATCH, "profile": "sixty-three-joker"}
    msg = _error(tmp_path, match=joker_match, deal_files=["deals52.json"])
    assert "deal_files.0" in msg and "deals.0.deck: 52 cards" in msg and "joker JK" in msg
    msg = _error(tmp_path, deal_files=["deals53.json"])  # pagat62
    assert "deal_files.0" in msg and "53 cards (with the joker JK)" in msg
    t = load_config(write_config(tmp_path, match=joker_match, deal_files=["deals53.json"]))
    assert len(t.deal_files) == 1


def test_the_command_line_time_sets_the_match_time(tmp_path: Path) -> None:
    """`arena run --tempo fixed --decision-ms --slot-ms` (issue 41) replace the config's match.time fields they
    give, keep the others, and are checked the same way (the field named)."""
    t = load_config(write_config(tmp_path, match={**FAST_MATCH, "time": {"decision_ms": 100}}), {"time": {"tempo": "fixed"}})
    assert t.settings.time.tempo == "fixed" and t.settings.time.decision_ms == 100
    t = load_config(write_config(tmp_path, match={**FAST_MATCH, "time": {"decision_ms": 100, "bank_ms": 9000}}),
                    {"time": {"decision_ms": 300, "slot_ms": 450, "tempo": "fixed"}})
    assert (t.settings.time.decision_ms, t.settings.time.slot_ms, t.settings.time.bank_ms) == (300, 450, 9000)
    assert load_config(write_config(tmp_path), {"time": None}).settings.time.tempo == "free"
    with pytest.raises(ConfigError, match="match.time.tempo"):
        load_config(write_config(tmp_path), {"time": {"tempo": "sometimes"}})
    with pytest.raises(ConfigError, match=r"match.time.*slot_ms \(300\) must be above decision_ms \(300\)"):
        load_config(write_config(tmp_path), {"time": {"decision_ms": 300, "slot_ms": 300}})
    with pytest.raises(ConfigError, match="match.time.decision_ms"):
        load_config(write_config(tmp_path), {"time": {"decision_ms": 0}})
