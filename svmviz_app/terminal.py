"""What the server says in its terminal on a first start, beside Streamlit's own line with the
app's address: which data set the app opened on and why, and that the method pages are being got
ready (``svmviz_app.warm`` says when they are). Each is said once per server process, on standard
output, where the person who started the server looks.

The library (``svmviz.data``) only answers where fourclass is and why it could not be fetched;
saying it to a person is the app's part.
"""

from __future__ import annotations

import threading

from svmviz.data.builtins import default_dataset_name, fourclass_fetch_error, fourclass_path
from svmviz.data.fetch import data_dir_path

PREFIX = "  svmviz: "
INDENT = " " * len(PREFIX)
DATA = "data"
WARMING = "warming"

_said: set[str] = set()
_lock = threading.Lock()


def say_once(topic: str, text: str) -> bool:
    """Print ``text`` unless this process already said something on ``topic``; whether it did now."""
    with _lock:
        if topic in _said:
            return False
        _said.add(topic)
    print(text, flush=True)
    return True


def default_data_line(spec: str, downloaded: bool) -> str:
    """The terminal's line on the default data set ``spec`` ("fourclass" or "fourclass_like");
    ``downloaded``: fourclass was fetched by this very call of the default."""
    if spec == "fourclass":
        path = fourclass_path()
        if data_dir_path() is not None:
            why = f"read from SVMVIZ_DATA_DIR ({path})"
        elif downloaded:
            why = f"downloaded from LIBSVM's site just now into {path}, checked by its SHA-256; later starts read it there"
        else:
            why = f"read from the download cache ({path})"
        return f"{PREFIX}the app opened on fourclass (LIBSVM), {why}."
    reason = fourclass_fetch_error() or "fourclass_scale is not available"
    return (f"{PREFIX}the app opened on the generated fourclass-like data set: LIBSVM's fourclass is not "
            f"available here.\n{INDENT}{reason[:1].upper()}{reason[1:]}.\n"
            f"{INDENT}SVMVIZ_DATA_DIR is read when the app starts: after setting it, stop the app (Ctrl-C) "
            "and start it again.")


def default_dataset_spec() -> str:
    """The default data set's name (``svmviz.data.default_dataset_name``); the process's first
    call also says in the terminal which one it is and why."""
    if DATA in _said:
        return default_dataset_name()
    had = fourclass_path() is not None
    spec = default_dataset_name()
    say_once(DATA, default_data_line(spec, downloaded=spec == "fourclass" and not had))
    return spec
