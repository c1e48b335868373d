"""Issue 16, items 7, 8, 11: every estimator parameter is validated (one table,
``svmviz.models._params``); bad values are ``ParameterError`` saying what to pass, never a
TypeError/OverflowError or a silently wrong model; bad data and bad results are ``DataError``."""

from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import svmviz.models as models
from svmviz.errors import DataError, ParameterError, SvmvizError
from svmviz.kernels import Kernel
from svmviz.models._params import DATA_NEEDS, PARAMS

ESTIMATORS = models.registered_estimators() if hasattr(models, "registered_estimators") else {
    n: getattr(models, n) for n in models.__all__}

rng = np.random.default_rng(0)
# two well separated blobs: every estimator (guard vectors need separable data) fits them
X2 = np.vstack([rng.normal(-3, 0.5, size=(12, 2)), rng.normal(3, 0.5, size=(12, 2))])
Y2 = np.repeat([0, 1], 12)


def test_every_parameter_of_every_estimator_is_in_the_table():
    left_to_estimator = {"TreeDecompositionSVC": {"purity_tol"}}   # a number or a list: checked there
    for name, cls in ESTIMATORS.items():
        params = set(inspect.signature(cls.__init__).parameters) - {"self"}
        missing = params - set(PARAMS[name]) - left_to_estimator.get(name, set())
        assert not missing, f"{name}: parameters {sorted(missing)} have no entry in _params.PARAMS"
        assert set(PARAMS[name]) <= params, f"{name}: the table names parameters it does not have"


def test_every_default_satisfies_its_constraint():
    for name, cls in ESTIMATORS.items():
        for p, rule in PARAMS[name].items():
            default = inspect.signature(cls.__init__).parameters[p].default
            assert rule.ok(default), f"{name}.{p} = {default!r} (the default) breaks its own constraint"


def test_table_choices_agree_with_the_modules():
    from svmviz.models import _svm_tree_build, guard, scatter, tree_decomposition

    assert PARAMS["GuardVectorSVC"]["method"].values == guard.METHODS
    assert PARAMS["ScatterSVC"]["formulation"].values == scatter.FORMULATIONS
    assert PARAMS["TreeDecompositionSVC"]["svm_solver"].values == tree_decomposition.SVM_SOLVERS
    assert PARAMS["SVMTreeClassifier"]["ck_rule"].values == _svm_tree_build.CK_RULES
    assert PARAMS["SVMTreeClassifier"]["fallback"].values == _svm_tree_build.FALLBACKS
    try:
        from svmviz.models._svm_tree_nonlinear import NONLINEAR_SPEC
    except ImportError:
        return
    ours = PARAMS["SVMTreeClassifier"]["nonlinear"].spec
    assert {k: c.describe() for k, c in ours.items()} == {k: c.describe() for k, c in NONLINEAR_SPEC.items()}


# the cases of the audit (issue 16, items 7, 8, 11): (estimator, parameters, words of the message)
AUDIT = [
    ("BinaryNuSVC", {"tol": math.nan}, "tol"), ("BinarySVC", {"tol": math.inf}, "tol"),
    ("BinarySVC", {"kernel": "poly", "coef0": math.nan}, "coef0"), ("BinarySVC", {"C": "1"}, "C must be"),
    ("BinaryNuSVC", {"nu": "0.5"}, "nu"), ("BinarySVC", {"tol": "a"}, "tol"),
    ("GuardVectorSVC", {"delta": "1"}, "delta"), ("BinarySVC", {"gamma": None}, "gamma"),
    ("BinarySVC", {"max_iter": 1e30}, "max_iter"), ("TreeDecompositionSVC", {"growth": math.inf}, "growth"),
    ("WeightedDAGSVC", {"covariance_reg": math.inf}, "covariance_reg"),
    ("BinarySVC", {"kernel": "poly", "degree": 2.5}, "degree"),
    ("BinarySVC", {"kernel": "poly", "degree": -1}, "degree"),
    ("ScatterSVC", {"bias": "False"}, "bias"), ("GuardVectorSVC", {"prefilter": "no"}, "prefilter"),
    ("SVMTreeClassifier", {"prune": "yes"}, "prune"), ("DAGSVC", {"cache_mb": math.inf}, "cache_mb"),
    ("PairwiseVotingSVC", {"solver": 1}, "solver"), ("ScatterSVC", {"mu": -1.0}, "mu"),
    ("TreeDecompositionSVC", {"random_state": -5}, "random_state"),
]


