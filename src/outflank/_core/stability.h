/*
 * stability.h - stable discs: those no sequence of moves can flip again.
 * Below the evaluators (eval.c, eval_default.c) and the endgame solver,
 * which count them; depends on the bitboards only.
 */
#ifndef OUTFLANK_STABILITY_H
#define OUTFLANK_STABILITY_H

#include "bitboard.h"

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
