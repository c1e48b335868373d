"""Shared test set-up: fourclass from $SVMVIZ_DATA_DIR, a Streamlit server and a headless Chromium."""

from __future__ import annotations

import ast
import functools
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("SVMVIZ_CHROMIUM", "/usr/bin/chromium")

if "SVMVIZ_DATA_DIR" not in os.environ and (SHARED_DATA / "fourclass_scale").is_file():
    os.environ["SVMVIZ_DATA_DIR"] = str(SHARED_DATA)
# The tests never download: the app's default-data fetch goes to a closed loopback port and a
# private cache (a fourclass fetched by the app on this machine does not change what tests see).
os.environ.setdefault("SVMVIZ_FOURCLASS_URL", "http://127.0.0.1:9/fourclass_scale")
os.environ.setdefault("SVMVIZ_CACHE_DIR", tempfile.mkdtemp(prefix="svmviz-test-cache-"))


@functools.cache
def imports_playwright(path: Path) -> bool:
    """Whether the file imports Playwright anywhere (a function-level import too)."""
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    return any(m.split(".")[0] == "playwright" for node in ast.walk(tree)
               for m in ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""] if isinstance(node, ast.ImportFrom) else []))


def launches_chromium(item) -> bool:
    """Whether a collected test drives Chromium: it uses the ``browser`` fixture (through ``page``
    too) or its file imports Playwright itself."""
    return "browser" in getattr(item, "fixturenames", ()) or imports_playwright(Path(item.path))


def pytest_collection_modifyitems(config, items):
    """A test that reads the real fourclass is marked ``real_data`` (CI's second run selects them).
    A test that launches Chromium without the ``browser`` marker stops the run: ``-m "not browser"``
    would otherwise start a browser it was asked to leave out."""
    unmarked = [item.nodeid for item in items if launches_chromium(item) and item.get_closest_marker("browser") is None]
    if unmarked:
        raise pytest.UsageError("mark these tests @pytest.mark.browser (they launch Chromium): " + ", ".join(unmarked))
    for item in items:
        if "fourclass" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.real_data)
    # Longest first: the workers take tests in this order (xdist_group units before all), so the
    # browser and slow tests start at once and the quick ones fill in at the end, when a worker that
    # took a long test last would otherwise run on alone. Stable: a module's tests stay together.
    items.sort(key=lambda item: item.get_closest_marker("browser") is None and item.get_closest_marker("slow") is None)


# Numba's on-disk cache, filled once before the tests run. On a fresh checkout every process that
# fits a model compiles the SMO solver and the geometry routines (about 60 s of CPU; loading them
# from the cache afterwards: about 0.5 s): each xdist worker and each Streamlit server the tests
# start would compile the same code side by side. Where the SMO solver has no cache yet, two
# processes (prime_numba.py, a part each) compile it while the workers collect, and the workers get
# their first test once both are done. With a cache, nothing is primed: a few files' run does not
# wait, and code changed since is compiled where it is used, as without priming.
_primers: list[subprocess.Popen] = []


def _smo_cache_exists() -> bool:
    import importlib.util

    folder = os.environ.get("NUMBA_CACHE_DIR")   # Numba's own setting, else __pycache__ beside the source
    where = Path(folder) if folder else Path(importlib.util.find_spec("svmviz").origin).parent / "solvers" / "__pycache__"
    return where.is_dir() and any(where.rglob("_smo_solver.run-*.nbi"))


