/*
 * eval_default.h - outflank's strongest static evaluation ("default").
 *
 * Owned by the strength work (see docs/evaluation.md). The score is from the
 * side to move's view (P = mover's discs, O = opponent's), in units of 1/100
 * disc: +100 means "the mover is about one disc ahead at the end".
 */
#ifndef OUTFLANK_EVAL_DEFAULT_H
#define OUTFLANK_EVAL_DEFAULT_H

#include "bitboard.h"

/* Build the evaluator's tables; call once before eval_default (idempotent). */
void eval_default_init(void);

/* Static evaluation of (P, O) from the mover's view, 1/100 disc units. */
int eval_default(u64 P, u64 O);

/* Discs of P that can never be flipped again (edge-anchored stability: full
 * lines and chains of stable neighbours in all four line directions). */
u64 eval_stable_discs(u64 P, u64 O);

/* The evaluator's features, as used for fitting its weights:
 * pat[0..EVAL_PATTERNS-1]: indices into one weight vector of EVAL_PAT_WEIGHTS
 *   entries: the 4 edges (EVAL_LINE_IDS weights, shared) and the 4 corner
 *   3x3 blocks (EVAL_CORNER_IDS weights, shared);
 * num[0..EVAL_NUM-1]: mobility, potential mobility, stable discs, discs,
 *   parity, corners (mover minus opponent; parity +1 for odd empties). */
#define EVAL_PATTERNS 8
#define EVAL_NUM 6
#define EVAL_LINE_IDS 3321
#define EVAL_CORNER_IDS 10206
#define EVAL_OFF_EDGE 0
#define EVAL_OFF_CORNER (EVAL_OFF_EDGE + EVAL_LINE_IDS)
#define EVAL_PAT_WEIGHTS (EVAL_OFF_CORNER + EVAL_CORNER_IDS)
void eval_default_features(u64 P, u64 O, int pat[EVAL_PATTERNS], int num[EVAL_NUM]);

/* The hand-weighted version (the fallback), for comparisons. */
int eval_default_hand(u64 P, u64 O);

/* Version of the weights in use: 0 = hand-weighted fallback, else fitted. */
int eval_default_fitted(void);

#endif
