"""The tree decomposition (TD) of Chang, Guo, Lin and Lu (2009) against one global RBF SVM
(scikit-learn's SVC = LIBSVM) trained on the same training component TD trains on.

Protocol (every part): the paper's 4 : 1 : 1 split (§3) into training, validation and test
components. TD trains on the training component and chooses (σ, θ[, ε]) on the validation
component; the global SVM is trained on the same training component for every θ of the same grid
and keeps the θ with the best validation accuracy. Times include the validation predictions.
Every time is the minimum over ``--reps`` (≥ 3) runs, the methods interleaved within each round,
as process CPU time (``time.process_time``: robust on a shared machine) and wall time, BLAS pinned
to one thread (``harness.py``).

Parts (``--parts``, comma-separated):

- ``noisy``: 30,000 2-D points with large one-class regions and 1 % label noise (``noisy_regions``),
  3 × 3 grid and θ fixed at the global SVM's best; TD as in the paper, with ``max_stages=1`` and with
  ``purity_tol`` candidates (0.02, 0.05, 0.1) chosen on validation (extensions, see
  ``TreeDecompositionSVC``). The aim of the extensions: TD with purity_tol ≥ 8× less CPU than the
  global SVM, test accuracy within 0.3 points.
- ``parallel``: wall time of the same TD fit with ``n_jobs=1``, ``n_jobs=2`` and a Dask
  LocalCluster (2 worker processes × 1 thread, ``fit(client=...)``: data scattered once) on
  ``--parallel-n`` noisy points, and the peak RSS of each worker process.
- ``million``: 1,000,000 noisy points through a Dask LocalCluster (threads in this process, so the
  peak RSS below is the whole run's; run this part alone for a clean figure); against the best
  global SVM affordable on a subsample of the training component (θ from the grid on 20,000
  points, then trained on ``--million-sub`` points).
- ``cluster``: ``--cluster-n`` (10⁶) generated samples × 41 features × 5 classes through a
  LocalCluster of 2 worker processes against the same fit in this process: wall and CPU time, peak
  RSS per process, leaf tasks per worker, same predictions (run this part alone).
- ``paper``: the paper's comparison (full 7 × 9 grid on fourclass and digits, 3 × 3 above 20,000).
- ``table1``: generated sets with the shapes (samples × features × classes) of the paper's Table 1
  (``--shapes``: phw, letter, shuttle, census, kdd10, forest), features scaled to [0, 1] as §3
  (``--table1-data``: ``regions``, one-class regions with labels mixed only near their boundaries,
  ``svmviz.data.generators.tabular_regions`` at its defaults; ``clusters``, ``shaped_set``'s Gaussian
  clusters with 1 % of the labels flipped anywhere), TD as
  in the paper (σ₀ = 1,500, growth 4, top 5, the 7 × 9 θ grid unless ``--table1-grid reduced``),
  one-against-one and one-against-others (``--schemes``), against scikit-learn's SVC over the same
  grid when its search finishes within ``--global-limit-s`` (else "not finished" with the θ it
  reached); speed-up, NSV ratio and test accuracy printed beside the paper's Tables 2–11, and the
  process's peak RSS, the share of training samples in homogeneous leaves beside the paper's
  Table 12, and TD's search path (per σ_t: leaves, leaves with an SVM, largest leaf, stage CPU s).
  The sets are not the paper's data (only their shapes): the figures say how TD scales, not what it
  scores on PHW or Forest.

    python benchmarks/bench_td.py                         # noisy, parallel, million
    python benchmarks/bench_td.py --parts noisy --reps 3
    python benchmarks/bench_td.py --parts paper --sets fourclass,digits
    python benchmarks/bench_td.py --parts table1 --shapes phw,letter --schemes ovo,ovr
    python benchmarks/bench_td.py --parts table1 --shapes forest --schemes ovo --global-limit-s 0
"""

from __future__ import annotations

import argparse
import os
import resource
import sys

import numpy as np

import harness
from harness import timed

sys.path.insert(0, str(harness.ROOT))

from svmviz.data import load_builtin  # noqa: E402
from svmviz.data.generators import shuttle_like, tabular_regions  # noqa: E402
from svmviz.models import TreeDecompositionSVC  # noqa: E402
from svmviz.models.tree_decomposition import C_GRID, GAMMA_GRID, global_svm_search  # noqa: E402

