"""Growing, predicting and pruning one binary SVM tree (seed 000, chapters 3–4).

Labels are ±1 here. At each step the four QP candidates of Fig. 4.1 (C-SVM and H1-SVM, each
class as the hard class) are solved on the samples still in play, each gets the threshold of
§4.2.2, sign-changed (§4.3.3) and perpendicular (§4.3.4) variants are added, and the candidate
that leaves out the most non-hard samples is chosen (greedy heuristic, §4.3.1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from svmviz.geometry.hull_lp import min_mu_containing
from svmviz.geometry.zero_solution import zero_solution_case
from svmviz.kernels import Kernel
from svmviz.models._svm_tree_records import FIG41_LABELS, BinaryTree, Candidate, CTry, Node, Step
from svmviz.solvers import QPProblem, solve_qp

# The zero-solution loop divides C_k by f until w ≠ 0; after this many tries the candidate is
# recorded as a zero solution (with f = 10 the last C_k is 10⁻²⁹ of the first).
MAX_ZERO_TRIES = 30
_LINEAR = Kernel("linear")


@dataclass
class TreeSettings:
    C_hard: float
    reduction: float
    w_tol: float
    greedy_level: int
    use_c_svm: bool
    use_h1_svm: bool
    sign_change: bool
    perpendicular: bool
    solver: str
    tol: float


# ---------------------------------------------------------------------------- §4.2.2 threshold
def seed_threshold(proj: np.ndarray, y: np.ndarray, hc: int) -> float:
    """Algorithm "Calculation of threshold" of §4.2.2 (eq. 3.13 / 3.14) on the projections
    proj = x·w: r1 is the extreme hard-class projection, r2 the nearest projection of a
    non-hard sample on the correct side of r1 (r1 itself when there is none); r = (r1 + r2)/2."""
    hard = y == hc
    r1 = float(proj[hard].min() if hc > 0 else proj[hard].max())
    other = proj[~hard]
    ok = other[y[~hard] * (other - r1) > 0]
    if ok.size == 0:
        r2 = r1
    else:
        r2 = float(ok.min() if -hc > 0 else ok.max())
    return 0.5 * (r1 + r2)


def leaves_out(proj: np.ndarray, threshold: float, hc: int) -> np.ndarray:
    """Samples on the non-hard side of a node (hc·(w·x − t) < 0): they take the label −hc."""
    return hc * (proj - threshold) < 0


# ---------------------------------------------------------------------------- the QPs
def _solve(problem: QPProblem, s: TreeSettings, alpha0=None):
    return solve_qp(problem, backend=s.solver, tol=s.tol, alpha0=alpha0)


def c_svm_candidate(X, y, hc: int, s: TreeSettings, case=None) -> Candidate:
    """Eq. 4.2: 0 ≤ α ≤ C_k on the hard class, ≤ 1 on the other, Σαy = 0."""
    yf = y.astype(np.float64)

    def solve(C_k):
        res = _solve(QPProblem.c_svm(yf, np.where(y == hc, C_k, 1.0), kernel=_LINEAR, X=X), s)
        return res, X.T @ (res.alpha * yf)

    return _zero_loop("c-svm", X, y, hc, s, solve, 0.0, case)


def h1_svm_candidate(X, y, hc: int, s: TreeSettings, case=None) -> Candidate:
    """Problem 1 of §3.1.2 (dual eq. 3.3–3.6, eq. 4.3 with the bounds C_i of eq. 3.4):
    0 ≤ α ≤ C_k on the hard class, α = 1 fixed on the other, Σαy = 0, started from the feasible
    point with every hard α = m_other / m_hard. Then w = ±m_other (p* − s̄): p* = Σ_hard α x / m_other
    is the point of RCH(hard, C_k / m_other) nearest to the non-hard centroid s̄, and w = 0 exactly
    when s̄ lies in that reduced hull — the same condition, and the same D_k*, as the C-SVM with
    D_k̄ = 1. Feasible only for C_k ≥ m_other / m_hard, the last C_k the loop tries."""
    hard = y == hc
    m_hard, m_other = int(hard.sum()), int((~hard).sum())
    yf = y.astype(np.float64)
    alpha0 = np.where(hard, m_other / m_hard, 1.0)

    def solve(C_k):
        problem = QPProblem(p=-np.ones(len(y)), lower=np.where(hard, 0.0, 1.0),
                            upper=np.where(hard, max(C_k, m_other / m_hard), 1.0), kernel=_LINEAR,
                            X=X, signs=yf, groups=np.zeros(len(y), dtype=np.int64), eq_signs=yf,
                            eq_rhs=np.zeros(1))
        res = _solve(problem, s, alpha0=alpha0)
        return res, X.T @ (res.alpha * yf)

    cand = _zero_loop("h1-svm", X, y, hc, s, solve, m_other / m_hard, case)
    cand.centroid = X[~hard].mean(axis=0)
    cand.nearest_point = cand.centroid + hc * cand.w / m_other
    return cand


def _zero_loop(solver, X, y, hc, s: TreeSettings, solve, C_min: float, case=None) -> Candidate:
    """§4.3.2: solve with C_k, and while ‖w‖ < w_tol set C_k ← C_k / f and solve again. Every try
    is recorded with the exact prediction of a zero solution (DESIGN.md "Zero solution,
    exactly"): w = 0 for C_k ≥ D_k* (the non-hard centroid in RCH(hard, C_k / m_other)), and, for
    the C-SVM, also for C_k ≤ D_low (the roles swap once C_k·m_hard < m_other: the hard centroid
    in RCH(other, 1 / (C_k m_hard))). Below D_low every smaller C_k gives w = 0 too, so the loop
    stops there; H1-SVM stops at C_min = m_other / m_hard, where it stops being feasible."""
    hard = y == hc
    if case is None:
        case = zero_solution_case(X[hard], X[~hard], s.C_hard, 1.0, hard_class=hc)
    D_low = lower_zero_threshold(X[hard], X[~hard]) if solver == "c-svm" else 0.0
    tries, C_k = [], float(s.C_hard)
    for _ in range(MAX_ZERO_TRIES):
        C_k = max(C_k, C_min)
        res, w = solve(C_k)
        norm = float(np.linalg.norm(w))
        zero = norm < s.w_tol
        predicted = C_k >= case.D_threshold * (1 - 1e-9) or C_k <= D_low * (1 + 1e-9)
        tries.append(CTry(C_k, norm, bool(zero), bool(predicted), int(res.n_iter), bool(res.converged)))
        if not zero or C_k <= C_min or C_k <= D_low * (1 + 1e-9):
            break
        C_k /= s.reduction
    cand = _qp_candidate(solver, X, y, hc, w, tries=tries, zero_case=case, s=s)
    cand.D_low = float(D_low)
    return cand


def lower_zero_threshold(X_hard, X_other) -> float:
    """The largest C_k (non-hard bound 1) at which the C-SVM returns w = 0 because the hard
    centroid lies in RCH(X_other, 1 / (C_k m_hard)): C_k ≤ 1 / (t* m_hard) with t* the LP of
    ``min_mu_containing``; 0 when that centroid is outside conv(X_other)."""
    t = min_mu_containing(X_hard.mean(axis=0), X_other).min_mu
    return 0.0 if not np.isfinite(t) or t <= 0 else float(1.0 / (t * X_hard.shape[0]))


def _qp_candidate(solver, X, y, hc, w, s: TreeSettings, tries=(), zero_case=None) -> Candidate:
    norm = float(np.linalg.norm(w))
    label = FIG41_LABELS[(solver, hc)]
    if norm < s.w_tol:
        return Candidate(label, solver, hc, w, 0.0, norm, True, False, False, "", 0, list(tries),
                         zero_case)
    return _derived(label, solver, hc, w, X, y, "", False, False, list(tries), zero_case, norm=norm)


def _derived(label, solver, hc, w, X, y, parent, sign_changed, perpendicular, tries=(),
             zero_case=None, norm=None) -> Candidate:
    proj = X @ w
    t = seed_threshold(proj, y, hc)
    n_out = int(leaves_out(proj, t, hc).sum())
    return Candidate(label, solver, hc, w, t, float(np.linalg.norm(w)) if norm is None else norm,
                     False, sign_changed, perpendicular, parent, n_out, list(tries), zero_case)


def perpendicular_directions(w: np.ndarray) -> np.ndarray:
    """An orthonormal basis of the complement of w (rows), scaled to ‖w‖ (§4.3.4). In 2-D the one
    direction w rotated by 90°."""
    d = w.shape[0]
    if d == 2:
        return np.array([[-w[1], w[0]]])
    Qm, _ = np.linalg.qr(np.column_stack([w, np.eye(d)]))
    return Qm[:, 1:d].T * np.linalg.norm(w)


# ---------------------------------------------------------------------------- one step
def step_candidates(X, y, s: TreeSettings) -> list:
    """Every candidate of one step, in the order a–d of Fig. 4.1, then sign changes, then
    perpendicular hyperplanes."""
    # one zero-solution LP per hard class serves both duals (same μ = C_k / m_other)
    cases = {hc: zero_solution_case(X[y == hc], X[y != hc], s.C_hard, 1.0, hard_class=hc)
             for hc in (-1, 1)}
    qp = []
    for make, on in ((c_svm_candidate, s.use_c_svm), (h1_svm_candidate, s.use_h1_svm)):
        if on:
            qp += [make(X, y, hc, s, cases[hc]) for hc in (-1, 1)]
    out = list(qp)
    if s.sign_change:  # §4.3.3: −w when w leaves nothing out
        out += [_derived("−" + c.label, c.solver, c.hard_class, -c.w, X, y, c.label, True, False)
                for c in qp if not c.zero_solution and c.left_out == 0]
    stuck = max((c.left_out for c in out), default=0) == 0
    if s.perpendicular and (s.greedy_level >= 1 or stuck):  # §4.3.4, g1 = 1: always
        for c in qp:
            if c.zero_solution:
                continue
            dirs = perpendicular_directions(c.w)
            for j, v in enumerate(dirs):
                tag = "⊥" if len(dirs) == 1 else f"⊥{j + 1}"
                out.append(_derived(c.label + tag, c.solver, c.hard_class, v, X, y, c.label,
                                    False, True))
                out.append(_derived("−" + c.label + tag, c.solver, c.hard_class, -v, X, y,
                                    c.label, True, True))
    return out


def grow(X, y, s: TreeSettings, progress=None) -> tuple[list, list, int]:
    """Greedy construction (§3.2.1, §4.3.1) until one class remains. Returns (nodes, trace,
    final_class). Stuck rule (no candidate leaves anything out): stop, and the rest of the space
    takes the majority class of the samples still in play (+1 on a tie); recorded in the trace."""
    active = np.arange(len(y))
    nodes, trace = [], []
    while True:
        ya = y[active]
        if np.all(ya == ya[0]):
            return nodes, trace, int(ya[0])
        if progress is not None:
            progress(len(trace), len(active))
        Xa = X[active]
        cands = step_candidates(Xa, ya, s)
        # one report per hard class (+1 first); the C-SVM and H1-SVM candidates share it
        zero = list({c.hard_class: c.zero_case for c in cands if c.zero_case is not None}.values())
        zero.sort(key=lambda z: -z.hard_class)
        best = max(range(len(cands)), key=lambda i: cands[i].left_out, default=-1)
        if best < 0 or cands[best].left_out == 0:
            final = 1 if np.sum(ya == 1) >= np.sum(ya == -1) else -1
            trace.append(Step(active.copy(), cands, -1, np.zeros(0, dtype=np.int64), zero,
                              f"stuck: no candidate leaves out a sample; the remaining region "
                              f"takes the majority class {final:+d} of the {len(ya)} samples left"))
            return nodes, trace, final
        c = cands[best]
        out = leaves_out(Xa @ c.w, c.threshold, c.hard_class)
        removed = active[out]
        nodes.append(Node(c.w.copy(), c.threshold, c.hard_class, c.solver, c.sign_changed,
                          c.perpendicular, len(nodes), c.label, int(out.sum())))
        trace.append(Step(active.copy(), cands, best, removed, zero,
                          f"chose {c.label} ({c.solver}, hard class {c.hard_class:+d}): leaves out "
                          f"{len(removed)} samples of class {-c.hard_class:+d}"))
        active = active[~out]


# ---------------------------------------------------------------------------- prediction
def chain_arrays(nodes: list, d: int):
    if not nodes:
        return np.zeros((0, d)), np.zeros(0), np.zeros(0)
    return (np.array([n.w for n in nodes]), np.array([n.threshold for n in nodes]),
            np.array([n.hard_class for n in nodes], dtype=np.float64))


def chain_predict(X, W, t, hc, final: int, n_linear: int | None = None):
    """Run X down a chain (a matrix of dot products, §3.2.1): label (±1, 0 where the sample
    reaches the end) and nodes visited. ``n_linear`` cuts the chain after that many nodes."""
    if n_linear is not None:
        W, t, hc = W[:n_linear], t[:n_linear], hc[:n_linear]
    k = W.shape[0]
    if k == 0:
        return np.full(X.shape[0], final, dtype=np.int64), np.zeros(X.shape[0], dtype=np.int64)
    S = X @ W.T - t
    out = hc * S < 0
    hit = out.any(axis=1)
    first = out.argmax(axis=1)
    label = np.where(hit, -hc[first], final).astype(np.int64)
    depth = np.where(hit, first + 1, k)
    return label, depth


def tree_predict(tree: BinaryTree, X: np.ndarray):
    """(labels ±1, nodes visited) of a fitted binary tree; with the RBF node of §3.3 after
    ``nonlinear.depth`` kept nodes, the samples that reach it take its label."""
    W, t, hc = chain_arrays(tree.kept(), X.shape[1])
    if tree.svm is None:
        return chain_predict(X, W, t, hc, tree.final_class)
    p = tree.nonlinear.depth
    label, depth = chain_predict(X, W, t, hc, 0, n_linear=p)  # 0: not decided by a linear node
    rest = np.flatnonzero(label == 0)
    if rest.size:
        label[rest] = np.where(tree.svm.decision_function(X[rest]) > 0, 1, -1)
        depth[rest] = p + 1
    return label, depth


# ---------------------------------------------------------------------------- §4.3.5 pruning
def prune(nodes: list, X, y, final: int) -> int:
    """Algorithm "Decision Tree Pruning" of §4.3.5: from the last node to the first, drop a node
    when the training errors do not exceed those of the unpruned chain. Marks ``Node.pruned`` and
    returns the training errors after pruning."""
    def errors():
        W, t, hc = chain_arrays([n for n in nodes if not n.pruned], X.shape[1])
        return int(np.sum(chain_predict(X, W, t, hc, final)[0] != y))

    reached = errors()
    for node in reversed(nodes):
        if sum(not n.pruned for n in nodes) == 1:
            break
        node.pruned = True
        if errors() > reached:
            node.pruned = False
    return errors()
