"""Link values at and beyond the edges of what a widget allows: clamped or refused with a short
note in the run that read them, never a Streamlit or scikit-learn exception."""

from __future__ import annotations

import re

import numpy as np

from apphelpers import page_test, problems
from svmviz.data import Dataset
from svmviz.data.generators import fourclass_like

SOLVERS = "pages/8_Solvers.py"


def _notes(at) -> list[str]:
    """The link notes as the reader sees them (shown as plain text: Markdown escaped)."""
    shown = [re.sub(r"\\(.)", r"\1", i.value) for i in at.info]
    return [s for s in shown if "The link's" in s]


def test_a_nu_link_between_the_rounded_and_the_true_maximum_fits_the_slider():
    # 107 of 300 samples in the smaller class: ν ≤ 2·107/300 = 0.7133, a slider in steps of 0.01
    X = np.random.default_rng(0).normal(size=(300, 2))
    ds = Dataset(X, np.r_[np.zeros(107, int), np.ones(193, int)], name="three hundred")
    at = page_test(SOLVERS, dataset=ds, **{"split.test": 0.0})
    at.query_params.update({"solvers.form": "nu", "solvers.nu": "0.713"})
    at.run()
    assert not problems(at)
    nu = next(s for s in at.slider if s.key == "solvers.nu")
    assert nu.min <= nu.value <= nu.max and nu.max <= 2 * 107 / 300


def test_a_split_seed_outside_the_widget_s_range_is_clamped_with_a_note():
    for raw, used in (("-1", 0), (str(2**40), 2**31 - 1)):
        at = page_test(SOLVERS)
        at.query_params.update({"data": "gen:fourclass_like;n=120", "split.seed": raw})
        at.run()
        assert not problems(at) and not at.error, [e.value for e in at.error]
        assert any("split.seed" in n and f"{used:,} is used" in n for n in _notes(at)), _notes(at)
        assert at.session_state["split.seed"] == used


def test_a_huge_link_value_is_quoted_short():
    big = "x" * 500_000
    for key, value in (("data", "gen:" + big), ("split.test", big)):
        at = page_test(SOLVERS)
        at.query_params.update({key: value})
        at.run()
        assert not problems(at)
        notes = _notes(at)
        assert len(notes) == 1 and len(notes[0]) < 1_000, [len(n) for n in notes]
        assert re.search(r"500,0\d\d characters", notes[0])   # its length is said instead


def test_a_bad_step_in_a_link_is_noted_in_the_run_that_read_it():
    at = page_test("pages/2_SVM_Tree.py", dataset=fourclass_like(n=120, seed=0))
    at.query_params.update({"tree.step": "abc"})
    at.run()
    assert not problems(at)
    assert any("tree.step" in n and "'abc'" in n for n in _notes(at)), _notes(at)
