"""Pairwise (one-against-one) SVMs, the DAG SVM and the weighted DAG SVM of Sabzekar, GhasemiGol, Naghibzadeh and Sadoghi Yazdi, Improved DAG SVM.

- ``PairwiseVotingSVC``: one binary C-SVM D_ij per class pair, max-wins voting (Sabzekar et al., §3,
  eq. 5–9); samples where the maximum of eq. 9 is reached by several classes are unclassifiable.
- ``DAGSVC``: the same pairwise SVMs evaluated as a decision DAG from a class list: compare the
  first and the last class of the list and drop the loser (Sabzekar et al., §3, Fig. 2–3).
- ``WeightedDAGSVC``: K-Means into N clusters, a Gaussian per cluster, a DAG SVM per cluster,
  membership weights and the fusion τ_i = Σ_{M: l_M = i} w_M (Sabzekar et al., §4, eq. 10–17).

Inner SVMs are trained on class *indices* (0 … K−1), so any label type works; ``classes_`` maps
them back. ``gamma="scale"/"auto"`` is resolved once on the whole training set so every pair and
every cluster uses the same kernel (and a one-cluster WDAG is exactly the DAG).
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from scipy.special import logsumexp

from svmviz import limits
from svmviz.data.dataset import counted
from svmviz.errors import DataError, ParameterError
from svmviz.kernels import resolve_gamma
from svmviz.models.base import SVMClassifierBase
from svmviz.models.composite import CompositeMixin, inner_fits
from svmviz.models.constraints import C, KERNEL, SMO, Int, Labels, Number, OneOf, Seed
from svmviz.models.svc import BinarySVC
from svmviz.registry import fitted_state, register_estimator

#: how a cluster's Gaussian weighs a point (``WeightedDAGSVC.weight``)
WEIGHTS = ("gaussian", "gaussian_paper")


def _max_iter_advice(est) -> str:
    """What to change when a pairwise C-SVM stopped early, for the estimator's solver options."""
    if est.solver == "cvxpy":
        return ("the cvxpy solver ended without an optimal status: use solver='smo', normalize the "
                "features, or lower C")
    if est.max_iter is not None:
        return (f"raise max_iter (now {est.max_iter}) or leave it None (SMO then runs to the "
                f"tolerance), loosen tol (now {est.tol:g}), or lower C")
    return f"loosen tol (now {est.tol:g}), normalize the features, or lower C"


