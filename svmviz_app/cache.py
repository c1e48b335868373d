"""Fits and heavy results shared across sessions: one fit per class, not one per student.

An entry is keyed by the estimator's class, all its parameters and a content digest of the
training data (features *and* labels), never by names or shapes, so two sessions share a fit
only when they would compute the same one. While one session computes an entry, the others
asking for it wait for that result instead of computing it again. The computation runs in the
asking session's script thread, so its progress bar updates and Stop (or leaving the page)
cancels it; nothing is stored then (a session waiting for it then computes it itself). A waiting
session with a progress bar checks its own Stop while it waits (the bar's ``waiting()``). Cached
models are shared objects: pages never mutate them.
Both caches are bounded (least recently used entries go first). Computing an entry is heavy work
(but a step's ``cached_call(..., heavy=False)``): it takes one of the server's heavy-work slots
first (``svmviz_app.slots``), waiting with a message in the page when all are taken; a cache hit,
and a session waiting for another's computation of the same entry, take none.

The figures and tables of a fit (``shared_view``) are entries of the same kind, keyed by content
(``content_key``: array digests and the fit's key here): building one not built before is heavy
work too (the regions of a 20-class DAG take seconds), but for a step's view (``step_view``: a
step click never waits behind heavy links). These caches are not ``st.cache_resource`` because
a computation here reports progress or its place in the queue and stops on Stop or a closed tab
inside the cached call (Streamlit would record those messages with the value and replay them),
and a session waiting for another's computation polls its own Stop.

Work with no progress bar of its own (a figure, most shared results) stops at the library's
``svmviz.limits.checkpoint()`` calls (between the pairs of a multi-class model, the blocks of a
decision grid, the labels of a regions map, the nodes of a tree): ``StopCheck`` sends a message
there at most every ``CHECK_EVERY_S``, which is where Streamlit ends the run of a stopped session,
as inside a fit's progress bar.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import threading
import time
import weakref
from collections import OrderedDict
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar
from typing import Any, Callable

import numpy as np
import streamlit as st
from sklearn.base import clone

from svmviz import limits
from svmviz_app import slots
from svmviz_app.budget import classroom

MAX_FITS = 48          # fitted models kept for all sessions together
MAX_RESULTS = 96       # other heavy results (geometry, sweeps, figure data)
WAIT_POLL_S = 0.5      # a session waiting for another's computation checks its own Stop this often
CHECK_EVERY_S = 0.25   # work without a progress bar checks its Stop at most this often (``StopCheck``)


class _KeyLock:
    """The lock of one key being computed, and how many sessions hold or wait for it."""

    __slots__ = ("lock", "users")

    def __init__(self):
        self.lock = threading.Lock()
        self.users = 0


class SharedCache:
    """A bounded LRU mapping shared by all sessions of the server, computing each key once.

    ``_computing`` holds a ``_KeyLock`` per key that some session is computing or waiting for;
    every session counts itself in (under the cache's lock) before it waits and out when it leaves
    — stored, failed, cancelled, or its own wait raised — and the last one out removes the entry,
    so a cancelled key leaves nothing behind. An entry is only removed when nobody uses its lock,
    so two sessions never compute one key at the same time."""

    def __init__(self, max_entries: int):
        self.max_entries = max_entries
        self._data: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()
        self._computing: dict[str, _KeyLock] = {}
        self.computed = 0   # how many entries were computed (a benchmark reads it)

    def get_or_compute(self, key: str, compute: Callable[[], Any], wait: Callable[[], None] | None = None,
                       slot: Callable[[], Any] = nullcontext):
        """The value of ``key``, computed by ``compute()`` unless stored or being computed by
        another session (then this one waits for it). ``wait()`` is called every
        ``WAIT_POLL_S`` seconds while waiting; when it raises (Stop, or the session has ended)
        the wait ends with that exception and the other session's computation goes on.
        ``slot()``: the context (a heavy-work slot) the computation runs in. It is entered before
        the key's lock: a session that holds a key others wait for never waits for a slot itself
        (unless the key belongs to cheap work that started a heavy computation inside)."""
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key]
            entry = self._computing.get(key)
            if entry is None:
                entry = self._computing[key] = _KeyLock()
            entry.users += 1
            theirs = entry.lock.locked()    # another session computes it now
        try:
            if theirs:                      # wait for their value without taking a slot
                self._acquire(entry, wait)
                entry.lock.release()
                with self._lock:
                    if key in self._data:
                        return self._data[key]
                # theirs ended without a value (Stop, an error): compute it here
            with slot():
                self._acquire(entry, wait)
                try:
                    with self._lock:
                        if key in self._data:
                            return self._data[key]
                    value = compute()           # an exception (or Stop) stores nothing
                    with self._lock:
                        self._data[key] = value
                        self.computed += 1
                        while len(self._data) > self.max_entries:
                            self._data.popitem(last=False)
                finally:
                    entry.lock.release()
        finally:
            with self._lock:                # the last session out removes the key's lock
                entry.users -= 1
                if entry.users == 0:
                    del self._computing[key]
        return value

    @staticmethod
    def _acquire(entry: _KeyLock, wait) -> None:
        if wait is None:
            entry.lock.acquire()
        else:
            while not entry.lock.acquire(timeout=WAIT_POLL_S):
                wait()

    def __len__(self) -> int:
        return len(self._data)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


FITS = SharedCache(MAX_FITS)
RESULTS = SharedCache(MAX_RESULTS)


class StopCheck:
    """``svmviz.limits.checkpoint`` for work without a progress bar: at most every
    ``CHECK_EVERY_S`` seconds (the first time once the work has run that long: a short one sends
    nothing) it sends the browser an empty element of its own, made at the first send. Sending is
    where Streamlit ends a run it was asked to stop — Stop, a newer run of the session, or a closed
    tab (its session manager asks for the stop when the websocket ends) — by raising its
    ``StopException`` (or ``RerunException``) there, as inside a progress bar's update; the
    shared cache then stores nothing. ``send()``: at once (a session waiting for another's
    computation, every ``WAIT_POLL_S``)."""

    def __init__(self):
        self._spot = None
        self._due = time.monotonic() + CHECK_EVERY_S

    def __call__(self) -> None:
        now = time.monotonic()
        if now >= self._due:
            self._due = now + CHECK_EVERY_S
            self.send()

    def send(self) -> None:
        if self._spot is None:
            self._spot = st.empty()
        else:
            self._spot.empty()


@contextmanager
def _stoppable(progress):
    """The body's ``svmviz.limits.checkpoint`` calls check this session's Stop (``StopCheck``),
    unless a progress bar does (``progress``: its calls are the checks). Yields the wait callback
    for a session waiting for another's computation (None: the bar's ``waiting``)."""
    if progress is not None:
        yield getattr(progress, "waiting", None)
        return
    check = StopCheck()
    with limits.checkpoints(check):
        yield check.send


def array_digest(*arrays) -> str:
    """Content digest of arrays (shape, dtype and bytes; object arrays by their text)."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.asarray(a)
        h.update(f"{a.shape}|{a.dtype}|".encode())
        if a.dtype == object:
            h.update("\x1f".join(map(str, a.ravel())).encode())
        else:
            h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def _key_part(v) -> str:
    if isinstance(v, np.ndarray):
        return array_digest(v)
    return json.dumps(v, sort_keys=True, default=repr)


