"""The guard-vector method of Yang and Ahuja (2000) one test at a time: the points a fitted
``GuardVectorSVC`` tested, in an order an instructor picks, the guard set growing test by test,
and at the end the SVM trained on the guard vectors against the SVM trained on all points (§3.2:
they are the same hard-margin SVM).

A point's test does not depend on the others' (each asks whether some hyperplane through it has
every other point on its side, §3.1), so any order ends with the same guard set: the order only
changes when each guard vector is found. Every step reads the fitted model's own outcome for its
point (``lp_status_``, ``planes_``); in 2-D each step also carries the two LPs as slope intervals
(``dual_view``), the numbers its explanation states.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree

from svmviz.errors import ParameterError
from svmviz.models.guard import dual_view
from svmviz.registry import register_record

ORDERS = ("data", "nearest", "random")
ORDER_LABELS = {"data": "data order", "nearest": "nearest the other class first", "random": "random order"}


@register_record
@dataclass
class GuardTest:
    """One point's test: ``point`` (index), ``label`` (±1), ``guard``, the model's ``status``,
    ``plane`` (w, b) of a separating hyperplane through it (NaN when none), ``explanation`` of its
    two LPs as slope intervals (2-D; "" otherwise), ``nearest`` the distance to the other class."""

    point: int
    label: int
    guard: bool
    status: str
    plane: np.ndarray
    explanation: str
    nearest: float


@register_record
@dataclass
class GuardWalk:
    """The tests in order (``tests``), ``skipped`` the points the pre-filter left out (inside
    their class's hull), ``m`` the points; the SVM on the guard vectors (``coef_guard``,
    ``intercept_guard``, ``support_guard``) and on all points (``coef_all``, ``intercept_all``,
    ``support_all``: indices), ``same``: the two hyperplanes agree. Steps: 0 (nothing tested),
    1..T (after each test), T + 1 (the two SVMs)."""

    order: str
    seed: int
    tests: list
    skipped: np.ndarray
    m: int
    coef_guard: np.ndarray
    intercept_guard: float
    support_guard: np.ndarray
    coef_all: np.ndarray
    intercept_all: float
    support_all: np.ndarray
    same: bool

    def __len__(self) -> int:
        return len(self.tests) + 2

    def found(self, k: int) -> np.ndarray:
        """The guard vectors found by step ``k`` (indices, in the order found)."""
        return np.array([t.point for t in self.tests[:max(int(k), 0)] if t.guard], dtype=np.int64)


def order_of_tests(X, y, tested, order: str = "data", seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The points ``tested`` (indices) in ``order`` — their index, nearest the other class first
    (ties by index), or a permutation seeded by ``seed`` — and each one's distance to the nearest
    point of the other class."""
    if order not in ORDERS:
        raise ParameterError(f"order must be one of {', '.join(ORDERS)}, not {order!r}")
    X, y = np.asarray(X, dtype=np.float64), np.where(np.asarray(y) > 0, 1, -1)
    tested = np.sort(np.asarray(tested, dtype=np.int64))
    near = np.full(len(X), np.inf)
    for c in (-1, 1):
        own, other = np.flatnonzero(y == c), np.flatnonzero(y != c)
        if own.size and other.size:
            near[own] = cKDTree(X[other]).query(X[own])[0]
    if order == "nearest":
        tested = tested[np.lexsort((tested, near[tested]))]
    elif order == "random":
        tested = np.random.default_rng(int(seed)).permutation(tested)
    return tested, near


def guard_walk(model, X, y, reference, order: str = "data", seed: int = 0) -> GuardWalk:
    """The tests of ``model`` (a ``GuardVectorSVC`` fitted on X, y with Δ = 0) in ``order``, and
    its SVM against ``reference``, a linear SVM fitted on all of X, y (same C and tolerance)."""
    if getattr(model, "delta", 0) > 0:
        raise ParameterError("with Δ > 0 every point is a guard vector and no test runs: there is nothing "
                             "to step through (set Δ = 0)")
    X = np.asarray(X, dtype=np.float64)
    if len(X) != len(model.guard_vectors_):
        raise ParameterError(f"the model was fitted on {len(model.guard_vectors_)} points, not these {len(X)}")
    y_pm = np.where(np.asarray(y) == model.classes_[1], 1, -1)
    tested, near = order_of_tests(X, y_pm, np.flatnonzero(model.tested_), order, seed)
    flat = X.shape[1] == 2
    tests = [GuardTest(int(i), int(y_pm[i]), bool(model.guard_vectors_[i]), str(model.lp_status_[i]),
                       np.asarray(model.planes_[i], dtype=np.float64),
                       dual_view(X, y_pm, int(i), regions=False).explanation if flat else "", float(near[i]))
             for i in tested]
    cg, ca = np.ravel(model.coef_), np.ravel(reference.coef_)
    bg, ba = float(model.intercept_[0]), float(reference.intercept_[0])
    scale = max(float(np.abs(ca).max()), 1e-300)
    same = bool(np.allclose(cg, ca, rtol=1e-5, atol=1e-5 * scale) and abs(bg - ba) <= 1e-5 * max(scale, abs(ba)))
    return GuardWalk(order, int(seed), tests, np.flatnonzero(~np.asarray(model.tested_, dtype=bool)), len(X),
                     cg, bg, np.asarray(model.support_), ca, ba, np.asarray(reference.support_), same)


