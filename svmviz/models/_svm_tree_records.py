"""The records an SVM tree (seed 000, chapters 3–4) keeps: its nodes and the trace of every step.

They are plain registered dataclasses, so a fitted tree saves to the JSON model with its whole
trace and a page can show step k without recomputing anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from svmviz.export.registry import register_record

# Fig. 4.1 of seed 000 names the four QP candidates a–d in this order.
FIG41_LABELS = {("c-svm", -1): "a", ("c-svm", 1): "b", ("h1-svm", -1): "c", ("h1-svm", 1): "d"}


@register_record
@dataclass
class CTry:
    """One solve of a C-SVM candidate in the zero-solution loop of §4.3.2 (C_k ← C_k / f).

    ``zero_solution``: the solver returned ‖w‖ < w_tol. ``zero_predicted``: the exact condition
    (DESIGN.md "Zero solution, exactly": C_k ≥ D_k*) says w = 0 is optimal for this C_k."""

    C_k: float
    w_norm: float
    zero_solution: bool
    zero_predicted: bool
    n_iter: int
    converged: bool


@register_record
@dataclass
class Candidate:
    """One candidate hyperplane of a step: w·x = threshold, the hard class on hc·(w·x − t) > 0.

    ``label``: a–d as Fig. 4.1 for the QP solutions; "−a" for a sign change (§4.3.3) of a;
    "a⊥1", "a⊥2"… for perpendicular hyperplanes (§4.3.4) to a's w (both orientations).
    ``tries``: the C_k tried by the zero-solution loop (QP candidates).
    ``zero_case``: the zero-solution report (``ZeroSolutionCase``) at the first C_k: w = 0 for
    C_k ≥ its D_threshold; ``D_low``: for the C-SVM also w = 0 for C_k ≤ D_low (roles swapped).
    ``nearest_point`` / ``centroid``: for H1-SVM, the point of conv(hard class) nearest to the
    non-hard centroid read from the solution (w ∝ nearest_point − centroid), and that centroid.
    """

    label: str
    solver: str                 # "c-svm" or "h1-svm"
    hard_class: int             # +1 or −1
    w: np.ndarray
    threshold: float
    w_norm: float
    zero_solution: bool
    sign_changed: bool
    perpendicular: bool
    parent: str                 # the QP candidate it is derived from ("" for a QP candidate)
    left_out: int
    tries: list = field(default_factory=list)
    zero_case: object = None
    nearest_point: np.ndarray | None = None
    centroid: np.ndarray | None = None
    D_low: float = 0.0


@register_record
@dataclass
class Step:
    """Step k of the greedy construction.

    ``active``: indices (into the training set) still in play; ``candidates``: every candidate;
    ``chosen``: the index of the chosen candidate (−1 when stuck); ``removed``: the indices this
    step leaves out; ``zero_solution``: the ``ZeroSolutionCase`` per hard class (+1, then −1) at
    C_k = C_hard, shared by the C-SVM and H1-SVM candidates of that hard class; ``note``: what happened, in words (e.g. the stuck rule).
    """

    active: np.ndarray
    candidates: list
    chosen: int
    removed: np.ndarray
    zero_solution: list
    note: str = ""


@register_record
@dataclass
class Node:
    """A node of the chain: samples with hard_class·(w·x − threshold) < 0 take the non-hard label
    −hard_class, the others go on. ``pruned``: removed by §4.3.5."""

    w: np.ndarray
    threshold: float
    hard_class: int
    solver: str
    sign_changed: bool
    perpendicular: bool
    depth: int
    label: str
    left_out: int
    pruned: bool = False


@register_record
@dataclass
class NonlinearReport:
    """The non-linear extension of §3.3: an RBF SVM trained on the whole training set, placed
    after ``depth`` linear nodes of the (pruned) chain. One row per possible depth:
    ``accuracies`` (training), ``reach`` (share of samples reaching the RBF node),
    ``avg_depths`` (linear nodes visited on average), ``costs`` (average kernel evaluations + dot
    products per sample, relative to the RBF SVM alone) and ``scores`` = accuracy − tradeoff·cost."""

    depth: int
    tradeoff: float
    n_support: int
    accuracies: np.ndarray
    reach: np.ndarray
    avg_depths: np.ndarray
    costs: np.ndarray
    scores: np.ndarray


@register_record
@dataclass
class BinaryTree:
    """One binary SVM tree over labels ``classes`` (classes[0] ↦ −1, classes[1] ↦ +1).

    ``final_class`` (±1) labels whatever reaches the end of the chain; ``train_errors`` /
    ``pruned_errors`` are training errors before / after pruning; ``svm`` is the RBF node of
    §3.3 (a ``BinarySVC``) or None, placed after ``nonlinear.depth`` kept nodes."""

    classes: np.ndarray
    nodes: list
    trace: list
    final_class: int
    train_errors: int
    pruned_errors: int
    svm: object = None
    nonlinear: NonlinearReport | None = None

    def kept(self) -> list:
        return [n for n in self.nodes if not n.pruned]
