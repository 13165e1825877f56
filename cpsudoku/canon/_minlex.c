/*
 * cpsudoku.canon._minlex: the exact minlex search of cpsudoku/canon/minlex.py in C.
 *
 * The search is the same, step for step (the tests compare the two): every first row
 * (of the grid and, for square boxes, of its transpose), the stacks as the first row is
 * written, then the other rows one at a time, with columns decided only when a given
 * tells them apart (deferred columns); each written cell is compared with the best
 * string so far (larger prunes, smaller starts a new best), and every leaf equal to
 * the final best counts its automorphisms. Twin lines (rows, bands, columns or stacks
 * that a swap with a relabelling maps onto each other, see twin_classes) are searched
 * once, the first of a class standing for the class: the count is multiplied instead.
 *
 * Inputs are checked here (shape, values), so no input can read or write out of bounds.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MAX_SIDE 16
#define MAX_CELLS (MAX_SIDE * MAX_SIDE)
#define UNKNOWN 255
#define DEFERRED 255
#define SNAPSHOTS 4096 /* first-row states held before they are sorted and searched */
#define BAND_MATCHES 64 /* row correspondences tried per pair of bands (twin_classes) */
#define TWIN_ROWS 1     /* Search.twins: some rows or bands have twins */
#define TWIN_COLS 2     /* some columns have twins */

/* The state after a first row: what search_rows(1) needs, and the order key. */
typedef struct {
    uint8_t t, r0;
    int next;
    uint32_t seq, first_row; /* first_row: Search.first_row when it was held */
    uint8_t cols[MAX_SIDE], label[MAX_SIDE + 1], key[MAX_SIDE];
    uint32_t pool[MAX_SIDE];
    uint64_t mult;
} Snapshot;

typedef struct {
    int n, br, bc, ngrids, t;
    const uint8_t *grid;
    uint8_t g[2][MAX_CELLS];
    uint8_t best[MAX_CELLS];
    uint8_t label[MAX_SIDE + 1];
    int next;
    uint8_t rows[MAX_SIDE], cols[MAX_SIDE];
    uint32_t row_used, band_used, stack_used;
    uint32_t pool[MAX_SIDE]; /* the deferred source columns of each output stack */
    /* Twin classes of each grid searched, as bit masks (see twin_classes): of each
       row, band, column and stack. */
    uint32_t row_cls[2][MAX_SIDE], band_cls[2][MAX_SIDE];
    uint32_t col_cls[2][MAX_SIDE], stack_cls[2][MAX_SIDE];
    uint64_t mult; /* the transformations the current branch stands for (twins) */
    /* Which lines have twins at all, in each grid (TWIN_ROWS, TWIN_COLS): the
       searches without any skip the class lookups (the ordinary path). */
    uint8_t twin_kinds[2], twins;
    uint32_t row_mask[2][MAX_SIDE]; /* the given cells of each row, in each grid */
    int ndigits;                    /* the digits present in the grid */
    uint64_t count;
    int found_t;
    uint8_t found_rows[MAX_SIDE], found_cols[MAX_SIDE], found_label[MAX_SIDE + 1];
    int nsnaps;
    uint32_t seq;
    uint32_t first_row; /* times the best first row went down (only on repeated digits) */
    Snapshot snaps[SNAPSHOTS];
} Search;

/* Write the label of `value` at `pos`: -1 pruned, else the labels added (0 or 1). */
static inline int write_cell(Search *s, int pos, int value)
{
    int lab = s->label[value], added = 0;
    if (value && !lab) {
        lab = s->next;
        added = 1;
    }
    int b = s->best[pos];
    if (lab > b)
        return -1;
    if (lab < b) {
        s->first_row += pos < s->n;
        s->best[pos] = (uint8_t)lab;
        int cells = s->n * s->n;
        for (int k = pos + 1; k < cells && s->best[k] != UNKNOWN; k++)
            s->best[k] = UNKNOWN;
        s->count = 0;
    }
    if (added) {
        s->label[value] = (uint8_t)lab;
        s->next++;
    }
    return added;
}

static void start_row(Search *s, int i);

static const uint64_t FACTORIAL[] = {1, 1, 2, 6, 24, 120, 720, 5040, 40320, 362880, 3628800,
                                     39916800, 479001600, 6227020800ull, 87178291200ull,
                                     1307674368000ull, 20922789888000ull};

/* Every string written equals the best: count its transformations (the deferred
   columns of each stack, all empty, in any order; `ties` row orders, see finish). */
static void leaf(Search *s, uint64_t ties)
{
    const uint64_t *fact = FACTORIAL;
    int n = s->n, bc = s->bc, nstacks = n / bc;
    uint64_t ways = s->mult * ties;
    for (int st = 0; st < nstacks; st++)
        ways *= fact[__builtin_popcount(s->pool[st])];
    s->count += ways;
    if (s->count == ways) {
        s->found_t = s->t;
        memcpy(s->found_rows, s->rows, n);
        for (int st = 0; st < nstacks; st++) {
            uint32_t free = s->pool[st];
            for (int j = st * bc; j < st * bc + bc; j++) {
                if (s->cols[j] != DEFERRED) {
                    s->found_cols[j] = s->cols[j];
                } else {
                    s->found_cols[j] = (uint8_t)__builtin_ctz(free);
                    free &= free - 1;
                }
            }
        }
        memcpy(s->found_label, s->label, n + 1);
    }
}

