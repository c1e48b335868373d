"""Tree decomposition (TD) of Chang, Guo, Lin and Lu 2009: a decision tree splits the data space, homogeneous leaves
classify by themselves, and an RBF SVM is trained on every heterogeneous leaf (§2).

The ceiling size σ and the SVM parameters θ = (C, γ) are chosen by the search of §2.2 on a
validation component: every θ at σ₀, then the k best θ at σ_t = 4σ_{t−1} on the same tree read
with an earlier stop, until the best validation accuracy gains less than 0.5 % or σ reaches n.
Leaf SVMs go through joblib, so threads, processes or a Dask cluster
(``joblib.parallel_backend("dask")``) can train them; given a ``distributed.Client`` or a
scheduler's address (``fit(client=...)`` or ``with on_cluster(...)``) the fit scatters its
training data to the cluster's workers once and sends each leaf job only the leaf's row indices.
A stage's leaves read their samples as slices (views) of the data sorted by leaf once per stage,
never as a copy per θ. A leaf that stays a leaf from one σ_t to the
next has the same training data, so its SVMs for θ already trained are reused, not retrained.
``fit(progress=...)`` reports every leaf SVM (one leaf, one θ) and can be cancelled between two
of them; each leaf SVM records whether its solver converged, and the fitted
model says so for its own leaves (``converged_``, ``n_unconverged_``).

Extensions (not in the paper; off by default, so the defaults are the paper's method):

- ``purity_tol`` ε: a leaf whose minority share (1 − largest class count / size) is ≤ ε is
  classified by its majority label like a homogeneous leaf, and no SVM is trained on it. With label
  noise no leaf of hundreds of samples is exactly homogeneous, so the paper's rule trains an SVM on
  nearly every leaf of a region that is ~99 % one class. Given several ε, leaves at or below the
  smallest are never trained, and the ε with the best validation accuracy is chosen by putting the
  majority label in place of the SVM predictions already computed for the leaves between (no
  extra training).
- ``max_stages``: at most this many σ stages of the search (1: σ₀ only, a fixed ceiling), e.g.
  when θ is fixed and the larger stages are known to gain little.
"""

from __future__ import annotations

import math
import threading
import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import numpy as np
from joblib import Parallel, delayed

from svmviz import limits
from svmviz.limits import get_budget
from svmviz.data import split_indices
from svmviz.errors import DataError, ParameterError
from svmviz.kernels import Kernel
from svmviz.models import _td_tree
from svmviz.models._td_local import TDLocalSVM, scores_from_decision, train_leaf, train_leaf_rows
from svmviz.models.base import SVMClassifierBase
from svmviz.models.composite import CompositeMixin
from svmviz.models.constraints import Grid, Int, NJobs, Number, NumberOrList, OneOf, Seed
from svmviz.registry import register_estimator, register_record

SVM_SOLVERS = ("smo", "libsvm", "cvxpy")
# Chang et al. 2009, §3: Φ = {10^a: a = −1…5} and Ψ = {10^b: b = −4…4}.
C_GRID = tuple(10.0 ** a for a in range(-1, 6))
GAMMA_GRID = tuple(10.0 ** b for b in range(-4, 5))
# Small-data rule for σ₀ (see the class docstring): at least this many samples per leaf ceiling,
# and at most 1/SMALL_DATA_PARTS of the training component.
MIN_SIGMA0, SMALL_DATA_PARTS = 30, 8
#: What to change when leaf SVMs stop before their tolerance (the ConvergenceWarning says it).
UNCONVERGED_ADVICE = ("normalize the features, drop the largest C and γ from C_grid / gamma_grid, "
                      "or use svm_solver='libsvm'")


#: The Dask cluster leaf SVMs go to when ``fit`` is given none (``on_cluster``).
_CLUSTER: ContextVar = ContextVar("svmviz_td_cluster", default=None)


@contextmanager
def on_cluster(client):
    """Fits of ``TreeDecompositionSVC`` inside train their leaf SVMs on this Dask cluster: a
    ``distributed.Client`` or a scheduler's address (``"tcp://host:8786"``)."""
    token = _CLUSTER.set(client)
    try:
        yield client
    finally:
        _CLUSTER.reset(token)


class _Cluster:
    """A fit's Dask client and its training data scattered to the workers once. A client made
    here from an address is closed with the fit."""

    def __init__(self, client, Xt, yt, Xv):
        if isinstance(client, str):
            from distributed import Client

            client, self.owned = Client(client), True
        else:
            self.owned = False
        self.client = client
        self.data = client.scatter([Xt, yt, Xv], broadcast=True)

    def close(self) -> None:
        self.client.cancel(self.data)
        if self.owned:
            self.client.close()


