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
#define MAX_TABLE_CELLS 64     /* cells of a table */
#define MAX_NESTING 8          /* choices inside choices */
#define MAX_PROP_CELLS 65536   /* cells one primitive lists */
#define SUM_GROUP_CELLS 256    /* the most terms of a sum whose cells are grouped */
#define MAX_STATES (1 << 20)   /* states of an automaton */
#define MAX_LAYERS (1 << 22)   /* words of an automaton's layers: (cells + 1) * state words */
/* The most classes (distinct sets of values counted) the bit-board counts take; the
 * counts of further classes stay propagators. */
#define BCLASSES 16
/* The bit-board counts' index from cells to counts: from this many counts (fewer
 * are tested one by one for less than the index costs: counting circles' few counts
 * each hold most circles, so a moved cell marks nearly all of them), up to this many
 * words a cell (64 counts a word). Outside them a pass tests every count's cells
 * against what moved. */
#define BC_INDEX_LEAST 64
#define BC_INDEX_WORDS 8
#define SHIFT_LOOP 0xFFFFFFFFu /* shift_barred: find the unsupported cells value by value */

/* The propagators beyond the units (_native_props.h), one per primitive (a relation:
 * one per pair). */
enum { K_RELATION, K_ALLOWED, K_DISTINCT, K_DIGITSETS, K_TABLE, K_SUM, K_AUTOMATON, K_COUNT,
       K_CHOICE };

typedef struct {
    int kind, nc;  /* nc: the cells the primitive lists, in its order */
    size_t idx;    /* pint[idx .. idx + nc): each cell's place in the frame */
    int nframe;    /* at the top level: the frame's grid cells, pint[frame .. + nframe) */
    size_t frame;
    /* per kind: relation a = its table in pmask (n masks forward, n back), b and c = the
     * most values of its first and its second cell that can leave a value of the other
     * without support (relation_reach); allowed a =
     * masks in pmask; digitsets a = sets in pmask, b = how many; table a = tuples in
     * ptup, b = how many; sum a = weights in pnum, b = targets in pnum, c = how many,
     * d = words of the partial sums (0: bounds), e = targets as bits in pword, f =
     * each term's group in pint (terms of one group: one weight, cells that see each
     * other), g = how many groups (0: no group of two or more);
     * automaton a = transitions in ptrans, b = states, c = accepting in pword, d =
     * words per state set, e = the transitions grouped by next state in ptrans (b + 1
     * offsets, then per state its (values mask, next state) pairs); count a = the values' mask, b = counts as bits in pword;
     * choice a = branch bounds in pint, b = branches. */
    size_t a, b, c, d, e, f, g;
    int cost;      /* at the top level: the work of a run, WORK_PER_NODE to a node */
} Prop;

/* What a search ended with. */
enum { ST_DONE = 0, ST_LIMIT = 1, ST_TIMEOUT = 2, ST_BUDGET = 3, ST_CLASH = 4, ST_SIGNAL = 5,
       ST_RESTART = 6 /* within a search: start again (never returned) */ };

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
    /* 9x9 with rows, columns and 3x3 boxes: the triads of a row or column and a box
     * are first looked at for all 54 at once on 128-bit boards (FN(box_triads);
     * Layout(..., box_triads=False) keeps them in the loop, for the tests);
     * tri_at[0][9r + 3b] is the triad of row r and box column b, tri_at[1][27a + c]
     * that of column c and box row a. triad_rest lists the triads the loop over
     * triads looks at: every one, or those beside the box triads. */
    int tri_fast;
    int16_t tri_at[2][81];
    int ntriad_rest;
    int *triad_rest;
    int ncages;              /* killer cages (their cells are units too) */
    uint64_t *cage_cells;    /* ncages x words */
    int *combo_start;        /* cage c's digit sets: combos[combo_start[c] .. [c + 1]) */
    uint32_t *combos;        /* a digit set as a mask: bit d-1 for digit d */
    /* Propagators beyond the units; none for rules of regions and cages alone. */
    int nprops;              /* all of them: the top-level ones and those in choices */
    Prop *props;
    int ntop;                /* top-level: woken when a cell of theirs changes */
    int *top;                /* their ids in props */
    int has_counts;          /* a top-level count that caps its values (the search probes
                              * first) */
    int *cell_start;         /* cell i wakes top[cell_props[cell_start[i] .. [i + 1])] */
    int *cell_props;
    int *pint;               /* the pools the propagators' offsets point into */
    uint32_t *pmask;
    uint8_t *ptup;
    int32_t *ptrans;
    uint64_t *pword;
    long long *pnum;
    size_t npint, npmask, nptup, nptrans, npword, npnum;
    size_t mask_scratch, word_scratch; /* what a search needs for them */
    /* Pair relations seen from a unit's places (FN(sees) in _native_core.h), or NULL:
     * sees[((c * n) + d) * n + e] (words each) the cells where c holding d rules out e,
     * by some top-level relation; sees_e[c * n + d] the e with any such cell. */
    uint64_t *sees;
    uint32_t *sees_e;
    uint64_t *sees_near; /* sees_near[c * words]: the cells c rules out any value at */
    uint64_t sees_inside[UNIT_WORDS]; /* the units of n cells holding two such cells */
    int sees_on; /* relations, or units of fewer than n cells: look through them */
    /* Digit peers, or NULL: dpeers[(d * cells + i) * words] the cells that may not
     * hold digit d + 1 beside i holding it (self-taxicab: the cells d + 1 away) */
    uint64_t *dpeers;
    /* Relations over pairs one offset apart, bit-parallel (FN(shifts) in
     * _native_core.h): each (delta, its table in pmask), and in shift_bits per shift
     * its first cells a, then their partners a + delta (words each). */
    int nshift;
    int *shift_delta;
    size_t *shift_table;
    uint64_t *shift_bits;
    /* per shift, way (0: forwards, 1: back) and value e, the values barred beside e
     * when there are at most three and the table allows at least four: how many <<
     * 15 | the values, 5 bits each, lowest first; else SHIFT_LOOP */
    uint32_t *shift_barred;
    /* per shift and way, the most values barred beside any one value: a cell holding
     * more than that many values leaves every value to its partner (FN(shifts_at)) */
    int *shift_most;
    int shift_most_any; /* the most of them over every shift and way */
    /* per cell (shift_way_words words each), bit g * 2 + way for each shift g it is
     * in on that side (way 0: a first cell, 1: a partner) */
    uint64_t *shift_ways;
    int shift_way_words;
    /* Counts read off the bit boards (FN(bcounts) in _native_core.h), not woken one
     * by one: per count its cells (words each), its class (an index into
     * bclass_mask: the values counted), and its allowed counts as bits (all under 63). */
    int nbcount, nbclass;
    uint64_t *bc_cells;
    int *bc_class;
    uint64_t *bc_counts;
    uint32_t bclass_mask[BCLASSES];
    /* Classes of no common value (global entropy's three, a quadruple's digits): per
     * value its class, nbclass for none; the unions then take one pass over the
     * values (FN(bcount_unions)). bc_disjoint 0: a value in two classes. */
    int bc_disjoint;
    int8_t bc_class_of[MAX_DIGITS];
    int bc_cost; /* the work of one pass over them, WORK_PER_NODE to a node */
    /* per cell, the counts holding it as bits (bc_words words each; NULL past
     * BC_INDEX_WORDS): a pass looks only at the counts of the cells that moved */
    uint64_t *bc_of_cell;
    int bc_words;
} Layout;

typedef struct {
    long long limit;   /* stop at this many solutions */
    double deadline;   /* monotonic seconds; 0 for none */
    long long budget;  /* stop after this many nodes; 0 for none */
    long long restart; /* nodes before a search first starts again; 0 for the default */
    int signals;       /* the GIL is held: look for Ctrl-C */
} Limits;

typedef struct {
    long long count, nodes, guesses;
    int status;
} Outcome;

/* Room for FN(sees)'s counts, per number of places it looks from (SEES_PLACES). */
#define SEES_COUNTS 8

