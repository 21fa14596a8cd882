/* The exact solver's compiled core: the same trick rules as cinch_bot.sim.PlayState, on bitmasks.
 *
 * cinch_bot/solver.py is the reference (and the fallback where this module is not built): both
 * return, for every legal card of a position with every hand known, the exact points difference
 * (side 0 minus side 1) of the rest of the deal under best play, so both give the same answers.
 * The rules here are a port of PlayState.legal/play/_close/_start_trick/_next_in_trick (follow,
 * trumps-only, oregon and monterey play, long hands that put their weakest pointless trumps
 * under the first trick); tests/bots/test_solver.py compares the two on many positions of every
 * four-seat profile.
 *
 * Search: fail-soft alpha-beta on the remaining difference; a transposition table of bounds at
 * trick starts (keyed on the four hands, the leader and the tricks played); the table's move
 * first, then a fixed order; cards of one hand that no other card in play separates (same suit,
 * no points, adjacent) are searched once; a position whose remaining points cannot reach the
 * window is cut at once.
 *
 * SOURCE_SHA256 (set by setup.py) is the SHA-256 of this file: cinch_bot.solver loads the module
 * only when it matches the source it ships, so a bot's identity (which covers the source) covers
 * the code it runs.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#ifndef SOURCE_SHA256
#define SOURCE_SHA256 ""
#endif

#define NC 53
#define INF 10000
enum { M_FOLLOW = 0, M_TRUMPS_ONLY = 1, M_OREGON = 2, M_MONTEREY = 3 };

typedef struct {
    int8_t power[NC]; /* twice the trump power (the off-jack's 9.5 is 19); -1 for a plain card */
    int8_t esuit[NC]; /* the suit a card follows as (4: none) */
    int8_t rank[NC];  /* c % 13 */
    int16_t cap[NC];  /* points the trick winner takes */
    uint64_t trumps, pointless, capmask, suitmask[5];
    int8_t order[5][16]; /* per effective suit, its cards strongest first */
    int norder[5];
    int trump, mode, oregon, ranked, tricks, first_trump;
} Rules;

typedef struct {
    uint64_t hand[4];
    int8_t tseat[4], tcard[4];
    int8_t in_trick[4];
    int8_t ntrick, nin; /* nin: -1 where every seat plays every trick (follow) */
    int8_t to_act, tricks_done, over;
} State;

#define KW 6 /* key words: each seat's cards by relative position, where the point cards sit, which they are */
typedef struct {
    uint64_t h[KW];
    uint32_t gen;
    int16_t lb, ub;
    int8_t leader, td, best, used;
} Entry;

#define TT_BITS 14
#define TT_SIZE (1u << TT_BITS)
#define TT_PROBE 8
#define TT_MIN_CARDS 0 /* endings of two tricks are searched again: cheaper than a probe's cache miss */

typedef struct {
    PyObject_HEAD
    Rules r;
    Entry *tt;
    uint32_t gen;
    long long nodes, limit; /* positions searched in this call, and the most it may search */
    int aborted;
} Core;

static inline int popcnt(uint64_t x) { return __builtin_popcountll(x); }
static inline int lowbit(uint64_t x) { return __builtin_ctzll(x); }

/* ---- the trick rules (PlayState) ---- */

static inline int strength(const Rules *r, int c, int led) {
    int p = r->power[c];
    if (p >= 0) return 100 + p;
    return r->esuit[c] == led ? r->rank[c] : -1;
}

static int is_done(const Rules *r, const State *s) {
    return s->nin >= 0 ? s->over : s->tricks_done >= r->tricks;
}

static int active(const Rules *r, const State *s, int seat) {
    return r->oregon ? s->hand[seat] != 0 : (s->hand[seat] & r->trumps) != 0;
}

