"""Every estimator parameter is validated against the constraints its class declares
(``_parameter_constraints``, ``svmviz.models.constraints``); bad values are ``ParameterError``
saying what to pass, never a TypeError/OverflowError or a silently wrong model; bad data and bad
results are ``DataError``."""

from __future__ import annotations

import ast
import inspect
import math
import sys
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import svmviz.models as models
from svmviz.errors import DataError, ParameterError, SvmvizError
from svmviz.kernels import KERNELS, Kernel
from svmviz.models.constraints import OneOf

ESTIMATORS = dict(models.ESTIMATORS)

rng = np.random.default_rng(0)
# two well separated blobs: every estimator (guard vectors need separable data) fits them
X2 = np.vstack([rng.normal(-3, 0.5, size=(12, 2)), rng.normal(3, 0.5, size=(12, 2))])
Y2 = np.repeat([0, 1], 12)


def _constraints(name: str) -> dict:
    return ESTIMATORS[name]._parameter_constraints


def test_every_parameter_of_every_estimator_has_a_constraint_on_its_class():
    for name, cls in ESTIMATORS.items():
        params = set(inspect.signature(cls.__init__).parameters) - {"self"}
        declared = set(_constraints(name))
        assert params == declared, (f"{name}: without a constraint {sorted(params - declared)}, "
                                    f"constrained but not a parameter {sorted(declared - params)}")


def test_every_default_satisfies_its_constraint():
    for name, cls in ESTIMATORS.items():
        for p, rule in _constraints(name).items():
            default = inspect.signature(cls.__init__).parameters[p].default
            assert rule.ok(default), f"{name}.{p} = {default!r} (the default) breaks its own constraint"


def test_constraints_are_inherited_not_copied():
    from svmviz.models.dag import DAGSVC, PairwiseVotingSVC
    from svmviz.models.svc import BinaryKernelSVM, BinaryNuSVC, BinarySVC

    for p, rule in PairwiseVotingSVC._parameter_constraints.items():
        assert DAGSVC._parameter_constraints[p] is rule
    for cls in (BinarySVC, BinaryNuSVC, models.GuardVectorSVC):
        for p, rule in BinaryKernelSVM._parameter_constraints.items():
            assert cls._parameter_constraints[p] is rule
    for p, rule in DAGSVC._parameter_constraints.items():
        assert models.WeightedDAGSVC._parameter_constraints[p] is rule


def _refers_to_param(node, params, copies) -> bool:
    """``self.p`` (or float/int of it) for a constrained p, or a local copy of one."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("float", "int"):
        return bool(node.args) and _refers_to_param(node.args[0], params, copies)
    if isinstance(node, ast.Attribute):
        return isinstance(node.value, ast.Name) and node.value.id == "self" and node.attr in params
    return isinstance(node, ast.Name) and node.id in copies


def _literal(node) -> bool:
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, (ast.Constant, ast.Tuple, ast.List, ast.Set))


def _repeated_checks(source: str, params) -> list[str]:
    """The tests of ``if``s that raise and compare a constrained parameter with a literal: a
    bound or an option list written again beside the class's constraint."""
    found = []
    for fn in ast.walk(ast.parse(source)):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        copies = {t.id for n in ast.walk(fn) if isinstance(n, ast.Assign)
                  and _refers_to_param(n.value, params, ()) for t in n.targets if isinstance(t, ast.Name)}
        for node in ast.walk(fn):
            if not (isinstance(node, ast.If) and any(isinstance(n, ast.Raise) for b in node.body
                                                     for n in ast.walk(b))):
                continue
            for cmp in (c for c in ast.walk(node.test) if isinstance(c, ast.Compare)):
                sides = [cmp.left, *cmp.comparators]
                if any(_refers_to_param(x, params, copies) for x in sides) and any(map(_literal, sides)):
                    found.append(f"{fn.name}: if {ast.unparse(node.test)}")
                    break
    return found


