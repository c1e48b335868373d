"""The steppers of the Convex Hulls page (μ walked down from 1 past the zero-solution threshold)
and of the Guard Vectors page (the points tested one at a time): AppTest steps them (Next,
Previous, Last, the step in the URL and from a link, the projector view), their last step is the
page's own fit, and the class's question is answered by what the next step shows."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from apphelpers import as_read, page_test, problems
from svmviz_app.cache import FITS
from svmviz_app.live import room_store

HULLS, GUARD = "pages/3_Convex_Hulls.py", "pages/4_Guard_Vectors.py"
LIVE = "_svmviz_live"


def _data():
    from svmviz.data.generators import fourclass_like

    return fourclass_like(n=300, seed=0)


def _step_line(at) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**Step "))


def _trace(at, chart_key: str, name_start: str) -> dict:
    chart = next(c for c in at.get("plotly_chart") if c.proto.id.endswith(chart_key) or chart_key in c.proto.id)
    spec = json.loads(chart.proto.spec)
    return next(t for t in spec["data"] if str(t.get("name", "")).startswith(name_start))


def _array(v) -> np.ndarray:
    """A figure's array as sent: a list, or a typed array (base64 bytes and a dtype)."""
    if isinstance(v, dict):
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"]).astype(np.float64)
    return np.asarray(v, dtype=np.float64)


def _points(trace) -> np.ndarray:
    return np.column_stack([_array(trace["x"]), _array(trace["y"])])


def model_X(at) -> np.ndarray:
    """The points of the page's guard-vector figure (its classes' traces)."""
    spec = json.loads(next(c for c in at.get("plotly_chart") if "guard_step_fig" in c.proto.id).proto.spec)
    pts = np.vstack([_points(t) for t in spec["data"][:2]])
    idx = np.concatenate([_ids(t) for t in spec["data"][:2]])
    return pts[np.argsort(idx)]


def _ids(trace) -> np.ndarray:
    return _array(trace["customdata"]).astype(np.int64)


def _fitted(cls):
    return [m for m in FITS._data.values() if type(m) is cls]


@pytest.fixture
def no_shared_fits():
    """An empty fit cache, so the models ``_fitted`` finds are the ones this test's page fitted, not
    another test's of the same class and size."""
    FITS.clear()


def test_the_hull_walk_steps_and_the_url_follows():
    at = page_test(HULLS, dataset=_data()).run()
    assert not problems(at) and not at.error
    first = _step_line(at)
    n = int(first.split(" of ")[1].split("**")[0])
    assert first.startswith("**Step 1 of ") and "μ = 1:" in first and "w = 0" in first   # the hulls overlap
    at.button(key="hull.step_next").click().run()
    assert at.session_state["hull.step"] == 1 and at.query_params["hull.step"] == "1"
    assert _step_line(at).startswith(f"**Step 2 of {n}**")
    at.button(key="hull.step_prev").click().run()
    assert _step_line(at) == first
    at.button(key="hull.step_last").click().run()
    assert not problems(at) and _step_line(at).startswith(f"**Step {n} of {n}**")
    # one step says the reduced hulls just touch: μ = μ*, the threshold of the LP
    touched = []
    for k in range(n):
        link = page_test(HULLS, dataset=_data())
        link.query_params["hull.step"] = str(k)   # a link opens at its step
        link.run()
        assert _step_line(link).startswith(f"**Step {k + 1} of {n}**")
        touched += ["just touch" in _step_line(link)]
    assert touched.count(True) == 1
    k_star = touched.index(True)
    assert 0 < k_star < n - 1   # past the threshold within the walk: w ≠ 0 after it


