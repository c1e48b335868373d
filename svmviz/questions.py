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

from svmviz.errors import ParameterError


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
        why = (f"Candidate {win.label} wins: it leaves out {win.left_out} samples of class "
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
