/*
 * searcher.c - outflank._core.Searcher: one search context (evaluator,
 * transposition table, stop flag) per object. search() releases the GIL
 * while it thinks and holds it only between iterations, to report progress.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdlib.h>
#include <string.h>

#include "parallel.h"
#include "pybits.h"
#include "clock.h"
#include "endgame.h"
#include "search.h"
#include "searcher.h"

enum { MODE_MID = 0, MODE_EXACT = 1, MODE_WLD = 2, MODE_PROBABLE = 3, MODE_PROBABLE_WLD = 4 };


typedef struct {
    PyObject_HEAD
    Search *s;
    int busy;
} SearcherObject;

static int check_tt_mib(long long mib) {
    if (mib < 1 || mib > 65536) {
        PyErr_Format(PyExc_ValueError, "tt_mb must be in 1..65536, not %lld", mib);
        return 0;
    }
    return 1;
}

static int check_threads(int threads) {
    if (threads < 1 || threads > MAX_THREADS) {
        PyErr_Format(PyExc_ValueError, "threads must be in 1..%d, not %d", MAX_THREADS, threads);
        return 0;
    }
    return 1;
}

static int Searcher_init(SearcherObject *self, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"tt_mb", "threads", "oversubscribe", NULL};
    long long mib = 64;
    int threads = 1, oversubscribe = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|Lip:Searcher", kwlist, &mib, &threads,
                                     &oversubscribe))
        return -1;
    if (!check_tt_mib(mib) || !check_threads(threads)) return -1;
    if (self->s) {
        PyErr_SetString(PyExc_RuntimeError, "Searcher already initialised");
        return -1;
    }
    Search *s = malloc(sizeof(Search));
    if (!s || search_init(s, (size_t)mib) < 0) {
        free(s);
        PyErr_NoMemory();
        return -1;
    }
    search_set_threads(s, threads, oversubscribe);
    self->s = s;
    return 0;
}

static void Searcher_dealloc(SearcherObject *self) {
    if (self->s) {
        search_free(self->s);
        free(self->s);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int ready(SearcherObject *self) {
    if (!self->s) {
        PyErr_SetString(PyExc_RuntimeError, "Searcher not initialised");
        return 0;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this Searcher is already searching");
        return 0;
    }
    return 1;
}

/* Fill an int array from a sequence of exactly n ints. */
static int int_array(PyObject *seq, int *out, Py_ssize_t n, const char *what) {
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of ints");
    if (!fast) return 0;
    if (PySequence_Fast_GET_SIZE(fast) != n) {
        PyErr_Format(PyExc_ValueError, "%s needs %zd ints", what, n);
        Py_DECREF(fast);
        return 0;
    }
    for (Py_ssize_t i = 0; i < n; ++i) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return 0;
        }
        if (v < -1000000 || v > 1000000) {
            PyErr_Format(PyExc_ValueError, "%s values must be in -1000000..1000000", what);
            Py_DECREF(fast);
            return 0;
        }
        out[i] = (int)v;
    }
    Py_DECREF(fast);
    return 1;
}

PyDoc_STRVAR(set_evaluator_doc,
             "set_evaluator(kind, weights, params, reversi=False)\n\n"
             "Choose the evaluator (EVAL_* constant), its 64 square weights and\n"
             "its 8 int parameters; reversi ends games when the mover cannot move.");

static PyObject *Searcher_set_evaluator(SearcherObject *self, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"kind", "weights", "params", "reversi", NULL};
    int kind, reversi = 0;
    PyObject *weights, *params;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "iOO|p:set_evaluator", kwlist, &kind,
                                     &weights, &params, &reversi))
        return NULL;
    if (!ready(self)) return NULL;
    if (kind < 0 || kind >= EVAL_KINDS) {
        PyErr_Format(PyExc_ValueError, "unknown evaluator kind %d", kind);
        return NULL;
    }
    Evaluator ev;
    ev.kind = kind;
    if (!int_array(weights, ev.weights, 64, "weights")) return NULL;
    if (!int_array(params, ev.params, EVAL_PARAMS, "params")) return NULL;
    search_set_evaluator(self->s, &ev);
    self->s->reversi = reversi;
    Py_RETURN_NONE;
}

static PyObject *Searcher_evaluate(SearcherObject *self, PyObject *args) {
    u64 P, O;
    if (!PyArg_ParseTuple(args, "O&O&:evaluate", py_to_bitboard, &P, py_to_bitboard, &O)) return NULL;
    if (!py_check_disjoint(P, O) || !ready(self)) return NULL;
    return PyLong_FromLong(eval_evaluate(&self->s->ev, P, O));
}

