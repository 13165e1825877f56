/*
 * The search of the compiled engine, for one cell-set width: include this file with
 * W (the number of 64-bit words of a cell set) and SUF (a name suffix) defined.
 *
 * A grid in play is one cell set per digit: the cells where that digit is still
 * possible (cand), and one per digit of the cells holding it (placed). Everything
 * below is bit-parallel over the cells:
 *
 *   - naked singles: a bit-sliced count of candidates per cell over the digits gives
 *     the cells with none (a contradiction), one (a naked single) and two (where to
 *     branch) in a few word operations per digit;
 *   - hidden singles: per unit of n cells and digit, the digit's cells in the unit;
 *     none there and not placed there is a contradiction, one is a hidden single;
 *   - locked candidates: for a unit A of n cells and a unit B meeting it in two cells
 *     or more, a digit whose cells in A all lie in B cannot be in B outside A;
 *   - search: the first cell with two candidates (else the one with the fewest),
 *     depth first, each child a copy of its parent with one more placement.
 *
 * The rules are data: the units come from the caller (rows, columns, boxes or
 * jigsaw regions, extra regions of at most n cells), so nothing here knows a box.
 */

#ifndef SEES_PLACES
/* The most places of a digit in a unit that FN(sees) looks through relations from. */
#define SEES_PLACES 4
#endif
_Static_assert(SEES_PLACES < SEES_COUNTS, "FN(sees)'s counts per number of places");

#ifndef SEES_TRIAL
/* FN(sees) from three places or more is tried this many times a search at each number
 * of places; when fewer than one in SEES_RATE of them took a candidate, a search stops
 * looking from that many places (and more). Looks from four places take a candidate
 * 0 to 0.8% of the time on non-consecutive, diagonal non-consecutive, knightmare and
 * XV grids, 5 to 13% on taxicab, chess and anti-knight grids; from three, 4 to 6% on
 * diagonal non-consecutive and knightmare grids, 12 to 25% on the others
 * (docs/design.md). */
#define SEES_TRIAL 256
#define SEES_RATE 10
#endif

#ifndef SHIFT_CELLS
/* FN(shifts) looks at the changed cells alone when at most this many changed since its
 * last run in the fixpoint (instructions on six puzzles: knightmare 258 M -> 168 M,
 * diagonal non-consecutive 401 M -> 257 M; 16 and 48 measured about the same). */
#define SHIFT_CELLS 32
#endif

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define FN(name) CAT(name, SUF)
#define STATE FN(state)

typedef struct {
    uint64_t cand[D][W];    /* where each digit may still go */
    uint64_t placed[D][W];  /* where each digit is */
    uint64_t checked[D][W]; /* each digit's cand when the units last found nothing */
    uint64_t triads[D][W];  /* each digit's cand when the triads' last pass began */
    uint64_t open[W];       /* the cells without a digit */
} STATE;

static inline int FN(is_empty)(const uint64_t *a)
{
    uint64_t x = 0;
    for (int k = 0; k < W; k++)
        x |= a[k];
    return x == 0;
}

static inline int FN(first_bit)(const uint64_t *a)
{
    for (int k = 0; k < W; k++)
        if (a[k])
            return k * 64 + __builtin_ctzll(a[k]);
    return -1;
}

/* 1 when exactly one bit of a is set. */
static inline int FN(one_bit)(const uint64_t *a)
{
    int seen = 0;
    for (int k = 0; k < W; k++) {
        if (a[k]) {
            if (seen || (a[k] & (a[k] - 1)))
                return 0;
            seen = 1;
        }
    }
    return seen;
}

/* Place digit d at cell i; 0 when d is no longer possible there. */
static inline int FN(place)(const Layout *lay, STATE *s, int d, int i)
{
    int word = i >> 6;
    uint64_t bit = (uint64_t)1 << (i & 63);
    if (!(s->cand[d][word] & bit))
        return 0;
    const uint64_t *peers = lay->peers + (size_t)i * W;
    for (int e = 0; e < lay->n; e++)
        s->cand[e][word] &= ~bit;
    for (int k = 0; k < W; k++)
        s->cand[d][k] &= ~peers[k];
    if (lay->dpeers) {
        const uint64_t *more = lay->dpeers + ((size_t)d * lay->cells + i) * W;
        for (int k = 0; k < W; k++)
            s->cand[d][k] &= ~more[k];
    }
    s->placed[d][word] |= bit;
    s->open[word] &= ~bit;
    return 1;
}

/* A failure in the cells of ``cells``: each weighs one more in branching. Under
 * shifts, where no propagator is to blame, the cell that lost its last value (or
 * the partner that lost its placed one) alone: weighing its partners in every shift
 * too took more nodes (docs/design.md). */
static inline void FN(weigh)(const uint64_t *cells, uint32_t *weight)
{
    for (int k = 0; k < W; k++)
        for (uint64_t m = cells[k]; m; m &= m - 1)
            weight[k * 64 + __builtin_ctzll(m)]++;
}

/* The cells whose values (cand | placed) changed since ``snap`` was taken (below the
 * root a state only ever loses values), and ``snap`` renewed to the values now. */
static inline void FN(changed_since)(const Layout *lay, const STATE *s, uint64_t *snap,
                                     uint64_t *out)
{
    for (int k = 0; k < W; k++)
        out[k] = 0;
    for (int d = 0; d < lay->n; d++)
        for (int k = 0; k < W; k++) {
            const uint64_t x = s->cand[d][k] | s->placed[d][k];
            out[k] |= snap[d * W + k] ^ x;
            snap[d * W + k] = x;
        }
}

/*
 * Killer cages: the digit sets that make each cage's sum (bit masks, from the caller)
 * and still hold the digits placed in it. Digits in none of them leave the cage's open
 * cells; a digit in all of them but not placed yet has to go somewhere in the cage (no
 * place left: a contradiction; one: placed). The cage's cells are also a unit, so its
 * digits differ. Returns -1 on a contradiction, 1 on a change, else 0.
 */
static int FN(cages)(const Layout *lay, STATE *s, Frame *f)
{
    const int n = lay->n;
    uint32_t *const weight = f->weight;
    /* Only a cage with a cell that changed since the last run began (its own
     * eliminations included) can have news: the others are passed over. */
    uint64_t moved[W];
    FN(changed_since)(lay, s, f->cage_snap, moved);
    if (!f->cage_snap_ok)
        for (int k = 0; k < W; k++)
            moved[k] = ~(uint64_t)0; /* the first run of this fixpoint: every cage */
    f->cage_snap_ok = 1;
    int changed = 0;
    for (int c = 0; c < lay->ncages; c++) {
        const uint64_t *cells = lay->cage_cells + (size_t)c * W;
        uint64_t news = 0;
        for (int k = 0; k < W; k++)
            news |= cells[k] & moved[k];
        if (!news)
            continue;
        uint32_t have = 0, avail = 0; /* digits placed in the cage; still possible there */
        for (int d = 0; d < n; d++) {
            uint64_t x = 0, y = 0;
            for (int k = 0; k < W; k++) {
                x |= s->placed[d][k] & cells[k];
                y |= s->cand[d][k] & cells[k];
            }
            if (x)
                have |= (uint32_t)1 << d;
            if (y)
                avail |= (uint32_t)1 << d;
        }
        uint32_t allowed = 0, required = ~(uint32_t)0;
        for (int j = lay->combo_start[c]; j < lay->combo_start[c + 1]; j++) {
            uint32_t m = lay->combos[j];
            /* a set that keeps the placed digits and whose others can all still go here */
            if ((m & have) == have && (m & ~have & ~avail) == 0) {
                allowed |= m;
                required &= m;
            }
        }
        if (!allowed) {
            FN(weigh)(cells, weight);
            return -1;
        }
        for (int d = 0; d < n; d++) {
            if (allowed >> d & 1)
                continue;
            uint64_t hit = 0;
            for (int k = 0; k < W; k++)
                hit |= s->cand[d][k] & cells[k];
            if (hit) {
                for (int k = 0; k < W; k++)
                    s->cand[d][k] &= ~cells[k];
                changed = 1;
            }
        }
        for (uint32_t m = required & ~have; m; m &= m - 1) {
            int d = __builtin_ctz(m), count = 0;
            uint64_t where[W];
            for (int k = 0; k < W; k++) {
                where[k] = s->cand[d][k] & cells[k];
                count += __builtin_popcountll(where[k]);
            }
            if (count == 0) {
                FN(weigh)(cells, weight);
                return -1;
            }
            if (count == 1) {
                FN(place)(lay, s, d, FN(first_bit)(where));
                changed = 1;
            }
        }
    }
    return changed;
}

