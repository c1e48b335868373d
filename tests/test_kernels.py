"""Kernels match scikit-learn's pairwise kernels and LIBSVM's parameter conventions."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel, sigmoid_kernel

from svmviz.errors import ParameterError
from svmviz.kernels import Kernel, resolve_gamma

rng = np.random.default_rng(0)
X = rng.normal(size=(30, 4))
Z = rng.normal(size=(7, 4))


@pytest.mark.parametrize("name,ref", [
    ("linear", lambda A, B: linear_kernel(A, B)),
    ("poly", lambda A, B: polynomial_kernel(A, B, degree=3, gamma=0.7, coef0=1.5)),
    ("rbf", lambda A, B: rbf_kernel(A, B, gamma=0.7)),
    ("sigmoid", lambda A, B: sigmoid_kernel(A, B, gamma=0.7, coef0=1.5)),
])
def test_gram_matches_sklearn(name, ref):
    k = Kernel(name, gamma=0.7, degree=3, coef0=1.5)
    np.testing.assert_allclose(k.gram(X, Z), ref(X, Z), rtol=1e-10, atol=1e-12)
    K = k.gram(X)
    np.testing.assert_allclose(K, ref(X, X), rtol=1e-10, atol=1e-12)
    assert np.array_equal(K, K.T)
    np.testing.assert_allclose(k.diag(X), np.diag(ref(X, X)), rtol=1e-10, atol=1e-12)


def test_gamma_scale_and_auto_follow_sklearn():
    assert resolve_gamma("scale", X) == pytest.approx(1.0 / (X.shape[1] * X.var()))
    assert resolve_gamma("auto", X) == pytest.approx(0.25)
    assert resolve_gamma(2, X) == 2.0


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), "wide"])
def test_bad_gamma_is_a_parameter_error(bad):
    with pytest.raises(ParameterError):
        resolve_gamma(bad, X)


def test_unknown_kernel_is_a_parameter_error():
    with pytest.raises(ParameterError, match="kernel must be one of"):
        Kernel("laplace")


def test_round_trip_through_dict():
    k = Kernel("poly", 0.3, 4, 2.0)
    assert Kernel.from_dict(k.to_dict()) == k


# --- kernels whose values no solver can resolve: refused before training ------------------------
@pytest.mark.parametrize("gamma, degree, coef0", [(1.0, 10, 1e6), (1e3, 10, 0.0), (1.0, 20, 5.0)])
def test_a_polynomial_kernel_beyond_double_precision_is_refused_before_training(gamma, degree, coef0):
    from svmviz.models import BinarySVC

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ParameterError, match="lower coef0, gamma or degree"):
        Kernel.from_params("poly", gamma, degree, coef0, X=X)
    with pytest.raises(ParameterError, match="never stop"):
        BinarySVC(kernel="poly", gamma=gamma, degree=degree, coef0=coef0, max_iter=2000).fit(X, y)
    assert BinarySVC(kernel="poly", gamma=1.0, degree=3, coef0=1.0).fit(X, y).converged_


def test_the_dag_page_says_why_a_polynomial_kernel_is_refused():
    from apphelpers import as_read, page_test
    from svmviz.data.generators import generate

    ds = generate("gaussians_on_circle", n_classes=4, n_per_class=10)
    at = page_test("pages/6_DAG_SVM.py", dataset=ds, **{"dag.kernel": "poly", "dag.degree": 10,
                                                       "dag.coef0": 1e300}).run()
    assert not at.exception
    assert any("reaches about 1e60" in as_read(e.value) for e in at.error)
