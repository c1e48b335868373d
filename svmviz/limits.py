"""The work one request may ask for, stated and checked before the work starts.

A classroom server answers every student from one process: a single request that allocates
gigabytes or computes for minutes stalls everybody. Each bound below is checked by the function
that would do the work, before it allocates anything large, and the ``ProblemTooLargeError`` it
raises says which number to lower. The bounds are module attributes read at call time, so a
script that knowingly wants more (a benchmark on a workstation) can raise them.

The numbers keep one request of any page under about a minute of CPU and 2 GB of memory on a
teaching machine while leaving every data set of the papers the pages follow well inside.
"""

from __future__ import annotations

from svmviz.errors import ProblemTooLargeError

#: Classes of one data set (generated, uploaded, or seen by a classifier).
MAX_CLASSES = 100
#: Binary machines of a one-vs-one scheme (DAG / weighted DAG SVM, the SVM tree's pairwise
#: nodes): K(K−1)/2 = 190 at K = 20 classes. The DAG page trains and draws every pair several
#: times (voting, DAG, weighted DAG); at 32 classes (496 pairs) one request took over 90 s of CPU.
MAX_PAIRWISE = 190
#: Features a classifier is trained on.
MAX_FEATURES = 1_000
#: Samples × features² of the SVM tree's zero-solution linear programs (their work grows with
#: about d² per sample and they are solved at every node).
MAX_TREE_LP_WORK = 200_000_000
#: Support vectors (rows of stored training points) of one imported model.
MAX_SUPPORT_VECTORS = 20_000
#: Values computed on a decision grid: grid points × values per point (classes, or class
#: pairs for a pairwise decision); 20 million float64 values are 160 MB.
MAX_GRID_VALUES = 20_000_000
#: Kernel evaluations of one grid picture: grid points × support vectors.
MAX_GRID_KERNEL = 400_000_000
#: Training samples of one quadratic program solved by SMO (C = 10⁴, γ = 10³ on 14,000 samples
#: took about a minute).
MAX_SOLVER_SAMPLES = 10_000
#: (Samples per SVM)² × θ of a search over a (C, γ) grid of RBF SVMs: Σ (samples of each SVM)²
#: over the SVMs it may train, a leaf at ceiling σ counted with its samples, every machine of a
#: multi-class SVM counted. The tree decomposition's search (Chang et al. 2009 §2.2), the global
#: SVM it is compared with and its bound terms are checked alike. SMO costs about 0.2–1.5 µs per
#: unit there, more for larger and overlapping problems and the grid's largest C and γ: on the
#: Tree decomposition page the paper's 7 × 9 grid with a global comparison on 784 samples of
#: overlapping classes (39 million units, and 8 million of search) took 66 s of CPU; at 25
#: million the worst link found took under 40 s. The paper's grid and comparison on fourclass
#: (483 samples train the search: 14.7 million) stay inside.
MAX_SEARCH_WORK = 25_000_000


def _refuse(what: str, amount: int, bound: int, advice: str) -> None:
    raise ProblemTooLargeError(f"{what}: {amount:,} is more than the {bound:,} one request may "
                               f"ask for; {advice}")


def check_classes(n_classes: int, what: str = "the data") -> None:
    """At most ``MAX_CLASSES`` classes."""
    if n_classes > MAX_CLASSES:
        _refuse(f"{what} has too many classes", n_classes, MAX_CLASSES,
                "use fewer classes (merge or drop some)")


def n_pairs(n_classes: int) -> int:
    return n_classes * (n_classes - 1) // 2


def check_pairwise(n_classes: int, what: str = "a one-vs-one classifier") -> None:
    """At most ``MAX_PAIRWISE`` pairwise machines for ``n_classes`` classes."""
    pairs = n_pairs(n_classes)
    if pairs > MAX_PAIRWISE:
        k = max_classes_for_pairs(MAX_PAIRWISE)
        _refuse(f"{what} on {n_classes} classes needs K(K−1)/2 pairwise SVMs", pairs, MAX_PAIRWISE,
                f"use at most {k} classes")


def max_classes_for_pairs(pairs: int) -> int:
    k = 2
    while n_pairs(k + 1) <= pairs:
        k += 1
    return k


def check_features(n_features: int, what: str = "the data") -> None:
    """At most ``MAX_FEATURES`` features."""
    if n_features > MAX_FEATURES:
        _refuse(f"{what} has too many features", n_features, MAX_FEATURES,
                "use fewer features (select some, or a PCA projection)")


def check_tree_lp_work(n_samples: int, n_features: int, what: str = "the SVM tree") -> None:
    """At most ``MAX_TREE_LP_WORK`` samples × features² for the zero-solution programs."""
    work = n_samples * n_features ** 2
    if work > MAX_TREE_LP_WORK:
        _refuse(f"{what} on {n_samples:,} samples × {n_features:,} features solves linear programs "
                "of samples × features² work", work, MAX_TREE_LP_WORK,
                "use fewer samples or fewer features")


def check_support_vectors(n_vectors: int, what: str = "the model") -> None:
    """At most ``MAX_SUPPORT_VECTORS`` stored training points in an imported model."""
    if n_vectors > MAX_SUPPORT_VECTORS:
        _refuse(f"{what} stores too many support vectors", n_vectors, MAX_SUPPORT_VECTORS,
                "train it on fewer samples (or with a smaller C) before loading it here")


def check_grid(n_points: int, per_point: int, what: str = "the decision grid") -> None:
    """At most ``MAX_GRID_VALUES`` grid points × values per point."""
    if n_points * per_point > MAX_GRID_VALUES:
        _refuse(f"{what} needs {n_points:,} grid points × {per_point:,} values", n_points * per_point,
                MAX_GRID_VALUES, "use fewer classes, or a coarser grid")


def check_grid_kernel(n_points: int, n_vectors: int, what: str = "the decision grid") -> None:
    """At most ``MAX_GRID_KERNEL`` kernel values between grid points and support vectors."""
    if n_points * n_vectors > MAX_GRID_KERNEL:
        _refuse(f"{what} needs {n_points:,} grid points × {n_vectors:,} support vectors kernel values",
                n_points * n_vectors, MAX_GRID_KERNEL, "use a model with fewer support vectors")


def check_solver_size(n_samples: int, what: str = "the SVM") -> None:
    """At most ``MAX_SOLVER_SAMPLES`` training samples in one quadratic program."""
    if n_samples > MAX_SOLVER_SAMPLES:
        _refuse(f"{what} would be trained on {n_samples:,} samples", n_samples, MAX_SOLVER_SAMPLES,
                "use a larger test fraction or a sample of the data")


def machine_factor(n_classes: int, multi_class: str = "ovo") -> float:
    """Σ (machine samples)² of one multi-class SVM over (its samples)²: 1 for two classes, at
    most 2 for one-vs-one (K(K−1)/2 pairs on about 2n/K samples each), K for one-vs-rest."""
    if n_classes <= 2:
        return 1.0
    return 2.0 if multi_class == "ovo" else float(n_classes)


def check_search_work(work: float, what: str, advice: str) -> None:
    """At most ``MAX_SEARCH_WORK`` sample pairs × θ for a grid search of RBF SVMs."""
    if work > MAX_SEARCH_WORK:
        _refuse(f"{what} needs (samples per SVM)² × θ of training", int(work), MAX_SEARCH_WORK, advice)