# A reduced grid for n ≥ 20,000 (a global LIBSVM fit per θ takes seconds to minutes there).
REDUCED = dict(C_grid=(1.0, 10.0, 100.0), gamma_grid=(1.0, 10.0, 100.0))
FULL = dict(C_grid=C_GRID, gamma_grid=GAMMA_GRID)
PURITY = (0.02, 0.05, 0.1)
PAPER_CLAIM = ("Chang, Guo, Lin and Lu (2009), Tables 3/8: TD speed-up ×4.33 (PHW, 1A1) "
               "to ×3,691 (KDD CUP 10%, 1A1) "
              "[×5,775 in 1AO] at test accuracy within ~0.5 points of the global SVM "
              "(Tables 4/9); NSV ratio up to ×2,433 (Shuttle, 98 % homogeneous)")


def noisy_regions(n: int, noise: float = 0.01, seed: int = 0):
    """``shuttle_like`` with ``noise`` of the labels flipped: the regions stay large, but no leaf of
    hundreds of samples is exactly homogeneous any more."""
    ds = shuttle_like(n, noise=noise, seed=seed)
    return ds.X, ds.y


def hard_checkerboard(n: int, cells: int = 6, angle: float = 0.5, noise: float = 0.02, seed: int = 0):
    """2-D, two classes: a cells × cells checkerboard rotated by ``angle`` rad (so no axis-aligned
    split isolates a field) with ``noise`` of the labels flipped: no large homogeneous region."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2))
    c, s = np.cos(angle), np.sin(angle)
    U = X @ np.array([[c, -s], [s, c]])
    y = ((np.floor((U[:, 0] + 1.5) * cells / 3) + np.floor((U[:, 1] + 1.5) * cells / 3)) % 2).astype(int)
    flip = rng.random(n) < noise
    y[flip] = 1 - y[flip]
    return X, y


def split_411(X, y, seed=0):
    """4 : 1 : 1 shuffled split (Chang, Guo, Lin and Lu 2009, §3)."""
    idx = np.random.default_rng(seed).permutation(X.shape[0])
    a, b = 4 * X.shape[0] // 6, 5 * X.shape[0] // 6
    t, v, s = idx[:a], idx[a:b], idx[b:]
    return X[t], y[t], X[v], y[v], X[s], y[s]


def interleaved(methods: dict, reps: int) -> dict:
    """``harness.interleaved`` as {name: {"cpu", "wall", "result"}}: every method ``reps`` times,
    interleaved in each round; the minimum CPU and wall time and the last result."""
    return {k: {"cpu": t.cpu, "wall": t.wall, "result": t.result}
            for k, t in harness.interleaved(methods, reps).items()}


def warm_up():
    ds = shuttle_like(400)
    X, y = ds.X, ds.y
    for solver in ("smo", "libsvm"):
        TreeDecompositionSVC(C_grid=(1.0,), gamma_grid=(1.0,), svm_solver=solver).fit(X, y)


# ------------------------------------------------------------------------------ part: noisy
def part_noisy(args):
    X, y = noisy_regions(30000)
    Xt, yt, Xv, yv, Xs, ys = split_411(X, y)
    print(f"\n== noisy regions: n = 30,000 (2-D, 1 % label noise), training {yt.size} / validation "
          f"{yv.size} / test {ys.size}; min of {args.reps} runs, interleaved; TD leaves: LIBSVM, n_jobs=1")
    head = (f"{'θ grid':<14}{'method':<34}{'cpu s':>8}{'wall s':>8}{'cpu ×':>7}{'test %':>8}{'Δ pts':>7}"
            f"{'NSV':>8}{'homog':>7}{'major':>7}{'σ':>6}{'ε':>6}{'θ (C, γ)':>14}")
    lines = []

    def td(**kw):
        return lambda: TreeDecompositionSVC(svm_solver="libsvm", n_jobs=1, **kw).fit(Xt, yt, X_val=Xv, y_val=yv)

    def run(grid, gname):
        methods = {"global SVM (LIBSVM, same training part)": lambda: global_svm_search(Xt, yt, Xv, yv, **grid),
                   "TD (paper: search over σ)": td(**grid),
                   "TD max_stages=1": td(**grid, max_stages=1),
                   f"TD purity_tol={PURITY}": td(**grid, purity_tol=PURITY),
                   "TD purity_tol + max_stages=1": td(**grid, purity_tol=PURITY, max_stages=1)}
        res = interleaved(methods, args.reps)
        g = res.pop("global SVM (LIBSVM, same training part)")
        gm = g["result"]["model"]
        g_acc = 100 * np.mean(gm.predict(Xs) == ys)
        args.record.row(part="noisy", grid=gname, method="global SVM (LIBSVM, same training part)", cpu=g["cpu"],
                        wall=g["wall"], accuracy=g_acc, support_vectors=gm.support_.size, C=g["result"]["C"],
                        gamma=g["result"]["gamma"])
        rows = [(f"{gname:<14}{'global SVM (LIBSVM, same training part)':<34}{g['cpu']:>8.2f}{g['wall']:>8.2f}"
                 f"{'1.0':>7}{g_acc:>8.2f}{'':>7}{gm.support_.size:>8}{'':>7}{'':>7}{'':>6}{'':>6}"
                 f"{'(%g, %g)' % (g['result']['C'], g['result']['gamma']):>14}")]
        for name, r in res.items():
            m = r["result"]
            acc = 100 * np.mean(m.predict(Xs) == ys)
            args.record.row(part="noisy", grid=gname, method=name, cpu=r["cpu"], wall=r["wall"], accuracy=acc,
                            nsv=m.nsv(Xs), homogeneous=m.homogeneous_fraction_, majority=m.majority_fraction_,
                            sigma=m.sigma_, purity_tol=m.purity_tol_, C=m.params_["C"], gamma=m.params_["gamma"])
            rows.append(f"{gname:<14}{name:<34}{r['cpu']:>8.2f}{r['wall']:>8.2f}{g['cpu'] / r['cpu']:>7.1f}"
                        f"{acc:>8.2f}{acc - g_acc:>7.2f}{m.nsv(Xs):>8.1f}{100 * m.homogeneous_fraction_:>6.1f}%"
                        f"{100 * m.majority_fraction_:>6.1f}%{m.sigma_:>6}{m.purity_tol_:>6.2g}"
                        f"{'(%g, %g)' % (m.params_['C'], m.params_['gamma']):>14}")
        for r in rows:
            print(r, flush=True)
        lines.extend(rows)
        return g["result"]

    print(head)
    best = run(REDUCED, "3×3")
    fixed = dict(C_grid=(best["C"],), gamma_grid=(best["gamma"],))
    run(fixed, "fixed θ")
    print("\ncpu × = global SVM CPU / TD CPU; Δ pts = TD − global test accuracy; NSV = SVs per test sample; "
          "homog / major = training samples in homogeneous / majority-labelled leaves; fixed θ = the "
          "global SVM's best θ of the 3×3 grid. Target of the extensions: TD with purity_tol ≥ 8× less CPU, "
          "|Δ| ≤ 0.3 points.")
    print(head)
    print("\n".join(lines))


# ------------------------------------------------------------------------------ part: parallel
def part_parallel(args):
    from distributed import Client, LocalCluster

    X, y = noisy_regions(args.parallel_n)
    Xt, yt, Xv, yv, Xs, ys = split_411(X, y)
    kw = dict(svm_solver="libsvm", max_stages=1, **REDUCED)
    print(f"\n== parallel leaf training: n = {args.parallel_n:,} noisy points, TD as in the paper "
          f"(every heterogeneous leaf trained), 3×3 grid, σ₀ only; "
          f"wall time, min of {args.reps}; {os.cpu_count()} cores shared with other jobs")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl, \
            Client(cl) as client:
        def dask_fit():   # the training data scattered once, the leaves on the two worker processes
            return TreeDecompositionSVC(**kw).fit(Xt, yt, X_val=Xv, y_val=yv, client=client)

        res = interleaved({"n_jobs=1": lambda: TreeDecompositionSVC(**kw, n_jobs=1).fit(Xt, yt, X_val=Xv, y_val=yv),
                           "n_jobs=2 (threads)": lambda: TreeDecompositionSVC(**kw, n_jobs=2).fit(Xt, yt, X_val=Xv, y_val=yv),
                           "Dask LocalCluster 2×1": dask_fit}, args.reps)
        worker_mb = client.run(_rss_mb)
    print("peak RSS per Dask worker process (MB): " + ", ".join(f"{v:.0f}" for v in worker_mb.values())
          + f"; this process: {_rss_mb():.0f}")
    args.record.note(worker_peak_rss_mb=list(worker_mb.values()))
    base = res["n_jobs=1"]["wall"]
    ref = res["n_jobs=1"]["result"].predict(Xs)
    print(f"{'backend':<24}{'wall s':>8}{'speed-up':>10}{'main cpu s':>12}{'leaves':>8}{'same predictions':>18}")
    for name, r in res.items():
        m = r["result"]
        same = bool(np.array_equal(m.predict(Xs), ref))
        args.record.row(part="parallel", backend=name, wall=r["wall"], cpu=r["cpu"],
                        leaves=m.search_path_[0].n_trained, same_predictions=same)
        print(f"{name:<24}{r['wall']:>8.2f}{base / r['wall']:>10.2f}{r['cpu']:>12.2f}"
              f"{m.search_path_[0].n_trained:>8}{str(same):>18}")


# ------------------------------------------------------------------------------ part: million
def _rss_mb():
    """Peak resident memory of this process in MB: Linux's VmHWM, the high-water mark of the
    process's own memory map (``ru_maxrss`` of a worker spawned by a large process starts at the
    parent's size before the exec), else ``ru_maxrss``."""
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def part_million(args):
    import joblib
    from distributed import Client, LocalCluster
    from sklearn.svm import SVC

    n = args.million_n
    X, y = noisy_regions(n)
    Xt, yt, Xv, yv, Xs, ys = split_411(X, y)
    print(f"\n== {n:,} noisy points through Dask (LocalCluster: 1 worker × 2 threads in this process): "
          f"training {yt.size:,} / validation {yv.size:,} / test {ys.size:,}; 3×3 grid; one run each")
    rows = []
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cl, \
            Client(cl), joblib.parallel_backend("dask"):
        runs = [("TD purity_tol, σ₀ only", dict(purity_tol=PURITY, max_stages=1)),
                ("TD purity_tol (search over σ)", dict(purity_tol=PURITY))]
        if args.million_paper_td:  # every noisy leaf trained: > 20 min on 2 shared cores (not finished)
            runs.append(("TD (paper), σ₀ only", dict(max_stages=1)))
        for name, kw in runs:
            m, cpu, wall = timed(lambda: TreeDecompositionSVC(svm_solver="libsvm", **REDUCED, **kw)
                                 .fit(Xt, yt, X_val=Xv, y_val=yv))
            (acc, pt, _) = timed(lambda: 100 * np.mean(m.predict(Xs) == ys))
            rows.append((name, wall, cpu, acc, m.nsv(Xs[:20000]), _rss_mb(),
                         f"σ={m.sigma_}, C={m.params_['C']:g}, γ={m.params_['gamma']:g}, ε={m.purity_tol_:g}, "
                         f"{m.search_path_[-1].n_trained} SVM leaves, predict {pt:.1f} s"))
            print(rows[-1], flush=True)
    # The best global SVM affordable: θ by the grid on 20,000 training points, then one fit on
    # the largest subsample the time budget allows.
    sub = np.random.default_rng(0).permutation(yt.size)
    small = sub[:20000]
    gs, cpu_g, wall_g = timed(lambda: global_svm_search(Xt[small], yt[small], Xv[:50000], yv[:50000], **REDUCED))
    rows.append(("global SVM 20k (grid)", wall_g, cpu_g, 100 * np.mean(gs["model"].predict(Xs) == ys),
                 gs["model"].support_.size, _rss_mb(), f"C={gs['C']:g}, γ={gs['gamma']:g}"))
    print(rows[-1], flush=True)
    big = sub[:args.million_sub]
    g, cpu_b, wall_b = timed(lambda: SVC(C=gs["C"], gamma=gs["gamma"], cache_size=500).fit(Xt[big], yt[big]))
    acc_b, pt, _ = timed(lambda: 100 * np.mean(g.predict(Xs) == ys))
    rows.append((f"global SVM {args.million_sub // 1000}k", wall_b, cpu_b, acc_b, g.support_.size, _rss_mb(),
                 f"at the 20k grid's θ, predict {pt:.1f} s"))
    print()
    print(f"{'method':<32}{'wall s':>8}{'cpu s':>8}{'test %':>8}{'NSV':>9}{'peak RSS MB':>12}  notes")
    for name, wall, cpu, acc, nsv, rss, note in rows:
        args.record.row(part="million", method=name, wall=wall, cpu=cpu, accuracy=acc, nsv=nsv, rss_mb=rss, note=note)
        print(f"{name:<32}{wall:>8.1f}{cpu:>8.1f}{acc:>8.2f}{nsv:>9.1f}{rss:>12.0f}  {note}")
    print("cpu s counts this process (the Dask worker threads run in it); peak RSS = the process's maximum "
          "so far (cumulative down the table).")


