/*
 * eval_default.c - the "default" evaluator.
 *
 * A linear model whose weights depend on the game phase (number of empty
 * squares), over:
 *   - 4 edge patterns (the 8 squares of each edge, base-3 index, one table
 *     shared up to mirroring),
 *   - 4 corner patterns (the 3x3 block at each corner, a shared table up to
 *     the diagonal reflection),
 *   - numeric features (mover minus opponent): mobility, potential mobility,
 *     stable discs, discs, parity, corners, plus a constant.
 * The weights are fitted to game results and exact endgame scores by
 * scripts/train_eval.py, which writes eval_weights.h (weights at a few
 * anchor phases, interpolated linearly here). Without fitted weights the
 * evaluator falls back to hand weights. Every feature is invariant under
 * the 8 board symmetries, so the score is too.
 */
#include "eval_default.h"

#include <string.h>

#include "eval_weights.h"

#define CORNERS 0x8100000000000081ULL
#define EDGE_A 0x0101010101010101ULL
#define EDGE_H 0x8080808080808080ULL
#define EDGE_1 0x00000000000000FFULL
#define EDGE_8 0xFF00000000000000ULL

/* Masks of the 15 + 15 diagonals. */
static u64 diag_masks[15];  /* squares with equal row - col */
static u64 adiag_masks[15]; /* squares with equal row + col */
/* Base-3 value of an 8-bit set (digit k = 1 where bit k is set). */
static int b3[256];
/* Raw base-3 pattern index -> canonical id. */
static short edge_canon[6561];
static short corner_canon[19683];
/* Fitted weights per number of empties 0..60 (built from the anchors). */
#if EVALW_FITTED
static short w_pat[61][EVAL_PAT_WEIGHTS];
static int w_num[61][EVAL_NUM + 1]; /* last: constant */
#endif
static int initialised;

static int pow3(int k) {
    int v = 1;
    while (k-- > 0) v *= 3;
    return v;
}

static void build_canon(void) {
    /* Edges: mirror = reverse the 8 digits. */
    int next = 0;
    for (int i = 0; i < 6561; ++i) edge_canon[i] = -1;
    for (int i = 0; i < 6561; ++i) {
        if (edge_canon[i] >= 0) continue;
        int m = 0, x = i;
        for (int k = 0; k < 8; ++k, x /= 3) m += (x % 3) * pow3(7 - k);
        edge_canon[i] = edge_canon[m] = (short)next++;
    }
    /* Corners: digit r*3+c; reflection swaps r and c. */
    next = 0;
    for (int i = 0; i < 19683; ++i) corner_canon[i] = -1;
    for (int i = 0; i < 19683; ++i) {
        if (corner_canon[i] >= 0) continue;
        int m = 0;
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) m += (i / pow3(r * 3 + c) % 3) * pow3(c * 3 + r);
        corner_canon[i] = corner_canon[m] = (short)next++;
    }
}

#if EVALW_FITTED
/* Interpolate the anchor weights to every number of empties. */
static void build_weights(void) {
    static const int anchors[EVALW_ANCHORS] = EVALW_ANCHOR_EMPTIES;
    for (int e = 0; e <= 60; ++e) {
        int a = 0;
        while (a + 1 < EVALW_ANCHORS && anchors[a + 1] <= e) ++a;
        int b = a + 1 < EVALW_ANCHORS ? a + 1 : a;
        int span = anchors[b] - anchors[a];
        int t = span > 0 ? e - anchors[a] : 0; /* weight of b: t / span */
        if (t < 0) t = 0;
        if (span > 0 && t > span) t = span;
        int s = span > 0 ? span : 1;
        for (int i = 0; i < EVAL_PAT_WEIGHTS; ++i)
            w_pat[e][i] = (short)((evalw_pat[a][i] * (s - t) + evalw_pat[b][i] * t) / s);
        for (int i = 0; i <= EVAL_NUM; ++i)
            w_num[e][i] = (evalw_num[a][i] * (s - t) + evalw_num[b][i] * t) / s;
    }
}
#endif

