/*
 * cpsudoku.engines._native: the compiled engine's core, a C99 extension module.
 *
 * One type, Layout: the no-repeat units of a rule set, turned once into bit masks
 * over the cells. Its methods search one puzzle (solve) or a whole block of puzzles in
 * one call with the GIL released (solve_many). The search itself is in
 * _native_core.h, compiled once per cell-set width (1 to 16 words of 64 cells).
 *
 * Everything that comes in from Python is checked here (sizes, values, unit cells), so
 * no input can make the search read or write out of bounds; see tests/test_native.py,
 * which also runs random bytes through both entry points under AddressSanitizer.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_DIGITS 32
#define MAX_WORDS 16
#define MAX_CELLS (MAX_DIGITS * MAX_DIGITS)
#define UNIT_WORDS 2 /* units of n cells a layout may have: 64 * UNIT_WORDS */

/* What a search ended with. */
enum { ST_DONE = 0, ST_LIMIT = 1, ST_TIMEOUT = 2, ST_BUDGET = 3, ST_CLASH = 4, ST_SIGNAL = 5 };

typedef struct {
    int n, cells, words;
    uint64_t all[MAX_WORDS];  /* every cell */
    int nunits, full_units;  /* units of n cells come first */
    uint64_t *unit_bits;     /* nunits x words */
    uint64_t *peers;         /* cells x words */
    uint64_t *cell_units;    /* cells x UNIT_WORDS: the units of n cells holding each cell */
    uint64_t all_units[UNIT_WORDS]; /* every unit of n cells */
    int npairs;              /* locked candidates: (full unit A, unit B) meeting in 2+ cells */
    int *pair_start;         /* A's pairs: pair_start[A] to pair_start[A + 1] */
    int max_inter;           /* the most cells any such A and B share */
    uint64_t *pair_inter;    /* A and B */
    uint64_t *pair_rest;     /* B outside A */
    int ntriads;             /* each such intersection once */
    uint64_t *triad_cells;   /* A and B */
    uint64_t *triad_around;  /* A or B, outside the intersection */
    uint64_t *triad_a_out;   /* A outside the intersection */
    uint64_t *triad_b_out;   /* B outside it when B has n cells, else every cell */
    int ncages;              /* killer cages (their cells are units too) */
    uint64_t *cage_cells;    /* ncages x words */
    int *combo_start;        /* cage c's digit sets: combos[combo_start[c] .. [c + 1]) */
    uint32_t *combos;        /* a digit set as a mask: bit d-1 for digit d */
} Layout;

typedef struct {
    long long limit;   /* stop at this many solutions */
    double deadline;   /* monotonic seconds; 0 for none */
    long long budget;  /* stop after this many nodes; 0 for none */
    int signals;       /* the GIL is held: look for Ctrl-C */
} Limits;

typedef struct {
    long long count, nodes, guesses;
    int status;
} Outcome;

typedef struct {
    void *states;
    int *cells;
    uint64_t *todo;
} Frame;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A status when a limit other than the count stops the search, else 0. */
static int check_limits(const Limits *lim)
{
    if (lim->deadline > 0 && now_seconds() > lim->deadline)
        return ST_TIMEOUT;
    if (lim->signals && PyErr_CheckSignals() < 0)
        return ST_SIGNAL;
    return 0;
}

/* OR into ``out`` the units of n cells holding any cell of ``cells`` (``words`` words):
 * the layout's pairs of units that meet, the search's units a placement touched. */
static inline __attribute__((always_inline)) void
units_holding(const Layout *lay, const uint64_t *cells, int words, uint64_t out[UNIT_WORDS])
{
    for (int k = 0; k < words; k++)
        for (uint64_t m = cells[k]; m; m &= m - 1) {
            const uint64_t *of =
                lay->cell_units + (size_t)(k * 64 + __builtin_ctzll(m)) * UNIT_WORDS;
            for (int j = 0; j < UNIT_WORDS; j++)
                out[j] |= of[j];
        }
}

#define W 1
#define D 8
#define SUF _1
#include "_native_core.h"
#undef W
#undef D
#undef SUF
#define W 2
#define D 11
#define SUF _2
#include "_native_core.h"
#undef W
#undef D
#undef SUF
#define W 3
#define D 13
#define SUF _3
#include "_native_core.h"
#undef W
#undef D
#undef SUF
#define W 4
#define D 16
#define SUF _4
#include "_native_core.h"
#undef W
#undef D
#undef SUF
#define W 7
#define D 21
#define SUF _7
#include "_native_core.h"
#undef W
#undef D
#undef SUF
#define W 10
#define D 25
#define SUF _10
#include "_native_core.h"
#undef W
#undef D
#undef SUF
#define W 16
#define D 32
#define SUF _16
#include "_native_core.h"
#undef W
#undef D
#undef SUF

