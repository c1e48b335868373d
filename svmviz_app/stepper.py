"""The stepper every stepped view shares, run as one ``st.fragment``: a step click reruns only the
controls and the view of the step, never the rest of the page (the fit, the sidebar, the views
that do not change with the step), so its cost does not grow with the page.

The step is the bound value ``key`` (0-based, in the URL). Play advances it once every
``delay_s`` seconds through the fragment's ``run_every``: a timed fragment run, not a page run.

What is the same at every step (a step figure's download buttons) is drawn by the page's run,
outside the fragment; ``shown_figure(key)`` holds the figure the view drew, so those buttons save
the step on screen when they are clicked.
"""

from __future__ import annotations

import time
from typing import Callable

import streamlit as st

from svmviz.plots.common import message_figure
from svmviz_app import live, server, state
from svmviz_app.budget import within_classroom
from svmviz_app.cache import step_view


class ShownFigure:
    """The figure a stepper's view drew at its last run, called (``figure_downloads`` takes it) by
    download buttons drawn outside the stepper's fragment: Streamlit calls it when a button is
    clicked, in a thread of its own (no session state there), so the buttons hold this object.
    The stepper empties it before each view: a step whose figure could not be drawn saves a
    figure saying so, never the step before."""

    def __init__(self) -> None:
        self._figure, self._step, self._line = None, 0, ""
        self._class = None

    def clear(self, k: int) -> None:
        """Before the view of step ``k`` (the stepper calls it): no figure drawn yet."""
        self._figure, self._step, self._line, self._class = None, k, "", None

    def follow(self, class_figure) -> None:
        """The step on screen is the class's, drawn by the browser: ``class_figure()`` is its figure
        (None when it cannot be had)."""
        self._class = class_figure

    def show(self, fig, line: str = "") -> None:
        """In the view: ``fig`` is the step's figure on screen, ``line`` the step's line above it.
        With a line, a live class's students are sent both and their browsers draw the step
        (``svmviz_app.step_element``): give one where the figure and its line tell the step."""
        self._figure, self._line = fig, line

    def shown(self) -> tuple[int, str, object] | None:
        """(step, step line, figure) of the last view, None when it drew no figure."""
        return None if self._figure is None else (self._step, self._line, self._figure)

    def __call__(self):
        fig = self._class() if self._class is not None else None
        if fig is not None:
            return fig
        if self._figure is None:
            return message_figure("Nothing to save:", f"the figure of step {self._step + 1} could not be drawn",
                                  "(the page says why).")
        return self._figure


def shown_figure(key: str) -> ShownFigure:
    """The figure the view of the stepper of ``key`` last drew in this session (each session its
    own: two students on different steps each save theirs)."""
    return st.session_state.setdefault(live.shown_figure_key(key), ShownFigure())


def _playing_key(key: str) -> str:
    return f"{key}._playing"


def _moved_key(key: str) -> str:
    return f"{key}._moved"   # when the step last moved (Play waits a full delay after a click)


def _go(key: str, v: int, n: int) -> None:
    st.session_state[key] = int(min(max(v, 0), max(n - 1, 0)))
    st.session_state[_moved_key(key)] = time.monotonic()


def _go_by(key: str, delta: int, n: int) -> None:
    _go(key, int(state.value(key, 0)) + delta, n)


def _from_slider(key: str, k: int, n: int) -> None:
    """The slider drawn at step ``k`` moved. A browser sends the values it shows: a click sent
    before the last run answered (a quick second click, Play's timer on a loaded server) carries
    the slider of a step already left, which is no drag."""
    if int(state.value(key, 0)) == k:
        _go(key, int(st.session_state[f"{key}_slider_{k}"]) - 1, n)


def _toggle_play(key: str, n: int) -> None:
    on = not st.session_state.get(_playing_key(key), False)
    if on and int(state.value(key, 0)) >= n - 1:
        st.session_state[key] = 0          # Play at the last step starts over
    st.session_state[_playing_key(key)] = on
    st.session_state[_moved_key(key)] = time.monotonic()
    st.session_state[f"{key}._restart"] = True   # run_every changes: the page reruns once


