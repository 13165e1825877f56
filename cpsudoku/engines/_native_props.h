/*
 * The compiled engine's propagators for every primitive beyond the units: included
 * once by _native.c, after the Layout type.
 *
 * A propagator works on a frame: the candidate masks of a few cells (bit d for digit
 * d + 1; a cell with one bit is decided, placed or not), gathered from the search's
 * state by the caller and written back by it (_native_core.h). Each kernel narrows
 * the masks in place and returns -1 on a contradiction (it never leaves a mask
 * empty without saying so), 1 when it removed something, else 0. A kernel is sound
 * (it never removes a value some solution of its primitive keeps there) and exact on
 * decided cells (all of its cells decided: it fails unless the primitive holds), so
 * a complete grid the search reaches keeps every rule.
 *
 * What each kernel does, per primitive (docs/design.md, "Compiled engine"):
 *   relation  arc consistency on one pair, both ways, from the table of allowed
 *             values per value (and its reverse);
 *   allowed   the cell keeps its mask;
 *   distinct  decided values leave the other cells (inside a choice only: at the top
 *             level these are units);
 *   digitsets the cages' reasoning (inside a choice only: at the top level, cages);
 *   table     support filtering: each cell keeps the values of a tuple that fits;
 *   sum       exact support by a walk over the reachable partial sums (a bit set per
 *             layer) where the range is small, else bounds to a fixpoint;
 *   automaton reachable states forward, co-reachable backward, layer by layer; a
 *             cell keeps the values on an accepted path;
 *   count     cells that must and may hold a value of the set; a count pinned at
 *             either end decides the rest;
 *   choice    each branch narrowed to its own fixpoint on a copy; each cell keeps the
 *             union of what the live branches leave (none live: a contradiction).
 *
 * Nothing here reads outside the layout's pools: every offset and size was checked
 * when the layout was read (read_props in _native.c).
 */

/* The most words of a sum's reachable-sums bit set (4,096 partial sums): a wider
 * range is reasoned about by bounds alone. */
#define SUM_DP_WORDS 64

typedef struct {
    uint32_t *masks;  /* mask scratch: choices take two frames per level */
    size_t top;       /* masks in use */
    uint64_t *words;  /* the sums' and automata's layers */
} Scratch;

static int run_prop(const Layout *lay, const Prop *p, uint32_t *m, int nf, Scratch *sc);

static inline int one_value(uint32_t v)
{
    return v && !(v & (v - 1));
}

/* dst |= src << s, over w words (bits past the top are dropped). */
static inline void shl_or(uint64_t *dst, const uint64_t *src, size_t s, int w)
{
    const int q = (int)(s >> 6), r = (int)(s & 63);
    for (int i = w - 1; i >= q; i--) {
        uint64_t v = src[i - q] << r;
        if (r && i - q - 1 >= 0)
            v |= src[i - q - 1] >> (64 - r);
        dst[i] |= v;
    }
}

/* acc |= (src >> s) & keep, over w words; nonzero when some bit came through. */
static inline int shr_and_or(uint64_t *acc, const uint64_t *src, const uint64_t *keep, size_t s,
                             int w)
{
    const int q = (int)(s >> 6), r = (int)(s & 63);
    uint64_t any = 0;
    for (int i = 0; i + q < w; i++) {
        uint64_t v = src[i + q] >> r;
        if (r && i + q + 1 < w)
            v |= src[i + q + 1] << (64 - r);
        v &= keep[i];
        acc[i] |= v;
        any |= v;
    }
    return any != 0;
}

/*
 * Arc consistency on a pair relation: the second cell's values y kept to those the
 * first cell's x supports, then x to those the narrowed y supports. A way whose
 * first cell has more values than the relation's threshold (b forward, c back:
 * relation_reach in _native.c) cannot narrow and is skipped. Returns y's new mask;
 * x's goes to *x. Both cells the same: x is narrowed by the narrowed y (k_relation).
 */
static inline uint32_t relation_support(const Layout *lay, const Prop *p, uint32_t *x, uint32_t y)
{
    const uint32_t *fwd = lay->pmask + p->a, *back = fwd + lay->n;
    uint32_t sup = 0;
    if ((size_t)__builtin_popcount(*x) <= p->b) { /* else every value of y has support */
        for (uint32_t t = *x; t; t &= t - 1)
            sup |= fwd[__builtin_ctz(t)];
        y &= sup;
    }
    if ((size_t)__builtin_popcount(y) <= p->c) {
        sup = 0;
        for (uint32_t t = y; t; t &= t - 1)
            sup |= back[__builtin_ctz(t)];
        *x &= sup;
    }
    return y;
}