typedef void (*search_fn)(const Layout *, const uint8_t *, const uint32_t *, const Limits *,
                          Outcome *, uint8_t *, Frame *);

static const struct {
    int words, digits;
    search_fn search;
    size_t state_size;
} WIDTHS[] = {
    {1, 8, search_1, sizeof(state_1)},   {2, 11, search_2, sizeof(state_2)},
    {3, 13, search_3, sizeof(state_3)},   {4, 16, search_4, sizeof(state_4)},
    {7, 21, search_7, sizeof(state_7)},   {10, 25, search_10, sizeof(state_10)},
    {16, 32, search_16, sizeof(state_16)},
};

/* ---- the Python type ---- */

typedef struct {
    PyObject_HEAD
    Layout lay;
    search_fn search;
    size_t state_size;
} LayoutObject;

static void layout_free(Layout *lay)
{
    PyMem_Free(lay->unit_bits);
    PyMem_Free(lay->peers);
    PyMem_Free(lay->cell_units);
    PyMem_Free(lay->pair_inter); /* the block of every pair and triad array */
    PyMem_Free(lay->cage_cells);
    PyMem_Free(lay->combo_start);
    PyMem_Free(lay->combos);
    memset(lay, 0, sizeof(*lay));
}

static void Layout_dealloc(LayoutObject *self)
{
    layout_free(&self->lay);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

#define SET(mask, i) ((mask)[(i) >> 6] |= (uint64_t)1 << ((i) & 63))
#define HAS(mask, i) (((mask)[(i) >> 6] >> ((i) & 63)) & 1)

/* Read the units: a sequence of sequences of distinct cell indices, at most n each. */
static int read_units(PyObject *units, int n, int cells, int words, uint64_t **bits_out,
                      int *nunits_out, int *full_out)
{
    PyObject *seq = PySequence_Fast(units, "units must be a sequence of cell sequences");
    if (!seq)
        return -1;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    if (count > 64 * (Py_ssize_t)cells) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "too many units");
        return -1;
    }
    uint64_t *bits = PyMem_Calloc(count ? (size_t)count * words : 1, sizeof(uint64_t));
    int *sizes = PyMem_Calloc(count ? (size_t)count : 1, sizeof(int));
    if (!bits || !sizes) {
        PyMem_Free(bits);
        PyMem_Free(sizes);
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t u = 0; u < count; u++) {
        PyObject *unit = PySequence_Fast(PySequence_Fast_GET_ITEM(seq, u),
                                         "each unit must be a sequence of cells");
        if (!unit)
            goto fail;
        Py_ssize_t size = PySequence_Fast_GET_SIZE(unit);
        if (size > n) {
            PyErr_Format(PyExc_ValueError, "unit %zd has %zd cells; at most %d", u, size, n);
            Py_DECREF(unit);
            goto fail;
        }
        for (Py_ssize_t j = 0; j < size; j++) {
            long i = PyLong_AsLong(PySequence_Fast_GET_ITEM(unit, j));
            if (i == -1 && PyErr_Occurred()) {
                Py_DECREF(unit);
                goto fail;
            }
            if (i < 0 || i >= cells || HAS(bits + (size_t)u * words, i)) {
                PyErr_Format(PyExc_ValueError,
                             "unit %zd: cell %ld is out of range or listed twice", u, i);
                Py_DECREF(unit);
                goto fail;
            }
            SET(bits + (size_t)u * words, i);
        }
        sizes[u] = (int)size;
        Py_DECREF(unit);
    }
    Py_DECREF(seq);
    /* Full units first: hidden singles and locked candidates run over those. */
    uint64_t *sorted = PyMem_Calloc(count ? (size_t)count * words : 1, sizeof(uint64_t));
    if (!sorted) {
        PyMem_Free(bits);
        PyMem_Free(sizes);
        PyErr_NoMemory();
        return -1;
    }
    int at = 0, full = 0;
    for (int pass = 0; pass < 2; pass++)
        for (Py_ssize_t u = 0; u < count; u++)
            if ((sizes[u] == n) == (pass == 0)) {
                memcpy(sorted + (size_t)at * words, bits + (size_t)u * words,
                       (size_t)words * sizeof(uint64_t));
                at++;
                full += pass == 0;
            }
    PyMem_Free(bits);
    PyMem_Free(sizes);
    *bits_out = sorted;
    *nunits_out = (int)count;
    *full_out = full;
    return 0;
fail:
    PyMem_Free(bits);
    PyMem_Free(sizes);
    Py_DECREF(seq);
    return -1;
}

