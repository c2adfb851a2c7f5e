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

#endif
