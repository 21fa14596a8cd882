"""Write the static site: the library call behind ``arena site`` and ``arena run`` with ``site:``.

Layout of ``out``::

    index.html               leaderboard (ratings, bars, crosstable, history, luck, LOS, runs, provenance)
    bots/<bot>.html          one page per bot
    matchups/<a>--<b>.html   the games behind each crosstable cell
    games/<id>.html          one small page per game, with the replay viewer
    replays/<id>.js          what the viewer shows of the game (the engine's frames), loaded on demand;
                             a rebuild keeps those whose record and code are unchanged
    viewer.html              open a record file from disk
    site.css, viewer.js      the assets (shipped in the package)

Files are written only when their bytes change, each through a temporary
file, and nothing depends on the clock or the host: the same results give
byte-identical files. Files a previous build left that this build does not
write (a renamed bot) are removed, so the folder is exactly the site.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

from ...results import ResultsError
from ..rate import PublishError
from . import pages
from .collect import Competition, load_competition
from .frames import game_data
from .stats import DealCounts, cinch_stats, game_facts
from .model import SiteModel, build_model

ASSETS = ("site.css", "viewer.js")
MARKER = ".cinch-site"  # marks a folder as a site, so a rebuild may prune it


@dataclass
class SiteBuild:
    out: Path
    model: SiteModel
    files: int
    written: int
    largest: tuple[str, int]


def asset(name: str) -> str:
    return resources.files(__package__).joinpath("assets", name).read_text()


class _Writer:
    def __init__(self, out: Path) -> None:
        self.out = out
        self.names: set[str] = set()
        self.written = 0
        self.largest = ("", 0)
        self.dirs: set[Path] = set()

    def put(self, rel: str, text: str) -> None:
        data = text.encode()
        self.names.add(rel)
        if len(data) > self.largest[1]:
            self.largest = (rel, len(data))
        p = self.out / rel
        if p.parent not in self.dirs:
            p.parent.mkdir(parents=True, exist_ok=True)
            self.dirs.add(p.parent)
        try:
            if p.stat().st_size == len(data) and p.read_bytes() == data:
                return
        except OSError:
            pass
        tmp = p.with_name(p.name + ".tmp")
        tmp.write_bytes(data)
        tmp.replace(p)
        self.written += 1

    def keep(self, rel: str, head: str) -> bool:
        """Keep the file a previous build wrote if it starts with ``head`` (the digest of what made it)."""
        p = self.out / rel
        try:
            with p.open("rb") as f:
                same = f.read(len(head.encode())) == head.encode()
        except OSError:
            return False
        if same:
            self.names.add(rel)
        return same

    def prune(self) -> None:
        for sub in ("bots", "games", "matchups", "records", "replays"):
            d = self.out / sub
            if d.is_dir():
                for f in d.iterdir():
                    if f"{sub}/{f.name}" not in self.names and f.is_file():
                        f.unlink()


def _check_out(out: Path) -> None:
    """Refuse to fill a folder that holds something other than a site."""
    if out.exists() and not out.is_dir():
        raise PublishError(f"{out}: exists and is not a folder; give --out a folder for the site")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).exists():
        raise PublishError(f"{out}: the folder is not empty and holds no site; give --out an empty or new folder")


def _frames_code() -> str:
    """A digest of the code the viewer's frames come from (the engine and ``frames``): a frames file
    another version of it wrote is written again."""
    h = hashlib.blake2b(digest_size=12)
    root = resources.files("arena")
    for sub in ("engine", "publish/site"):
        for f in sorted(root.joinpath(sub).iterdir(), key=lambda x: x.name):
            if f.name.endswith(".py"):
                h.update(f.name.encode() + f.read_bytes())
    return h.hexdigest()


def write_site(m: SiteModel, out: Path) -> SiteBuild:
    """Write every file. Each game is replayed once by the engine: its replay gives the viewer's frames
    and the statistics' facts (``m.stats`` is computed here from them)."""
    _check_out(out)
    out.mkdir(parents=True, exist_ok=True)
    w = _Writer(out)
    w.put(MARKER, "built by arena site; files here are replaced on every build\n")
    for name in ASSETS:
        w.put(name, asset(name))
    code = _frames_code()
    facts: list[list[DealCounts] | None] = []
    for ref in m.comp.games:
        g = m.game_line(ref)
        record = g.get("record") or {}
        args: dict[str, Any] = {"id": ref.id, "names": ref.bots, "twin": ref.twin, "forfeit_by": g.get("forfeit_by")}
        if ref.table:  # a table's other rotations (a pair's replay data stays as it was)
            args["twins"] = ref.twins
        key = hashlib.blake2b(json.dumps([code, record, args], sort_keys=True).encode(), digest_size=12).hexdigest()
        rel = f"replays/{ref.id}.js"
        if w.keep(rel, f"// {key}\n"):  # the engine's frames take most of a build: a rebuild reuses them
            facts.append(game_facts(record))
            continue
        data, game = game_data(record, **args)
        w.put(rel, f"// {key}\n" + pages.replay_js(data))
        facts.append(None if game is None else game_facts(None, game))  # None: it does not replay as recorded
    m.stats = cinch_stats([(m.game_line(r).get("record") or {}, r.bots) for r in m.comp.games], facts)
    w.put("index.html", pages.leaderboard_page(m))
    w.put("viewer.html", pages.viewer_page())
    refs = {r.id: r for r in m.comp.games}
    for bot in m.slugs:
        w.put(f"bots/{m.slugs[bot]}.html", pages.bot_page(m, bot))
    for (a, b) in sorted(m.matrix):
        w.put(f"matchups/{pages.matchup_name(m, a, b)}", pages.matchup_page(m, a, b, refs))
    for ref in m.comp.games:
        w.put(f"games/{ref.id}.html", pages.game_page(m, ref))
    w.prune()
    return SiteBuild(out, m, len(w.names), w.written, w.largest)


