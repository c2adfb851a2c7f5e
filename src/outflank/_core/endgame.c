/*
 * endgame.c - the exact endgame solver: scores are final disc differences.
 *
 * Null-window searches (is the score above alpha?) do the work; a PVS on
 * top finds the exact value and its principal variation (a plain solve starts
 * in an aspiration window around the pre-search's estimate). By number of
 * empty squares:
 *   >= END_TT_MIN   transposition table (cut-offs, best move, enhanced
 *                   transposition cut-off from END_ETC_MIN), stability
 *                   cut-off, moves ordered by the table's move, then
 *                   fastest-first (fewest opponent replies), plus a shallow
 *                   eval_default search from SHALLOW0_MIN (deeper from
 *                   SHALLOW1..3_MIN, exact only for the children that
 *                   need it);
 *   END_SORT_MIN .. END_TT_MIN-1
 *                   stability cut-off, a small table per number of empties
 *                   that stays in the cache (search.h), fastest-first;
 *   5 .. END_SORT_MIN-1
 *                   stability cut-off, moves in parity order (squares with
 *                   no empty neighbour first, then those of regions with
 *                   an odd number of empties);
 *   4, 3, 2, 1      dedicated functions on explicit squares, in the same
 *                   order (stability cut-off at 4).
 * The thresholds were tuned on FFO #40-#44 (CPU time); each can be
 * overridden at build time with -D for experiments (see docs/engine.md).
 */
#include <string.h>

#include "eval_default.h"
#include "parallel.h"
#include "endgame.h"
#include "search.h"
#include "stability.h"

#if defined(ENDSTATS) || defined(SELSTATS)
#include <stdio.h>
#endif
#ifdef ENDSTATS /* debugging: calls per number of empties, printed per root move */
unsigned long long end_stats[65];
#define STAT(e) (end_stats[e]++)
#else
#define STAT(e) ((void)0)
#endif

#ifndef END_ETC_MIN
#define END_ETC_MIN 12
#endif
#ifndef PRESEARCH_OFFSET /* pre-search depth: empties - offset, at most max */
#define PRESEARCH_OFFSET 14
#endif
#ifndef PRESEARCH_MAX
#define PRESEARCH_MAX 12
#endif
#ifndef SHALLOW0_MIN /* ordering by eval_default of each child from here */
#define SHALLOW0_MIN 14
#endif
#ifndef SHALLOW1_MIN /* ... by a 1-ply search */
#define SHALLOW1_MIN 17
#endif
#ifndef SHALLOW2_MIN /* ... by a 2-ply search */
#define SHALLOW2_MIN 18
#endif
#ifndef SHALLOW3_MIN /* ... by a 3-ply search */
#define SHALLOW3_MIN 21
#endif
#ifndef SHALLOW4_MIN /* ... by a 4-ply search */
#define SHALLOW4_MIN 64
#endif
#ifndef ORDER_EVAL_W /* weight of that score against fastest-first, /16 */
#define ORDER_EVAL_W 8
#endif
#ifndef DEEP_MOB_W /* extra weight of the opponent's replies where that score is used */
#define DEEP_MOB_W 32 /* 64 until 2026-12-04: FFO #40-#59 5.5 % more nodes with today's weights */
#endif
#ifndef FF_MOB_W /* fastest-first weights: opponent's replies, */
#define FF_MOB_W 64
#endif
#ifndef FF_CORNER_W /* ... extra for corner replies, */
#define FF_CORNER_W 64
#endif
#ifndef FF_POT_W /* ... opponent's potential mobility, */
#define FF_POT_W 16 /* 2 until the twenty-fifth session: FFO #40-#59 7.2 % more nodes */
#endif
#ifndef FF_PARITY_W /* ... bonus for an odd region, */
#define FF_PARITY_W 8
#endif
#ifndef FF_CORNER_STABLE_W /* ... bonus per corner-anchored disc of the mover, */
#define FF_CORNER_STABLE_W 16
#endif
#ifndef FF_FLIPS_W /* ... malus per disc the move flips, */
#define FF_FLIPS_W 3
#endif
#ifndef FF_SQUARE_W /* ... weight of the square's value (SQUARE_VALUE) */
#define FF_SQUARE_W 4
#endif
#ifndef ORDER_TOPK /* the children searched by order_ab at deep nodes (the others: eval_default) */
#define ORDER_TOPK 6
#endif
#ifndef HINT_MIN_DEPTH /* on the PV, the pre-search's best move is used where it searched this deep */
#define HINT_MIN_DEPTH 9
#endif

/* Empty squares in quadrants (the 4x4 corners of the board) holding an
 * odd number of them. The quadrants' parities come from folding the
 * board (no popcount, no branch: 1.3 % less time on FFO #50-#54). */
static inline u64 odd_squares(u64 empty) {
    u64 x = empty ^ (empty >> 1);
    x ^= x >> 2;  /* bit 0 of each half-row: the parity of its four squares */
    x ^= x >> 8;
    x ^= x >> 16; /* bits 0, 4, 32, 36: the parity of each quadrant */
    return empty & ((x & 0x0000001100000011ULL) * 0x0F0F0F0FULL);
}

static inline u64 try_flips(u64 P, u64 O, int sq) {
    return (NEIGHBOURS[sq] & O) ? bb_flips(P, O, sq) : 0;
}

/* Stability cut-off: the opponent's stable discs cap the mover's score at
 * 64 - 2 * stable. Tried only when alpha is high enough for the cap to fall
 * to it with some chance: the more empties, the fewer stable discs, so the
 * higher alpha must be (2 * empties, 2 less below 10 empties). */