typedef struct {
    void *states;
    int *cells;
    uint64_t *todo;
    /* for the propagators beyond the units */
    uint64_t *snap;    /* each digit's cells (cand | placed) when they last looked */
    uint64_t *shift_snap; /* each digit's cells when FN(shifts) last began a run */
    int shift_snap_ok; /* ... in this fixpoint */
    uint64_t *cage_snap; /* each digit's cells when FN(cages) last began a run */
    int cage_snap_ok;  /* ... in this fixpoint */
    uint64_t *queue;   /* the top-level propagators woken */
    uint32_t *masks;   /* frames */
    uint64_t *words;   /* layers of sums and automata */
    uint32_t *weight;  /* per cell: failures of its propagators in this search */
    uint32_t *values;  /* per cell: its values (cand | placed), where ``known`` says */
    uint64_t known[MAX_WORDS]; /* the cells whose ``values`` hold in this wake */
    int wake_all;      /* at the root: every propagator looks */
    int sees_most;     /* the most places FN(sees) still looks from in this search */
    uint32_t sees_calls[SEES_COUNTS], sees_hits[SEES_COUNTS]; /* per number of places */
    long long work;    /* the propagators' runs, each at its cost (Prop.cost) */
    /* per class of the bit-board counts, the cells that may hold one of its values
     * and those that may hold another, when FN(bcounts) last began a pass */
    uint64_t bc_in[BCLASSES][MAX_WORDS], bc_out[BCLASSES][MAX_WORDS];
    int bc_snap_ok; /* ... in this fixpoint (else every count looks) */
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

/*
 * The work of one run of a propagator, per cell of its frame, in hundredths of a
 * node of a search with units alone (about 2.5 us on 9x9): a pair relation's run
 * about 20 ns a cell, a sum's, table's or count's about 100, an automaton's 50 and
 * 25 more per 6 states (measured on the hard set and the generated sets,
 * docs/design.md). A node budget
 * counts this work as nodes, so that it stands for about the same time whatever the
 * rules: 49,000 nodes are 0.12 s of a classic search but 1.9 s of one through
 * sandwich automata.
 */
#define WORK_PER_NODE 100
#define WORK_RELATION 1
#define WORK_CELL 4
#define WORK_AUTOMATON 2

/* A branch taken at a search node, counted (a guess when another digit was left) and
 * held to the limits: the clock and Ctrl-C every 64 nodes, the node budget at each,
 * with the propagators' ``work`` so far counted as nodes (WORK_PER_NODE).
 * The status that stops the search, or 0 to go on. Every search calls it. */
static inline int count_branch(Outcome *out, const Limits *lim, int guess, long long work)
{
    out->nodes++;
    out->guesses += guess;
    if ((out->nodes & 63) == 0) {
        const int why = check_limits(lim);
        if (why)
            return why;
    }
    if (lim->budget && out->nodes + work / WORK_PER_NODE > lim->budget)
        return ST_BUDGET;
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

#include "_native_props.h"

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

#include "_native_band.h" /* classic 9x9: the band solver */

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
    PyMem_Free(lay->props);
    PyMem_Free(lay->top);
    PyMem_Free(lay->cell_start);
    PyMem_Free(lay->cell_props);
    PyMem_Free(lay->pint);
    PyMem_Free(lay->pmask);
    PyMem_Free(lay->ptup);
    PyMem_Free(lay->ptrans);
    PyMem_Free(lay->pword);
    PyMem_Free(lay->pnum);
    PyMem_Free(lay->sees);
    PyMem_Free(lay->sees_e);
    PyMem_Free(lay->sees_near);
    PyMem_Free(lay->dpeers);
    PyMem_Free(lay->shift_delta);
    PyMem_Free(lay->shift_table);
    PyMem_Free(lay->shift_bits);
    PyMem_Free(lay->shift_barred);
    PyMem_Free(lay->shift_most);
    PyMem_Free(lay->shift_ways);
    PyMem_Free(lay->bc_cells);
    PyMem_Free(lay->bc_of_cell);
    PyMem_Free(lay->bc_class);
    PyMem_Free(lay->bc_counts);
    PyMem_Free(lay->triad_rest);
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

/*
 * The box triads of a 9x9 grid (Layout.tri_fast): found among the triads by their
 * cells (a row's or a column's three cells in one box) and the rest of their A and B
 * (the rest of that line and of that box), so a grid whose regions are not 3x3 boxes
 * keeps the loop over every triad. Then the list of the triads left to that loop
 * (``box`` false: every one). -1 when out of memory.
 */
static int find_box_triads(Layout *lay, int box)
{
    lay->tri_fast = 0;
    uint8_t *boxed = PyMem_Calloc((size_t)(lay->ntriads ? lay->ntriads : 1), 1);
    lay->triad_rest = PyMem_Malloc((size_t)(lay->ntriads ? lay->ntriads : 1) * sizeof(int));
    if (!boxed || !lay->triad_rest) {
        PyMem_Free(boxed);
        return -1;
    }
    int found = 0;
    if (box && lay->n == 9 && lay->words == 2)
        for (int side = 0; side < 2 && found >= 0; side++)
            for (int line = 0; line < 9 && found >= 0; line++)
                for (int k = 0; k < 3 && found >= 0; k++) {
                    /* the three cells, the rest of the line, the rest of the box */
                    uint64_t cells[2] = {0}, line_rest[2] = {0}, box_rest[2] = {0};
                    const int r0 = side ? 3 * k : line, c0 = side ? line : 3 * k;
                    for (int j = 0; j < 9; j++) {
                        const int r = side ? j : line, c = side ? line : j, i = 9 * r + c;
                        const int mine = side ? r / 3 == k : c / 3 == k;
                        (mine ? cells : line_rest)[i >> 6] |= (uint64_t)1 << (i & 63);
                    }
                    for (int r = r0 / 3 * 3; r < r0 / 3 * 3 + 3; r++)
                        for (int c = c0 / 3 * 3; c < c0 / 3 * 3 + 3; c++) {
                            const int i = 9 * r + c;
                            if (!(cells[i >> 6] >> (i & 63) & 1))
                                box_rest[i >> 6] |= (uint64_t)1 << (i & 63);
                        }
                    int at = -1;
                    for (int t = 0; t < lay->ntriads && at < 0; t++) {
                        const uint64_t *tc = lay->triad_cells + (size_t)t * 2,
                                       *ta = lay->triad_a_out + (size_t)t * 2,
                                       *tb = lay->triad_b_out + (size_t)t * 2;
                        if (tc[0] == cells[0] && tc[1] == cells[1] &&
                            ((ta[0] == line_rest[0] && ta[1] == line_rest[1] &&
                              tb[0] == box_rest[0] && tb[1] == box_rest[1]) ||
                             (ta[0] == box_rest[0] && ta[1] == box_rest[1] &&
                              tb[0] == line_rest[0] && tb[1] == line_rest[1])))
                            at = t;
                    }
                    if (at < 0) {
                        found = -1; /* not a grid of 3x3 boxes: the loop takes all */
                        break;
                    }
                    boxed[at] = 1;
                    lay->tri_at[side][side ? 27 * k + line : 9 * line + 3 * k] = (int16_t)at;
                    found++;
                }
    lay->tri_fast = found == 54;
    lay->ntriad_rest = 0;
    for (int t = 0; t < lay->ntriads; t++)
        if (!(lay->tri_fast && boxed[t]))
            lay->triad_rest[lay->ntriad_rest++] = t;
    PyMem_Free(boxed);
    return 0;
}

/* ---- the propagators beyond the units: read and checked once per layout ---- */

typedef struct {
    Layout *lay;
    size_t cap_props, cap_pint, cap_pmask, cap_ptup, cap_ptrans, cap_pword, cap_pnum;
    int *slot;   /* a grid cell's place in the frame being built, or -1 */
    int *frame;  /* the frame's grid cells */
    int nframe, depth, deepest;
} Builder;

/* Room for ``more`` elements after ``len`` in *buf (capacity *cap); 0, or -1 (no memory). */
static int reserve(void **buf, size_t *cap, size_t len, size_t more, size_t size)
{
    if (more > ((size_t)1 << 40) / size || len + more <= *cap)
        return more > ((size_t)1 << 40) / size ? -1 : 0;
    size_t want = *cap ? *cap : 64;
    while (want < len + more)
        want *= 2;
    void *grown = PyMem_Realloc(*buf, want * size);
    if (!grown)
        return -1;
    *buf = grown;
    *cap = want;
    return 0;
}

#define RESERVE(bd, pool, more)                                                             \
    reserve((void **)&(bd)->lay->pool, &(bd)->cap_##pool, (bd)->lay->n##pool, (more),       \
            sizeof(*(bd)->lay->pool))

static int new_prop(Builder *bd, int kind)
{
    Layout *lay = bd->lay;
    if (lay->nprops >= (1 << 24)) {
        PyErr_SetString(PyExc_ValueError, "too many propagators");
        return -1;
    }
    if (reserve((void **)&lay->props, &bd->cap_props, (size_t)lay->nprops, 1, sizeof(Prop)) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    Prop *p = lay->props + lay->nprops;
    memset(p, 0, sizeof(*p));
    p->kind = kind;
    return lay->nprops++;
}

/* The cells of a primitive: each a grid cell, placed in the frame; their places
 * appended to pint. Returns the count, or -1. */
static int read_prop_cells(Builder *bd, PyObject *obj, size_t *idx)
{
    Layout *lay = bd->lay;
    PyObject *seq = PySequence_Fast(obj, "a primitive's cells must be a sequence");
    if (!seq)
        return -1;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    if (count > MAX_PROP_CELLS) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "a primitive lists %zd cells; at most %d", count,
                     MAX_PROP_CELLS);
        return -1;
    }
    if (RESERVE(bd, pint, (size_t)count) < 0) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    *idx = lay->npint;
    for (Py_ssize_t j = 0; j < count; j++) {
        long i = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, j));
        if (i == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        if (i < 0 || i >= lay->cells) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "a primitive's cell %ld is off the grid", i);
            return -1;
        }
        if (bd->slot[i] < 0) {
            bd->slot[i] = bd->nframe;
            bd->frame[bd->nframe++] = (int)i;
        }
        lay->pint[lay->npint++] = bd->slot[i];
    }
    Py_DECREF(seq);
    return (int)count;
}

/* A sequence of ints as a freshly allocated array of count long longs (PyMem_Free it). */
static long long *read_numbers(PyObject *obj, Py_ssize_t *count, const char *what)
{
    if (PyAnySet_Check(obj)) { /* a count's counts: read off its iterator, not a list */
        *count = PySet_GET_SIZE(obj);
        long long *out = PyMem_Malloc((size_t)(*count ? *count : 1) * sizeof(long long));
        PyObject *it = out ? PyObject_GetIter(obj) : NULL;
        if (!it) {
            PyMem_Free(out);
            if (!PyErr_Occurred())
                PyErr_NoMemory();
            return NULL;
        }
        Py_ssize_t j = 0;
        for (PyObject *item; j < *count && (item = PyIter_Next(it)); j++) {
            out[j] = PyLong_AsLongLong(item);
            Py_DECREF(item);
            if (out[j] == -1 && PyErr_Occurred())
                break;
        }
        Py_DECREF(it);
        if (PyErr_Occurred() || j != *count) {
            PyMem_Free(out);
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "%s: changed size while read", what);
            return NULL;
        }
        return out;
    }
    PyObject *seq = PySequence_Fast(obj, what);
    if (!seq)
        return NULL;
    *count = PySequence_Fast_GET_SIZE(seq);
    if (*count > (1 << 24)) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s: too many", what);
        return NULL;
    }
    long long *out = PyMem_Malloc((size_t)(*count ? *count : 1) * sizeof(long long));
    if (!out) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t j = 0; j < *count; j++) {
        out[j] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, j));
        if (out[j] == -1 && PyErr_Occurred()) {
            PyMem_Free(out);
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_DECREF(seq);
    return out;
}

