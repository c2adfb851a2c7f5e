/*
 * search.c - limits, root moves and the midgame search: principal variation
 * search (negamax alpha-beta with null windows) over evaluator scores, with
 * a transposition table and move ordering (TT move, then evaluator order or
 * fastest-first near the leaves).
 */
#define _POSIX_C_SOURCE 199309L
#include "search.h"

#include <string.h>

#include "parallel.h"
#include <time.h>

u64 NEIGHBOURS[64];

Tuning tuning = {
    .mpc_gate = -1,
    .sort_mobility = 0,
    .sort_ff = 0,
    .sort_search_min = 0,
    .sort_search_depth = 0,
    .etc_min = 0,
    .mpc_phase = 0,
    .mpc_shallow = 0,
    .time_soft = 40,
    .time_predict = 0,
};

const char *const TUNING_NAMES[] = {
    "mpc_gate", "sort_mobility", "sort_search_min", "sort_search_depth", "etc_min",
    "mpc_phase", "mpc_shallow", "sort_ff", "time_soft", "time_predict", NULL,
};

static int *tuning_field(const char *name) {
    int *fields[] = {&tuning.mpc_gate, &tuning.sort_mobility, &tuning.sort_search_min,
                     &tuning.sort_search_depth, &tuning.etc_min, &tuning.mpc_phase,
                     &tuning.mpc_shallow, &tuning.sort_ff, &tuning.time_soft,
                     &tuning.time_predict};
    for (int i = 0; TUNING_NAMES[i]; ++i)
        if (strcmp(TUNING_NAMES[i], name) == 0) return fields[i];
    return NULL;
}

int tuning_set(const char *name, int value) {
    int *f = tuning_field(name);
    if (!f) return -1;
    *f = value;
    return 0;
}

int tuning_get(const char *name, int *value) {
    int *f = tuning_field(name);
    if (!f) return -1;
    *value = *f;
    return 0;
}

void search_tables_init(void) {
    for (int sq = 0; sq < 64; ++sq) NEIGHBOURS[sq] = bb_neighbours(1ULL << sq);
}

double search_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int search_init(Search *s, size_t tt_mib) {
    memset(s, 0, sizeof *s);
    atomic_init(&s->aborted, 0);
    s->ev.kind = EVAL_DEFAULT;
    s->eval_tag = TT_TAG_ORDER + 1;
    if (par_init(s) < 0) return -1;
    if (tt_init(&s->tt, tt_mib) < 0) {
        par_free(s);
        return -1;
    }
    return 0;
}

void search_free(Search *s) {
    par_free(s);
    tt_free(&s->tt);
}

void search_set_threads(Search *s, int threads, int oversubscribe) {
    s->par->nthreads = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
    s->par->oversubscribe = oversubscribe;
}

void search_stop(Search *s) { atomic_store(&s->par->stop, 1); }

void search_reset_stop(Search *s) { atomic_store(&s->par->stop, 0); }

int search_stop_requested(Search *s) { return atomic_load(&s->par->stop); }

uint64_t search_nodes(Search *s) {
    return atomic_load_explicit(&s->par->nodes, memory_order_relaxed) + (s->nodes - s->flushed);
}

void search_clear(Search *s) {
    tt_clear(&s->tt);
    memset(s->end_small, 0, sizeof s->end_small);
    for (int i = 1; i < MAX_THREADS; ++i) /* the helpers' small tables (no search runs) */
        if (s->par->thread[i]) memset(s->par->thread[i]->end_small, 0, sizeof s->end_small);
}

void search_set_evaluator(Search *s, const Evaluator *ev) {
    s->ev = *ev;
    if (s->eval_tag < 255) {
        ++s->eval_tag; /* the old evaluator's entries no longer match */
    } else {           /* the tags start again: forget the entries that would match */
        s->eval_tag = TT_TAG_ORDER + 1;
        tt_clear(&s->tt);
    }
}

void search_begin(Search *s, double time_limit, uint64_t node_limit) {
    s->nodes = 0;
    atomic_store_explicit(&s->aborted, 0, memory_order_relaxed);
    s->node_limit = node_limit;
    s->next_poll = node_limit && node_limit < 4096 ? node_limit : 4096;
    s->deadline = time_limit > 0 ? search_now() + time_limit : 0;
    tt_new_search(&s->tt);
    s->pv_len[0] = 0;
    s->end_prec = TT_PREC_EXACT;
    s->pc_t = 0;
    s->mpc_t = 0;
    s->presearch_depth = 0;
    s->fresh_cuts = 0;
    par_begin(s);
}