def build_site(results: Sequence[str | os.PathLike[str]], out: str | os.PathLike[str], *,
               anchor: tuple[str, float] | None = None, bootstrap: int = 1000,
               history_bootstrap: int = 200, retire: Sequence[str] = (), private: bool = False) -> SiteBuild:
    """Read the results, compute every page's numbers and write the site to ``out``.

    Public by default: no host path (bot folders, the host's reproduce
    commands) and no bot's stderr on any page; ``private`` is the host's copy
    with both.
    """
    comp = _load(results)
    m = build_model(comp, anchor=anchor, bootstrap=bootstrap, history_bootstrap=history_bootstrap, retire=retire,
                    private=private, with_stats=False)
    # No cyclic garbage collection while writing: the results and the model live through the whole
    # build and each game's frames make many small objects, so every full collection walked all the
    # results again (about 40% of a 300-game build's CPU, a larger share the larger the competition),
    # to find nothing: the build makes no reference cycles (a collection after a 300-game build finds
    # none), so reference counting frees everything as before.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return write_site(m, Path(out))
    except OSError as e:
        raise PublishError(f"cannot write the site to {out}: {e.strerror}") from None
    finally:
        if enabled:
            gc.enable()


def _load(results: Sequence[str | os.PathLike[str]]) -> Competition:
    try:
        comp = load_competition(results)
    except ResultsError as e:
        raise PublishError(str(e)) from None
    if not comp.lines:
        raise PublishError(f"{comp.sources[0]}: no finished blocks yet: nothing to publish")
    return comp


def write_provisional(results: str | os.PathLike[str], out: str | os.PathLike[str], *, done: int, total: int,
                      anchor: tuple[str, float] | None = None) -> Any:
    """During a run: the leaderboard page alone, from the blocks finished so far, marked provisional.

    No bootstrap (a point estimate each time a block finishes) and no links
    into pages that do not exist yet; the final build replaces it.
    """
    comp = _load([results])
    m = build_model(comp, anchor=anchor, bootstrap=0, history_bootstrap=0, with_stats=False,
                    provisional=f"{done} of {total} blocks played so far.")
    dest = Path(out)
    _check_out(dest)
    dest.mkdir(parents=True, exist_ok=True)
    w = _Writer(dest)
    w.put(MARKER, "built by arena site; files here are replaced on every build\n")
    w.put("site.css", asset("site.css"))
    w.put("index.html", pages.leaderboard_page(m, live=True))
    return m