static void start_trick(const Rules *r, State *s, int leader) {
    int any = 0;
    for (int x = 0; x < 4; x++) any |= active(r, s, x);
    if (!any) {
        s->nin = 0;
        s->over = 1;
        return;
    }
    while (!active(r, s, leader)) leader = (leader + 1) % 4;
    s->nin = 0;
    for (int i = 0; i < 4; i++) {
        int x = (leader + i) % 4;
        if (active(r, s, x)) s->in_trick[s->nin++] = (int8_t)x;
    }
    s->to_act = (int8_t)leader;
}

static uint64_t legal_follow(const Rules *r, uint64_t hand, int led_card) {
    if (led_card < 0) return hand;
    int led = r->esuit[led_card];
    if (led == r->trump) {
        uint64_t t = hand & r->trumps;
        return t ? t : hand;
    }
    uint64_t f = hand & r->suitmask[led];
    if (f) return f | (hand & r->trumps);
    return hand;
}

static uint64_t legal(const Rules *r, const State *s) {
    uint64_t hand = s->hand[s->to_act], tops;
    int lead = s->ntrick ? s->tcard[0] : -1;
    if (s->nin < 0) {
        tops = legal_follow(r, hand, lead);
    } else if (!r->oregon || (lead >= 0 && r->esuit[lead] == r->trump)) {
        tops = hand & r->trumps;
    } else if (lead < 0) {
        uint64_t t = (r->first_trump && s->tricks_done == 0) ? (hand & r->trumps) : 0;
        tops = t ? t : hand;
    } else if (r->ranked) {
        tops = legal_follow(r, hand, lead);
    } else {
        tops = hand;
    }
    int n = popcnt(hand);
    if (s->tricks_done == 0 && n > r->tricks) {
        int need = n - r->tricks, pool = popcnt(hand & r->pointless);
        uint64_t keep = 0, m = tops;
        while (m) {
            int c = lowbit(m);
            m &= m - 1;
            if (pool - (int)((r->pointless >> c) & 1) >= need) keep |= 1ull << c;
        }
        if (keep) tops = keep;
    }
    return tops;
}

/* Close the trick for ``winner``: the side-0-minus-side-1 points it takes. */
static int close_trick(const Rules *r, State *s, int winner) {
    int pts = 0;
    for (int i = 0; i < s->ntrick; i++) pts += r->cap[(int)s->tcard[i]];
    s->ntrick = 0;
    s->tricks_done++;
    s->to_act = (int8_t)winner;
    if (s->nin >= 0) start_trick(r, s, winner);
    return winner % 2 == 0 ? pts : -pts;
}

static int next_in_trick(const Rules *r, State *s) {
    int trump_led = r->esuit[(int)s->tcard[0]] == r->trump;
    for (;;) {
        int n = s->ntrick;
        if (n == s->nin) {
            int win = 0;
            if (r->ranked) {
                int led = r->esuit[(int)s->tcard[0]], best = -1000;
                for (int i = 0; i < n; i++) {
                    int st = strength(r, s->tcard[i], led);
                    if (st > best) best = st, win = i;
                }
                return close_trick(r, s, s->tseat[win]);
            }
            int best = -1000;
            for (int i = 0; i < n; i++) {
                int p = r->power[(int)s->tcard[i]];
                if (p > best) best = p, win = i;
            }
            return close_trick(r, s, best >= 0 ? s->tseat[win] : s->tseat[0]);
        }
        int nxt = s->in_trick[n];
        if (r->oregon && trump_led && !(s->hand[nxt] & r->trumps)) {
            s->hand[nxt] = 0;
            int k = 0;
            for (int i = 0; i < s->nin; i++)
                if (s->in_trick[i] != nxt) s->in_trick[k++] = s->in_trick[i];
            s->nin = (int8_t)k;
            continue;
        }
        s->to_act = (int8_t)nxt;
        return 0;
    }
}

