"""Which half-space of a list a point leaves first: the classification pass of a decision list of
hyperplanes (the SVM tree of Zapién Arreola, Fehr and Burkhardt 2007, §3.2.1, whose speed is the
point of the method).

Node j keeps the points with hc_j·(w_j·x − t_j) ≥ 0 and decides the others. One compiled pass over
the points, each stopping at the node that decides it: at most k dot products per point and no
(n × k) matrix of values, which for 10⁶ points and a few nodes is where a matrix product spends
its time (allocating, writing and scanning the matrix), not in the arithmetic.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def _first_exit(X, W, t, hc, final, label, depth, value):
    n, d = X.shape
    k = W.shape[0]
    for i in range(n):
        label[i] = final
        depth[i] = k
        value[i] = 0.0
        for j in range(k):
            s = -t[j]
            for f in range(d):
                s += X[i, f] * W[j, f]
            if hc[j] * s < 0.0:
                label[i] = -int(hc[j])
                depth[i] = j + 1
                value[i] = s
                break
            if j == k - 1:
                value[i] = s


def first_exit(X, W, t, hc, final: int):
    """(label, depth, value) per row of X: −hc_j and j + 1 for the first node j with
    hc_j·(w_j·x − t_j) < 0, and value = w_j·x − t_j there; ``final`` and k where no node decides
    (value: that of the last node, 0 without nodes)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    n = X.shape[0]
    label = np.empty(n, dtype=np.int64)
    depth = np.empty(n, dtype=np.int64)
    value = np.empty(n, dtype=np.float64)
    _first_exit(X, np.ascontiguousarray(W, dtype=np.float64), np.ascontiguousarray(t, dtype=np.float64),
                np.ascontiguousarray(hc, dtype=np.float64), int(final), label, depth, value)
    return label, depth, value


# Samples per block of the several-chain pass: the block's values of every node (nodes × block)
# stay in cache, and the innermost loop runs over the block's samples, one independent sum per
# sample, which the compiler vectorizes without changing any sum's order.
BLOCK = 256


@numba.njit(cache=True, nogil=True)
def _first_exits(X, W, t, hc, start, final, label, depth):
    n, d = X.shape
    k = W.shape[0]
    m = final.shape[0]
    XT = np.empty((d, BLOCK))
    S = np.empty((k, BLOCK))
    for i0 in range(0, n, BLOCK):
        b = min(BLOCK, n - i0)
        for f in range(d):
            for i in range(b):
                XT[f, i] = X[i0 + i, f]
        for j in range(k):
            s = S[j]
            for i in range(b):
                s[i] = -t[j]
            for f in range(d):
                w = W[j, f]
                x = XT[f]
                for i in range(b):
                    s[i] += x[i] * w
        for i in range(b):
            for c in range(m):
                lo, hi = start[c], start[c + 1]
                label[i0 + i, c] = final[c]
                depth[i0 + i] += hi - lo
                for j in range(lo, hi):
                    if hc[j] * S[j, i] < 0.0:
                        label[i0 + i, c] = -int(hc[j])
                        depth[i0 + i] -= hi - j - 1
                        break


def first_exits(X, W, t, hc, start, final):
    """``first_exit`` of several chains in one pass over the rows of X: chain c is rows
    start[c]:start[c + 1] of (W, t, hc) with end label final[c]. Returns the labels (n × chains,
    int8) and the nodes visited summed over the chains (n). Every node's value is computed for a
    block of rows at a time (with one plane or two per chain, as in the one-vs-one trees, there is
    little to skip), each summed in the order ``first_exit`` sums it, so the labels are the same
    as chain by chain."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    start = np.ascontiguousarray(start, dtype=np.int64)
    final = np.ascontiguousarray(final, dtype=np.int64)
    label = np.empty((X.shape[0], final.shape[0]), dtype=np.int8)
    depth = np.zeros(X.shape[0], dtype=np.int64)
    _first_exits(X, np.ascontiguousarray(W, dtype=np.float64), np.ascontiguousarray(t, dtype=np.float64),
                 np.ascontiguousarray(hc, dtype=np.float64), start, final, label, depth)
    return label, depth
