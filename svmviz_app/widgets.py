"""Widgets every page uses: the error guard, the data summary, downloads, model import, the link
and lesson file of a view, size bounds and progress."""

from __future__ import annotations

import contextlib
import re
from typing import Callable

import numpy as np
import streamlit as st

from svmviz.data import Dataset, DataError, load_dataset, split_indices
from svmviz.data import plain_text as plain  # user strings in st.markdown: shown as typed, never a link/image
from svmviz.data.dataset import counted
from svmviz.export import figure_bytes, image_export_available
from svmviz_app import state
from svmviz_app.navigation import PAGES, page_exists
from svmviz_app.session_keys import (  # this module's keys in the session's state
    UPLOAD_SEEN as _UPLOAD_SEEN, LESSON_RESTORED as _RESTORED, LESSON_GOTO as _LESSON_GOTO,
    IMPORT_FOLLOWED_PREFIX as _FOLLOWED, LESSON_SOURCE as _LESSON_SOURCE, LESSON_MODEL as _LESSON_MODEL,
    import_seen, imported_model)


@contextlib.contextmanager
def guard(what: str = ""):
    """Show a ``ValueError`` (every svmviz error is one) as ``st.error`` instead of a traceback;
    the app state stays as it was."""
    try:
        yield
    except ValueError as exc:   # messages quote file names, headers, link values: plain text
        st.error(plain(f"{what + ': ' if what else ''}{exc}"))


def data_sidebar() -> Dataset:
    """The current data set and how it is prepared, summarised in the sidebar (with any note
    about the link the session was opened with)."""
    ds = state.current_dataset()
    with st.sidebar:
        st.markdown(f"**Data:** {plain(ds.name)}  \n{counted(ds.n_samples, 'sample')} × "
                    f"{counted(ds.n_features, 'feature')}, {counted(len(ds.classes), 'class')}")
        st.caption(f"{plain(shown_source(ds.source))}; {state.split_settings().describe()} — change it on the "
                   "Data page")
    restored = st.session_state.get(_RESTORED)
    if restored is not None and _LESSON_GOTO not in st.session_state:   # on the page the lesson file opened, until another page is opened
        here = current_page_path()
        if here and here == restored[1]:
            st.success(plain(restored[0]), icon=":material/task_alt:")
        else:
            del st.session_state[_RESTORED]
            if not here:   # no address (a test's run): said once
                st.success(plain(restored[0]), icon=":material/task_alt:")
    state.show_notes(st.container())   # link notes, also those made later in this run
    return ds


_GENERATED = re.compile(r"^generated: (\w+)\((.*)\)$")
#: An absolute path on the server (POSIX or Windows), up to its last component.
_SERVER_PATH = re.compile(r"(?:[A-Za-z]:)?[/\\](?:[^/\\\s;,()]+[/\\])+(?=[^/\\\s;,()]+)")


def shown_source(source: str) -> str:
    """Where a data set comes from, as a class reads it: a file by its name, never the server's
    path to it; a generator by its name in words and its size, not its Python name and seed
    ("generated: mexican_hat(n=600, seed=0)" → "generated: mexican hat, 600 points")."""
    text = _SERVER_PATH.sub("", str(source))
    m = _GENERATED.match(text)
    if m is None:
        return text
    parts = []
    for item in filter(None, (p.strip() for p in m.group(2).split(","))):
        name, _, value = item.partition("=")
        if name == "n":
            parts.append(f"{value} points")
        elif name != "seed":
            parts.append(f"{name.replace('_', ' ')} = {value}")
    return ", ".join([f"generated: {m.group(1).replace('_', ' ')}"] + parts)


def replace_dataset(make: Callable[[], Dataset], what: str = "cannot load the data",
                    spec: str | None = None) -> bool:
    """Make ``make()`` the current data set (named ``spec`` in links); when it raises a
    ``ValueError`` show the message and keep the data set that was there."""
    with guard(what):
        state.set_dataset(make(), spec)
        return True
    return False


