/*
 * parallel.h - one search on several threads: Young Brothers Wait.
 *
 * A node deep enough for it searches its first move alone; if that move
 * does not cut the node off and some thread is idle, the node becomes a
 * split point: its remaining moves are handed out, one at a time, to the
 * node's own thread (its master) and the idle threads that join it
 * (helpers), each searching with its own Search (move lists, killers, PV,
 * the solver's small table) and the one shared transposition table. A
 * move that cuts the node off stops the others at once (their searches
 * are aborted: ABORT_CUT); the master returns the node's value once every
 * helper has left. While it waits, the master helps at split points below
 * its own (a "helpful master"), so no thread idles while work it waits for
 * could use it. Split points nest: a helper's own nodes split again.
 *
 * Bookkeeping without a global lock: each split point has its own mutex;
 * idle threads are found through a bit mask and claimed with a
 * compare-and-swap on their state; a sleeping thread has its own mutex and
 * condition variable. Node counts are added to one atomic counter every
 * 4096 nodes of a thread (search_poll), which also checks the limits for
 * all threads.
 *
 * Threads live for one search (search_begin .. search_end): started when
 * the search first offers a split point (a small search starts none) and
 * joined at its end, so none outlives it. Up to MAX_THREADS, and no more
 * than the cores the process may run on (its CPU affinity, read when a
 * search begins): threads beyond them would only take turns on the same
 * cores, and cost time (4 threads on 2 cores: 3-6 % slower than 2, from
 * more speculative nodes and the caches' losses at each switch).
 */
#ifndef OUTFLANK_PARALLEL_H
#define OUTFLANK_PARALLEL_H

#include "search.h"

#define MAX_THREADS 64

/* What a search's threads share. */
typedef struct Par {
    int nthreads;     /* threads a search may use (set between searches) */
    int oversubscribe; /* run them all even beyond the cores (tests) */
    int running;      /* this search's: nthreads, at most the cores (par_begin) */
    int active;       /* threads running in this search: 1 + helpers started */
    atomic_int stop;             /* search_stop() */
    _Atomic uint64_t nodes;      /* the threads' flushed node counts */
    _Atomic uint64_t idle;       /* bit i: thread i may be idle (a hint) */
    Search *thread[MAX_THREADS]; /* [0]: the Searcher's own */
    pthread_t tid[MAX_THREADS];
} Par;

typedef struct SplitPoint SplitPoint;

/* How the search below a node runs: the evaluator and its table tag, the
 * rules, the solver's precision and the probable cut-offs' margins. Not
 * the same everywhere in one search: the midgame search's horizon solve
 * (and the solver's move ordering) switch them for a subtree (end_enter),
 * so a split point carries its master's, taken when it splits, and a
 * thread that joins works under them. */
typedef struct {
    Evaluator ev;
    int eval_tag, reversi, end_prec, pc_t, mpc_t, fresh_cuts;
} SearchMode;

/* A split point's work: take moves (under the lock) until none is left or
 * the node is cut off, search each, record the results (parallel.c calls
 * it in every thread at the split point, the master first). */
typedef void (*SplitRun)(Search *t, SplitPoint *sp);

struct SplitPoint {
    pthread_mutex_t lock;
    SplitPoint *parent; /* the split point its master works at (NULL: none) */
    Search *master;
    SplitRun run;
    /* the node (read-only while it is split) */
    u64 P, O;
    int beta, depth, ply, pv, analyze;
    SearchMode mode; /* the master's, at the split (par_split) */
    void *list;      /* the node's move list (the search's own type) */
    RootMove *moves; /* at the root */
    int n;
    /* under the lock */
    int next;  /* the next move to hand out */
    int alpha; /* the window's lower end (raised at principal-variation nodes) */
    int best, best_move;
    int cut;                   /* cut off (or abandoned): no more moves */
    int line[MAX_PLY], line_len; /* the best move's line (principal variation) */
    uint64_t workers;            /* the threads working here (the master too) */
    int8_t frame[MAX_THREADS];   /* each one's frame number for this point */
    atomic_int helpers;          /* helpers still working here */
};

/* Whether s may offer a split point now: more than one thread, and one
 * idle (or not started yet). Cheap: called at every node deep enough. */
static inline int par_can_split(const Search *s) {
    return s->split_ok &&
           (s->spawn_pending || atomic_load_explicit(&s->par->idle, memory_order_relaxed));
}

/* Offer the node in sp (its list, n, next, alpha, beta, depth, ply, pv,
 * analyze, best, best_move, line filled in; run set) to idle threads. If
 * none joins, returns 0 and the caller goes on alone. Otherwise s and the
 * helpers search the remaining moves; returns 1 when all have left, with
 * sp's results final (unless s is aborted: then the node's value is not
 * to be used). */
int par_split(Search *s, SplitPoint *sp);

static inline void sp_lock(SplitPoint *sp) { pthread_mutex_lock(&sp->lock); }
static inline void sp_unlock(SplitPoint *sp) { pthread_mutex_unlock(&sp->lock); }

/* Cut sp off (under its lock): no more moves; every other thread at it
 * is aborted. by: the thread whose move cut it. */
void par_cut(SplitPoint *sp, const Search *by);

/* A split point's best line: square, then child's PV of thread t at ply
 * (under sp's lock). */
void par_record_line(SplitPoint *sp, const Search *t, int square, int ply);

/* The window's lower end for a re-search at sp: a, or the higher value
 * another thread has raised sp's alpha to meanwhile. */
int par_alpha_now(SplitPoint *sp, int a);

/* Record move sq's score v at split point sp (below the root), searched
 * by thread t: the best so far and its move, the window's lower end, the
 * line (with_line: sq, then t's principal variation below ply), and a
 * cut-off once v reaches beta. */
void par_node_record(SplitPoint *sp, const Search *t, int v, int sq, int beta, int with_line);

/* The next root move for a worker at the root's split point sp: its
 * index, with the window's lower end of the moment in *alpha; -1 when the
 * root is cut off or every move has been handed out. */
int par_root_claim(SplitPoint *sp, int *alpha);

/* Record root move rm's score v at sp, searched by thread t: full if it
 * is exact (t's line from ply 1 is then the move's line), else it is an
 * upper bound and only the move is known. Outside analyze mode the
 * window's lower end rises to v, and the root is cut off when it reaches
 * beta; in analyze mode it rises to analysis_floor (search.h) of the
 * root's moves. */
void par_root_record(SplitPoint *sp, const Search *t, RootMove *rm, int v, int full);

/* Abort every thread of the search (a limit or stop()). */
void par_halt(Search *s);

/* Set up and tear down (search.c). */
/* How long (microseconds) an idle thread (a helper between split points,
 * a master waiting for its helpers) polls before it sleeps, so that the
 * next split point or the last helper's exit finds it awake: a sleeping
 * thread's wake-up took most of what a second thread gained in searches of
 * a few hundredths of a second (two threads searched 1.13 times the nodes a
 * second of one at 0.03 s a search, 1.53 times with 100 us:
 * bench/midgame.py --timed 0.03, docs/benchmarks.md). 0: sleep at once.
 * Process-wide, set with the search's settings (outflank._core.tune
 * "par_spin"), only while no search runs. */
extern int par_spin_us;

int par_init(Search *s);
void par_free(Search *s);
void par_begin(Search *s);
void par_end(Search *s);

#endif
