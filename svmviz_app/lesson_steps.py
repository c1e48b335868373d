"""What a step of a method's lesson shows, the same on every page that steps through a paper's
algorithm: the step line ("**Step k of n** — one sentence, read aloud"), the live class's
question about the next step, the step's picture (the projector's size in lesson mode) and the
full explanation, folded under the picture on a projector."""

from __future__ import annotations

from typing import Callable

import streamlit as st

from svmviz_app import live, state
from svmviz_app.projector import projector_chart
from svmviz_app.stepper import shown_figure
from svmviz_app.widgets import plain


def step_view(step_key: str, k: int, n: int, summary: str, explanation: str, figure, question: Callable,
              chart_key: str, side=None) -> None:
    """Draw step ``k`` of ``n`` of the stepper of ``step_key``: ``question()`` makes the live class's
    question (``svmviz.questions``), ``figure`` the step's picture (``side``: a second one beside it,
    as a diagram next to its map)."""
    lesson = state.lesson_mode()
    st.markdown(f"**Step {k + 1} of {n}** — {plain(summary)}")
    live.question_panel(question, step_key, n)
    if side is not None:
        left, right = st.columns([3, 2])
    else:
        left = right = st.container()
    with left:
        projector_chart(figure, key=f"{chart_key}_fig")   # the rest of the screen in lesson mode
    shown_figure(step_key).show(figure, f"Step {k + 1} of {n} — {summary}")
    if side is not None:
        with right:
            projector_chart(side, key=f"{chart_key}_side")
    with st.expander("Explanation of this step", expanded=not lesson):
        st.markdown(plain(explanation))