void search_end(Search *s) { par_end(s); }

/* Every 4096 nodes of a thread (fewer near a node limit, so that all the
 * threads together stop at it): add them to the search's count, check
 * the limits and stop(). With one thread this is the check of before: a
 * node limit is met exactly. */
void search_poll(Search *s) {
    Par *par = s->par;
    uint64_t delta = s->nodes - s->flushed;
    s->flushed = s->nodes;
    uint64_t total = atomic_fetch_add_explicit(&par->nodes, delta, memory_order_relaxed) + delta;
    uint64_t step = 4096;
    if (s->node_limit) {
        uint64_t left = total < s->node_limit ? s->node_limit - total : 0;
        uint64_t share = left / (uint64_t)par->active;
        if (share < step) step = share ? share : left ? 1 : 0;
    }
    s->next_poll = s->nodes + step;
    if (atomic_load_explicit(&par->stop, memory_order_relaxed) ||
        (s->node_limit && total >= s->node_limit) || (s->deadline && search_now() >= s->deadline))
        par_halt(s);
}

int search_root_moves(u64 P, u64 O, RootMove *moves) {
    u64 m = bb_moves(P, O);
    int n = 0;
    if (!m) {
        if (!bb_moves(O, P)) return 0;
        moves[0] = (RootMove){MOVE_PASS, -SCORE_INF, 0, 0};
        return 1;
    }
    for (; m; m &= m - 1) {
        int sq = bb_first(m);
        moves[n++] = (RootMove){sq, -SCORE_INF, 0, bb_flips(P, O, sq)};
    }
    return n;
}

/* ------------------------------------------------------------- midgame */

typedef struct {
    int sq;
    int key;
    u64 flips;
} MoveItem;

static inline int mid_terminal(u64 P, u64 O) {
    int d = final_discs(P, O);
    return d > 0 ? SCORE_WIN + d : d < 0 ? -SCORE_WIN + d : 0;
}

/* Move the best remaining item to position i. */
static inline void pick(MoveItem *list, int i, int n) {
    int b = i;
    for (int j = i + 1; j < n; ++j)
        if (list[j].key > list[b].key) b = j;
    if (b != i) {
        MoveItem t = list[i];
        list[i] = list[b];
        list[b] = t;
    }
}

static inline void pv_update(Search *s, int ply, int move) {
    if (ply + 1 >= MAX_PLY) return;
    s->pv[ply][0] = move;
    int n = s->pv_len[ply + 1];
    memcpy(&s->pv[ply][1], s->pv[ply + 1], (size_t)n * sizeof(int));
    s->pv_len[ply] = n + 1;
}

#define CORNER_MASK 0x8100000000000081ULL

/* 100 ln(n) for n = 1..40 (0 for 0): the "fastest first" order's weights. */
static const short LOG100[41] = {
    0,   0,   69,  110, 139, 161, 179, 195, 208, 220, 230, 240, 248, 256,
    264, 271, 277, 283, 289, 294, 300, 304, 309, 314, 318, 322, 326, 330,
    333, 337, 340, 343, 347, 350, 353, 356, 358, 361, 364, 366, 369,
};

/* Probable cut-offs (ProbCut): at a null-window node of depth >= MPC_MIN, a
 * search of depth mpc_shallow(depth) predicts the deep score; a prediction
 * that clears the window by mpc_t / 100 standard deviations of its error
 * (MPC_SIGMA, 1/100 disc, measured by scripts/mpc_sigma.py) cuts the node. */
#ifndef MPC_MIN
#define MPC_MIN 3
#endif
#ifndef MPC_SIGMA_TABLE /* from depth 3 on; the last value serves every deeper search */
#define MPC_SIGMA_TABLE 351, 297, 278, 380, 408, 338, 299, 375, 354, 336, 285, 330
#endif
static const int MPC_SIGMA[] = {0, 0, 0, MPC_SIGMA_TABLE};
#define MPC_SIGMA_N ((int)(sizeof MPC_SIGMA / sizeof MPC_SIGMA[0]))

