"""Leaderboards: one JSON document, rendered as Markdown and static HTML.

The JSON (``format: cinch-leaderboard``, ``version: 1``, documented in
docs/leaderboards.md) is the source of truth; the Markdown and HTML are pure
functions of it, so the three files can never disagree. Nothing time- or
host-dependent goes in, so rating the same results twice gives identical
files (a committed leaderboard diffs cleanly).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from tabulate import tabulate

from ..match.show import profile_text
from ..ratings import RatingReport
from ..ratings.report import MIN_DF
from ..results import LoadedResults
from .provenance import Provenance
from .render import render
from .versions import earlier, ranked

FORMAT = "cinch-leaderboard"
VERSION = 1
UNKNOWN = "unknown"


def _num(x: Any) -> Any:
    """JSON-safe number: non-finite floats become null, floats are rounded."""
    if isinstance(x, float):
        return round(x, 6) if math.isfinite(x) else None
    return x


def _clean(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    return _num(x)


def build(report: RatingReport, prov: Provenance, results: LoadedResults, *,
          anchor: tuple[str, float] | None, level: float = 0.95) -> dict[str, Any]:
    """The leaderboard document (see docs/leaderboards.md for every field)."""
    info = {b.id: b for b in prov.bots}
    bots = []
    for rank, b in enumerate(report.bots, 1):
        bp = info.get(b.bot)
        bots.append({
            "rank": rank, "bot": b.bot, "name": bp.name if bp else b.bot,
            "version": bp.version if bp else None, "digest": bp.digest if bp else None,
            "rating": b.rating, "ci_low": b.ci_low, "ci_high": b.ci_high,
            "interval_df": b.df, "interval_withheld": b.withheld,
            "games": b.games, "score": b.score, "score_pct": b.score_pct if b.games else None,
            "wins": b.wins, "draws": b.draws, "losses": b.losses, "forfeits": b.forfeits,
            "faults": dict(b.faults), "faults_total": sum(b.faults.values()),
        })
    cross = [{"first": c.first, "second": c.second, "games": c.games, "wins": c.wins, "draws": c.draws,
              "losses": c.losses, "score": c.score, "score_pct": c.score / c.games if c.games else None}
             for c in report.crosstable]
    tbl = report.table
    model = "bradley-terry, partnership = mean of its two bots" if tbl is None else (
        "bradley-terry over contests, a side = the mean of its bots: "
        + ("every two seats of a game by their finish" if tbl["contests"] == "finish" else
           "each deal's maker and called partner against the rest, with a fitted maker's-side term"))
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "provenance": prov.to_dict(),
        "results": {"file": results.path.name, "sha256": results.sha256, "lines": len(results.lines),
                    "torn_last_line": results.torn, "duplicates": results.duplicates},
        "rating": {
            "scale": "elo", "model": model,
            "anchor": ({"kind": "bot", "bot": anchor[0], "rating": anchor[1]} if anchor
                       else {"kind": "mean", "bot": None, "rating": 0.0}),
            "anchor_text": report.anchor, "prior": report.prior, "interval_level": level,
            "interval_method": "t", "interval_min_df": MIN_DF,
            "bootstrap": report.bootstrap, "bootstrap_failures": report.bootstrap_failures,
            "bootstrap_unit": report.resample, "seed": report.seed, "interval_note": report.interval_note,
        },
        "games": report.games,
        "blocks": report.blocks,
        "flags": dict(report.flags),
        "bots": bots,
        "crosstable": cross,
        "los": report.los,
        "luck": _luck_doc(report.luck),
        "luck_points": _luck_doc(report.luck_points) if report.luck_points is not None else None,
        "table": tbl,  # a table of n seats (docs/leaderboards.md); null for two pairs
    }
    cleaned: dict[str, Any] = _clean(doc)
    return cleaned


def _luck_doc(lk: Any) -> dict[str, Any]:
    return {"statistic": lk.statistic, "rho": lk.rho, "rho_ci": lk.rho_ci, "factor": lk.factor,
            "factor_ci": lk.factor_ci, "blocks": lk.blocks, "note": lk.note, "rotations": lk.rotations}


def to_json(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=1, sort_keys=False) + "\n"


# ------------------------------------------------------------ text helpers


def fixed(x: float, fmt: str = ".0f") -> str:
    """``format(x, fmt)`` without a minus on a figure that rounds to zero ("-0" is not a rating)."""
    text = format(x, fmt)
    return format(0.0, fmt) if text.startswith("-") and not text.strip("-0.") else text


def _f(x: Any, fmt: str = ".0f") -> str:
    return UNKNOWN if x is None else fixed(x, fmt)


def _interval(lo: Any, hi: Any, fmt: str = ".0f") -> str:
    return "n/a" if lo is None or hi is None else f"[{fixed(lo, fmt)}, {fixed(hi, fmt)}]"


def _factor_interval(lo: Any, hi: Any) -> str:
    """The factor's interval; rho's interval reaching -1 leaves it without an upper bound."""
    if lo is None:
        return "(interval n/a)"
    return f"[{lo:.2f}, {'no upper bound' if hi is None else format(hi, '.2f')}]"


def _pct(x: Any) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _faults_text(row: dict[str, Any]) -> str:
    n = row["faults_total"]
    if not n:
        return "0"
    parts = ", ".join(f"{k} {v}" for k, v in sorted(row["faults"].items()))
    return f"{n} ({parts})"


def _kv(d: dict[str, Any] | None) -> str:
    if not d:
        return UNKNOWN
    return ", ".join(f"{k}={v}" for k, v in d.items() if not isinstance(v, dict))


def provenance_lines(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, value) pairs of the reproducibility facts, unknowns spelled out."""
    p = doc["provenance"]
    mixed = p.get("mixed_profiles") or []
    prof_text = profile_text(p.get("rule_profile")) if p.get("rule_profile") or not mixed else (
        "several: " + ", ".join(mixed))
    mf = p.get("match_format")
    if not mf:
        mf_text = UNKNOWN
    elif mf.get("format") == "deals":
        mf_text = f"deals ({mf.get('deals')} deals per game)"
    else:
        mf_text = f"game (to the target; cap {_f(mf.get('max_deals'), 'd')} deals)"
    sched = p.get("schedule")
    w = words(doc)
    bots = "; ".join(f"{b['name']} {b['version'] or 'version unknown'} ({b['digest'][:12] or 'no digest'})"
                     for b in p.get("bots", []))
    r = doc["results"]
    return [
        ("config", p.get("config_name") or UNKNOWN),
        ("config hash", ", ".join(p.get("config_hashes") or []) or UNKNOWN),
        ("tournament seed", p.get("tournament_seed") or UNKNOWN),
        ("rule profile", prof_text),
        ("match format", mf_text),
        ("time control", _kv(p.get("time_control"))),
        ("sandbox", p.get("sandbox") or UNKNOWN),
        ("fault policy", _kv(p.get("fault_policy"))),
        ("schedule", _kv(sched)),
        ("blocks", f"{p.get('blocks')} in {p.get('pairings')} {w.units}"
                   f" ({_f(p.get('blocks_per_pairing'), 'd')} per {w.unit} configured)"),
        ("bots", bots or UNKNOWN),
        ("harness (games)", p.get("harness_version") or UNKNOWN),
        ("harness (rating)", p.get("rated_with") or UNKNOWN),
        ("results", f"{r['file']} sha256 {r['sha256'][:16]}, {r['lines']} lines"
                    + (", torn last line ignored" if r["torn_last_line"] else "")),
    ]


