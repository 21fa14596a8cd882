"""A host's names on the site: the competition's name as the title, each version as the server calls it
(``team03 v2``), the ladder's batches as batches; earlier and retired versions folded away."""

from __future__ import annotations

import re
import shutil
from html import unescape
from pathlib import Path

import pytest

from arena.publish.site import Naming, build_site

from .many import labels, ladder_store, version_digest

TEAMS, VERSIONS = 5, 3


def text(page: Path, code: bool = True) -> str:
    """What a reader sees of a page: its text, tags and scripts removed (``code`` False: and code too)."""
    html = page.read_text()
    if not code:
        html = re.sub(r"<code>.*?</code>", " ", html, flags=re.S)
    return unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)))


@pytest.fixture(scope="module")
def named(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("named")
    store = ladder_store(root / "results", TEAMS, VERSIONS)
    build_site([store], root / "site", bootstrap=0, history_bootstrap=0, replays=False,
               naming=Naming("Spring Cinch", labels(TEAMS, VERSIONS), "batch", "batches"))
    return store, root / "site"


def test_the_title_is_the_competitions_name_on_every_page(named: tuple[Path, Path]) -> None:
    _, site = named
    index = (site / "index.html").read_text()
    assert "<title>Spring Cinch</title>" in index and "<h1>Spring Cinch</h1>" in index
    assert "ladder: leaderboard" not in index  # the tournament's config name stays in Reproducibility only
    pages = list(site.rglob("*.html"))
    assert len(pages) > 40
    for p in pages:
        assert '<span class="competition">Spring Cinch</span>' in p.read_text(), p


def test_every_version_goes_by_the_servers_name(named: tuple[Path, Path]) -> None:
    _, site = named
    for p in site.rglob("*.html"):
        assert not re.search(r"team\d\d@", text(p)), f"{p.relative_to(site)} names a version by its digest"
    index = (site / "index.html").read_text()
    ratings = index[index.index('id="ratings"'):].split("</table>")[0]
    assert sorted(re.findall(r'">(team\d\d v\d)</a></th>', ratings)) == [f"team{i:02d} v3" for i in range(TEAMS)]
    earlier = index[index.index('<details id="earlier">'):].split("</details>")[0]
    assert "team00 v1" in earlier and "team00 v2" in earlier and "team00 v3" in earlier  # now: the ranked one
    bot = next(p for p in (site / "bots").iterdir() if "<h1>team02 v2</h1>" in p.read_text())
    page = bot.read_text()
    assert "team02 v2 (bot.yaml: 0.2)" in page and "<title>team02 v2: bot</title>" in page
    assert version_digest("team02", 2) in page  # the digest stays in the identity table


def test_a_ladders_batches_are_not_called_runs(named: tuple[Path, Path]) -> None:
    _, site = named
    for p in [site / "index.html", *sorted((site / "bots").iterdir())[:3]]:
        words = text(p, code=False)  # "results without their <code>run</code> part" names a field
        assert not re.search(r"\bruns?\b", words, re.I), f"{p.name}: {re.search(r'.{40}runs?.{40}', words, re.I)}"
        assert "batch 1" in words and "batch 3" in words
    index = text(site / "index.html")
    assert f"over {VERSIONS} batches" in index and "Batches covered" in index
    assert "rating after each batch" in (site / "index.html").read_text()
    # built without resampling the earlier batches (as a server builds it): no "0 bootstrap resamples"
    assert "earlier batches without intervals (not resampled)" in index and "0 bootstrap" not in index


def test_a_renamed_competition_is_written_again_and_in_place_rebuilds_equal_a_fresh_build(
        named: tuple[Path, Path], tmp_path: Path) -> None:
    store, _ = named
    early = ladder_store(tmp_path / "early", TEAMS, VERSIONS - 1)
    grown = tmp_path / "grown"
    nm = Naming("Spring Cinch", labels(TEAMS, VERSIONS), "batch", "batches")
    build_site([early], grown, bootstrap=0, history_bootstrap=0, replays=False, naming=nm)
    shutil.copy(store / "results.jsonl", early / "results.jsonl")
    shutil.copy(store / "runs.jsonl", early / "runs.jsonl")
    shutil.copy(store / "tournament.json", early / "tournament.json")
    build_site([early], grown, bootstrap=0, history_bootstrap=0, replays=False, naming=nm)
    fresh = tmp_path / "fresh"
    build_site([early], fresh, bootstrap=0, history_bootstrap=0, replays=False, naming=nm)

    def files(root: Path) -> dict[str, bytes]:
        return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*.html")}

    assert files(grown) == files(fresh)
    build_site([early], grown, bootstrap=0, history_bootstrap=0, replays=False,
               naming=Naming("Autumn Cinch", nm.labels, "batch", "batches"))
    assert all("Autumn Cinch" in p.read_text() for p in grown.rglob("*.html"))


def test_without_a_naming_the_site_reads_as_before(tmp_path: Path) -> None:
    store = ladder_store(tmp_path / "r", 3, 2)
    build_site([store], tmp_path / "s", bootstrap=0, history_bootstrap=0, replays=False)
    index = (tmp_path / "s" / "index.html").read_text()
    assert "<h1>ladder: leaderboard</h1>" in index and "Runs covered" in index
    assert re.search(r"team00@[0-9a-f]{12}", index)


def test_retired_versions_are_folded_away(tmp_path: Path) -> None:
    store = ladder_store(tmp_path / "r", 4, 2)
    build_site([store], tmp_path / "s", bootstrap=0, history_bootstrap=0, replays=False, retire=["team01@0.1"],
               naming=Naming("Spring Cinch", labels(4, 2)))
    index = (tmp_path / "s" / "index.html").read_text()
    fold = re.search(r'<details id="retired"><summary>Retired versions \(1\)</summary>(.*?)</details>', index, re.S)
    assert fold and "Retired by the host, left out of the ratings: team01 v1." in fold.group(1)
    outside = index.replace(fold.group(0), "")
    assert "team01 v1" not in outside.split('<details id="earlier">')[0]
    crosstable = index[index.index('id="crosstable"'):].split("</table>")[0]
    assert "team01 v1" not in crosstable and "team01 v2" in crosstable


def test_the_live_page_of_a_ladder_uses_the_servers_names_and_links_nowhere(tmp_path: Path) -> None:
    from arena.publish.site import write_provisional

    store = ladder_store(tmp_path / "r", 3, 2)
    write_provisional(store, tmp_path / "live", done=5, total=9,
                      naming=Naming("Spring Cinch", labels(3, 2), "batch", "batches"))
    index = (tmp_path / "live" / "index.html").read_text()
    assert "<title>Spring Cinch</title>" in index and "5 of 9 blocks played so far" in index
    assert "team01 v2" in index and not re.search(r"team\d\d@", text(tmp_path / "live" / "index.html"))
    assert 'href="bots/' not in index and 'href="matchups/' not in index


def test_many_notes_on_the_ratings_are_folded(tmp_path: Path) -> None:
    store = ladder_store(tmp_path / "many", 12, 2, opponents=1)  # 4 games a version: many won or lost them all
    build_site([store], tmp_path / "site", bootstrap=0, history_bootstrap=0, replays=False,
               naming=Naming("Spring Cinch", labels(12, 2), "batch", "batches"))
    index = (tmp_path / "site" / "index.html").read_text()
    fold = re.search(r'<details class="note" id="notes"><summary>Note: (.*?); and (\d+) more</summary><ul>(.*?)</ul>',
                     index, re.S)
    assert fold, "a ladder of few games per version has a note for each version that won or lost every game"
    items = re.findall(r"<li>(.*?)</li>", fold.group(3))
    assert len(items) == int(fold.group(2)) >= 3 and all(re.match(r"team\d\d v\d (won|lost) all its", i) for i in items)


def test_a_few_notes_stay_open(named: tuple[Path, Path]) -> None:
    index = (named[1] / "index.html").read_text()
    assert 'id="notes"' not in index and re.search(r'<p class="note">Note: team0\d v\d (won|lost) all its', index)