def test_the_hull_walk_s_last_step_is_the_page_s_nu_svm(no_shared_fits):
    from svmviz.models import BinaryNuSVC

    at = page_test(HULLS, dataset=_data(), **{"hull.step": 99}).run()   # clamped to the last step
    assert not problems(at)
    n = int(_step_line(at).split(" of ")[1].split("**")[0])
    assert at.session_state["hull.step"] == n - 1
    nu = at.slider(key="hull.nu").value
    model = next(m for m in _fitted(BinaryNuSVC) if m.nu == nu and m.kernel == "linear")
    line = _points(_trace(at, "hull_step_fig", "ν-SVM hyperplane"))
    scale = np.abs(model.decision_function(model.support_vectors_)).max()
    assert np.abs(model.decision_function(line)).max() < 1e-4 * scale    # the step's line is the fit's boundary
    shown = float(as_read(_step_line(at)).split("‖w‖ = ")[1].rstrip("."))
    distance = float(next(m.value for m in at.metric if m.label == "distance of the reduced hulls"))
    assert shown == pytest.approx(distance, rel=5e-3)


def test_the_guard_page_opens_on_separable_data_and_says_why():
    from svmviz.data import load_builtin

    at = page_test(GUARD, dataset=load_builtin("fourclass_like")).run()
    assert not problems(at) and not at.error
    assert any("not linearly separable" in i.value and "Fig. 4" in i.value for i in at.info)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["points m"] == "50" and 0 < int(metrics["guard vectors g"]) < 25   # a visible minority
    # separable data of the Data page are kept
    rng = np.random.default_rng(3)
    from svmviz.data import Dataset

    sep = Dataset(np.vstack([rng.normal(-3, 1, (40, 2)), rng.normal(3, 1, (40, 2))]), np.repeat([0, 1], 40),
                  ["a", "b"], ["left", "right"], "two clouds", "")
    kept = page_test(GUARD, dataset=sep).run()
    assert not problems(kept) and not any("Fig. 4" in i.value for i in kept.info)
    assert {m.label: m.value for m in kept.metric}["points m"] == "56"   # its training part (70 %)


def test_the_guard_walk_tests_in_the_order_picked_and_ends_with_the_page_s_svm(no_shared_fits):
    from svmviz.models import GuardVectorSVC

    at = page_test(GUARD, **{"guard.src": "cubes50", "guard.order": "nearest"}).run()
    assert not problems(at)
    first = _step_line(at)
    n = int(first.split(" of ")[1].split("**")[0])
    assert "nearest the other class first" in first
    model = next(m for m in _fitted(GuardVectorSVC) if m.delta == 0 and len(m.guard_vectors_) == 50)
    seen = []
    for k in range(1, n - 1):
        at.button(key="guard.step_next").click().run()
        line = _step_line(at)
        point = int(line.split("point ")[1].split(" ")[0])
        seen.append(point)
        assert ("not a guard vector" in line) == (not model.guard_vectors_[point])
    assert sorted(seen) == np.flatnonzero(model.tested_).tolist()
    assert model.guard_vectors_[seen[0]]   # the point nearest the other class is a guard vector
    at.button(key="guard.step_next").click().run()
    assert not problems(at) and at.session_state["guard.step"] == n - 1 and at.query_params["guard.step"] == str(n - 1)
    assert "is the SVM of all 50 points" in _step_line(at)
    found = _points(_trace(at, "guard_step_fig", "guard vectors found"))
    np.testing.assert_allclose(sorted(found.tolist()), sorted(model_X(at)[model.guard_vectors_].tolist()), rtol=1e-6)
    line = _points(_trace(at, "guard_step_fig", "SVM of the guard vectors only"))
    assert np.abs(model.decision_function(line)).max() < 1e-6 * np.abs(model.intercept_).max()
    at.button(key="guard.step_prev").click().run()
    assert at.session_state["guard.step"] == n - 2


@pytest.mark.parametrize("page,key,values", [(HULLS, "hull.step", {}),
                                             (GUARD, "guard.step", {"guard.src": "cubes50", "guard.order": "random",
                                                                    "guard.seed": 4})])