class _PairwiseSVMs(CompositeMixin, SVMClassifierBase):
    """Trains D_ij for every class pair i < j (Sabzekar et al., eq. 5) and evaluates them."""

    _parameter_constraints = {**SVMClassifierBase._parameter_constraints, "C": C, **KERNEL, **SMO}

    def __init__(self, C=1.0, kernel="rbf", gamma="scale", degree=3, coef0=0.0, solver="smo",
                 tol=1e-3, max_iter=None, cache_mb=200):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.cache_mb = cache_mb

    def _binary(self) -> BinarySVC:
        return self._sub_estimator(BinarySVC(), gamma=self.gamma_)

    def _fit_pairs(self, X, yi, gamma, progress=None):
        """One BinarySVC per pair (i, j), i < j, on the samples of classes i and j (labels i, j:
        its positive decision means j). ``progress(done, total)`` (optional) is
        called after each pairwise SVM, ``total`` = K(K−1)/2, and again with the same ``done``
        between chunks of a long pairwise solve: when it raises (Stop, a closed tab) the
        exception ends the fit there, inside the solve, and no further pair is trained."""
        self.gamma_ = float(gamma)
        K = self.classes_.size
        limits.check_pairwise(K, type(self).__name__)
        total = K * (K - 1) // 2
        pairs, models = [], []
        for i in range(K):
            for j in range(i + 1, K):
                m = (yi == i) | (yi == j)
                within = None if progress is None else (lambda _i, _t, done=len(models): progress(done, total))
                with inner_fits():   # one warning below names the pairs, not one per pair
                    est = self._binary().fit(X[m], yi[m], progress=within)
                # a non-finite objective or decision is refused, naming the pair
                self._check_result(objective=est.objective_, decisions=est.decision_function(X[m]),
                                   detail=f"pair {self.classes_[i]} vs {self.classes_[j]}")
                models.append(est)
                pairs.append((i, j))
                if progress is not None:
                    progress(len(models), total)
        self.pairs_ = np.array(pairs, dtype=np.int64).reshape(-1, 2)
        self.estimators_ = models
        self.n_iter_ = np.array([m.n_iter_ for m in models], dtype=np.int64)  # per pair, as SVC
        self._record_convergence(self.unconverged_pairs())

    def unconverged_pairs(self, labels=None) -> list:
        """"pair i vs j" for every pairwise SVM that stopped before its tolerance (``labels``:
        the names of ``classes_``, default the labels themselves)."""
        labels = self.classes_ if labels is None else labels
        return [f"pair {labels[i]} vs {labels[j]}" for (i, j), e in zip(self.pairs_, self.estimators_)
                if not getattr(e, "converged_", True)]

    def _subproblems(self) -> tuple[int, str]:
        return len(self.estimators_), "pairwise C-SVMs"

    def _convergence_advice(self) -> str:
        return _max_iter_advice(self)

    def fit(self, X, y, progress=None):
        """Train every pairwise C-SVM; ``progress(done, total)`` (optional) is called after each
        of the K(K−1)/2 pairs (raising in it stops the fit there)."""
        t0 = time.perf_counter()
        X, yi = self._validate_fit(X, y)
        self._fit_pairs(X, yi, resolve_gamma(self.gamma, X) if self.kernel != "linear" else 1.0,
                        progress)
        self.fit_time_ = time.perf_counter() - t0
        return self

    def _pair_index(self, i: int, j: int) -> int:
        # pairs_ lists (i, j), i < j, in lexicographic order
        K = self.classes_.size
        a, b = min(i, j), max(i, j)
        return a * K - a * (a + 1) // 2 + (b - a - 1)

    def _d(self, X, i: int, j: int) -> np.ndarray:
        """D_ij(x) > 0 means class i (eq. 5; D_ji = −D_ij). ``X`` is already validated."""
        est = self.estimators_[self._pair_index(i, j)]
        dec = est.decision_function(X)  # positive = the larger index of the pair
        return -dec if i < j else dec

    def pair_decisions(self, X) -> np.ndarray:
        """``D_ij(x_n)`` for every pair (i, j) of ``pairs_``, shape (n, P): the values of eq. 5
        without the K × K matrix (half of it is the other half negated)."""
        X = self._validate_predict(X)
        limits.check_grid(X.shape[0], len(self.pairs_), "the pairwise decisions")
        out = np.empty((X.shape[0], len(self.pairs_)))
        for p, (i, j) in enumerate(self.pairs_):
            out[:, p] = self._d(X, i, j)
        return out

    def pairwise_decision(self, X) -> np.ndarray:
        """The antisymmetric matrix of eq. 5 for every sample: ``D[n, i, j] = D_ij(x_n)``."""
        X = self._validate_predict(X)
        K = self.classes_.size
        limits.check_grid(X.shape[0], K * K, "the pairwise decision matrix")
        D = np.zeros((X.shape[0], K, K))
        for i, j in self.pairs_:
            d = self._d(X, i, j)
            D[:, i, j], D[:, j, i] = d, -d
        return D


