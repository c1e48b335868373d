"""Each step of an SVM tree (Zapién Arreola, Fehr and Burkhardt 2007, chapters 3–4) in plain words, read from the trace.

Nothing is solved here except the step's zero-solution report (two LPs per hard class, cached by
the model), which says *why* a candidate returned w = 0: the centroid of the other class lies in
the reduced convex hull of the hard class.
"""

from __future__ import annotations

import numpy as np

from svmviz.errors import ParameterError
from svmviz.models._svm_tree_build import margin, tie_tolerance


def _g(v: float) -> str:
    """A number of the explanation: 3 digits, "∞" for an infinite threshold (never "inf"), the minus sign."""
    return "∞" if v == np.inf else "−∞" if v == -np.inf else f"{v:.3g}".replace("-", "−")


def _names(tree) -> dict:
    def one(c, pm):
        return pm if str(c) in ("-1", "1", "+1", "-1.0", "1.0") else f"{c} ({pm})"
    return {-1: one(tree.classes[0], "−1"), 1: one(tree.classes[1], "+1")}


#: A node that decides at most this many training samples is a sliver: its hyperplane is placed by a
#: handful of points, and on the test parts of fourclass such nodes err several times as often as
#: the others (benchmarks/bench_svm_tree.py reports both error rates).
SLIVER_MAX = 5


def sliver_note(tree, k: int) -> str:
    """Why the node step k adds is fragile, when it decides at most ``SLIVER_MAX`` training
    samples; "" otherwise."""
    step = tree.trace[k]
    n = len(step.removed)
    if step.chosen < 0 or n > SLIVER_MAX:
        return ""
    return (f"Sliver: this node decides only {n} training sample{'s' if n != 1 else ''}. Its hyperplane "
            "is placed by those few points (the §4.2.2 threshold sits halfway between the last hard "
            "sample and the nearest non-hard one), so new samples near it land on either side almost by "
            "chance: such nodes err on test data several times as often as larger ones. Pruning (§4.3.5) "
            "keeps it, since removing it costs training errors; min_node_samples (not in the paper) hands "
            "what reaches such a node to the RBF node of §3.3.")


def _list(items) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def explain_step(model, k: int, tree_index: int = 0) -> str:
    """Step k (0-based) of tree ``tree_index`` in plain words: who wins and why, which
    candidates returned w = 0 and why, what the C_k rule did, which heuristics were needed."""
    tree = model.trees_[tree_index]
    if not 0 <= k < len(tree.trace):
        raise ParameterError(f"step must be between 0 and {len(tree.trace) - 1}, got {k}")
    step = tree.trace[k]
    name = _names(tree)
    y_act = None
    data = model.training_data
    if data is not None:
        y_act = np.where(data[1][step.active] == tree.classes[1], 1, -1)
    parts = []
    head = f"Step {k + 1} of {len(tree.trace)}: {len(step.active)} samples in play"
    if y_act is not None:
        head += f" ({int(np.sum(y_act == -1))} of class {name[-1]}, {int(np.sum(y_act == 1))} of {name[1]})"
    parts.append(head + ".")
    cands = step.candidates
    qp = [c for c in cands if not c.parent]
    if step.chosen >= 0:
        c = cands[step.chosen]
        others = [q for i, q in enumerate(cands) if i != step.chosen and not q.zero_solution]
        rest = ", ".join(f"{q.label} {q.left_out}" for q in others[:7])
        more = f" (the others: {rest}{', …' if len(others) > 7 else ''})" if others else ""
        how = _how(c)
        # "the most" beside another candidate with as many left a class asking why not that one
        tied = [q for q in others if q.left_out == c.left_out]
        tie = _tie_clause(model, c, tied, data[0][step.active] if data is not None else None)
        parts.append(f"Candidate {c.label} wins because it removes {c.left_out} points of class "
                     f"{name[-c.hard_class]}, the most of the {len(cands)} candidates{more}{tie}. It is "
                     f"{how}, with hard class {name[c.hard_class]}: every sample of that class stays "
                     f"on its side (threshold of §4.2.2).")
    else:
        parts.append(step.note[0].upper() + step.note[1:] + ".")
    sliver = sliver_note(tree, k)
    if sliver:
        parts.append(sliver)
    parts += _zero_sentences(model, k, tree_index, qp, name)
    if step.fell_back:
        parts += _fallback_sentences(step)
    elif len(step.stages) > 1:
        parts.append("No QP candidate left out a sample (the tree was stuck), so the tree tried "
                     + _list(step.stages[1:]) + ".")
    if any(c.sign_changed for c in cands) or any(c.perpendicular for c in cands):
        parts.append("Notation: “−d” is candidate d with w replaced by −w (the inequality turned "
                     "around, §4.3.3); “d⊥” is the hyperplane perpendicular to d's w (§4.3.4), "
                     "“−d⊥” its other orientation.")
    return " ".join(parts)