@pytest.mark.parametrize("name,params,words", AUDIT, ids=[f"{n}-{list(p)[-1]}" for n, p, _ in AUDIT])
def test_audit_parameters_are_refused_with_what_to_pass(name, params, words):
    with pytest.raises(ParameterError, match=words) as err:
        ESTIMATORS[name](**params).fit(X2, Y2)
    assert "pass e.g." in str(err.value) or "must be" in str(err.value)


HOSTILE = [math.nan, math.inf, -math.inf, "1", None, 1e30, -1, True, [1.0], {"a": 1}, 10**400]


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_no_hostile_value_escapes_as_a_foreign_exception(name):
    """Every hostile value for every parameter: either accepted (then the fit works or fails with
    an svmviz error) or a ``ParameterError`` — never TypeError, OverflowError, KeyError..."""
    cls = ESTIMATORS[name]
    for p in PARAMS[name]:
        for v in HOSTILE:
            est = cls(**{p: v})
            if PARAMS[name][p].ok(v):
                continue   # a valid value: fitting it is the estimator tests' business
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with pytest.raises(ParameterError):
                    est.fit(X2, Y2)


def test_mixed_labels_and_overflowing_features_are_data_errors():
    y_mixed = np.array([1, "a"] * 12, dtype=object)
    for name in ("BinarySVC", "DAGSVC", "ScatterSVC"):
        with pytest.raises(DataError, match="mix numbers and text"):
            ESTIMATORS[name]().fit(X2, y_mixed)
        with pytest.raises(DataError, match="rescale the features"):
            ESTIMATORS[name]().fit(X2 * 1e160, Y2)


def test_tree_decomposition_on_two_samples_says_why():
    assert "TreeDecompositionSVC" in DATA_NEEDS
    with pytest.raises(DataError, match="at least 2 samples of every class"):
        ESTIMATORS["TreeDecompositionSVC"]().fit(X2[[0, 12]], [0, 1])


def test_kernel_refuses_fractional_degree_and_non_finite_coefficients():
    with pytest.raises(ParameterError, match="degree"):
        Kernel.from_params("poly", 1.0, 2.5, 0.0)
    with pytest.raises(ParameterError, match="coef0"):
        Kernel("poly", 1.0, 3, math.nan)
    with pytest.raises(ParameterError, match="gamma"):
        Kernel.from_dict({"name": "rbf", "gamma": -1.0, "degree": 3, "coef0": 0.0})
    with pytest.raises(ParameterError, match="too small"):  # 1/(d·var) overflows to inf
        Kernel.from_params("rbf", "scale", X=np.array([[0.0], [1e-155]]))


def test_result_check_refuses_non_finite_and_warns_when_not_converged():
    est = ESTIMATORS["BinarySVC"]()
    with pytest.raises(DataError, match="non-finite objective"):
        est._check_result(objective=math.nan)
    with pytest.raises(DataError, match="non-finite decision"):
        est._check_result(decisions=np.array([0.0, math.inf]))
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        est._check_result(converged=False, detail="10 iterations")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est._check_result(converged=True, objective=1.0, decisions=np.zeros(3))


def test_every_svmviz_error_is_a_value_error():
    assert issubclass(ParameterError, ValueError) and issubclass(DataError, SvmvizError)


def test_overflowing_kernel_values_are_refused():
    P = np.full((3, 2), 1e20)   # finite features, but (x·z)^20 = 1e820 overflows
    with pytest.raises(DataError, match="overflows"):
        Kernel("poly", 1.0, 20, 0.0).gram(P)
    with pytest.raises(DataError, match="overflows"):
        Kernel("poly", 1.0, 20, 0.0).diag(P)
    assert np.all(Kernel("rbf", 1.0).gram(P * 1e120, P) == 0.0)   # far away is fine: k → 0