/* Play ``card`` for the seat to act; the side-0-minus-side-1 points a closed trick takes. */
static int play(const Rules *r, State *s, int card) {
    int seat = s->to_act;
    uint64_t hand = s->hand[seat] & ~(1ull << card);
    int left = popcnt(hand);
    if (s->tricks_done == 0 && left >= r->tricks) {
        int n = left - r->tricks + 1;
        uint64_t pool = hand & r->pointless;
        if (popcnt(pool) < n) pool = hand & r->trumps;
        /* the n weakest of the pool by power (choose_under) */
        const int8_t *ord = r->order[r->trump];
        for (int i = r->norder[r->trump] - 1; i >= 0 && n > 0; i--) {
            int c = ord[i];
            if ((pool >> c) & 1) {
                hand &= ~(1ull << c);
                n--;
            }
        }
    }
    s->hand[seat] = hand;
    s->tseat[(int)s->ntrick] = (int8_t)seat;
    s->tcard[(int)s->ntrick] = (int8_t)card;
    s->ntrick++;
    if (s->nin >= 0) return next_in_trick(r, s);
    if (s->ntrick < 4) {
        s->to_act = (int8_t)((seat + 1) % 4);
        return 0;
    }
    int led = r->esuit[(int)s->tcard[0]], best = -1000, win = 0;
    for (int i = 0; i < 4; i++) {
        int st = strength(r, s->tcard[i], led);
        if (st > best) best = st, win = i;
    }
    return close_trick(r, s, s->tseat[win]);
}

/* ---- search ---- */

/* The legal cards worth searching, in search order: of cards no other card in play separates
 * (same effective suit, no points, adjacent by strength, in this hand) only the strongest;
 * strongest first. Outside a long hand's first trick only (its under rule reads the cards). */
static int moves(const Rules *r, const State *s, uint64_t lm, int8_t *out, int8_t *rep_of) {
    uint64_t hand = s->hand[s->to_act];
    int longhand = s->tricks_done == 0 && popcnt(hand) > r->tricks;
    uint64_t live = s->hand[0] | s->hand[1] | s->hand[2] | s->hand[3];
    for (int i = 0; i < s->ntrick; i++) live |= 1ull << s->tcard[i];
    int suits[4], ns = 0, k = 0;
    suits[ns++] = r->trump; /* trumps first, then the plain suits */
    for (int su = 0; su < 4; su++)
        if (su != r->trump) suits[ns++] = su;
    for (int j = 0; j < ns; j++) {
        int su = suits[j], prev = -1; /* prev: the searched card an adjacent pointless card of mine equals */
        uint64_t mine = lm & r->suitmask[su];
        if (!mine) continue;
        for (int i = 0; i < r->norder[su] && mine; i++) {
            int c = r->order[su][i];
            if (!((live >> c) & 1)) continue;
            mine &= ~(1ull << c);
            int free = r->cap[c] == 0;
            if ((lm >> c) & 1) {
                if (prev >= 0 && free && !longhand) {
                    if (rep_of) rep_of[c] = (int8_t)prev;
                } else {
                    out[k++] = (int8_t)c;
                    if (rep_of) rep_of[c] = (int8_t)c;
                    prev = free ? c : -1;
                }
            } else {
                prev = -1;
            }
        }
    }
    return k;
}

static int remaining_points(const Rules *r, const State *s) {
    uint64_t m = (s->hand[0] | s->hand[1] | s->hand[2] | s->hand[3]) & r->capmask;
    int pts = 0;
    while (m) {
        pts += r->cap[lowbit(m)];
        m &= m - 1;
    }
    for (int i = 0; i < s->ntrick; i++) pts += r->cap[(int)s->tcard[i]];
    return pts;
}

/* The key of a trick-start position by relative ranks: per seat, a mask of positions (suit * 16 +
 * the card's place among the suit's cards still in play, strongest first), the positions of the
 * point cards and which point cards are still in play. Positions that differ only in which
 * pointless cards were played before share it: their values are equal. */