/*
 * Cell c's values as a mask (a placed cell's value, an open cell's candidates),
 * gathered once a wake (f->values, f->known) and kept as propagators narrow them: a
 * cell of a global entropy grid is in twelve counts, and gathering was half of that
 * search's instructions.
 */
static inline uint32_t FN(values_of)(const Layout *lay, const STATE *s, Frame *f, int c)
{
    const int word = c >> 6, b = c & 63;
    if (f->known[word] >> b & 1)
        return f->values[c];
    uint32_t v = 0;
    if (s->open[word] >> b & 1) {
        for (int d = 0; d < lay->n; d++)
            v |= (uint32_t)((s->cand[d][word] >> b) & 1) << d;
    } else {
        for (int d = 0; d < lay->n; d++)
            if (s->placed[d][word] >> b & 1) {
                v = (uint32_t)1 << d;
                break;
            }
    }
    f->values[c] = v;
    f->known[word] |= (uint64_t)1 << b;
    return v;
}

/* Cell c's values narrowed from v to w (w a subset of v): -1 when nothing is left or
 * a placed value went, else 1 when some went, 0 when none did. */
static inline int FN(narrow_to)(STATE *s, Frame *f, int c, uint32_t v, uint32_t w)
{
    if (w == v)
        return 0;
    const int word = c >> 6;
    const uint64_t bit = (uint64_t)1 << (c & 63);
    if (!w || !(s->open[word] & bit))
        return -1;
    for (uint32_t gone = v & ~w; gone; gone &= gone - 1)
        s->cand[__builtin_ctz(gone)][word] &= ~bit;
    f->values[c] = w;
    return 1;
}

/*
 * A pair relation between two different cells, as k_relation narrows it, straight on
 * the state: no frame to fill and read back. Such relations (the pairs that are not
 * runs of one offset, which go in as shifts) are most of the propagators of modular,
 * entropic, nabner, kropki and whisper grids; on modular grids the frame was an eighth
 * of the engine's instructions. The narrowing is k_relation's (relation_support).
 */
static int FN(run_pair)(const Layout *lay, STATE *s, const Prop *p, Frame *f)
{
    const int *cells = lay->pint + p->frame, *ix = lay->pint + p->idx;
    const int a = cells[ix[0]], b = cells[ix[1]];
    f->work += p->cost;
    const uint32_t x = FN(values_of)(lay, s, f, a), y = FN(values_of)(lay, s, f, b);
    uint32_t x2 = x;
    const uint32_t y2 = relation_support(lay, p, &x2, y);
    const int ra = FN(narrow_to)(s, f, a, x, x2);
    if (ra < 0)
        return -1;
    const int rb = FN(narrow_to)(s, f, b, y, y2);
    return rb < 0 ? -1 : (ra | rb);
}

/*
 * One propagator beyond the units on the state: its frame's masks gathered, narrowed
 * (_native_props.h), and what went taken out of the candidates. Returns -1 on a
 * contradiction, 1 on a change, else 0.
 */
static int FN(run_top)(const Layout *lay, STATE *s, const Prop *p, Frame *f)
{
    const int nf = p->nframe;
    const int *cells = lay->pint + p->frame;
    uint32_t *m = f->masks, *orig = m + nf;
    if (p->kind == K_RELATION && nf == 2)
        return FN(run_pair)(lay, s, p, f);
    f->work += p->cost;
    for (int k = 0; k < nf; k++)
        m[k] = orig[k] = FN(values_of)(lay, s, f, cells[k]);
    Scratch sc = {m, 2 * (size_t)nf, f->words};
    int step = run_prop(lay, p, m, nf, &sc);
    if (step <= 0)
        return step;
    int changed = 0;
    for (int k = 0; k < nf; k++) {
        if (m[k] == orig[k])
            continue;
        const int c = cells[k], word = c >> 6;
        const uint64_t bit = (uint64_t)1 << (c & 63);
        if (!m[k] || !(s->open[word] & bit))
            return -1; /* nothing left, or a placed value went */
        for (uint32_t gone = orig[k] & ~m[k]; gone; gone &= gone - 1)
            s->cand[__builtin_ctz(gone)][word] &= ~bit;
        f->values[c] = orig[k] & m[k];
        changed = 1;
    }
    return changed;
}

/*
 * The propagators beyond the units whose cells changed since they last looked (every
 * one at the root), each once. Returns -1 on a contradiction, 1 on a change, else 0.
 */
static int FN(wake)(const Layout *lay, STATE *s, Frame *f)
{
    const int qwords = (lay->ntop + 63) >> 6;
    uint64_t *queue = f->queue, diff[W];
    for (int k = 0; k < W; k++)
        f->known[k] = 0;
    FN(changed_since)(lay, s, f->snap, diff);
    if (f->wake_all) {
        for (int j = 0; j < lay->ntop; j++)
            queue[j >> 6] |= (uint64_t)1 << (j & 63);
        f->wake_all = 0;
    } else {
        for (int k = 0; k < W; k++)
            for (uint64_t m = diff[k]; m; m &= m - 1) {
                const int c = k * 64 + __builtin_ctzll(m);
                for (int j = lay->cell_start[c]; j < lay->cell_start[c + 1]; j++) {
                    const int t = lay->cell_props[j];
                    queue[t >> 6] |= (uint64_t)1 << (t & 63);
                }
            }
    }
    int changed = 0;
    for (int q = 0; q < qwords; q++)
        while (queue[q]) {
            const int j = q * 64 + __builtin_ctzll(queue[q]);
            queue[q] &= queue[q] - 1;
            const Prop *p = lay->props + lay->top[j];
            int step = FN(run_top)(lay, s, p, f);
            if (step < 0) {
                for (int k = 0; k < p->nframe; k++) /* its cells weigh more in branching */
                    f->weight[lay->pint[p->frame + k]]++;
                memset(queue, 0, (size_t)qwords * sizeof(uint64_t));
                return -1;
            }
            changed |= step;
        }
    return changed;
}

/*
 * Pair relations seen from a unit: digit d must go in one of the places m of a unit
 * (two to SEES_PLACES of them); a cell outside m that every place rules out e at (a
 * relation forbids it holding e beside d there) cannot hold e. On non-consecutive
 * grids, d between two cells of a row keeps d - 1 and d + 1 out of the cell between;
 * on anti-knight grids, d's places in a box keep d out of the cells a knight's move
 * from all of them. In a unit where two cells are related, each place is looked at
 * too: it holds d or another value beside d at one of the others. Returns 1 when a
 * candidate went.
 */
