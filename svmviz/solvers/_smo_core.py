"""The Numba kernels of the SMO backend (see ``smo.py`` for the algorithm and its sources).

Layout. As LIBSVM (``Solver::swap_index``), the active variables are kept contiguous: every
per-variable array is a *compact* copy in which positions 0..m−1 are the active set (``ordr``
maps a position to the original index). Shrinking swaps a shrunk variable with the last active
one, exactly as LIBSVM's ``do_shrinking``; the hot loops run over 0..m−1 with unit stride.

Column cache (LIBSVM's ``Cache``): rows of one width w in one pool, a row per slot, keyed by
the original index; each slot holds a valid *prefix* of its column in the current compact
order (``slen``). A swap of positions i < j swaps the two entries in every cached column long
enough to hold both, or truncates the prefix to i (LIBSVM drops such a column); after
unshrinking, a column's missing tail is filled on demand. Slots are handed out in order
(``slen[n_slots]`` counts those in use, so a swap visits only them, as LIBSVM's walk over its
LRU list); once all are in use the LRU tail is evicted. The LRU order is a doubly linked list
over the slots (O(1) per touch); when there is a slot per column (the usual case up to
n ≈ 5000 at 200 MB) nothing is ever evicted and no order is kept. LIBSVM's columns are as long
as the active set when asked for, so after shrinking its cache holds n / m times more of them;
here the rows start at w = n and, when evictions say the active columns do not fit, are cut to
the active size in place (``width_for``, ``repack``: so the cache holds as many active columns as LIBSVM's), and
widened again for the final check. Entries stay
float64: LIBSVM's float32 cache leaves KKT violations up to 3.5e-2 in
large-C problems, and the tests hold every backend to the cvxpy optimum at 1e-5 relative;
halving the memory per column does not pay for that.

G_bar (LIBSVM's ``G_bar``): Σ_j b_j Q_j over the variables at a bound, b_j = α_j there (for the
C-SVM: C_j Q_j over the α at the upper bound), so the gradient of the shrunk variables is
rebuilt from the free α only (``reconstruct_gradient``). A variable entering or leaving a bound
adds its column at once while m ≥ 3n/4, later its change waits in ``pend`` until the next
rebuild (``gbar_add``, ``flush_gbar``): a cut cache has no full-length columns to add.

``src`` (column source, used only when a column is filled): (dense, Qd, kind, gamma, coef0,
degree, XT, xsq, signs, classes, inv_K, ibuf) with ``XT`` (d × n), ``xsq``, ``signs``,
``classes`` in compact order; ``kind`` 0 linear, 1 poly, 2 rbf, 3 sigmoid; ``classes`` empty
without a Scatter factor; ``ibuf`` int64 work space.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

TAU = 1e-12  # LIBSVM's TAU: curvature used when a pair's second derivative is not positive
# WSS2 keeps j with the smallest o_t = −g_t²/q_t (g_t > 0, q_t > 0). With B = −(best o so far),
# o_t ≤ best needs fl(g_t²/q_t) ≥ B; when g_t² < fl(fl(B·REACH)·q_t) rounding cannot get there:
# fl(g_t²/q_t) < B·REACH·(1 + 2⁻⁵³)³ < B. That test skips the division (the slowest instruction
# of the selection loop) for almost every t and never a candidate that could win: the same j as
# dividing every time, ties included.
REACH = 1.0 - 2.0 ** -49
INF = np.inf

KERNEL_CODES = {"linear": 0, "poly": 1, "rbf": 2, "sigmoid": 3}

# integer state kept between chunks of iterations (``run``)
S_M, S_COUNTER, S_IT, S_UNSHRUNK, S_PRE_OK, S_PRE_I, S_NHIST, S_STRIDE, S_NTRACE, S_NEV, \
    S_STATUS, S_W, S_WMIN = range(13)
# float state
F_PRE_GMAX, F_OBJ, F_VIOL = range(3)
RUNNING, CONVERGED, UNBOUNDED, RESHAPED = -1, 0, 2, 3

# exp(x) = 2^k · e^r with k = round(x / ln 2), |r| ≤ ln(2)/2 and a degree-13 Taylor polynomial
# (truncation error < 2e-16 relative): unlike math.exp this loop vectorises (there is no SVML
# here), which makes RBF columns several times cheaper than LIBSVM's.
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_INV_FACT = tuple(1.0 / math.factorial(k) for k in range(14))


@njit(cache=True)
def _vexp(buf, ibuf):
    """buf = exp(buf) in place for arguments ≤ 709 (below −708 the result is 0)."""
    c = _INV_FACT
    m = buf.shape[0]
    for k in range(m):
        x = buf[k]
        keep = 1.0 if x >= -708.0 else 0.0
        x = min(max(x, -708.0), 709.0)
        kf = math.floor(x * _LOG2E + 0.5)
        r = (x - kf * _LN2_HI) - kf * _LN2_LO
        p = c[13]
        p = p * r + c[12]
        p = p * r + c[11]
        p = p * r + c[10]
        p = p * r + c[9]
        p = p * r + c[8]
        p = p * r + c[7]
        p = p * r + c[6]
        p = p * r + c[5]
        p = p * r + c[4]
        p = p * r + c[3]
        p = p * r + c[2]
        p = p * r + c[1]
        p = p * r + c[0]
        ibuf[k] = (np.int64(kf) + 1023) << 52
        buf[k] = p * keep
    scale = ibuf[:m].view(np.float64)
    for k in range(m):
        buf[k] *= scale[k]


# ---------------------------------------------------------------------------- Q columns
# The inner products of a column: blocks of DOT_BLOCK positions (8 kB, they stay in L1 while all
# features pass over them), four features a pass (one load and store of the partial sums per four
# products instead of per one), which makes a column about a third cheaper at n = 10,000, d = 50.
# Each entry's sum runs over the features in the same order wherever a fill starts, so a prefix
# filled now and a tail filled later equal one fill of the whole column.
DOT_BLOCK = 1024


@njit(cache=True, inline="always")
def _dot_block(out, XT, ci, b0, b1):
    """out[k] = Σ_f XT[f, ci] · XT[f, k] for b0 ≤ k < b1."""
    d = XT.shape[0]
    seg = out[b0:b1]
    m = b1 - b0
    for k in range(m):
        seg[k] = 0.0
    f = 0
    while f + 4 <= d:
        r0 = XT[f, b0:b1]
        r1 = XT[f + 1, b0:b1]
        r2 = XT[f + 2, b0:b1]
        r3 = XT[f + 3, b0:b1]
        x0 = XT[f, ci]
        x1 = XT[f + 1, ci]
        x2 = XT[f + 2, ci]
        x3 = XT[f + 3, ci]
        for k in range(m):
            seg[k] += (x0 * r0[k] + x1 * r1[k]) + (x2 * r2[k] + x3 * r3[k])
        f += 4
    while f < d:
        r0 = XT[f, b0:b1]
        x0 = XT[f, ci]
        for k in range(m):
            seg[k] += x0 * r0[k]
        f += 1


@njit(cache=True)
def fill_column(out, ci, start, stop, src, ordr):
    """out[k] = Q(ci, k) for compact positions start ≤ k < stop:
    t_i t_j k(x_i, x_j) (δ_{c_i c_j} − 1/K), or the dense Q's entries."""
    dense, Qd, kind, gamma, coef0, degree, XT, xsq, signs, classes, inv_K, ibuf = src
    if stop <= start:
        return
    if dense:
        row = Qd[ordr[ci]]
        for k in range(start, stop):
            out[k] = row[ordr[k]]
        return
    for b0 in range(start, stop, DOT_BLOCK):
        _dot_block(out, XT, ci, b0, min(b0 + DOT_BLOCK, stop))
    seg = out[start:stop]
    m = stop - start
    if kind == 1:
        for k in range(m):
            seg[k] = (gamma * seg[k] + coef0) ** degree
    elif kind == 2:
        xi = xsq[ci]
        xs = xsq[start:stop]
        for k in range(m):
            seg[k] = -gamma * max(xi + xs[k] - 2.0 * seg[k], 0.0)
        _vexp(seg, ibuf[start:stop])
    elif kind == 3:
        for k in range(m):
            seg[k] = math.tanh(gamma * seg[k] + coef0)
    si = signs[ci]
    sg = signs[start:stop]
    if classes.shape[0] > 0:
        c = classes[ci]
        cl = classes[start:stop]
        for k in range(m):
            seg[k] *= si * sg[k] * ((1.0 if cl[k] == c else 0.0) - inv_K)
    else:
        for k in range(m):
            seg[k] *= si * sg[k]
    if kind == 2 and start <= ci < stop:
        # k(x, x) = 1 exactly (the distance formula may leave a rounding residue)
        out[ci] = si * si * ((1.0 - inv_K) if classes.shape[0] > 0 else 1.0)


