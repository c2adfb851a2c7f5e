/*
 * parallel_search.c - the core's parallel search without Python, for
 * ThreadSanitizer (scripts/sanitize.sh --thread builds it with
 * -fsanitize=thread against the core's C files and runs it).
 *
 *   parallel_search WEIGHTS [THREADS]
 *
 * WEIGHTS: the default evaluator's weight file, uncompressed
 * (src/outflank/data/eval.bin.gz, gunzipped). It runs, with THREADS
 * threads (default 4): a midgame search by iterative deepening, exact
 * solves of endgame positions (checked against their known scores), an
 * analysis of every move of one (checked against one thread's), a solve
 * stopped from another thread (it must return within 50 ms of the stop, a
 * second under the sanitizer's slowdown), a node limit, and many short
 * searches in a row. Exit status 0 when all is as it should be.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bitboard.h"
#include "eval.h"
#include "endgame.h"
#include "eval_default.h"
#include "parallel.h"
#include "search.h"

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "FAIL: " __VA_ARGS__);                                                 \
            fputc('\n', stderr);                                                                   \
            ++failures;                                                                            \
        }                                                                                          \
    } while (0)

/* An OBF board (64 cells from a1, X black, O white, then the side to move)
 * as (mover, opponent). */
static void parse_obf(const char *obf, u64 *P, u64 *O) {
    u64 black = 0, white = 0;
    for (int i = 0; i < 64; ++i) {
        if (obf[i] == 'X') black |= 1ULL << i;
        if (obf[i] == 'O') white |= 1ULL << i;
    }
    int black_moves = obf[65] == 'X';
    *P = black_moves ? black : white;
    *O = black_moves ? white : black;
}

static void *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    *len = n;
    return buf;
}

/* What searcher.c does for an exact solve; analyze 1 scores every move
 * exactly, W > 1 within a window of W discs, -k the k best moves. */
static int solve(Search *s, u64 P, u64 O, int analyze, RootMove *moves, int *n, double time_limit,
                 uint64_t node_limit) {
    *n = search_root_moves(P, O, moves);
    search_begin(s, time_limit, node_limit);
    EvalState saved;
    end_enter(s, &saved);
    int v = analyze ? end_analyze(s, P, O, -64, 64, moves, *n,
                                  analyze == 1 ? ANALYZE_EXACT : analyze)
                    : end_solve(s, P, O, -64, 64, moves, *n);
    end_leave(s, &saved);
    search_end(s);
    return v;
}

/* What searcher.c does for a midgame search (iterative deepening), with
 * probable cut-offs at mpc_t / 100 standard deviations (0: none); analyze
 * as mid_root takes it (0: the best move alone). The root moves, best
 * first, in moves (their count in *n). */
static int mid_iterate(Search *s, u64 P, u64 O, int depth, int mpc_t, int analyze,
                       RootMove *moves, int *n) {
    RootMove work[MAX_MOVES];
    int v = 0;
    *n = search_root_moves(P, O, moves);
    search_begin(s, 0, 0);
    s->mpc_t = mpc_t;
    s->fresh_cuts = analyze != 0;
    for (int d = 1; d <= depth; ++d) {
        memcpy(work, moves, sizeof(RootMove) * (size_t)*n);
        int score = mid_root(s, P, O, d, work, *n, analyze);
        if (ABORTED(s)) break;
        memcpy(moves, work, sizeof(RootMove) * (size_t)*n);
        v = score;
    }
    search_end(s);
    return v;
}

static int midgame(Search *s, u64 P, u64 O, int depth, int mpc_t, int *best) {
    RootMove moves[MAX_MOVES];
    int n, v = mid_iterate(s, P, O, depth, mpc_t, 0, moves, &n);
    *best = moves[0].square;
    return v;
}

/* An analysis within a window or of the k best moves (moves, n) against
 * every move's exact score (ref, m, best first): the same moves, the same
 * score where not bounded, each bound above the move's score and at most
 * limit (the best minus the window, or the k-th best score), and at least
 * `exact` moves exact. Returns how many moves were bounded, or -1 (after a
 * message) if one is wrong. */
