"""svmviz: the entry point (``streamlit run app.py``). It routes to the home page and to every page
file in ``pages/``, keeping Streamlit's usual URLs (``/Data``, ``/SVM_Tree``, ...), and wraps every
page in the app state's run hooks (``svmviz_app.state``): values survive page switches, and the
URL always holds the state of the view, so a copied link reproduces it."""

from svmviz_app import server

server.configure()  # process settings for serving a class, once per server (svmviz_app/server.py)

import streamlit as st

from svmviz_app import state
from svmviz_app.navigation import PAGES, page_exists

st.set_page_config(page_title="svmviz", layout="wide")
state.start_run()
if state.lesson_mode():
    # lesson mode (?lesson=1): what an instructor projects — no sidebar, larger step buttons
    st.markdown("<style>[data-testid='stSidebar'], [data-testid='stSidebarCollapsedControl'] "
                "{display: none;} .stButton button {font-size: 1.3rem; padding: 0.6rem 1.6rem;}</style>",
                unsafe_allow_html=True)
home = st.Page("home.py", title="Home", icon=":material/home:", default=True)
pages = [home] + [st.Page(f"pages/{fname}", title=fname[2:-3].replace("_", " "), url_path=fname[2:-3])
                  for fname, _, _ in PAGES if page_exists(fname)]
try:
    st.navigation(pages, position="hidden" if state.lesson_mode() else "sidebar").run()
finally:
    state.finish_run()
