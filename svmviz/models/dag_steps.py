"""One sample through the DAG SVM and the weighted DAG SVM of Sabzekar, GhasemiGol, Naghibzadeh and
Sadoghi Yazdi (Improved DAG SVM) as a lesson, read from the fitted models:

1. the decision DAG (Fig. 2): at each of the K − 1 levels the pairwise machine D_ij of the first
   and last class still in the list decides, and the loser leaves the list (D_ij ≥ 0: not j);
2. the weighted DAG (§4, Fig. 5b): the K-Means clusters with their Gaussians and the sample's
   weights w_M(x) (eq. 13); each cluster's DAG label l_M(x) in turn (eq. 14); the fusion
   τ_i = Σ_{M: l_M = i} w_M and the label argmax τ_i (eq. 15–17).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from svmviz.errors import ParameterError

__all__ = ["DAGStep", "dag_steps"]


@dataclass(frozen=True)
class DAGStep:
    """One step: ``kind`` "start", "node" (a DAG level), "clusters", "cluster" or "fused";
    ``index``: the level (node) or cluster (cluster) it shows, else 0; ``remaining``: the class
    indices still in the list after it (DAG steps); ``pair``: the two class indices compared and
    ``value`` D_ij(x) (node); ``loser``: the class index a node eliminates; a one-sentence
    ``summary`` and the ``explanation`` with the numbers the picture shows."""

    kind: str
    index: int
    summary: str
    explanation: str
    remaining: tuple = ()
    pair: tuple = ()
    value: float = float("nan")
    loser: int = -1


def _dag_part(dag, x, names) -> list[DAGStep]:
    order = [int(k) for k in dag.order_]
    K = len(order)
    steps = [DAGStep("start", 0, f"The sample starts with the class list [{', '.join(names[k] for k in order)}].",
                     f"The DAG SVM (Fig. 2) takes the sample at the root with every class in the list "
                     f"[{', '.join(names[k] for k in order)}]. At each of the {K - 1} levels it asks the pairwise "
                     "SVM of the first and the last class still in the list and drops the loser.",
                     remaining=tuple(order))]
    remaining, D = list(order), dag.pairwise_decision(x)[0]
    for level in range(K - 1):
        i, j = remaining[0], remaining[-1]
        d = float(D[i, j])
        loser = j if d >= 0 else i
        remaining = [k for k in remaining if k != loser]
        left = f"[{', '.join(names[k] for k in remaining)}]"
        end = (f" The list holds one class: the DAG says {names[remaining[0]]}." if len(remaining) == 1 else "")
        steps.append(DAGStep("node", level,
                             f"Level {level + 1}: {names[i]} vs {names[j]}, D = {d:+.3f}: not {names[loser]}.",
                             f"Level {level + 1} of {K - 1}: the pairwise SVM of {names[i]} and {names[j]} (the first "
                             f"and last classes of the list, eq. 5) gives D(x) = {d:+.4g}, "
                             f"{'≥ 0: not ' + names[j] if d >= 0 else '< 0: not ' + names[i]}. "
                             f"{names[loser]} leaves the list; left: {left}.{end}",
                             remaining=tuple(remaining), pair=(i, j), value=d, loser=loser))
    return steps


def _wdag_part(wdag, x, names) -> list[DAGStep]:
    W = wdag.weights(x)[0]
    L = wdag.cluster_predictions(x)[0]
    T = wdag.tau(x)[0]
    N = W.size
    weights = ", ".join(f"w_{M + 1} = {W[M]:.3f}" for M in range(N))
    steps = [DAGStep("clusters", 0, f"Weighted DAG: {N} clusters; the sample weighs most in cluster "
                                    f"{int(np.argmax(W)) + 1} (w = {W.max():.2f}).",
                     f"K-Means splits the training set into {N} clusters, each with a Gaussian (mean and "
                     f"regularised covariance, eq. 10–11) and its own DAG SVM trained on its samples (Fig. 5a). "
                     f"The sample's normalised weights (eq. 13): {weights}.")]
    for M in range(N):
        model = wdag.cluster_models_[M]
        if model is None:
            how = f"holds only {names[int(wdag.cluster_constant_[M])]}, so it says that class"
        else:
            path = model.decision_path(x)[0]
            how = "its DAG walks " + " → ".join(f"{names[int(a)]} vs {names[int(b)]}" for a, b in path)
        tau = {names[int(L[m])]: 0.0 for m in range(M + 1)}
        for m in range(M + 1):
            tau[names[int(L[m])]] += W[m]
        so_far = ", ".join(f"τ_{k} = {v:.3f}" for k, v in tau.items())
        steps.append(DAGStep("cluster", M, f"Cluster {M + 1}: its DAG says {names[int(L[M])]}, weight {W[M]:.3f}.",
                             f"Cluster {M + 1} (weight w = {W[M]:.4g}) {how}: l_{M + 1}(x) = {names[int(L[M])]} "
                             f"(eq. 14). Sums so far: {so_far}.", loser=int(L[M])))
    won = int(np.argmax(T))
    taus = ", ".join(f"τ_{names[k]} = {T[k]:.3f}" for k in range(T.size))
    steps.append(DAGStep("fused", 0, f"Fused: τ is largest for {names[won]} ({T[won]:.2f}): the weighted DAG says "
                                     f"{names[won]}.",
                         f"τ_i = Σ over the clusters whose DAG says i of their weights (eq. 16–17): {taus}. The label "
                         f"is argmax τ_i = {names[won]} (eq. 15). The map shows argmax τ over the plane.",
                         loser=won))
    return steps


def dag_steps(dag, x, class_names=None, wdag=None) -> list[DAGStep]:
    """The steps of sample ``x`` (one row, or a (1, d) array) through the fitted ``DAGSVC`` ``dag``
    and, when given, the fitted ``WeightedDAGSVC`` ``wdag`` (see the module); classes named by
    ``class_names`` (one per ``dag.classes_``)."""
    if getattr(dag, "order_", None) is None:
        raise ParameterError("the DAG SVM is not fitted")
    x = np.asarray(x, dtype=np.float64).reshape(1, -1)
    names = [str(c) for c in (dag.classes_ if class_names is None else class_names)]
    if len(names) != dag.classes_.size:
        raise ParameterError(f"class_names must name the {dag.classes_.size} classes, got {len(names)} names")
    steps = _dag_part(dag, x, names)
    if wdag is not None:
        if not np.array_equal(wdag.classes_, dag.classes_):
            raise ParameterError("the weighted DAG and the DAG must be fitted on the same classes")
        steps += _wdag_part(wdag, x, names)
    return steps