static PyObject *Searcher_stop(SearcherObject *self, PyObject *Py_UNUSED(ignored)) {
    if (self->s) search_stop(self->s);
    Py_RETURN_NONE;
}

static PyObject *Searcher_reset_stop(SearcherObject *self, PyObject *Py_UNUSED(ignored)) {
    if (self->s) search_reset_stop(self->s);
    Py_RETURN_NONE;
}

static PyObject *Searcher_clear(SearcherObject *self, PyObject *Py_UNUSED(ignored)) {
    if (!ready(self)) return NULL;
    search_clear(self->s);
    Py_RETURN_NONE;
}

static PyObject *Searcher_resize(SearcherObject *self, PyObject *args) {
    long long mib;
    if (!PyArg_ParseTuple(args, "L:resize", &mib)) return NULL;
    if (!check_tt_mib(mib) || !ready(self)) return NULL;
    if (tt_init(&self->s->tt, (size_t)mib) < 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *Searcher_set_threads(SearcherObject *self, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"threads", "oversubscribe", NULL};
    int threads, oversubscribe = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "i|p:set_threads", kwlist, &threads,
                                     &oversubscribe))
        return NULL;
    if (!check_threads(threads) || !ready(self)) return NULL;
    search_set_threads(self->s, threads, oversubscribe);
    Py_RETURN_NONE;
}

static PyObject *Searcher_get_threads(SearcherObject *self, void *closure) {
    (void)closure;
    return PyLong_FromLong(self->s ? self->s->par->nthreads : 1);
}

static PyGetSetDef Searcher_getset[] = {
    {"threads", (getter)Searcher_get_threads, NULL,
     "Threads each search may use (set_threads changes it between searches).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyObject *pv_list(const Search *s) {
    PyObject *list = PyList_New(s->pv_len[0]);
    if (!list) return NULL;
    for (int i = 0; i < s->pv_len[0]; ++i) {
        PyObject *v = PyLong_FromLong(s->pv[0][i]);
        if (!v) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, v);
    }
    return list;
}

static PyObject *moves_list(const RootMove *moves, int n) {
    PyObject *list = PyList_New(n);
    if (!list) return NULL;
    for (int i = 0; i < n; ++i) {
        PyObject *t = Py_BuildValue("(iiOO)", moves[i].square, moves[i].score,
                                    moves[i].searched ? Py_True : Py_False,
                                    moves[i].searched && moves[i].upper ? Py_True : Py_False);
        if (!t) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, t);
    }
    return list;
}

PyDoc_STRVAR(search_doc,
             "search(player, opponent, mode=0, depth=60, time=0.0, nodes=0,\n"
             "       callback=None, analyze=False, selective=0, window=0, multipv=0)\n"
             "       -> dict\n\n"
             "mode 0: iterative deepening to depth on evaluator scores; 1: exact\n"
             "endgame (disc difference); 2: win/draw/loss (-1, 0, +1 bounds); 3:\n"
             "probable endgame score (selective search with probable cut-offs); 4:\n"
             "probable win/draw/loss (mode 3's search with mode 2's window).\n"
             "time (seconds) and nodes of 0 mean no limit. callback(depth, score,\n"
             "nodes, elapsed, pv) is called after every completed iteration with the\n"
             "GIL held. analyze scores every root move: exactly, or (window > 0,\n"
             "in the mode's unit: the evaluator's in mode 0, discs in mode 1)\n"
             "exactly where within window of the best and as an upper bound below,\n"
             "or (multipv > 0) exactly for the multipv best moves only.\n"
             "selective > 0 (mode 0, default evaluator): probable cut-offs where a\n"
             "shallow search clears the window by selective / 100 standard\n"
             "deviations of its error. The dict holds move, score, pv, depth,\n"
             "nodes, elapsed, aborted, moves ((square, score, searched, upper) each,\n"
             "best first; upper, in analyze mode: the score is only an upper\n"
             "bound), threads (the threads it ran on).");

/* An iteration cut by the time limit may already have found a better move:
 * the last iteration's best (moves[0]) was searched first, with a full
 * window, and a move that beat it was searched again with a full window,
 * so its score is exact at the deeper depth too. That move goes first, with
 * its new score; the others keep the last complete iteration's order and
 * scores. Returns whether it moved one (s->pv[0] then holds its line). */