_LUCK_WHAT = {"score": "game results, what the ratings use",
              "points": "points differences, what `arena sprt --points` tests",
              "standing": "finishes: the share of the table each bot finished ahead of",
              "final_score": "final scores"}


def _luck_line(lk: dict[str, Any]) -> str:
    what = _LUCK_WHAT.get(lk.get("statistic", "score"), lk.get("statistic", "score"))
    if lk["rho"] is None:
        return f"Luck ({what}): {lk.get('note') or 'not measurable'} ({lk['blocks']} blocks)."
    rho_lo, rho_hi = lk["rho_ci"] or (None, None)
    f_lo, f_hi = lk["factor_ci"] or (None, None)
    factor = "inf" if lk["factor"] is None else f"{lk['factor']:.2f}"
    n = lk.get("rotations") or 2
    formula = "1/(1+rho)" if n == 2 else f"1/(1+{n - 1}rho)"
    return (f"Luck ({what}): rho = {lk['rho']:.3f} {_interval(rho_lo, rho_hi, fmt='.3f')}; "
            f"{formula} = {factor} {_factor_interval(f_lo, f_hi)}")


def _luck_text(doc: dict[str, Any]) -> str:
    lines = [_luck_line(doc["luck"])]
    if doc.get("luck_points"):
        lines.append(_luck_line(doc["luck_points"]))
    return "\n\n".join(lines) + "\n\n" + words(doc).luck_note()