static int FN(sees)(const Layout *lay, STATE *s, int d, const uint64_t *m, int inside_too)
{
    const int n = lay->n;
    int changed = 0;
    /* d itself: a cell that is a peer of every place (units of every kind, the pairs
     * of relations that only say "differ" among them, and d's own digit peers) */
    uint64_t cut[W], hit = 0;
    for (int k = 0; k < W; k++)
        cut[k] = ~m[k];
    for (int k = 0; k < W; k++)
        for (uint64_t x = m[k]; x; x &= x - 1) {
            const int c = k * 64 + __builtin_ctzll(x);
            const uint64_t *row = lay->peers + (size_t)c * W;
            const uint64_t *more =
                lay->dpeers ? lay->dpeers + ((size_t)d * lay->cells + c) * W : NULL;
            for (int j = 0; j < W; j++)
                cut[j] &= more ? row[j] | more[j] : row[j];
        }
    for (int k = 0; k < W; k++) {
        cut[k] &= s->cand[d][k];
        hit |= cut[k];
        s->cand[d][k] &= ~cut[k];
    }
    changed |= hit != 0;
    if (!lay->sees)
        return changed;
    int at[SEES_PLACES], np = 0;
    uint32_t es = (uint32_t)(((uint64_t)1 << n) - 1);
    uint64_t near[W]; /* the cells every place rules out some value at */
    for (int k = 0; k < W; k++)
        near[k] = ~m[k];
    for (int k = 0; k < W; k++)
        for (uint64_t x = m[k]; x; x &= x - 1) {
            const int c = at[np++] = k * 64 + __builtin_ctzll(x);
            es &= lay->sees_e[(size_t)c * n + d];
            for (int j = 0; j < W; j++)
                near[j] &= lay->sees_near[(size_t)c * W + j];
        }
    /* The places themselves: one holding another value e leaves d to the others, so
     * when each of them rules out e at it, it cannot hold e (on non-consecutive grids,
     * d's two places side by side in a row keep d - 1 and d + 1 out of both). Only in
     * units where two cells are related. */
    for (int i = 0; i < np && inside_too; i++) {
        const int xk = at[i] >> 6;
        const uint64_t xb = (uint64_t)1 << (at[i] & 63);
        uint32_t inside = (uint32_t)(((uint64_t)1 << n) - 1) & ~((uint32_t)1 << d);
        for (int j = 0; j < np && inside; j++)
            if (j != i) {
                if (!(lay->sees_near[(size_t)at[j] * W + xk] & xb))
                    inside = 0; /* a place that rules out nothing here */
                inside &= lay->sees_e[(size_t)at[j] * n + d];
            }
        for (; inside; inside &= inside - 1) {
            const int e = __builtin_ctz(inside);
            if (!(s->cand[e][xk] & xb))
                continue;
            int ruled = 1;
            for (int j = 0; j < np && ruled; j++)
                if (j != i)
                    ruled = (lay->sees[(((size_t)at[j] * n + d) * n + e) * W + xk] & xb) != 0;
            if (ruled) {
                s->cand[e][xk] &= ~xb;
                changed = 1;
            }
        }
    }
    if (FN(is_empty)(near))
        return changed; /* no cell outside that every place rules out anything at */
    for (; es; es &= es - 1) {
        const int e = __builtin_ctz(es);
        hit = 0;
        for (int k = 0; k < W; k++)
            cut[k] = near[k] & s->cand[e][k];
        for (int i = 0; i < np; i++) {
            const uint64_t *row = lay->sees + (((size_t)at[i] * n + d) * n + e) * W;
            for (int j = 0; j < W; j++)
                cut[j] &= row[j];
        }
        for (int k = 0; k < W; k++) {
            hit |= cut[k];
            s->cand[e][k] &= ~cut[k];
        }
        changed |= hit != 0;
    }
    return changed;
}

/* dst = src with every bit i moved to i + delta (bits past either end dropped). */
static inline void FN(shift)(const uint64_t *src, int delta, uint64_t *dst)
{
    const int up = delta > 0, q = (up ? delta : -delta) >> 6, r = (up ? delta : -delta) & 63;
    for (int i = 0; i < W; i++) {
        uint64_t v = 0;
        if (up) {
            if (i - q >= 0) {
                v = src[i - q] << r;
                if (r && i - q - 1 >= 0)
                    v |= src[i - q - 1] >> (64 - r);
            }
        } else if (i + q < W) {
            v = src[i + q] >> r;
            if (r && i + q + 1 < W)
                v |= src[i + q + 1] << (64 - r);
        }
        dst[i] = v;
    }
}

/* The values cell c may hold, as a mask (bit d for digit d + 1). */
static inline uint32_t FN(values_at)(const Layout *lay, uint64_t have[][W], int c)
{
    const int k = c >> 6;
    const uint64_t bit = (uint64_t)1 << (c & 63);
    uint32_t m = 0;
    for (int d = 0; d < lay->n; d++)
        m |= (uint32_t)((have[d][k] & bit) != 0) << d;
    return m;
}

/* The cells with at least one, two, three and four values in ``have``, bit-sliced. */
static inline void FN(at_least)(const Layout *lay, uint64_t have[][W], uint64_t *one,
                                uint64_t *two, uint64_t *three, uint64_t *four)
{
    for (int k = 0; k < W; k++) {
        uint64_t a = 0, b = 0, c = 0, q = 0;
        for (int d = 0; d < lay->n; d++) {
            const uint64_t x = have[d][k];
            q |= c & x;
            c |= b & x;
            b |= a & x;
            a |= x;
        }
        one[k] = a, two[k] = b, three[k] = c, four[k] = q;
    }
}

/*
 * FN(shifts) when few cells changed since its last run (or since the parent state, at
 * the start of a fixpoint below the root): a partner
 * can lose a value only where its cell lost one, so each such cell is looked at in
 * every shift it is in, its partner keeping the values some value of the cell allows
 * beside it. A cell holding more values than any value's barred ones (``shift_most``)
 * leaves its partners every value and is not looked at. The same eliminations the
 * word operations find there, for a few mask tests a cell instead of a pass over
 * every shift and value.
 */
static int FN(shifts_at)(const Layout *lay, STATE *s, uint64_t have[][W], const uint64_t *lost,
                         uint32_t *weight)
{
    const int n = lay->n;
    const uint32_t every = (uint32_t)(((uint64_t)1 << n) - 1);
    /* Only a cell with at most ``most`` values can leave its partner without support
     * for some value: the cells with more are passed over from bit-sliced counts. */
    const int most = lay->shift_most_any;
    uint64_t look[W], count[4][W];
    if (most < 4)
        FN(at_least)(lay, have, count[0], count[1], count[2], count[3]);
    for (int k = 0; k < W; k++)
        look[k] = lost[k] & ~(most < 4 ? count[most][k] : 0);
    int changed = 0;
    for (int k0 = 0; k0 < W; k0++)
        for (uint64_t m = look[k0]; m; m &= m - 1) {
            const int c = k0 * 64 + __builtin_ctzll(m);
            const uint32_t mine = FN(values_at)(lay, have, c);
            const int many = __builtin_popcount(mine);
            const int ww = lay->shift_way_words;
            for (int j = 0; j < ww; j++)
                for (uint64_t ways = lay->shift_ways[(size_t)c * ww + j]; ways; ways &= ways - 1) {
                    /* each shift g and side way (0: c a first cell, 1: a partner) c is in */
                    const int gw = j * 64 + __builtin_ctzll(ways), g = gw >> 1, way = gw & 1;
                    if (many > lay->shift_most[gw])
                        continue;
                    const int delta = lay->shift_delta[g];
                    const uint32_t *fwd = lay->pmask + lay->shift_table[g], *back = fwd + n;
                    /* the values the partner may keep: those some value of c allows */
                    const uint32_t *beside = way ? back : fwd;
                    uint32_t kept = 0;
                    for (uint32_t x = mine; x && kept != every; x &= x - 1)
                        kept |= beside[__builtin_ctz(x)];
                    if (kept == every)
                        continue;
                    const int p = way ? c - delta : c + delta;
                    const int pk = p >> 6;
                    const uint64_t pbit = (uint64_t)1 << (p & 63);
                    for (uint32_t es = every & ~kept; es; es &= es - 1) {
                        const int e = __builtin_ctz(es);
                        if (!(have[e][pk] & pbit))
                            continue;
                        if (s->placed[e][pk] & pbit) {
                            uint64_t at[W] = {0};
                            at[pk] = pbit;
                            FN(weigh)(at, weight);
                            return -1;
                        }
                        s->cand[e][pk] &= ~pbit;
                        have[e][pk] &= ~pbit;
                        changed = 1;
                    }
                }
        }
    return changed;
}

/*
 * Relations over pairs one offset apart (a, a + delta), all pairs of a shift at once:
 * per value e, the first cells with no value the table allows beside e there are
 * shifted onto their partners, which lose e; and the same backwards. Arc consistency
 * on every pair, as the relation kernel gives one pair, in a few word operations per
 * value. A placed partner losing its value is a contradiction (a full grid keeps every
 * relation). When few cells changed since the last run in this fixpoint (or since the
 * parent state, at its first run), FN(shifts_at) looks at those alone. Returns -1 on a contradiction, 1 on a change, else 0.
 */
