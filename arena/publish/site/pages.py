"""The site's HTML pages, as pure functions of the ``SiteModel``.

Real tables with headers and captions, headings in order, links for every
bot, matchup and game, and every chart next to a table of the same numbers.
Pages below the root link back with ``../``, so the site works from disk
and from any web server path.
"""

from __future__ import annotations

import html
import json

import yaml
from typing import Any, Iterable

from ...match.show import profile_text, seat_names
from ...results import GameLine
from .. import leaderboard as lb
from ..versions import earlier, ranked
from .charts import Axis, axis_svg, histogram_svg, history_svg, interval_bar, scale_for
from .collect import GameRef
from .ledger import deal_count
from .model import FaultRow, SiteModel
from .stats import LATER_HONOURS, BotStats

#: evidence (request, reply, stderr) is written out for this many faults per bot page; every fault is listed
EVIDENCE_PER_BOT = 50


def e(x: Any) -> str:
    return html.escape(str(x))


def page(title: str, body: Iterable[str], *, root: str = "", script: bool = False) -> str:
    head = ['<!DOCTYPE html>', '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{e(title)}</title>", f'<link rel="stylesheet" href="{root}site.css"></head><body>',
            '<a class="skip" href="#main">Skip to the content</a>',
            f'<header class="top"><nav aria-label="site"><a href="{root}index.html">Leaderboard</a>'
            f'<a href="{root}viewer.html">Open a record</a></nav></header><main id="main">']
    tail = ["</main>"] + ([f'<script src="{root}viewer.js"></script>'] if script else []) + ["</body></html>"]
    return "\n".join([*head, *body, *tail]) + "\n"


def num(x: float | None, fmt: str = ".0f", none: str = "n/a") -> str:
    return none if x is None else lb.fixed(x, fmt)


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def signed(x: float) -> str:
    return lb.fixed(x, "+.0f").replace("-", "\u2212")


def plusminus(doc: dict[str, Any], b: dict[str, Any]) -> str:
    """+high / -low distances from the rating, or why there are none."""
    txt = lb._bot_interval(doc, b)
    if not txt.startswith("["):
        return txt
    return f"+{lb.fixed(b['ci_high'] - b['rating'])} / \u2212{lb.fixed(b['rating'] - b['ci_low'])}"


def bot_link(m: SiteModel, bot: str, root: str, live: bool = False) -> str:
    if live or bot not in m.slugs:
        return e(bot)
    return f'<a href="{root}bots/{m.slugs[bot]}.html">{e(bot)}</a>'


def matchup_name(m: SiteModel, a: str, b: str) -> str:
    return f"{m.slugs[a]}--{m.slugs[b]}.html"


def _runs_text(m: SiteModel) -> list[str]:
    """Every run, or with many runs those the history shows (the first, every 2**k-th and the last)."""
    runs = m.comp.runs
    shown = [runs[n - 1] for n in m.history_runs] if m.history_runs else runs
    rows = [f"<tr><td>{r.index}</td><td class=\"l\">{e(r.source)}</td><td>{r.end}</td><td>{r.played}</td>"
            f"<td class=\"l\">{e(r.date or 'not recorded')}</td></tr>" for r in shown]
    which = "" if len(shown) == len(runs) else f" ({len(shown)} of {len(runs)}: those the rating history shows)"
    return [f'<table id="runs"><caption>Runs covered{which}</caption><thead><tr><th scope="col">run</th>'
            '<th scope="col" class="l">folder</th><th scope="col">blocks after it</th><th scope="col">blocks played</th>'
            '<th scope="col" class="l">last block finished</th></tr></thead><tbody>', *rows, "</tbody></table>"]


def scroll(label: str, table: list[str]) -> list[str]:
    """A wide table in a box of its own that scrolls sideways, so the page itself keeps its width."""
    return [f'<div class="scroll" role="region" aria-label="{e(label)}" tabindex="0">', *table, "</div>"]


# ------------------------------------------------------------ leaderboard


