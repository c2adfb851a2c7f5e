/* eval_bindings.h - registration of the evaluator's study/training bindings. */
#ifndef OUTFLANK_EVAL_BINDINGS_H
#define OUTFLANK_EVAL_BINDINGS_H

#include <Python.h>

/* Add eval_default, stable_discs, ... to the module; 0 on success, -1 on error. */
int eval_bindings_register(PyObject *module);

#endif