static int FN(shifts)(const Layout *lay, STATE *s, Frame *f)
{
    const int n = lay->n;
    uint32_t *const weight = f->weight;
    uint64_t have[D][W];
    for (int d = 0; d < n; d++)
        for (int k = 0; k < W; k++)
            have[d][k] = s->cand[d][k] | s->placed[d][k];
    /* The cells that lost a value since the last run began (its own eliminations
     * included, so nothing it left half done is missed); few: look at those alone. */
    const int since = f->shift_snap_ok; /* else the first run of this fixpoint: whole */
    uint64_t lost[W];
    FN(changed_since)(lay, s, f->shift_snap, lost);
    int count = 0;
    for (int k = 0; k < W; k++)
        count += __builtin_popcountll(lost[k]);
    f->shift_snap_ok = 1;
    if (since && count <= SHIFT_CELLS)
        return FN(shifts_at)(lay, s, have, lost, weight);
    /* Cells with at least one, two, three, four values, worked out when first needed:
     * a value e that rules out at most three values beside it finds the cells with no
     * support from those, not from the many values it allows. Cells that lose values
     * later in this run keep their counts, so this finds fewer such cells than it
     * could (never one too many); the fixpoint runs shifts again after a change. */
    uint64_t one[W], two[W], three[W], four[W];
    int counted = 0;
    int changed = 0;
    for (int g = 0; g < lay->nshift; g++) {
        const uint64_t *cells[2] = {lay->shift_bits + (size_t)g * 2 * W,
                                    lay->shift_bits + (size_t)g * 2 * W + W};
        const int delta = lay->shift_delta[g];
        const uint32_t *fwd = lay->pmask + lay->shift_table[g], *back = fwd + n;
        for (int way = 0; way < 2; way++) { /* 0: a to a + delta; 1: back */
            const uint64_t *from = cells[way], *to = cells[1 - way];
            const uint32_t *support = way ? fwd : back; /* the values beside e at from */
            for (int e = 0; e < n; e++) {
                uint64_t any = 0;
                for (int k = 0; k < W; k++)
                    any |= have[e][k] & to[k];
                if (!any)
                    continue;
                uint64_t none[W], out[W];
                const uint32_t code = lay->shift_barred[(g * 2 + way) * n + e];
                if (code != SHIFT_LOOP) {
                    if (!counted) {
                        FN(at_least)(lay, have, one, two, three, four);
                        counted = 1;
                    }
                    /* no support: no value, or only barred ones */
                    const uint64_t *hf = have[code & 31], *hm = have[code >> 5 & 31],
                                   *hh = have[code >> 10 & 31];
                    switch (code >> 15) {
                    case 0:
                        for (int k = 0; k < W; k++)
                            none[k] = from[k] & ~one[k];
                        break;
                    case 1:
                        for (int k = 0; k < W; k++)
                            none[k] = from[k] & (~one[k] | (hf[k] & ~two[k]));
                        break;
                    case 2:
                        for (int k = 0; k < W; k++)
                            none[k] = from[k] & (~one[k] | ((hf[k] | hm[k]) & ~two[k]) |
                                                 (hf[k] & hm[k] & ~three[k]));
                        break;
                    default:
                        for (int k = 0; k < W; k++)
                            none[k] = from[k] &
                                      (~one[k] | ((hf[k] | hm[k] | hh[k]) & ~two[k]) |
                                       (((hf[k] & hm[k]) | (hf[k] & hh[k]) | (hm[k] & hh[k])) &
                                        ~three[k]) |
                                       (hf[k] & hm[k] & hh[k] & ~four[k]));
                    }
                } else {
                    for (int k = 0; k < W; k++)
                        none[k] = from[k];
                    for (uint32_t x = support[e]; x; x &= x - 1)
                        for (int k = 0; k < W; k++)
                            none[k] &= ~have[__builtin_ctz(x)][k];
                }
                FN(shift)(none, way ? -delta : delta, out);
                for (int k = 0; k < W; k++) {
                    const uint64_t hit = out[k] & have[e][k];
                    if (hit & s->placed[e][k]) {
                        uint64_t at[W] = {0};
                        at[k] = hit & s->placed[e][k];
                        FN(weigh)(at, weight);
                        return -1;
                    }
                    if (hit) {
                        s->cand[e][k] &= ~hit;
                        have[e][k] &= ~hit;
                        changed = 1;
                    }
                }
            }
        }
    }
    return changed;
}

/* Per class of the bit-board counts, the cells that may hold one of its values (in)
 * and those that may hold another (out). */
static inline void FN(bcount_unions)(const Layout *lay, const STATE *s, uint64_t in[][W],
                                     uint64_t out[][W])
{
    const int classes = lay->nbclass;
    if (lay->bc_disjoint) {
        /* Per class the union of its values (the last: of the values in none); the
         * others of a class are the classes before it and those after. */
        for (int k = 0; k < W; k++) {
            uint64_t of[BCLASSES + 1], after[BCLASSES + 2];
            for (int c = 0; c <= classes; c++)
                of[c] = 0;
            for (int d = 0; d < lay->n; d++)
                of[lay->bc_class_of[d]] |= s->cand[d][k] | s->placed[d][k];
            after[classes] = of[classes];
            for (int c = classes - 1; c >= 0; c--)
                after[c] = after[c + 1] | of[c];
            uint64_t before = 0;
            for (int c = 0; c < classes; c++) {
                in[c][k] = of[c];
                out[c][k] = before | after[c + 1];
                before |= of[c];
            }
        }
        return;
    }
    uint64_t x[D][W];
    for (int d = 0; d < lay->n; d++)
        for (int k = 0; k < W; k++)
            x[d][k] = s->cand[d][k] | s->placed[d][k];
    for (int c = 0; c < classes; c++) {
        const uint32_t mask = lay->bclass_mask[c];
        for (int k = 0; k < W; k++) {
            uint64_t i = 0, o = 0;
            for (int d = 0; d < lay->n; d++) {
                if (mask >> d & 1)
                    i |= x[d][k];
                else
                    o |= x[d][k];
            }
            in[c][k] = i;
            out[c][k] = o;
        }
    }
}

/* Per class, the cells whose union moved since the snapshot (all, without one). */
static inline void FN(bcount_moved)(const Layout *lay, const Frame *f, uint64_t in[][W],
                                    uint64_t out[][W], uint64_t moved[][W])
{
    for (int c = 0; c < lay->nbclass; c++)
        for (int k = 0; k < W; k++)
            moved[c][k] = f->bc_snap_ok ? (in[c][k] ^ f->bc_in[c][k]) | (out[c][k] ^ f->bc_out[c][k])
                                        : ~(uint64_t)0;
}

/* OR into ``look`` the bit-board counts from index ``from`` on that hold any of
 * ``cells`` (the layout's index, bc_of_cell). */
static inline void FN(bcount_mark)(const Layout *lay, const uint64_t *cells, uint64_t *look,
                                   int from)
{
    const int bw = lay->bc_words, w0 = from / 64;
    const uint64_t first = ~(uint64_t)0 << (from % 64);
    for (int k = 0; k < W; k++)
        for (uint64_t m = cells[k]; m; m &= m - 1) {
            const uint64_t *of = lay->bc_of_cell + (size_t)(k * 64 + __builtin_ctzll(m)) * bw;
            look[w0] |= of[w0] & first;
            for (int w = w0 + 1; w < bw; w++)
                look[w] |= of[w];
        }
}

/*
 * The counts on the bit boards (bit_counts in _native.c): per count, its cells that
 * must hold its class (only the class) and may (both) as two popcounts of the
 * unions. No count allowed between must and must + may: a contradiction (its cells
 * weigh more). The highest allowed reached: the class leaves the cells that may; the
 * lowest needs them all: they keep only the class. Only the counts whose cells moved
 * since the pass before (or the parent state, where all held) look. Returns -1, 1
 * when a cell lost values, else 0.
 */
