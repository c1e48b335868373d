"""Pure functions ``fitted model (+ data, + step) -> plotly Figure``; no Streamlit here.

One module per page: ``svmviz.plots.svm_tree``, ``.hulls``, ``.guard``, ``.tree_decomposition``,
``.dag``, ``.scatter``, ``.solvers``; the data plot in ``.data``; shared pieces in ``.common``.
"""

__all__ = ["common", "dag", "data", "draw", "guard", "hulls", "scatter", "solvers", "standard", "svm_tree",
           "tree_decomposition"]
