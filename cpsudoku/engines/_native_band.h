/*
 * The band solver: classic 9x9 (rows, columns, 3x3 boxes and nothing else), chosen
 * when a layout is built (band_fits). Included from _native.c after the generic
 * searches; same entry signature (search_fn), limits, stats and outputs.
 *
 * Representation: per digit, three band words of 27 bits (a band is three rows of
 * the grid; row r of the band is bits 9r..9r+8, column c bit c of its row), so cell i
 * is bit i - 27k of band k = i / 27. A state is the 27 words, the open cells per band
 * and the digits whose words changed since their own propagation last ran (a digit
 * nobody touched is skipped): 124 bytes, against 544 for the generic state of a 9x9
 * grid.
 *
 * One digit's constraints are two 3x3 permutation problems, solved by table lookup:
 *
 *   - inside a band, each of its 3 rows and each of its 3 boxes holds the digit once:
 *     the 9 mini-rows (row x box) where the digit may go form a 3x3 0/1 matrix, and a
 *     mini-row stays only if it lies on a permutation inside that matrix (PERM9). This
 *     is hidden singles of rows and boxes at mini-row level, pointing and claiming
 *     (locked candidates) inside the band, and "no place left" for rows and boxes;
 *   - inside a stack (three columns of boxes), each of its 3 columns and each of its 3
 *     boxes holds the digit once: the matrix of (band, column) where the digit may
 *     go, by the same table: locked candidates between columns and boxes, and a
 *     column with no place left.
 *
 * A row left with one place for the digit (after both, a box or column with one place
 * leaves its row with one too) decides that cell: the other digits leave it. Naked
 * singles come from a bit-sliced count of the digits per band. Search: the
 * two-candidate cell seeing the most open cells (else the cell with fewest), digits in
 * increasing order, depth first on an explicit stack, as the generic search.
 */

typedef struct {
    uint32_t f[27];   /* digit d, band k: f[3 * d + k] */
    uint32_t open[3]; /* cells without a decided digit, per band */
    uint32_t dirty;   /* bit 3d + k: digit d's word of band k changed since it was looked at */
} BandState;

#define BAND_ALL 0x7FFFFFFu   /* the 27 cells of a band */
/* A puzzle with more givens than this goes to the generic search: singles alone
 * settle such puzzles (the easy tiers, 30 to 36 givens), and the generic search's
 * cell-wise start costs less there than the band words' (measured: easy 525,000/s on
 * the band solver, 710,000/s on the generic one; clue17, top1465 and the hardest tier,
 * 17 to 28 givens, 2 to 2.2 times faster on the band solver). */
#ifndef BAND_MAX_GIVENS
#define BAND_MAX_GIVENS 29
#endif
#define BAND_COLS 0x40201u    /* times a 9-bit column mask: that column in each row */

static uint16_t band_perm[512];    /* 3x3 matrix (bit 3i + j) -> entries on a permutation */
static uint8_t band_occ[512];      /* a row's 9 cells -> which of its 3 mini-rows hold any */
static uint32_t band_expand[512];  /* mini-rows (bit 3r + b) -> their cells */
static uint16_t band_single[512];  /* a row's cells -> them if exactly one, else 0 */
static uint32_t band_peers[81][3]; /* per cell: its 20 peers, per band */
static int band_ready;

