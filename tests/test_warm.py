"""The server process warms itself (``svmviz_app.warm``): as it starts when served by the README's
command, once its first page is drawn when served by ``streamlit run app.py``. Each check runs in a
fresh interpreter or server process."""

from __future__ import annotations

import json
import os
import selectors
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

_FIRST_RUN = """
import json, sys, threading
from streamlit.testing.v1 import AppTest

at = AppTest.from_file({app!r}, default_timeout=600)
at.run()
assert not at.exception, [e.message for e in at.exception]
warming = [t for t in threading.enumerate() if t.name == "svmviz-warm"]
for t in warming:
    t.join(900)
from svmviz.solvers import _smo_solver
from svmviz.solvers import _dense_smo
print(json.dumps({{"thread": len(warming), "alive": any(t.is_alive() for t in warming),
                  "smo": len(_smo_solver.run.signatures), "tree_qp": len(_dense_smo.smo.signatures),
                  "cvxpy": "cvxpy" in sys.modules}}))
"""


def _run(code: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**os.environ, "SVMVIZ_DATA_DIR": ""},
                         capture_output=True, text=True, timeout=1200)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_the_first_page_run_leaves_the_solvers_loaded_and_the_method_pages_imports_done():
    # the home page fits nothing: without warming, no SMO code is loaded and cvxpy is not imported
    got = _run(_FIRST_RUN.format(app=str(ROOT / "app.py")))
    assert got == {"thread": 1, "alive": False, "smo": 1, "tree_qp": 1, "cvxpy": True}


def test_a_call_outside_a_script_run_starts_no_warming():
    # the command line and the library call configure() from the main thread: nothing to warm
    code = ("import threading, json\nfrom svmviz_app import server\nserver.configure()\n"
            "print(json.dumps([t.name for t in threading.enumerate()]))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         check=True)
    assert "svmviz-warm" not in json.loads(out.stdout.strip().splitlines()[-1])


def test_the_home_and_data_pages_imports_leave_the_estimators_and_numba_unloaded():
    # the first page of a fresh server draws before the estimators (scikit-learn, SciPy, Numba:
    # about 2 s of imports) are loaded; the warming thread loads them once it is drawn
    code = ("import sys, json, ast\n"
            "for f in ('home.py', 'pages/1_Data.py'):\n"
            "    for node in ast.parse(open(f).read()).body:\n"
            "        if isinstance(node, (ast.Import, ast.ImportFrom)):\n"
            "            exec(compile(ast.Module([node], []), f, 'exec'))\n"
            "print(json.dumps(sorted(m for m in ('svmviz.models', 'numba', 'cvxpy') if m in sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _lines_until(proc: subprocess.Popen, wanted: str, limit_s: float) -> list[str]:
    """The server's output lines up to the first holding ``wanted``, or up to its exit, or all
    those printed within ``limit_s`` (a guard against a hang, not a timing)."""
    lines, sel = [], selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    while sel.select(limit_s):
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if wanted in line:
            break
    return lines


@pytest.mark.slow
def test_the_readme_command_loads_the_method_pages_libraries_and_solvers_before_anyone_opens_a_page():
    # served as the README says (the launcher's command: ``streamlit run serve.py``) and never
    # visited, the server process imports scikit-learn, cvxpy and the estimators and loads the
    # solvers' machine code: its own report, and the compiled extensions mapped into the process
    from svmviz_app.server import launch_command
    from svmviz_app.warm import READY

    port = _free_port()
    cmd, env, root = launch_command(["--server.headless=true", f"--server.port={port}",
                                     "--server.address=127.0.0.1"],
                                    {**os.environ, "SVMVIZ_DATA_DIR": "", "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"})
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        lines = _lines_until(proc, READY, 900)
        maps = Path(f"/proc/{proc.pid}/maps").read_text() if proc.poll() is None else ""
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    assert any(READY in line for line in lines), "".join(lines)[-3000:]
    assert all(f"/site-packages/{lib}/" in maps for lib in ("sklearn", "scipy", "numba"))


_RUN_BESIDE_WARMING = """
import json, sys, threading
from svmviz_app import server, warm

server.configure()     # the start-up hook's order: the settings, then the thread
warm.start()
seen = {}

def script_run():      # a page opened the instant the server answers
    server.configure()
    seen["cvxpy"] = "cvxpy" in sys.modules

run = threading.Thread(target=script_run)
run.start()
run.join()
warm.start().join(900)   # the fits to their end: an interpreter leaving while Numba compiles aborts
print(json.dumps(seen))
"""


@pytest.mark.slow
def test_a_run_waits_until_the_warming_thread_has_imported():
    # two threads importing the same packages at once can see one half initialised ("partially
    # initialized module 'pandas' has no attribute 'Series'" on the first page after a start): a
    # script run starts importing only once the warming thread's imports (cvxpy among them) are done
    assert _run(_RUN_BESIDE_WARMING) == {"cvxpy": True}