def cached_fit(estimator, X, y, progress: Callable[[int, int], None] | None = None, **fit_kw):
    """``clone(estimator).fit(X, y, **fit_kw)``, computed once for every session asking for the
    same class, parameters and data. ``progress`` (a ``callback(done, total)``, not part of the
    key) is passed to ``fit`` when the estimator's ``fit`` takes one; its ``waiting()``, when it
    has one (``widgets.Progress``), is called while another session computes the same fit. The
    returned model is shared: do not mutate it."""
    est_type = type(estimator)
    key = "|".join([f"{est_type.__module__}.{est_type.__qualname__}",
                    _key_part(estimator.get_params(deep=True)), array_digest(X, y),
                    _key_part({k: _key_part(v) for k, v in sorted(fit_kw.items())})])

    def fit():
        kw = dict(fit_kw)
        if progress is not None and "progress" in inspect.signature(est_type.fit).parameters:
            kw["progress"] = progress
        with classroom():   # whichever thread computes it: a fit is one request's work
            return clone(estimator).fit(X, y, **kw)

    with _stoppable(progress) as wait:
        model = FITS.get_or_compute(key, fit, wait=wait, slot=lambda: heavy_slot(progress))
    _FIT_KEYS[model] = key
    return model


def cached_call(fn: Callable, *args, progress: Callable[[int, int], None] | None = None, heavy: bool = True,
                **kwargs):
    """``fn(*args, **kwargs)`` computed once for all sessions (pure functions of their arguments
    only). Arrays are keyed by content, other arguments by their JSON/repr text; ``progress`` is
    passed on as ``progress=`` when given and is not part of the key. ``heavy=False``: a step's
    few milliseconds drawn from results computed before, which never waits for a heavy-work slot
    (``heavy`` is neither passed to ``fn`` nor part of the key)."""
    key = "|".join([f"{fn.__module__}.{fn.__qualname__}", *map(_key_part, args),
                    *(f"{k}={_key_part(v)}" for k, v in sorted(kwargs.items()))])
    if progress is not None:
        kwargs = dict(kwargs, progress=progress)

    def compute():
        with classroom():
            return fn(*args, **kwargs)

    with _stoppable(progress) as wait:
        return RESULTS.get_or_compute(key, compute, wait=wait,
                                      slot=(lambda: heavy_slot(progress)) if heavy else nullcontext)


