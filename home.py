"""svmviz home page: what each page shows, links to them, and the current data set.

``app.py`` routes to this page and to the files in ``pages/``; a link is shown only for a page
file that exists, so the home page never points at a missing page.
"""

import streamlit as st

from svmviz_app.navigation import PAGES, page_exists
from svmviz.data.builtins import fourclass_note
from svmviz_app.state import current_spec, split_settings
from svmviz_app.widgets import data_sidebar, guard, plain

st.title("svmviz")
st.write("Explore five support-vector-machine methods step by step. Every picture is computed by a "
         "real solver (an SMO solver checked against a cvxpy reference); plots export as HTML/PNG/SVG "
         "and trained models as JSON.")

st.subheader("Pages")
for fname, title, line in PAGES:
    if page_exists(fname):
        # the link holds the title only: a page link is one line, cut off where it is too long
        st.page_link(f"pages/{fname}", label=f"**{title}**")
        st.caption(line)
    else:
        st.caption(f"{title} — {line} (not available in this version)")

st.subheader("Current data")
with guard("cannot load the default data set"):
    ds = data_sidebar()
    counts = ", ".join(f"{plain(name)}: {k}" for name, k in zip(ds.class_names, ds.class_counts().values()))
    st.markdown(f"**{plain(ds.name)}** — {ds.n_samples} samples × {ds.n_features} features; classes {counts}.  \n"
                f"Source: {plain(ds.source)}. Prepared as: {split_settings().describe()}.")
    st.page_link("pages/1_Data.py", label="Change it on the Data page")
    if current_spec() == "fourclass_like" and (note := fourclass_note()):
        st.info(note)