static void tt_key(const Rules *r, const State *s, uint64_t *k) {
    k[0] = k[1] = k[2] = k[3] = k[4] = 0;
    uint64_t live = s->hand[0] | s->hand[1] | s->hand[2] | s->hand[3];
    k[5] = live & r->capmask;
    for (int su = 0; su < 4; su++) {
        int idx = su * 16;
        if (!(live & r->suitmask[su])) continue;
        for (int i = 0; i < r->norder[su]; i++) {
            int c = r->order[su][i];
            uint64_t b = 1ull << c;
            if (!(live & b)) continue;
            uint64_t pos = 1ull << idx++;
            int owner = (s->hand[0] & b) ? 0 : (s->hand[1] & b) ? 1 : (s->hand[2] & b) ? 2 : 3;
            k[owner] |= pos;
            if (r->cap[c]) k[4] |= pos;
        }
    }
}

static inline uint32_t tt_hash(const uint64_t *k, const State *s) {
    uint64_t h = k[0] * 0x9E3779B97F4A7C15ull;
    h ^= (k[1] + 0x632BE59BD9B4E019ull) * 0xBF58476D1CE4E5B9ull;
    h ^= (k[2] + 0x8CB92BA72F3D8DD7ull) * 0x94D049BB133111EBull;
    h ^= (k[3] + 0x2545F4914F6CDD1Dull) * 0xD6E8FEB86659FD93ull;
    h ^= (k[4] ^ (k[5] * 0xFF51AFD7ED558CCDull)) * 0xC4CEB9FE1A85EC53ull;
    h ^= (uint64_t)(s->to_act * 16 + s->tricks_done) * 0xA0761D6478BD642Full;
    h ^= h >> 29;
    return (uint32_t)(h >> 32);
}

/* Search order: a cheap guess of each card's merit for the seat to act, best first. */
static void order_moves(const Rules *r, const State *s, int8_t *mv, int n) {
    int score[NC];
    int side = s->to_act % 2;
    int led = s->ntrick ? r->esuit[(int)s->tcard[0]] : -1;
    int win_seat = -1, win_str = -1000, pts = 0;
    for (int i = 0; i < s->ntrick; i++) {
        int st = s->nin >= 0 && !r->ranked ? r->power[(int)s->tcard[i]] : strength(r, s->tcard[i], led);
        if (st > win_str) win_str = st, win_seat = s->tseat[i];
        pts += r->cap[(int)s->tcard[i]];
    }
    int last = s->nin >= 0 ? s->ntrick == s->nin - 1 : s->ntrick == 3;
    for (int i = 0; i < n; i++) {
        int c = mv[i], cap = r->cap[c];
        int st = s->nin >= 0 && !r->ranked ? r->power[c] : strength(r, c, led < 0 ? r->esuit[c] : led);
        int sc;
        if (!s->ntrick) { /* lead: strong trumps first, then strong plain cards, points last */
            sc = st - 8 * cap;
        } else if (win_seat % 2 == side) { /* the partner wins so far: add points, else throw low */
            sc = last ? 300 + 10 * cap - st : 200 + 10 * cap - st;
        } else if (st > win_str) { /* win it: cheaply, with points when last */
            sc = last ? 400 + 10 * cap - st : 300 + pts - st;
        } else { /* lose it: cheaply */
            sc = -10 * cap - st;
        }
        score[i] = sc;
    }
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && score[j] > score[j - 1]; j--) {
            int t = score[j];
            score[j] = score[j - 1], score[j - 1] = t;
            int8_t m = mv[j];
            mv[j] = mv[j - 1], mv[j - 1] = m;
        }
}

