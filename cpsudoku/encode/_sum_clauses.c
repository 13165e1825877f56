/*
 * The layered diagrams of cpsudoku/encode/sum_clauses.py in C: the clauses of an
 * automaton (or a count, written as one) and of a weighted sum over a line, on the
 * placeholder variables of its templates, and their renaming onto a line's cells.
 *
 * The Python writer (layered_clauses) stays the reference and the writer of
 * certificates (it says what each variable means); this one writes the same clauses,
 * the same variables numbered the same way, so that a rule set with many new clues
 * (a dataset of X-sum or lunchbox puzzles, each its own) does not spend most of its
 * time in Python building them. The clauses within a layer may come in another
 * order (the Python writer walks a set of states); tests compare the two clause for
 * clause.
 *
 * A state is an index 0..S-1: an automaton's own state, or a partial sum less the
 * least partial sum (lo). Layer k holds the states after the first k cells.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most states a diagram may have here, and the most states times layers (or
 * times values) its tables may hold; the Python writer takes larger ones. */
#define MOST_STATES (1 << 22)
#define MOST_TABLE (1 << 22)
/* The most values a cell may hold here (value masks are one word). */
#define MOST_VALUES 64

typedef struct {
    int m, n, S, start;
    const int32_t *trans;  /* automaton: S * n next states, -1 none */
    const uint8_t *accept; /* automaton: S flags; sum: S target flags */
    const long long *w;    /* sum: m weights (NULL for an automaton) */
    long long lo;          /* sum: the least partial sum (state 0) */
} Diagram;

static inline int step(const Diagram *g, int k, int q, int d)
{
    if (!g->w)
        return g->trans[(size_t)q * g->n + d - 1];
    return (int)(q + g->w[k] * d); /* within 0..S-1 by the choice of lo and S */
}

/* What Python's sorted(..., key=repr) orders states by: their decimal text. */
static long long g_lo; /* the offset of the states being sorted (qsort has no context) */
static int by_text(const void *a, const void *b)
{
    char x[24], y[24];
    snprintf(x, sizeof x, "%lld", *(const int *)a + g_lo);
    snprintf(y, sizeof y, "%lld", *(const int *)b + g_lo);
    return strcmp(x, y);
}

typedef struct {
    long long *lits, *starts;
    size_t nlits, nstarts, caplits, capstarts;
} Out;

static int grow(long long **buf, size_t *cap, size_t len)
{
    if (len < *cap)
        return 0;
    size_t want = *cap ? *cap * 2 : 1024;
    long long *bigger = PyMem_Realloc(*buf, want * sizeof(long long));
    if (!bigger)
        return -1;
    *buf = bigger;
    *cap = want;
    return 0;
}

static int lit(Out *o, long long x)
{
    if (grow(&o->lits, &o->caplits, o->nlits))
        return -1;
    o->lits[o->nlits++] = x;
    return 0;
}

static int end_clause(Out *o)
{
    if (grow(&o->starts, &o->capstarts, o->nstarts))
        return -1;
    o->starts[o->nstarts++] = (long long)o->nlits;
    return 0;
}

/* The clause (-source) | head | the values of this cell outside mask (base + d); a
 * source or head of 0 is left out. */
static int clause_outside(Out *o, long long source, long long head, uint64_t mask,
                          long long base, int n)
{
    if ((source && lit(o, -source)) || (head && lit(o, head)))
        return -1;
    for (int d = 1; d <= n; d++)
        if (!(mask >> (d - 1) & 1) && lit(o, base + d))
            return -1;
    return end_clause(o);
}

/* A clause (-source) | -(base + d) | head per value d of mask; 0s left out as above. */
static int clauses_each(Out *o, long long source, uint64_t mask, long long base, int n,
                        long long head)
{
    for (int d = 1; d <= n; d++)
        if (mask >> (d - 1) & 1)
            if ((source && lit(o, -source)) || lit(o, -(base + d)) || (head && lit(o, head)) ||
                end_clause(o))
                return -1;
    return 0;
}

/* The clauses of the diagram (sum_clauses.layered_clauses with start state g->start
 * and the placeholder cells 0..m-1); returns the number of auxiliary variables, or -1
 * when out of memory. */
