"""The first visit of a page on a fresh server imports what that page needs: its own estimator's
module, not the other papers' (nor what only they use: scikit-learn's SVC, model selection,
metrics and K-means, cvxpy, the model-file functions), since the first student to open a page
waits for every import its run makes. Each check runs in a fresh interpreter, as a server
process starts."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

#: modules a page's first run may pay for only when that page needs them
GUARDED = ("svmviz.models.svm_tree", "svmviz.models.guard", "svmviz.models.tree_decomposition",
           "svmviz.models.dag", "svmviz.models.scatter", "svmviz.export.models", "sklearn.svm",
           "sklearn.model_selection", "sklearn.metrics", "sklearn.cluster", "cvxpy")

#: each method page and what of GUARDED its imports bring: its estimator (the Solvers page also
#: puts scikit-learn's SVC, which brings its metrics and model selection, beside the project's solver)
OWN = {"pages/2_SVM_Tree.py": {"svmviz.models.svm_tree"},
       "pages/3_Convex_Hulls.py": set(),
       "pages/4_Guard_Vectors.py": {"svmviz.models.guard"},
       "pages/5_Tree_Decomposition.py": {"svmviz.models.tree_decomposition"},
       "pages/6_DAG_SVM.py": {"svmviz.models.dag"},
       "pages/7_Scatter_SVM.py": {"svmviz.models.scatter"},
       "pages/8_Solvers.py": {"sklearn.svm", "sklearn.metrics", "sklearn.model_selection"}}

_IMPORTS = """
import ast, json, sys
for f in ("app.py", {page!r}):
    for node in ast.parse(open(f).read()).body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            exec(compile(ast.Module([node], []), f, "exec"))
print(json.dumps(sorted(m for m in {guarded!r} if m in sys.modules)))
"""

# a page's first run, warming off (it starts only after the run, and would import everything)
_FIRST_RUN = """
import json, sys
from svmviz_app import warm
warm.start = lambda after=None: None
from streamlit.testing.v1 import AppTest
at = AppTest.from_file({page!r}, default_timeout=600)
at.run()
assert not at.exception, [e.value for e in at.exception]
print(json.dumps(sorted(m for m in {guarded!r} if m in sys.modules)))
"""


def _loaded(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**os.environ, "SVMVIZ_DATA_DIR": ""},
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_every_method_page_is_listed():
    assert sorted(OWN) == sorted(str(p.relative_to(ROOT)) for p in (ROOT / "pages").glob("[2-9]_*.py"))


@pytest.mark.parametrize("page", sorted(OWN))
def test_a_method_page_imports_its_own_estimator_only(page):
    assert _loaded(_IMPORTS.format(page=page, guarded=GUARDED)) == OWN[page]


def test_a_method_pages_first_run_loads_no_other_estimator_nor_the_model_files():
    # drawing the model's download button must not load the model-file functions (they load
    # every estimator, as a file may name any): they load when the button is clicked
    page = "pages/2_SVM_Tree.py"
    assert _loaded(_FIRST_RUN.format(page=str(ROOT / page), guarded=GUARDED)) == OWN[page]


def test_warming_imports_what_any_page_or_view_may_need():
    # what a first run leaves out is imported once the first page is drawn (svmviz_app.warm), so
    # a later page, tab or model file finds it loaded
    code = ("import json, sys\nfrom svmviz_app import warm\nwarm.import_modules()\n"
            f"print(json.dumps(sorted(m for m in {GUARDED!r} if m in sys.modules)))")
    assert _loaded(code) == set(GUARDED)
