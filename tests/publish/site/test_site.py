"""The generated site without a browser: files, links, numbers, byte-identical rebuilds, refusals."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import pytest

from arena.publish.rate import PublishError
from arena.publish.site import build_site, write_provisional
from arena.publish.site.frames import unpack, viewer_data
from arena.results import read_results
from tests.cli import arena

LINK = re.compile(r'(?:href|src|data-record|data-twin)="([^"#:]+)"')


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_every_page_kind_is_written_and_every_link_resolves(site: Path, competition: Path) -> None:
    lines = [ln.to_dict() for ln in read_results(competition).lines]
    ids = {g["id"] for ln in lines for g in ln["games"]}
    assert {p.stem for p in (site / "games").iterdir()} == ids
    assert {p.name for p in (site / "replays").iterdir()} == {f"{i}.js" for i in ids}
    assert {p.stem for p in (site / "bots").iterdir()} == {"first", "last", "crashy"}
    assert len(list((site / "matchups").iterdir())) == 6  # 3 bots: each ordered pair of opponents
    checked = 0
    for page in site.rglob("*.html"):
        for target in LINK.findall(page.read_text()):
            assert (page.parent / target).resolve().is_file(), f"{page.relative_to(site)} links to missing {target}"
            checked += 1
    assert checked > 50


def test_game_pages_stay_small_and_replays_load_on_demand(site: Path, competition: Path) -> None:
    line = [ln.to_dict() for ln in read_results(competition).lines][0]
    g = line["games"][0]
    page = (site / "games" / f"{g['id']}.html").read_text()
    assert len(page) < 20_000 and '"frames"' not in page  # the replay is not inlined
    digest, rec = (site / "replays" / f"{g['id']}.js").read_text().split("\n", 1)
    assert re.fullmatch(r"// [0-9a-f]{24}", digest)  # what made it: a rebuild keeps the file while it matches
    head = f'cinchGame("{g["id"]}", '
    assert rec.startswith(head)
    payload = json.loads(rec[len(head):].rstrip().removesuffix(");"))
    assert payload == viewer_data(g["record"], id=g["id"], names=[s["bot"] for s in g["seats"]],
                                  twin=line["games"][1]["id"], forfeit_by=g["forfeit_by"])
    assert payload["warnings"] == [] and unpack(payload["frames"])[-1]["table"]["final_scores"] == g["scores"]
    assert "latency" not in rec and "stderr" not in rec  # run facts stay out of the published data


def test_leaderboard_numbers(site: Path, competition: Path) -> None:
    html = (site / "index.html").read_text()
    doc_rows = re.findall(r"<tr><td>(\d)</td><th scope=\"row\" class=\"l\"><a href=\"bots/(\w+)\.html\">", html)
    assert [r[0] for r in doc_rows] == ["1", "2", "3"]
    # crashy forfeits every game: it ranks last with a 0% score and 4 forfeits
    assert doc_rows[-1][1] == "crashy"
    row = html[html.index('bots/crashy.html">crashy'):]
    row = row[:row.index("</tr>")]
    assert "0.0%" in row and "0-0-4" in row and "illegal 4" in row
    for needed in ("\u00b1", "average opponent", "draws", 'role="img"', "Runs covered", 'id="crosstable"',
                   "Rating history", "Reproducibility"):
        assert needed in html, needed
    assert "As of 20" in html  # the date of the last block, from the results
    blocks = html[html.index("Blocks by partnership A's score</caption>"):]
    shown = re.findall(r"<tr><td>([\d.]+)</td><td>(\d+)</td>", blocks[:blocks.index("</table>")])
    lines = [ln.to_dict() for ln in read_results(competition).lines]
    assert {float(x): int(n) for x, n in shown} == {x: sum(ln["score_a"] == x for ln in lines)
                                                    for x in (0.0, 0.5, 1.0, 1.5, 2.0)}


def test_bot_page_lists_every_fault_with_evidence(site: Path, competition: Path, tmp_path: Path) -> None:
    page = (site / "bots" / "crashy.html").read_text()
    assert "Faults (4)" in page
    assert page.count("arena reproduce results.jsonl --bot BOT_FOLDER ") >= 4 + 4  # the table and the evidence
    assert "illegal action" in page and "thinking about decision" not in page  # the message; stderr is private
    assert "Its stderr: not published" in page
    build_site([competition], tmp_path / "private", bootstrap=0, private=True)
    mine = (tmp_path / "private" / "bots" / "crashy.html").read_text()
    assert "thinking about decision" in mine and f"arena reproduce {competition}" in mine  # the host's copy
    assert "The request it was answering" in page
    assert "Cinch statistics" in page and "pedros captured" in page and "latency p50" in page
    assert "fewer than 100 decisions" in page or "latency p99</th><td class=\"l\">" in page


def test_same_results_give_byte_identical_sites(site: Path, competition: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    build_site([competition], again, bootstrap=100)
    assert tree(again) == tree(site)
    b = build_site([competition], again, bootstrap=100)  # a rebuild in place changes nothing
    assert b.written == 0


def test_a_rebuild_reuses_replays_only_while_their_digest_matches(competition: Path, tmp_path: Path) -> None:
    out = tmp_path / "s"
    build_site([competition], out, bootstrap=0)
    one = next((out / "replays").iterdir())
    digest, body = one.read_text().split("\n", 1)
    one.write_text(digest + "\n" + body.replace("cinchGame", "kept"))  # same digest: the file is kept as it is
    other = next(p for p in (out / "replays").iterdir() if p != one)
    other.write_text("// 000000000000000000000000\nstale")  # another digest: written again
    build_site([competition], out, bootstrap=0)  # nothing new: a game's replay is made once, never looked at again
    assert "stale" in other.read_text()
    shutil.rmtree(out / ".cinch-state")  # a build from scratch (another code version drops the state) checks each
    build_site([competition], out, bootstrap=0)
    assert "kept(" in one.read_text()
    assert other.read_text().split("\n", 1)[1].startswith("cinchGame(")


def test_a_rebuild_removes_pages_of_a_previous_build(competition: Path, tmp_path: Path) -> None:
    out = tmp_path / "s"
    build_site([competition], out, bootstrap=0)
    stale = out / "games" / "0000000000.html"
    stale.write_text("old")
    build_site([competition], out, bootstrap=0)  # the same results carried on: games only ever come
    assert stale.exists()
    other = tmp_path / "other"
    shutil.copytree(competition, other)
    build_site([other], out, bootstrap=0)  # other results: the folder is rebuilt whole, exactly their site
    assert not stale.exists() and (out / "index.html").is_file()


def test_refusals(competition: Path, tmp_path: Path) -> None:
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "thesis.tex").write_text("mine")
    with pytest.raises(PublishError, match="not empty and holds no site"):
        build_site([competition], busy)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(PublishError, match="no finished blocks"):
        build_site([empty], tmp_path / "s")
    ran = arena("site", tmp_path / "missing.jsonl", "--out", tmp_path / "s2")
    assert ran.code == 2 and "missing.jsonl" in ran.err
    ran = arena("site", competition, "--out", tmp_path / "s3", "--bootstrap", "-1")
    assert ran.code == 2 and "--bootstrap" in ran.err


def test_two_files_with_clashing_games_are_refused(competition: Path, tmp_path: Path) -> None:
    lines = (competition / "results.jsonl").read_text().splitlines()
    other = json.loads(lines[0])
    other["games"][0]["scores"] = [1, 2]
    (tmp_path / "o").mkdir()
    (tmp_path / "o" / "results.jsonl").write_text(json.dumps(other) + "\n")
    with pytest.raises(PublishError, match="also in"):
        build_site([competition, tmp_path / "o"], tmp_path / "s")


def test_command_writes_the_site(competition: Path, tmp_path: Path) -> None:
    ran = arena("site", competition, "--out", tmp_path / "s", "--bootstrap", "0")
    assert ran.code == 0, ran.err
    assert "6 games, 3 bots, 1 runs" in ran.err and (tmp_path / "s" / "index.html").is_file()


def test_provisional_page_is_marked_and_links_nowhere(competition: Path, tmp_path: Path) -> None:
    write_provisional(competition, tmp_path / "live", done=2, total=3)
    html = (tmp_path / "live" / "index.html").read_text()
    assert "Provisional" in html and "2 of 3 blocks played so far" in html
    assert 'href="bots/' not in html and 'href="matchups/' not in html


def test_what_a_bot_sent_is_shown_as_text_never_as_markup(competition: Path, tmp_path: Path) -> None:
    hostile = '<img src=x onerror="alert(1)"></pre><script>alert(2)</script>'
    lines = [json.loads(x) for x in (competition / "results.jsonl").read_text().splitlines()]
    faulty = next(ln for ln in lines if ln["games"][0]["faults"])
    faulty["games"][0]["faults"][0]["reply"] = hostile
    faulty["games"][0]["faults"][0]["message"] = hostile
    for r in faulty["run"]["reproduce"]:
        r["stderr"] = hostile
    for g in faulty["run"]["games"]:
        for f in g.get("faults") or []:
            f["stderr"] = hostile
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    build_site([tmp_path / "r"], tmp_path / "s", bootstrap=0, private=True)  # private: stderr shown too
    for page in [tmp_path / "s" / "bots" / "crashy.html", tmp_path / "s" / "games" / f"{faulty['games'][0]['id']}.html"]:
        text = page.read_text()
        assert "<script>alert" not in text and "<img src=x" not in text
        assert "&lt;script&gt;alert(2)&lt;/script&gt;" in text
    replay = (tmp_path / "s" / "replays" / f"{faulty['games'][0]['id']}.js").read_text()
    assert "alert" not in replay  # the viewer's data holds the engine's frames, not the bots' words


def test_a_site_under_another_profile_names_it_and_says_what_does_not_apply(club: tuple[Path, Path]) -> None:
    from arena.publish.site import cinch_stats

    results, site = club
    index = (site / "index.html").read_text()
    assert '<p id="profile">Rule profile: <strong>foster1897</strong>' in index
    lines = [ln.to_dict() for ln in read_results(results).lines]
    games = [g for ln in lines for g in ln["games"]]
    page = (site / "games" / f"{games[0]['id']}.html").read_text()
    assert "Rule profile: <strong>foster1897</strong>" in page and "scoring=difference" in page
    stats = cinch_stats([(g["record"], [s["bot"] for s in g["seats"]]) for g in games])
    for bot in ("random", "heuristic"):
        html_ = (site / "bots" / f"{bot}.html").read_text()
        st = stats[bot]["foster1897"]
        assert "Under the rule profile <strong>foster1897</strong>" in html_
        # nobody is forced to bid under foster1897: the page says so instead of a 0
        assert "does not apply under foster1897: nobody must bid" in html_
        assert f"<td>{st.void_deals}</td>" in html_.split("void deals")[1][:80]
        assert f"<td>{st.pedros_laid_away}</td>" in html_.split("pedros laid away")[1][:120]
        assert st.deals > 0 and f"<td>{st.deals}</td>" in html_.split("deals played (its side)")[1][:40]


def test_bot_page_shows_the_manifest_it_ran_with(site: Path, competition: Path) -> None:
    meta = json.loads((competition / "tournament.json").read_text())
    entry = next(x for x in meta["entries"] if x["name"] == "crashy")
    assert entry["manifest"]["name"] == "crashy" and entry["manifest"]["command"]
    page = (site / "bots" / "crashy.html").read_text()
    assert "manifest (bot.yaml as parsed)" in page
    for arg in entry["manifest"]["command"]:
        assert html.escape(arg) in page


def test_the_luck_is_drawn_with_a_text_alternative_only_where_it_was_measured(site: Path) -> None:
    from arena.publish.board import Luck
    from arena.publish.site.pages import _luck_chart

    def luck(rho: float | None, ci: tuple[float, float] | None = None) -> Luck:
        return Luck(statistic="score", rho=rho, rho_ci=ci, factor=None, factor_ci=None, blocks=3, note=None,
                    rotations=2)

    # the test competition's 3 blocks cannot carry a luck figure: the page says so and draws nothing
    page = (site / "index.html").read_text()
    assert '<table class="luck">' not in page and "too few to measure" in page
    chart = _luck_chart(luck(-0.3636, (-1.0, 0.0004)), luck(-0.59, (-0.8, -0.31)))
    labels = re.findall(r'aria-label="([^"]*)"', chart)
    assert labels[:2] == ["game results: rho -0.364, interval -1.00 to 0.00", "points: rho -0.590, interval -0.80 to -0.31"]
    assert "rho axis from -1 to 1" in labels[2]
    assert _luck_chart(luck(None), None) == ""


def _host_facts(competition: Path) -> tuple[list[str], list[str]]:
    """The host paths (results and bot folders) and the stderr lines the competition's results hold."""
    lines = [ln.to_dict() for ln in read_results(competition).lines]
    meta = json.loads((competition / "tournament.json").read_text())
    paths = [str(competition.parent), str(competition)] + [e["dir"] for e in meta["entries"]]
    tails = [r.get("stderr") or "" for ln in lines for r in (ln.get("run") or {}).get("reproduce") or []]
    tails += [f.get("stderr") or "" for ln in lines for g in (ln.get("run") or {}).get("games") or []
              for f in g.get("faults") or []]
    stderr = sorted({x.strip() for t in tails for x in t.splitlines() if len(x.strip()) > 12})
    assert paths and stderr, "the competition has bot folders and a fault with stderr"
    return paths, stderr