static int FN(bcounts)(const Layout *lay, STATE *s, Frame *f)
{
    const int n = lay->n, classes = lay->nbclass;
    uint64_t in[BCLASSES][W], out[BCLASSES][W], moved[BCLASSES][W];
    int changed = 0;
    f->work += lay->bc_cost;
    FN(bcount_unions)(lay, s, in, out);
    FN(bcount_moved)(lay, f, in, out, moved);
    /* The next pass looks from the unions this one begins with: every count holds
     * there, or is looked at again below after its cells change. */
    for (int c = 0; c < classes; c++)
        for (int k = 0; k < W; k++) {
            f->bc_in[c][k] = in[c][k];
            f->bc_out[c][k] = out[c][k];
        }
    /* The counts to look at, in order: with the index (bc_of_cell), those holding a
     * cell that moved and, on the way, the later ones holding a cell a count changed;
     * without it, every one. Either way each then tests its own cells against what
     * moved for its class, so both visit the same counts. */
    const int bw = lay->bc_words;
    uint64_t look[BC_INDEX_WORDS];
    if (lay->bc_of_cell) {
        uint64_t any[W];
        for (int k = 0; k < W; k++) {
            any[k] = 0;
            for (int c = 0; c < classes; c++)
                any[k] |= moved[c][k];
        }
        for (int w = 0; w < bw; w++)
            look[w] = f->bc_snap_ok ? 0 : ~(uint64_t)0;
        if (f->bc_snap_ok)
            FN(bcount_mark)(lay, any, look, 0);
    }
    for (int w = 0, j = -1;;) {
        if (lay->bc_of_cell) {
            while (w < bw && !look[w])
                w++;
            if (w == bw)
                break;
            j = w * 64 + __builtin_ctzll(look[w]);
            look[w] &= look[w] - 1;
            if (j >= lay->nbcount)
                break; /* past the last count: only a whole pass sets these bits */
        } else if (++j >= lay->nbcount) {
            break;
        }
        const uint64_t *cells = lay->bc_cells + (size_t)j * W;
        const int c = lay->bc_class[j];
        uint64_t touched = 0; /* its cells as they were when it last held: nothing to do */
        for (int k = 0; k < W; k++)
            touched |= cells[k] & moved[c][k];
        if (!touched)
            continue;
        uint64_t maybe[W];
        int must = 0, may = 0;
        for (int k = 0; k < W; k++) {
            const uint64_t i = cells[k] & in[c][k], o = cells[k] & out[c][k];
            maybe[k] = i & o;
            must += __builtin_popcountll(i & ~o);
            may += __builtin_popcountll(maybe[k]);
        }
        const uint64_t fit = lay->bc_counts[j] & (((uint64_t)2 << (must + may)) - 1) &
                             ~(((uint64_t)1 << must) - 1);
        if (!fit) {
            FN(weigh)(cells, f->weight);
            return -1;
        }
        if (!may)
            continue;
        const int lo = __builtin_ctzll(fit), hi = 63 - __builtin_clzll(fit);
        uint32_t gone;
        if (hi == must)
            gone = lay->bclass_mask[c]; /* no more: the cells that may hold others */
        else if (lo == must + may)
            gone = ~lay->bclass_mask[c]; /* every one needed: they hold the class */
        else
            continue;
        for (int d = 0; d < n; d++)
            if (gone >> d & 1)
                for (int k = 0; k < W; k++)
                    s->cand[d][k] &= ~maybe[k];
        changed = 1;
        /* the later counts see the cells as they are now; those it changed look again */
        FN(bcount_unions)(lay, s, in, out);
        for (int c2 = 0; c2 < classes; c2++)
            for (int k = 0; k < W; k++)
                moved[c2][k] |= maybe[k];
        if (lay->bc_of_cell && j + 1 < lay->nbcount)
            FN(bcount_mark)(lay, maybe, look, j + 1);
    }
    f->bc_snap_ok = 1;
    return changed;
}

/*
 * Triad t: where a unit A of n cells meets another unit B in k cells (a box's
 * mini-row), k open cells that can hold only k digits between them hold those (a
 * naked set: the digits leave the rest of A and B), and k digits that must be in the
 * intersection (each locked in by A or by B) fill it (a hidden set: no other digit
 * stays there). Sets *changed when it took a candidate; -1 on a contradiction (fewer
 * digits than open cells, or more locked in).
 */
static inline int FN(triad)(const Layout *lay, STATE *s, int t, int *changed)
{
    const int n = lay->n;
    const uint64_t *cells = lay->triad_cells + (size_t)t * W;
    const uint64_t *around = lay->triad_around + (size_t)t * W;
    const uint64_t *ua = lay->triad_a_out + (size_t)t * W;
    const uint64_t *ub = lay->triad_b_out + (size_t)t * W;
    uint64_t free[W];
    int open_count = 0;
    for (int k = 0; k < W; k++) {
        free[k] = cells[k] & s->open[k];
        open_count += __builtin_popcountll(free[k]);
    }
    if (open_count < 2)
        return 0;
    uint64_t seen = 0, locked = 0;
    for (int d = 0; d < n; d++) {
        uint64_t in = 0, out_a = 0, out_b = 0;
        for (int k = 0; k < W; k++) {
            uint64_t c = s->cand[d][k];
            in |= c & free[k];
            out_a |= c & ua[k];
            out_b |= c & ub[k];
        }
        if (in) {
            seen |= (uint64_t)1 << d;
            if (!out_a || !out_b)
                locked |= (uint64_t)1 << d;
        }
    }
    int nseen = __builtin_popcountll(seen), nlocked = __builtin_popcountll(locked);
    if (nseen < open_count || nlocked > open_count)
        return -1;
    if (nseen == open_count) {
        for (uint64_t m = seen; m; m &= m - 1) {
            int d = __builtin_ctzll(m);
            for (int k = 0; k < W; k++) {
                if (s->cand[d][k] & around[k]) {
                    s->cand[d][k] &= ~around[k];
                    *changed = 1;
                }
            }
        }
    }
    if (nlocked == open_count && seen != locked) {
        for (uint64_t m = seen & ~locked; m; m &= m - 1) {
            int d = __builtin_ctzll(m);
            for (int k = 0; k < W; k++)
                s->cand[d][k] &= ~free[k];
        }
        *changed = 1;
    }
    return 0;
}

#if W == 2
typedef unsigned __int128 FN(u128);
#define U128(lo, hi) (((FN(u128))(hi) << 64) | (FN(u128))(lo))

/* Of three places p, p + step, p + 2 step (the class masks c0, c1, c2 mark each
 * one's place in its group): whether either of the other two is set, at p. */
static inline FN(u128) FN(others)(FN(u128) x, int step, FN(u128) c0, FN(u128) c1, FN(u128) c2)
{
    return ((x >> step) & (c0 | c1)) | ((x >> 2 * step) & c0) | ((x << step) & (c1 | c2)) |
           ((x << 2 * step) & c2);
}

/* Saturating counters of set bits: at[k] |= where x is set and k earlier words were. */
static inline void FN(tally)(FN(u128) *at, int most, FN(u128) x)
{
    for (int k = most - 1; k > 0; k--)
        at[k] |= at[k - 1] & x;
    at[0] |= x;
}

/*
 * The 54 triads of a row or column and a box on a 9x9 grid, all at once: per digit,
 * which mini-rows (bit 9r + 3b) and mini-columns (bit 27a + c) hold it, which of
 * those the rest of the line or of the box does not (locked in), summed over the
 * digits as "four or more seen" and "two or more locked". A triad acts only when it
 * sees no more digits than its open cells (at most three) or locks two or more in,
 * with two open cells or more; those go through FN(triad), the rest are passed by.
 * Same deductions as the loop over every triad, a fifth of its work (docs/design.md).
 */
static int FN(box_triads)(const Layout *lay, STATE *s, int *changed)
{
    /* SR: the first cell of every mini-row (bit 9r + 3b); P0-P2: those of box column
     * 0-2 (a mini-row's place among its row's three); Q0-Q2: those of rows 3i + 0-2
     * (its place among its box's three). SC: the first cell of every mini-column (bit
     * 27a + c); C0-C2: those of box row 0-2; K0-K2: those of columns 3i + 0-2. */
    const FN(u128) SR = U128(0x9249249249249249ull, 0x4924ull),
                   SC = U128(0x7fc0000ff80001ffull, 0),
                   P0 = U128(0x8040201008040201ull, 0x100ull),
                   P1 = U128(0x0201008040201008ull, 0x804ull),
                   P2 = U128(0x1008040201008040ull, 0x4020ull),
                   Q0 = U128(0x1240000248000049ull, 0),
                   Q1 = U128(0x8000049000009200ull, 0x24ull),
                   Q2 = U128(0x0009200001240000ull, 0x4900ull),
                   C0 = U128(0x1ffull, 0), C1 = U128(0xff8000000ull, 0),
                   C2 = U128(0x7fc0000000000000ull, 0),
                   K0 = U128(0x1240000248000049ull, 0),
                   K1 = U128(0x2480000490000092ull, 0),
                   K2 = U128(0x4900000920000124ull, 0);
    /* per side (mini-rows, mini-columns): seen[side][k], the places k + 1 digits or
     * more were seen at; locked[side][k], k + 1 or more locked in */
    FN(u128) seen[2][4] = {{0}}, locked[2][2] = {{0}};
    for (int d = 0; d < lay->n; d++) {
        const FN(u128) x = U128(s->cand[d][0], s->cand[d][1]);
        const FN(u128) mr = (x | x >> 1 | x >> 2) & SR, mc = (x | x >> 9 | x >> 18) & SC;
        FN(tally)(seen[0], 4, mr);
        FN(tally)(seen[1], 4, mc);
        FN(tally)(locked[0], 2,
                  mr & ~(FN(others)(mr, 3, P0, P1, P2) & FN(others)(mr, 9, Q0, Q1, Q2)));
        FN(tally)(locked[1], 2,
                  mc & ~(FN(others)(mc, 27, C0, C1, C2) & FN(others)(mc, 1, K0, K1, K2)));
    }
    const FN(u128) o = U128(s->open[0], s->open[1]);
    const FN(u128) or1 = o >> 1, or2 = o >> 2, oc1 = o >> 9, oc2 = o >> 18;
    const FN(u128) two_r = ((o & or1) | (o & or2) | (or1 & or2)) & SR,
                   two_c = ((o & oc1) | (o & oc2) | (oc1 & oc2)) & SC;
    FN(u128) look[2] = {two_r & (~seen[0][3] | locked[0][1]),
                        two_c & (~seen[1][3] | locked[1][1])};
    for (int side = 0; side < 2; side++)
        for (FN(u128) m = look[side]; m; m &= m - 1) {
            const uint64_t lo = (uint64_t)m;
            const int at = lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(m >> 64));
            if (FN(triad)(lay, s, lay->tri_at[side][at], changed) < 0)
                return -1;
        }
    return 0;
}
#undef U128
#endif