static int search(Core *co, const State *s, int alpha, int beta) {
    const Rules *r = &co->r;
    if (++co->nodes > co->limit) { /* over the budget: every caller unwinds, nothing is stored */
        co->aborted = 1;
        return 0;
    }
    if (is_done(r, s)) return 0;
    int rem = remaining_points(r, s);
    if (rem == 0) return 0;
    if (rem <= alpha) return rem;
    if (-rem >= beta) return -rem;
    if (s->tricks_done > 0) { /* the strongest trumps still in play, held by one side, take their points */
        uint64_t hands = s->hand[0] | s->hand[1] | s->hand[2] | s->hand[3];
        const int8_t *ord = r->order[r->trump];
        int side = -1, sure = 0;
        for (int i = 0; i < r->norder[r->trump]; i++) {
            int c = ord[i], own = -1;
            uint64_t b = 1ull << c;
            if (hands & b) {
                own = (s->hand[0] & b) ? 0 : (s->hand[1] & b) ? 1 : (s->hand[2] & b) ? 2 : 3;
            } else {
                for (int j = 0; j < s->ntrick; j++)
                    if (s->tcard[j] == c) own = s->tseat[j];
                if (own < 0) continue;
            }
            if (side < 0) side = own % 2;
            if (own % 2 != side) break;
            sure += r->cap[c];
        }
        if (sure) {
            int lo = 2 * sure - rem, hi = rem - 2 * sure; /* the difference, as side 0 sees it */
            if (side == 0) {
                if (lo >= beta) return lo;
            } else {
                if (hi <= alpha) return hi;
            }
        }
    }
    Entry *e = NULL;
    int tt_move = -1;
    uint64_t key[KW];
    if (s->ntrick == 0) {
        tt_key(r, s, key);
        uint32_t h = tt_hash(key, s);
        for (int i = 0; i < TT_PROBE; i++) {
            Entry *x = &co->tt[(h + i) & (TT_SIZE - 1)];
            if (x->gen != co->gen) {
                if (!e) e = x;
                break;
            }
            if (!memcmp(x->h, key, sizeof key) && x->leader == s->to_act && x->td == s->tricks_done) {
                if (x->lb >= beta) return x->lb;
                if (x->ub <= alpha) return x->ub;
                if (x->lb == x->ub) return x->lb;
                if (x->lb > alpha) alpha = x->lb;
                if (x->ub < beta) beta = x->ub;
                tt_move = x->best;
                e = x;
                break;
            }
        }
        if (!e) e = &co->tt[h & (TT_SIZE - 1)]; /* every probe slot taken: replace the first */
    }
    int8_t mv[NC];
    int n = moves(r, s, legal(r, s), mv, NULL);
    if (n == 0) return 0; /* (an inconsistent position: a seat to act with nothing to play) */
    order_moves(r, s, mv, n);
    if (tt_move >= 0) {
        for (int i = 0; i < n; i++)
            if (mv[i] == tt_move) {
                memmove(mv + 1, mv, (size_t)i);
                mv[0] = (int8_t)tt_move;
                break;
            }
    }
    int maximise = s->to_act % 2 == 0;
    int a0 = alpha, b0 = beta;
    int best = maximise ? -INF : INF, best_move = mv[0];
    for (int i = 0; i < n; i++) {
        State child = *s;
        int d = play(r, &child, mv[i]);
        int v = d + search(co, &child, alpha - d, beta - d);
        if (co->aborted) return 0;
        if (maximise) {
            if (v > best) best = v, best_move = mv[i];
            if (v > alpha) alpha = v;
        } else {
            if (v < best) best = v, best_move = mv[i];
            if (v < beta) beta = v;
        }
        if (alpha >= beta) break;
    }
    if (e) {
        int same = e->gen == co->gen && !memcmp(e->h, key, sizeof key) && e->leader == s->to_act &&
                   e->td == s->tricks_done;
        if (!same) {
            memcpy(e->h, key, sizeof key);
            e->gen = co->gen;
            e->leader = s->to_act;
            e->td = s->tricks_done;
            e->lb = -INF;
            e->ub = INF;
        }
        if (best <= a0) {
            if (best < e->ub) e->ub = (int16_t)best;
        } else if (best >= b0) {
            if (best > e->lb) e->lb = (int16_t)best;
        } else {
            e->lb = e->ub = (int16_t)best;
        }
        e->best = (int8_t)best_move;
    }
    return best;
}

