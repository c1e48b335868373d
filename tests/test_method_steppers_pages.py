"""The steppers of the Tree Decomposition, DAG SVM and Scatter SVM pages in AppTest: Next and
Previous move the step line and the picture, the URL holds the step and a link opens it, lesson
mode (the projector) shows the stepper first, the last step shows the page's own final result, the
DAG and Scatter SVM pages open on generated classes when the data has two, saying so, and a
live class's follower sees the instructor's step."""

from __future__ import annotations

import json

import pytest

from apphelpers import page_test, problems

TD, DAG, SCATTER = "pages/5_Tree_Decomposition.py", "pages/6_DAG_SVM.py", "pages/7_Scatter_SVM.py"
# page, step key, the stepper's tab (its position), extra state
PAGES = [(TD, "td.step", 4, {"td.grid": "small"}), (DAG, "dag.step", 4, {}), (SCATTER, "scatter.step", 3, {})]


def _data():
    from svmviz.data.generators import fourclass_like

    return fourclass_like(n=240, seed=0)


def _step_line(at) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**Step "))


def _charts(at) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


@pytest.mark.parametrize("page,key,tab,extra", PAGES)
def test_next_previous_and_the_link_follow_the_step(page, key, tab, extra):
    at = page_test(page, dataset=_data(), **{f"{key.split('.')[0]}.tab": tab, **extra}).run()
    assert not problems(at) and not at.error
    first = _step_line(at)
    n = int(first.split(" of ")[1].split("**")[0])
    assert first.startswith("**Step 1 of ") and n >= 4
    fig1 = _charts(at)[0]
    at.button(key=f"{key}_next").click().run()
    at.button(key=f"{key}_next").click().run()
    assert _step_line(at).startswith(f"**Step 3 of {n}**") and at.query_params[key] == "2"
    assert _charts(at)[0] != fig1                       # the picture moved with the step
    at.button(key=f"{key}_prev").click().run()
    assert _step_line(at).startswith(f"**Step 2 of {n}**") and at.query_params[key] == "1"
    assert not problems(at) and not at.error
    # a link holding the step opens it, in the projector's lesson mode too
    link = page_test(page, dataset=_data(), **extra)
    link.query_params.update({key: "2", "lesson": "1"})
    link.run()
    assert not problems(link) and _step_line(link).startswith(f"**Step 3 of {n}**")
    assert not link.tabs                                 # the projector: the stepper alone, no tabs
    link.button(key=f"{key}_next").click().run()
    assert _step_line(link).startswith(f"**Step 4 of {n}**") and link.query_params[key] == "3"
    assert link.query_params["lesson"] == "1"
    assert any(e.label == "Explanation of this step" for e in link.expander)


def _last(at, key):
    at.button(key=f"{key}_last").click().run()
    assert not problems(at) and not at.error
    return _charts(at)[0]


def test_td_last_step_is_the_partition_the_page_shows():
    at = page_test(TD, dataset=_data(), **{"td.tab": 4, "td.grid": "small"}).run()
    last = _last(at, "td.step")
    assert "Chosen: σ = " in _step_line(at)
    final = page_test(TD, dataset=_data(), **{"td.tab": 0, "td.grid": "small"}).run()   # the Partition tab at σ_opt
    part = _charts(final)[0]
    assert last["data"] == part["data"] and last["layout"]["shapes"] == part["layout"]["shapes"]


def test_dag_last_step_is_the_fused_weighted_dag_and_two_classes_open_three():
    at = page_test(DAG, dataset=_data(), **{"dag.tab": 4}).run()
    assert any("has 2 classes" in i.value and "three generated classes instead" in i.value for i in at.info)
    assert "\\[0, 1, 2\\]" in _step_line(at)            # three classes in the DAG's list
    last = _last(at, "dag.step")
    assert "the weighted DAG says" in _step_line(at)
    wdag = page_test(DAG, dataset=_data(), **{"dag.tab": 3}).run()
    fused = next(c for c in _charts(wdag) if "fused" in c["layout"]["title"]["text"])
    assert last["data"][:len(fused["data"])] == fused["data"] and last["data"][-1]["name"] == "the sample"


def test_scatter_last_step_is_the_sensitivity_map_of_the_page():
    at = page_test(SCATTER, dataset=_data(), **{"scatter.tab": 3}).run()
    last = _last(at, "scatter.step")
    assert "Sensitivity map" in _step_line(at)
    sens = page_test(SCATTER, dataset=_data(), **{"scatter.tab": 2, "scatter.sens": "tab1"}).run()
    assert last == _charts(sens)[0]


ASKED = [(TD, "td.step", 4, {"td.grid": "small"}, lambda a, line: f"{['none', 'one', 'both'].index(a)} of them pure" in line),
         (DAG, "dag.step", 4, {}, lambda a, line: f"not {a}\\." in line),
         (SCATTER, "scatter.step", 3, {}, lambda a, line: f"prototype {a.replace('-', chr(92) + '-')} moved most" in line)]


@pytest.mark.parametrize("page,key,tab,extra,shows", ASKED)
def test_the_class_is_asked_what_the_next_step_shows(page, key, tab, extra, shows):
    """The instructor's "Ask the class" poses the page's question about the next step; the next
    step's line shows its answer."""
    from svmviz_app.live import room_store

    store = room_store()
    code, token = store.create_room()
    at = page_test(page, dataset=_data(), **{f"{key.split('.')[0]}.tab": tab, **extra})
    at.session_state["_svmviz_live"] = {"role": "instructor", "code": code, "token": token}
    at.run()
    at.button(key="live_ask").click().run()
    assert not problems(at) and not at.error
    assert store.follow(code).question is not None
    store.reveal(code, token)
    q = store.follow(code).question
    assert len(q.options) >= 2
    at.run()
    if at.session_state[key] == 0:   # the reveal moves the instructor's step on where the panel does it
        at.button(key=f"{key}_next").click().run()
    assert at.session_state[key] == 1
    assert shows(q.options[q.answer], _step_line(at)), (q.prompt, q.options[q.answer], _step_line(at))


