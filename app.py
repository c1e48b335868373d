"""svmviz: the entry point (``streamlit run app.py``). It routes to the home page and to every page
file in ``pages/``, keeping Streamlit's usual URLs (``/Data``, ``/SVM_Tree``, ...)."""

import streamlit as st

from svmviz_app.navigation import PAGES, page_exists

st.set_page_config(page_title="svmviz", layout="wide")
home = st.Page("home.py", title="Home", icon=":material/home:", default=True)
pages = [home] + [st.Page(f"pages/{fname}", title=fname[2:-3].replace("_", " "), url_path=fname[2:-3])
                  for fname, _, _ in PAGES if page_exists(fname)]
st.navigation(pages).run()
