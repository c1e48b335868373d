"""svmviz home page: what each page shows, links to them, and the current data set.

``app.py`` routes to this page and to the files in ``pages/``; a link is shown only for a page
file that exists, so the home page never points at a missing page.
"""

import streamlit as st

from svmviz_app.navigation import PAGES, page_exists
from svmviz.data.builtins import fourclass_note
from svmviz_app.state import current_spec, split_settings
from svmviz.data.dataset import counted
from svmviz.plots.common import minus_sign
from svmviz_app.widgets import data_sidebar, guard, plain, shown_source

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
    # as the sidebar says it: no server path, no generator's Python name or seed, "−1" for -1
    counts = ", ".join(f"{plain(minus_sign(name))}: {k}" for name, k in zip(ds.class_names, ds.class_counts().values()))
    st.markdown(f"**{plain(ds.name)}** — {counted(ds.n_samples, 'sample')} × {counted(ds.n_features, 'feature')}; "
                f"classes {counts}.  \nSource: {plain(shown_source(ds.source))}. Prepared as: "
                f"{split_settings().describe()}.")
    st.page_link("pages/1_Data.py", label="Change it on the Data page")
    if current_spec() == "fourclass_like" and (note := fourclass_note()):
        st.info(note)
