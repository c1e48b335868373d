"""Shared plotting pieces: colours, data scatter, decision grids and the 2-D plane of a data set."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from svmviz.data.dataset import counted  # noqa: F401  (the figures' plurals, re-exported)

# Two-class colours of Zapién Arreola, Fehr and Burkhardt 2007 (yellow: +1 region, cyan: −1 region) and a qualitative palette.
POS_COLOR, NEG_COLOR = "#e6b800", "#00a6c8"
POS_REGION, NEG_REGION = "rgba(255, 235, 59, 0.35)", "rgba(0, 229, 255, 0.25)"
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf"]
SYMBOLS = ["circle", "triangle-up", "square", "diamond", "x", "star", "cross", "pentagon"]

# Large data in the browser: SVG markers freeze a tab at ~10⁶ points, so point
# traces switch to WebGL above WEBGL_THRESHOLD points and draw a seeded random sample of
# MAX_DRAWN_POINTS beyond that cap (the figure says so). Decision regions are evaluated on a grid
# of GRID_RESOLUTION² points whatever the data size.
WEBGL_THRESHOLD = 5_000
MAX_DRAWN_POINTS = 50_000
SAMPLE_SEED = 0
GRID_RESOLUTION = 200
MAX_GRID_RESOLUTION = 400


class PlotText(str):
    """A user string already made safe for Plotly by ``user_text`` (so it is never escaped twice)."""


def user_text(value) -> PlotText:
    """A user-controlled string (a class, feature or data set name, a file name, a CSV header or
    cell) as Plotly text that shows exactly as typed. Plotly renders a subset of HTML in every text
    it draws (legend entries, titles, axis titles, hover labels, annotations): ``<a href>`` would
    be a live link, ``<b>``/``<br>`` would apply, and the exported HTML embeds the same strings.
    ``&``, ``<`` and ``>`` become entities, which Plotly draws as the characters; line breaks
    become spaces. Every plot passes user strings through here once, where they enter a figure."""
    if isinstance(value, PlotText):
        return value
    return PlotText(html.escape(" ".join(str(value).splitlines()), quote=False))


def minus_sign(value) -> str:
    """A class name as text, a negative number written with the minus sign (U+2212): "−1", as
    every class label and number on the figures and tables, never "-1" next to "−1"."""
    text = str(value)
    try:
        float(text)
    except ValueError:
        return text
    return text.replace("-", "−")


def class_text(value) -> PlotText:
    """A class name as Plotly text (``user_text``) with ``minus_sign``."""
    return PlotText(minus_sign(user_text(value)))


def shortened(text, limit: int) -> PlotText:
    """A user string as Plotly text (``user_text``) of at most ``limit`` characters as shown, "…"
    ending one that was cut; the cut is made on the string as typed, so an entity ("&lt;") is
    never cut in half. For labels in a tight place; show the whole name where the pointer is
    (hover)."""
    shown = html.unescape(user_text(text))
    if len(shown) <= limit:
        return user_text(text)
    return user_text(shown[:max(limit - 1, 1)] + "…")


def shown_number(value, fmt: str = ".4g") -> str:
    """A number of a table as a class reads it: "—" where there is none (Streamlit shows a NaN
    as "None"), "∞" for an infinite bound, negatives with the minus sign (U+2212)."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "—"
    value = float(value)
    if np.isinf(value):
        return "∞" if value > 0 else "−∞"
    return format(value, fmt).replace("-", "−")


def padded_box(X, pad=0.08):
    """The bounding box of the rows of ``X`` widened by ``pad`` of its span on each side."""
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return lo - pad * span, hi + pad * span


def legend_below(fig: go.Figure, y: float | None = None, **margin) -> go.Figure:
    """The legend under the plot: above it, many traces collide with the title in narrow columns.
    Without ``y`` it is anchored to the bottom of the whole figure, under the x-axis title (a
    fraction of the axes' height put it over that title on short figures)."""
    if y is None:
        legend = dict(orientation="h", yref="container", yanchor="bottom", y=0.01, x=0)
        margin = margin or dict(b=120)
    else:
        legend = dict(orientation="h", yanchor="top", y=y, x=0)
        margin = margin or dict(b=90)
    fig.update_layout(legend=legend, margin=margin)
    return fig