static int k_relation(const Layout *lay, const Prop *p, uint32_t *m)
{
    const int *ix = lay->pint + p->idx;
    const uint32_t x = m[ix[0]], y = m[ix[1]];
    uint32_t x2 = x;
    const uint32_t y2 = relation_support(lay, p, &x2, y);
    m[ix[1]] = y2;
    if (ix[0] == ix[1])
        x2 &= y2; /* the same cell twice: already narrowed */
    m[ix[0]] = x2;
    if (!x2 || !y2)
        return -1;
    return x2 != x || y2 != y;
}

static int k_allowed(const Layout *lay, const Prop *p, uint32_t *m)
{
    const int *ix = lay->pint + p->idx;
    const uint32_t *masks = lay->pmask + p->a;
    int changed = 0;
    for (int k = 0; k < p->nc; k++) {
        uint32_t v = m[ix[k]];
        if (v & ~masks[k]) {
            v &= masks[k];
            if (!v)
                return -1;
            m[ix[k]] = v;
            changed = 1;
        }
    }
    return changed;
}

static int k_distinct(const Layout *lay, const Prop *p, uint32_t *m)
{
    const int *ix = lay->pint + p->idx;
    int changed = 0;
    for (;;) {
        uint32_t have = 0;
        for (int k = 0; k < p->nc; k++) {
            uint32_t v = m[ix[k]];
            if (one_value(v)) {
                if (have & v)
                    return -1;
                have |= v;
            }
        }
        int step = 0;
        for (int k = 0; k < p->nc; k++) {
            uint32_t v = m[ix[k]];
            if (!one_value(v) && (v & have)) {
                v &= ~have;
                if (!v)
                    return -1;
                m[ix[k]] = v;
                step = 1;
            }
        }
        if (!step)
            return changed;
        changed = 1;
    }
}

static int k_digitsets(const Layout *lay, const Prop *p, uint32_t *m)
{
    const int *ix = lay->pint + p->idx;
    const uint32_t *sets = lay->pmask + p->a;
    uint32_t have = 0, reach = 0;
    uint64_t open = 0; /* the cells undecided on entry (the first 64) */
    for (int k = 0; k < p->nc; k++) {
        uint32_t v = m[ix[k]];
        if (one_value(v)) {
            if (have & v)
                return -1;
            have |= v;
        } else {
            reach |= v;
            if (k < 64)
                open |= (uint64_t)1 << k;
        }
    }
    uint32_t allowed = 0, needed = ~(uint32_t)0;
    int found = 0;
    for (size_t j = 0; j < p->b; j++) {
        uint32_t set = sets[j], missing = set & ~have;
        if ((set & have) != have || (missing & ~reach))
            continue;
        int fits = 1;
        for (int k = 0; fits && k < p->nc; k++) {
            uint32_t v = m[ix[k]];
            if (!one_value(v) && !(v & missing))
                fits = 0;
        }
        if (!fits)
            continue;
        allowed |= set;
        needed &= missing;
        found = 1;
    }
    if (!found)
        return -1;
    int changed = 0;
    const uint32_t keep = allowed & ~have;
    for (int k = 0; k < p->nc; k++) {
        uint32_t v = m[ix[k]];
        if (!one_value(v) && (v & ~keep)) {
            v &= keep;
            if (!v)
                return -1;
            m[ix[k]] = v;
            changed = 1;
        }
    }
    if (p->nc > 64)
        return changed; /* hidden singles for the first 64 cells only: not worth more */
    for (uint32_t need = needed; need; need &= need - 1) {
        const uint32_t b = need & -need;
        int takers = 0, at = -1;
        for (uint64_t o = open; o; o &= o - 1) {
            const int k = __builtin_ctzll(o);
            if (m[ix[k]] & b) {
                takers++;
                at = k;
            }
        }
        if (!takers)
            return -1;
        if (takers == 1 && m[ix[at]] != b) {
            m[ix[at]] = b;
            changed = 1;
        }
    }
    return changed;
}

