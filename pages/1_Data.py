"""Data page: choose a data set (built-in, upload or generated), its split and normalization."""

import inspect

import pandas as pd
import streamlit as st

from svmviz.data import (BUILTINS, FOURCLASS_URL, MAX_FILE_MB, METHODS, default_dataset_name, fourclass_path,
                         load_builtin)
from svmviz.data.generators import GENERATORS, generate
from svmviz.plots.data import plot_dataset
from svmviz_app.state import SplitSettings, current_split, set_split_settings, split_settings
from svmviz_app.widgets import data_sidebar, dataset_from_upload, figure_downloads, guard, replace_dataset

st.set_page_config(page_title="svmviz · Data", layout="wide")
st.title("Data")
st.write("Choose the data every method page works on: a built-in set, your own file, or a generated "
         "one. The split and normalization below apply to all pages.")

source = st.radio("Source", ["Built-in", "Upload a file", "Generate"], horizontal=True, key="data_source")

if source == "Built-in":
    names = list(BUILTINS)
    choice = st.selectbox("Built-in data set", names, index=names.index(default_dataset_name()),
                          format_func=lambda n: BUILTINS[n].title, key="data_builtin")
    st.caption(BUILTINS[choice].description)
    if choice == "fourclass" and fourclass_path() is None:
        st.info(f"fourclass is not installed here. Download `fourclass_scale` from {FOURCLASS_URL}, "
                "put it in a folder and start the app with `SVMVIZ_DATA_DIR=<that folder>`, or upload "
                "the file under “Upload a file”.")
    if st.button("Use this data set", key="data_builtin_load"):
        replace_dataset(lambda: load_builtin(choice), f"cannot load {BUILTINS[choice].title}")

elif source == "Upload a file":
    uploaded = st.file_uploader(
        f"CSV (header optional; label column named label/class/target/y, else the last column) or "
        f"LIBSVM text, at most {MAX_FILE_MB} MB", type=None, key="data_upload")
    dataset_from_upload(uploaded)

else:
    gen = st.selectbox("Generator", list(GENERATORS), key="data_generator",
                       format_func=lambda n: n.replace("_", " "))
    func = GENERATORS[gen]
    st.caption(inspect.getdoc(func).split("\n\n")[0])
    params = {}
    cols = st.columns(4)
    for k, p in enumerate(inspect.signature(func).parameters.values()):
        with cols[k % 4]:
            if isinstance(p.default, int):
                params[p.name] = int(st.number_input(p.name, value=p.default, step=1, key=f"gen_{gen}_{p.name}"))
            else:
                params[p.name] = float(st.number_input(p.name, value=float(p.default), step=0.05,
                                                       format="%.3f", key=f"gen_{gen}_{p.name}"))
    if st.button("Generate", key="data_generate"):
        replace_dataset(lambda: generate(gen, **params), f"cannot generate {gen}")

# --- split and normalization (stored for every page: svmviz_app.state.split_settings) ------------
st.subheader("Split and normalization")
saved = split_settings()
widget_defaults = {"split_norm": saved.normalization, "split_test": saved.test_size,
                   "split_seed": saved.seed, "split_strat": saved.stratify}
for key, value in widget_defaults.items():  # widgets forget their state when the page is left
    st.session_state.setdefault(key, value)
c1, c2, c3, c4 = st.columns(4)
norm = c1.selectbox("Normalization (fit on the training part)", METHODS, key="split_norm",
                    format_func={"none": "none", "minmax": "Min-Max to [-1, 1]", "stddev": "Std-Dev"}.get)
test_size = c2.slider("Test fraction (0 = train on everything)", 0.0, 0.5, step=0.05, key="split_test")
seed = int(c3.number_input("Split seed", min_value=0, step=1, key="split_seed"))
stratify = c4.checkbox("Stratified", key="split_strat")
set_split_settings(SplitSettings(norm, round(float(test_size), 4), seed, stratify))

# --- what the data looks like ---------------------------------------------------------------------
ds = data_sidebar()
st.subheader(ds.name)
st.caption(f"{ds.source} · {ds.n_samples} samples × {ds.n_features} features · {len(ds.classes)} classes · "
           f"{split_settings().describe()}")

train, test = ds, None  # shown unsplit when the chosen split is impossible
with guard("cannot split the data this way (lower the test fraction to 0 or untick Stratified)"):
    train, test = current_split()
with guard("cannot draw the data"):
    features, method = (0, 1), "features"
    if ds.n_features > 2:
        view = st.radio("Plane", ["two features", "PCA plane"], horizontal=True, key="data_plane")
        if view == "PCA plane":
            method = "pca"
        else:
            fcols = st.columns(2)
            tag = f"{ds.name}_{ds.n_features}"  # a new data set starts from its first two features
            fi = fcols[0].selectbox("horizontal axis", range(ds.n_features), index=0, key=f"data_fx_{tag}",
                                    format_func=lambda j: ds.feature_names[j])
            fj = fcols[1].selectbox("vertical axis", range(ds.n_features), index=1, key=f"data_fy_{tag}",
                                    format_func=lambda j: ds.feature_names[j])
            features = (fi, fj)
    fig = plot_dataset(train, features, method, test=test, title=ds.name)
    st.plotly_chart(fig, key="data_plot")
    if test is not None:
        st.caption("Filled markers: training part; open markers: test part.")

    counts = pd.DataFrame({
        "class": ds.class_names,
        "label": [str(c) for c in ds.classes],
        "samples": [ds.class_counts()[c] for c in ds.classes.tolist()],
        "train": [train.class_counts().get(c, 0) for c in ds.classes.tolist()],
    })
    if test is not None:
        counts["test"] = [test.class_counts().get(c, 0) for c in ds.classes.tolist()]
    st.dataframe(counts, hide_index=True)
    figure_downloads(fig, f"data_{ds.name}", key="data_fig")
