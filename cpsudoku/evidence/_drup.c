/*
 * A forward DRAT checker in C, the same algorithm as dratify's Python checker
 * (dratify/proof.py: DRATChecker), step for step, offered to dratify through its
 * register_native seam (cpsudoku/evidence/files.py). Certificates are checked by
 * it where it was built; tests/test_drup.py runs it and dratify's Python checker
 * over every bundled certificate and corrupted ones and requires the same verdicts,
 * the same failing step and the same counters.
 *
 * check_proof(nvars, clauses, steps, check_rat, apply_deletions) takes internal
 * literals (2 * variable + sign, variables from 0), clauses as lists of them and
 * steps as (is_deletion, literals); it returns (ok, reason, steps, rup_steps,
 * rat_steps, deletions, ignored_deletions, resolvents_checked, failed_step,
 * reached_empty), the tuple dratify unpacks. check_text(nvars, clauses, text,
 * check_rat, apply_deletions) checks a proof given as DRAT text: parsed here, as
 * dratify's parse_proof reads it, without a Python object per step.
 *
 * The clause store: each clause a slice of one literal pool (its size, then its
 * literals in their stored order, the first two watched), watch lists per literal
 * (each watch the clause's place in the pool and a blocker literal), occurrence
 * lists per literal for RAT,
 * and a hash of each clause's sorted literal set for deletions.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { U = 0, T = 1, F = 2 };

typedef struct {
    int *data;
    size_t len, cap;
} Vec;

/* Room for ``need`` items of ``size`` bytes in *data: its capacity doubled from
 * ``first`` until it fits. -1 when memory runs out (*data is then left as it was). */
static int reserve(void **data, size_t *cap, size_t need, size_t size, size_t first)
{
    if (need <= *cap)
        return 0;
    size_t grown = *cap ? *cap : first;
    while (grown < need)
        grown *= 2;
    void *more = realloc(*data, grown * size);
    if (!more)
        return -1;
    *data = more;
    *cap = grown;
    return 0;
}

static int vec_push(Vec *v, int x)
{
    if (reserve((void **)&v->data, &v->cap, v->len + 1, sizeof(int), 4) < 0)
        return -1;
    v->data[v->len++] = x;
    return 0;
}

/* A watch: where a clause's literals start in the pool (its size just before them)
 * and a blocker, a literal of the clause; when the blocker is true the clause is
 * satisfied and propagation passes it without reading it. A deleted clause's two
 * watches go with it, so every watch is of a live clause. */
static int watch_push(Vec *v, int at, int blocker)
{
    if (reserve((void **)&v->data, &v->cap, v->len + 2, sizeof(int), 8) < 0)
        return -1;
    v->data[v->len++] = at;
    v->data[v->len++] = blocker;
    return 0;
}

static void watch_remove(Vec *v, int at) /* the watch of the clause at ``at`` */
{
    for (size_t i = 0; i < v->len; i += 2)
        if (v->data[i] == at) {
            memmove(v->data + i, v->data + i + 2, (v->len - i - 2) * sizeof(int));
            v->len -= 2;
            return;
        }
}

static void vec_remove(Vec *v, int x) /* the first x, order kept (as list.remove) */
{
    for (size_t i = 0; i < v->len; i++)
        if (v->data[i] == x) {
            memmove(v->data + i, v->data + i + 1, (v->len - i - 1) * sizeof(int));
            v->len--;
            return;
        }
}

typedef struct {
    size_t start; /* in lits */
    int size;
    int live;
    uint64_t key; /* hash of the sorted literal set */
} Clause;

typedef struct {
    int nlits; /* 2 * variables */
    uint8_t *val;
    Vec trail;
    Vec *watches; /* watches[p]: (clause, blocker) to visit when p becomes true */
    Vec *occ;     /* occ[l]: clauses holding l */
    Vec units;
    Clause *clauses;
    size_t nclauses, capclauses;
    int *lits;
    size_t nl, capl;
    /* deletion index: open addressing on key, each slot a list of handles */
    uint64_t *hkeys;
    Vec *hvals;
    size_t hcap, hused;
    int root_conflict;
    long long steps, rup, rat, dels, ignored, resolvents, failed_step;
    int reached_empty;
    int *scratch; /* a step's literals, deduplicated */
    size_t scap;
    uint8_t *mark; /* per literal, for RAT's clause set */
} Checker;