/*
 * Read the killer cages: a sequence of (cells, digit sets), the digit sets as masks
 * (bit d-1 for digit d), at least one per cage. The caller passes the cells as a unit
 * too (so the digits differ); here they only carry the sums.
 */
static int read_cages(Layout *lay, PyObject *cages)
{
    const int n = lay->n, words = lay->words;
    PyObject *seq = PySequence_Fast(cages, "cages must be a sequence of (cells, digit sets)");
    if (!seq)
        return -1;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(seq), total = 0;
    if (count > lay->cells) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "more cages than cells");
        return -1;
    }
    for (Py_ssize_t c = 0; c < count; c++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, c);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_TypeError, "cage %zd is not a (cells, digit sets) pair", c);
            return -1;
        }
        Py_ssize_t sets = PyObject_Length(PyTuple_GET_ITEM(item, 1));
        if (sets < 1 || sets > 1 << 20) {
            Py_DECREF(seq);
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "cage %zd has no digit set", c);
            return -1;
        }
        total += sets;
    }
    lay->cage_cells = PyMem_Calloc(count ? (size_t)count * words : 1, sizeof(uint64_t));
    lay->combo_start = PyMem_Calloc((size_t)count + 1, sizeof(int));
    lay->combos = PyMem_Calloc(total ? (size_t)total : 1, sizeof(uint32_t));
    if (!lay->cage_cells || !lay->combo_start || !lay->combos) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    uint64_t full = n >= 32 ? ~(uint64_t)0 >> 32 : ((uint64_t)1 << n) - 1;
    int at = 0;
    for (Py_ssize_t c = 0; c < count; c++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, c);
        PyObject *cells = PySequence_Fast(PyTuple_GET_ITEM(item, 0), "a cage's cells");
        PyObject *masks = cells ? PySequence_Fast(PyTuple_GET_ITEM(item, 1), "digit sets") : NULL;
        if (!cells || !masks) {
            Py_XDECREF(cells);
            Py_DECREF(seq);
            return -1;
        }
        uint64_t *bits = lay->cage_cells + (size_t)c * words;
        int bad = PySequence_Fast_GET_SIZE(cells) < 1 || PySequence_Fast_GET_SIZE(cells) > n;
        for (Py_ssize_t j = 0; !bad && j < PySequence_Fast_GET_SIZE(cells); j++) {
            long i = PyLong_AsLong(PySequence_Fast_GET_ITEM(cells, j));
            if (i == -1 && PyErr_Occurred())
                bad = 2;
            else if (i < 0 || i >= lay->cells || HAS(bits, i))
                bad = 1;
            else
                SET(bits, i);
        }
        lay->combo_start[c] = at;
        for (Py_ssize_t j = 0; !bad && j < PySequence_Fast_GET_SIZE(masks); j++) {
            unsigned long long m = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(masks, j));
            if (m == (unsigned long long)-1 && PyErr_Occurred())
                bad = 2;
            else if (m == 0 || (m & ~full))
                bad = 1;
            else
                lay->combos[at++] = (uint32_t)m;
        }
        Py_DECREF(cells);
        Py_DECREF(masks);
        if (bad) {
            Py_DECREF(seq);
            if (bad == 1 || !PyErr_Occurred())
                PyErr_Format(PyExc_ValueError,
                             "cage %zd: cells off the grid, listed twice or too many, or a "
                             "digit set that is empty or holds digits above %d", c, n);
            return -1;
        }
    }
    lay->combo_start[count] = at;
    lay->ncages = (int)count;
    Py_DECREF(seq);
    return 0;
}

/*
 * Unit B against the unit A of n cells: a locked-candidate pair when they share 2+
 * cells and B has cells outside A, and a triad (their intersection) unless B is a
 * unit of n cells before A (then it is one already, as (B, A)). Counted, and with
 * ``fill`` written at the counts' places.
 */
static inline void pair_up(Layout *lay, int a, int b, int fill)
{
    const int words = lay->words;
    const uint64_t *ua = lay->unit_bits + (size_t)a * words;
    const uint64_t *ub = lay->unit_bits + (size_t)b * words;
    int shared = 0, outside = 0;
    for (int k = 0; k < words; k++) {
        shared += __builtin_popcountll(ua[k] & ub[k]);
        outside |= (ub[k] & ~ua[k]) != 0;
    }
    if (shared < 2 || !outside)
        return;
    if (shared > lay->max_inter)
        lay->max_inter = shared;
    int p = lay->npairs++;
    int triad = !(b < a && b < lay->full_units);
    int t = triad ? lay->ntriads++ : 0;
    if (!fill)
        return;
    for (int k = 0; k < words; k++) {
        uint64_t inter = ua[k] & ub[k];
        lay->pair_inter[(size_t)p * words + k] = inter;
        lay->pair_rest[(size_t)p * words + k] = ub[k] & ~ua[k];
        if (!triad)
            continue;
        size_t at = (size_t)t * words + k;
        lay->triad_cells[at] = inter;
        lay->triad_around[at] = (ua[k] | ub[k]) & ~inter;
        lay->triad_a_out[at] = ua[k] & ~inter;
        /* a smaller B locks nothing in: every cell, so never empty there */
        lay->triad_b_out[at] = b < lay->full_units ? ub[k] & ~inter : lay->all[k];
    }
}

