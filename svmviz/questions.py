""""What happens next?" questions a fitted model answers itself, for a class to vote on.

Each function reads a fitted model's own record of what it did (the SVM tree's trace of steps,
the SMO trace of a traced fit, the DAG's walk) and returns a ``Question``: a prompt, options, the
index of the right option and an explanation in words. Nothing is recomputed or guessed: the
answer is what the model does at the next step.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from svmviz.data.dataset import counted
from svmviz.errors import ParameterError
from svmviz.models.dag_steps import dag_steps
from svmviz.models.td_steps import split_order, td_steps


@dataclass(frozen=True)
class Question:
    prompt: str
    options: tuple[str, ...]
    answer: int
    explanation: str

    @property
    def answer_text(self) -> str:
        return self.options[self.answer]


END_OF_CHAIN = "none: the chain ends"


def _tree(model, tree_index: int):
    trees = getattr(model, "trees_", None)
    if trees is None:
        raise ParameterError("the SVM tree is not fitted")
    if not 0 <= int(tree_index) < len(trees):
        raise ParameterError(f"tree_index must be between 0 and {len(trees) - 1}")
    return trees[int(tree_index)]


def _next_step(tree, k: int):
    n = len(tree.trace)
    if not 0 <= int(k) < n:
        raise ParameterError(f"step k must be between 0 and {n - 1}")
    if int(k) + 1 >= n:
        raise ParameterError(f"step {int(k) + 1} is the last step of this tree: there is no next step to ask about")
    return tree.trace[int(k) + 1]


def svm_tree_winner(model, k: int, tree_index: int = 0) -> Question:
    """Asked while step ``k`` (0-based) is shown: which candidate of step k + 1 does the greedy
    rule choose (Zapién Arreola, Fehr and Burkhardt 2007, §4.2: the one leaving out the most
    samples of its non-hard class)? Options: the labels of that step's candidates, and "none"
    when the chain ends there."""
    tree = _tree(model, tree_index)
    step = _next_step(tree, k)
    labels = [c.label for c in step.candidates]
    options = labels + [END_OF_CHAIN] if step.chosen < 0 else labels
    if len(options) < 2:
        options.append(END_OF_CHAIN)
    answer = step.chosen if step.chosen >= 0 else options.index(END_OF_CHAIN)
    parts = [f"{c.label}: {'w = 0' if c.zero_solution else f'leaves out {c.left_out}'}" for c in step.candidates]
    if step.chosen >= 0:
        win = step.candidates[step.chosen]
        tied = [c.label for i, c in enumerate(step.candidates)
                if i != step.chosen and not c.zero_solution and c.left_out == win.left_out]
        why = (f"Candidate {win.label} wins: it leaves out {counted(win.left_out, 'sample')} of class "
               f"{-win.hard_class:+d}".replace("-", "−") + ", the most of the candidates"
               + (f", tied with {', '.join(tied)}: " + ("of equal candidates the one tried first wins"
                                                        if getattr(model, "tie_break", "order") == "order" else
                                                        "of equal candidates the one whose hyperplane lies farther "
                                                        "from the nearest sample it keeps wins") if tied else ""))
    else:
        why = "No candidate is taken: the chain ends here"
    return Question(f"Step {int(k) + 2}: which candidate does the tree choose?", tuple(options), answer,
                    f"{why} ({'; '.join(parts)}). {step.note}".strip())


def svm_tree_zero(model, k: int, label: str | None = None, tree_index: int = 0) -> Question:
    """Asked while step ``k`` is shown: does QP candidate ``label`` (a–d of Fig. 4.1; default:
    the first one solved) of step k + 1 end as a zero solution, w = 0 (§4.3.2)?"""
    tree = _tree(model, tree_index)
    step = _next_step(tree, k)
    qp = [c for c in step.candidates if not c.parent]
    if not qp:
        raise ParameterError(f"step {int(k) + 2} has no QP candidate")
    if label is None:
        cand = qp[0]
    else:
        found = [c for c in qp if c.label == label]
        if not found:
            raise ParameterError(f"step {int(k) + 2} has no QP candidate {label!r} "
                                 f"(it has {', '.join(c.label for c in qp)})")
        cand = found[0]
    tries = ", ".join(f"C_k = {t.C_k:.4g}: {'w = 0' if t.zero_solution else 'w ≠ 0'}" for t in cand.tries)
    zero = bool(cand.zero_solution)
    expl = (f"Candidate {cand.label} {'is' if zero else 'is not'} a zero solution at step {int(k) + 2}"
            + (f" ({cand.zero_reason})" if zero and cand.zero_reason else "")
            + (f"; the C_k tried: {tries}" if tries else "") + ".")
    return Question(f"Step {int(k) + 2}: is candidate {cand.label} a zero solution (w = 0)?",
                    ("yes, w = 0", "no, w ≠ 0"), 0 if zero else 1, expl)


def _pair_text(pair) -> str:
    i, j = (int(v) for v in pair)
    return f"({i})" if j < 0 else f"({i}, {j})"


def smo_next_pair(model, t: int, n_options: int = 4, seed: int = 0) -> Question:
    """Asked while the iterate after ``t`` SMO iterations is shown: which working pair (i, j)
    does SMO's selection (Fan, Chen and Lin 2005, second order) pick in iteration t + 1? The
    right pair is the one the traced solve took; the other options are pairs the same run took at
    the iterations nearest to t (so each is a pair SMO does pick at some point), in an order
    fixed by ``seed``."""
    tr = getattr(model, "trace_", None)
    if tr is None:
        raise ParameterError("the model was fitted without trace=True: there is no SMO run to ask about")
    n = len(tr)
    if not 0 <= int(t) < n:
        raise ParameterError(f"t must be between 0 and {n - 1} (the recorded iterations with a next one)")
    t = int(t)
    right = _pair_text(tr.pairs[t])
    others: list[str] = []
    for d in range(1, n):
        for s in (t - d, t + d):
            if 0 <= s < n:
                p = _pair_text(tr.pairs[s])
                if p != right and p not in others:
                    others.append(p)
        if len(others) >= n_options - 1:
            break
    options = [right] + others[:max(int(n_options) - 1, 1)]
    if len(options) < 2:
        raise ParameterError("this run has only one working pair: there is nothing to choose from")
    random.Random(seed * 1_000_003 + t).shuffle(options)
    before, after = tr.alpha_before[t], tr.alpha_after[t]
    i, j = (int(v) for v in tr.pairs[t])
    moved = f"α_{i}: {before[0]:.4g} → {after[0]:.4g}" + (f", α_{j}: {before[1]:.4g} → {after[1]:.4g}" if j >= 0 else "")
    expl = (f"Iteration {t + 1} works on {right}: the maximal KKT violation was {tr.max_violation[t]:.3g}, "
            f"and the second-order rule picks this pair for the largest decrease of the objective ({moved}).")
    return Question(f"Iteration {t + 1}: which pair (i, j) does SMO pick next?", tuple(options),
                    options.index(right), expl)


def dag_reached_class(model, X, index: int, class_names=None) -> Question:
    """Which class does sample ``index`` of ``X`` reach in a fitted DAG SVM (Platt, Cristianini
    and Shawe-Taylor 2000, as Sabzekar et al. use it): options are the classes (named by
    ``class_names``, one per ``model.classes_``, when given); the explanation walks the DAG's
    comparisons for that sample."""
    X = np.asarray(X)
    if X.ndim != 2 or not 0 <= int(index) < X.shape[0]:
        raise ParameterError(f"index must name a row of X (0 to {max(X.shape[0] - 1, 0) if X.ndim == 2 else 0})")
    classes = list(model.classes_)
    if class_names is None:
        class_names = [str(c) for c in classes]
    elif len(class_names) != len(classes):
        raise ParameterError(f"class_names must name the {len(classes)} classes of the model, "
                             f"got {len(class_names)} names")
    name = dict(zip(classes, (str(n) for n in class_names)))
    x = X[int(index):int(index) + 1]
    reached = model.predict(x)[0]
    path = model.decision_path(x)[0]
    walk = []
    for level, (a, b) in enumerate(path):
        if level + 1 < len(path):
            nxt = set(path[level + 1].tolist())
            loser = b if b not in nxt else a
        else:
            loser = b if a == reached else a
        walk.append(f"{name[a]} vs {name[b]}: not {name[loser]}")
    return Question(f"Which class does sample {int(index)} reach in the DAG?",
                    tuple(name[c] for c in classes), classes.index(reached),
                    f"Sample {int(index)} reaches class {name[reached]}: " + "; ".join(walk) + ".")


def hull_walk_zero(walk, k: int) -> Question:
    """Asked while step ``k`` of a μ walk (``svmviz.geometry.mu_walk``) is shown: is w zero at
    the next μ, i.e. do the reduced hulls still meet there (Zapién Arreola, Fehr and Burkhardt
    2007, §3.1.1)? The answer is the walk's: μ_{k+1} ≥ μ*, the threshold of its LP."""
    n = len(walk)
    if not 0 <= int(k) < n:
        raise ParameterError(f"step k must be between 0 and {n - 1}")
    if int(k) + 1 >= n:
        raise ParameterError(f"step {int(k) + 1} is the last step of the walk: there is no next μ to ask about")
    mu = float(walk.mus[int(k) + 1])
    zero = walk.zero_at(int(k) + 1)
    star = (f"the reduced hulls meet for every μ ≥ μ* = {walk.mu_star:.4g} (one LP)"
            if np.isfinite(walk.mu_star) else "even the convex hulls (μ = 1) are disjoint: w ≠ 0 at every μ")
    expl = (f"At μ = {mu:.4g} the reduced hulls {'still share a point, so w = 0' if zero else 'lie apart, so w ≠ 0'}: "
            f"{star}.")
    return Question(f"Step {int(k) + 2}: is w zero at the next μ = {mu:.4g}?", ("yes, w = 0", "no, w ≠ 0"),
                    0 if zero else 1, expl)