static int check_windowed(const char *what, const RootMove *moves, int n, const RootMove *ref,
                          int m, int limit, int exact_at_least) {
    if (n != m) {
        fprintf(stderr, "FAIL: %s: %d moves, not %d\n", what, n, m);
        return -1;
    }
    int bounded = 0;
    for (int i = 0; i < n; ++i) {
        int j = 0;
        while (j < m && ref[j].square != moves[i].square) ++j;
        int exact = j < m ? ref[j].score : 0, best = ref[0].score;
        int ok = j < m && (moves[i].upper ? exact <= moves[i].score && moves[i].score <= limit
                                          : exact == moves[i].score);
        if (!ok) {
            fprintf(stderr, "FAIL: %s of %d: %d%s, exactly %d (best %d)\n", what,
                    moves[i].square, moves[i].score, moves[i].upper ? " (bound)" : "", exact,
                    best);
            return -1;
        }
        bounded += moves[i].upper;
    }
    if (moves[0].score != ref[0].score || n - bounded < exact_at_least) {
        fprintf(stderr, "FAIL: %s: best %d, not %d; %d exact\n", what, moves[0].score,
                ref[0].score, n - bounded);
        return -1;
    }
    return bounded;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct {
    Search *s;
    double delay, stopped_at;
} Stopper;

static void *stopper(void *arg) {
    Stopper *st = arg;
    struct timespec ts = {0, (long)(st->delay * 1e9)};
    nanosleep(&ts, NULL);
    st->stopped_at = now();
    search_stop(st->s);
    return NULL;
}

/* FFO positions with their exact scores (fforum-20-39 #26, #30, #33; #38). */
static const struct {
    const char *obf;
    int score;
} SOLVES[] = {
    {"-OOOOO----OOOO--OXXOOO---XXXOO--XXXXXXO-XXXOOO-OX-OOOO---OOOOO-- X", -2},
    {"--XX----O-XXOX--OOXOO---OXOXOOO-OOXXOOOXOOXXXOOX--XXXXOX--X--X-X X", -4},
    {"--O-------OOO--X-XOOOOXXXXXXOXOX-XXOXOOXXXOXOOXX-OOOOO-X---OOO-- X", 0},
};
static const char *BIG = "--OOOO----OOOO---XOXXOOXOOXOOOOX-OOOOOXXXOOXXXXX--X-X----------- X";
/* 12 empties: a full-width depth-12 search passes the horizon solve on
 * every line, so it scores exactly +18 discs (1800). */
static const char *HORIZON = "OOOO-O--X-OOXO---OOXXOO-OOXOXO--OXOXXXO-XXXXOOOOXXOOXXO-XXXXXXXO X";
static const char *MIDGAME = "------------------XO-O----XXOO-----OOX----OXXX-----XO----------- X";

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: parallel_search WEIGHTS [THREADS]\n");
        return 2;
    }
    int threads = argc > 2 ? atoi(argv[2]) : 4;
    bb_init();
    bb_edge_table_init();
    search_tables_init();
    end_tables_init();
    mid_horizon_solver = end_midgame_value; /* as searcher_register does */
    eval_default_init();
    size_t len;
    void *weights = read_file(argv[1], &len);
    if (!weights || eval_default_load(weights, len, 0) != 0 || eval_default_use(0) != 0) {
        fprintf(stderr, "cannot load weights from %s\n", argv[1]);
        return 2;
    }
    free(weights);
    Search *s = malloc(sizeof(Search)), *one = malloc(sizeof(Search));
    if (!s || !one || search_init(s, 16) < 0 || search_init(one, 16) < 0) return 2;
    search_set_threads(s, threads, 1); /* that many, whatever the cores */
    u64 P, O;
    RootMove moves[MAX_MOVES], ref[MAX_MOVES];
    int n, m;

    /* a midgame search with probable cut-offs */
    parse_obf(MIDGAME, &P, &O);
    int best, v = midgame(s, P, O, 10, 150, &best);
    CHECK(best >= 0 && best < 64 && (bb_moves(P, O) >> best & 1), "midgame move %d", best);
    printf("midgame depth 10: move %d score %d nodes %llu\n", best, v,
           (unsigned long long)search_nodes(s));

    /* through the horizon solve: each thread under its split point's mode,
     * not the mode its master is in at the moment (a regression) */
    parse_obf(HORIZON, &P, &O);
    int wrong = 0;
    for (int i = 0; i < 100; ++i) {
        search_clear(s);
        v = midgame(s, P, O, 12, 0, &best);
        if (v != 1800) ++wrong;
    }
    CHECK(wrong == 0, "%d of 100 searches through the horizon solve scored wrong", wrong);
    printf("through the horizon solve: %d of 100 searches wrong\n", wrong);

    /* exact solves */
    for (size_t i = 0; i < sizeof SOLVES / sizeof SOLVES[0]; ++i) {
        parse_obf(SOLVES[i].obf, &P, &O);
        search_clear(s);
        v = solve(s, P, O, 0, moves, &n, 0, 0);
        CHECK(v == SOLVES[i].score, "solve %zu: %d, not %d", i, v, SOLVES[i].score);
        CHECK(!ABORTED(s), "solve %zu aborted", i);
        printf("solve %zu: move %d score %d nodes %llu\n", i, moves[0].square, v,
               (unsigned long long)search_nodes(s));
    }

    /* every move's exact score, as one thread finds them */
    parse_obf(SOLVES[0].obf, &P, &O);
    search_clear(s);
    solve(s, P, O, 1, moves, &n, 0, 0);
    solve(one, P, O, 1, ref, &m, 0, 0);
    CHECK(n == m, "analysis: %d moves, not %d", n, m);
    for (int i = 0; i < n && i < m; ++i) {
        int found = 0;
        for (int j = 0; j < m; ++j)
            if (ref[j].square == moves[i].square) {
                found = 1;
                CHECK(ref[j].score == moves[i].score, "analysis of %d: %d, not %d",
                      moves[i].square, moves[i].score, ref[j].score);
            }
        CHECK(found, "analysis: move %d", moves[i].square);
    }
    printf("analysis: %d moves as one thread scores them\n", n);

    /* analyses within a window (2 discs in the midgame, 4 in a solve): the
     * moves within it as one thread scores every move exactly, the others
     * bounded above */
    parse_obf(MIDGAME, &P, &O);
    search_clear(s);
    search_clear(one);
    mid_iterate(s, P, O, 8, 0, 200, moves, &n);
    mid_iterate(one, P, O, 8, 0, ANALYZE_EXACT, ref, &m);
    int bounded = check_windowed("midgame analysis", moves, n, ref, m, ref[0].score - 200, 1);
    CHECK(bounded > 0, "midgame analysis: %d moves bounded", bounded);
    printf("windowed midgame analysis: %d moves, %d bounded\n", n, bounded);
    search_clear(s);
    mid_iterate(s, P, O, 8, 0, -3, moves, &n); /* the 3 best */
    bounded = check_windowed("multi-PV analysis", moves, n, ref, m, ref[2].score, 3);
    CHECK(bounded > 0, "multi-PV analysis: %d moves bounded", bounded);
    printf("midgame analysis of the 3 best: %d moves, %d bounded\n", n, bounded);
    parse_obf(SOLVES[2].obf, &P, &O);
    search_clear(s);
    search_clear(one);
    solve(s, P, O, 4, moves, &n, 0, 0);
    solve(one, P, O, 1, ref, &m, 0, 0);
    bounded = check_windowed("endgame analysis", moves, n, ref, m, ref[0].score - 4, 1);
    CHECK(bounded > 0, "endgame analysis: %d moves bounded", bounded);
    printf("windowed endgame analysis: %d moves, %d bounded\n", n, bounded);

    /* stopped from another thread */
    parse_obf(BIG, &P, &O);
    search_clear(s);
    search_reset_stop(s);
    Stopper st = {s, 0.2, 0};
    pthread_t tid;
    pthread_create(&tid, NULL, stopper, &st);
    solve(s, P, O, 0, moves, &n, 0, 0);
    double returned = now();
    pthread_join(tid, NULL);
    double late = returned - st.stopped_at;
    search_reset_stop(s);
    CHECK(ABORTED(s), "the stopped solve was not aborted");
    CHECK(late < 1.0, "the solve returned %.3f s after stop()", late);
    printf("stop: returned %.1f ms after stop()\n", late * 1e3);

    /* a node limit holds for all threads together */
    solve(s, P, O, 0, moves, &n, 0, 200000);
    uint64_t nodes = search_nodes(s);
    CHECK(ABORTED(s) && nodes < 200000 + 4096 * (uint64_t)threads, "node limit: %llu nodes",
          (unsigned long long)nodes);
    printf("node limit 200000: %llu nodes\n", (unsigned long long)nodes);

    /* a solve after all that is still right */
    parse_obf(SOLVES[1].obf, &P, &O);
    v = solve(s, P, O, 0, moves, &n, 0, 0);
    CHECK(v == SOLVES[1].score, "solve after a stop: %d, not %d", v, SOLVES[1].score);

    /* many short searches */
    parse_obf(MIDGAME, &P, &O);
    for (int i = 0; i < 40; ++i) midgame(s, P, O, 6, 150, &best);
    printf("40 short searches done\n");

    search_free(s);
    search_free(one);
    free(s);
    free(one);
    printf(failures ? "%d FAILED\n" : "all good\n", failures);
    return failures ? 1 : 0;
}