static int k_table(const Layout *lay, const Prop *p, uint32_t *m)
{
    const int *ix = lay->pint + p->idx;
    const int K = p->nc;
    const uint8_t *rows = lay->ptup + p->a;
    uint32_t cur[MAX_TABLE_CELLS], seen[MAX_TABLE_CELLS];
    if (!p->b)
        return -1; /* no tuple at all */
    for (int k = 0; k < K; k++) {
        cur[k] = m[ix[k]];
        seen[k] = 0;
    }
    for (size_t t = 0; t < p->b; t++) {
        const uint8_t *row = rows + t * (size_t)K;
        int k = 0;
        while (k < K && (cur[k] >> (row[k] - 1) & 1))
            k++;
        if (k < K)
            continue;
        for (k = 0; k < K; k++)
            seen[k] |= (uint32_t)1 << (row[k] - 1);
        if ((t & 255) == 255) { /* every value already has a tuple: nothing to remove */
            int all = 1;
            for (k = 0; all && k < K; k++)
                all = seen[k] == cur[k];
            if (all)
                return 0;
        }
    }
    int changed = 0;
    for (int k = 0; k < K; k++) {
        uint32_t v = m[ix[k]] & seen[k];
        if (!v)
            return -1;
        if (v != m[ix[k]]) {
            m[ix[k]] = v;
            changed = 1;
        }
    }
    return changed;
}

/* The least and greatest of w * v over the values v of mask v. */
static inline void span(long long w, uint32_t v, long long *lo, long long *hi)
{
    long long small = __builtin_ctz(v) + 1, large = 32 - __builtin_clz(v);
    if (w >= 0) {
        *lo = w * small;
        *hi = w * large;
    } else {
        *lo = w * large;
        *hi = w * small;
    }
}

/* The smallest target at least low and the largest at most high (targets sorted);
 * -1 when no target lies in [low, high]. */
static inline int target_span(const long long *targets, size_t nt, long long low,
                              long long high, long long *t_low, long long *t_high)
{
    size_t a = 0;
    while (a < nt && targets[a] < low)
        a++;
    if (a == nt || targets[a] > high)
        return -1;
    size_t b = nt - 1;
    while (targets[b] > high)
        b--;
    *t_low = targets[a];
    *t_high = targets[b];
    return 0;
}

/* A sum by bounds, to a fixpoint: each cell keeps the values that the others' least
 * and greatest sums leave some target within reach of. */
static int sum_bounds(const Layout *lay, const Prop *p, uint32_t *m)
{
    const int *ix = lay->pint + p->idx;
    const long long *w = lay->pnum + p->a, *targets = lay->pnum + p->b;
    const size_t nt = p->c;
    int changed = 0;
    for (;;) {
        long long low = 0, high = 0;
        for (int k = 0; k < p->nc; k++) {
            long long lo, hi;
            span(w[k], m[ix[k]], &lo, &hi);
            low += lo;
            high += hi;
        }
        long long t_low, t_high;
        if (target_span(targets, nt, low, high, &t_low, &t_high) < 0)
            return -1;
        int step = 0;
        for (int k = 0; k < p->nc; k++) {
            uint32_t v = m[ix[k]], keep = 0;
            long long lo, hi;
            span(w[k], v, &lo, &hi);
            const long long rest_low = low - lo, rest_high = high - hi;
            for (uint32_t t = v; t; t &= t - 1) {
                long long part = w[k] * (__builtin_ctz(t) + 1);
                if (rest_low + part <= t_high && rest_high + part >= t_low)
                    keep |= t & -t;
            }
            if (!keep)
                return -1;
            if (keep != v) {
                m[ix[k]] = keep;
                step = 1;
            }
        }
        if (!step)
            return changed;
        changed = 1;
    }
}

/* The sum of the j least (or, greatest) values of mask v; -1 when it has fewer. */
static inline long long least_of(uint32_t v, int j)
{
    long long s = 0;
    for (; j > 0; j--, v &= v - 1) {
        if (!v)
            return -1;
        s += __builtin_ctz(v) + 1;
    }
    return s;
}

static inline long long greatest_of(uint32_t v, int j)
{
    long long s = 0;
    for (; j > 0; j--) {
        if (!v)
            return -1;
        const int top = 31 - __builtin_clz(v);
        s += top + 1;
        v &= ~((uint32_t)1 << top);
    }
    return s;
}

