"""Widgets every page uses: the error guard, the data summary in the sidebar, downloads."""

from __future__ import annotations

import contextlib
import re

import streamlit as st

from svmviz.data import Dataset
from svmviz.export import ExportError, dumps_model, figure_bytes
from svmviz_app.state import current_dataset


@contextlib.contextmanager
def guard(what: str = ""):
    """Show a ``ValueError`` (every svmviz error is one) as ``st.error`` instead of a traceback;
    the session state the page had stays as it was."""
    try:
        yield
    except ValueError as exc:
        st.error(f"{what + ': ' if what else ''}{exc}")


def data_sidebar() -> Dataset:
    """The current data set, summarised in the sidebar, with a link to the Data page."""
    ds = current_dataset()
    with st.sidebar:
        st.markdown(f"**Data:** {ds.name}  \n{ds.n_samples} samples × {ds.n_features} features, "
                    f"{len(ds.classes)} classes")
        st.caption(f"{ds.source} — change it on the Data page")
    return ds


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", s).strip("_") or "figure"


def figure_downloads(fig, basename: str, key: str, formats=("html", "png", "svg")) -> None:
    """Download buttons for ``fig``; PNG/SVG are rendered only when asked for (they need a
    browser through kaleido, which is slow), HTML is always there."""
    name = _slug(basename)
    cols = st.columns(len(formats))
    for col, fmt in zip(cols, formats):
        with col:
            if fmt == "html":
                st.download_button("Download HTML", figure_bytes(fig, "html"), f"{name}.html",
                                   "text/html", key=f"{key}_html")
            else:
                if st.button(f"Render {fmt.upper()}", key=f"{key}_{fmt}_render"):
                    try:
                        st.session_state[f"{key}_{fmt}"] = figure_bytes(fig, fmt)
                    except ExportError as exc:
                        st.error(str(exc))
                data = st.session_state.get(f"{key}_{fmt}")
                if data is not None:
                    mime = "image/png" if fmt == "png" else "image/svg+xml"
                    st.download_button(f"Download {fmt.upper()}", data, f"{name}.{fmt}", mime,
                                       key=f"{key}_{fmt}_dl")


def model_download(model, basename: str, key: str) -> None:
    """A download button for ``model`` as a versioned JSON document."""
    with guard("cannot export the model"):
        st.download_button("Download model (JSON)", dumps_model(model), f"{_slug(basename)}.json",
                           "application/json", key=f"{key}_model")
