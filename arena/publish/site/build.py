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
have (a renamed bot) are removed, so the folder is exactly the site, plus
``.cinch-state/``, what the next build needs to read only what is new
(``ledger``).
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import shutil
import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

from ...results import ResultLine, ResultsError, stored_line
from ..load import Inputs, _ref
from ..provenance import read_meta
from ..rate import PublishError
from . import pages
from .collect import Competition, competition, source_paths
from .frames import game_data, replay_js
from .ledger import FRAMES_CODE, REPLAY_OF, STATE, STATE_CODE, Rebuild, SiteState, code_digest, refkey
from .model import SiteModel, build_model
from .pages import Naming
from .stats import BotStats, game_facts

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

    def prune(self, games: bool = True) -> None:
        """Remove what this build did not write or keep. ``games`` False: leave games/ and replays/ alone (a
        build that carried its state on: their names only ever grow, and listing them grows with the history)."""
        for sub in ("bots", "games", "matchups", "records", "replays") if games else ("bots", "matchups", "records"):
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


def _refs(line: ResultLine) -> set[str]:
    return {refkey(_ref(x)) for g in line.games for x in g.seats}


def _head(record: dict[str, Any], args: dict[str, Any], code: str) -> str:
    """The first line of a game's ``replays/<id>.js``: the digest of its record, what it shows and the code."""
    return f"// {hashlib.blake2b(json.dumps([code, record, args], sort_keys=True).encode(), digest_size=12).hexdigest()}\n"


def _replay_file(record: dict[str, Any], args: dict[str, Any], code: str,
                 head: str | None = None) -> tuple[str, str, Any]:
    """(first line, whole text, the engine's game or None) of a game's ``replays/<id>.js``; ``head``: its first
    line when the caller made it already (a digest of the whole record: made once)."""
    head = _head(record, args, code) if head is None else head
    data, game = game_data(record, **args)
    return head, head + replay_js(data), game


def replay_on_demand(out: str | os.PathLike[str], state: str | os.PathLike[str], gid: str) -> Path | None:
    """Make ``replays/<gid>.js`` of a site built with ``replays=False`` when it is first asked for (the
    engine's frames are most of a game's cost, and most games' replays are never opened); its path, or
    None for a game the site does not have. The file is the one a build with replays writes."""
    if not gid.isalnum():
        return None
    dest = Path(out) / "replays" / f"{gid}.js"
    if dest.is_file():
        return dest
    ptr = Path(state) / REPLAY_OF / f"{gid}.json"
    try:
        text = ptr.read_text()
        where = json.loads(text)
        with open(where["path"], "rb") as f:
            f.seek(where["offset"])
            line = stored_line(f.read(where["length"]))
        record = line.games[where["half"]].record
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return None
    _, body, _ = _replay_file(record, where["args"], code_digest(FRAMES_CODE))
    tmp = dest.with_name(f"{gid}.js.{os.getpid()}.{threading.get_ident()}.tmp")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp.write_text(body)
    try:
        if ptr.read_text() != text:  # a rebuild renamed its bots meanwhile: made again at the next request
            tmp.unlink()
            return replay_on_demand(out, state, gid)
    except OSError:
        tmp.unlink()
        return None
    tmp.replace(dest)
    return dest


