/*
 * eval.h - the named static evaluators the search can use.
 *
 * Every evaluator scores a position from the side to move's view (P = the
 * mover's discs, O = the opponent's). The seeds' evaluators are
 * antisymmetric, eval(P, O) == -eval(O, P), so negamax sees the same game
 * as minimax; the default one also rewards the mover's parity.
 */
#ifndef OUTFLANK_EVAL_H
#define OUTFLANK_EVAL_H

#include "bitboard.h"

enum {
    EVAL_DEFAULT = 0,   /* eval_default(): 1/100 disc */
    EVAL_WEIGHTS = 1,   /* seed 002: sum of square weights */
    EVAL_FISH = 2,      /* seed 000: corners, corner neighbours, edges */
    EVAL_HEURISTIC = 3, /* seed 003: parity, mobility, corners, stability */
    EVAL_REGIONS = 4,   /* seed 004: discs plus region biases */
    EVAL_DISCS = 5,     /* disc difference */
    EVAL_KINDS = 6
};

#define EVAL_PARAMS 8

typedef struct {
    int kind;
    int weights[64];          /* EVAL_WEIGHTS: one weight per square */
    int params[EVAL_PARAMS];  /* meaning depends on kind, see eval.c */
} Evaluator;

/* Score of (P, O) for the side to move. */
int eval_evaluate(const Evaluator *ev, u64 P, u64 O);

/* Discs of P that can never be flipped again (full lines, edges, and
 * chains of stable neighbours in all four line directions). */
u64 bb_stable(u64 P, u64 O);

/* Per direction (row, column, both diagonals), the squares closed in it:
 * on a full line or on the border across it. Depends only on the filled
 * squares, so it can serve both colours. */
typedef struct {
    u64 h, v, d, a;
} ClosedLines;

ClosedLines bb_closed_lines(u64 filled);

/* The number of bb_stable(P, O) discs minus that of bb_stable(O, P). */
int bb_stable_diff(u64 P, u64 O);

/* Builds the edge table behind bb_stable_edges; called once at start-up. */
void bb_edge_table_init(void);

/* Discs of P on the four edges that no sequence of moves can flip: on an
 * edge a disc can only be flipped along the edge, so its fate depends on
 * that line alone, worked out for all 3^8 of them by bb_edge_table_init. */
u64 bb_stable_edges(u64 P, u64 O);

/* bb_stable, with the fixed point started from bb_stable_edges as well:
 * finds more stable discs (edge discs not anchored to a corner, and what
 * they anchor) at the cost of four table look-ups. The endgame solver's
 * stability cut-off uses it; the evaluators keep bb_stable. */
u64 bb_stable_strong(u64 P, u64 O);

/* Squares whose row, column and both diagonals are completely filled. */
u64 bb_full_lines(u64 filled, u64 *h, u64 *v, u64 *d, u64 *a);

#endif