@register_record
@dataclass
class TDLeaf:
    """One leaf of the tree at a ceiling σ: its node id, training-sample count, class counts (one
    per class of ``classes_``), whether it is homogeneous (then ``label`` is its class index and
    ``svm`` is None) or its local SVM; ``by_majority``: a heterogeneous leaf within ``purity_tol``,
    classified by its majority class ``label`` (``svm`` None)."""

    node: int
    size: int
    class_counts: np.ndarray
    homogeneous: bool
    label: int
    svm: TDLocalSVM | None
    by_majority: bool = False  # not homogeneous, classified by ``label`` under ``purity_tol``

    @property
    def minority_share(self) -> float:
        return 1.0 - float(self.class_counts.max()) / max(int(self.size), 1)


@register_record
@dataclass
class TDLevel:
    """One stage t of the §2.2 search: σ_t, the θ tried and their validation accuracy v(σ_t, θ),
    the best θ_t and r(t), the number of leaves and the training time of the stage.
    ``purity_tol``: per θ, the ε chosen with it (all 0 without the extension); ``n_trained``: leaves
    that needed an SVM; ``n_reused``: leaf SVMs taken from an earlier stage instead of trained;
    ``n_unconverged``: leaf SVMs of the stage (every θ) whose solver stopped before its tolerance."""

    sigma: int
    C: np.ndarray
    gamma: np.ndarray
    accuracy: np.ndarray
    best: int
    n_leaves: int
    n_heterogeneous: int
    time_s: float
    purity_tol: np.ndarray | None = None
    n_trained: int = -1
    n_reused: int = 0
    n_unconverged: int = 0

    @property
    def best_accuracy(self) -> float:
        return float(self.accuracy[self.best])