def dataset_from_upload(uploaded) -> bool | None:
    """Load an uploaded data file as the current data set, once per upload (Streamlit hands the
    same file over on every rerun). A lesson file restores its data and state; a model file is
    recognised and the user told where to load it.

    Returns True when it was loaded, False when refused (the message stays while the file is in
    the uploader and the previous data stays current), None when there is no new file.
    """
    from svmviz.export.lesson import loads_lesson, sniff_document, validate_state

    if uploaded is None:
        return None
    ident = (getattr(uploaded, "file_id", None), getattr(uploaded, "name", ""), _size(uploaded))
    seen = st.session_state.get(_UPLOAD_SEEN)
    if seen is not None and seen[0] == ident:
        if seen[1]:
            st.error(plain(seen[1]))
        return None
    error, lesson = None, None
    name = getattr(uploaded, "name", "the upload")
    try:
        head = uploaded.getvalue() if hasattr(uploaded, "getvalue") else None
        kind = sniff_document(head) if head is not None else None
        if kind == "model":
            raise ValueError("this is a svmviz model file, not data: load it on its method page "
                             "(“Load a model” in the sidebar)")
        if kind == "lesson":
            loaded = loads_lesson(head)
            # settings of pages not opened yet follow the link's path (checked when bound)
            values, _ = validate_state(loaded.state, state.lesson_schema(), unknown=lambda k, v: (v, None))
            lesson = loaded
        else:
            state.set_dataset(load_dataset(uploaded))
    except ValueError as exc:
        error = f"cannot load {name}: {exc}"
        st.error(plain(error))
    st.session_state[_UPLOAD_SEEN] = (ident, error)
    if lesson is not None:
        page = _lesson_page(values.pop(LESSON_PAGE, None))
        state.restore(lesson.dataset, values)
        if lesson.model is not None:
            st.session_state[_LESSON_MODEL] = lesson.model
        st.session_state[_RESTORED] = (restored_note(lesson, name, page), page[0][2:-3] if page else "Data")
        if page is not None:
            st.session_state[_LESSON_GOTO] = page[0]   # opened by ``open_lesson_page`` after this page's run
        st.rerun()
    return error is None


#: The state entry of a lesson file naming the page it was saved on (its URL path, "DAG_SVM").
LESSON_PAGE = "view.page"


def open_lesson_page() -> None:
    """The Data page's last step after a lesson upload: the page's own widgets bound the lesson's
    values in this run (a value at its default leaves the URL, as when the lesson was saved), then
    the lesson's page opens at its step."""
    page = st.session_state.pop(_LESSON_GOTO, None)
    if page is not None:
        st.switch_page(f"pages/{page}")


def _lesson_page(url_path) -> tuple[str, str] | None:
    """(file, title) of the method page named by a lesson file, or None (the Data page, an
    unknown page, an older file without one)."""
    for fname, title, _ in PAGES:
        if fname[2:-3] == url_path and fname != "1_Data.py" and page_exists(fname):
            return fname, title
    return None


def restored_note(lesson, file_name: str, page: tuple[str, str] | None) -> str:
    """The success message of a lesson file: what it brought back and where it opened."""
    ds, settings = lesson.dataset, len(set(lesson.state) - {LESSON_PAGE})
    what = (f"Lesson file {file_name} restored: the data set {ds.name} ({counted(ds.n_samples, 'sample')}, "
            f"{counted(len(ds.classes), 'class')})"
            + (f", {counted(settings, 'setting')}" if settings else "")
            + (" and its model" if lesson.model is not None else ""))
    return what + (f"; opened on the {page[1]} page at its step." if page is not None else ".")


def current_page_path() -> str:
    """The URL path of the page this session shows ("DAG_SVM"; "" on the home page or outside a
    browser session), from the address Streamlit reports for the browser's tab."""
    url = st.context.url
    return url.rstrip("/").rsplit("/", 1)[-1] if url and url.count("/") > 2 else ""


def _size(f) -> int | None:
    size = getattr(f, "size", None)
    if size is None and hasattr(f, "getbuffer"):
        size = f.getbuffer().nbytes
    return size


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", s).strip("_") or "figure"