/* The exact value by null-window probes from a first guess (MTD(f): the table keeps the bounds). */
static int exact(Core *co, const State *s, int guess) {
    int rem = is_done(&co->r, s) ? 0 : remaining_points(&co->r, s);
    int lo = -rem, hi = rem, g = guess < lo ? lo : guess > hi ? hi : guess;
    while (lo < hi) {
        int beta = g == lo ? g + 1 : g;
        int v = search(co, s, beta - 1, beta);
        if (co->aborted) return 0;
        if (v < beta)
            hi = v;
        else
            lo = v;
        g = v;
    }
    return lo;
}

/* ---- Python interface ---- */

static void Core_dealloc(Core *self) {
    PyMem_Free(self->tt);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int read_bytes(PyObject *o, int8_t *dst, int n, const char *what) {
    if (!PyBytes_Check(o) || PyBytes_GET_SIZE(o) != n) {
        PyErr_Format(PyExc_ValueError, "%s: %d bytes expected", what, n);
        return -1;
    }
    memcpy(dst, PyBytes_AS_STRING(o), (size_t)n);
    return 0;
}

/* Core(power2, esuit, cap, trump, mode, tricks, first_trump): power2/esuit/cap are 53 signed
 * bytes each (twice the trump power, -1 plain; effective suit; captured points). */
static int Core_init(Core *self, PyObject *args, PyObject *kw) {
    (void)kw;
    PyObject *pw, *es, *cp;
    int trump, mode, tricks, first_trump;
    if (!PyArg_ParseTuple(args, "OOOiiip", &pw, &es, &cp, &trump, &mode, &tricks, &first_trump)) return -1;
    Rules *r = &self->r;
    memset(r, 0, sizeof *r);
    int8_t capb[NC];
    if (read_bytes(pw, r->power, NC, "power2") || read_bytes(es, r->esuit, NC, "esuit") ||
        read_bytes(cp, capb, NC, "cap"))
        return -1;
    if (trump < 0 || trump > 3 || mode < 0 || mode > 3 || tricks < 1 || tricks > 13) {
        PyErr_SetString(PyExc_ValueError, "trump 0-3, mode 0-3, tricks 1-13");
        return -1;
    }
    r->trump = trump;
    r->mode = mode;
    r->oregon = mode == M_OREGON || mode == M_MONTEREY;
    r->ranked = mode == M_MONTEREY;
    r->tricks = tricks;
    r->first_trump = first_trump;
    for (int c = 0; c < NC; c++) {
        r->rank[c] = (int8_t)(c % 13);
        r->cap[c] = capb[c];
        int su = r->esuit[c];
        if (su < 0 || su > 4) {
            PyErr_SetString(PyExc_ValueError, "esuit 0-4");
            return -1;
        }
        if (r->power[c] >= 0) r->trumps |= 1ull << c;
        if (r->cap[c]) r->capmask |= 1ull << c;
        r->suitmask[su] |= 1ull << c;
    }
    /* each suit's cards strongest first: trumps by power, plain cards by rank */
    for (int su = 0; su < 5; su++) {
        int n = 0;
        for (int c = 0; c < NC; c++)
            if (r->esuit[c] == su) {
                if (n == 16) {
                    PyErr_SetString(PyExc_ValueError, "more than 16 cards of one suit");
                    return -1;
                }
                r->order[su][n++] = (int8_t)c;
            }
        for (int i = 1; i < n; i++)
            for (int j = i; j > 0; j--) {
                int a = r->order[su][j - 1], b = r->order[su][j];
                int ka = r->power[a] >= 0 ? 100 + r->power[a] : r->rank[a];
                int kb = r->power[b] >= 0 ? 100 + r->power[b] : r->rank[b];
                if (kb > ka) {
                    r->order[su][j - 1] = (int8_t)b;
                    r->order[su][j] = (int8_t)a;
                }
            }
        r->norder[su] = n;
    }
    self->gen = 0;
    if (!self->tt) {
        self->tt = PyMem_Calloc(TT_SIZE, sizeof(Entry));
        if (!self->tt) {
            PyErr_NoMemory();
            return -1;
        }
    }
    return 0;
}

/* The pointless trumps: set after init (points, not captured: Low stays with its holder). */
static PyObject *Core_set_pointless(Core *self, PyObject *arg) {
    uint64_t m = PyLong_AsUnsignedLongLongMask(arg);
    if (PyErr_Occurred()) return NULL;
    self->r.pointless = m & self->r.trumps;
    Py_RETURN_NONE;
}

static int read_state(PyObject *const *args, State *s) {
    unsigned long long h[4];
    for (int i = 0; i < 4; i++) {
        h[i] = PyLong_AsUnsignedLongLong(args[i]);
        if (PyErr_Occurred()) return -1;
        if (h[i] >> NC) {
            PyErr_SetString(PyExc_ValueError, "a hand holds a card outside 0-52");
            return -1;
        }
    }
    memset(s, 0, sizeof *s);
    memcpy(s->hand, h, sizeof s->hand);
    PyObject *trick = args[4], *in_trick = args[7];
    if (!PyTuple_Check(trick) || PyTuple_GET_SIZE(trick) > 4) {
        PyErr_SetString(PyExc_ValueError, "trick: a tuple of at most 4 (seat, card) pairs");
        return -1;
    }
    s->ntrick = (int8_t)PyTuple_GET_SIZE(trick);
    for (int i = 0; i < s->ntrick; i++) {
        int seat, card;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(trick, i), "ii", &seat, &card)) return -1;
        if (seat < 0 || seat > 3 || card < 0 || card >= NC) {
            PyErr_SetString(PyExc_ValueError, "trick: seat 0-3, card 0-52");
            return -1;
        }
        s->tseat[i] = (int8_t)seat, s->tcard[i] = (int8_t)card;
    }
    long to_act = PyLong_AsLong(args[5]), td = PyLong_AsLong(args[6]);
    int over = PyObject_IsTrue(args[8]);
    if (PyErr_Occurred() || over < 0) return -1;
    if (to_act < 0 || to_act > 3 || td < 0 || td > 13) {
        PyErr_SetString(PyExc_ValueError, "to_act 0-3, tricks_done 0-13");
        return -1;
    }
    s->to_act = (int8_t)to_act, s->tricks_done = (int8_t)td, s->over = (int8_t)over;
    if (in_trick == Py_None) {
        s->nin = -1;
    } else {
        if (!PyTuple_Check(in_trick) || PyTuple_GET_SIZE(in_trick) > 4) {
            PyErr_SetString(PyExc_ValueError, "in_trick: None or a tuple of at most 4 seats");
            return -1;
        }
        s->nin = (int8_t)PyTuple_GET_SIZE(in_trick);
        for (int i = 0; i < s->nin; i++) {
            long x = PyLong_AsLong(PyTuple_GET_ITEM(in_trick, i));
            if (x < 0 || x > 3) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "in_trick: seats 0-3");
                return -1;
            }
            s->in_trick[i] = (int8_t)x;
        }
    }
    return 0;
}

