/*
 * train.c - self-play data for fitting the "default" evaluator.
 *
 * A deliberately small, self-contained alpha-beta (fixed depth, the current
 * default evaluator at the leaves) and an exact endgame solver, used only by
 * scripts/train_eval.py to make labelled positions. The product's search
 * lives elsewhere in the core; this file exists so that the evaluator can be
 * refitted without depending on it.
 */
#include "train.h"

#include "eval_default.h"

#define INF 1000000

/* splitmix64: the data generator's deterministic random numbers. */
static u64 rng_next(u64 *s) {
    u64 z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static int final_diff(u64 P, u64 O) {
    int p = bb_count(P), o = bb_count(O), e = 64 - p - o;
    if (p > o) return p - o + e;
    if (p < o) return p - o - e;
    return 0;
}

/* Exact disc difference with alpha-beta; fastest-first ordering when deep. */
static int solve(u64 P, u64 O, int alpha, int beta, int passed, long *nodes) {
    ++*nodes;
    u64 moves = bb_moves(P, O);
    if (!moves) {
        if (passed) return final_diff(P, O);
        return -solve(O, P, -beta, -alpha, 1, nodes);
    }
    int empties = 64 - bb_count(P | O);
    int best = -INF;
    if (empties > 7) {
        int sqs[32], keys[32], n = 0;
        while (moves) {
            int sq = bb_first(moves);
            moves &= moves - 1;
            u64 f = bb_flips(P, O, sq);
            u64 nO = O & ~f, nP = P | f | (1ULL << sq);
            int k = bb_count(bb_moves(nO, nP)) * 16;
            if ((1ULL << sq) & CORNERS) k -= 8;
            int i = n++;
            while (i > 0 && keys[i - 1] > k) {
                keys[i] = keys[i - 1];
                sqs[i] = sqs[i - 1];
                --i;
            }
            keys[i] = k;
            sqs[i] = sq;
        }
        for (int i = 0; i < n; ++i) {
            u64 f = bb_flips(P, O, sqs[i]);
            int v = -solve(O & ~f, P | f | (1ULL << sqs[i]), -beta, -alpha, 0, nodes);
            if (v > best) {
                best = v;
                if (v > alpha) alpha = v;
                if (alpha >= beta) break;
            }
        }
        return best;
    }
    while (moves) {
        int sq = bb_first(moves);
        moves &= moves - 1;
        u64 f = bb_flips(P, O, sq);
        int v = -solve(O & ~f, P | f | (1ULL << sq), -beta, -alpha, 0, nodes);
        if (v > best) {
            best = v;
            if (v > alpha) alpha = v;
            if (alpha >= beta) break;
        }
    }
    return best;
}

/* Leaf evaluator of search(): the fitted default or its hand version. */
static _Thread_local int use_hand;

/* Fixed-depth alpha-beta with the default evaluator. */
static int search(u64 P, u64 O, int depth, int alpha, int beta, int passed, long *nodes) {
    ++*nodes;
    if (depth <= 0) return use_hand ? eval_default_hand(P, O) : eval_default(P, O);
    u64 moves = bb_moves(P, O);
    if (!moves) {
        if (passed) return final_diff(P, O) * 1000;
        return -search(O, P, depth, -beta, -alpha, 1, nodes);
    }
    int best = -INF;
    while (moves) {
        int sq = bb_first(moves);
        moves &= moves - 1;
        u64 f = bb_flips(P, O, sq);
        int v = -search(O & ~f, P | f | (1ULL << sq), depth - 1, -beta, -alpha, 0, nodes);
        if (v > best) {
            best = v;
            if (v > alpha) alpha = v;
            if (alpha >= beta) break;
        }
    }
    return best;
}

/* Best move by search (or exact solve when exact != 0), ties broken at
 * random; writes the score. */
static int best_move(u64 P, u64 O, int depth, int exact, u64 *rng, int *score, long *nodes) {
    u64 moves = bb_moves(P, O);
    int best = -INF, best_sq = -1, ties = 0;
    while (moves) {
        int sq = bb_first(moves);
        moves &= moves - 1;
        u64 f = bb_flips(P, O, sq);
        u64 nO = O & ~f, nP = P | f | (1ULL << sq);
        /* window: just enough to tell ties from worse moves */
        int v = exact ? -solve(nO, nP, -64, -(best - 1 > -64 ? best - 1 : -64), 0, nodes)
                      : -search(nO, nP, depth - 1, -INF, -(best - 1), 0, nodes);
        if (v > best) {
            best = v;
            best_sq = sq;
            ties = 1;
        } else if (v == best) {
            ++ties;
            if (rng_next(rng) % (u64)ties == 0) best_sq = sq;
        }
    }
    *score = best;
    return best_sq;
}

int train_game(u64 seed, int random_plies, int depth, int exact_empties, u64 *outP,
               u64 *outO, int *label, int *n_out, long *nodes) {
    u64 rng = seed;
    u64 P = 0x0000000810000000ULL, O = 0x0000001008000000ULL; /* black to move */
    int n = 0, ply = 0, side = 0; /* side: 0 black to move */
    int sides[64];
    int passes = 0;
    for (;;) {
        u64 moves = bb_moves(P, O);
        if (!moves) {
            if (!bb_moves(O, P)) break;
            u64 t = P;
            P = O;
            O = t;
            side ^= 1;
            ++passes;
            continue;
        }
        int empties = 64 - bb_count(P | O);
        if (n < 64) {
            outP[n] = P;
            outO[n] = O;
            sides[n] = side;
            ++n;
        }
        int sq, score;
        if (ply < random_plies) {
            int k = (int)(rng_next(&rng) % (u64)bb_count(moves));
            while (k-- > 0) moves &= moves - 1;
            sq = bb_first(moves);
        } else {
            sq = best_move(P, O, depth, empties <= exact_empties, &rng, &score, nodes);
        }
        u64 f = bb_flips(P, O, sq);
        u64 nP = O & ~f, nO = P | f | (1ULL << sq);
        P = nP;
        O = nO;
        side ^= 1;
        ++ply;
    }
    (void)passes;
    /* P is the side "side" to move at the end: final result from black's view. */
    int d = final_diff(P, O);
    int black = side == 0 ? d : -d;
    for (int i = 0; i < n; ++i) label[i] = sides[i] == 0 ? black : -black;
    *n_out = n;
    return black;
}

int train_solve(u64 P, u64 O, long *nodes) { return solve(P, O, -64, 64, 0, nodes); }

int train_search(u64 P, u64 O, int depth, int hand, long *nodes) {
    use_hand = hand;
    int v = search(P, O, depth, -INF, INF, 0, nodes);
    use_hand = 0;
    return v;
}