static int grow(Checker *c, int need_lits)
{
    if (need_lits <= c->nlits)
        return 0;
    int n = c->nlits ? c->nlits : 2;
    while (n < need_lits)
        n *= 2;
    uint8_t *val = realloc(c->val, (size_t)n);
    uint8_t *mark = realloc(c->mark, (size_t)n);
    Vec *w = realloc(c->watches, (size_t)n * sizeof(Vec));
    Vec *o = realloc(c->occ, (size_t)n * sizeof(Vec));
    if (val)
        c->val = val;
    if (mark)
        c->mark = mark;
    if (w)
        c->watches = w;
    if (o)
        c->occ = o;
    if (!val || !mark || !w || !o)
        return -1;
    memset(c->val + c->nlits, U, (size_t)(n - c->nlits));
    memset(c->mark + c->nlits, 0, (size_t)(n - c->nlits));
    memset(c->watches + c->nlits, 0, (size_t)(n - c->nlits) * sizeof(Vec));
    memset(c->occ + c->nlits, 0, (size_t)(n - c->nlits) * sizeof(Vec));
    c->nlits = n;
    return 0;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The key of a literal set: a hash of its sorted, distinct literals. */
static uint64_t key_of(const int *lits, int size, int *tmp)
{
    memcpy(tmp, lits, (size_t)size * sizeof(int));
    qsort(tmp, (size_t)size, sizeof(int), cmp_int);
    uint64_t h = 1469598103934665603ULL;
    int last = -1;
    for (int i = 0; i < size; i++) {
        if (tmp[i] == last)
            continue;
        last = tmp[i];
        h = (h ^ (uint64_t)(unsigned)tmp[i]) * 1099511628211ULL;
        h ^= h >> 29;
    }
    return h | 1; /* 0 marks an empty slot */
}

/* Whether two clauses hold the same literal set. */
static int same_set(const int *a, int na, const int *b, int nb, int *ta, int *tb)
{
    memcpy(ta, a, (size_t)na * sizeof(int));
    memcpy(tb, b, (size_t)nb * sizeof(int));
    qsort(ta, (size_t)na, sizeof(int), cmp_int);
    qsort(tb, (size_t)nb, sizeof(int), cmp_int);
    int i = 0, j = 0;
    while (i < na || j < nb) {
        if (i < na && i > 0 && ta[i] == ta[i - 1]) {
            i++;
            continue;
        }
        if (j < nb && j > 0 && tb[j] == tb[j - 1]) {
            j++;
            continue;
        }
        if (i == na || j == nb || ta[i] != tb[j])
            return 0;
        i++;
        j++;
    }
    return 1;
}

static Vec *slot_of(Checker *c, uint64_t key, int create)
{
    if (create && 2 * (c->hused + 1) > c->hcap) {
        size_t cap = c->hcap ? 2 * c->hcap : 1024;
        uint64_t *keys = calloc(cap, sizeof(uint64_t));
        Vec *vals = calloc(cap, sizeof(Vec));
        if (!keys || !vals) {
            free(keys);
            free(vals);
            return NULL;
        }
        for (size_t i = 0; i < c->hcap; i++)
            if (c->hkeys[i]) {
                size_t j = (size_t)(c->hkeys[i] * 0x9E3779B97F4A7C15ULL >> 7) & (cap - 1);
                while (keys[j])
                    j = (j + 1) & (cap - 1);
                keys[j] = c->hkeys[i];
                vals[j] = c->hvals[i];
            }
        free(c->hkeys);
        free(c->hvals);
        c->hkeys = keys;
        c->hvals = vals;
        c->hcap = cap;
    }
    if (!c->hcap)
        return NULL;
    size_t j = (size_t)(key * 0x9E3779B97F4A7C15ULL >> 7) & (c->hcap - 1);
    while (c->hkeys[j] && c->hkeys[j] != key)
        j = (j + 1) & (c->hcap - 1);
    if (!c->hkeys[j]) {
        if (!create)
            return NULL;
        c->hkeys[j] = key;
        c->hused++;
    }
    return &c->hvals[j];
}

/* Three scratch rows of at least ``need`` literals each. */
static int ensure_scratch(Checker *c, size_t need)
{
    return reserve((void **)&c->scratch, &c->scap, need, 3 * sizeof(int), 64);
}

/* Room in the per-literal arrays for every literal of lits, and scratch for size + 1
 * of them: 0, or -1 when memory runs out. */
static int make_room(Checker *c, const int *lits, int size)
{
    int top = 0;
    for (int i = 0; i < size; i++)
        if (lits[i] + 2 > top)
            top = lits[i] + 2;
    return grow(c, top) < 0 || ensure_scratch(c, (size_t)size + 1) < 0 ? -1 : 0;
}

/* Store a clause in the given literal order (the first two watched): its handle. */
static int insert(Checker *c, const int *lits, int size)
{
    if (make_room(c, lits, size) < 0)
        return -1;
    if (reserve((void **)&c->clauses, &c->capclauses, c->nclauses + 1, sizeof(Clause), 1024) < 0 ||
        reserve((void **)&c->lits, &c->capl, c->nl + (size_t)size + 1, sizeof(int), 4096) < 0 ||
        c->nl + (size_t)size + 1 > INT_MAX)
        return -1;
    const int h = (int)c->nclauses++;
    Clause *cl = &c->clauses[h];
    c->lits[c->nl] = size; /* the size just before the literals, for propagation */
    cl->start = c->nl + 1;
    cl->size = size;
    cl->live = 1;
    memcpy(c->lits + cl->start, lits, (size_t)size * sizeof(int));
    c->nl += (size_t)size + 1;
    cl->key = key_of(lits, size, c->scratch);
    Vec *slot = slot_of(c, cl->key, 1);
    if (!slot || vec_push(slot, h) < 0)
        return -1;
    if (size >= 2) {
        const int at = (int)cl->start;
        if (watch_push(&c->watches[lits[0] ^ 1], at, lits[1]) < 0 ||
            watch_push(&c->watches[lits[1] ^ 1], at, lits[0]) < 0)
            return -1;
    } else if (size == 1 && vec_push(&c->units, lits[0]) < 0) {
        return -1;
    }
    for (int i = 0; i < size; i++)
        if (vec_push(&c->occ[lits[i]], h) < 0)
            return -1;
    return h;
}

/* Delete the last live clause of this literal set: 1, or 0 when there is none. */
static int erase(Checker *c, const int *lits, int size)
{
    uint64_t key = key_of(lits, size, c->scratch);
    Vec *slot = slot_of(c, key, 0);
    if (!slot)
        return 0;
    for (size_t k = slot->len; k-- > 0;) {
        const int h = slot->data[k];
        Clause *cl = &c->clauses[h];
        if (!same_set(c->lits + cl->start, cl->size, lits, size, c->scratch + c->scap,
                      c->scratch + 2 * c->scap))
            continue;
        memmove(slot->data + k, slot->data + k + 1, (slot->len - k - 1) * sizeof(int));
        slot->len--;
        const int *s = c->lits + cl->start;
        if (cl->size >= 2) {
            watch_remove(&c->watches[s[0] ^ 1], (int)cl->start);
            watch_remove(&c->watches[s[1] ^ 1], (int)cl->start);
        }
        cl->live = 0;
        for (int i = 0; i < cl->size; i++)
            vec_remove(&c->occ[s[i]], h);
        return 1;
    }
    return 0;
}

static int assign(Checker *c, int lit)
{
    uint8_t v = c->val[lit];
    if (v == T)
        return 1;
    if (v == F)
        return 0;
    c->val[lit] = T;
    c->val[lit ^ 1] = F;
    return vec_push(&c->trail, lit) < 0 ? -1 : 1;
}

static void backtrack(Checker *c, size_t size)
{
    for (size_t i = c->trail.len; i-- > size;) {
        int lit = c->trail.data[i];
        c->val[lit] = U;
        c->val[lit ^ 1] = U;
    }
    c->trail.len = size;
}

/* Propagate from qhead: 1 on a conflict, 0 without, -1 out of memory. */
static int propagate(Checker *c, size_t qhead)
{
    uint8_t *val = c->val;
    while (qhead < c->trail.len) {
        const int p = c->trail.data[qhead++];
        const int false_lit = p ^ 1;
        Vec *ws = &c->watches[p];
        size_t i = 0, j = 0;
        int conflict = 0;
        while (i < ws->len) {
            const int at = ws->data[i], blocker = ws->data[i + 1];
            if (val[blocker] == T) {
                ws->data[j++] = at;
                ws->data[j++] = blocker;
                i += 2;
                continue;
            }
            int *lits = c->lits + at;
            const int size = lits[-1];
            if (lits[0] == false_lit) {
                lits[0] = lits[1];
                lits[1] = false_lit;
            }
            const int first = lits[0];
            if (val[first] == T) {
                ws->data[j++] = at;
                ws->data[j++] = first;
                i += 2;
                continue;
            }
            int found = 0;
            for (int k = 2; k < size; k++) {
                const int lk = lits[k];
                if (val[lk] != F) {
                    lits[1] = lk;
                    lits[k] = false_lit;
                    if (watch_push(&c->watches[lk ^ 1], at, first) < 0)
                        return -1;
                    ws = &c->watches[p]; /* lk ^ 1 != p, but keep it plain */
                    found = 1;
                    break;
                }
            }
            i += 2;
            if (found)
                continue;
            ws->data[j++] = at;
            ws->data[j++] = first;
            if (val[first] == F) {
                conflict = 1;
                while (i < ws->len)
                    ws->data[j++] = ws->data[i++];
                break;
            }
            if (assign(c, first) < 0)
                return -1;
        }
        ws->len = j;
        if (conflict)
            return 1;
    }
    return 0;
}

static int propagate_root(Checker *c)
{
    for (size_t k = 0; k < c->units.len; k++) {
        int r = assign(c, c->units.data[k]);
        if (r < 0)
            return -1;
        if (!r)
            return 1;
    }
    return propagate(c, 0);
}

/* 1 when negating lits and propagating conflicts, 0 if not, -1 out of memory. */
static int is_rup(Checker *c, const int *lits, int size)
{
    if (c->root_conflict)
        return 1;
    const size_t mark = c->trail.len;
    int conflict = 0;
    for (int i = 0; i < size && !conflict; i++) {
        if (c->val[lits[i]] == T) {
            conflict = 1;
            break;
        }
        int r = assign(c, lits[i] ^ 1);
        if (r < 0)
            return -1;
        if (!r)
            conflict = 1;
    }
    if (!conflict) {
        int r = propagate(c, mark);
        if (r < 0)
            return -1;
        conflict = r;
    }
    backtrack(c, mark);
    return conflict;
}

/* RAT on the first literal: every resolvent with a clause holding its negation is RUP. */
static int is_rat(Checker *c, const int *lits, int size)
{
    if (!size)
        return 0;
    const int neg = lits[0] ^ 1;
    if (neg >= c->nlits)
        return 1;
    for (int i = 0; i < size; i++)
        c->mark[lits[i]] = 1;
    /* a copy of the occurrence list: resolvent checks do not change it, but be plain */
    Vec hs = {0};
    int result = 1;
    for (size_t k = 0; k < c->occ[neg].len; k++)
        if (vec_push(&hs, c->occ[neg].data[k]) < 0)
            result = -1;
    Vec res = {0};
    for (size_t k = 0; result == 1 && k < hs.len; k++) {
        const Clause *cl = &c->clauses[hs.data[k]];
        if (!cl->live)
            continue;
        res.len = 0;
        for (int i = 0; i < size && result == 1; i++)
            if (vec_push(&res, lits[i]) < 0)
                result = -1;
        int tautology = 0;
        const int *d = c->lits + cl->start;
        for (int i = 0; i < cl->size && result == 1; i++) {
            const int l = d[i];
            if (l == neg)
                continue;
            if (c->mark[l ^ 1]) {
                tautology = 1;
                break;
            }
            if (!c->mark[l] && vec_push(&res, l) < 0)
                result = -1;
        }
        if (result != 1 || tautology)
            continue;
        c->resolvents++;
        int r = is_rup(c, res.data, (int)res.len);
        if (r < 0)
            result = -1;
        else if (!r)
            result = 0;
    }
    for (int i = 0; i < size; i++)
        c->mark[lits[i]] = 0;
    free(hs.data);
    free(res.data);
    return result;
}

/* A verified lemma stored, the root assignment brought up to date (dratify's
 * _add_lemma: watch literals that are not false; unit or falsified at the root: act). */
static int add_lemma(Checker *c, const int *lits, int size)
{
    for (int i = 0; i < size; i++)
        if (c->val[lits[i]] == T)
            return insert(c, lits, size) < 0 ? -1 : 0;
    if (ensure_scratch(c, (size_t)size + 1) < 0)
        return -1;
    int *stored = malloc(((size_t)size + 1) * sizeof(int));
    if (!stored)
        return -1;
    int nfree = 0, k = 0;
    for (int i = 0; i < size; i++)
        if (c->val[lits[i]] != F)
            stored[k++] = lits[i];
    nfree = k;
    for (int i = 0; i < size; i++)
        if (c->val[lits[i]] == F)
            stored[k++] = lits[i];
    const int first = nfree ? stored[0] : -1;
    int r = insert(c, stored, size);
    free(stored);
    if (r < 0)
        return -1;
    if (nfree >= 2)
        return 0;
    if (!nfree) {
        c->root_conflict = 1;
        return 0;
    }
    r = assign(c, first);
    if (r < 0)
        return -1;
    if (r) {
        r = propagate(c, c->trail.len - 1);
        if (r < 0)
            return -1;
        if (r)
            c->root_conflict = 1;
    } else {
        c->root_conflict = 1;
    }
    return 0;
}

static void checker_free(Checker *c)
{
    for (int i = 0; i < c->nlits; i++) {
        free(c->watches[i].data);
        free(c->occ[i].data);
    }
    for (size_t i = 0; i < c->hcap; i++)
        free(c->hvals[i].data);
    free(c->watches);
    free(c->occ);
    free(c->val);
    free(c->mark);
    free(c->trail.data);
    free(c->units.data);
    free(c->clauses);
    free(c->lits);
    free(c->hkeys);
    free(c->hvals);
    free(c->scratch);
}

/* A Python sequence of ints as C ints in buf (grown as needed): the count, or -1. */
static Py_ssize_t read_lits(PyObject *obj, int **buf, size_t *cap)
{
    PyObject *seq = PySequence_Fast(obj, "literals must be a sequence");
    if (!seq)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (reserve((void **)buf, cap, (size_t)n + 1, sizeof(int), 64) < 0) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        if (v < 0 || v > (1L << 29)) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "a literal is out of range");
            return -1;
        }
        (*buf)[i] = (int)v;
    }
    Py_DECREF(seq);
    return n;
}