@njit(cache=True, nogil=True)  # entry point: releases the GIL so threads can run solves in parallel
def dense_Q(src):
    """The whole Q of an implicit problem, row by row (Q is symmetric: row i is column i)."""
    n = src[7].shape[0]
    Q = np.empty((n, n))
    ordr = np.arange(n)
    for i in range(n):
        fill_column(Q[i], i, 0, n, src, ordr)
    return Q


# ---------------------------------------------------------------------------- cache (LRU)
@njit(cache=True, inline="always")
def _touch(s, prv, nxt):
    """Move slot s to the front of the LRU list (the sentinel is the last entry)."""
    h = prv.shape[0] - 1
    if nxt[h] == s:
        return
    a = prv[s]
    b = nxt[s]
    nxt[a] = b
    prv[b] = a
    f = nxt[h]
    nxt[h] = s
    prv[s] = h
    nxt[s] = f
    prv[f] = s


@njit(cache=True)
def _col_miss(ci, m, ordr, data, slot_of, owner, slen, prv, nxt, src):
    """Take a slot for the column of position ci (the next unused one, else the LRU tail) and
    fill its prefix up to m."""
    oi = ordr[ci]
    s = slot_of[oi]
    if s < 0:
        n_slots = owner.shape[0]
        s = slen[n_slots]
        if s < n_slots:
            slen[n_slots] = s + 1
        else:
            s = prv[n_slots]
            slot_of[owner[s]] = -1
        owner[s] = oi
        slot_of[oi] = s
        slen[s] = 0
    fill_column(data[s], ci, slen[s], m, src, ordr)
    slen[s] = m
    if owner.shape[0] < slot_of.shape[0]:
        _touch(s, prv, nxt)
    return s


@njit(cache=True, inline="always")
def col_slot(ci, m, ordr, data, slot_of, owner, slen, prv, nxt, src):
    """The cache slot whose row holds Q(ci, k) for positions 0 ≤ k < m (the LRU order is kept
    only when some column has no slot of its own)."""
    s = slot_of[ordr[ci]]
    if s >= 0 and slen[s] >= m:
        if owner.shape[0] < slot_of.shape[0]:
            _touch(s, prv, nxt)
        return s
    return _col_miss(ci, m, ordr, data, slot_of, owner, slen, prv, nxt, src)