def write_site(m: SiteModel, state: SiteState, new: Sequence[int], out: Path, replays: bool = True,
               naming: Naming = Naming()) -> SiteBuild:
    """Write what changed: the new games' pages and replays, those of games whose bots' ids or page names
    changed, the crosstable cells that changed, every bot page and the leaderboard. Each new game is replayed
    by the engine once: its replay gives the viewer's frames and the statistics' facts. ``replays`` False:
    a game's replay file is left to ``replay_on_demand`` (the state keeps where its record is, and a replay
    whose bots were renamed is removed), and the facts come from the engine's replay alone. ``naming``: what
    the host calls the competition, its versions and its runs (a version given another name is a renamed bot:
    its pages are written again)."""
    comp = m.comp
    w = _Writer(out)
    w.put(MARKER, "built by arena site; files here are replaced on every build\n")
    for name in ASSETS:
        w.put(name, asset(name))
    ids = {refkey(k): [b.id, m.slugs[b.id], *([naming.labels[k]] if k in naming.labels else [])]
           for k, b in comp.bots.items()}
    named = {r for r, v in ids.items() if state.ids.get(r) != v}  # every bot when the state is new
    renamed = {r for r, v in ids.items() if (state.ids.get(r) or [""])[0] != v[0]}
    fresh = set(new)
    line_of = {e: i for i, e in enumerate(comp.entry_of)}
    lines = sorted({line_of[e] for e in fresh if e in line_of}
                   | ({i for i, ln in enumerate(comp.lines) if _refs(ln) & named} if named else set()))
    pages_of = {g.id for i in lines for g in comp.lines[i].games}
    code = code_digest(FRAMES_CODE)
    for i in lines:
        e_index = comp.entry_of[i]
        is_new = e_index in fresh
        if not is_new and not _refs(comp.lines[i]) & renamed:
            continue  # a page name changed, not a bot id: the replay stays as it is
        for h, (record, forfeit_by) in enumerate(state.raw_games(state.entries[e_index])):
            ref = comp.game_ref(i, h)
            args: dict[str, Any] = {"id": ref.id, "names": ref.bots, "twin": ref.twin, "forfeit_by": forfeit_by}
            if ref.table:  # a table's other rotations (a pair's replay data stays as it was)
                args["twins"] = ref.twins
            rel = f"replays/{ref.id}.js"
            # the head is a digest of the whole record: made only when there is a file to compare it with
            head = _head(record, args, code) if replays or (out / rel).is_file() else None
            if head is not None and w.keep(rel, head):  # the engine's frames take most of a build: a rebuild reuses them
                if is_new:
                    state.count_stats(e_index, h, record, game_facts(record))
                continue
            if not replays:
                (out / rel).unlink(missing_ok=True)  # made again, with these names, when asked for
                state.replay_of(ref.id, e_index, h, args)
                w.names.add(rel)
                if is_new:
                    state.count_stats(e_index, h, record, game_facts(record))
                continue
            _, body, game = _replay_file(record, args, code, head)
            w.put(rel, body)
            if is_new:  # None: it does not replay as recorded
                state.count_stats(e_index, h, record, None if game is None else game_facts(None, game))
    m.stats = _stats_by_id(m, state)
    w.put("index.html", pages.leaderboard_page(m, naming=naming))
    w.put("viewer.html", pages.viewer_page(pages.SiteView(m, naming).title))
    for bot in m.slugs:
        w.put(f"bots/{m.slugs[bot]}.html", pages.bot_page(m, bot, naming))
    rk = {refkey(k): b.id for k, b in comp.bots.items()}
    cells = state.changed_cells | {k for k in state.cells if k[0] in named or k[1] in named}
    if renamed:
        cells |= {k for k, v in state.cells.items() if any(g in pages_of for g in v[0])}
    for (a, b) in sorted(state.cells, key=lambda k: (rk[k[0]], rk[k[1]])):
        rel = f"matchups/{pages.matchup_name(m, rk[a], rk[b])}"
        if (a, b) in cells:
            w.put(rel, pages.matchup_page(m, rk[a], rk[b], naming))
        else:
            w.names.add(rel)
    for i in lines:
        for h in range(len(comp.lines[i].games)):
            ref = comp.game_ref(i, h)
            w.put(f"games/{ref.id}.html", pages.game_page(m, ref, naming))
    for gid in comp.where:
        w.names.add(f"games/{gid}.html")
        w.names.add(f"replays/{gid}.js")
    w.prune(games=state.fresh)
    state.ids = ids
    return SiteBuild(out, m, len(w.names), w.written, w.largest)