def class_label(c, sign: int) -> PlotText:
    """The legend name of class ``c`` shown as the ``sign`` (±1) side of a binary problem: one
    label per class, written with the minus sign (U+2212) — "class −1" when the class is −1/+1
    (or 0/1 shown as −1/+1), else "setosa (as −1)". Plotly text (``user_text``), escaped once."""
    side = "−1" if sign < 0 else "+1"
    try:
        value = float(str(c).replace("−", "-"))   # a name already written with the minus sign too
    except (TypeError, ValueError):
        return PlotText(f"{user_text(c)} (as {side})")
    if value == sign:
        return PlotText(f"class {side}")
    return PlotText(f"class {user_text(str(c).replace('-', '−'))} (as {side})")


def rgba(hex_color: str, alpha: float) -> str:
    """``#rrggbb`` with opacity ``alpha`` as a CSS colour."""
    h = hex_color.lstrip("#")
    r, g, b = (int(h[k:k + 2], 16) for k in (0, 2, 4))
    return f"rgba({r}, {g}, {b}, {alpha})"


def class_color(k: int, n_classes: int) -> str:
    if n_classes == 2:
        return (NEG_COLOR, POS_COLOR)[k]
    return PALETTE[k % len(PALETTE)]


def point_trace(n_points: int, **kw):
    """A marker trace for ``n_points`` points: ``go.Scattergl`` (WebGL) above ``WEBGL_THRESHOLD``,
    else ``go.Scatter`` (SVG, crisper for small data)."""
    return (go.Scattergl if n_points > WEBGL_THRESHOLD else go.Scatter)(**kw)


def sample_index(n: int, cap: int = MAX_DRAWN_POINTS, seed: int = SAMPLE_SEED) -> np.ndarray | None:
    """Sorted indices of a seeded uniform sample of ``cap`` of ``n`` points, or None if n ≤ cap."""
    if n <= cap:
        return None
    return np.sort(np.random.default_rng(seed).choice(n, size=cap, replace=False))


def note_sample(fig: go.Figure, shown: int, total: int, what: str = "points") -> go.Figure:
    """Say on the figure that only a sample of the points is drawn."""
    fig.add_annotation(sample_note(shown, total, len(fig.layout.annotations), what))
    return fig


def sample_note(shown: int, total: int, k: int = 0, what: str = "points") -> dict:
    """``note_sample``'s annotation as a Plotly dict, the ``k``-th note of its figure (notes stack
    upwards from the bottom-left corner)."""
    return dict(text=f"drawn: a random sample of {shown:,} of the {total:,} {what} "
                     f"(seed {SAMPLE_SEED}); computations use them all",
                xref="paper", yref="paper", x=0.01, y=0.01 + 0.06 * k, xanchor="left",
                yanchor="bottom", showarrow=False, bgcolor="rgba(255,255,255,0.8)",
                font=dict(size=13, color="#333"))


def add_class_scatter(fig: go.Figure, X2: np.ndarray, y, classes=None, names=None, size=7,
                      opacity=0.85, showlegend=True, **kw) -> go.Figure:
    """One marker trace per class (2-D points ``X2``); WebGL and a stated, seeded sample for
    large data (see ``WEBGL_THRESHOLD``, ``MAX_DRAWN_POINTS``)."""
    traces, note = class_traces(X2, y, classes, names, size, opacity, showlegend, **kw)
    if note is not None:
        note_sample(fig, *note)
    for trace in traces:
        fig.add_trace(trace)
    return fig


