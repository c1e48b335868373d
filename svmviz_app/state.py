"""The data set shared by all pages lives in ``st.session_state``; pages read it from here."""

from __future__ import annotations

import streamlit as st

from svmviz.data import Dataset, default_dataset_name, load_builtin

DATASET_KEY = "svmviz_dataset"


def current_dataset() -> Dataset:
    """The data set chosen on the Data page; on first use the default built-in one."""
    if DATASET_KEY not in st.session_state:
        st.session_state[DATASET_KEY] = load_builtin(default_dataset_name())
    return st.session_state[DATASET_KEY]


def set_dataset(ds: Dataset) -> None:
    st.session_state[DATASET_KEY] = ds