def _stats_by_id(m: SiteModel, state: SiteState) -> dict[str, dict[str, BotStats]]:
    rk = {refkey(k): b.id for k, b in m.comp.bots.items()}
    out: dict[str, dict[str, BotStats]] = {}
    for (r, name), (_, st) in state.stats.items():
        if r in rk:
            out.setdefault(rk[r], {})[name] = st
    return out


def _bank_ms(meta: dict[str, Any] | None) -> float | None:
    bank = ((meta or {}).get("match") or {}).get("time", {}) or {}
    return float(bank["bank_ms"]) if isinstance(bank.get("bank_ms"), (int, float)) else None


def _state_dir(out: Path, state: str | os.PathLike[str] | None) -> Path:
    return out / STATE if state is None else Path(state)


def _open(results: Sequence[str | os.PathLike[str]], out: Path, mode: str, private: bool,
          time_use: bool, state_dir: Path, naming: Naming = Naming()) -> tuple[SiteState, list[int], Competition]:
    """The folder's state brought up to date with the results: (state, its new entries, the competition).

    A state kept outside the site (``state_dir``) names the site's folder, and counts only while that folder
    holds a site: a site removed or moved is built whole again."""
    try:
        paths = source_paths(results)
        bank_ms = _bank_ms(next((m for m in map(read_meta, paths) if m), None))
        key: dict[str, Any] = {"mode": mode, "code": code_digest(STATE_CODE), "private": private, "bank_ms": bank_ms}
        if (naming.title, naming.run, naming.runs) != (None, "run", "runs"):  # every page names the competition and its runs: another title writes them all
            key["naming"] = [naming.title, naming.run, naming.runs]
        if state_dir != out / STATE:
            key["site"] = str(out.resolve())
        state = (SiteState.open(state_dir, key, paths) if (out / MARKER).is_file()
                 else SiteState.new(state_dir, key, paths))
        try:
            new = state.read(private, bank_ms, time_use)
        except Rebuild:
            state = SiteState.new(state_dir, key, paths)
            new = state.read(private, bank_ms, time_use)
        kept = _kept_inputs(state)
        comp = competition(state, kept, json.dumps(state.key, sort_keys=True))
    except ResultsError as e:
        raise PublishError(str(e)) from None
    if not comp.lines:
        raise PublishError(f"{comp.sources[0]}: no finished blocks yet: nothing to publish")
    comp.inputs = _inputs(state, comp, kept)
    return state, new, comp


#: in the state: each kept line's rating input (``load.Inputs``), so a rebuild converts only the new lines
INPUTS = "rating-inputs.json"


def _kept_inputs(state: SiteState) -> Inputs:
    """The rating inputs the state kept (none when it is new, or its file is missing or damaged)."""
    if state.dir is not None and not state.fresh:
        try:
            return Inputs.from_bytes((state.dir / INPUTS).read_bytes())
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            pass
    return Inputs()


def _inputs(state: SiteState, comp: Competition, kept: Inputs) -> Inputs | None:
    """The state's kept rating inputs brought up to date with the competition's lines (none kept, damaged or
    made by other code or from other lines: every line converted). None when a line does not convert: the
    rating then converts the lines it rates and says what is wrong, as without a state."""
    try:
        kept.update(json.dumps(state.key, sort_keys=True), comp.lines, comp.digests, comp.bots)
    except (ResultsError, ValueError, KeyError):
        return None
    return kept


def _keep_inputs(state: SiteState, comp: Competition) -> None:
    """Write the rating inputs into the state (replaced whole, atomically: a kill leaves the old or the new
    file, and any file is checked against the lines before it is used) when lines were converted."""
    kept = comp.inputs
    if state.dir is None or kept is None or (kept.reused == len(kept.blocks) and (state.dir / INPUTS).is_file()):
        return
    tmp = state.dir / (INPUTS + ".tmp")
    tmp.write_bytes(kept.to_bytes())
    os.replace(tmp, state.dir / INPUTS)


