"""The classroom budget: the most one request of the app may ask for (``svmviz.limits.Budget``).

A classroom server answers every student from one process on a small machine (2 cores): a single
request that allocates gigabytes or computes for minutes stalls everybody. The app runs every page
run (its script thread: ``enter_classroom`` from the state's run hook that every page calls
first), every step (the stepper's fragment), every shared fit and shared result, in whichever
thread it is computed, and so every file load inside this budget, so a link or a file a student
sends is refused before its work starts, with a message saying what to lower. The library and the
command line have no budget of their own.

The numbers keep one request of any page under about a minute of CPU and 2 GB of memory on a
teaching machine while leaving every data set of the papers the pages follow well inside.
"""

from __future__ import annotations

import functools
from contextlib import contextmanager

import streamlit as st

from svmviz.limits import Budget, budget, get_budget, set_budget

#: The bounds of one request, and why each is where it is.
CLASSROOM = Budget(
    # classes of one data set (generated, uploaded, or seen by a classifier)
    classes=100,
    # K(K−1)/2 = 190 at K = 20 classes. The DAG page trains and draws every pair several times
    # (voting, DAG, weighted DAG); at 32 classes (496 pairs) one request took over 90 s of CPU.
    pairwise=190,
    features=1_000,
    # the SVM tree's zero-solution LPs grow with about d² per sample and are solved at every node
    tree_lp_work=200_000_000,
    support_vectors=20_000,
    # 20 million float64 values are 160 MB
    grid_values=20_000_000,
    grid_kernel=400_000_000,
    # C = 10⁴, γ = 10³ on 14,000 samples took about a minute of SMO
    solver_samples=10_000,
    # Σ (samples of each SVM)² over the SVMs a (C, γ) search may train. SMO costs about 0.2–1.5 µs
    # per unit there, more for larger and overlapping problems and the grid's largest C and γ: on
    # the Tree decomposition page the paper's 7 × 9 grid with a global comparison on 784 samples of
    # overlapping classes (39 million units, and 8 million of search) took 66 s of CPU; at 25
    # million the worst link found took under 40 s. The paper's grid and comparison on fourclass
    # (483 samples train the search: 14.7 million) stay inside.
    search_work=25_000_000,
    # the guard vectors' m × m paths: float64 72 MB and 32 MB, plus an O(m³) eigendecomposition
    # for the kernel map
    tau_delta_samples=3000,
    kernel_map_samples=2000,
    # a dense table larger than this (samples × features) would not fit a teaching machine's memory
    cells=20_000_000,
    # 2,000,000 float64 cells are 16 MB; a product of counts (classes × points per class, points ×
    # dimensions) is refused above it before anything is allocated
    generated_count=20_000,
    generated_cells=2_000_000,
    # a 50 MB model document took 1.7 GB and 21 s to parse
    model_mb=20,
)


def upload_mb() -> float:
    """The server's upload limit (``server.maxUploadSize`` of ``.streamlit/config.toml``): a data or
    lesson file read by the app, uploaded or not, is held to the same size."""
    return float(st.get_option("server.maxUploadSize"))


def classroom_budget() -> Budget:
    """``CLASSROOM`` with the server's upload limit as its file size."""
    return CLASSROOM.replace(file_mb=upload_mb())


def enter_classroom() -> None:
    """Put the classroom budget in force for the rest of this script run. Streamlit runs a
    session's script in a thread of its own, which starts with the library's default budget."""
    wanted = classroom_budget()
    if get_budget() != wanted:
        set_budget(wanted)


@contextmanager
def classroom():
    """Run the body (a page run, a fragment run, a shared fit) inside the classroom budget."""
    with budget(classroom_budget()) as b:
        yield b


def within_classroom(fn):
    """``fn`` run inside the classroom budget, wherever it is called from (a fragment rerun runs
    only its function, not ``app.py``)."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        with classroom():
            return fn(*args, **kwargs)
    return run