static int adopt_better_move(RootMove *moves, const RootMove *work, int n, int *score) {
    int first = -1;
    for (int i = 0; i < n; ++i)
        if (work[i].square == moves[0].square) first = i;
    if (first < 0 || !work[first].searched || !work[0].searched ||
        work[0].square == moves[0].square || work[0].score <= work[first].score)
        return 0;
    int j = 0;
    while (j < n && moves[j].square != work[0].square) ++j;
    if (j == n) return 0;
    RootMove better = moves[j];
    memmove(moves + 1, moves, sizeof(RootMove) * (size_t)j);
    better.score = work[0].score;
    better.upper = 0; /* searched with a full window: exact */
    moves[0] = better;
    *score = better.score;
    return 1;
}

/* The selectivity stages of a timed selective midgame search that has
 * reached the end of the game: once an iteration's depth covers every
 * empty square, deeper iterations would search the same tree, and the
 * search used to stop there with most of its time unspent. Each stage
 * instead searches that tree again with wider probable cut-off margins, in
 * % of the search's own (0: none, every leaf then exact), while time
 * allows (tuning.end_stages of them). Each stage counts one ply deeper, so
 * the table's bounds of a narrower stage order its moves but never cut
 * it; the reported depth stays the number of empty squares. Searches
 * without a time limit stop at the end of the game as before. */
static const int SELECTIVITY_STAGES[] = {150, 200, 260, 330, 0};
#define N_SELECTIVITY_STAGES ((int)(sizeof SELECTIVITY_STAGES / sizeof SELECTIVITY_STAGES[0]))

/* The share of a timed search's budget after which iterative deepening
 * starts no new iteration: tuning.time_soft %, more after an iteration that
 * changed the best move, less once it has stayed for two (from depth 4:
 * the first iterations' moves change by chance). */
static double soft_share(int same_best, int depth) {
    double share = 0.01 * tuning.time_soft; /* in double: any tune value is safe */
    if (depth >= 4 && same_best == 0) share *= 1 + 0.01 * tuning.time_unstable;
    if (depth >= 4 && same_best >= 2) share *= 1 - 0.01 * tuning.time_stable;
    return share;
}

