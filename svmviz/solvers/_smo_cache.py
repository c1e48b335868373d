"""The column cache of the SMO backend (LIBSVM's ``Cache``), in Numba.

Rows of one width w in one pool, a row per slot, keyed by the original index; each slot holds a
valid *prefix* of its column in the solver's current compact order (``slen``). A swap of
positions i < j swaps the two entries in every cached column long enough to hold both, or
truncates the prefix to i (LIBSVM drops such a column); after unshrinking, a column's missing
tail is filled on demand. Slots are handed out in order (``slen[n_slots]`` counts those in use,
so a swap visits only them, as LIBSVM's walk over its LRU list); once all are in use the LRU tail
is evicted. The LRU order is a doubly linked list over the slots (O(1) per touch); when there is
a slot per column (the usual case up to n ≈ 5000 at 200 MB) nothing is ever evicted and no order
is kept. LIBSVM's columns are as long as the active set when asked for, so after shrinking its
cache holds n / m times more of them; here the rows start at w = n and, when evictions say the
active columns do not fit, are cut to the active size in place (``width_for``, ``repack``: so the
cache holds as many active columns as LIBSVM's), and widened again for the final check.

Entries are float64, or float32 (as LIBSVM's ``Qfloat``) when the float64 columns do not all fit
(``smo.py`` chooses): on n = 10,000, d = 50, RBF the solve took 4.75 s CPU with 200 MB of float64
columns, 3.07 s with 400 MB, so twice the columns per MB decide that race. Each entry is computed
in double and rounded once (``fill_row``). A float32 cache alone leaves KKT violations up to
3.5e-2 in large-C problems (the gradient sums rounded entries, as LIBSVM's does); ``smo.py``
therefore recomputes the gradient in double at the end and goes on with float64 columns when the
exact violation is above the tolerance.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from svmviz.solvers._smo_columns import fill_row


class Cache(NamedTuple):
    """The cache's storage, with room for a slot per column: ``pool`` (the rows), ``slot_of``
    (original index → slot, −1 when not cached), ``owner`` (slot → original index), ``slen``
    (slot → length of the cached prefix; entry ``n_slots`` counts the slots in use), ``prv`` and
    ``nxt`` (the LRU ring, the sentinel at entry ``n_slots``). ``rows_at`` views it at a width."""
    pool: np.ndarray
    slot_of: np.ndarray
    owner: np.ndarray
    slen: np.ndarray
    prv: np.ndarray
    nxt: np.ndarray


class CacheRows(NamedTuple):
    """The cache at row width w: ``data`` (n_slots × w) and the slot arrays cut to n_slots
    (``slen``, ``prv``, ``nxt``: n_slots + 1, the last entry the count in use / the sentinel)."""
    data: np.ndarray
    slot_of: np.ndarray
    owner: np.ndarray
    slen: np.ndarray
    prv: np.ndarray
    nxt: np.ndarray


def new_cache(n: int, n_slots: int, dtype=np.float64) -> Cache:
    """An empty cache of ``n_slots`` rows of n entries of ``dtype`` (float64 or float32;
    narrower rows later give more slots, up to one per column)."""
    nxt = np.zeros(n + 1, dtype=np.int64)
    prv = np.zeros(n + 1, dtype=np.int64)
    # LRU list: slot k links to k ± 1, the sentinel n_slots closes the ring
    nxt[:n_slots] = np.arange(1, n_slots + 1)
    prv[1:n_slots + 1] = np.arange(n_slots)
    prv[0] = n_slots
    return Cache(np.empty(n_slots * n, dtype=dtype), np.full(n, -1, dtype=np.int64),
                 np.full(n, -1, dtype=np.int64), np.zeros(n + 1, dtype=np.int64), prv, nxt)


@njit(cache=True)
def rows_at(cache, w):
    """The cache viewed as rows of w entries (as many slots as fit, at most one per column)."""
    n = cache.slot_of.shape[0]
    ns = min(n, cache.pool.shape[0] // w)
    return CacheRows(cache.pool[:ns * w].reshape((ns, w)), cache.slot_of, cache.owner[:ns],
                     cache.slen[:ns + 1], cache.prv[:ns + 1], cache.nxt[:ns + 1])


@njit(cache=True, inline="always")
def touch(s, prv, nxt):
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
def col_miss(ci, m, ordr, rows, cols):
    """Take a slot for the column of position ci (the next unused one, else the LRU tail) and
    fill its prefix up to m from the kernel columns ``cols``."""
    data, slot_of, owner, slen, prv, nxt = rows
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
    fill_row(data[s], ci, slen[s], m, cols, ordr)
    slen[s] = m
    if owner.shape[0] < slot_of.shape[0]:
        touch(s, prv, nxt)
    return s


@njit(cache=True, inline="always")
def col_slot(ci, m, ordr, rows, cols):
    """The cache slot whose row holds Q(ci, k) for positions 0 ≤ k < m (the LRU order is kept
    only when some column has no slot of its own)."""
    s = rows.slot_of[ordr[ci]]
    if s >= 0 and rows.slen[s] >= m:
        if rows.owner.shape[0] < rows.slot_of.shape[0]:
            touch(s, rows.prv, rows.nxt)
        return s
    return col_miss(ci, m, ordr, rows, cols)


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
def repack(w_new, w_old, n, cache):
    """Lay the cache out again with rows of w_new entries in the same ``pool`` (in place, no
    second buffer) and return the new number of slots. The most recently used columns are kept
    (slot order when no LRU order is kept), each with its prefix up to w_new; slots stay handed
    out in order and the LRU list keeps their recency."""
    pool, slot_of, owner_f, slen_f, prv_f, nxt_f = cache
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




@njit(cache=True)
def swap_positions(pairs, k, rows):
    """Positions pairs[q] = (i, j), i < j, changed place in turn, q = 0..k−1 (the solver's
    ``swap_index`` during one shrinking step): in every cached column, swap the two entries of
    each pair while the column holds both, cut its prefix to i when it holds only i. One walk over
    the columns for the whole step, each column's swaps in order, gives the state of a walk per
    swap; a walk per swap reads two far-apart entries of every column each time, and those reads
    miss the processor's caches (with every column cached on fourclass, about a tenth of a solve)."""
    data, slot_of, owner, slen, prv, nxt = rows
    for sl in range(slen[owner.shape[0]]):   # the slots in use
        ln = slen[sl]
        for q in range(k):
            i = pairs[q, 0]
            j = pairs[q, 1]
            if ln > j:
                t = data[sl, i]
                data[sl, i] = data[sl, j]
                data[sl, j] = t
            elif ln > i:
                ln = i
        slen[sl] = ln
