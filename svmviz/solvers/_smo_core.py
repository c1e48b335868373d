"""The Numba kernels of the SMO backend (see ``smo.py`` for the algorithm and its sources).

Layout. As LIBSVM (``Solver::swap_index``), the active variables are kept contiguous: every
per-variable array is a *compact* copy permuted so that positions 0..m−1 are the active set (``ordr``
maps a position to the original index). Shrinking re-permutes those copies (O(n) per shrinking
step) and starts a new *epoch*; the hot loops then run over 0..m−1 with unit stride, which the
compiler vectorises, instead of gathering through an index list.

Columns of Q for the active positions come from an LRU cache (LIBSVM's ``Cache``) filled either
from a dense Q or from the samples (linear, poly, rbf, sigmoid, with per-sample signs and the
Scatter factor). A cached column belongs to one epoch; one shrinking step later its kept entries
are moved into place on first use, otherwise it is recomputed.

``src`` (column source): (dense, Qd, kind, gamma, coef0, degree, XT, xsq, signs, classes, inv_K,
ibuf) with ``XT`` (d × n), ``xsq``, ``signs``, ``classes`` in compact order; ``kind`` 0 linear,
1 poly, 2 rbf, 3 sigmoid; ``classes`` empty without a Scatter factor; ``ibuf`` int64 work space.
``cc`` (column cache): (cache, slot_of, slot_owner, slot_time, slot_epoch, ctr, last_perm) with
``ctr = [clock, epoch, 1 if the last epoch came from shrinking by last_perm]``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

TAU = 1e-12  # LIBSVM's TAU: curvature used when a pair's second derivative is not positive
INF = np.inf

KERNEL_CODES = {"linear": 0, "poly": 1, "rbf": 2, "sigmoid": 3}

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
    seg = out[start:stop]
    m = stop - start
    for k in range(m):
        seg[k] = 0.0
    for f in range(XT.shape[0]):
        row = XT[f, start:stop]
        xf = XT[f, ci]
        for k in range(m):
            seg[k] += xf * row[k]
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


@njit(cache=True)
def get_col(ci, m, cc, src, ordr):
    """Column of compact position ci at the active positions 0..m−1, through the LRU cache."""
    cache, slot_of, slot_owner, slot_time, slot_epoch, ctr, last_perm = cc
    oi = ordr[ci]
    s = slot_of[oi]
    if s < 0:
        # least recently used slot (LIBSVM keeps an LRU list; a scan is as cheap here)
        s = 0
        tmin = slot_time[0]
        for k in range(1, slot_time.shape[0]):
            if slot_time[k] < tmin:
                tmin = slot_time[k]
                s = k
        if slot_owner[s] >= 0:
            slot_of[slot_owner[s]] = -1
        slot_owner[s] = oi
        slot_of[oi] = s
        slot_epoch[s] = -1
    if slot_epoch[s] != ctr[1]:
        col = cache[s]
        if slot_epoch[s] == ctr[1] - 1 and ctr[2] == 1:
            # one shrinking step old: move the kept entries (last_perm[k] ≥ k, so in place)
            for k in range(m):
                col[k] = col[last_perm[k]]
        else:
            fill_column(col, ci, 0, m, src, ordr)
        slot_epoch[s] = ctr[1]
    ctr[0] += 1
    slot_time[s] = ctr[0]
    return cache[s]


# ---------------------------------------------------------------------------- status helpers
@njit(cache=True)
def _in_up(a, lo, up, s):
    """α can move so that s·α grows (LIBSVM's I_up)."""
    if s > 0:
        return a < up
    return a > lo


@njit(cache=True)
def _in_low(a, lo, up, s):
    """α can move so that s·α shrinks (LIBSVM's I_low)."""
    if s > 0:
        return a > lo
    return a < up


# status bytes (LIBSVM's alpha_status): bit 0 = in I_up, bit 1 = in I_low, bit 2 = s > 0; the
# one-group loops read one byte per variable instead of α, L, U and s
UP, LOW, POS = 1, 2, 4


@njit(cache=True)
def status_of(a, lo, up, s):
    st = 0
    if _in_up(a, lo, up, s):
        st |= UP
    if _in_low(a, lo, up, s):
        st |= LOW
    if s > 0:
        st |= POS
    return np.int8(st)


# ---------------------------------------------------------------------------- working set
@njit(cache=True)
def select_working_set(m, a, G, L, U, s, grp, QD, cc, src, ordr, tol, Gmax1, Gmax2, imax):
    """Second-order working-set selection (Fan, Chen & Lin 2005, WSS2 as LIBSVM's
    ``Solver::select_working_set``) inside each equality group, plus single-variable Newton
    candidates for variables in no group; the candidate with the largest predicted decrease wins.

    Returns (i, j, max_violation): j ≥ 0 a pair of one group, j = −1 a single step on i,
    i = −1 when every violation is ≤ tol (optimal on the active set).
    """
    n_groups = Gmax1.shape[0]
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
            v = -s[t] * G[t]
            if _in_up(a[t], L[t], U[t], s[t]) and v >= Gmax1[g]:
                Gmax1[g] = v
                imax[g] = t
            if _in_low(a[t], L[t], U[t], s[t]) and -v >= Gmax2[g]:
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
    best_j = -1
    best_i = -1
    if g1 >= 0:
        i1 = imax[g1]
        col1 = get_col(i1, m, cc, src, ordr)
        col2 = col1
        i2 = -1
        if g2 >= 0:
            i2 = imax[g2]
            col2 = get_col(i2, m, cc, src, ordr)
        for t in range(m):
            g = grp[t]
            if g < 0 or (g != g1 and g != g2):
                continue
            if not _in_low(a[t], L[t], U[t], s[t]):
                continue
            grad_diff = Gmax1[g] + s[t] * G[t]
            if grad_diff <= 0.0:
                continue
            if g == g1:
                i = i1
                qit = col1[t]
            else:
                i = i2
                qit = col2[t]
            quad = QD[i] + QD[t] - 2.0 * s[i] * s[t] * qit
            if quad <= 0.0:
                quad = TAU
            obj = -(grad_diff * grad_diff) / quad
            if obj <= best_obj:
                best_obj = obj
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


@njit(cache=True)
def select_one_group(m, G, st, QD, cc, src, ordr, tol, Gmax, gi):
    """``select_working_set`` for one group holding every variable (the C-SVM): LIBSVM's
    ``Solver::select_working_set`` line by line. ``Gmax, gi`` come from ``first_pass_one_group``
    or from the previous update's gradient loop (one pass over the active set saved)."""
    if gi < 0:          # nothing can move up: optimal
        return -1, -1, 0.0
    Gmax2 = -INF
    best_obj = INF
    gj = -1
    col = get_col(gi, m, cc, src, ordr)
    qdi = QD[gi]
    si = 1.0 if st[gi] & POS else -1.0
    for t in range(m):
        f = st[t]
        if f & LOW:
            if f & POS:
                grad_diff = Gmax + G[t]
                if G[t] >= Gmax2:
                    Gmax2 = G[t]
                quad = qdi + QD[t] - 2.0 * si * col[t]
            else:
                grad_diff = Gmax - G[t]
                if -G[t] >= Gmax2:
                    Gmax2 = -G[t]
                quad = qdi + QD[t] + 2.0 * si * col[t]
            if grad_diff > 0.0:
                if quad <= 0.0:
                    quad = TAU
                obj = -(grad_diff * grad_diff) / quad
                if obj <= best_obj:
                    gj = t
                    best_obj = obj
    viol = Gmax + Gmax2
    if viol <= tol or gj < 0:
        return -1, -1, max(viol, 0.0)
    return gi, gj, viol


# ---------------------------------------------------------------------------- updates
@njit(cache=True)
def update_pair(i, j, m, a, G, L, U, s, st, QD, cc, src, ordr, track):
    """The analytic two-variable step with general bounds (seed 000 §4.1, Algorithm 1; LIBSVM's
    update written along the direction that keeps Σ s α fixed): α_i += s_i t, α_j −= s_j t,
    t = b/a clipped to the box. Returns (change of the objective or NaN when unbounded, and,
    if ``track``, the next i of ``first_pass_one_group`` found in the gradient loop)."""
    col_i = get_col(i, m, cc, src, ordr)
    b = -s[i] * G[i] + s[j] * G[j]
    q = QD[i] + QD[j] - 2.0 * s[i] * s[j] * col_i[j]
    if q <= 0.0:
        q = TAU
    t = b / q
    ai, aj = a[i], a[j]
    tmax_i = (U[i] - ai) if s[i] > 0 else (ai - L[i])
    tmax_j = (aj - L[j]) if s[j] > 0 else (U[j] - aj)
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
        return np.nan, -INF, -1
    new_i = ai + s[i] * t
    new_j = aj - s[j] * t
    if hit_i:
        new_i = U[i] if s[i] > 0 else L[i]
    if hit_j:
        new_j = L[j] if s[j] > 0 else U[j]
    # keep rounding from leaving the box
    new_i = min(max(new_i, L[i]), U[i])
    new_j = min(max(new_j, L[j]), U[j])
    dai = new_i - ai
    daj = new_j - aj
    a[i] = new_i
    a[j] = new_j
    st[i] = status_of(new_i, L[i], U[i], s[i])
    st[j] = status_of(new_j, L[j], U[j], s[j])
    col_j = get_col(j, m, cc, src, ordr)   # col_i, the most recently used slot, stays cached
    Gmax = -INF
    gi = -1
    if track:
        # the gradient loop also finds the next i (first half of WSS2, one group)
        for r in range(m):
            g = G[r] + col_i[r] * dai + col_j[r] * daj
            G[r] = g
            f = st[r]
            if f & UP:
                v = -g if f & POS else g
                if v >= Gmax:
                    Gmax = v
                    gi = r
    else:
        for r in range(m):
            G[r] += col_i[r] * dai + col_j[r] * daj
    return -b * t + 0.5 * q * t * t, Gmax, gi


@njit(cache=True)
def update_single(i, m, a, G, L, U, s, st, QD, cc, src, ordr):
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
    col = get_col(i, m, cc, src, ordr)
    for r in range(m):
        G[r] += col[r] * d
    return g_old * d + 0.5 * q * d * d


# ---------------------------------------------------------------------------- shrinking
@njit(cache=True)
def reconstruct_gradient(m, n, a, G, p, src, ordr, buf):
    """G at the shrunk positions m..n−1 from scratch: p + Σ_{α_j ≠ 0} α_j Q_j (LIBSVM keeps
    G_bar for this; with vectorised columns recomputing is cheaper than maintaining it)."""
    if m >= n:
        return
    for r in range(m, n):
        G[r] = p[r]
    for j in range(n):
        aj = a[j]
        if aj != 0.0:
            fill_column(buf, j, m, n, src, ordr)
            for r in range(m, n):
                G[r] += aj * buf[r]


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
def _permute(x, perm, tmp):
    """x ← x[perm] through ``tmp`` (Numba compiles one version per dtype)."""
    n = perm.shape[0]
    for k in range(n):
        tmp[k] = x[perm[k]]
    for k in range(n):
        x[k] = tmp[k]


@njit(cache=True)
def apply_permutation(perm, arrays, ints, st, XT, src, ordr, ftmp, itmp):
    """Reorder every compact array (and Xᵀ's columns) by ``perm`` (new position k holds the old
    position perm[k])."""
    for x in arrays:
        _permute(x, perm, ftmp)
    for x in ints:
        _permute(x, perm, itmp)
    _permute(ordr, perm, itmp)
    _permute(st, perm, itmp)
    for f in range(XT.shape[0]):
        _permute(XT[f], perm, ftmp)
    classes = src[9]
    if classes.shape[0] > 0:
        _permute(classes, perm, itmp)


@njit(cache=True)
def do_shrinking(m, n, a, G, L, U, s, grp, tol, unshrunk, Gmax1, Gmax2, perm):
    """LIBSVM's ``do_shrinking`` per group: a bounded variable whose gradient says it will stay
    at its bound leaves the active set. Returns (new m, perm) with ``perm`` putting the kept
    positions first; the caller applies it. The first time the violation is ≤ 10·tol the caller
    unshrinks everything instead (``unshrunk``)."""
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
    if not unshrunk[0] and viol <= 10.0 * tol:
        unshrunk[0] = True
        return -1
    k = 0
    for t in range(m):
        if not _be_shrunk(t, a, G, L, U, s, grp, Gmax1, Gmax2, single_viol):
            perm[k] = t
            k += 1
    new_m = k
    for t in range(m):
        if _be_shrunk(t, a, G, L, U, s, grp, Gmax1, Gmax2, single_viol):
            perm[k] = t
            k += 1
    for t in range(m, n):
        perm[k] = t
        k += 1
    return new_m


# ---------------------------------------------------------------------------- main loop
@njit(cache=True, nogil=True)  # entry point: releases the GIL so threads can run solves in parallel
def solve_loop(a, p, L, U, s, grp, n_groups, QD, src, n_slots, tol, max_iter, shrinking,
               one_group, hist_it, hist_viol, hist_obj):
    """LIBSVM's ``Solver::Solve`` (shrinking every min(n, 1000) iterations, unshrink and
    re-check before stopping) on compact arrays. ``a`` holds the start and receives the
    solution in the original order; the other arrays (and those in ``src``) are reordered in
    place, so the caller passes copies. Returns (G, n_iter, status, max_violation, n_hist);
    status 0 converged, 1 iteration limit, 2 unbounded objective."""
    n = a.shape[0]
    ordr = np.arange(n)
    G = np.empty(n)
    buf = np.empty(n)
    # the gradient of the starting point: p + Σ_{α_j ≠ 0} α_j Q_j
    for k in range(n):
        G[k] = p[k]
    for j in range(n):
        if a[j] != 0.0:
            fill_column(buf, j, 0, n, src, ordr)
            aj = a[j]
            for k in range(n):
                G[k] += aj * buf[k]
    obj = 0.0
    for k in range(n):
        obj += 0.5 * a[k] * (G[k] + p[k])
    cc = (np.empty((n_slots, n)), np.full(n, -1, dtype=np.int64),
          np.full(n_slots, -1, dtype=np.int64), np.zeros(n_slots, dtype=np.int64),
          np.full(n_slots, -1, dtype=np.int64), np.zeros(3, dtype=np.int64),
          np.empty(n, dtype=np.int64))
    ctr = cc[5]
    Gmax1 = np.empty(n_groups)
    Gmax2 = np.empty(n_groups)
    imax = np.empty(n_groups, dtype=np.int64)
    perm = np.empty(n, dtype=np.int64)
    ftmp = np.empty(n)
    itmp = np.empty(n, dtype=np.int64)
    XT = src[6]
    arrays = (a, G, p, L, U, s, QD, src[7], src[8])
    ints = (grp,)
    st = np.empty(n, dtype=np.int8)
    for k in range(n):
        st[k] = status_of(a[k], L[k], U[k], s[k])
    unshrunk = np.zeros(1, dtype=np.bool_)
    m = n
    counter = min(n, 1000) + 1
    it = 0
    n_hist = 0
    stride = 1
    hist_cap = hist_it.shape[0]
    status = 1
    max_viol = INF
    pre_ok = False      # (pre_Gmax, pre_i): first half of WSS2 for the current G (one group)
    pre_Gmax = -INF
    pre_i = -1
    while it < max_iter:
        counter -= 1
        if counter == 0:
            counter = min(n, 1000)
            if shrinking:
                new_m = do_shrinking(m, n, a, G, L, U, s, grp, tol, unshrunk, Gmax1, Gmax2, perm)
                if new_m < 0:
                    reconstruct_gradient(m, n, a, G, p, src, ordr, buf)
                    m = n
                    ctr[1] += 1
                    ctr[2] = 0
                    new_m = do_shrinking(m, n, a, G, L, U, s, grp, tol, unshrunk, Gmax1, Gmax2,
                                         perm)
                if new_m < m:
                    apply_permutation(perm, arrays, ints, st, XT, src, ordr, ftmp, itmp)
                    m = new_m
                    ctr[1] += 1
                    ctr[2] = 1
                    cc[6][:] = perm
                pre_ok = False
        if one_group:
            if not pre_ok:
                pre_Gmax, pre_i = first_pass_one_group(m, G, st)
            i, j, max_viol = select_one_group(m, G, st, QD, cc, src, ordr, tol, pre_Gmax, pre_i)
        else:
            i, j, max_viol = select_working_set(m, a, G, L, U, s, grp, QD, cc, src, ordr, tol,
                                                Gmax1, Gmax2, imax)
        if i < 0:
            if m < n:
                reconstruct_gradient(m, n, a, G, p, src, ordr, buf)
                m = n
                ctr[1] += 1
                ctr[2] = 0
                pre_ok = False
                i, j, max_viol = select_working_set(m, a, G, L, U, s, grp, QD, cc, src, ordr,
                                                    tol, Gmax1, Gmax2, imax)
            if i < 0:
                status = 0
                break
            counter = 1
        if it % stride == 0:
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
        it += 1
        if j >= 0:
            d, pre_Gmax, pre_i = update_pair(i, j, m, a, G, L, U, s, st, QD, cc, src, ordr,
                                             one_group)
            pre_ok = one_group
        else:
            d = update_single(i, m, a, G, L, U, s, st, QD, cc, src, ordr)
            pre_ok = False
        if math.isnan(d):
            status = 2
            break
        obj += d
    if m < n:
        reconstruct_gradient(m, n, a, G, p, src, ordr, buf)
    # back to the original order
    for k in range(n):
        ftmp[ordr[k]] = a[k]
    for k in range(n):
        a[k] = ftmp[k]
    out = np.empty(n)
    for k in range(n):
        out[ordr[k]] = G[k]
    return out, it, status, max_viol, n_hist