@register_estimator
class TreeDecompositionSVC(CompositeMixin, SVMClassifierBase):
    """The TD classifier of Chang et al. 2009 with its ceiling-size search.

    Parameters
    ----------
    sigma0 : initial ceiling size σ₀ (the paper's 1,500). Small-data rule: the paper's σ₀ assumes
        tens of thousands of samples; with n training samples the tree is grown to
        ``min(sigma0, max(30, ceil(n / 8)))``, so a small set still splits into about 8 or more
        leaves at σ₀ and the search has a few stages before σ reaches n (``sigma0_`` holds it).
    growth : σ_t = growth · σ_{t−1} (the paper's 4)
    top_k : how many of the best θ at σ₀ are carried to larger ceilings (the paper's 5)
    C_grid, gamma_grid : the grid Θ = C_grid × gamma_grid (the paper's 10⁻¹…10⁵ × 10⁻⁴…10⁴)
    min_gain : stop when the best validation accuracy gains less than this (0.005 = 0.5 %)
    multi_class : "ovo" (the paper's 1A1: pairwise SVMs, majority vote) or "ovr" (1AO)
    validation_fraction : share of the data held out as the validation component when ``fit`` gets
        no explicit ``X_val, y_val`` (the paper uses 4 : 1 training : validation, so 0.2)
    svm_solver : "smo" (svmviz's SMO), "libsvm" (scikit-learn's SVC, as the paper) or "cvxpy"
        (reference, tiny leaves only)
    n_jobs : joblib workers for the leaf SVMs (None: one, or what ``joblib.parallel_backend`` says)
    random_state : seed of the validation split
    purity_tol : extension, 0 = the paper. A number ε in [0, 0.5): leaves whose minority share is
        ≤ ε take their majority label and train no SVM. A list of such numbers: leaves at or below
        the smallest train no SVM, and the ε with the best validation accuracy is chosen (ties: the
        largest, the simpler model) at no extra training.
    max_stages : extension, None = the paper (search until the gain is small or σ ≥ n); an integer:
        at most this many σ stages (1 = the ceiling σ₀ only, no search over σ)

    Attributes
    ----------
    tree_ : the ``TDTree`` grown once to ``sigma0_``; sigma_, params_ : σ_opt and θ_opt = {"C", "gamma"}
    leaves_ : ``TDLeaf`` list at σ_opt; levels_ : the leaves of every searched σ_t (with its θ_t)
    search_path_ : ``TDLevel`` per stage; homogeneous_fraction_ : share of training samples in
    homogeneous leaves at σ_opt; n_train_ : size of the training component; fit_time_ : seconds;
    purity_tol_ : the ε in use; majority_fraction_ : share of training samples in leaves classified
    by their majority under ε (heterogeneous ones only); converged_ : every leaf SVM of the model
    (σ_opt, θ_opt) reached its solver's tolerance; n_unconverged_, unconverged_ : how many did not
    and which (then ``fit`` warns once with a ``ConvergenceWarning`` naming the leaves)
    """

    _parameter_constraints = {
        **SVMClassifierBase._parameter_constraints, "sigma0": Int(2, 10**9), "growth": Number(1, 1e6, lo_open=True),
        "top_k": Int(1, 10_000), "C_grid": Grid(), "gamma_grid": Grid(), "min_gain": Number(0, 1),
        "multi_class": OneOf("ovo", "ovr"), "validation_fraction": Number(0, 1, lo_open=True, hi_open=True),
        "svm_solver": OneOf(*SVM_SOLVERS), "n_jobs": NJobs(), "random_state": Seed(),
        "purity_tol": NumberOrList(Number(0, 0.5, hi_open=True)), "max_stages": Int(1, 10**6, none=True)}
    # Chang et al. 2009 §2.2 hold out a validation component: a class seen once cannot be in both parts
    _min_class_samples = (2, "one to grow the tree on and one for the validation component "
                             "that chooses σ, C and γ (Chang et al. 2009 §2.2)")

    def __init__(self, sigma0=1500, growth=4, top_k=5, C_grid=C_GRID, gamma_grid=GAMMA_GRID,
                 min_gain=0.005, multi_class="ovo", validation_fraction=0.2, svm_solver="smo",
                 n_jobs=None, random_state=0, purity_tol=0.0, max_stages=None):
        self.sigma0 = sigma0
        self.growth = growth
        self.top_k = top_k
        self.C_grid = C_grid
        self.gamma_grid = gamma_grid
        self.min_gain = min_gain
        self.multi_class = multi_class
        self.validation_fraction = validation_fraction
        self.svm_solver = svm_solver
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.purity_tol = purity_tol
        self.max_stages = max_stages

    def _label_index(self, y) -> np.ndarray:
        y = np.asarray(y)
        idx = np.searchsorted(self.classes_, y)
        idx = np.clip(idx, 0, self.classes_.size - 1)
        bad = self.classes_[idx] != y
        if np.any(bad):
            raise DataError(f"label {y[bad][0]!r} is not one of the training classes "
                            f"{list(self.classes_)}")
        return idx

    def _split(self, X, yi, X_val, y_val):
        if X_val is not None:
            if y_val is None:
                raise DataError("give the validation labels y_val together with X_val")
            Xv = self._check_val_features(X_val)
            yv = self._label_index(y_val)
            if yv.shape[0] != Xv.shape[0]:
                raise DataError(f"X_val has {Xv.shape[0]} rows but y_val has {yv.shape[0]} labels")
            return X, yi, Xv, yv
        tr, va = validation_split(yi, self.validation_fraction, self.random_state)
        return X[tr], yi[tr], X[va], yi[va]

    def _check_val_features(self, X):
        from sklearn.utils.validation import check_array

        X = check_array(X, dtype=np.float64)
        if X.shape[1] != self.n_features_in_:
            raise DataError(f"X_val has {X.shape[1]} features, the training data {self.n_features_in_}")
        return X

    # ------------------------------------------------------------------ fit: the §2.2 search
    def fit(self, X, y, X_val=None, y_val=None, progress=None, client=None):
        """Grow the tree once and run the search of Chang et al. 2009, §2.2.

        ``client``: a ``distributed.Client`` or a scheduler's address: the leaf SVMs are trained
        on that cluster's workers (default: the one of an enclosing ``on_cluster``, else joblib
        with ``n_jobs``).

        ``X_val, y_val``: an explicit validation component (else ``validation_fraction`` of X is
        held out). ``progress``: optional ``callback(done, total)`` counting leaf SVMs (one leaf,
        one θ), called after each one in the thread that called ``fit`` (and during a long SMO
        solve); ``total`` is every leaf SVM the search could train, known once the tree is grown
        (a search that stops early jumps to the end). It may raise to cancel the fit: the
        exception propagates and no further leaf SVM is trained.
        """
        t0 = time.perf_counter()
        X, yi = self._validate_fit(X, y)
        Xt, yt, Xv, yv = self._split(X, yi, X_val, y_val)
        n, K = Xt.shape[0], self.classes_.size
        self.n_train_ = int(n)
        self.sigma0_ = int(min(self.sigma0, max(MIN_SIGMA0, math.ceil(n / SMALL_DATA_PARTS))))
        report = _Reporter(progress)
        report.update(0, 1)
        self.tree_ = _td_tree.grow_tree(Xt, yt, K, self.sigma0_)

        grid = [(float(C), float(g)) for g in np.atleast_1d(self.gamma_grid)
                for C in np.atleast_1d(self.C_grid)]
        tols = np.unique(np.atleast_1d(np.asarray(self.purity_tol, dtype=np.float64)))
        self._check_work(n, K, len(grid), tols[0])
        report.update(0, self._planned_leaf_svms(n, len(grid), tols[0]))
        client = _CLUSTER.get() if client is None else client
        cluster = None if client is None else _Cluster(client, Xt, yt, Xv)
        try:
            self._search(Xt, yt, Xv, yv, grid, tols, report, cluster)
        finally:
            if cluster is not None:
                cluster.close()
        self.fit_time_ = time.perf_counter() - t0
        report.update(report.total, report.total)
        return self

    def _search(self, Xt, yt, Xv, yv, grid, tols, report, cluster):
        """Steps 1–3 of Chang et al. 2009, §2.2 on the grown tree."""
        n = Xt.shape[0]
        # (node, C, γ) -> (SVM, its validation predictions): a node is the same leaf, with the same
        # samples, at every σ where it is a leaf, so its SVMs carry over to later stages.
        trained = {}
        # Step 1: every θ at σ₀.
        sigma = self.sigma0_
        level, leaves = self._evaluate(Xt, yt, Xv, yv, sigma, grid, tols, trained, report, cluster)
        path, kept = [level], [leaves]
        order = np.argsort(-level.accuracy, kind="stable")
        top = [grid[i] for i in order[: self.top_k]]
        for key in [k for k in trained if k[1:] not in top]:  # only the top θ go on
            del trained[key]
        opt = 0
        # Steps 2–3: the k best θ at σ_t = growth · σ_{t−1} until the gain is small or σ_t ≥ n.
        while sigma < n and (self.max_stages is None or len(path) < self.max_stages):
            sigma = int(math.ceil(self.growth * sigma))
            level, leaves = self._evaluate(Xt, yt, Xv, yv, sigma, top, tols, trained, report, cluster)
            path.append(level)
            kept.append(leaves)
            if level.best_accuracy - path[-2].best_accuracy < self.min_gain:
                opt = len(path) - 2
                break
            opt = len(path) - 1
        best = path[opt]
        self.search_path_ = path
        self.levels_ = kept
        self.sigma_ = int(best.sigma)
        self.params_ = {"C": float(best.C[best.best]), "gamma": float(best.gamma[best.best])}
        self.leaves_ = kept[opt]
        self.purity_tol_ = float(best.purity_tol[best.best])
        homog = sum(lf.size for lf in self.leaves_ if lf.homogeneous)
        self.homogeneous_fraction_ = float(homog / n)
        self.majority_fraction_ = float(sum(lf.size for lf in self.leaves_ if lf.by_majority) / n)
        self._check_leaves(Xt)

    def _check_work(self, n: int, K: int, n_grid: int, tol0: float) -> None:
        """The search's SVM training stated before it starts (the work budget's ``search_work``), read
        from the grown tree: (leaf size)² × θ for every leaf SVM the search could train — every θ
        on the leaves needing an SVM at σ₀, the top k on the new ones at each later σ_t (the
        others reuse theirs) — times the machines of a multi-class SVM."""
        counts, sizes = self.tree_.counts, self.tree_.n_samples
        share = 1.0 - counts.max(axis=1) / np.maximum(counts.sum(axis=1), 1)
        sigmas = self._stage_sigmas(n)
        seen, work = set(), 0.0
        for t, sigma in enumerate(sigmas):
            nodes = {int(nd) for nd in self.tree_.leaves_at(sigma) if share[nd] > tol0} - seen
            work += sum(float(sizes[nd]) ** 2 for nd in nodes) * (n_grid if t == 0 else min(self.top_k, n_grid))
            seen |= nodes
        limits.check_search_work(
            work * limits.machine_factor(K, self.multi_class),
            f"the tree decomposition search on {n:,} samples ({n_grid} θ, then the top "
            f"{min(self.top_k, n_grid)} at σ = {', '.join(f'{s:,}' for s in sigmas)})",
            "use a smaller θ grid, fewer θ carried (top k), fewer σ stages, a smaller σ₀ or fewer "
            "samples (a larger test fraction)")

    def _stage_sigmas(self, n: int) -> list[int]:
        """σ₀, σ₁, ... as the search would visit them if it never stopped early."""
        sigmas = [self.sigma0_]
        while sigmas[-1] < n and (self.max_stages is None or len(sigmas) < self.max_stages):
            sigmas.append(int(math.ceil(self.growth * sigmas[-1])))
        return sigmas

    def _planned_leaf_svms(self, n: int, n_grid: int, tol0: float) -> int:
        """How many leaf SVMs (leaf, θ) the search trains if it visits every σ_t: every θ on the
        leaves needing an SVM at σ₀, then the top-k θ on the leaves that were not such a leaf at
        an earlier stage (the others reuse their SVMs). Reads the grown tree only."""
        counts = self.tree_.counts
        share = 1.0 - counts.max(axis=1) / np.maximum(counts.sum(axis=1), 1)
        seen, total = set(), 0
        for t, sigma in enumerate(self._stage_sigmas(n)):
            nodes = {int(nd) for nd in self.tree_.leaves_at(sigma) if share[nd] > tol0}
            total += len(nodes - seen) * (n_grid if t == 0 else min(self.top_k, n_grid))
            seen |= nodes
        return max(total, 1)

    def _check_leaves(self, Xt) -> None:
        """The result checks for the model's leaf SVMs (σ_opt, θ_opt): non-finite objectives or
        training decision values are a ``DataError``; leaves whose solver stopped before its
        tolerance give one ``ConvergenceWarning`` naming them and what to change."""
        with_svm = [lf for lf in self.leaves_ if lf.svm is not None]
        if with_svm:
            node_t = self.tree_.apply(Xt, self.sigma_)
            decisions = np.concatenate([lf.svm.decision(Xt[node_t == lf.node]).ravel() for lf in with_svm])
            objective = [lf.svm.objective for lf in with_svm if lf.svm.objective is not None]
            self._check_result(objective=objective or None, decisions=decisions)
        self._record_convergence([f"leaf node {lf.node} ({lf.size} samples, KKT violation "
                                  f"{lf.svm.max_violation:.3g} after {lf.svm.n_iter} iterations)"
                                  for lf in with_svm if not lf.svm.converged])

    def _subproblems(self) -> tuple[int, str]:
        return (sum(lf.svm is not None for lf in self.leaves_),
                f"leaf SVMs at σ = {self.sigma_}, C = {self.params_['C']:g}, γ = {self.params_['gamma']:g}")

    def _convergence_advice(self) -> str:
        return UNCONVERGED_ADVICE

    def _evaluate(self, Xt, yt, Xv, yv, sigma, thetas, tols, trained, report, cluster=None):
        """Train the TD classifiers of every θ in ``thetas`` on the tree at ceiling σ; return the
        stage record and the leaves of the best (θ, ε). Jobs: one per (leaf needing an SVM, γ),
        for the C values not already in ``trained`` (which this fills)."""
        t0 = time.perf_counter()
        K = self.classes_.size
        nodes = self.tree_.leaves_at(sigma)
        node_t, node_v = self.tree_.apply(Xt, sigma), self.tree_.apply(Xv, sigma)
        counts = self.tree_.counts[nodes]
        homog = np.count_nonzero(counts, axis=1) == 1
        label = np.argmax(counts, axis=1)
        share = 1.0 - counts.max(axis=1) / np.maximum(counts.sum(axis=1), 1)
        # The paper trains every heterogeneous leaf (tols = [0]); leaves within the smallest
        # tolerance are classified by their majority under every candidate ε, so need no SVM.
        needs_svm = share > tols[0]
        gammas = sorted({g for _, g in thetas})
        # The rows sorted by leaf (stable: a leaf's rows keep their order) once for the stage, so
        # every job's data are a slice of one copy; on a cluster only the row indices travel.
        order_t, order_v = np.argsort(node_t, kind="stable"), np.argsort(node_v, kind="stable")
        sorted_t, sorted_v = node_t[order_t], node_v[order_v]
        if cluster is None:
            Xs, ys, Xvs = Xt[order_t], yt[order_t], Xv[order_v]
        work_budget = get_budget()
        jobs, n_reused = [], 0
        for li in np.flatnonzero(needs_svm):
            nd = int(nodes[li])
            tr = slice(*np.searchsorted(sorted_t, [nd, nd + 1]))
            va = slice(*np.searchsorted(sorted_v, [nd, nd + 1]))
            for g in gammas:
                Cs = [C for C, gg in thetas if gg == g]
                todo = [C for C in Cs if (nd, C, g) not in trained]
                n_reused += len(Cs) - len(todo)
                if not todo:
                    continue
                if cluster is None:
                    job = delayed(train_leaf)(Xs[tr], ys[tr], Xvs[va], g, todo, self.multi_class,
                                              self.svm_solver, K, report, work_budget)
                else:
                    job = (order_t[tr], order_v[va], g, todo)
                jobs.append((nd, g, job))
        start = report.done
        if cluster is None:
            # LIBSVM and the Numba SMO (nogil entry points) both release the GIL, so threads share
            # the data for free. A joblib.parallel_backend(...) context (e.g. Dask) overrides this
            # hint. Results come back one job at a time in this thread, which reports them (the
            # jobs report each leaf SVM themselves when they run here, i.e. sequentially); a
            # report that raises ends the loop and joblib drops the jobs not started.
            results = Parallel(n_jobs=self.n_jobs, prefer="threads", return_as="generator")(
                j for _, _, j in jobs)
        else:
            results = self._on_cluster(cluster, [j for _, _, j in jobs], K, work_budget)
        finished = 0
        for (nd, g, _), res in zip(jobs, results):
            for C, svm, p in res:
                trained[(nd, C, g)] = (svm, p)
            finished += len(res)
            report.update(max(report.done, start + finished), report.total)
        # Validation predictions of every θ: leaves without an SVM give their (majority) class.
        sorter = np.argsort(nodes)
        leaf_of_v = sorter[np.searchsorted(nodes[sorter], node_v)]
        pred = np.empty((len(thetas), yv.size), dtype=np.int64)
        pred[:] = label[leaf_of_v][None, :]
        for li in np.flatnonzero(needs_svm):
            rows = np.flatnonzero(leaf_of_v == li)
            for i, (C, g) in enumerate(thetas):
                pred[i, rows] = trained[(int(nodes[li]), C, g)][1]
        # v(σ, θ, ε) for every candidate ε: the majority label in place of the SVM where the
        # leaf's minority share is ≤ ε (no training: the predictions are already there).
        major = label[leaf_of_v] == yv
        by_major = share[leaf_of_v][None, :] <= tols[:, None]  # (ε, rows)
        hit = pred == yv[None, :]
        acc_te = np.where(by_major[None, :, :], major[None, None, :], hit[:, None, :]).mean(axis=2)
        # ties: the largest ε (fewest SVMs)
        tol_idx = tols.size - 1 - np.argmax(acc_te[:, ::-1], axis=1)
        acc = acc_te[np.arange(len(thetas)), tol_idx]
        best = int(np.argmax(acc))
        C_b, g_b = thetas[best]
        eps = tols[tol_idx[best]]
        leaves = []
        for li, nd in enumerate(nodes):
            majority = not homog[li] and share[li] <= eps
            svm = trained[(int(nd), C_b, g_b)][0] if share[li] > eps else None
            leaves.append(TDLeaf(int(nd), int(self.tree_.n_samples[nd]), counts[li].copy(), bool(homog[li]),
                                 int(label[li]) if svm is None else -1, svm, bool(majority)))
        n_unconverged = sum(not trained[(int(nodes[li]), C, g)][0].converged
                            for li in np.flatnonzero(needs_svm) for C, g in thetas)
        level = TDLevel(int(sigma), np.array([C for C, _ in thetas]), np.array([g for _, g in thetas]),
                        acc, best, int(nodes.size), int((~homog).sum()), time.perf_counter() - t0,
                        tols[tol_idx], int(needs_svm.sum()), int(n_reused), int(n_unconverged))
        return level, leaves

    def _on_cluster(self, cluster, jobs, K, work_budget):
        """The results of ``jobs`` (row indices, γ, C values) trained on the cluster's workers
        from the scattered data, yielded in order; the tasks not yet done are cancelled when the
        caller stops reading (a progress callback raised)."""
        Xf, yf, Xvf = cluster.data
        futures = [cluster.client.submit(train_leaf_rows, Xf, yf, Xvf, rows, rows_v, g, todo, self.multi_class,
                                         self.svm_solver, K, work_budget, pure=False)
                   for rows, rows_v, g, todo in jobs]
        try:
            for fut in futures:
                yield fut.result()
        finally:
            cluster.client.cancel(futures)

    # ------------------------------------------------------------------ prediction
    def _route(self, X, sigma=None):
        """(leaf list, leaf position of every row) at ceiling σ (default σ_opt)."""
        if sigma is None:
            sigma, leaves = self.sigma_, self.leaves_
        else:
            leaves = self.level_leaves(sigma)
        nodes = np.array([lf.node for lf in leaves])
        node = self.tree_.apply(X, sigma)
        sorter = np.argsort(nodes)
        return leaves, sorter[np.searchsorted(nodes[sorter], node)]

    def level_leaves(self, sigma) -> list[TDLeaf]:
        """The leaves (with their local SVMs) of a searched ceiling σ of ``search_path_``."""
        for lvl, leaves in zip(self.search_path_, self.levels_):
            if lvl.sigma == sigma:
                return leaves
        raise ParameterError(f"σ = {sigma} was not searched; searched: "
                             f"{[lv.sigma for lv in self.search_path_]}")

    def _scores(self, X, sigma=None):
        K = self.classes_.size
        leaves, pos = self._route(X, sigma)
        S = np.zeros((X.shape[0], K))
        for li in np.unique(pos):
            rows = np.flatnonzero(pos == li)
            lf = leaves[li]
            if lf.svm is None:
                S[rows] = -1.0
                S[rows, lf.label] = 1.0
            else:
                s = scores_from_decision(lf.svm, lf.svm.decision(X[rows]), K)
                finite = np.where(np.isfinite(s), s, np.inf).min(axis=1, keepdims=True)
                S[rows] = np.where(np.isfinite(s), s, finite - 1.0)
        return S

    def decision_function(self, X, sigma=None):
        """Binary: the local SVM's decision value (positive = ``classes_[1]``; ±1 in homogeneous
        leaves). Multi-class: (n, K) scores, one-vs-one votes or one-vs-rest values, whose argmax
        is the prediction. ``sigma`` reads a searched ceiling other than σ_opt."""
        X = self._validate_predict(X)
        if self.classes_.size == 2:
            leaves, pos = self._route(X, sigma)
            out = np.empty(X.shape[0])
            for li in np.unique(pos):
                rows = np.flatnonzero(pos == li)
                lf = leaves[li]
                out[rows] = ((1.0 if lf.label == 1 else -1.0) if lf.svm is None
                             else lf.svm.decision(X[rows])[:, 0])
            return out
        return self._scores(X, sigma)

    def predict(self, X, sigma=None):
        X = self._validate_predict(X)
        return self.classes_[np.argmax(self._scores(X, sigma), axis=1)]

    # ------------------------------------------------------------------ measures of Chang et al. 2009
    def nsv(self, X, sigma=None) -> float:
        """NSV of Chang et al. 2009, §3: the average number of support vectors in the decision function that
        classifies a sample (those of the leaf it flows to; 0 in leaves without an SVM)."""
        X = self._validate_predict(X)
        leaves, pos = self._route(X, sigma)
        per_leaf = np.array([0 if lf.svm is None else lf.svm.n_support for lf in leaves])
        return float(per_leaf[pos].mean()) if X.shape[0] else 0.0

    def leaf_bound_terms(self, X, y) -> list[dict]:
        """Per heterogeneous leaf and binary machine at σ_opt: node, class pair (b = −1: rest),
        β² = ‖w‖² of the local SVM, ‖ξ‖² and Σξ with ξ_j = max(0, 1 − y_j f(x_j)) over the samples
        of (X, y) flowing to the leaf (Chang et al. 2009, §4.2, γ_i = 1)."""
        X = self._validate_predict(X)
        yi = self._label_index(y)
        if yi.shape[0] != X.shape[0]:
            raise DataError(f"X has {X.shape[0]} rows but y has {yi.shape[0]} labels")
        leaves, pos = self._route(X)
        out = []
        for li, lf in enumerate(leaves):
            if lf.svm is not None:
                rows = np.flatnonzero(pos == li)
                out += [dict(node=lf.node, **t) for t in _margin_terms(lf.svm, X[rows], yi[rows])]
        return out

    def bound_terms(self, X, y, with_global=True, progress=None) -> dict:
        """The terms of Chang et al. 2009, §4.3 on the labelled set (X, y) (normally the training data).

        R = Σ_i (ρ²β_i² + ‖ξ_i‖²) over the leaves (ρ = 1 for the RBF kernel; see
        ``leaf_bound_terms``), T₁ = R·log²n, T₂ = L·log(d n L²); with several classes R is the
        average over the binary classifiers (§4.3 (i)). Homogeneous leaves need no SVM: they
        contribute 0 to R. S = ρ²β² + ‖ξ‖² of one global SVM trained on (X, y) with the same
        θ = ``params_`` (as §4.3 compares them), when ``with_global``; ``progress(done, total)``
        is called during its solve (SMO) and when it is done, and may raise to stop it.
        """
        terms = self.leaf_bound_terms(X, y)
        X = self._validate_predict(X)
        n, d = X.shape
        per_pair = {}
        for t in terms:
            per_pair[t["pair"]] = per_pair.get(t["pair"], 0.0) + t["beta2"] + t["xi_sq"]
        R = float(np.mean(list(per_pair.values()))) if per_pair else 0.0
        L = len(self.leaves_)
        out = {"L": L, "R": R, "T1": R * math.log(n) ** 2, "T2": L * math.log(d * n * L ** 2),
               "R_over_L": R / L}
        if with_global:
            limits.check_search_work(limits.machine_factor(self.classes_.size, self.multi_class) * n * n,
                                     f"the global SVM of the bound terms on {n:,} samples",
                                     "use fewer samples (a larger test fraction)")
            yi = self._label_index(y)
            report = _Reporter(progress)
            report.update(0, 1)
            (_, svm, _), = train_leaf(X, yi, X[:0], self.params_["gamma"], [self.params_["C"]],
                                      self.multi_class, self.svm_solver, self.classes_.size, report)
            out["S"] = float(np.mean([t["beta2"] + t["xi_sq"] for t in _margin_terms(svm, X, yi)]))
        return out


