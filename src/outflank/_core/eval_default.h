/*
 * eval_default.h - outflank's strongest static evaluation ("default").
 *
 * Owned by the strength work (see docs/evaluation.md). The score is from the
 * side to move's view (P = mover's discs, O = opponent's), in units of 1/100
 * disc: +100 means "the mover is about one disc ahead at the end".
 */
#ifndef OUTFLANK_EVAL_DEFAULT_H
#define OUTFLANK_EVAL_DEFAULT_H

#include <stddef.h>

#include "bitboard.h"

/* Build the evaluator's tables; call once before eval_default (idempotent). */
void eval_default_init(void);

/* Static evaluation of (P, O) from the mover's view, 1/100 disc units. */
int eval_default(u64 P, u64 O);

/* The evaluator's features, as used for fitting its weights:
 * pat[0..EVAL_PATTERNS-1]: indices into one weight vector of
 *   eval_pattern_weights() entries (the pattern types' canonical
 *   configurations, type after type: corner 3x3, edge + 2 X, corner 2x5,
 *   rows 2, 3, 4, diagonals of 8, 7, 6, 5, 4 squares);
 * num[0..EVAL_NUM-1]: mobility, potential mobility, stable discs, discs,
 *   parity, corners (mover minus opponent; parity +1 for odd empties). */
#define EVAL_TYPES 11
#define EVAL_PATTERNS 46
#define EVAL_NUM 6
void eval_default_features(u64 P, u64 O, int pat[EVAL_PATTERNS], int num[EVAL_NUM]);

/* Number of pattern weights per phase (canonical configurations). */
int eval_pattern_weights(void);

/* Load fitted weights from the bytes of a weight file (written by
 * scripts/train_eval.py; the package loads src/outflank/data/eval.bin at
 * import). Layout, little-endian: "OFEVAL2\0"; int32 anchors A, pattern
 * weights W (must equal eval_pattern_weights()), numeric features N (must
 * equal EVAL_NUM); int32 anchor phases [A] (empties, ascending); int16
 * pattern weights [A][W]; int32 numeric weights then constant [A][N + 1];
 * all in 1/100 disc. Returns 0, -1 for a malformed file, -2 out of memory.
 * Not thread-safe: call before searching. */
int eval_default_load(const void *data, size_t len);

/* The hand-weighted version (the fallback), for comparisons. */
int eval_default_hand(u64 P, u64 O);

/* 1 when fitted weights are loaded, 0 for the hand-weighted fallback. */
int eval_default_fitted(void);

#endif
