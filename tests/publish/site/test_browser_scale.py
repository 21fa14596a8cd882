"""The leaderboard and a bot page stay readable at 1280 px with 20 and with 100 versions, in headless Chromium:
no sideways scrolling of the page (wide tables scroll in boxes of their own), and the rating history's
axes titled and its names apart. Screenshots go to test-artifacts/site/."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from arena.publish.site import Naming, build_site

from .browser import Browser
from .conftest import EXE
from .many import labels, ladder_store

REPO = Path(__file__).resolve().parents[3]
ARTIFACTS = REPO / "test-artifacts" / "site"
pytestmark = pytest.mark.skipif(EXE is None, reason="no Chromium: install it with `apt-get install chromium` "
                                                   "(.ci/run does) to run the browser tests")
WINDOW = 1280

#: every text of each rating-history chart: outside the chart, or overlapping another text (none expected)
CLASHES = """(() => { const out = [];
for (const svg of document.querySelectorAll('svg.history')) {
  const s = svg.getBoundingClientRect();
  const boxes = [...svg.querySelectorAll('text')].map(t => [t.textContent, t.getBoundingClientRect()]);
  boxes.forEach(([n, r], i) => {
    if (r.left < s.left - 0.5 || r.right > s.right + 0.5 || r.top < s.top - 0.5 || r.bottom > s.bottom + 0.5)
      out.push('outside the chart: ' + n);
    for (const [m, q] of boxes.slice(i + 1))
      if (r.left < q.right && q.left < r.right && r.top < q.bottom && q.top < r.bottom) out.push(n + ' overlaps ' + m);
  });
}
return out; })()"""


@pytest.fixture
def window(browser: Browser) -> Iterator[Browser]:
    """The session's browser as a 1280 px wide window (given back as it was)."""
    browser.call("Emulation.setDeviceMetricsOverride", width=WINDOW, height=900, deviceScaleFactor=1, mobile=False)
    try:
        yield browser
    finally:
        browser.call("Emulation.clearDeviceMetricsOverride")


# (teams, versions each, named by a server): 20 versions of 5 teams, 100 of 20 teams (named as a server names
# them, and by bot ids, which are longer), 100 teams of one version each (all ranked); the default suite runs one
@pytest.mark.parametrize("teams,versions,named", [
    pytest.param(5, 4, True, marks=pytest.mark.slow), (20, 5, True), pytest.param(20, 5, False, marks=pytest.mark.slow),
    pytest.param(100, 1, True, marks=pytest.mark.slow)])
def test_the_leaderboard_and_a_bot_page_fit_a_1280_px_window(window: Browser, tmp_path: Path, teams: int,
                                                             versions: int, named: bool) -> None:
    naming = Naming("Spring Cinch", labels(teams, versions), "batch", "batches") if named else None
    store = ladder_store(tmp_path / "results", teams, versions, opponents=1)
    built = build_site([store], tmp_path / "site", bootstrap=0, history_bootstrap=0, replays=False, naming=naming)
    ranked = [b for b in built.model.doc.bots if b.rank is not None]
    assert len(built.model.doc.bots) == teams * versions and len(ranked) == teams
    bot = tmp_path / "site" / "bots" / f"{built.model.slugs[ranked[0].bot]}.html"
    for page in (tmp_path / "site" / "index.html", bot):
        window.open(page)
        width, inside = window.js("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert inside <= WINDOW and width <= inside, f"{page.name} is {width} px wide in a {inside} px window"
        assert window.js(CLASHES) == []
        if versions > 1:  # a history: its axes are titled, in the ladder's words when the server names them
            titles = window.js("[...document.querySelectorAll('svg.history text.axis-title')].map(t => t.textContent)")
            assert titles == ["batch" if named else "run", "rating (Elo)"]
            drawn = window.js("[...document.querySelectorAll('svg.history text.series')].map(t => t.textContent)")
            rows = window.js("[...document.querySelectorAll('table.history th[scope=row]')].map(t => t.textContent)")
            assert drawn and set(drawn) <= set(rows)  # each line named in full, as in the table
        window.screenshot(ARTIFACTS / f"scale-{teams}x{versions}-{'named' if named else 'ids'}-{page.stem[:20]}.png")
    assert window.problems() == []
