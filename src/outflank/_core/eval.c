/*
 * eval.c - the seeds' evaluators (weights, fish, heuristic, regions, discs)
 * and the dispatch to the strongest one, eval_default().
 */
#include "eval.h"

#include "eval_default.h"

#define BORDER 0xFF818181818181FFULL

/* The three squares touching each corner (C, C, X) for corners a1, h1, a8, h8. */
static const u64 CORNER_NEIGHBOURS[4] = {
    0x0000000000000302ULL, /* b1 a2 b2 */
    0x000000000000C040ULL, /* g1 g2 h2 */
    0x0203000000000000ULL, /* a7 b7 b8 */
    0x40C0000000000000ULL, /* g7 h7 g8 */
};
static const int CORNER_SQ[4] = {0, 7, 56, 63};
#define ALL_CORNER_NEIGHBOURS 0x42C300000000C342ULL

static int eval_weights(const int *w, u64 P, u64 O) {
    int score = 0;
    for (u64 b = P; b; b &= b - 1) score += w[bb_first(b)];
    for (u64 b = O; b; b &= b - 1) score -= w[bb_first(b)];
    return score;
}

/* Seed 000: corner 25; a square touching a corner is worth +edge to the side
 * owning that corner and -adjacent to anyone else; edges edge; others other.
 * params: corner, adjacent (penalty, positive), edge, other. */
static int eval_fish(const int *p, u64 P, u64 O) {
    int corner = p[0], adjacent = p[1], edge = p[2], other = p[3];
    u64 edges = BORDER & ~CORNERS & ~ALL_CORNER_NEIGHBOURS;
    u64 inner = ~BORDER & ~ALL_CORNER_NEIGHBOURS;
    int score = corner * (bb_count(P & CORNERS) - bb_count(O & CORNERS)) +
                edge * (bb_count(P & edges) - bb_count(O & edges)) +
                other * (bb_count(P & inner) - bb_count(O & inner));
    for (int i = 0; i < 4; ++i) {
        u64 n = CORNER_NEIGHBOURS[i];
        u64 c = 1ULL << CORNER_SQ[i];
        int vp = (P & c) ? edge : -adjacent; /* value of P's discs next to it */
        int vo = (O & c) ? edge : -adjacent;
        score += vp * bb_count(P & n) - vo * bb_count(O & n);
    }
    return score;
}

/* 100 * (a - b) / (|a| + |b|), 0 when both are 0. */
static int ratio(int a, int b) {
    int den = (a < 0 ? -a : a) + (b < 0 ? -b : b);
    return den ? 100 * (a - b) / den : 0;
}

/* Discs of P that the opponent could flip with its very next move. */
static u64 threatened(u64 P, u64 O) {
    u64 t = 0;
    for (u64 m = bb_moves(O, P); m; m &= m - 1) t |= bb_flips(O, P, bb_first(m));
    return t;
}

/* Seed 003: coin parity, mobility, corners and stability (stable +1,
 * unstable -1, semi-stable 0), each scaled to -100..100 and weighted by
 * params[0..3]. */
static int eval_heuristic(const int *p, u64 P, u64 O) {
    int parity = ratio(bb_count(P), bb_count(O));
    int mobility = ratio(bb_count(bb_moves(P, O)), bb_count(bb_moves(O, P)));
    int corners = ratio(bb_count(P & CORNERS), bb_count(O & CORNERS));
    int sp = bb_count(bb_stable(P, O)) - bb_count(threatened(P, O));
    int so = bb_count(bb_stable(O, P)) - bb_count(threatened(O, P));
    int stability = ratio(sp, so);
    return p[0] * parity + p[1] * mobility + p[2] * corners + p[3] * stability;
}

/* Seed 004: disc difference plus a bias per disc on a corner, on an edge,
 * and on the squares touching a corner. params: corner, edge, x_square. */
static int eval_regions(const int *p, u64 P, u64 O) {
    u64 edges = BORDER & ~CORNERS & ~ALL_CORNER_NEIGHBOURS;
    return bb_count(P) - bb_count(O) + p[0] * (bb_count(P & CORNERS) - bb_count(O & CORNERS)) +
           p[1] * (bb_count(P & edges) - bb_count(O & edges)) +
           p[2] * (bb_count(P & ALL_CORNER_NEIGHBOURS) - bb_count(O & ALL_CORNER_NEIGHBOURS));
}

int eval_evaluate(const Evaluator *ev, u64 P, u64 O) {
    switch (ev->kind) {
    case EVAL_WEIGHTS: return eval_weights(ev->weights, P, O);
    case EVAL_FISH: return eval_fish(ev->params, P, O);
    case EVAL_HEURISTIC: return eval_heuristic(ev->params, P, O);
    case EVAL_REGIONS: return eval_regions(ev->params, P, O);
    case EVAL_DISCS: return bb_count(P) - bb_count(O);
    default: return eval_default(P, O);
    }
}