def guard_next(walk, k: int, names=None) -> Question:
    """Asked while step ``k`` of a guard-vector walk (``svmviz.models.guard_steps``) is shown: is
    the point tested next a guard vector (Yang and Ahuja 2000, §3.1)? After the last test: is the
    SVM trained on the guard vectors the SVM of all points (§3.2)? The answers are the fitted
    model's own (its test of that point; the two SVMs compared)."""
    n, T = len(walk), len(walk.tests)
    if not 0 <= int(k) < n:
        raise ParameterError(f"step k must be between 0 and {n - 1}")
    if int(k) + 1 >= n:
        raise ParameterError(f"step {int(k) + 1} is the last step of the walk: there is no next step to ask about")
    if int(k) < T:
        # here, not at the top: the other pages' questions do not load the guard-vector model
        from svmviz.models.guard_steps import class_name

        t = walk.tests[int(k)]
        return Question(f"Step {int(k) + 2}: is point {t.point} (class {class_name(t.label, names)}) a guard vector?",
                        ("yes, a guard vector", "no"), 0 if t.guard else 1,
                        (t.explanation or f"Point {t.point}: {t.status}.").replace("\n\n", " "))
    g = len(walk.found(T))
    return Question(f"Step {int(k) + 2}: is the SVM trained on the {g} guard vectors the SVM of all {walk.m} points?",
                    ("yes, the same hyperplane", "no, another one"), 0 if walk.same else 1,
                    f"{'The same' if walk.same else 'Another'} hyperplane: every support vector of the SVM of all "
                    f"points is a guard vector ({', '.join(map(str, walk.support_all.tolist()))}), so training on "
                    f"the guard vectors alone {'loses nothing' if walk.same else 'does not give it back here'}.")
