"""Data page: choose the data every page works on (built-in, upload, lesson file, generated), its
split and normalization. Everything here is part of the app state (``svmviz_app.state``)."""

import inspect

import pandas as pd
import streamlit as st

from svmviz.data import BUILTINS, METHODS, load_builtin
from svmviz.data.builtins import fourclass_note
from svmviz.data.dataset import counted
from svmviz.data.generators import GENERATORS, generate
from svmviz.plots.common import minus_sign
from svmviz.plots.data import plot_dataset
from svmviz_app import state
from svmviz_app.budget import upload_mb
from svmviz_app.draw import draw_panel
from svmviz_app.state import bind
from svmviz_app.widgets import (data_sidebar, dataset_from_upload, figure_downloads, guard, open_lesson_page,
                                plain, replace_dataset, share_controls, shown_source)

state.start_run()   # before any element: a page link on a fresh server is routed through the app here
st.title("Data")
st.write("Choose the data every method page works on: a built-in set, your own file (or a lesson "
         "file), a generated one, or points you draw. The split and normalization below apply to all pages.")

SOURCES = ["Built-in", "Upload a file", "Generate", "Draw"]
source = st.radio("Source", SOURCES, horizontal=True, **bind("data.source", "Built-in", options=SOURCES))

if source == "Built-in":
    names = list(BUILTINS)
    spec = state.current_spec()
    choice = st.selectbox("Built-in data set", names, format_func=lambda n: BUILTINS[n].title,
                          **bind("data.builtin", spec if spec in names else "fourclass", options=names))
    st.caption(BUILTINS[choice].description)
    note = fourclass_note() if choice == "fourclass" else None
    if note:
        st.info(note)
    if st.button("Use this data set", key="data_builtin_load"):
        replace_dataset(lambda: load_builtin(choice), f"cannot load {BUILTINS[choice].title}", spec=choice)

elif source == "Upload a file":
    uploaded = st.file_uploader(
        f"CSV (header optional; label column named label/class/target/y, else the last column), "
        f"LIBSVM text, or a svmviz lesson file (.json) — at most {upload_mb():g} MB", type=None,
        key="data_upload")
    dataset_from_upload(uploaded)

elif source == "Draw":
    draw_panel()

else:
    gen = st.selectbox("Generator", list(GENERATORS), format_func=lambda n: n.replace("_", " "),
                       **bind("data.generator", "checkerboard", options=list(GENERATORS)))
    func = GENERATORS[gen]
    st.caption(inspect.getdoc(func).split("\n\n")[0])
    params = {}
    cols = st.columns(4)
    for k, p in enumerate(inspect.signature(func).parameters.values()):
        with cols[k % 4]:
            if isinstance(p.default, int):
                params[p.name] = int(st.number_input(p.name, step=1, **bind(f"gen.{gen}.{p.name}", p.default)))
            else:
                params[p.name] = float(st.number_input(p.name, step=0.05, format="%.3f",
                                                       **bind(f"gen.{gen}.{p.name}", float(p.default))))
    if st.button("Generate", key="data_generate"):
        replace_dataset(lambda: generate(gen, **params), f"cannot generate {gen}",
                        spec=state.generator_spec(gen, params))

# --- split and normalization (read by every page through svmviz_app.state.current_split) ---------
st.subheader("Split and normalization")
c1, c2, c3, c4 = st.columns(4)
SPLIT, BOUNDS = state.SPLIT_DEFAULTS, state.SPLIT_BOUNDS
c1.selectbox("Normalization (fit on the training part)", METHODS,
             **bind("split.norm", SPLIT["split.norm"], options=METHODS), format_func=state.NORMALIZATION_LABELS.get)
c2.slider("Test fraction (0 = train on everything)", *BOUNDS["split.test"], step=0.05,
          **bind("split.test", SPLIT["split.test"], bounds=BOUNDS["split.test"]))
c3.number_input("Split seed", min_value=BOUNDS["split.seed"][0], step=1,
                **bind("split.seed", SPLIT["split.seed"], bounds=BOUNDS["split.seed"]))
c4.checkbox("Stratified", **bind("split.strat", SPLIT["split.strat"]))

# --- what the data looks like ---------------------------------------------------------------------
if source == "Draw":
    # the drawing panel shows the drawn data and its summary itself: it reruns on its own at each
    # click, where a plot here would show the data of the last full run
    share_controls("data")
else:
    ds = data_sidebar()
    share_controls("data")
    st.subheader(plain(ds.name))
    st.caption(f"{plain(shown_source(ds.source))} · {counted(ds.n_samples, 'sample')} × "
               f"{counted(ds.n_features, 'feature')} · {counted(len(ds.classes), 'class')} · "
               f"{state.split_settings().describe()}")

    train, test = ds, None  # shown unsplit when the chosen split is impossible
    with guard("cannot split the data this way (lower the test fraction to 0 or untick Stratified)"):
        train, test = state.current_split()
    with guard("cannot draw the data"):
        features, method = (0, 1), "features"
        if ds.n_features > 2:
            view = st.radio("Plane", ["two features", "PCA plane"], horizontal=True,
                            **bind("data.plane", "two features", options=["two features", "PCA plane"]))
            if view == "PCA plane":
                method = "pca"
            else:
                fcols = st.columns(2)
                feats = list(range(ds.n_features))
                fi = fcols[0].selectbox("horizontal axis", feats, format_func=lambda j: ds.feature_names[j],
                                        **bind("data.fx", 0, options=feats))
                fj = fcols[1].selectbox("vertical axis", feats, format_func=lambda j: ds.feature_names[j],
                                        **bind("data.fy", 1, options=feats))
                features = (fi, fj)
        elif ds.n_features == 1:
            features = (0, 0)
        fig = plot_dataset(train, features, method, test=test, title=ds.name)
        st.plotly_chart(fig, key="data_plot")
        if test is not None:
            st.caption("Filled markers: training part; open markers: test part.")

        labels = ds.classes.tolist()
        whole, in_train = ds.class_counts(), train.class_counts()  # once each, not once per class
        counts = pd.DataFrame({
            "class": [minus_sign(c) for c in ds.class_names],   # "−1", as the plot's legend
            "label": [minus_sign(c) for c in labels],
            "samples": [whole[c] for c in labels],
            "train": [in_train.get(c, 0) for c in labels],
        })
        if test is not None:
            in_test = test.class_counts()
            counts["test"] = [in_test.get(c, 0) for c in labels]
        st.dataframe(counts, hide_index=True)
        figure_downloads(fig, f"data_{ds.name}", key="data_fig")
open_lesson_page()
