"""Leaderboards: one JSON document, rendered as Markdown and static HTML.

The JSON (``format: cinch-leaderboard``, ``version: 1``, documented in
docs/leaderboards.md) is the source of truth; the Markdown and HTML are pure
functions of it, so the three files can never disagree. Nothing time- or
host-dependent goes in, so rating the same results twice gives identical
files (a committed leaderboard diffs cleanly).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tabulate import tabulate

from ..match.show import profile_text
from ..ratings import LuckSummary, RatingReport
from ..ratings.report import MIN_DF
from ..results import LoadedResults
from .board import (FORMAT, VERSION, Anchor, BotRow, CrossRow, Leaderboard, Luck, RatingInfo, ResultsInfo, TableInfo,
                    clean_number)
from ..results import JsonObject
from .provenance import Provenance
from .render import render

UNKNOWN = "unknown"


def _clean(x: Any) -> Any:
    """Every number of a JSON value cleaned (``board.clean_number``): the provenance's settings as found."""
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    return clean_number(x)


def build(report: RatingReport, prov: Provenance, results: LoadedResults, *,
          anchor: tuple[str, float] | None, level: float = 0.95) -> Leaderboard:
    """The leaderboard document (see docs/leaderboards.md for every field)."""
    info = {b.id: b for b in prov.bots}
    bots = []
    for rank, b in enumerate(report.bots, 1):
        bp = info.get(b.bot)
        bots.append(BotRow(
            rank=rank, bot=b.bot, name=bp.name if bp else b.bot,
            version=bp.version if bp else None, digest=bp.digest if bp else None,
            rating=b.rating, ci_low=b.ci_low, ci_high=b.ci_high,
            interval_df=b.df, interval_withheld=b.withheld,
            games=b.games, score=b.score, score_pct=b.score_pct if b.games else None,
            wins=b.wins, draws=b.draws, losses=b.losses, forfeits=b.forfeits,
            faults=dict(b.faults), faults_total=sum(b.faults.values())))
    cross = [CrossRow(first=c.first, second=c.second, games=c.games, wins=c.wins, draws=c.draws, losses=c.losses,
                      score=c.score, score_pct=c.score / c.games if c.games else None)
             for c in report.crosstable]
    tbl = TableInfo.model_validate(report.table, from_attributes=True) if report.table is not None else None
    model = "bradley-terry, partnership = mean of its two bots" if tbl is None else (
        "bradley-terry over contests, a side = the mean of its bots: "
        + ("every two seats of a game by their finish" if tbl.contests == "finish" else
           "each deal's maker and called partner against the rest, with a fitted maker's-side term"))
    return Leaderboard(
        provenance=Provenance.model_validate(_clean(prov.model_dump())),
        results=ResultsInfo(file=results.path.name, sha256=results.sha256, lines=len(results.lines),
                            torn_last_line=results.torn, duplicates=results.duplicates),
        rating=RatingInfo(
            scale="elo", model=model,
            anchor=(Anchor(kind="bot", bot=anchor[0], rating=anchor[1]) if anchor
                    else Anchor(kind="mean", bot=None, rating=0.0)),
            anchor_text=report.anchor, prior=report.prior, interval_level=level,
            interval_method="t", interval_min_df=MIN_DF,
            bootstrap=report.bootstrap, bootstrap_failures=report.bootstrap_failures,
            bootstrap_unit=report.resample, seed=report.seed, interval_note=report.interval_note),
        games=report.games,
        blocks=report.blocks,
        flags=dict(report.flags),
        bots=bots,
        crosstable=cross,
        los=report.los,
        luck=_luck_doc(report.luck),
        luck_points=_luck_doc(report.luck_points) if report.luck_points is not None else None,
        table=tbl)


def _luck_doc(lk: LuckSummary) -> Luck:
    return Luck(statistic=lk.statistic, rho=lk.rho, rho_ci=lk.rho_ci, factor=lk.factor, factor_ci=lk.factor_ci,
                blocks=lk.blocks, note=lk.note, rotations=lk.rotations)


def to_json(doc: Leaderboard) -> str:
    return doc.to_json()


# ------------------------------------------------------------ text helpers


