/* cinch-arena replay viewer: reads the project's game records (docs/records.md)
 * and steps through them. No framework, no network: records come from
 * records/<id>.js files (a <script> tag, which also works from file://) or
 * from a file the user opens. Every hand, the discards, the fill and the rob
 * are rebuilt from the deck and the events as the rules say; trick winners,
 * points and scores are recomputed and checked against the record, and any
 * difference is shown. A seat's point of view shows exactly what
 * arena/engine/view.py gives that seat (rules section 9). */
"use strict";
(function () {
  const SISTER = { H: "D", D: "H", S: "C", C: "S" };
  const SUIT_SIGN = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
  const SUIT_NAME = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
  const SEAT_NAME = ["N", "E", "S", "W"];
  const RANKS = "23456789TJQKA";

  /* Card rules once trump `t` is named; `oj`: the sister suit's jack is a trump too
   * (off_jack_trump), between the jack and the ten. The joker "JK" (only in decks of
   * profiles with joker) is the lowest trump, of no printed suit. Powers as arena/engine/cards.py. */
  const JOKER = "JK";
  function isTrump(c, t, oj) { return c === JOKER || c[1] === t || (c[1] === SISTER[t] && (c[0] === "5" || oj && c[0] === "J")); }
  function effSuit(c, t, oj) { return isTrump(c, t, oj) ? t : c[1]; }
  function power(c, t, oj) {
    if (!isTrump(c, t, oj)) return -1;
    if (c === JOKER) return 0; // below the 2 (power 2)
    if (c[1] !== t) return c[0] === "5" ? 7 : 19; // the left pedro below the 5, the off-jack below the jack
    return 2 * RANKS.indexOf(c[0]) + 2;
  }
  function strength(c, t, led, oj) {
    const p = power(c, t, oj);
    return p >= 0 ? 100 + p : c[1] === led ? RANKS.indexOf(c[0]) : -1;
  }
  function pointsOf(c, t, pts, oj) {
    if (!isTrump(c, t, oj)) return 0;
    if (c === JOKER) return pts.joker;
    if (c[1] !== t) return c[0] === "5" ? pts.left_pedro : pts.off_jack;
    return { A: pts.high, K: pts.king, Q: pts.queen, J: pts.jack, T: pts.game, 9: pts.nine, 5: pts.right_pedro, 3: pts.three, 2: pts.low }[c[0]] || 0;
  }
  function without(list, cards) {
    const out = list.slice();
    for (const c of cards) {
      const i = out.indexOf(c);
      if (i < 0) throw new Error("card " + c + " is not where the record says");
      out.splice(i, 1);
    }
    return out;
  }
  function clone(o) { return JSON.parse(JSON.stringify(o)); }

  /* ------------------------------------------------------------ input */

  /** Normalise what a user or the site gives: a site record file's payload,
   * a results game line, a results block line, an `arena play --save` file or
   * a bare record. Returns a list of games {id, names, record, twin, end, forfeit_by}. */
  function gamesFrom(obj) {
    if (Array.isArray(obj)) return obj.flatMap(gamesFrom);
    if (!obj || typeof obj !== "object") throw new Error("not a JSON object");
    if (obj.game && obj.game.record) return [gameOf(obj.game, obj)];
    if (Array.isArray(obj.games)) {
      const ids = obj.games.map((g, h) => g.id || (obj.pairing + "#" + obj.block + "/" + h));
      return obj.games.map((g, h) => Object.assign(gameOf(g, {}), { id: ids[h], twin: ids[1 - h], block: obj.block, pairing: obj.pairing }));
    }
    if (obj.format === "cinch-saved-game") return [{ id: "saved game", names: obj.players || [], record: obj.record }];
    if (obj.format === "cinch-game") return [{ id: "record", names: [], record: obj }];
    if (obj.record && obj.seats) return [gameOf(obj, {})];
    throw new Error("not a game record, a results line or an `arena play --save` file");
  }
  function gameOf(g, extra) {
    return {
      id: extra.id || g.id || "game", twin: extra.twin || null,
      names: (g.seats || []).map((s) => s.bot || s.name || "?"),
      record: g.record, end: g.end, forfeit_by: g.forfeit_by, faults: g.faults || [],
    };
  }
  function parseText(text) {
    try { return gamesFrom(JSON.parse(text)); } catch (e) {
      const lines = text.split("\n").filter((l) => l.trim());
      if (lines.length < 2) throw e;
      return lines.flatMap((l) => gamesFrom(JSON.parse(l)));
    }
  }

  /* ------------------------------------------------------------ replay */

  /* The rule profile's parameters (docs/rules.md, Profiles): a record carries
   * the first twelve always and each later one only where it differs from
   * these defaults. A parameter or value not listed here is one this viewer
   * does not know: it says so at the top instead of replaying other rules. */
  const PROFILE_DEFAULTS = {
    name: "pagat62", target: 62, deciding_threshold: 55, min_bid: 7, max_bid: 14, dealer_forced_bid: 7, hand_size: 6,
    points: { high: 1, jack: 1, game: 1, right_pedro: 5, left_pedro: 5, low: 1 }, low_goes_to: "holder",
    scoring: "standard", extra_trumps: "play_under", rob_from: "stock", players: 4, forced_bid_any: false,
    bid_start: "left", auction: "once_around", discard: "non_trumps", min_discard: 0, discards_face_up: false,
    rob: "take_trumps", defender_discards_to_bidders: false, set_rule: "minus_bid", full_bid_doubles: false,
    moon_bid: null, win_requires_bid: false, both_reach: "play_on", bid_suits: false, suit_order: "SHCD",
    dealer_low_bid: null, play: "follow", off_jack_trump: false, lose_at: null, joker: false,
  };
  Object.assign(PROFILE_DEFAULTS.points, { off_jack: 0, king: 0, queen: 0, nine: 0, three: 0, joker: 0 });
  Object.assign(PROFILE_DEFAULTS, { first_lead_trump: false, second_deal: 0, deck_ranks: "23456789TJQKA", packets: [3, 3, 3], kitty: 0 });
  Object.assign(PROFILE_DEFAULTS, { widow: 0, dark_bid: null });
  const PROFILE_VALUES = {
    low_goes_to: ["holder", "capturer"], scoring: ["standard", "difference"], extra_trumps: ["play_under", "discard"],
    rob_from: ["stock", "stock_and_discards"], players: [4], bid_start: ["left", "right"],
    auction: ["once_around", "until_three_pass", "open"], play: ["follow", "trumps_only", "oregon", "monterey"],
    both_reach: ["play_on", "bidders", "higher_or_bidders"], discard: ["non_trumps", "choose", "to_hand_size", "keep"], rob: ["take_trumps", "free", "none"],
    set_rule: ["minus_bid", "points_plus_bid", "total_plus_gap"],
  };

  /** The record's profile in full, and what in it this viewer cannot replay. */
  function profileOf(rec) {
    const given = rec.profile || {};
    const prof = Object.assign({}, PROFILE_DEFAULTS, given);
    prof.points = Object.assign({}, PROFILE_DEFAULTS.points, given.points || {});
    const unknown = [];
    for (const k of Object.keys(given)) {
      if (!(k in PROFILE_DEFAULTS)) unknown.push("parameter " + k);
      else if (PROFILE_VALUES[k] && !PROFILE_VALUES[k].includes(given[k])) unknown.push(k + " " + JSON.stringify(given[k]));
    }
    for (const k of Object.keys(given.points || {})) if (!(k in PROFILE_DEFAULTS.points)) unknown.push("point card " + k);
    prof.total = Object.values(prof.points).reduce((a, b) => a + b, 0);
    prof.deckSize = 4 * prof.deck_ranks.length + (prof.joker ? 1 : 0);
    // cards left once everything is dealt: with no rob they stay face down, unseen (sixty-three with the joker)
    prof.undealt = prof.deckSize - 4 * (prof.packets.reduce((a, b) => a + b, 0) + prof.second_deal + prof.widow) - prof.kitty;
    // the engine's may_lose_points: deals track the face-up cards and the cards out of play
    prof.losesCards = prof.discard === "choose" || prof.rob === "free" || prof.extra_trumps === "discard"
      || prof.play !== "follow" || prof.kitty > 0 || prof.widow > 0 || prof.rob === "none" && prof.undealt > 0;
    return { prof: prof, unknown: unknown };
  }

  /** One line naming the profile and the parameters a viewer of its games needs. */
  function profileText(p) {
    const pts = p.points;
    const forced = (p.dealer_forced_bid === null ? "four passes void the deal (redeal)"
      : "after three passes the dealer must bid " + (p.forced_bid_any ? p.dealer_forced_bid + " or more" : p.dealer_forced_bid))
      + (p.dealer_low_bid !== null ? "; after three passes the dealer may bid from " + p.dealer_low_bid : "");
    const auction = { once_around: ", one round", until_three_pass: ", rounds until three have passed",
      open: ", open rounds (re-entry) until three passes follow a bid" }[p.auction];
    const parts = [
      "bids " + p.min_bid + "-" + p.max_bid + (p.bid_start === "right" ? " from the dealer's right" : "")
        + auction + (p.bid_suits ? ", each bid naming its trump (suits " + p.suit_order.split("").join(">") + ")" : ""),
      forced + (p.dark_bid !== null ? "; before the deal a seat may bid " + p.total + " in the dark, worth " + p.dark_bid : ""),
      p.total + " points a deal (High " + pts.high + ", Low " + pts.low + ", Jack " + pts.jack + ", Game " + pts.game
        + ", pedros " + pts.right_pedro + " and " + pts.left_pedro + (p.off_jack_trump ? ", off-jack " + pts.off_jack + " (a trump)" : "")
        + (pts.king ? ", King " + pts.king : "") + (pts.queen ? ", Queen " + pts.queen : "") + (pts.nine ? ", nine " + pts.nine : "") + (pts.three ? ", three " + pts.three : "")
        + (p.joker ? ", the joker " + pts.joker + " (the lowest trump)" : "")
        + "; Low to its " + (p.low_goes_to === "holder" ? "holder" : "capturer") + ")",
      (p.deck_ranks.length < 13 || p.joker ? p.deckSize + " cards (" + (p.deck_ranks.length < 13 ? p.deck_ranks : "all ranks") + (p.joker ? " and the joker" : "") + "), " : "")
        + p.packets.reduce((a, b) => a + b, 0) + " cards each" + (p.kitty ? " and a " + p.kitty + "-card kitty for the maker" : "")
        + (p.widow ? " and " + p.widow + " face down each, taken up after the seat's bid; no fill" : "") + ", "
        + p.hand_size + " tricks; "
        + (p.second_deal ? p.second_deal + " more cards each once trump is named; " : "")
        + (p.discard === "keep" ? "nobody discards but the maker, as many as the kitty gave"
          : p.discard === "choose" ? "each seat discards at least " + p.min_discard + (p.discards_face_up ? " face up" : "")
          : (p.discard === "to_hand_size" ? "every trump kept, plain cards chosen to make " + p.hand_size : "every non-trump discarded")
          + (p.extra_trumps === "discard" ? ", trumps beyond " + p.hand_size + " shown and discarded" : "")),
      p.rob === "none" ? (p.undealt > 0 ? "no rob (the " + p.undealt + " card" + (p.undealt > 1 ? "s" : "") + " left stay" + (p.undealt > 1 ? "" : "s") + " face down, unseen)" : "no rob (the stock is dealt out)") : p.rob === "free" ? "the dealer robs freely from the " + (p.rob_from === "stock" ? "stock" : "stock and the discards") + ", trumps left face up"
        : "the dealer robs the stock's trumps",
      { follow: "follow suit or trump", trumps_only: "only trumps are played; a hand out of trumps is laid face up and sits out",
        oregon: "a plain lead allows any card and keeps the lead unless trumped; a seat that cannot follow a trump lead throws its hand in",
        monterey: "follow suit or trump; a seat that cannot follow a trump lead throws its hand in" }[p.play]
        + (p.first_lead_trump ? "; the first lead a trump if the maker holds one" : ""),
      (p.scoring === "standard" ? "standard scoring" : "difference scoring, set: " + (p.set_rule === "points_plus_bid" ? "defenders' points plus the bid" : "the deal's total plus the shortfall"))
        + (p.defender_discards_to_bidders ? ", defenders' discarded points to the bidders" : "")
        + (p.full_bid_doubles ? ", a made " + p.total + " scores " + 2 * p.total : ""),
      "game to " + p.target + (p.deciding_threshold !== null ? " (bidder goes out from " + p.deciding_threshold + ")" : "")
        + (p.win_requires_bid ? ", won only by making a bid" : "") + (p.moon_bid !== null ? ", a bid of " + p.moon_bid + " shoots the moon" : "")
        + (p.lose_at !== null ? ", lost at " + p.lose_at : "")
        + { play_on: "", bidders: ", both past it: the bidders win", higher_or_bidders: ", both past it: the higher score, a tie to the bidders" }[p.both_reach],
    ];
    return "Rules: " + p.name + ": " + parts.join("; ") + ".";
  }

  /** The end rules (docs/rules.md 8 and 12.1) after a scored deal: [reason, winning side] or null. */
  function endOf(p, bid, maker, made, before, after) {
    const b = maker % 2;
    if (p.moon_bid !== null && bid >= p.moon_bid) return ["moon", made ? b : 1 - b];
    const thr = p.deciding_threshold;
    if (thr !== null && before[0] >= thr && before[1] >= thr && made) return ["bidder_out", b];
    if (p.lose_at !== null && Math.min(after[0], after[1]) <= p.lose_at) return ["floor", after[1] <= p.lose_at ? 0 : 1];
    const reached = [after[0] >= p.target, after[1] >= p.target];
    if (p.win_requires_bid) return made && reached[b] ? ["target", b] : null;
    if (reached[0] !== reached[1]) return ["target", reached[0] ? 0 : 1];
    if (reached[0] && p.both_reach === "bidders") return ["target", b];
    if (reached[0] && p.both_reach === "higher_or_bidders") return ["target", after[0] === after[1] ? b : after[0] > after[1] ? 0 : 1];
    return null;
  }

  /** Every step of a game as a frame (the whole table's state after it). */
  function framesOf(game) {
    const rec = game.record;
    if (!rec || rec.format !== "cinch-game") throw new Error("not a cinch-game record");
    if (![1, 2, 3].includes(rec.version)) throw new Error("record version " + rec.version + " is not one this viewer reads");
    const pr = profileOf(rec);
    const prof = pr.prof;
    const size = prof.hand_size;
    const pts = prof.points;
    const frames = [];
    const warnings = pr.unknown.length ? ["this viewer does not know the profile's " + pr.unknown.join(", ")
      + ": the replay below follows the rules it knows and may differ from the game"] : [];
    let scores = [0, 0];
    let ended = null; // [reason, winner, deal index] once the rules end the game
    const summaries = [];
    const name = (s) => SEAT_NAME[s] + (game.names[s] ? " (" + game.names[s] + ")" : "");
    const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
    for (const d of rec.deals) {
      if (ended) { warnings.push("deal " + d.index + ": the rules ended the game after deal " + ended[2] + " (" + ended[0] + ")"); ended = null; }
      if (d.deck.length !== prof.deckSize || d.deck.some((c) => c === JOKER ? !prof.joker : !prof.deck_ranks.includes(c[0])))
        warnings.push("deal " + d.index + ": a deck of " + d.deck.length + " cards, not the profile's " + prof.deckSize + " (ranks " + prof.deck_ranks + (prof.joker ? " and the joker" : "") + ")");
      const order = [1, 2, 3, 4].map((i) => (d.dealer + i) % 4);
      const bidOrder = prof.bid_start === "right" ? [3, 2, 1, 0].map((i) => (d.dealer + i) % 4) : order;
      const st = {
        deal: d.index, events: 0, dealer: d.dealer, phase: "bid", scores: scores.slice(), scoresAfter: null,
        hands: [[], [], [], []], dealt: null, discarded: [[], [], [], []], received: [[], [], [], []],
        shown: prof.losesCards ? [[], [], [], []] : null, stock: [], kitty: [], pile: [], reshuffles: 0, bids: [],
        maker: null, bid: null, trump: null, robPool: null, robStock: null, robTaken: null, tricks: [], points: null,
        made: null, lost: 0, out: null, redeal: false, sitting: [], toAct: bidOrder[0], previous: summaries.slice(), text: "",
        widows: [[], [], [], []], dark: prof.dark_bid !== null ? [] : null, inDark: false,
      };
      if (d.scores_before && !same(d.scores_before, scores))
        warnings.push("deal " + d.index + ": the record starts at " + d.scores_before + ", the deals before add up to " + scores);
      const dealCards = () => { // rounds of packets from the dealer's left (rules 3; 3+3+3 by default), widows, the kitty, the stock
        let p = 0;
        for (const n of prof.packets) for (const s of order) { st.hands[s].push(...d.deck.slice(p, p + n)); p += n; }
        for (const s of order) { st.widows[s] = d.deck.slice(p, p + prof.widow); p += prof.widow; }
        st.kitty = d.deck.slice(p, p + prof.kitty);
        st.stock = d.deck.slice(p + prof.kitty);
        st.dealt = clone(st.hands);
        return name(d.dealer) + " deals " + st.hands[0].length + " cards each" + (prof.widow ? " and " + prof.widow + " face down before each seat (its widow, taken up once it has bid)" : "")
          + (prof.kitty ? " and " + prof.kitty + " face down to the kitty" : "");
      };
      if (prof.dark_bid !== null) { // nothing is dealt until each seat has had its turn to bid in the dark (rules 12.6)
        st.phase = "dark"; st.dealt = [[], [], [], []]; st.stock = d.deck.slice();
        st.text = "Deal " + (d.index + 1) + ": before " + name(d.dealer) + " deals, each seat may bid " + prof.total + " in the dark (worth " + prof.dark_bid + "); " + name(bidOrder[0]) + " first.";
      } else st.text = "Deal " + (d.index + 1) + ": " + dealCards() + "; " + name(bidOrder[0]) + " bids first.";
      frames.push(clone(st));
      const ev = d.events;
      let lowHolder = null;
      let bidPos = 0, high = 0, highKey = -1, bidSuit = null, inTrick = null;
      const oj = prof.off_jack_trump;
      const passed = [];
      let queue = [];
      let follow = [];
      const reshuffle = (kind) => {
        const r = follow.shift();
        if (!r || r.kind && r.kind !== kind) throw new Error("deal " + d.index + ": a reshuffle is needed here but the record has none");
        if (!same(r.stock.slice().sort(), st.pile.slice().sort())) warnings.push("deal " + d.index + ": reshuffle " + r.j + " is not the discard pile");
        st.stock = r.stock.slice(); st.pile = []; st.reshuffles += 1;
      };
      const fill = () => { // the dealer fills the other hands, then robs (rules 5)
        if (prof.widow) return "; with widows no hand is filled" + startPlay().replace(/\.$/, "");
        const filled = [];
        for (const s of order.slice(0, 3)) {
          let need = size - st.hands[s].length;
          filled.push(Math.max(0, need));
          while (need > 0) {
            if (!st.stock.length) reshuffle("fill");
            const got = st.stock.splice(0, need);
            st.hands[s].push(...got); st.received[s].push(...got); need -= got.length;
          }
        }
        const text = filled.some((k) => k > 0) ? "; the dealer fills the others to " + size + " (" + filled.join(", ") + " cards)"
          + (st.reshuffles ? ", the discard pile reshuffled into the stock" : "") : "";
        if (prof.rob === "none") return text + (st.stock.length ? "; no rob: " + st.stock.length + " card" + (st.stock.length > 1 ? "s" : "") + " left face down, seen by nobody" : "; no stock to rob") + startPlay().replace(/\.$/, "");
        st.phase = "rob"; st.toAct = d.dealer;
        st.robPool = prof.rob_from === "stock_and_discards" ? [...st.stock, ...st.pile] : st.stock.slice();
        return text;
      };
      const startPlay = () => { // the tricks begin (rules 6, 12)
        const t = st.trump;
        st.phase = "play";
        lowHolder = st.hands.findIndex((h) => h.includes("2" + t));
        if (prof.losesCards) { // every card in no hand when play begins is out of play (rules 12.1)
          const held = new Set(st.hands.flat());
          const by = {};
          for (let s = 0; s < 4; s++) for (const c of [...st.discarded[s], ...st.shown[s]]) by[c] = s;
          st.out = d.deck.filter((c) => !held.has(c)).map((c) => [c in by ? by[c] : -1, c]);
        }
        if (prof.play === "follow") {
          st.tricks.push({ leader: st.maker, plays: [], winner: null });
          st.toAct = st.maker;
          return "; " + name(st.maker) + " leads.";
        }
        const sat = st.sitting.length;
        const more = nextTrick(st.maker);
        return (st.sitting.length > sat ? "; " + st.sitting.slice(sat).map(name).join(", ") + " hold no trump: hand laid face up, sitting out" : "")
          + (more ? "; " + name(st.toAct) + " leads." : ".") + (more ? "" : score());
      };
      const legalPlay = (hand, trick, card, under) => { // rules 6 (follow suit or trump; extras under a top) and 12
        const t = st.trump;
        const trumps = hand.filter((c) => isTrump(c, t, oj));
        const led = trick.plays.length ? effSuit(trick.plays[0].card, t, oj) : null;
        let legal = hand;
        const sitsOut = prof.play === "oregon" || prof.play === "monterey"; // cannot follow a trump lead: out
        if (prof.play === "trumps_only" || sitsOut && led === t) legal = trumps;
        else if (led === null && prof.play !== "follow" && prof.first_lead_trump && st.tricks.length === 1 && trumps.length) legal = trumps;
        else if ((prof.play === "follow" || prof.play === "monterey") && led !== null) {
          if (led === t) legal = trumps.length ? trumps : hand;
          else if (hand.some((c) => effSuit(c, t, oj) === led)) legal = hand.filter((c) => effSuit(c, t, oj) === led || isTrump(c, t, oj));
        }
        const extra = hand.length > size && st.tricks.length === 1 ? hand.length - size : 0;
        // under cards are pointless trumps; a hand with too few of them for any top may put any trumps under (rules 6.5)
        const pointless = trumps.filter((c) => !pointsOf(c, t, pts, oj));
        const enough = legal.some((c) => pointless.length - (pointless.includes(c) ? 1 : 0) >= extra);
        const pool = enough ? pointless : trumps;
        return legal.includes(card) && under.length === extra && new Set(under).size === extra
          && under.every((c) => c !== card && pool.includes(c));
      };
      const endTrick = (trick, winner, note) => {
        trick.winner = st.toAct = winner;
        const k = st.tricks.length - 1;
        if (d.trick_winners && d.trick_winners[k] !== undefined && d.trick_winners[k] !== winner)
          warnings.push("deal " + d.index + " trick " + (k + 1) + ": the rules give it to " + SEAT_NAME[winner] + ", the record to " + SEAT_NAME[d.trick_winners[k]]);
        return " " + name(winner) + " wins trick " + (k + 1) + (note || "") + ".";
      };
      const score = () => { // the deal's points and the scores (rules 7, 12.1)
        const t = st.trump;
        const won = [0, 0];
        for (const tr of st.tricks) for (const p of tr.plays) for (const c of [p.card, ...p.under]) {
          const v = pointsOf(c, t, pts, oj);
          if (!v) continue;
          const taker = c === "2" + t && prof.low_goes_to === "holder" ? lowHolder : tr.winner;
          won[taker % 2] += v;
        }
        const b = st.maker % 2, def = 1 - b;
        let lost = 0, given = 0;
        for (const [s, c] of st.out || []) { // cards out of play: the defenders' point trumps may count for the bidders
          const v = pointsOf(c, t, pts, oj);
          if (!v) continue;
          if (prof.defender_discards_to_bidders && s >= 0 && s % 2 === def) { won[b] += v; given += v; } else lost += v;
        }
        const made = won[b] >= st.bid;
        const delta = [0, 0];
        if (prof.scoring === "standard") {
          delta[def] = won[def]; delta[b] = made ? won[b] : -st.bid;
          if (made && prof.full_bid_doubles && st.bid === prof.total) delta[b] = 2 * st.bid;
          if (st.inDark) delta[b] = made ? prof.dark_bid : -prof.dark_bid; // a bid in the dark wins or loses its own value
        } else if (made) { const diff = won[b] - won[def]; if (diff > 0) delta[b] = diff; else delta[def] = -diff; }
        else if (prof.set_rule === "total_plus_gap") delta[def] = prof.total + st.bid - won[b];
        else delta[def] = won[def] + st.bid;
        st.points = won; st.made = made; st.lost = lost;
        st.scoresAfter = [scores[0] + delta[0], scores[1] + delta[1]];
        st.phase = "done"; st.toAct = null;
        if (d.points && !same(d.points, won)) warnings.push("deal " + d.index + ": points by the rules " + won + ", in the record " + d.points);
        if (d.made !== undefined && d.made !== made) warnings.push("deal " + d.index + ": by the rules the bidders " + (made ? "made" : "were set") + ", the record says otherwise");
        if (d.trick_winners && d.trick_winners.length !== st.tricks.length) warnings.push("deal " + d.index + ": " + st.tricks.length + " tricks by the rules, " + d.trick_winners.length + " in the record");
        return " Deal over: points " + won[0] + " - " + won[1]
          + (given ? " (" + given + " of the bidders' from the defenders' discards)" : "")
          + (lost ? " (" + lost + " out of play, for nobody)" : "") + "; the bidders " + (made ? "made " : "are set at ")
          + st.bid + "; scores " + st.scoresAfter[0] + " - " + st.scoresAfter[1] + ".";
      };
      const discardPhase = () => { st.phase = "discard"; st.toAct = queue[0]; return "; " + name(queue[0]) + " discards first"; };
      const nameTrump = (t) => { // the discard (or the first chosen discard), the fill and the rob follow (rules 5)
        st.trump = t;
        let text = "";
        if (prof.second_deal) { // sixty-three: a second deal to every seat from the dealer's left
          for (const s of order) { const got = st.stock.splice(0, prof.second_deal); st.hands[s].push(...got); st.received[s].push(...got); }
          text = ". " + prof.second_deal + " more cards to each seat";
        }
        const kitty = st.kitty.length;
        if (kitty) { // the maker takes the kitty, which only it sees (lipton, eighty-three)
          st.hands[st.maker].push(...st.kitty); st.received[st.maker].push(...st.kitty);
          text += ". " + name(st.maker) + " takes the " + kitty + "-card kitty";
          st.kitty = [];
        }
        if (prof.discard === "choose") { queue = order.slice(); return text + discardPhase(); }
        if (prof.discard === "keep") { // nobody discards but the maker, as many as the kitty gave it (lipton)
          if (!kitty) return text + fill();
          queue = [st.maker];
          return text + discardPhase();
        }
        if (prof.discard === "to_hand_size") { // keep every trump; a hand of hand_size trumps or more puts every plain card down
          for (let s = 0; s < 4; s++) {
            if (st.hands[s].filter((c) => isTrump(c, t, oj)).length < size) continue;
            const gone = st.hands[s].filter((c) => !isTrump(c, t, oj));
            st.hands[s] = st.hands[s].filter((c) => isTrump(c, t, oj));
            st.discarded[s].push(...gone); st.pile.push(...gone);
          }
          queue = order.filter((s) => st.hands[s].length > size);
          return text + (queue.length ? discardPhase() : fill());
        }
        for (let s = 0; s < 4; s++) {
          st.discarded[s] = st.hands[s].filter((c) => !isTrump(c, t, oj));
          st.hands[s] = st.hands[s].filter((c) => isTrump(c, t, oj));
          st.pile.push(...st.discarded[s]);
        }
        if (prof.extra_trumps === "discard") queue = order.filter((s) => st.hands[s].length > size);
        return text + ". Everyone discards every non-trump (" + st.discarded.map((x) => x.length).join(", ") + " cards)"
          + (queue.length ? discardPhase() : fill());
      };
      /* Plays other than "follow" (rules 12): the seats still holding cards that count play each trick,
       * from its leader clockwise; pidro lays a hand without trumps face up, and it sits out. */
      const nextTrick = (leader) => {
        const active = [];
        for (let s = 0; s < 4; s++) {
          const hand = st.hands[s];
          if (hand.some((c) => isTrump(c, st.trump, oj)) || hand.length && prof.play !== "trumps_only") active.push(s);
          else if (hand.length) { st.shown[s].push(...hand); st.sitting.push(s); st.hands[s] = []; }
        }
        if (!active.length) return false;
        while (!active.includes(leader)) leader = (leader + 1) % 4;
        inTrick = [0, 1, 2, 3].map((i) => (leader + i) % 4).filter((s) => active.includes(s));
        st.tricks.push({ leader: leader, plays: [], winner: null });
        st.toAct = leader;
        return true;
      };
      for (let i = 0; i < ev.length; i++) {
        const e = ev[i];
        const forced = e.forced ? " (forced)" : "";
        follow = [];
        while (i + 1 < ev.length && ev[i + 1].type === "reshuffle") follow.push(ev[++i]);
        if (e.type !== "reshuffle" && e.seat !== st.toAct)
          warnings.push("deal " + d.index + ": " + e.type + " by " + SEAT_NAME[e.seat] + " where the rules give the turn to " + (SEAT_NAME[st.toAct] || "nobody"));
        if ((e.type === "pass" || e.type === "bid") && st.phase === "dark") {
          const amount = e.type === "bid" ? e.amount : 0;
          if (amount && amount !== prof.total) warnings.push("deal " + d.index + ": a bid of " + amount + " in the dark, where the rules allow only " + prof.total);
          st.dark.push({ seat: e.seat, amount: amount });
          st.text = name(e.seat) + (amount ? " bids " + amount + " in the dark, before seeing a card" : " does not bid in the dark") + forced + ".";
          if (amount) {
            st.maker = e.seat; st.bid = high = amount; st.inDark = true;
            st.text += " " + dealCards() + "; " + name(e.seat) + " makes it at " + amount + " and names the trump.";
            st.phase = "trump"; st.toAct = e.seat;
          } else if (st.dark.length < 4) st.toAct = bidOrder[st.dark.length];
          else {
            st.text += " Nobody bids in the dark: " + dealCards() + "; " + name(bidOrder[0]) + " bids first.";
            st.phase = "bid"; st.toAct = bidOrder[0];
          }
        } else if (e.type === "pass" || e.type === "bid") {
          if (st.phase !== "bid") warnings.push("deal " + d.index + ": a " + e.type + " after the bidding");
          st.bids.push({ seat: e.seat, amount: e.type === "bid" ? e.amount : 0, forced: !!e.forced, suit: e.suit || null });
          const afterThree = high === 0 && passed.length === 3;
          const mustBid = afterThree && prof.dealer_forced_bid !== null;
          if (e.type === "bid") {
            const lo = mustBid ? prof.dealer_forced_bid : afterThree && prof.dealer_low_bid !== null ? prof.dealer_low_bid : prof.min_bid;
            // a bid beats the last by amount, or with suits by amount then suit_order (rules 12)
            const key = prof.bid_suits ? e.amount * 4 + prof.suit_order.split("").reverse().indexOf(e.suit) : e.amount;
            if (e.amount < lo || e.amount > prof.max_bid || key <= highKey || !!e.suit !== prof.bid_suits
                || mustBid && !prof.forced_bid_any && e.amount !== prof.dealer_forced_bid)
              warnings.push("deal " + d.index + ": a bid of " + e.amount + (e.suit ? " " + e.suit : "") + " is not one the rules allow here");
            st.maker = e.seat; st.bid = high = e.amount; highKey = key;
            if (e.suit) bidSuit = e.suit;
          } else {
            if (mustBid) warnings.push("deal " + d.index + ": the dealer passes where the rules make it bid");
            passed.push(e.seat);
          }
          st.text = name(e.seat) + (e.type === "bid" ? (mustBid ? " must bid and bids " : " bids ") + e.amount
            + (e.suit ? " " + SUIT_NAME[e.suit] : "") : " passes") + forced + ".";
          if (st.widows[e.seat].length) { // the seat has spoken: it takes up its widow
            st.hands[e.seat].push(...st.widows[e.seat]); st.received[e.seat].push(...st.widows[e.seat]);
            st.text += " " + name(e.seat) + " takes up its " + st.widows[e.seat].length + "-card widow.";
            st.widows[e.seat] = [];
          }
          let over;
          const bids = st.bids;
          if (prof.auction === "once_around") { bidPos += 1; over = bidPos >= 4; }
          else if (prof.auction === "open") { // re-entry: until three passes in a row follow a bid
            over = high === 0 && bids.length === 4 || high > 0 && bids.length >= 3 && bids.slice(-3).every((x) => !x.amount);
            bidPos = (bidPos + 1) % 4;
          } else {
            over = passed.length === 4 || (passed.length === 3 && high > 0);
            while (!over) { bidPos = (bidPos + 1) % 4; if (!passed.includes(bidOrder[bidPos])) break; }
          }
          if (!over) st.toAct = bidOrder[bidPos];
          else if (st.maker === null) {
            st.redeal = true; st.phase = "done"; st.scoresAfter = scores.slice(); st.toAct = null;
            st.text += " Everyone passed: the deal is void, no score, and the next dealer deals again.";
          } else if (prof.bid_suits) { // the winning bid named the trump
            st.text += " " + name(st.maker) + " makes it at " + st.bid + " in " + SUIT_NAME[bidSuit] + nameTrump(bidSuit) + ".";
          } else {
            st.phase = "trump"; st.toAct = st.maker;
            st.text += " " + name(st.maker) + " makes it at " + st.bid + ".";
          }
        } else if (e.type === "trump") {
          st.text = name(e.seat) + " names " + SUIT_NAME[e.suit] + " trump" + forced + nameTrump(e.suit) + ".";
        } else if (e.type === "discard") {
          if (st.phase !== "discard") warnings.push("deal " + d.index + ": a discard where the rules have none");
          st.hands[e.seat] = without(st.hands[e.seat], e.cards);
          st.discarded[e.seat].push(...e.cards);
          const extras = !(prof.discard === "choose" || prof.discard === "keep" || prof.discard === "to_hand_size" && !isTrump(e.cards[0], st.trump, oj));
          if (!extras) st.pile.push(...e.cards);
          if (extras || prof.discards_face_up) st.shown[e.seat].push(...e.cards);
          st.text = name(e.seat) + (extras ? " shows and discards " + e.cards.length + " extra trumps: " + e.cards.join(" ")
            : " discards " + e.cards.length + (prof.discards_face_up ? " face up: " + e.cards.join(" ") : " cards")) + forced;
          if (st.phase === "discard" && e.seat === queue[0] && prof.discard !== "choose") { // (keep: as many as the kitty gave) // the count the rules ask for
            if (e.cards.length !== st.hands[e.seat].length + e.cards.length - size) warnings.push("deal " + d.index + ": " + SEAT_NAME[e.seat] + " discards " + e.cards.length + ", the rules ask for " + (st.hands[e.seat].length + e.cards.length - size));
          } else if (st.phase === "discard" && prof.discard === "choose" && (e.cards.length < prof.min_discard || st.hands[e.seat].length > size))
            warnings.push("deal " + d.index + ": " + SEAT_NAME[e.seat] + " discards " + e.cards.length + " cards, which the rules do not allow");
          queue.shift();
          st.text += (queue.length ? discardPhase() : fill()) + ".";
        } else if (e.type === "rob") {
          const t = st.trump;
          const dealer = d.dealer;
          let left = [];
          if (prof.rob === "free") {
            const fromPile = prof.rob_from === "stock_and_discards";
            st.robStock = [...st.stock, ...(fromPile ? st.pile : [])];
            st.robTaken = e.take.slice();
            for (const c of e.take) if (!st.robStock.includes(c)) warnings.push("deal " + d.index + ": the dealer takes " + c + ", which it cannot reach");
            st.stock = st.stock.filter((c) => !e.take.includes(c));
            if (fromPile) st.pile = st.pile.filter((c) => !e.take.includes(c));
            left = [...st.stock.filter((c) => isTrump(c, t, oj)), ...(fromPile ? st.pile.filter((c) => isTrump(c, t, oj)) : [])];
            if (left.length) {
              st.shown[dealer].push(...left);
              st.stock = st.stock.filter((c) => !isTrump(c, t, oj));
              st.pile = st.pile.filter((c) => !isTrump(c, t, oj));
            }
          } else {
            st.robStock = st.stock.slice();
            st.robTaken = [...st.stock.filter((c) => isTrump(c, t, oj)), ...e.take];
            st.stock = without(st.stock, st.robTaken);
          }
          st.robPool = null;
          st.hands[dealer].push(...st.robTaken); st.received[dealer].push(...st.robTaken);
          const short = size - st.hands[dealer].length;
          let blind = [];
          if (short > 0) {
            st.stock = []; reshuffle("rob");
            blind = st.stock.splice(0, short);
            st.hands[dealer].push(...blind); st.received[dealer].push(...blind);
          }
          st.text = name(e.seat) + " robs the " + (prof.rob_from === "stock" ? "pack" : "pack and the discards") + " and takes "
            + st.robTaken.length + " cards" + forced + (blind.length ? " and " + blind.length + " blind from the reshuffled discards" : "")
            + (left.length ? "; the trumps left are laid face up, out of play: " + left.join(" ") : "") + startPlay();
        } else if (e.type === "play") {
          const t = st.trump;
          const trick = st.tricks[st.tricks.length - 1];
          if (!trick || st.phase !== "play") throw new Error("deal " + d.index + ": a card is played outside the play of the tricks");
          const under = e.under || [];
          const hand = st.hands[e.seat];
          if (!legalPlay(hand, trick, e.card, under)) warnings.push("deal " + d.index + ": " + SEAT_NAME[e.seat] + " plays " + e.card
            + (under.length ? " over " + under.join(" ") : "") + ", which the rules do not allow from " + hand.join(" "));
          st.hands[e.seat] = without(hand, [e.card, ...under]);
          trick.plays.push({ seat: e.seat, card: e.card, under: under });
          st.text = name(e.seat) + " plays " + e.card + (under.length ? " with " + under.join(" ") + " under it" : "") + forced + ".";
          if (prof.play === "follow") {
            st.toAct = (e.seat + 1) % 4;
            if (trick.plays.length === 4) {
              const led = effSuit(trick.plays[0].card, t, oj);
              let best = trick.plays[0];
              for (const p of trick.plays) if (strength(p.card, t, led, oj) > strength(best.card, t, led, oj)) best = p;
              st.text += endTrick(trick, best.seat);
              if (st.tricks.length === size) st.text += score();
              else st.tricks.push({ leader: best.seat, plays: [], winner: null });
            }
          } else {
            let open = trick;
            for (;;) { // the next seat to play, the end of a trick, or a seat that cannot follow a trump lead
              if (open.plays.length === inTrick.length) {
                // the highest trump (monterey: rules 6, the led suit ranking too), else the leader
                const led = effSuit(open.plays[0].card, t, oj);
                const value = (c) => prof.play === "monterey" ? strength(c, t, led, oj) : power(c, t, oj);
                let best = null;
                for (const p of open.plays) if (value(p.card) >= 0 && (!best || value(p.card) > value(best.card))) best = p;
                st.text += endTrick(open, best ? best.seat : open.leader, best ? "" : " (no trump in it: it goes to its leader)");
                const sat = st.sitting.length;
                const more = nextTrick(open.winner);
                if (st.sitting.length > sat) st.text += " " + st.sitting.slice(sat).map(name).join(", ") + " out of trumps: hand laid face up, sitting out.";
                if (!more) { st.text += score(); break; }
                open = st.tricks[st.tricks.length - 1];
                continue;
              }
              const seat = st.toAct = inTrick[open.plays.length];
              const led = open.plays.length ? effSuit(open.plays[0].card, t, oj) : null;
              if ((prof.play === "oregon" || prof.play === "monterey") && led === t && !st.hands[seat].some((c) => isTrump(c, t, oj))) {
                st.pile.push(...st.hands[seat]); st.hands[seat] = []; st.sitting.push(seat);
                inTrick = inTrick.filter((s) => s !== seat);
                st.text += " " + name(seat) + " cannot follow the trump lead: throws the hand in, sitting out.";
                continue;
              }
              break;
            }
          }
        } else if (e.type !== "reshuffle") {
          warnings.push("deal " + d.index + ": an event of type " + e.type + ", which this viewer does not know");
        }
        if (follow.length) warnings.push("deal " + d.index + ": the record has a reshuffle the rules did not need");
        st.events = i + 1;
        frames.push(clone(st));
      }
      if (!!d.redeal !== st.redeal && (d.redeal || d.scores_after)) warnings.push("deal " + d.index + ": " + (st.redeal ? "by the rules everyone passed and the deal is void" : "the record calls the deal void"));
      if (st.phase === "done") {
        if (d.scores_after && !same(d.scores_after, st.scoresAfter))
          warnings.push("deal " + d.index + ": scores by the rules " + st.scoresAfter + ", in the record " + d.scores_after);
        summaries.push({ index: d.index, dealer: d.dealer, maker: st.maker, bid: st.bid, trump: st.trump, points: st.points || [0, 0],
          made: st.made, scoresAfter: st.scoresAfter, redeal: st.redeal, dark: st.inDark });
        if (!!d.dark !== st.inDark && d.scores_after) warnings.push("deal " + d.index + ": " + (st.inDark ? "by the rules the maker bid in the dark, the record does not say so" : "the record says the maker bid in the dark"));
        const n = summaries.length;
        if (rec.fixed_deals) { if (n >= rec.fixed_deals) ended = ["deals", st.scoresAfter[0] === st.scoresAfter[1] ? null : st.scoresAfter[0] > st.scoresAfter[1] ? 0 : 1]; }
        else if (!st.redeal) ended = endOf(prof, st.bid, st.maker, st.made, scores, st.scoresAfter);
        if (!ended && rec.max_deals && n >= rec.max_deals) ended = ["cap", null];
        if (ended) ended.push(d.index);
        scores = st.scoresAfter;
      }
    }
    const last = clone(frames[frames.length - 1]);
    last.final = true;
    last.previous = summaries.slice();
    last.gameScores = scores.slice();
    if (rec.over && rec.scores && !same(rec.scores, scores))
      warnings.push("final scores by the rules " + scores + ", in the record " + rec.scores);
    const forfeit = game.forfeit_by !== null && game.forfeit_by !== undefined;
    if (rec.over && !forfeit) {
      if (!ended) warnings.push("the record ends the game (" + rec.end + "), the rules do not end it yet");
      else if (ended[0] !== rec.end || ended[1] !== rec.winner)
        warnings.push("by the rules the game ends by " + ended[0] + " with " + (ended[1] === null ? "no winner" : "side " + ended[1] + " winning")
          + ", the record says " + rec.end + " with " + (rec.winner === null ? "no winner" : "side " + rec.winner));
    }
    const why = { target: "a side reached the target", bidder_out: "the bidders went out", moon: "a moon bid decided it",
      deals: "the fixed number of deals was played", cap: "stopped by the deal cap: unfinished" }[rec.end];
    if (forfeit) last.text = "Game over: " + name(game.forfeit_by) + " forfeited (a fault).";
    else if (!rec.over) last.text = "The record ends here (the game was saved before it ended).";
    else last.text = "Game over: " + (rec.winner === null ? "no winner" : "side " + (rec.winner === 0 ? "N+S" : "E+W") + " wins") + (why ? " (" + why + ")" : "") + ".";
    last.text += " Final scores " + scores[0] + " - " + scores[1] + ".";
    frames.push(last);
    return { frames: frames, warnings: warnings, profile: prof };
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

  /** What ``seat`` may see of frame ``f`` (null = omniscient): the fields of engine View. */
  function seen(f, seat) {
    const all = seat === null;
    const mine = (s) => all || s === seat;
    const dealerSees = !all && seat === f.dealer;
    let robStock = null, robTaken = null;
    if (all || dealerSees) {
      if (f.phase === "rob") { robStock = f.robPool; robTaken = []; }
      else if (f.robStock) { robStock = f.robStock; robTaken = f.robTaken; }
    }
    return { mine: mine, robStock: robStock, robTaken: robTaken, stock: all ? f.stock : null, pile: all ? f.pile : null };
  }

  function render(v) {
    const f = v.frames[v.i];
    const seat = v.seat;
    const sw = seen(f, seat);
    const names = v.game.names;
    const who = (s) => SEAT_NAME[s] + (names[s] ? " " + names[s] : "");
    v.body.replaceChildren();
    v.status.textContent = f.text;
    v.pos.textContent = "step " + (v.i + 1) + " of " + v.frames.length + ", deal " + (f.deal + 1);
    v.root.dataset.frame = v.i; v.root.dataset.deal = f.deal; v.root.dataset.events = f.events;
    const sc = f.final ? f.gameScores : (f.scoresAfter || f.scores);
    const board = el("table", { class: "scores" },
      el("caption", { text: f.final ? "Final scores" : f.scoresAfter ? "Scores after this deal" : "Scores before this deal" }),
      el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "side" }), el("th", { scope: "col", text: "seats" }), el("th", { scope: "col", text: "score" }))),
      el("tbody", {}, ...[0, 1].map((s) => el("tr", {}, el("th", { scope: "row", text: s === 0 ? "N+S" : "E+W" }),
        el("td", { class: "l", text: who(s) + " + " + who(s + 2) }), el("td", { class: "score", "data-side": s, text: String(sc[s]) })))));
    v.body.append(board);
    const info = [];
    info.push("dealer " + who(f.dealer));
    if (f.redeal) info.push("void: everyone passed");
    else if (f.maker !== null && f.phase !== "bid") info.push("maker " + who(f.maker) + " at " + f.bid + (f.inDark ? " in the dark (worth " + v.profile.dark_bid + ")" : ""));
    if (f.trump) info.push("trump " + SUIT_NAME[f.trump]);
    v.body.append(el("p", { class: "dealinfo", text: "Deal " + (f.deal + 1) + ": " + info.join("; ") + "." }));
    const rows = [0, 1, 2, 3].map((s) => {
      const hand = sw.mine(s) ? cards(f.hands[s]) : backs(f.hands[s].length);
      const after = f.phase !== "bid" && f.phase !== "dark" && f.phase !== "trump" && !f.redeal || f.discarded[s].length > 0 || f.received[s].length > 0;
      const disc = !after ? el("span", { text: "-" }) : sw.mine(s) ? cards(f.discarded[s]) : el("span", { text: f.discarded[s].length + " cards" });
      const recv = !after ? el("span", { text: "-" }) : sw.mine(s) ? cards(f.received[s]) : el("span", { text: f.received[s].length + " cards" });
      const dealt = sw.mine(s) ? cards(f.dealt[s]) : el("span", { text: f.dealt[s].length + " cards" });
      return el("tr", { "data-seat": s, class: seat === s ? "me" : "" },
        el("th", { scope: "row", class: "l", text: who(s) + (s === f.dealer ? " (dealer)" : "") + (f.sitting.includes(s) ? " (sitting out)" : "") }),
        el("td", { class: "l" }, hand), el("td", { class: "l" }, dealt), el("td", { class: "l" }, disc), el("td", { class: "l" }, recv),
        f.shown ? el("td", { class: "l shown" }, cards(f.shown[s])) : null);
    });
    const heads = ["seat", "hand", "dealt", "discarded", "received", ...(f.shown ? ["face up (public)"] : [])];
    v.body.append(el("table", { class: "hands" }, el("caption", { text: seat === null ? "Hands (omniscient)" : "Hands as " + who(seat) + " knows them" }),
      el("thead", {}, el("tr", {}, ...heads.map((h) => el("th", { scope: "col", class: "l", text: h })))),
      el("tbody", {}, ...rows)));
    const bids = f.bids.map((b) => who(b.seat) + ": " + (b.amount ? b.amount + (b.suit ? SUIT_SIGN[b.suit] : "") : "pass") + (b.forced ? " (forced)" : "")).join(", ");
    if (f.dark) v.body.append(el("p", { class: "dark", text: "In the dark, before the deal: "
      + (f.dark.map((b) => who(b.seat) + ": " + (b.amount ? b.amount : "no")).join(", ") || "not started") + "." }));
    v.body.append(el("p", { class: "bids", text: "Bidding: " + (bids || (f.inDark ? "none (the bid in the dark closed it)" : "not started")) + "." }));
    if (f.widows.some((w) => w.length)) v.body.append(el("p", { class: "widows" }, "Widows still face down: ",
      ...[0, 1, 2, 3].filter((s) => f.widows[s].length).map((s) => el("span", { class: "play" }, SEAT_NAME[s] + " ",
        seat === null ? cards(f.widows[s]) : backs(f.widows[s].length)))));
    if (sw.robStock) {
      v.body.append(el("p", { class: "rob" }, f.phase === "rob" ? "Stock the dealer robs: " : "Stock the dealer robbed: ", cards(sw.robStock),
        f.phase === "rob" ? "" : " took: ", f.phase === "rob" ? "" : cards(sw.robTaken)));
    }
    if (f.kitty.length) v.body.append(el("p", { class: "kitty" }, "Kitty (face down, for the maker): ",
      seat === null ? cards(f.kitty) : backs(f.kitty.length)));
    if (sw.stock !== null && f.phase !== "bid" && f.phase !== "dark" && !f.redeal) v.body.append(el("p", { class: "stock" }, "Stock now: ", cards(sw.stock), " Discard pile: ", cards(sw.pile)));
    const outPoints = seat === null && f.out && f.trump ? f.out.filter(([, c]) => pointsOf(c, f.trump, v.profile.points, v.profile.off_jack_trump)) : [];
    if (outPoints.length) {
      v.body.append(el("p", { class: "out" }, "Point cards out of play (in no hand when play began): ",
        ...outPoints.map(([s, c]) => el("span", { class: "play" }, card(c), s < 0 ? " never dealt" : " laid away by " + SEAT_NAME[s]))));
    }
    if (f.tricks.length) {
      v.body.append(el("table", { class: "tricks" }, el("caption", { text: "Tricks" }),
        el("thead", {}, el("tr", {}, ...["trick", "leader", "plays", "winner"].map((h) => el("th", { scope: "col", class: "l", text: h })))),
        el("tbody", {}, ...f.tricks.map((t, k) => el("tr", {}, el("th", { scope: "row", text: String(k + 1) }), el("td", { class: "l", text: who(t.leader) }),
          el("td", { class: "l" }, ...t.plays.map((p) => el("span", { class: "play" }, SEAT_NAME[p.seat] + " ", card(p.card),
            ...(p.under.length ? [" under: ", cards(p.under)] : [])))),
          el("td", { class: "l", text: t.winner === null ? "" : who(t.winner) }))))));
    }
    if (f.points) v.body.append(el("p", { class: "result", text: "Points " + f.points[0] + " - " + f.points[1]
      + (f.lost ? " (" + f.lost + " out of play, for nobody)" : "") + "; bidders " + (f.made ? "made it" : "set") + "." }));
    if (f.redeal) v.body.append(el("p", { class: "result", text: "Everyone passed: a void deal, dealt again by the next dealer." }));
    if (f.previous.length) {
      v.body.append(el("table", { class: "deals" }, el("caption", { text: "Deals played" }),
        el("thead", {}, el("tr", {}, ...["deal", "maker", "bid", "trump", "points", "made", "scores after"].map((h) => el("th", { scope: "col", text: h })))),
        el("tbody", {}, ...f.previous.map((p) => el("tr", {}, el("td", { text: String(p.index + 1) }),
          el("td", { class: "l", text: p.redeal ? "void (all passed)" : who(p.maker) }),
          el("td", { text: p.redeal ? "-" : String(p.bid) }), el("td", { text: p.redeal ? "-" : SUIT_SIGN[p.trump] }), el("td", { text: p.points.join(" - ") }),
          el("td", { text: p.redeal ? "-" : p.made ? "yes" : "set" }), el("td", { text: p.scoresAfter.join(" - ") }))))));
    }
    for (const b of v.buttons) b.disabled = (b.way < 0 && v.i === 0) || (b.way > 0 && v.i === v.frames.length - 1);
    if (v.onmove) v.onmove(v);
  }

  /** Index of the first frame of each deal, to jump deal by deal. */
  function dealStarts(frames) {
    const out = [];
    frames.forEach((f, i) => { if (f.events === 0 && !f.final) out.push(i); });
    return out;
  }

  function makeViewer(root, game) {
    const r = framesOf(game);
    const v = { root: root, game: game, frames: r.frames, profile: r.profile, i: 0, seat: null, buttons: [] };
    v.starts = dealStarts(v.frames);
    root.replaceChildren();
    root.classList.add("viewer");
    const plain = { "saved game": "A saved game", record: "A game record" }[game.id];
    root.append(el("h2", { text: game.title || plain || "Game " + game.id }));
    root.append(el("p", { class: "rules small", text: profileText(r.profile) }));
    if (r.warnings.length) {
      root.append(el("div", { class: "warn", role: "alert" }, el("strong", { text: "The record disagrees with the rules: " }),
        el("ul", {}, ...r.warnings.map((w) => el("li", { text: w })))));
    }
    const seatBox = el("fieldset", { class: "seats" }, el("legend", { text: "Point of view" }));
    const group = "pov-" + Math.random().toString(36).slice(2);
    [null, 0, 1, 2, 3].forEach((s) => {
      const id = group + "-" + (s === null ? "all" : s);
      const input = el("input", { type: "radio", name: group, id: id, value: s === null ? "all" : String(s) });
      if (s === null) input.checked = true;
      input.addEventListener("change", () => { v.seat = s; render(v); });
      seatBox.append(input, el("label", { for: id, text: s === null ? "omniscient" : SEAT_NAME[s] + (game.names[s] ? " " + game.names[s] : "") }));
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
        PageDown: () => v.deal(1), PageUp: () => v.deal(-1), o: () => v.setSeat(null),
        0: () => v.setSeat(0), 1: () => v.setSeat(1), 2: () => v.setSeat(2), 3: () => v.setSeat(3) };
      if (map[e.key]) { map[e.key](); e.preventDefault(); return true; }
      return false;
    };
    /* Where this frame stands, for the twin to follow: (deal, step within the deal). */
    v.place = () => { const f = v.frames[v.i]; return { deal: f.deal, step: v.i - v.starts[v.starts.filter((s) => s <= v.i).length - 1], final: !!f.final }; };
    v.follow = (p) => {
      if (p.final) return v.go(v.frames.length - 1);
      const k = v.frames.findIndex((f) => f.deal === p.deal && f.events === 0 && !f.final);
      if (k < 0) return v.go(v.frames.length - 1);
      const next = v.starts[v.starts.indexOf(k) + 1];
      const end = next === undefined ? v.frames.length - 2 : next - 1;
      v.go(Math.min(k + p.step, end));
    };
    render(v);
    return v;
  }

  /** Per deal, the two tables side by side: where the duplicate games went apart. */
  function compareTable(a, b) {
    const sums = (v) => v.frames[v.frames.length - 1].previous;
    const sa = sums(a), sb = sums(b);
    const n = Math.max(sa.length, sb.length);
    const rows = [];
    const desc = (p) => !p ? "not played" : p.redeal ? "void (all passed)" : SEAT_NAME[p.maker] + " " + p.bid + SUIT_SIGN[p.trump] + ", " + p.points.join("-") + (p.made ? "" : " set");
    let first = null;
    for (let k = 0; k < n; k++) {
      const x = sa[k], y = sb[k];
      const same = x && y && x.redeal === y.redeal && x.maker === y.maker && x.bid === y.bid && x.trump === y.trump && x.points[0] === y.points[0] && x.points[1] === y.points[1];
      if (!same && first === null) first = k;
      rows.push(el("tr", { class: same ? "" : "diff" }, el("td", { text: String(k + 1) }), el("td", { class: "l", text: desc(x) }),
        el("td", { class: "l", text: desc(y) }), el("td", { text: same ? "same" : "differs" })));
    }
    return el("table", { class: "compare" }, el("caption", { text: "The two tables deal by deal" + (first === null ? ": every deal went the same way" : ": first difference in deal " + (first + 1)) }),
      el("thead", {}, el("tr", {}, ...["deal", "this game: maker bid trump, points", "twin", ""].map((h) => el("th", { scope: "col", class: "l", text: h })))),
      el("tbody", {}, ...rows));
  }

  /* ------------------------------------------------------------ loading */

  const pending = {};
  /** Called by records/<id>.js files. */
  window.cinchRecord = function (id, data) { (pending[id] || []).forEach((f) => f(data)); delete pending[id]; };
  function loadRecord(src, id) {
    return new Promise((resolve, reject) => {
      (pending[id] = pending[id] || []).push(resolve);
      const s = document.createElement("script");
      s.src = src;
      s.onerror = () => reject(new Error("cannot load " + src));
      document.head.append(s);
    });
  }

  const api = { viewers: [], framesOf: framesOf, parseText: parseText, profileOf: profileOf };
  window.cinchViewer = api;

  function showError(where, e) {
    where.replaceChildren(el("p", { class: "warn", role: "alert", text: "Cannot show this game: " + e.message }));
  }

  function mount(box, games, twinSrc) {
    api.viewers = [];
    box.replaceChildren();
    const main = el("section", { class: "panel", "aria-label": "game" });
    box.append(main);
    const v = makeViewer(main, games[0]);
    api.viewers.push(v);
    const twinGame = games.length > 1 ? games[1] : null;
    const ctl = el("p", { class: "twinctl" });
    box.before(ctl);
    const showTwin = (g) => {
      const side = el("section", { class: "panel", "aria-label": "duplicate twin" });
      box.append(side);
      g.title = "Twin " + g.id + " (same deals, partnerships swapped)";
      const t = makeViewer(side, g);
      api.viewers[1] = t;
      const link = el("label", {}, el("input", { type: "checkbox", checked: "checked" }), " keep the twin at the same deal");
      const cb = link.querySelector("input");
      ctl.replaceChildren(link);
      v.onmove = () => { if (cb.checked) t.follow(v.place()); };
      v.onmove(v);
      box.classList.add("two");
      box.after(compareTable(v, t));
    };
    if (twinGame || twinSrc) {
      const b = el("button", { type: "button", text: "Show the duplicate twin side by side (t)" });
      b.addEventListener("click", () => {
        ctl.replaceChildren(el("span", { text: "loading the twin..." }));
        if (twinGame) showTwin(twinGame);
        else loadRecord(twinSrc.src, twinSrc.id).then((d) => showTwin(gamesFrom(d)[0])).catch((e) => showError(ctl, e));
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
    if (box && box.dataset.record) {
      box.replaceChildren(el("p", { text: "loading the record..." }));
      loadRecord(box.dataset.record, box.dataset.id).then((d) => {
        const twin = box.dataset.twin ? { src: box.dataset.twin, id: box.dataset.twinId } : null;
        mount(box, gamesFrom(d), twin);
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
            delete target.dataset.record;
            document.querySelectorAll(".twinctl, table.compare").forEach((n) => n.remove());
            target.classList.remove("two");
            const rest = games.filter((g, j) => j !== k && g.id === games[k].twin);
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