# ------------------------------------------------------------------ tree decomposition
def _step_pair(steps: list, k: int, what: str):
    n = len(steps)
    if not 0 <= int(k) < n:
        raise ParameterError(f"step k must be between 0 and {n - 1}")
    if int(k) + 1 >= n:
        raise ParameterError(f"step {int(k) + 1} is the last step of {what}: there is no next step to ask about")
    return steps[int(k)], steps[int(k) + 1]


def _theta_text(C, g) -> str:
    return f"C = {C:g}, γ = {g:g}"


def td_next(model, k: int) -> Question:
    """Asked while step ``k`` (0-based) of ``td_steps(model)`` is shown, about what the next step
    shows (Chang, Guo, Lin and Lu 2009): while the tree grows, how many children of the next
    split are pure (§2.1); while the leaves at σ₀ are visited, "is this leaf pure?"; before the
    first search stage, which θ wins at σ₀; between stages, whether the next σ gains enough to go
    on (§2.2); before the chosen step, "which σ wins?"."""
    cur, nxt = _step_pair(td_steps(model), k, "the tree decomposition")
    tree = model.tree_
    if nxt.kind == "split":
        node = int(split_order(tree)[cur.count])
        kids = [int(tree.left[node]), int(tree.right[node])]
        pure = [bool(np.count_nonzero(tree.counts[c]) < 2) for c in kids]
        words = ("pure" if p else "mixed" for p in pure)
        return Question(f"Node {node} ({counted(int(tree.n_samples[node]), 'sample')}) is split next: how many of its two "
                        "children are pure?", ("none", "one", "both"), int(sum(pure)),
                        f"Node {node} is cut at x{int(tree.feature[node]) + 1} < {tree.threshold[node]:.4g}: "
                        + ", ".join(f"node {c} ({counted(int(tree.n_samples[c]), 'sample')}) is {w}" for c, w in zip(kids, words))
                        + ". A pure node is a leaf; a mixed one is split again while it holds at least "
                          f"σ₀ = {model.sigma0_} samples.")
    if nxt.kind == "leaf":
        lf = model.levels_[0][cur.count if cur.kind == "leaf" else 0]
        counts = ", ".join(f"{c}: {int(n)}" for c, n in zip(model.classes_, lf.class_counts) if n)
        return Question(f"Leaf {lf.node} ({counted(int(lf.size), 'sample')}) is next: is this leaf pure?",
                        ("yes: one class, no SVM", "no: it needs a local SVM"), 0 if lf.homogeneous else 1,
                        f"Leaf {lf.node} holds {counts}: "
                        + ("one class, so it classifies by its label and trains no SVM." if lf.homogeneous else
                           "two or more classes, so it " + ("takes its majority label (purity_tol)."
                                                           if lf.svm is None else "trains its own RBF SVM.")))
    if nxt.kind == "stage" and nxt.count == 0:
        lvl = model.search_path_[0]
        order = np.argsort(-lvl.accuracy, kind="stable")
        labels = [_theta_text(lvl.C[i], lvl.gamma[i]) for i in order]
        right = _theta_text(lvl.C[lvl.best], lvl.gamma[lvl.best])
        options = list(dict.fromkeys([right] + labels))[:4]
        if len(options) < 2:
            raise ParameterError("the grid has one θ only: there is nothing to choose from")
        random.Random(int(k)).shuffle(options)
        tied = [lab for i, lab in zip(order, labels) if lvl.accuracy[i] == lvl.best_accuracy and lab != right]
        return Question(f"Stage 1, σ₀ = {lvl.sigma}: which θ wins on the validation component?", tuple(options),
                        options.index(right),
                        f"θ = ({right}) reaches {100 * lvl.best_accuracy:.1f} % on validation"
                        + (f", tied with {'; '.join(tied)}: of equal θ the first of the grid wins" if tied else "")
                        + ". " + "; ".join(f"{lab}: {100 * lvl.accuracy[i]:.1f} %" for i, lab in
                                           zip(order[:4], labels[:4])) + ".")
    if nxt.kind == "stage":
        path, t = model.search_path_, nxt.count
        gain = path[t].best_accuracy - path[t - 1].best_accuracy
        on = bool(gain >= model.min_gain)
        return Question(f"Stage {t + 1}, σ = {path[t].sigma}: does the validation accuracy gain at least "
                        f"{100 * model.min_gain:g} points over σ = {path[t - 1].sigma}?",
                        ("yes: the search goes on", "no: the search stops"), 0 if on else 1,
                        f"σ = {path[t].sigma} reaches {100 * path[t].best_accuracy:.1f} % against "
                        f"{100 * path[t - 1].best_accuracy:.1f} % at σ = {path[t - 1].sigma}: a gain of "
                        f"{100 * gain:+.2f} points.")
    path = model.search_path_
    options = [f"σ = {lv.sigma}" for lv in path]
    if len(options) < 2:
        options.append("none: no stage was searched")
    return Question("Which σ wins the search?", tuple(options), options.index(f"σ = {model.sigma_}"),
                    f"σ_opt = {model.sigma_} with θ = ({_theta_text(model.params_['C'], model.params_['gamma'])}): "
                    + "; ".join(f"σ = {lv.sigma}: {100 * lv.best_accuracy:.1f} %" for lv in path)
                    + f". The search stops at the first stage that gains less than {100 * model.min_gain:g} points "
                      "and keeps the stage before it.")