/* Masks (each within the grid's values) appended to pmask; their offset, or -1. */
static long long read_masks(Builder *bd, PyObject *obj, Py_ssize_t *count, const char *what)
{
    Layout *lay = bd->lay;
    long long *got = read_numbers(obj, count, what);
    if (!got)
        return -1;
    const long long full = ((long long)1 << lay->n) - 1;
    if (RESERVE(bd, pmask, (size_t)*count) < 0) {
        PyMem_Free(got);
        PyErr_NoMemory();
        return -1;
    }
    size_t at = lay->npmask;
    for (Py_ssize_t j = 0; j < *count; j++) {
        if (got[j] < 0 || got[j] & ~full) {
            PyMem_Free(got);
            PyErr_Format(PyExc_ValueError, "%s: %lld is no mask of values 1 to %d", what,
                         got[j] < 0 ? got[j] : got[j], lay->n);
            return -1;
        }
        lay->pmask[lay->npmask++] = (uint32_t)got[j];
    }
    PyMem_Free(got);
    return (long long)at;
}

/* Bits 0..bits-1 appended to pword, zero; their offset, or -1. */
static long long new_bits(Builder *bd, size_t bits)
{
    Layout *lay = bd->lay;
    size_t words = (bits + 63) / 64;
    if (RESERVE(bd, pword, words) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    size_t at = lay->npword;
    memset(lay->pword + at, 0, words * sizeof(uint64_t));
    lay->npword += words;
    return (long long)at;
}

static int read_prop(Builder *bd, PyObject *spec, int **ids, size_t *nids, size_t *capids);

static int push_id(int **ids, size_t *nids, size_t *capids, int id)
{
    if (reserve((void **)ids, capids, *nids, 1, sizeof(int)) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    (*ids)[(*nids)++] = id;
    return 0;
}

/* ("relation", pairs, allowed): allowed[a] is the mask the second cell may hold
 * while the first holds a (n + 1 entries, the first unused); one propagator per pair,
 * all sharing the table and its reverse. */
/* True when the str ``name`` is ``word`` (ASCII): the first letter decides most. */
static inline int named(PyObject *name, const char *word)
{
    return PyUnicode_GET_LENGTH(name) > 0 && PyUnicode_READ_CHAR(name, 0) == (Py_UCS4)word[0] &&
           PyUnicode_CompareWithASCIIString(name, word) == 0;
}

/* A relation's table (n + 1 masks, the first unused: the values allowed beside each
 * value) into pmask as n forward masks, then n backward: its offset in *at. */
static int relation_table(Builder *bd, PyObject *obj, size_t *at)
{
    Layout *lay = bd->lay;
    const int n = lay->n;
    Py_ssize_t count;
    long long *allowed = read_numbers(obj, &count, "a relation's table");
    if (!allowed)
        return -1;
    const long long full = ((long long)1 << n) - 1;
    int bad = count != n + 1;
    for (Py_ssize_t j = 1; !bad && j <= n; j++)
        bad = allowed[j] < 0 || (allowed[j] & ~full);
    if (bad || RESERVE(bd, pmask, 2 * (size_t)n) < 0) {
        PyMem_Free(allowed);
        if (bad)
            PyErr_Format(PyExc_ValueError, "a relation's table needs %d masks of values 1 to %d",
                         n + 1, n);
        else
            PyErr_NoMemory();
        return -1;
    }
    size_t table = lay->npmask;
    uint32_t *fwd = lay->pmask + table, *back = fwd + n;
    for (int a = 0; a < n; a++) {
        fwd[a] = (uint32_t)allowed[a + 1];
        back[a] = 0;
    }
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            if (fwd[a] >> b & 1)
                back[b] |= (uint32_t)1 << a;
    lay->npmask += 2 * (size_t)n;
    PyMem_Free(allowed);
    *at = table;
    return 0;
}

/*
 * ("shift", delta, cells, table): a relation on the pairs (a, a + delta) for each a
 * of cells, propagated bit-parallel over all of them at once (FN(shifts)).
 */
static int read_shift(Builder *bd, PyObject *spec)
{
    Layout *lay = bd->lay;
    const int words = lay->words, cells = lay->cells;
    long delta = PyLong_AsLong(PyTuple_GET_ITEM(spec, 1));
    if (delta == -1 && PyErr_Occurred())
        return -1;
    if (delta == 0 || delta <= -cells || delta >= cells) {
        PyErr_Format(PyExc_ValueError, "a shift's offset must be nonzero and under %d", cells);
        return -1;
    }
    size_t table;
    if (relation_table(bd, PyTuple_GET_ITEM(spec, 3), &table) < 0)
        return -1;
    const size_t k = (size_t)lay->nshift;
    int *deltas = PyMem_Realloc(lay->shift_delta, (k + 1) * sizeof(int));
    if (deltas)
        lay->shift_delta = deltas;
    size_t *tables = PyMem_Realloc(lay->shift_table, (k + 1) * sizeof(size_t));
    if (tables)
        lay->shift_table = tables;
    uint64_t *bits = PyMem_Realloc(lay->shift_bits, (k + 1) * 2 * words * sizeof(uint64_t));
    if (bits)
        lay->shift_bits = bits;
    const int n = lay->n;
    uint32_t *barred = PyMem_Realloc(lay->shift_barred, (k + 1) * 2 * n * sizeof(uint32_t));
    if (barred)
        lay->shift_barred = barred;
    int *most = PyMem_Realloc(lay->shift_most, (k + 1) * 2 * sizeof(int));
    if (most)
        lay->shift_most = most;
    if (!deltas || !tables || !bits || !barred || !most) {
        PyErr_NoMemory();
        return -1;
    }
    uint64_t *from = bits + k * 2 * words, *to = from + words;
    memset(from, 0, 2 * words * sizeof(uint64_t));
    PyObject *seq = PySequence_Fast(PyTuple_GET_ITEM(spec, 2), "a shift's cells");
    if (!seq)
        return -1;
    for (Py_ssize_t j = 0; j < PySequence_Fast_GET_SIZE(seq); j++) {
        long a = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, j));
        if (a == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        if (a < 0 || a >= cells || a + delta < 0 || a + delta >= cells) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "cell %ld and its partner %ld + %ld on %d cells", a,
                         a, delta, cells);
            return -1;
        }
        SET(from, a);
        SET(to, a + delta);
    }
    Py_DECREF(seq);
    for (int way = 0; way < 2; way++) {
        /* the values beside e at the cells it looks from, as FN(shifts) reads them */
        const uint32_t *support = lay->pmask + table + (way ? 0 : n);
        most[k * 2 + way] = 0;
        for (int e = 0; e < n; e++) {
            const uint32_t allowed = support[e], no = (uint32_t)((1ull << n) - 1) & ~allowed;
            if (__builtin_popcount(no) > most[k * 2 + way])
                most[k * 2 + way] = __builtin_popcount(no);
            if (most[k * 2 + way] > lay->shift_most_any)
                lay->shift_most_any = most[k * 2 + way];
            uint32_t code = SHIFT_LOOP;
            if (__builtin_popcount(no) <= 3 && __builtin_popcount(allowed) >= 4) {
                code = (uint32_t)__builtin_popcount(no) << 15;
                int at = 0;
                for (uint32_t x = no; x; x &= x - 1, at += 5)
                    code |= (uint32_t)__builtin_ctz(x) << at;
            }
            barred[(k * 2 + way) * n + e] = code;
        }
    }
    lay->shift_delta[k] = (int)delta;
    lay->shift_table[k] = table;
    lay->nshift++;
    return 0;
}

static int close_frame(Builder *bd, int id);

/* Per way of a relation's table (at ``table`` in pmask), the most values of its first
 * cell that leave a value of the other without support: with more than that, that
 * way cannot narrow (run_pair skips it). Forward into *ahead, back into *behind. */
static void relation_reach(const Layout *lay, size_t table, size_t *ahead, size_t *behind)
{
    const int n = lay->n;
    const uint32_t *fwd = lay->pmask + table, *back = fwd + n;
    *ahead = *behind = 0;
    for (int w = 0; w < n; w++) {
        size_t no_fwd = 0, no_back = 0;
        for (int v = 0; v < n; v++) {
            no_fwd += !(fwd[v] >> w & 1);
            no_back += !(back[v] >> w & 1);
        }
        if (no_fwd > *ahead)
            *ahead = no_fwd;
        if (no_back > *behind)
            *behind = no_back;
    }
}

/* One pair of a relation whose table is at ``table`` in pmask: a propagator, with
 * the table's thresholds (relation_reach). */
static int relation_pair(Builder *bd, PyObject *pair, size_t table, size_t ahead,
                         size_t behind, int **ids, size_t *nids, size_t *capids)
{
    if (PyObject_Length(pair) != 2) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "a relation's pair is two cells");
        return -1;
    }
    const int id = new_prop(bd, K_RELATION);
    if (id < 0 || push_id(ids, nids, capids, id) < 0)
        return -1;
    size_t idx;
    if (read_prop_cells(bd, pair, &idx) < 0)
        return -1;
    Prop *p = bd->lay->props + id;
    p->nc = 2;
    p->idx = idx;
    p->a = table;
    p->b = ahead;
    p->c = behind;
    return 0;
}

