/*
 * search.c - limits, root moves and the midgame search: principal variation
 * search (negamax alpha-beta with null windows) over evaluator scores, with
 * a transposition table and move ordering (TT move, then evaluator order or
 * fastest-first near the leaves), probable cut-offs, and the horizon solve
 * (positions with few empties handed to the exact solver: search.h). With
 * the default evaluator each ply's pattern codes are updated from its
 * parent's by the move (eval_features_play) instead of read from the board.
 */
#define _POSIX_C_SOURCE 199309L
#include "search.h"

#include <string.h>

#include "clock.h"
#include "parallel.h"

u64 NEIGHBOURS[64];

Tuning tuning = {
    .time_soft = 40,
    .time_unstable = 60,
    .time_stable = 25,
    .mid_solve = 8,
    .end_stages = 5,
    .inc_eval = 1, /* by the processor: search_tables_init */
};

int (*mid_horizon_solver)(Search *s, u64 P, u64 O, int alpha, int beta, int ply);

const char *const TUNING_NAMES[] = {"time_soft", "mid_solve",     "end_stages", "par_spin",
                                    "inc_eval",  "time_unstable", "time_stable", NULL};

static int *tuning_field(const char *name) {
    int *fields[] = {&tuning.time_soft, &tuning.mid_solve,     &tuning.end_stages, &par_spin_us,
                     &tuning.inc_eval,  &tuning.time_unstable, &tuning.time_stable};
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
    /* keeping the codes move by move pays where the board's patterns are
     * read without VBMI (7 % more nodes a second on an AVX2 processor); with
     * VBMI the same trees take 3.5-7 % less time without them (docs/engine.md,
     * "How it searches") */
    tuning.inc_eval = strcmp(eval_default_gather(), "vbmi") != 0;
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
    s->deadline = time_limit > 0 ? clock_seconds() + time_limit : 0;
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
        (s->node_limit && total >= s->node_limit) || (s->deadline && clock_seconds() >= s->deadline))
        par_halt(s);
}

int search_root_moves(u64 P, u64 O, RootMove *moves) {
    u64 m = bb_moves(P, O);
    int n = 0;
    if (!m) {
        if (!bb_moves(O, P)) return 0;
        moves[0] = (RootMove){MOVE_PASS, -SCORE_INF, 0, 0, 0};
        return 1;
    }
    for (; m; m &= m - 1) {
        int sq = bb_first(m);
        moves[n++] = (RootMove){sq, -SCORE_INF, 0, bb_flips(P, O, sq), 0};
    }
    return n;
}

/* ------------------------------------------------------------- midgame */

