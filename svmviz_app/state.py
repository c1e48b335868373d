"""The one app state of svmviz: what the instructor set up, kept across page switches, reloads
and links.

Everything a page shows follows from values held here:

- the **data**: a spec string (``data`` in the URL) — a built-in name (``fourclass``), a generator
  with its parameters (``gen:checkerboard;n_classes=9;seed=0``), or a content digest of uploaded,
  drawn or lesson data (``upload:<digest>``, which a link cannot carry: a lesson file can);
- the **split and normalization** (``split.norm``, ``split.test``, ``split.seed``, ``split.strat``);
- every **page parameter and step**, as *bound keys* (``tree.C_hard``, ``tree.step``...).

A page binds a widget to the state by passing ``**bind("page.name", default)`` and no
``value``/``index`` argument; the value then comes from this session, else from the link the
session was opened with, else the default. Streamlit keeps a bound widget's value while its page
is not shown (``persist_state="session"``). The app writes the non-default values into the URL
with ``st.query_params`` at the start and end of every run and at the start of every fragment run
(``sync_url``), so the address bar holds the view at every moment and a copied link reproduces
it. URL values are stable identifiers (option ids, numbers), never display labels.

Pages never keep their own copies: they read ``value(key)``, ``current_dataset()`` and
``current_split()``; programmatic changes (a Next button) go through ``set_value`` in a callback.
"""

from __future__ import annotations

import inspect
import math
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence
from urllib.parse import urlencode

import numpy as np
import streamlit as st

from svmviz.data import METHODS, Dataset, DataError, load_builtin, plain_text, split_and_normalize
from svmviz.data.builtins import BUILTINS
from svmviz_app import budget, server, terminal
from svmviz_app.view_mode import LESSON_FLAG, lesson_mode  # noqa: F401  (pages ask state.lesson_mode())
from svmviz_app.session_keys import (  # this module's keys in the session's state
    REGISTRY as _REGISTRY, URL as _URL, DATASET as _DATASET, NOTES as _NOTES, NOTES_BOX as _NOTES_BOX,
    LINK_BOX as _LINK_BOX, PENDING as _PENDING, SPLIT_CACHE as _SPLIT_CACHE, NEXT_RUN as _NEXT_RUN,
    ROUTED as _ROUTED, BIND_SCOPE, HULL_NODE as _HULL_NODE)

_SPEC = "data"                    # its spec string (also the URL parameter)

SPLIT_DEFAULTS = {"split.norm": "none", "split.test": 0.3, "split.seed": 0, "split.strat": True}
# what the Data page's widgets allow; every page splits before the Data page was opened, so a link
# value outside is clamped when it is read (a seed of −1 or 2⁴⁰ would reach scikit-learn)
SPLIT_BOUNDS = {"split.test": (0.0, 0.5), "split.seed": (0, 2**31 - 1)}
#: characters of a link value quoted back in a note (a link can carry half a megabyte)
QUOTE_CHARS = 60


# ------------------------------------------------------------------ run hooks (app.py)
def start_run() -> None:
    """Before the page: read the link on a session's first run, apply a pending restore (lesson
    file) and write the URL. ``app.py`` calls it first thing; every state call of a page calls it
    too, so a page run on its own (``AppTest`` of a page file) works the same. Calling it again in
    the same run changes nothing: it only sets values no widget has been drawn for yet. The rest
    of the run (its script thread) is inside the classroom budget."""
    server.configure()   # a page link on a fresh server runs the page without app.py
    budget.enter_classroom()
    ss = st.session_state
    if _URL not in ss:
        ss[_URL] = {k: st.query_params.get(k) for k in st.query_params}
        ss[_REGISTRY] = dict(SPLIT_DEFAULTS)
        if not ss.get(_ROUTED):
            _serve_page_link_through_the_app()
    pending = ss.pop(_PENDING, None)
    if pending is not None:
        dataset, spec, values = pending
        ss[_DATASET], ss[_SPEC] = dataset, spec
        for k, v in values.items():
            if k in ss[_REGISTRY]:
                ss[k] = v   # checked against its setting when the lesson was read
            else:  # a page not opened yet: checked like a link value when that page binds it
                ss[_URL][k] = _encode(v)
                ss.pop(k, None)
    for k, v in ss.pop(_NEXT_RUN, {}).items():
        ss[k] = v   # widgets of the last run showed other values: set before any widget is drawn
    for k, default in SPLIT_DEFAULTS.items():
        _init(k, default, SPLIT_BOUNDS.get(k))