def _tie_clause(model, c, tied, X) -> str:
    """Why ``c`` won over the candidates ``tied`` with it on samples left out, by the model's
    ``tie_break`` (the margins read from the step's samples when the training data is bound)."""
    if not tied:
        return ""
    names = _list(q.label for q in tied)
    if getattr(model, "tie_break", "order") == "order":
        return f", tied with {names}: of equal candidates the one tried first wins (the paper's order)"
    if X is None:
        return (f", tied with {names}: of equal candidates the one whose hyperplane lies farther from "
                "the nearest sample it keeps in play wins")
    mine = margin(c, X)
    close = [q for q in tied if abs(margin(q, X) - mine) <= 1e-9 + tie_tolerance(model.tol) * float(
        np.linalg.norm(X.max(axis=0) - X.min(axis=0)))]
    s = (f", tied with {names}: of equal candidates the one whose hyperplane lies farther from the "
         f"nearest sample it keeps in play wins ({c.label}: {_g(mine)}; "
         + "; ".join(f"{q.label}: {_g(margin(q, X))}" for q in tied) + ")")
    if close:
        s += (f"; {_list(q.label for q in close)} as far, so a C-SVM goes before an H1-SVM, a QP "
              "candidate before a fallback, then a rule on the hyperplane itself — whichever class "
              "is listed first")
    return s


def _fallback_sentences(step) -> list:
    """fallback="per_candidate": one sentence per QP candidate that left no sample out, naming
    what was tried for it (§4.3.3 −w, §4.3.4 perpendiculars) and what each left out."""
    cands = step.candidates
    chosen = cands[step.chosen] if step.chosen >= 0 else None
    out = []
    for label in step.fell_back:
        neg = [c for c in cands if c.parent == label and c.sign_changed and not c.perpendicular]
        perp = [c for c in cands if c.parent == label and c.perpendicular]
        tried = []
        if neg:
            tried.append(f"−w was tried instead (§4.3.3: “{neg[0].label}” leaves out {neg[0].left_out})")
        if perp:
            counts = _list(f"“{c.label}” {c.left_out}" for c in perp)
            if step.stages[0].endswith("(g1 = 1)"):
                tried.append(f"its perpendicular hyperplanes were among the candidates already "
                             f"(g1 = 1: {counts})")
            else:
                tried.append(f"the hyperplanes perpendicular to its w were tried (§4.3.4; they leave "
                             f"out {counts})")
        s = f"No sample could be left out by {label}, so " + _list(tried)
        if chosen is not None and any(c is chosen for c in neg + perp):
            s += f"; {chosen.label} is the one this step uses"
        out.append(s + ".")
    return out


def _how(c) -> str:
    base = {"c-svm": "a C-SVM solution (eq. 4.2)", "h1-svm": "an H1-SVM solution (Problem 1)"}[c.solver]
    if c.perpendicular:
        return f"perpendicular to {c.parent}, {base}" + (", orientation reversed" if c.sign_changed else "")
    if c.sign_changed:
        return f"{c.parent} with w's sign changed, {base}"
    if c.tries:
        t = c.tries[-1]
        return f"{base} at C_k = {_g(t.C_k)}"
    return base


def _zero_sentences(model, k, tree_index, qp, name) -> list:
    """One sentence per hard class whose candidates returned w = 0 at the first C_k: why, and
    what the C_k rule did (with what the other rule would have done)."""
    report = None
    if model.training_data is not None:
        report = {r.hard_class: r for r in model.zero_solution_report(k, tree_index)}
    out = []
    for hc in (-1, 1):
        group = [c for c in qp if c.hard_class == hc and c.tries]
        if not group or not group[0].tries[0].zero_solution:
            continue
        labels = _list(c.label for c in group)
        s = (f"{labels} (hard class {name[hc]}) returned w = 0 at C_k = {_g(group[0].tries[0].C_k)} "
             f"because the centroid of class {name[-hc]} lies inside the reduced convex hull of "
             f"class {name[hc]} — see Convex Hulls")
        r = report[hc] if report else None
        if r is not None:
            s += f"; w ≠ 0 only for C_k between {_g(r.D_low)} and D_k* = {_g(r.D_star)}"
        s += ". " + _rule_sentence(group, r)
        out.append(s)
    return out


def _rule_sentence(group, r) -> str:
    c = group[0]
    ends = [q for q in group if q.zero_solution]
    if c.ck_rule == "exact":
        s = f"The exact C_k rule went straight to C_k = {_g(c.tries[-1].C_k)}"
        if r is not None:
            s += (f"; the paper's loop (C_k ← C_k/f) would have " +
                  (f"stopped at {_g(r.paper_C)}" if np.isfinite(r.paper_C) else
                   "jumped over that window (w = 0 at every try)"))
    else:
        s = f"The paper's loop (C_k ← C_k/f) tried {', '.join(_g(t.C_k) for t in c.tries)}"
        if r is not None:
            s += f"; the exact rule would use C_k = {_g(r.exact_C)}"
    found = [q for q in group if not q.zero_solution and q.tries and np.isfinite(q.tries[-1].spread)]
    if found:
        s += "; " + _list(f"{q.label} found w ≠ 0 there (x·w spreads over {_g(q.tries[-1].spread)} across the "
                          f"samples in play, ‖w‖ = {_g(q.w_norm)})" for q in found)
    if ends:
        why = ("C_k/f jumped over that window" if "jumped" in ends[0].zero_reason
               else "the class centroids coincide" + (
                   f": x·w spreads over {_g(ends[0].tries[-1].spread)}, zero at the solver's precision"
                   if np.isfinite(ends[0].tries[-1].spread) else ""))
        s += f"; {_list(q.label for q in ends)} end{'s' if len(ends) == 1 else ''} with w = 0 ({why})"
    return s + "."
