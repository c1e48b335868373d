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


def page_exists(fname: str) -> bool:
    return (PAGES_DIR / fname).is_file()


def app_navigation(lesson: bool):
    """The app's page set-up and navigation (``app.py``): wide layout, lesson mode's projector
    view (``svmviz_app.projector``), the home page and every page file under its usual URL (``/Data``, ``/SVM_Tree``, ...). Returns the page to run."""
    import streamlit as st

    from svmviz_app.projector import projector_style

    st.set_page_config(page_title="svmviz", layout="wide")
    projector_style()
    # an emoji, not a Material icon: Streamlit makes the page's icon the tab's icon, fetched from
    # fonts.gstatic.com for a Material one (a request off the server, failing offline)
    home = st.Page(ROOT / "home.py", title="Home", icon="🏠", default=True)
    pages = [home] + [st.Page(PAGES_DIR / fname, title=fname[2:-3].replace("_", " "), url_path=fname[2:-3])
                      for fname, _, _ in PAGES if page_exists(fname)]
    return st.navigation(pages, position="hidden" if lesson else "sidebar")
