"""``arena rate``: leaderboard files, their schema and reproducibility facts."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from arena.publish.rate import parse_anchor

from ..cli import arena

from .helpers import block, game, line, meta, tournament, write

STRENGTH = {"alpha": 200.0, "bravo": 0.0, "charlie": -150.0}

BOT_KEYS = {"rank", "bot", "name", "version", "digest", "rating", "ci_low", "ci_high", "interval_df", "interval_withheld",
            "games", "score",
            "score_pct", "wins", "draws", "losses", "forfeits", "faults", "faults_total", "latest", "superseded_by"}
TOP_KEYS = {"format", "version", "provenance", "results", "rating", "games", "blocks", "flags", "bots",
            "crosstable", "los", "luck", "luck_points", "retired", "table"}
PROV_KEYS = {"config_name", "config_hashes", "tournament_seed", "complete", "rule_profile", "mixed_profiles", "match_format",
             "time_control", "sandbox", "fault_policy", "schedule", "blocks", "blocks_per_pairing", "pairings",
             "deal_files", "bots", "harness_version", "rated_with", "sources"}


def _results(tmp_path: Path, *, with_meta: bool = True, extra: list | None = None, **meta_kw) -> Path:
    lines = tournament(random.Random(7), STRENGTH, blocks=10) + (extra or [])
    folder = tmp_path / "run1"
    p = write(folder / "results.jsonl", lines)
    if with_meta:
        (folder / "tournament.json").write_text(json.dumps(meta(**meta_kw)))
    return p


def _rate(argv: list[str]) -> tuple[int, str, str]:
    return tuple(arena("rate", *argv))  # type: ignore[return-value]


def test_writes_three_files_with_documented_schema(tmp_path: Path) -> None:
    res = _results(tmp_path)
    code, out, err = _rate([str(res), "--out", str(tmp_path / "lb"), "--bootstrap", "60", "--seed", "3"])
    assert code == 0, err
    doc = json.loads((tmp_path / "lb" / "leaderboard.json").read_text())
    assert doc["format"] == "cinch-leaderboard" and doc["version"] == 1
    assert set(doc) == TOP_KEYS
    assert set(doc["provenance"]) == PROV_KEYS
    assert all(set(b) == BOT_KEYS for b in doc["bots"])
    assert [b["bot"] for b in doc["bots"]] == ["alpha", "bravo", "charlie"]  # strongest first
    assert [b["rank"] for b in doc["bots"]] == [1, 2, 3]
    for b in doc["bots"]:
        assert b["ci_low"] <= b["rating"] <= b["ci_high"]
        assert b["games"] == 40
    assert doc["rating"]["anchor"] == {"kind": "mean", "bot": None, "rating": 0.0}
    assert abs(sum(b["rating"] for b in doc["bots"])) < 1e-3
    assert doc["rating"]["bootstrap"] == 60 and doc["rating"]["seed"] == 3
    assert doc["blocks"] == 30 and doc["games"] == 60
    assert doc["los"]["alpha"]["charlie"] > 0.9
    assert {c["first"] for c in doc["crosstable"]} == {"alpha", "bravo"}
    assert set(doc["luck"]) == {"statistic", "rho", "rho_ci", "factor", "factor_ci", "blocks", "note", "rotations"}
    assert doc["luck"]["statistic"] == "score" and doc["luck_points"] is None  # game format: no points
    assert doc["rating"]["bootstrap_unit"] == "key"  # whole deal keys, however few (docs/ratings.md)
    assert all(b["interval_df"] == 9 and b["interval_withheld"] is None for b in doc["bots"])  # 10 keys
    # the Markdown table went to stdout as well
    assert "| rank" in out and "alpha" in out
    md = (tmp_path / "lb" / "leaderboard.md").read_text()
    assert md.count("| alpha") >= 1 and "## Crosstable" in md and "## Likelihood of superiority" in md
    assert "Luck (game results, what the ratings use): rho =" in md and "1/(1+rho)" in md
    assert "mean of all bots fixed at 0" in md
    assert "Note: intervals from as few as 40 games per bot are rough" in md


def test_reproducibility_fields_from_tournament_json(tmp_path: Path) -> None:
    res = _results(tmp_path, seed="s3cret")
    assert _rate([str(res), "--out", str(tmp_path / "lb"), "--bootstrap", "0"])[0] == 0
    doc = json.loads((tmp_path / "lb" / "leaderboard.json").read_text())
    p = doc["provenance"]
    assert p["config_name"] == "unit" and p["tournament_seed"] == "s3cret"
    assert p["rule_profile"]["name"] == "pagat62"
    assert p["match_format"] == {"format": "game", "deals": None, "max_deals": 200}
    assert p["time_control"]["decision_ms"] == 1000
    assert p["blocks"] == 30 and p["blocks_per_pairing"] == 12 and p["pairings"] == 3
    assert {b["name"]: b["version"] for b in p["bots"]} == {"alpha": "2.5", "bravo": "2.5", "charlie": "2.5"}
    assert all(len(b["digest"]) == 64 for b in p["bots"])
    assert p["config_hashes"] == ["cafe" * 8]
    assert p["harness_version"] is None and p["rated_with"]
    assert re.fullmatch(r"[0-9a-f]{64}", doc["results"]["sha256"])
    md = (tmp_path / "lb" / "leaderboard.md").read_text()
    for fact in ("tournament seed: s3cret", "rule profile: pagat62", "decision_ms=1000", "harness (games): unknown",
                 "alpha 2.5", "cafe" * 8):
        assert fact in md


def test_unknown_facts_without_metadata_are_not_invented(tmp_path: Path) -> None:
    res = _results(tmp_path, with_meta=False)
    assert _rate([str(res), "--out", str(tmp_path / "lb"), "--bootstrap", "0"])[0] == 0
    doc = json.loads((tmp_path / "lb" / "leaderboard.json").read_text())
    p = doc["provenance"]
    assert p["tournament_seed"] is None and p["time_control"] is None and p["config_name"] is None
    assert all(b["version"] is None for b in p["bots"])
    assert p["rule_profile"]["name"] == "pagat62"  # this one is in every game record
    md = (tmp_path / "lb" / "leaderboard.md").read_text()
    assert "tournament seed: unknown" in md and "time control: unknown" in md


def test_results_of_several_rule_profiles_are_named_not_hidden(tmp_path: Path) -> None:
    """Records under different profiles, no metadata naming one: the leaderboard lists them all."""
    from arena.engine import get_profile

    lines = tournament(random.Random(7), STRENGTH, blocks=4)
    for ln in lines[::2]:
        for g in ln["games"]:
            g["record"]["profile"] = get_profile("louisiana").record_dict()
    res = write(tmp_path / "mixed" / "results.jsonl", lines)
    assert _rate([str(res), "--out", str(tmp_path / "lb"), "--bootstrap", "0"])[0] == 0
    doc = json.loads((tmp_path / "lb" / "leaderboard.json").read_text())
    assert doc["provenance"]["rule_profile"] is None
    assert doc["provenance"]["mixed_profiles"] == ["louisiana", "pagat62"]
    md = (tmp_path / "lb" / "leaderboard.md").read_text()
    assert "Rule profile: **mixed: louisiana, pagat62** (the games were played under different rules" in md
    assert "rule profile: several: louisiana, pagat62" in md
    one = write(tmp_path / "one" / "results.jsonl", tournament(random.Random(7), STRENGTH, blocks=4))
    assert _rate([str(one), "--out", str(tmp_path / "lb1"), "--bootstrap", "0"])[0] == 0
    assert json.loads((tmp_path / "lb1" / "leaderboard.json").read_text())["provenance"]["mixed_profiles"] == []


def test_default_out_folder_uses_config_name_else_results_folder(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    res = _results(tmp_path / "a", name="spring-cup")
    assert _rate([str(res), "--bootstrap", "0", "--quiet"])[0] == 0
    assert (tmp_path / "leaderboards" / "spring-cup" / "leaderboard.json").is_file()
    res2 = _results(tmp_path / "b", with_meta=False)
    assert _rate([str(res2), "--bootstrap", "0", "--quiet"])[0] == 0
    assert (tmp_path / "leaderboards" / "run1" / "leaderboard.html").is_file()


def test_html_is_self_contained_with_bars_and_crosstable(tmp_path: Path) -> None:
    res = _results(tmp_path)
    assert _rate([str(res), "--out", str(tmp_path / "lb"), "--bootstrap", "40"])[0] == 0
    text = (tmp_path / "lb" / "leaderboard.html").read_text()
    assert text.startswith("<!DOCTYPE html>")
    assert text.count('<rect class="ci"') == 3  # one interval bar per bot
    assert text.count("<svg") == 3
    assert '<table id="crosstable">' in text and '<table id="ratings">' in text
    cross = text.split('<table id="crosstable">')[1].split("</table>")[0]
    assert all(n in cross for n in STRENGTH)
    assert not re.search(r"(src|href)\s*=|@import|url\(", text)  # no external assets
    assert "tseed" in text  # reproducibility facts are there too


def test_anchor_option_pins_a_bot(tmp_path: Path) -> None:
    res = _results(tmp_path)
    assert _rate([str(res), "--out", str(tmp_path / "lb"), "--bootstrap", "20", "--anchor", "bravo=1500"])[0] == 0
    doc = json.loads((tmp_path / "lb" / "leaderboard.json").read_text())
    rating = {b["bot"]: b["rating"] for b in doc["bots"]}
    assert rating["bravo"] == pytest.approx(1500.0)
    assert rating["alpha"] > 1500 > rating["charlie"]
    assert doc["rating"]["anchor"] == {"kind": "bot", "bot": "bravo", "rating": 1500.0}
    assert "bravo fixed at 1500" in (tmp_path / "lb" / "leaderboard.md").read_text()


def test_anchor_from_tournament_json(tmp_path: Path) -> None:
    res = _results(tmp_path, anchor="charlie")
    assert _rate([str(res), "--out", str(tmp_path / "lb"), "--bootstrap", "0"])[0] == 0
    doc = json.loads((tmp_path / "lb" / "leaderboard.json").read_text())
    assert {b["bot"]: b["rating"] for b in doc["bots"]}["charlie"] == pytest.approx(0.0)
    assert doc["rating"]["anchor"]["bot"] == "charlie"


def test_faults_forfeits_and_caps_are_counted(tmp_path: Path) -> None:
    fault = {"seat": 0, "bot": "alpha", "kind": "crash", "message": "exit 1"}
    extra = [
        block(("alpha", "alpha"), ("bravo", "bravo"), 50, 1, 0, end="forfeit", forfeit_by=0, faults=[fault]),
        block(("bravo", "bravo"), ("charlie", "charlie"), 50, None, None, end="cap"),
    ]
    res = _results(tmp_path, extra=extra)
    assert _rate([str(res), "--out", str(tmp_path / "lb"), "--bootstrap", "0"])[0] == 0
    doc = json.loads((tmp_path / "lb" / "leaderboard.json").read_text())
    rows = {b["bot"]: b for b in doc["bots"]}
    # game 0: seat 0 = alpha forfeits; game 1: seat 0 = bravo forfeits
    assert rows["alpha"]["forfeits"] == 1 and rows["bravo"]["forfeits"] == 1
    assert rows["alpha"]["faults"] == {"crash": 1} and rows["bravo"]["faults"] == {"crash": 1}
    assert doc["flags"]["capped"] == 2 and doc["flags"]["forfeit"] == 2
    assert "1 (crash 1)" in (tmp_path / "lb" / "leaderboard.md").read_text()


def test_same_input_gives_identical_files(tmp_path: Path) -> None:
    res = _results(tmp_path)
    for d in ("x", "y"):
        assert _rate([str(res), "--out", str(tmp_path / d), "--bootstrap", "30", "--seed", "5"])[0] == 0
    for f in ("leaderboard.json", "leaderboard.md", "leaderboard.html"):
        assert (tmp_path / "x" / f).read_text() == (tmp_path / "y" / f).read_text()


def test_torn_results_still_rate(tmp_path: Path) -> None:
    res = _results(tmp_path)
    with open(res, "a") as f:
        f.write('{"schema": 1, "pairing": "alpha')
    code, _, err = _rate([str(res), "--out", str(tmp_path / "lb"), "--bootstrap", "0"])
    assert code == 0 and "torn" in err
    assert json.loads((tmp_path / "lb" / "leaderboard.json").read_text())["results"]["torn_last_line"] is True


@pytest.mark.parametrize("argv,msg", [
    (["--anchor", "nobody"], "not a bot"),
    (["--anchor", "alpha=high"], "not a number"),
    (["--bootstrap", "-1"], "bootstrap"),
    (["--bogus"], "unrecognized"),
])
def test_rate_errors_exit_2(tmp_path: Path, argv: list[str], msg: str) -> None:
    res = _results(tmp_path)
    code, _, err = _rate([str(res), "--out", str(tmp_path / "lb")] + argv)
    assert code == 2 and msg in err
    assert not (tmp_path / "lb" / "leaderboard.json").exists()


def test_missing_or_empty_results_exit_2(tmp_path: Path) -> None:
    assert _rate([str(tmp_path / "nope.jsonl")])[0] == 2
    (tmp_path / "results.jsonl").write_text("")
    code, _, err = _rate([str(tmp_path / "results.jsonl"), "--out", str(tmp_path / "lb")])
    assert code == 2 and "no finished blocks" in err


def test_parse_anchor() -> None:
    assert parse_anchor("random") == ("random", 0.0)
    assert parse_anchor("random=-25.5") == ("random", -25.5)
    with pytest.raises(ValueError):
        parse_anchor("=3")


def test_config_option_supplies_facts_and_versions(tmp_path: Path) -> None:
    """Without tournament.json, --config gives name, seed, time control and bot versions."""
    from arena.players import load_entry

    from .helpers import game, line, seat

    bots = Path(__file__).resolve().parents[2] / "bots"
    ents = {n: load_entry(bots / n) for n in ("random", "heuristic")}
    r, h = (seat(n, ents[n].digest) for n in ("random", "heuristic"))
    lines = []
    for k in range(4):
        g0 = game([h, r, h, r], 0, 0)
        g1 = game([r, h, r, h], 1, 1 if k % 2 else 0)
        ln = line(("heuristic", "heuristic"), ("random", "random"), k, g0, g1)
        ln["side_a"], ln["side_b"] = [h, h], [r, r]
        lines.append(ln)
    res = write(tmp_path / "res" / "results.jsonl", lines)
    cfg = tmp_path / "cup.yaml"
    cfg.write_text(f"name: cup\nentries: [{bots / 'random'}, {bots / 'heuristic'}]\nseed: 42\n"
                   "match: {sandbox: none, time: {decision_ms: 500}}\nbackend: serial\n")
    code, _, err = _rate([str(res), "--config", str(cfg), "--bootstrap", "0", "--out", str(tmp_path / "lb")])
    assert code == 0, err
    p = json.loads((tmp_path / "lb" / "leaderboard.json").read_text())["provenance"]
    assert p["config_name"] == "cup" and p["tournament_seed"] == "42"
    assert p["time_control"]["decision_ms"] == 500 and p["sandbox"] == "none"
    assert {b["name"]: b["version"] for b in p["bots"]} == {n: e.manifest.version for n, e in ents.items()}
    cfg.write_text("name: [broken\n")
    assert _rate([str(res), "--config", str(cfg), "--out", str(tmp_path / "lb2")])[0] == 2


def test_rate_help_exits_0(capsys) -> None:
    ran = arena("rate", "--help")
    assert ran.code == 0 and "--anchor" in ran.out


def test_identical_records_read_equal_whichever_bot_is_anchored(tmp_path: Path) -> None:
    # As in the committed quickstart: r and j lose every game to the others and split their own blocks 1-1.
    lines = []
    for k in range(4):
        lines += [block(("m", "m"), ("r", "r"), k, 0, 1), block(("m", "m"), ("j", "j"), k, 0, 1),
                  block(("j", "j"), ("r", "r"), k, 0, 0)]
    res = write(tmp_path / "run" / "results.jsonl", lines)
    for anchor in ("r", "j"):
        out = tmp_path / f"lb-{anchor}"
        assert _rate([str(res), "--out", str(out), "--anchor", anchor, "--bootstrap", "100"])[0] == 0
        doc = json.loads((out / "leaderboard.json").read_text())
        rating = {b["bot"]: b["rating"] for b in doc["bots"]}
        assert rating["r"] == rating["j"] == 0.0
        assert doc["los"]["r"]["j"] == doc["los"]["j"]["r"] == 0.5
        md = (out / "leaderboard.md").read_text()
        assert "Note: intervals from as few as 16 games per bot are rough" in md


def test_tiny_sample_shows_no_zero_width_interval(tmp_path: Path) -> None:
    res = write(tmp_path / "run" / "results.jsonl", [block(("x", "x"), ("y", "y"), 0, 0, 1)])
    assert _rate([str(res), "--out", str(tmp_path / "lb"), "--bootstrap", "50"])[0] == 0
    md = (tmp_path / "lb" / "leaderboard.md").read_text()
    doc = json.loads((tmp_path / "lb" / "leaderboard.json").read_text())
    assert all(b["interval_withheld"] == "too few blocks" and b["interval_df"] == 0 and b["ci_low"] is None
               for b in doc["bots"])
    assert "| too few blocks " in md and doc["los"] == {"x": {"y": None}, "y": {"x": None}}
    assert "| withheld " in md and "Withheld: too few blocks" in md
    assert not re.search(r"\[(-?\d+), \1\]", md)  # no [253, 253]
    assert "too few to measure what pairing saved" in md


def test_deals_format_reports_the_luck_of_points_too(tmp_path: Path) -> None:
    rng = random.Random(5)
    lines = []
    for k in range(30):
        cards = rng.choice([(40, 10), (10, 40), (30, 25), (25, 30)])  # seat-A cards decide most of the points
        g0 = game(["p", "q", "p", "q"], 0, None, end="deals", scores=(cards[0] + rng.randrange(6), cards[1]),
                  fixed_deals=8)
        g1 = game(["q", "p", "q", "p"], 1, None, end="deals", scores=(cards[0], cards[1] + rng.randrange(6)),
                  fixed_deals=8)
        for g in (g0, g1):
            g["winner"] = 0 if g["scores"][0] > g["scores"][1] else 1 if g["scores"][1] > g["scores"][0] else None
        lines.append(line(("p", "p"), ("q", "q"), k, g0, g1))
    res = write(tmp_path / "run" / "results.jsonl", lines)
    assert _rate([str(res), "--out", str(tmp_path / "lb"), "--bootstrap", "50"])[0] == 0
    doc = json.loads((tmp_path / "lb" / "leaderboard.json").read_text())
    assert doc["luck_points"]["statistic"] == "points" and doc["luck_points"]["rho"] < -0.5
    md = (tmp_path / "lb" / "leaderboard.md").read_text()
    assert "Luck (points differences, what `arena sprt --points` tests): rho =" in md


def test_a_figure_that_rounds_to_zero_has_no_minus():
    from arena.publish.leaderboard import fixed

    assert [fixed(x) for x in (-0.3, -0.5000001, 0.4, -12.6, 0.0)] == ["0", "-1", "0", "-13", "0"]
    assert fixed(-0.04, ".1f") == "0.0" and fixed(-0.06, ".1f") == "-0.1"
    assert fixed(-0.2, "+.0f") == "+0" and fixed(3.0, "+.0f") == "+3"


def test_provenance_from_shared_record_parts_is_that_of_copies() -> None:
    """A site's lines share each record's profile object (``ledger``); gathering them looks at each object once
    and each deal limit once: the same provenance as from lines that each hold their own copies, mixed profiles
    and disagreeing limits included."""
    import copy

    from arena.engine import get_profile
    from arena.publish.provenance import gather
    from arena.results import parse_line

    lines = [parse_line(x) for x in tournament(random.Random(3), STRENGTH, blocks=2)]
    shared = lines[0].games[0].record["profile"]
    for ln in lines:
        for g in ln.games:
            g.record["profile"] = shared
    own = copy.deepcopy(lines)
    assert gather(lines, {}) == gather(own, {}) and gather(lines, {}).rule_profile is not None
    louisiana = get_profile("louisiana").record_dict()
    for ln in lines[1::2]:
        for g in ln.games:
            g.record["profile"] = louisiana
            g.record["max_deals"] = 150
    own = copy.deepcopy(lines)
    mixed = gather(lines, {})
    assert mixed == gather(own, {}) and mixed.mixed_profiles == ["louisiana", "pagat62"]
    assert mixed.rule_profile is None and mixed.match_format is None  # 200 and 150 deals: not one format