class _Reporter:
    """Progress of a fit as ``callback(done, total)`` leaf SVMs, and its cancellation.

    The leaf jobs call ``step()`` after each leaf SVM and ``poll()`` during a long solve. The
    callback runs only in the thread that created the reporter (the one calling ``fit``: a
    Streamlit page's script thread, where Stop raises); jobs in joblib worker threads only
    count. Once the callback has raised, every later ``step``/``poll`` in any thread raises
    ``_Cancelled``, so running workers stop at their next leaf SVM. Pickled (a process or Dask
    worker) it is a silent counter."""

    def __init__(self, callback=None):
        self.callback = callback
        self.done, self.total = 0, 1
        self.cancelled = False
        self._owner = threading.get_ident()
        self._lock = threading.Lock()

    def __getstate__(self):
        return {"callback": None, "done": self.done, "total": self.total, "cancelled": self.cancelled,
                "_owner": None}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def update(self, done: int, total: int) -> None:
        with self._lock:
            self.done, self.total = int(done), int(total)
        self.poll()

    def step(self) -> None:
        with self._lock:
            self.done += 1
        self.poll()

    def poll(self) -> None:
        if self.cancelled:
            raise _Cancelled("the fit was cancelled")
        if self.callback is None or threading.get_ident() != self._owner:
            return
        try:
            self.callback(min(self.done, self.total), self.total)
        except BaseException:
            self.cancelled = True
            raise