# ---------------------------------------------------------------------------- row width
@njit(cache=True)
def width_for(m, w, n, size, n_evict, d):
    """The cache's row width for active size m (LIBSVM's rows are as long as the active set
    when asked for, so after shrinking its cache holds n / m times more columns): at least m;
    cut to m when the cut gives an eighth more slots and the columns evicted since the last
    shrinking step cost more to recompute than twice the cut costs to move (the rows are
    widened again for the final check). A column of m entries costs m (d + 8) multiply-adds
    (d products and an exp); moving ns·m floats about 5.5 multiply-adds each (measured: 200 MB
    move in 13 ms, a column of 10,000 × 50 in 57 µs)."""
    if w < m:
        return m
    ns = min(n, size // w)
    if ns < m and min(n, size // m) >= ns + ns // 8 and n_evict * (d + 8) >= 11 * ns:
        return m
    return w


@njit(cache=True)
def repack(w_new, w_old, n, pool, slot_of, owner_f, slen_f, prv_f, nxt_f):
    """Lay the cache out again with rows of w_new entries in the same ``pool`` (in place, no
    second buffer) and return the new number of slots. The most recently used columns are kept
    (slot order when no LRU order is kept), each with its prefix up to w_new; slots stay handed
    out in order and the LRU list keeps their recency."""
    size = pool.shape[0]
    ns_old = min(n, size // w_old)
    ns_new = min(n, size // w_new)
    used = slen_f[ns_old]
    mru = np.empty(used, np.int64)
    if ns_old < n:
        k = 0
        t = nxt_f[ns_old]
        while t != ns_old:
            if owner_f[t] >= 0:
                mru[k] = t
                k += 1
            t = nxt_f[t]
    else:
        for t in range(used):
            mru[t] = t
    keep = min(used, ns_new)
    for r in range(keep, used):
        slot_of[owner_f[mru[r]]] = -1
    kept = np.sort(mru[:keep])
    lens = np.empty(keep, np.int64)
    owners = np.empty(keep, np.int64)
    new_of = np.empty(max(ns_old, 1), np.int64)
    for r in range(keep):
        lens[r] = min(slen_f[kept[r]], w_new)
        owners[r] = owner_f[kept[r]]
        new_of[kept[r]] = r
    # row r moves from kept[r]·w_old to r·w_new, r ≤ kept[r]: narrower rows only move left (in
    # slot order); wider ones first left to r·w_old, then right (last row first), so no copy
    # overwrites a row still to be moved (a row's own copy may overlap: slices copy as NumPy)
    stride = min(w_new, w_old)
    for r in range(keep):
        a0 = kept[r] * w_old
        b0 = r * stride
        if a0 != b0:
            pool[b0:b0 + lens[r]] = pool[a0:a0 + lens[r]]
    if w_new > w_old:
        for r in range(keep - 1, -1, -1):
            pool[r * w_new:r * w_new + lens[r]] = pool[r * w_old:r * w_old + lens[r]]
    for r in range(keep):
        owner_f[r] = owners[r]
        slot_of[owners[r]] = r
        slen_f[r] = lens[r]
    for r in range(keep, ns_new):
        owner_f[r] = -1
        slen_f[r] = 0
    slen_f[ns_new] = keep
    prev = ns_new   # the sentinel
    for r in range(keep):
        t = new_of[mru[r]]
        nxt_f[prev] = t
        prv_f[t] = prev
        prev = t
    for t in range(keep, ns_new):
        nxt_f[prev] = t
        prv_f[t] = prev
        prev = t
    nxt_f[prev] = ns_new
    prv_f[ns_new] = prev
    return ns_new


# ---------------------------------------------------------------------------- status helpers
@njit(cache=True, inline="always")
def _in_up(a, lo, up, s):
    """α can move so that s·α grows (LIBSVM's I_up)."""
    if s > 0:
        return a < up
    return a > lo


@njit(cache=True, inline="always")
def _in_low(a, lo, up, s):
    """α can move so that s·α shrinks (LIBSVM's I_low)."""
    if s > 0:
        return a > lo
    return a < up


# status bytes (LIBSVM's alpha_status): bit 0 = in I_up, bit 1 = in I_low, bit 2 = s > 0; the
# one-group loops read one byte per variable instead of α, L, U and s
UP, LOW, POS = 1, 2, 4


@njit(cache=True, inline="always")
def status_of(a, lo, up, s):
    st = 0
    if _in_up(a, lo, up, s):
        st |= UP
    if _in_low(a, lo, up, s):
        st |= LOW
    if s > 0:
        st |= POS
    return np.int8(st)


@njit(cache=True, inline="always")
def bound_value(a, lo, up):
    """α's share of G_bar: α itself at a bound, 0 when free."""
    return a if (a <= lo or a >= up) else 0.0


# ---------------------------------------------------------------------------- working set
@njit(cache=True)
def select_working_set(m, a, G, L, U, s, st, grp, QD, tol, Gmax1, Gmax2, imax,
                       ordr, data, slot_of, owner, slen, prv, nxt, src):
    """Second-order working-set selection (Fan, Chen & Lin 2005, WSS2 as LIBSVM's
    ``Solver::select_working_set``) inside each equality group, plus single-variable Newton
    candidates for variables in no group; the candidate with the largest predicted decrease wins.

    Returns (i, j, max_violation): j ≥ 0 a pair of one group, j = −1 a single step on i,
    i = −1 when every violation is ≤ tol (optimal on the active set). Grouped variables are read
    through their status bytes and the two columns' cache hit test is written out, as in
    ``run`` (no reference counting per lookup): −14 % per ν-SVM solve on fourclass.
    """
    n_groups = Gmax1.shape[0]
    lru = owner.shape[0] < slot_of.shape[0]
    for g in range(n_groups):
        Gmax1[g] = -INF   # max over I_up of −s G    (LIBSVM's Gmax)
        Gmax2[g] = -INF   # max over I_low of s G    (LIBSVM's Gmax2)
        imax[g] = -1
    single_viol = 0.0
    single_gain = 0.0
    single_i = -1
    for t in range(m):
        g = grp[t]
        if g >= 0:
            f = st[t]
            v = -s[t] * G[t]
            if f & UP and v >= Gmax1[g]:
                Gmax1[g] = v
                imax[g] = t
            if f & LOW and -v >= Gmax2[g]:
                Gmax2[g] = -v
        else:
            gt = G[t]
            if gt < 0.0 and a[t] < U[t]:
                viol = -gt
            elif gt > 0.0 and a[t] > L[t]:
                viol = gt
            else:
                continue
            if viol > single_viol:
                single_viol = viol
            if viol > tol:
                q = QD[t] if QD[t] > 0.0 else TAU
                gain = gt * gt / q
                if gain > single_gain:
                    single_gain = gain
                    single_i = t
    max_viol = single_viol
    # the two groups with the largest gaps get the second-order pass (for the ν-SVM's two
    # groups this is LIBSVM's Solver_NU::select_working_set)
    g1 = -1
    g2 = -1
    gap1 = tol
    gap2 = tol
    for g in range(n_groups):
        gap = Gmax1[g] + Gmax2[g]
        if gap > max_viol:
            max_viol = gap
        if imax[g] < 0:
            continue
        if gap > gap1:
            g2, gap2 = g1, gap1
            g1, gap1 = g, gap
        elif gap > gap2:
            g2, gap2 = g, gap
    if max_viol <= tol:
        return -1, -1, max_viol
    best_obj = INF
    reach = -INF   # −best_obj·REACH
    best_j = -1
    best_i = -1
    if g1 >= 0:
        i1 = imax[g1]
        s1 = slot_of[ordr[i1]]
        if s1 < 0 or slen[s1] < m:
            s1 = _col_miss(i1, m, ordr, data, slot_of, owner, slen, prv, nxt, src)
        elif lru:
            _touch(s1, prv, nxt)
        s2 = s1
        i2 = -1
        if g2 >= 0:
            i2 = imax[g2]
            s2 = slot_of[ordr[i2]]
            if s2 < 0 or slen[s2] < m:
                s2 = _col_miss(i2, m, ordr, data, slot_of, owner, slen, prv, nxt, src)
            elif lru:
                _touch(s2, prv, nxt)
        for t in range(m):
            g = grp[t]
            if g < 0 or (g != g1 and g != g2):
                continue
            if not st[t] & LOW:
                continue
            grad_diff = Gmax1[g] + s[t] * G[t]
            if grad_diff <= 0.0:
                continue
            if g == g1:
                i = i1
                qit = data[s1, t]
            else:
                i = i2
                qit = data[s2, t]
            quad = QD[i] + QD[t] - 2.0 * s[i] * s[t] * qit
            if quad <= 0.0:
                quad = TAU
            gg = grad_diff * grad_diff
            if gg >= reach * quad:   # else it cannot win (REACH)
                obj = -gg / quad
                if obj <= best_obj:
                    best_obj = obj
                    reach = -obj * REACH
                    best_j = t
                    best_i = i
    if single_i >= 0 and (best_j < 0 or single_gain > -best_obj):
        return single_i, -1, max_viol
    if best_j < 0:
        # violations only on pairs whose step cannot be taken: treat as converged
        return -1, -1, max_viol
    return best_i, best_j, max_viol


@njit(cache=True)
def first_pass_one_group(m, G, st):
    """i = argmax over I_up of −s G and that maximum (the first half of WSS2)."""
    Gmax = -INF
    gi = -1
    for t in range(m):
        f = st[t]
        if f & UP:
            v = -G[t] if f & POS else G[t]
            if v >= Gmax:
                Gmax = v
                gi = t
    return Gmax, gi


# ---------------------------------------------------------------------------- updates
@njit(cache=True)
def _add_column(j, sl, delta, n, Gbar, buf, ordr, data, slen, src):
    """Gbar += delta · Q_j over all n positions: the prefix cached in slot sl (none when sl < 0),
    extended in place when its row has room, the rest computed into ``buf``."""
    ln = 0
    if sl >= 0:
        ln = slen[sl]
        if ln < n and data.shape[1] >= n:
            fill_column(data[sl], j, ln, n, src, ordr)
            slen[sl] = n
            ln = n
        for r in range(ln):
            Gbar[r] += delta * data[sl, r]
    if ln < n:
        fill_column(buf, j, ln, n, src, ordr)
        for r in range(ln, n):
            Gbar[r] += delta * buf[r]


@njit(cache=True)
def gbar_add(ci, delta, m, n, Gbar, pend, buf, ordr, data, slot_of, slen, src):
    """G_bar += delta · Q_ci: a variable entered or left a bound (its column's prefix of m is
    cached: it was just used). While at least three quarters of the variables are active, at
    once (LIBSVM), the rest of the column from the cache or computed (kept in the cache when its
    row has room); after that the change waits in ``pend`` for ``flush_gbar``, which costs one
    column per variable however often it bounces. The choice depends on m alone, so every cache
    size gives the same G_bar bit for bit."""
    if 4 * (n - m) > n:
        pend[ci] += delta
    else:
        _add_column(ci, slot_of[ordr[ci]], delta, n, Gbar, buf, ordr, data, slen, src)


@njit(cache=True)
def flush_gbar(n, Gbar, pend, buf, ordr, data, slot_of, slen, src):
    """G_bar += Σ_j pend_j Q_j over all n positions: the changes ``gbar_add`` deferred. G_bar is
    read only when the gradient is rebuilt, so they wait for it: a variable that enters and
    leaves its bound many times costs one column, and no column has to be kept at full length
    in a cache whose rows are cut to the active size."""
    for j in range(n):
        if pend[j] != 0.0:
            _add_column(j, slot_of[ordr[j]], pend[j], n, Gbar, buf, ordr, data, slen, src)
            pend[j] = 0.0


@njit(cache=True, inline="always")
def pair_step(gi, gj, si, sj, qii, qjj, qij, ai, aj, li, ui, lj, uj):
    """The analytic two-variable step with general bounds (Zapién Arreola, Fehr and Burkhardt 2007, §4.1, Algorithm 1; LIBSVM's
    update written along the direction that keeps Σ s α fixed): α_i += s_i t, α_j −= s_j t,
    t = b/a clipped to the box. Scalars only, so that inlining it adds no reference counting to
    the main loop. Returns (new α_i, new α_j, change of the objective or NaN when unbounded)."""
    b = -si * gi + sj * gj
    q = qii + qjj - 2.0 * si * sj * qij
    if q <= 0.0:
        q = TAU
    t = b / q
    tmax_i = (ui - ai) if si > 0 else (ai - li)
    tmax_j = (aj - lj) if sj > 0 else (uj - aj)
    hit_i = False
    hit_j = False
    if tmax_i <= t and tmax_i <= tmax_j:
        t = tmax_i
        hit_i = True
        if tmax_j == tmax_i:
            hit_j = True
    elif tmax_j <= t:
        t = tmax_j
        hit_j = True
    if not math.isfinite(t):
        return ai, aj, np.nan
    new_i = ai + si * t
    new_j = aj - sj * t
    if hit_i:
        new_i = ui if si > 0 else li
    if hit_j:
        new_j = lj if sj > 0 else uj
    # keep rounding from leaving the box
    new_i = min(max(new_i, li), ui)
    new_j = min(max(new_j, lj), uj)
    return new_i, new_j, -b * t + 0.5 * q * t * t


@njit(cache=True)
def update_single(i, m, n, a, G, Gbar, pend, buf, L, U, s, st, QD,
                  ordr, data, slot_of, owner, slen, prv, nxt, src):
    """Newton step on one variable in no group, clipped to [L_i, U_i]."""
    q = QD[i]
    ai = a[i]
    g_old = G[i]
    if q > 0.0:
        new = ai - g_old / q
    else:
        new = INF if g_old < 0.0 else -INF
    new = min(max(new, L[i]), U[i])
    if not math.isfinite(new):
        return np.nan
    d = new - ai
    a[i] = new
    st[i] = status_of(new, L[i], U[i], s[i])
    sl = col_slot(i, m, ordr, data, slot_of, owner, slen, prv, nxt, src)
    for r in range(m):
        G[r] += data[sl, r] * d
    db = bound_value(new, L[i], U[i]) - bound_value(ai, L[i], U[i])
    if db != 0.0:
        gbar_add(i, db, m, n, Gbar, pend, buf, ordr, data, slot_of, slen, src)
    return g_old * d + 0.5 * q * d * d


# ---------------------------------------------------------------------------- gradient
@njit(cache=True)
def initial_gradient(a, G, Gbar, p, L, U, src, ordr, buf):
    """G = p + Σ_{α_j ≠ 0} α_j Q_j and G_bar = Σ_{α_j at a bound} α_j Q_j (all positions)."""
    n = a.shape[0]
    for k in range(n):
        G[k] = p[k]
        Gbar[k] = 0.0
    for j in range(n):
        aj = a[j]
        if aj != 0.0:
            fill_column(buf, j, 0, n, src, ordr)
            for k in range(n):
                G[k] += aj * buf[k]
            bj = bound_value(aj, L[j], U[j])
            if bj != 0.0:
                for k in range(n):
                    Gbar[k] += bj * buf[k]


@njit(cache=True)
def reconstruct_gradient(m, n, a, G, Gbar, p, L, U, buf, ordr, data, slot_of, slen, src):
    """G at the shrunk positions m..n−1: G_bar + p + Σ_{free α_j} α_j Q_j (LIBSVM's
    ``reconstruct_gradient``; shrunk variables are at bounds, so every free α is active). As
    LIBSVM, row-wise (one partial column per shrunk variable) when there are many free α,
    otherwise the tails of the free α's columns (extended in the cache when the rows are wide
    enough, else computed into ``buf``). G_bar must be flushed first (``flush_gbar``)."""
    if m >= n:
        return
    for r in range(m, n):
        G[r] = Gbar[r] + p[r]
    n_free = 0
    for j in range(m):
        if L[j] < a[j] < U[j]:
            n_free += 1
    if n_free == 0:
        return
    if n_free * n > 2 * m * (n - m):
        for r in range(m, n):
            fill_column(buf, r, 0, m, src, ordr)
            acc = 0.0
            for j in range(m):
                if L[j] < a[j] < U[j]:
                    acc += a[j] * buf[j]
            G[r] += acc
    else:
        wide = data.shape[1] >= n
        for j in range(m):
            if L[j] < a[j] < U[j]:
                aj = a[j]
                sl = slot_of[ordr[j]]
                if sl >= 0 and (wide or slen[sl] >= n):
                    if slen[sl] < n:
                        fill_column(data[sl], j, slen[sl], n, src, ordr)
                        slen[sl] = n
                    for r in range(m, n):
                        G[r] += aj * data[sl, r]
                else:
                    fill_column(buf, j, m, n, src, ordr)
                    for r in range(m, n):
                        G[r] += aj * buf[r]


# ---------------------------------------------------------------------------- shrinking
@njit(cache=True)
def _be_shrunk(t, a, G, L, U, s, grp, Gmax1, Gmax2, single_viol):
    at_up = a[t] >= U[t]
    at_lo = a[t] <= L[t]
    if at_up and at_lo:
        return True   # fixed variable
    g = grp[t]
    if g < 0:
        if at_lo:
            return G[t] > single_viol
        if at_up:
            return -G[t] > single_viol
        return False
    sg = s[t] * G[t]
    if (at_up and s[t] > 0) or (at_lo and s[t] < 0):
        return -sg > Gmax1[g]
    if (at_lo and s[t] > 0) or (at_up and s[t] < 0):
        return sg > Gmax2[g]
    return False


@njit(cache=True)
def _swap(x, i, j):
    t = x[i]
    x[i] = x[j]
    x[j] = t


@njit(cache=True)
def swap_index(i, j, farr, grp, st, ordr, src, data, owner, slen):
    """LIBSVM's ``swap_index`` for positions i < j: every compact array, Xᵀ's columns and the
    cached columns (swapped entries, or the prefix cut to i when it holds only i)."""
    for x in farr:
        _swap(x, i, j)
    _swap(grp, i, j)
    _swap(st, i, j)
    _swap(ordr, i, j)
    XT = src[6]
    for f in range(XT.shape[0]):
        _swap(XT[f], i, j)
    _swap(src[7], i, j)
    _swap(src[8], i, j)
    if src[9].shape[0] > 0:
        _swap(src[9], i, j)
    for sl in range(slen[owner.shape[0]]):   # the slots in use
        ln = slen[sl]
        if ln > j:
            t = data[sl, i]
            data[sl, i] = data[sl, j]
            data[sl, j] = t
        elif ln > i:
            slen[sl] = i


@njit(cache=True)
def shrink_scan(m, a, G, L, U, s, grp, Gmax1, Gmax2):
    """The per-group maxima of ``_be_shrunk`` and the maximal violation on the active set."""
    n_groups = Gmax1.shape[0]
    for g in range(n_groups):
        Gmax1[g] = -INF
        Gmax2[g] = -INF
    single_viol = 0.0
    for t in range(m):
        g = grp[t]
        if g >= 0:
            v = -s[t] * G[t]
            if _in_up(a[t], L[t], U[t], s[t]) and v > Gmax1[g]:
                Gmax1[g] = v
            if _in_low(a[t], L[t], U[t], s[t]) and -v > Gmax2[g]:
                Gmax2[g] = -v
        else:
            if G[t] < 0.0 and a[t] < U[t]:
                single_viol = max(single_viol, -G[t])
            elif G[t] > 0.0 and a[t] > L[t]:
                single_viol = max(single_viol, G[t])
    viol = single_viol
    for g in range(n_groups):
        viol = max(viol, Gmax1[g] + Gmax2[g])
    return single_viol, viol


@njit(cache=True)
def shrink_swaps(m, farr, grp, st, ordr, src, data, owner, slen, Gmax1, Gmax2, single_viol):
    """LIBSVM's ``do_shrinking`` loop: each variable to shrink changes place with the last
    active one that stays. Returns the new active size."""
    a, G, L, U, s = farr[0], farr[1], farr[4], farr[5], farr[6]
    i = 0
    while i < m:   # m shrinks inside the loop (LIBSVM's for over active_size)
        if _be_shrunk(i, a, G, L, U, s, grp, Gmax1, Gmax2, single_viol):
            m -= 1
            while m > i:
                if not _be_shrunk(m, a, G, L, U, s, grp, Gmax1, Gmax2, single_viol):
                    swap_index(i, m, farr, grp, st, ordr, src, data, owner, slen)
                    break
                m -= 1
        i += 1
    return m


# ---------------------------------------------------------------------------- main loop
@njit(cache=True, nogil=True)  # entry point: releases the GIL so threads can run solves in parallel
def run(farr, grp, st, ordr, src, pool, slot_of, owner_f, slen_f, prv_f, nxt_f, Gmax1, Gmax2, imax,
        buf, tol, stop_it, shrinking, shrink_every, one_group, ist, fst,
        hist_it, hist_viol, hist_obj, tr_ij, tr_a, tr_vo, ev):
    """LIBSVM's ``Solver::Solve`` (shrinking every ``shrink_every`` iterations, unshrink and
    re-check before stopping) on compact arrays, until convergence or iteration ``stop_it``.
    All state lives in the arguments (``ist``/``fst`` hold the scalars), so the caller can run
    the solve in chunks. ``farr`` = (a, G, Gbar, p, L, U, s, QD, pend). The cache is ``pool``
    laid out as rows of ``ist[S_W]`` entries (``width_for``/``repack``); ``owner_f``, ``slen_f``,
    ``prv_f`` and ``nxt_f`` have room for n slots and are viewed at the current count. A new
    width returns RESHAPED with the state of the iteration's start (the caller calls again):
    views assigned once per call keep Numba's reference counting out of the loop (assigning
    them inside it costs about a quarter more time per iteration on fourclass, rbf, C = 1000). Trace arrays of length 0
    record nothing; otherwise per iteration k < len: the pair in original indices (j = −1 for a
    single-variable step), α_i, α_j before and after, the maximal violation and the objective
    after the step; ``ev`` records shrinking events (iteration, active size).

    Per-iteration cost. With a few dozen active variables the loops over them are
    short and the constant per iteration decides the race with LIBSVM. Numba counts references
    (an atomic add) for every array handed to a function, inlined ones too: a loop that hands
    arrays to helpers spends about half its time there. So the iteration itself touches arrays only directly: the cache
    hit test is written out here (misses, G_bar updates and shrinking call out: they are rare),
    the pair step is the scalar ``pair_step``; the LRU order is kept only when some column has
    no slot of its own; the history is sampled by a countdown instead of a modulo."""
    a, G, Gbar, p, L, U, s, QD, pend = farr
    n = a.shape[0]
    size = pool.shape[0]
    w = ist[S_W]
    ns = min(n, size // w)
    data = pool[:ns * w].reshape((ns, w))
    owner = owner_f[:ns]
    slen = slen_f[:ns + 1]
    prv = prv_f[:ns + 1]
    nxt = nxt_f[:ns + 1]
    lru = ns < n
    m = ist[S_M]
    counter = ist[S_COUNTER]
    it = ist[S_IT]
    pre_ok = ist[S_PRE_OK] == 1
    pre_i = ist[S_PRE_I]
    n_hist = ist[S_NHIST]
    stride = ist[S_STRIDE]
    n_tr = ist[S_NTRACE]
    n_ev = ist[S_NEV]
    pre_Gmax = fst[F_PRE_GMAX]
    obj = fst[F_OBJ]
    max_viol = fst[F_VIOL]
    hist_cap = hist_it.shape[0]
    tr_cap = tr_ij.shape[0]
    ev_cap = ev.shape[0]
    unshrunk = ist[S_UNSHRUNK] == 1
    next_hist = ((it + stride - 1) // stride) * stride   # the next multiple of stride
    status = RUNNING
    n_evict = 0   # columns evicted since the last shrinking step (width_for)
    d_feat = src[6].shape[0]
    while it < stop_it:
        counter -= 1
        if counter == 0:
            counter = shrink_every
            if shrinking:
                single_viol, viol = shrink_scan(m, a, G, L, U, s, grp, Gmax1, Gmax2)
                old_m = m
                if not unshrunk and viol <= 10.0 * tol:
                    # near the end: bring every variable back once, as LIBSVM
                    unshrunk = True
                    flush_gbar(n, Gbar, pend, buf, ordr, data, slot_of, slen, src)
                    reconstruct_gradient(m, n, a, G, Gbar, p, L, U, buf, ordr, data, slot_of,
                                         slen, src)
                    m = n
                m = shrink_swaps(m, farr, grp, st, ordr, src, data, owner, slen, Gmax1, Gmax2,
                                 single_viol)
                if m != old_m:
                    if n_ev < ev_cap and tr_cap > 0:
                        ev[n_ev, 0] = it
                        ev[n_ev, 1] = m
                        n_ev += 1
                pre_ok = False
                w_new = width_for(m, w, n, size, n_evict, d_feat)
                n_evict = 0
                if w_new != w:
                    repack(w_new, w, n, pool, slot_of, owner_f, slen_f, prv_f, nxt_f)
                    w = w_new
                    # the caller calls again, which views the new rows (see RESHAPED above)
                    counter += 1
                    status = RESHAPED
                    break
        sl_i = -1   # cache slot of Q_i's column, when already looked up
        if one_group:
            if not pre_ok:
                pre_Gmax, pre_i = first_pass_one_group(m, G, st)
            # second half of WSS2 for one group (LIBSVM's select_working_set), inlined
            i = pre_i
            j = -1
            max_viol = 0.0
            if i >= 0:
                sl_i = slot_of[ordr[i]]
                if sl_i < 0 or slen[sl_i] < m:
                    if sl_i < 0 and slen[ns] == ns:
                        n_evict += 1
                    sl_i = _col_miss(i, m, ordr, data, slot_of, owner, slen, prv, nxt, src)
                elif lru:
                    _touch(sl_i, prv, nxt)
                gmax = pre_Gmax
                gmin = -INF
                best_obj = INF
                reach = -INF   # −best_obj·REACH
                qdi = QD[i]
                pos_i = st[i] & POS
                for t in range(m):
                    f = st[t]
                    if f & LOW:
                        if f & POS:
                            grad_diff = gmax + G[t]
                            if G[t] >= gmin:
                                gmin = G[t]
                            qit = data[sl_i, t] if pos_i else -data[sl_i, t]
                        else:
                            grad_diff = gmax - G[t]
                            if -G[t] >= gmin:
                                gmin = -G[t]
                            qit = -data[sl_i, t] if pos_i else data[sl_i, t]
                        if grad_diff > 0.0:
                            quad = qdi + QD[t] - 2.0 * qit
                            if quad <= 0.0:
                                quad = TAU
                            gg = grad_diff * grad_diff
                            if gg >= reach * quad:   # else it cannot win (REACH)
                                o = -gg / quad
                                if o <= best_obj:
                                    j = t
                                    best_obj = o
                                    reach = -o * REACH
                max_viol = max(gmax + gmin, 0.0)
                if gmax + gmin <= tol or j < 0:
                    i = -1
        else:
            i, j, max_viol = select_working_set(m, a, G, L, U, s, st, grp, QD, tol, Gmax1, Gmax2,
                                                imax, ordr, data, slot_of, owner, slen, prv, nxt,
                                                src)
        if i < 0:
            if m < n:
                if w < n:
                    # full rows for the final check; called again, this iteration is redone
                    repack(n, w, n, pool, slot_of, owner_f, slen_f, prv_f, nxt_f)
                    w = n
                    counter += 1
                    status = RESHAPED
                    break
                flush_gbar(n, Gbar, pend, buf, ordr, data, slot_of, slen, src)
                reconstruct_gradient(m, n, a, G, Gbar, p, L, U, buf, ordr, data, slot_of, slen,
                                     src)
                m = n
                if n_ev < ev_cap and tr_cap > 0:
                    ev[n_ev, 0] = it
                    ev[n_ev, 1] = m
                    n_ev += 1
                pre_ok = False
                sl_i = -1
                i, j, max_viol = select_working_set(m, a, G, L, U, s, st, grp, QD, tol, Gmax1,
                                                    Gmax2, imax, ordr, data, slot_of, owner, slen,
                                                    prv, nxt, src)
            if i < 0:
                status = CONVERGED
                break
            counter = 1
        if it == next_hist:
            if n_hist == hist_cap:
                # keep every other record and halve the sampling rate
                for h in range(hist_cap // 2):
                    hist_it[h] = hist_it[2 * h]
                    hist_viol[h] = hist_viol[2 * h]
                    hist_obj[h] = hist_obj[2 * h]
                n_hist = hist_cap // 2
                stride *= 2
            if it % stride == 0:
                hist_it[n_hist] = it
                hist_viol[n_hist] = max_viol
                hist_obj[n_hist] = obj
                n_hist += 1
            next_hist = (it // stride + 1) * stride
        it += 1
        record = n_tr < tr_cap
        if record:
            tr_ij[n_tr, 0] = ordr[i]
            tr_ij[n_tr, 1] = ordr[j] if j >= 0 else -1
            tr_a[n_tr, 0] = a[i]
            tr_a[n_tr, 1] = a[j] if j >= 0 else 0.0
        if j >= 0:
            if sl_i < 0:
                sl_i = slot_of[ordr[i]]
                if sl_i < 0 or slen[sl_i] < m:
                    if sl_i < 0 and slen[ns] == ns:
                        n_evict += 1
                    sl_i = _col_miss(i, m, ordr, data, slot_of, owner, slen, prv, nxt, src)
                elif lru:
                    _touch(sl_i, prv, nxt)
            ai = a[i]
            aj = a[j]
            new_i, new_j, d = pair_step(G[i], G[j], s[i], s[j], QD[i], QD[j], data[sl_i, j],
                                        ai, aj, L[i], U[i], L[j], U[j])
            if math.isnan(d):
                status = UNBOUNDED
                break
            a[i] = new_i
            a[j] = new_j
            st[i] = status_of(new_i, L[i], U[i], s[i])
            st[j] = status_of(new_j, L[j], U[j], s[j])
            dai = new_i - ai
            daj = new_j - aj
            # after Q_i: Q_i's slot is the most recent, so this cannot evict it
            sl_j = slot_of[ordr[j]]
            if sl_j < 0 or slen[sl_j] < m:
                if sl_j < 0 and slen[ns] == ns:
                    n_evict += 1
                sl_j = _col_miss(j, m, ordr, data, slot_of, owner, slen, prv, nxt, src)
            elif lru:
                _touch(sl_j, prv, nxt)
            if one_group:
                # the gradient loop also finds the next i (first half of WSS2, one group)
                pre_Gmax = -INF
                pre_i = -1
                for r in range(m):
                    g = G[r] + data[sl_i, r] * dai + data[sl_j, r] * daj
                    G[r] = g
                    f = st[r]
                    if f & UP:
                        v = -g if f & POS else g
                        if v >= pre_Gmax:
                            pre_Gmax = v
                            pre_i = r
                pre_ok = True
            else:
                for r in range(m):
                    G[r] += data[sl_i, r] * dai + data[sl_j, r] * daj
                pre_ok = False
            # G_bar follows the variables that enter or leave a bound (LIBSVM's update of G_bar)
            d_i = bound_value(new_i, L[i], U[i]) - bound_value(ai, L[i], U[i])
            if d_i != 0.0:
                gbar_add(i, d_i, m, n, Gbar, pend, buf, ordr, data, slot_of, slen, src)
            d_j = bound_value(new_j, L[j], U[j]) - bound_value(aj, L[j], U[j])
            if d_j != 0.0:
                gbar_add(j, d_j, m, n, Gbar, pend, buf, ordr, data, slot_of, slen, src)
        else:
            d = update_single(i, m, n, a, G, Gbar, pend, buf, L, U, s, st, QD,
                              ordr, data, slot_of, owner, slen, prv, nxt, src)
            pre_ok = False
            if math.isnan(d):
                status = UNBOUNDED
                break
        obj += d
        if record:
            tr_a[n_tr, 2] = a[i]
            tr_a[n_tr, 3] = a[j] if j >= 0 else 0.0
            tr_vo[n_tr, 0] = max_viol
            tr_vo[n_tr, 1] = obj
            n_tr += 1
    ist[S_M] = m
    ist[S_COUNTER] = counter
    ist[S_IT] = it
    ist[S_UNSHRUNK] = 1 if unshrunk else 0
    ist[S_PRE_OK] = 1 if pre_ok else 0
    ist[S_PRE_I] = pre_i
    ist[S_NHIST] = n_hist
    ist[S_STRIDE] = stride
    ist[S_NTRACE] = n_tr
    ist[S_NEV] = n_ev
    ist[S_STATUS] = status
    ist[S_W] = w
    ist[S_WMIN] = min(ist[S_WMIN], w)
    fst[F_PRE_GMAX] = pre_Gmax
    fst[F_OBJ] = obj
    fst[F_VIOL] = max_viol
    return status


@njit(cache=True, nogil=True)
def finish(farr, ordr, src, pool, slot_of, slen_f, buf, ist):
    """Flush G_bar, rebuild the gradient of the shrunk variables and put α, G and G_bar back in
    the original order (returned as new arrays)."""
    a, G, Gbar, p, L, U, s, QD, pend = farr
    n = a.shape[0]
    m = ist[S_M]
    w = ist[S_W]
    ns = min(n, pool.shape[0] // w)
    data = pool[:ns * w].reshape((ns, w))
    slen = slen_f[:ns + 1]
    flush_gbar(n, Gbar, pend, buf, ordr, data, slot_of, slen, src)
    if m < n:
        reconstruct_gradient(m, n, a, G, Gbar, p, L, U, buf, ordr, data, slot_of, slen, src)
    alpha = np.empty(n)
    grad = np.empty(n)
    gbar = np.empty(n)
    for k in range(n):
        alpha[ordr[k]] = a[k]
        grad[ordr[k]] = G[k]
        gbar[ordr[k]] = Gbar[k]
    return alpha, grad, gbar
