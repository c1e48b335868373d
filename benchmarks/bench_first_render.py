"""Time to the first plot of every page, on a fresh server and for a second session.

For each page a new server of this checkout is started as the README starts it (``streamlit run
serve.py``: a fresh process, nothing in memory, Numba's compiled code on disk). The "fresh" visit
starts once the server answers its health check and its CPU time has stopped growing
(``harness.wait_quiet``, less than 5% of a core over 3 s): the server has done what it does at start (importing and loading what the
pages use, ``svmviz_app.warm``), as for a class whose server was started a minute before; the
seconds from the launch to the health check's answer and to the quiet, and the server's CPU seconds
until the quiet, are printed as "start". ``--at-ready`` starts the fresh visit as soon as the health
check answers instead (a student who arrives while the server starts). For each visit headless
Chromium at 1280×720 opens the page, and the time from navigation to the first drawn Plotly chart
(its ``.main-svg``, made by Plotly's first draw) is taken, then to the end of the run (no status
widget). Then the
link the first visit shows (the view in the address bar) is opened twice more: in a new tab of
the same browser context ("tab": the browser's HTTP cache holds Streamlit's and Plotly's
JavaScript, as for a student who opens the app a second time) and in a new browser context
("new": nothing cached, a student's first visit). Before the second visit the server is left
until its CPU time stops growing (what it does after the first page, e.g. warming, is printed
as "after"), as when students open the link some time after the server started. The CPU seconds of the server and of the browser
(all its processes) for each visit and the load average are printed with every row: the machine
is shared, so the latencies only mean something next to it, while the CPU seconds hold on a
loaded machine too. For each visit the number of forward messages (websocket frames) the page
received before the first one drawing a Plotly chart is printed: what the server sends before
the picture (the peer gets 3).

``--timeline`` prints for each visit when (seconds after navigation) the websocket opened, the
last JavaScript file arrived, the first websocket message holding a Plotly figure arrived (its
size, and the server's CPU seconds for the visit until then: the server's part of the first
plot, without what it does after the run), and the plot was drawn, and the page's main-thread seconds until then as Chromium
counts them (``Performance.getMetrics``: running scripts, style and layout, all tasks): what part
of a visit is the server's and what the browser's.

``--trace DIR`` records each visit in Chromium's own tracing until the plot is drawn (DIR/<page>_<visit>.trace.json,
open it in chrome://tracing or Perfetto, and a .cpuprofile of the page's JavaScript) and prints where the browser's
CPU went: thread CPU seconds by Chromium thread (the page's main thread, its compositor and raster workers, the
display compositor) and the main thread's sampled JavaScript by script file (Streamlit's chunks, Plotly's).

The peer, measured first in the same run the same way (served through ``st.App`` as ``serve.py``
serves the app, and waited for the same way): a bare Streamlit app of this checkout's config whose
only element is one Plotly chart of 862 scattered points (fourclass's size), no svmviz code at all;
the floor of this machine and browser for a page with a plot (``--no-peer`` leaves it out). Each page's "tab" and "new" times are also printed as ratios to the peer's.

The data is whatever the server opens on: run it with ``SVMVIZ_DATA_DIR`` pointing at the folder
holding ``fourclass_scale`` to time the real fourclass.

Usage: SVMVIZ_DATA_DIR=/path/to/data python benchmarks/bench_first_render.py [--pages Convex_Hulls Solvers]
       [--port 8750] [--timeout 240] [--timeline] [--trace DIR] [--at-ready]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

import psutil
from harness import start_app_server, stop_app_server, wait_quiet

ROOT = Path(__file__).resolve().parents[1]
PAGES = [p.stem.split("_", 1)[1] for p in sorted((ROOT / "pages").glob("[0-9]*_*.py"))]
IDLE = "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
PLOT = ".js-plotly-plot .main-svg"
KINDS = ("fresh", "tab", "new")
PEER = "bare Streamlit+Plotly"
PEER_APP = """import numpy as np
import plotly.graph_objects as go
import streamlit as st

st.set_page_config(layout="wide")
X = np.random.default_rng(0).uniform(-1, 1, (862, 2))
y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
st.plotly_chart(go.Figure([go.Scatter(x=X[y == c, 0], y=X[y == c, 1], mode="markers", name=str(c)) for c in (-1, 1)]))
"""
PEER_SERVE = """import streamlit as st