def pytest_configure(config):
    if (hasattr(config, "workerinput") or config.option.collectonly or not config.getoption("numprocesses", None)
            or _smo_cache_exists()):
        return
    from prime_numba import PARTS

    _primers.extend(subprocess.Popen([sys.executable, str(ROOT / "tests" / "prime_numba.py"), part], cwd=ROOT,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    for part in PARTS)


def _wait_for_primers() -> None:
    """Wait (at most 10 minutes) for the cache to be filled; a failure leaves each process to compile."""
    deadline = time.monotonic() + 600
    while _primers:
        primer = _primers.pop()
        try:
            primer.wait(timeout=max(deadline - time.monotonic(), 0.1))
        except subprocess.TimeoutExpired:
            primer.kill()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    _wait_for_primers()   # the controller: no test is handed out before


def pytest_unconfigure(config):
    for primer in _primers:   # the run ended before any collection finished
        primer.kill()


# The interpreter's own main module, taken before any test runs a Streamlit script.
INTERPRETER_MAIN = sys.modules["__main__"]


@pytest.fixture(autouse=True)
def interpreter_main_module():
    """Streamlit runs a page as the ``__main__`` module and leaves it installed (AppTest does the
    same in the test process). A process started afterwards by multiprocessing's spawn, such as a
    Dask worker, would run that page file as its own main module and exit at once; every test
    starts and ends with the interpreter's main module."""
    sys.modules["__main__"] = INTERPRETER_MAIN
    yield
    sys.modules["__main__"] = INTERPRETER_MAIN


@pytest.fixture(scope="session")
def fourclass():
    """LIBSVM's fourclass (862 × 2, labels ±1); skipped only where the shared data is absent."""
    from svmviz.data import fourclass_path, load_builtin

    if fourclass_path() is None:
        pytest.skip("fourclass_scale not found: set SVMVIZ_DATA_DIR to the folder holding it")
    return load_builtin("fourclass")


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_streamlit(extra_env: dict | None = None, port: int = 0, address: str = "127.0.0.1"):
    """``streamlit run serve.py`` (the README's command) on ``port`` or a free port of ``address``
    (default the loopback; ``SVMVIZ_TEST_PORT``: that port, for a machine that hands out port
    ranges); returns (process, URL) once it answers."""
    port = port or int(os.environ.get("SVMVIZ_TEST_PORT") or 0) or _free_port()
    env = dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false", **(extra_env or {}))
    # the server's log goes to a file: a pipe nobody reads fills up and then blocks the server
    log = tempfile.NamedTemporaryFile("w+b", prefix=f"svmviz-streamlit-{port}-", suffix=".log", delete=False)
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "serve.py"), "--server.headless=true",
         f"--server.port={port}", f"--server.address={address}", "--server.fileWatcherType=none"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    proc.log_path = log.name
    url = f"http://{address}:{port}"
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return proc, url
        except OSError:
            time.sleep(0.5)
        if proc.poll() is not None:
            log.seek(0)
            out = log.read().decode(errors="replace")
            pytest.fail(f"streamlit exited early:\n{out}")
    proc.kill()
    pytest.fail("streamlit did not start within 90 s")


def stop_streamlit(proc) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="session")
def streamlit_url():
    """One server for the whole test session; yields its URL."""
    proc, url = start_streamlit()
    yield url
    stop_streamlit(proc)


REDIS_SERVER = "/usr/bin/redis-server"   # Debian's redis-server package; CI installs it


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory):
    """A ``redis-server`` of the test session's own, on a free loopback port, its files in a temporary
    folder and nothing saved to disk; yields its URL. Skipped only where redis-server is absent."""
    import redis

    exe = REDIS_SERVER if Path(REDIS_SERVER).exists() else shutil.which("redis-server")
    if exe is None:
        pytest.skip("no redis-server: install Debian's redis-server to test the shared room store")
    folder, port = tmp_path_factory.mktemp("redis"), _free_port()
    with open(folder / "redis.log", "wb") as log:
        proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder),
                                 "--save", "", "--appendonly", "no", "--protected-mode", "yes"],
                                stdout=log, stderr=subprocess.STDOUT)
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    deadline = time.time() + 30
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            if proc.poll() is not None or time.time() > deadline:
                proc.kill()
                pytest.fail(f"redis-server did not start: {(folder / 'redis.log').read_text(errors='replace')}")
            time.sleep(0.1)
    client.close()
    yield url
    stop_streamlit(proc)   # (any server process: terminated, killed after 10 s)