@register_estimator
class PairwiseVotingSVC(_PairwiseSVMs):
    """One-against-one C-SVMs with max-wins voting (Sabzekar et al., eq. 6–9).

    Parameters: ``C, kernel, gamma, degree, coef0, solver, tol, max_iter, cache_mb`` as
    ``BinarySVC`` (every pair shares them; ``gamma="scale"`` is resolved on the whole training set).

    ``decision_function`` gives D_i(x) = Σ_{j≠i} sign(D_ij(x)) with sign(0) = +1 (eq. 7–8);
    ``predict`` the argmax (eq. 9). Where several classes share the maximum the sample is
    unclassifiable (the grey region of Fig. 1): ``unclassifiable(X)`` marks those samples, and
    ``predict`` gives them the first of the tied classes (LIBSVM's convention) so it always returns
    a label.

    Attributes: ``classes_``, ``pairs_`` (P, 2) class indices (i, j), i < j, ``estimators_`` the
    P fitted ``BinarySVC`` (positive decision = class j of the pair), ``gamma_``, ``fit_time_``.
    """

    @classmethod
    def from_pairwise(cls, pairwise: _PairwiseSVMs) -> "PairwiseVotingSVC":
        """Voting over the already trained pairwise SVMs of ``pairwise`` (a DAG's, for instance)."""
        params = {k: v for k, v in pairwise.get_params(deep=False).items() if k != "order"}
        return _copy_pairwise(pairwise, cls(**params))

    def votes(self, X) -> np.ndarray:
        """D_i(x) of eq. 7, shape (n, K)."""
        X = self._validate_predict(X)
        limits.check_grid(X.shape[0], self.classes_.size, "the votes")
        V = np.zeros((X.shape[0], self.classes_.size))
        for i, j in self.pairs_:  # pair by pair: no (n, K, K) array
            d = self._d(X, i, j)
            V[:, i] += np.where(d >= 0, 1.0, -1.0)  # eq. 8: sign(0) = +1, for D_ij and D_ji alike
            V[:, j] += np.where(d <= 0, 1.0, -1.0)
        return V

    def decision_function(self, X) -> np.ndarray:
        """The votes D_i(x) (n, K); for two classes the binary decision (positive = classes_[1])."""
        X = self._validate_predict(X)
        if self.classes_.size == 2:
            return -self._d(X, 0, 1)
        return self.votes(X)

    def predict(self, X) -> np.ndarray:
        V = self.votes(X)  # validates X first
        return self.classes_[np.argmax(V, axis=1)]

    def unclassifiable(self, X) -> np.ndarray:
        """True where the maximum of eq. 9 is reached by more than one class."""
        V = self.votes(X)
        return (V == V.max(axis=1, keepdims=True)).sum(axis=1) > 1

    def regions(self, X) -> np.ndarray:
        """Index i where x ∈ R_i (D_ij(x) > 0 for every j ≠ i, eq. 6), else −1."""
        X = self._validate_predict(X)
        K = self.classes_.size
        limits.check_grid(X.shape[0], K, "the regions")
        wins = np.zeros((X.shape[0], K), dtype=np.int64)  # strict wins D_ij > 0, pair by pair
        for i, j in self.pairs_:
            d = self._d(X, i, j)
            wins[:, i] += d > 0
            wins[:, j] += d < 0
        inside = wins == K - 1
        return np.where(inside.any(axis=1), np.argmax(inside, axis=1), -1)


def _copy_pairwise(src: _PairwiseSVMs, dst: _PairwiseSVMs) -> _PairwiseSVMs:
    """``dst`` holding the fitted pairwise SVMs of ``src`` (shared, not copied); a DAG's class
    list ``order_`` is the DAG's own."""
    for a, v in fitted_state(src).items():
        if a != "order_":
            setattr(dst, a, v)
    return dst


def _order_indices(order, classes: np.ndarray) -> np.ndarray:
    """``order`` (class labels, None = ``classes``) as a permutation of class indices."""
    K = classes.size
    if order is None:
        return np.arange(K)
    known = classes.tolist()
    idx = []
    for lab in list(order):
        lab = lab.item() if isinstance(lab, np.generic) else lab
        if lab not in known:
            raise ParameterError(f"order names {lab!r}, which is not a class of the training data "
                                 f"({', '.join(map(str, known))})")
        idx.append(known.index(lab))
    if sorted(idx) != list(range(K)):
        raise ParameterError(f"order must list every class exactly once: got {list(order)}, "
                             f"classes are {', '.join(map(str, known))}")
    return np.array(idx, dtype=np.int64)