class _Cancelled(Exception):
    """Raised in joblib workers after the caller's progress callback raised (never seen by the
    caller, who gets the callback's own exception)."""


def validation_split(y, fraction: float = 0.2, random_state=0) -> tuple[np.ndarray, np.ndarray]:
    """(training rows, validation rows), sorted: the validation component ``fit`` holds out of
    the data it gets when no ``X_val`` is given (stratified when every class allows it). The
    paper's 4 : 1 training : validation ratio is ``fraction`` = 0.2. The rows are those of
    scikit-learn's ``train_test_split(..., random_state=random_state, stratify=y)``
    (``svmviz.data.split_indices``, without importing scikit-learn's model selection for it)."""
    y = np.asarray(y)
    n_val = max(1, int(round(fraction * y.shape[0])))
    if y.shape[0] - n_val < 1:
        raise DataError("too few samples to hold out a validation component")
    try:
        tr, va = split_indices(y, y.shape[0] - n_val, n_val, random_state)
    except DataError:  # a class too small to stratify: split without it
        tr, va = split_indices(None, y.shape[0] - n_val, n_val, random_state)
    return np.sort(tr), np.sort(va)


def _margin_terms(svm: TDLocalSVM, X: np.ndarray, y: np.ndarray) -> list[dict]:
    """β² and the margin slacks of every binary machine of ``svm`` on (X, y) (ρ = 1: RBF)."""
    Ksv = Kernel("rbf", svm.gamma).gram(svm.support_vectors)
    D = svm.decision(X) if X.shape[0] else np.zeros((0, svm.machines.shape[0]))
    out = []
    for j, (a, b) in enumerate(svm.machines):
        c = svm.dual_coef[j]
        m = (y == a) | (y == b) if b >= 0 else np.ones(y.size, dtype=bool)
        yb = np.where(y[m] == a, 1.0, -1.0)
        xi = np.maximum(0.0, 1.0 - yb * D[m, j])
        out.append({"pair": (int(a), int(b)), "beta2": float(c @ Ksv @ c), "xi_sq": float(xi @ xi),
                    "xi_sum": float(xi.sum())})
    return out