# ------------------------------------------------------------------------------ part: cluster
def part_cluster(args):
    """``--cluster-n`` × 41 × 5 (KDD CUP's features and classes) through a LocalCluster of two
    worker processes (one thread each, data scattered once), against the same fit in this process:
    time, peak RSS per process, leaf tasks per worker, and whether the predictions are the same."""
    import time

    from distributed import Client, LocalCluster, get_task_stream

    n = args.cluster_n
    X, y = shaped_set(n, 41, 5)
    Xt, yt, Xv, yv, Xs, ys = split_411(X, y)
    del X, y
    kw = dict(svm_solver="libsvm", max_stages=1, **REDUCED)
    print(f"\n== {n:,} × 41 × 5 (generated, KDD CUP's shape): training {yt.size:,} / validation {yv.size:,} "
          f"/ test {ys.size:,}; TD σ₀ 1,500 only, 3×3 grid, LIBSVM leaves; one run each", flush=True)
    local = pred_l = cpu_l = wall_l = None
    if not args.cluster_only:
        c0, w0 = time.process_time(), time.perf_counter()
        local = TreeDecompositionSVC(**kw, n_jobs=1).fit(Xt, yt, X_val=Xv, y_val=yv)
        cpu_l, wall_l = time.process_time() - c0, time.perf_counter() - w0
        pred_l = local.predict(Xs)
        print(f"in process (n_jobs=1): {cpu_l:.1f} s CPU, {wall_l:.1f} s wall, test "
              f"{100 * np.mean(pred_l == ys):.2f} %, {local.search_path_[0].n_trained} SVM leaves, "
              f"peak RSS {_rss_mb():.0f} MB", flush=True)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cl, Client(cl) as client:
        c0, w0 = time.process_time(), time.perf_counter()
        with get_task_stream(client) as ran:
            remote = TreeDecompositionSVC(**kw).fit(Xt, yt, X_val=Xv, y_val=yv, client=client)
        cpu_main, wall_r = time.process_time() - c0, time.perf_counter() - w0
        worker_cpu = client.run(lambda: time.process_time())
        worker_mb = client.run(_rss_mb)
    leaf_tasks = [t for t in ran.data if "train_leaf" in str(t["key"])]
    per_worker = {w: sum(t["worker"] == w for t in leaf_tasks) for w in worker_mb}
    pred_r = remote.predict(Xs)
    same = None if local is None else bool(np.array_equal(pred_r, pred_l))
    ref = "not run" if local is None else f"σ {local.sigma_}, θ {local.params_}"
    print(f"LocalCluster 2 processes × 1 thread: {wall_r:.1f} s wall, this process {cpu_main:.1f} s CPU, workers "
          f"{', '.join(f'{v:.1f}' for v in worker_cpu.values())} s CPU (whole life); leaf tasks per worker "
          f"{', '.join(str(v) for v in per_worker.values())}; peak RSS per worker "
          f"{', '.join(f'{v:.0f}' for v in worker_mb.values())} MB, this process {_rss_mb():.0f} MB; "
          f"σ {remote.sigma_}, θ {remote.params_}, test {100 * np.mean(pred_r == ys):.2f} % "
          f"(in process: {ref}); same test predictions: {same}")
    args.record.row(part="cluster", n=n, local_cpu=cpu_l, local_wall=wall_l, cluster_wall=wall_r,
                    cluster_main_cpu=cpu_main, worker_cpu=list(worker_cpu.values()),
                    worker_peak_rss_mb=list(worker_mb.values()), main_peak_rss_mb=_rss_mb(),
                    leaf_tasks_per_worker=list(per_worker.values()), same_predictions=same,
                    accuracy=100 * np.mean(pred_r == ys), leaves=remote.search_path_[0].n_trained)