def _advance_if_due(key: str, n: int, delay_s: float) -> bool:
    """While playing, one step when ``delay_s`` has passed since the step last moved; at the last
    step Play ends. Returns True when Play just ended."""
    ss = st.session_state
    if not ss.get(_playing_key(key)):
        return False
    k = int(state.value(key, 0))
    if k >= n - 1:
        ss[_playing_key(key)] = False
        return True
    if time.monotonic() - ss.get(_moved_key(key), 0.0) >= 0.8 * delay_s:
        _go(key, k + 1, n)
        if k + 1 >= n - 1:
            ss[_playing_key(key)] = False
            return True
    return False


def _controls(key: str, k: int, n: int, playing: bool, delay_s: float, label: str) -> None:
    """First/previous/next/last buttons, Play/Pause and the slider of step ``k`` of ``n``."""
    row = st.container(horizontal=True, vertical_alignment="center")   # buttons as wide as their labels
    row.button("First", key=f"{key}_first", on_click=_go, args=(key, 0, n), shortcut="Home",
               icon=":material/first_page:", help="first step (Home)")
    row.button("◀ Previous", key=f"{key}_prev", on_click=_go_by, args=(key, -1, n), shortcut="Left",
               help="previous step (←)")
    row.button("Next ▶", key=f"{key}_next", on_click=_go_by, args=(key, 1, n), shortcut="Right",
               help="next step (→)", type="primary")
    row.button("Last", key=f"{key}_last", on_click=_go, args=(key, n - 1, n), shortcut="End",
               icon=":material/last_page:", help="last step (End)")
    row.button("Pause" if playing else "Play", key=f"{key}_play", on_click=_toggle_play, args=(key, n),
               icon=":material/pause:" if playing else ":material/play_arrow:",
               help=f"advance one step every {delay_s:g} s")
    if n > 1:
        # one slider per step, so that a slider sent back from a step already left is known
        st.slider(label, 1, n, value=k + 1, key=f"{key}_slider_{k}", label_visibility="collapsed",
                  on_change=_from_slider, args=(key, k, n))


def stepper(key: str, n_steps: int, view: Callable[[int], None], label: str = "Step",
            delay_s: float = 1.0) -> None:
    """Draw first/previous/next/last buttons (keyboard: Home, Left, Right, End), Play/Pause and a
    slider (none while following a live class: the instructor steps), then ``view(k)`` for the
    current step ``k``, all in one fragment. ``view`` sees the
    objects of the page run that defined it (the fit, the plane...): a step click reuses them;
    it passes the step's figure to ``shown_figure(key).show`` when buttons outside save it.
    Must be called once per page run, where the stepped view goes."""
    n = max(int(n_steps), 1)
    state.bind(key, 0, bounds=(0, n - 1))
    playing = bool(st.session_state.get(_playing_key(key), False))

    @st.fragment(run_every=delay_s if playing else None, key=live.stepper_fragment_key(key))
    @within_classroom   # a step click runs this fragment, not app.py
    def _stepped():
        server.configure()   # a step click runs this fragment, not app.py
        ss = st.session_state
        ended = _advance_if_due(key, n, delay_s)
        if ss.pop(f"{key}._restart", False) or ended:
            st.rerun(scope="app")          # Play switched on or off: the fragment's timer changes
        k = int(ss.get(key, 0))
        if live.following():
            # the instructor steps for the class: a step a follower took here would be undone at the
            # next one. Without the six controls a follower's run of a step draws a third fewer
            # elements (each one costs the server per follower and per step).
            if not state.lesson_mode():
                st.caption("Following the instructor's steps: **Detach** in the Live class box to step on "
                           "your own.")
        else:
            _controls(key, k, n, playing, delay_s, label)
        shown_figure(key).clear(k)   # a view that fails before its figure leaves none to save
        feed = live.step_feed(key)
        try:
            if feed is None:
                live.page_steps(key)
            # a following student's browser draws the class's steps when it can (no script run)
            if feed is None or not live.step_element_drawn(key, feed, shown_figure(key)):
                # a live-class follower takes a new step with a run of this alone; a step's views take no
                # heavy-work slot (cache.step_view)
                with live.stepper_view(key), step_view():
                    view(k)
        finally:
            # the URL once per step click, after the view (which may reset a value: an option gone at
            # this step), even when it stopped early; the share panel's link, outside this fragment
            state.show_link(params=state.sync_url())

    _stepped()