/* Remove repeated literals, the first of each kept (dratify: a clause is a set). */
static int dedup(Checker *c, int *lits, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (c->mark[lits[i]])
            continue;
        c->mark[lits[i]] = 1;
        lits[k++] = lits[i];
    }
    for (int i = 0; i < k; i++)
        c->mark[lits[i]] = 0;
    return k;
}

/* The input formula into the store, then root propagation: 0, or -1 with a Python
 * error set. */
static int load_formula(Checker *c, PyObject *clauses, int **buf, size_t *cap)
{
    PyObject *cs = PySequence_Fast(clauses, "clauses must be a sequence");
    if (!cs)
        return -1;
    if (grow(c, 2) < 0)
        goto nomem;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(cs); i++) {
        Py_ssize_t n = read_lits(PySequence_Fast_GET_ITEM(cs, i), buf, cap);
        if (n < 0) {
            Py_DECREF(cs);
            return -1;
        }
        if (n == 0)
            c->root_conflict = 1;
        if (insert(c, *buf, (int)n) < 0)
            goto nomem;
    }
    Py_DECREF(cs);
    if (!c->root_conflict) {
        int r = propagate_root(c);
        if (r < 0) {
            PyErr_NoMemory();
            return -1;
        }
        c->root_conflict = r;
    }
    return 0;