@contextmanager
def heavy_slot(progress=None):
    """One of the server's heavy-work slots for the computation in the body. While all are taken
    the page says how many computations are ahead — on the computation's progress bar when it has
    one (``widgets.Progress.queued``), else in a message of its own, removed once the slot is
    taken. Every message is sent to the browser, where Streamlit stops the run on Stop or a closed
    tab, as for the bar's progress."""
    queued = getattr(progress, "queued", None)
    spot = None   # the message's place in the page, made only when the computation has to wait

    def show(ahead: int) -> None:
        nonlocal spot
        if queued is not None:
            queued(slots.waiting_text(ahead))
            return
        if spot is None:
            spot = st.empty()
        spot.info(slots.waiting_text(ahead))

    with slots.heavy().hold(show) as waited:
        if waited and queued is not None:
            queued(None)
        elif spot is not None:
            spot.empty()
        yield


# ------------------------------------------------------------------ views of a fit
MAX_VIEWS = 256        # figures and tables of fits, for all sessions together
VIEWS = SharedCache(MAX_VIEWS)
_STEP = ContextVar("svmviz_step_view", default=False)

_FIT_KEYS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # shared fit -> its cache key


def content_key(v) -> str | None:
    """A text naming ``v`` by its content, or None when it cannot be named so: arrays by their
    digest, a model from ``cached_fit`` by its fit's key (class, parameters, data), plain values
    by their JSON, containers and small objects (a ``Plane``) by their parts. A model that did not
    come from ``cached_fit`` (an import) has no such name."""
    if isinstance(v, np.ndarray):
        return array_digest(v)
    if isinstance(v, np.generic):
        v = v.item()
    if v is None or isinstance(v, (bool, int, float, str)):
        return json.dumps(v)
    if isinstance(v, (tuple, list, dict)):
        items = sorted(v.items()) if isinstance(v, dict) else enumerate(v)
        parts = [(k, content_key(x)) for k, x in items]
        if any(p is None for _, p in parts):
            return None
        return f"{type(v).__name__}({','.join(f'{k}:{p}' for k, p in parts)})"
    if callable(v) and hasattr(v, "__qualname__"):   # a function: where it is defined
        code = getattr(v, "__code__", None)
        return json.dumps([getattr(v, "__module__", ""), v.__qualname__, getattr(code, "co_filename", "")])
    try:
        fit_key = _FIT_KEYS.get(v)
    except TypeError:
        fit_key = None
    if fit_key is not None:
        return fit_key
    if hasattr(v, "get_params") or not hasattr(v, "__dict__"):   # a model not from cached_fit
        return None
    inner = content_key(vars(v))
    return None if inner is None else f"{type(v).__module__}.{type(v).__qualname__}{inner}"


@contextmanager
def step_view():
    """The body draws one step of a stepper (``svmviz_app.stepper``): the views it builds
    (``shared_view``) are a step's few milliseconds drawn from results computed before, and take
    no heavy-work slot, so a step click never waits behind a class's heavy links. A heavy result a
    step needs goes through ``cached_fit`` or ``cached_call``, which take their slot."""
    token = _STEP.set(True)
    try:
        yield
    finally:
        _STEP.reset(token)


def shared_view(fn: Callable, *args, **kwargs):
    """``fn(*args, **kwargs)`` — a figure or table of a fit — built once for every session asking
    for it with the same content (``content_key`` of every argument; ``VIEWS``, bounded); the other
    sessions asking meanwhile wait for it. Building it is heavy work: it takes one of the
    server's heavy-work slots first (but in a ``step_view``), and it stops at the library's
    checkpoints on Stop or a closed tab (``StopCheck``). With an argument that has no content key
    (an imported model) it is built for this call only. The result is shared: never mutate it."""
    key = content_key([f"{fn.__module__}.{fn.__qualname__}", list(args), kwargs])
    slot = nullcontext if _STEP.get() else heavy_slot
    with _stoppable(None) as wait:
        if key is None:
            with slot():
                return fn(*args, **kwargs)
        return VIEWS.get_or_compute(hashlib.sha256(key.encode()).hexdigest(), lambda: fn(*args, **kwargs),
                                    wait=wait, slot=slot)
