"""Kernel columns of the SMO backend (LIBSVM's ``Kernel``/``SVC_Q::get_Q``): the entries
Q(i, k) = t_i t_k k(x_i, x_k) (δ_{c_i c_k} − 1/K) of one column, over a range of positions, in
Numba. The solver keeps its variables in a compact order that changes (``_smo_solver``), so the
samples are kept in that order too (``KernelColumns``) and a column is asked for by position.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

KERNEL_CODES = {"linear": 0, "poly": 1, "rbf": 2, "sigmoid": 3}


class KernelColumns(NamedTuple):
    """Where the columns of Q come from: a dense Q (``dense``, ``Qd`` in the original order) or
    the samples in the solver's compact order (``XT`` d × n, ``xsq`` the squared norms,
    ``signs`` t, ``classes`` the Scatter class of each sample, empty without a Scatter factor,
    ``inv_K`` = 1/K then). ``kind``: 0 linear, 1 poly, 2 rbf, 3 sigmoid. ``ibuf``, ``fbuf``:
    int64 and float64 work space of n entries. The solver swaps the per-sample arrays as it
    reorders its variables."""
    dense: bool
    Qd: np.ndarray
    kind: int
    gamma: float
    coef0: float
    degree: int
    XT: np.ndarray
    xsq: np.ndarray
    signs: np.ndarray
    classes: np.ndarray
    inv_K: float
    ibuf: np.ndarray
    fbuf: np.ndarray


_EMPTY2 = np.empty((0, 0))


def kernel_columns(problem, dense_mb: float, order):
    """The columns of ``problem``'s Q: a dense Q (given, or built when it fits ``dense_mb``) or
    the samples, in the solver's starting ``order``, for columns on demand. Arrays are fresh
    copies (the solver reorders them)."""
    n = problem.n
    ibuf = np.empty(n, dtype=np.int64)
    if problem.Q is None:
        k = problem.kernel
        on_demand = n * n * 8 > dense_mb * 2**20
        if not on_demand:   # dense_Q builds Q in the original order
            order = np.arange(n)
        X = problem.X
        classes = (np.empty(0, dtype=np.int64) if problem.scatter_classes is None
                   else problem.scatter_classes[order])
        inv_K = 0.0 if problem.scatter_classes is None else 1.0 / problem.n_classes
        # each squared norm is one row's sum, the same in any order
        cols = KernelColumns(False, _EMPTY2, KERNEL_CODES[k.name], float(k.gamma),
                             float(k.coef0), int(k.degree), gather_features(X, order),
                             np.einsum("ij,ij->i", X, X)[order], problem.signs[order], classes,
                             inv_K, ibuf, np.empty(n))
        if on_demand:
            return cols
        Q = dense_Q(cols)
    else:
        Q = np.ascontiguousarray(problem.Q, dtype=np.float64)
        if not np.array_equal(Q, Q.T):
            Q = 0.5 * (Q + Q.T)  # only the symmetric part enters ½αᵀQα
    return KernelColumns(True, Q, 0, 0.0, 0.0, 0, np.empty((0, n)), np.zeros(n), np.ones(n),
                         np.empty(0, dtype=np.int64), 0.0, ibuf, np.empty(n))


@njit(cache=True)
def gather_features(X, order):
    """XT[f, k] = X[order[k], f]: the samples in the solver's order, one feature a row (a
    column's inner products then run along rows)."""
    n, d = order.shape[0], X.shape[1]
    XT = np.empty((d, n))
    for k in range(n):
        row = X[order[k]]
        for f in range(d):
            XT[f, k] = row[f]
    return XT


# exp(x) = 2^k · e^r with k = round(x / ln 2), |r| ≤ ln(2)/2 and a degree-13 Taylor polynomial
# (truncation error < 2e-16 relative): unlike math.exp this loop vectorises (there is no SVML
# here), which makes RBF columns several times cheaper than LIBSVM's. 2^k is built without a
# double → int64 conversion (AVX2 has no vector form of it; one scalar conversion keeps the whole
# loop scalar): k + 1023 + 1.5·2⁵² is a double whose low mantissa bits are k + 1023, and those
# bits shifted left by 52 are the exponent field of 2^k.
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_EXP_BIAS = 1023.0 + 6755399441055744.0   # 1023 + 1.5·2⁵²
_INV_FACT = tuple(1.0 / math.factorial(k) for k in range(14))


@njit(cache=True)
def _vexp(buf, ibuf):
    """buf = exp(buf) in place for arguments ≤ 709 (below −708 the result is 0)."""
    c = _INV_FACT
    m = buf.shape[0]
    scale = ibuf[:m].view(np.float64)
    for k in range(m):
        x = buf[k]
        keep = 1.0 if x >= -708.0 else 0.0
        x = min(max(x, -708.0), 709.0)
        kf = np.floor(x * _LOG2E + 0.5)   # a double (math.floor gives an int64)
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
        scale[k] = kf + _EXP_BIAS
        buf[k] = p * keep
    for k in range(m):
        ibuf[k] = ibuf[k] << 52
    for k in range(m):
        buf[k] *= scale[k]


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
def fill_column(out, ci, start, stop, cols, ordr):
    """out[k] = Q(ci, k) for compact positions start ≤ k < stop (``ordr`` maps a position to
    the original index: only the dense Q is kept in the original order)."""
    dense, Qd, kind, gamma, coef0, degree, XT, xsq, signs, classes, inv_K, ibuf, _ = cols
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
def dense_Q(cols):
    """The whole Q of an implicit problem, row by row (Q is symmetric: row i is column i)."""
    n = cols.xsq.shape[0]
    Q = np.empty((n, n))
    ordr = np.arange(n)
    for i in range(n):
        fill_column(Q[i], i, 0, n, cols, ordr)
    return Q


@njit(cache=True, inline="always")
def swap_entries(x, i, j):
    """x[i] and x[j] change place (the solver swaps its per-variable arrays with it too)."""
    t = x[i]
    x[i] = x[j]
    x[j] = t


@njit(cache=True)
def swap_samples(i, j, cols):
    """Positions i and j changed place in the solver's compact order: so do their samples."""
    XT = cols.XT
    for f in range(XT.shape[0]):
        swap_entries(XT[f], i, j)
    swap_entries(cols.xsq, i, j)
    swap_entries(cols.signs, i, j)
    if cols.classes.shape[0] > 0:
        swap_entries(cols.classes, i, j)


@njit(cache=True)
def fill_row(row, ci, start, stop, cols, ordr):
    """``fill_column`` into a cache row of float64 or float32 entries: a float32 row gets the
    double-precision entries rounded once (through ``cols.fbuf``), never sums and exponentials
    taken in single precision (the distance ‖x_i‖² + ‖x_k‖² − 2 x_i·x_k of near points would
    lose most of its digits)."""
    if row.itemsize == 8:
        fill_column(row, ci, start, stop, cols, ordr)
        return
    fb = cols.fbuf
    fill_column(fb, ci, start, stop, cols, ordr)
    for k in range(start, stop):
        row[k] = fb[k]