@register_estimator
class DAGSVC(_PairwiseSVMs):
    """Decision DAG over the pairwise C-SVMs (Sabzekar et al., §3, Fig. 2–3; Platt et al.'s DAGSVM).

    Training is that of ``PairwiseVotingSVC``. A sample starts with the class list ``order``
    (default: ``classes_`` in sorted order); while more than one class is left it compares the
    first class i and the last class j of the list: D_ij(x) ≥ 0 drops j ("not j"), otherwise i.
    The remaining list is always a contiguous slice of ``order``, so each sample makes K − 1
    binary decisions and no region is left unclassified; the regions depend on the order (Fig. 3).

    Parameters: ``order`` (a permutation of the class labels, or None) and those of
    ``PairwiseVotingSVC``. Attributes: those of ``PairwiseVotingSVC`` and ``order_`` (class
    indices).
    """

    _parameter_constraints = {**_PairwiseSVMs._parameter_constraints, "order": Labels()}

    def __init__(self, order=None, C=1.0, kernel="rbf", gamma="scale", degree=3, coef0=0.0,
                 solver="smo", tol=1e-3, max_iter=None, cache_mb=200):
        super().__init__(C=C, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, solver=solver,
                         tol=tol, max_iter=max_iter, cache_mb=cache_mb)
        self.order = order

    def fit(self, X, y, progress=None):
        """Pairwise training (Sabzekar et al., §3); ``progress(done, total)`` (optional) is called after
        each of the K(K−1)/2 pairs (raising in it stops the fit there)."""
        t0 = time.perf_counter()
        X, yi = self._validate_fit(X, y)
        self.order_ = _order_indices(self.order, self.classes_)
        self._fit_pairs(X, yi, resolve_gamma(self.gamma, X) if self.kernel != "linear" else 1.0,
                        progress)
        self.fit_time_ = time.perf_counter() - t0
        return self

    @classmethod
    def from_pairwise(cls, pairwise: _PairwiseSVMs, order=None) -> "DAGSVC":
        """A fitted DAG over the already trained pairwise SVMs of ``pairwise`` (DAG training is
        pairwise training, Sabzekar et al., §3): changing the order needs no new fit."""
        params = {k: v for k, v in pairwise.get_params(deep=False).items() if k != "order"}
        dag = _copy_pairwise(pairwise, cls(order=order, **params))
        dag.order_ = _order_indices(order, dag.classes_)
        return dag

    def with_order(self, order) -> "DAGSVC":
        """The same pairwise SVMs evaluated with another class list."""
        return DAGSVC.from_pairwise(self, order)

    def _walk(self, X):
        """(lo, hi) positions in ``order_`` per sample and level; evaluates only the SVM of the
        node each sample is at."""
        n, K = X.shape[0], self.classes_.size
        lo, hi = np.zeros(n, dtype=np.int64), np.full(n, K - 1, dtype=np.int64)
        path = np.empty((n, max(K - 1, 0), 2), dtype=np.int64)
        for level in range(K - 1):
            path[:, level, 0], path[:, level, 1] = lo, hi
            step = np.empty(n, dtype=bool)
            for a in np.unique(lo):  # at this level hi = lo + K − 1 − level: lo names the node
                m = lo == a
                b = a + K - 1 - level
                step[m] = self._d(X[m], self.order_[a], self.order_[b]) >= 0  # "not order_[b]"
            hi = np.where(step, hi - 1, hi)
            lo = np.where(step, lo, lo + 1)
        return lo, path

    def predict_index(self, X) -> np.ndarray:
        """Class indices (into ``classes_``) the DAG reaches."""
        X = self._validate_predict(X)
        lo, _ = self._walk(X)
        return self.order_[lo]

    def predict(self, X) -> np.ndarray:
        idx = self.predict_index(X)
        return self.classes_[idx]

    def decision_path(self, X) -> np.ndarray:
        """The pair of classes (labels) compared at each of the K − 1 levels, shape (n, K−1, 2):
        ``[first, last]`` of the remaining list; the loser is the one missing at the next level
        (at the last level: the one that is not the prediction)."""
        X = self._validate_predict(X)
        _, path = self._walk(X)
        return self.classes_[self.order_[path]]

    def node_path(self, X) -> np.ndarray:
        """The DAG nodes visited, as positions (lo, hi) in ``order_`` per level: (n, K−1, 2)."""
        X = self._validate_predict(X)
        return self._walk(X)[1]


