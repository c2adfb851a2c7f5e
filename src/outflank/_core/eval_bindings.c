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

/* The model of a slot argument (-1: the active one), or NULL with an error set. */
static const EvalModel *slot_model(int slot) {
    const EvalModel *m = eval_default_model(slot);
    if (!m) PyErr_Format(PyExc_ValueError, "no evaluator model in slot %d (0..%d)", slot, EVAL_SLOTS - 1);
    return m;
}

PyDoc_STRVAR(eval_default_doc,
             "eval_default(player, opponent, slot=-1) -> int\n\n"
             "Static score of the 'default' evaluator from the mover's view, in\n"
             "1/100 disc: by the active model, or by the model loaded in slot.");

static PyObject *py_eval_default(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    static char *kwlist[] = {"player", "opponent", "slot", NULL};
    u64 P, O;
    int slot = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&O&|i:eval_default", kwlist, py_to_bitboard,
                                     &P, py_to_bitboard, &O, &slot))
        return NULL;
    if (!py_check_disjoint(P, O)) return NULL;
    const EvalModel *m = slot_model(slot);
    if (!m) return NULL;
    return PyLong_FromLong(eval_model_score(m, P, O));
}

/* Two equal buffers of uint64 bitboards (n of them), or an error set. */
static int bitboard_buffers(Py_buffer *pb, Py_buffer *ob, Py_ssize_t *n) {
    if (pb->len != ob->len || pb->len % 8 != 0) {
        PyErr_SetString(PyExc_ValueError, "need two equal-length buffers of uint64");
        return 0;
    }
    const u64 *P = pb->buf, *O = ob->buf;
    *n = pb->len / 8;
    for (Py_ssize_t i = 0; i < *n; ++i)
        if (P[i] & O[i]) {
            PyErr_SetString(PyExc_ValueError, "player and opponent bitboards overlap");
            return 0;
        }
    return 1;
}

PyDoc_STRVAR(eval_scores_doc,
             "eval_scores(players, opponents, slot=-1) -> bytes\n\n"
             "eval_default of many positions (bytes of native uint64 bitboards in,\n"
             "native int32 scores out), by the active model or the one in slot.");

static PyObject *py_eval_scores(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    static char *kwlist[] = {"players", "opponents", "slot", NULL};
    Py_buffer pb, ob;
    int slot = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*y*|i:eval_scores", kwlist, &pb, &ob, &slot))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n;
    const EvalModel *m = slot_model(slot);
    if (!m || !bitboard_buffers(&pb, &ob, &n)) goto done;
    result = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int));
    if (!result) goto done;
    const u64 *P = pb.buf, *O = ob.buf;
    int *out = (int *)PyBytes_AS_STRING(result);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; ++i) out[i] = eval_model_score(m, P[i], O[i]);
    Py_END_ALLOW_THREADS
done:
    PyBuffer_Release(&pb);
    PyBuffer_Release(&ob);
    return result;
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

/* The masks of a sequence of ints, or -1 with an error set. */
static int read_masks(PyObject *seq, u64 *masks) {
    PyObject *fast = PySequence_Fast(seq, "masks must be a sequence of bitboards");
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n < 1 || n > EVAL_MAX_TYPES) {
        PyErr_Format(PyExc_ValueError, "need 1..%d pattern masks", EVAL_MAX_TYPES);
        Py_DECREF(fast);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; ++i)
        if (!py_to_bitboard(PySequence_Fast_GET_ITEM(fast, i), &masks[i])) {
            Py_DECREF(fast);
            return -1;
        }
    Py_DECREF(fast);
    return (int)n;
}

PyDoc_STRVAR(eval_features_doc,
             "eval_features(players, opponents, masks=None, tables=False) -> bytes\n\n"
             "Features of the 'default' evaluator for many positions: players and\n"
             "opponents are bytes of native uint64 bitboards; the result holds, per\n"
             "position, the model's weight indices (one per pattern instance, then one\n"
             "per count table if the model has them) then the numeric features, as\n"
             "native int32. The model is the active one, or, with masks (pattern\n"
             "types as bitboards in the a1 corner's orientation, at most 10 squares\n"
             "each), one of those types, with the count tables if tables: its layout\n"
             "is eval_layout(masks=..., tables=...).");