/* ("relation", pairs, allowed): its table read once, then a propagator per pair;
 * ``own_frames``: each pair closes a frame of its own (a top-level relation). */
static int read_relation(Builder *bd, PyObject *spec, int **ids, size_t *nids, size_t *capids,
                         int own_frames)
{
    if (PyTuple_GET_SIZE(spec) != 3) {
        PyErr_SetString(PyExc_ValueError, "a relation is (\"relation\", pairs, allowed)");
        return -1;
    }
    size_t table;
    if (relation_table(bd, PyTuple_GET_ITEM(spec, 2), &table) < 0)
        return -1;
    size_t ahead, behind;
    relation_reach(bd->lay, table, &ahead, &behind);
    PyObject *pairs = PySequence_Fast(PyTuple_GET_ITEM(spec, 1), "a relation's pairs");
    if (!pairs)
        return -1;
    int failed = 0;
    for (Py_ssize_t j = 0; !failed && j < PySequence_Fast_GET_SIZE(pairs); j++)
        failed = relation_pair(bd, PySequence_Fast_GET_ITEM(pairs, j), table, ahead, behind,
                               ids, nids, capids) < 0 ||
                 (own_frames && close_frame(bd, (*ids)[*nids - 1]) < 0);
    Py_DECREF(pairs);
    return failed ? -1 : 0;
}

static int check_size(int ok, const char *message)
{
    if (!ok)
        PyErr_SetString(PyExc_ValueError, message);
    return ok ? 0 : -1;
}

/*
 * A sum's terms in groups: terms of one weight whose cells all see each other (share a
 * unit), so they hold different digits; the kernel bounds each group by its least and
 * greatest distinct digits (sum_groups in _native_props.h). Greedy by units: the unit
 * holding the most ungrouped terms of one weight makes a group, and again while a unit
 * holds two; a term left then joins the first group all of whose cells it sees. In the
 * terms' order instead, a diagonal's cells in one row could take a box's group apart
 * (a sum over several diagonals: docs/design.md). No group of two or more: p->g = 0.
 */
static int sum_groups_read(Builder *bd, int id, const long long *w)
{
    Layout *lay = bd->lay;
    const int nc = lay->props[id].nc, words = lay->words;
    const size_t idx = lay->props[id].idx;
    lay->props[id].g = 0;
    if (nc > SUM_GROUP_CELLS) /* grouping is quadratic in the terms */
        return 0;
    if (RESERVE(bd, pint, (size_t)nc) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    int *group = lay->pint + lay->npint, ng = 0, joined = 0;
    int cell[SUM_GROUP_CELLS], weight[SUM_GROUP_CELLS], count[SUM_GROUP_CELLS];
    for (int k = 0; k < nc; k++) {
        cell[k] = bd->frame[lay->pint[idx + k]];
        group[k] = -1;
        weight[k] = k; /* the first term of its weight */
        for (int j = 0; j < k; j++)
            if (w[j] == w[k]) {
                weight[k] = j;
                break;
            }
    }
    for (;;) {
        int best = 1, best_unit = -1, best_weight = -1;
        for (int u = 0; u < lay->nunits; u++) {
            const uint64_t *bits = lay->unit_bits + (size_t)u * words;
            memset(count, 0, (size_t)nc * sizeof(int));
            for (int k = 0; k < nc; k++)
                if (group[k] < 0 && ((bits[cell[k] >> 6] >> (cell[k] & 63)) & 1) &&
                    ++count[weight[k]] > best) {
                    best = count[weight[k]];
                    best_unit = u;
                    best_weight = weight[k];
                }
        }
        if (best_unit < 0)
            break;
        const uint64_t *bits = lay->unit_bits + (size_t)best_unit * words;
        for (int k = 0, size = 0; k < nc && size < lay->n; k++)
            if (group[k] < 0 && weight[k] == best_weight &&
                ((bits[cell[k] >> 6] >> (cell[k] & 63)) & 1)) {
                group[k] = ng;
                size++;
            }
        ng++;
        joined = 1;
    }
    for (int k = 0; k < nc; k++) {
        if (group[k] >= 0)
            continue;
        const uint64_t *seen = lay->peers + (size_t)cell[k] * words;
        for (int g = 0; g < ng && group[k] < 0; g++) {
            int fits = 1, size = 0;
            for (int j = 0; j < nc && fits; j++)
                if (group[j] == g) {
                    fits = weight[j] == weight[k] && ((seen[cell[j] >> 6] >> (cell[j] & 63)) & 1);
                    size++;
                }
            if (fits && size < lay->n) {
                group[k] = g;
                joined = 1;
            }
        }
        if (group[k] < 0)
            group[k] = ng++;
    }
    Prop *p = lay->props + id;
    if (!joined) {
        p->g = 0;
        return 0;
    }
    p->f = lay->npint;
    p->g = (size_t)ng;
    lay->npint += (size_t)nc;
    if (4 * (size_t)ng > lay->word_scratch)
        lay->word_scratch = 4 * (size_t)ng;
    return 0;
}

/* One primitive (not a relation) as a tuple (kind, ...); its id appended to ids. */
static int read_prop(Builder *bd, PyObject *spec, int **ids, size_t *nids, size_t *capids)
{
    Layout *lay = bd->lay;
    const int n = lay->n;
    if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) < 2 ||
        !PyUnicode_Check(PyTuple_GET_ITEM(spec, 0))) {
        PyErr_SetString(PyExc_TypeError, "a primitive is a tuple (kind, ...)");
        return -1;
    }
    PyObject *name = PyTuple_GET_ITEM(spec, 0);
    const Py_ssize_t size = PyTuple_GET_SIZE(spec);
#define IS(word) (named(name, word))
    if (IS("relation"))
        return read_relation(bd, spec, ids, nids, capids, 0);
    int kind = IS("allowed")     ? K_ALLOWED
               : IS("distinct")  ? K_DISTINCT
               : IS("digitsets") ? K_DIGITSETS
               : IS("table")     ? K_TABLE
               : IS("sum")       ? K_SUM
               : IS("automaton") ? K_AUTOMATON
               : IS("count")     ? K_COUNT
               : IS("choice")    ? K_CHOICE
                                 : -1;
