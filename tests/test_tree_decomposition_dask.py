"""The tree decomposition on a Dask cluster (Chang, Guo, Lin and Lu 2009 train TD on up to 4.9
million samples): given a ``distributed.Client`` or a scheduler address, the leaf SVMs run on the
cluster's worker processes from data scattered once, and the model is the in-process one."""

from __future__ import annotations

import numpy as np
import pytest

from svmviz.data.generators import fourclass_like
from svmviz.models import TreeDecompositionSVC
from svmviz.models.tree_decomposition import on_cluster

pytestmark = pytest.mark.slow
PARAMS = dict(C_grid=(1.0, 100.0), gamma_grid=(1.0, 10.0), top_k=2, max_stages=2)


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=None) as cl, distributed.Client(cl) as client:
        yield cl, client


def test_leaves_train_on_the_workers_from_data_scattered_once(cluster, monkeypatch):
    from distributed import get_task_stream

    cl, client = cluster
    ds = fourclass_like(n=1500, seed=3)
    local = TreeDecompositionSVC(**PARAMS).fit(ds.X, ds.y)
    scattered = []
    real_scatter = type(client).scatter

    def counting(self, data, *args, **kwargs):
        scattered.append(data)
        return real_scatter(self, data, *args, **kwargs)

    monkeypatch.setattr(type(client), "scatter", counting)
    with get_task_stream(client) as ran:
        remote = TreeDecompositionSVC(**PARAMS).fit(ds.X, ds.y, client=client)
    leaf_tasks = [t for t in ran.data if "train_leaf" in str(t["key"])]
    n_leaf_jobs = remote.search_path_[0].n_trained * len(PARAMS["gamma_grid"])   # σ₀: a job per leaf and γ
    assert len(leaf_tasks) >= n_leaf_jobs > 0
    workers = {w for w in client.scheduler_info()["workers"]}
    assert {t["worker"] for t in leaf_tasks} <= workers and len({t["worker"] for t in leaf_tasks}) == 2
    assert len(scattered) == 1 and [a.shape[0] for a in scattered[0]][:2] == [remote.n_train_] * 2
    assert remote.sigma_ == local.sigma_ and remote.params_ == local.params_
    grid = np.random.default_rng(0).uniform(-1, 1, size=(3000, 2)) * np.abs(ds.X).max(axis=0)
    np.testing.assert_array_equal(remote.predict(grid), local.predict(grid))
    np.testing.assert_allclose(remote.decision_function(grid), local.decision_function(grid), atol=1e-9)


def test_a_scheduler_address_as_a_context(cluster):
    cl, _ = cluster
    ds = fourclass_like(n=600, seed=4)
    local = TreeDecompositionSVC(**PARAMS).fit(ds.X, ds.y)
    with on_cluster(cl.scheduler_address):
        remote = TreeDecompositionSVC(**PARAMS).fit(ds.X, ds.y)
    np.testing.assert_array_equal(remote.predict(ds.X), local.predict(ds.X))