def test_public_pages_publish_no_host_path_and_no_stderr(site: Path, competition: Path, tmp_path: Path) -> None:
    """Every generated file of a default build, grepped for the host's paths and the bots' stderr."""
    paths, stderr = _host_facts(competition)
    for rel, data in tree(site).items():
        text = data.decode(errors="replace")
        for p in paths:
            assert p not in text, f"{rel} publishes the host path {p}"
        for x in stderr:
            assert x not in text, f"{rel} publishes stderr: {x!r}"
    ran = arena("site", competition, "--out", tmp_path / "mine", "--bootstrap", "0", "--private")
    assert ran.code == 0, ran.err
    mine = "".join(d.decode(errors="replace") for d in tree(tmp_path / "mine").values())
    assert all(p in mine for p in paths[1:]) and any(x in mine for x in stderr)  # the host's copy has both


def test_a_build_leaves_no_reference_cycles(tmp_path: Path) -> None:
    """build_site turns the cyclic collector off while it writes (a large build spent ~40% of its CPU
    in collections that found nothing): that holds only while a build makes no reference cycles."""
    import gc

    from arena.bench.site import generate

    generate(tmp_path / "results", 8, 2, max_deals=2)
    gc.collect()
    gc.disable()
    try:
        build_site([tmp_path / "results"], tmp_path / "site", bootstrap=0, history_bootstrap=0)
        assert gc.collect() == 0
    finally:
        gc.enable()
    assert gc.isenabled()