#undef IS
    static const Py_ssize_t sizes[] = {0, 3, 2, 3, 4, 4, 5, 4, 2};
    if (kind < 0 || (size != sizes[kind] && !(kind == K_SUM && size == 5))) {
        PyErr_Format(PyExc_ValueError, "unknown primitive, or %zd fields where it has others",
                     size);
        return -1;
    }
    int id = new_prop(bd, kind);
    if (id < 0 || push_id(ids, nids, capids, id) < 0)
        return -1;
    if (kind == K_CHOICE) {
        if (++bd->depth > MAX_NESTING) {
            PyErr_Format(PyExc_ValueError, "choices nested deeper than %d", MAX_NESTING);
            return -1;
        }
        if (bd->depth > bd->deepest)
            bd->deepest = bd->depth;
        PyObject *branches = PySequence_Fast(PyTuple_GET_ITEM(spec, 1), "a choice's branches");
        if (!branches)
            return -1;
        Py_ssize_t nb = PySequence_Fast_GET_SIZE(branches);
        int *subs = NULL, *bounds = PyMem_Malloc((size_t)(nb + 1) * sizeof(int));
        size_t nsubs = 0, capsubs = 0;
        int failed = !bounds || nb > (1 << 20);
        if (failed && !PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "a choice has too many branches");
        for (Py_ssize_t j = 0; !failed && j < nb; j++) {
            bounds[j] = (int)nsubs;
            PyObject *prims =
                PySequence_Fast(PySequence_Fast_GET_ITEM(branches, j), "a branch's primitives");
            if (!prims) {
                failed = 1;
                break;
            }
            for (Py_ssize_t k = 0; !failed && k < PySequence_Fast_GET_SIZE(prims); k++)
                failed = read_prop(bd, PySequence_Fast_GET_ITEM(prims, k), &subs, &nsubs,
                                   &capsubs) < 0;
            Py_DECREF(prims);
        }
        Py_DECREF(branches);
        if (!failed) {
            bounds[nb] = (int)nsubs;
            failed = RESERVE(bd, pint, (size_t)(nb + 1) + nsubs) < 0;
            if (failed)
                PyErr_NoMemory();
        }
        if (!failed) {
            if (lay->npint + (size_t)(nb + 1) + nsubs > (size_t)INT_MAX) {
                failed = 1;
                PyErr_SetString(PyExc_ValueError, "the choices are too large");
            }
        }
        if (!failed) {
            Prop *p = lay->props + id;
            p->a = lay->npint;
            p->b = (size_t)nb;
            size_t first = lay->npint + (size_t)nb + 1;
            for (Py_ssize_t j = 0; j <= nb; j++)
                lay->pint[lay->npint + j] = (int)(first + bounds[j]);
            memcpy(lay->pint + first, subs, nsubs * sizeof(int));
            lay->npint = first + nsubs;
        }
        PyMem_Free(bounds);
        PyMem_Free(subs);
        bd->depth--;
        return failed ? -1 : 0;
    }
    size_t idx;
    int nc = read_prop_cells(bd, PyTuple_GET_ITEM(spec, 1), &idx);
    if (nc < 0)
        return -1;
    lay->props[id].nc = nc;
    lay->props[id].idx = idx;
    Py_ssize_t count;
    switch (kind) {
    case K_DISTINCT:
        return 0;
    case K_ALLOWED: {
        long long at = read_masks(bd, PyTuple_GET_ITEM(spec, 2), &count, "allowed masks");
        if (at < 0 || check_size(count == nc, "allowed: one mask per cell") < 0)
            return -1;
        lay->props[id].a = (size_t)at;
        return 0;
    }
    case K_DIGITSETS: {
        long long at = read_masks(bd, PyTuple_GET_ITEM(spec, 2), &count, "digit sets");
        if (at < 0)
            return -1;
        lay->props[id].a = (size_t)at;
        lay->props[id].b = (size_t)count;
        return 0;
    }
    case K_TABLE: {
        Py_buffer rows;
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(spec, 2), &rows, PyBUF_SIMPLE) < 0)
            return -1;
        long long ntup = PyLong_AsLongLong(PyTuple_GET_ITEM(spec, 3));
        int bad = (ntup == -1 && PyErr_Occurred()) ||
                  check_size(nc <= MAX_TABLE_CELLS && ntup >= 0 && ntup <= (1 << 26) &&
                                 (long long)rows.len == ntup * nc,
                             "a table: at most 64 cells, and its bytes are its tuples") < 0;
        for (Py_ssize_t j = 0; !bad && j < rows.len; j++)
            if (((const uint8_t *)rows.buf)[j] < 1 || ((const uint8_t *)rows.buf)[j] > n)
                bad = check_size(0, "a table's value is out of range") < 0;
        if (!bad && RESERVE(bd, ptup, (size_t)rows.len) < 0) {
            bad = 1;
            PyErr_NoMemory();
        }
        if (!bad) {
            lay->props[id].a = lay->nptup;
            lay->props[id].b = (size_t)ntup;
            memcpy(lay->ptup + lay->nptup, rows.buf, (size_t)rows.len);
            lay->nptup += (size_t)rows.len;
        }
        PyBuffer_Release(&rows);
        return bad ? -1 : 0;
    }
    case K_SUM: {
        Py_ssize_t nw, nt;
        long long *w = read_numbers(PyTuple_GET_ITEM(spec, 2), &nw, "a sum's weights");
        long long *t = w ? read_numbers(PyTuple_GET_ITEM(spec, 3), &nt, "a sum's targets") : NULL;
        int bad = !t || check_size(nw == nc, "a sum: one weight per cell") < 0;
        long long range = 0, least = 0;
        for (Py_ssize_t j = 0; !bad && j < nw; j++) {
            bad = check_size(w[j] >= -((long long)1 << 31) && w[j] <= (long long)1 << 31,
                             "a sum's weight is beyond 2**31") < 0;
            range += (w[j] < 0 ? -w[j] : w[j]) * (n - 1);
            least += w[j] < 0 ? w[j] * n : w[j];
        }
        /* the targets sorted, without repeats (a small insertion sort: few targets) */
        Py_ssize_t kept = 0;
        for (Py_ssize_t j = 0; !bad && j < nt; j++) {
            Py_ssize_t at = kept;
            while (at > 0 && t[at - 1] > t[j])
                at--;
            if (at > 0 && t[at - 1] == t[j])
                continue;
            if (nt > 4096) {
                bad = check_size(0, "a sum has more than 4,096 targets") < 0;
                break;
            }
            memmove(t + at + 1, t + at, (size_t)(kept - at) * sizeof(long long));
            t[at] = t[j];
            kept++;
        }
        if (!bad && RESERVE(bd, pnum, (size_t)(nw + kept)) < 0) {
            bad = 1;
            PyErr_NoMemory();
        }
        if (!bad) {
            Prop *p = lay->props + id;
            p->a = lay->npnum;
            memcpy(lay->pnum + lay->npnum, w, (size_t)nw * sizeof(long long));
            lay->npnum += (size_t)nw;
            p->b = lay->npnum;
            memcpy(lay->pnum + lay->npnum, t, (size_t)kept * sizeof(long long));
            lay->npnum += (size_t)kept;
            p->c = (size_t)kept;
            const int grouped = size < 5 ? 1 : PyObject_IsTrue(PyTuple_GET_ITEM(spec, 4));
            bad = grouped < 0 || (grouped && sum_groups_read(bd, id, w) < 0);
            p = lay->props + id;
            if (!bad && range < 64LL * SUM_DP_WORDS) { /* exact, by the reachable partial sums */
                long long goal = new_bits(bd, (size_t)range + 1);
                if (goal < 0) {
                    bad = 1;
                } else {
                    p = lay->props + id;
                    p->d = (size_t)(range + 64) / 64;
                    p->e = (size_t)goal;
                    for (Py_ssize_t j = 0; j < kept; j++) {
                        long long at = t[j] - least;
                        if (at >= 0 && at <= range)
                            lay->pword[goal + at / 64] |= (uint64_t)1 << (at % 64);
                    }
                    size_t need = ((size_t)nc + 3) * p->d;
                    if (need > lay->word_scratch)
                        lay->word_scratch = need;
                }
            }
        }
        PyMem_Free(w);
        PyMem_Free(t);
        return bad ? -1 : 0;
    }
    case K_AUTOMATON: {
        long long states = PyLong_AsLongLong(PyTuple_GET_ITEM(spec, 3));
        if (states == -1 && PyErr_Occurred())
            return -1;
        if (check_size(states >= 1 && states <= MAX_STATES, "an automaton has 1 to 2**20 states") < 0)
            return -1;
        size_t sw = (size_t)(states + 63) / 64;
        if (check_size(((size_t)nc + 3) * sw <= MAX_LAYERS, "an automaton too large to walk") < 0)
            return -1;
        Py_buffer rows;
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(spec, 2), &rows, PyBUF_SIMPLE) < 0)
            return -1;
        int bad = check_size((size_t)rows.len == (size_t)states * n * sizeof(int32_t),
                             "an automaton's transitions are states * n int32") < 0;
        /* the transitions as given (a = states * n next states, -1 none), then grouped
         * by next state (e): most values of a state often lead to one state (a count's
         * values outside its set, a sandwich's digits before its crusts, a skyscraper's
         * digits below the tallest), so a walk can look at each next state once, with
         * the mask of the values leading there */
        const size_t given = (size_t)states * n, grouped = (size_t)states + 1 + 2 * given;
        if (!bad && RESERVE(bd, ptrans, given + grouped) < 0) {
            bad = 1;
            PyErr_NoMemory();
        }
        int32_t *table = bad ? NULL : lay->ptrans + lay->nptrans;
        if (!bad) {
            memcpy(table, rows.buf, (size_t)rows.len); /* copied: the buffer need not be aligned */
            for (size_t j = 0; !bad && j < given; j++)
                bad = check_size(table[j] >= -1 && table[j] < states,
                                 "an automaton moves to a state it lacks") < 0;
        }
        PyBuffer_Release(&rows);
        if (bad)
            return -1;
        Prop *p = lay->props + id;
        p->a = lay->nptrans;
        p->e = lay->nptrans + given;
        int32_t *offsets = lay->ptrans + p->e, *pairs = offsets + states + 1;
        int32_t used = 0;
        for (long long q = 0; q < states; q++) {
            const int32_t *row = table + q * n;
            offsets[q] = used;
            for (int d = 0; d < n; d++) {
                if (row[d] < 0)
                    continue;
                int32_t g = offsets[q];
                while (g < used && pairs[2 * g + 1] != row[d])
                    g++;
                if (g == used) {
                    pairs[2 * used] = 0;
                    pairs[2 * used + 1] = row[d];
                    used++;
                }
                pairs[2 * g] = (int32_t)((uint32_t)pairs[2 * g] | (uint32_t)1 << d);
            }
        }
        offsets[states] = used;
        lay->nptrans += given + (size_t)states + 1 + 2 * (size_t)used;
        p->b = (size_t)states;
        p->d = sw;
        long long acc = new_bits(bd, (size_t)states);
        long long *ends = acc < 0 ? NULL : read_numbers(PyTuple_GET_ITEM(spec, 4), &count, "accepting states");
        if (!ends)
            return -1;
        for (Py_ssize_t j = 0; !bad && j < count; j++) {
            if (ends[j] < 0 || ends[j] >= states)
                bad = check_size(0, "an accepting state the automaton lacks") < 0;
            else
                lay->pword[acc + ends[j] / 64] |= (uint64_t)1 << (ends[j] % 64);
        }
        PyMem_Free(ends);
        lay->props[id].c = (size_t)acc;
        size_t need = ((size_t)nc + 3) * sw;
        if (need > lay->word_scratch)
            lay->word_scratch = need;
        return bad ? -1 : 0;
    }
    case K_COUNT: {
        long long mask = PyLong_AsLongLong(PyTuple_GET_ITEM(spec, 2));
        if (mask == -1 && PyErr_Occurred())
            return -1;
        if (check_size(mask >= 0 && mask < ((long long)1 << n), "a count's values are a mask") < 0)
            return -1;
        long long at = new_bits(bd, (size_t)nc + 1);
        long long *counts = at < 0 ? NULL : read_numbers(PyTuple_GET_ITEM(spec, 3), &count, "counts");
        if (!counts)
            return -1;
        for (Py_ssize_t j = 0; j < count; j++)
            if (counts[j] >= 0 && counts[j] <= nc) /* others can never be met */
                lay->pword[at + counts[j] / 64] |= (uint64_t)1 << (counts[j] % 64);
        PyMem_Free(counts);
        lay->props[id].a = (size_t)mask;
        lay->props[id].b = (size_t)at;
        return 0;
    }
    }
    return 0;
}