static inline int mpc_shallow(int depth) {
    if (tuning.mpc_shallow == 1) {
        /* about a third of the depth, with its parity */
        int d = depth / 3;
        if ((d ^ depth) & 1) ++d;
        return d < depth - 1 ? d : depth - 2;
    }
    return 2 * (depth / 4) + (depth & 1);
}

/* The shallow search's error relative to its size at 32 empties (%): it
 * shrinks as the board fills less... measured by band of empties
 * (docs/engine.md): 127 % at 24 empties, 80 % at 40, 52 % at 56. */
static inline int mpc_phase_scale(int empties) {
    if (empties <= 24) return 127;
    if (empties <= 32) return 100 + (32 - empties) * 27 / 8;
    if (empties >= 56) return 52;
    return 100 - (empties - 32) * 2;
}

/* Standard deviations (1/100 disc) of (score at depth D) - (score at the
 * shallow depth), by depth D = 3..12 and band of empties (centres 24, 32,
 * 40, 48, 56; linear between them), for each way of choosing the shallow
 * depth (tuning.mpc_shallow): full-width searches of 800 positions from
 * games against NTest. Deeper searches use the last row. */
#define MPC_BANDS 5
static const short MPC_BAND_SIGMA[2][10][MPC_BANDS] = {
    {
        {364, 276, 267, 222, 194}, /* 3: 1 */
        {347, 243, 228, 184, 172}, /* 4: 2 */
        {333, 233, 175, 155, 150}, /* 5: 3 */
        {432, 287, 266, 214, 168}, /* 6: 2 */
        {411, 291, 209, 184, 167}, /* 7: 3 */
        {358, 271, 226, 163, 150}, /* 8: 4 */
        {306, 237, 199, 162, 117}, /* 9: 5 */
        {403, 303, 251, 189, 157}, /* 10: 4 */
        {339, 266, 211, 177, 132}, /* 11: 5 */
        {309, 264, 214, 152, 143}, /* 12: 6 */
    },
    {
        {364, 276, 267, 222, 194}, /* 3: 1 */
        {347, 243, 228, 184, 172}, /* 4: 2 */
        {450, 338, 305, 256, 204}, /* 5: 1 */
        {432, 287, 266, 214, 168}, /* 6: 2 */
        {411, 291, 209, 184, 167}, /* 7: 3 */
        {459, 341, 290, 215, 204}, /* 8: 2 */
        {450, 302, 237, 208, 177}, /* 9: 3 */
        {403, 303, 251, 189, 157}, /* 10: 4 */
        {472, 341, 247, 212, 181}, /* 11: 3 */
        {443, 318, 268, 190, 168}, /* 12: 4 */
    },
};

static inline int mpc_band_sigma(int depth, int empties) {
    const short *row = MPC_BAND_SIGMA[tuning.mpc_shallow == 1][(depth > 12 ? 12 : depth) - 3];
    if (empties <= 24) return row[0];
    if (empties >= 56) return row[MPC_BANDS - 1];
    int b = (empties - 24) / 8, t = (empties - 24) % 8;
    return (row[b] * (8 - t) + row[b + 1] * t) / 8;
}

#define MPC_NONE (-SCORE_INF)

static int mid_search(Search *s, u64 P, u64 O, int depth, int alpha, int beta, int ply, int pv);

/* Split points of the midgame search: nodes at least MID_SPLIT_MIN plies
 * from the leaves (the root too), after their first move. */
#ifndef MID_SPLIT_MIN
#define MID_SPLIT_MIN 5
#endif

/* A worker at a split point of mid_search: the loop of the node's moves
 * below the first, as mid_search runs it, with the window of the moment. */