def leaderboard_page(m: SiteModel, *, live: bool = False) -> str:
    doc = m.doc
    p = doc["provenance"]
    name = p.get("config_name") or m.comp.sources[0].parent.name
    pcts = int(round(100 * doc["rating"]["interval_level"]))
    dates = [r.date for r in m.comp.runs if r.date]
    out = [f"<h1>{e(name)}: leaderboard</h1>",
           '<p id="profile">Rule profile: <strong>{}</strong>{}.</p>'.format(*map(e, lb.profile_line(doc)))]
    if m.provisional:
        out.append(f'<p class="provisional" role="status"><strong>Provisional</strong>: {e(m.provisional)} '
                   "The table changes as blocks finish; intervals, bot pages and replays come with the final site.</p>")
    tbl = doc.get("table")
    blocks = (f"{doc['blocks']} blocks by rotation at tables of {tbl['seats']}" if tbl else f"{doc['blocks']} duplicate blocks")
    out.append(f"<p>As of {e(dates[-1] if dates else 'an unrecorded date')}: {doc['games']} games in "
               f"{blocks} over {len(m.comp.runs)} run{'s' if len(m.comp.runs) != 1 else ''}"
               f"{'' if p.get('complete') is not False else '; the last run did not finish every block'}.</p>")
    if doc["rating"].get("interval_note"):
        out.append(f'<p class="note">Note: {e(doc["rating"]["interval_note"])}.</p>')
    vals = [v for b in doc["bots"] for v in (b["rating"], b["ci_low"], b["ci_high"]) if v is not None]
    axis = Axis(*scale_for(vals), width=260)
    out.append(f'<table id="ratings"><caption>Ratings (Elo scale, {e(doc["rating"]["anchor_text"])}), best first'
               "</caption><thead><tr>"
               + "".join(f'<th scope="col"{c}>{h}</th>' for h, c in (
                   ("rank", ""), ("bot", ' class="l"'), ("rating", ""), ("\u00b1", ""), (f"{pcts}% interval", ""),
                   (f'interval bar<br>{axis_svg(axis)}', ' class="l"'), ("games", ""), ("score %", ""),
                   ("draws", ""), ("average opponent", ""), ("W-D-L", ""), ("forfeits", ""), ("faults", ' class="l"')))
               + "</tr></thead><tbody>")
    for b in ranked(doc):
        iv = lb._bot_interval(doc, b)
        ci = (b["ci_low"], b["ci_high"]) if iv.startswith("[") else (None, None)
        label = f"{b['bot']}: rating {lb.fixed(b['rating'])}" + (
            f", {pcts}% interval {lb.fixed(ci[0])} to {lb.fixed(ci[1])}"
            if ci[0] is not None and ci[1] is not None else f", interval: {iv}")
        draws = b["draws"] / b["games"] if b["games"] else None
        out.append(f"<tr><td>{b['rank']}</td><th scope=\"row\" class=\"l\">{bot_link(m, b['bot'], '', live)}</th>"
                   f"<td>{lb.fixed(b['rating'])}</td><td>{e(plusminus(doc, b))}</td><td>{e(iv)}</td>"
                   f'<td class="l">{interval_bar(b["rating"], ci[0], ci[1], axis, label)}</td>'
                   f"<td>{b['games']}</td><td>{pct(b['score_pct'])}</td><td>{pct(draws)}</td>"
                   f"<td>{num(m.avg_opponent.get(b['bot']))}</td>"
                   f"<td>{b['wins']}-{b['draws']}-{b['losses']}</td><td>{b['forfeits']}</td>"
                   f'<td class="l">{e(lb._faults_text(b))}</td></tr>')
    out.append("</tbody></table>")
    out += _versions(m, live)
    if tbl:
        out.append('<p class="small">\u00b1: distance from the rating to the ends of its interval. Average opponent: '
                   "mean rating of the other seats over the bot's games. " + e(lb.table_note(doc))
                   + " Draws: share of its games nobody won.</p>")
        out.append(f'<p class="small" id="fitted">Ratings: {e(lb.ratings_text(doc))}.</p>')
        if lb.maker_text(doc):
            out.append(f'<p class="small" id="maker">{e(lb.maker_text(doc))}</p>')
    else:
        out.append('<p class="small">\u00b1: distance from the rating to the ends of its interval. Average opponent: '
                   "mean rating of the opposing partnership over the bot's games. Draws: share of its games with no "
                   "winner (capped games, level deals-format games).</p>")
    out += _crosstable(m, live)
    top = [b["bot"] for b in ranked(doc)]
    out += _history(m, top, live=live, chart=top[:CHART_SERIES])
    out.append("<h2>Luck</h2>" + _luck_chart(doc) + "".join(f"<p>{e(t)}</p>" for t in lb._luck_text(doc).split("\n\n")))
    out += _block_results(m)
    if doc["los"]:
        names = [b["bot"] for b in ranked(doc)]
        note = lb.los_withheld_note(doc)
        out.append("<h2>Likelihood of superiority</h2>")
        los = [f'<table id="los"><caption>{e(lb.LOS_TEXT)} Ranked versions.'
               + (f" {e(note)}." if note else "") + '</caption><thead><tr><th scope="col">LOS</th>'
               + "".join(f'<th scope="col">{e(n)}</th>' for n in names) + "</tr></thead><tbody>"]
        for a in names:
            los.append(f'<tr><th scope="row" class="l">{e(a)}</th>' + "".join(
                f"<td>{e(lb.los_cell(doc, a, b))}</td>" for b in names) + "</tr>")
        los.append("</tbody></table>")
        out += scroll("likelihood of superiority", los)
    out += _runs_text(m)
    out.append('<h2>Reproducibility</h2><table class="meta"><caption>What makes these results reproducible'
               '</caption><tbody>')
    out += [f'<tr><th scope="row" class="l">{e(k)}</th><td class="l">{e(v)}</td></tr>'
            for k, v in lb.provenance_lines(doc)]
    out.append("</tbody></table>")
    return page(f"{name}: leaderboard", out)


