/*
 * eval_bindings.c - Python bindings for the "default" evaluator's study and
 * training: its static score and stable discs. Registered into
 * outflank._core by eval_bindings_register() (one call from module init).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "eval.h"
#include "eval_default.h"
#include "pybits.h"
#include "eval_bindings.h"
#include "train.h"

static int parse_pair(PyObject *args, const char *fmt, u64 *P, u64 *O) {
    if (!PyArg_ParseTuple(args, fmt, py_to_bitboard, P, py_to_bitboard, O)) return 0;
    return py_check_disjoint(*P, *O);
}

PyDoc_STRVAR(eval_default_doc,
             "eval_default(player, opponent) -> int\n\n"
             "Static score of the 'default' evaluator from the mover's view, in\n"
             "1/100 disc.");

static PyObject *py_eval_default(PyObject *self, PyObject *args) {
    (void)self;
    u64 P, O;
    if (!parse_pair(args, "O&O&:eval_default", &P, &O)) return NULL;
    return PyLong_FromLong(eval_default(P, O));
}

PyDoc_STRVAR(stable_discs_doc,
             "stable_discs(player, opponent) -> int\n\n"
             "Bitboard of the player's discs that can never be flipped: discs on full lines,\n"
             "edge discs that no play on their edge can flip, and the chains they anchor\n"
             "(the set the endgame solver's stability cut-off counts).");

static PyObject *py_stable_discs(PyObject *self, PyObject *args) {
    (void)self;
    u64 P, O;
    if (!parse_pair(args, "O&O&:stable_discs", &P, &O)) return NULL;
    return PyLong_FromUnsignedLongLong(bb_stable_strong(P, O));
}

PyDoc_STRVAR(eval_features_doc,
             "eval_features(players, opponents) -> bytes\n\n"
             "Features of the 'default' evaluator for many positions: players and\n"
             "opponents are bytes of native uint64 bitboards; the result holds, per\n"
             "position, EVAL_PATTERNS weight indices then the numeric features, as\n"
             "native int32.");

static PyObject *py_eval_features(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer pb, ob;
    if (!PyArg_ParseTuple(args, "y*y*:eval_features", &pb, &ob)) return NULL;
    PyObject *result = NULL;
    if (pb.len != ob.len || pb.len % 8 != 0) {
        PyErr_SetString(PyExc_ValueError, "need two equal-length buffers of uint64");
        goto done;
    }
    Py_ssize_t n = pb.len / 8, width = EVAL_PATTERNS + EVAL_NUM;
    result = PyBytes_FromStringAndSize(NULL, n * width * (Py_ssize_t)sizeof(int));
    if (!result) goto done;
    const u64 *P = pb.buf, *O = ob.buf;
    int *out = (int *)PyBytes_AS_STRING(result);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; ++i) {
        if (P[i] & O[i]) continue;
        eval_default_features(P[i], O[i], out + i * width, out + i * width + EVAL_PATTERNS);
    }
    Py_END_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; ++i)
        if (P[i] & O[i]) {
            PyErr_SetString(PyExc_ValueError, "player and opponent bitboards overlap");
            Py_CLEAR(result);
            break;
        }
done:
    PyBuffer_Release(&pb);
    PyBuffer_Release(&ob);
    return result;
}

PyDoc_STRVAR(train_game_doc,
             "train_game(seed, random_plies, depth, exact_empties) -> (P, O, labels, black, nodes)\n\n"
             "Play one self-play game for fitting the evaluator (see train.h): P and O\n"
             "are bytes of uint64 bitboards (mover's view), labels bytes of int32\n"
             "final disc differences from each mover's view.");

static PyObject *py_train_game(PyObject *self, PyObject *args) {
    (void)self;
    unsigned long long seed;
    int random_plies, depth, exact_empties;
    if (!PyArg_ParseTuple(args, "Kiii:train_game", &seed, &random_plies, &depth, &exact_empties))
        return NULL;
    if (depth < 1 || depth > 12 || exact_empties < 0 || exact_empties > 22) {
        PyErr_SetString(PyExc_ValueError, "need 1 <= depth <= 12, 0 <= exact_empties <= 22");
        return NULL;
    }
    u64 P[64], O[64];
    int label[64], n = 0, black;
    long nodes = 0;
    Py_BEGIN_ALLOW_THREADS
    black = train_game(seed, random_plies, depth, exact_empties, P, O, label, &n, &nodes);
    Py_END_ALLOW_THREADS
    return Py_BuildValue("y#y#y#il", (const char *)P, (Py_ssize_t)(n * 8), (const char *)O,
                         (Py_ssize_t)(n * 8), (const char *)label,
                         (Py_ssize_t)(n * (int)sizeof(int)), black, nodes);
}

PyDoc_STRVAR(train_solve_doc,
             "train_solve(player, opponent) -> (score, nodes)\n\n"
             "Exact final disc difference by the training solver (small positions).");

static PyObject *py_train_solve(PyObject *self, PyObject *args) {
    (void)self;
    u64 P, O;
    if (!parse_pair(args, "O&O&:train_solve", &P, &O)) return NULL;
    if (bb_count(~(P | O)) > 22) {
        PyErr_SetString(PyExc_ValueError, "train_solve is for at most 22 empties");
        return NULL;
    }
    long nodes = 0;
    int v;
    Py_BEGIN_ALLOW_THREADS
    v = train_solve(P, O, &nodes);
    Py_END_ALLOW_THREADS
    return Py_BuildValue("il", v, nodes);
}

PyDoc_STRVAR(train_search_doc,
             "train_search(player, opponent, depth, hand=False) -> (score, nodes)\n\n"
             "Fixed-depth alpha-beta score (mover's view, 1/100 disc) with the default\n"
             "evaluator, or its hand-weighted version; no TT, for comparisons only.");

static PyObject *py_train_search(PyObject *self, PyObject *args) {
    (void)self;
    u64 p, o;
    int depth, hand = 0;
    if (!PyArg_ParseTuple(args, "O&O&i|p:train_search", py_to_bitboard, &p, py_to_bitboard, &o,
                          &depth, &hand))
        return NULL;
    if (!py_check_disjoint(p, o)) return NULL;
    if (depth < 0 || depth > 12) {
        PyErr_SetString(PyExc_ValueError, "depth must be in 0..12");
        return NULL;
    }
    long nodes = 0;
    int v;
    Py_BEGIN_ALLOW_THREADS
    v = train_search(p, o, depth, hand, &nodes);
    Py_END_ALLOW_THREADS
    return Py_BuildValue("il", v, nodes);
}

PyDoc_STRVAR(eval_default_hand_doc,
             "eval_default_hand(player, opponent) -> int\n\n"
             "The hand-weighted version of the default evaluator (for comparisons).");

static PyObject *py_eval_default_hand(PyObject *self, PyObject *args) {
    (void)self;
    u64 P, O;
    if (!parse_pair(args, "O&O&:eval_default_hand", &P, &O)) return NULL;
    return PyLong_FromLong(eval_default_hand(P, O));
}

PyDoc_STRVAR(eval_layout_doc,
             "eval_layout() -> dict\n\n"
             "Sizes of the 'default' evaluator's features: patterns, pattern_weights,\n"
             "numeric, fitted.");

static PyObject *py_eval_layout(PyObject *self, PyObject *args) {
    (void)self;
    (void)args;
    return Py_BuildValue("{sisisisi}", "patterns", EVAL_PATTERNS, "pattern_weights",
                         eval_pattern_weights(), "numeric", EVAL_NUM, "fitted",
                         eval_default_fitted());
}

PyDoc_STRVAR(eval_load_doc,
             "eval_load(data) -> None\n\n"
             "Load the 'default' evaluator's fitted weights from the bytes of a weight\n"
             "file (src/outflank/data/eval.bin; the package does this at import).\n"
             "Raises ValueError for a malformed file. Not for use during a search.");

static PyObject *py_eval_load(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer buf;
    if (!PyArg_ParseTuple(args, "y*:eval_load", &buf)) return NULL;
    int rc = eval_default_load(buf.buf, (size_t)buf.len);
    PyBuffer_Release(&buf);
    if (rc == -2) return PyErr_NoMemory();
    if (rc != 0) {
        PyErr_SetString(PyExc_ValueError,
                        "not a weight file for this evaluator (wrong header, sizes or length)");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef features_methods[] = {
    {"eval_layout", py_eval_layout, METH_NOARGS, eval_layout_doc},
    {"eval_load", py_eval_load, METH_VARARGS, eval_load_doc},
    {"train_search", py_train_search, METH_VARARGS, train_search_doc},
    {"eval_default_hand", py_eval_default_hand, METH_VARARGS, eval_default_hand_doc},
    {"eval_features", py_eval_features, METH_VARARGS, eval_features_doc},
    {"train_game", py_train_game, METH_VARARGS, train_game_doc},
    {"train_solve", py_train_solve, METH_VARARGS, train_solve_doc},
    {"eval_default", py_eval_default, METH_VARARGS, eval_default_doc},
    {"stable_discs", py_stable_discs, METH_VARARGS, stable_discs_doc},
    {NULL, NULL, 0, NULL},
};

int eval_bindings_register(PyObject *module) {
    eval_default_init();
    return PyModule_AddFunctions(module, features_methods);
}