/*
 * A sum by groups of terms that hold different digits (one weight, cells that see
 * each other): a group of j cells adds at least its weight times its j least distinct
 * candidates, at most the j greatest; a value stays in a cell where, with the rest of
 * its group on the other values, the whole can still meet a target. One pass: the
 * search runs the propagator again when its cells change. The scratch: per group its
 * candidates' union (with its size above bit 32), the digits two of its cells share,
 * and its least and greatest.
 */
static int sum_groups(const Layout *lay, const Prop *p, uint32_t *m, Scratch *sc)
{
    const int *ix = lay->pint + p->idx, *group = lay->pint + p->f;
    const long long *w = lay->pnum + p->a, *targets = lay->pnum + p->b;
    const size_t nt = p->c, ng = p->g;
    uint64_t *uni = sc->words, *twice = uni + ng;
    long long *lo = (long long *)(twice + ng), *hi = lo + ng;
    memset(uni, 0, 2 * ng * sizeof(uint64_t));
    for (int k = 0; k < p->nc; k++) {
        const int g = group[k];
        twice[g] |= uni[g] & m[ix[k]];
        uni[g] = (uni[g] | m[ix[k]]) + ((uint64_t)1 << 32);
    }
    long long low = 0, high = 0;
    for (size_t g = 0; g < ng; g++)
        lo[g] = LLONG_MIN; /* not yet bounded */
    for (int k = 0; k < p->nc; k++) { /* each group once, by its first term's weight */
        const int g = group[k];
        if (lo[g] != LLONG_MIN)
            continue;
        const uint32_t u = (uint32_t)uni[g];
        const int size = (int)(uni[g] >> 32);
        const long long a = least_of(u, size), b = greatest_of(u, size);
        if (a < 0)
            return -1; /* fewer digits than cells */
        lo[g] = w[k] < 0 ? w[k] * b : w[k] * a;
        hi[g] = w[k] < 0 ? w[k] * a : w[k] * b;
        low += lo[g];
        high += hi[g];
    }
    long long t_low, t_high;
    if (target_span(targets, nt, low, high, &t_low, &t_high) < 0)
        return -1;
    int changed = 0;
    for (int k = 0; k < p->nc; k++) {
        const int g = group[k], size = (int)(uni[g] >> 32);
        const uint32_t v = m[ix[k]];
        if (size < 2 || one_value(v))
            continue; /* a lone cell: the walk or the bounds see all of it */
        /* the digits some other cell of the group may hold */
        const uint32_t others = (uint32_t)twice[g] | ((uint32_t)uni[g] & ~v);
        uint32_t keep = 0;
        for (uint32_t t = v; t; t &= t - 1) {
            const long long d = __builtin_ctz(t) + 1;
            const uint32_t rest = others & ~(t & -t);
            const long long a = least_of(rest, size - 1), b = greatest_of(rest, size - 1);
            if (a < 0)
                continue;
            const long long x = w[k] * (d + a), y = w[k] * (d + b);
            const long long glo = x < y ? x : y, ghi = x < y ? y : x;
            if (low - lo[g] + glo <= t_high && high - hi[g] + ghi >= t_low)
                keep |= t & -t;
        }
        if (!keep)
            return -1;
        if (keep != v) {
            m[ix[k]] = keep;
            changed = 1;
        }
    }
    return changed;
}

/* A walk's verdict on cell i, which held v: it keeps the values keep (a cell listed
 * twice keeps what both places allow). -1: none left; 1: narrowed; 0: unchanged. */
static inline int walk_keep(uint32_t *m, int i, uint32_t v, uint32_t keep)
{
    if (!keep)
        return -1;
    if (keep == v)
        return 0;
    m[i] &= keep;
    return m[i] ? 1 : -1;
}

/*
 * sum_exact on a range of at most 128 partial sums (every 9x9 sum of up to 15 cells:
 * little killers, cages, arrows, 16x16 sums of up to 8), with at most SUM128_TERMS
 * terms: each layer one 128-bit word on the stack, shifted whole. The same narrowing
 * as the general walk below; on the hailstone little killer of the hard set, 12.59 G
 * -> 8.94 G instructions for the same 133,490 nodes.
 */