static void band_tables(void)
{
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                    {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    if (band_ready)
        return;
    for (int m = 0; m < 512; m++) {
        int keep = 0;
        for (int p = 0; p < 6; p++) {
            int bits = 0;
            for (int i = 0; i < 3; i++)
                bits |= 1 << (3 * i + perms[p][i]);
            if ((m & bits) == bits)
                keep |= bits;
        }
        band_perm[m] = (uint16_t)keep;
        band_occ[m] = (uint8_t)(((m & 7) != 0) | (((m >> 3) & 7) != 0) << 1 |
                                (((m >> 6) & 7) != 0) << 2);
        uint32_t cells = 0;
        for (int j = 0; j < 9; j++)
            if (m >> j & 1)
                cells |= (uint32_t)7 << (9 * (j / 3) + 3 * (j % 3));
        band_expand[m] = cells;
        band_single[m] = (uint16_t)(m && !(m & (m - 1)) ? m : 0);
    }
    for (int i = 0; i < 81; i++) {
        int r = i / 9, c = i % 9;
        for (int j = 0; j < 81; j++) {
            int r2 = j / 9, c2 = j % 9;
            if (j != i && (r == r2 || c == c2 || (r / 3 == r2 / 3 && c / 3 == c2 / 3)))
                band_peers[i][j / 27] |= (uint32_t)1 << (j % 27);
        }
    }
    band_ready = 1;
}

/* 1 when the layout is exactly classic 9x9: the 27 rows, columns and boxes, once each,
 * in any order, and nothing else (no cages, no propagators, no other unit). */
static int band_fits(const Layout *lay)
{
    if (lay->n != 9 || lay->words != 2 || lay->nunits != 27 || lay->full_units != 27 ||
        lay->ncages || lay->nprops || lay->dpeers || lay->nshift)
        return 0;
    uint32_t seen = 0;
    for (int u = 0; u < 27; u++) {
        const uint64_t *bits = lay->unit_bits + (size_t)u * 2;
        for (int v = 0; v < 27; v++) {
            uint64_t want[2] = {0, 0};
            for (int j = 0; j < 9; j++) {
                int i = v < 9    ? v * 9 + j                                   /* row */
                        : v < 18 ? j * 9 + (v - 9)                             /* column */
                                 : ((v - 18) / 3 * 3 + j / 3) * 9 + (v - 18) % 3 * 3 + j % 3;
                want[i >> 6] |= (uint64_t)1 << (i & 63);
            }
            if (bits[0] == want[0] && bits[1] == want[1]) {
                seen |= (uint32_t)1 << v;
                break;
            }
        }
    }
    return seen == (1u << 27) - 1;
}

/* Digit d to a fixpoint of its two permutation problems, then the cells it decides
 * leave the other digits. Returns 0 on a contradiction. */
static inline uint32_t band_rows(uint32_t b)
{
    return b & band_expand[band_perm[band_occ[b & 511] | band_occ[(b >> 9) & 511] << 3 |
                                     band_occ[b >> 18] << 6]];
}

/* The cells of band k where digit d (its word w) is the last place in its row: the
 * other digits leave them. */
static inline __attribute__((always_inline)) void band_decide(BandState *s, int d, int k,
                                                              uint32_t w)
{
    const uint32_t decided = ((uint32_t)band_single[w & 511] |
                              (uint32_t)band_single[(w >> 9) & 511] << 9 |
                              (uint32_t)band_single[w >> 18] << 18) &
                             s->open[k];
    if (!decided)
        return;
    s->open[k] &= ~decided;
    uint32_t dirty = 0;
    for (int e = 0; e < 9; e++) {
        const uint32_t x = s->f[3 * e + k], left = x & ~decided;
        s->f[3 * e + k] = left;
        dirty |= (uint32_t)(left != x) << (3 * e + k);
    }
    s->f[3 * d + k] = w; /* d keeps its own cells */
    s->dirty |= dirty & ~(1u << (3 * d + k));
}

/* Rows and boxes inside the bands of ``bands`` that changed; 0 when one is left empty. */
static inline int band_rows3(uint32_t bands, uint32_t *b0, uint32_t *b1, uint32_t *b2)
{
    if (bands & 1 && !(*b0 = band_rows(*b0)))
        return 0;
    if (bands & 2 && !(*b1 = band_rows(*b1)))
        return 0;
    if (bands & 4 && !(*b2 = band_rows(*b2)))
        return 0;
    return 1;
}

static inline int band_digit(BandState *s, int d, uint32_t bands)
{
    uint32_t *f = s->f + 3 * d;
    uint32_t b0 = f[0], b1 = f[1], b2 = f[2];
    if (!band_rows3(bands, &b0, &b1, &b2))
        return 0;
    /* Each step keeps whole mini-rows or columns, so a step run again on what it left
     * changes nothing: rows and columns take turns until one of them takes no cell. */
    for (;;) {
        const uint32_t o0 = b0, o1 = b1, o2 = b2;
        /* columns and boxes inside each stack */
        const uint32_t c0 = (b0 | b0 >> 9 | b0 >> 18) & 511, c1 = (b1 | b1 >> 9 | b1 >> 18) & 511,
                       c2 = (b2 | b2 >> 9 | b2 >> 18) & 511;
        uint32_t a0 = 0, a1 = 0, a2 = 0;
        for (int t = 0; t < 9; t += 3) {
            uint32_t kept = band_perm[(c0 >> t & 7) | (c1 >> t & 7) << 3 | (c2 >> t & 7) << 6];
            if (!kept)
                return 0;
            a0 |= (kept & 7) << t;
            a1 |= (kept >> 3 & 7) << t;
            a2 |= (kept >> 6) << t;
        }
        b0 &= a0 * BAND_COLS;
        b1 &= a1 * BAND_COLS;
        b2 &= a2 * BAND_COLS;
        bands = (b0 != o0) | (b1 != o1) << 1 | (b2 != o2) << 2;
        if (!bands)
            break;
        const uint32_t r0 = b0, r1 = b1, r2 = b2;
        if (!band_rows3(bands, &b0, &b1, &b2))
            return 0;
        if (b0 == r0 && b1 == r1 && b2 == r2)
            break;
    }
    f[0] = b0;
    f[1] = b1;
    f[2] = b2;
    band_decide(s, d, 0, b0);
    band_decide(s, d, 1, b1);
    band_decide(s, d, 2, b2);
    return 1;
}

/* Every digit and naked single to a common fixpoint. Returns 0 on a contradiction. */
static int band_propagate(BandState *s)
{
    for (;;) {
        while (s->dirty) { /* the lowest digit that changed first */
            const int d = __builtin_ctz(s->dirty) / 3;
            const uint32_t bands = s->dirty >> (3 * d) & 7;
            s->dirty &= ~(7u << (3 * d));
            if (!band_digit(s, d, bands))
                return 0;
        }
        /* Naked singles: a bit-sliced count of the digits in every open cell. */
        int any = 0;
        for (int k = 0; k < 3; k++) {
            uint32_t one = 0, two = 0;
            for (int d = 0; d < 9; d++) {
                const uint32_t x = s->f[3 * d + k];
                two |= one & x;
                one |= x;
            }
            if (s->open[k] & ~one)
                return 0; /* an open cell with no digit left */
            uint32_t single = s->open[k] & ~two;
            while (single) {
                const uint32_t bit = single & -single;
                single &= single - 1;
                const uint32_t *peers = band_peers[27 * k + __builtin_ctz(bit)];
                int d = 0;
                while (d < 9 && !(s->f[3 * d + k] & bit))
                    d++;
                if (d == 9)
                    return 0; /* a single of this pass took its last digit */
                for (int j = 0; j < 3; j++) { /* decided: the digit leaves its peers */
                    const uint32_t x = s->f[3 * d + j];
                    if (x & peers[j]) {
                        s->f[3 * d + j] = x & ~peers[j];
                        s->dirty |= 1u << (3 * d + j);
                    }
                }
                s->open[k] &= ~bit;
                any = 1;
            }
        }
        if (!any)
            return 1;
    }
}

/* Place digit d at cell i (a branch): 0 when d is no longer possible there. The
 * digit leaves the cell's peers and the other digits the cell. */
static inline int band_place(BandState *s, int d, int i)
{
    const int k = i / 27;
    const uint32_t bit = (uint32_t)1 << (i - 27 * k);
    if (!(s->f[3 * d + k] & bit))
        return 0;
    uint32_t dirty = 0;
    for (int e = 0; e < 9; e++) { /* d's own bit comes back below */
        const uint32_t x = s->f[3 * e + k];
        s->f[3 * e + k] = x & ~bit;
        dirty |= (uint32_t)((x & bit) != 0) << (3 * e + k);
    }
    s->dirty |= dirty;
    for (int j = 0; j < 3; j++)
        s->f[3 * d + j] &= ~band_peers[i][j];
    s->f[3 * d + k] |= bit;
    s->dirty |= 7u << (3 * d);
    s->open[k] &= ~bit;
    return 1;
}

/* The cell to branch on: the two-candidate cell that sees the most open cells, else
 * the open cell with the fewest candidates (as the generic search). */
static int band_choose(const BandState *s)
{
    uint32_t pairs[3], fewest = 10;
    int best = -1, most = -1;
    for (int k = 0; k < 3; k++) {
        uint32_t one = 0, two = 0, three = 0;
        for (int d = 0; d < 9; d++) {
            const uint32_t x = s->f[3 * d + k];
            three |= two & x;
            two |= one & x;
            one |= x;
        }
        pairs[k] = two & ~three & s->open[k];
    }
    for (int k = 0; k < 3; k++)
        for (uint32_t m = pairs[k]; m; m &= m - 1) {
            const int c = 27 * k + __builtin_ctz(m);
            const int links = __builtin_popcount(band_peers[c][0] & s->open[0]) +
                              __builtin_popcount(band_peers[c][1] & s->open[1]) +
                              __builtin_popcount(band_peers[c][2] & s->open[2]);
            if (links > most) {
                most = links;
                best = c;
            }
        }
    if (best >= 0)
        return best;
    for (int k = 0; k < 3; k++)
        for (uint32_t m = s->open[k]; m; m &= m - 1) {
            const uint32_t bit = m & -m;
            uint32_t count = 0;
            for (int d = 0; d < 9; d++)
                count += (s->f[3 * d + k] & bit) != 0;
            if (count < fewest) {
                fewest = count;
                best = 27 * k + __builtin_ctz(m);
            }
        }
    return best;
}

static void band_write(const BandState *s, uint8_t *out)
{
    for (int d = 0; d < 9; d++)
        for (int k = 0; k < 3; k++)
            for (uint32_t m = s->f[3 * d + k]; m; m &= m - 1)
                out[27 * k + __builtin_ctz(m)] = (uint8_t)(d + 1);
}

/*
 * Search one classic 9x9 puzzle: the generic search's contract (search_fn), its
 * statuses, limits, stats and outputs. Allowed-value masks go to the generic search.
 */
static void band_search(const Layout *lay, const uint8_t *givens, const uint32_t *allowed,
                        const Limits *lim, Outcome *out, uint8_t *sol, Frame *frames)
{
    int clues = 0;
    for (int i = 0; i < 81; i++)
        clues += givens[i] != 0;
    if (allowed || clues > BAND_MAX_GIVENS) {
        search_2(lay, givens, allowed, lim, out, sol, frames);
        return;
    }
    /* the frames hold cells + 2 generic states, each bigger than a BandState */
    BandState *stack = (BandState *)frames->states;
    BandState *s = &stack[0];
    int *cell_at = frames->cells;
    uint64_t *todo = frames->todo; /* the digits still to try at each depth */
    /* The givens all at once: each digit's as cells, the peers of each out of its
     * digit's words; a given whose digit a peer holds too is a clash (what placing
     * them one by one finds: only such a peer takes the digit from its cell). */
    uint32_t given[27] = {0};
    for (int i = 0; i < 81; i++)
        if (givens[i])
            given[3 * (givens[i] - 1) + i / 27] |= (uint32_t)1 << (i % 27);
    for (int j = 0; j < 27; j++)
        s->f[j] = BAND_ALL;
    out->count = 0;
    out->nodes = out->guesses = 0;
    out->status = ST_DONE;
    for (int d = 0; d < 9; d++) {
        uint32_t *f = s->f + 3 * d;
        const uint32_t *g = given + 3 * d;
        for (int k = 0; k < 3; k++)
            for (uint32_t m = g[k]; m; m &= m - 1) {
                const uint32_t *peers = band_peers[27 * k + __builtin_ctz(m)];
                if ((g[0] & peers[0]) | (g[1] & peers[1]) | (g[2] & peers[2])) {
                    out->status = ST_CLASH;
                    return;
                }
                f[0] &= ~peers[0];
                f[1] &= ~peers[1];
                f[2] &= ~peers[2];
            }
    }
    for (int k = 0; k < 3; k++) {
        uint32_t taken = 0;
        for (int d = 0; d < 9; d++)
            taken |= given[3 * d + k];
        for (int d = 0; d < 9; d++)
            s->f[3 * d + k] = (s->f[3 * d + k] & ~taken) | given[3 * d + k];
        s->open[k] = BAND_ALL & ~taken;
    }
    s->dirty = BAND_ALL; /* every digit looks at the root */
    out->nodes = 1;
    if ((out->status = check_limits(lim)) != ST_DONE)
        return; /* a time limit spent before the search began */
    if (!band_propagate(s)) {
        out->status = ST_DONE;
        return;
    }
    int depth = 0;
    for (;;) {
        BandState *cur = &stack[depth];
        if (!(cur->open[0] | cur->open[1] | cur->open[2])) {
            if (out->count < 2)
                band_write(cur, sol + (size_t)out->count * 81);
            if (++out->count >= lim->limit) {
                out->status = ST_LIMIT;
                return;
            }
            depth--; /* this state is spent: go on with its parent's next digit */
        } else {
            const int c = band_choose(cur), k = c / 27;
            const uint32_t bit = (uint32_t)1 << (c - 27 * k);
            uint64_t digits = 0;
            for (int d = 0; d < 9; d++)
                if (cur->f[3 * d + k] & bit)
                    digits |= (uint64_t)1 << d;
            cell_at[depth] = c;
            todo[depth] = digits;
        }
        /* Try the next digit at the deepest depth that has one left. */
        for (;;) {
            if (depth < 0) {
                out->status = ST_DONE;
                return;
            }
            const uint64_t digits = todo[depth];
            if (!digits) {
                depth--;
                continue;
            }
            const int d = __builtin_ctzll(digits);
            todo[depth] = digits & (digits - 1);
            /* the last digit left is forced, no guess */
            const int stop = count_branch(out, lim, todo[depth] != 0, 0);
            if (stop) {
                out->status = stop;
                return;
            }
            BandState *next = &stack[depth + 1];
            *next = stack[depth];
            if (band_place(next, d, cell_at[depth]) && band_propagate(next)) {
                depth++;
                break;
            }
        }
    }
}