def _block_results(m: SiteModel) -> list[str]:
    """How duplicate blocks ended: partnership A's score over both games (0 to 2), as a chart and a table."""
    levels = [0.0, 0.5, 1.0, 1.5, 2.0]
    counts = {x: m.blocks.get(repr(x), 0) for x in levels}
    n = sum(counts.values())
    if not n:
        return []
    out = [f"<h3>Block results</h3><p class=\"small\">Partnership A's score over the two games of each block "
           f"({n} blocks): 1 means the two tables split the deals' luck, 0 or 2 that one partnership won both.</p>",
           histogram_svg([(f"{x:g}", counts[x]) for x in levels], caption="blocks by partnership A's score"),
           '<table class="blocks"><caption>Blocks by partnership A\'s score</caption><thead><tr><th scope="col">score'
           '</th><th scope="col">blocks</th><th scope="col">share</th></tr></thead><tbody>']
    out += [f"<tr><td>{x:g}</td><td>{counts[x]}</td><td>{pct(counts[x] / n)}</td></tr>" for x in levels]
    out.append("</tbody></table>")
    return out


def _crosstable(m: SiteModel, live: bool) -> list[str]:
    """Ranked versions only (an earlier version's results are on its own page); in rank order."""
    names = [b["bot"] for b in ranked(m.doc)]
    where = ("by where it finished against the column bot in the games they played together" if m.doc.get("table")
             else "(games where they sat on opposite sides)")
    table = [f'<table id="crosstable"><caption>Row bot\'s score against the column bot {where}'
             ", ranked versions in rank order; each cell links to its games</caption><thead><tr>"
             '<th scope="col">bot</th>' + "".join(f'<th scope="col">{e(n)}</th>' for n in names) + "</tr></thead><tbody>"]
    for a in names:
        cells = []
        for b in names:
            c = m.matrix.get((a, b))
            if a == b or c is None:
                cells.append("<td></td>")
                continue
            text = f"{pct(c.pct)} ({len(c.games)})"
            link = text if live else f'<a href="matchups/{matchup_name(m, a, b)}">{text}</a>'
            cells.append(f"<td>{link}</td>")
        table.append(f'<tr><th scope="row" class="l">{bot_link(m, a, "", live)}</th>{"".join(cells)}</tr>')
    table.append("</tbody></table>")
    return ["<h2>Crosstable</h2>", *scroll("crosstable", table)]


#: the leaderboard's history chart draws this many ranked bots (one colour each); the table has every one
CHART_SERIES = 8