/* The frame built so far closed onto top-level propagator ``id``. */
static int close_frame(Builder *bd, int id)
{
    Layout *lay = bd->lay;
    if (RESERVE(bd, pint, (size_t)bd->nframe) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    Prop *p = lay->props + id;
    p->nframe = bd->nframe;
    p->frame = lay->npint;
    p->cost = bd->nframe * (p->kind == K_RELATION    ? WORK_RELATION
                            : p->kind == K_AUTOMATON ? WORK_AUTOMATON + (int)(p->b / 6)
                                                     : WORK_CELL * (1 + bd->deepest));
    for (int k = 0; k < bd->nframe; k++) {
        lay->pint[lay->npint++] = bd->frame[k];
        bd->slot[bd->frame[k]] = -1;
    }
    size_t need = 2 * (size_t)bd->nframe * (size_t)(1 + bd->deepest);
    if (need > lay->mask_scratch)
        lay->mask_scratch = need;
    bd->nframe = 0;
    bd->deepest = bd->depth = 0;
    return 0;
}

/*
 * Top-level counts move to the bit boards (FN(bcounts)): a pass over all of them
 * reads each count's cells that must and may hold its values as two popcounts of
 * one union per class of values, where each woken count gathered its cells'
 * candidates digit by digit (two thirds of global entropy's instructions went to
 * waking and running its 192 counts). Counts of more than 62 cells, of a cell listed
 * twice, or of a class beyond BCLASSES, stay propagators. ``top`` keeps the others,
 * in order. A top-level count that caps its values (all its cells holding them is
 * not allowed: a 2x2 area of global entropy, a counting circle) sets ``has_counts``
 * (the search probes first); a quadruple's "at least k" does not (probing took its
 * set 2.2 -> 3.4 M instructions, 145 -> 175 nodes).
 */
static int bit_counts(Layout *lay, int *top, size_t *ntop)
{
    const int words = lay->words;
    size_t keep = 0, moved = 0;
    for (size_t j = 0; j < *ntop; j++) {
        const Prop *p = lay->props + top[j];
        if (p->kind == K_COUNT && !(lay->pword[p->b + p->nc / 64] >> (p->nc % 64) & 1))
            lay->has_counts = 1; /* a count that caps its values: "all of them" is out */
        if (p->kind == K_COUNT && p->nc <= 62 && p->nframe == p->nc)
            moved++;
    }
    if (!moved)
        return 0;
    lay->bc_cells = PyMem_Calloc(moved * (size_t)words, sizeof(uint64_t));
    lay->bc_class = PyMem_Calloc(moved, sizeof(int));
    lay->bc_counts = PyMem_Calloc(moved, sizeof(uint64_t));
    if (!lay->bc_cells || !lay->bc_class || !lay->bc_counts) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t j = 0; j < *ntop; j++) {
        const Prop *p = lay->props + top[j];
        int cls = -1;
        if (p->kind == K_COUNT && p->nc <= 62 && p->nframe == p->nc) {
            for (int c = 0; c < lay->nbclass && cls < 0; c++)
                if (lay->bclass_mask[c] == (uint32_t)p->a)
                    cls = c;
            if (cls < 0 && lay->nbclass < BCLASSES) {
                cls = lay->nbclass++;
                lay->bclass_mask[cls] = (uint32_t)p->a;
            }
        }
        if (cls < 0) {
            top[keep++] = top[j];
            continue;
        }
        const int b = lay->nbcount++;
        const int *ix = lay->pint + p->idx, *frame = lay->pint + p->frame;
        for (int k = 0; k < p->nc; k++) {
            const int c = frame[ix[k]];
            lay->bc_cells[(size_t)b * words + c / 64] |= (uint64_t)1 << (c % 64);
        }
        lay->bc_class[b] = cls;
        lay->bc_counts[b] = lay->pword[p->b];
        lay->bc_cost += p->cost;
    }
    *ntop = keep;
    uint32_t seen = 0;
    lay->bc_disjoint = 1;
    for (int c = 0; c < lay->nbclass; c++) {
        lay->bc_disjoint &= !(seen & lay->bclass_mask[c]);
        seen |= lay->bclass_mask[c];
    }
    for (int d = 0; d < lay->n; d++) {
        lay->bc_class_of[d] = (int8_t)lay->nbclass;
        for (int c = 0; c < lay->nbclass; c++)
            if (lay->bclass_mask[c] >> d & 1)
                lay->bc_class_of[d] = (int8_t)c;
    }
    const int bw = (lay->nbcount + 63) / 64;
    if (lay->nbcount < BC_INDEX_LEAST || bw > BC_INDEX_WORDS)
        return 0;
    lay->bc_words = bw;
    lay->bc_of_cell = PyMem_Calloc((size_t)lay->cells * (size_t)bw, sizeof(uint64_t));
    if (!lay->bc_of_cell) {
        PyErr_NoMemory();
        return -1;
    }
    for (int b = 0; b < lay->nbcount; b++)
        for (int k = 0; k < words; k++)
            for (uint64_t m = lay->bc_cells[(size_t)b * words + k]; m; m &= m - 1) {
                const int c = k * 64 + __builtin_ctzll(m);
                lay->bc_of_cell[(size_t)c * bw + b / 64] |= (uint64_t)1 << (b % 64);
            }
    return 0;
}

/*
 * Read the propagators beyond the units: a sequence of primitives, each a tuple
 * (kind, ...) as cpsudoku.engines.native writes them. Each top-level one gets a frame
 * (its cells, once each), and each cell the list of those it wakes.
 */
static int read_props(Layout *lay, PyObject *props)
{
    Builder bd = {0};
    bd.lay = lay;
    int *top = NULL;
    size_t ntop = 0, captop = 0;
    int status = -1;
    PyObject *seq = PySequence_Fast(props, "props must be a sequence of primitives");
    if (!seq)
        return -1;
    bd.slot = PyMem_Malloc((size_t)lay->cells * sizeof(int));
    bd.frame = PyMem_Malloc((size_t)lay->cells * sizeof(int));
    if (!bd.slot || !bd.frame) {
        PyErr_NoMemory();
        goto done;
    }
    for (int i = 0; i < lay->cells; i++)
        bd.slot[i] = -1;
    for (Py_ssize_t j = 0; j < PySequence_Fast_GET_SIZE(seq); j++) {
        PyObject *spec = PySequence_Fast_GET_ITEM(seq, j);
        size_t before = ntop;
        if (PyTuple_Check(spec) && PyTuple_GET_SIZE(spec) == 3 &&
            PyUnicode_Check(PyTuple_GET_ITEM(spec, 0)) &&
            named(PyTuple_GET_ITEM(spec, 0), "relation")) {
            /* a relation: each pair a propagator of its own, with a frame of its own */
            if (read_relation(&bd, spec, &top, &ntop, &captop, 1) < 0)
                goto done;
            continue;
        }
        if (PyTuple_Check(spec) && PyTuple_GET_SIZE(spec) == 4 &&
            PyUnicode_Check(PyTuple_GET_ITEM(spec, 0)) &&
            named(PyTuple_GET_ITEM(spec, 0), "shift")) {
            if (read_shift(&bd, spec) < 0)
                goto done;
            continue;
        }
        if (read_prop(&bd, spec, &top, &ntop, &captop) < 0 || close_frame(&bd, top[before]) < 0)
            goto done;
    }
    if (ntop > (size_t)INT_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "too many primitives");
        goto done;
    }
    if (bit_counts(lay, top, &ntop) < 0)
        goto done;
    /* each cell's top-level propagators */
    lay->cell_start = PyMem_Calloc((size_t)lay->cells + 1, sizeof(int));
    size_t links = 0;
    for (size_t j = 0; j < ntop; j++)
        links += (size_t)lay->props[top[j]].nframe;
    lay->cell_props = PyMem_Malloc((links ? links : 1) * sizeof(int));
    if (!lay->cell_start || !lay->cell_props) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t j = 0; j < ntop; j++) {
        const Prop *p = lay->props + top[j];
        for (int k = 0; k < p->nframe; k++)
            lay->cell_start[lay->pint[p->frame + k] + 1]++;
    }
    for (int i = 0; i < lay->cells; i++)
        lay->cell_start[i + 1] += lay->cell_start[i];
    int *fill = bd.slot; /* reused: where each cell's list is filled up to */
    for (int i = 0; i < lay->cells; i++)
        fill[i] = lay->cell_start[i];
    for (size_t j = 0; j < ntop; j++) {
        const Prop *p = lay->props + top[j];
        for (int k = 0; k < p->nframe; k++)
            lay->cell_props[fill[lay->pint[p->frame + k]]++] = (int)j;
    }
    lay->top = top;
    lay->ntop = (int)ntop;
    top = NULL;
    status = 0;
done:
    PyMem_Free(top);
    PyMem_Free(bd.slot);
    PyMem_Free(bd.frame);
    Py_DECREF(seq);
    return status;
}

/* The most bytes of a layout's sees table: past it (sides above 16 with relations),
 * the units do not look through relations. */
#define SEES_BYTES ((size_t)4 << 20)

/* The most values a relation may rule out beside a digit for the units to look
 * through it (clones rule out all but one: measured, looking cost more than it
 * found). */
#define SEES_VALUES 2

/*
 * The sees table of the top-level pair relations (none: left NULL). A digit d must
 * go in one of a unit's places for it; a cell q that every place rules out e at (c
 * holding d forbids q holding e) cannot hold e, wherever d goes.
 */
static void sees_pair(Layout *lay, int a, int b, const uint32_t *fwd)
{
    const int n = lay->n, words = lay->words;
    const uint32_t full = (uint32_t)(((uint64_t)1 << n) - 1), *back = fwd + n;
    if (a == b)
        return;
    /* peers already keep d from d: FN(sees) looks through peers for d itself */
    const int peers = (lay->peers[(size_t)a * words + (b >> 6)] >> (b & 63)) & 1;
    for (int d = 0; d < n; d++) {
        /* a holding d rules out at b the values fwd does not allow; b, back */
        const int cell[2] = {a, b}, other[2] = {b, a};
        const uint32_t same = peers ? (uint32_t)1 << d : 0;
        uint32_t out[2] = {~fwd[d] & full & ~same, ~back[d] & full & ~same};
        for (int w = 0; w < 2; w++) /* a few values ruled out: beyond that it costs more */
            if (__builtin_popcount(out[w]) > SEES_VALUES)
                out[w] = 0;
        for (int w = 0; w < 2; w++) {
            lay->sees_e[(size_t)cell[w] * n + d] |= out[w];
            if (out[w])
                lay->sees_near[(size_t)cell[w] * words + (other[w] >> 6)] |=
                    (uint64_t)1 << (other[w] & 63);
            for (uint32_t es = out[w]; es; es &= es - 1) {
                const int e = __builtin_ctz(es);
                uint64_t *row = lay->sees + (((size_t)cell[w] * n + d) * n + e) * words;
                row[other[w] >> 6] |= (uint64_t)1 << (other[w] & 63);
            }
        }
    }
}