def global_svm_search(Xt, yt, Xv, yv, C_grid=C_GRID, gamma_grid=GAMMA_GRID, progress=None,
                      solver: str = "libsvm", multi_class: str = "ovo") -> dict:
    """The gSVM baseline of Chang et al. 2009 (§3): one RBF SVM on the whole training component for every θ of
    the grid, the θ with the best validation accuracy kept (the first of equals, γ-major order).

    ``solver``: "libsvm" (scikit-learn's SVC, the paper's baseline) or a leaf solver of
    ``SVM_SOLVERS`` ("smo": svmviz's SMO through the leaf trainer, sharing the Gram matrix and
    warm starts across C as the leaves do; ``multi_class`` as for the leaves).
    ``progress(done, total)`` is called after each θ, and with "smo" also during a long solve
    (every chunk of SMO iterations); it may raise to stop the search. One LIBSVM fit cannot be
    interrupted: with "libsvm" a stop lands after the θ being fitted.

    Returns {"time_s", "C", "gamma", "val_accuracy", "model"}; ``model`` has ``support_`` and
    ``predict`` (the fitted SVC, or a ``GlobalLeafSVM``).
    """
    if solver not in SVM_SOLVERS:
        raise ParameterError(f"solver must be one of {', '.join(SVM_SOLVERS)}, not {solver!r}")
    t0 = time.perf_counter()
    thetas = [(float(C), float(g)) for g in np.atleast_1d(gamma_grid) for C in np.atleast_1d(C_grid)]
    n, K = len(Xt), np.unique(yt).size
    limits.check_search_work(limits.machine_factor(K, multi_class) * n * n * len(thetas),
                             f"one global SVM on {n:,} samples for each of {len(thetas)} θ",
                             "use a smaller θ grid or fewer samples (a larger test fraction)")
    best = None

    def consider(C, g, acc, model):
        nonlocal best
        if best is None or acc > best["val_accuracy"]:
            best = {"C": C, "gamma": g, "val_accuracy": acc, "model": model}

    if solver == "libsvm":
        from sklearn.svm import SVC

        for i, (C, g) in enumerate(thetas):
            m = SVC(C=C, gamma=g, cache_size=500).fit(Xt, yt)
            consider(C, g, float(np.mean(m.predict(Xv) == yv)), m)
            if progress is not None:
                progress(i + 1, len(thetas))
    else:
        classes, yi = np.unique(yt, return_inverse=True)
        report = _Reporter(progress)
        report.update(0, len(thetas))
        for g in dict.fromkeys(g for _, g in thetas):   # γ in grid order, each once
            Cs = [C for C, gg in thetas if gg == g]
            fitted = {C: (svm, p) for C, svm, p in train_leaf(Xt, yi, Xv, g, Cs, multi_class, solver,
                                                              classes.size, report)}
            for C in Cs:
                svm, p = fitted[C]
                consider(C, g, float(np.mean(classes[p] == yv)), GlobalLeafSVM(svm, classes))
    best["time_s"] = time.perf_counter() - t0
    return best


class GlobalLeafSVM:
    """One ``TDLocalSVM`` trained on the whole training component, with the two things the
    comparison reads of a fitted SVC: ``support_`` (one entry per support vector) and
    ``predict``."""

    def __init__(self, svm: TDLocalSVM, classes: np.ndarray):
        self.svm, self.classes_ = svm, classes
        self.support_ = np.arange(svm.n_support)

    def predict(self, X) -> np.ndarray:
        return self.classes_[np.argmax(self.svm.scores(np.asarray(X, dtype=np.float64), self.classes_.size), axis=1)]