def figure_downloads(fig, basename: str, key: str, formats=("html", "png", "svg"), what: str = "") -> None:
    """Download buttons for ``fig``. The file is made only when a button is clicked (Streamlit
    runs the callable then), so a page rerun never pays for a 4 MB HTML or a kaleido render.
    ``fig`` may be a function returning the figure, called then too: a stepped view's buttons sit
    outside the stepper's fragment (a step click does not draw and send them again) and save the
    figure of the step shown when clicked. PNG/SVG need a Chromium for kaleido; without one the
    page says so instead. ``what`` names the figure on the buttons ("PNG: hull plot"), for a page
    that shows several figures' buttons close together."""
    figure = fig if callable(fig) else lambda: fig
    name = _slug(basename)
    images = _images_exportable()
    shown = [f for f in formats if f == "html" or images]
    row = st.container(horizontal=True)   # one block, not a column per button: drawn at every step click
    for fmt in shown:
        mime = {"html": "text/html", "png": "image/png", "svg": "image/svg+xml"}[fmt]
        # the format first: a button in a narrow column cuts its label at the end, and "Download
        # zero-sol…" three times over hid which one saves which format
        label = f"{fmt.upper()}: {what}" if what else f"Download {fmt.upper()}"
        row.download_button(label, lambda fmt=fmt: figure_bytes(figure(), fmt), f"{name}.{fmt}", mime,
                            key=f"{key}_{fmt}", on_click="ignore", icon=":material/download:" if what else None)
    if len(shown) < len(formats):
        row.caption("PNG/SVG export needs Chromium (Debian: apt-get install chromium); HTML works.")


@st.cache_resource(ttl=600, show_spinner=False)
def _images_exportable() -> bool:
    """``image_export_available`` looked up once every ten minutes for the whole server, not at
    every draw of a figure's buttons: its search of the PATH for a Chromium was a tenth of a
    step click's CPU on the SVM Tree page (the step figure's buttons are in the stepper)."""
    return image_export_available()


def model_download(model, basename: str, key: str) -> None:
    """A download button for ``model`` as a versioned JSON document, written only when the button
    is clicked (as ``figure_downloads``): every run of a page draws the button, and encoding a
    fitted tree took more of a page run than all the rest of it."""
    st.download_button("Download model (JSON)", lambda: _dumps_model(model), f"{_slug(basename)}.json",
                       "application/json", key=f"{key}_model", on_click="ignore")


def _dumps_model(model) -> str:
    # the model functions load every estimator module (a document may name any): at a click, not
    # in the first run of a page, which needs only its own
    from svmviz.export import dumps_model

    return dumps_model(model)


def _check_matches(model, n_features: int | None) -> None:
    from svmviz.export import check_model_matches

    ds = state.current_dataset()
    check_model_matches(model, ds.n_features if n_features is None else n_features, ds.classes)


def model_upload(estimator_types: type | tuple[type, ...], key: str, n_features: int | None = None):
    """A sidebar uploader for a model JSON of ``estimator_types`` (from the app, the CLI or
    ``save_model``). Returns the imported model while one is loaded, else None. A wrong estimator
    type, a model for another number of features or a tampered file gets a message and leaves the
    page as it was (the previous import, if any, stays)."""
    types = estimator_types if isinstance(estimator_types, tuple) else (estimator_types,)
    slot, seen = imported_model(key), import_seen(key)
    moved = _moved_from_import(key)
    lesson_model = st.session_state.pop(_LESSON_MODEL, None)
    if lesson_model is not None:
        with guard("the lesson file's model cannot be used"):
            m = _loads_model(lesson_model)
            if isinstance(m, types):
                _check_matches(m, n_features)
                st.session_state[slot] = (m, "the lesson file")
            else:
                st.session_state[_LESSON_MODEL] = lesson_model  # for its own page
    # drawn only while open (opening it reruns the page), and kept open while a model is loaded
    # (it says so and offers the page's own fit) or the sidebar just replaced it: the uploader is
    # one more element on every visit
    opened = import_open_key(key)
    if slot in st.session_state or moved:
        st.session_state[opened] = True
    panel = st.sidebar.expander("Load a model (JSON)", key=opened, on_change="rerun")
    if not panel.open:
        return _imported(slot)
    with panel:
        if moved:
            st.caption(f"You changed {plain(', '.join(moved))} in the sidebar: the page fits its own model "
                       "with the sidebar's values instead of the imported one.")
        up = st.file_uploader(f"a {' / '.join(t.__name__ for t in types)} model file", type=["json"],
                              key=f"{key}_upload")
        if up is not None:
            ident = (getattr(up, "file_id", None), up.name, _size(up))
            if st.session_state.get(seen, (None,))[0] != ident:
                error = None
                try:
                    m = _loads_model(up.getvalue())
                    if not isinstance(m, types):
                        raise ValueError(f"it holds a {type(m).__name__}; this page shows "
                                         f"{' / '.join(t.__name__ for t in types)} models")
                    _check_matches(m, n_features)
                    st.session_state[slot] = (m, up.name)
                except ValueError as exc:
                    error = f"cannot use {up.name}: {exc}"
                st.session_state[seen] = (ident, error)
            if st.session_state[seen][1]:
                st.error(plain(st.session_state[seen][1]))
        if slot in st.session_state:
            m, source = st.session_state[slot]
            followed = st.session_state.get(_FOLLOWED + key)
            if followed is not None and followed["model"] is m:
                missing = followed["unshown"]
                st.caption(f"Showing the imported model from {plain(source)}, made with {plain(_own_params(m))}. "
                           "The parameters above are its own"
                           + (f", except what they cannot show: {plain(', '.join(missing))}." if missing else "."))
            else:
                st.caption(f"Showing the imported model from {plain(source)}. The parameters above are this "
                           f"page's own fit's; the imported model was made with {plain(_own_params(m))}.")
            st.button("Use this page's own fit instead", key=f"{key}_drop", on_click=drop_import, args=(key,))
    return _imported(slot)