# ------------------------------------------------------------------------------ part: paper
def data_sets(names):
    """(X, y, grid, grid name) per requested data set, in the order asked."""
    def digits():
        ds = load_builtin("digits")
        return ds.X / 16.0, ds.y  # [0, 1] as the paper normalises

    def shuttle(n):
        ds = shuttle_like(n)
        return ds.X, ds.y

    makers = {
        "fourclass": lambda: (load_builtin("fourclass").X, load_builtin("fourclass").y, FULL, "full 7×9"),
        "digits": lambda: (*digits(), FULL, "full 7×9"),
        "checker20k": lambda: (*hard_checkerboard(20000), REDUCED, "reduced 3×3"),
        "shuttle20k": lambda: (*shuttle(20000), REDUCED, "reduced 3×3"),
        "shuttle100k": lambda: (*shuttle(100000), REDUCED, "reduced 3×3"),
    }
    for name in names:
        if name not in makers:
            raise SystemExit(f"unknown data set {name!r}; choose from {', '.join(makers)}")
        yield name, makers[name]()


def part_paper(args):
    head = (f"{'data':<12}{'n':>8}{'K':>4} {'grid':<13}{'TD cpu':>8}{'gSVM cpu':>10}{'cpu ×':>7}{'TD wall':>9}"
            f"{'gSVM wall':>10}{'TD acc':>8}{'gSVM acc':>9}{'Δ pts':>7}{'TD NSV':>8}{'gSVM NSV':>9}{'homog':>7}"
            f"{'σ_opt':>7}{'L':>5}")
    print(f"\n== the paper's comparison (TD as in the paper, LIBSVM leaves, n_jobs=1); "
          f"min of {args.reps} runs")
    print(PAPER_CLAIM)
    print(head, flush=True)
    for name, (X, y, grid, grid_name) in data_sets(args.sets.split(",")):
        Xt, yt, Xv, yv, Xs, ys = split_411(X, y)
        res = interleaved({"td": lambda: TreeDecompositionSVC(**grid, svm_solver="libsvm", n_jobs=1)
                           .fit(Xt, yt, X_val=Xv, y_val=yv),
                           "g": lambda: global_svm_search(Xt, yt, Xv, yv, **grid)}, args.reps)
        td, g = res["td"]["result"], res["g"]["result"]["model"]
        acc, g_acc = 100 * np.mean(td.predict(Xs) == ys), 100 * np.mean(g.predict(Xs) == ys)
        args.record.row(part="paper", data=name, n=X.shape[0], classes=len(np.unique(y)), grid=grid_name,
                        td_cpu=res["td"]["cpu"], gsvm_cpu=res["g"]["cpu"], td_wall=res["td"]["wall"],
                        gsvm_wall=res["g"]["wall"], td_accuracy=acc, gsvm_accuracy=g_acc, td_nsv=td.nsv(Xs),
                        gsvm_nsv=g.support_.size, homogeneous=td.homogeneous_fraction_, sigma=td.sigma_,
                        leaves=len(td.leaves_))
        print(f"{name:<12}{X.shape[0]:>8}{len(np.unique(y)):>4} {grid_name:<13}{res['td']['cpu']:>8.2f}"
              f"{res['g']['cpu']:>10.2f}{res['g']['cpu'] / res['td']['cpu']:>7.1f}{res['td']['wall']:>9.2f}"
              f"{res['g']['wall']:>10.2f}{acc:>8.2f}{g_acc:>9.2f}{acc - g_acc:>7.2f}{td.nsv(Xs):>8.1f}"
              f"{g.support_.size:>9}{100 * td.homogeneous_fraction_:>6.1f}%{td.sigma_:>7}{len(td.leaves_):>5}",
              flush=True)


