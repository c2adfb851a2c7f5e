/*
 * eval_default.h - outflank's strongest static evaluation ("default").
 *
 * Owned by the strength work (see docs/evaluation.md). The score is from the
 * side to move's view (P = mover's discs, O = opponent's), in units of 1/100
 * disc: +100 means "the mover is about one disc ahead at the end".
 *
 * The evaluator is a linear model over pattern look-ups and a few numeric
 * features. Its pattern types (square masks in the a1 corner's orientation)
 * come with its weights: a "model" is a set of pattern types, the tables to
 * read them, and (once loaded) weights for every number of empties. Up to
 * EVAL_SLOTS models can be held at once; eval_default() scores with the
 * active one (slot 0 unless eval_default_use chose another).
 */
#ifndef OUTFLANK_EVAL_DEFAULT_H
#define OUTFLANK_EVAL_DEFAULT_H

#include <stddef.h>

#include "bitboard.h"

#define EVAL_NUM 6            /* numeric features (below) */
#define EVAL_MAX_TYPES 32     /* pattern types of a model */
#define EVAL_MAX_PATTERNS 128 /* pattern instances of a model */
#define EVAL_MAX_SQUARES 10   /* squares of a pattern type */
#define EVAL_SLOTS 4          /* models held at once */
#define EVAL_LEGACY_TYPES 11  /* the pattern types of a version-2 weight file */

/* Count tables (a model "with tables", version-4 weight files): one weight
 * per value of a count, by phase, for the mover's and the opponent's legal
 * moves and potential mobility (empty squares next to the other side's
 * discs), so that the evaluation can weigh, say, the step from one move to
 * none more than the step from 15 to 14. Larger counts use the last entry. */
#define EVAL_MOB_SIZE 32      /* legal moves 0..31 */
#define EVAL_PMOB_SIZE 48     /* potential mobility 0..47 */
#define EVAL_TABLE_LOOKUPS 4  /* mover's moves, opponent's, mover's potential, opponent's */
#define EVAL_TABLE_WEIGHTS (2 * EVAL_MOB_SIZE + 2 * EVAL_PMOB_SIZE)

/* The pattern types a version-2 weight file implies: corner 3x3, edge + 2 X,
 * corner 2x5, rows 2, 3, 4, diagonals of 8, 7, 6, 5, 4 squares. */
extern const u64 EVAL_LEGACY_MASKS[EVAL_LEGACY_TYPES];

typedef struct EvalModel EvalModel;

/* Build the evaluator's tables; call once before eval_default (idempotent). */
void eval_default_init(void);
/* How the pattern sum reads a board's pattern codes on this processor:
 * "vbmi" (AVX-512 VBMI permutes, the fastest: search.c's incremental codes
 * save no time then and are off by default), "pext" (BMI2) or "portable". */
const char *eval_default_gather(void);

/* Static evaluation of (P, O) from the mover's view, 1/100 disc units, by
 * the active model (hand weights on the numeric features until weights are
 * loaded). */
int eval_default(u64 P, u64 O);

/* A model of the given pattern types (and, when tables is true, the count
 * tables) without weights, or NULL when a mask
 * is empty or has more than EVAL_MAX_SQUARES squares, or the types have
 * more than EVAL_MAX_PATTERNS instances (or memory runs out). An instance
 * of a type is its mask seen through one of the 8 board symmetries (the
 * distinct ones), in the order of the types, then of the symmetries. */
EvalModel *eval_model_new(const u64 *masks, int n_types, int tables);
void eval_model_free(EvalModel *m);

/* Sizes: pattern types, look-ups per position (the instances, then the
 * count tables' EVAL_TABLE_LOOKUPS if it has them), weights per phase (the
 * canonical configurations, type after type, then EVAL_TABLE_WEIGHTS if it
 * has tables), whether it has count tables, and whether weights are loaded. */
int eval_model_types(const EvalModel *m);
int eval_model_tables(const EvalModel *m);
u64 eval_model_mask(const EvalModel *m, int type);
int eval_model_patterns(const EvalModel *m);
int eval_model_weights(const EvalModel *m);
int eval_model_fitted(const EvalModel *m);