def class_traces(X2: np.ndarray, y, classes=None, names=None, size=7, opacity=0.85, showlegend=True,
                 **kw) -> tuple[list[dict], tuple[int, int] | None]:
    """``add_class_scatter``'s traces as Plotly dicts, and (shown, total) when only a sample of
    the points is drawn (``note_sample`` says so), else None."""
    y = np.asarray(y)
    classes = np.unique(y) if classes is None else classes
    idx = sample_index(len(y))
    note = None
    if idx is not None:
        note = (len(idx), len(y))
        X2, y = np.asarray(X2)[idx], y[idx]
    kind = "scattergl" if len(y) > WEBGL_THRESHOLD else "scatter"   # as ``point_trace``
    # the points of each class from one sort (a mask per class costs n × K)
    order = np.argsort(y, kind="stable")
    ys = y[order]
    lo, hi = np.searchsorted(ys, classes, "left"), np.searchsorted(ys, classes, "right")
    traces = []
    for k, c in enumerate(classes):
        m = order[lo[k]:hi[k]]
        traces.append(dict(
            type=kind, x=X2[m, 0], y=X2[m, 1], mode="markers", name=str(class_text(names[k] if names else c)),
            marker=dict(color=class_color(k, len(classes)), symbol=SYMBOLS[k % len(SYMBOLS)], size=size,
                        line=dict(width=0.5, color="#333")),
            opacity=opacity, showlegend=showlegend, **kw))
    return traces, note


def grid(X2: np.ndarray, resolution: int = GRID_RESOLUTION, pad: float = 0.08):
    """(xx, yy, points) of a regular grid around the 2-D points ``X2``; at most
    ``MAX_GRID_RESOLUTION`` points per axis, whatever is asked."""
    resolution = int(min(max(resolution, 2), MAX_GRID_RESOLUTION))
    lo, hi = X2.min(axis=0), X2.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    lo, hi = lo - pad * span, hi + pad * span
    xs = np.linspace(lo[0], hi[0], resolution)
    ys = np.linspace(lo[1], hi[1], resolution)
    xx, yy = np.meshgrid(xs, ys)
    return xs, ys, np.column_stack([xx.ravel(), yy.ravel()])


class Plane:
    """A 2-D view of d-dimensional data: two chosen features (others at their mean) or PCA.

    ``to2d`` maps samples onto the plane, ``lift`` maps plane points back to d dimensions (for
    evaluating a model on a grid); ``labels`` are the axis titles saying what the plane is.
    """

    def __init__(self, X: np.ndarray, features=(0, 1), method: str = "features", feature_names=None):
        X = np.asarray(X, dtype=np.float64)
        self.d = X.shape[1]
        self.mean = X.mean(axis=0)
        names = [user_text(f) for f in (feature_names or [f"x{j + 1}" for j in range(self.d)])]
        if self.d == 1:
            raise ValueError("a plane needs at least two features")
        if method == "pca" and self.d > 2:
            _, _, Vt = np.linalg.svd(X - self.mean, full_matrices=False)
            self.basis = Vt[:2]
            self.labels = ["PCA component 1", "PCA component 2"]
            self.method = "pca"
        else:
            i, j = features if self.d > 2 else (0, 1)
            self.basis = np.zeros((2, self.d))
            self.basis[0, i] = self.basis[1, j] = 1.0
            suffix = " (other features at their mean)" if self.d > 2 else ""
            self.labels = [names[i] + suffix, names[j] + suffix] if suffix else [names[i], names[j]]
            self.method = "features"

    def to2d(self, X: np.ndarray) -> np.ndarray:
        if self.method == "pca":
            return (X - self.mean) @ self.basis.T
        return X @ self.basis.T

    def lift(self, P: np.ndarray) -> np.ndarray:
        if self.method == "pca":
            return self.mean + P @ self.basis
        out = np.tile(self.mean, (P.shape[0], 1))
        idx = np.argmax(self.basis, axis=1)
        out[:, idx[0]], out[:, idx[1]] = P[:, 0], P[:, 1]
        return out


