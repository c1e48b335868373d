"""The frame every method page runs in. A page declares what it is — a ``MethodPage``: its URL
prefix, title, citation, estimator class, parameters, size bound, how the fit inputs come from
the Data page's split, and its views — and ``run_page`` does the rest: the data sidebar, the
parameter widgets bound to the URL, the size bound with its note, model import or the shared
cached fit with progress and Stop, the convergence status, the share link and lesson file,
lesson mode, and downloads for every figure and the model.

A parameter's bounds or options are read from the estimator class (``param_spec`` of its
``_parameter_constraints``), never written again on a page; a page only narrows what it offers
(``within``: a slider's teaching range, a subset of the options) and the frame checks that this
stays inside what the class accepts. A range that depends on the data (ν ≤ ν_max of the two
classes) is a function of the fit inputs: that widget is drawn once the data is known.

A page may switch between estimator classes (a C-SVM or a ν-SVM form): ``estimator`` then names
the page control whose choices map an id to a class, and each parameter goes to the classes that
have it. Views may sit in tabs that are computed only while open (``View.tab``). In lesson mode
the first figure a view draws goes to the top of the page (the projector view: the plot first),
what the page says before it comes after, and the page's summary is folded under the views.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import streamlit as st

from svmviz.data import Dataset
from svmviz.kernels import KERNEL_PARAMS
from svmviz.models import param_spec
from svmviz_app import state
from svmviz_app.cache import cached_fit
from svmviz_app.controls import log_stops, nearest_stop
from svmviz_app.projector import PROJECTOR_KEY, projector_chart
from svmviz_app.state import bind
from svmviz_app.views import convergence_status, standard_views
from svmviz_app.widgets import (Progress, bounded, data_sidebar, figure_downloads, follow_import, followed_import,
                                guard, model_download, model_upload, share_controls, share_model)
from svmviz_app.session_keys import FRAME_TOP as _TOP

WIDGETS = ("number", "slider", "select_slider", "select", "radio", "checkbox")


@dataclass(frozen=True)
class Param:
    """One declared widget (in the sidebar, or where a view draws it with ``param_widget``).
    ``name``: the estimator parameter it sets (a tuple for a preset that
    sets several, e.g. a (C grid, γ grid) pair); None for a page control that is no estimator
    parameter (its ``key`` is then required, its options or bounds given here).

    - ``key``: the URL key under the page's prefix (default: ``name``); never change it, old links
      and lesson files carry it.
    - ``widget``: one of ``WIDGETS``; ``label``, ``default``, ``help`` as shown.
    - ``within``: for a number, the (lo, hi) a slider offers inside the class's bounds; for
      options, the subset the page offers. Checked against the class. A function of the fit
      ``Inputs`` (as ``default`` may be) when it depends on the data: the widget is then drawn
      after the data is prepared, still in the sidebar.
    - ``choices``: presets ``{url id: (label, value)}`` when the widget picks among values the page
      names (grids, rules); each value is checked against the class's constraint. For the page
      control that ``MethodPage.estimator`` names, the values are estimator classes.
    - ``labels``: how options of the class are shown (``{option: label}``).
    - ``step``, ``format``, ``horizontal``, ``fmt`` (a format function of the value): widget details.
    - ``section``: a subheader drawn before this widget.
    - ``disabled``: a function of the values read so far (``{key: value}``) that greys it out;
      ``when``: one that says whether it is drawn at all (hidden: value None, the estimator's own
      default for its parameter).
    - ``of_model``: for a page control that sets estimator parameters through ``derive`` (or a
      rule such as γ = 'scale'), its value for a model with these parameters (``get_params()``,
      the fit ``Inputs``), None when the model does not decide it: the sidebar then shows an
      imported model's parameters.
    """

    name: str | tuple[str, ...] | None
    label: str
    default: Any
    widget: str = "number"
    key: str | None = None
    help: str | None = None
    within: tuple | Callable[["Inputs"], tuple] | None = None
    choices: Mapping[str, tuple[str, Any]] | None = None
    labels: Mapping[Any, str] | None = None
    options: Sequence | None = None       # a page control's options
    bounds: tuple | None = None           # a page control's bounds
    step: float | None = None
    format: str | None = None             # a number's printf format ("%g")
    horizontal: bool = False
    fmt: Callable[[Any], str] | None = None
    section: str | None = None
    disabled: Callable[[dict], bool] | None = None
    when: Callable[[dict], bool] | None = None   # drawn only then; else the estimator's default applies
    of_model: Callable[[dict, "Inputs"], Any] | None = None   # a page control's value for a model's parameters

    @property
    def url_key(self) -> str:
        if self.key is not None:
            return self.key
        if not isinstance(self.name, str):
            raise ValueError(f"{self.label!r}: a preset of several parameters or a page control needs a key")
        return self.name

    @property
    def data_dependent(self) -> bool:
        return callable(self.within) or callable(self.default)

    def resolved(self, inputs: "Inputs") -> "Param":
        """This declaration with its data-dependent range and default computed for ``inputs``."""
        return replace(self, within=self.within(inputs) if callable(self.within) else self.within,
                       default=self.default(inputs) if callable(self.default) else self.default)


@dataclass(frozen=True)
class Inputs:
    """What the estimator is fitted on: ``X``, ``y`` and any further ``fit`` arguments."""

    X: Any
    y: Any
    fit_kw: dict = field(default_factory=dict)


@dataclass
class Context:
    """What a view receives: the fitted model and everything it was fitted from."""

    page: "MethodPage"
    model: Any
    imported: Any                 # the model loaded from a file (None: none), shown unless the page declined it
    values: dict                  # widget values by their key under the page prefix
    params: dict                  # the estimator's parameters the page set
    train: Dataset                # the (bounded) training part
    test: Dataset | None
    inputs: Inputs
    dataset: Dataset              # the current data set (for names)
    lesson: bool
    full: Dataset | None = None   # the training part before the page's size bound
    reference: Any = None         # the reference fit beside the model (``MethodPage.reference``)

    def projected(self):
        return projected()

    def figure(self, fig, key: str, name: str, dl_key: str | None = None, what: str = "", **chart_kw) -> None:
        """Draw ``fig`` (the projector's size in lesson mode, the first one at the top of the
        page) with its downloads (not in lesson mode; ``what`` names the figure on them).
        ``chart_kw`` (``on_select``...) go to ``st.plotly_chart``."""
        if not self.lesson:
            st.plotly_chart(fig, key=key, **chart_kw)
            figure_downloads(fig, name, key=dl_key or f"{key}_dl", what=what)
            return
        with projected():
            projector_chart(fig, key=key, **chart_kw)

    def share(self, model) -> None:
        """Make ``model`` the one the lesson file of this view carries (a model a view builds)."""
        share_model(model)

    def model_download(self, name: str | None = None) -> None:
        model_download(self.model, name or f"{self.page.key}_{self.dataset.name}", key=self.page.model_key)




def projected():
    """Where the projector's picture goes: in lesson mode, the first time in a page run, the
    container at the top of the page (the plot first, whatever the page said before it: a
    stepper with its step, or a figure); else a container here."""
    top = st.session_state.pop(_TOP, None)
    return top if top is not None else st.container()


@dataclass(frozen=True)
class View:
    """A part of the page drawn after the fit: ``draw(ctx)``. ``lesson``: also drawn in lesson
    mode (the projector view keeps only what a class looks at). ``tab``: the label of the tab it
    sits in; views with a tab are drawn in tabs that compute only while open (not in lesson mode,
    which draws its views one under the other)."""

    draw: Callable[[Context], None]
    lesson: bool = False
    tab: str | None = None


def standard(ctx: Context) -> None:
    """The standard views (decision function, confusion matrix, ROC) as a page view."""
    standard_views(ctx.model, ctx.train, ctx.test, key=ctx.page.key)


@dataclass(frozen=True)
class MethodPage:
    """What a method page is. ``data(values)`` gives (train, test) — default the Data page's
    split — or None after drawing why there is nothing to fit; ``prepare(train, test, values)``
    gives the fit ``Inputs`` (default: all of ``train``). ``fixed``: estimator parameters the page
    does not offer; ``imports``: the model types a user may load (default: the estimator; none: ());
    ``derive(values, inputs)``: estimator parameters computed from the widget
    values and the fit inputs (a bound relative to the smallest class, an option dict). Returning
    None from ``prepare`` ends the page after its message (``run_page`` returns None).
    ``import_note``: said when an imported model is shown. ``use_import(model, inputs)``: the model to show for an imported one (it,
    or one built from it), or None to fit the page's own instead (after a message); by default
    the imported model itself. ``on_fit_error(exc, train, inputs)``: a known
    ``ValueError`` of the fit explained by the page (returns True when it drew the explanation;
    the page then ends without a model).

    ``estimator``: the class fitted, or the key of the page control whose choices map ids to
    classes (a form the user picks: that control comes first among ``params``). ``reference``:
    parameters that, changed on the page's estimator, give a reference fitted beside it (another
    solver), as ``ctx.reference``. ``controls(train, values)``: sidebar controls that need the
    data (a plane for d > 2; ``train`` before the size bound), drawn after it; the dict they
    return joins ``ctx.values``.
    ``bound_what``/``size_note``: what the size bound's note names (default: "The <name> page")
    and the caption stating the bound."""

    key: str
    title: str
    name: str                      # in the size bound's note: "The <name> page works on at most..."
    citation: str
    estimator: type | str
    params: tuple[Param, ...]
    max_samples: int
    views: tuple[View, ...]
    summary: str | None = None
    sidebar_title: str | None = None
    fixed: Mapping[str, Any] = field(default_factory=dict)
    data: Callable[[dict], tuple[Dataset, Dataset | None] | None] | None = None
    prepare: Callable[[Dataset, Dataset | None, dict], Inputs | None] | None = None
    derive: Callable[[dict, Inputs], dict] | None = None
    import_note: str | None = None
    progress: str | Callable[[Dataset], str] = "fitting"   # the progress bar's label (of the training part)
    fit_error: str = "the fit failed"
    converged: Callable[[Any], str] | None = None   # what converged, named in the status
    imports: tuple[type, ...] | None = None
    use_import: Callable[[Any, Inputs], Any] | None = None
    on_fit_error: Callable[[ValueError, Dataset, Inputs], bool] | None = None
    model_key: str | None = None   # the model download's key (default: "<key>_model")
    share_key: str | None = None   # the share panel's key, naming the lesson file (default: key)
    reference: Mapping[str, Any] | None = None
    controls: Callable[[Dataset, dict], dict] | None = None
    bound_what: str | None = None
    size_note: str | None = None

    def __post_init__(self):
        if self.model_key is None:
            object.__setattr__(self, "model_key", f"{self.key}_model")
        if self.share_key is None:
            object.__setattr__(self, "share_key", self.key)
        if self.bound_what is None:
            object.__setattr__(self, "bound_what", f"The {self.name} page")
        if self.size_note is None:
            object.__setattr__(self, "size_note", f"This page works on at most {self.max_samples:,} training "
                                                  "samples (a stratified sample above that).")
        if isinstance(self.estimator, str):
            form = next((p for p in self.params if p.name is None and p.url_key == self.estimator), None)
            if form is None or form.choices is None or self.params.index(form) != 0:
                raise ValueError(f"{self.title!r}: the estimator is chosen by {self.estimator!r}, which must be "
                                 "the first parameter, a page control whose choices are estimator classes")

    def classes(self) -> tuple[type, ...]:
        """Every estimator class the page may fit."""
        if isinstance(self.estimator, str):
            return tuple(cls for _, cls in self.params[0].choices.values())
        return (self.estimator,)

    def estimator_for(self, values: dict) -> type:
        """The estimator class the widget values choose."""
        if isinstance(self.estimator, str):
            return self.params[0].choices[values[self.estimator]][1]
        return self.estimator


# ------------------------------------------------------------------ parameters -> widgets
def _names(p: Param) -> tuple[str, ...]:
    return () if p.name is None else ((p.name,) if isinstance(p.name, str) else tuple(p.name))


def _rule(cls, name: str):
    return cls._parameter_constraints[name]


def _check_value(cls, p: Param, v) -> None:
    names = _names(p)
    vals = (v,) if len(names) == 1 else tuple(v)
    if len(vals) != len(names):
        raise ValueError(f"{p.label!r}: a value for each of {names}, got {v!r}")
    for n, x in zip(names, vals):
        if not _rule(cls, n).ok(x):
            raise ValueError(f"{p.label!r}: {x!r} is outside what {cls.__name__} accepts for {n} "
                             f"({_rule(cls, n).describe()})")


def widget_spec(cls, p: Param) -> dict:
    """What the widget of ``p`` offers, from the class: ``{"options": [...]}`` (URL ids, with
    ``labels``), ``{"bounds": (lo, hi)}`` or ``{}`` (a flag). Raises ``ValueError`` when the page
    offers something the class refuses (a range beyond its bounds, an unknown option, a default
    outside)."""
    if p.widget not in WIDGETS:
        raise ValueError(f"{p.label!r}: widget must be one of {WIDGETS}, not {p.widget!r}")
    if p.name is None:   # a page control: it states its own options or bounds
        if p.choices is not None:
            return {"options": list(p.choices), "labels": {i: lab for i, (lab, _) in p.choices.items()}}
        if p.options is not None:
            return {"options": list(p.options), "labels": dict(p.labels or {})}
        return {"bounds": p.bounds} if p.bounds is not None else {}
    if p.choices is not None:   # presets: every value must be one the class accepts
        for _, v in p.choices.values():
            _check_value(cls, p, v)
        return {"options": list(p.choices), "labels": {i: lab for i, (lab, _) in p.choices.items()}}
    (name,) = _names(p)
    spec = param_spec(cls, name)
    if p.widget == "select_slider" and p.options is not None:   # stops the page names, each one the class accepts
        for v in p.options:
            _check_value(cls, p, v)
        if p.default not in p.options:
            raise ValueError(f"{p.label!r}: the default {p.default!r} is not among the stops")
        return {"options": list(p.options), "labels": dict(p.labels or {})}
    if spec is bool:
        if p.widget != "checkbox":
            raise ValueError(f"{p.label!r}: {cls.__name__}.{name} is a flag: a checkbox shows it")
        _check_value(cls, p, p.default)
        return {}
    if not isinstance(spec, tuple):
        raise ValueError(f"{p.label!r}: {cls.__name__}.{name} takes {spec.describe()}: name its presets "
                         "(choices)")
    if p.widget in ("select", "radio") or (p.widget == "select_slider" and p.options is None):
        options = list(spec)   # the class's options; the page may offer a subset
        unlabelled = [o for o in (p.labels or {}) if o not in options]
        if unlabelled:   # a label kept for an option the class renamed or dropped
            raise ValueError(f"{p.label!r}: a label for {unlabelled[0]!r}, which is no option of "
                             f"{cls.__name__}.{name}")
        if p.within is not None:
            unknown = [o for o in p.within if o not in options]
            if unknown:
                raise ValueError(f"{p.label!r}: {cls.__name__} has no option {unknown[0]!r} for {name}")
            options = list(p.within)
        if p.default not in options:
            raise ValueError(f"{p.label!r}: the default {p.default!r} is not among {options}")
        return {"options": options, "labels": dict(p.labels or {})}
    lo, hi = spec   # a number: (lo, hi), None where unbounded
    if p.within is not None:   # the range the page offers, inside the class's
        for v in p.within:
            _check_value(cls, p, v)
        lo = p.within[0] if lo is None else max(lo, p.within[0])
        hi = p.within[1] if hi is None else min(hi, p.within[1])
    if p.widget == "slider" and (lo is None or hi is None):
        raise ValueError(f"{p.label!r}: {cls.__name__}.{name} is unbounded; a slider needs a range (within)")
    _check_value(cls, p, p.default)
    if (lo is not None and p.default < lo) or (hi is not None and p.default > hi):
        raise ValueError(f"{p.label!r}: the default {p.default!r} is outside the offered {lo!r}…{hi!r}")
    return {"bounds": (lo, hi)}


def _draw(p: Param, full_key: str, ws: dict, disabled: bool):
    kw = dict(help=p.help, disabled=disabled)
    if "options" in ws:
        options, labels = ws["options"], ws["labels"]
        fmt = p.fmt or (labels.get if labels else str)
        b = bind(full_key, p.default, options=labels if p.choices is not None else options)
        if p.widget == "select":
            return st.selectbox(p.label, options, format_func=fmt, **b, **kw)
        if p.widget == "radio":
            return st.radio(p.label, options, format_func=fmt, horizontal=p.horizontal, **b, **kw)
        if p.widget == "select_slider":
            return st.select_slider(p.label, options, format_func=fmt, **b, **kw)
        raise ValueError(f"{p.label!r}: a {p.widget} cannot pick among options")
    if p.widget == "checkbox":
        return st.checkbox(p.label, **bind(full_key, bool(p.default)), **kw)
    lo, hi = ws.get("bounds", (None, None))
    num = type(p.default)
    lo_, hi_ = (None if lo is None else num(lo)), (None if hi is None else num(hi))
    b = bind(full_key, p.default, bounds=(-math.inf if lo is None else lo, math.inf if hi is None else hi))
    step = None if p.step is None else num(p.step)
    if p.widget == "slider":
        return st.slider(p.label, lo_, hi_, step=step, format=p.format, **b, **kw)
    if p.widget == "number":
        return st.number_input(p.label, lo_, hi_, step=step, format=p.format, **b, **kw)
    raise ValueError(f"{p.label!r}: a {p.widget} cannot take a number")


def param_widget(cls, prefix: str, p: Param, values: dict | None = None):
    """Draw the widget of ``p`` (a parameter of ``cls``) bound as ``prefix.key``, where the caller
    is drawing (a view's column: estimator parameters set after the page's fit); returns its
    value. ``values``: those read so far, for ``disabled``."""
    return _draw(p, f"{prefix}.{p.url_key}", widget_spec(cls, p), bool(p.disabled and p.disabled(values or {})))


def _class_for(page: MethodPage, p: Param, values: dict) -> type | None:
    """The class whose constraints ``p``'s widget offers: the chosen estimator when it has the
    parameter, else the first of the page's classes that has it (a parameter of one form only,
    shown for both)."""
    names = _names(p)
    if not names:
        return None
    for cls in (page.estimator_for(values), *page.classes()):
        if all(n in cls._parameter_constraints for n in names):
            return cls
    raise ValueError(f"{p.label!r}: no estimator of the page has {', '.join(names)}")


def _set_params(page: MethodPage, p: Param, v, values: dict, params: dict) -> None:
    """Add to ``params`` the estimator parameters ``p``'s value ``v`` sets."""
    names = _names(p)
    if not names:
        return
    chosen = p.choices[v][1] if p.choices is not None else v
    if len(names) == 1:
        chosen = (chosen,)
    own = page.estimator_for(values)._parameter_constraints
    params.update((n, c) for n, c in zip(names, chosen) if n in own)