def _serve_page_link_through_the_app() -> None:
    """A session whose first run is a page link (``/SVM_Tree?...``) that Streamlit served the old
    ``pages/``-folder way, without ``app.py`` (it does so until some session of the server ran
    ``app.py``'s ``st.navigation``): before the page draws anything (pages call ``start_run``
    first), this runs ``app.py`` itself, which runs the app's navigation, the live-class box and
    the page inside it, then stops the outer run. The sidebar lists the app's pages (Home first),
    and every later run goes through ``app.py``. A page file that is itself the main script (an
    ``AppTest`` of one page) runs on its own and is left alone."""
    import runpy
    import sys
    from pathlib import Path

    main = getattr(sys.modules.get("__main__"), "__file__", None)
    if main is None or Path(main).name != "app.py":
        return
    runpy.run_path(main)   # as a run of app.py: its widgets get the ids of every later run
    st.stop()           # the page ran inside the app's navigation: not a second time here


def app_started() -> None:
    """``app.py``: this run goes through the app's navigation."""
    st.session_state[_ROUTED] = True
    st.session_state.pop(_NOTES_BOX, None)   # the last run's box is gone
    st.session_state.pop(_LINK_BOX, None)
    start_run()
    sync_url()


def finish_run() -> None:
    """After the page (also after ``st.stop()``): the URL holds every value the page set."""
    st.session_state.pop(_NOTES_BOX, None)
    sync_url()


def sync_url() -> dict[str, str]:
    """Write the data spec and every non-default bound value into the URL (values from the opening
    link that no page has bound yet are carried over); nothing is sent when it is current. Runs at
    the start and the end of every run and at the end of every stepper's fragment run, so the URL
    holds the view after any click, also when only a fragment reruns or the page stopped early. The
    ``AFTER_SYNC`` hooks get this session's ``snapshot`` made from the same reads. Returns the
    URL's parameters (for ``show_link``)."""
    values = _bound_values()
    params = link_params(values)
    if st.query_params.to_dict() != params:
        st.query_params.from_dict(params)
    if AFTER_SYNC:
        snap = snapshot(values)
        for hook in AFTER_SYNC:
            hook(snap)
    return params


AFTER_SYNC: list = []   # hook(snapshot) after every sync_url: the live class publishes the view from there

_MISSING = object()


def _bound_values() -> dict[str, Any]:
    """Every bound key's value in this session, each read once: a read of the session state goes
    through Streamlit's lock and widget bookkeeping, there are dozens of bound keys (every page's),
    and every run reads them all (``sync_url``)."""
    ss = st.session_state
    values = {}
    for k in ss.get(_REGISTRY, {}):
        v = ss.get(k, _MISSING)
        if v is not _MISSING:
            values[k] = v
    return values


def defaults(keys) -> dict[str, Any]:
    """{key: default} of the bound ones of ``keys`` (a value at its default stays out of the URL)."""
    registry = st.session_state.get(_REGISTRY, {})
    return {k: registry[k] for k in keys if k in registry}


def link_params(values: dict[str, Any] | None = None) -> dict[str, str]:
    """The URL's parameters of this view; ``values``: ``_bound_values()`` when already read."""
    ss = st.session_state
    registry = ss.get(_REGISTRY, {})
    params = {k: v for k, v in ss.get(_URL, {}).items()
              if v is not None and k not in registry and k != _SPEC}
    spec = ss.get(_SPEC)
    if spec is not None:
        params[_SPEC] = spec
    for k, v in (_bound_values() if values is None else values).items():
        if v != registry[k]:
            params[k] = _encode(v)
    return params


def link(params: dict[str, str] | None = None) -> str:
    """The URL of this view: the current page with every parameter of the state (``params``:
    ``link_params()`` when already made)."""
    base = str(getattr(st.context, "url", "") or "").split("?")[0]
    return f"{base}?{urlencode(link_params() if params is None else params)}"


def show_link(box=None, params: dict[str, str] | None = None) -> None:
    """Show the link of this view (``link()``) in ``box``, an ``st.empty`` of the share panel kept
    for the runs that follow, or again in the box kept. A fragment that moves bound values (the
    stepper) calls it at the end of each of its runs, the full run's included: a step click reruns
    only the fragment, not the sidebar the box is in, and Streamlit draws a fragment's writes to a
    box outside it where the fragment wrote during the last full run. ``params``: what
    ``sync_url`` just returned, so the state is not read again."""
    ss = st.session_state
    if box is not None:
        ss[_LINK_BOX] = box
    box = ss.get(_LINK_BOX)
    if box is not None:
        box.code(link(params), language=None, wrap_lines=True)


