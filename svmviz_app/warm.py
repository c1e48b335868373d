"""Warming the server process, so the pages opened next do not pay for what only a new process
pays: importing scikit-learn, SciPy, cvxpy and the library's estimators (about 2-3 s of CPU), and
loading the SMO solver's Numba machine code from Numba's on-disk cache (about 0.5 s), or compiling
it when there is no cache yet (a fresh checkout or a new Numba: about 30 s).

One daemon thread per process does it, started by the first call of ``start()``: as the server
starts (``server.lifespan``, when served by ``streamlit run serve.py``), before anyone opens a
page; otherwise by the first script run (``server.configure`` at the start of every run), after
which it waits for that run to end (every Streamlit run is a thread of its own) so the first page
gets the CPU first. It imports what the method pages use and fits every registered estimator once
on small generated data, then says so on the server's standard output. The fits go through the same
code as a page's, so each Numba function is loaded with the argument types a page uses; a page fit
that starts meanwhile waits for Numba's lock, as it would for its own compilation. Warming changes
no process-wide setting (not the warnings filters: a thread cannot change them for itself alone)
and a failure is only logged: the page that needs the part that failed pays for it, and reports it,
as without warming.

A script run never imports while the thread imports: ``wait_for_imports`` (``server.configure``, the
first thing every run does) holds it back until the thread's imports are done. Two threads importing
the same packages at once can deadlock on Python's per-module import locks, and Python breaks the
deadlock by handing one thread a module still being initialised: the page then fails with
"partially initialized module 'pandas' has no attribute 'Series'". Started as the server starts,
the thread holds the gate from its start, so a page opened in the first instant waits too (for the
imports only, about 2 s of CPU; the estimator fits that follow take Numba's own lock). Started by a
first run (``streamlit run app.py``), it takes the gate once that run has ended; a run of another
session that began before then and is still importing is not held back.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
import threading
import time

THREAD_NAME = "svmviz-warm"
READY = "svmviz: the method pages' libraries and solvers are loaded"
WARMING = ("svmviz: getting the method pages ready in the background (their libraries and the SMO solvers' "
           "compiled code: seconds, or about a minute on a new installation's first start); a page opened "
           "meanwhile works, only more slowly")
FIRST_RUN_WAIT_S = 60.0   # a first run still going after this long is a long fit: warm beside it

# What the method pages import beyond the home page (every plot module among them): a method
# page's first visit then imports nothing heavy. ``svmviz.export.models`` loads every estimator
# (``svmviz.models`` loads each at its first use); scikit-learn's metrics, model selection, SVC and
# K-means are imported where a view or an option uses them.
MODULES = ("sklearn.base", "svmviz.export.models", "svmviz.geometry", "cvxpy", "svmviz_app.frame", "sklearn.metrics",
           "sklearn.model_selection", "sklearn.svm", "sklearn.cluster")
PLOTS = "svmviz.plots"

_lock = threading.Lock()
_thread: threading.Thread | None = None
_imports = threading.Lock()    # the gate: held while the warming thread imports (see the module's notes)


def start(after: threading.Thread | None = None) -> threading.Thread:
    """The process's warming thread, started at the first call; it waits for ``after`` (a script
    run) to end first, at most ``FIRST_RUN_WAIT_S``. Later calls return the same thread."""
    global _thread
    with _lock:
        if _thread is None:
            if after is None:
                _imports.acquire()    # released by the thread (a Lock, not an RLock, allows that)
            _thread = threading.Thread(target=_warm_after, args=(after,), name=THREAD_NAME, daemon=True)
            _thread.start()
            print(f"  {WARMING}", flush=True)
        return _thread


def wait_for_imports() -> None:
    """Return once the warming thread is not importing (at once when it is not)."""
    if _thread is not None and threading.current_thread() is not _thread:
        with _imports:
            pass


def _warm_after(run: threading.Thread | None) -> None:
    if run is not None:
        run.join(FIRST_RUN_WAIT_S)
        _imports.acquire()
    warm(gate_held=True)


def warm(gate_held: bool = False) -> bool:
    """Import ``MODULES`` and every plot module, and fit each registered estimator once on small
    data (see the module's notes); then print ``READY`` and the thread's CPU seconds. A failure is
    logged, not raised; returns whether it worked. ``gate_held``: the caller holds the imports' gate,
    which is released once the imports are done."""
    cpu0 = time.thread_time()
    try:
        try:
            import_modules()
        finally:
            if gate_held:
                _imports.release()
        fit_each_estimator()
    except Exception:       # noqa: BLE001 - warming is an optimisation; the page that needs it reports errors
        logging.getLogger(__name__).warning("warming the server failed; the first page that fits pays for it",
                                            exc_info=True)
        return False
    print(f"  {READY} ({time.thread_time() - cpu0:.1f} s of CPU)", flush=True)
    return True


def import_modules() -> None:
    """Import ``MODULES`` and every plot module."""
    for name in MODULES:
        importlib.import_module(name)
    plots = importlib.import_module(PLOTS)
    for info in pkgutil.iter_modules(plots.__path__, f"{PLOTS}."):
        importlib.import_module(info.name)


def fit_each_estimator() -> None:
    """Every registered estimator fitted with its defaults on small generated data: the two-class
    ones on a separable set (the guard vectors' default is the hard-margin SVM), the multi-class
    ones on three overlapping classes (every cluster of the weighted DAG holds every
    class); the C-SVM and the ν-SVM also above the size where SMO switches from a dense Q to
    cached kernel columns, and with recorded iterations (the Solvers page's stepper)."""
    from svmviz.data.generators import gaussians_on_circle
    from svmviz.models import ESTIMATORS, BinaryNuSVC, BinarySVC, param_spec

    def circle(k, n, spacing):
        return gaussians_on_circle(n_classes=k, n_per_class=n, spacing=spacing, seed=0)

    apart, mixed, big = circle(2, 30, 4.0), circle(3, 30, 0.05), circle(2, 350, 4.0)
    for cls in ESTIMATORS.values():
        if cls().__sklearn_tags__().classifier_tags.multi_class:
            cls().fit(mixed.X, mixed.y)
        else:
            cls().fit(apart.X, apart.y)
    for kernel in param_spec(BinarySVC, "kernel"):   # every kernel the pages offer
        BinarySVC(kernel=kernel).fit(big.X, big.y)
        BinarySVC(kernel=kernel, trace=True).fit(apart.X, apart.y)
        BinaryNuSVC(kernel=kernel).fit(big.X, big.y)