/*
 * The locked-candidate pairs and triads of every unit A of n cells (:func:`pair_up`),
 * B in increasing order. With ``fill`` 0, only counts them (lay->npairs,
 * lay->ntriads, lay->max_inter); with 1, writes them into the arrays, sized by the
 * count, and pair_start.
 */
static void scan_pairs(Layout *lay, int fill)
{
    const int words = lay->words;
    lay->npairs = lay->ntriads = lay->max_inter = 0;
    for (int a = 0; a < lay->full_units; a++) {
        if (fill)
            lay->pair_start[a] = lay->npairs;
        const uint64_t *ua = lay->unit_bits + (size_t)a * words;
        /* The units of n cells that meet A: those holding one of its cells (most pairs
         * of units never meet); then every smaller unit. */
        uint64_t meet[UNIT_WORDS] = {0};
        units_holding(lay, ua, words, meet);
        meet[a >> 6] &= ~((uint64_t)1 << (a & 63));
        for (int k = 0; k < UNIT_WORDS; k++)
            for (uint64_t m = meet[k]; m; m &= m - 1)
                pair_up(lay, a, k * 64 + __builtin_ctzll(m), fill);
        for (int b = lay->full_units; b < lay->nunits; b++)
            pair_up(lay, a, b, fill);
    }
    if (fill)
        lay->pair_start[lay->full_units] = lay->npairs;
}

static int Layout_init(LayoutObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"n", "units", "cages", NULL};
    int n;
    PyObject *units, *cages = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iO|O", kwlist, &n, &units, &cages))
        return -1;
    if (n < 1 || n > MAX_DIGITS) {
        PyErr_Format(PyExc_ValueError, "the compiled engine takes sides 1 to %d, not %d",
                     MAX_DIGITS, n);
        return -1;
    }
    layout_free(&self->lay);
    Layout *lay = &self->lay;
    int cells = n * n, need = (cells + 63) / 64;
    size_t w = 0;
    while (WIDTHS[w].words < need || WIDTHS[w].digits < n)
        w++;
    int words = WIDTHS[w].words;
    self->search = WIDTHS[w].search;
    self->state_size = WIDTHS[w].state_size;
    lay->n = n;
    lay->cells = cells;
    lay->words = words;
    if (read_units(units, n, cells, words, &lay->unit_bits, &lay->nunits, &lay->full_units) < 0)
        return -1;
    for (int i = 0; i < cells; i++)
        SET(lay->all, i);
    lay->peers = PyMem_Calloc((size_t)cells * words, sizeof(uint64_t));
    if (!lay->peers)
        goto nomem;
    for (int u = 0; u < lay->nunits; u++) {
        const uint64_t *unit = lay->unit_bits + (size_t)u * words;
        for (int w = 0; w < words; w++)
            for (uint64_t m = unit[w]; m; m &= m - 1) {
                int i = w * 64 + __builtin_ctzll(m);
                for (int k = 0; k < words; k++)
                    lay->peers[(size_t)i * words + k] |= unit[k];
            }
    }
    for (int i = 0; i < cells; i++)
        lay->peers[(size_t)i * words + (i >> 6)] &= ~((uint64_t)1 << (i & 63));
    if (lay->full_units > 64 * UNIT_WORDS) {
        PyErr_Format(PyExc_ValueError, "at most %d units of %d cells, not %d",
                     64 * UNIT_WORDS, n, lay->full_units);
        layout_free(lay);
        return -1;
    }
    lay->cell_units = PyMem_Calloc((size_t)cells * UNIT_WORDS, sizeof(uint64_t));
    if (!lay->cell_units)
        goto nomem;
    for (int u = 0; u < lay->full_units; u++)
        SET(lay->all_units, u);
    for (int u = 0; u < lay->full_units; u++)
        for (int w = 0; w < words; w++)
            for (uint64_t m = lay->unit_bits[(size_t)u * words + w]; m; m &= m - 1) {
                int i = w * 64 + __builtin_ctzll(m);
                lay->cell_units[(size_t)i * UNIT_WORDS + (u >> 6)] |= (uint64_t)1 << (u & 63);
            }
    /* Locked candidates: a full unit A and any other unit B sharing 2+ cells with it.
     * Counted first, then written into one block of the size they need (a 9x9 jigsaw
     * dataset builds a layout per puzzle: one allocation, not seven, each 40 times
     * too big). */
    scan_pairs(lay, 0);
    int npairs = lay->npairs, ntriads = lay->ntriads;
    /* One block: pair_inter holds it, the other five arrays and pair_start lie in it. */
    size_t pair_words = (size_t)npairs * words, triad_words = (size_t)ntriads * words;
    uint64_t *block = PyMem_Malloc((2 * pair_words + 4 * triad_words) * sizeof(uint64_t) +
                                   ((size_t)lay->full_units + 1) * sizeof(int));
    if (!block)
        goto nomem;
    lay->pair_inter = block;
    lay->pair_rest = block + pair_words;
    lay->triad_cells = block + 2 * pair_words;
    lay->triad_around = lay->triad_cells + triad_words;
    lay->triad_a_out = lay->triad_around + triad_words;
    lay->triad_b_out = lay->triad_a_out + triad_words;
    lay->pair_start = (int *)(lay->triad_b_out + triad_words);
    scan_pairs(lay, 1);
    if (cages && cages != Py_None && read_cages(lay, cages) < 0) {
        layout_free(lay);
        return -1;
    }
    return 0;