def _history(m: SiteModel, bots: list[str], root: str = "", live: bool = False, chart: list[str] | None = None) -> list[str]:
    """The rating as of each run shown (``model.history_runs``): a chart of ``chart`` (default ``bots``) and a
    table of every bot in ``bots``."""
    runs = m.history_runs or list(range(1, len(m.history) + 1))
    drawn = bots if chart is None else chart
    series = {b: [h[b]["rating"] if b in h else None for h in m.history] for b in drawn}
    out = ["<h2>Rating history</h2>"]
    total = len(m.comp.runs)
    if len(runs) < total:
        out.append(f'<p class="small">{total} runs: shown are run 1, every {runs[1] - runs[0] if len(runs) > 2 else 1}th '
                   "and the last.</p>")
    if total > 1:
        what = ", ".join(drawn) if len(drawn) == len(bots) else f"the {len(drawn)} best ranked (the table has all {len(bots)})"
        out.append(history_svg(series, runs, caption=f"rating after each run: {what}"))
    else:
        out.append('<p class="small">One run so far: the history starts with the next run.</p>')
    table = [f'<table class="history"><caption>Rating as of each run (intervals from '
             f"{m.history_bootstrap} bootstrap resamples for earlier runs, the final table's for the last)</caption>"
             '<thead><tr><th scope="col">bot</th>'
             + "".join(f'<th scope="col">run {n}</th>' for n in runs) + "</tr></thead><tbody>"]
    for b in bots:
        cells = []
        for h in m.history:
            r = h.get(b)
            if r is None:
                cells.append('<td>not entered</td>')
                continue
            iv = lb._bot_interval({"rating": {"anchor": {"bot": None}}}, r)
            cells.append(f"<td>{lb.fixed(r['rating'])} <span class=\"small\">{e(iv)}</span></td>")
        table.append(f'<tr><th scope="row" class="l">{bot_link(m, b, root, live)}</th>{"".join(cells)}</tr>')
    table.append("</tbody></table>")
    return out + scroll("rating history", table)


# ------------------------------------------------------------ bot pages


def _forced_label(p: Any) -> str:
    """What a forced dealer bid is under profile ``p``."""
    amount = f"{p.dealer_forced_bid} or more" if p.forced_bid_any else str(p.dealer_forced_bid)
    return f"forced dealer bids (the dealer must bid {amount} after three passes)"


def _stats_tables(st: BotStats | None) -> list[str]:
    left_out = [] if st is None or not st.unreplayable else [
        f'<p class="warn">{st.unreplayable} of its games are left out of these statistics: their records do not '
        "replay under the profile's rules, so the cards they hid (discards, the kitty, the tricks) are unknown.</p>"]
    if st is None or not (st.deals or st.void_deals):
        return left_out + ["<p>No finished deals in the records.</p>"]
    p = st.profile
    why = st.applies()

    def na(key: str) -> str | None:
        return f"does not apply under {p.name}: {why[key]}" if why.get(key) else None

    out = left_out + ['<table class="stats"><caption>Per deal</caption><tbody>']
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
    out += [f'<tr><th scope="row" class="l">{e(k)}</th><td>{e(v)}</td></tr>' for k, v in rows]
    out.append("</tbody></table>")
    if st.contracts:
        levels = sorted(st.contracts)
        forced = "" if why["forced"] else " (forced dealer bids included)"
        out.append(histogram_svg([(str(k), sum(st.contracts[k])) for k in levels], caption="contracts won by bid level"))
        out.append(f'<table class="contracts"><caption>Contracts by bid level{forced}</caption><thead><tr>'
                   '<th scope="col">bid</th><th scope="col">contracts</th><th scope="col">made</th><th scope="col">set</th>'
                   '<th scope="col">made %</th></tr></thead><tbody>')
        for k in levels:
            mk, st_ = st.contracts[k]
            out.append(f"<tr><td>{k}</td><td>{mk + st_}</td><td>{mk}</td><td>{st_}</td><td>{pct(mk / (mk + st_))}</td></tr>")
        out.append("</tbody></table>")
    return out


def _stats_sections(by_profile: dict[str, BotStats] | None) -> list[str]:
    """One set of tables per rule profile the bot played (a competition normally has one)."""
    if not by_profile:
        return _stats_tables(None)
    out: list[str] = []
    for name in sorted(by_profile):
        out.append(f'<h3 class="profile-stats">Under the rule profile <strong>{e(name)}</strong></h3>')
        out += _stats_tables(by_profile[name])
    return out


