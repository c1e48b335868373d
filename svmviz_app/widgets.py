"""Widgets every page uses: the error guard, the data summary in the sidebar, downloads."""

from __future__ import annotations

import contextlib
import re
from typing import Callable

import streamlit as st

from svmviz.data import Dataset, load_dataset
from svmviz.export import dumps_model, figure_bytes, image_export_available
from svmviz_app.state import current_dataset, set_dataset, split_settings

_UPLOAD_SEEN_KEY = "svmviz_upload_seen"


@contextlib.contextmanager
def guard(what: str = ""):
    """Show a ``ValueError`` (every svmviz error is one) as ``st.error`` instead of a traceback;
    the session state the page had stays as it was."""
    try:
        yield
    except ValueError as exc:
        st.error(f"{what + ': ' if what else ''}{exc}")


def data_sidebar() -> Dataset:
    """The current data set and how it is prepared, summarised in the sidebar."""
    ds = current_dataset()
    with st.sidebar:
        st.markdown(f"**Data:** {ds.name}  \n{ds.n_samples} samples × {ds.n_features} features, "
                    f"{len(ds.classes)} classes")
        st.caption(f"{ds.source}; {split_settings().describe()} — change it on the Data page")
    return ds


def replace_dataset(make: Callable[[], Dataset], what: str = "cannot load the data") -> bool:
    """Make ``make()`` the current data set; when it raises a ``ValueError`` (a ``DataError``)
    show the message with ``st.error`` and keep the data set that was there."""
    with guard(what):
        set_dataset(make())
        return True
    return False


def dataset_from_upload(uploaded) -> bool | None:
    """Load an uploaded file (Streamlit's ``UploadedFile`` or any named binary file object) as
    the current data set, once per upload: Streamlit hands the same file over on every rerun.

    Returns True when it was loaded, False when it was refused (its error stays on screen while
    the file is in the uploader, and the previous data stays current), None when there is no
    file or it was loaded before.
    """
    if uploaded is None:
        return None
    ident = (getattr(uploaded, "file_id", None), getattr(uploaded, "name", ""), _size(uploaded))
    seen = st.session_state.get(_UPLOAD_SEEN_KEY)
    if seen is not None and seen[0] == ident:
        if seen[1]:
            st.error(seen[1])
        return None
    error = None
    try:
        set_dataset(load_dataset(uploaded))
    except ValueError as exc:
        error = f"cannot load {getattr(uploaded, 'name', 'the upload')}: {exc}"
        st.error(error)
    st.session_state[_UPLOAD_SEEN_KEY] = (ident, error)
    return error is None


def _size(f) -> int | None:
    size = getattr(f, "size", None)
    if size is None and hasattr(f, "getbuffer"):
        size = f.getbuffer().nbytes
    return size


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", s).strip("_") or "figure"


def figure_downloads(fig, basename: str, key: str, formats=("html", "png", "svg")) -> None:
    """Download buttons for ``fig``. The file is made only when a button is clicked (Streamlit
    runs the callable then), so a page rerun never pays for a 4 MB HTML or a kaleido render.
    PNG/SVG need a Chromium for kaleido; without one the page says so instead."""
    name = _slug(basename)
    images = image_export_available()
    shown = [f for f in formats if f == "html" or images]
    cols = st.columns(max(len(shown), 1) + 1)
    for col, fmt in zip(cols, shown):
        mime = {"html": "text/html", "png": "image/png", "svg": "image/svg+xml"}[fmt]
        col.download_button(f"Download {fmt.upper()}", lambda fmt=fmt: figure_bytes(fig, fmt),
                            f"{name}.{fmt}", mime, key=f"{key}_{fmt}", on_click="ignore")
    if len(shown) < len(formats):
        cols[-1].caption("PNG/SVG export needs Chromium (Debian: apt-get install chromium); HTML works.")


def model_download(model, basename: str, key: str) -> None:
    """A download button for ``model`` as a versioned JSON document."""
    with guard("cannot export the model"):
        st.download_button("Download model (JSON)", dumps_model(model), f"{_slug(basename)}.json",
                           "application/json", key=f"{key}_model")
