"""What the pages share through ``st.session_state``: the current data set and how it is prepared.

Other pages read:

- ``current_dataset()`` — the data set chosen on the Data page, as loaded (no normalization);
- ``current_split()`` — ``(train, test)`` Datasets after the Data page's split and normalization
  (statistics from the training part only); ``test`` is ``None`` when the test fraction is 0;
- ``split_settings()`` — the ``SplitSettings`` behind it (normalization, test fraction, seed,
  stratified), e.g. to mention them in a caption.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from svmviz.data import Dataset, DataError, default_dataset_name, load_builtin, split_and_normalize

DATASET_KEY = "svmviz_dataset"
SPLIT_KEY = "svmviz_split_settings"
_SPLIT_CACHE_KEY = "svmviz_split_cache"


@dataclass(frozen=True)
class SplitSettings:
    """How the Data page prepares the current data set for the method pages."""

    normalization: str = "none"  # "none", "minmax" ([-1, 1]) or "stddev"
    test_size: float = 0.3  # 0 keeps every sample for training
    seed: int = 0
    stratify: bool = True

    def describe(self) -> str:
        norm = {"none": "not normalized", "minmax": "Min-Max to [-1, 1]", "stddev": "Std-Dev"}[self.normalization]
        if self.test_size == 0:
            return f"all samples for training, {norm}"
        kind = "stratified" if self.stratify else "random"
        return f"{kind} {1 - self.test_size:.0%}/{self.test_size:.0%} split (seed {self.seed}), {norm}"


def current_dataset() -> Dataset:
    """The data set chosen on the Data page; on first use the default built-in one (fourclass
    when installed; the generated fourclass-like set if that file cannot be read)."""
    if DATASET_KEY not in st.session_state:
        try:
            ds = load_builtin(default_dataset_name())
        except DataError:
            ds = load_builtin("fourclass_like")
        st.session_state[DATASET_KEY] = ds
    return st.session_state[DATASET_KEY]


def set_dataset(ds: Dataset) -> None:
    st.session_state[DATASET_KEY] = ds


def split_settings() -> SplitSettings:
    """The split and normalization chosen on the Data page (defaults until then)."""
    return st.session_state.get(SPLIT_KEY, SplitSettings())


def set_split_settings(settings: SplitSettings) -> None:
    st.session_state[SPLIT_KEY] = settings


def current_split() -> tuple[Dataset, Dataset | None]:
    """``(train, test)`` of the current data set, split and normalized as the Data page says.

    Raises ``DataError`` when the data set cannot be split that way (e.g. a tiny class); pages
    call it inside ``guard()``. Recomputed only when the data set or the settings change.
    """
    ds, settings = current_dataset(), split_settings()
    cached = st.session_state.get(_SPLIT_CACHE_KEY)
    if cached is not None and cached[0] is ds and cached[1] == settings:
        return cached[2]
    parts = split_and_normalize(ds, settings.normalization, settings.test_size, settings.seed,
                                settings.stratify)
    st.session_state[_SPLIT_CACHE_KEY] = (ds, settings, parts)
    return parts