static int build_sees(Layout *lay)
{
    const int n = lay->n, words = lay->words;
    /* units of fewer than n cells besides the cages (pairs of a relation that only
     * says "differ"): the locked candidates already take a cage meeting a unit */
    int small_cages = 0;
    for (int c = 0; c < lay->ncages; c++) {
        int size = 0;
        for (int k = 0; k < words; k++)
            size += __builtin_popcountll(lay->cage_cells[(size_t)c * words + k]);
        small_cages += size < n;
    }
    lay->sees_on = lay->nunits - lay->full_units > small_cages || lay->dpeers;
    /* A table only for relations that rule out a few values beside some digit, over at
     * least as many pairs as cells (a whole grid's neighbours, not a few lines: on
     * modular and entropic lines, 40 to 70 pairs, looking cost a fifth more than it
     * saved). */
    size_t worth = 0;
    for (int j = 0; j < lay->ntop + lay->nshift; j++) {
        const int top = j < lay->ntop;
        if (top && lay->props[lay->top[j]].kind != K_RELATION)
            continue;
        const uint32_t *fwd = top ? lay->pmask + lay->props[lay->top[j]].a
                                  : lay->pmask + lay->shift_table[j - lay->ntop];
        int few = 0;
        for (int d = 0; d < 2 * n && !few; d++) {
            const int out = n - __builtin_popcount(fwd[d]);
            few = out > 0 && out <= SEES_VALUES + 1; /* + 1: d itself, for peers */
        }
        if (few && top)
            worth++;
        if (few && !top)
            for (int k = 0; k < words; k++)
                worth += (size_t)__builtin_popcountll(
                    lay->shift_bits[(size_t)(j - lay->ntop) * 2 * words + k]);
    }
    const size_t rows = (size_t)lay->cells * n * n;
    if (worth < (size_t)lay->cells || rows * words * sizeof(uint64_t) > SEES_BYTES)
        return 0;
    lay->sees_on = 1;
    lay->sees = PyMem_Calloc(rows * words, sizeof(uint64_t));
    lay->sees_e = PyMem_Calloc((size_t)lay->cells * n, sizeof(uint32_t));
    lay->sees_near = PyMem_Calloc((size_t)lay->cells * words, sizeof(uint64_t));
    if (!lay->sees || !lay->sees_e || !lay->sees_near)
        return -1;
    for (int j = 0; j < lay->ntop; j++) {
        const Prop *p = lay->props + lay->top[j];
        if (p->kind != K_RELATION)
            continue;
        const int *ix = lay->pint + p->idx, *frame = lay->pint + p->frame;
        sees_pair(lay, frame[ix[0]], frame[ix[1]], lay->pmask + p->a);
    }
    for (int k = 0; k < lay->nshift; k++) {
        const uint64_t *from = lay->shift_bits + (size_t)k * 2 * words;
        for (int w = 0; w < words; w++)
            for (uint64_t m = from[w]; m; m &= m - 1) {
                const int a = w * 64 + __builtin_ctzll(m);
                sees_pair(lay, a, a + lay->shift_delta[k], lay->pmask + lay->shift_table[k]);
            }
    }
    for (int u = 0; u < lay->full_units; u++) {
        const uint64_t *unit = lay->unit_bits + (size_t)u * words;
        uint64_t any = 0;
        for (int w = 0; w < words; w++)
            for (uint64_t m = unit[w]; m; m &= m - 1) {
                const uint64_t *near = lay->sees_near + (size_t)(w * 64 + __builtin_ctzll(m)) * words;
                for (int j = 0; j < words; j++)
                    any |= near[j] & unit[j];
            }
        if (any)
            lay->sees_inside[u >> 6] |= (uint64_t)1 << (u & 63);
    }
    return 0;
}

/*
 * Digit peers from (digits, pairs) items: digits a mask (bit d for digit d + 1), pairs
 * of cells that may not both hold one of those digits. A placement then takes the
 * digit out of its digit peers as it does out of its unit peers.
 */
static int read_digit_pairs(Layout *lay, PyObject *items)
{
    PyObject *seq = PySequence_Fast(items, "digit pairs must be a sequence");
    if (!seq)
        return -1;
    const int n = lay->n, cells = lay->cells, words = lay->words;
    int status = -1;
    if (PySequence_Fast_GET_SIZE(seq) == 0) {
        status = 0;
        goto done;
    }
    lay->dpeers = PyMem_Calloc((size_t)n * cells * words, sizeof(uint64_t));
    if (!lay->dpeers) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t j = 0; j < PySequence_Fast_GET_SIZE(seq); j++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, j), *pairs = NULL;
        unsigned long long digits;
        if (!PyArg_ParseTuple(item, "KO;a digit pair item is (digits, pairs)", &digits, &pairs))
            goto done;
        if (digits >> n) {
            PyErr_Format(PyExc_ValueError, "digit mask %llu has digits above %d", digits, n);
            goto done;
        }
        PyObject *ps = PySequence_Fast(pairs, "pairs must be a sequence");
        if (!ps)
            goto done;
        for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(ps); k++) {
            int a, b;
            if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(ps, k), "ii;a pair is two cells", &a,
                                  &b) ||
                a < 0 || b < 0 || a >= cells || b >= cells || a == b) {
                if (!PyErr_Occurred())
                    PyErr_Format(PyExc_ValueError, "a pair of two cells of 0 to %d", cells - 1);
                Py_DECREF(ps);
                goto done;
            }
            for (unsigned long long m = digits; m; m &= m - 1) {
                const int d = __builtin_ctzll(m);
                SET(lay->dpeers + ((size_t)d * cells + a) * words, b);
                SET(lay->dpeers + ((size_t)d * cells + b) * words, a);
            }
        }
        Py_DECREF(ps);
    }
    status = 0;
done:
    Py_DECREF(seq);
    return status;
}

/*
 * The unit part of the last layout built: its units, peers, units per cell and the
 * block of locked-candidate pairs and triads. A dataset of variant puzzles builds a
 * layout per puzzle over the same grid, where only the propagators differ; the next
 * layout with the same units copies these instead of working them out (a quarter of
 * a quadruple layout's instructions). Read and written with the GIL held.
 */
static struct {
    int n, words, nunits, full_units, npairs, ntriads, max_inter;
    uint64_t *unit_bits, *peers, *cell_units, *block;
} last_units;

/* The bytes of the pairs' and triads' block (pair_inter holds it; pair_start last). */
static size_t pair_block_bytes(const Layout *lay)
{
    const size_t pair_words = (size_t)lay->npairs * lay->words,
                 triad_words = (size_t)lay->ntriads * lay->words;
    return (2 * pair_words + 4 * triad_words) * sizeof(uint64_t) +
           ((size_t)lay->full_units + 1) * sizeof(int);
}

/* Point the pair and triad arrays into ``block`` (pair_block_bytes long). */
static void pair_block_place(Layout *lay, uint64_t *block)
{
    const size_t pair_words = (size_t)lay->npairs * lay->words,
                 triad_words = (size_t)lay->ntriads * lay->words;
    lay->pair_inter = block;
    lay->pair_rest = block + pair_words;
    lay->triad_cells = block + 2 * pair_words;
    lay->triad_around = lay->triad_cells + triad_words;
    lay->triad_a_out = lay->triad_around + triad_words;
    lay->triad_b_out = lay->triad_a_out + triad_words;
    lay->pair_start = (int *)(lay->triad_b_out + triad_words);
}

/* True when ``lay``'s units (read, nothing derived yet) are the last layout's. */
static int units_as_last(const Layout *lay)
{
    return last_units.unit_bits && last_units.n == lay->n && last_units.words == lay->words &&
           last_units.nunits == lay->nunits && last_units.full_units == lay->full_units &&
           memcmp(last_units.unit_bits, lay->unit_bits,
                  (size_t)lay->nunits * lay->words * sizeof(uint64_t)) == 0;
}

/* Keep ``lay``'s unit part (complete) as the last layout's; -1 when out of memory. */
static int keep_units(const Layout *lay, size_t block_bytes)
{
    const size_t unit_bytes = (size_t)lay->nunits * lay->words * sizeof(uint64_t),
                 peer_bytes = (size_t)lay->cells * lay->words * sizeof(uint64_t),
                 cell_bytes = (size_t)lay->cells * UNIT_WORDS * sizeof(uint64_t);
    PyMem_Free(last_units.unit_bits);
    PyMem_Free(last_units.peers);
    PyMem_Free(last_units.cell_units);
    PyMem_Free(last_units.block);
    memset(&last_units, 0, sizeof(last_units));
    uint64_t *units = PyMem_Malloc(unit_bytes ? unit_bytes : 1),
             *peers = PyMem_Malloc(peer_bytes), *cells = PyMem_Malloc(cell_bytes),
             *block = PyMem_Malloc(block_bytes);
    if (!units || !peers || !cells || !block) {
        PyMem_Free(units);
        PyMem_Free(peers);
        PyMem_Free(cells);
        PyMem_Free(block);
        return -1;
    }
    memcpy(units, lay->unit_bits, unit_bytes);
    memcpy(peers, lay->peers, peer_bytes);
    memcpy(cells, lay->cell_units, cell_bytes);
    memcpy(block, lay->pair_inter, block_bytes);
    last_units.n = lay->n;
    last_units.words = lay->words;
    last_units.nunits = lay->nunits;
    last_units.full_units = lay->full_units;
    last_units.npairs = lay->npairs;
    last_units.ntriads = lay->ntriads;
    last_units.max_inter = lay->max_inter;
    last_units.unit_bits = units;
    last_units.peers = peers;
    last_units.cell_units = cells;
    last_units.block = block;
    return 0;
}

