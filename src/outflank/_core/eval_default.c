/*
 * eval_default.c - the "default" evaluator: hand-weighted first version.
 *
 * Features (all differences mover minus opponent): mobility, potential
 * mobility (empty squares next to the opponent's discs), corners, X and C
 * squares next to empty corners, stable discs, parity and, late, discs.
 * Weights move linearly from the opening to the endgame with the number of
 * empty squares. Every feature is invariant under the 8 board symmetries.
 */
#include "eval_default.h"

#define CORNERS 0x8100000000000081ULL
#define X_SQUARES 0x0042000000004200ULL

/* Masks of the 15 + 15 diagonals, filled once. */
static u64 diag_masks[15];  /* squares with equal row - col */
static u64 adiag_masks[15]; /* squares with equal row + col */
static int initialised;

void eval_default_init(void) {
    if (initialised) return;
    for (int i = 0; i < 15; ++i) diag_masks[i] = adiag_masks[i] = 0;
    for (int sq = 0; sq < 64; ++sq) {
        int r = sq / 8, c = sq % 8;
        diag_masks[r - c + 7] |= 1ULL << sq;
        adiag_masks[r + c] |= 1ULL << sq;
    }
    initialised = 1;
}

/* Squares whose row / column / diagonals are completely filled. */
static void full_lines(u64 filled, u64 *h, u64 *v, u64 *d, u64 *a) {
    u64 fh = 0, col = filled;
    for (int r = 0; r < 8; ++r) {
        u64 row = 0xFFULL << (8 * r);
        if ((filled & row) == row) fh |= row;
    }
    col &= col >> 32;
    col &= col >> 16;
    col &= col >> 8; /* byte 0: columns full in every row */
    u64 fv = (col & 0xFF) * 0x0101010101010101ULL;
    u64 fd = 0, fa = 0;
    for (int i = 0; i < 15; ++i) {
        if ((filled & diag_masks[i]) == diag_masks[i]) fd |= diag_masks[i];
        if ((filled & adiag_masks[i]) == adiag_masks[i]) fa |= adiag_masks[i];
    }
    *h = fh;
    *v = fv;
    *d = fd;
    *a = fa;
}

#define EDGE_A 0x0101010101010101ULL
#define EDGE_H 0x8080808080808080ULL
#define EDGE_1 0x00000000000000FFULL
#define EDGE_8 0xFF00000000000000ULL

u64 eval_stable_discs(u64 P, u64 O) {
    u64 fh, fv, fd, fa;
    full_lines(P | O, &fh, &fv, &fd, &fa);
    /* A direction is "closed" for a disc if its line is full, it lies on the
     * border across that direction, or a stable disc of the same colour sits
     * next to it in that direction (either side). */
    u64 bh = fh | EDGE_A | EDGE_H;
    u64 bv = fv | EDGE_1 | EDGE_8;
    u64 bd = fd | EDGE_A | EDGE_H | EDGE_1 | EDGE_8;
    u64 ba = fa | EDGE_A | EDGE_H | EDGE_1 | EDGE_8;
    u64 s = P & bh & bv & bd & ba, prev;
    if (!s) return 0;
    do {
        prev = s;
        u64 h = bh | ((s << 1) & NOT_A_FILE) | ((s >> 1) & NOT_H_FILE);
        u64 v = bv | (s << 8) | (s >> 8);
        u64 d = bd | ((s << 9) & NOT_A_FILE) | ((s >> 9) & NOT_H_FILE);
        u64 a = ba | ((s << 7) & NOT_H_FILE) | ((s >> 7) & NOT_A_FILE);
        s |= P & h & v & d & a;
    } while (s != prev);
    return s;
}

/* X and C squares belonging to each corner, for "next to an empty corner". */
static int risky(u64 P, u64 empty, int *xs) {
    static const int corner[4] = {0, 7, 56, 63};
    static const u64 xsq[4] = {1ULL << 9, 1ULL << 14, 1ULL << 49, 1ULL << 54};
    static const u64 csq[4] = {(1ULL << 1) | (1ULL << 8), (1ULL << 6) | (1ULL << 15),
                               (1ULL << 57) | (1ULL << 48), (1ULL << 62) | (1ULL << 55)};
    int x = 0, c = 0;
    for (int i = 0; i < 4; ++i) {
        if (empty >> corner[i] & 1) {
            x += (P & xsq[i]) != 0;
            c += bb_count(P & csq[i]);
        }
    }
    *xs = x;
    return c;
}

int eval_default(u64 P, u64 O) {
    u64 empty = ~(P | O);
    int n_empty = bb_count(empty);
    /* t runs from 0 (opening, 60 empties) to 60 (no empties). */
    int t = 60 - n_empty;
    if (t < 0) t = 0;

    int mp = bb_count(bb_moves(P, O)), mo = bb_count(bb_moves(O, P));
    int pp = bb_count(bb_neighbours(O) & empty), po = bb_count(bb_neighbours(P) & empty);
    int cp = bb_count(P & CORNERS), co = bb_count(O & CORNERS);
    int xp, xo, ccp, cco;
    ccp = risky(P, empty, &xp);
    cco = risky(O, empty, &xo);
    int sp = bb_count(eval_stable_discs(P, O)), so = bb_count(eval_stable_discs(O, P));
    int dp = bb_count(P), dopp = bb_count(O);

    int w_mob = 110 - t;          /* 110 -> 50 */
    int w_pot = 45 - t / 2;       /* 45 -> 15 */
    int w_corner = 850 - 5 * t;   /* 850 -> 550 */
    int w_x = 450 - 5 * t;        /* 450 -> 150 */
    int w_c = 120 - t;            /* 120 -> 60 */
    int w_stable = 80 + 2 * t;    /* 80 -> 200 */
    int w_disc = t < 40 ? -8 : (t - 40) * 5 - 8;
    int score = w_mob * (mp - mo) + w_pot * (pp - po) + w_corner * (cp - co) -
                w_x * (xp - xo) - w_c * (ccp - cco) + w_stable * (sp - so) +
                w_disc * (dp - dopp);
    if (n_empty & 1) score += 40; /* odd empties: the mover may get the last move */
    else score -= 40;
    return score;
}