# ------------------------------------------------------------------ bound values
def bind(key: str, default: Any, options: Sequence | Mapping | None = None,
         bounds: tuple[float, float] | None = None) -> dict[str, Any]:
    """Register ``key`` (a ``page.name`` string) as part of the state; returns the widget keyword
    arguments that tie a widget to it: ``st.slider(..., **bind("tree.nl_k", 5))``. The widget
    keeps its value across pages and reloads (Streamlit's ``persist_state="session"``) and the
    value goes into the URL under ``key``. The value is this session's, else the opening link's,
    else ``default``; a value no longer among ``options`` (new data, a new tree) or outside
    ``bounds`` is reset to ``default`` (or the first option), so a widget always shows a valid
    value.

    ``options`` as a mapping ``{id: label}`` names the options by stable ids in the URL (show the
    labels with ``format_func=labels.get``); a link holding a label is read as its id."""
    start_run()
    ss = st.session_state
    ss[_REGISTRY][key] = default
    scope = ss.get(BIND_SCOPE)
    if scope is not None:
        scope.add(key)   # bound inside a view that reruns on its own (a stepper's, live.stepper_view)
    _init(key, default, bounds)
    v = shown = ss[key]
    if options is not None:
        opts = list(options)
        if v not in opts and isinstance(options, Mapping):
            shown = {str(label): i for i, label in options.items()}.get(str(v), v)
        if shown not in opts:
            shown = default if default in opts else (opts[0] if opts else default)
    elif bounds is not None and isinstance(v, (int, float)) and not isinstance(v, bool):
        lo, hi = bounds
        if not (lo <= v <= hi):
            shown = type(default)(min(max(v, lo), hi))
    if shown is not v:
        ss[key] = shown
        sync_url()   # the link's value could not stay as it was: the URL says what is shown
    return {"key": key, "persist_state": "session"}


def value(key: str, default: Any = None) -> Any:
    """The current value of a bound key (its default before any page bound it)."""
    start_run()
    ss = st.session_state
    if key in ss:
        return ss[key]
    return ss.get(_REGISTRY, {}).get(key, default)


def set_value(key: str, v: Any) -> None:
    """Change a bound value. Call it from a widget callback (``on_click``/``on_change``) or
    before the widget of ``key`` is drawn in this run."""
    st.session_state[key] = v


def set_for_next_run(values: Mapping[str, Any]) -> None:
    """Set bound values at the start of the next run, before any widget: for a change decided
    after the widgets of this run were drawn (then ``st.rerun()``). Each value must be one its
    widget offers (``bind`` resets any other)."""
    st.session_state.setdefault(_NEXT_RUN, {}).update(values)


def lesson_schema() -> dict[str, Any]:
    """What a lesson file may set now: every setting bound in this session, with its default's
    type (the pages check options and bounds again when they bind it)."""
    from svmviz.export.lesson import Setting

    return {k: Setting(d) for k, d in st.session_state.get(_REGISTRY, {}).items()}