static int Layout_init(LayoutObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"n",    "units",       "cages",      "props",
                             "band", "digit_pairs", "box_triads", NULL};
    int n, band = 1, box_triads = 1;
    PyObject *units, *cages = NULL, *props = NULL, *digit_pairs = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iO|OOpOp", kwlist, &n, &units, &cages, &props,
                                     &band, &digit_pairs, &box_triads))
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
    if (lay->full_units > 64 * UNIT_WORDS) {
        PyErr_Format(PyExc_ValueError, "at most %d units of %d cells, not %d",
                     64 * UNIT_WORDS, n, lay->full_units);
        layout_free(lay);
        return -1;
    }
    for (int u = 0; u < lay->full_units; u++)
        SET(lay->all_units, u);
    const int same = units_as_last(lay);
    lay->peers = PyMem_Malloc((size_t)cells * words * sizeof(uint64_t));
    lay->cell_units = PyMem_Calloc((size_t)cells * UNIT_WORDS, sizeof(uint64_t));
    if (!lay->peers || !lay->cell_units)
        goto nomem;
    if (same) {
        memcpy(lay->peers, last_units.peers, (size_t)cells * words * sizeof(uint64_t));
        memcpy(lay->cell_units, last_units.cell_units,
               (size_t)cells * UNIT_WORDS * sizeof(uint64_t));
        lay->npairs = last_units.npairs;
        lay->ntriads = last_units.ntriads;
        lay->max_inter = last_units.max_inter;
    } else {
        memset(lay->peers, 0, (size_t)cells * words * sizeof(uint64_t));
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
        for (int u = 0; u < lay->full_units; u++)
            for (int w = 0; w < words; w++)
                for (uint64_t m = lay->unit_bits[(size_t)u * words + w]; m; m &= m - 1) {
                    int i = w * 64 + __builtin_ctzll(m);
                    lay->cell_units[(size_t)i * UNIT_WORDS + (u >> 6)] |= (uint64_t)1
                                                                           << (u & 63);
                }
        /* Locked candidates: a full unit A and any other unit B sharing 2+ cells with
         * it. Counted first, then written into one block of the size they need (a 9x9
         * jigsaw dataset builds a layout per puzzle: one allocation, not seven, each 40
         * times too big). */
        scan_pairs(lay, 0);
    }
    const size_t block_bytes = pair_block_bytes(lay);
    uint64_t *block = PyMem_Malloc(block_bytes);
    if (!block)
        goto nomem;
    pair_block_place(lay, block);
    if (same)
        memcpy(block, last_units.block, block_bytes);
    else {
        scan_pairs(lay, 1);
        if (keep_units(lay, block_bytes) < 0)
            goto nomem;
    }
    if (find_box_triads(lay, box_triads) < 0)
        goto nomem;
    if (cages && cages != Py_None && read_cages(lay, cages) < 0) {
        layout_free(lay);
        return -1;
    }
    if (props && props != Py_None && read_props(lay, props) < 0) {
        layout_free(lay);
        return -1;
    }
    if (digit_pairs && digit_pairs != Py_None && read_digit_pairs(lay, digit_pairs) < 0) {
        layout_free(lay);
        return -1;
    }
    if (lay->nshift) {
        const int ww = lay->shift_way_words = (2 * lay->nshift + 63) / 64;
        lay->shift_ways = PyMem_Calloc((size_t)cells * ww, sizeof(uint64_t));
        if (!lay->shift_ways)
            goto nomem;
        for (int gw = 0; gw < 2 * lay->nshift; gw++) {
            const uint64_t *side = lay->shift_bits + (size_t)gw * words;
            for (int c = 0; c < cells; c++)
                if (side[c >> 6] >> (c & 63) & 1)
                    lay->shift_ways[(size_t)c * ww + (gw >> 6)] |= (uint64_t)1 << (gw & 63);
        }
    }
    if (build_sees(lay) < 0)
        goto nomem;
    if (band && band_fits(lay)) { /* classic 9x9 and nothing else: the band solver */
        band_tables();
        self->search = band_search;
    }
    return 0;
nomem:
    layout_free(lay);
    PyErr_NoMemory();
    return -1;
}

static void frames_free(Frame *f);

/* Frames for one search: a state, a branch cell and a digit set per depth, and what
 * the propagators beyond the units need. */
static int frames_alloc(const LayoutObject *self, Frame *f)
{
    const Layout *lay = &self->lay;
    size_t depth = (size_t)lay->cells + 2;
    memset(f, 0, sizeof(*f));
    f->states = PyMem_RawMalloc(depth * self->state_size);
    f->cells = PyMem_RawMalloc(depth * sizeof(int));
    f->todo = PyMem_RawMalloc(depth * sizeof(uint64_t));
    f->snap = PyMem_RawMalloc((size_t)lay->n * lay->words * sizeof(uint64_t));
    f->shift_snap = PyMem_RawMalloc((size_t)lay->n * lay->words * sizeof(uint64_t));
    f->cage_snap = PyMem_RawMalloc((size_t)lay->n * lay->words * sizeof(uint64_t));
    f->queue = PyMem_RawCalloc((size_t)lay->ntop / 64 + 1, sizeof(uint64_t));
    f->masks = PyMem_RawMalloc((lay->mask_scratch + 1) * sizeof(uint32_t));
    f->words = PyMem_RawMalloc((lay->word_scratch + 1) * sizeof(uint64_t));
    f->weight = PyMem_RawMalloc((size_t)lay->cells * sizeof(uint32_t));
    f->values = PyMem_RawMalloc((size_t)lay->cells * sizeof(uint32_t));
    if (!f->states || !f->cells || !f->todo || !f->snap || !f->shift_snap || !f->cage_snap ||
        !f->queue ||
        !f->masks || !f->words || !f->weight || !f->values) {
        frames_free(f);
        return -1;
    }
    return 0;
}

static void frames_free(Frame *f)
{
    PyMem_RawFree(f->states);
    PyMem_RawFree(f->cells);
    PyMem_RawFree(f->todo);
    PyMem_RawFree(f->snap);
    PyMem_RawFree(f->shift_snap);
    PyMem_RawFree(f->cage_snap);
    PyMem_RawFree(f->queue);
    PyMem_RawFree(f->masks);
    PyMem_RawFree(f->words);
    PyMem_RawFree(f->weight);
    PyMem_RawFree(f->values);
    memset(f, 0, sizeof(*f));
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
    lim->restart = 0;
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
"solve(cells, limit=2, time_limit=-1.0, budget=0, allowed=None, restart=0)\n--\n\n"
"Search one puzzle: cells is n*n bytes of values 0..n (0 empty); allowed, if given,\n"
"is n*n uint32 masks of the values each cell may take (bit v-1 for v). Stops at\n"
"limit solutions, after time_limit seconds (negative: none) or budget nodes (0:\n"
"none). restart: the nodes after which the search first starts again the other\n"
"way (0: 80,000,000 / cells). Returns (status, count, solutions, nodes, guesses):\n"
"solutions holds the first min(count, 2) solutions, n*n bytes each. Ctrl-C\n"
"interrupts it.");

static PyObject *Layout_solve(LayoutObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"cells", "limit", "time_limit", "budget", "allowed", "restart", NULL};
    Py_buffer cells, allowed = {0};
    long long limit = 2, budget = 0, restart = 0;
    double time_limit = -1.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "y*|LdLz*L", kwlist, &cells, &limit,
                                     &time_limit, &budget, &allowed, &restart))
        return NULL;
    PyObject *result = NULL;
    const Layout *lay = &self->lay;
    Limits lim;
    Frame frames = {0};
    if (read_limits(lay, &lim, limit, time_limit, budget) < 0)
        goto done;
    if (restart < 0) {
        PyErr_SetString(PyExc_ValueError, "restart must be 0 (the default) or more");
        goto done;
    }
    lim.restart = restart;
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

static PyObject *Layout_get_band(LayoutObject *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(self->search == band_search);
}

static PyGetSetDef Layout_getset[] = {
    {"band", (getter)Layout_get_band, NULL, "searched by the 9x9 band solver", NULL},
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
    .tp_doc = PyDoc_STR("Layout(n, units, cages=None, props=None, band=True, digit_pairs=None, "
                        "box_triads=True): the no-repeat units of a rule set, and its killer "
                        "cages (cells, digit sets as masks), as bit masks; band=False keeps "
                        "classic 9x9 on the generic search, box_triads=False the triads of a "
                        "9x9 grid's lines and boxes in the loop over every triad."),
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
        PyModule_AddIntConstant(m, "FULL_UNITS", 64 * UNIT_WORDS) < 0 ||
        PyModule_AddIntConstant(m, "MAX_PROP_CELLS", MAX_PROP_CELLS) < 0 ||
        PyModule_AddIntConstant(m, "MAX_TABLE_CELLS", MAX_TABLE_CELLS) < 0 ||
        PyModule_AddIntConstant(m, "MAX_STATES", MAX_STATES) < 0 ||
        PyModule_AddIntConstant(m, "MAX_LAYERS", MAX_LAYERS) < 0 ||
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