/* memcmp of two rows of labels zero-padded to MAX_SIDE (16) bytes, a word at a time. */
static inline int compare_text(const uint8_t *a, const uint8_t *b)
{
    for (int k = 0; k < MAX_SIDE; k += 8) {
        uint64_t x, y;
        memcpy(&x, a + k, 8);
        memcpy(&y, b + k, 8);
        if (x != y) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            x = __builtin_bswap64(x);
            y = __builtin_bswap64(y);
#endif
            return x < y ? -1 : 1;
        }
    }
    return 0;
}

static uint32_t deferred_columns(const Search *s)
{
    uint32_t deferred = 0;
    for (int st = 0; st < s->n / s->bc; st++)
        deferred |= s->pool[st];
    return deferred;
}

/* The labels source row r writes next, into text (zero-padded to MAX_SIDE): 0 when it
   decides a deferred column (a given in one of them), so that its string is not known
   yet. */
static int row_text(const Search *s, int r, uint32_t deferred, uint8_t *text)
{
    int n = s->n;
    const uint8_t *row = s->grid + r * n;
    for (uint32_t d = deferred; d; d &= d - 1)
        if (row[__builtin_ctz(d)])
            return 0;
    uint8_t labels[MAX_SIDE + 1];
    memcpy(labels, s->label, n + 1);
    int next = s->next;
    for (int j = 0; j < n; j++) {
        int c = s->cols[j];
        int v = c == DEFERRED ? 0 : row[c];
        if (v && !labels[v])
            labels[v] = (uint8_t)next++;
        text[j] = labels[v];
    }
    memset(text + n, 0, MAX_SIDE - n);
    return 1;
}

/* The transformations that candidate row r stands for (see _twins): 0 when an earlier
   unplaced row of its twin class (or, where a band is chosen, a row of an earlier
   unplaced band of its band's class) stands for it, else the unplaced members of its
   class, times those of its band's class. */
static inline uint32_t twin_row(const Search *s, int r, int new_band)
{
    uint32_t m = 1;
    if (new_band) {
        int band = r / s->br;
        uint32_t free_bands = s->band_cls[s->t][band] & ~s->band_used;
        if (band != __builtin_ctz(free_bands))
            return 0;
        m = (uint32_t)__builtin_popcount(free_bands);
    }
    uint32_t free = s->row_cls[s->t][r] & ~s->row_used;
    if (r != __builtin_ctz(free))
        return 0;
    return m * (uint32_t)__builtin_popcount(free);
}

static void search_rows(Search *s, int i);

/* Write output row i, whose labels `text` are known (a row that decides no column, see
   _Search._known_row), at once, and go on to row i + 1: the first cell that differs
   from the best string prunes the row or starts a new best there. */
static void known_row(Search *s, int i, const uint8_t *text)
{
    int n = s->n, cells = n * n;
    uint8_t *best = s->best + i * n;
    int k = 0;
    while (k < n && text[k] == best[k])
        k++;
    if (k < n) {
        if (text[k] > best[k])
            return;
        memcpy(best + k, text + k, n - k);
        for (int q = (i + 1) * n; q < cells && s->best[q] != UNKNOWN; q++)
            s->best[q] = UNKNOWN;
        s->count = 0;
    }
    const uint8_t *row = s->grid + s->rows[i] * n;
    uint8_t fresh[MAX_SIDE];
    int nfresh = 0;
    for (int j = 0; j < n; j++) {
        int c = s->cols[j];
        int v = c == DEFERRED ? 0 : row[c];
        if (v && !s->label[v]) {
            s->label[v] = (uint8_t)s->next++;
            fresh[nfresh++] = (uint8_t)v;
        }
    }
    search_rows(s, i + 1);
    for (int k2 = 0; k2 < nfresh; k2++)
        s->label[fresh[k2]] = 0;
    s->next -= nfresh;
}

/* The rows of band b still free (`left`), into rows[] in increasing order of their
   strings (texts[r]: row r's, made here), ties by index; their ties times `ties`. */
static int order_band(const Search *s, int b, uint32_t left, uint8_t (*texts)[MAX_SIDE],
                      uint8_t *rows, uint64_t *ties)
{
    int n = s->n, br = s->br, count = 0, same = 1;
    for (int r = b * br; r < b * br + br; r++) {
        if (!(left >> r & 1))
            continue;
        const uint8_t *row = s->grid + r * n;
        memset(texts[r], 0, MAX_SIDE);
        if (s->row_mask[s->t][r])
            for (int j = 0; j < n; j++)
                texts[r][j] = s->cols[j] == DEFERRED ? 0 : s->label[row[s->cols[j]]];
        int p = count++;
        while (p > 0 && compare_text(texts[rows[p - 1]], texts[r]) > 0) {
            rows[p] = rows[p - 1];
            p--;
        }
        rows[p] = (uint8_t)r;
    }
    for (int k = 1; k <= count; k++) {
        if (k < count && !compare_text(texts[rows[k - 1]], texts[rows[k]])) {
            same++;
        } else {
            *ties *= FACTORIAL[same];
            same = 1;
        }
    }
    return count;
}

