"""The pages of the app, one line each (``app.py`` routes to them, the home page links them).

A page is listed in the navigation and linked only when its file exists in ``pages/``.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES_DIR = ROOT / "pages"

# (page file, title, what it shows; the seed paper in ../shared/seeds it follows)
PAGES = [
    ("1_Data.py", "Data", "choose a built-in, uploaded or generated data set, its split and normalization"),
    ("2_SVM_Tree.py", "SVM tree (seed 000)",
     "a decision tree of linear SVMs built greedily, one hyperplane per node, with pruning"),
    ("3_Convex_Hulls.py", "Convex hulls (seed 000)",
     "reduced convex hulls, the ν-SVM as nearest points between them, and when w = 0 is optimal"),
    ("4_Guard_Vectors.py", "Guard vectors (seed 001)",
     "one linear program per point finds the points an SVM can use, then the SVM on those only"),
    ("5_Tree_Decomposition.py", "Tree decomposition (seed 002)",
     "a CART tree splits the data, a local RBF SVM classifies each mixed leaf"),
    ("6_DAG_SVM.py", "DAG SVM and weighted DAG SVM (seed 003)",
     "pairwise SVMs combined by a decision DAG, and DAGs per cluster weighted by Gaussians"),
    ("7_Scatter_SVM.py", "Scatter SVM (seed 004)",
     "one multi-class problem: class prototypes, their scatter, and which features matter"),
    ("8_Solvers.py", "Solvers", "the SMO solver step by step against the cvxpy reference, on the same dual"),
]


def page_exists(fname: str) -> bool:
    return (PAGES_DIR / fname).is_file()