# ------------------------------------------------------------------ DAG and weighted DAG, one sample
def dag_next(dag, x, k: int, class_names=None, wdag=None) -> Question:
    """Asked while step ``k`` of ``dag_steps(dag, x, class_names, wdag)`` is shown, about the next
    step (Sabzekar et al.): at a DAG level, "which class is eliminated next?" (options: the two
    classes the next pairwise SVM compares); then in which cluster the sample weighs most, which
    class each cluster's DAG says, and which class the fusion argmax τ gives."""
    steps = dag_steps(dag, x, class_names, wdag)
    _, nxt = _step_pair(steps, k, "this sample's walk")
    names = [str(c) for c in (dag.classes_ if class_names is None else class_names)]
    if nxt.kind == "node":
        i, j = nxt.pair
        return Question(f"Level {nxt.index + 1}: {names[i]} vs {names[j]}. Which class is eliminated next?",
                        (names[i], names[j]), 0 if nxt.loser == i else 1, nxt.explanation)
    xr = np.asarray(x, dtype=np.float64).reshape(1, -1)
    if nxt.kind == "clusters":
        W = wdag.weights(xr)[0]
        return Question("Weighted DAG: in which cluster does the sample weigh most?",
                        tuple(f"cluster {M + 1}" for M in range(W.size)), int(np.argmax(W)), nxt.explanation)
    if nxt.kind == "cluster":
        return Question(f"Which class does cluster {nxt.index + 1}'s DAG give the sample?", tuple(names),
                        nxt.loser, nxt.explanation)
    return Question("Which class does the weighted DAG give the sample (the largest τ)?", tuple(names), nxt.loser,
                    nxt.explanation)