class PairWords:
    """What a leaderboard says where duplicate blocks of two pairs and tables of n seats differ: the one
    place that knows (``words`` chooses once per document, as an output factory does)."""

    unit, units, who = "pairing", "pairings", "partnership"
    cross_heads = ["partnership", "vs", "games", "W-D-L", "score %"]
    cross_intro: list[str] = []  # Markdown lines above the crosstable
    cross_note = "Row partnership's score against the column partnership (W-D-L below)."

    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc

    def luck_note(self) -> str:
        return ("(rho: correlation of a partnership's results in the two games of a block, from results centred "
                "within each pairing; the paired design needs 1/(1+rho) times fewer blocks than unpaired deals for "
                "the same precision.)")

    def table_note(self) -> str | None:
        return None

    def maker(self) -> str | None:
        return None

    def fitted(self) -> str:
        return f"Bradley-Terry over all {self.doc['games']} games ({self.doc['blocks']} duplicate blocks)"

    def bootstrap_unit(self, unit: str) -> str:
        return _UNIT_TEXT.get(unit, "of blocks")


class TableWords(PairWords):
    """The words of a leaderboard of tables of n seats (a document with a ``table`` section)."""

    unit, units, who = "table", "tables", "bot"
    cross_heads = ["bot", "vs", "games together", "ahead-level-behind", "score %"]
    cross_intro = ["How often the row bot finished ahead of the column bot in the games they played together.", ""]
    cross_note = ("How often the row bot finished ahead of the column bot in the games they played together "
                  "(ahead-level-behind below).")

    @property
    def t(self) -> Any:
        """The document's ``table`` section: seats, contests, the maker's advantage."""
        return self.doc["table"]

    def luck_note(self) -> str:
        n = self.doc["luck"].get("rotations") or self.t["seats"]
        return (f"(rho: mean correlation of one bot's {n} results in a block, the same deals with the bots rotated "
                "through the seats, from results centred within each table and bot; rotation needs "
                f"1/(1+{n - 1}rho) times fewer games than independent deals for the same precision.)")

    def table_note(self) -> str:
        """How a table's columns count (games, W-D-L and score % differ from two pairs')."""
        return (f"At tables of {self.t['seats']}: W-D-L counts games won, games nobody won and games another seat "
                "won (or the bot forfeited); score % is the share of the other seats the bot finished ahead of "
                "(level counts half).")

    def maker(self) -> str | None:
        """The maker's side's fitted advantage at a called-partner table, or None."""
        m = self.t.get("maker_advantage")
        if not m:
            return None
        iv = f"interval withheld: {m['withheld']}" if m.get("withheld") else _interval(m["ci_low"], m["ci_high"])
        return f"Maker's side advantage (fitted with the ratings, Elo): {fixed(m['rating'])} {iv}."

    def fitted(self) -> str:
        t, doc = self.t, self.doc
        what = ("one between every two seats of each game, by their finish" if t["contests"] == "finish" else
                "one per scored deal, the maker and its called partner against the rest, by what each side gained")
        return (f"Bradley-Terry over {t['contest_count']} contests ({what}; a side rated the mean of its bots) from "
                f"{doc['games']} games at tables of {t['seats']} ({doc['blocks']} blocks by rotation of {t['seats']}"
                " games)")

    def bootstrap_unit(self, unit: str) -> str:
        if unit in ("key", "pairing"):
            return "of whole deal keys (block i of every table together)" if unit == "key" else "of blocks within each table"
        return super().bootstrap_unit(unit)


def words(doc: dict[str, Any]) -> PairWords:
    """The document's words, chosen once: a ``table`` section is a leaderboard of tables of n seats."""
    return TableWords(doc) if doc.get("table") else PairWords(doc)


def maker_text(doc: dict[str, Any]) -> str | None:
    """The maker's side's fitted advantage at a called-partner table, or None."""
    return words(doc).maker()


def ratings_text(doc: dict[str, Any]) -> str:
    """What the ratings were fitted from (games and blocks, or a table's contests)."""
    return words(doc).fitted()


def _bot_interval(doc: dict[str, Any], b: dict[str, Any], missing: str = "n/a") -> str:
    """The anchor's rating is fixed, so its (zero-width) interval says "anchor";
    a withheld interval (too few blocks) and one the resamples never moved say the
    sample cannot carry one; ``missing`` is said where no interval was computed."""
    if doc["rating"]["anchor"].get("bot") == b["bot"]:
        return "anchor"
    if b.get("interval_withheld"):
        return str(b["interval_withheld"])
    lo, hi = b["ci_low"], b["ci_high"]
    if lo is None or hi is None:
        return missing
    if lo is not None and hi is not None and hi - lo < 0.5:
        return f"too few games ({b['games']})"
    return _interval(lo, hi)