@pytest.fixture(scope="session")
def browser():
    """Headless Debian Chromium driven by Playwright; skips only where no Chromium is installed."""
    if not (Path(CHROMIUM).exists() or shutil.which("chromium")):
        pytest.skip(f"no Chromium at {CHROMIUM}: install Debian's chromium to run browser tests")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(
            executable_path=CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium"),
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"])
        watch_every_page(b)
        yield b
        b.close()


# What ``wait_for_app`` reads in the page, installed in every page before Streamlit's code runs: the
# times (ms) the page last sent to the server's websocket and last received from it, and the last
# change of its DOM. A message sent (a click's rerun request) and not yet answered means a run is
# coming that the page does not show yet (its script state stays "notRunning" until the server says
# the run started).
_WATCH_SCRIPT = """
(() => {
  if (window.__svmvizWatch) return;
  const watch = window.__svmvizWatch = {sent: 0, received: 0, changed: performance.now()};
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', () => { watch.received = performance.now(); });
    }
    send(data) {
      watch.sent = performance.now();
      return super.send(data);
    }
  };
  new MutationObserver(() => { watch.changed = performance.now(); }).observe(
    document, {subtree: true, childList: true, attributes: true, characterData: true});
})();
"""


def watch_every_page(browser) -> None:
    """Every context (and page) the tests open from ``browser`` gets ``_WATCH_SCRIPT``."""
    new_context, new_page = browser.new_context, browser.new_page

    def watched_context(*args, **kwargs):
        ctx = new_context(*args, **kwargs)
        ctx.add_init_script(_WATCH_SCRIPT)
        return ctx

    def watched_page(*args, **kwargs):
        pg = new_page(*args, **kwargs)
        pg.add_init_script(_WATCH_SCRIPT)
        return pg

    browser.new_context, browser.new_page = watched_context, watched_page


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = ctx.new_page()
    yield pg
    ctx.close()


# True once the page is settled. The run is over: Streamlit's script state is "notRunning" (the
# frontend's own test attribute), no status widget (running, connecting) nor element left over from
# the run before (data-stale), and every message the page sent answered (or unanswered for 5 s: no
# rerun request), all of it for 150 ms on end, so a widget that sends after a short debounce is
# caught. And the result is drawn: no element still loading its code (stSkeleton), every Plotly
# chart drawn, the DOM and the boxes of the page's elements unchanged for 150 ms; a page that keeps
# changing (a timed fragment) is taken as it is 3 s after its run first ended.
_SETTLED = """
() => {
  const watch = window.__svmvizWatch, now = performance.now();
  const app = document.querySelector('[data-testid="stApp"]');
  const ran = app && app.getAttribute('data-test-script-state') === 'notRunning'
    && !document.querySelector('[data-testid="stStatusWidget"]')
    && !document.querySelector('[data-stale="true"]')
    && (watch.received >= watch.sent || now - watch.sent > 5000);
  if (!ran) { watch.since = null; return false; }
  if (watch.since == null) watch.since = now;
  if (watch.firstRan == null) watch.firstRan = now;
  const boxes = [...document.querySelectorAll('[data-testid="stElementContainer"]')].map(e => {
    const r = e.getBoundingClientRect();
    return [r.x, r.y, r.width, r.height].map(Math.round).join(',');
  }).join(' ');
  if (boxes !== watch.boxes) { watch.boxes = boxes; watch.moved = now; }
  if (now - watch.since < 150) return false;
  const drawn = !document.querySelector('[data-testid="stSkeleton"]')
    && [...document.querySelectorAll('[data-testid="stPlotlyChart"]')].every(c => c.querySelector('.main-svg'))
    && now - Math.max(watch.changed, watch.moved) >= 150;
  return drawn || now - watch.firstRan >= 3000;
}
"""


def wait_for_app(page, timeout_ms: int = 60000) -> None:
    """Wait until Streamlit has finished running the script and the page shows its result
    (``_SETTLED``); a page opened without ``_WATCH_SCRIPT``: no 'Running...' status widget, then 0.5 s."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout_ms)
    if page.evaluate("() => { const w = window.__svmvizWatch; if (w) w.since = w.firstRan = null; return !!w; }"):
        page.wait_for_function(_SETTLED, timeout=timeout_ms, polling=50)
        return
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=timeout_ms)
    page.wait_for_timeout(500)


@pytest.fixture
def classroom_budget():
    """The test runs inside the app's classroom budget (``svmviz_app.budget``), as a request of the
    app does: what a student's link or file may ask for is refused as the app refuses it."""
    from svmviz.limits import budget
    from svmviz_app.budget import classroom_budget as served

    with budget(served()) as b:
        yield b


@pytest.fixture
def through_the_app(monkeypatch):
    """Every AppTest run of a page goes through ``app.py``'s navigation, as on a server once a
    session ran it: AppTest makes a new ``PagesManager`` for each run, which with a ``pages/``
    folder beside the script would run the page file alone."""
    from streamlit.runtime.pages_manager import PagesManager

    init = PagesManager.__init__

    def routed(self, *args, **kwargs):
        init(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False
    monkeypatch.setattr(PagesManager, "__init__", routed)