nomem:
    layout_free(lay);
    PyErr_NoMemory();
    return -1;
}

/* Frames for one search: a state, a branch cell and a digit set per depth. */
static int frames_alloc(const LayoutObject *self, Frame *f)
{
    size_t depth = (size_t)self->lay.cells + 2;
    f->states = PyMem_RawMalloc(depth * self->state_size);
    f->cells = PyMem_RawMalloc(depth * sizeof(int));
    f->todo = PyMem_RawMalloc(depth * sizeof(uint64_t));
    if (!f->states || !f->cells || !f->todo) {
        PyMem_RawFree(f->states);
        PyMem_RawFree(f->cells);
        PyMem_RawFree(f->todo);
        return -1;
    }
    return 0;
}

static void frames_free(Frame *f)
{
    PyMem_RawFree(f->states);
    PyMem_RawFree(f->cells);
    PyMem_RawFree(f->todo);
}

/* -1 (with an exception) unless every byte of a puzzle is a value 0..n. */
static int check_values(const uint8_t *cells, Py_ssize_t count, int n, Py_ssize_t base)
{
    for (Py_ssize_t i = 0; i < count; i++)
        if (cells[i] > n) {
            PyErr_Format(PyExc_ValueError, "cell %zd holds %d; values are 0 to %d", base + i,
                         (int)cells[i], n);
            return -1;
        }
    return 0;
}

/* The checks every call starts with: a layout that was built, and sane limits. */
static int read_limits(const Layout *lay, Limits *lim, long long limit, double time_limit,
                       long long budget)
{
    if (lay->n == 0) {
        PyErr_SetString(PyExc_ValueError, "the layout was not initialised");
        return -1;
    }
    if (limit < 1) {
        PyErr_SetString(PyExc_ValueError, "limit must be at least 1");
        return -1;
    }
    if (budget < 0) {
        PyErr_SetString(PyExc_ValueError, "budget must be 0 (none) or more");
        return -1;
    }
    if (time_limit != time_limit) {
        PyErr_SetString(PyExc_ValueError, "time_limit is NaN");
        return -1;
    }
    lim->limit = limit;
    lim->budget = budget;
    lim->deadline = 0;
    lim->signals = 0;
    return 0;
}

static double deadline_after(double time_limit)
{
    if (time_limit < 0)
        return 0; /* no limit */
    double now = now_seconds();
    return now + (time_limit > 0 ? time_limit : 1e-9);
}

PyDoc_STRVAR(solve_doc,
"solve(cells, limit=2, time_limit=-1.0, budget=0, allowed=None)\n--\n\n"
"Search one puzzle: cells is n*n bytes of values 0..n (0 empty); allowed, if given,\n"
"is n*n uint32 masks of the values each cell may take (bit v-1 for v). Stops at\n"
"limit solutions, after time_limit seconds (negative: none) or budget nodes (0:\n"
"none). Returns (status, count, solutions, nodes, guesses): solutions holds the\n"
"first min(count, 2) solutions, n*n bytes each. Ctrl-C interrupts it.");

