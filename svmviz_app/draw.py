"""Draw your own data (issue 13): click on a canvas to add points of a class, select and move or
remove them, or edit the same points in a table. A valid drawing (two classes with at least two
points each) is the current data set of every page at once.

Streamlit's own Plotly selection events (``st.plotly_chart(on_select="rerun")``) carry the
clicks: no third-party component, so nothing breaks with the Streamlit version we pin.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from svmviz.data import Dataset
from svmviz.data.generators import to_csv_text
from svmviz.plots.draw import DRAW_LABELS, drawing_canvas
from svmviz_app import state
from svmviz_app.state import bind
from svmviz_app.widgets import guard

POINTS = "_svmviz_drawn"          # the drawing: an (n, 3) array of x1, x2, label
_SELECTED = "_svmviz_drawn_selected"
_CLICKS = "_svmviz_drawn_clicks"  # handled clicks: a new canvas key forgets the old selection
MAX_POINTS = 500
MODES = ["add class −1", "add class +1", "select / move", "remove"]


def drawn() -> np.ndarray:
    return st.session_state.get(POINTS, np.empty((0, 3)))


def set_drawn(P: np.ndarray) -> None:
    st.session_state[POINTS] = np.asarray(P, dtype=np.float64).reshape(-1, 3)
    _apply()


def _apply() -> None:
    """Make a valid drawing the current data set; say what is missing otherwise."""
    P = drawn()
    labels = P[:, 2].astype(int)
    counts = {c: int((labels == c).sum()) for c in DRAW_LABELS}
    if min(counts.values()) < 2:
        return
    ds = Dataset(P[:, :2].copy(), labels, ["x1", "x2"], [f"{c:+d}" for c in DRAW_LABELS], "drawn data",
                 "drawn on the Data page")
    state.set_dataset(ds, state.content_spec("drawn", ds))


def _click(event) -> None:
    pts = (event or {}).get("selection", {}).get("points", [])   # st.plotly_chart's state is a dict
    if not pts:
        return
    p = pts[0]
    x, y, curve = float(p["x"]), float(p["y"]), int(p.get("curve_number", 0))
    row = p.get("customdata")
    row = int(row[0] if isinstance(row, (list, tuple)) else row) if curve in (1, 2) and row is not None else None
    P = drawn()
    mode = state.value("draw.mode", MODES[0])
    selected = st.session_state.get(_SELECTED)
    st.session_state[_CLICKS] = st.session_state.get(_CLICKS, 0) + 1
    if mode == "remove":
        if row is not None:
            st.session_state.pop(_SELECTED, None)
            set_drawn(np.delete(P, row, axis=0))
        return
    if mode == "select / move":
        if row is not None:
            st.session_state[_SELECTED] = row
        elif selected is not None and selected < len(P):
            P = P.copy()
            P[selected, :2] = (x, y)
            set_drawn(P)
        return
    if len(P) >= MAX_POINTS:
        st.session_state["_svmviz_drawn_msg"] = f"a drawing holds at most {MAX_POINTS} points"
        return
    label = -1 if mode == "add class −1" else 1
    set_drawn(np.vstack([P, [x, y, label]]))


def draw_panel() -> None:
    """The canvas, its mode, the table of the same points and the CSV download."""
    st.caption("Click on the canvas to add a point of the chosen class; in “select / move” click a "
               "point, then click where it should go; in “remove” click a point. The table below "
               "holds the same points (edit, add or delete rows). As soon as both classes have two "
               "points the drawing is the data of every page.")
    c1, c2 = st.columns([3, 1])
    mode = c2.radio("A click", MODES, **bind("draw.mode", MODES[0], options=MODES))
    if c2.button("Clear the drawing", key="draw_clear"):
        st.session_state[POINTS] = np.empty((0, 3))
        st.session_state.pop(_SELECTED, None)
    P = drawn()
    if mode != "select / move":
        st.session_state.pop(_SELECTED, None)
    fig = drawing_canvas(P[:, :2], P[:, 2], st.session_state.get(_SELECTED))
    with c1:
        event = st.plotly_chart(fig, on_select="rerun", selection_mode="points",
                                key=f"draw_canvas_{st.session_state.get(_CLICKS, 0)}")
    clicks = st.session_state.get(_CLICKS, 0)
    _click(event)
    if st.session_state.get(_CLICKS, 0) != clicks:
        st.rerun()
    msg = st.session_state.pop("_svmviz_drawn_msg", None)
    if msg:
        c2.warning(msg)
    labels = P[:, 2].astype(int)
    c2.metric("class −1", int((labels == -1).sum()))
    c2.metric("class +1", int((labels == 1).sum()))
    if len(P) and min((labels == c).sum() for c in DRAW_LABELS) < 2:
        c2.info("Draw at least two points of each class to use the drawing.")
    table = pd.DataFrame({"x1": P[:, 0], "x2": P[:, 1], "label": labels})
    edited = st.data_editor(table, num_rows="dynamic", key=f"draw_table_{clicks}", hide_index=False,
                            column_config={"label": st.column_config.SelectboxColumn(options=list(DRAW_LABELS),
                                                                                     required=True)})
    with guard("cannot use the edited table"):
        E = edited.dropna()
        if len(E) != len(table) or not np.allclose(E.to_numpy(dtype=float), table.to_numpy(dtype=float)):
            vals = E.to_numpy(dtype=np.float64)
            if not np.all(np.isfinite(vals)):
                raise ValueError("every coordinate must be a finite number")
            set_drawn(vals)
            st.session_state[_CLICKS] = clicks + 1
            st.rerun()
    if len(P):
        ds = state.current_dataset()
        if ds.name != "drawn data" and min((labels == c).sum() for c in DRAW_LABELS) >= 2:
            st.button("Use the drawing as the data", key="draw_use", on_click=_apply)
        elif ds.name == "drawn data":
            st.download_button("Save the drawing as CSV", to_csv_text(ds), "drawn_data.csv", "text/csv",
                               key="draw_csv", on_click="ignore")
            st.caption("Load it again with “Upload a file”.")
