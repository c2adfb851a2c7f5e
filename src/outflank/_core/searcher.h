/* searcher.h - the Python type outflank._core.Searcher (search.h's face). */
#ifndef OUTFLANK_SEARCHER_H
#define OUTFLANK_SEARCHER_H

#include <Python.h>

/* Add the Searcher type and the search constants to the module; 0 or -1. */
int searcher_register(PyObject *module);

#endif
