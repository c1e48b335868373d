"""svmviz served for a class: ``streamlit run serve.py``. Streamlit serves the app (``app.py``,
which frames every page) through ``st.App``, whose start-up hook (``svmviz_app.server.lifespan``)
applies the process settings and starts warming the process (``svmviz_app.warm``: the method
pages' libraries and the SMO solver's machine code) as the server starts, before anyone opens a
page, without delaying the server's readiness. ``streamlit run app.py`` serves the same app and
warms once its first page is drawn."""

import streamlit as st

from svmviz_app.server import lifespan

app = st.App("app.py", lifespan=lifespan)
