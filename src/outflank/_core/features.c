/*
 * features.c - Python bindings for the "default" evaluator's study and
 * training: its static score and stable discs. Registered into
 * outflank._core by features_register() (one call from module init).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "eval_default.h"
#include "features.h"

static int parse_pair(PyObject *args, const char *fmt, u64 *P, u64 *O) {
    unsigned long long p, o;
    if (!PyArg_ParseTuple(args, fmt, &p, &o)) return 0;
    if (p & o) {
        PyErr_SetString(PyExc_ValueError, "player and opponent bitboards overlap");
        return 0;
    }
    *P = p;
    *O = o;
    return 1;
}

PyDoc_STRVAR(eval_default_doc,
             "eval_default(player, opponent) -> int\n\n"
             "Static score of the 'default' evaluator from the mover's view, in\n"
             "1/100 disc.");

static PyObject *py_eval_default(PyObject *self, PyObject *args) {
    (void)self;
    u64 P, O;
    if (!parse_pair(args, "KK:eval_default", &P, &O)) return NULL;
    return PyLong_FromLong(eval_default(P, O));
}

PyDoc_STRVAR(stable_discs_doc,
             "stable_discs(player, opponent) -> int\n\n"
             "Bitboard of the player's discs that can never be flipped (edge-anchored).");

static PyObject *py_stable_discs(PyObject *self, PyObject *args) {
    (void)self;
    u64 P, O;
    if (!parse_pair(args, "KK:stable_discs", &P, &O)) return NULL;
    return PyLong_FromUnsignedLongLong(eval_stable_discs(P, O));
}

static PyMethodDef features_methods[] = {
    {"eval_default", py_eval_default, METH_VARARGS, eval_default_doc},
    {"stable_discs", py_stable_discs, METH_VARARGS, stable_discs_doc},
    {NULL, NULL, 0, NULL},
};

int features_register(PyObject *module) {
    eval_default_init();
    return PyModule_AddFunctions(module, features_methods);
}
