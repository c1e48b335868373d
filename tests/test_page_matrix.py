"""Every page over a matrix of data sets: each page either shows its result or a
clear message — never an exception (a traceback in the browser)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from apphelpers import page_test, problems
from svmviz.data import Dataset

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "pages").glob("*.py"))


def _blobs(n: int, d: int = 2, k: int = 2, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    centres = rng.normal(scale=2.0, size=(k, d))
    return centres[y] + rng.normal(size=(n, d)), y


def _ds(name: str, X, y, check: bool = True) -> Dataset:
    return Dataset(np.asarray(X, dtype=float), np.asarray(y), name=name, source="test matrix",
                   check_classes=check)


def _sets():
    out = {}
    for n in (2, 3, 7, 50, 399, 400, 800, 1200, 5000):
        X, y = _blobs(n)
        out[f"two-class n={n}"] = lambda X=X, y=y, n=n: _ds(f"n{n}", X, y, check=n >= 4)
    for k in (3, 5):
        X, y = _blobs(60 * k, k=k)
        out[f"{k} classes"] = lambda X=X, y=y, k=k: _ds(f"k{k}", X, y)
    for d in (1, 3, 10):
        X, y = _blobs(120, d=d)
        out[f"{d} features"] = lambda X=X, y=y, d=d: _ds(f"d{d}", X, y)
    X, y = _blobs(40)
    out["duplicated points"] = lambda X=X, y=y: _ds("dup", np.vstack([X, X, X]), np.concatenate([y, y, y]))
    X, y = _blobs(41)
    y1 = y.copy()
    y1[:] = 0
    y1[0] = 1
    out["a class with one sample"] = lambda X=X, y=y1: _ds("one", X, y, check=False)
    X, y = _blobs(120, d=3)
    X[:, 1] = 4.0
    out["a constant feature"] = lambda X=X, y=y: _ds("const", X, y)
    return out


SETS = _sets()


@pytest.mark.slow
@pytest.mark.parametrize("data", list(SETS))
@pytest.mark.parametrize("page", PAGES)
def test_page_never_raises_for_any_data(page, data):
    at = page_test(page, dataset=SETS[data](), timeout=300).run()
    assert not problems(at), f"{page} on {data}: {problems(at)}"
    shown = [e.value for e in (*at.error, *at.info, *at.warning)] + [c.proto.spec for c in at.get("plotly_chart")]
    assert at.title and shown, f"{page} on {data} shows neither a result nor a message"
    # a page's tabs compute only while open (bound as <page>.tab): each one, opened
    bound = [k for k in at.session_state["_svmviz_bound"] if k.endswith(".tab")]
    for key in bound:
        for tab in range(1, len(at.tabs)):
            at.session_state[key] = tab
            at.run()
            assert not problems(at), f"{page} on {data}, tab {tab}: {problems(at)}"