static void mid_run(Search *t, SplitPoint *sp) {
    MoveItem *list = sp->list;
    int beta = sp->beta, depth = sp->depth, ply = sp->ply, pv = sp->pv;
    u64 P = sp->P, O = sp->O;
    while (!ABORTED(t)) {
        sp_lock(sp);
        if (sp->cut || sp->next >= sp->n) {
            sp_unlock(sp);
            break;
        }
        int i = sp->next++;
        pick(list, i, sp->n);
        MoveItem m = list[i];
        int a = sp->alpha;
        sp_unlock(sp);
        u64 nP = O & ~m.flips, nO = P | m.flips | (1ULL << m.sq);
        int v = -mid_search(t, nP, nO, depth - 1, -a - 1, -a, ply + 1, 0);
        if (v > a && v < beta && !ABORTED(t)) {
            a = par_alpha_now(sp, a);
            if (a < beta) v = -mid_search(t, nP, nO, depth - 1, -beta, -a, ply + 1, pv);
        }
        if (ABORTED(t)) break;
        par_node_record(sp, t, v, m.sq, beta, pv);
    }
}

/* beta when the shallow search predicts that the node fails high, alpha
 * when it predicts a fail low, MPC_NONE when it cannot tell (the node is
 * then searched; a stopped search returns through its move loop). */
static inline int probable_mid_cut(Search *s, u64 P, u64 O, int depth, int alpha, int beta,
                                   int ply) {
    int sigma = MPC_SIGMA[depth < MPC_SIGMA_N ? depth : MPC_SIGMA_N - 1];
    if (tuning.mpc_phase == 1) sigma = sigma * mpc_phase_scale(64 - bb_count(P | O)) / 100;
    if (tuning.mpc_phase == 2) sigma = mpc_band_sigma(depth, 64 - bb_count(P | O));
    int margin = sigma * s->mpc_t / 100, d = mpc_shallow(depth);
    int hi = beta + margin, lo = alpha - margin;
    /* the static score says which test may succeed: a shallow search far
     * from its bound is not worth its nodes */
    int gate = tuning.mpc_gate, e = gate >= 0 ? eval_evaluate(&s->ev, P, O) : 0;
    if ((gate < 0 || e >= hi - gate) && mid_search(s, P, O, d, hi - 1, hi, ply, 0) >= hi)
        return beta;
    if ((gate < 0 || e <= lo + gate) && mid_search(s, P, O, d, lo, lo + 1, ply, 0) <= lo)
        return alpha;
    return MPC_NONE;
}

