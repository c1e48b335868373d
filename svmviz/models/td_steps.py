"""The tree decomposition of Chang, Guo, Lin and Lu (2009) as a lesson: the steps a fitted
``TreeDecompositionSVC`` went through, read from its own records (the grown tree, the leaves of
every searched σ, the search path), never recomputed.

1. §2.1: the decision tree growing split by split to the ceiling size σ₀ (``grow_tree`` numbers
   the two children of its s-th split 2s + 1 and 2s + 2, so the order of the splits is the
   order of the left children);
2. §2.2 step 1: the leaves at σ₀ in turn, a homogeneous one classifying by its label, every other
   one training its local RBF SVM (shown with the θ that wins at σ₀);
3. §2.2 steps 1–3: each stage σ_t of the ceiling-size search with its best θ_t;
4. the chosen (σ_opt, θ_opt): the model itself.

Long phases are shown in at most ``MAX_PHASE_STEPS`` steps (several splits or leaves a step).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from svmviz.errors import ParameterError

__all__ = ["MAX_PHASE_STEPS", "TDStep", "split_order", "td_steps"]

#: Steps one phase is shown in (several splits or leaves a step); every split and leaf is computed.
MAX_PHASE_STEPS = 40


@dataclass(frozen=True)
class TDStep:
    """One step: ``kind`` "split" (``count`` splits made), "leaf" (the first ``count`` leaves at σ₀
    visited), "stage" (search stage ``count``) or "chosen"; ``first``: where this step's own part
    starts (the splits or leaves it adds are ``first .. count − 1``); a one-sentence ``summary``
    and the ``explanation`` with the numbers the picture shows."""

    kind: str
    count: int
    first: int
    summary: str
    explanation: str


def split_order(tree) -> np.ndarray:
    """The split nodes of a ``TDTree`` in the order ``grow_tree`` split them (after s splits the
    nodes are 0 .. 2s, the leaves those of them not among the first s split)."""
    internal = np.flatnonzero(tree.left >= 0)
    return internal[np.argsort(tree.left[internal], kind="stable")]


def _marks(n: int) -> list[int]:
    """0..n in at most ``MAX_PHASE_STEPS`` + 1 marks, always 0 and n."""
    if n <= MAX_PHASE_STEPS:
        return list(range(n + 1))
    return sorted({int(round(v)) for v in np.linspace(0, n, MAX_PHASE_STEPS + 1)})


def _counts(model, counts) -> str:
    return ", ".join(f"{c}: {int(k)}" for c, k in zip(model.classes_, counts) if k)


def _leaves(n: int) -> str:
    return f"{n} leaf" if n == 1 else f"{n} leaves"


def _pct(v: float) -> str:
    return f"{100 * v:.1f} %"


def _split_text(model, node: int) -> str:
    tree = model.tree_
    a, b = int(tree.left[node]), int(tree.right[node])
    how = "entropy split" if tree.kind[node] == 0 else "median split (no split gains entropy, §2.1)"
    pure = [("pure" if np.count_nonzero(tree.counts[c]) < 2 else "mixed") for c in (a, b)]
    return (f"node {node} ({int(tree.n_samples[node])} samples: {_counts(model, tree.counts[node])}) cut at "
            f"x{int(tree.feature[node]) + 1} < {tree.threshold[node]:.4g} by an {how}: left node {a} "
            f"({int(tree.n_samples[a])}, {pure[0]}), right node {b} ({int(tree.n_samples[b])}, {pure[1]})")


def _growth_steps(model) -> list[TDStep]:
    tree, order = model.tree_, split_order(model.tree_)
    n, s0 = int(tree.n_samples[0]), model.sigma0_
    steps, prev = [], 0
    for s in _marks(order.size):
        if s == 0:
            steps.append(TDStep("split", 0, 0, f"The root: all {n} training samples in one box.",
                                f"The tree of §2.1 starts with one node holding the {n} training samples "
                                f"({_counts(model, tree.counts[0])}). A node is split while it holds at least "
                                f"σ₀ = {s0} samples and two classes; the tree ends after {order.size} splits."))
            continue
        done = order[prev:s]
        leaves = np.setdiff1d(np.arange(2 * s + 1), order[:s])
        n_pure = int(np.sum(np.count_nonzero(tree.counts[leaves], axis=1) < 2))
        what = (f"Split {s}" if done.size == 1 else f"Splits {prev + 1}–{s}")
        summary = f"{what} of {order.size}: {s + 1} leaves, {n_pure} of them pure."
        expl = "; ".join(_split_text(model, int(k)) for k in done[:6])
        if done.size > 6:
            expl += f"; and {done.size - 6} more splits"
        steps.append(TDStep("split", s, prev, summary,
                            f"{what}: {expl}. The tree now has {s + 1} leaves, {n_pure} pure (filled with their "
                            f"class) and {s + 1 - n_pure} mixed (outlined)."
                            + (f" No node with at least σ₀ = {s0} samples and two classes is left: the tree "
                               "is grown." if s == order.size else "")))
        prev = s
    return steps


def _leaf_text(model, lf) -> str:
    head = f"leaf {lf.node} ({lf.size} samples: {_counts(model, lf.class_counts)})"
    if lf.svm is None:
        if lf.homogeneous:
            return f"{head} is pure: it classifies as {model.classes_[lf.label]}, no SVM"
        return (f"{head} is mixed but within purity_tol: it classifies by its majority "
                f"{model.classes_[lf.label]}, no SVM")
    s = lf.svm
    return (f"{head} is mixed: its local RBF SVM (C = {s.C:g}, γ = {s.gamma:g}) has {s.n_support} support "
            f"vectors after {s.n_iter} solver iterations" + ("" if s.converged else " (not converged)"))


def _leaf_steps(model) -> list[TDStep]:
    leaves, lvl = model.levels_[0], model.search_path_[0]
    C, g = lvl.C[lvl.best], lvl.gamma[lvl.best]
    steps, prev = [], 0
    for j in _marks(len(leaves))[1:]:
        part = leaves[prev:j]
        n_svm = sum(lf.svm is not None for lf in leaves[:j])
        n_svm_all = sum(lf.svm is not None for lf in leaves)
        what = f"Leaf {j}" if len(part) == 1 else f"Leaves {prev + 1}–{j}"
        if len(part) == 1:
            lf = part[0]
            summary = (f"{what} of {len(leaves)} at σ₀ = {lvl.sigma}: "
                       + (f"pure, it classifies as {model.classes_[lf.label]}." if lf.homogeneous else
                          "mixed, by its majority (purity_tol)." if lf.svm is None else
                          f"mixed, its local SVM has {lf.svm.n_support} support vectors."))
        else:
            summary = f"{what} of {len(leaves)} at σ₀ = {lvl.sigma}: {n_svm} local SVMs trained so far."
        expl = "; ".join(_leaf_text(model, lf) for lf in part[:6])
        if len(part) > 6:
            expl += f"; and {len(part) - 6} more leaves"
        steps.append(TDStep("leaf", j, prev, summary,
                            f"{what} (§2.2 step 1, shown with the θ that wins at σ₀: C = {C:g}, γ = {g:g}): "
                            f"{expl}. {n_svm} of the {n_svm_all} local SVMs at σ₀ trained so far; every one is "
                            f"trained for each of the {lvl.C.size} θ of the grid."))
        prev = j
    return steps


def _theta(C, g) -> str:
    return f"C = {C:g}, γ = {g:g}"


def _stage_steps(model) -> list[TDStep]:
    steps, path = [], model.search_path_
    for t, lvl in enumerate(path):
        acc = lvl.best_accuracy
        tried = ("every θ of the grid" if t == 0 else f"the top {lvl.C.size} θ of σ₀")
        line = (f"Stage {t + 1} of {len(path)}: σ = {lvl.sigma}, {_leaves(lvl.n_leaves)}, best θ "
                f"({_theta(lvl.C[lvl.best], lvl.gamma[lvl.best])}) at {_pct(acc)} on validation.")
        accs = ", ".join(f"({_theta(c, g)}): {_pct(a)}" for c, g, a in zip(lvl.C, lvl.gamma, lvl.accuracy))
        gain = ("" if t == 0 else
                f" Gain over σ = {path[t - 1].sigma}: {100 * (acc - path[t - 1].best_accuracy):+.2f} points "
                f"(the search goes on while it is at least {100 * model.min_gain:g}).")
        steps.append(TDStep("stage", t, t, line,
                            f"Stage {t + 1} (§2.2): the tree read with ceiling σ = {lvl.sigma} has "
                            f"{_leaves(lvl.n_leaves)}, {lvl.n_heterogeneous} of them mixed ({lvl.n_trained} with an SVM, "
                            f"{lvl.n_reused} leaf SVMs reused from an earlier stage). Validation accuracy of "
                            f"{tried}: {accs}.{gain}"))
    return steps


def _chosen_step(model) -> TDStep:
    path = model.search_path_
    best = next(lv for lv in path if lv.sigma == model.sigma_)
    n_svm = sum(lf.svm is not None for lf in model.leaves_)
    why = ("the last stage" if best is path[-1] else
           f"the next stage gained less than {100 * model.min_gain:g} points")
    return TDStep("chosen", len(path), len(path),
                  f"Chosen: σ = {model.sigma_}, C = {model.params_['C']:g}, γ = {model.params_['gamma']:g} "
                  f"({_pct(best.best_accuracy)} on validation).",
                  f"The search keeps σ_opt = {model.sigma_} ({why}) with θ_opt = "
                  f"({_theta(model.params_['C'], model.params_['gamma'])}): {_leaves(len(model.leaves_))}, "
                  f"{n_svm} local SVMs, {_pct(model.homogeneous_fraction_)} of the training samples in pure "
                  f"leaves. Searched: " + ", ".join(f"σ = {lv.sigma}: {_pct(lv.best_accuracy)}" for lv in path)
                  + ".")


def td_steps(model) -> list[TDStep]:
    """Every step of a fitted ``TreeDecompositionSVC``'s lesson, in order (see the module)."""
    if getattr(model, "search_path_", None) is None:
        raise ParameterError("the tree decomposition is not fitted")
    return _growth_steps(model) + _leaf_steps(model) + _stage_steps(model) + [_chosen_step(model)]
