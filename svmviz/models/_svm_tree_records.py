"""The records an SVM tree (Zapién Arreola, Fehr and Burkhardt 2007, chapters 3–4) keeps: its nodes and the trace of every step.

They are plain registered dataclasses, so a fitted tree saves to the JSON model with its whole
trace and a page can show step k without recomputing anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from svmviz.registry import register_record

# Fig. 4.1 of Zapién Arreola et al. 2007 names the four QP candidates a–d in this order.
FIG41_LABELS = {("c-svm", -1): "a", ("c-svm", 1): "b", ("h1-svm", -1): "c", ("h1-svm", 1): "d"}


@register_record
@dataclass
class CTry:
    """One C_k of the zero-solution loop of §4.3.2 for one candidate.

    ``w_norm``: the relative norm ‖w‖ / Σ α_i‖x_i − x̄‖ (``w_tol`` applies to it under
    ``zero_test="relative"``); ``spread``: how far x·w spreads over the samples in play (the
    ``zero_test="precision"`` measure; nan where nothing was solved, and in models saved before
    it was kept); ``zero_solution``: w counts as zero. ``how``: "solved" (a QP), "certified" (a zero
    solution at a larger C_k had every hard α ≤ this C_k, so the same α is optimal here: w = 0
    without solving), "certified by LP" (ck_rule="exact": C_k ≥ D_k* from the LP), "same as C-SVM" (H1-SVM: the C-SVM showed w = 0 at this C_k ≥
    m_other/m_hard, the same condition) or "closed form" (H1-SVM at its floor m_other/m_hard:
    the centroid difference)."""

    C_k: float
    w_norm: float
    zero_solution: bool
    how: str
    n_iter: int
    converged: bool
    spread: float = float("nan")


@register_record
@dataclass
class Candidate:
    """One candidate hyperplane of a step: w·x = threshold, the hard class on hc·(w·x − t) > 0.

    ``label``: a–d as Fig. 4.1 for the QP solutions; "−a" for a sign change (§4.3.3) of a;
    "a⊥", "a⊥1"… for perpendicular hyperplanes (§4.3.4) to a's w, "−a⊥" the other orientation.
    ``tries``: the C_k tried by the zero-solution loop (QP candidates) under ``ck_rule``.
    ``zero_case``: the ``ZeroSolutionCase`` (D_k* by LP) when ck_rule="exact" needed it, else
    None (the model computes reports lazily: ``SVMTreeClassifier.zero_solution_report``).
    ``zero_reason``: why the loop ended with w = 0 ("" when it found w ≠ 0).
    ``nearest_point`` / ``centroid``: for H1-SVM, the point of RCH(hard, C_k/m_other) nearest to
    the non-hard centroid read from the solution (w ∝ nearest_point − centroid), and that centroid.
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
    zero_reason: str = ""
    ck_rule: str = ""


@register_record
@dataclass
class Step:
    """Step k of the greedy construction.

    ``active``: indices (into the training set) still in play; ``candidates``: every candidate;
    ``chosen``: the index of the chosen candidate (−1 when the chain ends here); ``removed``: the
    indices this step leaves out; ``stages``: the heuristics tried, in order (QP candidates, then
    the fallbacks of sign change §4.3.3 and perpendiculars §4.3.4); ``n_qp``: QPs solved;
    ``note``: what happened, in words; ``stop``: "" or "majority" when the chain ended here with
    the majority class of the samples left (``majority_stop``), or "rbf" when no candidate nor
    fallback left a sample out while both classes remain and the samples left go to the RBF node
    of §3.3 (beyond the paper; ``note`` says why); ``fell_back``: the labels of the
    QP candidates that left no sample out and so got their own −w and perpendiculars
    (fallback="per_candidate"; empty under "all_stuck" and in models saved before that reading
    existed)."""

    active: np.ndarray
    candidates: list
    chosen: int
    removed: np.ndarray
    stages: list
    n_qp: int
    note: str = ""
    stop: str = ""
    fell_back: list = field(default_factory=list)


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
    """The non-linear node of §3.3: an RBF SVM trained on the whole training set, placed after
    ``depth`` kept linear nodes — before the first kept node that decides fewer than ``k``
    training samples (a "sliver"), or at the end when there is none. ``decided``: training
    samples each kept node decides in the pruned chain; ``n_reach``: training samples that reach
    the RBF node. γ and C: chosen by ``cv``-fold cross-validation on the whole training set,
    scored on the held-out samples that reach the node (``cv_accuracy`` over ``C_grid`` ×
    ``gamma_grid``; empty, shape 0 × 0, when there was nothing to choose: C and γ given, or too few
    samples of a class to cross-validate)."""

    depth: int
    k: int
    decided: np.ndarray
    n_reach: int
    C: float
    gamma: float
    n_support: int
    C_grid: np.ndarray
    gamma_grid: np.ndarray
    cv_accuracy: np.ndarray
    cv: int


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
