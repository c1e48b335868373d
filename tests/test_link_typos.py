"""Links with a mistake in them: a data set name that does not exist is named as unknown with the
names that do; a normalization that does not exist gets a note, leaves the URL and the view uses
none."""

from __future__ import annotations

import re

from apphelpers import page_test, problems
from svmviz.data import BUILTINS


def _notes(at) -> str:
    """The notes as read: shown as plain text, their Markdown characters escaped."""
    return " ".join(re.sub(r"\\(.)", r"\1", i.value) for i in at.info)


def test_unknown_data_name_says_so_and_lists_the_names():
    at = page_test("home.py")
    at.query_params["data"] = "doesnotexist"
    at.run()
    assert not problems(at)
    notes = _notes(at)
    assert "there is no data set named 'doesnotexist'" in notes
    assert all(name in notes for name in BUILTINS)
    assert "cannot carry" not in notes


def test_an_upload_link_still_points_at_the_lesson_file():
    at = page_test("home.py")
    at.query_params["data"] = "upload:0123456789abcdef"
    at.run()
    assert "which a link cannot carry: load the lesson file" in _notes(at)


def test_unknown_normalization_gets_a_note_and_leaves_the_link():
    at = page_test("app.py")   # app.py writes the URL after the page
    at.query_params["split.norm"] = "banana"
    at.query_params["split.seed"] = "4"
    at.run()
    assert not problems(at)
    assert "normalization 'banana' is not one of none, minmax, stddev" in _notes(at)
    assert at.session_state["split.norm"] == "none"
    assert "split.norm" not in at.query_params and at.query_params["split.seed"] == "4"
