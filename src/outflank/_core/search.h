/*
 * search.h - the alpha-beta search: midgame (depth-limited, evaluator
 * scores) and exact endgame (disc differences), driven by iterative
 * deepening with a transposition table, time/node limits and a stop flag.
 *
 * No function here touches Python objects, so callers may release the GIL.
 * A Search is one thread's state; a search may use several threads (each
 * with its own Search, sharing the table and the limits through a Par:
 * parallel.h). search_stop may be called from any thread.
 */
#ifndef OUTFLANK_SEARCH_H
#define OUTFLANK_SEARCH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "bitboard.h"
#include "eval.h"
#include "eval_default.h"
#include "tt.h"

#define SCORE_INF 0x7FFFFFFF
#define SCORE_WIN 1000000 /* a finished game: +/-(SCORE_WIN + |disc diff|) */
#define MOVE_PASS 64
#define MOVE_NONE (-1)
#define MAX_PLY 128
#define MAX_MOVES 64 /* legal moves are empty squares: no position has more */

/* The exact solver's kinds of node, by number of empty squares
 * (endgame.c): the transposition table from END_TT_MIN empties, sorted
 * moves and the small table below from END_SORT_MIN. */
#ifndef END_TT_MIN
#define END_TT_MIN 11
#endif
#ifndef END_SORT_MIN
#define END_SORT_MIN 6
#endif

/* The solver's small table for END_SORT_MIN .. END_TT_MIN - 1 empties: one
 * direct-mapped array per number of empties, small enough to stay in the
 * processor's cache (the main table's memory is too slow for nodes this
 * cheap). Its bounds are on exact scores, which never go stale. */
#define END_SMALL_SIZE 4096 /* entries per number of empties, a power of two */
typedef struct {
    u64 P, O;
    int8_t lower, upper;
} SmallEntry;

typedef struct {
    int square; /* 0..63 or MOVE_PASS */
    int score;  /* last score: exact, or an upper bound when upper is set */
    int searched;
    u64 flips;
    int upper; /* the score is only an upper bound (the move failed low) */
} RootMove;

/* mid_root's and end_root's analyze argument: 0 for the best move alone
 * (principal-variation search); ANALYZE_EXACT for every move's exact
 * score; a positive value W for exact scores where they are within W of
 * the best and an upper bound below that (the move is known to be worse
 * by more than W, which costs far less than its score); a negative value
 * -k for the k best moves' exact scores and upper bounds for the others
 * (multi-PV). */
#define ANALYZE_EXACT (1 << 30)

/* The lower end of the next root move's window in analyze mode (see
 * ANALYZE_EXACT), given the moves searched so far in this iteration (their
 * searched and upper flags) and the best score among them: best - W for a
 * window W where that is above alpha, the k-th best exact score for -k
 * where k are known, else alpha. Never below alpha, never overflows
 * (alpha is negative, W positive). */
static inline int analysis_floor(const RootMove *moves, int n, int alpha, int best,
                                 int analyze) {
    if (analyze >= ANALYZE_EXACT || analyze == 0) return alpha;
    if (analyze > 0) return best > alpha + analyze ? best - analyze : alpha;
    int k = -analyze, top[MAX_MOVES], have = 0; /* the k best exact scores, best first */
    for (int i = 0; i < n; ++i) {
        if (!moves[i].searched || moves[i].upper) continue;
        int v = moves[i].score, j = have < k ? have++ : k;
        while (j > 0 && top[j - 1] < v) {
            if (j < k) top[j] = top[j - 1];
            --j;
        }
        if (j < k) top[j] = v;
    }
    return have == k && top[k - 1] > alpha ? top[k - 1] : alpha;
}

struct Par;
struct SplitPoint;

/* One thread's state. The Searcher's own (thread 0) owns the table and
 * the Par; a helper thread's copies the table's address and the limits
 * from the thread whose split point it joins, and works there under the
 * split point's mode (SearchMode, parallel.h). */