def _loads_model(document):
    from svmviz.export import loads_model   # as _dumps_model: when a model is loaded

    return loads_model(document)


def import_open_key(key: str) -> str:
    """The session-state key of the "Load a model" panel's open state on the page ``key``."""
    return f"{key}_import_open"


def _imported(slot: str):
    got = st.session_state.get(slot)
    return None if got is None else got[0]




def follow_import(key: str, model, shown: dict, unshown: list[str], labels: dict[str, str]) -> None:
    """Make the sidebar show the parameters of ``model``, the import of page ``key``: ``shown``
    holds the bound values that show them (each one its widget offers), ``unshown`` says what
    the widgets cannot show ("C = 0.37"), ``labels`` the widgets' labels by bound key (a message
    names a widget as the sidebar does). The values are set at the start of a new run (this
    run's widgets are drawn); the values they replace come back when the import is dropped."""
    ss = st.session_state
    earlier = ss.get(_FOLLOWED + key, {}).get("before", {})   # an import replacing an import: the page's own
    before = {k: earlier[k] if k in earlier else ss[k] for k in shown if k in earlier or k in ss}
    ss[_FOLLOWED + key] = {"model": model, "shown": dict(shown), "unshown": list(unshown), "before": before,
                           "labels": {k: labels.get(k, k) for k in shown}}
    state.set_for_next_run(shown)
    st.rerun()


def followed_import(key: str):
    """The imported model of page ``key`` whose parameters the sidebar shows, or None."""
    got = st.session_state.get(_FOLLOWED + key)
    return None if got is None else got["model"]


def drop_import(key: str) -> None:
    """Callback of "Use this page's own fit instead": forget the import of page ``key`` and give
    the widgets it set the values they had before it (those the user has not changed since)."""
    ss = st.session_state
    ss.pop(imported_model(key), None)
    followed = ss.pop(_FOLLOWED + key, None)
    if followed is not None:
        for k, v in followed["before"].items():
            if ss.get(k) == followed["shown"][k]:
                ss[k] = v


def _moved_from_import(key: str) -> list[str]:
    """The labels of the widgets the user changed away from the imported model's values: the
    import is then dropped (the sidebar no longer shows it) and the page fits its own with the new
    values."""
    ss = st.session_state
    followed = ss.get(_FOLLOWED + key)
    if followed is None:
        return []
    moved = [followed["labels"][k] for k, v in followed["shown"].items() if ss.get(k) != v]
    if moved or imported_model(key) not in ss:
        ss.pop(_FOLLOWED + key)
        if moved:
            ss.pop(imported_model(key), None)
    return moved


def _own_params(model) -> str:
    """The parameters ``model`` was made with that differ from its class's defaults, as
    "name = value" (or "its class's defaults")."""
    defaults = type(model)().get_params(deep=False)
    # compared as text: a parameter may be an array or a dict, where != is not one truth value
    own = {k: v for k, v in model.get_params(deep=False).items() if repr(defaults.get(k, object())) != repr(v)}
    return ", ".join(f"{k} = {v}" for k, v in own.items()) if own else "its class's defaults"


SHARE_OPEN = "share_open"   # the share panel's open state