/* Write the strings of rows[] on from cell *pos (see _Search._finish's write): 0 when
   a larger cell prunes them. *better: the best string went down already. */
static int write_rows(Search *s, const uint8_t *rows, int count, uint8_t (*texts)[MAX_SIDE],
                      int *pos, int *better)
{
    int n = s->n;
    for (int k = 0; k < count; k++, *pos += n) {
        const uint8_t *t = texts[rows[k]];
        uint8_t *best = s->best + *pos;
        int q = 0;
        if (!*better) {
            while (q < n && t[q] == best[q])
                q++;
            if (q == n)
                continue;
            if (t[q] > best[q])
                return 0;
            *better = 1; /* a new best: the rest of the grid is this */
            s->count = 0;
        }
        memcpy(best + q, t + q, n - q);
    }
    return 1;
}

/* Write rows i.. at once when each writes a known string (every digit labelled, no
   given in a deferred column): the current band's rows in increasing order, then the
   bands left in increasing order, ties counted (see _Search._finish). 0 if not. */
static int finish(Search *s, int i)
{
    int n = s->n, br = s->br, nbands = n / br;
    uint32_t deferred = deferred_columns(s);
    uint32_t left = ~s->row_used & (uint32_t)((1ull << n) - 1);
    for (uint32_t m = left; m; m &= m - 1)
        if (s->row_mask[s->t][__builtin_ctz(m)] & deferred)
            return 0;
    uint8_t texts[MAX_SIDE][MAX_SIDE], order[MAX_SIDE];
    uint64_t ties = 1;
    int pos = i * n, better = 0, count = 0;
    int current = i % br ? s->rows[i - 1] / br : -1;
    if (current >= 0) {
        count = order_band(s, current, left, texts, order, &ties);
        if (!write_rows(s, order, count, texts, &pos, &better))
            return 1;
    }
    /* The bands left, each as its rows in order, in increasing order (ties by index). */
    uint8_t rows[MAX_SIDE][MAX_SIDE], bands[MAX_SIDE];
    int nleft = 0;
    for (int b = 0; b < nbands; b++) {
        if (b == current || s->band_used >> b & 1)
            continue;
        order_band(s, b, left, texts, rows[b], &ties);
        int p = nleft++;
        while (p > 0) {
            int cmp = 0;
            for (int k = 0; k < br && !cmp; k++)
                cmp = compare_text(texts[rows[bands[p - 1]][k]], texts[rows[b][k]]);
            if (cmp <= 0)
                break;
            bands[p] = bands[p - 1];
            p--;
        }
        bands[p] = (uint8_t)b;
    }
    int same = 1;
    for (int k = 1; k <= nleft; k++) {
        int equal = k < nleft;
        for (int q = 0; q < br && equal; q++)
            equal = !compare_text(texts[rows[bands[k - 1]][q]], texts[rows[bands[k]][q]]);
        if (equal) {
            same++;
        } else {
            ties *= FACTORIAL[same];
            same = 1;
        }
    }
    for (int k = 0; k < nleft; k++) {
        if (!write_rows(s, rows[bands[k]], br, texts, &pos, &better))
            return 1;
        memcpy(order + count, rows[bands[k]], br);
        count += br;
    }
    memcpy(s->rows + i, order, count);
    leaf(s, ties);
    return 1;
}

/* Choose the source row of output row i (a band first, then its rows). */
static void search_rows(Search *s, int i)
{
    int n = s->n, br = s->br;
    if (i == n) {
        leaf(s, 1);
        return;
    }
    if (s->next == s->ndigits + 1 && finish(s, i))
        return;
    int lo = 0, hi = n;
    if (i % br) {
        lo = (s->rows[i - 1] / br) * br;
        hi = lo + br;
    }
    /* The candidates worth writing, the most promising first (see _twins and
       _best_rows): the first of each twin class, standing for its class; of those,
       rows that decide no column write a known string, and only the least of those
       is kept; rows that decide columns come after, written cell by cell. */
    uint8_t order[MAX_SIDE], text[MAX_SIDE][MAX_SIDE];
    uint32_t mult[MAX_SIDE], open_mult[MAX_SIDE];
    int nknown = 0, nopen = 0, least = -1;
    uint8_t open_rows[MAX_SIDE];
    uint32_t deferred = deferred_columns(s);
    int twins = s->twins & TWIN_ROWS;
    for (int r = lo; r < hi; r++) {
        if (s->row_used >> r & 1)
            continue;
        if (i % br == 0 && (s->band_used >> (r / br) & 1))
            continue;
        uint32_t m = 1;
        if (twins && !(m = twin_row(s, r, i % br == 0)))
            continue;
        uint8_t *t = text[nknown];
        if (!row_text(s, r, deferred, t)) {
            open_mult[nopen] = m;
            open_rows[nopen++] = (uint8_t)r;
            continue;
        }
        int cmp = least < 0 ? -1 : compare_text(t, text[least]);
        if (cmp < 0) {
            least = nknown;
            order[0] = (uint8_t)r;
            mult[0] = m;
            nknown = 1;
            if (least != 0) {
                memcpy(text[0], t, MAX_SIDE);
                least = 0;
            }
        } else if (cmp == 0) {
            mult[nknown] = m;
            order[nknown++] = (uint8_t)r; /* its text is in place already */
        }
    }
    for (int k = 0; k < nopen; k++) {
        order[nknown + k] = open_rows[k];
        mult[nknown + k] = open_mult[k];
    }
    uint64_t outer = s->mult;
    for (int k = 0; k < nknown + nopen; k++) {
        int r = order[k];
        int band = r / br;
        s->rows[i] = (uint8_t)r;
        s->row_used |= 1u << r;
        if (i % br == 0)
            s->band_used |= 1u << band;
        if (twins)
            s->mult = outer * mult[k];
        if (k < nknown)
            known_row(s, i, text[0]); /* every known candidate kept writes text[0] */
        else
            start_row(s, i);
        s->row_used &= ~(1u << r);
        if (i % br == 0)
            s->band_used &= ~(1u << band);
    }
    s->mult = outer;
}

