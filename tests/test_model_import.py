"""A model exported from a method page (or fitted with the library, as the CLI does) loads back
into that page through its "Load a model" uploader, and a model of another estimator is refused
with a message while the page stays as it was."""

from __future__ import annotations

import pytest

from apphelpers import page_test, problems
from svmviz_app.widgets import import_open_key
from svmviz.data import load_builtin, split_and_normalize
from svmviz.export import dumps_model
from svmviz.models import (BinaryNuSVC, BinarySVC, DAGSVC, GuardVectorSVC, ScatterSVC, SVMTreeClassifier,
                           TreeDecompositionSVC)

CASES = [
    ("pages/2_SVM_Tree.py", "tree", "fourclass_like", lambda: SVMTreeClassifier()),
    ("pages/3_Convex_Hulls.py", "hull", "fourclass_like", lambda: BinaryNuSVC(nu=0.8, kernel="linear")),
    ("pages/4_Guard_Vectors.py", "guard", "hypercubes", lambda: GuardVectorSVC()),
    ("pages/5_Tree_Decomposition.py", "td", "fourclass_like", lambda: TreeDecompositionSVC(max_stages=1)),
    ("pages/6_DAG_SVM.py", "dag", "fourclass_like", lambda: DAGSVC(kernel="rbf", C=10.0)),
    ("pages/7_Scatter_SVM.py", "scatter", "fourclass_like", lambda: ScatterSVC()),
]


@pytest.mark.parametrize("page,prefix,data,make", CASES, ids=[c[1] for c in CASES])
def test_a_model_file_loads_back_into_its_page(page, prefix, data, make):
    ds = load_builtin(data)
    train, _ = split_and_normalize(ds, "none", 0.3, 0, True)   # the Data page's default split
    model = make().fit(train.X, train.y)
    at = page_test(page, dataset=ds, spec=data, **{import_open_key(prefix): True}).run()
    assert not problems(at)
    at.file_uploader(key=f"{prefix}_upload").set_value((f"{prefix}.json", dumps_model(model).encode(),
                                                        "application/json")).run()
    assert not problems(at)
    assert not [e.value for e in at.error if "cannot use" in e.value]
    assert any("imported model" in c.value for c in at.caption), f"{page} does not say it shows the import"


@pytest.mark.parametrize("page,prefix,data,make", CASES[:2], ids=[c[1] for c in CASES[:2]])
def test_a_model_of_another_estimator_is_refused_and_the_page_stays(page, prefix, data, make):
    ds = load_builtin(data)
    other = BinarySVC(kernel="linear").fit(ds.X, ds.y)
    at = page_test(page, dataset=ds, spec=data, **{import_open_key(prefix): True}).run()
    at.file_uploader(key=f"{prefix}_upload").set_value(("other.json", dumps_model(other).encode(),
                                                        "application/json")).run()
    assert not problems(at)
    assert any("BinarySVC" in e.value for e in at.error)
    assert not any("imported model" in c.value for c in at.caption)