def snapshot(values: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every bound value (for a lesson file): JSON scalars only. ``values``: ``_bound_values()``
    when already read."""
    snap = {}
    for k, v in (_bound_values() if values is None else values).items():
        p = _plain(v)
        if p is not None:
            snap[k] = p
    return snap


def restore(dataset: Dataset, values: dict[str, Any], spec: str | None = None) -> None:
    """Make ``dataset`` current and apply ``values`` (from a lesson file) at the start of the next
    run; the caller then calls ``st.rerun()``."""
    st.session_state[_PENDING] = (dataset, spec or content_spec("lesson", dataset), dict(values))
    _forget_split()


def set_lesson_mode(on: bool) -> None:
    """Switch lesson mode in this session, from a widget callback: from the next run the same
    session (and all it holds: a live class's token among it) shows the projector view, and the
    URL says ``lesson=1`` while it does. Opening the link with ``lesson=1`` would start another
    session."""
    start_run()
    st.session_state[_URL][LESSON_FLAG] = "1" if on else None


def notes() -> list[str]:
    return st.session_state.get(_NOTES, [])


def show_notes(box) -> None:
    """Show the notes (as plain text) in ``box``, a container of this run, and the notes made
    later in this run there too: a link value is checked when its widget binds it, which is
    after the sidebar summary drew the box, and its note belongs to the run that used the
    default instead."""
    st.session_state[_NOTES_BOX] = box
    for msg in notes():
        box.info(plain_text(msg))


def _note(msg: str) -> None:
    st.session_state.setdefault(_NOTES, [])
    if msg not in st.session_state[_NOTES]:
        st.session_state[_NOTES].append(msg)
        box = st.session_state.get(_NOTES_BOX)
        if box is not None:
            box.info(plain_text(msg))


def quote(value: Any, limit: int = QUOTE_CHARS) -> str:
    """``repr`` of a user value for a note, cut to ``limit`` characters with its length said."""
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(str(value)):,} characters)"


def _init(key: str, default: Any, bounds: tuple[float, float] | None = None) -> None:
    ss = st.session_state
    if key in ss:
        return
    raw = ss.get(_URL, {}).get(key)
    ss[key] = default
    if raw is not None:
        try:
            ss[key] = _decode(raw, default)
        except ValueError:
            _note(f"The link's value {quote(raw)} for {key} could not be used; the default is shown.")
        if key == "split.norm" and ss[key] not in METHODS:
            ss[key] = default   # the link then loses it: finish_run writes non-default values only
            _note(f"The link's normalization {quote(raw)} is not one of {', '.join(METHODS)}; "
                  f"{default!r} is used.")
        v = ss[key]
        if bounds is not None and isinstance(v, (int, float)) and not isinstance(v, bool):
            lo, hi = bounds
            if not lo <= v <= hi:
                ss[key] = type(default)(min(max(v, lo), hi))
                _note(f"The link's value {quote(raw)} for {key} is outside {lo:,} … {hi:,}; "
                      f"{ss[key]:,} is used.")


def _shorten(text: str, limit: int = 300) -> str:
    """A message that may quote a link value, cut to ``limit`` characters."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def _encode(v: Any) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def _decode(raw: str, default: Any) -> Any:
    raw = str(raw)
    if isinstance(default, bool):
        if raw.lower() in ("1", "true"):
            return True
        if raw.lower() in ("0", "false"):
            return False
        raise ValueError(raw)
    if isinstance(default, (int, np.integer)):
        return int(raw)
    if isinstance(default, (float, np.floating)):
        v = float(raw)
        if not math.isfinite(v):
            raise ValueError(raw)
        return v
    if default is None:
        return raw
    return type(default)(raw)


def _plain(v: Any):
    if isinstance(v, (bool, str)):
        return v
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)) and math.isfinite(float(v)):
        return float(v)
    return None


# ------------------------------------------------------------------ the data set
def data_digest(ds: Dataset) -> str:
    """A content digest of a data set (features, labels, names): two sessions share a cached fit
    or figure only when this and every parameter agree."""
    from svmviz_app.cache import array_digest

    return array_digest(ds.X, np.asarray(ds.y), np.asarray(ds.feature_names, dtype=object),
                        np.asarray(ds.class_names, dtype=object))


def content_spec(kind: str, ds: Dataset) -> str:
    """The spec of data a link cannot carry (an upload, drawn points, a lesson file)."""
    return f"{kind}:{data_digest(ds)[:16]}"


def generator_spec(name: str, params: dict[str, Any]) -> str:
    return "gen:" + ";".join([name] + [f"{k}={_encode(v)}" for k, v in params.items()])


def dataset_from_spec(spec: str) -> Dataset:
    """Build the data set a spec names (built-in or generated). Raises ``DataError`` for specs a
    link cannot carry or that name nothing known."""
    from svmviz.data.generators import GENERATORS, generate

    if spec in BUILTINS:
        return load_builtin(spec)
    if spec.startswith("gen:"):
        name, *pairs = spec[4:].split(";")
        if name not in GENERATORS:
            raise DataError(f"unknown generator {name!r}")
        sig = inspect.signature(GENERATORS[name]).parameters
        params = {}
        for pair in pairs:
            k, _, raw = pair.partition("=")
            if k not in sig:
                raise DataError(f"generator {name} has no parameter {k!r}")
            try:
                params[k] = _decode(raw, sig[k].default)
            except ValueError:
                raise DataError(f"generator parameter {k}={raw!r} is not a valid value") from None
        return generate(name, **params)
    kind, sep, digest = spec.partition(":")
    if sep and re.fullmatch(r"[0-9a-f]{16}", digest):   # upload:, lesson:, drawn: content digests
        raise DataError(f"this link was made with {kind} data, which a link cannot carry: load the "
                        "lesson file of that view on the Data page")
    raise DataError(f"there is no data set named {spec!r}: the built-in ones are {', '.join(BUILTINS)}, "
                    "and generated ones are named gen:<generator>;<parameter>=<value>")


