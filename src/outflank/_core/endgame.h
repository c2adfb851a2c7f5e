/*
 * endgame.h - the exact endgame solver (endgame.c): disc differences by
 * alpha-beta to the end of the game, with the midgame search of search.h
 * ordering its moves and predicting its selective passes' cut-offs. The
 * dependency is one-way: the solver calls the midgame search, which
 * reaches the solver only through the pointer mid_horizon_solver that
 * searcher.c (the Python face, which drives both) sets at import.
 */
#ifndef OUTFLANK_ENDGAME_H
#define OUTFLANK_ENDGAME_H

#include "search.h"

/* Exact endgame at the root in window (alpha, beta); same conventions. */
int end_root(Search *s, u64 P, u64 O, int alpha, int beta, RootMove *moves, int n, int analyze);

/* Before an exact solve: iterative deepening with the default evaluator
 * (TT entries tagged TT_TAG_ORDER guide the solver's move ordering); sorts
 * the root moves and returns the estimated score in discs. */
int end_presearch(Search *s, u64 P, u64 O, RootMove *moves, int n);
/* end_root inside an aspiration window centred on estimate (re-searched on
 * failure); the same exact result as end_root over [alpha, beta]. */
int end_root_aspire(Search *s, u64 P, u64 O, int alpha, int beta, int estimate, RootMove *moves,
                    int n);

/* An exact solve: the pre-search, selective passes (probable cut-offs)
 * from SEL_MIN empties that fill the table with good moves and refine the
 * estimate, then end_root_aspire. Returns the score in discs; when
 * aborted, the best estimate so far (moves[0] is the best move known). */
int end_solve(Search *s, u64 P, u64 O, int alpha, int beta, RootMove *moves, int n);
/* The same preparation, then the root moves scored as mid_root's analyze
 * argument says, here window (not 0; a window in discs): every move
 * exactly (ANALYZE_EXACT, search.h), within a window, or the k best. The
 * analyze mode. When aborted, the same kind of estimate. */
int end_analyze(Search *s, u64 P, u64 O, int alpha, int beta, RootMove *moves, int n,
                int window);
/* The pre-search and the selective passes alone, at any number of empties:
 * a probable exact score, far cheaper than the proof (it labels training
 * positions). The same conventions; moves[0] is the best move found. */
int end_probable(Search *s, u64 P, u64 O, int alpha, int beta, RootMove *moves, int n);

/* Switch to the default evaluator and the TT_TAG_ORDER tag for the
 * ordering searches of an exact solve (saving the caller's); restore. */
typedef struct {
    Evaluator ev;
    int eval_tag, reversi;
} EvalState;
void end_enter(Search *s, EvalState *saved);
void end_leave(Search *s, const EvalState *saved);

/* The exact value (in 1/100 disc, as the midgame search scores) of a
 * position met by the midgame search, fail-soft in its window (alpha,
 * beta) of 1/100 discs: the horizon's solve. */
int end_midgame_value(Search *s, u64 P, u64 O, int alpha, int beta, int ply);

/* The solver's tables; call once at module import. */
void end_tables_init(void);

#endif