# ------------------------------------------------------------------------------ part: table1
#: Chang, Guo, Lin and Lu (2009), Table 1: name -> (samples, features, classes), and Tables 2–11 per
#: scheme: (TD s, gSVM s, speed-up, TD acc, gSVM acc, TD NSV, gSVM NSV, NSV ratio); Forest has no
#: gSVM (Table 15: TD only, 4.7 h in 1A1).
TABLE1 = {"phw": (10_992, 16, 10), "letter": (20_000, 16, 26), "shuttle": (58_000, 9, 7),
          "census": (45_222, 14, 2), "kdd10": (494_021, 41, 5), "forest": (581_012, 54, 7)}
PAPER_TABLES = {
    ("phw", "ovo"): (275, 1_192, 4.33, 99.42, 99.63, 1_140, 8_073, 7.08),
    ("letter", "ovo"): (768, 4_157, 5.41, 97.60, 97.54, 183_450, 183_450, 1.00),
    ("shuttle", "ovo"): (23, 5_096, 221.57, 99.93, 99.92, 0.5, 1_134, 2_432.70),
    ("census", "ovo"): (5_209, 315_130, 60.50, 84.81, 84.25, 300, 10_451, 34.81),
    ("kdd10", "ovo"): (371, 1_369_600, 3_691.64, 99.96, 99.95, 3.9, 2_287, 584.86),
    ("phw", "ovr"): (672, 19_988, 29.74, 99.52, 99.63, 248, 1_210, 4.87),
    ("letter", "ovr"): (3_281, 151_476, 46.17, 97.66, 97.66, 16_200, 16_201, 1.00),
    ("shuttle", "ovr"): (36, 36_689, 1_019.14, 99.89, 99.91, 0.4, 266, 597),
    ("census", "ovr"): (5_191, 315_130, 60.71, 84.81, 84.25, 300, 10_451, 34.81),
    ("kdd10", "ovr"): (435, 2_512_134, 5_775.02, 99.96, 99.96, 1.8, 1_566, 873.37),
}
#: Table 12: name -> (σ_opt, % of the training samples in homogeneous leaves); Table 15 (Forest, TD
#: only, 1A1): training s, NSV, test accuracy.
PAPER_TABLE12 = {"phw": (1_500, 0.0), "letter": (24_000, 0.0), "shuttle": (1_500, 98.42),
                 "census": (1_500, 5.55), "kdd10": (1_500, 42.05)}
