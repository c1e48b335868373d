"""The decomposition tree of Chang, Guo, Lin and Lu 2009, §2.1: entropy impurity, axis-aligned binary splits.

The tree is grown once, to the smallest ceiling size σ₀; the tree of any larger ceiling σ is the
same tree read with an earlier stop (a node with fewer than σ samples is a leaf), which is the
paper's "drop a few nodes from the lower levels" of §2.2. ``grow_tree`` is the only place a tree is
fitted, so a test can count the fits.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import xlogy

from svmviz.registry import register_record

# A split gains information when IR > this (IR is in nats; exact ties of entropy give ~1e-16).
_IR_EPS = 1e-12
LEAF, ENTROPY, MEDIAN = -1, 0, 1


def _xlogx(a: np.ndarray) -> np.ndarray:
    return xlogy(a, a)  # 0 log 0 = 0


def best_entropy_split(X: np.ndarray, y: np.ndarray, n_classes: int, orders=None):
    """(feature, threshold, IR) maximising IR(f, v) of eq. (1) over features and split points,
    with the entropy impurity I(S) = −Σ_y p(S_y) log p(S_y) of §2.1; samples with x_f < v go
    left. IR is 0 when no split separates anything.

    With class counts c of a side of size t, t·I = t log t − Σ_y c_y log c_y, so the weighted
    impurity of every split position comes from the running class counts in one pass.
    ``orders``: per feature, the rows of the node sorted by that feature (stable), when the
    caller keeps them sorted from node to node (``grow_tree``); else the rows of X, sorted here."""
    if orders is None:
        orders = [np.argsort(X[:, f], kind="stable") for f in range(X.shape[1])]
    m = orders[0].size
    eye = np.eye(n_classes)
    total = np.bincount(y[orders[0]], minlength=n_classes).astype(np.float64)
    parent = (_xlogx(np.float64(m)) - _xlogx(total).sum()) / m
    best = (-1, 0.0, 0.0)
    for f, order in enumerate(orders):
        v = X[order, f]
        pos = np.flatnonzero(v[1:] > v[:-1]) + 1  # left = first `pos` samples
        if pos.size == 0:
            continue
        left = np.cumsum(eye[y[order]], axis=0)[pos - 1]
        nl = pos.astype(np.float64)
        weighted = (_xlogx(nl) - _xlogx(left).sum(axis=1) + _xlogx(m - nl)
                    - _xlogx(total - left).sum(axis=1))
        ir = parent - weighted / m
        k = int(np.argmax(ir))
        if ir[k] > best[2]:
            best = (f, 0.5 * (v[pos[k] - 1] + v[pos[k]]), float(ir[k]))
    return best


def median_split(X: np.ndarray):
    """The fallback split of §2.1: per feature the split point minimising | |S_f≤v| − |S_f>v| |,
    then the feature with the smallest difference; None when every sample is identical."""
    m = X.shape[0]
    best = None
    for f in range(X.shape[1]):
        v = np.sort(X[:, f])
        pos = np.flatnonzero(v[1:] > v[:-1]) + 1
        if pos.size == 0:
            continue
        diff = np.abs(2 * pos - m)
        k = int(np.argmin(diff))
        if best is None or diff[k] < best[2]:
            best = (f, 0.5 * (v[pos[k] - 1] + v[pos[k]]), int(diff[k]))
    return None if best is None else best[:2]


@register_record
@dataclass
class TDTree:
    """A binary tree as flat arrays (node 0 is the root).

    feature, threshold : the split x_feature < threshold → left (−1 / 0 at leaves of the σ₀ tree)
    left, right : child node ids (−1 at leaves)
    n_samples : training samples reaching each node; counts : per-class counts (nodes × K)
    depth : node depth; kind : −1 leaf, 0 entropy split, 1 median split (§2.1 fallback)
    sigma0 : the ceiling the tree was grown to
    """

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    n_samples: np.ndarray
    counts: np.ndarray
    depth: np.ndarray
    kind: np.ndarray
    sigma0: int

    @property
    def n_nodes(self) -> int:
        return int(self.feature.shape[0])

    def is_leaf_at(self, sigma: float) -> np.ndarray:
        """Which nodes end the descent at ceiling σ: real leaves and nodes with fewer than σ
        samples; σ ≥ n (the root's size) leaves the root alone (one global SVM, §2.2 step 3)."""
        leaf = (self.left < 0) | (self.n_samples < sigma)
        if sigma >= self.n_samples[0]:
            leaf[:] = True
        return leaf

    def leaves_at(self, sigma: float) -> np.ndarray:
        """Node ids of the leaves at ceiling σ, in depth-first order."""
        leaf = self.is_leaf_at(sigma)
        out, stack = [], [0]
        while stack:
            k = stack.pop()
            if leaf[k]:
                out.append(k)
            else:
                stack.extend((int(self.right[k]), int(self.left[k])))
        return np.asarray(out, dtype=np.int64)

    def apply(self, X: np.ndarray, sigma: float) -> np.ndarray:
        """The leaf (node id) each row of X flows to at ceiling σ."""
        leaf = self.is_leaf_at(sigma)
        node = np.zeros(X.shape[0], dtype=np.int64)
        active = np.flatnonzero(~leaf[node])
        while active.size:
            k = node[active]
            go_left = X[active, self.feature[k]] < self.threshold[k]
            node[active] = np.where(go_left, self.left[k], self.right[k])
            active = active[~leaf[node[active]]]
        return node

    def boxes(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Axis-aligned box (nodes × 2 × d: lower, upper corner) of every node inside [lo, hi]."""
        out = np.empty((self.n_nodes, 2, lo.shape[0]))
        out[0, 0], out[0, 1] = lo, hi
        for k in range(self.n_nodes):  # children always come after their parent
            if self.left[k] >= 0:
                f, t = self.feature[k], self.threshold[k]
                a, b = int(self.left[k]), int(self.right[k])
                out[a], out[b] = out[k], out[k]
                out[a, 1, f] = min(out[k, 1, f], t)
                out[b, 0, f] = max(out[k, 0, f], t)
        return out


def grow_tree(X: np.ndarray, y: np.ndarray, n_classes: int, sigma0: int) -> TDTree:
    """Grow the tree of §2.1 to ceiling σ₀: split a node while it has at least σ₀ samples and is
    not homogeneous; by the best entropy split, or the median split when no split gains (IR = 0
    everywhere: duplicated points with different labels); stop when nothing can be split."""
    feature, threshold, left, right, nsamp, counts, depth, kind = [], [], [], [], [], [], [], []

    def new(idx, d):
        feature.append(-1), threshold.append(0.0), left.append(-1), right.append(-1)
        nsamp.append(idx.size), counts.append(np.bincount(y[idx], minlength=n_classes))
        depth.append(d), kind.append(LEAF)
        return len(feature) - 1

    # Every node keeps its rows sorted by each feature (a stable partition of its parent's), so
    # the data are sorted once, at the root.
    root = [np.argsort(X[:, f], kind="stable") for f in range(X.shape[1])]
    queue = [(new(np.arange(X.shape[0]), 0), np.arange(X.shape[0]), root)]
    goes_left = np.zeros(X.shape[0], dtype=bool)
    while queue:
        k, idx, orders = queue.pop()
        if idx.size < sigma0 or np.count_nonzero(counts[k]) < 2:
            continue
        f, t, ir = best_entropy_split(X, y, n_classes, orders)
        how = ENTROPY
        if ir <= _IR_EPS:
            med = median_split(X[idx])
            if med is None:
                continue
            (f, t), how = med, MEDIAN
        goes_left[idx] = X[idx, f] < t  # only the node's rows are read below
        feature[k], threshold[k], kind[k] = f, t, how
        li, ri = idx[goes_left[idx]], idx[~goes_left[idx]]
        a = new(li, depth[k] + 1)
        b = new(ri, depth[k] + 1)
        left[k], right[k] = a, b
        queue.append((b, ri, [o[~goes_left[o]] for o in orders]))
        queue.append((a, li, [o[goes_left[o]] for o in orders]))
    return TDTree(np.asarray(feature, dtype=np.int64), np.asarray(threshold, dtype=np.float64),
                  np.asarray(left, dtype=np.int64), np.asarray(right, dtype=np.int64),
                  np.asarray(nsamp, dtype=np.int64),
                  np.asarray(counts, dtype=np.int64).reshape(-1, n_classes),
                  np.asarray(depth, dtype=np.int64), np.asarray(kind, dtype=np.int64), int(sigma0))