def test_no_estimator_checks_a_constrained_parameter_again():
    # the class's constraints are the one place a parameter's bounds and options are written;
    # checks that depend on the data (nu against the class sizes, n_clusters against n) stay in fit
    for name, cls in ESTIMATORS.items():
        params = set(_constraints(name))
        for klass in cls.__mro__:
            if klass.__module__.startswith("svmviz."):
                found = _repeated_checks(inspect.getsource(sys.modules[klass.__module__]), params)
                assert not found, f"{name} ({klass.__module__}) checks again: {found}"


def test_the_scan_finds_a_bound_written_again():
    src = ("def fit(self, X):\n    nu = self.nu\n    if nu <= 0 or nu > 1:\n        raise ValueError\n"
           "    if self.method not in ('a', 'b'):\n        raise ValueError\n"
           "    if nu * len(X) > m:\n        raise ValueError\n")
    assert _repeated_checks(src, {"nu", "method"}) == ["fit: if nu <= 0 or nu > 1",
                                                      "fit: if self.method not in ('a', 'b')"]


def test_pages_state_no_options_or_bounds_of_an_estimator_parameter():
    # a page's Param for an estimator parameter takes bounds and options from the class and may
    # only narrow them (``within``; a select slider's stops as ``options``: each checked against
    # the class by the frame); options and bounds of its own are for page controls (name None)
    from conftest import ROOT

    for page in sorted((ROOT / "pages").glob("*.py")):
        for call in ast.walk(ast.parse(page.read_text(encoding="utf-8"))):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                    and call.func.id == "Param" and call.args):
                continue
            first = call.args[0]
            if isinstance(first, ast.Constant) and first.value is None:
                continue
            widget = (call.args[3] if len(call.args) > 3
                      else next((k.value for k in call.keywords if k.arg == "widget"), None))
            stops = isinstance(widget, ast.Constant) and widget.value == "select_slider"
            own = [k.arg for k in call.keywords if k.arg == "bounds" or (k.arg == "options" and not stops)]
            assert not own, f"{page.name}: Param({ast.unparse(first)}) states its own {own}"


def _option_lists(source: str, options: dict) -> list[str]:
    """Tuples, lists and sets of two or more strings that are all options of one estimator
    parameter (``options``: frozenset of options -> "Class.param"), outside ``within=`` (a
    page's narrowing, which the frame checks against the class)."""
    tree = ast.parse(source)
    within = {id(k.value) for n in ast.walk(tree) if isinstance(n, ast.Call) for k in n.keywords
              if k.arg == "within"}
    found = []
    for n in ast.walk(tree):
        if (isinstance(n, (ast.Tuple, ast.List, ast.Set)) and len(n.elts) >= 2 and id(n) not in within
                and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in n.elts)):
            vals = {e.value for e in n.elts}
            found += [f"line {n.lineno}: {ast.unparse(n)} ({where})" for o, where in options.items() if vals <= o]
    return found


def test_no_page_or_app_module_writes_an_option_list_again():
    # the kernels, methods, solvers... a page offers come from the class's constraint (or, for
    # what each kernel uses, from svmviz.kernels); a copy drifts when an option is added or renamed
    from conftest import ROOT

    options = {}
    for name, cls in ESTIMATORS.items():
        for p, rule in cls._parameter_constraints.items():
            if isinstance(rule, OneOf) and all(isinstance(v, str) for v in rule.values):
                options.setdefault(frozenset(rule.values), f"{name}.{p}")
    files = [*sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "svmviz_app").glob("*.py")),
             ROOT / "app.py", ROOT / "home.py"]
    for path in files:
        found = _option_lists(path.read_text(encoding="utf-8"), options)
        assert not found, f"{path.name} writes options of an estimator parameter again: {found}"