/* One output row being written: its source row, the rank of each deferred column
   among its stack's deferred columns, and each pool's empty cells in this row. */
typedef struct {
    int i;
    const uint8_t *row;
    uint8_t rank[MAX_SIDE];
    uint8_t zeros[MAX_SIDE];
    uint32_t empty; /* the source columns empty in this row */
} RowWrite;

static void write_row(Search *s, RowWrite *w, int j);

static void restore(Search *s, const Snapshot *p)
{
    int n = s->n;
    s->t = p->t;
    s->twins = s->twin_kinds[p->t];
    s->grid = s->g[p->t];
    s->rows[0] = p->r0;
    s->row_used = 1u << p->r0;
    s->band_used = 1u << (p->r0 / s->br);
    memcpy(s->cols, p->cols, n);
    memcpy(s->pool, p->pool, sizeof s->pool);
    memcpy(s->label, p->label, n + 1);
    s->next = p->next;
    s->mult = p->mult;
}

static void keep(const Search *s, Snapshot *p)
{
    int n = s->n;
    p->t = (uint8_t)s->t;
    p->r0 = s->rows[0];
    memcpy(p->cols, s->cols, n);
    memcpy(p->pool, s->pool, sizeof p->pool);
    memcpy(p->label, s->label, n + 1);
    p->next = s->next;
    p->mult = s->mult;
}