def class_name(label: int, names=None) -> str:
    """The class of ``label`` (±1) by ``names`` (−1 first), a number with the minus sign "−"."""
    name = str(names[(label + 1) // 2]) if names else f"{label:+d}"
    try:
        float(name)
    except ValueError:
        return name
    return name.replace("-", "−")


def step_summary(walk: GuardWalk, k: int, names=None) -> str:
    """Step ``k`` in one sentence (``names``: the two classes' names, −1 first)."""
    T = len(walk.tests)
    if k == 0:
        pre = (f"; the other {len(walk.skipped)} lie inside their class's hull and cannot be guard vectors"
               if len(walk.skipped) else "")
        return (f"{walk.m} points: {T} of them are tested, one linear program each, in "
                f"{ORDER_LABELS[walk.order]}{pre}.")
    if k <= T:
        t, g = walk.tests[k - 1], len(walk.found(k))
        verdict = ("a line through it keeps every other point on its side: a guard vector" if t.guard
                   else "no line through it keeps every point on its side: not a guard vector")
        return f"Test {k} of {T}, point {t.point} (class {class_name(t.label, names)}): {verdict} ({g} found so far)."
    g = len(walk.found(T))
    return (f"The SVM trained on the {g} guard vectors alone "
            + ("is the SVM of all " if walk.same else "differs from the SVM of all ")
            + f"{walk.m} points ({len(walk.support_all)} support vectors).")


def explain_step(walk: GuardWalk, k: int, names=None) -> str:
    """Step ``k`` in words with the numbers its picture shows (plain text, paragraphs)."""
    T = len(walk.tests)
    if k == 0:
        return ("A point is a guard vector when some hyperplane through it has every other point on its own "
                "label's side (ties allowed); every support vector is one (Yang and Ahuja 2000, §1). The test is "
                "a linear program per point (§3.1). A guard vector lies on a supporting line of its own class, so "
                f"only the {T} points on the boundary of their class's convex hull are tested; {len(walk.skipped)} "
                f"are skipped. Order: {ORDER_LABELS[walk.order]}"
                + (f" (seed {walk.seed})" if walk.order == "random" else "") + ".")
    if k <= T:
        t = walk.tests[k - 1]
        found = walk.found(k)
        parts = [t.explanation or f"Point {t.point}: {t.status}."]
        if t.guard and np.all(np.isfinite(t.plane)):
            w, b = t.plane[:-1], t.plane[-1]
            parts.append("The line drawn through it is the one its LP found: "
                         + " + ".join(f"{v:.4g}·x{j + 1}" for j, v in enumerate(w)) + f" + {b:.4g} = 0.")
        parts.append(f"Its distance to the nearest point of the other class: {t.nearest:.4g}. After {k} of {T} tests, "
                     f"{len(found)} guard vectors: {', '.join(map(str, found.tolist())) or 'none yet'}.")
        return "\n\n".join(parts)
    w_g = ", ".join(f"{v:.6g}" for v in walk.coef_guard)
    w_a = ", ".join(f"{v:.6g}" for v in walk.coef_all)
    return (f"§3.2: the hard-margin SVM trained on the {len(walk.found(T))} guard vectors has w = ({w_g}), "
            f"b = {walk.intercept_guard:.6g} and {len(walk.support_guard)} support vectors; the SVM trained on all "
            f"{walk.m} points has w = ({w_a}), b = {walk.intercept_all:.6g} and support vectors "
            f"{', '.join(map(str, walk.support_all.tolist()))}. "
            + ("The two hyperplanes agree: the LPs left out only points the SVM does not need."
               if walk.same else "The two hyperplanes differ: the SVM of all points is a soft-margin one here."))
