/* features.h - registration of the evaluator's study/training bindings. */
#ifndef OUTFLANK_FEATURES_H
#define OUTFLANK_FEATURES_H

#include <Python.h>

/* Add eval_default, stable_discs, ... to the module; 0 on success, -1 on error. */
int features_register(PyObject *module);

#endif