def _time_table(m: SiteModel, bot: str) -> list[str]:
    s = m.time_use.get(bot)
    if s is None or not s["decisions"]:
        return ["<p>No decision times recorded (in-process players or results without their <code>run</code> part).</p>"]
    few = "n/a (fewer than 100 decisions)"
    bank = (f"{num(s['bank_left_min_ms'], '.0f')} ms lowest, {num(s['bank_left_median_ms'], '.0f')} ms median over "
            f"{s['games_with_bank']} games (bank {m.bank_ms:.0f} ms minus the time charged)" if s["games_with_bank"]
            else "not recorded (the time control is not in the results' tournament.json)")
    rows = [("decisions timed", s["decisions"]), ("latency p50", f"{num(s['latency_p50_ms'], '.2f')} ms"),
            ("latency p99", few if s["latency_p99_ms"] is None else f"{s['latency_p99_ms']:.2f} ms"),
            ("latency max", f"{num(s['latency_max_ms'], '.2f')} ms"),
            ("start-up p50", "n/a" if s["startup_p50_ms"] is None else f"{s['startup_p50_ms']:.0f} ms"),
            ("bank left at the end of a game", bank)]
    return ['<table class="time"><caption>Time use</caption><tbody>',
            *[f'<tr><th scope="row" class="l">{e(k)}</th><td class="l">{e(v)}</td></tr>' for k, v in rows],
            "</tbody></table>"]


#: said where a public page leaves out what only the host should see
PRIVATE = "not published (the host's copy shows it: arena site --private)"


def _fault_evidence(f: FaultRow, private: bool = True) -> str:
    parts = [f"<p><strong>{e(f.kind)}</strong> at seat {e(f.seat_name)}"
             f"{'' if f.decision is None else f', decision {e(f.decision)}'}: {e(f.message)}</p>"]
    if f.reply is not None:
        parts.append(f"<p>The bot sent:</p><pre>{e(f.reply)}</pre>")
    if f.stderr:
        parts.append(f"<p>End of its stderr:</p><pre>{e(f.stderr[-2000:])}</pre>")
    elif not private:
        parts.append(f"<p>Its stderr: {PRIVATE}.</p>")
    if f.request is not None:
        parts.append("<details><summary>The request it was answering</summary><pre>"
                     f"{e(json.dumps(f.request, indent=1, sort_keys=True))}</pre></details>")
    if f.command:
        parts.append(f"<p>Reproduce: <code>{e(f.command)}</code></p>")
    return "".join(parts)


def _luck_chart(doc: dict[str, Any]) -> str:
    """rho of each tested statistic with its interval on the -1..1 scale (0: pairing neither helps nor hurts)."""
    rows = [(name, doc[key]) for key, name in (("luck", "game results"), ("luck_points", "points"))
            if isinstance(doc.get(key), dict) and doc[key].get("rho") is not None]
    if not rows:
        return ""
    axis = Axis(-1.0, 1.0, 360)
    out = ['<table class="luck"><caption>Correlation rho of a partnership\'s two games in a block (below 0: the '
           "duplicate deals cancel luck)</caption><tbody>"]
    for name, luck in rows:
        lo, hi = (luck.get("rho_ci") or [None, None])[:2]
        span = f", interval {lb.fixed(lo, '.2f')} to {lb.fixed(hi, '.2f')}" if lo is not None and hi is not None else ""
        label = f"{name}: rho {lb.fixed(luck['rho'], '.3f')}{span}"
        out.append(f'<tr><th scope="row" class="l">{e(name)}</th><td>{interval_bar(luck["rho"], lo, hi, axis, label)}'
                   "</td></tr>")
    out.append(f'<tr><td></td><td>{axis_svg(axis, "", "rho")}</td></tr></tbody></table>')
    return "".join(out)


def _versions(m: SiteModel, live: bool) -> list[str]:
    """Earlier versions, folded under the ranking, each linked to its page and to the version now ranked;
    retired ones."""
    doc = m.doc
    out = []
    rows = earlier(doc)
    if rows:
        out.append(f'<details id="earlier"><summary>Earlier versions ({len(rows)}): not ranked (each bot\'s latest '
                   "version is); their games count in the ratings</summary>")
        out.append('<table id="versions"><caption>Earlier versions</caption><thead><tr><th scope="col" class="l">version'
                   '</th><th scope="col">rating</th><th scope="col">games</th><th scope="col">score %</th>'
                   '<th scope="col" class="l">now</th></tr></thead><tbody>')
        for b in rows:
            now = bot_link(m, b["superseded_by"], "", live) if b["superseded_by"] else "retired"
            out.append(f'<tr><th scope="row" class="l">{bot_link(m, b["bot"], "", live)}</th>'
                       f"<td>{lb.fixed(b['rating'])}</td><td>{b['games']}</td><td>{pct(b['score_pct'])}</td>"
                       f'<td class="l">{now}</td></tr>')
        out.append("</tbody></table></details>")
    if doc.get("retired"):
        out.append('<p class="small" id="retired">Retired by the host, left out of the ratings: '
                   + ", ".join(e(f"{r['name']}@{r['version'] or r['digest'][:12]}") for r in doc["retired"]) + ".</p>")
    return out


