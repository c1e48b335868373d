"""Growing, predicting and pruning one binary SVM tree (Zapién Arreola, Fehr and Burkhardt 2007, chapters 3–4).

Labels are ±1 here. At each step the four QP candidates of Fig. 4.1 (C-SVM and H1-SVM, each
class as the hard class) are solved on the samples still in play, each gets the threshold of
§4.2.2, and the candidate that leaves out the most non-hard samples is chosen (greedy heuristic,
§4.3.1). A candidate that leaves nothing out is stuck; the fallbacks depend on ``fallback``:
- "per_candidate" (default), the wording of §4.3.3 and §4.3.4 read per hyperplane: "if no sample
  could be left out, then −w is used instead" and the perpendiculars are for "the case where the
  given hyperplane cannot reduce the problem". Each stuck candidate gets its −w and its
  perpendicular hyperplanes (both orientations), while the other candidates stand as they are.
- "all_stuck": only when all four candidates are stuck, the perpendiculars of all of them, then
  (still stuck) their sign changes (Table 4.1 of the paper: perpendiculars were used, w's sign
  never).

Where this departs from the paper (said again where it happens):
- H1-SVM is solved in its bounded form (α ≤ C_k on the hard class, eq. 3.4's C_i) so the zero
  loop applies to it as to the C-SVM; the paper's eq. 4.3 has no upper bound.
- The zero loop is bounded by the C_k range, not by a number of tries, and records why it stops.
  ``ck_rule="exact"`` (default) picks C_k from the exact threshold D_k* instead of dividing by f.
- When even the perpendiculars and sign changes leave nothing out (e.g. coinciding points of both
  classes), the chain ends there and the samples left go to the RBF node of §3.3 (beyond the paper,
  which has no such stop; the trace says so, ``stop="rbf"``). ``majority_stop=True`` instead gives
  them the majority class already at the first step where no QP candidate leaves a sample out
  (opt-in, not in the paper).
- A w counts as zero only at numerical precision (``zero_test="precision"``, see ``is_zero``), or
  when the LP of §3.1 certifies it; ``zero_test="relative"`` is the earlier relative test
  ‖w‖ / Σ α_i‖x_i − x̄‖ < ``w_tol``, which also fires on real directions (a centroid difference
  of norm 0.056 on fourclass).
- Ties between candidates that leave out as many samples go to the larger margin (the plane farther
  from the nearest sample it keeps in play), then to a rule on the hyperplane itself, so the tree
  does not depend on which class is listed first (``tie_break="margin"``); ``tie_break="order"`` is
  the paper's order (the first of equals in a, b, c, d, then the fallbacks).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from svmviz.data import signed
from svmviz.data.dataset import counted
from svmviz.errors import DataError
from svmviz.geometry.halfspace_chain import first_exit, first_exits
from svmviz.geometry.zero_solution import zero_solution_case
from svmviz.models._svm_tree_records import FIG41_LABELS, BinaryTree, Candidate, CTry, Node, Step
from svmviz.solvers import QPProblem, solve_qp
from svmviz.solvers.dense_smo import DenseSMO

# ck_rule="exact" starts this far below D_k*: ‖w‖ → 0 as C_k → D_k*, so C_k = D_k* itself would be
# indistinguishable from a zero solution.
EXACT_MARGIN = 0.1
CK_RULES = ("exact", "paper")
FALLBACKS = ("per_candidate", "all_stuck")
ZERO_TESTS = ("precision", "relative")
TIE_BREAKS = ("margin", "order")
#: zero_test="precision": a solved w is zero when x·w spreads over at most this many times the QP's
#: tol across the samples in play. SMO stops when the KKT violation (in the units of x·w) is below
#: tol; its solutions of truly zero problems spread over at most 5.3 tol on 200 C_k tries of
#: fourclass, real directions over 0.039 or more.
ZERO_SPREAD = 20.0


@dataclass
class TreeSettings:
    C_hard: float = 1000.0
    reduction: float = 10.0
    w_tol: float = 1e-3
    greedy_level: int = 0
    use_c_svm: bool = True
    use_h1_svm: bool = True
    sign_change: bool = True
    perpendicular: bool = True
    perpendicular_orientations: int = 2
    solver: str = "smo"
    tol: float = 1e-5
    ck_rule: str = "exact"
    majority_stop: bool = False
    fallback: str = "per_candidate"
    zero_test: str = "precision"
    tie_break: str = "margin"
    fast: bool = True   # certified skips and closed forms; False solves every try (reference path)


# ---------------------------------------------------------------------------- §4.2.2 threshold
def tie_tolerance(qp_tol: float) -> float:
    """Projections closer than this share of their range are ties (see ``seed_threshold``): the
    node QPs stop at KKT tolerance ``qp_tol``, which leaves w (and so x·w) accurate to about that
    much, so the side of a sample closer to r1 than the solver can resolve is not known. On
    fourclass a 1e-5 difference in an axis-parallel w's other component decided whether a
    non-hard sample on r1's grid line counted as correctly placed: SMO and cvxpy then differed by
    one sample left out. 10·tol leaves a wide margin over that noise; the cap keeps a loose tol
    from merging distinct samples."""
    return min(1e-3, max(1e-9, 10.0 * qp_tol))


def seed_threshold(proj: np.ndarray, y: np.ndarray, hc: int, tie_rel: float = 1e-9) -> float:
    """Algorithm "Calculation of threshold" of §4.2.2 (eq. 3.13 / 3.14) on the projections
    proj = x·w: r1 is the extreme hard-class projection, r2 the nearest projection of a
    non-hard sample on the correct side of r1 (r1 itself when there is none); r = (r1 + r2)/2.
    A non-hard sample is on the correct side only by more than ``tie_rel`` of the projections'
    range (``tie_tolerance``)."""
    hard = y == hc
    r1 = float(proj[hard].min() if hc > 0 else proj[hard].max())
    other = proj[~hard]
    # "on the correct side" beyond the precision of w: equal projections (grid data, an
    # axis-parallel w) must not be split by the solver's noise in w's other components
    tie = tie_rel * float(proj.max() - proj.min())
    ok = other[y[~hard] * (other - r1) > tie]
    if ok.size == 0:
        r2 = r1
    else:
        r2 = float(ok.min() if -hc > 0 else ok.max())
    return 0.5 * (r1 + r2)


def leaves_out(proj: np.ndarray, threshold: float, hc: int) -> np.ndarray:
    """Samples on the non-hard side of a node (hc·(w·x − t) < 0): they take the label −hc."""
    return hc * (proj - threshold) < 0


# ---------------------------------------------------------------------------- the QPs of one step
class StepQP:
    """The QPs of one step on the samples in play: the linear Gram matrix is computed once and
    shared by the four candidates and every C_k try; each solve starts from the last solution
    of the same dual made feasible for the new bounds (warm start)."""

    def __init__(self, X, y, s: TreeSettings):
        self.X, self.y, self.s = X, y, s
        self.yf = y.astype(np.float64)
        self.Qy = (X @ X.T) * np.outer(self.yf, self.yf)
        self.smo = DenseSMO(self.Qy)
        self.groups = np.zeros(len(y), dtype=np.int64)
        self.spread = np.linalg.norm(X - X.mean(axis=0), axis=1)
        self.n_qp = 0

    def rel_norm(self, alpha, w) -> float:
        """‖w‖ / Σ α_i‖x_i − x̄‖ ∈ [0, 1]: how much of w cancels (w = Σ α_i y_i (x_i − x̄) since
        Σ α_i y_i = 0). What ``zero_test="relative"`` compares with ``w_tol``."""
        den = float(alpha @ self.spread)
        return float(np.linalg.norm(w)) / den if den > 0 else 0.0

    def is_zero(self, alpha, w, exact: bool) -> tuple[bool, float]:
        """(w counts as zero, spread of x·w over the samples in play). ``zero_test="precision"``:
        a solved w (``exact`` False) is zero when that spread is at most ``ZERO_SPREAD`` × tol, the
        precision the QP was solved to; a closed form (``exact``) when it is at the rounding of
        the sums that made it. ``"relative"``: ‖w‖ / Σ α_i‖x_i − x̄‖ < ``w_tol``."""
        proj = self.X @ w
        spread = float(proj.max() - proj.min())
        if self.s.zero_test == "relative":
            return self.rel_norm(alpha, w) < self.s.w_tol, spread
        if exact:
            scale = float(np.abs(alpha).sum() * np.abs(self.X).max() * (self.X.max(axis=0) - self.X.min(axis=0)).max())
            return spread <= len(self.y) * np.finfo(np.float64).eps * scale, spread
        return spread <= ZERO_SPREAD * self.s.tol, spread

    def _solve(self, hc, lower, upper, alpha0):
        """The fast path with the SMO backend: the dense SMO of ``svmviz.solvers`` on this step's
        Q; otherwise (reference path, cvxpy) ``solve_qp``. The equality's signs are hc·y (the hard
        class as +1), so the QP of a candidate is the same array for y and −y, bit for bit: the
        tree does not depend on which class is listed first."""
        self.n_qp += 1
        if alpha0 is None:
            alpha0 = lower.copy()   # feasible: both eq. 4.2 and eq. 4.3 start with Σ y α = 0 here
        signs = hc * self.yf
        if self.s.fast and self.s.solver == "smo":
            return self.smo.solve(signs, lower, upper, alpha0, self.s.tol)
        problem = QPProblem(p=-np.ones(len(self.y)), lower=lower, upper=upper, Q=self.Qy,
                            groups=self.groups, eq_signs=signs, eq_rhs=np.zeros(1))
        return solve_qp(problem, backend=self.s.solver, tol=self.s.tol, alpha0=alpha0)

    def c_svm(self, hc: int, C_k: float, alpha0=None):
        """Eq. 4.2: 0 ≤ α ≤ C_k on the hard class, ≤ 1 on the other, Σαy = 0."""
        hard = self.y == hc
        upper = np.where(hard, C_k, 1.0)
        if alpha0 is not None:
            alpha0 = _feasible(alpha0, hard, upper)
        res = self._solve(hc, np.zeros(len(self.y)), upper, alpha0)
        return res, self.X.T @ (res.alpha * self.yf)

    def h1_svm(self, hc: int, C_k: float, alpha0=None):
        """Problem 1 of §3.1.2 in bounded form (dual eq. 3.3–3.6 with C_i of eq. 3.4, eq. 4.3):
        0 ≤ α ≤ C_k on the hard class, α = 1 fixed on the other, Σαy = 0, started from the feasible
        point with every hard α = m_other / m_hard (or the last solution, clipped and rescaled)."""
        hard = self.y == hc
        m_hard, m_other = int(hard.sum()), int((~hard).sum())
        C_k = max(C_k, m_other / m_hard)
        start = np.where(hard, m_other / m_hard, 1.0)
        if alpha0 is not None:
            # the clipped hard α raised back to Σ = m_other without passing C_k (the last clip:
            # at C_k = m_other / m_hard the fill lands on C_k and rounding can pass it by an ulp)
            start[hard] = np.minimum(_fill_to(np.minimum(alpha0[hard], C_k), C_k, m_other), C_k)
        res = self._solve(hc, np.where(hard, 0.0, 1.0), np.where(hard, C_k, 1.0), start)
        return res, self.X.T @ (res.alpha * self.yf)

    def h1_floor(self, hc: int):
        """H1-SVM at C_k = m_other / m_hard in closed form: Σ_hard α = m_other with every α ≤
        m_other / m_hard forces α = m_other / m_hard, so w = hc·m_other·(s̄_hard − s̄_other) — the
        centroid difference (zero only when the centroids coincide)."""
        hard = self.y == hc
        m_hard, m_other = int(hard.sum()), int((~hard).sum())
        alpha = np.where(hard, m_other / m_hard, 1.0)
        return alpha, self.X.T @ (alpha * self.yf)


def _feasible(alpha0, hard, upper):
    """The last solution clipped to the new bounds, the other class scaled down so that
    Σ_hard α = Σ_other α again (α ≤ 1 stays true when scaling down)."""
    a = np.minimum(alpha0, upper)
    s_h, s_o = a[hard].sum(), a[~hard].sum()
    if s_o > s_h and s_o > 0:
        a[~hard] *= s_h / s_o
    elif s_h > s_o and s_h > 0:
        a[hard] *= s_o / s_h
    return a


def _fill_to(a, cap, total):
    """Raise entries of a (each ≤ cap) proportionally to their room until Σ a = total."""
    gap = total - a.sum()
    room = cap - a
    if gap > 0 and room.sum() > 0:
        a = a + room * min(1.0, gap / room.sum())
    return a


# ---------------------------------------------------------------------------- §4.3.2 zero loop
def hard_class_candidates(qp: StepQP, hc: int) -> list:
    """The C-SVM and H1-SVM candidates with hard class hc (as switched on), each with the C_k
    tries of the zero-solution loop of §4.3.2 under ``ck_rule``.

    The zero condition: with m_h hard and m_o other samples,
    for C_k ≥ m_o/m_h the C-SVM gives w = 0 exactly when C_k ≥ D_k* (the other centroid in
    RCH(hard, C_k/m_o)) — the same condition as the bounded H1-SVM — and for C_k ≤ m_o/m_h exactly
    when C_k ≤ D_low (the roles swap). m_o/m_h lies in the non-zero window (D_low, D_k*) unless
    the centroids coincide. Hence, without any LP:
    - a zero solution at C_k with largest hard α a certifies w = 0 for every C_k' ≥ a (same α);
    - a zero C-SVM at C_k < m_o/m_h certifies w = 0 for every smaller C_k: the loop stops there;
    - the H1-SVM is zero at a C_k ≥ m_o/m_h exactly when the C-SVM is: it reuses those tries;
    - the H1-SVM at its floor C_k = m_o/m_h is the centroid difference (closed form).
    """
    s = qp.s
    hard = qp.y == hc
    m_hard, m_other = int(hard.sum()), int((~hard).sum())
    floor = m_other / m_hard
    out = []
    if s.use_c_svm:
        tries, last, case, reason = _zero_loop(qp, hc, floor, qp.c_svm)
        out.append(_qp_candidate(qp, "c-svm", hc, last, tries, reason, case))
    if s.use_h1_svm:
        if s.use_c_svm:
            tries, last, reason = _h1_following(qp, hc, floor, out[0].tries)
            case = out[0].zero_case
        else:
            tries, last, case, reason = _zero_loop(qp, hc, floor, qp.h1_svm)
        cand = _qp_candidate(qp, "h1-svm", hc, last, tries, reason, case)
        cand.centroid = qp.X[~hard].mean(axis=0)
        cand.nearest_point = cand.centroid + hc * cand.w / m_other
        out.append(cand)
    return out


def _ladder(s: TreeSettings):
    """§4.3.2: C_k = C_hard, C_hard/f, C_hard/f², … (unbounded; the caller stops it)."""
    C_k = s.C_hard
    while C_k > 0:
        yield C_k
        C_k /= s.reduction


def _try(qp: StepQP, solve, hc, C_k, alpha0):
    res, w = solve(hc, C_k, alpha0)
    if not (np.isfinite(res.objective) and np.all(np.isfinite(w))):
        # refused here, where the QP is known — a NaN QP would "converge" (no index
        # violates a NaN gradient) and its candidate would silently leave nothing out
        dual = "C-SVM" if solve == qp.c_svm else "H1-SVM"
        raise DataError(f"SVMTreeClassifier: the {dual} node QP (hard class {hc:+d}, C_k = {C_k:.4g}, "
                        f"{len(qp.y)} samples in play) returned a non-finite objective or w; normalize "
                        "the features or lower C_hard")
    zero, spread = qp.is_zero(res.alpha, w, exact=False)
    t = CTry(C_k, qp.rel_norm(res.alpha, w), zero, "solved", int(res.n_iter), bool(res.converged), spread)
    return t, (res.alpha, w)


def _zero_loop(qp: StepQP, hc: int, floor: float, solve):
    """§4.3.2 for one dual: solve at C_hard; while w = 0 pick the next C_k by ``ck_rule``.
    Returns (tries, (alpha, w) of the last solve, the ZeroSolutionCase when the exact rule
    needed D_k*, the reason the loop ended on w = 0 or "").

    "paper": C_k ← C_k / f. Bounded by the C_k range, not a try count: it ends at a zero below
    m_other/m_hard (every smaller C_k is zero too). "exact": see ``_exact_loop``."""
    s = qp.s
    hard = qp.y == hc
    if s.ck_rule == "exact":
        return _exact_loop(qp, hc, floor, solve)
    tries, last, cert = [], None, np.inf
    for C_k in _ladder(s):
        if s.fast and C_k >= cert:
            tries.append(CTry(C_k, 0.0, True, "certified", 0, True))
            continue
        t, last = _try(qp, solve, hc, C_k, None if last is None else last[0])
        tries.append(t)
        if not t.zero_solution:
            return tries, last, None, ""
        if C_k < floor:
            return tries, last, None, (
                f"w = 0 at C_k = {C_k:.3g} < m_other/m_hard = {floor:.3g}: the hard centroid lies in "
                f"the reduced hull of the other class, so every smaller C_k gives w = 0 too "
                f"(C_k ≤ D_low); dividing by f = {s.reduction:g} jumped over the non-zero window")
        cert = min(cert, float(last[0][hard].max()))
    raise AssertionError("unreachable: the ladder ends below m_other/m_hard")


def _exact_loop(qp: StepQP, hc: int, floor: float, solve):
    """ck_rule="exact": one LP gives D_k*. C_hard ≥ D_k* is then a certified zero (the fast path
    does not solve it); otherwise solve at C_hard. Then (1 − ε)·D_k* and m_other/m_hard."""
    s = qp.s
    hard = qp.y == hc
    case = zero_solution_case(qp.X[hard], qp.X[~hard], s.C_hard, 1.0, hard_class=hc,
                              separation=False)
    tries, last = [], None
    if s.fast and case.zero_predicted:
        tries.append(CTry(s.C_hard, 0.0, True, "certified by LP", 0, True))
    else:
        t, last = _try(qp, solve, hc, s.C_hard, None)
        tries.append(t)
        if not t.zero_solution:
            return tries, last, case, ""
    for C_k in _exact_targets(case.D_threshold, floor, s.C_hard):
        if s.fast and solve == qp.h1_svm and C_k <= floor:
            t, last = _h1_floor_try(qp, hc, floor)
        else:
            t, last = _try(qp, solve, hc, C_k, None if last is None else last[0])
        tries.append(t)
        if not t.zero_solution:
            return tries, last, case, ""
    return tries, last, case, _coincide(floor)


def _coincide(floor: float) -> str:
    return (f"w = 0 even at C_k = m_other/m_hard = {floor:.3g}: the two class centroids coincide, "
            "so w = 0 for every C_k")


def _exact_targets(D_star: float, floor: float, C_hard: float):
    """ck_rule="exact": (1 − ε)·D_k* (the largest C_k that still gives w ≠ 0 with a margin, so the
    hard class keeps the most weight, eq. 4.2), then m_other/m_hard (non-zero unless the centroids
    coincide). Never below m_other/m_hard ≥ D_low."""
    first = min(C_hard, (1 - EXACT_MARGIN) * D_star)
    if first > floor * (1 + 1e-12):
        yield first
    yield floor


def _h1_floor_try(qp: StepQP, hc: int, floor: float):
    alpha, w = qp.h1_floor(hc)
    zero, spread = qp.is_zero(alpha, w, exact=True)
    return CTry(floor, qp.rel_norm(alpha, w), zero, "closed form", 0, True, spread), (alpha, w)


def _h1_following(qp: StepQP, hc: int, floor: float, c_tries):
    """The H1-SVM tries at the C-SVM's C_k, clamped at its floor m_other/m_hard (below it the
    problem is infeasible). Where the C-SVM showed w = 0 at a C_k ≥ floor the H1-SVM is zero too
    (same condition): the fast path records that without solving; at the floor it uses the closed
    form."""
    s = qp.s
    tries, last = [], None
    for ct in c_tries:
        C_k = max(ct.C_k, floor)
        if C_k <= floor:
            break
        if s.fast and ct.zero_solution:
            tries.append(CTry(C_k, 0.0, True, "same as C-SVM", 0, True))
            continue
        t, last = _try(qp, qp.h1_svm, hc, C_k, None if last is None else last[0])
        tries.append(t)
        if not t.zero_solution:
            return tries, last, ""
    if s.fast:
        t, last = _h1_floor_try(qp, hc, floor)
    else:
        t, last = _try(qp, qp.h1_svm, hc, floor, None if last is None else last[0])
    tries.append(t)
    return tries, last, "" if not t.zero_solution else _coincide(floor)


def _qp_candidate(qp: StepQP, solver, hc, last, tries, reason, case) -> Candidate:
    label = FIG41_LABELS[(solver, hc)]
    alpha, w = last
    zero = tries[-1].zero_solution
    if zero:
        return Candidate(label, solver, hc, w, 0.0, float(np.linalg.norm(w)), True, False, False, "",
                         0, list(tries), case, zero_reason=reason, ck_rule=qp.s.ck_rule)
    cand = _derived(label, solver, hc, w, qp.X, qp.y, "", False, False, tie_tolerance(qp.s.tol),
                    list(tries), case)
    cand.ck_rule = qp.s.ck_rule
    return cand


def _derived(label, solver, hc, w, X, y, parent, sign_changed, perpendicular, tie_rel, tries=(),
             zero_case=None) -> Candidate:
    proj = X @ w
    t = seed_threshold(proj, y, hc, tie_rel)
    n_out = int(leaves_out(proj, t, hc).sum())
    return Candidate(label, solver, hc, w, t, float(np.linalg.norm(w)), False, sign_changed,
                     perpendicular, parent, n_out, list(tries), zero_case)


def perpendicular_directions(w: np.ndarray) -> np.ndarray:
    """An orthonormal basis of the complement of w (rows), scaled to ‖w‖ (§4.3.4). In 2-D the one
    direction w rotated by 90°."""
    d = w.shape[0]
    if d == 2:
        return np.array([[-w[1], w[0]]])
    Qm, _ = np.linalg.qr(np.column_stack([w, np.eye(d)]))
    return Qm[:, 1:d].T * np.linalg.norm(w)


def _perpendiculars(qp_cands, X, y, tie_rel, orientations: int) -> list:
    """§4.3.4: the hyperplanes perpendicular to each non-zero w, both orientations (which way w is
    turned by 90° is an arbitrary convention; with the hard class fixed, the two orientations put
    the threshold at opposite ends of the hard class and leave out different samples), or with
    ``orientations`` 1 only w turned by +90°. They are computed from hc·w (turned back by hc), the
    same vector whichever class is listed first."""
    out = []
    for c in qp_cands:
        if c.zero_solution:
            continue
        dirs = c.hard_class * perpendicular_directions(c.hard_class * c.w)
        for j, v in enumerate(dirs):
            tag = "⊥" if len(dirs) == 1 else f"⊥{j + 1}"
            out.append(_derived(c.label + tag, c.solver, c.hard_class, v, X, y, c.label, False, True,
                                tie_rel))
            if orientations == 2:
                out.append(_derived("−" + c.label + tag, c.solver, c.hard_class, -v, X, y, c.label,
                                    True, True, tie_rel))
    return out


def _sign_changes(qp_cands, X, y, tie_rel) -> list:
    """§4.3.3: −w of each non-zero w (the inequality reversed)."""
    return [_derived("−" + c.label, c.solver, c.hard_class, -c.w, X, y, c.label, True, False, tie_rel)
            for c in qp_cands if not c.zero_solution]


# ---------------------------------------------------------------------------- one step
def step_candidates(X, y, s: TreeSettings) -> tuple[list, list, int, list]:
    """Every candidate of one step: a–d of Fig. 4.1 first; with g1 = 1 the perpendiculars of
    §4.3.4 always join them. Then the fallbacks of ``s.fallback`` (see the module docstring).
    Returns (candidates, stages tried, QPs solved, labels of the stuck QP candidates that got
    their own fallbacks — per-candidate reading only)."""
    qp = StepQP(X, y, s)
    qp_cands = []
    for hc in (-1, 1):
        qp_cands += hard_class_candidates(qp, hc)
    qp_cands.sort(key=lambda c: c.label)  # a, b, c, d
    out = list(qp_cands)
    stages = ["QP candidates a–d"]
    tie = tie_tolerance(s.tol)
    if s.perpendicular and s.greedy_level >= 1:
        out += _perpendiculars(qp_cands, X, y, tie, s.perpendicular_orientations)
        stages[0] += " and their perpendiculars (g1 = 1)"

    def stuck():
        return max((c.left_out for c in out), default=0) == 0

    if s.majority_stop and stuck():
        return out, stages, qp.n_qp, []
    if s.fallback == "per_candidate":
        fell_back = [c for c in qp_cands if not c.zero_solution and c.left_out == 0]
        for c in fell_back:
            if s.sign_change:
                out += _sign_changes([c], X, y, tie)
            if s.perpendicular and s.greedy_level == 0:
                out += _perpendiculars([c], X, y, tie, s.perpendicular_orientations)
        if fell_back and (s.sign_change or (s.perpendicular and s.greedy_level == 0)):
            stages.append("for each candidate that leaves no sample out, "
                          + " and ".join(p for p, on in (("its −w (§4.3.3)", s.sign_change),
                                                         ("its perpendiculars (§4.3.4)",
                                                          s.perpendicular and s.greedy_level == 0))
                                         if on))
            return out, stages, qp.n_qp, [c.label for c in fell_back]
        return out, stages, qp.n_qp, []
    if stuck():
        if s.perpendicular and s.greedy_level == 0:
            out += _perpendiculars(qp_cands, X, y, tie, s.perpendicular_orientations)
            stages.append("perpendicular hyperplanes (§4.3.4, stuck)")
        if stuck() and s.sign_change:
            out += _sign_changes(qp_cands, X, y, tie)
            stages.append("sign change of w (§4.3.3, still stuck)")
    return out, stages, qp.n_qp, []


def margin(c: Candidate, X) -> float:
    """The distance from a candidate's hyperplane to the nearest sample it keeps in play (the hard
    side, hc·(w·x − t) ≥ 0): the larger, the farther the plane stays from what comes next."""
    kept = c.hard_class * (X @ c.w - c.threshold)
    kept = kept[kept >= 0]
    return float(kept.min()) / c.w_norm if kept.size and c.w_norm > 0 else 0.0


def choose(cands: list, X, tie_break: str, tie_rel: float) -> int:
    """The candidate that leaves out the most samples (§4.3.1), −1 when none leaves one out. Ties:
    ``"order"`` the first of equals (the paper's a, b, c, d, then the fallbacks); ``"margin"`` the
    larger ``margin`` (margins within ``tie_rel`` of the data's diameter are equal: solvers differ
    by that much), then a C-SVM before an H1-SVM, a QP candidate before a fallback, a plain w
    before a perpendicular, before a sign change, then the larger (hc·w/‖w‖, hc·t/‖w‖) in
    lexicographic order, in steps of ``tie_rel`` (finer differences are the solver's). Each is a
    property of the hyperplane and its hard side, the same whichever class is listed first."""
    most = max((c.left_out for c in cands), default=0)
    if most == 0:
        return -1
    tied = [i for i, c in enumerate(cands) if c.left_out == most]
    if tie_break == "order" or len(tied) == 1:
        return tied[0]
    m = {i: margin(cands[i], X) for i in tied}
    band = tie_rel * float(np.linalg.norm(X.max(axis=0) - X.min(axis=0)))
    top = max(m.values())
    tied = [i for i in tied if m[i] >= top - band]

    def key(i):
        c = cands[i]
        plane = np.append(c.hard_class * c.w, c.hard_class * c.threshold) / c.w_norm
        return (c.solver == "c-svm", not c.parent, not c.perpendicular, not c.sign_changed,
                *(np.round(plane / tie_rel) + 0.0))
    return max(tied, key=key)


def grow(X, y, s: TreeSettings, progress=None) -> tuple[list, list, int]:
    """Greedy construction (§3.2.1, §4.3.1) until one class remains, or until no candidate leaves
    a sample out (the last step's ``stop`` says what decides the samples left). Returns (nodes,
    trace, final_class)."""
    active = np.arange(len(y))
    nodes, trace = [], []
    while True:
        ya = y[active]
        if np.all(ya == ya[0]):
            return nodes, trace, int(ya[0])
        if progress is not None:
            progress(len(trace), len(active))
        Xa = X[active]
        cands, stages, n_qp, fell_back = step_candidates(Xa, ya, s)
        best = choose(cands, Xa, s.tie_break, tie_tolerance(s.tol))
        if best < 0:
            final = 1 if np.sum(ya == 1) >= np.sum(ya == -1) else -1
            n_neg, n_pos = int(np.sum(ya == -1)), int(np.sum(ya == 1))
            if s.majority_stop:
                note = ("majority stop (opt-in, majority_stop=True; not in the paper): no QP candidate "
                        "leaves out a sample, so the perpendiculars and sign changes are not tried; the "
                        f"remaining region takes the majority class {signed(final)} of the {len(ya)} "
                        "samples left")
                stop = "majority"
            else:
                note = (f"stuck: none of the {len(cands)} candidates ({'; '.join(stages)}) leaves out "
                        "a sample — the samples left cannot be split by these hyperplanes with the "
                        f"§4.2.2 threshold — while both classes remain ({n_neg} of −1, {n_pos} of +1); the "
                        f"{len(ya)} samples left go to an RBF SVM node (§3.3, trained on the whole "
                        "training set) — beyond the paper, which has no stop here")
                stop = "rbf"
            trace.append(Step(active.copy(), cands, -1, np.zeros(0, dtype=np.int64), stages, n_qp,
                              note, stop=stop, fell_back=fell_back))
            return nodes, trace, final
        c = cands[best]
        out = leaves_out(Xa @ c.w, c.threshold, c.hard_class)
        removed = active[out]
        nodes.append(Node(c.w.copy(), c.threshold, c.hard_class, c.solver, c.sign_changed,
                          c.perpendicular, len(nodes), c.label, int(out.sum())))
        trace.append(Step(active.copy(), cands, best, removed, stages, n_qp,
                          f"chose {c.label} ({c.solver}, hard class {signed(c.hard_class)}): leaves out "
                          f"{counted(len(removed), 'sample')} of class {signed(-c.hard_class)}", fell_back=fell_back))
        active = active[~out]


# ---------------------------------------------------------------------------- prediction
def chain_arrays(nodes: list, d: int):
    if not nodes:
        return np.zeros((0, d)), np.zeros(0), np.zeros(0)
    return (np.array([n.w for n in nodes]), np.array([n.threshold for n in nodes]),
            np.array([n.hard_class for n in nodes], dtype=np.float64))


def chain_predict(X, W, t, hc, final: int, n_linear: int | None = None):
    """Run X down a chain (§3.2.1; one compiled pass, ``geometry.halfspace_chain``): label (±1,
    ``final`` where the sample reaches the end) and nodes visited. ``n_linear`` cuts the chain
    after that many nodes."""
    if n_linear is not None:
        W, t, hc = W[:n_linear], t[:n_linear], hc[:n_linear]
    label, depth, _ = first_exit(X, W, t, hc, final)
    return label, depth


def tree_pass(tree: BinaryTree, X: np.ndarray):
    """(labels ±1, nodes visited, w·x − t at the node that decides or at the last one) of a fitted
    binary tree, in one compiled pass over the linear chain; with the RBF node of §3.3 after
    ``nonlinear.depth`` kept nodes, only the samples that reach it go to it (their value is its
    decision value)."""
    W, t, hc = chain_arrays(tree.kept(), X.shape[1])
    if tree.svm is None:
        return first_exit(X, W, t, hc, tree.final_class)
    p = tree.nonlinear.depth
    label, depth, value = first_exit(X, W[:p], t[:p], hc[:p], 0)   # 0: not decided by a linear node
    rest = np.flatnonzero(label == 0)
    if rest.size:
        dv = tree.svm.decision_function(X[rest])
        label[rest] = np.where(dv > 0, 1, -1)
        depth[rest] = p + 1
        value[rest] = dv
    return label, depth, value


def tree_predict(tree: BinaryTree, X: np.ndarray):
    """(labels ±1, nodes visited) of a fitted binary tree (``tree_pass``)."""
    label, depth, _ = tree_pass(tree, X)
    return label, depth


def stacked_chains(trees: list, d: int):
    """The linear chains of several binary trees stacked for ``first_exits``: (W, t, hc, start,
    final). A tree with the RBF node of §3.3 keeps the kept nodes before it and ends on 0 (not
    decided by a linear node), as in ``tree_pass``."""
    Ws, ts, hcs, start, final = [], [], [], [0], []
    for tree in trees:
        W, t, hc = chain_arrays(tree.kept(), d)
        p = tree.nonlinear.depth if tree.svm is not None else len(t)
        Ws.append(W[:p])
        ts.append(t[:p])
        hcs.append(hc[:p])
        start.append(start[-1] + p)
        final.append(0 if tree.svm is not None else tree.final_class)
    return (np.vstack(Ws), np.concatenate(ts), np.concatenate(hcs), np.array(start, dtype=np.int64),
            np.array(final, dtype=np.int64))


def trees_predict(trees: list, X: np.ndarray, stacked):
    """(labels ±1 per sample and tree, nodes visited summed over the trees) of several fitted
    binary trees: one compiled pass over all linear chains (``stacked_chains``), then each RBF
    node on the samples that reach it only. The same as ``tree_predict`` tree by tree."""
    label, depth = first_exits(X, *stacked)
    for c, tree in enumerate(trees):
        if tree.svm is None:
            continue
        rest = np.flatnonzero(label[:, c] == 0)
        if rest.size:
            label[rest, c] = np.where(tree.svm.decision_function(X[rest]) > 0, 1, -1)
            depth[rest] += 1
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