static int snapshot_order(const void *a, const void *b)
{
    const Snapshot *x = a, *y = b;
    int cmp = memcmp(x->key, y->key, MAX_SIDE);
    if (cmp)
        return cmp;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Search on from the held first-row states, the most promising first (see
   _Search._flush), and forget them. */
static void flush(Search *s)
{
    int count = s->nsnaps;
    s->nsnaps = 0;
    qsort(s->snaps, count, sizeof(Snapshot), snapshot_order);
    for (int k = 0; k < count; k++) {
        if (s->snaps[k].first_row != s->first_row)
            continue; /* a smaller first row came later: this one cannot be the least */
        restore(s, &s->snaps[k]);
        search_rows(s, 1);
    }
}

/* The first row is written: hold the state, keyed by the least known second row. */
static void save_first_row(Search *s)
{
    int n = s->n, br = s->br;
    if (s->nsnaps == SNAPSHOTS) {
        Snapshot here;
        keep(s, &here);
        uint32_t stacks = s->stack_used;
        flush(s);
        restore(s, &here);
        s->stack_used = stacks;
    }
    Snapshot *p = &s->snaps[s->nsnaps++];
    keep(s, p);
    p->seq = s->seq++;
    p->first_row = s->first_row;
    memset(p->key, UNKNOWN, sizeof p->key);
    uint32_t deferred = deferred_columns(s);
    int lo = 0, hi = n;
    if (br > 1) {
        lo = (s->rows[0] / br) * br;
        hi = lo + br;
    }
    uint8_t text[MAX_SIDE];
    for (int r = lo; r < hi; r++) {
        if (r == s->rows[0])
            continue;
        if (row_text(s, r, deferred, text) && memcmp(text, p->key, n) < 0)
            memcpy(p->key, text, n);
    }
}

/* Decide output column j in this row: each given column of its pool in turn (the first
   of each twin class of them standing for the class). Kept out of write_cell_of_row,
   whose other two cases are the most frequent and need fewer registers. */
static __attribute__((noinline)) void branch_pool(Search *s, RowWrite *w, int j, int pos,
                                                  int st)
{
    uint32_t given = s->pool[st] & ~w->empty, options = given;
    const uint32_t *col_cls = s->col_cls[s->t];
    int twins = s->twins & TWIN_COLS;
    uint64_t outer = s->mult;
    while (options) {
        int c = __builtin_ctz(options);
        options &= options - 1;
        if (twins && c != __builtin_ctz(col_cls[c] & given))
            continue;
        int v = w->row[c];
        int a = write_cell(s, pos, v);
        if (a < 0)
            continue;
        if (twins)
            s->mult = outer * (uint64_t)__builtin_popcount(col_cls[c] & given);
        s->cols[j] = (uint8_t)c;
        s->pool[st] &= ~(1u << c);
        write_row(s, w, j + 1);
        s->cols[j] = DEFERRED;
        s->pool[st] |= 1u << c;
        if (a) {
            s->label[v] = 0;
            s->next--;
        }
    }
    s->mult = outer;
}

/* Write cell (w->i, j): of a decided column, of a deferred one that stays deferred (0),
   or of a deferred one decided here (branch_pool). */
static void write_cell_of_row(Search *s, RowWrite *w, int j)
{
    int pos = w->i * s->n + j, st = j / s->bc;
    int c = s->cols[j];
    if (c != DEFERRED) {
        int v = w->row[c];
        int a = write_cell(s, pos, v);
        if (a < 0)
            return;
        write_row(s, w, j + 1);
        if (a) {
            s->label[v] = 0;
            s->next--;
        }
        return;
    }
    if (w->rank[j] < w->zeros[st]) {
        if (write_cell(s, pos, 0) >= 0)
            write_row(s, w, j + 1);
        return;
    }
    branch_pool(s, w, j, pos, st);
}

/* The first row chooses the stacks: output stack j / bc takes a whole stack, the first
   of its twin class still free standing for the class. Kept out of write_row, like
   branch_pool: it runs on the first row only. */
static __attribute__((noinline)) void choose_stack(Search *s, RowWrite *w, int j)
{
    int n = s->n, bc = s->bc, st = j / bc;
    const uint32_t *stack_cls = s->stack_cls[s->t];
    uint64_t outer = s->mult;
    for (int stack = 0; stack < n / bc; stack++) {
        if (s->stack_used >> stack & 1)
            continue;
        uint32_t free = stack_cls[stack] & ~s->stack_used;
        if (stack != __builtin_ctz(free))
            continue;
        s->mult = outer * (uint64_t)__builtin_popcount(free);
        s->stack_used |= 1u << stack;
        s->pool[st] = ((1u << bc) - 1) << (stack * bc);
        w->zeros[st] = (uint8_t)__builtin_popcount(s->pool[st] & w->empty);
        for (int k = 0; k < bc; k++)
            w->rank[j + k] = (uint8_t)k;
        write_cell_of_row(s, w, j);
        s->pool[st] = 0;
        s->stack_used &= ~(1u << stack);
    }
    s->mult = outer;
}

static void write_row(Search *s, RowWrite *w, int j)
{
    if (j == s->n) {
        if (w->i == 0)
            save_first_row(s);
        else
            search_rows(s, w->i + 1);
        return;
    }
    if (w->i == 0 && j % s->bc == 0)
        choose_stack(s, w, j);
    else
        write_cell_of_row(s, w, j);
}

/* Write output row i from its chosen source row (see _Search._start_row). */
static void start_row(Search *s, int i)
{
    int n = s->n, bc = s->bc;
    RowWrite w;
    w.i = i;
    w.row = s->grid + s->rows[i] * n;
    w.empty = 0;
    for (int c = 0; c < n; c++)
        if (!w.row[c])
            w.empty |= 1u << c;
    for (int st = 0; st < n / bc; st++) {
        int k = 0;
        for (int j = st * bc; j < st * bc + bc; j++)
            if (s->cols[j] == DEFERRED)
                w.rank[j] = (uint8_t)k++;
        w.zeros[st] = (uint8_t)__builtin_popcount(s->pool[st] & w.empty);
    }
    write_row(s, &w, 0);
}

/* The smallest relabelled first row any line can give (see first_row_bound). */
static void first_row_bound(Search *s)
{
    int n = s->n, bc = s->bc;
    uint8_t row[MAX_SIDE];
    int have = 0;
    for (int t = 0; t < s->ngrids; t++)
        for (int r = 0; r < n; r++) {
            const uint8_t *line = s->g[t] + r * n;
            int counts[MAX_SIDE], ns = 0;
            for (int st = 0; st < n; st += bc) {
                int k = 0;
                for (int c = st; c < st + bc; c++)
                    k += line[c] != 0;
                int p = ns++;
                while (p > 0 && counts[p - 1] > k) {
                    counts[p] = counts[p - 1];
                    p--;
                }
                counts[p] = k;
            }
            uint8_t cand[MAX_SIDE];
            int pos = 0, label = 0;
            for (int q = 0; q < ns; q++) {
                for (int z = 0; z < bc - counts[q]; z++)
                    cand[pos++] = 0;
                for (int z = 0; z < counts[q]; z++)
                    cand[pos++] = (uint8_t)++label;
            }
            if (!have || memcmp(cand, row, n) < 0) {
                memcpy(row, cand, n);
                have = 1;
            }
        }
    memcpy(s->best, row, n);
}

/* The lines of a grid (its rows, or its columns) in blocks of `block` lines (bands, or
   stacks), and what the twin tests read of them: cell k of line r is g[r * rs + k * ks]. */
typedef struct {
    const uint8_t *g;
    int n, block, rs, ks;
    const uint32_t *mask;         /* the given cells of each line */
    uint32_t where[MAX_SIDE + 1]; /* the lines holding each digit, once found */
    int found;                    /* whether `where` is filled in */
    uint8_t one[MAX_SIDE], two[MAX_SIDE];
    int tried;
} Lines;

/* Swapping lines a[k] and b[k] (k < count, lines of equal masks), with one relabelling
   that moves only digits held by lines of `inside` alone, maps the grid onto itself. */
static int swap_fixes_grid(Lines *L, const uint8_t *a, const uint8_t *b, int count,
                           uint32_t inside)
{
    int n = L->n, ks = L->ks, moved = 0;
    uint8_t pi[MAX_SIDE + 1] = {0};
    for (int k = 0; k < count; k++) {
        const uint8_t *x = L->g + a[k] * L->rs, *y = L->g + b[k] * L->rs;
        for (int c = 0; c < n; c++) {
            int u = x[c * ks], v = y[c * ks];
            if (!u)
                continue;
            if ((pi[u] && pi[u] != v) || (pi[v] && pi[v] != u))
                return 0;
            pi[u] = (uint8_t)v;
            pi[v] = (uint8_t)u;
            moved |= u != v;
        }
    }
    if (!moved)
        return 1;
    if (!L->found) {
        memset(L->where, 0, sizeof L->where);
        for (int r = 0; r < n; r++)
            for (int c = 0; c < n; c++)
                L->where[L->g[r * L->rs + c * ks]] |= 1u << r;
        L->found = 1;
    }
    for (int d = 1; d <= n; d++)
        if (pi[d] && pi[d] != d && (L->where[d] & ~inside))
            return 0;
    return 1;
}

/* Lines of the second block (L->two) for the lines L->one[k..]: the first correspondence
   that makes the blocks twins, in lexicographic order, BAND_MATCHES tried at most. */
static int match_bands(Lines *L, uint8_t *match, int k, uint32_t taken, uint32_t inside)
{
    if (L->tried >= BAND_MATCHES)
        return 0;
    if (k == L->block) {
        L->tried++;
        return swap_fixes_grid(L, L->one, match, L->block, inside);
    }
    for (int q = 0; q < L->block; q++) {
        int r = L->two[q];
        if (taken >> r & 1 || L->mask[r] != L->mask[L->one[k]])
            continue;
        match[k] = (uint8_t)r;
        if (match_bands(L, match, k + 1, taken | 1u << r, inside))
            return 1;
    }
    return 0;
}

static void merge(uint32_t *classes, int a, int b)
{
    uint32_t joined = classes[a] | classes[b];
    for (uint32_t m = joined; m; m &= m - 1)
        classes[__builtin_ctz(m)] = joined;
}

/* Whether blocks b1 and b2 hold different multisets of line masks. */
static int masks_differ(const Lines *L, int b1, int b2)
{
    uint32_t x[MAX_SIDE], y[MAX_SIDE], sum = 0, mixed = 0;
    int block = L->block;
    for (int k = 0; k < block; k++) {
        uint32_t u = L->mask[b1 * block + k], v = L->mask[b2 * block + k];
        sum += u - v;
        mixed ^= u ^ v;
    }
    if (sum || mixed)
        return 1;
    for (int k = 0; k < block; k++) {
        uint32_t u = L->mask[b1 * block + k], v = L->mask[b2 * block + k];
        int p = k, q = k;
        while (p > 0 && x[p - 1] > u) {
            x[p] = x[p - 1];
            p--;
        }
        x[p] = u;
        while (q > 0 && y[q - 1] > v) {
            y[q] = y[q - 1];
            q--;
        }
        y[q] = v;
    }
    return memcmp(x, y, block * sizeof x[0]) != 0;
}

/* The twin lines and twin blocks of L (see twin_classes in minlex.py), as class masks. */
static void twin_classes(Lines *L, uint32_t *lines, uint32_t *blocks)
{
    int n = L->n, block = L->block, nblocks = n / block;
    for (int r = 0; r < n; r++)
        lines[r] = 1u << r;
    for (int r1 = 0; r1 < n; r1++)
        for (int r2 = r1 + 1; r2 < r1 / block * block + block; r2++) {
            if (L->mask[r1] != L->mask[r2] || lines[r1] >> r2 & 1)
                continue;
            uint8_t a = (uint8_t)r1, b = (uint8_t)r2;
            if (!L->mask[r1] || swap_fixes_grid(L, &a, &b, 1, 1u << r1 | 1u << r2))
                merge(lines, r1, r2); /* two empty lines are always twins */
        }
    for (int b = 0; b < nblocks; b++)
        blocks[b] = 1u << b;
    for (int b1 = 0; b1 < nblocks; b1++)
        for (int b2 = b1 + 1; b2 < nblocks; b2++) {
            if (blocks[b1] >> b2 & 1 || masks_differ(L, b1, b2))
                continue;
            uint32_t inside = 0;
            for (int k = 0; k < block; k++) {
                L->one[k] = (uint8_t)(b1 * block + k);
                L->two[k] = (uint8_t)(b2 * block + k);
                inside |= 1u << L->one[k] | 1u << L->two[k];
            }
            uint8_t match[MAX_SIDE];
            L->tried = 0;
            if (match_bands(L, match, 0, 0, inside))
                merge(blocks, b1, b2);
        }
}

/* The twin rows, bands, columns and stacks of s->g[0], for each grid searched; the given
   cells of each row of each grid, and the digits present. */
static void find_twins(Search *s)
{
    int n = s->n;
    const uint8_t *g = s->g[0];
    uint32_t *row_mask = s->row_mask[0], *col_mask = s->row_mask[1], digits = 0;
    memset(s->row_mask, 0, sizeof s->row_mask);
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
            int v = g[r * n + c];
            uint32_t given = v != 0;
            row_mask[r] |= given << c;
            col_mask[c] |= given << r;
            digits |= 1u << v;
        }
    s->ndigits = __builtin_popcount(digits >> 1);
    Lines rows = {.g = g, .n = n, .block = s->br, .rs = n, .ks = 1, .mask = row_mask};
    Lines cols = {.g = g, .n = n, .block = s->bc, .rs = 1, .ks = n, .mask = col_mask};
    twin_classes(&rows, s->row_cls[0], s->band_cls[0]);
    twin_classes(&cols, s->col_cls[0], s->stack_cls[0]);
    int rows_twin = 0, bands_twin = 0, cols_twin = 0, stacks_twin = 0;
    for (int k = 0; k < n; k++) {
        rows_twin |= s->row_cls[0][k] != 1u << k;
        cols_twin |= s->col_cls[0][k] != 1u << k;
    }
    for (int k = 0; k < n / s->br; k++)
        bands_twin |= s->band_cls[0][k] != 1u << k;
    for (int k = 0; k < n / s->bc; k++)
        stacks_twin |= s->stack_cls[0][k] != 1u << k;
    s->twin_kinds[0] = (uint8_t)((rows_twin | bands_twin) * TWIN_ROWS | cols_twin * TWIN_COLS);
    s->twin_kinds[1] = (uint8_t)((cols_twin | stacks_twin) * TWIN_ROWS | rows_twin * TWIN_COLS);
    /* The transpose (square boxes): its rows are the columns, and so on. */
    memcpy(s->row_cls[1], s->col_cls[0], sizeof s->row_cls[1]);
    memcpy(s->band_cls[1], s->stack_cls[0], sizeof s->band_cls[1]);
    memcpy(s->col_cls[1], s->row_cls[0], sizeof s->col_cls[1]);
    memcpy(s->stack_cls[1], s->band_cls[0], sizeof s->stack_cls[1]);
}