/*
 * Singles, locked candidates, triads and the propagators beyond the units to a
 * fixpoint. ``base`` is the state this one was copied from (its propagators were at
 * their fixpoint there), NULL at the root. Returns 0 on a contradiction.
 */
static inline __attribute__((always_inline)) int
FN(propagate_body)(const Layout *lay, STATE *s, uint64_t *pairs_out, Frame *f,
                   const STATE *base, const int generic)
{
    const int n = lay->n;
    /* The shifts, the cages and the propagators look from what changed since the
     * state this one was copied from (they all held there); at the root the shifts
     * and the cages start with a whole pass, and every propagator looks. */
    const int shifts = base && lay->nshift, cages = base && lay->ncages,
              wake = base && generic && lay->ntop;
    f->shift_snap_ok = shifts;
    f->cage_snap_ok = cages;
    if (shifts || cages || wake)
        for (int d = 0; d < n; d++)
            for (int k = 0; k < W; k++) {
                const uint64_t x = base->cand[d][k] | base->placed[d][k];
                if (shifts)
                    f->shift_snap[d * W + k] = x;
                if (cages)
                    f->cage_snap[d * W + k] = x;
                if (wake)
                    f->snap[d * W + k] = x;
            }
    if (!base && generic && lay->ntop)
        f->wake_all = 1;
    f->bc_snap_ok = 0; /* the counts held at base: its unions are where they look from */
    if (base && lay->nbcount) {
        uint64_t in[BCLASSES][W], out[BCLASSES][W];
        FN(bcount_unions)(lay, base, in, out);
        for (int c = 0; c < lay->nbclass; c++)
            for (int k = 0; k < W; k++) {
                f->bc_in[c][k] = in[c][k];
                f->bc_out[c][k] = out[c][k];
            }
        f->bc_snap_ok = 1;
    }
    for (;;) {
        uint64_t one[W], two[W], three[W];
        for (int k = 0; k < W; k++)
            one[k] = two[k] = three[k] = 0;
        for (int d = 0; d < n; d++) {
            for (int k = 0; k < W; k++) {
                uint64_t x = s->cand[d][k];
                three[k] |= two[k] & x;
                two[k] |= one[k] & x;
                one[k] |= x;
            }
        }
        uint64_t single[W], dead = 0, any_single = 0;
        for (int k = 0; k < W; k++) {
            dead |= s->open[k] & ~one[k];
            single[k] = one[k] & ~two[k];
            any_single |= single[k];
        }
        if (dead) {
            if (lay->nshift || lay->dpeers) { /* no propagator to blame: weigh the emptied */
                uint64_t gone[W];
                for (int k = 0; k < W; k++)
                    gone[k] = s->open[k] & ~one[k];
                FN(weigh)(gone, f->weight);
            }
            return 0;
        }
        if (any_single) {
            for (int k = 0; k < W; k++) {
                uint64_t m = single[k];
                while (m) {
                    int i = k * 64 + __builtin_ctzll(m);
                    m &= m - 1;
                    uint64_t bit = (uint64_t)1 << (i & 63);
                    int d = 0;
                    while (d < n && !(s->cand[d][k] & bit))
                        d++;
                    if (d == n)
                        return 0; /* a placement in this batch took its last value */
                    FN(place)(lay, s, d, i);
                }
            }
            continue;
        }
        if (lay->nshift) { /* before "solved": a full grid must keep every relation */
            int step = FN(shifts)(lay, s, f);
            if (step < 0)
                return 0;
            if (step > 0)
                continue;
        }
        if (lay->ncages) { /* before "solved": a full cage must still make its sum */
            int step = FN(cages)(lay, s, f);
            if (step < 0)
                return 0;
            if (step > 0)
                continue;
        }
        if (lay->nbcount) { /* before "solved": a full grid must keep every count */
            int step = FN(bcounts)(lay, s, f);
            if (step < 0)
                return 0;
            if (step > 0)
                continue;
        }
        if (generic && lay->ntop) { /* before "solved" too: a full grid must keep every rule */
            int step = FN(wake)(lay, s, f);
            if (step < 0)
                return 0;
            if (step > 0)
                continue;
        }
        if (FN(is_empty)(s->open)) {
            return 1;
        }
        /*
         * One pass over the units of n cells and the digits: a digit with no place
         * left in a unit (and not placed there) is a contradiction, one place is a
         * hidden single, and a few places all inside another unit B lock the digit
         * out of the rest of B (locked candidates: pointing and claiming).
         */
        int changed = 0;
        for (int d = 0; d < n; d++) {
            uint64_t gone[W];
            int lost = 0;
            for (int k = 0; k < W; k++) {
                gone[k] = (s->cand[d][k] ^ s->checked[d][k]) & lay->all[k];
                lost += __builtin_popcountll(gone[k]);
            }
            if (!lost)
                continue; /* nothing new for this digit since its units last said nothing */
            memcpy(s->checked[d], s->cand[d], sizeof(s->checked[d]));
            /* Only a unit that lost a place for d can have news: those of the cells gone. */
            uint64_t units[UNIT_WORDS];
            if (lost > 16) {
                memcpy(units, lay->all_units, sizeof(units));
            } else {
                memset(units, 0, sizeof(units));
                units_holding(lay, gone, W, units);
            }
            for (int j = 0; j < UNIT_WORDS; j++)
            for (uint64_t um = units[j]; um; um &= um - 1) {
                const int u = j * 64 + __builtin_ctzll(um);
                const uint64_t *unit = lay->unit_bits + (size_t)u * W;
                uint64_t m[W];
                int count = 0;
                for (int k = 0; k < W; k++) {
                    m[k] = s->cand[d][k] & unit[k];
                    count += __builtin_popcountll(m[k]);
                }
                if (count == 0) {
                    uint64_t there = 0;
                    for (int k = 0; k < W; k++)
                        there |= s->placed[d][k] & unit[k];
                    if (!there)
                        return 0;
                } else if (count == 1) {
                    FN(place)(lay, s, d, FN(first_bit)(m));
                    changed = 1;
                } else {
                    if (lay->sees_on && count <= f->sees_most) {
                        const int hit =
                            FN(sees)(lay, s, d, m, (lay->sees_inside[u >> 6] >> (u & 63)) & 1);
                        changed |= hit;
                        /* three places or more: tried SEES_TRIAL times, kept if they pay */
                        if (count > 2 && f->sees_calls[count] < SEES_TRIAL) {
                            f->sees_hits[count] += hit;
                            if (++f->sees_calls[count] == SEES_TRIAL &&
                                f->sees_hits[count] * SEES_RATE < SEES_TRIAL)
                                f->sees_most = count - 1;
                        }
                    }
                    if (count > lay->max_inter)
                        continue;
                    for (int p = lay->pair_start[u]; p < lay->pair_start[u + 1]; p++) {
                        const uint64_t *inter = lay->pair_inter + (size_t)p * W;
                        const uint64_t *rest = lay->pair_rest + (size_t)p * W;
                        uint64_t outside = 0, hit = 0;
                        for (int k = 0; k < W; k++)
                            outside |= m[k] & ~inter[k];
                        if (outside)
                            continue; /* most pairs: the digit is not locked in this one */
                        for (int k = 0; k < W; k++)
                            hit |= s->cand[d][k] & rest[k];
                        if (hit) {
                            for (int k = 0; k < W; k++)
                                s->cand[d][k] &= ~rest[k];
                            changed = 1;
                        }
                    }
                }
            }
        }
        if (changed)
            continue;
        /* Triads (FN(triad)): on a 9x9 grid of boxes, the 54 of lines and boxes are
         * first looked at all at once (FN(box_triads)), then every other one. A triad
         * reads the candidates of A and B alone (a placed cell has none): one whose
         * cells kept theirs since the last pass began finds what it found then,
         * nothing (it changed something: its cells moved). The root's snapshot is
         * empty, so there every triad with an open cell looks. */
#if W == 2
        if (lay->tri_fast && FN(box_triads)(lay, s, &changed) < 0)
            return 0;
#endif
        if (lay->ntriad_rest) {
            uint64_t moved[W];
            for (int k = 0; k < W; k++)
                moved[k] = 0;
            for (int d = 0; d < n; d++)
                for (int k = 0; k < W; k++) {
                    moved[k] |= s->cand[d][k] ^ s->triads[d][k];
                    s->triads[d][k] = s->cand[d][k];
                }
            for (int j = 0; j < lay->ntriad_rest; j++) {
                const int t = lay->triad_rest[j];
                const uint64_t *cells = lay->triad_cells + (size_t)t * W;
                const uint64_t *around = lay->triad_around + (size_t)t * W;
                uint64_t touched = 0;
                for (int k = 0; k < W; k++)
                    touched |= (cells[k] | around[k]) & moved[k];
                if (touched && FN(triad)(lay, s, t, &changed) < 0)
                    return 0;
            }
        }
        if (!changed) {
            for (int k = 0; k < W; k++)
                pairs_out[k] = two[k] & ~three[k];
            return 1;
        }
    }
}

