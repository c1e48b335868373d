"""The live class panel without a browser: starting a class publishes the instructor's view,
drawn data travels with it, a student joining by ?room= holds no token."""

from __future__ import annotations

import numpy as np
import pytest

from apphelpers import page_test, problems
from svmviz.data import Dataset
from svmviz_app.rooms import RoomAccessError, display_code
from svmviz_app.live import LIVE_OPEN

LIVE = "_svmviz_live"


def _store():
    from svmviz_app.live import room_store

    return room_store()


def test_instructor_publishes_and_a_student_takes_the_view():
    rng = np.random.default_rng(0)
    drawn = Dataset(rng.normal(size=(30, 2)), np.repeat([0, 1], 15), name="drawn points", source="drawn")
    teacher = page_test("app.py", dataset=drawn, spec="drawn:abc", **{"split.test": 0.2})
    teacher.run()
    assert not [b for b in teacher.button if b.key == "live_start"]   # the closed panel draws nothing
    teacher.session_state[LIVE_OPEN] = True
    teacher.run()
    teacher.button(key="live_start").click().run()
    assert not problems(teacher)
    live = teacher.session_state[LIVE]
    code, token = live["code"], live["token"]
    f = _store().follow(code)
    assert f.version >= 1
    assert f.view["spec"] == "drawn:abc" and f.view["state"]["split.test"] == 0.2
    np.testing.assert_allclose(f.view["data"]["X"], drawn.X)   # data a link cannot carry travels along
    student = page_test("app.py")
    student.query_params["room"] = code
    student.run()
    assert not problems(student)
    s_live = student.session_state[LIVE]
    assert s_live["role"] == "student" and "token" not in s_live
    # a joined room's panel is open (its poll runs there) and stays open while the room is joined
    assert student.session_state[LIVE_OPEN] and "Following the instructor." in [c.value for c in student.caption]
    student.session_state[LIVE_OPEN] = False
    student.run()
    assert student.session_state[LIVE_OPEN] and any(b.key == "live_detach" for b in student.button)
    assert token not in str(student.query_params.to_dict() if hasattr(student.query_params, "to_dict")
                            else dict(student.query_params))
    with pytest.raises(RoomAccessError):   # what a student session holds cannot drive the room
        _store().publish(code, s_live["sid"], {"page": "Data"})
    assert _store().follow(code).n_students == 1


def test_the_dag_question_hides_the_samples_path_until_the_reveal():
    from svmviz.data.generators import generate

    store = _store()
    code, token = store.create_room()
    ds = generate("checkerboard", n_classes=3, n_per_class=20, seed=1)
    at = page_test("pages/6_DAG_SVM.py", dataset=ds, spec="gen:checkerboard;n_classes=3;n_per_class=20;seed=1",
                   **{"dag.probe": 4, "dag.tab": 2})   # the DAG's tab, where the sample's path is drawn
    at.session_state[LIVE] = {"role": "instructor", "code": code, "token": token}
    at.run()
    assert not problems(at)
    shown = [c.value for c in at.caption if c.value.startswith("Sample #4")]
    assert shown and "→ predicted" in shown[0]          # no question: the path is shown
    at.button(key="live_ask").click().run()
    assert not problems(at)
    q = store.follow(code).question
    assert q is not None and q.prompt == "Which class does sample 4 reach in the DAG?"
    assert set(q.options) == {str(n) for n in ds.class_names}
    hidden = [c.value for c in at.caption if c.value.startswith("Sample #4")]
    assert hidden and "predicted" not in hidden[0] and "after the reveal" in hidden[0]
    store.reveal(code, token)
    at.run()
    assert "→ predicted" in [c.value for c in at.caption if c.value.startswith("Sample #4")][0]


def test_the_projector_shows_the_join_link_as_a_qr_code_without_the_token():
    import base64

    import segno

    from svmviz_app.live import join_qr_svg

    link = "http://class.example:8501/SVM_Tree?room=ABCD-EFGH"
    svg = join_qr_svg(link)
    assert svg.startswith("<svg") and svg == join_qr_svg(link)
    assert segno.make(link, error="m").designator.endswith(("M", "Q", "H"))   # readable from afar
    teacher = page_test("app.py")
    teacher.query_params["lesson"] = "1"
    teacher.run()
    teacher.session_state[LIVE] = None
    code, token = _store().create_room()
    teacher.session_state[LIVE] = {"role": "instructor", "code": code, "token": token}
    teacher.run()
    assert not problems(teacher)
    imgs = [m.value for m in teacher.markdown if "class='svmviz-join-qr'" in m.value]
    assert len(imgs) == 1, "no QR code in the lesson display"
    kind, _, data = imgs[0].split("src='")[1].split("'")[0].partition(";base64,")
    assert kind == "data:image/svg+xml"
    # the code of the students' link (on this page, with the room's code), never the token
    shown = base64.b64decode(data).decode()
    assert shown == join_qr_svg(f"/?room={display_code(code)}") and token not in shown


