"""The projector view of lesson mode (``?lesson=1``): what a class sees on a 1280×720 or
1920×1080 screen. No Streamlit chrome (sidebar, header with its toolbar, Deploy button and main
menu; ``client.toolbarMode = "viewer"`` in ``.streamlit/config.toml`` already hides the developer
items everywhere), the page title and captions hidden, the step line large, and the plot sized
to what is left of the screen so that it shows without scrolling, under the step controls and
the step number. A page's first picture sits at the top of the page (``frame.projected``); with
no stepper above it, it takes the screen but a line. Keyboard stepping (Home, ←, →, End) belongs
to the step buttons and stays.

Only stable ``data-testid`` selectors and the class Streamlit gives a keyed container are used."""

from __future__ import annotations

import streamlit as st

from svmviz.plots.common import for_projector

from svmviz_app.view_mode import lesson_mode

#: Height of everything above the plot in lesson mode (padding, the step buttons, the slider,
#: the step line) and of the folded explanation under it, in CSS pixels.
_ABOVE_PLOT_PX = 215
#: The same for a picture with no stepper above it: the padding, and a line under it.
_AROUND_PLOT_PX = 110
#: ... and for one under a row of tabs and the tab's first sentence.
_UNDER_TABS_PX = 150
#: The key of the container at the top of a page in lesson mode (``frame.projected``): its first
#: plot is the projector's picture.
PROJECTOR_KEY = "svmviz_projector"

_CSS = f"""<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stHeader"],
[data-testid="stToolbar"], [data-testid="stDecoration"] {{display: none;}}
[data-testid="stMainBlockContainer"] {{padding: 0.6rem 1.5rem 0.5rem 1.5rem; max-width: 100%;}}
[data-testid="stMainBlockContainer"] [data-testid="stElementContainer"]:has(h1, [data-testid="stCaptionContainer"], style)
  {{display: none;}}
[data-testid="stMainBlockContainer"] [data-testid="stMarkdownContainer"] p {{font-size: 1.35rem;}}
.stButton button {{font-size: 1.2rem; padding: 0.35rem 1.2rem;}}
[data-testid="stPlotlyChart"] {{height: calc(100vh - {_ABOVE_PLOT_PX}px) !important; min-height: 320px;}}
.st-key-{PROJECTOR_KEY}:not(:has(.stButton)) [data-testid="stPlotlyChart"]
  {{height: calc(100vh - {_AROUND_PLOT_PX}px) !important;}}
.st-key-{PROJECTOR_KEY}:not(:has(.stButton)):has([data-testid="stTabs"]) [data-testid="stPlotlyChart"]
  {{height: calc(100vh - {_UNDER_TABS_PX}px) !important;}}
</style>"""


#: The key of the live class's panel on the projector (``live.panel`` in lesson mode): a column at
#: the right of the screen, over the whole height, beside the page.
CLASS_KEY = "svmviz_class"
#: The key of the question in the panel: while there is one, the QR code gives it room.
QUESTION_KEY = "svmviz_question"
#: The panel's width: the join code on one line and its QR code as wide as the panel, readable from
#: the back of a room, leaving the page three quarters of a 1280-pixel screen.
_CLASS_W = "clamp(250px, 23vw, 400px)"

_CLASS_CSS = f"""<style>
:root {{--svmviz-class-w: {_CLASS_W};}}
[data-testid="stMainBlockContainer"] {{padding-right: calc(var(--svmviz-class-w) + 1.5rem) !important;}}
.st-key-{CLASS_KEY} {{position: fixed; top: 0; right: 0; bottom: 0; width: var(--svmviz-class-w);
  overflow-y: auto; padding: 0.6rem 1rem; gap: 0.4rem; z-index: 99990;
  background: #f4f6f9; border-left: 1px solid #d5d9e0;}}
.st-key-{CLASS_KEY} [data-testid="stMarkdownContainer"] p {{font-size: clamp(1.05rem, 1.25vw, 1.6rem); margin-bottom: 0.2rem;}}
.st-key-{CLASS_KEY} .stButton button {{font-size: 1.05rem; padding: 0.3rem 0.8rem;}}
.svmviz-join-qr {{display: block; width: 100%; height: auto; margin: 0 auto;}}
.st-key-{CLASS_KEY}:has(.st-key-{QUESTION_KEY}) .svmviz-join-qr {{width: 55%;}}
</style>"""


#: The join code's size there: nine symbols of a monospace font with their spacing fill the panel.
CLASS_CODE_SIZE = "calc((var(--svmviz-class-w) - 2rem) / 6.4)"


def class_panel_style() -> None:
    """The projector's live-class panel (``CLASS_KEY``): a column at the right, beside the page."""
    st.markdown(_CLASS_CSS, unsafe_allow_html=True)


def projector_style() -> None:
    """In lesson mode, the projector styling for the page about to run (nothing otherwise)."""
    if lesson_mode():
        st.markdown(_CSS, unsafe_allow_html=True)


def projector_chart(fig, key: str, **chart_kw) -> None:
    """``st.plotly_chart`` of ``fig`` (``chart_kw``: ``on_select``...); in lesson mode the
    figure's own height gives way to the height the projector style leaves it (the rest of the
    screen), and its text to the projector's sizes (``lesson_chart``)."""
    if lesson_mode():
        fig = for_projector(fig)   # a copy: the figure may be shared by every session (views.shared_figure)
        fig.update_layout(height=None, autosize=True)
        st.plotly_chart(fig, key=key, height="stretch", theme=None, **chart_kw)   # the figure's own font sizes
    else:
        st.plotly_chart(fig, key=key, **chart_kw)


def lesson_chart(fig, key: str, where=None, **chart_kw) -> None:
    """``st.plotly_chart`` of ``fig`` in ``where`` (a column or container; default the page); in
    lesson mode with its text at the projector's sizes (``for_projector``: at least 20 px), for
    the figures a projected page shows beside or under its picture."""
    where = st if where is None else where
    if lesson_mode():
        where.plotly_chart(for_projector(fig), key=key, theme=None, **chart_kw)
    else:
        where.plotly_chart(fig, key=key, **chart_kw)
