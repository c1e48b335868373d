"""AppTest helpers for page tests: run a page (or the whole app) on a chosen data set and state."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 240  # the machine is shared; a page may fit a model on first run


def page_test(page: str, dataset=None, spec: str | None = None, timeout: float = TIMEOUT, **values) -> AppTest:
    """An AppTest of ``page`` (``"pages/2_SVM_Tree.py"`` or ``"app.py"``), not yet run, whose app
    state holds ``dataset`` (named ``spec`` in links; default: its content digest) and the bound
    ``values`` (``{"tree.C_hard": 100.0}`` — pass them as ``**{"tree.C_hard": 100.0}``)."""
    at = AppTest.from_file(str(ROOT / page), default_timeout=timeout)
    if dataset is not None:
        at.session_state["_svmviz_dataset"] = dataset
        at.session_state["data"] = spec or "upload:test"
    for k, v in values.items():
        at.session_state[k] = v
    return at


def problems(at: AppTest) -> list[str]:
    """Exceptions shown by the page (tracebacks in the browser): must be empty."""
    return [e.value for e in at.exception]


def as_read(text: str) -> str:
    """What a reader sees of a message the app escaped to plain text (``plain_text``): the
    Markdown escapes and the invisible word joiners gone."""
    import re

    return re.sub(r"\\(.)", r"\1", str(text)).replace("\u2060", "")