def fixed(x: float, fmt: str = ".0f") -> str:
    """``format(x, fmt)`` without a minus on a figure that rounds to zero ("-0" is not a rating)."""
    text = format(x, fmt)
    return format(0.0, fmt) if text.startswith("-") and not text.strip("-0.") else text


def _f(x: float | None, fmt: str = ".0f") -> str:
    return UNKNOWN if x is None else fixed(x, fmt)


def _interval(lo: float | None, hi: float | None, fmt: str = ".0f") -> str:
    return "n/a" if lo is None or hi is None else f"[{fixed(lo, fmt)}, {fixed(hi, fmt)}]"


def _factor_interval(lo: float | None, hi: float | None) -> str:
    """The factor's interval; rho's interval reaching -1 leaves it without an upper bound."""
    if lo is None:
        return "(interval n/a)"
    return f"[{lo:.2f}, {'no upper bound' if hi is None else format(hi, '.2f')}]"


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _faults_text(row: BotRow) -> str:
    n = row.faults_total
    if not n:
        return "0"
    parts = ", ".join(f"{k} {v}" for k, v in sorted(row.faults.items()))
    return f"{n} ({parts})"


def _kv(d: JsonObject | None) -> str:
    if not d:
        return UNKNOWN
    return ", ".join(f"{k}={v}" for k, v in d.items() if not isinstance(v, dict))


def provenance_lines(doc: Leaderboard) -> list[tuple[str, str]]:
    """(label, value) pairs of the reproducibility facts, unknowns spelled out."""
    p = doc.provenance
    mixed = p.mixed_profiles
    prof_text = profile_text(p.rule_profile) if p.rule_profile or not mixed else "several: " + ", ".join(mixed)
    mf = p.match_format
    if not mf:
        mf_text = UNKNOWN
    elif mf.format == "deals":
        mf_text = f"deals ({mf.deals} deals per game)"
    else:
        mf_text = f"game (to the target; cap {_f(mf.max_deals, 'd')} deals)"
    w = words(doc)
    bots = "; ".join(f"{b.name} {b.version or 'version unknown'} ({b.digest[:12] or 'no digest'})" for b in p.bots)
    r = doc.results
    return [
        ("config", p.config_name or UNKNOWN),
        ("config hash", ", ".join(p.config_hashes) or UNKNOWN),
        ("tournament seed", p.tournament_seed or UNKNOWN),
        ("rule profile", prof_text),
        ("match format", mf_text),
        ("time control", _kv(p.time_control)),
        ("sandbox", p.sandbox or UNKNOWN),
        ("fault policy", _kv(p.fault_policy)),
        ("schedule", _kv(p.schedule)),
        ("blocks", f"{p.blocks} in {p.pairings} {w.units}"
                   f" ({_f(p.blocks_per_pairing, 'd')} per {w.unit} configured)"),
        ("bots", bots or UNKNOWN),
        ("harness (games)", p.harness_version or UNKNOWN),
        ("harness (rating)", p.rated_with or UNKNOWN),
        ("results", f"{r.file} sha256 {r.sha256[:16]}, {r.lines} lines"
                    + (", torn last line ignored" if r.torn_last_line else "")),
    ]


_LUCK_WHAT = {"score": "game results, what the ratings use",
              "points": "points differences, what `arena sprt --points` tests",
              "standing": "finishes: the share of the table each bot finished ahead of",
              "final_score": "final scores"}


def _luck_line(lk: Luck) -> str:
    what = _LUCK_WHAT.get(lk.statistic, lk.statistic)
    if lk.rho is None:
        return f"Luck ({what}): {lk.note or 'not measurable'} ({lk.blocks} blocks)."
    rho_lo, rho_hi = lk.rho_ci or (None, None)
    f_lo, f_hi = lk.factor_ci or (None, None)
    factor = "inf" if lk.factor is None else f"{lk.factor:.2f}"
    n = lk.rotations or 2
    formula = "1/(1+rho)" if n == 2 else f"1/(1+{n - 1}rho)"
    return (f"Luck ({what}): rho = {lk.rho:.3f} {_interval(rho_lo, rho_hi, fmt='.3f')}; "
            f"{formula} = {factor} {_factor_interval(f_lo, f_hi)}")