static inline int stability_cut(u64 P, u64 O, int alpha, int empties, int *bound) {
    if (alpha < 2 * empties - (empties < 10 ? 2 : 0)) return 0;
    int b = 64 - 2 * bb_count(bb_stable_strong(O, P));
    if (b <= alpha) {
        *bound = b;
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------- last squares */

/* The last empty square: on a full line, the discs flipped from position i
 * (0..7) are those between i and the mover's nearest disc on each side, so
 * they depend only on the mover's discs on that line (8 bits).
 * LINE_FLIPS[i][bits] counts them; DIAG_MASK / ANTI_MASK are the two
 * diagonals through each square. Filled by end_tables_init(). */
static uint8_t LINE_FLIPS[8][256];
static u64 DIAG_MASK[64], ANTI_MASK[64];

void end_tables_init(void) {
    for (int i = 0; i < 8; ++i)
        for (int bits = 0; bits < 256; ++bits) {
            int n = 0;
            for (int j = i - 1; j >= 0; --j)
                if (bits >> j & 1) {
                    n += i - 1 - j;
                    break;
                }
            for (int j = i + 1; j < 8; ++j)
                if (bits >> j & 1) {
                    n += j - i - 1;
                    break;
                }
            LINE_FLIPS[i][bits] = (uint8_t)n;
        }
    for (int sq = 0; sq < 64; ++sq) {
        DIAG_MASK[sq] = (1ULL << sq) | bb_lines[sq][3] | bb_lines[sq][7];
        ANTI_MASK[sq] = (1ULL << sq) | bb_lines[sq][1] | bb_lines[sq][5];
    }
}

/* Discs flipped by the owner of B playing on x when x is the only empty
 * square: the line's bits gathered into one byte (a row is a byte; a
 * column and a diagonal are collapsed by multiplication), then looked up. */
static inline int last_flips(u64 B, int x) {
    int row = x >> 3, col = x & 7;
    const u64 file_a = 0x0101010101010101ULL;
    int n = LINE_FLIPS[col][(B >> (x & 56)) & 0xFF];
    n += LINE_FLIPS[row][bb_column_byte(B, col)];
    n += LINE_FLIPS[col][((B & DIAG_MASK[x]) * file_a) >> 56];
    n += LINE_FLIPS[col][((B & ANTI_MASK[x]) * file_a) >> 56];
    return n;
}

/* The last empty square x, in a null window at alpha (fail-soft: a value
 * above alpha is a lower bound, one at or below it an upper bound). With
 * p discs the mover scores at least 2p - 60 when it can play x, at most
 * 2p - 62 when it cannot; so when 2p - 62 <= alpha only the mover's flips
 * decide, and the opponent's are counted only when they can matter. */
static int solve_1(Search *s, u64 P, u64 O, int alpha, int x) {
    ++s->nodes;
    int p = bb_count(P);
    int n = last_flips(P, x);
    if (n) return 2 * (p + n) + 2 - 64;
    int pass = 2 * p - 62; /* the best the mover can get without a move */
    if (pass <= alpha) return pass;
    n = last_flips(O, x);
    if (n) return 2 * (p - n) - 64;
    int d = 2 * p - 63;
    return d > 0 ? d + 1 : d - 1;
}

static int solve_2(Search *s, u64 P, u64 O, int alpha, int x1, int x2) {
    ++s->nodes;
    int best = -SCORE_INF;
    u64 f = try_flips(P, O, x1);
    if (f) {
        best = -solve_1(s, O & ~f, P | f | (1ULL << x1), -alpha - 1, x2);
        if (best > alpha) return best;
    }
    f = try_flips(P, O, x2);
    if (f) {
        int v = -solve_1(s, O & ~f, P | f | (1ULL << x2), -alpha - 1, x1);
        return v > best ? v : best;
    }
    if (best != -SCORE_INF) return best;
    /* the mover passes: the opponent minimises */
    best = SCORE_INF;
    f = try_flips(O, P, x1);
    if (f) {
        best = solve_1(s, P & ~f, O | f | (1ULL << x1), alpha, x2);
        if (best <= alpha) return best;
    }
    f = try_flips(O, P, x2);
    if (f) {
        int v = solve_1(s, P & ~f, O | f | (1ULL << x2), alpha, x1);
        return v < best ? v : best;
    }
    if (best != SCORE_INF) return best;
    return final_discs(P, O);
}

static int solve_3(Search *s, u64 P, u64 O, int alpha, int x1, int x2, int x3) {
    ++s->nodes;
    int best = -SCORE_INF, v;
    u64 f;
    if ((f = try_flips(P, O, x1))) {
        v = -solve_2(s, O & ~f, P | f | (1ULL << x1), -alpha - 1, x2, x3);
        if (v > alpha) return v;
        best = v;
    }
    if ((f = try_flips(P, O, x2))) {
        v = -solve_2(s, O & ~f, P | f | (1ULL << x2), -alpha - 1, x1, x3);
        if (v > alpha) return v;
        if (v > best) best = v;
    }
    if ((f = try_flips(P, O, x3))) {
        v = -solve_2(s, O & ~f, P | f | (1ULL << x3), -alpha - 1, x1, x2);
        if (v > best) best = v;
        return best;
    }
    if (best != -SCORE_INF) return best;
    best = SCORE_INF;
    if ((f = try_flips(O, P, x1))) {
        v = solve_2(s, P & ~f, O | f | (1ULL << x1), alpha, x2, x3);
        if (v <= alpha) return v;
        best = v;
    }
    if ((f = try_flips(O, P, x2))) {
        v = solve_2(s, P & ~f, O | f | (1ULL << x2), alpha, x1, x3);
        if (v <= alpha) return v;
        if (v < best) best = v;
    }
    if ((f = try_flips(O, P, x3))) {
        v = solve_2(s, P & ~f, O | f | (1ULL << x3), alpha, x1, x2);
        if (v < best) best = v;
        return best;
    }
    if (best != SCORE_INF) return best;
    return final_discs(P, O);
}

static int solve_4(Search *s, u64 P, u64 O, int alpha, const int *x) {
    ++s->nodes;
    int bound;
    if (stability_cut(P, O, alpha, 4, &bound)) return bound;
    int best = -SCORE_INF, v;
    u64 f;
    int found = 0;
    for (int i = 0; i < 4; ++i) {
        if ((f = try_flips(P, O, x[i]))) {
            int r[3], k = 0;
            for (int j = 0; j < 4; ++j)
                if (j != i) r[k++] = x[j];
            v = -solve_3(s, O & ~f, P | f | (1ULL << x[i]), -alpha - 1, r[0], r[1], r[2]);
            if (v > alpha) return v;
            if (v > best) best = v;
            found = 1;
        }
    }
    if (found) return best;
    best = SCORE_INF;
    for (int i = 0; i < 4; ++i) {
        if ((f = try_flips(O, P, x[i]))) {
            int r[3], k = 0;
            for (int j = 0; j < 4; ++j)
                if (j != i) r[k++] = x[j];
            v = solve_3(s, P & ~f, O | f | (1ULL << x[i]), alpha, r[0], r[1], r[2]);
            if (v <= alpha) return v;
            if (v < best) best = v;
            found = 1;
        }
    }
    if (found) return best;
    return final_discs(P, O);
}

/* Empty squares with no empty neighbour (of the eight). */
static inline u64 isolated_empties(u64 empty) {
    u64 h = ((empty & NOT_H_FILE) << 1) | ((empty & NOT_A_FILE) >> 1);
    u64 row = empty | h;
    return empty & ~(h | (row << 8) | (row >> 8));
}

/* The squares of `squares` in parity order; returns the count. First the
 * isolated ones (no empty neighbour: a region of one square, whose last
 * move this is), then those in quadrants with an odd number of empties
 * (the side to move there may get the region's last move). */
static inline int parity_order(u64 squares, u64 empty, int *x) {
    int n = 0;
    u64 iso = isolated_empties(empty) & squares;
    for (u64 b = iso; b; b &= b - 1) x[n++] = bb_first(b);
    squares &= ~iso;
    u64 odd = odd_squares(empty) & squares;
    for (u64 b = odd; b; b &= b - 1) x[n++] = bb_first(b);
    for (u64 b = squares & ~odd; b; b &= b - 1) x[n++] = bb_first(b);
    return n;
}

static inline int parity_squares(u64 empty, int *x) { return parity_order(empty, empty, x); }

/* A node's legal moves when its parent has not generated them (a move
 * list is never every square). */
#define MOVES_UNKNOWN (~0ULL)

static inline u64 known_moves(u64 moves, u64 P, u64 O) {
    return moves != MOVES_UNKNOWN ? moves : bb_moves(P, O);
}

static int end_nws(Search *s, u64 P, u64 O, int alpha, int empties, u64 moves);

/* 5 .. END_SORT_MIN-1 empties: the moves in parity order, no sorting. */
static int end_nws_parity(Search *s, u64 P, u64 O, int alpha, int empties, u64 moves) {
    ++s->nodes;
    int bound;
    if (stability_cut(P, O, alpha, empties, &bound)) return bound;
    /* Unknown moves are not generated: each empty square is tried in
     * parity order (the same order as the legal moves' in parity order). */
    u64 squares = moves != MOVES_UNKNOWN ? moves : ~(P | O);
    int x[8];
    int nm = parity_order(squares, ~(P | O), x);
    int best = -SCORE_INF, v;
    for (int i = 0; i < nm; ++i) {
        u64 f = try_flips(P, O, x[i]);
        if (!f) continue;
        u64 nP = O & ~f, nO = P | f | (1ULL << x[i]);
        if (empties == 5) {
            int r[4];
            parity_squares(~(nP | nO), r);
            v = -solve_4(s, nP, nO, -alpha - 1, r);
        } else {
            v = -end_nws_parity(s, nP, nO, -alpha - 1, empties - 1, MOVES_UNKNOWN);
        }
        if (v > alpha) return v;
        if (v > best) best = v;
    }
    if (best == -SCORE_INF) { /* no legal move (none known, or none flips): a pass */
        if (!bb_moves(O, P)) return final_discs(P, O);
        return -end_nws_parity(s, O, P, -alpha - 1, empties, MOVES_UNKNOWN);
    }
    return best;
}

typedef struct {
    int sq;
    int key;
    u64 flips;
    u64 replies; /* the opponent's moves after this one, or MOVES_UNKNOWN */
} EndMove;

/* Move the best-keyed of list[i..n-1] to i (the first of equal keys).
 * Written without a branch (conditional moves): the winner changes at
 * unpredictable places, and the mispredicted branches had cost 2.4 % of
 * the solver's time (FFO #50-#54). */
static inline void end_pick(EndMove *list, int i, int n) {
    int b = i, best = list[i].key;
    for (int j = i + 1; j < n; ++j) {
        int k = list[j].key;
        b = k > best ? j : b;
        best = k > best ? k : best;
    }
    if (b != i) {
        EndMove t = list[i];
        list[i] = list[b];
        list[b] = t;
    }
}

/* The C squares (the edge squares next to a corner) of the corners in b. */
static inline u64 c_squares(u64 b) {
    return ((b & 0x0100000000000001ULL) << 1) | ((b & 0x8000000000000080ULL) >> 1) |
           ((b & 0x0000000000000081ULL) << 8) | ((b & 0x8100000000000000ULL) >> 8);
}

/* Discs of b that are stable for a cheap reason: its corners, and the edge
 * squares next to a corner it holds. */
static inline u64 corner_anchored(u64 b) { return b & (c_squares(b) | CORNERS); }

/* A square's value for the mover, a tie-breaker of fastest-first: the
 * corners and the edges up, the squares next to a corner down, the X
 * squares most. (FFO #40-#59 1.3 % fewer nodes at weight 4, 1.2 % at 2,
 * 1.0 % with the X squares alone, 0.6 % with the second ring down too.) */
static const int8_t SQUARE_VALUE[64] = {
    3,  -1, 1, 1, 1, 1, -1, 3,
    -1, -3, 0, 0, 0, 0, -3, -1,
    1,  0,  0, 0, 0, 0, 0,  1,
    1,  0,  0, 0, 0, 0, 0,  1,
    1,  0,  0, 0, 0, 0, 0,  1,
    1,  0,  0, 0, 0, 0, 0,  1,
    -1, -3, 0, 0, 0, 0, -3, -1,
    3,  -1, 1, 1, 1, 1, -1, 3,
};

/* Fastest-first key of a move to sq that flips f: fewer (corner-weighted)
 * replies is better; then the opponent's potential mobility, parity, the
 * mover's corner-anchored discs, fewer flips (a quiet move leaves the
 * opponent less to work with: 2.8 % fewer nodes on FFO #40-#59 together
 * with the square's value; favouring more flips instead cost 11 % on
 * #40-#57), and the square's value. */
static inline int ff_score(u64 replies, u64 potential, u64 anchored, int odd_region, u64 f,
                           int sq) {
    return -bb_count(replies) * FF_MOB_W - bb_count(replies & CORNERS) * FF_CORNER_W -
           bb_count(potential) * FF_POT_W + bb_count(anchored) * FF_CORNER_STABLE_W +
           (odd_region ? FF_PARITY_W : 0) - bb_count(f) * FF_FLIPS_W +
           SQUARE_VALUE[sq] * FF_SQUARE_W;
}

#ifdef BB_AVX512
/* corner_anchored and ff_score of eight positions, one per 64-bit lane
 * (the same keys: the solver's tree is the same in every build); the
 * square's value is added when the keys are stored. */
static inline __m512i corner_anchored_x8(__m512i b) {
#define LANES(x) _mm512_set1_epi64((long long)(x))
    __m512i next = _mm512_or_si512(
        _mm512_or_si512(_mm512_slli_epi64(_mm512_and_si512(b, LANES(0x0100000000000001ULL)), 1),
                        _mm512_srli_epi64(_mm512_and_si512(b, LANES(0x8000000000000080ULL)), 1)),
        _mm512_or_si512(_mm512_slli_epi64(_mm512_and_si512(b, LANES(0x0000000000000081ULL)), 8),
                        _mm512_srli_epi64(_mm512_and_si512(b, LANES(0x8100000000000000ULL)), 8)));
    return _mm512_and_si512(b, _mm512_or_si512(next, LANES(CORNERS)));
}

/* Per lane: popcount(x) * w, a shift when w is a power of two (the
 * weights are constants); otherwise counts and weights are small and not
 * negative, so a 32-bit product of the low halves is the whole product. */
static inline __m512i count_times(__m512i x, int w) {
    __m512i count = _mm512_popcnt_epi64(x);
    if (w > 0 && (w & (w - 1)) == 0)
        return _mm512_slli_epi64(count, (unsigned)__builtin_ctz((unsigned)w));
    return _mm512_mullo_epi32(count, LANES(w));
}

static inline __m512i ff_score_x8(__m512i replies, __m512i potential, __m512i anchored,
                                  __mmask8 odd_region, __m512i flips) {
    __m512i minus = _mm512_add_epi64(
        _mm512_add_epi64(count_times(replies, FF_MOB_W),
                         count_times(_mm512_and_si512(replies, LANES(CORNERS)), FF_CORNER_W)),
        _mm512_add_epi64(count_times(potential, FF_POT_W), count_times(flips, FF_FLIPS_W)));
    __m512i key = _mm512_sub_epi64(count_times(anchored, FF_CORNER_STABLE_W), minus);
    return _mm512_mask_add_epi64(key, odd_region, key, LANES(FF_PARITY_W));
#undef LANES
}
#endif

/* The key of the move sq (flipping f) from (P, O); *replies gets the
 * opponent's moves after it. */
static inline int ff_key(u64 P, u64 O, int sq, u64 f, u64 odd, u64 *replies) {
    u64 nP = O & ~f, nO = P | f | (1ULL << sq);
    *replies = bb_moves(nP, nO);
    u64 potential = bb_neighbours(nO) & ~(nP | nO); /* the opponent's potential mobility */
    return ff_score(*replies, potential, corner_anchored(nO), (int)(odd >> sq & 1), f, sq);
}

/* The squares next to an empty corner (its C and X squares). */
static inline u64 next_to_empty_corners(u64 empty) {
    u64 c = empty & CORNERS;
    return c_squares(c) | ((c & 0x0000000000000001ULL) << 9) | ((c & 0x0000000000000080ULL) << 7) |
           ((c & 0x0100000000000000ULL) >> 7) | ((c & 0x8000000000000000ULL) >> 9);
}

/* Plain alpha-beta on eval_default, for ordering only. Its value is the
 * same in any move order; the order only decides how soon it cuts: the
 * corners first, the squares next to an empty corner last (3 % less time
 * for the solver, the same tree). */
static int order_ab(Search *s, u64 P, u64 O, int depth, int alpha, int beta) {
    ++s->nodes;
    if (depth == 0) return eval_default(P, O);
    u64 moves = bb_moves(P, O);
    if (!moves) {
        if (!bb_moves(O, P)) return final_discs(P, O) * 100;
        return -order_ab(s, O, P, depth, -beta, -alpha);
    }
    u64 last = moves & next_to_empty_corners(~(P | O));
    const u64 groups[3] = {moves & CORNERS, moves & ~CORNERS & ~last, last};
    int best = -SCORE_INF;
    for (int g = 0; g < 3; ++g)
        for (u64 m = groups[g]; m; m &= m - 1) {
            int sq = bb_first(m);
            u64 f = bb_flips(P, O, sq);
            int v = -order_ab(s, O & ~f, P | f | (1ULL << sq), depth - 1, -beta, -alpha);
            if (v > best) {
                best = v;
                if (v > alpha) {
                    alpha = v;
                    if (alpha >= beta) return best;
                }
            }
        }
    return best;
}

/* Request from tt (if any) the bucket of the child of (P, O) where sq is
 * played, flipping f. */
static inline void prefetch_child(const TT *tt, u64 P, u64 O, int sq, u64 f) {
    if (tt) tt_prefetch(tt, O & ~f, P | f | (1ULL << sq));
}

/* The moves with their flips and fastest-first ordering keys. With a
 * table, each child's bucket is requested as soon as its flips are known,
 * so that the loads overlap the keys' work. */
static int gen_end_moves(u64 P, u64 O, u64 moves, EndMove *list, int tt_move, const TT *tt) {
    int n = 0;
    if (!(moves & (moves - 1))) { /* a single move: nothing to order */
        int sq = bb_first(moves);
        u64 f = bb_flips(P, O, sq);
        prefetch_child(tt, P, O, sq, f);
        list[0] = (EndMove){sq, 0, f, MOVES_UNKNOWN};
        return 1;
    }
    u64 odd = odd_squares(~(P | O));
#ifdef BB_AVX512
    /* ff_key for eight children at once, one per lane. Each lane's flips
     * and square go into the registers directly (masked broadcasts): eight
     * scalar stores read back as one vector would stall the load. */
    for (u64 m = moves; m;) {
        __m512i flips = _mm512_setzero_si512(), played = _mm512_setzero_si512();
        __mmask8 odd_region = 0;
        int first = n;
        for (int k = 0; k < 8 && m; ++k, m &= m - 1) {
            int sq = bb_first(m);
            u64 f = bb_flips(P, O, sq);
            prefetch_child(tt, P, O, sq, f);
            list[n++] = (EndMove){sq, 0, f, MOVES_UNKNOWN};
            __mmask8 lane = (__mmask8)(1u << k);
            flips = _mm512_mask_set1_epi64(flips, lane, (long long)f);
            played = _mm512_mask_set1_epi64(played, lane, (long long)(1ULL << sq));
            odd_region |= (__mmask8)((odd >> sq & 1) << k);
        }
        /* unused lanes hold the parent with the sides swapped; ignored */
        __m512i cp = _mm512_andnot_si512(flips, _mm512_set1_epi64((long long)O));
        __m512i co = _mm512_or_si512(_mm512_set1_epi64((long long)P), _mm512_or_si512(flips, played));
        __m512i empty = _mm512_xor_si512(_mm512_or_si512(cp, co), _mm512_set1_epi64(-1));
        __m512i replies = bb_moves_x8(cp, co);
        __m512i potential = _mm512_and_si512(bb_neighbours_x8(co), empty);
        _Alignas(64) u64 mob[8];
        _Alignas(64) long long key[8];
        _mm512_store_si512(mob, replies);
        _mm512_store_si512(key, ff_score_x8(replies, potential, corner_anchored_x8(co), odd_region,
                                            flips));
        for (int k = first; k < n; ++k) {
            list[k].replies = mob[k - first];
            list[k].key = list[k].sq == tt_move
                              ? 1 << 29
                              : (int)key[k - first] + SQUARE_VALUE[list[k].sq] * FF_SQUARE_W;
        }
    }
#else
    for (u64 m = moves; m; m &= m - 1) {
        int sq = bb_first(m);
        u64 f = bb_flips(P, O, sq);
        prefetch_child(tt, P, O, sq, f);
        u64 replies = MOVES_UNKNOWN;
        int key = sq == tt_move ? (1 << 29) : ff_key(P, O, sq, f, odd, &replies);
        list[n++] = (EndMove){sq, key, f, replies};
    }
#endif
    return n;
}

/* The best move of an endgame entry (exact, or from a selective pass). */
static inline int end_move(const TTEntry *e) { return e && e->move < 64 ? e->move : MOVE_NONE; }

/* The best move known for a node of the principal variation: an endgame
 * entry's, else the pre-search's. (Null-window nodes use only the
 * endgame entries': there the pre-search's choice, the best move by the
 * evaluation, is often a costly refutation where the fastest-first order
 * finds a cheap one. Using it there too cost FFO #40-#59 9 % more nodes
 * and 12 self-play positions of 27 empties 3.6 % more; 30 of 24 empties,
 * where only the root's children have such moves, 1.4 % fewer.) */
static inline int hint_move(const Search *s, const TTEntry *e, u64 P, u64 O) {
    int move = end_move(e);
    if (move != MOVE_NONE) return move;
    TTEntry buf;
    const TTEntry *m = tt_probe(&s->tt, P, O, TT_TAG_ORDER, &buf);
    return m && m->move < 64 && m->depth >= HINT_MIN_DEPTH ? m->move : MOVE_NONE;
}

/* The deep nodes' key of a child searched or evaluated to v: its
 * fastest-first key, v, and the opponent's replies weighted more than in
 * fastest-first alone (they size the subtree a cutting move leaves to
 * prove). */
static inline int deep_key(const EndMove *m, int v) {
    int key = m->key - v * ORDER_EVAL_W / 16;
    if (m->replies != MOVES_UNKNOWN) key -= bb_count(m->replies) * DEEP_MOB_W;
    return key;
}

/* The deep key of child m from an order_ab search of the given depth. */
static inline int searched_key(Search *s, u64 P, u64 O, const EndMove *m, int depth) {
    u64 f = m->flips;
    return deep_key(m, order_ab(s, O & ~f, P | f | (1ULL << m->sq), depth, -SCORE_INF + 1, SCORE_INF));
}

/* The depth of the ordering searches at a node with this many empties
 * (0: an evaluation only). */
static inline int order_depth(int empties) {
    return empties >= SHALLOW4_MIN   ? 4
           : empties >= SHALLOW3_MIN ? 3
           : empties >= SHALLOW2_MIN ? 2
           : empties >= SHALLOW1_MIN ? 1
                                     : 0;
}

/* The children of a null-window node whose ordering keys are only
 * estimates (search_keys), with their fastest-first keys, from which
 * exact_keys searches them exactly if they are needed. */
typedef struct {
    u64 squares;
    int ff_key[64];
} Estimates;

/* Whether child m's deep key reaches `need`: a null-window order_ab
 * search asks whether the child's score u is low enough, and only then is
 * u searched exactly (m->key, return 1); otherwise m->key is an estimate
 * below `need` (return 0). */
static int key_reaches(Search *s, u64 P, u64 O, EndMove *m, int depth, int need,
                       Estimates *est) {
    /* deep_key(m, u) = c - u * ORDER_EVAL_W / 16 does not increase with
     * u: t is the greatest u whose key reaches `need` */
    int c = deep_key(m, 0);
    long long t = ((long long)c - need) * 16 / ORDER_EVAL_W;
    if (t < -2 * SCORE_WIN) t = -2 * SCORE_WIN; /* far beyond any score, in int's range */
    if (t > 2 * SCORE_WIN) t = 2 * SCORE_WIN;
    while (c - t * ORDER_EVAL_W / 16 < need) --t;
    while (c - (t + 1) * ORDER_EVAL_W / 16 >= need) ++t;
    u64 f = m->flips, nP = O & ~f, nO = P | f | (1ULL << m->sq);
    int u = order_ab(s, nP, nO, depth, (int)t, (int)t + 1);
    if (u > t) { /* a lower bound on u: the key is at most deep_key(m, u) < need */
        est->squares |= 1ULL << m->sq;
        est->ff_key[m->sq] = m->key;
        m->key = deep_key(m, u);
        return 0;
    }
    m->key = searched_key(s, P, O, m, depth);
    return 1;
}

/* The keys of list[pick[0..k-1]] from ordering searches of the given
 * depth. Without `est` (a principal-variation node) all are exact. With
 * it (a null-window node), only the first and those that beat the best so
 * far are: that is enough to put first the move that end_pick would pick
 * first with exact keys (the higher key, then the lower index). The
 * others' keys are estimates that stay below it, recorded in *est. */
static void search_keys(Search *s, u64 P, u64 O, EndMove *list, const int *pick, int k, int depth,
                        Estimates *est) {
    if (k < 1) return;
    int b = pick[0];
    list[b].key = searched_key(s, P, O, &list[b], depth);
    for (int j = 1; j < k; ++j) {
        int i = pick[j];
        if (!est)
            list[i].key = searched_key(s, P, O, &list[i], depth);
        else if (key_reaches(s, P, O, &list[i], depth, list[b].key + (i > b), est))
            b = i;
    }
}

/* Deep nodes: fastest-first plus eval_default. Each child is evaluated;
 * from SHALLOW1_MIN empties the ORDER_TOPK best by that key are then
 * searched a few plies deeper (order_ab) and go first, in the order of
 * those searches, the others after them. (Searching every child took 5 %
 * more time on FFO #40-#59 and 2 % more nodes; searching 5 made #53's
 * tree 35 % larger.) At a null-window node most of those searches only
 * ask whether a child beats the best so far (search_keys), and the others'
 * keys are searched exactly only if the first move does not cut
 * (exact_keys): the same order, the same tree, 2.7 % less time on FFO
 * #40-#59 (most nodes cut on their first move). */
static int order_deep_moves(Search *s, u64 P, u64 O, EndMove *list, int n, int tt_move,
                            int empties, Estimates *est) {
    if (n == 1) return 1; /* nothing to order */
    int depth = order_depth(empties);
    int pick[MAX_MOVES], k = 0; /* the table's move keeps its place */
    for (int i = 0; i < n; ++i)
        if (list[i].sq != tt_move) pick[k++] = i;
    if (depth && k <= ORDER_TOPK) { /* search them all, the best fastest-first key first */
        for (int j = 1; j < k; ++j)
            if (list[pick[j]].key > list[pick[0]].key) {
                int t = pick[0];
                pick[0] = pick[j];
                pick[j] = t;
            }
        search_keys(s, P, O, list, pick, k, depth, est);
        return n;
    }
    int key[MAX_MOVES];
    for (int j = 0; j < k; ++j) {
        int i = pick[j];
        u64 f = list[i].flips;
        key[i] = deep_key(&list[i], eval_default(O & ~f, P | f | (1ULL << list[i].sq)));
    }
    if (!depth) {
        for (int j = 0; j < k; ++j) list[pick[j]].key = key[pick[j]];
        return n;
    }
    /* the ORDER_TOPK best by that key, best first, are searched; the others go after them */
    enum { SEARCHED = -(1 << 28) - 1, AFTER = 1 << 24 };
    int top[ORDER_TOPK];
    for (int t = 0; t < ORDER_TOPK; ++t) {
        int b = -1;
        for (int j = 0; j < k; ++j)
            if (key[pick[j]] != SEARCHED && (b < 0 || key[pick[j]] > key[b])) b = pick[j];
        key[b] = SEARCHED;
        top[t] = b;
    }
    for (int j = 0; j < k; ++j)
        if (key[pick[j]] != SEARCHED) list[pick[j]].key = key[pick[j]] - AFTER;
    search_keys(s, P, O, list, top, ORDER_TOPK, depth, est);
    return n;
}

/* After the first move of a null-window node (list[0]) failed to cut it:
 * the exact keys of the moves whose keys order_deep_moves only estimated,
 * so that the others go in the same order as with exact keys throughout. */
static void exact_keys(Search *s, u64 P, u64 O, EndMove *list, int n, const Estimates *est,
                       int empties) {
    int depth = order_depth(empties);
    for (int i = 1; i < n; ++i)
        if (est->squares >> list[i].sq & 1) {
            list[i].key = est->ff_key[list[i].sq]; /* the base that searched_key adds to */
            list[i].key = searched_key(s, P, O, &list[i], depth);
        }
}

/* The moves of a deep node (principal variation), ordered as above. */
static int gen_deep_moves(Search *s, u64 P, u64 O, u64 moves, EndMove *list, int tt_move,
                          int empties) {
    int n = gen_end_moves(P, O, moves, list, tt_move, NULL);
    return order_deep_moves(s, P, O, list, n, tt_move, empties, NULL);
}

/* ------------------------------------------------- probable cut-offs */

#ifndef PC_MIN /* selective passes try probable cut-offs from here */
#define PC_MIN 12
#endif
#define PC_NONE (-SCORE_INF)

/* Depth of the shallow search that predicts a node's exact score, and the
 * margin (1/100 disc) its prediction must clear: first set to the standard
 * deviation of exact score minus prediction measured on 200 self-play
 * positions with 12-24 empties with an earlier, less accurate evaluator
 * (that error is now 4-7 discs, docs/evaluation.md); narrower margins cost
 * more nodes on FFO #40-#49 (750/620/520: +4 %), wider ones gain little
 * (1400/1150/950: -2 %). */
static inline int pc_depth(int empties) { return empties < 14 ? 2 : empties < 20 ? 4 : 6; }
#ifndef PC_SIGMA_2
#define PC_SIGMA_2 1150
#endif
#ifndef PC_SIGMA_4
#define PC_SIGMA_4 950
#endif
#ifndef PC_SIGMA_6
#define PC_SIGMA_6 800
#endif
static inline int pc_sigma(int depth) {
    return depth <= 2 ? PC_SIGMA_2 : depth <= 4 ? PC_SIGMA_4 : PC_SIGMA_6;
}

/* In a selective pass: alpha + 1 when a shallow search says the exact
 * score is very probably above alpha, alpha when very probably not,
 * PC_NONE when it cannot tell. */
static int probable_cut(Search *s, u64 P, u64 O, int alpha, int empties) {
    int d = pc_depth(empties);
    int margin = pc_sigma(d) * s->pc_t / 100;
    int hi = (alpha + 1) * 100 + margin, lo = alpha * 100 - margin;
    if (mid_probe(s, P, O, d, hi - 1, hi) >= hi) return alpha + 1;
    if (mid_probe(s, P, O, d, lo, lo + 1) <= lo) return alpha;
    return PC_NONE;
}

/* The small table's entry for (P, O) (see search.h). */
static inline SmallEntry *small_entry(Search *s, u64 P, u64 O, int empties) {
    u64 h = P * 0x9E3779B97F4A7C15ULL ^ O * 0xC2B2AE3D27D4EB4FULL;
    return &s->end_small[empties - END_SORT_MIN][h >> 40 & (END_SMALL_SIZE - 1)];
}

/* Record the result v of a null-window search at alpha in e, unless a
 * child's search has taken the entry over for another position. */
static inline void small_store(SmallEntry *e, u64 P, u64 O, int alpha, int v) {
    if (e->P != P || e->O != O) return;
    if (v > alpha)
        e->lower = (int8_t)v;
    else
        e->upper = (int8_t)v;
}

/* END_SORT_MIN .. END_TT_MIN-1 empties: the small table, fastest-first. */
static int end_nws_sorted(Search *s, u64 P, u64 O, int alpha, int empties, u64 moves) {
    ++s->nodes;
    if (search_should_stop(s)) return 0;
    int bound;
    if (stability_cut(P, O, alpha, empties, &bound)) return bound;
    moves = known_moves(moves, P, O);
    if (!moves) {
        if (!bb_moves(O, P)) return final_discs(P, O);
        return -end_nws_sorted(s, O, P, -alpha - 1, empties, MOVES_UNKNOWN);
    }
    SmallEntry *e = small_entry(s, P, O, empties);
    if (e->P == P && e->O == O) {
        if (e->lower > alpha) return e->lower;
        if (e->upper <= alpha) return e->upper;
    } else {
        *e = (SmallEntry){P, O, -64, 64};
    }
    EndMove list[MAX_MOVES];
    int n = gen_end_moves(P, O, moves, list, MOVE_NONE, NULL);
    int best = -SCORE_INF;
    for (int i = 0; i < n; ++i) {
        end_pick(list, i, n);
        u64 f = list[i].flips;
        u64 nP = O & ~f, nO = P | f | (1ULL << list[i].sq);
        int v = -end_nws(s, nP, nO, -alpha - 1, empties - 1, list[i].replies);
        if (ABORTED(s)) return 0;
        if (v > alpha) {
            small_store(e, P, O, alpha, v);
            return v;
        }
        if (v > best) best = v;
    }
    small_store(e, P, O, alpha, best);
    return best;
}

/* Split points of the solver: null-window and principal-variation nodes
 * with at least END_SPLIT_MIN empties (the root too), after their first
 * move (the table's move, or the first of the sorted list). */
#ifndef END_SPLIT_MIN
#define END_SPLIT_MIN 14
#endif

/* A worker at a split point of end_nws_tt: its move loop. */
static void end_nws_run(Search *t, SplitPoint *sp) {
    EndMove *list = sp->list;
    int alpha = sp->alpha, empties = sp->depth;
    u64 P = sp->P, O = sp->O;
    while (!ABORTED(t)) {
        sp_lock(sp);
        if (sp->cut || sp->next >= sp->n) {
            sp_unlock(sp);
            break;
        }
        int i = sp->next++;
        end_pick(list, i, sp->n);
        EndMove m = list[i];
        sp_unlock(sp);
        u64 nP = O & ~m.flips, nO = P | m.flips | (1ULL << m.sq);
        int v = -end_nws(t, nP, nO, -alpha - 1, empties - 1, m.replies);
        if (ABORTED(t)) break;
        sp_lock(sp);
        if (v > sp->best) {
            sp->best = v;
            sp->best_move = m.sq;
            if (v > alpha) par_cut(sp, t);
        }
        sp_unlock(sp);
    }
}

static int end_nws_tt(Search *s, u64 P, u64 O, int alpha, int empties, u64 moves) {
    ++s->nodes;
    if (search_should_stop(s)) return 0;
    tt_prefetch(&s->tt, P, O);
    int bound;
    if (stability_cut(P, O, alpha, empties, &bound)) return bound;
    TTEntry buf;
    const TTSlot *slot = NULL;
    const TTEntry *e = tt_probe_slot(&s->tt, P, O, TT_TAG_END, &buf, &slot);
    if (e && e->prec >= s->end_prec) {
        if (e->lower > alpha) return e->lower;
        if (e->upper <= alpha) return e->upper;
    }
    if (s->end_prec != TT_PREC_EXACT && empties >= PC_MIN) {
        int v = probable_cut(s, P, O, alpha, empties);
        /* The shallow searches may have written the entry's slot over (the
         * same position's midgame entry shares its bucket): its move is
         * then taken from what the slot holds now. That is how the solver
         * always read it (a pointer into the table), and the tree it
         * searches stays the same by reading it so. */
        if (e) tt_decode(slot, &buf);
        if (v != PC_NONE) {
            if (ABORTED(s)) return 0; /* the shallow search was cut short */
            tt_store_prec(&s->tt, P, O, TT_TAG_END, empties, alpha, alpha + 1, v,
                          e ? e->move : MOVE_NONE, s->end_prec);
            return v;
        }
    }
    int tt_move = end_move(e);
    moves = known_moves(moves, P, O);
    if (!moves) {
        if (!bb_moves(O, P)) return final_discs(P, O);
        return -end_nws_tt(s, O, P, -alpha - 1, empties, MOVES_UNKNOWN);
    }
    int best = -SCORE_INF, best_move = MOVE_NONE;
    if (tt_move != MOVE_NONE && (moves >> tt_move & 1)) { /* the known best move before any sorting */
        u64 f = bb_flips(P, O, tt_move);
        best = -end_nws(s, O & ~f, P | f | (1ULL << tt_move), -alpha - 1, empties - 1,
                        MOVES_UNKNOWN);
        if (ABORTED(s)) return 0;
        best_move = tt_move;
        moves &= ~(1ULL << tt_move);
        if (best > alpha || !moves) {
            tt_store_prec(&s->tt, P, O, TT_TAG_END, empties, alpha, alpha + 1, best, best_move,
                          s->end_prec);
            return best;
        }
    }
    /* The children's buckets are requested while their keys are computed
     * (the misses overlap each other and that work); from END_ETC_MIN
     * empties they are then probed for an enhanced transposition cut-off.
     * Where the deep nodes' ordering is only an evaluation of each child
     * it comes before the probes too, as more work to hide their wait
     * (wasted at the 5-12 % of nodes the cut-off ends); the ordering
     * searches from SHALLOW1_MIN cost more and come after. */
    EndMove list[MAX_MOVES];
    Estimates est; /* children whose ordering keys are estimates (order_deep_moves) */
    est.squares = 0;
    int n = gen_end_moves(P, O, moves, list, MOVE_NONE, empties > END_TT_MIN ? &s->tt : NULL);
    int ordered = empties >= SHALLOW0_MIN && empties < SHALLOW1_MIN;
    if (ordered) n = order_deep_moves(s, P, O, list, n, MOVE_NONE, empties, &est);
    if (empties >= END_ETC_MIN)
        for (int i = 0; i < n; ++i) {
            u64 f = list[i].flips;
            TTEntry cbuf;
            const TTEntry *c =
                tt_probe(&s->tt, O & ~f, P | f | (1ULL << list[i].sq), TT_TAG_END, &cbuf);
            if (c && c->prec >= s->end_prec && -c->upper > alpha) return -c->upper;
        }
    if (empties >= SHALLOW0_MIN && !ordered)
        n = order_deep_moves(s, P, O, list, n, MOVE_NONE, empties, &est);
    for (int i = 0; i < n; ++i) {
        if (i == 1 && est.squares) exact_keys(s, P, O, list, n, &est, empties);
        if (best_move != MOVE_NONE && i + 1 < n && empties >= END_SPLIT_MIN && par_can_split(s)) {
            if (i == 0 && est.squares) { /* the table's move came first: the order of the rest */
                end_pick(list, 0, n);
                exact_keys(s, P, O, list, n, &est, empties);
                est.squares = 0;
            }
            SplitPoint sp;
            sp.run = end_nws_run;
            sp.P = P;
            sp.O = O;
            sp.alpha = alpha;
            sp.beta = alpha + 1;
            sp.depth = empties;
            sp.list = list;
            sp.n = n;
            sp.next = i;
            sp.best = best;
            sp.best_move = best_move;
            sp.line_len = 0;
            if (par_split(s, &sp)) {
                if (ABORTED(s)) return 0;
                best = sp.best;
                best_move = sp.best_move;
                break;
            }
        }
        end_pick(list, i, n);
        if (i >= 1 && i + 1 < n && empties - 1 >= END_ETC_MIN) { /* probably an all-node */
            /* every child will be searched: the next one's bucket is
             * requested again while this one is (requested with the keys,
             * it may have left the cache during the searches before) */
            end_pick(list, i + 1, n);
            prefetch_child(&s->tt, P, O, list[i + 1].sq, list[i + 1].flips);
        }
        u64 f = list[i].flips;
        u64 nP = O & ~f, nO = P | f | (1ULL << list[i].sq);
        int v = -end_nws(s, nP, nO, -alpha - 1, empties - 1, list[i].replies);
        if (ABORTED(s)) return 0;
        if (v > best) {
            best = v;
            best_move = list[i].sq;
            if (v > alpha) break;
        }
    }
    tt_store_prec(&s->tt, P, O, TT_TAG_END, empties, alpha, alpha + 1, best, best_move, s->end_prec);
    return best;
}

static int end_nws(Search *s, u64 P, u64 O, int alpha, int empties, u64 moves) {
    STAT(empties);
    if (empties >= END_TT_MIN) return end_nws_tt(s, P, O, alpha, empties, moves);
    if (empties >= END_SORT_MIN) return end_nws_sorted(s, P, O, alpha, empties, moves);
    if (empties >= 5) return end_nws_parity(s, P, O, alpha, empties, moves);
    int x[4];
    int n = parity_squares(~(P | O), x);
    switch (n) {
    case 4: return solve_4(s, P, O, alpha, x);
    case 3: return solve_3(s, P, O, alpha, x[0], x[1], x[2]);
    case 2: return solve_2(s, P, O, alpha, x[0], x[1]);
    case 1: return solve_1(s, P, O, alpha, x[0]);
    default: ++s->nodes; return final_discs(P, O);
    }
}

static inline void pv_set(Search *s, int ply, int move) {
    if (ply + 1 >= MAX_PLY) return;
    s->pv[ply][0] = move;
    int n = s->pv_len[ply + 1];
    memcpy(&s->pv[ply][1], s->pv[ply + 1], (size_t)n * sizeof(int));
    s->pv_len[ply] = n + 1;
}

static int end_pvs(Search *s, u64 P, u64 O, int alpha, int beta, int empties, int ply);

/* A worker at a split point of end_pvs: null-window searches, re-searched
 * with the window of the moment when they fail high. */
static void end_pvs_run(Search *t, SplitPoint *sp) {
    EndMove *list = sp->list;
    int beta = sp->beta, empties = sp->depth, ply = sp->ply;
    u64 P = sp->P, O = sp->O;
    while (!ABORTED(t)) {
        sp_lock(sp);
        if (sp->cut || sp->next >= sp->n) {
            sp_unlock(sp);
            break;
        }
        int i = sp->next++;
        end_pick(list, i, sp->n);
        EndMove m = list[i];
        int a = sp->alpha;
        sp_unlock(sp);
        u64 nP = O & ~m.flips, nO = P | m.flips | (1ULL << m.sq);
        int v = -end_nws(t, nP, nO, -a - 1, empties - 1, m.replies);
        if (v > a && v < beta && !ABORTED(t)) {
            a = par_alpha_now(sp, a);
            if (a < beta) v = -end_pvs(t, nP, nO, -beta, -a, empties - 1, ply + 1);
        }
        if (ABORTED(t)) break;
        par_node_record(sp, t, v, m.sq, beta, 1);
    }
}

/* Full-window PVS with a principal variation. */
static int end_pvs(Search *s, u64 P, u64 O, int alpha, int beta, int empties, int ply) {
    s->pv_len[ply] = 0;
    ++s->nodes;
    if (search_should_stop(s)) return 0;
    if (empties == 0) return final_discs(P, O);
    u64 moves = bb_moves(P, O);
    if (!moves) {
        if (!bb_moves(O, P)) return final_discs(P, O);
        int v = -end_pvs(s, O, P, -beta, -alpha, empties, ply + 1);
        pv_set(s, ply, MOVE_PASS);
        return v;
    }
    TTEntry buf;
    const TTEntry *e = tt_probe(&s->tt, P, O, TT_TAG_END, &buf);
    int tt_move = hint_move(s, e, P, O);
    EndMove list[MAX_MOVES];
    int n = empties >= SHALLOW0_MIN ? gen_deep_moves(s, P, O, moves, list, tt_move, empties)
                                    : gen_end_moves(P, O, moves, list, tt_move, NULL);
    int best = -SCORE_INF, best_move = MOVE_NONE, a = alpha;
    for (int i = 0; i < n; ++i) {
        if (i > 0 && i + 1 < n && empties >= END_SPLIT_MIN && par_can_split(s)) {
            SplitPoint sp;
            sp.run = end_pvs_run;
            sp.P = P;
            sp.O = O;
            sp.alpha = a;
            sp.beta = beta;
            sp.depth = empties;
            sp.ply = ply;
            sp.list = list;
            sp.n = n;
            sp.next = i;
            sp.best = best;
            sp.best_move = best_move;
            sp.line_len = 0;
            if (par_split(s, &sp)) {
                if (ABORTED(s)) return 0;
                best = sp.best;
                best_move = sp.best_move;
                if (sp.line_len) {
                    memcpy(s->pv[ply], sp.line, (size_t)sp.line_len * sizeof(int));
                    s->pv_len[ply] = sp.line_len;
                }
                break;
            }
        }
        end_pick(list, i, n);
        u64 f = list[i].flips;
        u64 nP = O & ~f, nO = P | f | (1ULL << list[i].sq);
        int v;
        if (i == 0) {
            v = -end_pvs(s, nP, nO, -beta, -a, empties - 1, ply + 1);
        } else {
            v = -end_nws(s, nP, nO, -a - 1, empties - 1, list[i].replies);
            if (v > a && v < beta && !ABORTED(s))
                v = -end_pvs(s, nP, nO, -beta, -a, empties - 1, ply + 1);
        }
        if (ABORTED(s)) return 0;
        if (v > best) {
            best = v;
            best_move = list[i].sq;
            if (v > a) {
                a = v;
                pv_set(s, ply, best_move);
                if (a >= beta) break;
            }
        }
    }
    if (empties >= END_TT_MIN)
        tt_store_prec(&s->tt, P, O, TT_TAG_END, empties, alpha, beta, best, best_move, s->end_prec);
    return best;
}

/* ------------------------------------------------------------- root */

void end_enter(Search *s, EvalState *saved) {
    saved->ev = s->ev;
    saved->eval_tag = s->eval_tag;
    saved->reversi = s->reversi;
    s->ev.kind = EVAL_DEFAULT;
    s->eval_tag = TT_TAG_ORDER;
    s->reversi = 0;
}

void end_leave(Search *s, const EvalState *saved) {
    s->ev = saved->ev;
    s->eval_tag = saved->eval_tag;
    s->reversi = saved->reversi;
}

int end_presearch(Search *s, u64 P, u64 O, RootMove *moves, int n) {
    int empties = 64 - bb_count(P | O);
    int depth = empties - PRESEARCH_OFFSET;
    if (depth > PRESEARCH_MAX) depth = PRESEARCH_MAX;
    if (depth < 2) depth = 2;
    RootMove work[MAX_MOVES];
    int score = 0;
    for (int d = 1; d <= depth; ++d) {
        memcpy(work, moves, sizeof(RootMove) * (size_t)n);
        int v = mid_root(s, P, O, d, work, n, 0);
        if (ABORTED(s)) break;
        memcpy(moves, work, sizeof(RootMove) * (size_t)n);
        score = v;
        s->presearch_depth = d;
    }
    if (score >= SCORE_WIN) return score - SCORE_WIN;
    if (score <= -SCORE_WIN) return score + SCORE_WIN;
    score /= 100;
    return score > 64 ? 64 : score < -64 ? -64 : score;
}

/* A worker at the root's split point (end_root's loop below its first
 * move; every move in analyze mode). */
static void end_root_run(Search *t, SplitPoint *sp) {
    int beta = sp->beta, empties = sp->depth, analyze = sp->analyze;
    u64 P = sp->P, O = sp->O;
    int a, i;
    while (!ABORTED(t) && (i = par_root_claim(sp, &a)) >= 0) {
        RootMove *rm = &sp->moves[i];
        int pass = rm->square == MOVE_PASS;
        u64 bit = pass ? 0 : 1ULL << rm->square;
        u64 nP = O & ~rm->flips, nO = P | rm->flips | bit;
        int ce = pass ? empties : empties - 1;
        int v, full = 1;
        ++t->nodes;
        if (analyze) { /* a: the analysis floor, raised by par_root_record */
            v = -end_pvs(t, nP, nO, -beta, -a, ce, 1);
            full = v > a || a <= -64; /* -64 is exact: no score lies below it */
        } else {
            v = -end_nws(t, nP, nO, -a - 1, ce, MOVES_UNKNOWN);
            full = 0;
            if (v > a && v < beta && !ABORTED(t)) {
                a = par_alpha_now(sp, a);
                if (a < beta) {
                    v = -end_pvs(t, nP, nO, -beta, -a, ce, 1);
                    full = 1;
                }
            }
        }
        if (ABORTED(t)) break;
        par_root_record(sp, t, rm, v, full);
    }
}

int end_root(Search *s, u64 P, u64 O, int alpha, int beta, RootMove *moves, int n, int analyze) {
    int empties = 64 - bb_count(P | O);
    int best = -SCORE_INF, a = alpha;
    int root_pv[MAX_PLY], root_pv_len = 0;
    for (int i = 0; i < n; ++i) moves[i].searched = moves[i].upper = 0;
    for (int i = 0; i < n; ++i) {
        /* a window's analysis splits after its first move, which sets the floor */
        if ((i > 0 || analyze == ANALYZE_EXACT) && i + 1 < n && empties >= END_SPLIT_MIN &&
            par_can_split(s)) {
            SplitPoint sp;
            sp.run = end_root_run;
            sp.P = P;
            sp.O = O;
            sp.alpha = analyze ? analysis_floor(moves, n, alpha, best, analyze) : a;
            sp.beta = beta;
            sp.depth = empties;
            sp.analyze = analyze;
            sp.moves = moves;
            sp.n = n;
            sp.next = i;
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
        int pass = rm->square == MOVE_PASS;
        u64 bit = pass ? 0 : 1ULL << rm->square;
        u64 nP = O & ~rm->flips, nO = P | rm->flips | bit;
        int ce = pass ? empties : empties - 1;
        int v, lo = analyze ? analysis_floor(moves, n, alpha, best, analyze) : a;
        ++s->nodes;
        if (analyze || i == 0) {
            v = -end_pvs(s, nP, nO, -beta, -lo, ce, 1);
        } else {
            v = -end_nws(s, nP, nO, -a - 1, ce, MOVES_UNKNOWN);
            if (v > a && v < beta && !ABORTED(s)) v = -end_pvs(s, nP, nO, -beta, -a, ce, 1);
        }
        if (ABORTED(s)) break;
#ifdef ENDSTATS
        fprintf(stderr, "root %d: move %d score %d window %d nodes %llu\n", i, rm->square, v, a,
                (unsigned long long)s->nodes);
#endif
        rm->score = v;
        rm->searched = 1;
        rm->upper = v <= lo && lo > -64; /* -64 is exact: no score lies below it */
        if (v > best) {
            best = v;
            root_line_record(s, rm->square, root_pv, &root_pv_len);
            if (!analyze && v > a) a = v;
            if (!analyze && a >= beta) break;
        }
    }
#ifdef ENDSTATS
    for (int e = 0; e <= 64; ++e)
        if (end_stats[e]) fprintf(stderr, "%d:%llu ", e, end_stats[e]);
    fprintf(stderr, "\n");
    memset(end_stats, 0, sizeof end_stats);
#endif
    root_finish(s, moves, n, root_pv, root_pv_len);
    return best;
}

#ifndef ASPIRE_WIDTH /* half-width of the first root window around the estimate */
#define ASPIRE_WIDTH 3
#endif

int end_root_aspire(Search *s, u64 P, u64 O, int alpha, int beta, int estimate, RootMove *moves,
                    int n) {
    if (beta - alpha <= 2) return end_root(s, P, O, alpha, beta, moves, n, 0);
    RootMove order[MAX_MOVES];
    memcpy(order, moves, sizeof(RootMove) * (size_t)n);
    int lo = estimate - ASPIRE_WIDTH, hi = estimate + ASPIRE_WIDTH;
    if (lo < alpha) lo = alpha;
    if (hi > beta) hi = beta;
    if (hi - lo < 2) { lo = hi - 2 < alpha ? alpha : hi - 2; hi = lo + 2 > beta ? beta : lo + 2; }
    for (int round = 0;; ++round) {
        if (round == 4) { /* an unstable (selective) search: give up the window */
            lo = alpha;
            hi = beta;
        }
        int v = end_root(s, P, O, lo, hi, moves, n, 0);
        if (ABORTED(s)) return v;
        if (v <= lo && lo > alpha) { /* fail low: every move scored an upper bound */
            memcpy(moves, order, sizeof(RootMove) * (size_t)n);
            hi = v + 1 > lo + 1 ? lo + 1 : v + 1;
            if (hi > beta) hi = beta;
            lo = alpha;
        } else if (v >= hi && hi < beta) { /* fail high: the first move stays first */
            lo = v - 1 < hi - 1 ? hi - 1 : v - 1;
            if (lo < alpha) lo = alpha;
            hi = beta;
        } else {
            return v;
        }
    }
}

#ifndef SEL_MIN /* selective passes before an exact solve from this many empties */
#define SEL_MIN 20
#endif
/* Their probable cut-off margins, in 1/100 standard deviations. */
#ifndef SEL_LIST
#define SEL_LIST 100
#endif
static const int SEL_T[] = {SEL_LIST};
#define SEL_PASSES ((int)(sizeof SEL_T / sizeof SEL_T[0]))

/* The pre-search, then the selective passes (from min_empties empties);
 * returns the estimate (discs). */
static int end_prepare(Search *s, u64 P, u64 O, int alpha, int beta, RootMove *moves, int n,
                       int min_empties) {
    int empties = 64 - bb_count(P | O);
    int estimate = end_presearch(s, P, O, moves, n);
    if (empties >= min_empties && !ABORTED(s)) {
        for (int k = 0; k < SEL_PASSES && !ABORTED(s); ++k) {
            s->end_prec = k + 1;
            s->pc_t = SEL_T[k];
            int v = end_root_aspire(s, P, O, alpha, beta, estimate, moves, n);
            if (!ABORTED(s)) estimate = v;
#ifdef SELSTATS
            fprintf(stderr, "pass t=%d: %d (%d) nodes %llu\n", SEL_T[k], v, moves[0].square,
                    (unsigned long long)s->nodes);
#endif
        }
    }
    s->end_prec = TT_PREC_EXACT;
    s->pc_t = 0;
    return estimate;
}

int end_probable(Search *s, u64 P, u64 O, int alpha, int beta, RootMove *moves, int n) {
    return end_prepare(s, P, O, alpha, beta, moves, n, 0);
}

int end_solve(Search *s, u64 P, u64 O, int alpha, int beta, RootMove *moves, int n) {
    int estimate = end_prepare(s, P, O, alpha, beta, moves, n, SEL_MIN);
    if (ABORTED(s)) return estimate;
    int v = end_root_aspire(s, P, O, alpha, beta, estimate, moves, n);
    if (ABORTED(s)) return moves[0].searched ? moves[0].score : estimate;
    return v;
}

int end_analyze(Search *s, u64 P, u64 O, int alpha, int beta, RootMove *moves, int n,
                int window) {
    int estimate = end_prepare(s, P, O, alpha, beta, moves, n, SEL_MIN);
    if (ABORTED(s)) return estimate;
    int v = end_root(s, P, O, alpha, beta, moves, n, window);
    if (ABORTED(s)) return moves[0].searched ? moves[0].score : estimate;
    return v;
}

/* floor(a / b) for b > 0 */
static inline int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

int end_midgame_value(Search *s, u64 P, u64 O, int alpha, int beta, int ply) {
    /* the window in whole discs, within the solver's -64..64 */
    if (alpha >= 6400) return 6400;
    if (beta <= -6400) return -6400;
    int a = alpha < -6400 ? -64 : floor_div(alpha, 100);
    int b = beta > 6400 ? 64 : -floor_div(-beta, 100);
    int empties = 64 - bb_count(P | O), v;
    EvalState saved;
    end_enter(s, &saved);
    if (b - a <= 1)
        v = end_nws(s, P, O, a, empties, MOVES_UNKNOWN);
    else
        v = end_pvs(s, P, O, a, b, empties, ply);
    end_leave(s, &saved);
    return v * 100;
}