typedef struct {
    int sq;
    int key;
    u64 flips;
    u64 replies; /* the opponent's legal moves after this move */
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

/* Probable cut-offs (ProbCut): at a null-window node of depth >= MPC_MIN, a
 * search of depth mpc_shallow(depth) predicts the deep score; a prediction
 * that clears the window by mpc_t / 100 standard deviations of its error
 * (MPC_SIGMA, 1/100 disc, measured by scripts/mpc_sigma.py) cuts the node.
 * The table belongs to the packaged weights (data/eval.bin.gz): a new
 * weight file is measured for a table of its own (--weights FILE). */
#ifndef MPC_MIN
#define MPC_MIN 3
#endif
#ifndef MPC_SIGMA_TABLE /* from depth 3 on; the last value serves every deeper search */
#define MPC_SIGMA_TABLE 233, 219, 202, 292, 263, 237, 219, 279, 270, 300, 295
#endif
static const int MPC_SIGMA[] = {0, 0, 0, MPC_SIGMA_TABLE};
#define MPC_SIGMA_N ((int)(sizeof MPC_SIGMA / sizeof MPC_SIGMA[0]))

static inline int mpc_shallow(int depth) { return 2 * (depth / 4) + (depth & 1); }
#define MPC_NONE (-SCORE_INF)

/* mid_search's moves argument when the caller has not generated them. A
 * mover never has all 64 squares to play, so it is no set of moves. */
#define MOVES_UNKNOWN (~0ULL)

static int mid_search(Search *s, u64 P, u64 O, u64 moves, int depth, int alpha, int beta,
                      int ply, int pv);

/* The incremental evaluation at an entry into the midgame search: the
 * features of (P, O) at ply when the evaluator is the default one and its
 * model allows them. */
static void features_enter(Search *s, u64 P, u64 O, int ply) {
    s->fm = s->ev.kind == EVAL_DEFAULT && tuning.inc_eval ? eval_features_model() : NULL;
    if (s->fm) eval_features_init(s->fm, P, O, &s->feat[ply]);
}

/* The features at ply + 1 after the move sq (flipping flips) at ply. */
static inline void features_play(Search *s, int ply, int sq, u64 flips) {
    if (s->fm) eval_features_play(s->fm, &s->feat[ply], &s->feat[ply + 1], sq, flips);
}

/* The static score of (P, O), the position at ply, whose mover's legal
 * moves are moves. */
static inline int mid_evaluate(Search *s, u64 P, u64 O, u64 moves, int ply) {
    return s->fm ? eval_model_score_features(s->fm, P, O, moves, &s->feat[ply])
                 : eval_evaluate(&s->ev, P, O);
}

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
    features_enter(t, P, O, ply);
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
        features_play(t, ply, m.sq, m.flips);
        int v = -mid_search(t, nP, nO, m.replies, depth - 1, -a - 1, -a, ply + 1, 0);
        if (v > a && v < beta && !ABORTED(t)) {
            a = par_alpha_now(sp, a);
            if (a < beta)
                v = -mid_search(t, nP, nO, m.replies, depth - 1, -beta, -a, ply + 1, pv);
        }
        if (ABORTED(t)) break;
        par_node_record(sp, t, v, m.sq, beta, pv);
    }
}

/* beta when the shallow search predicts that the node fails high, alpha
 * when it predicts a fail low, MPC_NONE when it cannot tell (the node is
 * then searched; a stopped search returns through its move loop). */
static inline int probable_mid_cut(Search *s, u64 P, u64 O, u64 moves, int depth, int alpha,
                                   int beta, int ply) {
    int sigma = MPC_SIGMA[depth < MPC_SIGMA_N ? depth : MPC_SIGMA_N - 1];
    int margin = sigma * s->mpc_t / 100, d = mpc_shallow(depth);
    int hi = beta + margin;
    if (mid_search(s, P, O, moves, d, hi - 1, hi, ply, 0) >= hi) return beta;
    int lo = alpha - margin;
    if (mid_search(s, P, O, moves, d, lo, lo + 1, ply, 0) <= lo) return alpha;
    return MPC_NONE;
}

/* What every node does first: count itself, poll the clock, and near the
 * end of the game solve itself (the default evaluator's scale: 1/100 disc;
 * not in the solver's own ordering searches). 1 when that settles the
 * node, its score then in *v (0 for a stopped search). */
static inline int mid_enter(Search *s, u64 P, u64 O, int alpha, int beta, int ply, int *v) {
    if (ply < MAX_PLY) s->pv_len[ply] = 0;
    ++s->nodes;
    *v = 0;
    if (search_should_stop(s)) return 1;
    if (bb_count(~(P | O)) <= tuning.mid_solve && mid_horizon_solver && !s->reversi &&
        s->eval_tag != TT_TAG_ORDER && s->ev.kind == EVAL_DEFAULT && ply < MAX_PLY - 30) {
        *v = mid_horizon_solver(s, P, O, alpha, beta, ply);
        return 1;
    }
    return 0;
}

/* The score at the horizon: a game over is scored as such (a full board, a
 * side wiped out, a mover without a move under Reversi rules, or (Othello)
 * neither side with one; the opponent's moves are only generated in the
 * rare case of a mover without any), any other position evaluated. */
static inline int mid_horizon(Search *s, u64 P, u64 O, u64 moves, int ply) {
    if (!~(P | O) || !P || !O) return mid_terminal(P, O);
    if (moves == MOVES_UNKNOWN) moves = bb_moves(P, O);
    if (!moves && (s->reversi || !bb_moves(O, P))) return mid_terminal(P, O);
    return mid_evaluate(s, P, O, moves, ply);
}