static int mid_search(Search *s, u64 P, u64 O, int depth, int alpha, int beta, int ply, int pv) {
    if (ply < MAX_PLY) s->pv_len[ply] = 0;
    ++s->nodes;
    if (search_should_stop(s)) return 0;
    if (depth <= 0 || ply >= MAX_PLY - 1) {
        /* a game over at the horizon is scored as such: a full board, a
         * side wiped out, a mover without a move under Reversi rules, or
         * (Othello) neither side with one; the opponent's moves are only
         * generated in the rare case of a mover without any */
        if (!~(P | O) || !P || !O) return mid_terminal(P, O);
        if (!bb_moves(P, O) && (s->reversi || !bb_moves(O, P))) return mid_terminal(P, O);
        return eval_evaluate(&s->ev, P, O);
    }
    if (depth >= 2) tt_prefetch(&s->tt, P, O);

    u64 moves = bb_moves(P, O);
    if (!moves) {
        if (s->reversi || !bb_moves(O, P)) return mid_terminal(P, O);
        int v = -mid_search(s, O, P, depth, -beta, -alpha, ply + 1, pv);
        if (pv) pv_update(s, ply, MOVE_PASS);
        return v;
    }

    int tt_move = MOVE_NONE;
    if (depth >= 2) {
        TTEntry buf;
        const TTEntry *e = tt_probe(&s->tt, P, O, s->eval_tag, &buf);
        if (e) {
            if (e->move < 64) tt_move = e->move;
            if (e->depth >= depth && !pv && (!s->fresh_cuts || e->age == s->tt.age)) {
                if (e->lower >= beta) return e->lower;
                if (e->upper <= alpha) return e->upper;
                if (e->lower == e->upper) return e->lower;
            }
        }
    }

    if (s->mpc_t && !pv && depth >= MPC_MIN && alpha > -SCORE_WIN && beta < SCORE_WIN) {
        int v = probable_mid_cut(s, P, O, depth, alpha, beta, ply);
        if (v != MPC_NONE) return v;
    }

    MoveItem list[MAX_MOVES];
    int n = 0;
    int sort_search = tuning.sort_search_min && depth >= tuning.sort_search_min;
    for (u64 m = moves; m; m &= m - 1) {
        int sq = bb_first(m);
        u64 f = bb_flips(P, O, sq);
        u64 cP = O & ~f, cO = P | f | (1ULL << sq);
        int key;
        if (!pv && tuning.etc_min && depth >= tuning.etc_min) {
            /* enhanced transposition cut-off: a child whose stored bound
             * already refutes this node's window ends it */
            TTEntry buf;
            const TTEntry *e = tt_probe(&s->tt, cP, cO, s->eval_tag, &buf);
            if (e && e->depth >= depth - 1 && (!s->fresh_cuts || e->age == s->tt.age) &&
                -e->upper >= beta)
                return -e->upper;
        }
        if (sq == tt_move) {
            key = 1 << 30;
        } else if (sort_search) {
            key = -mid_search(s, cP, cO, tuning.sort_search_depth, -SCORE_WIN, SCORE_WIN,
                              ply + 1, 0);
        } else if (depth >= 3) {
            key = -eval_evaluate(&s->ev, cP, cO);
            if (tuning.sort_mobility | tuning.sort_ff) {
                u64 om = bb_moves(cP, cO);
                int replies = bb_count(om) + bb_count(om & CORNER_MASK);
                if (replies > 40) replies = 40;
                key -= tuning.sort_mobility * replies + tuning.sort_ff * LOG100[replies] / 100;
            }
        } else if (depth == 2) {
            u64 om = bb_moves(cP, cO);
            key = -(bb_count(om) + bb_count(om & CORNER_MASK)) * 16 + (int)((CORNER_MASK >> sq) & 1);
        } else {
            key = (int)((CORNER_MASK >> sq) & 1);
        }
        list[n++] = (MoveItem){sq, key, f};
    }
    if (ABORTED(s)) return 0;

    int best = -SCORE_INF, best_move = MOVE_NONE, a = alpha;
    for (int i = 0; i < n; ++i) {
        if (i > 0 && depth >= MID_SPLIT_MIN && i + 1 < n && par_can_split(s)) {
            SplitPoint sp;
            sp.run = mid_run;
            sp.P = P;
            sp.O = O;
            sp.beta = beta;
            sp.depth = depth;
            sp.ply = ply;
            sp.pv = pv;
            sp.list = list;
            sp.n = n;
            sp.next = i;
            sp.alpha = a;
            sp.best = best;
            sp.best_move = best_move;
            sp.line_len = 0;
            if (par_split(s, &sp)) {
                if (ABORTED(s)) return 0;
                best = sp.best;
                best_move = sp.best_move;
                if (pv && sp.line_len) {
                    memcpy(s->pv[ply], sp.line, (size_t)sp.line_len * sizeof(int));
                    s->pv_len[ply] = sp.line_len;
                }
                break;
            }
        }
        pick(list, i, n);
        u64 f = list[i].flips;
        u64 nP = O & ~f, nO = P | f | (1ULL << list[i].sq);
        int v;
        if (i == 0) {
            v = -mid_search(s, nP, nO, depth - 1, -beta, -a, ply + 1, pv);
        } else {
            v = -mid_search(s, nP, nO, depth - 1, -a - 1, -a, ply + 1, 0);
            if (v > a && v < beta && !ABORTED(s))
                v = -mid_search(s, nP, nO, depth - 1, -beta, -a, ply + 1, pv);
        }
        if (ABORTED(s)) return 0;
        if (v > best) {
            best = v;
            best_move = list[i].sq;
            if (v > a) {
                a = v;
                if (pv) pv_update(s, ply, best_move);
                if (a >= beta) break;
            }
        }
    }
    if (depth >= 2) tt_store(&s->tt, P, O, s->eval_tag, depth, alpha, beta, best, best_move);
    return best;
}

int mid_probe(Search *s, u64 P, u64 O, int depth, int alpha, int beta) {
    return mid_search(s, P, O, depth, alpha, beta, MAX_PLY - 40, 0);
}

void root_line_record(const Search *s, int square, int *line, int *len) {
    line[0] = square;
    memcpy(line + 1, s->pv[1], (size_t)s->pv_len[1] * sizeof(int));
    *len = s->pv_len[1] + 1;
}

