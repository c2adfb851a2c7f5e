/*
 * module.c - the Python face of the native core.
 *
 * setup.py compiles these sources into two modules: outflank._core_generic
 * for any processor and, on x86-64, outflank._core_avx2 with AVX2 and BMI2
 * (CORE_MODULE names the one being built). outflank/_core.py imports the
 * fastest one this processor runs.
 *
 * Bitboards cross the boundary as Python ints (0 <= b < 2**64), always from
 * the side to move: `player` holds the mover's discs, `opponent` the other's.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "bitboard.h"
#include "eval.h"
#include "pybits.h"
#include "eval_bindings.h"
#include "search.h"
#include "searcher.h"

PyDoc_STRVAR(moves_doc,
             "moves(player, opponent) -> int\n\n"
             "Bitboard of the squares where the side to move may play.");

static PyObject *py_moves(PyObject *self, PyObject *args) {
    (void)self;
    u64 P, O;
    if (!PyArg_ParseTuple(args, "O&O&:moves", py_to_bitboard, &P, py_to_bitboard, &O)) return NULL;
    if (!py_check_disjoint(P, O)) return NULL;
    return PyLong_FromUnsignedLongLong(bb_moves(P, O));
}

PyDoc_STRVAR(flips_doc,
             "flips(player, opponent, square) -> int\n\n"
             "Bitboard of the discs flipped by playing on square (0 if none).");

static PyObject *py_flips(PyObject *self, PyObject *args) {
    (void)self;
    u64 P, O;
    int sq;
    if (!PyArg_ParseTuple(args, "O&O&i:flips", py_to_bitboard, &P, py_to_bitboard, &O, &sq))
        return NULL;
    if (!py_check_disjoint(P, O)) return NULL;
    if (sq < 0 || sq > 63) {
        PyErr_Format(PyExc_ValueError, "square must be in 0..63, not %d", sq);
        return NULL;
    }
    if ((P | O) >> sq & 1) return PyLong_FromLong(0);
    return PyLong_FromUnsignedLongLong(bb_flips(P, O, sq));
}

PyDoc_STRVAR(perft_doc,
             "perft(player, opponent, depth, count_finished=True) -> int\n\n"
             "Leaves of the game tree at depth. A forced pass counts as a move; a\n"
             "game over before depth counts as one leaf (or none if\n"
             "count_finished is false). Releases the GIL.");

static PyObject *py_perft(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    static char *kwlist[] = {"player", "opponent", "depth", "count_finished", NULL};
    u64 P, O;
    int depth, count_finished = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&O&i|p:perft", kwlist, py_to_bitboard, &P,
                                     py_to_bitboard, &O, &depth, &count_finished))
        return NULL;
    if (!py_check_disjoint(P, O)) return NULL;
    if (depth < 0 || depth > 60) {
        PyErr_Format(PyExc_ValueError, "perft depth must be in 0..60, not %d", depth);
        return NULL;
    }
    uint64_t n;
    Py_BEGIN_ALLOW_THREADS
    n = bb_perft(P, O, depth, count_finished);
    Py_END_ALLOW_THREADS
    return PyLong_FromUnsignedLongLong(n);
}

/* What each vector build needs of the processor (and its operating
 * system, which GCC's checks include). */
static int runs_avx2_build(void) {
#if defined(__GNUC__) && defined(__x86_64__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
           __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
#else
    return 0;
#endif
}

static int runs_avx512_build(void) {
#if defined(__GNUC__) && defined(__x86_64__)
    return runs_avx2_build() && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512cd") &&
           __builtin_cpu_supports("avx512vpopcntdq");
#else
    return 0;
#endif
}

PyDoc_STRVAR(avx2_usable_doc,
             "avx2_usable() -> bool\n\n"
             "True when this processor (and its operating system) runs the AVX2\n"
             "build of the core: AVX2, BMI1, BMI2 and POPCNT.");

static PyObject *py_avx2_usable(PyObject *self, PyObject *args) {
    (void)self;
    (void)args;
    return PyBool_FromLong(runs_avx2_build());
}

PyDoc_STRVAR(avx512_usable_doc,
             "avx512_usable() -> bool\n\n"
             "True when this processor (and its operating system) runs the AVX-512\n"
             "build of the core: what the AVX2 build needs, plus AVX512F, AVX512VL,\n"
             "AVX512CD and AVX512VPOPCNTDQ.");

static PyObject *py_avx512_usable(PyObject *self, PyObject *args) {
    (void)self;
    (void)args;
    return PyBool_FromLong(runs_avx512_build());
}

PyDoc_STRVAR(tune_doc,
             "tune(name=None, value=None) -> dict\n\n"
             "The midgame search's settings for benchmarks (variants compared in one\n"
             "build); with a name and a value, set that one first. Process-wide: not\n"
             "while a search runs. Returns every setting by name.");

static PyObject *py_tune(PyObject *self, PyObject *args) {
    (void)self;
    const char *name = NULL;
    int value = 0;
    if (!PyArg_ParseTuple(args, "|si:tune", &name, &value)) return NULL;
    if (name && PyTuple_GET_SIZE(args) < 2) {
        PyErr_SetString(PyExc_TypeError, "tune(name, value): give a value with the name");
        return NULL;
    }
    if (name && tuning_set(name, value) < 0) {
        PyErr_Format(PyExc_ValueError, "unknown search setting %R", PyTuple_GET_ITEM(args, 0));
        return NULL;
    }
    PyObject *out = PyDict_New();
    for (int i = 0; out && TUNING_NAMES[i]; ++i) {
        int v = 0;
        tuning_get(TUNING_NAMES[i], &v);
        PyObject *item = PyLong_FromLong(v);
        if (!item || PyDict_SetItemString(out, TUNING_NAMES[i], item) < 0) Py_CLEAR(out);
        Py_XDECREF(item);
    }
    return out;
}

static PyMethodDef core_methods[] = {
    {"tune", py_tune, METH_VARARGS, tune_doc},
    {"moves", py_moves, METH_VARARGS, moves_doc},
    {"flips", py_flips, METH_VARARGS, flips_doc},
    {"perft", (PyCFunction)(void (*)(void))py_perft, METH_VARARGS | METH_KEYWORDS, perft_doc},
    {"avx2_usable", py_avx2_usable, METH_NOARGS, avx2_usable_doc},
    {"avx512_usable", py_avx512_usable, METH_NOARGS, avx512_usable_doc},
    {NULL, NULL, 0, NULL},
};

#ifndef CORE_MODULE
#define CORE_MODULE _core_generic
#endif
#define CORE_STR_(x) #x
#define CORE_STR(x) CORE_STR_(x)
#define CORE_CAT_(a, b) a##b
#define CORE_CAT(a, b) CORE_CAT_(a, b)

#if defined(BB_AVX512)
#define CORE_BUILD "avx512"
#elif defined(__AVX2__)
#define CORE_BUILD "avx2"
#else
#define CORE_BUILD "generic"
#endif

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "outflank." CORE_STR(CORE_MODULE),
    "Native Othello core (" CORE_BUILD " build): bitboard rules, perft, search.", -1,
    core_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC CORE_CAT(PyInit_, CORE_MODULE)(void) {
    bb_init();
    bb_edge_table_init();
    PyObject *m = PyModule_Create(&core_module);
    if (m && (eval_bindings_register(m) < 0 || searcher_register(m) < 0 ||
              PyModule_AddStringConstant(m, "BUILD", CORE_BUILD) < 0 ||
              PyModule_AddStringConstant(m, "PATTERN_GATHER", eval_default_gather()) < 0))
        Py_CLEAR(m);
    return m;
}