static long long write_diagram(const Diagram *g, Out *o)
{
    const int m = g->m, n = g->n, S = g->S;
    const size_t layer = (size_t)S;
    uint8_t *fw = PyMem_Calloc((size_t)(m + 1) * layer, 1);
    uint8_t *bk = PyMem_Calloc((size_t)(m + 1) * layer, 1);
    long long *var = PyMem_Calloc((size_t)(m + 1) * layer, sizeof(long long));
    int *order = PyMem_Malloc((size_t)(m + 1) * layer * sizeof(int));
    int *count = PyMem_Calloc((size_t)(m + 1), sizeof(int));
    uint64_t *ways = PyMem_Malloc(layer * sizeof(uint64_t));
    int *into = PyMem_Malloc((size_t)n * layer * sizeof(int));
    int *ascending = PyMem_Malloc(layer * sizeof(int)); /* a layer's states, ascending */
    int intoc[MOST_VALUES];
    int u_of[MOST_VALUES + 1];
    long long top = (long long)m * n, result = -1;
    if (!fw || !bk || !var || !order || !count || !ways || !into || !ascending)
        goto done;
    if (end_clause(o)) /* starts[0] = 0 */
        goto done;
    fw[g->start] = 1;
    for (int k = 0; k < m; k++)
        for (int q = 0; q < S; q++)
            if (fw[k * layer + q])
                for (int d = 1; d <= n; d++) {
                    const int u = step(g, k, q, d);
                    if (u >= 0)
                        fw[(k + 1) * layer + u] = 1;
                }
    for (int q = 0; q < S; q++)
        bk[m * layer + q] = fw[m * layer + q] && g->accept[q];
    for (int k = m; k > 0; k--)
        for (int q = 0; q < S; q++)
            if (fw[(k - 1) * layer + q])
                for (int d = 1; d <= n; d++) {
                    const int u = step(g, k - 1, q, d);
                    if (u >= 0 && bk[k * layer + u]) {
                        bk[(k - 1) * layer + q] = 1;
                        break;
                    }
                }
    /* each layer's states in order: ascending, then by their text for the variables */
    for (int k = 0; k <= m; k++)
        for (int q = 0; q < S; q++)
            if (bk[k * layer + q])
                order[k * layer + count[k]++] = q;
    if (!count[0]) { /* no values make the line: the empty clause */
        result = end_clause(o) ? -1 : 0;
        goto done;
    }
    g_lo = g->w ? g->lo : 0;
    for (int k = 1; k <= m; k++) {
        if (count[k] == 1)
            continue; /* a layer of one state is a constant: no variable */
        int *sorted = order + k * layer; /* sorted in place: the variables' order */
        qsort(sorted, (size_t)count[k], sizeof(int), by_text);
        for (int j = 0; j < count[k]; j++)
            var[k * layer + sorted[j]] = ++top;
    }
    for (int k = 1; k <= m; k++) {
        const long long base = (long long)(k - 1) * n; /* value d of this cell: base + d */
        const int have = count[k] > 1, had = count[k - 1] > 1;
        memset(intoc, 0, sizeof intoc);
        for (int j = 0; j < count[k]; j++)
            ways[order[k * layer + j]] = 0;
        int *prev = order + (k - 1) * layer;
        memcpy(ascending, prev, (size_t)count[k - 1] * sizeof(int));
        if (had) { /* the previous layer was sorted by text: walk it ascending instead */
            int at = 0;
            for (int q = 0; q < S; q++)
                if (bk[(k - 1) * layer + q])
                    ascending[at++] = q;
        }
        for (int j = 0; j < count[k - 1]; j++) {
            const int q = ascending[j];
            const long long source = had ? var[(k - 1) * layer + q] : 0;
            uint64_t dead = 0;
            for (int d = 1; d <= n; d++) {
                int u = step(g, k - 1, q, d);
                if (u >= 0 && !bk[k * layer + u])
                    u = -1;
                u_of[d] = u;
                if (u < 0) {
                    dead |= (uint64_t)1 << (d - 1);
                    continue;
                }
                into[(size_t)(d - 1) * layer + intoc[d - 1]++] = q;
                ways[u] |= (uint64_t)1 << (d - 1);
            }
            if (have) { /* (layer k-1 = q) and a value of ds -> layer k = u */
                uint64_t grouped = 0;
                for (int d = 1; d <= n; d++) {
                    const int u = u_of[d];
                    if (u < 0 || (grouped >> (d - 1) & 1))
                        continue;
                    uint64_t ds = 0;
                    for (int e = d; e <= n; e++)
                        if (u_of[e] == u)
                            ds |= (uint64_t)1 << (e - 1);
                    grouped |= ds;
                    const long long to = var[k * layer + u];
                    /* one clause "q and no value outside ds -> u", or one per value */
                    const int one = 4 * __builtin_popcountll(ds) > n + 2;
                    if (one ? clause_outside(o, source, to, ds, base, n)
                            : clauses_each(o, source, ds, base, n, to))
                        goto done;
                }
            }
            /* one clause "q -> a value that leads on", or "q and the value lead nowhere" */
            if (source && 3 * __builtin_popcountll(dead) > n + 1
                    ? clause_outside(o, source, 0, dead, base, n)
                    : clauses_each(o, source, dead, base, n, 0))
                goto done;
        }
        for (int d = 1; d <= n; d++) { /* the value has a way in */
            const long long x = base + d;
            const int c = intoc[d - 1];
            if (!c) {
                if (had && (lit(o, -x) || end_clause(o)))
                    goto done;
            } else if (had && c < count[k - 1]) {
                if (lit(o, -x))
                    goto done;
                for (int j = 0; j < c; j++)
                    if (lit(o, var[(k - 1) * layer + into[(size_t)(d - 1) * layer + j]]))
                        goto done;
                if (end_clause(o))
                    goto done;
            }
        }
        if (have) {
            const int *sorted = order + k * layer;
            for (int j = 0; j < count[k]; j++) /* each layer is in some state */
                if (lit(o, var[k * layer + sorted[j]]))
                    goto done;
            if (end_clause(o))
                goto done;
            for (int j = 0; j < count[k]; j++) { /* a state has a way in */
                const int u = sorted[j];
                if (lit(o, -var[k * layer + u]))
                    goto done;
                for (int d = 1; d <= n; d++)
                    if ((ways[u] >> (d - 1) & 1) && lit(o, base + d))
                        goto done;
                if (end_clause(o))
                    goto done;
            }
        }
    }
    result = top - (long long)m * n;
done:
    PyMem_Free(fw);
    PyMem_Free(bk);
    PyMem_Free(var);
    PyMem_Free(order);
    PyMem_Free(count);
    PyMem_Free(ways);
    PyMem_Free(into);
    PyMem_Free(ascending);
    return result;
}