def test_the_question_s_answer_is_what_the_next_step_shows(page, key, values):
    store = room_store()
    code, token = store.create_room()
    at = page_test(page, dataset=_data() if page == HULLS else None, **values)
    at.session_state[LIVE] = {"role": "instructor", "code": code, "token": token}
    at.run()
    assert not problems(at)
    n = int(_step_line(at).split(" of ")[1].split("**")[0])
    for k in range(n - 1):
        at.button(key="live_ask").click().run()
        store.reveal(code, token)   # the answer, as the class sees it once revealed
        q = store.follow(code).question
        assert q is not None and q.prompt.startswith(f"Step {k + 2}:")
        answer = q.options[q.answer]
        at.button(key=f"{key}_next").click().run()
        line = _step_line(at)
        assert line.startswith(f"**Step {k + 2} of")
        if page == HULLS:
            assert ("w = 0" in line or "w is still 0" in line) == (answer == "yes, w = 0"), (line, q)
        elif k + 1 < n - 1:
            assert ("not a guard vector" in line) == (answer == "no"), (line, q)
        else:
            assert ("is the SVM of all" in line) == answer.startswith("yes"), (line, q)
    assert not [b for b in at.button if b.key == "live_ask"]   # nothing to ask at the last step


@pytest.mark.parametrize("page,key,values", [(HULLS, "hull.step", {}), (GUARD, "guard.step", {})])
def test_the_projector_view_shows_the_step_line_and_its_plot_first(page, key, values):
    at = page_test(page, dataset=_data() if page == HULLS else None, **values)
    at.query_params["lesson"] = "1"
    at.run()
    assert not problems(at)
    assert _step_line(at).startswith("**Step 1 of ")
    at.button(key=f"{key}_next").click().run()
    assert _step_line(at).startswith("**Step 2 of ") and at.session_state[key] == 1
    assert any(e.label == "Explanation of this step" for e in at.expander)   # the explanation folded


def test_a_nu_whose_hulls_meet_shows_the_walk_and_says_which_nu_separates_them():
    at = page_test(HULLS, dataset=_data(), **{"hull.nu": 0.005}).run()   # μ above 1: the convex hulls
    assert not problems(at) and not at.error
    assert any("overlap" in w.value and "increase ν" in w.value for w in at.warning)
    assert _step_line(at).startswith("**Step 1 of 1**") and "w = 0" in _step_line(at)


@pytest.mark.parametrize("page,state,line", [
    ("Guard_Vectors", {"guard.step": 5, "guard.order": "nearest"}, "**Step 6 of "),
    ("Convex_Hulls", {"hull.step": 3}, "**Step 4 of "),
])
def test_a_follower_of_the_class_opens_the_instructor_s_step(page, state, line):
    store = room_store()
    code, token = store.create_room()
    store.publish(code, token, {"page": page, "spec": "fourclass_like", "state": state})
    student = page_test("app.py")
    student.query_params["room"] = code
    student.run()   # switches to the instructor's page
    student.run()
    assert not problems(student) and student.session_state["_svmviz_live_page"] == page
    assert _step_line(student).startswith(line)
    for key, value in state.items():
        assert student.session_state[key] == value


def test_play_advances_the_guard_tests_and_a_second_session_builds_no_step_again(monkeypatch):
    """Play (the fragment's timer; AppTest has none, so the test reruns after a second), and a second
    session at the same step takes the walk, the figure and the text the first one built."""
    import time

    import svmviz.models.guard_steps as guard_steps
    import svmviz.plots.guard as guard_plots

    values = {"guard.src": "cubes50", "guard.order": "random", "guard.seed": 11}
    at = page_test(GUARD, **values).run()
    at.button(key="guard.step_play").click().run()
    assert not problems(at) and at.button(key="guard.step_play").label == "Pause"
    time.sleep(1.0)
    at.run()
    assert at.session_state["guard.step"] == 1 and _step_line(at).startswith("**Step 2 of ")
    calls = []
    for module, name in [(guard_steps, "guard_walk"), (guard_steps, "step_summary"), (guard_plots, "plot_guard_step")]:
        fn = getattr(module, name)

        def counted(*args, _fn=fn, _name=name, **kwargs):
            calls.append(_name)
            return _fn(*args, **kwargs)
        counted.__module__, counted.__qualname__ = fn.__module__, fn.__qualname__
        monkeypatch.setattr(module, name, counted)
    second = page_test(GUARD, **values, **{"guard.step": 1}).run()
    assert not problems(second) and _step_line(second) == _step_line(at)
    assert calls == []