nomem:
    Py_DECREF(cs);
    PyErr_NoMemory();
    return -1;
}

/* One proof step (its literals in buf, n of them; buf has room for n + 1): 0 to go
 * on, 1 when the check ends here (*reason and *ok set), -1 out of memory. */
static int check_step(Checker *c, int deletion, int *buf, int n, int check_rat,
                      int apply_deletions, const char **reason, int *ok)
{
    if (make_room(c, buf, n) < 0)
        return -1;
    int size = dedup(c, buf, n);
    c->steps++;
    if (deletion) {
        if (size <= 1) {
            c->ignored++;
        } else if (apply_deletions) {
            if (erase(c, buf, size))
                c->dels++;
            else
                c->ignored++;
        }
        return 0;
    }
    int r = is_rup(c, buf, size);
    if (r < 0)
        return -1;
    if (r) {
        c->rup++;
    } else {
        r = check_rat ? is_rat(c, buf, size) : 0;
        if (r < 0)
            return -1;
        if (!r) {
            c->failed_step = c->steps;
            *reason = check_rat ? "clause is neither RUP nor RAT with respect to the "
                                  "clauses available at this point"
                                : "clause is not RUP (RAT checking disabled)";
            *ok = 0;
            return 1;
        }
        c->rat++;
    }
    if (!size) {
        c->reached_empty = 1;
        *reason = "empty clause derived and every step verified";
        *ok = 1;
        return 1;
    }
    return add_lemma(c, buf, size) < 0 ? -1 : 0;
}

