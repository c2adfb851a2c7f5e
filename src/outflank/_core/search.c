/*
 * search.c - limits, root moves and the midgame search: principal variation
 * search (negamax alpha-beta with null windows) over evaluator scores, with
 * a transposition table and move ordering (TT move, then evaluator order or
 * fastest-first near the leaves).
 */
#define _POSIX_C_SOURCE 199309L
#include "search.h"

#include <string.h>
#include <time.h>

u64 NEIGHBOURS[64];

void search_tables_init(void) {
    for (int sq = 0; sq < 64; ++sq) NEIGHBOURS[sq] = bb_neighbours(1ULL << sq);
    end_tables_init();
}

double search_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int search_init(Search *s, size_t tt_mib) {
    memset(s, 0, sizeof *s);
    atomic_init(&s->stop, 0);
    s->ev.kind = EVAL_DEFAULT;
    s->eval_tag = TT_TAG_ORDER + 1;
    return tt_init(&s->tt, tt_mib);
}

void search_free(Search *s) { tt_free(&s->tt); }

void search_clear(Search *s) {
    tt_clear(&s->tt);
    memset(s->end_small, 0, sizeof s->end_small);
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
    s->aborted = 0;
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
}

void search_poll(Search *s) {
    s->next_poll = s->nodes + 4096;
    if (s->node_limit && s->next_poll > s->node_limit) s->next_poll = s->node_limit;
    if (atomic_load_explicit(&s->stop, memory_order_relaxed) ||
        (s->node_limit && s->nodes >= s->node_limit) || (s->deadline && search_now() >= s->deadline))
        s->aborted = 1;
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

static inline int mpc_shallow(int depth) { return 2 * (depth / 4) + (depth & 1); }
#define MPC_NONE (-SCORE_INF)

static int mid_search(Search *s, u64 P, u64 O, int depth, int alpha, int beta, int ply, int pv);

/* beta when the shallow search predicts that the node fails high, alpha
 * when it predicts a fail low, MPC_NONE when it cannot tell (the node is
 * then searched; a stopped search returns through its move loop). */
static inline int probable_mid_cut(Search *s, u64 P, u64 O, int depth, int alpha, int beta,
                                   int ply) {
    int sigma = MPC_SIGMA[depth < MPC_SIGMA_N ? depth : MPC_SIGMA_N - 1];
    int margin = sigma * s->mpc_t / 100, d = mpc_shallow(depth);
    int hi = beta + margin;
    if (mid_search(s, P, O, d, hi - 1, hi, ply, 0) >= hi) return beta;
    int lo = alpha - margin;
    if (mid_search(s, P, O, d, lo, lo + 1, ply, 0) <= lo) return alpha;
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
        const TTEntry *e = tt_probe(&s->tt, P, O, s->eval_tag);
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
    for (u64 m = moves; m; m &= m - 1) {
        int sq = bb_first(m);
        u64 f = bb_flips(P, O, sq);
        int key;
        if (sq == tt_move) {
            key = 1 << 30;
        } else if (depth >= 3) {
            key = -eval_evaluate(&s->ev, O & ~f, P | f | (1ULL << sq));
        } else if (depth == 2) {
            u64 om = bb_moves(O & ~f, P | f | (1ULL << sq));
            key = -(bb_count(om) + bb_count(om & CORNER_MASK)) * 16 + (int)((CORNER_MASK >> sq) & 1);
        } else {
            key = (int)((CORNER_MASK >> sq) & 1);
        }
        list[n++] = (MoveItem){sq, key, f};
    }

    int best = -SCORE_INF, best_move = MOVE_NONE, a = alpha;
    for (int i = 0; i < n; ++i) {
        pick(list, i, n);
        u64 f = list[i].flips;
        u64 nP = O & ~f, nO = P | f | (1ULL << list[i].sq);
        int v;
        if (i == 0) {
            v = -mid_search(s, nP, nO, depth - 1, -beta, -a, ply + 1, pv);
        } else {
            v = -mid_search(s, nP, nO, depth - 1, -a - 1, -a, ply + 1, 0);
            if (v > a && v < beta && !s->aborted)
                v = -mid_search(s, nP, nO, depth - 1, -beta, -a, ply + 1, pv);
        }
        if (s->aborted) return 0;
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

int mid_root(Search *s, u64 P, u64 O, int depth, RootMove *moves, int n, int analyze) {
    int alpha = -SCORE_INF + 1, beta = SCORE_INF;
    int best = -SCORE_INF;
    int root_pv[MAX_PLY], root_pv_len = 0;
    for (int i = 0; i < n; ++i) moves[i].searched = 0;
    for (int i = 0; i < n; ++i) {
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
            if (v > alpha && !s->aborted) v = -mid_search(s, nP, nO, d, -beta, -alpha, 1, 1);
        }
        if (s->aborted) break;
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