PAPER_FOREST_OVO = (16_927, 350, 94.61)


def table1_set(name: str, data: str = "regions", seed: int = 0):
    """A generated set of the shape of Table 1's ``name``: ``tabular_regions`` at its defaults
    (``data="regions"``) or ``shaped_set`` (``"clusters"``)."""
    if data == "clusters":
        return shaped_set(*TABLE1[name], seed=seed)
    n, d, k = TABLE1[name]
    ds = tabular_regions(n, n_features=d, n_classes=k, seed=seed)
    return ds.X, ds.y


def shaped_set(n: int, d: int, k: int, seed: int = 0):
    """n samples, d features, k classes: Gaussian clusters (two per class) in a subspace of the
    features, 1 % of the labels flipped, features min–max scaled to [0, 1] (§3)."""
    from sklearn.datasets import make_classification

    informative = max(2, min(d, int(np.ceil(np.log2(2 * k))) + 2))
    X, y = make_classification(n_samples=n, n_features=d, n_informative=informative,
                               n_redundant=min(2, d - informative), n_classes=k, n_clusters_per_class=2,
                               class_sep=1.5, flip_y=0.01, random_state=seed)
    X -= X.min(axis=0)
    X /= np.maximum(X.max(axis=0), 1e-300)
    return X, y