def current_dataset() -> Dataset:
    """The data set every page works on. On a session's first use: the one the opening link
    names, else the default (fourclass when available, else the generated fourclass-like set)."""
    start_run()
    ss = st.session_state
    if _DATASET in ss:
        return ss[_DATASET]
    spec = ss.get(_URL, {}).get(_SPEC)
    ds = None
    if spec:
        try:
            ds = dataset_from_spec(spec)
        except ValueError as exc:
            _note(f"The link's data could not be loaded ({_shorten(str(exc))}); the default data set "
                  "is shown.")
            spec = None
    if ds is None:
        spec = terminal.default_dataset_spec()
        try:
            ds = load_builtin(spec)
        except DataError:
            spec = "fourclass_like"
            ds = load_builtin(spec)
    ss[_DATASET], ss[_SPEC] = ds, spec
    sync_url()
    return ds


def current_spec() -> str:
    current_dataset()
    return st.session_state[_SPEC]


def set_dataset(ds: Dataset, spec: str | None = None) -> None:
    """Make ``ds`` the current data set; ``spec`` is how a link names it (a built-in name or a
    generator spec); without one the data is named by its content digest."""
    st.session_state[_DATASET] = ds
    st.session_state[_SPEC] = spec or content_spec("upload", ds)
    _forget_split()
    sync_url()


def _forget_split() -> None:
    st.session_state.pop(_SPLIT_CACHE, None)


NORMALIZATION_LABELS = {"none": "none", "minmax": "Min-Max to [−1, 1]", "stddev": "Std-Dev"}  # by svmviz.data.METHODS


@dataclass(frozen=True)
class SplitSettings:
    """How the Data page prepares the current data set for the method pages."""

    normalization: str = "none"  # "none", "minmax" ([−1, 1]) or "stddev"
    test_size: float = 0.3  # 0 keeps every sample for training
    seed: int = 0
    stratify: bool = True

    def describe(self) -> str:
        """The settings as every page's caption says them: the seed only when it was changed (a
        class reads "seed 0" as noise; another seed is a choice worth saying)."""
        norm = "not normalized" if self.normalization == "none" else NORMALIZATION_LABELS[self.normalization]
        if self.test_size == 0:
            return f"all samples for training, {norm}"
        kind = "stratified" if self.stratify else "random"
        seed = "" if self.seed == SPLIT_DEFAULTS["split.seed"] else f" (split seed {self.seed})"
        return f"{kind} {1 - self.test_size:.0%}/{self.test_size:.0%} split{seed}, {norm}"


def split_settings() -> SplitSettings:
    """The split and normalization chosen on the Data page (its bound ``split.*`` values)."""
    d = SPLIT_DEFAULTS
    norm = value("split.norm", d["split.norm"])
    norm = norm if norm in METHODS else d["split.norm"]
    lo, hi = SPLIT_BOUNDS["split.test"]
    test = round(min(max(float(value("split.test", d["split.test"])), lo), hi), 4)
    return SplitSettings(norm, test, int(value("split.seed", d["split.seed"])), bool(value("split.strat", d["split.strat"])))


def current_split() -> tuple[Dataset, Dataset | None]:
    """``(train, test)`` of the current data set, split and normalized as the Data page says
    (statistics from the training part only); ``test`` is None when the test fraction is 0.

    Raises ``DataError`` when the data cannot be split that way (e.g. a tiny class); pages call it
    inside ``guard()``. Recomputed only when the data or the settings change.
    """
    ds, settings = current_dataset(), split_settings()
    cached = st.session_state.get(_SPLIT_CACHE)
    if cached is not None and cached[0] is ds and cached[1] == settings:
        return cached[2]
    parts = split_and_normalize(ds, settings.normalization, settings.test_size, settings.seed,
                                settings.stratify)
    st.session_state[_SPLIT_CACHE] = (ds, settings, parts)
    return parts


# ------------------------------------------------------------------ hand-over between pages
@dataclass(frozen=True)
class NodeData:
    """Samples another page hands to the Convex Hulls page (e.g. those in play at a tree step)."""

    X: np.ndarray
    y: np.ndarray
    class_names: list
    feature_names: list
    description: str


def send_to_hulls(X, y, class_names, feature_names, description: str) -> None:
    """Hand samples to the Convex Hulls page and select them there; call it from a button's
    ``on_click`` and then link to the page (``st.page_link("pages/3_Convex_Hulls.py")``)."""
    st.session_state[_HULL_NODE] = NodeData(np.asarray(X), np.asarray(y), list(class_names),
                                            list(feature_names), description)
    st.session_state["hull.src"] = "tree node"


def hull_node() -> NodeData | None:
    return st.session_state.get(_HULL_NODE)