static void fresh_table(Core *self, long long limit) {
    self->gen++;
    if (self->gen == 0) { /* wrapped: clear for real */
        memset(self->tt, 0, TT_SIZE * sizeof(Entry));
        self->gen = 1;
    }
    self->nodes = 0;
    self->limit = limit;
    self->aborted = 0;
}

/* solve(h0, h1, h2, h3, trick, to_act, tricks_done, in_trick, over, cards, limit) -> (result, nodes).
 * ``cards`` None: the result is the exact remaining difference (side 0 minus side 1, from this
 * position on) under best play; else a list, that difference after each of ``cards`` (legal
 * cards of the seat to act). One fresh table for the call; ``nodes`` the positions searched;
 * the result is None when the search would pass ``limit`` positions. ``guess`` (optional, 0): a
 * first guess of the (first card's) remaining difference: a good one saves a probe or two. */
static PyObject *Core_solve(Core *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 11 && nargs != 12) {
        PyErr_SetString(PyExc_TypeError, "solve takes 11 or 12 arguments");
        return NULL;
    }
    State s;
    if (read_state(args, &s) < 0) return NULL;
    long long limit = PyLong_AsLongLong(args[10]);
    long first_guess = nargs == 12 ? PyLong_AsLong(args[11]) : 0;
    if (PyErr_Occurred()) return NULL;
    if (first_guess < -INF || first_guess > INF) {
        PyErr_SetString(PyExc_ValueError, "guess: a points difference");
        return NULL;
    }
    const Rules *r = &self->r;
    fresh_table(self, limit);
    if (args[9] == Py_None) {
        int v = exact(self, &s, (int)first_guess);
        if (self->aborted) return Py_BuildValue("OL", Py_None, self->nodes);
        return Py_BuildValue("iL", v, self->nodes);
    }
    PyObject *seq = PySequence_Fast(args[9], "cards: a sequence of card numbers");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    uint64_t lm = is_done(r, &s) ? 0 : legal(r, &s);
    int8_t rep[NC], rep_of[NC];
    memset(rep_of, -1, sizeof rep_of);
    if (lm) moves(r, &s, lm, rep, rep_of);
    int have[NC], guess = (int)first_guess;
    for (int c = 0; c < NC; c++) have[c] = INF;
    int vals[NC];
    if (n > NC) n = NC + 1; /* (a card twice: refused below) */
    for (Py_ssize_t i = 0; i < n; i++) {
        long c = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (c < 0 || c >= NC || !((lm >> c) & 1) || i >= NC) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "card %ld is not legal here", c);
            Py_DECREF(seq);
            return NULL;
        }
        /* a card equal to a stronger one of the same hand has its value */
        int rc = rep_of[c] >= 0 ? rep_of[c] : (int)c;
        if (have[rc] == INF && !self->aborted) {
            State child = s;
            int d = play(r, &child, rc);
            have[rc] = d + exact(self, &child, guess - d);
            guess = have[rc];
        }
        vals[i] = have[rc];
    }
    Py_DECREF(seq);
    if (self->aborted) return Py_BuildValue("OL", Py_None, self->nodes);
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) PyList_SET_ITEM(out, i, PyLong_FromLong(vals[i]));
    PyObject *res = Py_BuildValue("OL", out, self->nodes);
    Py_DECREF(out);
    return res;
}

static PyMethodDef Core_methods[] = {
    {"solve", (PyCFunction)(void (*)(void))Core_solve, METH_FASTCALL,
     "solve(h0, h1, h2, h3, trick, to_act, tricks_done, in_trick, over, cards, limit[, guess]) -> (result, nodes)"},
    {"set_pointless", (PyCFunction)Core_set_pointless, METH_O, "the pointless trumps, as a card mask"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cinch_bot._solver.Core",
    .tp_basicsize = sizeof(Core),
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The trick rules of one trump suit and mode, with a transposition table.",
    .tp_methods = Core_methods,
    .tp_init = (initproc)Core_init,
    .tp_new = PyType_GenericNew,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_solver", "The exact solver's compiled core.", -1, NULL, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__solver(void) {
    if (PyType_Ready(&CoreType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0 ||
        PyModule_AddStringConstant(m, "SOURCE_SHA256", SOURCE_SHA256) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
