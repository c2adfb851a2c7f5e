/* train.h - self-play data generation for fitting the default evaluator. */
#ifndef OUTFLANK_TRAIN_H
#define OUTFLANK_TRAIN_H

#include "bitboard.h"

/* Play one game: random_plies random moves, then fixed-depth alpha-beta with
 * the default evaluator, then exact play from exact_empties empties on. Every
 * position where the mover has a move is written to outP/outO (mover's view,
 * at most 64) with label = final disc difference from that mover's view.
 * Returns the final disc difference for black. */
int train_game(u64 seed, int random_plies, int depth, int exact_empties, u64 *outP,
               u64 *outO, int *label, int *n_out, long *nodes);

/* Exact final disc difference (mover's view) by plain alpha-beta. */
int train_solve(u64 P, u64 O, long *nodes);

/* Fixed-depth alpha-beta score with the default evaluator (hand != 0: its
 * hand-weighted version). */
int train_search(u64 P, u64 O, int depth, int hand, long *nodes);

#endif