static PyObject *Layout_solve(LayoutObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"cells", "limit", "time_limit", "budget", "allowed", NULL};
    Py_buffer cells, allowed = {0};
    long long limit = 2, budget = 0;
    double time_limit = -1.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "y*|LdLz*", kwlist, &cells, &limit,
                                     &time_limit, &budget, &allowed))
        return NULL;
    PyObject *result = NULL;
    const Layout *lay = &self->lay;
    Limits lim;
    Frame frames = {0};
    if (read_limits(lay, &lim, limit, time_limit, budget) < 0)
        goto done;
    if (cells.len != lay->cells) {
        PyErr_Format(PyExc_ValueError, "expected %d cells, got %zd", lay->cells, cells.len);
        goto done;
    }
    if (allowed.buf && allowed.len != (Py_ssize_t)(lay->cells * sizeof(uint32_t))) {
        PyErr_Format(PyExc_ValueError, "allowed must hold %d uint32 masks", lay->cells);
        goto done;
    }
    if (check_values(cells.buf, cells.len, lay->n, 0) < 0)
        goto done;
    if (frames_alloc(self, &frames) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    uint32_t *masks = NULL;
    if (allowed.buf) { /* copied: the buffer need not be aligned */
        masks = PyMem_Malloc(lay->cells * sizeof(uint32_t));
        if (!masks) {
            PyErr_NoMemory();
            goto done;
        }
        memcpy(masks, allowed.buf, lay->cells * sizeof(uint32_t));
    }
    uint8_t sol[2 * MAX_CELLS];
    Outcome out;
    lim.deadline = deadline_after(time_limit);
    lim.signals = 1;
    self->search(lay, cells.buf, masks, &lim, &out, sol, &frames);
    PyMem_Free(masks);
    if (out.status == ST_SIGNAL)
        goto done; /* the signal handler's exception (KeyboardInterrupt) is set */
    long long kept = out.count < 2 ? out.count : 2;
    result = Py_BuildValue("iLy#LL", out.status, out.count, (const char *)sol,
                           (Py_ssize_t)(kept * lay->cells), out.nodes, out.guesses);
done:
    frames_free(&frames);
    PyBuffer_Release(&cells);
    if (allowed.buf)
        PyBuffer_Release(&allowed);
    return result;
}

PyDoc_STRVAR(solve_many_doc,
"solve_many(puzzles, limit=2, time_limit=-1.0, budget=0)\n--\n\n"
"Search every puzzle of a block (P*n*n bytes, puzzle after puzzle) in one call,\n"
"without the GIL; time_limit and budget apply to each puzzle. Returns (statuses,\n"
"counts, solutions, nodes, guesses): statuses and counts P bytes (counts capped at\n"
"255), solutions P*n*n bytes (each puzzle's first solution, zeros when none), nodes\n"
"and guesses P native-endian uint32 (capped).");

static PyObject *Layout_solve_many(LayoutObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"puzzles", "limit", "time_limit", "budget", NULL};
    Py_buffer block;
    long long limit = 2, budget = 0;
    double time_limit = -1.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "y*|LdL", kwlist, &block, &limit,
                                     &time_limit, &budget))
        return NULL;
    PyObject *result = NULL, *statuses = NULL, *counts = NULL, *solutions = NULL,
             *nodes = NULL, *guesses = NULL;
    const Layout *lay = &self->lay;
    Limits lim;
    Frame frames = {0};
    if (read_limits(lay, &lim, limit, time_limit, budget) < 0)
        goto done;
    if (block.len % lay->cells) {
        PyErr_Format(PyExc_ValueError, "%zd bytes is no whole number of %d-cell puzzles",
                     block.len, lay->cells);
        goto done;
    }
    Py_ssize_t count = block.len / lay->cells;
    if (check_values(block.buf, block.len, lay->n, 0) < 0)
        goto done;
    statuses = PyBytes_FromStringAndSize(NULL, count);
    counts = PyBytes_FromStringAndSize(NULL, count);
    solutions = PyBytes_FromStringAndSize(NULL, block.len);
    nodes = PyBytes_FromStringAndSize(NULL, count * (Py_ssize_t)sizeof(uint32_t));
    guesses = PyBytes_FromStringAndSize(NULL, count * (Py_ssize_t)sizeof(uint32_t));
    if (!statuses || !counts || !solutions || !nodes || !guesses)
        goto done;
    if (frames_alloc(self, &frames) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    uint8_t *st = (uint8_t *)PyBytes_AS_STRING(statuses);
    uint8_t *ct = (uint8_t *)PyBytes_AS_STRING(counts);
    uint8_t *so = (uint8_t *)PyBytes_AS_STRING(solutions);
    uint32_t *nd = (uint32_t *)PyBytes_AS_STRING(nodes);
    uint32_t *gs = (uint32_t *)PyBytes_AS_STRING(guesses);
    const uint8_t *in = block.buf;
    int cells = lay->cells;
    Py_BEGIN_ALLOW_THREADS
    uint8_t sol[2 * MAX_CELLS];
    for (Py_ssize_t p = 0; p < count; p++) {
        Outcome out;
        lim.deadline = deadline_after(time_limit);
        self->search(lay, in + p * cells, NULL, &lim, &out, sol, &frames);
        st[p] = (uint8_t)out.status;
        ct[p] = (uint8_t)(out.count < 255 ? out.count : 255);
        if (out.count)
            memcpy(so + p * cells, sol, cells);
        else
            memset(so + p * cells, 0, cells);
        nd[p] = (uint32_t)(out.nodes < UINT32_MAX ? out.nodes : UINT32_MAX);
        gs[p] = (uint32_t)(out.guesses < UINT32_MAX ? out.guesses : UINT32_MAX);
    }
    Py_END_ALLOW_THREADS
    result = PyTuple_Pack(5, statuses, counts, solutions, nodes, guesses);
done:
    frames_free(&frames);
    Py_XDECREF(statuses);
    Py_XDECREF(counts);
    Py_XDECREF(solutions);
    Py_XDECREF(nodes);
    Py_XDECREF(guesses);
    PyBuffer_Release(&block);
    return result;
}