/* A search, its first-row states left uninitialised: they are 4,096 of them (over half
   a megabyte), and zeroing them cost more than searching an ordinary puzzle. */
static Search *new_search(void)
{
    Search *s = PyMem_Malloc(sizeof(Search));
    if (s)
        memset(s, 0, offsetof(Search, snaps));
    return s;
}

/* Run the whole search on s->g[0] (values 0..n); fills best, count and found_*. */
static void run(Search *s)
{
    int n = s->n;
    s->ngrids = s->br == s->bc ? 2 : 1;
    if (s->ngrids == 2)
        for (int r = 0; r < n; r++)
            for (int c = 0; c < n; c++)
                s->g[1][c * n + r] = s->g[0][r * n + c];
    find_twins(s);
    memset(s->best, UNKNOWN, sizeof s->best);
    first_row_bound(s);
    memset(s->label, 0, sizeof s->label);
    s->next = 1;
    s->count = 0;
    s->nsnaps = 0;
    s->seq = s->first_row = 0;
    for (int t = 0; t < s->ngrids; t++) {
        s->t = t;
        s->twins = s->twin_kinds[t];
        s->grid = s->g[t];
        for (int r = 0; r < n; r++) {
            /* The first of each twin class (rows, bands) stands for its class. */
            s->row_used = s->band_used = 0;
            uint32_t m = 1;
            if (s->twins & TWIN_ROWS && !(m = twin_row(s, r, 1)))
                continue;
            s->mult = m;
            s->rows[0] = (uint8_t)r;
            s->row_used = 1u << r;
            s->band_used = 1u << (r / s->br);
            s->stack_used = 0;
            memset(s->cols, DEFERRED, sizeof s->cols);
            memset(s->pool, 0, sizeof s->pool);
            start_row(s, 0);
        }
    }
    flush(s);
}