def build_site(results: Sequence[str | os.PathLike[str]], out: str | os.PathLike[str], *,
               anchor: tuple[str, float] | None = None, bootstrap: int = 1000,
               history_bootstrap: int = 200, retire: Sequence[str] = (), private: bool = False,
               state: str | os.PathLike[str] | None = None, replays: bool = True,
               retire_played: Sequence[tuple[str, str]] = (), naming: Naming | None = None) -> SiteBuild:
    """Bring the site in ``out`` up to date with the results: the library call after every batch of games.

    Only what was appended since the folder's last build is read (its state, ``ledger``), and only the files
    that change are rewritten; a new or foreign folder, or a state this code or these options did not make,
    is built whole. Either way the files are those of a build from scratch. Public by default: no host path
    (bot folders, the host's reproduce commands) and no bot's stderr on any page; ``private`` is the host's
    copy with both. ``state``: where the state is kept (default ``out/.cinch-state``; a server keeps it
    outside the folder it serves). ``replays`` False: each game's replay file is made when it is first asked
    for (``replay_on_demand``, which a server calls), not by the build. ``retire_played``: versions, as
    (name, digest), retired as ``retire`` does once they are in the results (a server's retired versions,
    some of which never played: a ``retire`` spec naming no version is an error). ``naming``: what the
    host calls the competition, each version and a run (``pages.Naming``; a server: its name, ``red v3``,
    batches).
    """
    dest = Path(out)
    _check_out(dest)
    # No cyclic garbage collection while building: the state and the model live through the whole build
    # and each game's frames make many small objects, so every full collection walked everything again
    # (about 40% of a 300-game build's CPU, a larger share the larger the competition), to find nothing:
    # the build makes no reference cycles, so reference counting frees everything as before.
    enabled = gc.isenabled()
    gc.disable()
    try:
        # a state of the other replay mode is no use: its folder lacks replays, or its pointers are stale
        nm = naming or Naming()
        st, new, comp = _open(results, dest, "site" if replays else "site, replays on demand", private, True,
                              _state_dir(dest, state), nm)
        played = [f"{n}@{d}" for n, d in retire_played if (n, d) in comp.bots]
        m = build_model(comp, st, anchor=anchor, bootstrap=bootstrap, history_bootstrap=history_bootstrap,
                        retire=[*retire, *played], private=private)
        dest.mkdir(parents=True, exist_ok=True)
        if st.fresh and st.dir is not None:  # what an earlier state said of the games' records is of no use
            shutil.rmtree(st.dir / REPLAY_OF, ignore_errors=True)
        b = write_site(m, st, new, dest, replays, nm)
        st.save()
        _keep_inputs(st, comp)
        return b
    except OSError as e:
        raise PublishError(f"cannot write the site to {out}: {e.strerror}") from None
    finally:
        if enabled:
            gc.enable()


def write_provisional(results: str | os.PathLike[str], out: str | os.PathLike[str], *, done: int, total: int,
                      anchor: tuple[str, float] | None = None, state: str | os.PathLike[str] | None = None,
                      naming: Naming | None = None) -> SiteModel:
    """During a run: the leaderboard page alone, from the blocks finished so far, marked provisional.

    No bootstrap (a point estimate each time a block finishes) and no links
    into pages that do not exist yet; the final build replaces it. The
    folder keeps its own state (or in ``state``, as ``build_site``), so each refresh reads only the new blocks.
    """
    dest = Path(out)
    _check_out(dest)
    nm = naming or Naming()
    st, _, comp = _open([results], dest, "live", False, False, _state_dir(dest, state), nm)
    m = build_model(comp, st, anchor=anchor, bootstrap=0, history_bootstrap=0,
                    provisional=f"{done} of {total} blocks played so far.")
    dest.mkdir(parents=True, exist_ok=True)
    w = _Writer(dest)
    w.put(MARKER, "built by arena site; files here are replaced on every build\n")
    w.put("site.css", asset("site.css"))
    w.put("index.html", pages.leaderboard_page(m, live=True, naming=nm))
    st.save()
    _keep_inputs(st, comp)
    return m