def _luck_text(doc: Leaderboard) -> str:
    lines = [_luck_line(doc.luck)]
    if doc.luck_points:
        lines.append(_luck_line(doc.luck_points))
    return "\n\n".join(lines) + "\n\n" + words(doc).luck_note()


class PairWords:
    """What a leaderboard says where duplicate blocks of two pairs and tables of n seats differ: the one
    place that knows (``words`` chooses once per document, as an output factory does)."""

    unit, units, who = "pairing", "pairings", "partnership"
    cross_heads = ["partnership", "vs", "games", "W-D-L", "score %"]
    cross_intro: list[str] = []  # Markdown lines above the crosstable
    cross_note = "Row partnership's score against the column partnership (W-D-L below)."
    cross_where = "(games where they sat on opposite sides)"  # which games a crosstable cell counts (the site)

    def __init__(self, doc: Leaderboard) -> None:
        self.doc = doc

    def blocks_played(self) -> str:
        """What the games were played in."""
        return f"{self.doc.blocks} duplicate blocks"

    def site_notes(self) -> list[tuple[str | None, str]]:
        """(id, text) of the small print under the site's ratings table."""
        return [(None, "\u00b1: distance from the rating to the ends of its interval. Average opponent: mean rating "
                       "of the opposing partnership over the bot's games. Draws: share of its games with no winner "
                       "(capped games, level deals-format games).")]

    def luck_note(self) -> str:
        return ("(rho: correlation of a partnership's results in the two games of a block, from results centred "
                "within each pairing; the paired design needs 1/(1+rho) times fewer blocks than unpaired deals for "
                "the same precision.)")

    def table_note(self) -> str | None:
        return None

    def maker(self) -> str | None:
        return None

    def fitted(self) -> str:
        return f"Bradley-Terry over all {self.doc.games} games ({self.doc.blocks} duplicate blocks)"

    def bootstrap_unit(self, unit: str) -> str:
        return _UNIT_TEXT.get(unit, "of blocks")


class TableWords(PairWords):
    """The words of a leaderboard of tables of n seats (a document with a ``table`` section)."""

    unit, units, who = "table", "tables", "bot"
    cross_heads = ["bot", "vs", "games together", "ahead-level-behind", "score %"]
    cross_intro = ["How often the row bot finished ahead of the column bot in the games they played together.", ""]
    cross_note = ("How often the row bot finished ahead of the column bot in the games they played together "
                  "(ahead-level-behind below).")
    cross_where = "by where it finished against the column bot in the games they played together"

    def __init__(self, doc: Leaderboard, t: TableInfo) -> None:
        super().__init__(doc)
        self.t = t  # the document's ``table`` section: seats, contests, the maker's advantage

    def blocks_played(self) -> str:
        return f"{self.doc.blocks} blocks by rotation at tables of {self.t.seats}"

    def site_notes(self) -> list[tuple[str | None, str]]:
        maker = self.maker()
        return [(None, "\u00b1: distance from the rating to the ends of its interval. Average opponent: mean rating "
                       f"of the other seats over the bot's games. {self.table_note()} Draws: share of its games "
                       "nobody won."),
                ("fitted", f"Ratings: {self.fitted()}."), *([("maker", maker)] if maker else [])]

    def luck_note(self) -> str:
        n = self.doc.luck.rotations or self.t.seats
        return (f"(rho: mean correlation of one bot's {n} results in a block, the same deals with the bots rotated "
                "through the seats, from results centred within each table and bot; rotation needs "
                f"1/(1+{n - 1}rho) times fewer games than independent deals for the same precision.)")

    def table_note(self) -> str:
        """How a table's columns count (games, W-D-L and score % differ from two pairs')."""
        return (f"At tables of {self.t.seats}: W-D-L counts games won, games nobody won and games another seat "
                "won (or the bot forfeited); score % is the share of the other seats the bot finished ahead of "
                "(level counts half).")

    def maker(self) -> str | None:
        """The maker's side's fitted advantage at a called-partner table, or None."""
        m = self.t.maker_advantage
        if not m:
            return None
        iv = f"interval withheld: {m.withheld}" if m.withheld else _interval(m.ci_low, m.ci_high)
        return f"Maker's side advantage (fitted with the ratings, Elo): {fixed(m.rating)} {iv}."

    def fitted(self) -> str:
        t, doc = self.t, self.doc
        what = ("one between every two seats of each game, by their finish" if t.contests == "finish" else
                "one per scored deal, the maker and its called partner against the rest, by what each side gained")
        return (f"Bradley-Terry over {t.contest_count} contests ({what}; a side rated the mean of its bots) from "
                f"{doc.games} games at tables of {t.seats} ({doc.blocks} blocks by rotation of {t.seats}"
                " games)")

    def bootstrap_unit(self, unit: str) -> str:
        if unit in ("key", "pairing"):
            return "of whole deal keys (block i of every table together)" if unit == "key" else "of blocks within each table"
        return super().bootstrap_unit(unit)


