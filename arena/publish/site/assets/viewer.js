/* cinch-arena replay viewer: renders and navigates the frames the site build
 * wrote (arena/publish/site/frames.py). It knows no rule of the game: every
 * hand, trick, point and score on the page is what the engine gave when it
 * replayed the record, and a seat's point of view is that seat's view exactly
 * as the engine gives it (arena/engine/view.py, rules section 9). No
 * framework, no network: a game's data comes from replays/<id>.js (a
 * <script> tag, which also works from file://) or from a file written by
 * `arena site frames` that the user opens. */
"use strict";
(function () {
  const SUIT_SIGN = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
  const FOUR = ["N", "E", "S", "W"]; // a file written before the data named its seats
  const JOKER = "JK";
  /** How the game's data names its seats (frames.py `seat_names`), and what each score belongs to. */
  function seatNames(game) { return game.seat_names || FOUR; }
  function scoreRows(game) {
    return game.score_rows || [{ label: "N+S", seats: [0, 2] }, { label: "E+W", seats: [1, 3] }];
  }
  /** A seat's side in a deal of a called partner, as a view gives it (0 the maker's side, 1 the rest, null unknown). */
  function sideText(x) { return x === 0 ? "maker's side" : x === 1 ? "the others" : "not known"; }

  /* ------------------------------------------------------------ data */

  /** The inverse of frames.py `diff`: an object patches key by key (a list index by
   * index, "+" appended), [] deletes, [v] replaces, [k, tail] keeps k items and appends. */
  function patch(old, p) {
    if (Array.isArray(p)) return p.length === 1 ? p[0] : old.slice(0, p[0]).concat(p[1]);
    const list = Array.isArray(old);
    const out = list ? old.slice() : Object.assign({}, old);
    if (list && p["+"]) out.push(...p["+"]);
    for (const k in p) {
      if (list && k === "+") continue;
      const q = p[k];
      if (Array.isArray(q) && q.length === 0) delete out[k];
      else if (Array.isArray(q) && q.length === 1) out[k] = q[0];
      else out[k] = patch(out[k], q);
    }
    return out;
  }
  /** Every frame of a game: the first, then each patched from the one before. */
  function framesOf(game) {
    if (!game.frames) throw new Error(game.warnings && game.warnings.length ? game.warnings.join("; ") : "no frames");
    const out = [game.frames.first];
    for (const p of game.frames.patches) out.push(patch(out[out.length - 1], p));
    return out;
  }
  /** The engine's view of `seat` at frame `f` (View.to_dict()). */
  function viewOf(f, seat) { return Object.assign({}, f.pub, f.seats[seat]); }

  /** A file the user opens: what `arena site frames` writes. */
  function parseText(text) {
    let data;
    try { data = JSON.parse(text); } catch (e) { throw new Error("not a file written by `arena site frames` (not JSON)"); }
    if (!data || data.format !== "cinch-replay" || !Array.isArray(data.games))
      throw new Error("not a file written by `arena site frames`: turn a results file, a record or a saved game into one with `arena site frames FILE > replay.json`");
    if (data.version !== 1) throw new Error("replay file version " + data.version + " is not one this viewer reads");
    return data.games;
  }

  /* ------------------------------------------------------------ rendering */

  function el(tag, attrs, ...kids) {
    const n = document.createElement(tag);
    for (const k in attrs || {}) {
      if (k === "text") n.textContent = attrs[k];
      else if (k.startsWith("on")) n.addEventListener(k.slice(2), attrs[k]);
      else n.setAttribute(k, attrs[k]);
    }
    for (const c of kids) if (c !== null && c !== undefined) n.append(c);
    return n;
  }
  function card(c) {
    if (c === JOKER) return el("span", { class: "card joker", "data-card": c, title: "JK (the joker)", text: "Jkr" });
    return el("span", { class: "card s" + c[1], "data-card": c, title: c, text: c[0] + SUIT_SIGN[c[1]] });
  }
  function cards(list) {
    const n = el("span", { class: "cards" });
    if (!list.length) n.append(el("span", { class: "none", text: "none" }));
    for (const c of list) n.append(card(c));
    return n;
  }
  function backs(k) {
    return el("span", { class: "cards hidden", "aria-label": k + " hidden cards", text: k + " cards" });
  }
  function count(k) { return el("span", { text: k + " cards" }); }

  function render(v) {
    const f = v.frames[v.i];
    const seat = v.seat;
    const all = seat === null;
    const T = f.table, A = f.all;
    const seatsAt = f.seats.map((_, s) => s);
    const views = seatsAt.map((s) => viewOf(f, s));
    const me = all ? views[0] : views[seat]; // the public keys are the same in every view
    const names = v.game.names;
    const SEAT_NAME = seatNames(v.game);
    const who = (s) => SEAT_NAME[s] + (names[s] ? " " + names[s] : "");
    const called = v.game.sides === "called";
    v.body.replaceChildren();
    v.status.textContent = f.text;
    v.pos.textContent = "step " + (v.i + 1) + " of " + v.frames.length + ", deal " + (f.deal + 1);
    v.root.dataset.frame = v.i; v.root.dataset.deal = f.deal; v.root.dataset.events = f.events;
    const sc = f.final ? T.final_scores : (me.scores_after || me.scores);
    const rowsOf = scoreRows(v.game);
    v.body.append(el("table", { class: "scores" },
      el("caption", { text: f.final ? "Final scores" : me.scores_after ? "Scores after this deal" : "Scores before this deal" }),
      el("thead", {}, el("tr", {}, el("th", { scope: "col", text: rowsOf.length === 2 && rowsOf[0].seats.length === 2 ? "side" : "seat" }),
        el("th", { scope: "col", text: "seats" }), el("th", { scope: "col", text: "score" }))),
      el("tbody", {}, ...rowsOf.map((r, k) => el("tr", {}, el("th", { scope: "row", text: r.label }),
        el("td", { class: "l", text: r.seats.map(who).join(" + ") }), el("td", { class: "score", "data-side": k, text: String(sc[k]) }))))));
    v.body.append(el("p", { class: "dealinfo", text: T.info }));
    const early = me.phase === "bid" || me.phase === "dark" || me.phase === "trump" || T.redeal;
    const sides = all ? A.sides : me.sides; // the truth, or what this seat knows of the sides
    const rows = seatsAt.map((s) => {
      const mine = all || s === seat;
      const o = views[s];
      const after = !early || me.discard_counts[s] > 0 || me.receive_counts[s] > 0;
      const hand = mine ? cards(o.hand) : backs(T.hand_counts[s]);
      const dealt = mine ? cards(o.dealt) : count(T.dealt_counts[s]);
      const disc = !after ? el("span", { text: "-" }) : mine ? cards(o.discarded) : count(me.discard_counts[s]);
      const recv = !after ? el("span", { text: "-" }) : mine ? cards(o.received) : count(me.receive_counts[s]);
      return el("tr", { "data-seat": s, class: seat === s ? "me" : "" },
        el("th", { scope: "row", class: "l", text: who(s) + (s === me.dealer ? " (dealer)" : "") + (T.sitting.includes(s) ? " (sitting out)" : "") }),
        called ? el("td", { class: "l side", text: sides ? sideText(sides[s]) : "-" }) : null,
        el("td", { class: "l" }, hand), el("td", { class: "l" }, dealt), el("td", { class: "l" }, disc), el("td", { class: "l" }, recv),
        me.shown ? el("td", { class: "l shown" }, cards(me.shown[s])) : null);
    });
    const heads = ["seat", ...(called ? ["side"] : []), "hand", "dealt", "discarded", "received", ...(me.shown ? ["face up (public)"] : [])];
    v.body.append(el("table", { class: "hands" }, el("caption", { text: all ? "Hands (omniscient)" : "Hands as " + who(seat) + " knows them" }),
      el("thead", {}, el("tr", {}, ...heads.map((h) => el("th", { scope: "col", class: "l", text: h })))),
      el("tbody", {}, ...rows)));
    const bids = me.bids.map((b) => who(b.seat) + ": " + (b.amount ? b.amount + (b.suit ? SUIT_SIGN[b.suit] : "") : "pass") + (b.forced ? " (forced)" : "")).join(", ");
    if (me.dark) v.body.append(el("p", { class: "dark", text: "In the dark, before the deal: "
      + (me.dark.map((b) => who(b.seat) + ": " + (b.amount ? b.amount : "no")).join(", ") || "not started") + "." }));
    v.body.append(el("p", { class: "bids", text: "Bidding: " + (bids || (T.in_dark ? "none (the bid in the dark closed it)" : "not started")) + "." }));
    if (T.widow_counts && T.widow_counts.some((k) => k)) v.body.append(el("p", { class: "widows" }, "Widows still face down: ",
      ...seatsAt.filter((s) => T.widow_counts[s]).map((s) => el("span", { class: "play" }, SEAT_NAME[s] + " ",
        all ? cards(A.widows[s]) : backs(T.widow_counts[s])))));
    const robStock = all ? A.rob_stock : me.rob_stock, robTaken = all ? A.rob_taken : me.rob_taken;
    if (robStock) {
      const robbing = me.phase === "rob";
      v.body.append(el("p", { class: "rob" }, robbing ? "Stock the dealer robs: " : "Stock the dealer robbed: ", cards(robStock),
        robbing ? "" : " took: ", robbing ? "" : cards(robTaken)));
    }
    if (T.kitty_count) v.body.append(el("p", { class: "kitty" }, "Kitty (face down, for the maker): ", all ? cards(A.kitty) : backs(T.kitty_count)));
    if (all && !early) v.body.append(el("p", { class: "stock" }, "Stock now: ", cards(A.stock), " Discard pile: ", cards(A.pile)));
    if (all && A.out_points.length) {
      v.body.append(el("p", { class: "out" }, "Point cards out of play (in no hand when play began): ",
        ...A.out_points.map(([s, c]) => el("span", { class: "play" }, card(c), s < 0 ? " never dealt" : " laid away by " + SEAT_NAME[s]))));
    }
    if (me.tricks.length) {
      v.body.append(el("table", { class: "tricks" }, el("caption", { text: "Tricks" }),
        el("thead", {}, el("tr", {}, ...["trick", "leader", "plays", "winner"].map((h) => el("th", { scope: "col", class: "l", text: h })))),
        el("tbody", {}, ...me.tricks.map((t, k) => el("tr", {}, el("th", { scope: "row", text: String(k + 1) }), el("td", { class: "l", text: who(t.leader) }),
          el("td", { class: "l" }, ...t.plays.map((p) => el("span", { class: "play" }, SEAT_NAME[p.seat] + " ", card(p.card),
            ...(p.under ? [" under: ", cards(p.under)] : [])))),
          el("td", { class: "l", text: t.winner === null ? "" : who(t.winner) }))))));
    }
    if (T.result) v.body.append(el("p", { class: "result", text: T.result }));
    if (T.deals.length) {
      v.body.append(el("table", { class: "deals" }, el("caption", { text: "Deals played" }),
        el("thead", {}, el("tr", {}, ...["deal", "maker", "bid", "trump", "points", "made", "scores after"].map((h) => el("th", { scope: "col", text: h })))),
        el("tbody", {}, ...T.deals.map((p) => el("tr", {}, el("td", { text: String(p.index + 1) }),
          el("td", { class: "l", text: p.redeal ? "void (all passed)" : who(p.maker) + (p.dark ? " (in the dark)" : "") }),
          el("td", { text: p.redeal ? "-" : String(p.bid) }), el("td", { text: p.redeal ? "-" : SUIT_SIGN[p.trump] }), el("td", { text: p.points.join(" - ") }),
          el("td", { text: p.redeal ? "-" : p.made ? "yes" : "set" }), el("td", { text: p.scores_after.join(" - ") }))))));
    }
    for (const b of v.buttons) b.disabled = (b.way < 0 && v.i === 0) || (b.way > 0 && v.i === v.frames.length - 1);
    if (v.onmove) v.onmove(v);
  }

  /** Index of the first frame of each deal, to jump deal by deal. */
  function dealStarts(frames) {
    const out = [];
    frames.forEach((f, i) => { if (!f.final && (i === 0 || frames[i - 1].deal !== f.deal)) out.push(i); });
    return out;
  }

  function makeViewer(root, game) {
    const v = { root: root, game: game, frames: framesOf(game), i: 0, seat: null, buttons: [] };
    v.starts = dealStarts(v.frames);
    root.replaceChildren();
    root.classList.add("viewer");
    root.append(el("h2", { text: game.title || "Game " + game.id }));
    root.append(el("p", { class: "rules small", text: game.rules }));
    if (game.warnings.length) {
      root.append(el("div", { class: "warn", role: "alert" }, el("strong", { text: "The record disagrees with the engine's replay of it: " }),
        el("ul", {}, ...game.warnings.map((w) => el("li", { text: w })))));
    }
    const seatBox = el("fieldset", { class: "seats" }, el("legend", { text: "Point of view" }));
    const group = "pov-" + Math.random().toString(36).slice(2);
    const n = v.frames[0].seats.length;
    v.n = n;
    [null, ...v.frames[0].seats.map((_, s) => s)].forEach((s) => {
      const id = group + "-" + (s === null ? "all" : s);
      const input = el("input", { type: "radio", name: group, id: id, value: s === null ? "all" : String(s) });
      if (s === null) input.checked = true;
      input.addEventListener("change", () => { v.seat = s; render(v); });
      seatBox.append(input, el("label", { for: id, text: s === null ? "omniscient" : seatNames(game)[s] + (game.names[s] ? " " + game.names[s] : "") }));
    });
    root.append(seatBox);
    const nav = el("div", { class: "nav", role: "toolbar", "aria-label": "replay controls" });
    const mk = (label, text, dir, fn) => {
      const b = el("button", { type: "button", "aria-label": label, title: label, text: text, onclick: fn });
      b.way = dir; v.buttons.push(b); nav.append(b);
    };
    mk("first step (Home)", "|<", -1, () => v.go(0));
    mk("previous deal (Page Up)", "<<", -1, () => v.deal(-1));
    mk("back one step (Left arrow)", "<", -1, () => v.go(v.i - 1));
    mk("forward one step (Right arrow)", ">", 1, () => v.go(v.i + 1));
    mk("next deal (Page Down)", ">>", 1, () => v.deal(1));
    mk("last step (End)", ">|", 1, () => v.go(v.frames.length - 1));
    v.pos = el("span", { class: "pos" });
    nav.append(v.pos);
    root.append(nav);
    v.status = el("p", { class: "status", role: "status", "aria-live": "polite" });
    root.append(v.status);
    v.body = el("div", { class: "board" });
    root.append(v.body);
    v.go = (i) => { v.i = Math.max(0, Math.min(v.frames.length - 1, i)); render(v); };
    v.deal = (dir) => {
      const cur = v.starts.filter((s) => s <= v.i).length - 1;
      if (dir < 0) v.go(v.i > v.starts[cur] ? v.starts[cur] : v.starts[Math.max(0, cur - 1)]);
      else v.go(cur + 1 < v.starts.length ? v.starts[cur + 1] : v.frames.length - 1);
    };
    v.setSeat = (s) => {
      v.seat = s;
      const input = seatBox.querySelector('input[value="' + (s === null ? "all" : s) + '"]');
      if (input) input.checked = true;
      render(v);
    };
    v.key = (e) => {
      const map = { ArrowRight: () => v.go(v.i + 1), ArrowLeft: () => v.go(v.i - 1), Home: () => v.go(0), End: () => v.go(v.frames.length - 1),
        PageDown: () => v.deal(1), PageUp: () => v.deal(-1), o: () => v.setSeat(null) };
      for (let s = 0; s < v.n; s++) map[String(s)] = () => v.setSeat(s);
      if (map[e.key]) { map[e.key](); e.preventDefault(); return true; }
      return false;
    };
    /* Where this frame stands, for the twin to follow: (deal, step within the deal). */
    v.place = () => { const f = v.frames[v.i]; return { deal: f.deal, step: v.i - v.starts[v.starts.filter((s) => s <= v.i).length - 1], final: !!f.final }; };
    v.follow = (p) => {
      if (p.final) return v.go(v.frames.length - 1);
      const k = v.starts.find((s) => v.frames[s].deal === p.deal);
      if (k === undefined) return v.go(v.frames.length - 1);
      const next = v.starts[v.starts.indexOf(k) + 1];
      const end = next === undefined ? v.frames.length - 2 : next - 1;
      v.go(Math.min(k + p.step, end));
    };
    render(v);
    return v;
  }

  /** Per deal, the tables side by side (the duplicate twin, or a table's other rotations): where the games went apart. */
  function compareTable(vs) {
    const sums = vs.map((v) => v.frames[v.frames.length - 1].table.deals);
    const n = Math.max(...sums.map((x) => x.length));
    const rows = [];
    const desc = (v, p) => !p ? "not played" : p.redeal ? "void (all passed)" : seatNames(v.game)[p.maker] + " " + p.bid + SUIT_SIGN[p.trump] + ", " + p.points.join("-") + (p.made ? "" : " set");
    const key = (p) => !p ? "" : JSON.stringify([p.redeal, p.maker, p.bid, p.trump, p.points]);
    let first = null;
    for (let k = 0; k < n; k++) {
      const ps = sums.map((x) => x[k]);
      const same = ps.every((p) => p && key(p) === key(ps[0]));
      if (!same && first === null) first = k;
      rows.push(el("tr", { class: same ? "" : "diff" }, el("td", { text: String(k + 1) }),
        ...ps.map((p, j) => el("td", { class: "l", text: desc(vs[j], p) })), el("td", { text: same ? "same" : "differs" })));
    }
    const what = vs.length === 2 ? "The two tables" : "The " + vs.length + " rotations";
    return el("table", { class: "compare" }, el("caption", { text: what + " deal by deal" + (first === null ? ": every deal went the same way" : ": first difference in deal " + (first + 1)) }),
      el("thead", {}, el("tr", {}, ...["deal", "this game: maker bid trump, points", ...vs.slice(1).map((t) => t.game.id), ""].map((h) => el("th", { scope: "col", class: "l", text: h })))),
      el("tbody", {}, ...rows));
  }

  /* ------------------------------------------------------------ loading */

  const pending = {};
  /** Called by replays/<id>.js files. */
  window.cinchGame = function (id, data) { (pending[id] || []).forEach((f) => f(data)); delete pending[id]; };
  function loadReplay(src, id) {
    return new Promise((resolve, reject) => {
      (pending[id] = pending[id] || []).push(resolve);
      const s = document.createElement("script");
      s.src = src;
      s.onerror = () => reject(new Error("cannot load " + src));
      document.head.append(s);
    });
  }

  const api = { viewers: [], framesOf: framesOf, viewOf: viewOf, parseText: parseText };
  window.cinchViewer = api;

  function showError(where, e) {
    where.replaceChildren(el("p", { class: "warn", role: "alert", text: "Cannot show this game: " + e.message }));
  }

  /** The game (games[0]) and the other games of its block: loaded (games[1..]) or to load (twinSrcs). */
  function mount(box, games, twinSrcs) {
    api.viewers = [];
    box.replaceChildren();
    const main = el("section", { class: "panel", "aria-label": "game" });
    box.append(main);
    const v = makeViewer(main, games[0]);
    api.viewers.push(v);
    const loaded = games.slice(1);
    const count = loaded.length || (twinSrcs || []).length;
    const pairs = (games[0].sides || "pairs") === "pairs";
    const ctl = el("p", { class: "twinctl" });
    box.before(ctl);
    const showTwins = (gs) => {
      const ts = gs.map((g, j) => {
        const side = el("section", { class: "panel", "aria-label": pairs ? "duplicate twin" : "rotation" });
        box.append(side);
        g.title = pairs ? "Twin " + g.id + " (same deals, partnerships swapped)" : "Game " + g.id + " (same deals, the entrants rotated)";
        const t = makeViewer(side, g);
        api.viewers[j + 1] = t;
        return t;
      });
      const link = el("label", {}, el("input", { type: "checkbox", checked: "checked" }), pairs ? " keep the twin at the same deal" : " keep every rotation at the same deal");
      const cb = link.querySelector("input");
      ctl.replaceChildren(link);
      v.onmove = () => { if (cb.checked) ts.forEach((t) => t.follow(v.place())); };
      v.onmove(v);
      box.classList.add(ts.length === 1 ? "two" : "many");
      box.after(compareTable([v, ...ts]));
    };
    if (count) {
      const b = el("button", { type: "button", text: pairs ? "Show the duplicate twin side by side (t)" : "Show the other " + count + " rotations side by side (t)" });
      b.addEventListener("click", () => {
        ctl.replaceChildren(el("span", { text: pairs ? "loading the twin..." : "loading the rotations..." }));
        if (loaded.length) showTwins(loaded);
        else Promise.all(twinSrcs.map((t) => loadReplay(t.src, t.id))).then((ds) => showTwins(ds)).catch((e) => showError(ctl, e));
      });
      ctl.replaceChildren(b);
      api.showTwin = () => b.click();
    }
    return v;
  }

  document.addEventListener("keydown", (e) => {
    if (e.target && (e.target.tagName === "INPUT" && e.target.type !== "radio" || e.target.tagName === "SELECT")) return;
    if (e.key === "t" && api.showTwin && !api.viewers[1]) { api.showTwin(); e.preventDefault(); return; }
    const v = api.viewers[0];
    if (v && !e.altKey && !e.ctrlKey && !e.metaKey) v.key(e);
  });

  function start() {
    const box = document.getElementById("replay");
    if (box && box.dataset.replay) {
      box.replaceChildren(el("p", { text: "loading the game..." }));
      loadReplay(box.dataset.replay, box.dataset.id).then((d) => {
        const dir = box.dataset.replay.slice(0, box.dataset.replay.lastIndexOf("/") + 1);
        const twins = (box.dataset.twins || "").split(" ").filter((x) => x).map((id) => ({ src: dir + id + ".js", id: id }));
        mount(box, [d], twins);
        api.ready = true;
      }).catch((e) => { showError(box, e); api.ready = true; });
    } else api.ready = true;
    const input = document.getElementById("record-file");
    if (input) {
      input.addEventListener("change", () => {
        const file = input.files[0];
        const target = document.getElementById("replay");
        if (!file || !target) return;
        file.text().then((text) => {
          const games = parseText(text);
          const pick = document.getElementById("record-pick");
          const show = (k) => {
            delete target.dataset.replay;
            document.querySelectorAll(".twinctl, table.compare").forEach((n) => n.remove());
            target.classList.remove("two");
            const mates = games[k].twins && games[k].twins.length ? games[k].twins : [games[k].twin];
            const rest = games.filter((g, j) => j !== k && mates.includes(g.id));
            mount(target, [games[k], ...rest], null);
          };
          if (pick) {
            pick.replaceChildren(...games.map((g, k) => el("option", { value: String(k), text: g.id + (g.names.length ? ": " + g.names.join(", ") : "") })));
            pick.hidden = games.length < 2;
            pick.onchange = () => show(Number(pick.value));
          }
          show(0);
        }).catch((e) => showError(target, e));
      });
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