def main_table(doc: dict[str, Any], fmt: str = "github", *, missing_interval: str = "n/a") -> str:
    """The ranking table (rank, bot, rating, interval, games, score %, faults).

    The live standings print this same table from a fit without bootstrap,
    saying ``missing_interval`` (e.g. "at the end") in the interval column.
    """
    pct = int(round(100 * doc["rating"]["interval_level"]))
    rows = [[b["rank"], b["bot"], _f(b["rating"]), _bot_interval(doc, b, missing_interval), b["games"],
             _pct(b["score_pct"]), f"{b['wins']}-{b['draws']}-{b['losses']}", b["forfeits"], _faults_text(b)]
            for b in ranked(doc)]
    table = tabulate(rows, headers=["rank", "bot", "rating", f"{pct}% interval", "games", "score %", "W-D-L",
                                    "forfeits", "faults"], tablefmt=fmt, disable_numparse=True)
    # Markdown needs a blank line, or the text becomes a row of the table
    return ("\n\n" if fmt == "github" else "\n").join([table, *versions_text(doc)])


def versions_text(doc: dict[str, Any]) -> list[str]:
    """One line each for the earlier versions (not ranked: each bot's latest is) and the retired ones."""
    out = []
    if earlier(doc):
        out.append("earlier versions (not ranked; their games count): " + "; ".join(
            f"{b['bot']} {_f(b['rating'])} on {b['games']} games, now {b['superseded_by'] or 'retired'}"
            for b in earlier(doc)))
    if doc.get("retired"):
        out.append("retired (left out of the ratings): " + ", ".join(
            f"{r['name']}@{r['version'] or r['digest'][:12]}" for r in doc["retired"]))
    return out


def crosstable_md(doc: dict[str, Any]) -> str:
    rows = [[c["first"], c["second"], c["games"], f"{c['wins']}-{c['draws']}-{c['losses']}", _pct(c["score_pct"])]
            for c in doc["crosstable"]]
    return str(tabulate(rows, headers=words(doc).cross_heads, tablefmt="github", disable_numparse=True))


#: What the LOS matrix shows, said above it.
LOS_TEXT = ("How likely the row bot is the stronger: Student's t of the rating difference over its resamples' SD, "
            "on the two bots' fewer degrees of freedom (97.5% is a difference whose 95% interval ends at 0).")


def los_cell(doc: dict[str, Any], a: str, b: str) -> str:
    """One LOS figure, or "withheld" where the resamples cannot carry one (too few blocks)."""
    if a == b:
        return ""
    row = doc["los"].get(a, {})
    return "withheld" if b in row and row[b] is None else _pct(row.get(b))


def los_withheld_note(doc: dict[str, Any]) -> str | None:
    """Why some LOS figures are withheld, or None."""
    if not any(x is None for row in doc["los"].values() for x in row.values()):
        return None
    return ("withheld: too few blocks (some bot's resamples have fewer degrees of freedom than a LOS needs; "
            "docs/ratings.md)")


def los_md(doc: dict[str, Any]) -> str:
    names = [b["bot"] for b in doc["bots"]]
    if not doc["los"]:
        return "(no bootstrap: LOS not computed)"
    rows = [[a] + [los_cell(doc, a, b) for b in names] for a in names]
    table = str(tabulate(rows, headers=["LOS"] + names, tablefmt="github", disable_numparse=True))
    note = los_withheld_note(doc)
    return table + (f"\n\n{note[0].upper()}{note[1:]}." if note else "")


_UNIT_TEXT = {"key": "of whole deal keys (block i of every pairing together)",
              "pairing": "of blocks within each pairing", "block": "of single blocks"}


def unit_text(doc: dict[str, Any]) -> str:
    """What a bootstrap resample draws, in words."""
    return words(doc).bootstrap_unit(doc["rating"]["bootstrap_unit"])


def profile_line(doc: dict[str, Any]) -> tuple[str, str]:
    """The rule profile's name and what follows it, shown under every title."""
    prof = doc["provenance"].get("rule_profile")
    mixed = doc["provenance"].get("mixed_profiles") or []
    if not prof and mixed:
        return ("mixed: " + ", ".join(mixed),
                " (the games were played under different rules, so these ratings compare results of different games)")
    if not prof:
        return UNKNOWN, " (neither the run's files nor the game records name it)"
    return str(prof.get("name") or UNKNOWN), " (all its parameters under Reproducibility)"