static PyObject *Layout_get_n(LayoutObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(self->lay.n);
}

static PyObject *Layout_get_words(LayoutObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(self->lay.words);
}

static PyObject *Layout_get_pairs(LayoutObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(self->lay.npairs);
}

static PyGetSetDef Layout_getset[] = {
    {"n", (getter)Layout_get_n, NULL, "the side of the grid", NULL},
    {"words", (getter)Layout_get_words, NULL, "64-bit words per cell set", NULL},
    {"pairs", (getter)Layout_get_pairs, NULL, "unit pairs for locked candidates", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef Layout_methods[] = {
    {"solve", (PyCFunction)(void (*)(void))Layout_solve, METH_VARARGS | METH_KEYWORDS,
     solve_doc},
    {"solve_many", (PyCFunction)(void (*)(void))Layout_solve_many,
     METH_VARARGS | METH_KEYWORDS, solve_many_doc},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject LayoutType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "cpsudoku.engines._native.Layout",
    .tp_doc = PyDoc_STR("Layout(n, units, cages=None): the no-repeat units of a rule set, "
                        "and its killer cages (cells, digit sets as masks), as bit masks."),
    .tp_basicsize = sizeof(LayoutObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Layout_init,
    .tp_dealloc = (destructor)Layout_dealloc,
    .tp_methods = Layout_methods,
    .tp_getset = Layout_getset,
};

/* ---- the SAT engine's per-puzzle regions ---- */

/* Append ``lead`` followed by ``count`` literals to the list ``out``; -1 on error. */
static int append_clause(PyObject *out, PyObject *lead, const long *lits, int count)
{
    Py_ssize_t k = PyTuple_GET_SIZE(lead);
    PyObject *clause = PyTuple_New(k + count);
    if (!clause)
        return -1;
    for (Py_ssize_t j = 0; j < k; j++) {
        PyObject *item = PyTuple_GET_ITEM(lead, j);
        Py_INCREF(item);
        PyTuple_SET_ITEM(clause, j, item);
    }
    for (int j = 0; j < count; j++) {
        PyObject *item = PyLong_FromLong(lits[j]);
        if (!item) {
            Py_DECREF(clause);
            return -1;
        }
        PyTuple_SET_ITEM(clause, k + j, item);
    }
    int failed = PyList_Append(out, clause);
    Py_DECREF(clause);
    return failed;
}

static int append_literal(PyObject *out, long lit)
{
    PyObject *item = PyLong_FromLong(lit);
    if (!item)
        return -1;
    int failed = PyList_Append(out, item);
    Py_DECREF(item);
    return failed;
}

PyDoc_STRVAR(region_literals_doc,
             "region_literals(units, n, givens, lead, out, assumed)\n\n"
             "cpsudoku.encode.cnf.region_literals in C, the same clauses and literals in "
             "the same order (sides up to 32): a jigsaw dataset writes them for every "
             "puzzle.");

static PyObject *py_region_literals(PyObject *self, PyObject *args)
{
    PyObject *units, *givens_obj, *lead, *out, *assumed;
    int n;
    if (!PyArg_ParseTuple(args, "OiOO!O!O!", &units, &n, &givens_obj, &PyTuple_Type, &lead,
                          &PyList_Type, &out, &PyList_Type, &assumed))
        return NULL;
    if (n < 1 || n > MAX_DIGITS) {
        PyErr_Format(PyExc_ValueError, "sides 1 to %d, not %d", MAX_DIGITS, n);
        return NULL;
    }
    const int cells = n * n, words = (cells + 63) / 64;
    uint8_t givens[MAX_CELLS];
    PyObject *fast = PySequence_Fast(givens_obj, "givens must be a sequence of values");
    if (!fast)
        return NULL;
    if (PySequence_Fast_GET_SIZE(fast) != cells) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "a %dx%d grid has %d cells", n, n, cells);
        return NULL;
    }
    /* Per value: the rows and columns holding it, as cells; and the filled cells. */
    uint64_t seen[MAX_DIGITS + 1][MAX_WORDS], filled[MAX_WORDS];
    memset(seen, 0, sizeof(uint64_t) * MAX_WORDS * (n + 1));
    memset(filled, 0, sizeof(filled));
    for (int i = 0; i < cells; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v < 0 || v > n) {
            Py_DECREF(fast);
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "cell %d holds %ld, not 0..%d", i, v, n);
            return NULL;
        }
        givens[i] = (uint8_t)v;
        if (!v)
            continue;
        SET(filled, i);
        int r = i / n, c = i % n;
        for (int k = 0; k < n; k++) {
            SET(seen[v], r * n + k);
            SET(seen[v], k * n + c);
        }
    }
    Py_DECREF(fast);
    PyObject *seq = PySequence_Fast(units, "units must be a sequence of cell sequences");
    if (!seq)
        return NULL;
    long lits[MAX_DIGITS];
    for (Py_ssize_t u = 0; u < PySequence_Fast_GET_SIZE(seq); u++) {
        PyObject *unit = PySequence_Fast(PySequence_Fast_GET_ITEM(seq, u), "a unit's cells");
        if (!unit)
            goto fail;
        uint64_t left[MAX_WORDS] = {0};
        uint64_t placed = 0;
        int bad = PySequence_Fast_GET_SIZE(unit) > n;
        for (Py_ssize_t j = 0; !bad && j < PySequence_Fast_GET_SIZE(unit); j++) {
            long i = PyLong_AsLong(PySequence_Fast_GET_ITEM(unit, j));
            if (i < 0 || i >= cells) {
                bad = 1;
                break;
            }
            int v = givens[i];
            if (!v) {
                SET(left, i);
                continue;
            }
            if (((placed >> v) & 1) && PyList_Append(out, lead) < 0)
                bad = 1; /* two givens clash in the unit: no solution */
            placed |= (uint64_t)1 << v;
        }
        Py_DECREF(unit);
        if (bad) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "unit %zd: over %d cells, or one off the grid",
                             u, n);
            goto fail;
        }
        for (int d = 1; d <= n; d++) {
            int count = 0;
            for (int w = 0; w < words; w++)
                for (uint64_t m = left[w] & ~seen[d][w]; m; m &= m - 1) {
                    long lit = (long)(w * 64 + __builtin_ctzll(m)) * n + d;
                    if ((placed >> d) & 1) { /* given in the unit: no other cell holds it */
                        if (append_literal(assumed, -lit) < 0)
                            goto fail;
                    } else {
                        lits[count++] = lit; /* at most n: the unit's cells */
                    }
                }
            if ((placed >> d) & 1)
                continue;
            int failed = count >= 2   ? append_clause(out, lead, lits, count)
                         : count == 1 ? append_literal(assumed, lits[0]) /* one cell left */
                                      : PyList_Append(out, lead); /* none: no solution */
            if (failed < 0)
                goto fail;
        }
    }
    Py_DECREF(seq);
    Py_RETURN_NONE;