static PyObject *py_eval_features(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    static char *kwlist[] = {"players", "opponents", "masks", "tables", NULL};
    Py_buffer pb, ob;
    PyObject *mask_arg = Py_None;
    int tables = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*y*|Op:eval_features", kwlist, &pb, &ob,
                                     &mask_arg, &tables))
        return NULL;
    PyObject *result = NULL;
    EvalModel *own = NULL;
    const EvalModel *m = eval_default_model(-1);
    Py_ssize_t n;
    if (mask_arg != Py_None) {
        u64 masks[EVAL_MAX_TYPES];
        int n_types = read_masks(mask_arg, masks);
        if (n_types < 0) goto done;
        m = own = eval_model_new(masks, n_types, tables);
        if (!own) {
            PyErr_Format(PyExc_ValueError,
                         "bad pattern masks: each needs 1..%d squares, %d instances at most",
                         EVAL_MAX_SQUARES, EVAL_MAX_PATTERNS);
            goto done;
        }
    }
    if (!bitboard_buffers(&pb, &ob, &n)) goto done;
    Py_ssize_t inst = eval_model_patterns(m), width = inst + EVAL_NUM;
    result = PyBytes_FromStringAndSize(NULL, n * width * (Py_ssize_t)sizeof(int));
    if (!result) goto done;
    const u64 *P = pb.buf, *O = ob.buf;
    int *out = (int *)PyBytes_AS_STRING(result);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; ++i)
        eval_model_features(m, P[i], O[i], out + i * width, out + i * width + inst);
    Py_END_ALLOW_THREADS
done:
    eval_model_free(own);
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

static PyObject *layout_dict(const EvalModel *m) {
    PyObject *types = PyList_New(eval_model_types(m));
    if (!types) return NULL;
    for (int t = 0; t < eval_model_types(m); ++t) {
        PyObject *v = PyLong_FromUnsignedLongLong(eval_model_mask(m, t));
        if (!v) {
            Py_DECREF(types);
            return NULL;
        }
        PyList_SET_ITEM(types, t, v);
    }
    return Py_BuildValue("{sisisisisisN}", "patterns", eval_model_patterns(m), "pattern_weights",
                         eval_model_weights(m), "numeric", EVAL_NUM, "tables",
                         eval_model_tables(m), "fitted", eval_model_fitted(m), "types", types);
}

PyDoc_STRVAR(eval_layout_doc,
             "eval_layout(slot=-1, masks=None, tables=False) -> dict\n\n"
             "The 'default' evaluator's features: patterns (look-ups per position: the\n"
             "instances, then the count tables'), pattern_weights (per phase, the\n"
             "count tables' included), numeric, tables (1 when it has count tables),\n"
             "fitted (1 when weights are loaded), types (the pattern masks), slot: of\n"
             "the active model, of the model in slot, or of a model of the given masks\n"
             "(eval_features(masks=..., tables=...)).");

static PyObject *py_eval_layout(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    static char *kwlist[] = {"slot", "masks", "tables", NULL};
    int slot = -1, tables = 0;
    PyObject *mask_arg = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|iOp:eval_layout", kwlist, &slot, &mask_arg,
                                     &tables))
        return NULL;
    if (mask_arg != Py_None) {
        u64 masks[EVAL_MAX_TYPES];
        int n_types = read_masks(mask_arg, masks);
        if (n_types < 0) return NULL;
        EvalModel *own = eval_model_new(masks, n_types, tables);
        if (!own)
            return PyErr_Format(PyExc_ValueError,
                                "bad pattern masks: each needs 1..%d squares, %d instances at most",
                                EVAL_MAX_SQUARES, EVAL_MAX_PATTERNS);
        PyObject *d = layout_dict(own);
        eval_model_free(own);
        return d;
    }
    const EvalModel *m = slot_model(slot);
    if (!m) return NULL;
    PyObject *d = layout_dict(m);
    if (d && PyDict_SetItemString(d, "slot", PyLong_FromLong(slot == -1 ? eval_default_active() : slot)) < 0)
        Py_CLEAR(d);
    return d;
}

