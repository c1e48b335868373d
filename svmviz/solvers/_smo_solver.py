"""The solver proper of the SMO backend (LIBSVM's ``Solver``), in Numba; see ``smo.py`` for the
algorithm and its sources. The columns of Q come from ``_smo_columns`` through the column cache of
``_smo_cache``, as in LIBSVM's ``svm.cpp``, where ``Solver`` sees Q only through ``get_Q``.

Layout. As LIBSVM (``Solver::swap_index``), the active variables are kept contiguous: every
per-variable array (``Variables``) is a *compact* copy in which positions 0..m−1 are the active
set (``ordr`` maps a position to the original index). Shrinking swaps a shrunk variable with the
last active one, exactly as LIBSVM's ``do_shrinking``; the hot loops run over 0..m−1 with unit
stride.

G_bar (LIBSVM's ``G_bar``): Σ_j b_j Q_j over the variables at a bound, b_j = α_j there (for the
C-SVM: C_j Q_j over the α at the upper bound), so the gradient of the shrunk variables is
rebuilt from the free α only (``reconstruct_gradient``). A variable entering or leaving a bound
adds its column at once while m ≥ 3n/4, later its change waits in ``pend`` until the next
rebuild (``gbar_add``, ``flush_gbar``): a cut cache has no full-length columns to add.

State. ``run`` works in chunks of iterations (``smo.solve`` calls ``progress`` between them), so
everything it carries from one chunk to the next is in its arguments: the ``Variables``, the
``Cache``, the ``Work`` space, the ``Record`` of history and trace, and one ``COUNTERS`` record
for the scalars; the ``Settings`` do not change during a solve.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from svmviz.solvers._smo_cache import (col_miss, col_slot, repack, rows_at, swap_positions, touch,
                                       width_for)
from svmviz.solvers._smo_columns import fill_column, fill_row, swap_entries, swap_samples

TAU = 1e-12  # LIBSVM's TAU: curvature used when a pair's second derivative is not positive
# WSS2 keeps j with the smallest o_t = −g_t²/q_t (g_t > 0, q_t > 0). With B = −(best o so far),
# o_t ≤ best needs fl(g_t²/q_t) ≥ B; when g_t² < fl(fl(B·REACH)·q_t) rounding cannot get there:
# fl(g_t²/q_t) < B·REACH·(1 + 2⁻⁵³)³ < B. That test skips the division (the slowest instruction
# of the selection loop) for almost every t and never a candidate that could win: the same j as
# dividing every time, ties included.
REACH = 1.0 - 2.0 ** -49
INF = np.inf

RUNNING, CONVERGED, UNBOUNDED, RESHAPED = -1, 0, 2, 3


class Variables(NamedTuple):
    """Per-variable arrays in compact order: α, the gradient G, G_bar, the linear term p, the
    bounds L and U, the equality signs s, Q_ii (in double, as LIBSVM's QD), the G_bar changes
    not yet added (``pend``), the equality group (−1 for none), the status bytes (``status_of``)
    and the original index of each position (``ordr``)."""
    a: np.ndarray
    G: np.ndarray
    Gbar: np.ndarray
    p: np.ndarray
    L: np.ndarray
    U: np.ndarray
    s: np.ndarray
    QD: np.ndarray
    pend: np.ndarray
    grp: np.ndarray
    st: np.ndarray
    ordr: np.ndarray


class Work(NamedTuple):
    """Scratch space: per-group maxima of the selection (LIBSVM's Gmax, Gmax2 and their i), a
    column buffer of n entries and the one-group selection's scores (n entries, ``run``)."""
    Gmax1: np.ndarray
    Gmax2: np.ndarray
    imax: np.ndarray
    buf: np.ndarray
    score: np.ndarray


class Record(NamedTuple):
    """What a solve records: the sampled history (iteration, maximal violation, objective), the
    trace (pairs, α before and after, violation and objective; length 0 records nothing) and the
    shrinking events (iteration, active size)."""
    hist_it: np.ndarray
    hist_viol: np.ndarray
    hist_obj: np.ndarray
    tr_ij: np.ndarray
    tr_a: np.ndarray
    tr_vo: np.ndarray
    ev: np.ndarray


class Settings(NamedTuple):
    """The options of a solve: tolerance, shrinking on or off and its period, and whether one
    equality group holds every variable (the C-SVM: its selection is inlined in ``run``)."""
    tol: float
    shrinking: bool
    shrink_every: int
    one_group: bool


# the scalars ``run`` carries between chunks: active size, iterations to the next shrinking step,
# iterations done, whether the variables were brought back once, the next i of the one-group
# selection (valid when ``pre_ok``) with its m(α) and −M(α), history and trace counts and the
# history's sampling stride, the last status, the cache's row width and its least width so far, the
# objective and the last maximal violation
COUNTERS = np.dtype([("m", np.int64), ("counter", np.int64), ("it", np.int64),
                     ("unshrunk", np.bool_), ("pre_ok", np.bool_), ("pre_i", np.int64),
                     ("n_hist", np.int64), ("stride", np.int64), ("n_trace", np.int64),
                     ("n_ev", np.int64), ("status", np.int64), ("w", np.int64),
                     ("w_min", np.int64), ("pre_gmax", np.float64), ("pre_gmin", np.float64),
                     ("obj", np.float64), ("viol", np.float64)])


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
def select_working_set(m, var, tol, work, rows, cols):
    """Second-order working-set selection (Fan, Chen & Lin 2005, WSS2 as LIBSVM's
    ``Solver::select_working_set``) inside each equality group, plus single-variable Newton
    candidates for variables in no group; the candidate with the largest predicted decrease wins.

    Returns (i, j, max_violation): j ≥ 0 a pair of one group, j = −1 a single step on i,
    i = −1 when every violation is ≤ tol (optimal on the active set). Grouped variables are read
    through their status bytes and the two columns' cache hit test is written out, as in
    ``run`` (no reference counting per lookup): −14 % per ν-SVM solve on fourclass.
    """
    a, G, L, U, s, QD = var.a, var.G, var.L, var.U, var.s, var.QD
    grp, st, ordr = var.grp, var.st, var.ordr
    Gmax1, Gmax2, imax = work.Gmax1, work.Gmax2, work.imax
    data, slot_of, owner, slen, prv, nxt = rows
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
            s1 = col_miss(i1, m, ordr, rows, cols)
        elif lru:
            touch(s1, prv, nxt)
        s2 = s1
        i2 = -1
        if g2 >= 0:
            i2 = imax[g2]
            s2 = slot_of[ordr[i2]]
            if s2 < 0 or slen[s2] < m:
                s2 = col_miss(i2, m, ordr, rows, cols)
            elif lru:
                touch(s2, prv, nxt)
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


@njit(cache=True, inline="always")
def lane_step(y, f, r, b, k, h):
    """One entry of ``first_pass_one_group``'s scan in one of its lanes: y = s_r G_r with status
    byte f at position r; b, k: the least y over I_up so far and the last r that holds it
    (WSS2's >= on −y), h: the greatest y over I_low so far (−M(α)). Scalars only: inlined into
    ``run``'s gradient loop, it adds no reference counting."""
    u = y if f & UP else INF
    if u <= b:
        b = u
        k = r
    v = y if f & LOW else -INF
    h = v if v > h else h
    return b, k, h


@njit(cache=True, inline="always")
def merge_lanes(b0, k0, b1, k1, b2, k2, b3, k3):
    """The least of four lanes' b and the last index that holds it (the greatest k among the
    lanes that hold it: each lane's k is its last), −1 when every b is inf."""
    least = min(min(b0, b1), min(b2, b3))
    if least == INF:
        return least, -1
    k = -1
    if b0 == least:
        k = k0
    if b1 == least and k1 > k:
        k = k1
    if b2 == least and k2 > k:
        k = k2
    if b3 == least and k3 > k:
        k = k3
    return least, k


@njit(cache=True)
def first_pass_one_group(m, G, s, st):
    """The first half of WSS2 and the stopping test's M(α) in one pass: m(α) = max over I_up of
    −s G, the last i that holds it, and −M(α) = max over I_low of s G (−inf for empty sets).
    Four lanes, as ``run``'s gradient loop, which computes the same three from the updated
    gradient."""
    b0 = b1 = b2 = b3 = INF
    k0 = k1 = k2 = k3 = -1
    h0 = h1 = h2 = h3 = -INF
    t = 0
    while t + 4 <= m:
        b0, k0, h0 = lane_step(s[t] * G[t], st[t], t, b0, k0, h0)
        b1, k1, h1 = lane_step(s[t + 1] * G[t + 1], st[t + 1], t + 1, b1, k1, h1)
        b2, k2, h2 = lane_step(s[t + 2] * G[t + 2], st[t + 2], t + 2, b2, k2, h2)
        b3, k3, h3 = lane_step(s[t + 3] * G[t + 3], st[t + 3], t + 3, b3, k3, h3)
        t += 4
    while t < m:
        b0, k0, h0 = lane_step(s[t] * G[t], st[t], t, b0, k0, h0)
        t += 1
    least, gi = merge_lanes(b0, k0, b1, k1, b2, k2, b3, k3)
    return -least, gi, max(max(h0, h1), max(h2, h3))


@njit(cache=True, inline="always")
def least_last(x, m):
    """The least of x[0..m−1] (reduced in four lanes, which need no branch) and the last index
    that holds it, or (inf, −1) when every entry is inf. The same index as a scan that takes
    each x_t ≤ the least so far."""
    b0 = INF
    b1 = INF
    b2 = INF
    b3 = INF
    t = 0
    while t + 4 <= m:
        x0 = x[t]
        x1 = x[t + 1]
        x2 = x[t + 2]
        x3 = x[t + 3]
        b0 = x0 if x0 < b0 else b0
        b1 = x1 if x1 < b1 else b1
        b2 = x2 if x2 < b2 else b2
        b3 = x3 if x3 < b3 else b3
        t += 4
    while t < m:
        x0 = x[t]
        b0 = x0 if x0 < b0 else b0
        t += 1
    least = min(min(b0, b1), min(b2, b3))
    if least == INF:
        return least, -1
    k = m - 1
    # four entries a loop turn: this scan back costs more than the lanes' pass
    while k >= 3 and x[k] != least and x[k - 1] != least and x[k - 2] != least \
            and x[k - 3] != least:
        k -= 4
    while x[k] != least:
        k -= 1
    return least, k


# ---------------------------------------------------------------------------- updates
@njit(cache=True)
def _add_column(j, sl, delta, n, Gbar, buf, ordr, rows, cols):
    """Gbar += delta · Q_j over all n positions: the prefix cached in slot sl (none when sl < 0),
    extended in place when its row has room, the rest computed into ``buf``."""
    data, slen = rows.data, rows.slen
    ln = 0
    if sl >= 0:
        ln = slen[sl]
        if ln < n and data.shape[1] >= n:
            fill_row(data[sl], j, ln, n, cols, ordr)
            slen[sl] = n
            ln = n
        for r in range(ln):
            Gbar[r] += delta * data[sl, r]
    if ln < n:
        fill_column(buf, j, ln, n, cols, ordr)
        for r in range(ln, n):
            Gbar[r] += delta * buf[r]


@njit(cache=True)
def gbar_add(ci, delta, m, n, var, buf, rows, cols):
    """G_bar += delta · Q_ci: a variable entered or left a bound (its column's prefix of m is
    cached: it was just used). While at least three quarters of the variables are active, at
    once (LIBSVM), the rest of the column from the cache or computed (kept in the cache when its
    row has room); after that the change waits in ``pend`` for ``flush_gbar``, which costs one
    column per variable however often it bounces. The choice depends on m alone, so every cache
    size gives the same G_bar bit for bit."""
    if 4 * (n - m) > n:
        var.pend[ci] += delta
    else:
        _add_column(ci, rows.slot_of[var.ordr[ci]], delta, n, var.Gbar, buf, var.ordr, rows,
                    cols)


@njit(cache=True)
def flush_gbar(n, var, buf, rows, cols):
    """G_bar += Σ_j pend_j Q_j over all n positions: the changes ``gbar_add`` deferred. G_bar is
    read only when the gradient is rebuilt, so they wait for it: a variable that enters and
    leaves its bound many times costs one column, and no column has to be kept at full length
    in a cache whose rows are cut to the active size."""
    Gbar, pend, ordr, slot_of = var.Gbar, var.pend, var.ordr, rows.slot_of
    for j in range(n):
        if pend[j] != 0.0:
            _add_column(j, slot_of[ordr[j]], pend[j], n, Gbar, buf, ordr, rows, cols)
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
def update_single(i, m, n, var, buf, rows, cols):
    """Newton step on one variable in no group, clipped to [L_i, U_i]."""
    a, G, L, U, s, st, QD = var.a, var.G, var.L, var.U, var.s, var.st, var.QD
    data = rows.data
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
    sl = col_slot(i, m, var.ordr, rows, cols)
    for r in range(m):
        G[r] += data[sl, r] * d
    db = bound_value(new, L[i], U[i]) - bound_value(ai, L[i], U[i])
    if db != 0.0:
        gbar_add(i, db, m, n, var, buf, rows, cols)
    return g_old * d + 0.5 * q * d * d


# ---------------------------------------------------------------------------- start
@njit(cache=True)
def start_variables(alpha, p, lower, upper, s_eq, diag, groups, ordr, cols, buf):
    """The ``Variables`` of a solve from ``alpha`` (original order): every per-variable array
    gathered into the starting compact order ``ordr`` (copied: the solver reorders it), the
    status bytes set and the gradient computed (``initial_gradient``). One compiled call
    instead of a dozen NumPy gathers: on millisecond fits the set-up is a sizeable part."""
    n = ordr.shape[0]
    a = np.empty(n)
    P = np.empty(n)
    L = np.empty(n)
    U = np.empty(n)
    s = np.empty(n)
    QD = np.empty(n)
    grp = np.empty(n, dtype=np.int64)
    st = np.empty(n, dtype=np.int8)
    for k in range(n):
        o = ordr[k]
        a[k] = alpha[o]
        P[k] = p[o]
        L[k] = lower[o]
        U[k] = upper[o]
        s[k] = s_eq[o]
        QD[k] = diag[o]
        grp[k] = groups[o]
        st[k] = status_of(a[k], L[k], U[k], s[k])
    var = Variables(a, np.empty(n), np.empty(n), P, L, U, s, QD, np.zeros(n), grp, st,
                    ordr.copy())
    initial_gradient(var, cols, buf)
    return var


# ---------------------------------------------------------------------------- gradient
@njit(cache=True)
def initial_gradient(var, cols, buf):
    """G = p + Σ_{α_j ≠ 0} α_j Q_j and G_bar = Σ_{α_j at a bound} α_j Q_j (all positions)."""
    a, G, Gbar, p, L, U, ordr = var.a, var.G, var.Gbar, var.p, var.L, var.U, var.ordr
    n = a.shape[0]
    for k in range(n):
        G[k] = p[k]
        Gbar[k] = 0.0
    for j in range(n):
        aj = a[j]
        if aj != 0.0:
            fill_column(buf, j, 0, n, cols, ordr)
            for k in range(n):
                G[k] += aj * buf[k]
            bj = bound_value(aj, L[j], U[j])
            if bj != 0.0:
                for k in range(n):
                    Gbar[k] += bj * buf[k]


@njit(cache=True)
def reconstruct_gradient(m, n, var, buf, rows, cols):
    """G at the shrunk positions m..n−1: G_bar + p + Σ_{free α_j} α_j Q_j (LIBSVM's
    ``reconstruct_gradient``; shrunk variables are at bounds, so every free α is active). As
    LIBSVM, row-wise (one partial column per shrunk variable) when there are many free α,
    otherwise the tails of the free α's columns (extended in the cache when the rows are wide
    enough, else computed into ``buf``). G_bar must be flushed first (``flush_gbar``)."""
    if m >= n:
        return
    a, G, Gbar, p, L, U, ordr = var.a, var.G, var.Gbar, var.p, var.L, var.U, var.ordr
    data, slot_of, slen = rows.data, rows.slot_of, rows.slen
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
            fill_column(buf, r, 0, m, cols, ordr)
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
                        fill_row(data[sl], j, slen[sl], n, cols, ordr)
                        slen[sl] = n
                    for r in range(m, n):
                        G[r] += aj * data[sl, r]
                else:
                    fill_column(buf, j, m, n, cols, ordr)
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
def swap_index(i, j, var, cols):
    """LIBSVM's ``swap_index`` for positions i < j: every per-variable array and the samples of
    the kernel columns (the cached columns follow in ``shrink_swaps``)."""
    swap_entries(var.a, i, j)
    swap_entries(var.G, i, j)
    swap_entries(var.Gbar, i, j)
    swap_entries(var.p, i, j)
    swap_entries(var.L, i, j)
    swap_entries(var.U, i, j)
    swap_entries(var.s, i, j)
    swap_entries(var.QD, i, j)
    swap_entries(var.pend, i, j)
    swap_entries(var.grp, i, j)
    swap_entries(var.st, i, j)
    swap_entries(var.ordr, i, j)
    swap_samples(i, j, cols)


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
def shrink_swaps(m, var, work, rows, cols, single_viol):
    """LIBSVM's ``do_shrinking`` loop: each variable to shrink changes place with the last
    active one that stays. The cached columns follow in one walk after the loop
    (``_smo_cache.swap_positions``: the loop reads no cached column). Returns the new active
    size."""
    a, G, L, U, s, grp = var.a, var.G, var.L, var.U, var.s, var.grp
    Gmax1, Gmax2 = work.Gmax1, work.Gmax2
    pairs = np.empty((m, 2), np.int64)
    k = 0
    i = 0
    while i < m:   # m shrinks inside the loop (LIBSVM's for over active_size)
        if _be_shrunk(i, a, G, L, U, s, grp, Gmax1, Gmax2, single_viol):
            m -= 1
            while m > i:
                if not _be_shrunk(m, a, G, L, U, s, grp, Gmax1, Gmax2, single_viol):
                    swap_index(i, m, var, cols)
                    pairs[k, 0] = i
                    pairs[k, 1] = m
                    k += 1
                    break
                m -= 1
        i += 1
    if k > 0:
        swap_positions(pairs, k, rows)
    return m


# ---------------------------------------------------------------------------- main loop
@njit(cache=True, nogil=True)  # entry point: releases the GIL so threads can run solves in parallel
def run(var, cols, cache, work, rec, ctr, opts, stop_it):
    """LIBSVM's ``Solver::Solve`` (shrinking every ``opts.shrink_every`` iterations, unshrink and
    re-check before stopping) on the compact ``Variables`` ``var``, until convergence or
    iteration ``stop_it``. All state lives in the arguments (``ctr[0]``, a ``COUNTERS`` record, holds the
    scalars), so the caller can run the solve in chunks. The ``Cache`` is viewed as rows of
    ``ctr[0].w`` entries (``width_for``/``repack``). A new width returns RESHAPED with the state
    of the iteration's start (the caller calls again): views assigned once per call keep
    Numba's reference counting out of the loop (assigning them inside it costs about a quarter
    more time per iteration on fourclass, rbf, C = 1000). ``rec`` (``Record``): trace arrays of
    length 0 record nothing; otherwise per iteration k < len: the pair in original indices
    (j = −1 for a single-variable step), α_i, α_j before and after, the maximal violation and
    the objective after the step; ``ev`` records shrinking events (iteration, active size).

    Per-iteration cost. With a few dozen active variables the loops over them are
    short and the constant per iteration decides the race with LIBSVM. Numba counts references
    (an atomic add) for every array handed to a function, inlined ones too: a loop that hands
    arrays to helpers spends about half its time there. So the iteration itself touches arrays
    only directly, through locals unpacked once here: the cache hit test is written out here
    (misses, G_bar updates and shrinking call out: they are rare), the pair step is the scalar
    ``pair_step``; the LRU order is kept only when some column has no slot of its own; the
    history is sampled by a countdown instead of a modulo."""
    a, G, L, U, s, QD = var.a, var.G, var.L, var.U, var.s, var.QD
    grp, st, ordr = var.grp, var.st, var.ordr
    Gmax1, Gmax2, buf, score = work.Gmax1, work.Gmax2, work.buf, work.score
    hist_it, hist_viol, hist_obj = rec.hist_it, rec.hist_viol, rec.hist_obj
    tr_ij, tr_a, tr_vo, ev = rec.tr_ij, rec.tr_a, rec.tr_vo, rec.ev
    tol = opts.tol
    shrinking = opts.shrinking
    shrink_every = opts.shrink_every
    one_group = opts.one_group
    c = ctr[0]
    n = a.shape[0]
    size = cache.pool.shape[0]
    w = c.w
    view = rows_at(cache, w)
    data, slot_of, owner, slen, prv, nxt = view
    ns = owner.shape[0]
    lru = ns < n
    m = c.m
    counter = c.counter
    it = c.it
    pre_ok = c.pre_ok
    pre_i = c.pre_i
    n_hist = c.n_hist
    stride = c.stride
    n_tr = c.n_trace
    n_ev = c.n_ev
    pre_Gmax = c.pre_gmax
    pre_gmin = c.pre_gmin
    obj = c.obj
    max_viol = c.viol
    hist_cap = hist_it.shape[0]
    tr_cap = tr_ij.shape[0]
    ev_cap = ev.shape[0]
    unshrunk = c.unshrunk
    next_hist = ((it + stride - 1) // stride) * stride   # the next multiple of stride
    status = RUNNING
    n_evict = 0   # columns evicted since the last shrinking step (width_for)
    d_feat = cols.XT.shape[0]
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
                    flush_gbar(n, var, buf, view, cols)
                    reconstruct_gradient(m, n, var, buf, view, cols)
                    m = n
                m = shrink_swaps(m, var, work, view, cols, single_viol)
                if m != old_m:
                    if n_ev < ev_cap and tr_cap > 0:
                        ev[n_ev, 0] = it
                        ev[n_ev, 1] = m
                        n_ev += 1
                pre_ok = False
                w_new = width_for(m, w, n, size, n_evict, d_feat)
                n_evict = 0
                if w_new != w:
                    repack(w_new, w, n, cache)
                    w = w_new
                    # the caller calls again, which views the new rows (see RESHAPED above)
                    counter += 1
                    status = RESHAPED
                    break
        sl_i = -1   # cache slot of Q_i's column, when already looked up
        if one_group:
            if not pre_ok:
                pre_Gmax, pre_i, pre_gmin = first_pass_one_group(m, G, s, st)
            # second half of WSS2 for one group (LIBSVM's select_working_set), inlined
            i = pre_i
            j = -1
            max_viol = 0.0
            if i >= 0:
                sl_i = slot_of[ordr[i]]
                if sl_i < 0 or slen[sl_i] < m:
                    if sl_i < 0 and slen[ns] == ns:
                        n_evict += 1
                    sl_i = col_miss(i, m, ordr, view, cols)
                elif lru:
                    touch(sl_i, prv, nxt)
                gmax = pre_Gmax
                qdi = QD[i]
                si = s[i]
                # WSS2's second half in a pass that holds no branch, so that it vectorises:
                # the scores −(Gmax + s_t G_t)² / quad_t of the I_low candidates with a
                # positive gap (+inf for the others), then the least score and the last t that
                # holds it, LIBSVM's choice among ties (its <=); M(α) came with i
                for t in range(m):
                    grad_diff = gmax + s[t] * G[t]
                    quad = qdi + QD[t] - 2.0 * (si * s[t] * data[sl_i, t])
                    quad = quad if quad > 0.0 else TAU
                    gg = grad_diff * grad_diff
                    ok = (st[t] & LOW) != 0 and grad_diff > 0.0
                    score[t] = -gg / quad if ok else INF
                best_obj, j = least_last(score, m)
                max_viol = max(gmax + pre_gmin, 0.0)
                if gmax + pre_gmin <= tol or j < 0:
                    i = -1
        else:
            i, j, max_viol = select_working_set(m, var, tol, work, view, cols)
        if i < 0:
            if m < n:
                if w < n:
                    # full rows for the final check; called again, this iteration is redone
                    repack(n, w, n, cache)
                    w = n
                    counter += 1
                    status = RESHAPED
                    break
                flush_gbar(n, var, buf, view, cols)
                reconstruct_gradient(m, n, var, buf, view, cols)
                m = n
                if n_ev < ev_cap and tr_cap > 0:
                    ev[n_ev, 0] = it
                    ev[n_ev, 1] = m
                    n_ev += 1
                pre_ok = False
                sl_i = -1
                i, j, max_viol = select_working_set(m, var, tol, work, view, cols)
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
                    sl_i = col_miss(i, m, ordr, view, cols)
                elif lru:
                    touch(sl_i, prv, nxt)
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
                sl_j = col_miss(j, m, ordr, view, cols)
            elif lru:
                touch(sl_j, prv, nxt)
            if one_group:
                # the gradient loop also finds the next i, m(α) and M(α), as
                # ``first_pass_one_group`` (the same four lanes): the selection is left with
                # the scores' pass and their least (LIBSVM's update and selection: three
                # passes over the active set)
                b0 = b1 = b2 = b3 = INF
                k0 = k1 = k2 = k3 = -1
                h0 = h1 = h2 = h3 = -INF
                r = 0
                while r + 4 <= m:
                    g0 = G[r] + data[sl_i, r] * dai + data[sl_j, r] * daj
                    g1 = G[r + 1] + data[sl_i, r + 1] * dai + data[sl_j, r + 1] * daj
                    g2 = G[r + 2] + data[sl_i, r + 2] * dai + data[sl_j, r + 2] * daj
                    g3 = G[r + 3] + data[sl_i, r + 3] * dai + data[sl_j, r + 3] * daj
                    G[r] = g0
                    G[r + 1] = g1
                    G[r + 2] = g2
                    G[r + 3] = g3
                    b0, k0, h0 = lane_step(s[r] * g0, st[r], r, b0, k0, h0)
                    b1, k1, h1 = lane_step(s[r + 1] * g1, st[r + 1], r + 1, b1, k1, h1)
                    b2, k2, h2 = lane_step(s[r + 2] * g2, st[r + 2], r + 2, b2, k2, h2)
                    b3, k3, h3 = lane_step(s[r + 3] * g3, st[r + 3], r + 3, b3, k3, h3)
                    r += 4
                while r < m:
                    g0 = G[r] + data[sl_i, r] * dai + data[sl_j, r] * daj
                    G[r] = g0
                    b0, k0, h0 = lane_step(s[r] * g0, st[r], r, b0, k0, h0)
                    r += 1
                least, pre_i = merge_lanes(b0, k0, b1, k1, b2, k2, b3, k3)
                pre_Gmax = -least
                pre_gmin = max(max(h0, h1), max(h2, h3))
                pre_ok = True
            else:
                for r in range(m):
                    G[r] += data[sl_i, r] * dai + data[sl_j, r] * daj
                pre_ok = False
            # G_bar follows the variables that enter or leave a bound (LIBSVM's update of G_bar)
            d_i = bound_value(new_i, L[i], U[i]) - bound_value(ai, L[i], U[i])
            if d_i != 0.0:
                gbar_add(i, d_i, m, n, var, buf, view, cols)
            d_j = bound_value(new_j, L[j], U[j]) - bound_value(aj, L[j], U[j])
            if d_j != 0.0:
                gbar_add(j, d_j, m, n, var, buf, view, cols)
        else:
            d = update_single(i, m, n, var, buf, view, cols)
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
    c.m = m
    c.counter = counter
    c.it = it
    c.unshrunk = unshrunk
    c.pre_ok = pre_ok
    c.pre_i = pre_i
    c.n_hist = n_hist
    c.stride = stride
    c.n_trace = n_tr
    c.n_ev = n_ev
    c.status = status
    c.w = w
    c.w_min = min(c.w_min, w)
    c.pre_gmax = pre_Gmax
    c.pre_gmin = pre_gmin
    c.obj = obj
    c.viol = max_viol
    return status


@njit(cache=True, nogil=True)
def finish(var, cols, cache, buf, ctr):
    """Flush G_bar, rebuild the gradient of the shrunk variables and put α, G and G_bar back in
    the original order (returned as new arrays)."""
    ordr = var.ordr
    n = ordr.shape[0]
    m = ctr[0].m
    view = rows_at(cache, ctr[0].w)
    flush_gbar(n, var, buf, view, cols)
    if m < n:
        reconstruct_gradient(m, n, var, buf, view, cols)
    alpha = np.empty(n)
    grad = np.empty(n)
    gbar = np.empty(n)
    for k in range(n):
        alpha[ordr[k]] = var.a[k]
        grad[ordr[k]] = var.G[k]
        gbar[ordr[k]] = var.Gbar[k]
    return alpha, grad, gbar