#define SUM128_TERMS 64
static int sum_exact128(const Layout *lay, const Prop *p, uint32_t *m)
{
    typedef unsigned __int128 u128;
    const int *ix = lay->pint + p->idx;
    const long long *w = lay->pnum + p->a;
    const int K = p->nc, n = lay->n;
    const uint64_t *goal = lay->pword + p->e;
    u128 F[SUM128_TERMS + 1];
    F[0] = 1;
    for (int k = 0; k < K; k++) {
        const long long least = w[k] < 0 ? w[k] * n : w[k];
        const u128 here = F[k];
        u128 next = 0;
        for (uint32_t t = m[ix[k]]; t; t &= t - 1)
            next |= here << (w[k] * (__builtin_ctz(t) + 1) - least);
        if (!next)
            return -1;
        F[k + 1] = next;
    }
    u128 back = F[K] & ((u128)(p->d > 1 ? goal[1] : 0) << 64 | goal[0]);
    if (!back)
        return -1;
    int changed = 0;
    for (int k = K - 1; k >= 0; k--) {
        const long long least = w[k] < 0 ? w[k] * n : w[k];
        const u128 here = F[k];
        const uint32_t v = m[ix[k]];
        uint32_t keep = 0;
        u128 prev = 0;
        for (uint32_t t = v; t; t &= t - 1) {
            const u128 from = (back >> (w[k] * (__builtin_ctz(t) + 1) - least)) & here;
            if (from) {
                prev |= from;
                keep |= t & -t;
            }
        }
        const int r = walk_keep(m, ix[k], v, keep);
        if (r < 0)
            return -1;
        changed |= r;
        back = prev;
    }
    return changed;
}

/*
 * A sum by its reachable partial sums: layer k holds the sums (less the least each
 * term can add) the first k cells can make, forward; backward, those from which a
 * target stays reachable; a value stays where it links the two. Exact for the sum
 * alone (digits may repeat).
 */
static int sum_exact(const Layout *lay, const Prop *p, uint32_t *m, Scratch *sc)
{
    const int *ix = lay->pint + p->idx;
    const long long *w = lay->pnum + p->a;
    const int K = p->nc, W_ = (int)p->d, n = lay->n;
    const uint64_t *goal = lay->pword + p->e;
    if (W_ <= 2 && K <= SUM128_TERMS)
        return sum_exact128(lay, p, m);
    uint64_t *F = sc->words, *B = F + (size_t)(K + 1) * W_, *B2 = B + W_;
    memset(F, 0, (size_t)(K + 1) * W_ * sizeof(uint64_t));
    F[0] = 1;
    for (int k = 0; k < K; k++) {
        const long long least = w[k] < 0 ? w[k] * n : w[k];
        uint64_t *next = F + (size_t)(k + 1) * W_, any = 0;
        for (uint32_t t = m[ix[k]]; t; t &= t - 1)
            shl_or(next, F + (size_t)k * W_, (size_t)(w[k] * (__builtin_ctz(t) + 1) - least), W_);
        for (int i = 0; i < W_; i++)
            any |= next[i];
        if (!any)
            return -1;
    }
    uint64_t any = 0;
    for (int i = 0; i < W_; i++) {
        B[i] = F[(size_t)K * W_ + i] & goal[i];
        any |= B[i];
    }
    if (!any)
        return -1;
    int changed = 0;
    for (int k = K - 1; k >= 0; k--) {
        const long long least = w[k] < 0 ? w[k] * n : w[k];
        const uint64_t *here = F + (size_t)k * W_;
        memset(B2, 0, (size_t)W_ * sizeof(uint64_t));
        const uint32_t v = m[ix[k]];
        uint32_t keep = 0;
        for (uint32_t t = v; t; t &= t - 1)
            if (shr_and_or(B2, B, here, (size_t)(w[k] * (__builtin_ctz(t) + 1) - least), W_))
                keep |= t & -t;
        const int r = walk_keep(m, ix[k], v, keep);
        if (r < 0)
            return -1;
        changed |= r;
        uint64_t *swap = B;
        B = B2;
        B2 = swap;
    }
    return changed;
}

/*
 * An automaton on its line: the states each layer can be in, forward from the start
 * and back from the accepting states; a value stays where it leads from a state of
 * its layer to one of the next. From each state the walk reads either the values of
 * the cell (its next state per value) or the state's next states, each with the mask
 * of the values leading there, whichever is fewer: the masks when many values lead to
 * few states (a sandwich before its crusts, a skyscraper below its tallest), the
 * values when the cell has few left.
 */
