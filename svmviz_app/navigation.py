"""The pages of the app, one line each (``app.py`` routes to them, the home page links them).

A page is listed in the navigation and linked only when its file exists in ``pages/``.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES_DIR = ROOT / "pages"

# (page file, title, what it shows and the paper it follows)
PAGES = [
    ("1_Data.py", "Data", "choose a built-in, uploaded, generated or hand-drawn data set, its split and normalization"),
    ("2_SVM_Tree.py", "SVM decision tree",
     "a chain of linear SVMs built greedily, one hyperplane per node, with pruning — Zapién Arreola, "
     "Fehr and Burkhardt, “Fast Support Vector Machine Classification of very large Datasets” (2007)"),
    ("3_Convex_Hulls.py", "Convex hulls",
     "reduced convex hulls, the ν-SVM as nearest points between them, and when w = 0 is optimal — "
     "the geometry of the same report (Zapién Arreola et al. 2007, §3.1)"),
    ("4_Guard_Vectors.py", "Guard vectors",
     "one linear program per point finds the points an SVM can use, then the SVM on those only — "
     "Yang and Ahuja, “A Geometric Approach to Train Support Vector Machines” (CVPR 2000)"),
    ("5_Tree_Decomposition.py", "Tree decomposition",
     "a CART tree splits the data, a local RBF SVM classifies each mixed leaf — Chang, Guo, Lin and "
     "Lu, “Tree Decomposition for Large-Scale SVM Problems” (2009)"),
    ("6_DAG_SVM.py", "DAG SVM and weighted DAG SVM",
     "pairwise SVMs combined by a decision DAG, and DAGs per cluster weighted by Gaussians — "
     "Sabzekar, GhasemiGol, Naghibzadeh and Sadoghi Yazdi, “Improved DAG SVM: A New Method for Multi-Class SVM Classification”"),
    ("7_Scatter_SVM.py", "Scatter SVM",
     "one multi-class problem: class prototypes, their scatter, and which features matter — Jenssen, "
     "Kloft, Zien, Sonnenburg and Müller, “A scatter-based prototype framework and multi-class "
     "extension of support vector machines” (2012)"),
    ("8_Solvers.py", "Solvers", "the SMO solver step by step against the cvxpy reference, on the same dual"),
]

# The browser tab's icon: two classes either side of a separating line, in the colours of the
# two-class figures (svmviz.plots.common), as an SVG Streamlit sends inline (a data: URL).
FAVICON = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
           '<rect width="32" height="32" rx="6" fill="#ffffff"/>'
           '<path d="M5 27 27 5" stroke="#333333" stroke-width="3" stroke-linecap="round"/>'
           '<circle cx="10" cy="10" r="5" fill="#00a6c8"/><circle cx="22" cy="22" r="5" fill="#e6b800"/></svg>')


def page_exists(fname: str) -> bool:
    return (PAGES_DIR / fname).is_file()


def app_navigation(lesson: bool):
    """The app's page set-up and navigation (``app.py``): wide layout, lesson mode's projector
    view (``svmviz_app.projector``), the home page and every page file under its usual URL (``/Data``, ``/SVM_Tree``, ...). Returns the page to run."""
    import streamlit as st

    from svmviz_app.projector import projector_style

    # the tab's icon set here, so the pages' icons are not made the tab's icon: a Material one
    # would be fetched from fonts.gstatic.com (a request off the server, failing offline)
    st.set_page_config(page_title="svmviz", page_icon=FAVICON, layout="wide")
    projector_style()
    # a Material icon, drawn with the font Streamlit serves: an emoji needs an emoji font, which
    # headless Chromium and some lecture-room machines lack (a missing-glyph box)
    home = st.Page(ROOT / "home.py", title="Home", icon=":material/home:", default=True)
    pages = [home] + [st.Page(PAGES_DIR / fname, title=fname[2:-3].replace("_", " "), url_path=fname[2:-3])
                      for fname, _, _ in PAGES if page_exists(fname)]
    return st.navigation(pages, position="hidden" if lesson else "sidebar")