def words(doc: Leaderboard) -> PairWords:
    """The document's words, chosen once: a ``table`` section is a leaderboard of tables of n seats."""
    return TableWords(doc, doc.table) if doc.table else PairWords(doc)


def maker_text(doc: Leaderboard) -> str | None:
    """The maker's side's fitted advantage at a called-partner table, or None."""
    return words(doc).maker()


def ratings_text(doc: Leaderboard) -> str:
    """What the ratings were fitted from (games and blocks, or a table's contests)."""
    return words(doc).fitted()


def bot_interval(b: BotRow, anchor: str | None = None, missing: str = "n/a") -> str:
    """The anchor's (``anchor``: its id) rating is fixed, so its (zero-width) interval says "anchor";
    a withheld interval (too few blocks) and one the resamples never moved say the
    sample cannot carry one; ``missing`` is said where no interval was computed."""
    if anchor is not None and anchor == b.bot:
        return "anchor"
    if b.interval_withheld:
        return str(b.interval_withheld)
    lo, hi = b.ci_low, b.ci_high
    if lo is None or hi is None:
        return missing
    if hi - lo < 0.5:
        return f"too few games ({b.games})"
    return _interval(lo, hi)


def _bot_interval(doc: Leaderboard, b: BotRow, missing: str = "n/a") -> str:
    return bot_interval(b, doc.rating.anchor.bot, missing)


def main_table(doc: Leaderboard, fmt: str = "github", *, missing_interval: str = "n/a") -> str:
    """The ranking table (rank, bot, rating, interval, games, score %, faults).

    The live standings print this same table from a fit without bootstrap,
    saying ``missing_interval`` (e.g. "at the end") in the interval column.
    """
    pct = int(round(100 * doc.rating.interval_level))
    rows = [[b.rank, b.bot, _f(b.rating), _bot_interval(doc, b, missing_interval), b.games,
             _pct(b.score_pct), b.wdl, b.forfeits, _faults_text(b)]
            for b in doc.ranked()]
    table = tabulate(rows, headers=["rank", "bot", "rating", f"{pct}% interval", "games", "score %", "W-D-L",
                                    "forfeits", "faults"], tablefmt=fmt, disable_numparse=True)
    # Markdown needs a blank line, or the text becomes a row of the table
    return ("\n\n" if fmt == "github" else "\n").join([table, *versions_text(doc)])


def versions_text(doc: Leaderboard) -> list[str]:
    """One line each for the earlier versions (not ranked: each bot's latest is) and the retired ones."""
    out = []
    if doc.earlier():
        out.append("earlier versions (not ranked; their games count): " + "; ".join(
            f"{b.bot} {_f(b.rating)} on {b.games} games, now {b.superseded_by or 'retired'}"
            for b in doc.earlier()))
    if doc.retired:
        out.append("retired (left out of the ratings): " + ", ".join(
            f"{r.name}@{r.version or r.digest[:12]}" for r in doc.retired))
    return out


def crosstable_md(doc: Leaderboard) -> str:
    rows = [[c.first, c.second, c.games, f"{c.wins}-{c.draws}-{c.losses}", _pct(c.score_pct)]
            for c in doc.crosstable]
    return str(tabulate(rows, headers=words(doc).cross_heads, tablefmt="github", disable_numparse=True))


#: What the LOS matrix shows, said above it.
LOS_TEXT = ("How likely the row bot is the stronger: Student's t of the rating difference over its resamples' SD, "
            "on the two bots' fewer degrees of freedom (97.5% is a difference whose 95% interval ends at 0).")