class _Deadline(Exception):
    """The global SVM's search went past its time allowance."""


def timed_global(Xt, yt, Xv, yv, grid, multi_class, limit_s):
    """scikit-learn's SVC over ``grid`` (``global_svm_search``), stopped after the θ that passes
    ``limit_s`` of CPU time (on a shared machine a paused or starved process would lose wall time
    it never ran): (result or None, CPU s, wall s, θ done)."""
    import time

    done = [0]
    t0, c0 = time.perf_counter(), time.process_time()

    def deadline(k, total):
        done[0] = k
        if time.process_time() - c0 > limit_s:
            raise _Deadline

    try:
        res = global_svm_search(Xt, yt, Xv, yv, **grid, progress=deadline, multi_class=multi_class)
    except _Deadline:
        res = None
    return res, time.process_time() - c0, time.perf_counter() - t0, done[0]


def stage_timed(td):
    """``td`` with its search stages timed: the list that will hold each stage's CPU s (the leaf
    SVMs of every θ at one σ_t and their validation predictions)."""
    import time

    cpu, evaluate = [], td._evaluate

    def timed_stage(*a, **kw):
        c0 = time.process_time()
        out = evaluate(*a, **kw)
        cpu.append(time.process_time() - c0)
        return out

    td._evaluate = timed_stage
    return cpu


