"""The site's HTML pages, as pure functions of the ``SiteModel``.

Each page is a view (plain objects of the words and numbers it shows, formatted here) rendered by one
template of ``arena/publish/templates/site`` through the shared environment (``publish.render``): no markup
here. Real tables with headers and captions, headings in order, links for every bot, matchup and game, and
every chart next to a table of the same numbers. Pages below the root link back with ``../``, so the site
works from disk and from any web server path. Where pairs and tables differ, a words object is chosen once
per page (``MatchupWords``, ``GameWords``) and one template takes either; ``Naming`` says what a host
calls the competition, its versions and its runs (a server: ``red v3``, batches).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

import yaml
from markupsafe import Markup

from ...engine import forced_bid
from ...match.show import profile_text, seat_names
from ...results import GameLine
from .. import leaderboard as lb
from ..board import BotRow, Leaderboard, Luck
from ..provenance import EntryFacts
from ..render import environment, render
from .charts import Axis, Bar, Histogram, History, axis_svg, histogram_svg, history_svg, interval_bar, scale_for
from .collect import GameRef
from .ledger import deal_count
from .model import FaultRow, SiteModel
from .stats import LATER_HONOURS, BotStats

#: evidence (request, reply, stderr) is written out for this many faults per bot page; every fault is listed
EVIDENCE_PER_BOT = 50

#: said where a public page leaves out what only the host should see
PRIVATE = "not published (the host's copy shows it: arena site --private)"


def num(x: float | None, fmt: str = ".0f", none: str = "n/a") -> str:
    return none if x is None else lb.fixed(x, fmt)


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def signed(x: float) -> str:
    return lb.fixed(x, "+.0f").replace("-", "\u2212")


def plusminus(doc: Leaderboard, b: BotRow) -> str:
    """+high / -low distances from the rating, or why there are none."""
    txt = lb._bot_interval(doc, b)
    if not txt.startswith("[") or b.ci_low is None or b.ci_high is None:
        return txt
    return f"+{lb.fixed(b.ci_high - b.rating)} / \u2212{lb.fixed(b.rating - b.ci_low)}"


def matchup_name(m: SiteModel, a: str, b: str) -> str:
    return f"{m.slugs[a]}--{m.slugs[b]}.html"


@dataclass(frozen=True)
class Naming:
    """How the site names what its host knows better than the results do.

    ``title``: the competition's name, the front page's title and heading (default: the run's config name and
    "leaderboard"); ``labels``: (name, digest) -> what to call that version (a server's ``red v3``; default the
    bot's id); ``run``/``runs``: one step of the history (a ladder's batch; default a run of ``arena run``).
    """

    title: str | None = None
    labels: Mapping[tuple[str, str], str] = field(default_factory=dict)
    run: str = "run"
    runs: str = "runs"

    @property
    def Runs(self) -> str:  # noqa: N802 (the word at the start of a caption)
        return self.runs[:1].upper() + self.runs[1:]

    def key(self) -> str:
        """What a page written under this naming depends on (a site's state keeps it)."""
        return json.dumps([self.title, sorted([*k, v] for k, v in self.labels.items()), self.run, self.runs])


class SiteView:
    """What every page asks of the site: a bot's page (None: not linked) and its name."""

    def __init__(self, m: SiteModel, naming: Naming, live: bool = False) -> None:
        self.m, self.naming, self.live = m, naming, live
        self.words = naming
        self.names = ({b.id: naming.labels[k] for k, b in m.comp.bots.items() if k in naming.labels}
                      if naming.labels else {})
        self.title = naming.title or m.doc.provenance.config_name or m.comp.sources[0].parent.name

    def slug(self, bot: str) -> str | None:
        return None if self.live else self.m.slugs.get(bot)

    def name(self, bot: str) -> str:
        return self.names.get(bot, bot)

    def relabel(self, text: str | None) -> str | None:
        """``text`` (the ratings' own words) with each bot id given its name."""
        if not text or not self.names:
            return text
        ids = sorted(self.names, key=len, reverse=True)  # a longer id first: one id may start another
        return re.sub("|".join(map(re.escape, ids)), lambda m: self.names[m.group(0)], text)

    def ref_name(self, name: str, digest: str, fallback: str) -> str:
        """A version named by (name, digest), as the labels call it, else ``fallback``."""
        return self.naming.labels.get((name, digest), fallback)


def _page(template: str, site: SiteView, *, title: str, root: str = "", script: bool = False, **context: Any) -> str:
    return render(template, site=site, title=title, root=root, script=script, **context)


# ------------------------------------------------------------ leaderboard


@dataclass(frozen=True)
class RatingRow:
    rank: int | None
    bot: str
    rating: str
    plusminus: str
    interval: str
    bar: Bar
    games: int
    score: str
    draws: str
    opponent: str
    wdl: str
    forfeits: int
    faults: str


@dataclass(frozen=True)
class EarlierRow:
    bot: str
    rating: str
    games: int
    score: str
    now: str | None


@dataclass(frozen=True)
class CrossCell:
    text: str
    href: str | None


@dataclass(frozen=True)
class HistoryView:
    runs: list[int]
    rows: list[tuple[str, list[tuple[str, str] | None]]]
    bootstrap: int
    total: int
    step: int
    many: bool
    chart: History | None

    @property
    def thinned(self) -> bool:
        """More runs than the history shows."""
        return len(self.runs) < self.total


@dataclass(frozen=True)
class BlockResults:
    n: int
    chart: Histogram | None
    rows: list[tuple[str, int, str]]


@dataclass(frozen=True)
class LosView:
    text: str
    note: str | None
    rows: list[tuple[str, list[str]]]


#: the ratings' notes (one per bot that won or lost every game, ...) shown open up to this many; more are folded
NOTES_OPEN = 3

#: the ratings table's interval bars, in px (the table fits a 1280 px window beside its twelve other columns)
BAR_WIDTH = 200


def leaderboard_page(m: SiteModel, *, live: bool = False, naming: Naming = Naming()) -> str:
    doc = m.doc
    site = SiteView(m, naming, live)
    heading = site.title if naming.title else f"{site.title}: leaderboard"
    level = int(round(100 * doc.rating.interval_level))
    dates = [r.date for r in m.comp.runs if r.date]
    words = naming
    n_runs = len(m.comp.runs)
    vals = [v for b in doc.bots for v in (b.rating, b.ci_low, b.ci_high) if v is not None]
    axis = Axis(*scale_for(vals), width=BAR_WIDTH)
    rows = []
    for b in doc.ranked():
        iv = lb._bot_interval(doc, b)
        ci = (b.ci_low, b.ci_high) if iv.startswith("[") else (None, None)
        label = f"{site.name(b.bot)}: rating {lb.fixed(b.rating)}" + (
            f", {level}% interval {lb.fixed(ci[0])} to {lb.fixed(ci[1])}"
            if ci[0] is not None and ci[1] is not None else f", interval: {iv}")
        rows.append(RatingRow(b.rank, b.bot, lb.fixed(b.rating), plusminus(doc, b), iv,
                              interval_bar(b.rating, ci[0], ci[1], axis, label), b.games, pct(b.score_pct),
                              pct(b.draws / b.games if b.games else None), num(m.avg_opponent.get(b.bot)),
                              b.wdl, b.forfeits, lb._faults_text(b)))
    names = [b.bot for b in doc.ranked()]
    cross = []
    for a in names:
        cells: list[CrossCell | None] = []
        for b_ in names:
            c = m.matrix.get((a, b_))
            cells.append(None if a == b_ or c is None else
                         CrossCell(f"{pct(c.pct)} ({len(c.games)})", None if live else matchup_name(m, a, b_)))
        cross.append((a, cells))
    los = None
    if doc.los:
        los = LosView(lb.LOS_TEXT, lb.los_withheld_note(doc),
                      [(a, [lb.los_cell(doc, a, b_) for b_ in names]) for a in names])
    runs = m.comp.runs
    shown = [runs[n - 1] for n in m.history_runs] if m.history_runs else runs
    view = {
        "heading": heading, "profile": lb.profile_line(doc.provenance), "provisional": m.provisional,
        "date": dates[-1] if dates else "an unrecorded date", "games": doc.games,
        "runs_count": f"{n_runs} {words.run if n_runs == 1 else words.runs}",
        "incomplete": doc.provenance.complete is False,
        "notes": (site.relabel(doc.rating.interval_note) or "").split("; ") if doc.rating.interval_note else [],
        "notes_open": NOTES_OPEN, "anchor_text": doc.rating.anchor_text,
        "level": level, "axis": axis_svg(axis), "rows": rows,
        "earlier": [EarlierRow(b.bot, lb.fixed(b.rating), b.games, pct(b.score_pct), b.superseded_by)
                    for b in doc.earlier()],
        "retired": [site.ref_name(r.name, r.digest, f"{r.name}@{r.version or r.digest[:12]}") for r in doc.retired],
        "names": names, "cross": cross, "history": _history(site, names, chart=names[:CHART_SERIES]),
        "luck_chart": _luck_chart(doc.luck, doc.luck_points), "luck": lb._luck_text(doc).split("\n\n"), "block_results": _block_results(m),
        "los": los, "runs": shown,
        "runs_which": "" if len(shown) == len(runs) else f" ({len(shown)} of {len(runs)}: those the rating history shows)",
        "provenance": lb.provenance_lines(doc),
    }
    w = m.words
    return _page("site/leaderboard.html", site, title=heading, v=view,
                 w=BoardWords(w.blocks_played(), w.site_notes(), w.cross_where))


@dataclass(frozen=True)
class BoardWords:
    """The words of a leaderboard: duplicate blocks of two pairs, or blocks by rotation at a table of n seats."""

    blocks: str  # what the games were played in
    notes: list[tuple[str | None, str]]  # (id, text) of the small print under the ratings
    cross_where: str  # which games a crosstable cell counts


def _block_results(m: SiteModel) -> BlockResults | None:
    """How duplicate blocks ended: partnership A's score over both games (0 to 2), as a chart and a table."""
    levels = [0.0, 0.5, 1.0, 1.5, 2.0]
    counts = {x: m.blocks.get(repr(x), 0) for x in levels}
    n = sum(counts.values())
    if not n:
        return None
    return BlockResults(n, histogram_svg([(f"{x:g}", counts[x]) for x in levels], caption="blocks by partnership A's score"),
                        [(f"{x:g}", counts[x], pct(counts[x] / n)) for x in levels])


#: the leaderboard's history chart draws this many ranked bots (one colour each); the table has every one
CHART_SERIES = 8


def _history(site: SiteView, bots: list[str], chart: list[str] | None = None) -> HistoryView:
    """The rating as of each run shown (``model.history_runs``): a chart of ``chart`` (default ``bots``) and a
    table of every bot in ``bots``."""
    m, words = site.m, site.naming
    runs = m.history_runs or list(range(1, len(m.history) + 1))
    drawn = bots if chart is None else chart
    series = {b: [h[b].rating if b in h else None for h in m.history] for b in drawn}
    total = len(m.comp.runs)
    what = (", ".join(map(site.name, drawn)) if len(drawn) == len(bots)
            else f"the {len(drawn)} best ranked (the table has all {len(bots)})")
    plot = history_svg(series, runs, caption=f"rating after each {words.run}: {what}", x_title=words.run,
                       names={b: site.name(b) for b in drawn}) if total > 1 else None
    rows: list[tuple[str, list[tuple[str, str] | None]]] = []
    for b in bots:
        cells: list[tuple[str, str] | None] = []
        for h in m.history:
            r = h.get(b)
            cells.append(None if r is None else
                         (lb.fixed(r.rating), lb.bot_interval(r)))
        rows.append((b, cells))
    return HistoryView(runs, rows, m.history_bootstrap, total, runs[1] - runs[0] if len(runs) > 2 else 1,
                       total > 1, plot)


def _luck_chart(score: Luck, points: Luck | None) -> str:
    """rho of each tested statistic with its interval on the -1..1 scale (0: pairing neither helps nor hurts)."""
    rows = [(name, luck) for luck, name in ((score, "game results"), (points, "points"))
            if luck is not None and luck.rho is not None]
    if not rows:
        return ""
    axis = Axis(-1.0, 1.0, 360)
    bars = []
    for name, luck in rows:
        rho = luck.rho
        assert rho is not None
        lo, hi = luck.rho_ci or (None, None)
        span = f", interval {lb.fixed(lo, '.2f')} to {lb.fixed(hi, '.2f')}" if lo is not None and hi is not None else ""
        bars.append((name, interval_bar(rho, lo, hi, axis, f"{name}: rho {lb.fixed(rho, '.3f')}{span}")))
    out: Markup = environment().get_template("site/parts.html").module.luck(bars, axis_svg(axis, "", "rho"))  # type: ignore[attr-defined]
    return out


# ------------------------------------------------------------ bot pages


def _forced_label(p: Any) -> str:
    """What a forced dealer bid is under profile ``p`` (the amount in the engine's words, ``forced_bid``)."""
    return f"forced dealer bids (the dealer must bid {forced_bid(p)} after three passes)"


@dataclass(frozen=True)
class StatsView:
    """One rule profile's tables on a bot page (``profile`` None: the bot has no statistics at all)."""

    profile: str | None
    left_out: int = 0
    rows: list[tuple[str, object]] = field(default_factory=list)
    chart: Histogram | None = None
    contracts: list[tuple[int, int, int, int, str]] = field(default_factory=list)
    forced: str = ""


def _stats_view(profile: str | None, st: BotStats | None) -> StatsView:
    if st is None or not (st.deals or st.void_deals):
        return StatsView(profile, st.unreplayable if st else 0)
    p = st.profile
    why = st.applies()

    def na(key: str) -> str | None:
        return f"does not apply under {p.name}: {why[key]}" if why.get(key) else None

    made = sum(v[0] for v in st.contracts.values())
    contracts = sum(sum(v) for v in st.contracts.values())
    rows: list[tuple[str, object]] = [
        ("deals played (its side)", st.deals),
        ("void deals (all four passed, redealt)", na("void_deals") or st.void_deals),
        ("bids placed (by choice)", st.bids),
        ("average bid placed", num(st.average_bid, ".2f")),
        ("passes", st.passes),
        ("contracts won (it made the highest bid)", contracts),
        ("contracts made", f"{made} ({pct(made / contracts if contracts else None)})"),
        ("points per deal as bidder (its side's points)", f"{num(st.points_as_bidder, '.2f')} over {st.bidder_deals} deals"),
        ("points per deal as defender", f"{num(st.points_as_defender, '.2f')} over {st.defender_deals} deals"),
        ("forced dealer bids" if why["forced"] else _forced_label(p),
         na("forced") or f"{st.forced}, made {st.forced_made}"),
        ("pedros captured (in tricks it won)", na("pedros") or st.pedros_captured),
        ("pedros lost (it played them, the opponents won the trick)", na("pedros") or st.pedros_lost),
        ("pedros laid away (discarded or left face up by it, out of play)", na("pedros") or na("pedros_laid_away")
         or st.pedros_laid_away),
    ]
    rows += [(f"deals its side scored {name.replace('_', '-').capitalize()}",
              na(name) or f"{n} ({pct(n / st.deals if st.deals else None)})")
             for name, n in st.honours.items() if name not in LATER_HONOURS or why[name] is None]
    levels = sorted(st.contracts)
    return StatsView(
        profile, st.unreplayable, rows,
        histogram_svg([(str(k), sum(st.contracts[k])) for k in levels], caption="contracts won by bid level"),
        [(k, mk + set_, mk, set_, pct(mk / (mk + set_))) for k in levels for mk, set_ in [st.contracts[k]]],
        "" if why["forced"] else " (forced dealer bids included)")


def _time_rows(m: SiteModel, bot: str) -> list[tuple[str, object]] | None:
    s = m.time_use.get(bot)
    if s is None or not s.decisions:
        return None
    few = "n/a (fewer than 100 decisions)"
    bank = (f"{num(s.bank_left_min_ms, '.0f')} ms lowest, {num(s.bank_left_median_ms, '.0f')} ms median over "
            f"{s.games_with_bank} games (bank {m.bank_ms:.0f} ms minus the time charged)" if s.games_with_bank
            else "not recorded (the time control is not in the results' tournament.json)")
    return [("decisions timed", s.decisions), ("latency p50", f"{num(s.latency_p50_ms, '.2f')} ms"),
            ("latency p99", few if s.latency_p99_ms is None else f"{s.latency_p99_ms:.2f} ms"),
            ("latency max", f"{num(s.latency_max_ms, '.2f')} ms"),
            ("start-up p50", "n/a" if s.startup_p50_ms is None else f"{s.startup_p50_ms:.0f} ms"),
            ("bank left at the end of a game", bank)]


@dataclass(frozen=True)
class FaultView:
    """A fault's evidence as a page shows it (``withheld``: why its stderr is not shown)."""

    game: str
    kind: str
    seat_name: str
    decision: Any
    message: str
    reply: Any
    stderr: str | None
    withheld: str | None
    request: str | None
    command: str | None


def _fault_view(f: FaultRow, private: bool = True) -> FaultView:
    return FaultView(f.game, f.kind, f.seat_name, f.decision, f.message, f.reply,
                     f.stderr[-2000:] if f.stderr else None, None if f.stderr or private else PRIVATE,
                     None if f.request is None else json.dumps(f.request, indent=1, sort_keys=True), f.command)


@dataclass(frozen=True)
class Opponent:
    bot: str
    games: int
    wdl: str
    score: str
    href: str


def bot_page(m: SiteModel, bot: str, naming: Naming = Naming()) -> str:
    doc = m.doc
    site = SiteView(m, naming)
    row = doc.row(bot)
    info = next((b for b in m.comp.bots.values() if b.id == bot), None)
    ent = m.entries.get(bot) or EntryFacts()
    version = ent.version or "not recorded"
    if bot in site.names:  # the host's name for it first, the manifest's own version after it
        version = f"{site.name(bot)} (bot.yaml: {version})"
    identity = [("name", info.name if info else bot), ("version", version),
                ("digest", info.digest if info else "?"),
                ("folder", ent.dir or ("not recorded" if m.private else PRIVATE))]
    manifest = ent.manifest
    standing = None if row is None else {
        "rating": lb.fixed(row.rating), "score": pct(row.score_pct), "of": len(doc.ranked()),
        "interval": lb._bot_interval(doc, row), "opponent": num(m.avg_opponent.get(bot))}
    opponents = [Opponent(other, len(c.games), f"{c.wins}-{c.draws}-{c.losses}", pct(c.pct), matchup_name(m, bot, other))
                 for other in m.order for c in [m.matrix.get((bot, other))] if c is not None]
    by_profile = m.stats.get(bot)
    stats = ([_stats_view(name, by_profile[name]) for name in sorted(by_profile)] if by_profile
             else [_stats_view(None, None)])
    fl = m.faults.get(bot, [])
    view = {
        "bot": bot, "identity": identity, "files": [(k, str(v)[:16]) for k, v in sorted(ent.files.items())],
        "manifest": yaml.safe_dump(manifest, sort_keys=True) if isinstance(manifest, dict) else None,
        "row": row, "standing": standing, "history": _history(site, [bot]), "opponents": opponents, "stats": stats,
        "time": _time_rows(m, bot), "faults": fl, "evidence_cap": EVIDENCE_PER_BOT,
        "evidence": [_fault_view(f, m.private) for f in fl[:EVIDENCE_PER_BOT]],
    }
    return _page("site/bot.html", site, title=f"{site.name(bot)}: bot", root="../", v=view)


# ------------------------------------------------------------ matchups and games


def _result_text(g: GameLine, side: int) -> str:
    """The game's result for engine side ``side``."""
    if g.forfeit_by is not None:
        return "won (forfeit)" if g.forfeit_by % 2 != side else "lost (forfeit)"
    w = g.winner
    if w is None:
        return "unfinished (cap)" if g.end == "cap" else "draw"
    return "won" if w == side else "lost"


def _seat_result(g: GameLine, seat: int) -> str:
    """At a table of n seats: the game's result for ``seat``."""
    if g.forfeit_by is not None:
        return "forfeited" if g.forfeit_by == seat else "no winner (another seat forfeited)"
    w = g.winner
    if w is None:
        return "unfinished (cap)" if g.end == "cap" else "no winner (level)"
    return "won" if w == seat else "lost"


FINISH = {1.0: "finished ahead", 0.5: "level", 0.0: "finished behind"}


@dataclass(frozen=True)
class MatchupGame:
    id: str
    block: int
    seats: str
    result: str
    scores: str
    deals: int
    twins: list[str]


@dataclass(frozen=True)
class MatchupWords:
    """The words of a matchup page: two partnerships, or two bots at one table."""

    tally: str
    caption: str
    headings: list[tuple[str, bool]]  # (heading, left-aligned)
    many_twins: bool


def _pair_words(a: str, b: str, c: Any) -> MatchupWords:
    return MatchupWords(f"W-D-L {c.wins}-{c.draws}-{c.losses}.", f"Games of {a} against {b}",
                        [("game", False), ("block", False), ("seats N E S W", True), (f"{a}'s result", True),
                         ("scores N+S : E+W", False), ("deals", False), ("twin", False)], False)


def _table_words(a: str, b: str, c: Any) -> MatchupWords:
    return MatchupWords(f"ahead-level-behind {c.wins}-{c.draws}-{c.losses} (where {a} finished against {b} at "
                        "their table).", f"Games of {a} and {b} at one table",
                        [("game", False), ("block", False), ("seats", True), (a, True), ("scores", False),
                         ("deals", False), ("other rotations", True)], True)


def matchup_page(m: SiteModel, a: str, b: str, naming: Naming = Naming()) -> str:
    site = SiteView(m, naming)
    c = m.matrix[(a, b)]
    refs = {g: m.comp.ref(g) for g in c.games}
    tables = any(refs[g].table for g in c.games)
    games = []
    for gid in c.games:
        ref = refs[gid]
        g = m.game_line(ref)
        if tables:
            from ..load import table_game

            tg = table_game(m.seating(ref), m.comp.bots)
            names = seat_names(len(ref.bots))
            games.append(MatchupGame(gid, ref.block, " ".join(f"{names[s]} {site.name(x)}" for s, x in enumerate(ref.bots)),
                                     FINISH[tg.finish(ref.bots.index(a), ref.bots.index(b))],
                                     " : ".join(str(x) for x in g.scores), deal_count(g), list(ref.twins)))
        else:
            side = next(s % 2 for s in range(4) if ref.bots[s] == a and ref.bots[(s + 1) % 4] == b
                        or ref.bots[s] == a and ref.bots[(s + 3) % 4] == b)
            games.append(MatchupGame(gid, ref.block, " ".join(map(site.name, ref.bots)), _result_text(g, side),
                                     f"{g.scores[0]} : {g.scores[1]}", deal_count(g), [ref.twin]))
    view = {"a": a, "b": b, "count": len(c.games), "score": f"{c.score:g}", "pct": pct(c.pct),
            "other": matchup_name(m, b, a), "games": games}
    na, nb = site.name(a), site.name(b)
    return _page("site/matchup.html", site, title=f"{na} against {nb}", root="../", v=view,
                 w=(_table_words if tables else _pair_words)(na, nb, c))


@dataclass(frozen=True)
class GameWords:
    """The words of a game page: a duplicate pair's game, or one rotation at a table."""

    place: str
    place_end: str
    third: str  # the seats table's third column
    twin_key: str


@dataclass(frozen=True)
class SeatRow:
    seat: str
    bot: str
    third: object
    result: str


def game_page(m: SiteModel, ref: GameRef, naming: Naming = Naming()) -> str:
    site = SiteView(m, naming)
    g = m.game_line(ref)
    rec = g.record
    names = ref.bots
    n = len(names)
    seats = seat_names(n)
    if ref.table:
        w = GameWords(f"rotation {ref.half + 1} of {n}: the same deals are played {n} times with the entrants rotated "
                      "through the seats, so each holds every seat's cards once; the other rotations are ", ".",
                      "final score", "other rotations")
        rows = [SeatRow(seats[s], names[s], g.scores[s], _seat_result(g, s)) for s in range(n)]
        final = ", ".join(f"{seats[s]} {g.scores[s]}" for s in range(n))
        links = list(ref.twins)
    else:
        w = GameWords(f"game {ref.half + 1} of 2; its duplicate twin (the same deals, partnerships swapped) is ", ".",
                      "side", "twin")
        rows = [SeatRow(seats[s], names[s], "N+S" if s % 2 == 0 else "E+W", _result_text(g, s % 2)) for s in range(4)]
        final = f"N+S {g.scores[0]}, E+W {g.scores[1]}"
        links = [ref.twin]
    mine = m.game_faults.get(ref.id, [])
    fl = [f for b in [names[0], *sorted(set(names[1:]) - {names[0]})] for f in mine if f.bot == b]
    view = {"id": ref.id, "block": ref.block, "pairing": ref.pairing, "links": links, "twins": ref.twins,
            "seats": rows, "profile": (rec.get("profile") or {}).get("name", "unknown"),
            "profile_text": profile_text(rec.get("profile")).partition(" (")[2].rstrip(")") or "no parameters recorded",
            "final": final, "end": g.end, "deals": deal_count(g), "key": rec.get("key"), "seat_count": n,
            "faults": [_fault_view(f, m.private) for f in fl]}
    return _page("site/game.html", site, title=f"Game {ref.id}", root="../", script=True, v=view, w=w)


def viewer_page(title: str | None = None) -> str:
    """The page that opens a record file from disk (``title``: the competition's name for its header)."""
    return render("site/viewer.html", competition=title, title="Open a game", root="", script=True)