/* The verdict when the formula alone is refuted at the root: 1 (and *reason, *ok
 * set), else 0. */
static int refuted_at_root(Checker *c, const char **reason, int *ok)
{
    if (!c->root_conflict)
        return 0;
    *ok = 1;
    c->reached_empty = 1;
    *reason = "input formula is refuted by unit propagation alone";
    return 1;
}

/* dratify's result tuple (with the failing step's literals, or None, at the end
 * when ``failed`` is given). */
static PyObject *verdict(Checker *c, int ok, const char *reason, PyObject *failed)
{
    if (!reason)
        reason = "every step verified, but the proof never derives the empty clause";
    if (failed)
        return Py_BuildValue("(OsLLLLLLLOO)", ok ? Py_True : Py_False, reason, c->steps, c->rup,
                             c->rat, c->dels, c->ignored, c->resolvents,
                             c->failed_step ? c->failed_step : -1LL,
                             c->reached_empty ? Py_True : Py_False, failed);
    return Py_BuildValue("(OsLLLLLLLO)", ok ? Py_True : Py_False, reason, c->steps, c->rup,
                         c->rat, c->dels, c->ignored, c->resolvents,
                         c->failed_step ? c->failed_step : -1LL,
                         c->reached_empty ? Py_True : Py_False);
}

