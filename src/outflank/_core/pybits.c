/*
 * pybits.c - bitboards across the Python boundary (pybits.h): the checks
 * every binding (module.c, eval_bindings.c, searcher.c) applies the same way.
 */
#include "pybits.h"

int py_to_bitboard(PyObject *obj, void *out) {
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "a bitboard must be an int, not %.100s",
                     Py_TYPE(obj)->tp_name);
        return 0;
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(obj);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "a bitboard must be in 0 .. 2**64-1");
        return 0;
    }
    *(u64 *)out = (u64)v;
    return 1;
}

int py_check_disjoint(u64 P, u64 O) {
    if (P & O) {
        PyErr_SetString(PyExc_ValueError, "player and opponent bitboards overlap");
        return 0;
    }
    return 1;
}