def parameter_widgets(page: MethodPage, inputs: Inputs | None = None, values: dict | None = None,
                      params: dict | None = None) -> tuple[dict, dict]:
    """Draw the page's parameter widgets (call inside the sidebar): without ``inputs`` those
    whose range is fixed, with them those whose range or default depends on the data (adding to
    ``values`` and ``params``). Returns ``(values, params)``: the widget values by key, and the
    estimator parameters they set (presets resolved) for the estimator the values choose."""
    values = {} if values is None else values
    params = dict(page.fixed) if params is None else params
    for p in page.params:
        if p.data_dependent != (inputs is not None):
            continue
        if inputs is not None:
            p = p.resolved(inputs)
        if p.when is not None and not p.when(values):
            values[p.url_key] = None
            continue
        if p.section:
            st.subheader(p.section)
        v = values[p.url_key] = param_widget(_class_for(page, p, values), page.key, p, values)
        _set_params(page, p, v, values, params)
    return values, params


# ------------------------------------------------------------------ an imported model -> widgets
_KEEP = object()   # the model does not decide this widget's value, or its widget cannot show it


def _same(a, b) -> bool:
    """Whether two parameter values are the same (numbers to rounding, sequences and dicts by item)."""
    num = (int, float, np.integer, np.floating)
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, np.bool_) or isinstance(b, np.bool_):
        return isinstance(a, (bool, np.bool_)) and isinstance(b, (bool, np.bool_)) and bool(a) == bool(b)
    if isinstance(a, num) and isinstance(b, num):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=0.0)
    if isinstance(a, (tuple, list, np.ndarray)) and isinstance(b, (tuple, list, np.ndarray)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _model_value(page: MethodPage, p: Param, model, mp: dict, inputs: Inputs):
    """The value ``p``'s widget takes to show ``model`` (parameters ``mp``), or ``_KEEP``."""
    if isinstance(page.estimator, str) and p.url_key == page.estimator:
        return next((i for i, (_, cls) in p.choices.items() if cls is type(model)), _KEEP)
    names = _names(p)
    if not names:
        v = p.of_model(mp, inputs) if p.of_model is not None else None
        return _KEEP if v is None else v
    if any(n not in mp for n in names):
        return _KEEP
    v = mp[names[0]] if len(names) == 1 else tuple(mp[n] for n in names)
    if p.choices is not None:
        return next((i for i, (_, c) in p.choices.items() if _same(c, v)), _KEEP)
    return v


def _as_shown(ws: dict, p: Param, v):
    """``v`` as the widget (``widget_spec`` ``ws``) holds it, or ``_KEEP`` when it cannot show it:
    not among its options, outside its range, a fraction on a whole-number widget."""
    if "options" in ws:
        return next((o for o in ws["options"] if _same(o, v)), _KEEP)
    if p.widget == "checkbox":
        return bool(v) if isinstance(v, (bool, np.bool_)) else _KEEP
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        return _KEEP
    num = type(p.default)
    lo, hi = ws.get("bounds", (None, None))
    if not math.isfinite(float(v)) or num(v) != v or (lo is not None and v < lo) or (hi is not None and v > hi):
        return _KEEP
    return num(v)


def model_values(page: MethodPage, model, inputs: Inputs, values: dict) -> tuple[dict, list[str]]:
    """The bound values (``page.key``: ``tree.C_hard``) that show ``model``'s parameters, each
    one its widget offers, and what the widgets cannot show (``"C = 0.37"``: a value outside a
    widget's range or stops, or a parameter the page does not offer), found by computing the
    estimator parameters those values give, as the page's own fit would, and comparing."""
    mp = model.get_params(deep=False)
    new, shown = dict(values), {}
    for p in page.params:
        if p.data_dependent:
            p = p.resolved(inputs)
        if p.when is not None and not p.when(new):
            new[p.url_key] = None
            continue
        if new.get(p.url_key) is None:   # hidden before: the value its widget keeps
            new[p.url_key] = state.value(f"{page.key}.{p.url_key}", p.default)
        want = _model_value(page, p, model, mp, inputs)
        if want is _KEEP:
            continue
        v = _as_shown(widget_spec(_class_for(page, p, new), p), p, want)
        if v is not _KEEP:
            new[p.url_key] = shown[f"{page.key}.{p.url_key}"] = v
    params = dict(page.fixed)
    for p in page.params:
        if new.get(p.url_key) is not None:
            _set_params(page, p, new[p.url_key], new, params)
    if page.derive is not None:
        params.update(page.derive(new, inputs))
    own = {**page.estimator_for(new)().get_params(deep=False), **params}   # what the page's own fit would use
    unshown = [f"{n} = {_text(v)}" for n, v in mp.items() if n in own and not _same(v, own[n])]
    return shown, unshown


def _text(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


# ------------------------------------------------------------------ the frame
def _default_data(values: dict):
    return state.current_split()


def _default_prepare(train: Dataset, test: Dataset | None, values: dict) -> Inputs:
    return Inputs(train.X, train.y)


def _folded_summary(page: MethodPage) -> None:
    """Lesson mode: what the page's captions say, folded under the views."""
    with st.expander("What this page shows"):
        st.markdown(page.citation)
        if page.summary:
            st.markdown(page.summary)


def _draw_views(page: MethodPage, ctx: Context) -> None:
    """The views in order; those with a tab in tabs that compute only while open (lesson mode:
    the lesson views one under the other, no tabs)."""
    views = [v for v in page.views if v.lesson or not ctx.lesson]
    tabs = list(dict.fromkeys(v.tab for v in views if v.tab is not None)) if not ctx.lesson else []
    opened = {}
    for view in views:
        if view.tab is None or ctx.lesson:
            view.draw(ctx)
            continue
        if not opened:
            opened = dict(zip(tabs, page_tabs(page.key, tabs)))
        tab = opened[view.tab]
        if tab.open:
            with tab:
                view.draw(ctx)


def _tab_chosen(bound: str, widget: str, labels: Sequence[str]) -> None:
    st.session_state[bound] = list(labels).index(st.session_state[widget])


def page_tabs(prefix: str, labels: Sequence[str]):
    """``st.tabs`` of ``labels`` whose content is computed only while open (each tab's ``.open``;
    choosing one reruns the page), the open one bound to the app state as ``prefix.tab``: its
    position, so a link or a lesson file opens it again and a renamed tab keeps its links. The
    tabs widget itself (key ``prefix_tab``) is set from the bound value at every run, since a
    link, a lesson file or a live class may change it while the widget shows another."""
    bound, widget = f"{prefix}.tab", f"{prefix}_tab"
    bind(bound, 0, options=list(range(len(labels))))
    st.session_state[widget] = labels[st.session_state[bound]]
    return st.tabs(list(labels), key=widget, on_change=_tab_chosen, args=(bound, widget, tuple(labels)))


def run_page(page: MethodPage) -> Context | None:
    """Run ``page``: everything a method page shows, in the same order on every page. Returns
    the views' ``Context`` (a page may go on drawing after its declared views), or None when
    there is nothing to show (the data cannot be prepared, or no model came out: the frame said
    why). The frame never stops the run: a stopped run leaves Streamlit's fragments and widgets
    of earlier runs registered, and skips what runs at its end."""
    state.start_run()   # before any element: a page link on a fresh server is routed through the app here
    lesson = state.lesson_mode()
    st.session_state.pop(_TOP, None)
    summary = None
    if lesson:   # the projector's picture and the folded summary, above everything the page says
        with st.container():
            st.session_state[_TOP], summary = st.container(key=PROJECTOR_KEY), st.container()
    st.title(page.title)
    st.caption(page.citation)
    if page.summary:
        st.caption(page.summary)
    ds = data_sidebar()
    with st.sidebar:
        if page.sidebar_title:
            st.header(page.sidebar_title)
        values, params = parameter_widgets(page)
    st.caption(page.size_note)

    got = inputs = None
    with guard("cannot prepare the data"):
        got = (page.data or _default_data)(values)
        if got is not None:
            full, test = got
            train = bounded(full, page.max_samples, page.bound_what)
            inputs = (page.prepare or _default_prepare)(train, test, values)
        if inputs is not None:
            with st.sidebar:
                parameter_widgets(page, inputs, values, params)
                if page.controls is not None:
                    values.update(page.controls(full, values))

    imported = model = reference = None
    if inputs is not None:
        imported, model, reference = _fitted(page, values, params, train, inputs, summary if lesson else None)
    share_controls(page.share_key, model)
    if model is None:
        return None
    if page.converged is not None and (not lesson or not getattr(model, "converged_", True)):
        convergence_status(model, page.converged(model))   # a projector shows only a problem

    ctx = Context(page, model, imported, values, params, train, test, inputs, ds, lesson, full=full,
                  reference=reference)
    _draw_views(page, ctx)
    if lesson and _TOP not in st.session_state:   # a view put its picture first: the page's words folded under it
        with summary:
            _folded_summary(page)
    return ctx


def _fitted(page: MethodPage, values: dict, params: dict, train: Dataset, inputs: Inputs, bar_box):
    """``(imported, model, reference)``: the imported model shown, or the page's own cached fit
    (with its progress bar in ``bar_box``, else here) and its reference; the model is None after
    a message saying why there is none."""
    imported = model = reference = None
    estimator = page.estimator_for(values)
    with guard(page.fit_error):
        types = page.classes() if page.imports is None else page.imports   # () : the page loads no model
        imported = model_upload(types, page.key, n_features=inputs.X.shape[1]) if types else None
        model = imported if imported is None or page.use_import is None else page.use_import(imported, inputs)
        if model is not None and followed_import(page.key) is not imported:
            # the page shows the import: its widgets take the model's values (a new run draws them)
            shown, unshown = model_values(page, imported, inputs, values)
            labels = {f"{page.key}.{p.url_key}": p.label for p in page.params}
            follow_import(page.key, imported, shown, unshown, labels)
        if model is not None and page.import_note:
            st.info(page.import_note)
        if model is None:
            if page.derive is not None:
                params.update(page.derive(values, inputs))
            label = page.progress(train) if callable(page.progress) else page.progress
            with bar_box if bar_box is not None else st.container():
                bar = Progress(label)   # Stop or a closed tab ends the fit inside the solver
            try:
                model = cached_fit(estimator(**params), inputs.X, inputs.y, progress=bar, **inputs.fit_kw)
                if page.reference is not None:
                    reference = cached_fit(estimator(**{**params, **page.reference}), inputs.X, inputs.y,
                                           progress=bar, **inputs.fit_kw)
            except ValueError as exc:
                if page.on_fit_error is None or not page.on_fit_error(exc, train, inputs):
                    raise
            finally:
                bar.done()
    return imported, model, reference


# ------------------------------------------------------------------ shared declarations
def kernel_params(C_default: float = 1.0, section: str | None = None) -> tuple[Param, ...]:
    """The kernel SVM's parameters as a page declares them (keys ``kernel``, ``C``, ``gamma_scale``,
    ``gamma``, ``degree``, ``coef0``): every kernel of the estimator class, C and γ on log-scale stops (C and γ change by factors, as instructors explain them), γ =
    'scale' unless unticked, degree and coef0 enabled only for the kernels that use them."""
    c_stops, g_stops = log_stops(1e-3, 1e4), log_stops(1e-3, 1e3)
    uses = lambda v, param: param in KERNEL_PARAMS[v["kernel"]]  # noqa: E731
    log_fmt = lambda v: f"{v:g}"  # noqa: E731
    return (
        Param("kernel", "Kernel", "rbf", "select", section=section),
        Param("C", "C (log scale)", nearest_stop(c_stops, C_default), "select_slider", options=c_stops, fmt=log_fmt),
        Param(None, "γ = 'scale' (1 / (d · Var X))", True, "checkbox", key="gamma_scale",
              disabled=lambda v: not uses(v, "gamma"), of_model=lambda mp, _: mp.get("gamma") == "scale"),
        Param("gamma", "γ (log scale)", nearest_stop(g_stops, 1.0), "select_slider", options=g_stops, fmt=log_fmt,
              when=lambda v: not v["gamma_scale"] and uses(v, "gamma")),
        Param("degree", "degree", 3, "number", within=(1, 10), disabled=lambda v: not uses(v, "degree")),
        Param("coef0", "coef0", 0.0, "number", format="%g", disabled=lambda v: not uses(v, "coef0")),
    )