typedef struct Search {
    Evaluator ev;
    int eval_tag; /* TT tag of midgame entries for the current evaluator */
    int reversi;  /* game ends as soon as the mover cannot move */
    TT tt;
    /* limits of the running search (the same in every thread) */
    uint64_t node_limit; /* 0: none; for all threads together */
    uint64_t next_poll;  /* this thread's node count of its next limits check */
    double deadline;     /* monotonic seconds; 0: none */
    /* 0 while searching; ABORT_STOP when the search is stopped (a limit,
     * stop()); ABORT_CUT + f when a split point this thread works at (its
     * f-th, counted from its outermost) has been cut off, so its work there
     * is wasted (parallel.h). Read after every child search: relaxed
     * atomic loads, plain moves on x86-64. */
    atomic_int aborted;
    /* exact endgame: TT_PREC_EXACT, or the level of a selective pass whose
     * probable cut-offs need a shallow search to clear the bound by
     * pc_t / 100 standard deviations */
    int end_prec;
    int pc_t;
    /* midgame probable cut-offs (default evaluator only): a shallow search
     * must clear the window by mpc_t / 100 standard deviations; 0: off */
    int mpc_t;
    /* depth of the endgame pre-search's last completed iteration (its
     * best move is what an interrupted solve falls back on) */
    int presearch_depth;
    /* analysis: midgame table cut-offs only from entries this search wrote
     * (older ones, perhaps of another depth, still order the moves), so
     * every move's score is of the asked depth whatever ran before */
    int fresh_cuts;
    /* statistics: this thread's nodes (search_nodes: all threads') */
    uint64_t nodes;
    uint64_t flushed; /* of them, those already added to par->nodes */
    /* parallel search (parallel.h) */
    struct Par *par;
    int id;                   /* 0: the Searcher's own thread; 1..: helpers */
    int split_ok;             /* more than one thread: may offer split points */
    int spawn_pending;        /* thread 0: the helpers of this search not started yet */
    int nframes;              /* split points this thread works at, nested */
    struct SplitPoint *sp;    /* the innermost of them (NULL: none) */
    pthread_mutex_t mtx;      /* guards assigned, quit; with cv, sleeping */
    pthread_cond_t cv;
    struct SplitPoint *assigned; /* a split point to join */
    int quit;                    /* the search is over: the helper thread ends */
    _Atomic uint64_t state;      /* idle or busy, with a version (parallel.c) */
    struct SplitPoint *_Atomic wait_sp; /* waiting as master at this split point */
    SmallEntry end_small[END_TT_MIN - END_SORT_MIN][END_SMALL_SIZE];
    /* the midgame search's incremental evaluation: the model whose
     * features feat[ply] holds for the position at each ply (NULL: the
     * evaluator is called on the board) */
    const EvalModel *fm;
    EvalFeatures feat[MAX_PLY + 1];
    /* principal variation, triangular */
    int pv[MAX_PLY][MAX_PLY];
    int pv_len[MAX_PLY];
} Search;

#define ABORT_STOP 1
#define ABORT_CUT 2

/* The aborted flag, read anywhere in the search. */
#define ABORTED(s) atomic_load_explicit(&(s)->aborted, memory_order_relaxed)

/* A Searcher's own Search (thread 0), with its table and its Par (one
 * thread until search_set_threads). Returns 0, or -1 out of memory. */
int search_init(Search *s, size_t tt_mib);
void search_free(Search *s);
/* Threads each search may use (1..MAX_THREADS); only between searches.
 * At most the cores the process may run on are used, unless
 * oversubscribe (for tests: more threads than cores, taking turns). */
void search_set_threads(Search *s, int threads, int oversubscribe);
/* Ask the running search (or the next one) to stop: from any thread. */
void search_stop(Search *s);
void search_reset_stop(Search *s);
int search_stop_requested(Search *s);
/* Nodes searched so far by all threads of the search (exact between
 * iterations and at its end). */
uint64_t search_nodes(Search *s);
/* The end of a search: its helper threads end (joined). Call after the
 * last search function of a search_begin. */
void search_end(Search *s);
/* Forget every stored result (the transposition table and the solver's
 * small table): the next search starts as in a new Search. */
void search_clear(Search *s);
void search_set_evaluator(Search *s, const Evaluator *ev);

/* Start a search: reset counters, set limits (time_limit <= 0: none;
 * both hold for all the search's threads together). The
 * stop flag is left as it is: the caller clears it (Searcher.reset_stop) when
 * its call begins, so a stop() that arrives before the search starts counts. */