static PyObject *finish(const Diagram *g)
{
    const size_t S = (size_t)g->S;
    if ((size_t)(g->m + 1) * S > MOST_TABLE || (size_t)g->n * S > MOST_TABLE) {
        PyErr_SetString(PyExc_OverflowError, "too many states times cells for the C writer");
        return NULL;
    }
    Out o = {0};
    const long long aux = write_diagram(g, &o);
    PyObject *result = NULL;
    if (aux < 0)
        PyErr_NoMemory();
    else
        result = Py_BuildValue("y#y#L", o.lits ? (const char *)o.lits : "", /* none: b"" */
                               (Py_ssize_t)(o.nlits * sizeof(long long)), (const char *)o.starts,
                               (Py_ssize_t)(o.nstarts * sizeof(long long)), aux);
    PyMem_Free(o.lits);
    PyMem_Free(o.starts);
    return result;
}

PyDoc_STRVAR(automaton_doc,
             "automaton(transitions, accepting, length, n) -> (lits, starts, aux)\n--\n\n"
             "The template of an automaton over a line of length cells: transitions the\n"
             "next states as native int32, S * n of them (-1: none), accepting one byte\n"
             "per state. lits and starts are native int64 arrays (every literal; where\n"
             "each clause starts, and the end), aux the number of auxiliary variables.");