def bot_page(m: SiteModel, bot: str) -> str:
    doc = m.doc
    row = next((b for b in doc["bots"] if b["bot"] == bot), None)
    info = next((b for b in m.comp.bots.values() if b.id == bot), None)
    ent = m.entries.get(bot, {})
    out = [f"<h1>{e(bot)}</h1>", '<table class="meta"><caption>Identity</caption><tbody>']
    ident = [("name", info.name if info else bot), ("version", ent.get("version") or "not recorded"),
             ("digest", info.digest if info else "?"),
             ("folder", ent.get("dir") or ("not recorded" if m.private else PRIVATE))]
    out += [f'<tr><th scope="row" class="l">{e(k)}</th><td class="l"><code>{e(v)}</code></td></tr>' for k, v in ident]
    files = ent.get("files") or {}
    if files:
        out.append('<tr><th scope="row" class="l">files (manifest and program)</th><td class="l">'
                   + "<br>".join(f"<code>{e(k)}</code> {e(str(v)[:16])}" for k, v in sorted(files.items())) + "</td></tr>")
    manifest = ent.get("manifest")
    out.append('<tr><th scope="row" class="l">manifest (bot.yaml as parsed)</th><td class="l">'
               + (f"<pre>{e(yaml.safe_dump(manifest, sort_keys=True))}</pre>" if isinstance(manifest, dict)
                  else "not recorded (results written before runs kept it)") + "</td></tr>")
    out.append("</tbody></table>")
    if row and row.get("superseded_by"):
        out.append(f'<p class="versions">An earlier version, not ranked (its games count): now '
                   f"{bot_link(m, row['superseded_by'], '../')}. Rating {lb.fixed(row['rating'])} on {row['games']} "
                   f"games, score {pct(row['score_pct'])}.</p>")
    elif row:
        out.append(f"<p>Rank {row['rank']} of {len(ranked(doc))}: rating {lb.fixed(row['rating'])} "
                   f"({e(lb._bot_interval(doc, row))}), {row['games']} games, score {pct(row['score_pct'])}, "
                   f"W-D-L {row['wins']}-{row['draws']}-{row['losses']}, average opponent "
                   f"{num(m.avg_opponent.get(bot))}.</p>")
    out += _history(m, [bot], "../")
    out.append('<h2>Results per opponent</h2><table class="opponents"><caption>Games against each bot on the other '
               'side</caption><thead><tr><th scope="col">opponent</th><th scope="col">games</th><th scope="col">W-D-L'
               '</th><th scope="col">score %</th><th scope="col">games</th></tr></thead><tbody>')
    for other in m.order:
        c = m.matrix.get((bot, other))
        if c is None:
            continue
        out.append(f'<tr><th scope="row" class="l">{bot_link(m, other, "../")}</th><td>{len(c.games)}</td>'
                   f"<td>{c.wins}-{c.draws}-{c.losses}</td><td>{pct(c.pct)}</td>"
                   f'<td><a href="../matchups/{matchup_name(m, bot, other)}">list</a></td></tr>')
    out.append("</tbody></table>")
    out.append("<h2>Cinch statistics</h2><p class=\"small\">From the game records. Bids, contracts, pedros and "
               "forced bids count the bot's own seats; deals, defence and High/Low/Jack/Game count its side once "
               "per deal (a bot partnering itself is one side).</p>")
    out += _stats_sections(m.stats.get(bot))
    out.append("<h2>Time use</h2>")
    out += _time_table(m, bot)
    fl = m.faults.get(bot, [])
    out.append(f"<h2>Faults ({len(fl)})</h2>")
    if not fl:
        out.append("<p>None.</p>")
    else:
        out.append('<table class="faults"><caption>Every fault, with its game</caption><thead><tr><th scope="col">game'
                   '</th><th scope="col">kind</th><th scope="col" class="l">message</th><th scope="col" class="l">'
                   "reproduce</th></tr></thead><tbody>")
        for f in fl:
            out.append(f'<tr><td><a href="../games/{e(f.game)}.html">{e(f.game)}</a></td><td>{e(f.kind)}</td>'
                       f'<td class="l">{e(f.message)}</td><td class="l"><code>{e(f.command or "not recorded")}</code></td></tr>')
        out.append("</tbody></table>")
        shown = fl[:EVIDENCE_PER_BOT]
        out.append(f"<h3>Evidence{'' if len(fl) <= EVIDENCE_PER_BOT else f' (the first {EVIDENCE_PER_BOT}; every game page shows its own)'}</h3>")
        out += [f'<section class="fault"><h4>Game <a href="../games/{e(f.game)}.html">{e(f.game)}</a></h4>'
                f"{_fault_evidence(f, m.private)}</section>" for f in shown]
    return page(f"{bot}: bot", out, root="../")


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