static PyObject *py_check_proof(PyObject *self, PyObject *args)
{
    (void)self;
    long long nvars; /* unused: the store grows with the literals it meets, as dratify's does */
    PyObject *clauses, *steps;
    int check_rat, apply_deletions;
    if (!PyArg_ParseTuple(args, "LOOpp", &nvars, &clauses, &steps, &check_rat, &apply_deletions))
        return NULL;
    Checker c = {0};
    int *buf = NULL;
    size_t cap = 0;
    const char *reason = NULL;
    int ok = 0;
    PyObject *out = NULL;
    PyObject *ss = PySequence_Fast(steps, "steps must be a sequence");
    if (!ss || load_formula(&c, clauses, &buf, &cap) < 0)
        goto end;
    if (refuted_at_root(&c, &reason, &ok))
        goto done;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(ss); i++) {
        PyObject *step = PySequence_Fast_GET_ITEM(ss, i);
        if (!PyTuple_Check(step) || PyTuple_GET_SIZE(step) != 2) {
            PyErr_SetString(PyExc_TypeError, "a step is (is_deletion, literals)");
            goto end;
        }
        int deletion = PyObject_IsTrue(PyTuple_GET_ITEM(step, 0));
        if (deletion < 0)
            goto end;
        Py_ssize_t n = read_lits(PyTuple_GET_ITEM(step, 1), &buf, &cap);
        if (n < 0)
            goto end;
        int r = check_step(&c, deletion, buf, (int)n, check_rat, apply_deletions, &reason, &ok);
        if (r < 0) {
            PyErr_NoMemory();
            goto end;
        }
        if (r)
            break;
    }
