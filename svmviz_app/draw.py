"""Draw your own data, of any number of classes: pick a class in the palette (or press its number
key), click on the canvas to add points of it, select and move or remove them, or edit the same
points and the class names in tables. As soon as every drawn class has two points (and there are
two classes), the drawing is the current data set of every page.

Streamlit's own Plotly selection events (``st.plotly_chart(on_select=...)``) carry the clicks: no
third-party component. The panel is an ``st.fragment``, so a click reruns the panel only, not the
whole page; every change goes through a widget callback, so it is applied before the panel draws.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from svmviz.data import Dataset
from svmviz.data.generators import DRAW_PRESETS, generate, to_csv_text
from svmviz.plots.common import SYMBOLS
from svmviz.plots.draw import drawing_canvas
from svmviz_app import state
from svmviz_app.budget import within_classroom
from svmviz_app.state import bind
from svmviz_app.widgets import data_sidebar, guard, plain
from svmviz_app.session_keys import (  # this module's keys in the session's state
    DRAWN_POINTS as POINTS, DRAWN_NAMES as NAMES, DRAWN_CLASS as CLASS, DRAWN_SELECTED as _SELECTED,
    DRAWN_VERSION as _VERSION, DRAWN_MSG as _MSG, DRAWN_FULL_RUN as _FULL_RUN)

DRAWN_NAME = "drawn data"
MAX_POINTS = 500
MAX_CLASSES = 20
MAX_NAME_CHARS = 40
MIN_PER_CLASS = 2
#: The largest coordinate a drawing holds: far beyond any sketch, and the canvas's range, grid and
#: every page's picture stay finite (1e308 made them infinite)
MAX_COORD = 1e6
TOOLS = ["add", "move", "remove"]
TOOL_LABELS = {"add": "add a point", "move": "select / move", "remove": "remove"}
GLYPHS = {"circle": "●", "triangle-up": "▲", "square": "■", "diamond": "◆", "x": "✕", "star": "★",
          "cross": "✚", "pentagon": "⬟"}
#: What a starting sketch needs on the DAG page to show its point (set when it is loaded).
PRESET_SETTINGS = {
    "unclassifiable_triangle": {"dag.src": "current data set", "dag.kernel": "linear"},
    "split_class": {"dag.src": "current data set", "dag.kernel": "linear", "dag.wdag_n": 2},
}


def drawn() -> np.ndarray:
    return st.session_state.get(POINTS, np.empty((0, 3)))


def class_names() -> list[str]:
    return st.session_state.get(NAMES, ["1", "2"])


def current_class() -> int:
    return int(min(max(st.session_state.get(CLASS, 1), 1), len(class_names())))


def drawn_dataset(P: np.ndarray, names: list[str]) -> Dataset | None:
    """The drawing as a data set (labels: class numbers, names from the palette), or None while a
    drawn class has fewer than ``MIN_PER_CLASS`` points or fewer than two classes are drawn."""
    labels = P[:, 2].astype(int)
    present, counts = np.unique(labels, return_counts=True)
    if present.size < 2 or counts.min() < MIN_PER_CLASS:
        return None
    return Dataset(P[:, :2].copy(), labels, ["x1", "x2"], [names[k - 1] for k in present.tolist()],
                   DRAWN_NAME, "drawn on the Data page")


def missing() -> str:
    """What the drawing still needs before it can be the data ('' when nothing)."""
    labels = drawn()[:, 2].astype(int)
    names = class_names()
    present, counts = np.unique(labels, return_counts=True)
    short = [f"{names[k - 1] if 0 < k <= len(names) else k} ({c} point)" for k, c in zip(present.tolist(), counts.tolist()) if c < MIN_PER_CLASS]
    if short:
        return f"add a second point to {', '.join(short)}: every drawn class needs {MIN_PER_CLASS}"
    if present.size < 2:
        return "draw points of at least two classes"
    return ""


def _bump() -> None:
    st.session_state[_VERSION] = st.session_state.get(_VERSION, 0) + 1


def set_drawn(P: np.ndarray, names: list[str] | None = None) -> None:
    """Replace the drawing (and the palette's names) and make it the data when it is complete."""
    P = np.asarray(P, dtype=np.float64).reshape(-1, 3)
    if names is not None:
        st.session_state[NAMES] = list(names)
    st.session_state[POINTS] = P
    if st.session_state.get(_SELECTED, -1) >= len(P):
        st.session_state.pop(_SELECTED)
    _bump()
    _apply()


def _apply() -> None:
    """Make a complete drawing the current data set. The first time drawn data replaces other
    data, the split trains on every point: a sketch of a few points is a picture to fit, and
    holding 30 % of it out would silently drop points from every page's picture."""
    ds = drawn_dataset(drawn(), class_names())
    if ds is None:
        return
    was_drawn = state.current_spec().startswith("drawn:")
    state.set_dataset(ds, state.content_spec("drawn", ds))
    if not was_drawn and state.value("split.test", state.SPLIT_DEFAULTS["split.test"]) != 0.0:
        state.set_value("split.test", 0.0)
        st.session_state[_MSG] = ("The drawing trains on all its points: the test fraction was set to 0 "
                                  "(raise it under “Split and normalization” to hold points out).")
        # the split slider is outside the panel: the browser would send its old value back with the
        # next full run unless the whole page runs once now and redraws it
        st.session_state[_FULL_RUN] = True


def _drawing_of(ds: Dataset) -> tuple[np.ndarray, list[str]]:
    """A 2-D data set as a drawing: its classes become class numbers 1..K in ``ds.classes`` order,
    with their names."""
    if ds.n_features != 2:
        raise ValueError(f"the canvas draws two features; {ds.name} has {ds.n_features}")
    if ds.n_samples > MAX_POINTS or len(ds.classes) > MAX_CLASSES:
        raise ValueError(f"a drawing holds at most {MAX_POINTS} points of {MAX_CLASSES} classes; "
                         f"{ds.name} has {ds.n_samples} points of {len(ds.classes)} classes")
    k = np.searchsorted(ds.classes, ds.y) + 1
    return np.column_stack([np.round(ds.X, 4), k]), _unique_names([str(n)[:MAX_NAME_CHARS] for n in ds.class_names])


def load_into_drawing(ds: Dataset) -> None:
    """Make a 2-D data set the drawing to edit (a starting sketch, or the current data)."""
    P, names = _drawing_of(ds)
    st.session_state[CLASS] = 1
    set_drawn(P, names)


def _show_drawn_data() -> None:
    """A lesson file's data shown with the Draw source is the drawing when the canvas is empty: the
    canvas never says "draw points" beside the lesson's points in the sidebar. The data set stays
    the lesson's until the drawing is edited."""
    ds = state.current_dataset()
    if len(drawn()) or ds is None or not state.current_spec().startswith("lesson:"):
        return
    try:
        P, names = _drawing_of(ds)
    except ValueError:
        return
    st.session_state[POINTS], st.session_state[NAMES], st.session_state[CLASS] = P, names, 1
    _bump()


def _unique_names(names: list[str]) -> list[str]:
    out = []
    for k, n in enumerate(names):
        out.append(n if n and n not in out else f"{n or 'class'} {k + 1}")
    return out


# ------------------------------------------------------------------ what a widget sends
# A modified browser can send any JSON as a widget's value: every callback reads it through these,
# which raise ValueError with what was expected, and the callback shows that as a message.
def coordinate(value, what: str = "a coordinate") -> float:
    """``value`` as a finite number within ±``MAX_COORD``."""
    try:
        v = float(value) if isinstance(value, (int, float, str, np.integer, np.floating)) \
            and not isinstance(value, bool) else None
    except (ValueError, OverflowError):
        v = None
    if v is None or not abs(v) <= MAX_COORD:   # NaN fails the comparison too
        raise ValueError(f"{what} must be a finite number between −{MAX_COORD:g} and {MAX_COORD:g}, "
                         f"not {str(value)[:20]!r}")
    return v


def row_index(value, n: int, what: str = "row") -> int:
    """``value`` as a whole number in [0, n): a row of a table of ``n`` rows."""
    try:
        k = int(value) if isinstance(value, (int, str, np.integer)) and not isinstance(value, bool) else None
    except ValueError:
        k = None
    if k is None or not 0 <= k < n:
        raise ValueError(f"{what} {str(value)[:20]!r} is not one of the {n} rows")
    return k


def canvas_click(event, n_points: int) -> tuple[float, float, int | None] | None:
    """The first selected point of the canvas's selection state: (x, y, the drawn point's row or
    None for a click on the empty grid), or None when nothing is selected."""
    selection = event.get("selection") if isinstance(event, dict) else None
    pts = selection.get("points") if isinstance(selection, dict) else None
    if not pts:
        return None
    p = pts[0] if isinstance(pts, list) else None
    if not isinstance(p, dict):
        raise ValueError("the click is not a point of the canvas")
    x, y = coordinate(p.get("x"), "x"), coordinate(p.get("y"), "y")
    curve = p.get("curve_number", 0)
    if not isinstance(curve, int) or isinstance(curve, bool):
        raise ValueError("the click is not on a trace of the canvas")
    row = p.get("customdata")
    row = row[0] if isinstance(row, (list, tuple)) and row else row
    return x, y, (row_index(row, n_points, "point") if curve > 0 and row is not None else None)


# ------------------------------------------------------------------ widget callbacks
def _on_canvas(key: str) -> None:
    P = drawn()
    try:
        click = canvas_click(st.session_state.get(key) or {}, len(P))
    except ValueError as exc:
        st.session_state[_MSG] = f"The click was not applied: {exc}."
        _bump()
        return
    if click is None:
        return
    x, y, row = click
    tool = state.value("draw.tool", "add")
    selected = st.session_state.get(_SELECTED)
    if tool == "remove":
        if row is not None:
            st.session_state.pop(_SELECTED, None)
            set_drawn(np.delete(P, row, axis=0))
        else:
            _bump()
        return
    if tool == "move":
        if row is not None:
            st.session_state[_SELECTED] = row
            _bump()
        elif selected is not None and selected < len(P):
            P = P.copy()
            P[selected, :2] = (round(x, 3), round(y, 3))
            set_drawn(P)
        else:
            _bump()
        return
    if len(P) >= MAX_POINTS:
        st.session_state[_MSG] = f"A drawing holds at most {MAX_POINTS} points."
        _bump()
        return
    set_drawn(np.vstack([P, [round(x, 3), round(y, 3), current_class()]]))


def _pick_class(k: int) -> None:
    st.session_state[CLASS] = k
    state.set_value("draw.tool", "add")


def _add_class() -> None:
    names = class_names()
    if len(names) < MAX_CLASSES:
        st.session_state[NAMES] = _unique_names(names + [str(len(names) + 1)])
        _pick_class(len(names) + 1)
        _bump()


def _drop_class() -> None:
    names = class_names()
    K = len(names)
    if K > 2 and not np.any(drawn()[:, 2].astype(int) == K):
        st.session_state[NAMES] = names[:-1]
        st.session_state[CLASS] = min(current_class(), K - 1)
        _bump()


def renamed(names: list[str], edits: dict) -> list[str]:
    """``names`` after the class-name table's ``edited_rows``; raises ``ValueError`` when a name
    would be empty or repeated (pages tell classes apart by name)."""
    names = list(names)
    if not isinstance(edits, dict):
        raise ValueError("the table's edits are not a mapping of rows")
    for row, change in edits.items():
        k = row_index(row, len(names))
        if isinstance(change, dict) and "name" in change:
            names[k] = " ".join(str(change["name"] or "").split())[:MAX_NAME_CHARS]
    if any(not n for n in names) or len(set(names)) != len(names):
        raise ValueError("class names must be non-empty and differ from each other")
    return names


def edited_points(P: np.ndarray, names: list[str], delta: dict, new_class: int) -> np.ndarray:
    """The drawing ``P`` after the point table's edits (``st.data_editor``'s ``edited_rows``,
    ``added_rows``, ``deleted_rows``; the class column holds names, an added row without one gets
    class ``new_class``). Raises ``ValueError`` for a missing or non-finite coordinate, an unknown
    class or more than ``MAX_POINTS`` points."""
    number = {n: k + 1 for k, n in enumerate(names)}
    rows = [[x1, x2, names[int(k) - 1]] for x1, x2, k in np.asarray(P).tolist()]
    edited, added, deleted = (delta.get(k, e) if isinstance(delta, dict) else None
                              for k, e in (("edited_rows", {}), ("added_rows", []), ("deleted_rows", [])))
    if not (isinstance(edited, dict) and isinstance(added, list) and isinstance(deleted, list)
            and all(isinstance(c, dict) for c in [*edited.values(), *added])):
        raise ValueError("the table's edits are not rows of the table")
    if len(rows) + len(added) > MAX_POINTS:
        raise ValueError(f"a drawing holds at most {MAX_POINTS} points")
    for r, change in edited.items():
        k = row_index(r, len(rows))
        for col, v in change.items():
            if col not in ("x1", "x2", "class"):
                raise ValueError(f"the table has no column {str(col)[:20]!r}")
            rows[k][["x1", "x2", "class"].index(col)] = v
    rows += [[a.get("x1"), a.get("x2"), a.get("class") or names[new_class - 1]] for a in added]
    gone = {row_index(r, len(rows)) for r in deleted}
    rows = [r for i, r in enumerate(rows) if i not in gone]
    out = []
    for x1, x2, c in rows:
        if not isinstance(c, str) or c not in number:
            raise ValueError("every row needs two numbers and a class of the palette")
        try:
            out.append([coordinate(x1), coordinate(x2), number[c]])
        except ValueError as exc:
            raise ValueError(f"every row needs two numbers and a class of the palette: {exc}") from None
    return np.array(out, dtype=np.float64).reshape(-1, 3)


def _on_names(key: str) -> None:
    try:
        names = renamed(class_names(), (st.session_state.get(key) or {}).get("edited_rows", {}))
    except ValueError as exc:
        st.session_state[_MSG] = f"The names were not changed: {exc}."
        _bump()
        return
    set_drawn(drawn(), names)


def _on_table(key: str) -> None:
    try:
        P = edited_points(drawn(), class_names(), st.session_state.get(key) or {}, current_class())
    except ValueError as exc:
        st.session_state[_MSG] = f"The table was not applied: {exc}."
        _bump()
        return
    set_drawn(P)


def _clear() -> None:
    st.session_state.pop(_SELECTED, None)
    set_drawn(np.empty((0, 3)))


def _load_preset(title: str) -> None:
    name, params = DRAW_PRESETS[title]
    load_into_drawing(generate(name, **params))
    for k, v in PRESET_SETTINGS.get(name, {}).items():
        state.set_value(k, v)


def _edit_current() -> None:
    try:
        load_into_drawing(state.current_dataset())
    except ValueError as exc:
        st.session_state[_MSG] = f"Cannot draw the current data: {exc}."


# ------------------------------------------------------------------ the panel
def draw_panel() -> None:
    """The drawing: palette, canvas, tables, presets and the CSV download (a fragment)."""
    st.caption("Pick a class (its button, or its number key: 1–9, 0 for the tenth), then click on the "
               "canvas to add points of it; in “select / move” click a point, then where it should go; in "
               "“remove” click a point. The tables below the canvas hold the same points and the class names. As "
               "soon as every drawn class has two points the drawing is the data of every page.")
    _panel()


@st.fragment
@within_classroom   # a click on the canvas runs this fragment, not app.py
def _panel() -> None:
    if st.session_state.pop(_FULL_RUN, False):
        st.rerun(scope="app")
    _show_drawn_data()
    version = st.session_state.get(_VERSION, 0)
    P, names = drawn(), class_names()
    labels = P[:, 2].astype(int)
    counts = np.bincount(labels, minlength=len(names) + 1)[1:]
    current = current_class()

    tools = st.container(horizontal=True, vertical_alignment="center")
    tool = tools.segmented_control("A click", TOOLS, format_func=TOOL_LABELS.get, required=True,
                                   **bind("draw.tool", "add", options=TOOLS), label_visibility="collapsed")
    tools.button("Clear the drawing", key="draw_clear", on_click=_clear, disabled=not len(P), type="tertiary",
                 icon=":material/delete:")
    palette = st.container(horizontal=True, vertical_alignment="center")
    for k, name in enumerate(names, start=1):
        glyph = GLYPHS.get(SYMBOLS[(k - 1) % len(SYMBOLS)], "")
        palette.button(f"{glyph} {plain(name)} ({counts[k - 1]})", key=f"draw_class_{k}",
                       type="primary" if k == current else "secondary", on_click=_pick_class, args=(k,),
                       shortcut=str(k % 10) if k <= 10 else None,
                       help=f"add points of class {k}" + (f" (key {k % 10})" if k <= 10 else ""))
    palette.button("", icon=":material/add:", key="draw_add_class", on_click=_add_class,
                   disabled=len(names) >= MAX_CLASSES, help="another class")
    palette.button("", icon=":material/remove:", key="draw_drop_class", on_click=_drop_class,
                   disabled=len(names) <= 2 or counts[-1] > 0, help="drop the last class (when it has no points)")

    c1, c2 = st.columns([3, 1])
    if tool != "move":
        st.session_state.pop(_SELECTED, None)
    fig = drawing_canvas(P[:, :2], labels, names, st.session_state.get(_SELECTED))
    canvas_key = f"draw_canvas_{version}"
    with c1:
        st.plotly_chart(fig, on_select=lambda: _on_canvas(canvas_key), selection_mode="points", key=canvas_key,
                        config={"displayModeBar": False})
    msg = st.session_state.pop(_MSG, None)
    if msg:
        c2.info(plain(msg))   # it quotes the names typed
    need = missing()
    ds = state.current_dataset()
    is_drawn = state.current_spec().startswith("drawn:")
    if need:   # it quotes the names typed
        c2.warning(plain(f"To use the drawing: {need}." + (" The pages keep the last complete drawing." if is_drawn else "")))
    elif is_drawn:
        c2.success(f"The drawing is the data of every page: {ds.n_samples} points, {len(ds.classes)} classes; "
                   f"{state.split_settings().describe()}.")
        c2.caption("DAG SVM, weighted DAG and tree decomposition need three or more classes to differ from a "
                   "binary SVM; their pages say what else to add.")
    elif len(P):
        c2.button("Use the drawing as the data", key="draw_use", on_click=_apply)
    with c2.popover("Starting sketches"):
        for title in DRAW_PRESETS:
            st.button(title, key=f"draw_preset_{title}", on_click=_load_preset, args=(title,),
                      help="replaces the drawing; the DAG page is set to show what it is about")
        if not is_drawn:
            st.button("the current data set", key="draw_from_current", on_click=_edit_current,
                      help="edit the current data (two features, at most "
                           f"{MAX_POINTS} points) on the canvas")

    # folded: two table editors remounted at every click cost the browser about as much as the canvas
    t1, t2 = st.expander("Edit the points and the class names as tables").columns([2, 1])
    table = pd.DataFrame({"x1": P[:, 0], "x2": P[:, 1], "class": [names[k - 1] for k in labels]})
    table_key = f"draw_table_{version}"
    t1.data_editor(table, num_rows="dynamic", key=table_key, hide_index=False,
                   on_change=_on_table, args=(table_key,),
                   column_config={"class": st.column_config.SelectboxColumn(options=names, required=True)})
    names_key = f"draw_names_{version}"
    t2.data_editor(pd.DataFrame({"number": np.arange(1, len(names) + 1), "name": names, "points": counts}),
                   key=names_key, hide_index=True, disabled=["number", "points"],
                   on_change=_on_names, args=(names_key,))
    if is_drawn and not need:
        with guard("cannot save the drawing"):
            st.download_button("Save the drawing as CSV", to_csv_text(ds), "drawn_data.csv", "text/csv",
                               key="draw_csv", on_click="ignore")
            st.caption("Load it again with “Upload a file”; a lesson file (sidebar, “Share this view”) "
                       "keeps the class names too.")
    data_sidebar()