def render_markdown(doc: dict[str, Any]) -> str:
    """leaderboard.md: table, crosstable, LOS matrix, luck line, provenance."""
    p = doc["provenance"]
    rt = doc["rating"]
    flags = ", ".join(f"{k} {v}" for k, v in doc["flags"].items()) or "none"
    out = [
        f"# Leaderboard: {p.get('config_name') or UNKNOWN}",
        "",
        "Rule profile: **{}**{}.".format(*profile_line(doc)),
        "",
        main_table(doc),
        "",
        f"Ratings: Elo scale, {ratings_text(doc)}, "
        f"{'symmetric weak prior (one virtual draw per bot, spread over the other bots), ' if rt['prior'] else ''}"
        f"anchor: {rt['anchor_text']}. "
        f"Intervals: the rating plus and minus Student's t times the SD of {rt['bootstrap']} bootstrap resamples "
        f"{unit_text(doc)}, on their degrees of freedom, seed {rt['seed']}"
        + (f", {rt['bootstrap_failures']} failed" if rt["bootstrap_failures"] else "")
        + f"; withheld (too few blocks) below {rt.get('interval_min_df', MIN_DF)} degrees of freedom.",
        "",
    ]
    if rt.get("interval_note"):
        out += [f"Note: {rt['interval_note']}.", ""]
    w = words(doc)
    out += [x for note in (w.table_note(), w.maker()) if note for x in (note, "")]
    out += [
        f"Games without a winner or ended by a fault: {flags}.",
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


def table_note(doc: dict[str, Any]) -> str:
    """How a table's columns count (games, W-D-L and score % differ from two pairs')."""
    return TableWords(doc).table_note()


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


def render_html(doc: dict[str, Any]) -> str:
    """leaderboard.html: static, no external assets (CSS inline, bars as SVG), from ``templates/leaderboard.html``."""
    vals = [v for b in doc["bots"] for v in (b["rating"], b["ci_low"], b["ci_high"]) if v is not None]
    vmin, vmax = (min(vals), max(vals)) if vals else (0.0, 1.0)
    rows = [{"rank": b["rank"], "bot": b["bot"], "rating": _f(b["rating"]), "interval": _bot_interval(doc, b),
             "bar": _bar(b["ci_low"], b["rating"], b["ci_high"], vmin, vmax), "games": b["games"],
             "score": _pct(b["score_pct"]), "wdl": f"{b['wins']}-{b['draws']}-{b['losses']}",
             "forfeits": b["forfeits"], "faults": _faults_text(b)} for b in ranked(doc)]
    # crosstable as a matrix of partnerships: cell = row's score % against column, W-D-L below
    parts = sorted({c["first"] for c in doc["crosstable"]} | {c["second"] for c in doc["crosstable"]})
    cell: dict[tuple[str, str], tuple[str, str]] = {}
    for c in doc["crosstable"]:
        cell[(c["first"], c["second"])] = (_pct(c["score_pct"]), f"{c['wins']}-{c['draws']}-{c['losses']}")
        other = None if c["score_pct"] is None else 1 - c["score_pct"]
        cell[(c["second"], c["first"])] = (_pct(other), f"{c['losses']}-{c['draws']}-{c['wins']}")
    names = [b["bot"] for b in doc["bots"]]
    rt, w = doc["rating"], words(doc)
    view = {
        "name": doc["provenance"].get("config_name") or UNKNOWN, "profile": profile_line(doc),
        "level": int(round(100 * rt["interval_level"])), "scale": (fixed(vmin), fixed(vmax)), "rows": rows,
        "versions": versions_text(doc), "anchor": rt["anchor_text"], "bootstrap": rt["bootstrap"],
        "unit": unit_text(doc), "seed": rt["seed"], "flags": ", ".join(f"{k} {v}" for k, v in doc["flags"].items()) or "none",
        "interval_note": rt.get("interval_note"), "fitted": ratings_text(doc),
        "table_note": w.table_note(), "maker": w.maker(), "who": w.who, "cross_note": w.cross_note,
        "parts": parts, "cross": [(a, [cell.get((a, b)) for b in parts]) for a in parts],
        "names": names, "los": [(a, [los_cell(doc, a, b) for b in names]) for a in names] if doc["los"] else None,
        "los_text": LOS_TEXT, "los_note": los_withheld_note(doc),
        "luck": _luck_text(doc).split("\n\n"), "provenance": provenance_lines(doc),
    }
    return render("leaderboard.html", v=view)