done:
    out = verdict(&c, ok, reason, NULL);
end:
    Py_XDECREF(ss);
    checker_free(&c);
    free(buf);
    return out;
}

/* A proof text parsed: per step its kind (1 for a deletion), its literal count, then
 * its literals, one after another. */
typedef struct {
    int *data;
    size_t len, cap;
} Steps;

static int steps_push(Steps *s, int x)
{
    if (reserve((void **)&s->data, &s->cap, s->len + 1, sizeof(int), 1024) < 0)
        return -1;
    s->data[s->len++] = x;
    return 0;
}

/* Parse a DRAT proof text as dratify's parse_proof reads it, and bound its variables
 * as dratify's _validate_steps does (at most ``limit``), for the texts whose reading
 * is certain: clause lines of ASCII digits, signs, ``d`` and blanks, comment lines,
 * ``\n`` or ``\r\n`` line ends. 1 when parsed, 0 for any other text (dratify's own
 * parser then reads it, or refuses it with its message), -1 out of memory. */
static int parse_text(const char *s, Py_ssize_t len, long long limit, Steps *out)
{
    const char *p = s, *e = s + len;
    int opened = 0;      /* a clause has begun */
    size_t head = 0;     /* the open step's header in out */
    int deletion = 0;
    while (p < e) {
        /* one line: leading blanks, then a comment, a blank line, or tokens */
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        if (p < e && *p == 'c') {
            for (; p < e && *p != '\n'; p++) {
                unsigned char ch = (unsigned char)*p;
                if (ch >= 0x80 || (ch < 0x20 && ch != '\t' && !(ch == '\r' && p + 1 < e && p[1] == '\n')))
                    return 0; /* a line break Python's splitlines sees and we do not */
            }
            continue;
        }
        while (p < e && *p != '\n') {
            char ch = *p;
            if (ch == ' ' || ch == '\t') {
                p++;
                continue;
            }
            if (ch == '\r') {
                if (p + 1 < e && p[1] == '\n') {
                    p++;
                    continue;
                }
                return 0;
            }
            /* a token: [d][-]digits, or d alone */
            if (ch == 'd') {
                if (opened)
                    return 0; /* a deletion inside a clause: dratify names it */
                deletion = 1;
                opened = 1;
                head = out->len;
                if (steps_push(out, 1) < 0 || steps_push(out, 0) < 0)
                    return -1;
                p++;
                if (p == e || *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
                    continue;
                ch = *p;
            }
            int negative = 0;
            if (ch == '-') {
                negative = 1;
                p++;
            }
            long long v = 0;
            int digits = 0;
            while (p < e && *p >= '0' && *p <= '9') {
                if (++digits > 12)
                    return 0;
                v = v * 10 + (*p - '0');
                p++;
            }
            if (!digits || (p < e && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r'))
                return 0; /* not an int: dratify names the token */
            if (v == 0) {
                if (!opened) {
                    head = out->len;
                    if (steps_push(out, deletion) < 0 || steps_push(out, 0) < 0)
                        return -1;
                }
                opened = 0;
                deletion = 0;
                continue;
            }
            if (v > limit || v > (1 << 28))
                return 0; /* beyond the bound: dratify names the literal */
            if (!opened) {
                opened = 1;
                head = out->len;
                if (steps_push(out, 0) < 0 || steps_push(out, 0) < 0)
                    return -1;
            }
            if (steps_push(out, (int)(2 * (v - 1) + negative)) < 0)
                return -1;
            out->data[head + 1]++;
        }
        if (p < e)
            p++; /* the '\n' */
    }
    return opened ? 0 : 1; /* a clause left open: dratify names its line */
}

static PyObject *py_check_text(PyObject *self, PyObject *args)
{
    (void)self;
    long long nvars;
    PyObject *clauses, *text;
    int check_rat, apply_deletions;
    if (!PyArg_ParseTuple(args, "LOUpp", &nvars, &clauses, &text, &check_rat, &apply_deletions))
        return NULL;
    if (PyUnicode_READY(text) < 0)
        return NULL;
    if (!PyUnicode_IS_ASCII(text)) /* characters and bytes would count apart */
        Py_RETURN_NONE;
    Py_ssize_t len;
    const char *s = PyUnicode_AsUTF8AndSize(text, &len);
    if (!s)
        return NULL;
    Steps steps = {0};
    int parsed = parse_text(s, len, nvars + (long long)len, &steps);
    if (parsed <= 0) {
        free(steps.data);
        if (parsed < 0)
            return PyErr_NoMemory();
        Py_RETURN_NONE;
    }
    Checker c = {0};
    int *buf = NULL;
    size_t cap = 0;
    const char *reason = NULL;
    int ok = 0;
    PyObject *out = NULL, *failed = Py_None;
    Py_INCREF(failed);
    if (load_formula(&c, clauses, &buf, &cap) < 0)
        goto end;
    if (!refuted_at_root(&c, &reason, &ok)) {
        for (size_t at = 0; at < steps.len;) {
            int deletion = steps.data[at], n = steps.data[at + 1];
            if (reserve((void **)&buf, &cap, (size_t)n + 1, sizeof(int), 64) < 0) {
                PyErr_NoMemory();
                goto end;
            }
            memcpy(buf, steps.data + at + 2, (size_t)n * sizeof(int));
            int r = check_step(&c, deletion, buf, n, check_rat, apply_deletions, &reason, &ok);
            if (r < 0) {
                PyErr_NoMemory();
                goto end;
            }
            if (r) {
                if (!ok) { /* the failing step as written, before deduplication */
                    Py_DECREF(failed);
                    failed = PyTuple_New(n);
                    if (!failed)
                        goto end;
                    for (int k = 0; k < n; k++)
                        PyTuple_SET_ITEM(failed, k, PyLong_FromLong(steps.data[at + 2 + k]));
                }
                break;
            }
            at += 2 + (size_t)n;
        }
    }
    out = verdict(&c, ok, reason, failed);
end:
    Py_XDECREF(failed);
    checker_free(&c);
    free(buf);
    free(steps.data);
    return out;
}

static PyMethodDef methods[] = {
    {"check_proof", py_check_proof, METH_VARARGS,
     "check_proof(nvars, clauses, steps, check_rat, apply_deletions): dratify's native "
     "checker interface (internal literals; steps as (is_deletion, literals))."},
    {"check_text", py_check_text, METH_VARARGS,
     "check_text(nvars, clauses, text, check_rat, apply_deletions): the same check of a "
     "proof given as DRAT text, parsed here as dratify parses it; the result tuple with "
     "the failing step's literals (or None) at the end, or None for a text whose "
     "reading only dratify's parser may decide."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_drup",
                                    "A forward DRAT checker, dratify's algorithm in C.", -1,
                                    methods};

PyMODINIT_FUNC PyInit__drup(void)
{
    return PyModule_Create(&module);
}