def test_a_follower_switches_to_the_page_the_instructor_shows():
    store = _store()
    code, token = store.create_room()
    store.publish(code, token, {"page": "Data", "spec": "fourclass_like", "state": {"split.test": 0.25}})
    student = page_test("app.py")
    student.query_params["room"] = code
    student.run()
    assert not problems(student)
    assert student.session_state["_svmviz_live_page"] == "Data"     # switched from Home
    assert student.session_state["split.test"] == 0.25


def test_a_step_only_change_is_told_apart_from_any_other_change():
    from svmviz_app.live import step_only_change

    old = {"page": "SVM_Tree", "spec": "fourclass", "state": {"tree.step": 2, "tree.geo": "a", "tree.C_hard": 1000.0}}
    steps = {"tree.step": {"tree.geo", "tree.show_rch"}}
    mine = {"tree.step": 2, "tree.geo": "a", "tree.C_hard": 1000.0, "split.test": 0.3}   # split: never sent

    def new(**state):
        return {**old, "state": {**old["state"], **state}}

    # the step and what the stepper's view binds: its stepper alone redraws them
    assert step_only_change(old, new(**{"tree.step": 3, "tree.geo": "c"}), mine, steps) == (
        "tree.step", {"tree.step": 3, "tree.geo": "c"})
    # a parameter of the fit, another page or data, a removed value, a first view: an app run
    assert step_only_change(old, new(**{"tree.step": 3, "tree.C_hard": 10.0}), mine, steps) is None
    assert step_only_change(old, {**new(**{"tree.step": 3}), "page": "Data"}, mine, steps) is None
    assert step_only_change(old, {**new(**{"tree.step": 3}), "spec": "gen:x"}, mine, steps) is None
    assert step_only_change(old, {**old, "state": {"tree.step": 3, "tree.geo": "a"}}, mine, steps) is None
    assert step_only_change(None, new(**{"tree.step": 3}), mine, steps) is None
    # no stepper of that key drawn on this page
    assert step_only_change(old, new(**{"tree.step": 3}), mine, {"smo.step": set()}) is None
    # the student changed a parameter meanwhile: the whole view is taken again
    assert step_only_change(old, new(**{"tree.step": 3}), {**mine, "tree.C_hard": 5.0}, steps) is None
    # keys this student never bound it cannot have changed
    assert step_only_change(old, new(**{"tree.step": 3}), {"tree.step": 2}, steps) == ("tree.step", {"tree.step": 3})
    # what the student's own view already set at this step (the candidate its stepper followed)
    # needs no rerun
    assert step_only_change(old, new(**{"tree.geo": "c"}), {**mine, "tree.geo": "c"}, steps) == ("tree.step", {})
    assert step_only_change(old, new(**{"tree.step": 3, "tree.geo": "c"}), {**mine, "tree.geo": "c"}, steps) == (
        "tree.step", {"tree.step": 3})



def test_the_instructor_takes_the_class_to_another_device_with_a_resume_code():
    store = _store()
    laptop = page_test("app.py", **{LIVE_OPEN: True})
    laptop.run()
    laptop.button(key="live_start").click().run()
    code = laptop.session_state[LIVE]["code"]
    laptop.button(key="live_resume").click().run()
    assert not problems(laptop)
    shown = [i.value for i in laptop.info if "other device" in i.value]
    assert shown
    typed = shown[0].split("`")[1]   # "ABCD-EFGH WXYZ-2345"
    assert typed.startswith(display_code(code))
    laptop.run()
    assert not [i for i in laptop.info if "other device" in i.value]   # shown once
    tablet = page_test("app.py", **{LIVE_OPEN: True})
    tablet.run()
    tablet.text_input(key="_svmviz_live_code").input(typed.lower()).run()
    tablet.button(key="live_join").click().run()
    assert not problems(tablet)
    live = tablet.session_state[LIVE]
    assert live["role"] == "instructor" and live["code"] == code
    store.touch(code, live["token"])
    with pytest.raises(RoomAccessError):   # the first device drives no more
        store.touch(code, laptop.session_state[LIVE]["token"])


def test_a_student_who_detaches_keeps_the_step_the_class_is_on(through_the_app):
    """A following student's browser shows a new step before the student's session has taken it
    (the step element draws it from the room; the session's poll comes at its next tick). Detach
    then keeps the step the class is on, not the step the session last took."""
    from svmviz.data import load_builtin

    store = _store()
    code, token = store.create_room()
    teacher = page_test("app.py", dataset=load_builtin("fourclass_like"), spec="fourclass_like")
    teacher.session_state[LIVE] = {"role": "instructor", "code": code, "token": token}
    teacher.run()
    teacher.switch_page("pages/2_SVM_Tree.py").run()
    teacher.button(key="tree.step_next").click().run()
    student = page_test("app.py")
    student.query_params["room"] = code
    student.run()   # switches to the instructor's page
    student.run()
    assert not problems(student) and student.session_state["tree.step"] == 1
    teacher.button(key="tree.step_next").click().run()   # the class moves on; this session has not polled
    assert teacher.session_state["tree.step"] == 2
    student.button(key="live_detach").click().run()
    assert not problems(student) and student.session_state[LIVE]["detached"]
    assert student.session_state["tree.step"] == 2
    assert student.query_params["tree.step"] == "2"   # the address bar too