void eval_default_init(void) {
    if (initialised) return;
    memset(diag_masks, 0, sizeof diag_masks);
    memset(adiag_masks, 0, sizeof adiag_masks);
    for (int sq = 0; sq < 64; ++sq) {
        int r = sq / 8, c = sq % 8;
        diag_masks[r - c + 7] |= 1ULL << sq;
        adiag_masks[r + c] |= 1ULL << sq;
    }
    for (int i = 0; i < 256; ++i) {
        int v = 0;
        for (int k = 0; k < 8; ++k)
            if (i >> k & 1) v += pow3(k);
        b3[i] = v;
    }
    build_canon();
#if EVALW_FITTED
    build_weights();
#endif
    initialised = 1;
}

int eval_default_fitted(void) { return EVALW_FITTED; }

/* Squares whose row / column / diagonals are completely filled. */
static void full_lines(u64 filled, u64 *h, u64 *v, u64 *d, u64 *a) {
    u64 fh = 0, col = filled;
    for (int r = 0; r < 8; ++r) {
        u64 row = 0xFFULL << (8 * r);
        if ((filled & row) == row) fh |= row;
    }
    col &= col >> 32;
    col &= col >> 16;
    col &= col >> 8; /* byte 0: the columns full in every row */
    u64 fd = 0, fa = 0;
    for (int i = 0; i < 15; ++i) {
        if ((filled & diag_masks[i]) == diag_masks[i]) fd |= diag_masks[i];
        if ((filled & adiag_masks[i]) == adiag_masks[i]) fa |= adiag_masks[i];
    }
    *h = fh;
    *v = (col & 0xFF) * 0x0101010101010101ULL;
    *d = fd;
    *a = fa;
}

/* Closed directions (see stable_from) for every square, from the full lines. */
typedef struct {
    u64 h, v, d, a;
} closed_t;

static inline closed_t closed_lines(u64 filled) {
    closed_t c;
    full_lines(filled, &c.h, &c.v, &c.d, &c.a);
    c.h |= EDGE_A | EDGE_H;
    c.v |= EDGE_1 | EDGE_8;
    c.d |= EDGE_A | EDGE_H | EDGE_1 | EDGE_8;
    c.a |= EDGE_A | EDGE_H | EDGE_1 | EDGE_8;
    return c;
}

/* A direction is closed for a disc if its line is full, the disc lies on
 * the border across that direction, or a stable disc of the same colour is
 * its neighbour in that direction (either side). Iterated to a fixed point. */
static inline u64 stable_from(u64 P, const closed_t *c) {
    u64 s = P & c->h & c->v & c->d & c->a, prev;
    if (!s) return 0;
    do {
        prev = s;
        u64 h = c->h | ((s << 1) & NOT_A_FILE) | ((s >> 1) & NOT_H_FILE);
        u64 v = c->v | (s << 8) | (s >> 8);
        u64 d = c->d | ((s << 9) & NOT_A_FILE) | ((s >> 9) & NOT_H_FILE);
        u64 a = c->a | ((s << 7) & NOT_H_FILE) | ((s >> 7) & NOT_A_FILE);
        s |= P & h & v & d & a;
    } while (s != prev);
    return s;
}

u64 eval_stable_discs(u64 P, u64 O) {
    closed_t c = closed_lines(P | O);
    return stable_from(P, &c);
}