static int k_automaton(const Layout *lay, const Prop *p, uint32_t *m, Scratch *sc)
{
    const int *ix = lay->pint + p->idx;
    const int K = p->nc, n = lay->n, sw = (int)p->d;
    const int32_t *trans = lay->ptrans + p->a;
    /* per state s, its (values, next state) pairs: pairs[2g], pairs[2g + 1] for g in
     * offsets[s] .. offsets[s + 1] */
    const int32_t *offsets = lay->ptrans + p->e, *pairs = offsets + p->b + 1;
    const uint64_t *accept = lay->pword + p->c;
    uint64_t *F = sc->words, *B = F + (size_t)(K + 1) * sw, *B2 = B + sw;
    memset(F, 0, (size_t)(K + 1) * sw * sizeof(uint64_t));
    F[0] = 1; /* the start, state 0 */
    for (int k = 0; k < K; k++) {
        const uint64_t *here = F + (size_t)k * sw;
        uint64_t *next = F + (size_t)(k + 1) * sw, any = 0;
        const uint32_t v = m[ix[k]];
        const int values = __builtin_popcount(v);
        for (int i = 0; i < sw; i++)
            for (uint64_t q = here[i]; q; q &= q - 1) {
                const int s = i * 64 + __builtin_ctzll(q);
                if (offsets[s + 1] - offsets[s] <= values) {
                    for (int32_t g = offsets[s]; g < offsets[s + 1]; g++)
                        if (v & (uint32_t)pairs[2 * g]) {
                            const int32_t to = pairs[2 * g + 1];
                            next[to >> 6] |= (uint64_t)1 << (to & 63);
                            any = 1;
                        }
                    continue;
                }
                const int32_t *row = trans + (size_t)s * n;
                for (uint32_t t = v; t; t &= t - 1) {
                    const int32_t to = row[__builtin_ctz(t)];
                    if (to >= 0) {
                        next[to >> 6] |= (uint64_t)1 << (to & 63);
                        any = 1;
                    }
                }
            }
        if (!any)
            return -1;
    }
    uint64_t any = 0;
    for (int i = 0; i < sw; i++) {
        B[i] = F[(size_t)K * sw + i] & accept[i];
        any |= B[i];
    }
    if (!any)
        return -1;
    int changed = 0;
    for (int k = K - 1; k >= 0; k--) {
        const uint64_t *here = F + (size_t)k * sw;
        memset(B2, 0, (size_t)sw * sizeof(uint64_t));
        const uint32_t v = m[ix[k]];
        const int values = __builtin_popcount(v);
        uint32_t keep = 0;
        for (int i = 0; i < sw; i++)
            for (uint64_t q = here[i]; q; q &= q - 1) {
                const int s = i * 64 + __builtin_ctzll(q);
                uint32_t mine = 0;
                if (offsets[s + 1] - offsets[s] <= values) {
                    for (int32_t g = offsets[s]; g < offsets[s + 1]; g++) {
                        const int32_t to = pairs[2 * g + 1];
                        if (B[to >> 6] >> (to & 63) & 1)
                            mine |= (uint32_t)pairs[2 * g];
                    }
                    mine &= v;
                } else {
                    const int32_t *row = trans + (size_t)s * n;
                    for (uint32_t t = v; t; t &= t - 1) {
                        const int32_t to = row[__builtin_ctz(t)];
                        if (to >= 0 && (B[to >> 6] >> (to & 63) & 1))
                            mine |= t & -t;
                    }
                }
                if (mine) {
                    keep |= mine;
                    B2[i] |= q & -q;
                }
            }
        if (!keep)
            return -1;
        if (keep != v) {
            m[ix[k]] &= keep;
            if (!m[ix[k]])
                return -1;
            changed = 1;
        }
        uint64_t *swap = B;
        B = B2;
        B2 = swap;
    }
    return changed;
}