/*
 * The fixpoint, compiled twice: without the propagators beyond the units (units and
 * cages only: classic grids pay nothing for them) and with them.
 */
static int FN(propagate_units)(const Layout *lay, STATE *s, uint64_t *pairs_out, Frame *f,
                               const STATE *base)
{
    return FN(propagate_body)(lay, s, pairs_out, f, base, 0);
}

static int FN(propagate_props)(const Layout *lay, STATE *s, uint64_t *pairs_out, Frame *f,
                               const STATE *base)
{
    return FN(propagate_body)(lay, s, pairs_out, f, base, 1);
}

/*
 * With propagators beyond the units: the open cell with the fewest candidates for
 * its weight, the failures of its propagators so far (dom/wdeg), so the search goes
 * first where the rules beyond the units keep failing. Cages count as such rules:
 * on renban lines (cages without a sum) 95 guesses a puzzle against 573 with
 * FN(choose), on generated killers 13.5 against 8.6 (docs/design.md).
 */
static int FN(choose_weighted)(const Layout *lay, const STATE *s, const Frame *f)
{
    int best = -1;
    long long best_count = 1, best_weight = 0;
    /* every cell's number of candidates at once, as bit-sliced counters (bit b of
     * cell i's count in sliced[b], up to 63: six bits), not digit by digit per cell */
    uint64_t sliced[6][W] = {{0}};
    int bits = 1;
    for (int d = 0; d < lay->n; d++)
        for (int k = 0; k < W; k++) {
            uint64_t carry = s->cand[d][k];
            for (int b = 0; carry; b++) {
                const uint64_t t = sliced[b][k] & carry;
                sliced[b][k] ^= carry;
                carry = t;
                if (b + 1 > bits)
                    bits = b + 1;
            }
        }
    for (int k = 0; k < W; k++)
        for (uint64_t m = s->open[k]; m; m &= m - 1) {
            const int at = __builtin_ctzll(m), c = k * 64 + at;
            long long count = 0;
            for (int b = 0; b < bits; b++)
                count |= (long long)(sliced[b][k] >> at & 1) << b;
            const long long weight = 1 + f->weight[c];
            if (best < 0 || count * best_weight < best_count * weight) {
                best = c;
                best_count = count;
                best_weight = weight;
            }
        }
    return best;
}

/* The cell to branch on: the first with two candidates, else one with the fewest. */
static int FN(choose)(const Layout *lay, const STATE *s, const uint64_t *pairs)
{
#ifndef CHOOSE_FIRST
    int best_pair = -1, most = -1;
    for (int k = 0; k < W; k++) {
        for (uint64_t m = pairs[k]; m; m &= m - 1) {
            int c = k * 64 + __builtin_ctzll(m);
            const uint64_t *peers = lay->peers + (size_t)c * W;
            int links = 0;
            for (int j = 0; j < W; j++)
                links += __builtin_popcountll(peers[j] & s->open[j]);
            if (links > most) {
                most = links;
                best_pair = c;
            }
        }
    }
    if (best_pair >= 0)
        return best_pair;
#else
    int i = FN(first_bit)(pairs);
    if (i >= 0)
        return i;
#endif
    int best = -1, best_count = lay->n + 1;
    for (int k = 0; k < W; k++) {
        uint64_t m = s->open[k];
        while (m) {
            int c = k * 64 + __builtin_ctzll(m);
            uint64_t bit = m & -m;
            m &= m - 1;
            int count = 0;
            for (int d = 0; d < lay->n; d++)
                count += (s->cand[d][k] & bit) != 0;
            if (count < best_count) {
                best_count = count;
                best = c;
            }
        }
    }
    return best;
}

/*
 * With digit peers (self-taxicab: a digit kept from the cells d away): a digit with
 * fewer places left in a unit of n cells than the chosen cell has candidates (and two
 * or more) is branched on instead, one place after another. Returns -1 - (unit * 32 +
 * digit) for cell_at, and its places (bit j: the unit's j-th cell), or 0 with none.
 * Only there: on self-taxicab it halves the guesses (docs/design.md); on
 * non-consecutive, diagonal non-consecutive and global entropy it doubled them.
 */
static int FN(choose_places)(const Layout *lay, const STATE *s, int most, uint64_t *places)
{
    int best = 0;
    for (int u = 0; u < lay->full_units && most > 2; u++) {
        const uint64_t *unit = lay->unit_bits + (size_t)u * W;
        for (int d = 0; d < lay->n; d++) {
            int count = 0;
            for (int k = 0; k < W; k++)
                count += __builtin_popcountll(s->cand[d][k] & unit[k]);
            if (count >= 2 && count < most) {
                most = count;
                best = -1 - (u * 32 + d);
            }
        }
    }
    if (best) {
        const int u = (-1 - best) / 32, d = (-1 - best) % 32;
        const uint64_t *unit = lay->unit_bits + (size_t)u * W;
        uint64_t bits = 0;
        int j = 0;
        for (int k = 0; k < W; k++)
            for (uint64_t m = unit[k]; m; m &= m - 1, j++)
                if (s->cand[d][k] & m & -m)
                    bits |= (uint64_t)1 << j;
        *places = bits;
    }
    return best;
}

/* The j-th cell of unit u (in the order of its bits). */
static int FN(unit_cell)(const Layout *lay, int u, int j)
{
    const uint64_t *unit = lay->unit_bits + (size_t)u * W;
    for (int k = 0; k < W; k++) {
        const int here = __builtin_popcountll(unit[k]);
        if (j < here) {
            uint64_t m = unit[k];
            while (j--)
                m &= m - 1;
            return k * 64 + __builtin_ctzll(m);
        }
        j -= here;
    }
    return -1; /* unreachable: j is a place of the unit */
}

/*
 * With digit peers (self-taxicab) or counts that cap their values (global entropy
 * and modular, counting circles; not a quadruple's "at least"), before the search: each value of each open cell placed in
 * turn on a copy (t) and propagated; a value that fails is dropped from s, and s
 * propagated again. One pass: a second found little and cost more (self-taxicab
 * 1,285 -> 1,957 nodes a puzzle). Each placement counts as a node (limits and budget
 * held). Returns 0 to go on, -1 when s has no solution, or the status of the limit
 * that stopped it. Instructions on six puzzles: self-taxicab 411 M -> 142 M, global
 * entropy 807 M -> 304 M, global modular 409 M -> 254 M, counting circles 95 M -> 75
 * M; on quadruples (30 M -> 35 M) and the other layouts it cost more than it saved,
 * up to five times on the cheap puzzles (docs/design.md).
 */
static int FN(probe)(const Layout *lay, STATE *s, STATE *t, uint64_t *pairs, Frame *frames,
                     Outcome *out, const Limits *lim,
                     int (*propagate)(const Layout *, STATE *, uint64_t *, Frame *, const STATE *))
{
    for (int k = 0; k < W; k++)
        for (uint64_t m = s->open[k]; m; m &= m - 1) {
            const int c = k * 64 + __builtin_ctzll(m);
            const uint64_t bit = m & -m;
            for (int d = 0; d < lay->n && (s->open[k] & bit); d++) {
                if (!(s->cand[d][k] & bit))
                    continue;
                const int stop = count_branch(out, lim, 0, frames->work);
                if (stop)
                    return stop;
                memcpy(t, s, sizeof(STATE));
                if (FN(place)(lay, t, d, c) && propagate(lay, t, pairs, frames, s))
                    continue;
                s->cand[d][k] &= ~bit;
                if (!propagate(lay, s, pairs, frames, NULL))
                    return -1;
            }
        }
    return 0;
}