# Font sizes (px) read from the back of a lecture room on a projector: Plotly's defaults (12 px,
# 17 px titles) shrink to ~9 px there once a figure is scaled to a page column.
FONT_SIZE, TITLE_SIZE, SUBTITLE_SIZE, LEGEND_SIZE, AXIS_TITLE_SIZE = 15, 21, 16, 14, 16


def _template() -> go.layout.Template:
    """Plotly's "plotly_white" for the flat charts this library draws: its defaults for 3-D,
    polar, ternary and map subplots and for trace kinds never used here dropped, which is 5 of
    its 7 kB; every figure carries its template, and a stepped view sends its figures on every
    step. Charts of the kinds kept look exactly as with "plotly_white"."""
    full = pio.templates["plotly_white"].to_plotly_json()
    layout = {k: v for k, v in full["layout"].items()
              if k not in ("scene", "polar", "ternary", "geo", "mapbox", "map")}
    data = {k: v for k, v in full["data"].items() if k in ("scatter", "scattergl", "bar", "heatmap", "contour")}
    return go.layout.Template(layout=layout, data=data)


#: The template of the figures drawn with ``base_layout``, and its dict form (``layout_spec``).
TEMPLATE = _template()
TEMPLATE_DICT = TEMPLATE.to_plotly_json()


def base_layout(fig: go.Figure, title: str = "", xlabel: str = "x1", ylabel: str = "x2",
                equal: bool = True, height: int = 560) -> go.Figure:
    spec = layout_spec(title, xlabel, ylabel, equal, height)
    xaxis, yaxis = spec.pop("xaxis"), spec.pop("yaxis")
    # the template as an object: a dict would be validated and merged into the figure's default
    # template (three times the cost of the rest of the layout)
    spec["template"] = TEMPLATE
    fig.update_layout(spec)
    fig.update_xaxes(xaxis)
    fig.update_yaxes(yaxis)
    return fig


def layout_spec(title: str = "", xlabel: str = "x1", ylabel: str = "x2", equal: bool = True,
                height: int = 560) -> dict:
    """``base_layout`` as a Plotly layout dict (a new dict; the template in it is shared, never
    change it)."""
    # tick labels set explicitly: Streamlit's chart theme replaces the layout font's size there
    xaxis = dict(title=dict(text=xlabel, font=dict(size=AXIS_TITLE_SIZE)), tickfont=dict(size=FONT_SIZE - 1))
    yaxis = dict(title=dict(text=ylabel, font=dict(size=AXIS_TITLE_SIZE)), tickfont=dict(size=FONT_SIZE - 1))
    if equal:
        # one scale for both axes (distances, margins and hulls keep their shape); the axes shrink
        # to the data's aspect instead of stretching their range past the data into a wide chart
        yaxis.update(scaleanchor="x", scaleratio=1, constrain="domain")
        xaxis.update(constrain="domain")
    return dict(title=dict(text=title, font=dict(size=TITLE_SIZE)), template=TEMPLATE_DICT, height=height,
                font=dict(size=FONT_SIZE), margin=dict(l=50, r=20, t=60, b=50),
                legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0, font=dict(size=LEGEND_SIZE)),
                xaxis=xaxis, yaxis=yaxis)


def with_subtitle(fig: go.Figure, text: str) -> go.Figure:
    """``text`` (lines joined by <br>) as the title's subtitle at a size read on a projector, the
    top margin grown to hold it: details moved out of a title that a narrow column cuts off."""
    lines = text.count("<br>") + 1
    fig.update_layout(title=dict(subtitle=dict(text=text, font=dict(size=SUBTITLE_SIZE))),
                      margin=dict(t=60 + 20 * lines))
    return fig