def test_scatter_opens_on_six_classes_when_the_data_has_two_and_says_so():
    at = page_test(SCATTER, dataset=_data(), **{"scatter.tab": 3}).run()
    assert not problems(at) and not at.error
    assert any("has 2 classes" in i.value and "six generated classes instead" in i.value for i in at.info)
    assert at.session_state["scatter.src"] == "current data set"   # data with more classes shows them
    at.button(key="scatter.step_next").click().run()
    line = _step_line(at)
    assert line.startswith("**Step 2 of ") and "moved most" in line
    circle = page_test(SCATTER, dataset=_data(), **{"scatter.tab": 3, "scatter.src": "circle"}).run()
    circle.button(key="scatter.step_next").click().run()
    assert _step_line(circle) == line and _charts(circle)[0] == _charts(at)[0]   # the six classes
    # a link to that step opens the same view, in the projector too
    link = page_test(SCATTER, dataset=_data())
    link.query_params.update({"scatter.step": "1", "lesson": "1"})
    link.run()
    assert not problems(link) and _step_line(link) == line
    assert any("six generated classes instead" in i.value for i in link.info)


@pytest.mark.parametrize("page,key,tab,extra,module,name", [
    (TD, "td.step", 4, {"td.grid": "small"}, "svmviz.plots.tree_decomposition", "plot_td_step"),
    (DAG, "dag.step", 4, {}, "svmviz.plots.dag", "plot_dag_step"),
    (SCATTER, "scatter.step", 3, {}, "svmviz.plots.scatter", "plot_scatter_iterate")])
def test_a_second_session_at_the_same_step_builds_nothing_again(monkeypatch, page, key, tab, extra, module, name):
    """A step's picture is built and converted once for every session with the same data,
    parameters and step: a second session there neither draws nor serialises it again (the
    page's views that do not step are not counted)."""
    import importlib
    import traceback
    from collections import Counter

    import plotly.basedatatypes

    made = Counter()

    def counted(owner, attr, where=None):
        f = getattr(owner, attr)

        def count(*args, **kwargs):
            if where is None or any(fr.name == where for fr in traceback.extract_stack()):
                made[attr] += 1
            return f(*args, **kwargs)
        monkeypatch.setattr(owner, attr, count)

    counted(importlib.import_module(module), name)
    counted(plotly.basedatatypes.BaseFigure, "to_dict", where="view")   # inside the stepper's view
    from svmviz.data.generators import gaussians_on_circle

    data = gaussians_on_circle(3, 40, seed=7)   # data no other test steps through: nothing of it is cached yet
    state = {f"{key.split('.')[0]}.tab": tab, **extra}
    first = page_test(page, dataset=data, **state).run()
    first.button(key=f"{key}_next").click().run()
    assert made[name] and not problems(first)
    made.clear()
    second = page_test(page, dataset=data, **state).run()
    second.button(key=f"{key}_next").click().run()
    assert not problems(second) and _step_line(second).startswith("**Step 2 of ")
    assert not made, made


@pytest.mark.parametrize("page,key,tab,extra", PAGES)
def test_a_follower_of_the_class_sees_the_instructor_s_step(through_the_app, page, key, tab, extra):
    """The instructor steps on in the app; a student opening the room's link sees the same page,
    data, tab and step line."""
    from svmviz.data import load_builtin
    from svmviz_app.live import room_store

    store = room_store()
    code, token = store.create_room()
    teacher = page_test("app.py", dataset=load_builtin("fourclass_like"), spec="fourclass_like",
                        **{f"{key.split('.')[0]}.tab": tab, **extra})
    teacher.session_state["_svmviz_live"] = {"role": "instructor", "code": code, "token": token}
    teacher.run()
    teacher.switch_page(page).run()
    for _ in range(2):
        teacher.button(key=f"{key}_next").click().run()
    assert not problems(teacher) and _step_line(teacher).startswith("**Step 3 of ")
    student = page_test("app.py")
    student.query_params["room"] = code
    student.run()   # switches to the instructor's page
    student.run()
    assert not problems(student) and student.session_state[key] == 2
    assert _step_line(student) == _step_line(teacher)


def test_a_lesson_file_of_two_class_data_brings_back_the_scatter_step_on_six_classes(through_the_app):
    from svmviz.export.lesson import dumps_lesson

    ds = _data()
    view = {"scatter.tab": 3, "scatter.step": 2}
    at = page_test("app.py").run()
    at.switch_page("pages/1_Data.py").run()
    at.radio(key="data.source").set_value("Upload a file").run()
    at.file_uploader(key="data_upload").set_value(("lesson.json", dumps_lesson(ds, view).encode(),
                                                   "application/json")).run()
    at.switch_page(SCATTER).run()
    assert not problems(at) and not at.error and at.session_state["scatter.step"] == 2
    assert any("six generated classes instead" in i.value for i in at.info)
    same = page_test(SCATTER, dataset=ds, **view).run()
    assert _step_line(at).startswith("**Step 3 of ") and "moved most" in _step_line(at)
    assert _step_line(at) == _step_line(same) and _charts(at)[0] == _charts(same)[0]