static PyObject *py_automaton(PyObject *self, PyObject *args)
{
    Py_buffer trans, accept;
    int length, n;
    if (!PyArg_ParseTuple(args, "y*y*ii", &trans, &accept, &length, &n))
        return NULL;
    PyObject *result = NULL;
    const Py_ssize_t S = accept.len;
    if (n < 1 || n > MOST_VALUES || length < 0 || S < 1 || S > MOST_STATES ||
        trans.len != S * n * (Py_ssize_t)sizeof(int32_t)) {
        PyErr_SetString(PyExc_ValueError, "transitions must hold S * n int32, accepting S bytes");
        goto done;
    }
    const int32_t *t = trans.buf;
    for (Py_ssize_t i = 0; i < S * n; i++)
        if (t[i] < -1 || t[i] >= S) {
            PyErr_Format(PyExc_ValueError, "transition %zd leads to state %d of %zd", i,
                         (int)t[i], S);
            goto done;
        }
    Diagram g = {length, n, (int)S, 0, t, accept.buf, NULL, 0};
    result = finish(&g);
done:
    PyBuffer_Release(&trans);
    PyBuffer_Release(&accept);
    return result;
}

PyDoc_STRVAR(sum_doc, "sum(weights, targets, n) -> (lits, starts, aux)\n--\n\n"
                      "The template of the partial-sum chain of sum(w[k] * cell k) in targets\n"
                      "(sequences of ints), as automaton() gives it.");

static PyObject *py_sum(PyObject *self, PyObject *args)
{
    PyObject *wobj, *tobj;
    int n;
    if (!PyArg_ParseTuple(args, "OOi", &wobj, &tobj, &n))
        return NULL;
    if (n < 1 || n > MOST_VALUES) {
        PyErr_Format(PyExc_ValueError, "values 1 to %d, not %d", MOST_VALUES, n);
        return NULL;
    }
    PyObject *ws = PySequence_Fast(wobj, "weights must be a sequence of ints");
    if (!ws)
        return NULL;
    PyObject *ts = PySequence_Fast(tobj, "targets must be a sequence of ints");
    if (!ts) {
        Py_DECREF(ws);
        return NULL;
    }
    PyObject *result = NULL;
    const Py_ssize_t m = PySequence_Fast_GET_SIZE(ws);
    long long *w = PyMem_Malloc((size_t)(m ? m : 1) * sizeof(long long));
    uint8_t *target = NULL;
    if (!w) {
        PyErr_NoMemory();
        goto done;
    }
    /* lo and hi: the least and greatest partial sum of any first k terms, 0 with none */
    long long lo = 0, hi = 0, least = 0, most = 0;
    for (Py_ssize_t k = 0; k < m; k++) {
        w[k] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(ws, k));
        if (w[k] == -1 && PyErr_Occurred())
            goto done;
        if (w[k] > (1LL << 30) || w[k] < -(1LL << 30)) {
            PyErr_SetString(PyExc_OverflowError, "a weight is too large");
            goto done;
        }
        const long long a = w[k], b = w[k] * n;
        least += a < b ? a : b;
        most += a < b ? b : a;
        lo = least < lo ? least : lo;
        hi = most > hi ? most : hi;
        if (hi - lo >= MOST_STATES) {
            PyErr_SetString(PyExc_OverflowError, "too many partial sums");
            goto done;
        }
    }
    const int S = (int)(hi - lo + 1);
    target = PyMem_Calloc((size_t)S, 1);
    if (!target) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t j = 0; j < PySequence_Fast_GET_SIZE(ts); j++) {
        const long long t = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(ts, j));
        if (t == -1 && PyErr_Occurred())
            goto done;
        if (t >= lo && t <= hi)
            target[t - lo] = 1;
    }
    Diagram g = {(int)m, n, S, (int)-lo, NULL, target, w, lo};
    result = finish(&g);
done:
    PyMem_Free(w);
    PyMem_Free(target);
    Py_DECREF(ws);
    Py_DECREF(ts);
    return result;
}

