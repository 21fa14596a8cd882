"""Rule profiles above the engine: configs and commands name them, manifests
restrict them, probes and messages are built under them, leaderboards show them.

Everything runs under ``VARIANT`` (tests/profiles.py), a profile whose every
implemented parameter differs from pagat62's.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import yaml

from arena.engine import Game, RuleProfile, game_record, load_record, recorded_decisions
from arena.match import MatchSettings
from arena.match.check import PROBES, check_entry, probe_positions
from arena.match.reproduce import reproduce_fault
from arena.players import BotEntry, ManifestError, ProfileRefused, load_entry
from arena.protocol.messages import GameStart, Hello
from arena.schedule import ConfigError
from arena.schedule.config import load_config

from ..cli import arena
from ..profiles import VARIANT, variant  # noqa: F401  (fixture)

REPO = Path(__file__).resolve().parents[2]
MINIMAL = REPO / "bots" / "minimal"
PARAMS = VARIANT.model_dump(mode="json")
#: Records carry the profile in its record form (later fields only where not default).
RECORDED = json.loads(json.dumps(VARIANT.record_dict()))


def bot_folder(folder: Path, name: str, profiles: list[str] | None, source: Path = MINIMAL) -> Path:
    """A copy of ``source`` under another name whose manifest lists ``profiles``."""
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text((source / "bot.py").read_text())
    manifest = {"name": name, "version": "1", "command": ["{python}", "bot.py"]}
    if profiles is not None:
        manifest["profiles"] = profiles
    (folder / "bot.yaml").write_text(yaml.safe_dump(manifest))
    return folder


def config(folder: Path, entries: list[Path], **match: object) -> Path:
    data = {"name": "prof", "entries": [str(e) for e in entries], "seed": "profile-seed", "blocks": 1,
            "match": {"sandbox": "none", "format": "deals", "deals": 2, **match}, "out": str(folder / "out"),
            "backend": "serial", "workers": 1}
    p = folder / "config.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


# -- names ---------------------------------------------------------------------------------------


def test_match_profile_names_a_registered_profile(tmp_path, variant):
    t = load_config(config(tmp_path, [MINIMAL, REPO / "bots" / "random"], profile="testvariant"))
    assert t.settings.profile == VARIANT
    default = load_config(config(tmp_path, [MINIMAL, REPO / "bots" / "random"]))
    assert default.settings.profile == RuleProfile()
    assert t.config_hash() != default.config_hash()  # results of another profile never mix


def test_unknown_profile_is_a_config_error_naming_the_field(tmp_path, variant):
    with pytest.raises(ConfigError) as e:
        load_config(config(tmp_path, [MINIMAL, REPO / "bots" / "random"], profile="testvariamt"))
    text = str(e.value)
    assert "match.profile" in text and "'testvariamt'" in text and "did you mean 'testvariant'" in text
    assert ":" in text.split("match.profile")[0]  # FILE:LINE first, as for every config error


def test_commands_refuse_an_unknown_profile_with_the_closest_name(variant):
    for argv in (["check-bot", MINIMAL, "--sandbox", "none"], ["play", MINIMAL, MINIMAL, "--sandbox", "none"]):
        ran = arena(*argv, "--profile", "pagat26")
        assert ran.code == 2 and "--profile" in ran.err and "did you mean 'pagat62'" in ran.err
        assert ran.out == "" and "Traceback" not in ran.err


# -- manifests and refusals ------------------------------------------------------------------------


@pytest.mark.parametrize("profiles,fragment", [
    ([], "at least one profile"),
    (["pagat62", "pagat62"], "each profile name once"),
    (["pag at"], "profile names are"),
])
def test_a_bad_profiles_field_names_the_field(tmp_path, profiles, fragment):
    with pytest.raises(ManifestError) as e:
        load_entry(bot_folder(tmp_path / "b", "b", profiles))
    assert "bot.yaml:5: profiles: " in str(e.value)  # its line in the yaml.safe_dump of the manifest and fragment in str(e.value)


def test_a_listed_profile_is_played_and_another_refused(tmp_path, variant):
    only62 = bot_folder(tmp_path / "only62", "only62", ["pagat62"])
    both = bot_folder(tmp_path / "both", "both", ["pagat62", "testvariant"])
    assert load_entry(only62).manifest.plays("pagat62") and not load_entry(only62).manifest.plays("testvariant")
    assert load_entry(both).manifest.plays("testvariant") and load_entry(MINIMAL).manifest.plays("testvariant")
    load_config(config(tmp_path, [both, MINIMAL], profile="testvariant"))  # accepted
    with pytest.raises(ConfigError) as e:
        load_config(config(tmp_path, [both, only62], profile="testvariant"))
    text = str(e.value)
    assert "entries.1" in text and "'only62'" in text and "'testvariant'" in text and "pagat62" in text
    assert "entries.0" not in text


def test_refusal_points_out_a_misspelt_listed_profile(tmp_path, variant):
    typo = load_entry(bot_folder(tmp_path / "typo", "typo", ["testvarient"]))
    with pytest.raises(ProfileRefused) as e:
        check_entry(typo, MatchSettings(sandbox="none", profile=VARIANT))
    assert "'testvarient' is not a profile of this harness (did you mean 'testvariant'?)" in str(e.value)


def test_check_bot_and_play_refuse_before_any_game(tmp_path, variant):
    only62 = bot_folder(tmp_path / "only62", "only62", ["pagat62"])
    ran = arena("check-bot", only62, "--sandbox", "none", "--profile", "testvariant")
    assert ran.code == 2 and "'only62'" in ran.err and "'testvariant'" in ran.err and ran.out == ""
    save = tmp_path / "game.json"
    ran = arena("play", MINIMAL, only62, "--sandbox", "none", "--profile", "testvariant", "--save", save)
    assert ran.code == 2 and "'only62'" in ran.err and "'testvariant'" in ran.err
    assert ran.out == "" and not save.exists()
    # the same bot under its own profile is checked as usual
    assert arena("check-bot", only62, "--sandbox", "none", "--games", "0").code == 0


# -- probes and messages under a profile ----------------------------------------------------------


def test_probes_are_built_under_the_profile():
    positions = probe_positions(VARIANT)
    assert set(positions) == set(PROBES)
    for kind, build in positions.items():
        game = build()
        assert game.profile == VARIANT, kind
        if game.choice.kind == "bid":
            assert max(game.choice.amounts) == VARIANT.max_bid and min(game.choice.amounts) >= VARIANT.min_bid
    forced = positions["forced_bid_history"]().deal.bids
    assert [a for _, a, f in forced if f] == [VARIANT.dealer_forced_bid]
    assert list(positions["top_bid"]().choice.amounts) == [VARIANT.max_bid]
    rob = positions["rob_after_reshuffle"]()
    assert rob.deal.reshuffles >= 1 and rob.deal.high == VARIANT.min_bid
    # and under pagat62 the same probes have pagat62's numbers
    assert [a for _, a, f in probe_positions()["forced_bid_history"]().deal.bids if f] == [7]


RECORDER = '''
import json, os
from cinch_bot import Bot, random_legal, run

class Recorder(Bot):
    name = "recorder"
    def start(self, hello):
        self.log(hello)
        super().start(hello)
    def start_game(self, game, seed):
        self.log(game)
        super().start_game(game, seed)
    def decide(self, kind, view, legal):
        self.log({"type": "seen_profile", "profile": self.profile})
        return random_legal(legal, kind, self.rng)
    def log(self, msg):
        with open(os.environ["LOG"], "a") as f:
            f.write(json.dumps(msg) + "\\n")

run(Recorder())
'''


def recorder(tmp_path: Path) -> tuple[BotEntry, Path]:
    """An SDK bot (random legal play) that logs every hello and game message it gets."""
    folder = tmp_path / "rec"
    folder.mkdir()
    log = tmp_path / "log.jsonl"
    (folder / "bot.py").write_text(RECORDER)
    (folder / "bot.yaml").write_text(yaml.safe_dump({"name": "recorder", "command": ["{python}", "bot.py"],
                                                     "libraries": ["sdk"], "env": {"LOG": str(log)}}))
    return load_entry(folder), log


def test_hello_and_game_name_the_profile_with_all_its_parameters(tmp_path):
    entry, log = recorder(tmp_path)
    report = check_entry(entry, MatchSettings(sandbox="none", profile=VARIANT), games=1)
    assert report.ok, report.summary()
    assert report.profile == "testvariant" and "under rule profile testvariant" in report.summary()
    msgs = [json.loads(x) for x in log.read_text().splitlines()]
    hellos = [m for m in msgs if m["type"] == "hello"]
    games = [m for m in msgs if m["type"] == "game"]
    seen = [m["profile"] for m in msgs if m["type"] == "seen_profile"]
    assert len(hellos) == len(PROBES) + 4 and len(games) == len(hellos)  # a fresh process per probe and seat
    for m in hellos:
        assert m["profile"] == PARAMS and Hello.model_validate(m).profile.name == "testvariant"
    for m in games:
        assert m["profile"] == PARAMS and GameStart.model_validate(m)
        assert RuleProfile.model_validate(m["profile"]) == VARIANT  # all parameters: the profile itself
    assert seen and all(p == PARAMS for p in seen)  # the SDK's Bot.profile is the game's


def test_reproduce_speaks_the_recorded_games_profile(tmp_path):
    game = Game(VARIANT, key="repro")
    rng = random.Random(3)
    while not game.over:
        game.apply(game.choice.sample(rng))
    record = game_record(game)
    seat = recorded_decisions(load_record(record))[4][0]
    entry, log = recorder(tmp_path)
    result, _ = reproduce_fault(record, seat, 1, 5, entry, MatchSettings(sandbox="none"))  # settings say pagat62
    assert result.record["profile"] == RECORDED
    sent = [json.loads(x) for x in log.read_text().splitlines()]
    assert [m["profile"] for m in sent if m["type"] in ("hello", "game")] == [PARAMS, PARAMS]


# -- leaderboards and results ---------------------------------------------------------------------


def test_a_tournament_of_a_profile_records_and_publishes_it(tmp_path, variant):
    cfg = config(tmp_path, [MINIMAL, REPO / "bots" / "random"], profile="testvariant")
    ran = arena("run", cfg)
    assert ran.code == 0, ran.err
    line = json.loads((tmp_path / "out" / "results.jsonl").read_text().splitlines()[0])
    assert all(g["record"]["profile"] == RECORDED for g in line["games"])
    board = tmp_path / "out" / "leaderboard"
    doc = json.loads((board / "leaderboard.json").read_text())
    assert doc["provenance"]["rule_profile"] == PARAMS
    md = (board / "leaderboard.md").read_text().splitlines()
    assert md[0] == "# Leaderboard: prof" and md[2].startswith("Rule profile: **testvariant**")
    assert any(x.startswith("- rule profile: testvariant (") and "points.jack=2" in x and "scoring=difference" in x
               for x in md)
    html = (board / "leaderboard.html").read_text()
    assert html.index("<h1>") < html.index('<p id="profile">Rule profile: <strong>testvariant</strong>') < html.index(
        '<table id="ratings">')
    # arena rate on the results alone (no tournament.json) still finds the profile in the game records
    (tmp_path / "out" / "tournament.json").unlink()
    assert arena("rate", tmp_path / "out" / "results.jsonl", "--out", tmp_path / "again").code == 0
    again = json.loads((tmp_path / "again" / "leaderboard.json").read_text())
    assert again["provenance"]["rule_profile"] == PARAMS


def test_a_leaderboard_without_any_profile_says_so():
    from arena.publish.leaderboard import profile_line
    from arena.publish.provenance import Provenance

    assert profile_line(Provenance(rule_profile=None))[0] == "unknown"
    assert "neither" in profile_line(Provenance(rule_profile=None))[1]
    assert profile_line(Provenance(rule_profile=PARAMS)) == (
        "testvariant", " (all its parameters under Reproducibility)")


def test_play_shows_the_profile_and_its_record_replays(tmp_path, variant):
    save = tmp_path / "g.json"
    ran = arena("play", MINIMAL, MINIMAL, "--sandbox", "none", "--profile", "testvariant", "--save", save)
    assert ran.code == 0, ran.err
    assert ran.out.splitlines()[0].startswith("=== rule profile testvariant (target=31,")
    record = json.loads(save.read_text())["record"]
    assert record["profile"] == RECORDED
    assert arena("replay", save).out == ran.out


def test_parameters_in_full_may_not_borrow_a_registered_name(tmp_path):
    with pytest.raises(ConfigError) as e:
        load_config(config(tmp_path, [MINIMAL, REPO / "bots" / "random"], profile={"target": 40}))
    assert "match.profile" in str(e.value) and "'pagat62' is a registered profile with other parameters" in str(e.value)
    own = load_config(config(tmp_path, [MINIMAL, REPO / "bots" / "random"], profile={"name": "club40", "target": 40}))
    assert own.settings.profile.name == "club40" and own.settings.profile.target == 40


def test_sprt_plays_under_a_profile(tmp_path, variant):
    rnd = REPO / "bots" / "random"
    bad = arena("sprt", "--candidate", rnd, "--baseline", rnd, "--sandbox", "none", "--profile", "testvariamt")
    assert bad.code == 3 and "did you mean 'testvariant'" in bad.err
    out_json = tmp_path / "sprt.json"
    ran = arena("sprt", "--candidate", rnd, "--baseline", rnd, "--sandbox", "none", "--profile", "testvariant",
                "--max-blocks", "1", "--matchups", "pair", "--seed", "p", "--json", out_json, "--out", tmp_path / "r")
    assert ran.code == 2, ran.err  # one block decides nothing
    assert json.loads(out_json.read_text())["profile"] == PARAMS
    line = json.loads((tmp_path / "r" / "results.jsonl").read_text().splitlines()[0])
    assert all(g["record"]["profile"] == RECORDED for g in line["games"])