static int check_shape(int br, int bc)
{
    if (br < 1 || bc < 1 || br * bc > MAX_SIDE) {
        PyErr_Format(PyExc_ValueError, "box shape %dx%d is outside 1..%d cells a side", br, bc,
                     MAX_SIDE);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(minlex_doc,
             "minlex(cells: bytes, box_rows, box_cols) -> (form, transpose, rows, cols, "
             "labels, automorphisms)\n\n"
             "cells: n*n bytes of values 0..n. form: n*n bytes of labels; rows, cols: the "
             "source line of each output line; labels[d]: the label of digit d (0 when d "
             "is absent).");

static PyObject *py_minlex(PyObject *self, PyObject *args)
{
    Py_buffer buf;
    int br, bc;
    if (!PyArg_ParseTuple(args, "y*ii", &buf, &br, &bc))
        return NULL;
    if (check_shape(br, bc) < 0) {
        PyBuffer_Release(&buf);
        return NULL;
    }
    int n = br * bc;
    if (buf.len != (Py_ssize_t)n * n) {
        PyBuffer_Release(&buf);
        return PyErr_Format(PyExc_ValueError, "expected %d cells, got %zd", n * n, buf.len);
    }
    Search *s = new_search();
    if (!s) {
        PyBuffer_Release(&buf);
        return PyErr_NoMemory();
    }
    s->n = n;
    s->br = br;
    s->bc = bc;
    const uint8_t *in = buf.buf;
    for (int k = 0; k < n * n; k++) {
        if (in[k] > n) {
            PyBuffer_Release(&buf);
            PyMem_Free(s);
            return PyErr_Format(PyExc_ValueError, "value %d outside 0..%d", in[k], n);
        }
        s->g[0][k] = in[k];
    }
    PyBuffer_Release(&buf);
    Py_BEGIN_ALLOW_THREADS run(s);
    Py_END_ALLOW_THREADS PyObject *res = Py_BuildValue(
        "(y#iy#y#y#K)", (const char *)s->best, (Py_ssize_t)n * n, s->found_t,
        (const char *)s->found_rows, (Py_ssize_t)n, (const char *)s->found_cols, (Py_ssize_t)n,
        (const char *)s->found_label, (Py_ssize_t)n + 1, (unsigned long long)s->count);
    PyMem_Free(s);
    return res;
}

static const char SYMBOLS[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/* The value of a line's symbol, or -1: '.', '0' empty; 1-9 then A-Z (any case). */
static int symbol_value(int ch)
{
    if (ch == '.' || ch == '0')
        return 0;
    if (ch >= '1' && ch <= '9')
        return ch - '0';
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A' + 10;
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a' + 10;
    return -1;
}

PyDoc_STRVAR(minlex_lines_doc,
             "minlex_lines(lines: list[str], box_rows, box_cols) -> list[str | None]\n\n"
             "The minlex form of each one-line puzzle ('0' for empty), or None for a line "
             "this fast path does not read (wrong length, another symbol): the caller "
             "parses those itself. The searches run without the GIL.");

static PyObject *py_minlex_lines(PyObject *self, PyObject *args)
{
    PyObject *lines;
    int br, bc;
    if (!PyArg_ParseTuple(args, "O!ii", &PyList_Type, &lines, &br, &bc))
        return NULL;
    if (check_shape(br, bc) < 0)
        return NULL;
    int n = br * bc, cells = n * n;
    Py_ssize_t count = PyList_GET_SIZE(lines);
    uint8_t *grids = PyMem_Malloc((size_t)(count ? count : 1) * cells);
    char *ok = PyMem_Calloc((size_t)(count ? count : 1), 1);
    Search *s = new_search();
    PyObject *out = NULL;
    if (!grids || !ok || !s) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyList_GET_ITEM(lines, i);
        if (!PyUnicode_Check(item) || PyUnicode_KIND(item) != PyUnicode_1BYTE_KIND ||
            PyUnicode_GET_LENGTH(item) != cells)
            continue;
        const Py_UCS1 *text = PyUnicode_1BYTE_DATA(item);
        uint8_t *g = grids + (size_t)i * cells;
        int k = 0;
        for (; k < cells; k++) {
            int v = symbol_value(text[k]);
            if (v < 0 || v > n)
                break;
            g[k] = (uint8_t)v;
        }
        ok[i] = k == cells;
    }
    s->n = n;
    s->br = br;
    s->bc = bc;
    Py_BEGIN_ALLOW_THREADS for (Py_ssize_t i = 0; i < count; i++)
    {
        if (!ok[i])
            continue;
        uint8_t *g = grids + (size_t)i * cells;
        memcpy(s->g[0], g, cells);
        run(s);
        for (int k = 0; k < cells; k++)
            g[k] = (uint8_t)SYMBOLS[s->best[k]];
    }
    Py_END_ALLOW_THREADS out = PyList_New(count);
    if (!out)
        goto done;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item;
        if (ok[i]) {
            item = PyUnicode_FromStringAndSize((const char *)grids + (size_t)i * cells, cells);
            if (!item) {
                Py_CLEAR(out);
                goto done;
            }
        } else {
            item = Py_NewRef(Py_None);
        }
        PyList_SET_ITEM(out, i, item);
    }
done:
    PyMem_Free(grids);
    PyMem_Free(ok);
    PyMem_Free(s);
    return out;
}

static PyMethodDef methods[] = {
    {"minlex", py_minlex, METH_VARARGS, minlex_doc},
    {"minlex_lines", py_minlex_lines, METH_VARARGS, minlex_lines_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef minlex_module = {
    PyModuleDef_HEAD_INIT, "cpsudoku.canon._minlex",
    "The exact minlex search in C (see cpsudoku/canon/minlex.py).", -1, methods,
};

PyMODINIT_FUNC PyInit__minlex(void)
{
    PyObject *m = PyModule_Create(&minlex_module);
    if (m && PyModule_AddIntConstant(m, "MAX_SIDE", MAX_SIDE) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