static int k_count(const Layout *lay, const Prop *p, uint32_t *m)
{
    const int *ix = lay->pint + p->idx;
    const uint32_t inside = (uint32_t)p->a;
    const uint64_t *counts = lay->pword + p->b;
    int must = 0, maybe = 0;
    for (int k = 0; k < p->nc; k++) { /* no branch: which it is, is a coin toss */
        const uint32_t v = m[ix[k]];
        must += !(v & ~inside);
        maybe += (v & ~inside) && (v & inside);
    }
    int lo = -1, hi = -1;
    if (must + maybe < 63) { /* the counts allowed in [must, must + maybe], in one word */
        const uint64_t in = counts[0] & (((uint64_t)2 << (must + maybe)) - 1) &
                            ~(((uint64_t)1 << must) - 1);
        if (in) {
            lo = __builtin_ctzll(in);
            hi = 63 - __builtin_clzll(in);
        }
    } else {
        for (int c = must; c <= must + maybe; c++)
            if (counts[c >> 6] >> (c & 63) & 1) {
                if (lo < 0)
                    lo = c;
                hi = c;
            }
    }
    if (lo < 0)
        return -1;
    if (!maybe)
        return 0;
    uint32_t keep;
    if (hi == must)
        keep = ~inside; /* no more: the maybes hold other values */
    else if (lo == must + maybe)
        keep = inside; /* every maybe is needed */
    else
        return 0;
    int changed = 0;
    for (int k = 0; k < p->nc; k++) {
        uint32_t v = m[ix[k]];
        if ((v & ~inside) && (v & inside)) {
            m[ix[k]] = v & keep;
            changed = 1;
        }
    }
    return changed;
}

/* A branch of a choice to its fixpoint on the masks m; -1 when it fails. */
static int run_branch(const Layout *lay, const int *subs, int count, uint32_t *m, int nf,
                      Scratch *sc)
{
    for (;;) {
        int changed = 0;
        for (int j = 0; j < count; j++) {
            int step = run_prop(lay, lay->props + subs[j], m, nf, sc);
            if (step < 0)
                return -1;
            changed |= step;
        }
        if (!changed)
            return 0;
    }
}

static int k_choice(const Layout *lay, const Prop *p, uint32_t *m, int nf, Scratch *sc)
{
    const int *bounds = lay->pint + p->a; /* branch j: subs at pint[bounds[j] .. bounds[j+1]) */
    uint32_t *trial = sc->masks + sc->top, *uni = trial + nf;
    sc->top += 2 * (size_t)nf;
    memset(uni, 0, (size_t)nf * sizeof(uint32_t));
    int alive = 0;
    for (size_t j = 0; j < p->b; j++) {
        memcpy(trial, m, (size_t)nf * sizeof(uint32_t));
        if (run_branch(lay, lay->pint + bounds[j], bounds[j + 1] - bounds[j], trial, nf, sc) < 0)
            continue;
        alive = 1;
        int covered = 1;
        for (int k = 0; k < nf; k++) {
            uni[k] |= trial[k];
            covered &= (m[k] & ~uni[k]) == 0;
        }
        if (covered) /* the union already holds everything: nothing can go */
            break;
    }
    sc->top -= 2 * (size_t)nf;
    if (!alive)
        return -1;
    int changed = 0;
    for (int k = 0; k < nf; k++) {
        if (m[k] & ~uni[k]) {
            m[k] &= uni[k];
            if (!m[k])
                return -1;
            changed = 1;
        }
    }
    return changed;
}

/* A sum: its groups' bounds (when it has groups), then the exact walk or the bounds. */
static int k_sum(const Layout *lay, const Prop *p, uint32_t *m, Scratch *sc)
{
    int changed = 0;
    if (p->g && (changed = sum_groups(lay, p, m, sc)) < 0)
        return -1;
    const int r = p->d ? sum_exact(lay, p, m, sc) : sum_bounds(lay, p, m);
    return r < 0 ? -1 : (changed | r);
}

static int run_prop(const Layout *lay, const Prop *p, uint32_t *m, int nf, Scratch *sc)
{
    switch (p->kind) {
    case K_RELATION:
        return k_relation(lay, p, m);
    case K_ALLOWED:
        return k_allowed(lay, p, m);
    case K_DISTINCT:
        return k_distinct(lay, p, m);
    case K_DIGITSETS:
        return k_digitsets(lay, p, m);
    case K_TABLE:
        return k_table(lay, p, m);
    case K_SUM:
        return k_sum(lay, p, m, sc);
    case K_AUTOMATON:
        return k_automaton(lay, p, m, sc);
    case K_COUNT:
        return k_count(lay, p, m);
    case K_CHOICE:
        return k_choice(lay, p, m, nf, sc);
    }
    return 0;
}