/* The features of a position, as used for fitting the weights:
 * pat[0..eval_model_patterns(m)-1]: indices into the model's weight vector
 *   (eval_model_weights(m) entries): one per instance, then (a model with
 *   tables) one per count table: the mover's legal moves, the opponent's,
 *   the mover's potential mobility, the opponent's;
 * num[0..EVAL_NUM-1]: mobility, potential mobility, stable discs, discs,
 *   parity, corners (mover minus opponent; parity +1 for odd empties). */
void eval_model_features(const EvalModel *m, u64 P, u64 O, int *pat, int num[EVAL_NUM]);

/* The score of (P, O) by model m (hand weights when it has none). */
int eval_model_score(const EvalModel *m, u64 P, u64 O);

/* Pattern codes kept up to date move by move (the search's incremental
 * evaluation): for each instance (lane i < eval_model_patterns' instances)
 * the base-3 code of its squares as the side to move sees them (`mine`: 1
 * the mover's disc, 2 the opponent's) and as the opponent sees them
 * (`theirs`: the same with 1 and 2 swapped), without the type's offset. A
 * move changes only the codes of the instances through its square and its
 * flipped discs, by 3^digit per changed square, and swaps the two views. */
#define EVAL_FEATURES 64 /* lanes: models of at most 64 instances */
typedef struct {
    uint16_t mine[EVAL_FEATURES];
    uint16_t theirs[EVAL_FEATURES];
} EvalFeatures;

/* The active model when its score can be computed from features (it has
 * fitted weights and at most EVAL_FEATURES instances), else NULL. */
const EvalModel *eval_features_model(void);

/* The features of (P, O), computed from the board. */
void eval_features_init(const EvalModel *m, u64 P, u64 O, EvalFeatures *f);

/* The child's features after the mover plays sq flipping flips (the child
 * is seen from the opponent's side, as the search sees it). */
void eval_features_play(const EvalModel *m, const EvalFeatures *parent, EvalFeatures *child,
                        int sq, u64 flips);

/* The features after a pass: the two views swap. */
void eval_features_pass(const EvalFeatures *parent, EvalFeatures *child);

/* eval_model_score(m, P, O), with the pattern codes read from f (the
 * features of (P, O)) instead of the board and the mover's legal moves
 * given (bb_moves(P, O), which the search has already generated). */
int eval_model_score_features(const EvalModel *m, u64 P, u64 O, u64 moves,
                              const EvalFeatures *f);

/* Load a weight file's bytes into a slot (written by scripts/train_eval.py;
 * the package loads src/outflank/data/eval.bin.gz into slot 0 at import).
 * Layout, little-endian. Version 3: "OFEVAL3\0"; int32 pattern types T;
 * uint64 type masks [T]; int32 anchors A, pattern weights W (must equal
 * the model's count), numeric features N (must equal EVAL_NUM); int32
 * anchor phases [A] (empties, ascending); int16 pattern weights [A][W];
 * int32 numeric weights then constant [A][N + 1]; all in 1/100 disc.
 * Version 4: as version 3, with an int32 after the masks: 1 when the model
 * has count tables (their EVAL_TABLE_WEIGHTS weights then follow the pattern
 * weights in each anchor's row, W counting them), else 0.
 * Version 2: "OFEVAL2\0" then the same from A on, for the legacy types.
 * Weights between anchors are interpolated linearly; beyond the last, the
 * last anchor's. Returns 0, -1 for a malformed file or slot, -2 out of
 * memory. Not thread-safe: call when no search runs. */
int eval_default_load(const void *data, size_t len, int slot);

/* Make a loaded slot's model the one eval_default() uses: 0, or -1 when the
 * slot holds none. Not thread-safe: call when no search runs. */
int eval_default_use(int slot);

/* The model in a slot (NULL if none); slot -1: the active model. */
const EvalModel *eval_default_model(int slot);

/* The active slot. */
int eval_default_active(void);

/* The hand-weighted version (the fallback), for comparisons. */
int eval_default_hand(u64 P, u64 O);

/* 1 when the active model has fitted weights, 0 for the hand weights. */
int eval_default_fitted(void);

#endif
