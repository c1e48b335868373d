"""Process settings for serving a class from one server process, applied by ``configure()``:
``lifespan`` calls it as the server starts (``streamlit run serve.py``), ``app.py`` first in every
run, every page run through ``state.start_run`` (a page link opened on a fresh server runs the page
without ``app.py``) and every step click through the stepper's fragment (a fragment run does not
run ``app.py``). Each setting was kept because ``benchmarks/bench_classroom.py`` measured it
helping.

- **Start-up objects out of the collector's way.** Python's full garbage collection walks every
  object the process holds, most of them those of the modules imported once (Streamlit, NumPy,
  pandas, Plotly, scikit-learn, cvxpy, the library): about 300,000 objects and 0.15–0.2 s of CPU,
  with the GIL held, each time. ``gc.freeze()`` moves what exists to a generation the collector no
  longer walks, so a collection looks only at what the sessions made. It is called at the start of
  a run whenever modules were imported since the last freeze: the first page run imports most of
  them, the first run of another page a few more. Frozen objects are still freed when no longer
  referenced; only reference cycles among them would stay, and freezes happen only as often as new
  modules appear (a handful of times per server). Streamlit's own full collection after every run
  (``runner.postScriptGC``) is off in ``.streamlit/config.toml``, which says why.
- **BLAS on one thread.** OpenBLAS keeps a worker per core spinning for a while after each call; a
  click does a few small matrix products, so the spinning costs more CPU than the products, and the
  server's other sessions need that core. The limit goes into the environment, which NumPy's and
  SciPy's OpenBLAS read when they load, and through threadpoolctl to a BLAS already loaded. An
  ``OPENBLAS_NUM_THREADS`` set by whoever starts the server is kept.
- **Two malloc arenas.** Every Streamlit script run is a new thread, and glibc gives threads their
  own memory pools (up to 8 per core), which keep freed memory: the server's memory creeps up over
  many sessions although nothing is kept. ``mallopt(M_ARENA_MAX, 2)`` is what the environment
  variable ``MALLOC_ARENA_MAX=2`` does, from inside the process; the arenas made before the call
  stay, so starting the server with ``python -m svmviz_app.server`` (``streamlit run serve.py``
  with the variable set from the process's start) keeps it smaller still.
- **Warmed from the start.** ``lifespan``, ``st.App``'s start-up hook in ``serve.py``, starts
  ``svmviz_app.warm``'s thread as the server starts: it imports what the method pages use and loads
  (or, on a fresh checkout, compiles) the SMO solver's Numba code before anyone opens a page, so no
  page pays for it. The server answers meanwhile (the hook does not wait for the thread): a page
  opened during the warming waits only for the modules it needs that the thread is importing, and
  the health check that tests and load balancers wait for is not delayed by seconds (a minute on a
  fresh checkout). Served by ``streamlit run app.py`` (no start-up hook), the first run starts the
  thread, which waits for that run to end.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import platform
import sys
import threading
from pathlib import Path

from svmviz_app import warm

_M_ARENA_MAX = -8        # glibc's malloc.h
MALLOC_ARENAS = 2

_configured = False
_modules_frozen = 0      # len(sys.modules) at the last freeze
_lock = threading.Lock()


def configure() -> None:
    """At the first call: BLAS threads and malloc arenas; at the first call from a script run:
    the warming thread, unless ``lifespan`` started it; in every script run, a wait while that
    thread imports (``warm.wait_for_imports``). At every call: freeze the objects that
    exist when modules were imported since the last freeze (see the module's notes). Cheap
    otherwise: every run calls it, some several times."""
    global _configured, _modules_frozen
    with _lock:          # sessions start their runs in parallel threads
        first, _configured = not _configured, True
        if first:
            limit_blas_threads()
            limit_malloc_arenas(MALLOC_ARENAS)
        if len(sys.modules) > _modules_frozen:
            gc.freeze()
            _modules_frozen = len(sys.modules)
    if threading.current_thread() is not threading.main_thread():    # a script run
        warm.start(after=threading.current_thread())
        warm.wait_for_imports()   # never importing beside the warming thread (svmviz_app/warm.py)


@contextlib.asynccontextmanager
async def lifespan(app):
    """``st.App``'s start-up hook (``serve.py``): the settings, and the warming thread started,
    before the server answers; it does not wait for the warming (see the module's notes)."""
    configure()
    warm.start()
    yield


def limit_blas_threads() -> int:
    """One BLAS thread unless ``OPENBLAS_NUM_THREADS`` says otherwise; returns the limit."""
    n = int(os.environ.setdefault("OPENBLAS_NUM_THREADS", "1"))
    os.environ.setdefault("MKL_NUM_THREADS", str(n))
    from threadpoolctl import threadpool_limits

    threadpool_limits(n, user_api="blas")
    return n


def limit_malloc_arenas(n: int) -> bool:
    """Cap glibc's malloc arenas at n (unless ``MALLOC_ARENA_MAX`` is set); False where the C
    library is not glibc."""
    if "MALLOC_ARENA_MAX" in os.environ or platform.libc_ver()[0] != "glibc":
        return False
    try:
        return bool(ctypes.CDLL("libc.so.6").mallopt(_M_ARENA_MAX, n))
    except (OSError, AttributeError):
        return False


def launch_command(argv: list[str], environ: dict) -> tuple[list[str], dict, Path]:
    """The command, environment and folder that serve the app (``serve.py``) with the allocator
    and BLAS settings in place from the process's start (the ones already set are kept)."""
    env = dict(environ)
    env.setdefault("MALLOC_ARENA_MAX", str(MALLOC_ARENAS))
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    root = Path(__file__).resolve().parents[1]     # the project folder: serve.py, .streamlit/config.toml
    return [sys.executable, "-m", "streamlit", "run", "serve.py", *argv], env, root


def main(argv: list[str] | None = None) -> None:
    """``python -m svmviz_app.server [streamlit options]``, e.g. ``--server.address 0.0.0.0``."""
    cmd, env, root = launch_command(sys.argv[1:] if argv is None else argv, dict(os.environ))
    os.chdir(root)
    os.execve(cmd[0], cmd, env)


if __name__ == "__main__":
    main()
