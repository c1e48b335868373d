"""The live class panel without a browser: starting a class publishes the instructor's view,
drawn data travels with it, a student joining by ?room= holds no token."""

from __future__ import annotations

import numpy as np
import pytest

from apphelpers import page_test, problems
from svmviz.data import Dataset
from svmviz.rooms import RoomAccessError

LIVE = "_svmviz_live"


def _store():
    from svmviz_app.live import room_store

    return room_store()


def test_instructor_publishes_and_a_student_takes_the_view():
    rng = np.random.default_rng(0)
    drawn = Dataset(rng.normal(size=(30, 2)), np.repeat([0, 1], 15), name="drawn points", source="drawn")
    teacher = page_test("app.py", dataset=drawn, spec="drawn:abc", **{"split.test": 0.2})
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
    assert token not in str(student.query_params.to_dict() if hasattr(student.query_params, "to_dict")
                            else dict(student.query_params))
    with pytest.raises(RoomAccessError):   # what a student session holds cannot drive the room
        _store().publish(code, s_live["sid"], {"page": "Data"})
    assert _store().follow(code).n_students == 1