static PyObject *Searcher_search(SearcherObject *self, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"player", "opponent", "mode", "depth", "time",
                             "nodes",  "callback", "analyze", "selective", "window",
                             "multipv", NULL};
    u64 P, O;
    int mode = MODE_MID, depth = 60, analyze = 0, selective = 0, window = 0, multipv = 0;
    double time_limit = 0;
    unsigned long long node_limit = 0;
    PyObject *callback = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&O&|iidKOpiii:search", kwlist,
                                     py_to_bitboard, &P, py_to_bitboard, &O, &mode, &depth,
                                     &time_limit, &node_limit, &callback, &analyze, &selective,
                                     &window, &multipv))
        return NULL;
    if (!py_check_disjoint(P, O) || !ready(self)) return NULL;
    if (mode < MODE_MID || mode > MODE_PROBABLE_WLD) {
        PyErr_Format(PyExc_ValueError, "unknown search mode %d", mode);
        return NULL;
    }
    if (depth < 1 || depth > 100) {
        PyErr_Format(PyExc_ValueError, "depth must be in 1..100, not %d", depth);
        return NULL;
    }
    if (!(time_limit >= 0)) {
        PyErr_SetString(PyExc_ValueError, "time must be >= 0");
        return NULL;
    }
    if (selective < 0 || selective > 1000) {
        PyErr_Format(PyExc_ValueError, "selective must be in 0..1000, not %d", selective);
        return NULL;
    }
    if (window < 0 || window >= ANALYZE_EXACT) {
        PyErr_Format(PyExc_ValueError, "window must be in 0..%d, not %d", ANALYZE_EXACT - 1,
                     window);
        return NULL;
    }
    if (multipv < 0 || multipv > MAX_MOVES || (multipv && window)) {
        PyErr_Format(PyExc_ValueError, "multipv must be in 0..%d, and not with a window",
                     MAX_MOVES);
        return NULL;
    }
    /* mid_root's and end_analyze's analyze argument (search.h) */
    int root_mode = !analyze ? 0 : multipv ? -multipv : window ? window : ANALYZE_EXACT;
    if (callback != Py_None && !PyCallable_Check(callback)) {
        PyErr_SetString(PyExc_TypeError, "callback must be callable");
        return NULL;
    }
    Search *s = self->s;
    RootMove moves[MAX_MOVES], work[MAX_MOVES];
    int n = search_root_moves(P, O, moves);
    if (n == 0) {
        PyErr_SetString(PyExc_ValueError, "the game is over: no move to search");
        return NULL;
    }
    self->busy = 1;
    search_begin(s, time_limit, (uint64_t)node_limit);
    double start = clock_seconds();
    int empties = 64 - bb_count(P | O);
    int score = 0, done_depth = 0, aborted = 0;
    int pv[MAX_PLY], pv_len = 0;

    if (mode == MODE_MID) {
        /* probable cut-offs: only the default evaluator's errors were measured */
        s->mpc_t = s->ev.kind == EVAL_DEFAULT ? selective : 0;
        s->fresh_cuts = analyze;
        int base_t = s->mpc_t, stage = 0;
        int best_before = -1, same_best = 0; /* iterations in a row with the same best move */
        for (int d = 1; d <= depth; ++d) {
            memcpy(work, moves, sizeof(RootMove) * (size_t)n);
            int v;
            Py_BEGIN_ALLOW_THREADS
            v = mid_root(s, P, O, d, work, n, root_mode);
            Py_END_ALLOW_THREADS
            if (ABORTED(s)) {
                aborted = 1;
                if (!analyze && done_depth > 0 && adopt_better_move(moves, work, n, &score)) {
                    pv_len = s->pv_len[0];
                    memcpy(pv, s->pv[0], sizeof(int) * (size_t)pv_len);
                }
                break;
            }
            memcpy(moves, work, sizeof(RootMove) * (size_t)n);
            same_best = moves[0].square == best_before ? same_best + 1 : 0;
            best_before = moves[0].square;
            score = v;
            done_depth = d < empties ? d : empties; /* a selectivity stage: the end */
            pv_len = s->pv_len[0];
            memcpy(pv, s->pv[0], sizeof(int) * (size_t)pv_len);
            double elapsed = clock_seconds() - start;
            if (callback != Py_None) {
                PyObject *pvl = pv_list(s);
                PyObject *r = pvl ? PyObject_CallFunction(callback, "iiKdO", done_depth, v,
                                                          (unsigned long long)search_nodes(s),
                                                          elapsed, pvl)
                                  : NULL;
                Py_XDECREF(pvl);
                if (!r) {
                    Py_BEGIN_ALLOW_THREADS
                    search_end(s);
                    Py_END_ALLOW_THREADS
                    self->busy = 0;
                    return NULL;
                }
                Py_DECREF(r);
            }
            if (d >= empties) { /* the tree reaches the end of the game */
                if (!s->deadline || !base_t || stage >= tuning.end_stages ||
                    stage >= N_SELECTIVITY_STAGES)
                    break;
                s->mpc_t = base_t * SELECTIVITY_STAGES[stage++] / 100;
            }
            if (s->deadline && elapsed > soft_share(same_best, d) * time_limit)
                break; /* the next one would not finish */
            if (search_stop_requested(s)) {
                aborted = 1;
                break;
            }
        }
    } else {
        int wld = mode == MODE_WLD || mode == MODE_PROBABLE_WLD;
        int alpha = wld ? -1 : -64, beta = wld ? 1 : 64;
        Py_BEGIN_ALLOW_THREADS
        EvalState saved;
        end_enter(s, &saved);
        int probable = mode == MODE_PROBABLE || mode == MODE_PROBABLE_WLD;
        score = probable  ? end_probable(s, P, O, alpha, beta, moves, n)
                : analyze ? end_analyze(s, P, O, alpha, beta, moves, n, root_mode)
                          : end_solve(s, P, O, alpha, beta, moves, n);
        end_leave(s, &saved);
        Py_END_ALLOW_THREADS
        aborted = ABORTED(s) != 0;
        /* an interrupted solve reports the pre-search's depth, whose move
         * (or a better one from a later pass) leads the list */
        done_depth = aborted ? s->presearch_depth : empties;
        pv_len = s->pv_len[0];
        memcpy(pv, s->pv[0], sizeof(int) * (size_t)pv_len);
        if (aborted) { /* the score is the estimate end_solve/end_analyze returned */
            if (!moves[0].searched || pv_len == 0 || pv[0] != moves[0].square) {
                pv[0] = moves[0].square;
                pv_len = 1;
            }
        }
    }
    Py_BEGIN_ALLOW_THREADS
    search_end(s); /* the helper threads end with the search */
    Py_END_ALLOW_THREADS
    self->busy = 0;
    double elapsed = clock_seconds() - start;
    if (done_depth == 0) { /* nothing completed: fall back on the first ordered move */
        pv[0] = moves[0].square;
        pv_len = 1;
    }
    s->pv_len[0] = pv_len;
    memcpy(s->pv[0], pv, sizeof(int) * (size_t)pv_len);
    PyObject *pvl = pv_list(s);
    PyObject *ml = moves_list(moves, n);
    PyObject *res = NULL;
    if (pvl && ml)
        res = Py_BuildValue("{s:i,s:i,s:O,s:i,s:K,s:d,s:O,s:O,s:i}", "move", moves[0].square,
                            "score", score, "pv", pvl, "depth", done_depth, "nodes",
                            (unsigned long long)search_nodes(s), "elapsed", elapsed, "aborted",
                            aborted ? Py_True : Py_False, "moves", ml, "threads",
                            s->par->running);
    Py_XDECREF(pvl);
    Py_XDECREF(ml);
    return res;
}