def los_cell(doc: Leaderboard, a: str, b: str) -> str:
    """One LOS figure, or "withheld" where the resamples cannot carry one (too few blocks)."""
    if a == b:
        return ""
    row = doc.los.get(a, {})
    return "withheld" if b in row and row[b] is None else _pct(row.get(b))


def los_withheld_note(doc: Leaderboard) -> str | None:
    """Why some LOS figures are withheld, or None."""
    if not any(x is None for row in doc.los.values() for x in row.values()):
        return None
    return ("withheld: too few blocks (some bot's resamples have fewer degrees of freedom than a LOS needs; "
            "docs/ratings.md)")


def los_md(doc: Leaderboard) -> str:
    names = [b.bot for b in doc.bots]
    if not doc.los:
        return "(no bootstrap: LOS not computed)"
    rows = [[a] + [los_cell(doc, a, b) for b in names] for a in names]
    table = str(tabulate(rows, headers=["LOS"] + names, tablefmt="github", disable_numparse=True))
    note = los_withheld_note(doc)
    return table + (f"\n\n{note[0].upper()}{note[1:]}." if note else "")


_UNIT_TEXT = {"key": "of whole deal keys (block i of every pairing together)",
              "pairing": "of blocks within each pairing", "block": "of single blocks"}


def unit_text(doc: Leaderboard) -> str:
    """What a bootstrap resample draws, in words."""
    return words(doc).bootstrap_unit(doc.rating.bootstrap_unit)


def profile_line(p: Provenance) -> tuple[str, str]:
    """The rule profile's name and what follows it, shown under every title."""
    prof = p.rule_profile
    mixed = p.mixed_profiles
    if not prof and mixed:
        return ("mixed: " + ", ".join(mixed),
                " (the games were played under different rules, so these ratings compare results of different games)")
    if not prof:
        return UNKNOWN, " (neither the run's files nor the game records name it)"
    return str(prof.get("name") or UNKNOWN), " (all its parameters under Reproducibility)"


def _flags_text(doc: Leaderboard) -> str:
    return ", ".join(f"{k} {v}" for k, v in doc.flags.items()) or "none"


def render_markdown(doc: Leaderboard) -> str:
    """leaderboard.md: table, crosstable, LOS matrix, luck line, provenance."""
    rt = doc.rating
    out = [
        f"# Leaderboard: {doc.provenance.config_name or UNKNOWN}",
        "",
        "Rule profile: **{}**{}.".format(*profile_line(doc.provenance)),
        "",
        main_table(doc),
        "",
        f"Ratings: Elo scale, {ratings_text(doc)}, "
        f"{'symmetric weak prior (one virtual draw per bot, spread over the other bots), ' if rt.prior else ''}"
        f"anchor: {rt.anchor_text}. "
        f"Intervals: the rating plus and minus Student's t times the SD of {rt.bootstrap} bootstrap resamples "
        f"{unit_text(doc)}, on their degrees of freedom, seed {rt.seed}"
        + (f", {rt.bootstrap_failures} failed" if rt.bootstrap_failures else "")
        + f"; withheld (too few blocks) below {rt.interval_min_df} degrees of freedom.",
        "",
    ]
    if rt.interval_note:
        out += [f"Note: {rt.interval_note}.", ""]
    w = words(doc)
    out += [x for note in (w.table_note(), w.maker()) if note for x in (note, "")]
    out += [
        f"Games without a winner or ended by a fault: {_flags_text(doc)}.",
        "",
        "## Crosstable",
        "",
        *w.cross_intro,
        crosstable_md(doc),
        "",
        "## Likelihood of superiority",
        "",
        LOS_TEXT,
        "",
        los_md(doc),
        "",
        "## Luck",
        "",
        _luck_text(doc),
        "",
        "## Reproducibility",
        "",
    ]
    out += [f"- {k}: {v}" for k, v in provenance_lines(doc)]
    return "\n".join(out) + "\n"


def table_note(doc: Leaderboard) -> str | None:
    """How a table's columns count (games, W-D-L and score % differ from two pairs')."""
    return words(doc).table_note()


# ------------------------------------------------------------ HTML



