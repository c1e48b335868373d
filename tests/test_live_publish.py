"""An instructor's step is published to the class once, as the instructor's page draws it: the
step view moves values it binds (SVM Tree's candidate follows the chosen one from step to step),
and a view published before them would wake every follower for a step it then takes twice."""

from __future__ import annotations

from apphelpers import page_test, problems
from svmviz_app.live import room_store

LIVE = "_svmviz_live"


def test_each_step_click_publishes_one_view_the_one_the_instructors_page_shows():
    store = room_store()
    code, token = store.create_room()
    at = page_test("pages/2_SVM_Tree.py")
    at.session_state[LIVE] = {"role": "instructor", "code": code, "token": token}
    at.run()
    assert not problems(at)
    published = []
    publish = store.publish

    def recording(code, token, view):
        published.append(view)
        return publish(code, token, view)

    store.publish = recording
    try:
        per_click, geos = [], set()
        for _ in range(6):
            n = len(published)
            at.button(key="tree.step_next").click().run()
            assert not problems(at)
            per_click.append(len(published) - n)
            shown = store.follow(code).view["state"]
            assert shown["tree.step"] == at.session_state["tree.step"]
            assert shown["tree.geo"] == at.session_state["tree.geo"]
            geos.add(shown["tree.geo"])
    finally:
        del store.publish
    assert len(geos) > 1   # the view moved the candidate it shows at some step
    assert per_click == [1] * 6