static PyMethodDef Searcher_methods[] = {
    {"set_evaluator", (PyCFunction)(void (*)(void))Searcher_set_evaluator,
     METH_VARARGS | METH_KEYWORDS, set_evaluator_doc},
    {"evaluate", (PyCFunction)Searcher_evaluate, METH_VARARGS,
     "evaluate(player, opponent) -> int: the current evaluator's static score."},
    {"search", (PyCFunction)(void (*)(void))Searcher_search, METH_VARARGS | METH_KEYWORDS,
     search_doc},
    {"stop", (PyCFunction)Searcher_stop, METH_NOARGS,
     "stop(): ask a running search (in another thread), or the next one, to return soon."},
    {"reset_stop", (PyCFunction)Searcher_reset_stop, METH_NOARGS,
     "reset_stop(): forget a stop() (searches do not clear it themselves)."},
    {"clear", (PyCFunction)Searcher_clear, METH_NOARGS, "clear(): empty the TT."},
    {"set_threads", (PyCFunction)(void (*)(void))Searcher_set_threads,
     METH_VARARGS | METH_KEYWORDS,
     "set_threads(n, oversubscribe=False): threads each search may use from now on\n"
     "(1..64); at most the cores the process may run on, unless oversubscribe."},
    {"resize", (PyCFunction)Searcher_resize, METH_VARARGS,
     "resize(tt_mb): reallocate the transposition table (emptied)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject SearcherType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "outflank._core.Searcher",
    .tp_basicsize = sizeof(SearcherObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = PyDoc_STR("Searcher(tt_mb=64, threads=1, oversubscribe=False): an alpha-beta\n"
                        "search context; each search uses up to `threads` threads (Young\n"
                        "Brothers Wait), at most the cores the process may run on unless\n"
                        "oversubscribe."),
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Searcher_init,
    .tp_dealloc = (destructor)Searcher_dealloc,
    .tp_methods = Searcher_methods,
    .tp_getset = Searcher_getset,
};

int searcher_register(PyObject *module) {
    search_tables_init();
    end_tables_init();
    mid_horizon_solver = end_midgame_value;
    if (PyType_Ready(&SearcherType) < 0) return -1;
    Py_INCREF(&SearcherType);
    if (PyModule_AddObject(module, "Searcher", (PyObject *)&SearcherType) < 0) {
        Py_DECREF(&SearcherType);
        return -1;
    }
    if (PyModule_AddIntConstant(module, "SCORE_WIN", SCORE_WIN) < 0 ||
        PyModule_AddIntConstant(module, "MAX_THREADS", MAX_THREADS) < 0 ||
        PyModule_AddIntConstant(module, "MOVE_PASS", MOVE_PASS) < 0 ||
        PyModule_AddIntConstant(module, "EVAL_DEFAULT", EVAL_DEFAULT) < 0 ||
        PyModule_AddIntConstant(module, "EVAL_WEIGHTS", EVAL_WEIGHTS) < 0 ||
        PyModule_AddIntConstant(module, "EVAL_FISH", EVAL_FISH) < 0 ||
        PyModule_AddIntConstant(module, "EVAL_HEURISTIC", EVAL_HEURISTIC) < 0 ||
        PyModule_AddIntConstant(module, "EVAL_REGIONS", EVAL_REGIONS) < 0 ||
        PyModule_AddIntConstant(module, "EVAL_DISCS", EVAL_DISCS) < 0 ||
        PyModule_AddIntConstant(module, "MODE_MID", MODE_MID) < 0 ||
        PyModule_AddIntConstant(module, "MODE_EXACT", MODE_EXACT) < 0 ||
        PyModule_AddIntConstant(module, "MODE_WLD", MODE_WLD) < 0 ||
        PyModule_AddIntConstant(module, "MODE_PROBABLE", MODE_PROBABLE) < 0 ||
        PyModule_AddIntConstant(module, "MODE_PROBABLE_WLD", MODE_PROBABLE_WLD) < 0)
        return -1;
    return 0;
}