@dataclass(frozen=True)
class _Bar:
    """An interval bar of ``leaderboard.html``: x of the band (None: no interval), its width, the rating's tick."""

    width: int
    lo: str | None
    span: str | None
    tick: str


def _bar(lo: float | None, mid: float, hi: float | None, vmin: float, vmax: float, width: int = 240) -> _Bar:
    """The interval as a band, the rating as a tick, on a shared scale."""
    span = (vmax - vmin) or 1.0

    def x(v: float) -> float:
        return 4 + (v - vmin) / span * (width - 8)

    if lo is None or hi is None:
        return _Bar(width, None, None, f"{x(mid) - 1:.1f}")
    return _Bar(width, f"{x(lo):.1f}", f"{max(x(hi) - x(lo), 1):.1f}", f"{x(mid) - 1:.1f}")


@dataclass(frozen=True)
class _HtmlRow:
    """One ranked row of ``leaderboard.html``, its figures in words."""

    rank: int | None
    bot: str
    rating: str
    interval: str
    bar: _Bar
    games: int
    score: str
    wdl: str
    forfeits: int
    faults: str


@dataclass(frozen=True)
class _HtmlView:
    """Everything ``templates/leaderboard.html`` shows."""

    name: str
    profile: tuple[str, str]
    level: int
    scale: tuple[str, str]
    rows: list[_HtmlRow]
    versions: list[str]
    anchor: str
    bootstrap: int
    unit: str
    seed: int
    flags: str
    interval_note: str | None
    fitted: str
    table_note: str | None
    maker: str | None
    who: str
    cross_note: str
    parts: list[str]
    cross: list[tuple[str, list[tuple[str, str] | None]]]
    names: list[str]
    los: list[tuple[str, list[str]]] | None
    los_text: str
    los_note: str | None
    luck: list[str]
    provenance: list[tuple[str, str]]


def render_html(doc: Leaderboard) -> str:
    """leaderboard.html: static, no external assets (CSS inline, bars as SVG), from ``templates/leaderboard.html``."""
    vals = [v for b in doc.bots for v in (b.rating, b.ci_low, b.ci_high) if v is not None]
    vmin, vmax = (min(vals), max(vals)) if vals else (0.0, 1.0)
    rows = [_HtmlRow(b.rank, b.bot, _f(b.rating), _bot_interval(doc, b), _bar(b.ci_low, b.rating, b.ci_high, vmin, vmax),
                     b.games, _pct(b.score_pct), b.wdl, b.forfeits, _faults_text(b)) for b in doc.ranked()]
    # crosstable as a matrix of partnerships: cell = row's score % against column, W-D-L below
    parts = sorted({c.first for c in doc.crosstable} | {c.second for c in doc.crosstable})
    cell: dict[tuple[str, str], tuple[str, str]] = {}
    for c in doc.crosstable:
        cell[(c.first, c.second)] = (_pct(c.score_pct), f"{c.wins}-{c.draws}-{c.losses}")
        other = None if c.score_pct is None else 1 - c.score_pct
        cell[(c.second, c.first)] = (_pct(other), f"{c.losses}-{c.draws}-{c.wins}")
    names = [b.bot for b in doc.bots]
    rt, w = doc.rating, words(doc)
    view = _HtmlView(
        name=doc.provenance.config_name or UNKNOWN, profile=profile_line(doc.provenance),
        level=int(round(100 * rt.interval_level)), scale=(fixed(vmin), fixed(vmax)), rows=rows,
        versions=versions_text(doc), anchor=rt.anchor_text, bootstrap=rt.bootstrap,
        unit=unit_text(doc), seed=rt.seed, flags=_flags_text(doc),
        interval_note=rt.interval_note, fitted=ratings_text(doc),
        table_note=w.table_note(), maker=w.maker(), who=w.who, cross_note=w.cross_note,
        parts=parts, cross=[(a, [cell.get((a, b)) for b in parts]) for a in parts],
        names=names, los=[(a, [los_cell(doc, a, b) for b in names]) for a in names] if doc.los else None,
        los_text=LOS_TEXT, los_note=los_withheld_note(doc),
        luck=_luck_text(doc).split("\n\n"), provenance=provenance_lines(doc))
    return render("leaderboard.html", v=view)