app = st.App("bare_app.py")
"""



def cpu_s(proc: subprocess.Popen) -> float:
    t = psutil.Process(proc.pid).cpu_times()
    return t.user + t.system


def browser_cpu() -> dict[int, float]:
    """CPU seconds of each of this process's Chromium descendants, by process id."""
    out = {}
    for p in psutil.Process().children(recursive=True):
        try:
            if "chrom" in p.name():
                t = p.cpu_times()
                out[p.pid] = t.user + t.system
        except psutil.NoSuchProcess:
            pass
    return out


def browser_cpu_since(before: dict[int, float]) -> float:
    """Chromium's CPU seconds since ``before`` (``browser_cpu()``), counting only the processes
    alive now: a renderer of an earlier tab that exits meanwhile must not subtract its time."""
    return sum(cpu - before.get(pid, 0.0) for pid, cpu in browser_cpu().items())


class Timeline:
    """Seconds after navigation of the events ``--timeline`` prints, from Playwright's events."""

    def __init__(self, page, t0: float, server: subprocess.Popen):
        self.t0, self.ws_open, self.last_js, self.figure, self.figure_bytes = t0, None, None, None, 0
        self.messages, self.before_figure = 0, None
        self.server, self.server_cpu0, self.server_cpu = server, cpu_s(server), None
        self.received, self.main_thread = 0, {}
        page.on("websocket", self._websocket)
        page.on("requestfinished", self._finished)
        self.cdp = page.context.new_cdp_session(page)
        self.cdp.send("Performance.enable")

    def read_main_thread(self) -> None:
        """Chromium's main-thread seconds of the page so far."""
        metrics = {m["name"]: m["value"] for m in self.cdp.send("Performance.getMetrics")["metrics"]}
        self.main_thread = {k: metrics.get(k, 0.0) for k in ("ScriptDuration", "RecalcStyleDuration",
                                                                "LayoutDuration", "TaskDuration")}

    def _now(self) -> float:
        return time.perf_counter() - self.t0

    def _websocket(self, ws) -> None:
        self.ws_open = self._now()
        ws.on("framereceived", self._frame)

    def _frame(self, payload) -> None:
        data = payload if isinstance(payload, bytes) else payload.encode()
        self.received += len(data)
        if self.figure is None and is_chart(data):
            self.figure, self.figure_bytes, self.before_figure = self._now(), len(data), self.messages
            self.server_cpu = cpu_s(self.server) - self.server_cpu0
        self.messages += 1

    def _finished(self, request) -> None:
        if request.resource_type == "script":
            self.last_js = self._now()

    def line(self, plot: float | None) -> str:
        def t(x):
            return "—" if x is None else f"{x:.2f}"
        m = self.main_thread
        return (f"ws open {t(self.ws_open)}, last JS {t(self.last_js)}, figure message {t(self.figure)} "
                f"({self.figure_bytes / 1e3:.0f} kB, after {messages(self.before_figure)} forward messages, "
                f"server CPU until then {t(self.server_cpu)}; "
                f"{self.received / 1e3:.0f} kB over the websocket), "
                f"plot drawn {t(plot)}; main thread until then: scripts {m.get('ScriptDuration', 0):.2f}, "
                f"style+layout {m.get('RecalcStyleDuration', 0) + m.get('LayoutDuration', 0):.2f}, "
                f"all tasks {m.get('TaskDuration', 0):.2f}")