def test_the_option_scan_finds_a_copied_list_but_not_a_narrowing():
    options = {frozenset(KERNELS): "BinarySVC.kernel"}
    src = ('KERNELS = ["rbf", "linear", "poly", "sigmoid"]\n'
           'off = lambda v: v["kernel"] not in ("poly", "sigmoid")\n'
           'p = Param("kernel", "Kernel", "rbf", "select", within=("rbf", "linear"))\n')
    assert [f.split(":")[0] for f in _option_lists(src, options)] == ["line 1", "line 2"]


def test_a_page_cannot_label_an_option_the_class_does_not_have():
    from svmviz_app.frame import Param, widget_spec

    ok = Param("method", "Test per point", "single", "radio", labels={"single": "one LP"})
    assert widget_spec(models.GuardVectorSVC, ok)["labels"] == {"single": "one LP"}
    with pytest.raises(ValueError, match="no option"):
        widget_spec(models.GuardVectorSVC, Param("method", "Test per point", "single", "radio",
                                                 labels={"single": "one LP", "seed": "paper"}))


def test_options_are_the_module_constants_themselves():
    from svmviz.models import _svm_tree_build, _svm_tree_nonlinear, dag, guard, scatter, tree_decomposition

    spec = models.param_spec
    assert spec(models.GuardVectorSVC, "method") == guard.METHODS
    assert spec(models.ScatterSVC, "formulation") == scatter.FORMULATIONS
    assert spec(models.TreeDecompositionSVC, "svm_solver") == tree_decomposition.SVM_SOLVERS
    assert spec(models.SVMTreeClassifier, "ck_rule") == _svm_tree_build.CK_RULES
    assert spec(models.SVMTreeClassifier, "fallback") == _svm_tree_build.FALLBACKS
    assert spec(models.WeightedDAGSVC, "weight") == dag.WEIGHTS
    assert models.SVMTreeClassifier._parameter_constraints["nonlinear"].spec == _svm_tree_nonlinear.NONLINEAR_SPEC


def test_param_spec_gives_options_bounds_and_flags():
    assert models.param_spec(models.SVMTreeClassifier, "C_hard") == (0, 1e12)
    assert models.param_spec(models.BinaryNuSVC, "nu") == (0, 1)
    assert models.param_spec(models.BinarySVC, "kernel") == _constraints("BinarySVC")["kernel"].values
    assert models.param_spec(models.SVMTreeClassifier, "prune") is bool
    # a seed as a widget shows it: a whole number in [0, 2**32)
    lo, hi = models.param_spec(models.WeightedDAGSVC, "random_state")
    rule = models.WeightedDAGSVC._parameter_constraints["random_state"]
    assert rule.ok(lo) and rule.ok(hi) and not rule.ok(lo - 1) and not rule.ok(hi + 1)
    assert not isinstance(models.param_spec(models.TreeDecompositionSVC, "C_grid"), (tuple, type))
    with pytest.raises(KeyError):
        models.param_spec(models.BinarySVC, "nu")


# values that once crashed or slipped through: (estimator, parameters, words of the message)
BAD_VALUES = [
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


@pytest.mark.parametrize("name,params,words", BAD_VALUES,
                         ids=[f"{n}-{list(p)[-1]}" for n, p, _ in BAD_VALUES])
def test_bad_parameter_values_are_refused_with_what_to_pass(name, params, words):
    with pytest.raises(ParameterError, match=words) as err:
        ESTIMATORS[name](**params).fit(X2, Y2)
    assert "pass e.g." in str(err.value) or "must be" in str(err.value)


HOSTILE = [math.nan, math.inf, -math.inf, "1", None, 1e30, -1, True, [1.0], {"a": 1}, 10**400]


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_no_hostile_value_escapes_as_a_foreign_exception(name):
    """Every hostile value for every parameter: either accepted (then the fit works or fails with
    an svmviz error) or a ``ParameterError`` — never TypeError, OverflowError, KeyError..."""
    cls = ESTIMATORS[name]
    for p, rule in _constraints(name).items():
        for v in HOSTILE:
            est = cls(**{p: v})
            if rule.ok(v):
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
    assert models.TreeDecompositionSVC._min_class_samples[0] == 2
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