def matchup_page(m: SiteModel, a: str, b: str) -> str:
    c = m.matrix[(a, b)]
    refs = {g: m.comp.ref(g) for g in c.games}
    tables = any(refs[g].table for g in c.games)
    out = [f"<h1>{e(a)} against {e(b)}</h1>",
           f"<p>{len(c.games)} games, {a} scored {c.score:g} ({pct(c.pct)}), "
           + (f"ahead-level-behind {c.wins}-{c.draws}-{c.losses} (where {e(a)} finished against {e(b)} at their table). "
              if tables else f"W-D-L {c.wins}-{c.draws}-{c.losses}. ")
           + f'<a href="{matchup_name(m, b, a)}">The other way round</a>.</p>']
    if tables:
        out.append(f'<table class="games"><caption>Games of {e(a)} and {e(b)} at one table</caption><thead><tr>'
                   '<th scope="col">game</th><th scope="col">block</th><th scope="col" class="l">seats</th>'
                   f'<th scope="col" class="l">{e(a)}</th><th scope="col">scores</th><th scope="col">deals</th>'
                   '<th scope="col" class="l">other rotations</th></tr></thead><tbody>')
        from ..load import table_game

        for gid in c.games:
            ref = refs[gid]
            g = m.game_line(ref)
            tg = table_game(m.seating(ref), m.comp.bots)
            i, j = ref.bots.index(a), ref.bots.index(b)
            names = seat_names(len(ref.bots))
            seats = " ".join(f"{names[s]} {x}" for s, x in enumerate(ref.bots))
            rotations = " ".join(f'<a href="../games/{e(t)}.html">{e(t)}</a>' for t in ref.twins)
            out.append(f'<tr><td><a href="../games/{e(gid)}.html">{e(gid)}</a></td><td>{ref.block}</td>'
                       f'<td class="l">{e(seats)}</td><td class="l">{FINISH[tg.finish(i, j)]}</td>'
                       f"<td>{' : '.join(str(x) for x in g.scores)}</td><td>{deal_count(g)}</td>"
                       f'<td class="l">{rotations}</td></tr>')
        out.append("</tbody></table>")
        return page(f"{a} against {b}", out, root="../")
    out.append(f'<table class="games"><caption>Games of {e(a)} against {e(b)}</caption><thead><tr><th scope="col">game</th>'
               '<th scope="col">block</th><th scope="col" class="l">seats N E S W</th><th scope="col" class="l">'
               f"{e(a)}'s result</th><th scope=\"col\">scores N+S : E+W</th><th scope=\"col\">deals</th>"
               '<th scope="col">twin</th></tr></thead><tbody>')
    for gid in c.games:
        ref = refs[gid]
        g = m.game_line(ref)
        side = next(s % 2 for s in range(4) if ref.bots[s] == a and ref.bots[(s + 1) % 4] == b
                    or ref.bots[s] == a and ref.bots[(s + 3) % 4] == b)
        out.append(f'<tr><td><a href="../games/{e(gid)}.html">{e(gid)}</a></td><td>{ref.block}</td>'
                   f'<td class="l">{e(" ".join(ref.bots))}</td><td class="l">{_result_text(g, side)}</td>'
                   f"<td>{g.scores[0]} : {g.scores[1]}</td><td>{deal_count(g)}</td>"
                   f'<td><a href="../games/{e(ref.twin)}.html">{e(ref.twin)}</a></td></tr>')
    out.append("</tbody></table>")
    return page(f"{a} against {b}", out, root="../")