def part_table1(args):
    import time

    grid = FULL if args.table1_grid == "full" else REDUCED
    print(f"\n== Table 1 shapes (generated data: {args.table1_data}), TD as in the paper (σ₀ 1,500, "
          f"{args.table1_grid} grid, LIBSVM leaves), gSVM within {args.global_limit_s:g} CPU s; one run each (CPU s)")
    print(f"{'set':<8}{'shape':>18}{'':>4}{'TD s':>8}{'gSVM s':>9}{'speed-up':>9}{'paper':>9}"
          f"{'TD acc':>8}{'gSVM acc':>9}{'paper TD/g':>13}{'TD NSV':>9}{'gSVM NSV':>9}{'NSV ×':>8}{'paper':>9}"
          f"{'σ_opt':>7}{'homog':>7}{'paper':>7}{'RSS MB':>8}", flush=True)
    for name in args.shapes.split(","):
        X, y = table1_set(name, args.table1_data)
        Xt, yt, Xv, yv, Xs, ys = split_411(X, y)
        for scheme in args.schemes.split(","):
            td = TreeDecompositionSVC(**grid, multi_class=scheme, svm_solver="libsvm")
            stage_cpu = stage_timed(td)
            c0, w0 = time.process_time(), time.perf_counter()
            td.fit(Xt, yt, X_val=Xv, y_val=yv)
            td_cpu, td_wall = time.process_time() - c0, time.perf_counter() - w0
            acc, nsv = 100 * np.mean(td.predict(Xs) == ys), td.nsv(Xs)
            if args.global_limit_s > 0:
                g, g_cpu, g_wall, g_done = timed_global(Xt, yt, Xv, yv, grid, scheme, args.global_limit_s)
            else:  # one θ of the global SVM on Forest's shape alone takes hours: not started
                g, g_cpu, g_wall, g_done = None, 0.0, 0.0, 0
            if g is not None:
                gm = g["model"]
                g_acc, g_nsv = 100 * np.mean(gm.predict(Xs) == ys), float(gm.support_.size)
                speed, ratio = g_cpu / td_cpu, g_nsv / max(nsv, 1e-12)
                g_text = f"{g_cpu:>9.1f}{speed:>9.1f}"
            else:
                g_acc = g_nsv = speed = ratio = float("nan")
                g_text = f"{'>' + format(g_cpu, '.0f'):>9}{'(' + str(g_done) + ' θ)':>9}"
            paper = PAPER_TABLES.get((name, scheme))
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            n, d, k = TABLE1[name]
            path = [dict(sigma=lv.sigma, leaves=lv.n_leaves, heterogeneous=lv.n_heterogeneous, trained=lv.n_trained,
                         cpu=cpu, best_accuracy=lv.best_accuracy, largest_leaf=int(max(lf.size for lf in leaves)),
                         largest_svm_leaf=int(max((lf.size for lf in leaves if lf.svm is not None), default=0)))
                    for lv, leaves, cpu in zip(td.search_path_, td.levels_, stage_cpu)]
            args.record.row(part="table1", data=name, generator=args.table1_data, scheme=scheme, n=n, features=d,
                            classes=k, grid=args.table1_grid, search_path=path, td_cpu=td_cpu, td_wall=td_wall,
                            gsvm_cpu=g_cpu, gsvm_finished=g is not None,
                            gsvm_wall=g_wall, gsvm_theta_done=g_done, td_accuracy=acc,
                            gsvm_accuracy=g_acc if g else None, td_nsv=nsv, gsvm_nsv=g_nsv if g else None,
                            sigma=td.sigma_, homogeneous=td.homogeneous_fraction_, peak_rss_mb=rss)
            paper_speed = f"{paper[2]:,.1f}" if paper else "-"
            paper_acc = f"{paper[3]:.2f}/{paper[4]:.2f}" if paper else "-"
            paper_ratio = f"{paper[7]:,.1f}" if paper else "-"
            paper_homog = f"{PAPER_TABLE12[name][1]:.1f}%" if name in PAPER_TABLE12 else "-"
            print(f"{name:<8}{f'{n:,}×{d}×{k}':>18}{scheme:>4}{td_cpu:>8.1f}{g_text}{paper_speed:>9}"
                  f"{acc:>8.2f}{g_acc:>9.2f}{paper_acc:>13}{nsv:>9.1f}{g_nsv:>9.0f}{ratio:>8.1f}{paper_ratio:>9}"
                  f"{td.sigma_:>7}{100 * td.homogeneous_fraction_:>6.1f}%{paper_homog:>7}{rss:>8.0f}", flush=True)
            stages = "; ".join(f"σ {p['sigma']:,}: {p['leaves']} leaves, {p['trained']} with an SVM, largest "
                               f"{p['largest_leaf']:,} (with an SVM {p['largest_svm_leaf']:,}), {p['cpu']:.1f} CPU s, "
                               f"best validation {100 * p['best_accuracy']:.2f} %" for p in path)
            print(f"   search (tree and the rest {td_cpu - sum(stage_cpu):.1f} CPU s): {stages}"
                  + (f"; the paper's Forest (Table 15, 1A1): TD {PAPER_FOREST_OVO[0]:,} s, NSV {PAPER_FOREST_OVO[1]}, "
                     f"test {PAPER_FOREST_OVO[2]} %" if name == "forest" else ""), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parts", default="noisy,parallel,million")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--parallel-n", type=int, default=200000)
    ap.add_argument("--million-n", type=int, default=1000000)
    ap.add_argument("--cluster-n", type=int, default=1_000_000, help="samples of the cluster part")
    ap.add_argument("--cluster-only", action="store_true",
                    help="cluster part: no in-process fit to compare with (its time at 10⁶ on a shared machine)")
    ap.add_argument("--million-sub", type=int, default=100000,
                    help="training points of the largest global SVM in the million part")
    ap.add_argument("--million-paper-td", action="store_true",
                    help="also run the paper's TD (no purity_tol) on the million points")
    ap.add_argument("--sets", default="fourclass,digits,shuttle20k,checker20k")
    ap.add_argument("--shapes", default="phw,letter,shuttle,census",
                    help=f"table1: Table 1 shapes to generate ({', '.join(TABLE1)})")
    ap.add_argument("--schemes", default="ovo,ovr", help="table1: ovo (the paper's 1A1) and/or ovr (1AO)")
    ap.add_argument("--table1-grid", choices=("full", "reduced"), default="full")
    ap.add_argument("--table1-data", choices=("regions", "clusters"), default="regions",
                    help="table1: tabular_regions (one-class regions, labels mixed near their boundaries) or "
                         "shaped_set (Gaussian clusters, 1 %% of the labels flipped anywhere)")
    ap.add_argument("--global-limit-s", type=float, default=3600.0,
                    help="table1: CPU seconds allowed to the global SVM's search per set and scheme "
                         "(checked after each θ; 0: the global SVM is not run)")
    args = ap.parse_args()
    if args.reps < 3:
        raise SystemExit("--reps must be at least 3 (times are the minimum of ≥ 3 runs)")
    parts = args.parts.split(",")
    with harness.pinned_blas(), harness.Run("bench_td", (), args.reps, meta=dict(vars(args))) as args.record:
        warm_up()
        if "noisy" in parts:
            part_noisy(args)
        if "parallel" in parts:
            part_parallel(args)
        if "million" in parts:
            part_million(args)
        if "cluster" in parts:
            part_cluster(args)
        if "paper" in parts:
            part_paper(args)
        if "table1" in parts:
            part_table1(args)


if __name__ == "__main__":
    main()
