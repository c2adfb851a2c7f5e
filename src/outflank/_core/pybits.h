/* pybits.h - bitboards across the Python boundary, checked the same way
 * by every binding of the module. */
#ifndef OUTFLANK_PYBITS_H
#define OUTFLANK_PYBITS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "bitboard.h"

/* "O&" converter: a Python int in 0 .. 2**64-1 into a u64; TypeError or
 * ValueError otherwise. */
int py_to_bitboard(PyObject *obj, void *out);

/* 1 if the two bitboards are disjoint, else 0 with a ValueError set. */
int py_check_disjoint(u64 P, u64 O);

#endif