void search_begin(Search *s, double time_limit, uint64_t node_limit);

/* Game-over score of (P, O) for the mover, in discs (empties to the winner). */
static inline int final_discs(u64 P, u64 O) {
    int p = bb_count(P), o = bb_count(O), e = 64 - p - o;
    int d = p - o;
    return d > 0 ? d + e : d < 0 ? d - e : 0;
}

/* Root moves of (P, O) in the given array; returns how many (0 if none). */
int search_root_moves(u64 P, u64 O, RootMove *moves);

/* Root bookkeeping shared by mid_root and end_root: remember the line of a
 * new best root move (its square, then the child's PV), and once the root
 * loop ends, sink unsearched moves, publish the best line as pv[0] and sort
 * the moves best first (stable). */
void root_line_record(const Search *s, int square, int *line, int *len);
void root_finish(Search *s, RootMove *moves, int n, const int *line, int len);

/* One midgame iteration at depth: scores root moves (in analyze mode each
 * with a window from analysis_floor up, PVS otherwise), sorts them best
 * first and returns the best score. On abort, the moves searched so far
 * keep their scores. */
int mid_root(Search *s, u64 P, u64 O, int depth, RootMove *moves, int n, int analyze);

/* A null-window midgame search below the root (no PV), for probable
 * cut-offs in the endgame solver (endgame.h), which this file never calls:
 * the solver depends on the midgame search, not the other way round. */
int mid_probe(Search *s, u64 P, u64 O, int depth, int alpha, int beta);

/* The exact solver the midgame search calls on positions with at most
 * tuning.mid_solve empties (NULL: none), set once at import by the module
 * that knows both (searcher.c): the midgame search's leaves near the end
 * of the game are then solved, as NTest's and Edax's are, while this file
 * still never calls the solver's file, which calls it. Scores as
 * mid_search's (1/100 disc), fail-soft in the window (alpha, beta). */
extern int (*mid_horizon_solver)(Search *s, u64 P, u64 O, int alpha, int beta, int ply);

/* Settings of the midgame search that a benchmark may change at run time
 * (outflank._core.tune), so that variants are compared in one build and
 * one process; the defaults are the variants measured best. Process-wide:
 * change them only while no search runs. */
typedef struct {
    /* iterative deepening under a time limit: no new iteration once
     * time_soft % of the budget is used (the next would not finish) */
    int time_soft;
    /* that share in % more when the last iteration changed the best move
     * (time_unstable), and in % less when the best move has stayed the same
     * for the last two iterations (time_stable): time goes to the moves
     * whose choice is still in doubt (docs/engine.md, "Limits") */
    int time_unstable;
    int time_stable;
    /* the midgame search solves positions with at most mid_solve empties
     * exactly (mid_horizon_solver; 0: never). 8 lost 0.40 disc a move on
     * 160 positions of 21-24 empties at 0.1 s a move where 0 lost 0.71
     * (NTest at depth 14: 0.35), in less time (docs/engine.md) */
    int mid_solve;
    /* once a selective midgame search reaches the end of the game (its
     * depth covers every empty square), up to end_stages more iterations
     * search the same tree with wider probable cut-off margins, the last
     * with none (SELECTIVITY_STAGES in searcher.c; 0: stop there) */
    int end_stages;
    /* the midgame search keeps the default evaluator's pattern codes up to
     * date move by move (1) or reads them from the board at every
     * evaluation (0): the same scores and trees, a different speed */
    int inc_eval;
} Tuning;

extern Tuning tuning;

/* Set tuning field `name`; returns 0, or -1 for an unknown name. */
int tuning_set(const char *name, int value);
/* The field names, NULL-terminated, and a field's value. */
extern const char *const TUNING_NAMES[];
int tuning_get(const char *name, int *value);

/* Check time / node limits and the stop flag; when one is reached, every
 * thread of the search is aborted (ABORT_STOP). */
void search_poll(Search *s);

static inline int search_should_stop(Search *s) {
    if (s->nodes >= s->next_poll) search_poll(s);
    return ABORTED(s);
}

/* Tables used by the search; call once at module import. */
void search_tables_init(void);

/* Neighbour squares of each square. */
extern u64 NEIGHBOURS[64];

#endif
