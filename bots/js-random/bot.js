// A random Cinch bot in plain JavaScript (node, no npm packages): protocol v1 over stdio.
// Uniform over legal plays; bids the minimum only with 4+ trumps including a pedro.
// All randomness comes from the harness's seeds, hello's then each game's (a small xorshift generator), never Math.random.
"use strict";

const readline = require("readline");

const SUITS = "CDHS";
let state = 0x9e3779b9;

function seedRng(seed) {
  // Fold the 64-bit seed into 32 bits; never zero (xorshift would stick).
  const big = BigInt.asUintN(64, BigInt(seed));
  state = Number((big ^ (big >> 32n)) & 0xffffffffn) || 0x9e3779b9;
}

function nextU32() {
  state ^= state << 13; state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5; state >>>= 0;
  return state;
}

function randInt(n) { return nextU32() % n; }
function choice(arr) { return arr[randInt(arr.length)]; }
function sample(arr, k) {
  const a = arr.slice();
  for (let i = a.length - 1; i > 0; i--) { const j = randInt(i + 1); [a[i], a[j]] = [a[j], a[i]]; }
  return a.slice(0, k);
}

function sister(s) { return SUITS[3 - SUITS.indexOf(s)]; }
function isTrump(card, trump) { return card === "JK" || card[1] === trump || card === "5" + sister(trump); }  // JK: the joker, always a trump
function strength(hand, trump) {
  const trumps = hand.filter((c) => isTrump(c, trump));
  const pedro = trumps.includes("5" + trump) || trumps.includes("5" + sister(trump));
  return [trumps.length, pedro ? 1 : 0];
}
function longestSuit(hand, suits) {
  let best = suits[0], key = [-1, -1];
  for (const s of suits) {
    const k = strength(hand, s);
    if (k[0] > key[0] || (k[0] === key[0] && k[1] > key[1])) { best = s; key = k; }
  }
  return best;
}

function decide(kind, view, legal) {
  if (kind === "bid") {
    const bids = legal.bids || [];
    const suit = longestSuit(view.hand, SUITS);
    const [n, pedro] = strength(view.hand, suit);
    if (legal.pass && !(bids.length && n >= 4 && pedro)) return { type: "pass" };
    if (legal.suited && legal.suited.length) {
      // Bids that name their trump: the cheapest one in the longest suit, else the cheapest.
      const mine = legal.suited.filter((o) => o.suit === suit);
      const pick = (mine.length ? mine : legal.suited).reduce((a, b) => (b.amount < a.amount ? b : a));
      return { type: "bid", amount: pick.amount, suit: pick.suit };
    }
    return { type: "bid", amount: bids[0] };
  }
  if (kind === "trump") return { type: "trump", suit: longestSuit(view.hand, legal.suits || SUITS) };
  if (kind === "rob") return { type: "rob", take: sample(legal.from, legal.take) };
  if (kind === "discard") {
    const n = legal.least + randInt(legal.most - legal.least + 1);
    return { type: "discard", cards: sample(legal.from, n) };
  }
  if (kind === "play") {
    const top = choice(legal.cards);
    if (!legal.under) return { type: "play", card: top };
    const pool = legal.under_from.filter((c) => c !== top);
    return { type: "play", card: top, under: sample(pool, legal.under) };
  }
  // A decision kind a rule profile adds: its options when listed, else the one legal action it names.
  if (Array.isArray(legal.options) && legal.options.length) return choice(legal.options);
  if (legal.any) return legal.any;
  throw new Error("unknown decision kind " + kind + " without options or any");
}

function send(obj) { process.stdout.write(JSON.stringify(obj) + "\n"); }

const rl = readline.createInterface({ input: process.stdin, terminal: false });
rl.on("line", (line) => {
  if (!line.trim()) return;
  const msg = JSON.parse(line);
  switch (msg.type) {
    case "hello":
      seedRng(msg.seed || 0);
      send({ type: "hello", protocol: 1, name: "js-random", version: "1.0" });
      break;
    case "decide":
      send({ type: "action", id: msg.id, action: decide(msg.kind, msg.view, msg.legal) });
      break;
    case "bye":
      rl.close();
      process.exit(0);
      break;
    case "game": // each game's own seed: a process kept for several games plays each as a fresh one would
      if (msg.seed !== undefined) seedRng(msg.seed);
      break;
    default:
      break; // deal, deal_end, game_end: notices
  }
});
rl.on("close", () => process.exit(0));