void root_finish(Search *s, RootMove *moves, int n, const int *line, int len) {
    /* moves not searched in an aborted iteration keep sinking below */
    for (int i = 0; i < n; ++i)
        if (!moves[i].searched) moves[i].score = -SCORE_INF;
    if (len > 0) {
        memcpy(s->pv[0], line, (size_t)len * sizeof(int));
        s->pv_len[0] = len;
    }
    for (int i = 1; i < n; ++i) {
        RootMove t = moves[i];
        int j = i;
        while (j > 0 && moves[j - 1].score < t.score) {
            moves[j] = moves[j - 1];
            --j;
        }
        moves[j] = t;
    }
}

/* A worker at the root's split point (mid_root's loop, below its first
 * move; every move in analyze mode). */
static void mid_root_run(Search *t, SplitPoint *sp) {
    int beta = sp->beta, depth = sp->depth, analyze = sp->analyze;
    u64 P = sp->P, O = sp->O;
    int a, i;
    while (!ABORTED(t) && (i = par_root_claim(sp, &a)) >= 0) {
        RootMove *rm = &sp->moves[i];
        u64 bit = rm->square == MOVE_PASS ? 0 : 1ULL << rm->square;
        u64 nP = O & ~rm->flips, nO = P | rm->flips | bit;
        int d = rm->square == MOVE_PASS ? depth : depth - 1;
        int v, full = 1;
        ++t->nodes;
        if (analyze) {
            v = -mid_search(t, nP, nO, d, -beta, -a, 1, 1);
        } else {
            v = -mid_search(t, nP, nO, d, -a - 1, -a, 1, 0);
            full = 0;
            if (v > a && !ABORTED(t)) {
                a = par_alpha_now(sp, a);
                v = -mid_search(t, nP, nO, d, -beta, -a, 1, 1);
                full = 1;
            }
        }
        if (ABORTED(t)) break;
        par_root_record(sp, t, rm, v, full);
    }
}

int mid_root(Search *s, u64 P, u64 O, int depth, RootMove *moves, int n, int analyze) {
    int alpha = -SCORE_INF + 1, beta = SCORE_INF;
    int best = -SCORE_INF;
    int root_pv[MAX_PLY], root_pv_len = 0;
    for (int i = 0; i < n; ++i) moves[i].searched = 0;
    for (int i = 0; i < n; ++i) {
        if ((i > 0 || analyze) && i + 1 < n && depth >= MID_SPLIT_MIN && par_can_split(s)) {
            SplitPoint sp;
            sp.run = mid_root_run;
            sp.P = P;
            sp.O = O;
            sp.beta = beta;
            sp.depth = depth;
            sp.ply = 0;
            sp.pv = 1;
            sp.analyze = analyze;
            sp.moves = moves;
            sp.n = n;
            sp.next = i;
            sp.alpha = alpha;
            sp.best = best;
            sp.best_move = MOVE_NONE;
            memcpy(sp.line, root_pv, (size_t)root_pv_len * sizeof(int));
            sp.line_len = root_pv_len;
            if (par_split(s, &sp)) {
                best = sp.best;
                root_pv_len = sp.line_len;
                memcpy(root_pv, sp.line, (size_t)root_pv_len * sizeof(int));
                break;
            }
        }
        RootMove *rm = &moves[i];
        u64 bit = rm->square == MOVE_PASS ? 0 : 1ULL << rm->square;
        u64 nP = O & ~rm->flips, nO = P | rm->flips | bit;
        int d = rm->square == MOVE_PASS ? depth : depth - 1; /* a pass uses up no depth */
        int v;
        ++s->nodes;
        if (analyze || i == 0) {
            v = -mid_search(s, nP, nO, d, -beta, -alpha, 1, 1);
        } else {
            v = -mid_search(s, nP, nO, d, -alpha - 1, -alpha, 1, 0);
            if (v > alpha && !ABORTED(s)) v = -mid_search(s, nP, nO, d, -beta, -alpha, 1, 1);
        }
        if (ABORTED(s)) break;
        rm->score = v;
        rm->searched = 1;
        if (v > best) {
            best = v;
            root_line_record(s, rm->square, root_pv, &root_pv_len);
            if (!analyze && v > alpha) alpha = v;
        }
    }
    root_finish(s, moves, n, root_pv, root_pv_len);
    return best;
}