static void FN(write_grid)(const Layout *lay, const STATE *s, uint8_t *out)
{
    for (int d = 0; d < lay->n; d++)
        for (int k = 0; k < W; k++) {
            uint64_t m = s->placed[d][k];
            while (m) {
                out[k * 64 + __builtin_ctzll(m)] = (uint8_t)(d + 1);
                m &= m - 1;
            }
        }
}

/*
 * The nodes (work counted) after which a search first starts again the other way
 * (lim->restart, else 80,000,000 / cells): twice the default route's budget for
 * rules beyond the units (native_budget in cpsudoku/engines/default.py), so that the
 * route never sees a restart, and one to two seconds of search before the first.
 * Blank grids with a few two-cell thermometers take tens of millions of nodes by
 * cells and under a million by places with probing; killers go the other way
 * (docs/design.md).
 */
static inline long long FN(restart_cap)(const Layout *lay, const Limits *lim)
{
    return lim->restart > 0 ? lim->restart : 80000000LL / lay->cells;
}

/*
 * One run of the search from the root state stack[0] (propagated). places: branch on
 * a digit's places where it has fewer than the cell has candidates, and probe every
 * node (FN(probe)). Returns the status that ends the search, or ST_RESTART when the
 * nodes and work pass stop_at.
 */
static int FN(run)(const Layout *lay, STATE *stack, uint64_t *pairs, Frame *frames, Outcome *out,
                   const Limits *lim, uint8_t *sol,
                   int (*propagate)(const Layout *, STATE *, uint64_t *, Frame *, const STATE *),
                   int places, long long stop_at)
{
    const int n = lay->n, cells = lay->cells;
    int *cell_at = frames->cells;
    uint64_t *todo = frames->todo; /* the digits still to try at each depth */
    const int weighted =
        places || lay->ntop || lay->ncages || lay->nshift || lay->dpeers || lay->nbcount;
    int depth = 0;
    for (;;) {
        STATE *cur = &stack[depth];
        if (places && !FN(is_empty)(cur->open)) {
            const int why = FN(probe)(lay, cur, &stack[depth + 1], pairs, frames, out, lim, propagate);
            if (why > 0)
                return why;
            if (why < 0) { /* no solution below: back to the parent's next digit */
                if (depth == 0)
                    return ST_DONE;
                depth--;
                goto next;
            }
        }
        if (FN(is_empty)(cur->open)) {
            if (out->count < 2)
                FN(write_grid)(lay, cur, sol + (size_t)out->count * cells);
            if (++out->count >= lim->limit)
                return ST_LIMIT;
            depth--; /* this state is spent: go on with its parent's next digit */
        } else {
            int c = weighted ? FN(choose_weighted)(lay, cur, frames) : FN(choose)(lay, cur, pairs);
            uint64_t digits = 0, bit = (uint64_t)1 << (c & 63);
            for (int d = 0; d < n; d++)
                if (cur->cand[d][c >> 6] & bit)
                    digits |= (uint64_t)1 << d;
            cell_at[depth] = c;
            todo[depth] = digits;
            uint64_t at_places;
            const int at = lay->dpeers || places
                               ? FN(choose_places)(lay, cur, __builtin_popcountll(digits), &at_places)
                               : 0;
            if (at) {
                cell_at[depth] = at;
                todo[depth] = at_places;
            }
        }
    next:
        /* Try the next digit at the deepest depth that has one left. */
        for (;;) {
            if (depth < 0)
                return ST_DONE;
            uint64_t digits = todo[depth];
            if (!digits) {
                depth--;
                continue;
            }
            int d = __builtin_ctzll(digits), c = cell_at[depth];
            todo[depth] = digits & (digits - 1);
            if (c < 0) { /* a digit's places in a unit: this place */
                c = FN(unit_cell)(lay, (-1 - c) / 32, d);
                d = (-1 - cell_at[depth]) % 32;
            }
            /* the last digit (or place) left is forced, no guess */
            const int stop = count_branch(out, lim, todo[depth] != 0, frames->work);
            if (stop)
                return stop;
            if (out->nodes + frames->work / WORK_PER_NODE > stop_at)
                return ST_RESTART;
            STATE *next = &stack[depth + 1];
            memcpy(next, &stack[depth], sizeof(STATE));
            if (FN(place)(lay, next, d, c) && propagate(lay, next, pairs, frames, &stack[depth])) {
                depth++;
                break;
            }
        }
    }
}

/*
 * Search one puzzle. givens: cells values 0..n (checked by the caller); allowed:
 * optional per-cell masks of the values allowed (bit d-1 for value d), or NULL.
 * Writes up to two solutions to sol (2 * cells bytes).
 */
static void FN(search)(const Layout *lay, const uint8_t *givens, const uint32_t *allowed,
                       const Limits *lim, Outcome *out, uint8_t *sol, Frame *frames)
{
    const int n = lay->n, cells = lay->cells;
    STATE *stack = (STATE *)frames->states;
    STATE *s = &stack[0];
    int (*const propagate)(const Layout *, STATE *, uint64_t *, Frame *, const STATE *) =
        lay->ntop ? FN(propagate_props) : FN(propagate_units);
    if (n > D) {
        out->status = ST_CLASH; /* unreachable: the caller picks a width that fits */
        return;
    }
    memset(s, 0, sizeof(STATE));
    for (int d = 0; d < n; d++) {
        s->checked[d][0] = ~(uint64_t)0; /* no cell set is all ones: check everything */
        for (int k = 0; k < W; k++)
            s->cand[d][k] = lay->all[k];
    }
    for (int k = 0; k < W; k++)
        s->open[k] = lay->all[k];
    if (allowed)
        for (int i = 0; i < cells; i++)
            for (int d = 0; d < n; d++)
                if (!(allowed[i] >> d & 1))
                    s->cand[d][i >> 6] &= ~((uint64_t)1 << (i & 63));
    memset(frames->weight, 0, (size_t)cells * sizeof(uint32_t)); /* runs by places weigh */
    frames->sees_most = SEES_PLACES;
    memset(frames->sees_calls, 0, sizeof(frames->sees_calls));
    memset(frames->sees_hits, 0, sizeof(frames->sees_hits));
    out->count = 0;
    out->nodes = out->guesses = 0;
    out->status = ST_DONE;
    for (int i = 0; i < cells; i++) {
        int v = givens[i];
        if (v && !FN(place)(lay, s, v - 1, i)) {
            /* A clash with an earlier given, or a value the cell does not allow. */
            out->status = ST_CLASH;
            return;
        }
    }
    uint64_t pairs[W];
    out->nodes = 1;
    frames->work = 0;
    if ((out->status = check_limits(lim)) != ST_DONE)
        return; /* a time limit spent before the search began */
    if (!propagate(lay, s, pairs, frames, NULL)) {
        out->status = ST_DONE;
        return;
    }
    if (lay->dpeers || lay->has_counts) {
        const int why = FN(probe)(lay, s, &stack[1], pairs, frames, out, lim, propagate);
        if (why) {
            out->status = why < 0 ? ST_DONE : why;
            return;
        }
    }
    /* Runs of the search from the root, each to a cap of nodes (work counted) past
     * which it starts again the other way: by cells first (run 0, 2, ...), then by a
     * digit's places in a unit with each node probed (run 1, 3, ...), for twice the
     * cap, then by cells for as many, each way's cap doubling (FN(restart_cap)). The
     * weights of failures carry over. */
    const long long first_cap = FN(restart_cap)(lay, lim);
    for (int run = 0;; run++) {
        const int places = run & 1;
        const int doubled = (run + 1) / 2 < 30 ? (run + 1) / 2 : 30;
        const long long stop_at = out->nodes + frames->work / WORK_PER_NODE + (first_cap << doubled);
        out->count = 0;
        if (run && !propagate(lay, stack, pairs, frames, NULL)) { /* the root's pairs again */
            out->status = ST_DONE;
            return;
        }
        const int why = FN(run)(lay, stack, pairs, frames, out, lim, sol, propagate, places, stop_at);
        if (why != ST_RESTART) {
            out->status = why;
            return;
        }
    }
}

#undef STATE
#undef FN
#undef CAT
#undef CAT2