def readable(fig: go.Figure, title: str | None = None, n_titles: int = 0, **layout) -> go.Figure:
    """The projector sizes of ``base_layout`` for a figure it does not lay out (subplots, diagrams,
    bars): body, title, legend and tick fonts, and its first ``n_titles`` annotations — the
    subplot titles ``make_subplots`` adds — at the axis-title size. ``layout``: further settings
    (height, margin, ...)."""
    if title is not None:
        layout["title"] = dict(text=title, font=dict(size=TITLE_SIZE))
    layout["legend"] = dict(layout.get("legend", {}), font=dict(size=LEGEND_SIZE))
    fig.update_layout(template=TEMPLATE, font=dict(size=FONT_SIZE), **layout)
    fig.update_xaxes(tickfont=dict(size=FONT_SIZE - 1))
    fig.update_yaxes(tickfont=dict(size=FONT_SIZE - 1))
    for note in fig.layout.annotations[:n_titles]:
        note.font.size = AXIS_TITLE_SIZE
    return fig


#: The smallest text on a projected figure (lesson mode), in CSS pixels: tick labels, legend
#: entries and labels read from the back row of a lecture room on a 1920×1080 projector.
PROJECTOR_MIN_FONT = 20
#: How much a projected figure's text grows (titles stay larger than the rest).
PROJECTOR_FONT_SCALE = 1.3
_FONT_KEYS = ("font", "tickfont", "textfont", "insidetextfont", "outsidetextfont")


def for_projector(fig) -> go.Figure:
    """A copy of ``fig`` (a figure or its dict form) with every text at least
    ``PROJECTOR_MIN_FONT`` px, each size grown by ``PROJECTOR_FONT_SCALE``: titles, subtitles,
    tick labels, legend entries, annotations and trace labels. The body font without a size gets
    the minimum, so what inherits it (annotations, hover labels) does too."""
    spec = fig.to_dict() if isinstance(fig, go.Figure) else {"data": list(fig.get("data", [])),
                                                              "layout": dict(fig.get("layout", {}))}

    def grow(node):
        if isinstance(node, dict):
            out = {}
            for key, value in node.items():
                if key in _FONT_KEYS and isinstance(value, dict):
                    value = grow(value)
                    size = value.get("size")
                    if isinstance(size, (int, float)):
                        value["size"] = max(PROJECTOR_MIN_FONT, round(size * PROJECTOR_FONT_SCALE))
                    out[key] = value
                elif key != "template":
                    out[key] = grow(value)
                else:
                    out[key] = value
            return out
        if isinstance(node, (list, tuple)):
            return [grow(v) for v in node]
        return node

    layout = grow(spec["layout"])
    body = dict(layout.get("font") or {})
    if not isinstance(body.get("size"), (int, float)):
        body["size"] = PROJECTOR_MIN_FONT
    layout["font"] = body
    data = [_label_inside_grown(old, new) for old, new in zip(spec["data"], grow(spec["data"]))]
    return go.Figure({"data": data, "layout": layout})


def _label_inside_grown(old: dict, new: dict) -> dict:
    """A trace whose labels sit inside its markers (a diagram's nodes) with its markers grown as
    much as its labels, so that a label still fits its circle."""
    before, after = (t.get("textfont", {}).get("size") for t in (old, new))
    size = new.get("marker", {}).get("size")
    if new.get("textposition") != "middle center" or not before or not after or size is None:
        return new
    ratio = after / before
    new["marker"] = dict(new["marker"], size=np.asarray(size, dtype=float) * ratio)
    return new


def message_figure(*lines: str) -> go.Figure:
    """A figure holding only ``lines`` of text, each as plain text (shown as written), at a size
    read on a projector: for a file asked for when there is no figure to save, which then says why
    instead of holding some other figure."""
    fig = go.Figure()
    fig.add_annotation(text="<br>".join(user_text(line) for line in lines), x=0.5, y=0.5, xref="paper",
                       yref="paper", showarrow=False, font=dict(size=TITLE_SIZE))
    fig.update_layout(template=TEMPLATE, height=300, font=dict(size=FONT_SIZE),
                      xaxis=dict(visible=False), yaxis=dict(visible=False))
    return fig