def game_page(m: SiteModel, ref: GameRef) -> str:
    g = m.game_line(ref)
    rec = g.record
    names = ref.bots
    n = len(names)
    seats = seat_names(n)
    if ref.table:
        others = ", ".join(f'<a href="{e(t)}.html">game {e(t)}</a>' for t in ref.twins)
        out = [f"<h1>Game {e(ref.id)}</h1>",
               f"<p>Block {ref.block} of <code>{e(ref.pairing)}</code>, rotation {ref.half + 1} of {n}: the same deals "
               f"are played {n} times with the entrants rotated through the seats, so each holds every seat's cards "
               f"once; the other rotations are {others}.</p>",
               '<table class="seats"><caption>Seats</caption><thead><tr><th scope="col">seat</th><th scope="col" class="l">'
               'bot</th><th scope="col">final score</th><th scope="col" class="l">result</th></tr></thead><tbody>']
        for s in range(n):
            out.append(f"<tr><td>{seats[s]}</td><td class=\"l\">{bot_link(m, names[s], '../')}</td>"
                       f"<td>{g.scores[s]}</td><td class=\"l\">{_seat_result(g, s)}</td></tr>")
    else:
        out = [f"<h1>Game {e(ref.id)}</h1>",
               f"<p>Block {ref.block} of <code>{e(ref.pairing)}</code>, game {ref.half + 1} of 2; its duplicate twin "
               f'(the same deals, partnerships swapped) is <a href="{e(ref.twin)}.html">game {e(ref.twin)}</a>.</p>',
               '<table class="seats"><caption>Seats</caption><thead><tr><th scope="col">seat</th><th scope="col" class="l">'
               'bot</th><th scope="col">side</th><th scope="col" class="l">result</th></tr></thead><tbody>']
        for s in range(4):
            out.append(f"<tr><td>{seats[s]}</td><td class=\"l\">{bot_link(m, names[s], '../')}</td>"
                       f"<td>{'N+S' if s % 2 == 0 else 'E+W'}</td><td class=\"l\">{_result_text(g, s % 2)}</td></tr>")
    out.append("</tbody></table>")
    out.append(f'<p id="profile">Rule profile: <strong>{e((rec.get("profile") or {}).get("name", "unknown"))}</strong> '
               f'<span class="small">({e(profile_text(rec.get("profile")).partition(" (")[2].rstrip(")") or "no parameters recorded")})'
               "</span></p>")
    final = (", ".join(f"{seats[s]} {g.scores[s]}" for s in range(n)) if ref.table else
             f"N+S {g.scores[0]}, E+W {g.scores[1]}")
    out.append(f"<p>Final scores {final}; ended by: {e(g.end)}; "
               f"{deal_count(g)} deals; deal key <code>{e(rec.get('key'))}</code>.</p>")
    mine = m.game_faults.get(ref.id, [])
    fl = [f for b in [names[0], *sorted(set(names[1:]) - {names[0]})] for f in mine if f.bot == b]
    if fl:
        out.append(f"<h2>Faults ({len(fl)})</h2>" + "".join(f'<section class="fault">{_fault_evidence(f, m.private)}</section>' for f in fl))
    out.append("<h2>Replay</h2>")
    out.append('<p class="small">Keys: Right and Left arrows step, Page Down and Page Up go deal by deal, Home and End; '
               f"o omniscient, 0-{n - 1} a seat's point of view (only what that seat could know), t shows the "
               + ("other rotations.</p>" if ref.table else "twin.</p>"))
    out.append(f'<div id="replay" class="viewers" data-id="{e(ref.id)}" data-replay="../replays/{e(ref.id)}.js" '
               f'data-twins="{e(" ".join(ref.twins))}"><noscript>The replay viewer needs '
               "JavaScript; the game's record is in the results file (<code>arena site frames</code> turns it into "
               "the viewer's data).</noscript></div>")
    return page(f"Game {ref.id}", out, root="../", script=True)


def viewer_page() -> str:
    out = ["<h1>Open a game</h1>",
           "<p>Choose a file written by <code>arena site frames FILE &gt; replay.json</code>, where FILE is a "
           "results file (<code>results.jsonl</code>: every game in it, or one with <code>--game ID</code>), a game "
           "record or the output of <code>arena play --save</code>: the engine replays each game and writes what "
           "the viewer shows. Nothing leaves this page.</p>",
           '<p><label for="record-file">Replay file </label><input type="file" id="record-file" '
           'accept=".json,application/json"> <label for="record-pick" class="small">game </label>'
           '<select id="record-pick" hidden></select></p>',
           '<div id="replay" class="viewers"></div>']
    return page("Open a game", out, script=True)