/* Mirror the columns (a <-> h) of every row. */
static inline u64 flip_h(u64 x) {
    x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
    x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
    x = ((x >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((x & 0x0F0F0F0F0F0F0F0FULL) << 4);
    return x;
}

static inline u64 flip_v(u64 x) { return __builtin_bswap64(x); }

/* Column a as a byte: row r -> bit r. */
static inline int col_a(u64 x) { return (int)(((x & EDGE_A) * 0x0102040810204080ULL) >> 56); }

/* Canonical id of a line of 8 given as a byte of the mover and of the opponent. */
static inline int line_id(u64 p, u64 o) {
    return edge_canon[b3[p & 0xFF] + 2 * b3[o & 0xFF]];
}

/* Column c (0 = a) as a byte: row r -> bit r. */
static inline u64 col(u64 x, int c) { return (u64)col_a(x >> c); }


/* 3x3 block at a1: digit r*3+c. */
static inline int corner_index(u64 P, u64 O) {
    int p = (int)((P & 7) | ((P >> 5) & 0x38) | ((P >> 10) & 0x1C0));
    int o = (int)((O & 7) | ((O >> 5) & 0x38) | ((O >> 10) & 0x1C0));
    /* bits of p are digit positions 0..8 (r*3+c); base-3 with digits 1/2. */
    return b3[p & 0xFF] + (p >> 8) * 6561 + 2 * (b3[o & 0xFF] + (o >> 8) * 6561);
}

void eval_default_features(u64 P, u64 O, int pat[EVAL_PATTERNS], int num[EVAL_NUM]) {
    u64 empty = ~(P | O);
    int n_empty = bb_count(empty);
    /* edges */
    pat[0] = EVAL_OFF_EDGE + line_id(P, O);
    pat[1] = EVAL_OFF_EDGE + line_id(P >> 56, O >> 56);
    pat[2] = EVAL_OFF_EDGE + line_id(col(P, 0), col(O, 0));
    pat[3] = EVAL_OFF_EDGE + line_id(col(P, 7), col(O, 7));
    /* corners */
    u64 Ph = flip_h(P), Oh = flip_h(O);
    pat[4] = EVAL_OFF_CORNER + corner_canon[corner_index(P, O)];
    pat[5] = EVAL_OFF_CORNER + corner_canon[corner_index(Ph, Oh)];
    pat[6] = EVAL_OFF_CORNER + corner_canon[corner_index(flip_v(P), flip_v(O))];
    pat[7] = EVAL_OFF_CORNER + corner_canon[corner_index(flip_v(Ph), flip_v(Oh))];

    num[0] = bb_count(bb_moves(P, O)) - bb_count(bb_moves(O, P));
    num[1] = bb_count(bb_neighbours(O) & empty) - bb_count(bb_neighbours(P) & empty);
    closed_t c = closed_lines(P | O); /* shared by both colours */
    num[2] = bb_count(stable_from(P, &c)) - bb_count(stable_from(O, &c));
    num[3] = bb_count(P) - bb_count(O);
    num[4] = (n_empty & 1) ? 1 : -1;
    num[5] = bb_count(P & CORNERS) - bb_count(O & CORNERS);
}

/* Hand weights: used until fitted weights exist. */
static int eval_hand(u64 P, u64 O, const int num[EVAL_NUM]) {
    static const int corner[4] = {0, 7, 56, 63};
    static const u64 xsq[4] = {1ULL << 9, 1ULL << 14, 1ULL << 49, 1ULL << 54};
    static const u64 csq[4] = {(1ULL << 1) | (1ULL << 8), (1ULL << 6) | (1ULL << 15),
                               (1ULL << 57) | (1ULL << 48), (1ULL << 62) | (1ULL << 55)};
    u64 empty = ~(P | O);
    int t = 60 - bb_count(empty);
    if (t < 0) t = 0;
    int x = 0, c = 0;
    for (int i = 0; i < 4; ++i) {
        if (empty >> corner[i] & 1) {
            x += ((P & xsq[i]) != 0) - ((O & xsq[i]) != 0);
            c += bb_count(P & csq[i]) - bb_count(O & csq[i]);
        }
    }
    int w_disc = t < 40 ? -8 : (t - 40) * 5 - 8;
    return (110 - t) * num[0] + (45 - t / 2) * num[1] + (80 + 2 * t) * num[2] +
           w_disc * num[3] + 40 * num[4] + (850 - 5 * t) * num[5] - (450 - 5 * t) * x -
           (120 - t) * c;
}

int eval_default_hand(u64 P, u64 O) {
    int pat[EVAL_PATTERNS], num[EVAL_NUM];
    eval_default_features(P, O, pat, num);
    return eval_hand(P, O, num);
}

int eval_default(u64 P, u64 O) {
    int pat[EVAL_PATTERNS], num[EVAL_NUM];
    eval_default_features(P, O, pat, num);
#if EVALW_FITTED
    int e = bb_count(~(P | O));
    if (e > 60) e = 60;
    const short *wp = w_pat[e];
    const int *wn = w_num[e];
    int s = wn[EVAL_NUM];
    for (int i = 0; i < EVAL_PATTERNS; ++i) s += wp[pat[i]];
    for (int i = 0; i < EVAL_NUM; ++i) s += wn[i] * num[i];
    return s;
#else
    return eval_hand(P, O, num);
#endif
}