fail:
    Py_DECREF(seq);
    return NULL;
}

static PyMethodDef native_functions[] = {
    {"region_literals", py_region_literals, METH_VARARGS, region_literals_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "cpsudoku.engines._native",
    .m_doc = "The compiled engine's search (see cpsudoku.engines.native).",
    .m_size = -1,
    .m_methods = native_functions,
};

PyMODINIT_FUNC PyInit__native(void)
{
    if (PyType_Ready(&LayoutType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&native_module);
    if (!m)
        return NULL;
    Py_INCREF(&LayoutType);
    if (PyModule_AddObject(m, "Layout", (PyObject *)&LayoutType) < 0 ||
        PyModule_AddIntConstant(m, "MAX_SIDE", MAX_DIGITS) < 0 ||
        PyModule_AddIntConstant(m, "DONE", ST_DONE) < 0 ||
        PyModule_AddIntConstant(m, "LIMIT", ST_LIMIT) < 0 ||
        PyModule_AddIntConstant(m, "TIMEOUT", ST_TIMEOUT) < 0 ||
        PyModule_AddIntConstant(m, "BUDGET", ST_BUDGET) < 0 ||
        PyModule_AddIntConstant(m, "CLASH", ST_CLASH) < 0) {
        Py_DECREF(&LayoutType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
