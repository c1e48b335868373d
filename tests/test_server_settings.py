"""The process settings a class's server runs with (``svmviz_app.server``, called first by
``app.py``): each check runs in a fresh interpreter, as a server process starts."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tomllib

from conftest import ROOT

_PROBE = """
import json, sys
{before}
from svmviz_app import server
server.configure()
server.configure()
import scipy.linalg   # loads SciPy's own OpenBLAS after the call
from threadpoolctl import threadpool_info
print(json.dumps({{"blas": sorted(d["num_threads"] for d in threadpool_info() if d["user_api"] == "blas"),
                  "arenas": server.limit_malloc_arenas(server.MALLOC_ARENAS)}}))
"""


def _probe(before: str = "", **env) -> dict:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "MALLOC_ARENA_MAX")}
    out = subprocess.run([sys.executable, "-c", _PROBE.format(before=before)], cwd=ROOT, env={**clean, **env},
                         capture_output=True, text=True, timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_blas_runs_on_one_thread_whether_numpy_loaded_before_the_call_or_not():
    # Streamlit's server has NumPy loaded before the app's first run: the limit must reach a BLAS
    # already loaded (NumPy's) and one loaded later (SciPy's)
    assert _probe("import numpy")["blas"] == [1, 1]
    assert _probe()["blas"] == [1, 1]


def test_a_blas_thread_count_set_by_whoever_starts_the_server_is_kept():
    assert _probe("import numpy", OPENBLAS_NUM_THREADS="2")["blas"] == [2, 2]


def test_malloc_arenas_are_capped_on_glibc_unless_the_environment_says_otherwise():
    import platform

    assert _probe()["arenas"] is (platform.libc_ver()[0] == "glibc")
    assert _probe(MALLOC_ARENA_MAX="4")["arenas"] is False


def test_app_py_applies_the_settings_before_anything_else_is_imported():
    tree = ast.parse((ROOT / "app.py").read_text())
    body = [node for node in tree.body if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]
    first, second = body[0], body[1]
    assert isinstance(first, ast.ImportFrom) and first.module == "svmviz_app" and first.names[0].name == "server"
    assert ast.unparse(second) == "server.configure()"


def test_the_launcher_serves_serve_py_from_the_project_folder_with_the_settings_from_the_start():
    from svmviz_app.server import launch_command

    cmd, env, root = launch_command(["--server.address", "0.0.0.0"], {"PATH": "/bin"})
    assert cmd[1:] == ["-m", "streamlit", "run", "serve.py", "--server.address", "0.0.0.0"]
    assert (root / "serve.py").is_file() and (root / ".streamlit" / "config.toml").is_file()
    assert env == {"PATH": "/bin", "MALLOC_ARENA_MAX": "2", "OPENBLAS_NUM_THREADS": "1"}
    assert launch_command([], {"MALLOC_ARENA_MAX": "4"})[1]["MALLOC_ARENA_MAX"] == "4"


def test_objects_are_frozen_whenever_modules_were_imported_since_the_last_freeze():
    # a page's imports (and its first fit) happen during its first run: the next run freezes them,
    # however many runs came before (a lone student's clicks after the first page run)
    code = """
import gc, json
from svmviz_app import server
counts = []
for _ in range(4):
    server.configure()
    counts.append(gc.get_freeze_count())
import wave, decimal   # a page's first run importing more
server.configure()
counts.append(gc.get_freeze_count())
server.configure()
counts.append(gc.get_freeze_count())
print(json.dumps(counts))
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         check=True)
    counts = json.loads(out.stdout)
    assert counts[0] > 0 and counts[1:4] == [counts[0]] * 3
    assert counts[4] > counts[3] and counts[5] == counts[4]


def test_a_page_run_and_a_step_click_apply_the_settings_without_app_py(monkeypatch):
    # a page link on a fresh server runs the page file itself, and a step click runs only the
    # stepper's fragment: neither runs app.py, and the settings must still be applied
    from streamlit.testing.v1 import AppTest

    from svmviz_app import server

    calls = []
    monkeypatch.setattr(server, "configure", lambda: calls.append(1))
    at = AppTest.from_string("""
from svmviz_app import state
from svmviz_app.stepper import stepper
import streamlit as st
state.start_run()
stepper("demo.step", 3, lambda k: st.markdown(f"step {k}"))
""").run()
    assert calls and not at.exception
    n = len(calls)
    next(b for b in at.button if b.label.startswith("Next")).click().run()
    assert len(calls) > n and at.markdown[-1].value == "step 1"


def test_streamlit_reads_the_garbage_collection_setting_from_the_projects_config():
    # a renamed or dropped option would be ignored silently: ask Streamlit what it read
    code = "import streamlit as st; print(st.get_option('runner.postScriptGC'))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         check=True)
    assert out.stdout.strip() == "False"
    assert tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["runner"]["postScriptGC"] is False


def test_streamlit_reads_the_class_settings_of_the_event_loop_and_the_message_cache_from_the_config():
    # no source watcher (it rescans every module's path on each new session's first run, on the
    # event loop) and unchanged elements of a step click sent as references from 300 bytes
    code = ("import streamlit as st; print(st.get_option('server.fileWatcherType'), "
            "int(st.get_option('global.minCachedMessageSize')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         check=True)
    assert out.stdout.split() == ["none", "300"]