def is_chart(data: bytes) -> bool:
    """Whether a websocket frame (one ForwardMsg) is a delta drawing a Plotly chart."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    msg = ForwardMsg()
    msg.ParseFromString(data)
    return (msg.WhichOneof("type") == "delta" and msg.delta.WhichOneof("type") == "new_element"
            and msg.delta.new_element.WhichOneof("type") == "plotly_chart")


def messages(n: int | None) -> str:
    return "—" if n is None else str(n)


def visit(ctx, url: str, timeout_s: float, server: subprocess.Popen, trace: Path | None = None
          ) -> tuple[float | None, float | None, str, float, Timeline]:
    """Seconds to the first plot and to the end of the run (None: not within the timeout), the
    address the page ends on, the browser's CPU seconds for the visit and its timeline, in a new
    tab of ``ctx``; with ``trace`` (a path without suffix) the visit until the plot is recorded
    (``trace_split``)."""
    b0 = browser_cpu()
    page = ctx.new_page()
    try:
        if trace is not None:
            profiler = ctx.new_cdp_session(page)
            profiler.send("Profiler.enable")
            profiler.send("Profiler.setSamplingInterval", {"interval": 500})
            profiler.send("Profiler.start")
            ctx.browser.start_tracing(page=page, path=str(trace) + ".trace.json", categories=TRACE_CATEGORIES)
        t0 = time.perf_counter()
        timeline = Timeline(page, t0, server)
        page.goto(url)
        first = idle = None
        try:
            page.wait_for_selector(PLOT, state="visible", timeout=timeout_s * 1000)
            first = time.perf_counter() - t0
            timeline.read_main_thread()
        except Exception:
            pass
        if trace is not None:
            ctx.browser.stop_tracing()
            Path(str(trace) + ".cpuprofile").write_text(json.dumps(profiler.send("Profiler.stop")["profile"]))
        try:
            page.wait_for_selector('[data-testid="stApp"]', timeout=timeout_s * 1000)
            page.wait_for_timeout(300)
            page.wait_for_function(IDLE, timeout=timeout_s * 1000)
            idle = time.perf_counter() - t0
        except Exception:
            pass
        return first, idle, page.url, browser_cpu_since(b0), timeline
    finally:
        page.close()


TRACE_CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8", "v8.execute", "blink",
                    "loading", "toplevel", "cc", "viz", "disabled-by-default-v8.compile"]


TOP_TASKS = ("ThreadControllerImpl::RunTask", "ThreadPool_RunTask", "TaskGraphRunner::RunTask")


def trace_split(trace: Path) -> str:
    """Where the browser's CPU went in a ``visit`` recorded with ``trace``: thread CPU seconds of
    each Chromium thread's top-level tasks (its process: the page's renderer, or the process id),
    and the page's main-thread JavaScript by script file from the sampling profiler (seconds of
    samples: wall time while that script ran)."""
    events = json.loads(Path(str(trace) + ".trace.json").read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    # a thread's top-level tasks: its message loop's (main, compositor, IO threads) or its pool's
    # (raster and script-streaming workers)
    tasks = [e for e in events if e.get("ph") == "X" and e.get("name") in TOP_TASKS]
    main = collections.Counter(e["pid"] for e in tasks if names.get((e["pid"], e["tid"])) == "CrRendererMain")
    renderer = main.most_common(1)[0][0] if main else None
    threads = collections.Counter()
    for e in tasks:
        who = "renderer" if e["pid"] == renderer else f"pid {e['pid']}"
        threads[f"{who} {names.get((e['pid'], e['tid']), e['tid'])}"] += e.get("tdur", 0) / 1e6
    profile = json.loads(Path(str(trace) + ".cpuprofile").read_text())
    url = {n["id"]: n["callFrame"]["url"].rsplit("/", 1)[-1] or n["callFrame"]["functionName"]
           for n in profile["nodes"]}
    scripts = collections.Counter()
    for sample, dt in zip(profile["samples"], profile["timeDeltas"]):
        scripts[url[sample]] += dt / 1e6
    scripts.pop("(idle)", None)
    return ("thread CPU: " + ", ".join(f"{k} {v:.2f}" for k, v in threads.most_common(6) if v >= 0.05)
            + "; main-thread JS by script: " + ", ".join(f"{k} {v:.2f}" for k, v in scripts.most_common(7)))


def fmt(x: float | None) -> str:
    return "   —  " if x is None else f"{x:6.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", nargs="*", default=PAGES, help=f"of {PAGES}")
    ap.add_argument("--port", type=int, default=8750)
    ap.add_argument("--timeout", type=float, default=240)
    ap.add_argument("--timeline", action="store_true", help="print each visit's timeline")
    ap.add_argument("--trace", type=Path, metavar="DIR",
                    help="record each visit in Chromium's tracing into DIR and print where the browser's CPU went")
    ap.add_argument("--no-peer", action="store_true", help="leave out the bare Streamlit+Plotly app")
    ap.add_argument("--at-ready", action="store_true",
                    help="start the fresh visit when the server answers, not once it is also quiet")
    a = ap.parse_args()
    if a.trace:
        a.trace.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    print(f"data folder: {os.environ.get('SVMVIZ_DATA_DIR') or '(none: the app fetches or generates)'}; "
          f"{os.cpu_count()} cores")
    print("seconds from opening the page to its first plot and to the end of its run; CPU seconds of the server "
          "and the browser for the visit; fresh: the server's first visit, "
          + ("as soon as it answers its health check" if a.at_ready else
             "once it answers its health check and its CPU is quiet (its start-up work done)")
          + "; tab: the link again in a new tab of the same browser; new: in a new browser context; "
          "start: seconds from the launch to the health check's answer / to the quiet, server CPU seconds until then")
    print(f"{'page':<20} {'fresh: plot':>11} {'idle':>6} {'server':>6} {'browser':>7}   {'tab: plot':>9} {'idle':>6} "
          f"{'server':>6} {'browser':>7}   {'new: plot':>9} {'idle':>6} {'server':>6} {'browser':>7}   "
          f"{'after':>5}   {'start: ready / quiet / CPU':>26}   load (1, 5, 15 min)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=os.environ.get("SVMVIZ_CHROMIUM", "/usr/bin/chromium"),
                                     headless=True, args=["--no-sandbox", "--disable-gpu"])
        peer_dir = tempfile.TemporaryDirectory()
        peer_app = Path(peer_dir.name) / "bare_app.py"
        peer_app.write_text(PEER_APP)
        peer_serve = Path(peer_dir.name) / "bare_serve.py"
        peer_serve.write_text(PEER_SERVE)
        peer_plots = None
        for name in ([] if a.no_peer else [PEER]) + list(a.pages):
            t_launch = time.perf_counter()
            proc = start_app_server(a.port, script=peer_serve if name == PEER else None)
            ready = time.perf_counter() - t_launch
            rows, timelines, splits, after, quiet, plots, before = [], [], [], 0.0, None, [], []
            try:
                # a 3 s window: on a loaded machine the warming thread can get less than 5% of a core for a second
                started = None if a.at_ready else wait_quiet(lambda: cpu_s(proc), window_s=3.0)
                start = f"{ready:5.1f} / {time.perf_counter() - t_launch:5.1f} / {cpu_s(proc):5.1f}"
                url = f"http://127.0.0.1:{a.port}/{'' if name == PEER else name}"
                first_ctx = browser.new_context(viewport={"width": 1280, "height": 720})
                other_ctx = browser.new_context(viewport={"width": 1280, "height": 720})
                try:
                    for i, ctx in enumerate((first_ctx, first_ctx, other_ctx)):
                        if i == 1:
                            quiet = wait_quiet(lambda: cpu_s(proc))
                            after = quiet.cpu_s
                        c0 = cpu_s(proc)
                        trace = a.trace / f"{name}_{KINDS[i]}" if a.trace else None
                        plot, idle, link, b, timeline = visit(ctx, url, a.timeout, proc, trace)
                        if trace is not None:
                            splits.append(trace_split(trace))
                        rows.append(f"{fmt(plot):>9} {fmt(idle)} {cpu_s(proc) - c0:6.1f} {b:7.1f}")
                        plots.append(plot)
                        before.append(timeline.before_figure)
                        timelines.append(timeline.line(plot))
                        url = link
                finally:
                    first_ctx.close()
                    other_ctx.close()
            finally:
                stop_app_server(proc)
            load = " ".join(f"{v:.1f}" for v in os.getloadavg())
            print(f"{name:<20}   {'   '.join(rows)}   {after:5.1f}   {start:>26}   {load}", flush=True)
            print("    forward messages before the first chart: " + ", ".join(
                f"{kind} {messages(n)}" for kind, n in zip(KINDS, before)), flush=True)
            if name == PEER:
                peer_plots = plots
            elif peer_plots is not None:
                print("    to the first plot, page / bare app: " + ", ".join(
                    f"{kind} {ratio(p, q)}" for kind, p, q in zip(KINDS, plots, peer_plots)), flush=True)
            for waited in (started, quiet):
                if waited is not None and not waited.quiet:
                    print(f"    {waited.line()}", flush=True)
            if a.timeline:
                for kind, line in zip(KINDS, timelines):
                    print(f"    {kind:<6} {line}", flush=True)
            for kind, line in zip(KINDS, splits):
                print(f"    {kind:<6} {line}", flush=True)
        browser.close()
        peer_dir.cleanup()


def ratio(page: float | None, peer: float | None) -> str:
    """``page``'s time over the peer's, "—" when either never drew its plot."""
    return "—" if page is None or not peer else f"{page / peer:.2f}×"


if __name__ == "__main__":
    main()