def share_controls(key: str, model=None) -> None:
    """“Copy link to this view” and the lesson file (data + state [+ model]) of this view, in a
    panel drawn only while it is open (opening it reruns the page). Its link box (``st.code``,
    for the copy icon) makes the browser load and run Streamlit's syntax highlighter, which cost
    more of a software-rendered Chromium's main thread than Plotly's script and came before the
    first plot, on every page of every visit."""
    panel = st.sidebar.expander("Share this view", key=SHARE_OPEN, on_change="rerun")
    if not panel.open:
        return
    with panel:
        st.caption("Copy link to this view (the copy icon at the right of the box). A link carries "
                   "built-in and generated data; for uploaded or drawn data use the lesson file.")
        state.show_link(st.empty())   # a step click (a fragment run) draws it again there
        if not (state.current_spec() in state.BUILTINS or state.current_spec().startswith("gen:")):
            st.caption("This data set was uploaded or drawn: the link alone cannot bring it back.")
        # Streamlit calls a deferred download callable outside this session's script run, where
        # the session state cannot be read: the callable reads a plain dict of this session that
        # the runs keep current — the data set and model here, the bound values (the step
        # included) after every run and fragment run (``_refresh_lesson_source``), since a step
        # click reruns only its fragment, not this sidebar.
        source = st.session_state.setdefault(_LESSON_SOURCE, {})
        source.update(dataset=state.current_dataset(), values=state.snapshot(), model=model,
                      page=current_page_path())
        st.download_button("Download lesson file", lambda: _lesson_text(source),
                           f"{_slug(key)}_lesson.json", "application/json", key=f"{key}_lesson",
                           on_click="ignore")




def share_model(model) -> None:
    """Make ``model`` the one the lesson file of this view carries, for a page that builds the
    model it shows after the share panel is drawn (the download reads it when clicked)."""
    source = st.session_state.get(_LESSON_SOURCE)
    if source is not None:
        source["model"] = model


def _refresh_lesson_source(snap: dict) -> None:
    source = st.session_state.get(_LESSON_SOURCE)
    if source:
        source["values"] = snap


if _refresh_lesson_source not in state.AFTER_SYNC:
    state.AFTER_SYNC.append(_refresh_lesson_source)


def _lesson_text(source: dict) -> str:
    from svmviz.export.lesson import dumps_lesson

    model = source["model"]
    values = dict(source["values"], **({LESSON_PAGE: source["page"]} if source.get("page") else {}))
    return dumps_lesson(source["dataset"], values, None if model is None else _dumps_model(model))


def bounded(ds: Dataset, max_samples: int, what: str, seed: int = 0) -> Dataset:
    """``ds``, or a stratified seeded sample of ``max_samples`` of it with a visible note, so a
    page never works on more than it states."""
    if ds.n_samples <= max_samples:
        return ds
    try:
        keep, _ = split_indices(ds.y, max_samples, ds.n_samples - max_samples, seed)
    except DataError:
        keep = np.random.default_rng(seed).choice(ds.n_samples, max_samples, replace=False)
    st.info(f"{what} works on at most {max_samples:,} samples: showing a stratified sample of "
            f"{max_samples:,} of the {ds.n_samples:,}.")
    return ds.subset(np.sort(keep), check_classes=False)


class Progress:
    """``st.progress`` as a ``callback(done, total)`` for the library's long loops.

    Every call sends the bar to the browser, which is where Streamlit checks for a stop request:
    it raises its ``StopException`` inside the call when the user presses Stop, and also when the
    tab closes (the websocket's end makes Streamlit's session manager request the script's stop;
    tests/test_browser_cancel.py pins both). The exception ends the library's work there and
    ``svmviz_app.cache`` stores nothing. ``waiting()``: called by the cache while another session
    computes the same result, so a waiting session stops too; ``queued()`` likewise while the
    computation waits for a heavy-work slot."""

    def __init__(self, label: str):
        self.label = label
        self.frac = 0.0
        self.bar = st.progress(0.0, label)

    def __call__(self, done: int, total: int) -> None:
        self.frac = 0.0 if total <= 0 else min(max(done / total, 0.0), 1.0)
        self.bar.progress(self.frac, f"{self.label} ({done}/{total})")

    def waiting(self) -> None:
        self.bar.progress(self.frac, f"{self.label}: waiting for another session computing the same")

    def queued(self, text: str | None) -> None:
        """``text`` (the computation waits for a heavy-work slot: ``svmviz_app.slots``) on the
        bar, or its own label again when None (the slot is taken)."""
        self.bar.progress(self.frac, self.label if text is None else f"{self.label}: {text}")

    def done(self) -> None:
        self.bar.empty()