PyDoc_STRVAR(instantiate_doc,
             "instantiate(lits, starts, cells, n, top, lead, out)\n--\n\n"
             "Append to the list out a template's clauses on the line cells (value d of\n"
             "the k-th placeholder cell is cells[k] * n + d), its auxiliary variables from\n"
             "top + 1, each clause a tuple led by the tuple lead.");

static PyObject *py_instantiate(PyObject *self, PyObject *args)
{
    Py_buffer lits, starts;
    PyObject *cells_obj, *lead, *out;
    int n;
    long long top;
    if (!PyArg_ParseTuple(args, "y*y*OiLO!O!", &lits, &starts, &cells_obj, &n, &top,
                          &PyTuple_Type, &lead, &PyList_Type, &out))
        return NULL;
    PyObject *result = NULL;
    PyObject *cells = PySequence_Fast(cells_obj, "cells must be a sequence of ints");
    long long *at = NULL;
    if (!cells)
        goto done;
    const Py_ssize_t m = PySequence_Fast_GET_SIZE(cells);
    const long long *L = lits.buf, *B = starts.buf;
    const Py_ssize_t nl = lits.len / (Py_ssize_t)sizeof(long long);
    const Py_ssize_t nb = starts.len / (Py_ssize_t)sizeof(long long);
    if (n < 1 || nb < 1 || B[nb - 1] != nl) {
        PyErr_SetString(PyExc_ValueError, "starts must end at the number of literals");
        goto done;
    }
    at = PyMem_Malloc((size_t)(m ? m : 1) * sizeof(long long));
    if (!at) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < m; k++) {
        at[k] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(cells, k));
        if (at[k] == -1 && PyErr_Occurred())
            goto done;
    }
    const long long placeholders = (long long)m * n;
    const Py_ssize_t lead_len = PyTuple_GET_SIZE(lead);
    for (Py_ssize_t c = 0; c + 1 < nb; c++) {
        const long long a = B[c], b = B[c + 1];
        if (a < 0 || b < a || b > nl) {
            PyErr_SetString(PyExc_ValueError, "starts must rise within the literals");
            goto done;
        }
        PyObject *clause = PyTuple_New(lead_len + (Py_ssize_t)(b - a));
        if (!clause)
            goto done;
        for (Py_ssize_t j = 0; j < lead_len; j++) {
            PyObject *item = PyTuple_GET_ITEM(lead, j);
            Py_INCREF(item);
            PyTuple_SET_ITEM(clause, j, item);
        }
        for (long long j = a; j < b; j++) {
            const long long x = L[j];
            if (!x || x < -(1LL << 62) || x > (1LL << 62)) {
                Py_DECREF(clause);
                PyErr_Format(PyExc_ValueError, "literal %lld is no variable", x);
                goto done;
            }
            const long long v = x < 0 ? -x : x;
            long long named;
            if (v <= placeholders) /* a cell's value */
                named = at[(v - 1) / n] * n + (v - 1) % n + 1;
            else /* an auxiliary variable */
                named = top + (v - placeholders);
            PyObject *item = PyLong_FromLongLong(x < 0 ? -named : named);
            if (!item) {
                Py_DECREF(clause);
                goto done;
            }
            PyTuple_SET_ITEM(clause, lead_len + (Py_ssize_t)(j - a), item);
        }
        const int failed = PyList_Append(out, clause);
        Py_DECREF(clause);
        if (failed)
            goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    PyMem_Free(at);
    Py_XDECREF(cells);
    PyBuffer_Release(&lits);
    PyBuffer_Release(&starts);
    return result;
}

static PyMethodDef layered_functions[] = {
    {"automaton", py_automaton, METH_VARARGS, automaton_doc},
    {"sum", py_sum, METH_VARARGS, sum_doc},
    {"instantiate", py_instantiate, METH_VARARGS, instantiate_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef layered_module = {
    PyModuleDef_HEAD_INIT, "_sum_clauses",
    "The layered clauses of sums, automata and counts (cpsudoku.encode.sum_clauses) in C.",
    -1, layered_functions,
};

PyMODINIT_FUNC PyInit__sum_clauses(void)
{
    return PyModule_Create(&layered_module);
}