PyDoc_STRVAR(eval_load_doc,
             "eval_load(data, slot=0) -> None\n\n"
             "Load fitted weights for the 'default' evaluator from the bytes of a weight\n"
             "file (src/outflank/data/eval.bin.gz, unzipped; the package loads it into\n"
             "slot 0 at import) into a slot (0..3); the file names its pattern types.\n"
             "Raises ValueError for a malformed file. Not for use during a search.");

static PyObject *py_eval_load(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    static char *kwlist[] = {"data", "slot", NULL};
    Py_buffer buf;
    int slot = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*|i:eval_load", kwlist, &buf, &slot))
        return NULL;
    if (slot < 0 || slot >= EVAL_SLOTS) {
        PyBuffer_Release(&buf);
        return PyErr_Format(PyExc_ValueError, "slot must be in 0..%d, not %d", EVAL_SLOTS - 1, slot);
    }
    int rc = eval_default_load(buf.buf, (size_t)buf.len, slot);
    PyBuffer_Release(&buf);
    if (rc == -2) return PyErr_NoMemory();
    if (rc != 0) {
        PyErr_SetString(PyExc_ValueError,
                        "not a weight file for this evaluator (wrong header, sizes or length)");
        return NULL;
    }
    Py_RETURN_NONE;
}

PyDoc_STRVAR(eval_use_doc,
             "eval_use(slot) -> None\n\n"
             "Make the model loaded in slot the one the engine's 'default' evaluator\n"
             "uses (0 at import). For comparing weight files in one process; not for\n"
             "use during a search.");

static PyObject *py_eval_use(PyObject *self, PyObject *args) {
    (void)self;
    int slot;
    if (!PyArg_ParseTuple(args, "i:eval_use", &slot)) return NULL;
    if (eval_default_use(slot) != 0)
        return PyErr_Format(PyExc_ValueError, "no evaluator model in slot %d (0..%d)", slot,
                            EVAL_SLOTS - 1);
    Py_RETURN_NONE;
}

static PyMethodDef features_methods[] = {
    {"eval_layout", (PyCFunction)(void (*)(void))py_eval_layout, METH_VARARGS | METH_KEYWORDS,
     eval_layout_doc},
    {"eval_load", (PyCFunction)(void (*)(void))py_eval_load, METH_VARARGS | METH_KEYWORDS,
     eval_load_doc},
    {"eval_use", py_eval_use, METH_VARARGS, eval_use_doc},
    {"eval_scores", (PyCFunction)(void (*)(void))py_eval_scores, METH_VARARGS | METH_KEYWORDS,
     eval_scores_doc},
    {"train_search", py_train_search, METH_VARARGS, train_search_doc},
    {"eval_default_hand", py_eval_default_hand, METH_VARARGS, eval_default_hand_doc},
    {"eval_features", (PyCFunction)(void (*)(void))py_eval_features, METH_VARARGS | METH_KEYWORDS,
     eval_features_doc},
    {"train_game", py_train_game, METH_VARARGS, train_game_doc},
    {"train_solve", py_train_solve, METH_VARARGS, train_solve_doc},
    {"eval_default", (PyCFunction)(void (*)(void))py_eval_default, METH_VARARGS | METH_KEYWORDS,
     eval_default_doc},
    {"stable_discs", py_stable_discs, METH_VARARGS, stable_discs_doc},
    {NULL, NULL, 0, NULL},
};

int eval_bindings_register(PyObject *module) {
    eval_default_init();
    return PyModule_AddFunctions(module, features_methods);
}