class ClusterClassWarning(UserWarning):
    """A WDAG cluster lacks some classes (Sabzekar et al. §5 asks every cluster to hold every class)."""


@register_estimator
class WeightedDAGSVC(CompositeMixin, SVMClassifierBase):
    """Weighted DAG SVM (Sabzekar et al., §4, Fig. 4–5).

    Training (Fig. 5a): K-Means splits the training set into ``n_clusters`` clusters; each cluster
    M gets a Gaussian with its mean (eq. 10) and sample covariance (eq. 11, read as the usual
    1/(n_M − 1) estimate) plus ``covariance_reg`` · (mean feature variance of the training set) · I,
    so a flat or tiny cluster still has a proper density; a ``DAGSVC`` is trained on the cluster's
    samples (a cluster holding one class just predicts it).

    Testing (Fig. 5b): membership weights w_M(x) from the Gaussians (eq. 13), each cluster's DAG
    label l_M(x) (eq. 14), τ_i = Σ_{M: l_M = i} w_M (eq. 16–17), label argmax_i τ_i (eq. 15).

    ``weight="gaussian"``: the multivariate normal density (2π)^(−d/2) |Σ|^(−1/2) exp(−½ q);
    ``weight="gaussian_paper"``: the paper's eq. 12/13 literally, (2π)^(−1/2) |Σ|^(−1/2) exp(−q), with
    q = (x − x̄)ᵀ Σ⁻¹ (x − x̄). Weights are computed as log-densities and normalised over the
    clusters (a common positive factor does not change argmax τ), so they stay finite and
    non-negative far from every cluster.

    Parameters: ``n_clusters``, ``covariance_reg``, ``weight``, ``random_state`` and
    ``kmeans_max_iter`` (K-Means, scikit-learn's ``max_iter``; a K-Means stopped there is reported
    as an unconverged sub-problem), ``order`` (the DAG class list, restricted in each cluster to its classes) and the SVM
    parameters of ``DAGSVC``.

    Diagnostic: Sabzekar et al. §5 requires "that in each cluster, there are data points from whole of
    the classes". A cluster without some class can never vote for it, however heavy its weight,
    so near that cluster WDAG cannot predict the missing class. ``cluster_missing_`` lists the
    missing class indices per cluster, ``incomplete_clusters_`` the clusters missing any, and
    ``fit`` warns (``ClusterClassWarning``) when there are some.
    """

    _parameter_constraints = {**DAGSVC._parameter_constraints, "n_clusters": Int(1, 10_000),
                              "covariance_reg": Number(0, 1e6, lo_open=True), "weight": OneOf(*WEIGHTS),
                              "random_state": Seed(), "kmeans_max_iter": Int(1, 100_000)}

    def __init__(self, n_clusters=3, covariance_reg=1e-3, weight="gaussian", random_state=None,
                 order=None, C=1.0, kernel="rbf", gamma="scale", degree=3, coef0=0.0, solver="smo",
                 tol=1e-3, max_iter=None, cache_mb=200, kmeans_max_iter=300):
        self.n_clusters = n_clusters
        self.covariance_reg = covariance_reg
        self.weight = weight
        self.random_state = random_state
        self.order = order
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.cache_mb = cache_mb
        self.kmeans_max_iter = kmeans_max_iter

    def fit(self, X, y, progress=None):
        """K-Means, the Gaussians and a DAG per cluster (Fig. 5a). ``progress(done, total)``
        (optional) is called after K-Means and after each pairwise SVM of each
        cluster: ``total`` = 1 + Σ_M P_M, P_M the pairs of the classes present in cluster M (known
        once K-Means has run). Raising in it stops the fit there."""
        from sklearn.cluster import KMeans

        t0 = time.perf_counter()
        X, yi = self._validate_fit(X, y)
        limits.check_pairwise(self.classes_.size, type(self).__name__)  # before K-Means
        n, d = X.shape
        if self.n_clusters > n:
            raise ParameterError(f"n_clusters={self.n_clusters} is more than the {n} training samples")
        n_distinct = np.unique(X, axis=0).shape[0]
        if n_distinct < self.n_clusters:
            raise DataError(f"only {n_distinct} distinct points for n_clusters={self.n_clusters}: "
                            "K-Means cannot form that many clusters")
        self.order_ = _order_indices(self.order, self.classes_)
        self.gamma_ = float(resolve_gamma(self.gamma, X)) if self.kernel != "linear" else 1.0

        # Fig. 5a level 1: K-Means; only its centres and labels are kept.
        km = KMeans(n_clusters=self.n_clusters, n_init=10, max_iter=self.kmeans_max_iter,
                    random_state=self.random_state).fit(X)
        self.cluster_centers_ = km.cluster_centers_.copy()
        kmeans_iter = int(km.n_iter_)
        kmeans_done = kmeans_iter < km.max_iter   # K-Means stopped by its tolerance, not its cap
        self.cluster_labels_ = km.labels_.astype(np.int64)
        n_present = [np.unique(yi[self.cluster_labels_ == M]).size for M in range(self.n_clusters)]
        total = 1 + sum(p * (p - 1) // 2 for p in n_present)
        done = 1
        if progress is not None:
            progress(done, total)

        # Level 2: a Gaussian per cluster (eq. 10–11), regularised.
        scale = float(np.mean(X.var(axis=0))) or 1.0
        means, covs = [], []
        for M in range(self.n_clusters):
            XM = X[self.cluster_labels_ == M]
            means.append(XM.mean(axis=0))
            S = np.cov(XM, rowvar=False).reshape(d, d) if XM.shape[0] > 1 else np.zeros((d, d))
            covs.append(S + self.covariance_reg * scale * np.eye(d))
        self.means_, self.covariances_ = np.array(means), np.array(covs)

        # Level 3: a DAG SVM per cluster on its samples (class indices as labels).
        models, const, ccls = [], [], []
        for M in range(self.n_clusters):
            m = self.cluster_labels_ == M
            present = np.unique(yi[m])
            ccls.append(present)
            if present.size == 1:
                models.append(None)
                const.append(int(present[0]))
                continue
            sub_order = [int(k) for k in self.order_ if k in set(present.tolist())]
            dag = self._sub_estimator(DAGSVC(), order=sub_order, gamma=self.gamma_)
            step = None
            if progress is not None:
                def step(d, t, base=done):
                    progress(base + d, total)
            try:
                with inner_fits():   # one warning below names the clusters and pairs
                    models.append(dag.fit(X[m], yi[m], progress=step))
            except DataError as exc:
                raise DataError(f"{type(self).__name__}, cluster {M + 1}: {exc}") from None
            const.append(-1)
            done += present.size * (present.size - 1) // 2
        self.cluster_models_ = models
        self.cluster_constant_ = np.array(const, dtype=np.int64)
        self.cluster_classes_ = ccls
        all_classes = np.arange(self.classes_.size)
        self.cluster_missing_ = [np.setdiff1d(all_classes, c) for c in ccls]
        self.incomplete_clusters_ = np.array([M for M, miss in enumerate(self.cluster_missing_) if miss.size],
                                             dtype=np.int64)
        if self.incomplete_clusters_.size:
            warnings.warn(self.missing_classes_message(), ClusterClassWarning, stacklevel=2)
        # K-Means iterations, then the solver iterations of every cluster's pairwise SVMs
        self.n_iter_ = np.concatenate([[kmeans_iter]] + [m.n_iter_ for m in models if m is not None])
        # K-Means and every cluster's pairwise SVMs are checked, one warning naming them
        bad = [] if kmeans_done else [f"K-Means (stopped at its {km.max_iter} iterations)"]
        for M, model in enumerate(models):
            if model is not None:
                names = self.classes_[model.classes_]   # the cluster DAG's labels are class indices
                bad += [f"{p} in cluster {M + 1}" for p in model.unconverged_pairs(names)]
        self._record_convergence(bad)
        self.fit_time_ = time.perf_counter() - t0
        return self

    def _subproblems(self) -> tuple[int, str]:
        return (1 + sum(len(m.estimators_) for m in self.cluster_models_ if m is not None),
                "sub-problems (K-Means and the clusters' pairwise C-SVMs)")

    def _convergence_advice(self) -> str:
        svm = any(not n.startswith("K-Means") for n in self.unconverged_)
        parts = [_max_iter_advice(self)] if svm else []
        if any(n.startswith("K-Means") for n in self.unconverged_):
            parts.append("for K-Means: use fewer clusters (n_clusters) or another random_state")
        return "; ".join(parts)

    def missing_classes_message(self) -> str:
        """One sentence naming the clusters that lack classes (numbered from 1, as the plots do)
        and what to change ('' if none)."""
        if not self.incomplete_clusters_.size:
            return ""
        parts = [f"cluster {M + 1} ({counted(int(np.sum(self.cluster_labels_ == M)), 'sample')}) lacks class"
                 + ("es " if self.cluster_missing_[M].size > 1 else " ")
                 + ", ".join(str(self.classes_[k]) for k in self.cluster_missing_[M])
                 for M in self.incomplete_clusters_]
        return ("; ".join(parts) + ". The improved DAG SVM of Sabzekar, GhasemiGol, Naghibzadeh and "
                "Sadoghi Yazdi (§5) requires every cluster to contain every class: "
                "a cluster can never vote for a class it lacks. Use fewer clusters (n_clusters) or "
                "data where every class spreads over every cluster.")

    def log_densities(self, X) -> np.ndarray:
        """log w_M(x) before normalisation, shape (n, N) (eq. 13 in the chosen form)."""
        X = self._validate_predict(X)
        return self._log_w(X)

    def _log_w(self, X) -> np.ndarray:
        n, d = X.shape
        out = np.empty((n, self.means_.shape[0]))
        for M, (mu, S) in enumerate(zip(self.means_, self.covariances_)):
            L = np.linalg.cholesky(S)
            z = np.linalg.solve(L, (X - mu).T)  # q = ‖L⁻¹(x − μ)‖²
            q = np.sum(z * z, axis=0)
            logdet = 2.0 * np.sum(np.log(np.diag(L)))
            if self.weight == "gaussian":
                out[:, M] = -0.5 * (d * np.log(2 * np.pi) + logdet + q)
            else:  # the paper's eq. 12 as printed
                out[:, M] = -0.5 * np.log(2 * np.pi) - 0.5 * logdet - q
        return out

    def weights(self, X) -> np.ndarray:
        """Membership weights w_M(x) normalised over the clusters (rows sum to 1), shape (n, N)."""
        X = self._validate_predict(X)
        return self._weights(X)

    def _weights(self, X):
        lw = self._log_w(X)
        return np.exp(lw - logsumexp(lw, axis=1, keepdims=True))

    def cluster_predictions(self, X) -> np.ndarray:
        """l_M(x): the class index each cluster's DAG gives, shape (n, N) (eq. 14)."""
        X = self._validate_predict(X)
        return self._cluster_pred(X)

    def _cluster_pred(self, X):
        L = np.empty((X.shape[0], len(self.cluster_models_)), dtype=np.int64)
        for M, (model, c) in enumerate(zip(self.cluster_models_, self.cluster_constant_)):
            L[:, M] = c if model is None else model.predict(X)  # inner labels are class indices
        return L

    def tau(self, X) -> np.ndarray:
        """τ_i(x) = Σ_{M: l_M(x) = i} w_M(x) (eq. 16–17), shape (n, K)."""
        X = self._validate_predict(X)
        W, L = self._weights(X), self._cluster_pred(X)
        T = np.zeros((X.shape[0], self.classes_.size))
        for M in range(W.shape[1]):
            np.add.at(T, (np.arange(X.shape[0]), L[:, M]), W[:, M])
        return T

    def decision_function(self, X) -> np.ndarray:
        """τ (n, K); for two classes τ_1 − τ_0 (positive = classes_[1])."""
        T = self.tau(X)
        return T[:, 1] - T[:, 0] if self.classes_.size == 2 else T

    def predict(self, X) -> np.ndarray:
        T = self.tau(X)
        return self.classes_[np.argmax(T, axis=1)]