# ------------------------------------------------------------------ Scatter SVM's recorded solve
def scatter_next(run, k: int, class_names, sensitivity=None, feature_names=None) -> Question:
    """Asked while snapshot ``k`` of a ``scatter_run`` is shown (Jenssen et al. 2012): which
    prototype m_c moves most (in feature space) until the next snapshot; before the sensitivity
    map (``sensitivity``, the step after the last snapshot), which feature has the largest mean
    sensitivity (eq. 20–21)."""
    n = len(run) + (sensitivity is not None)
    if not 0 <= int(k) < n - 1:
        raise ParameterError(f"k must be between 0 and {n - 2} (a step with a next one)")
    k = int(k)
    names = [str(c) for c in class_names]
    if k + 1 < len(run):
        mv = run.moves[k]
        top = int(np.argmax(mv))
        tied = [names[c] for c in np.flatnonzero(np.isclose(mv, mv[top], rtol=1e-9)) if c != top]
        t0, t1 = int(run.iterations[k]), int(run.iterations[k + 1])
        return Question(f"From iteration {t0} to {t1}: which prototype moves most? (a tie: the first one)",
                        tuple(names), top,
                        "‖Δm_c‖ in feature space: " + ", ".join(f"{names[c]}: {mv[c]:.3g}" for c in range(len(names)))
                        + f". Prototype {names[top]} moves most" + (f", tied with {', '.join(tied)}" if tied else "")
                        + ".")
    S = np.asarray(sensitivity)[-1]
    feats = [str(f) for f in (feature_names if feature_names is not None else range(1, S.size + 1))]
    right = int(np.argmax(S))
    others = [i for i in range(S.size) if i != right]
    pick = sorted([right] + random.Random(k).sample(others, min(5, len(others))))
    return Question("Which feature changes the class scores most (the largest mean sensitivity)?",
                    tuple(feats[i] for i in pick), pick.index(right),
                    "Mean sensitivity over the classes: " + ", ".join(f"{feats[i]}: {S[i]:.3g}" for i in pick) + ".")
