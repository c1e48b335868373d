"""Which view a session shows: the normal page or lesson mode's projector view (``?lesson=1``).
Its own module so that the projector styling can ask without loading the app state (which loads
the navigation, which loads the projector styling)."""

from __future__ import annotations

import streamlit as st

from svmviz_app.session_keys import URL as _URL

LESSON_FLAG = "lesson"            # ?lesson=1: lesson mode (no sidebar, large step buttons)


def lesson_mode() -> bool:
    """True when the view was opened with ``?lesson=1`` or switched to it
    (``state.set_lesson_mode``): pages show only the plot, the step controls and the explanation."""
    url = st.session_state.get(_URL)
    v = url[LESSON_FLAG] if url is not None and LESSON_FLAG in url else st.query_params.get(LESSON_FLAG)
    return str(v).lower() in ("1", "true", "yes")
