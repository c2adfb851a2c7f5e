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
#include "stability.h" /* the stable discs, which the evaluators count */

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

#endif
