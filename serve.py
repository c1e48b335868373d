"""svmviz served for a class: ``streamlit run serve.py``. Streamlit serves the app (``app.py``,
which frames every page) through ``st.App``, whose start-up hook (``svmviz_app.server.lifespan``)
applies the process settings and starts warming the process (``svmviz_app.warm``: the method
pages' libraries and the SMO solver's machine code) as the server starts, before anyone opens a
page, without delaying the server's readiness. ``streamlit run app.py`` serves the same app and
warms once its first page is drawn. Beside the app, ``st.App`` serves the live class's step route
(``svmviz_app.step_feed``: a room's step over plain HTTP, one payload for all its followers)."""

import streamlit as st

from svmviz_app.server import lifespan
from svmviz_app.step_feed import StepFeed


def _rooms():
    from svmviz_app.live import room_store   # the app's room store, made on first use

    return room_store()


def _away_after() -> float:
    from svmviz_app.live import away_after_s

    return away_after_s()


ROUTES = StepFeed(_rooms, _away_after).routes()
app = st.App("app.py", lifespan=lifespan, routes=ROUTES)