/* mid_search at depth 0, without a call of the recursive function. */
static inline int mid_leaf(Search *s, u64 P, u64 O, u64 moves, int alpha, int beta, int ply) {
    int v;
    if (mid_enter(s, P, O, alpha, beta, ply, &v)) return v;
    return mid_horizon(s, P, O, moves, ply);
}

/* A child of a node depth plies from the leaves (depth - 1 for the child). */
static inline int mid_child(Search *s, u64 P, u64 O, u64 moves, int depth, int alpha, int beta,
                            int ply, int pv) {
    return depth <= 1 ? mid_leaf(s, P, O, moves, alpha, beta, ply)
                      : mid_search(s, P, O, moves, depth - 1, alpha, beta, ply, pv);
}

/* The score of (P, O) searched depth plies deep within (alpha, beta);
 * moves are the mover's legal moves when the caller has generated them
 * (its move ordering has), else MOVES_UNKNOWN. */
static int mid_search(Search *s, u64 P, u64 O, u64 moves, int depth, int alpha, int beta,
                      int ply, int pv) {
    int settled;
    if (mid_enter(s, P, O, alpha, beta, ply, &settled)) return settled;
    if (depth <= 0 || ply >= MAX_PLY - 1) return mid_horizon(s, P, O, moves, ply);
    if (depth >= 2) tt_prefetch(&s->tt, P, O);

    if (moves == MOVES_UNKNOWN) moves = bb_moves(P, O);
    if (!moves) {
        u64 replies = s->reversi ? 0 : bb_moves(O, P);
        if (!replies) return mid_terminal(P, O);
        if (s->fm) eval_features_pass(&s->feat[ply], &s->feat[ply + 1]);
        int v = -mid_search(s, O, P, replies, depth, -beta, -alpha, ply + 1, pv);
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
        int v = probable_mid_cut(s, P, O, moves, depth, alpha, beta, ply);
        if (v != MPC_NONE) return v;
    }

    int best = -SCORE_INF, best_move = MOVE_NONE, a = alpha, searched = 0;
    if (tt_move != MOVE_NONE && (moves >> tt_move & 1)) {
        /* the table's move first, before the others are generated and
         * ordered: when it cuts the node, as it mostly does, their ordering
         * evaluations are saved */
        u64 f = bb_flips(P, O, tt_move);
        u64 nP = O & ~f, nO = P | f | (1ULL << tt_move);
        features_play(s, ply, tt_move, f);
        best = -mid_child(s, nP, nO, bb_moves(nP, nO), depth, -beta, -a, ply + 1, pv);
        if (ABORTED(s)) return 0;
        best_move = tt_move;
        if (best > a) {
            a = best;
            if (pv) pv_update(s, ply, best_move);
        }
        moves &= ~(1ULL << tt_move);
        searched = 1;
    }

    MoveItem list[MAX_MOVES];
    int n = 0;
    for (u64 m = a < beta ? moves : 0; m; m &= m - 1) {
        int sq = bb_first(m);
        u64 f = bb_flips(P, O, sq);
        u64 cP = O & ~f, cO = P | f | (1ULL << sq);
        u64 om = bb_moves(cP, cO); /* the child's moves, which it is given */
        int key;
        if (depth >= 3) {
            features_play(s, ply, sq, f);
            key = -mid_evaluate(s, cP, cO, om, ply + 1);
        } else {
            /* 1-2 plies from the leaves: fewest opponent replies first
             * (the likeliest refutation), a corner first among equals */
            key = -(bb_count(om) + bb_count(om & CORNERS)) * 16 + (int)((CORNERS >> sq) & 1);
        }
        list[n++] = (MoveItem){sq, key, f, om};
    }

    for (int i = 0; i < n; ++i) {
        if (i + searched > 0 && depth >= MID_SPLIT_MIN && i + 1 < n && par_can_split(s)) {
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
        features_play(s, ply, list[i].sq, f);
        int v;
        u64 replies = list[i].replies;
        if (i + searched == 0) {
            v = -mid_child(s, nP, nO, replies, depth, -beta, -a, ply + 1, pv);
        } else {
            v = -mid_child(s, nP, nO, replies, depth, -a - 1, -a, ply + 1, 0);
            if (v > a && v < beta && !ABORTED(s))
                v = -mid_child(s, nP, nO, replies, depth, -beta, -a, ply + 1, pv);
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
    features_enter(s, P, O, MAX_PLY - 40);
    return mid_search(s, P, O, MOVES_UNKNOWN, depth, alpha, beta, MAX_PLY - 40, 0);
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

/* The features at ply 1 of a root move's child, as mid_search makes them. */
static inline void features_root_child(Search *s, const RootMove *rm) {
    if (!s->fm) return;
    if (rm->square == MOVE_PASS)
        eval_features_pass(&s->feat[0], &s->feat[1]);
    else
        features_play(s, 0, rm->square, rm->flips);
}

/* A worker at the root's split point (mid_root's loop, below its first
 * move; every move in analyze mode). */
static void mid_root_run(Search *t, SplitPoint *sp) {
    int beta = sp->beta, depth = sp->depth, analyze = sp->analyze;
    u64 P = sp->P, O = sp->O;
    int a, i;
    features_enter(t, P, O, 0);
    while (!ABORTED(t) && (i = par_root_claim(sp, &a)) >= 0) {
        RootMove *rm = &sp->moves[i];
        u64 bit = rm->square == MOVE_PASS ? 0 : 1ULL << rm->square;
        u64 nP = O & ~rm->flips, nO = P | rm->flips | bit;
        features_root_child(t, rm);
        int d = rm->square == MOVE_PASS ? depth : depth - 1;
        int v, full = 1;
        ++t->nodes;
        if (analyze) { /* a: the analysis floor, raised by par_root_record */
            v = -mid_search(t, nP, nO, MOVES_UNKNOWN, d, -beta, -a, 1, 1);
            full = v > a;
        } else {
            v = -mid_search(t, nP, nO, MOVES_UNKNOWN, d, -a - 1, -a, 1, 0);
            full = 0;
            if (v > a && !ABORTED(t)) {
                a = par_alpha_now(sp, a);
                v = -mid_search(t, nP, nO, MOVES_UNKNOWN, d, -beta, -a, 1, 1);
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
    for (int i = 0; i < n; ++i) moves[i].searched = moves[i].upper = 0;
    features_enter(s, P, O, 0);
    for (int i = 0; i < n; ++i) {
        /* a window's analysis splits after its first move, which sets the floor */
        if ((i > 0 || analyze == ANALYZE_EXACT) && i + 1 < n && depth >= MID_SPLIT_MIN &&
            par_can_split(s)) {
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
            sp.alpha = analyze ? analysis_floor(moves, n, alpha, best, analyze) : alpha;
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
        features_root_child(s, rm);
        int d = rm->square == MOVE_PASS ? depth : depth - 1; /* a pass uses up no depth */
        int v, lo = analyze ? analysis_floor(moves, n, alpha, best, analyze) : alpha;
        ++s->nodes;
        if (analyze || i == 0) {
            v = -mid_search(s, nP, nO, MOVES_UNKNOWN, d, -beta, -lo, 1, 1);
        } else {
            v = -mid_search(s, nP, nO, MOVES_UNKNOWN, d, -alpha - 1, -alpha, 1, 0);
            if (v > alpha && !ABORTED(s))
                v = -mid_search(s, nP, nO, MOVES_UNKNOWN, d, -beta, -alpha, 1, 1);
        }
        if (ABORTED(s)) break;
        rm->score = v;
        rm->searched = 1;
        rm->upper = v <= lo;
        if (v > best) {
            best = v;
            root_line_record(s, rm->square, root_pv, &root_pv_len);
            if (!analyze && v > alpha) alpha = v;
        }
    }
    root_finish(s, moves, n, root_pv, root_pv_len);
    return best;
}
