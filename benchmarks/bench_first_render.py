"""Time to the first plot of every page, on a fresh server and for a second session.

For each page a new ``streamlit run app.py`` of this checkout is started (a fresh process: nothing
in memory, Numba's compiled code loaded from its on-disk cache), headless Chromium at 1280×720
opens the page, and the time from navigation to the first visible ``.js-plotly-plot`` is taken,
then to the end of the run (no status widget). A second browser context then opens the link the
first one shows (the view in the address bar), as a student opening a shared link would: the
same two times. The CPU seconds of the server and of the browser (all its processes) for each of
the two visits and the load average are printed with every row: the machine is shared, so the
latencies only mean something next to it, while the CPU seconds hold on a loaded machine too.

The data is whatever the server opens on: run it with ``SVMVIZ_DATA_DIR`` pointing at the folder
holding ``fourclass_scale`` to time the real fourclass.

Usage: SVMVIZ_DATA_DIR=/path/to/data python benchmarks/bench_first_render.py [--pages Convex_Hulls Solvers]
       [--port 8750] [--timeout 240]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time
from pathlib import Path

import psutil
from harness import start_app_server

ROOT = Path(__file__).resolve().parents[1]
PAGES = [p.stem.split("_", 1)[1] for p in sorted((ROOT / "pages").glob("[0-9]*_*.py"))]
IDLE = "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
PLOT = ".js-plotly-plot .main-svg"



def cpu_s(proc: subprocess.Popen) -> float:
    t = psutil.Process(proc.pid).cpu_times()
    return t.user + t.system


def browser_cpu_s() -> float:
    """CPU seconds of this process's Chromium descendants (a context's renderer is counted
    before the context closes)."""
    total = 0.0
    for p in psutil.Process().children(recursive=True):
        try:
            if "chrom" in p.name():
                t = p.cpu_times()
                total += t.user + t.system
        except psutil.NoSuchProcess:
            pass
    return total


def visit(browser, url: str, timeout_s: float) -> tuple[float | None, float | None, str, float]:
    """Seconds to the first plot and to the end of the run (None: not within the timeout), the
    address the page ends on and the browser's CPU seconds for the visit."""
    b0 = browser_cpu_s()
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    page = ctx.new_page()
    try:
        t0 = time.perf_counter()
        page.goto(url)
        first = idle = None
        try:
            page.wait_for_selector(PLOT, state="visible", timeout=timeout_s * 1000)
            first = time.perf_counter() - t0
        except Exception:
            pass
        try:
            page.wait_for_selector('[data-testid="stApp"]', timeout=timeout_s * 1000)
            page.wait_for_timeout(300)
            page.wait_for_function(IDLE, timeout=timeout_s * 1000)
            idle = time.perf_counter() - t0
        except Exception:
            pass
        return first, idle, page.url, browser_cpu_s() - b0
    finally:
        ctx.close()


def fmt(x: float | None) -> str:
    return "   —  " if x is None else f"{x:6.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", nargs="*", default=PAGES, help=f"of {PAGES}")
    ap.add_argument("--port", type=int, default=8750)
    ap.add_argument("--timeout", type=float, default=240)
    a = ap.parse_args()
    from playwright.sync_api import sync_playwright

    print(f"data folder: {os.environ.get('SVMVIZ_DATA_DIR') or '(none: the app fetches or generates)'}; "
          f"{os.cpu_count()} cores")
    print("seconds from opening the page to its first plot and to the end of its run; CPU seconds of the server "
          "and the browser for the visit")
    print(f"{'page':<20} {'fresh: plot':>11} {'idle':>6} {'server':>6} {'browser':>7}   {'2nd: plot':>9} {'idle':>6} "
          f"{'server':>6} {'browser':>7}   load (1, 5, 15 min)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=os.environ.get("SVMVIZ_CHROMIUM", "/usr/bin/chromium"),
                                     headless=True, args=["--no-sandbox", "--disable-gpu"])
        for name in a.pages:
            proc = start_app_server(a.port)
            try:
                url = f"http://127.0.0.1:{a.port}/{name}"
                c0 = cpu_s(proc)
                first, idle, link, b1 = visit(browser, url, a.timeout)
                c1 = cpu_s(proc)
                first2, idle2, _, b2 = visit(browser, link, a.timeout)
                c2 = cpu_s(proc)
            finally:
                proc.terminate()
                proc.wait(timeout=20)
            load = " ".join(f"{v:.1f}" for v in os.getloadavg())
            print(f"{name:<20} {fmt(first):>11} {fmt(idle)} {c1 - c0:6.1f} {b1:7.1f}   {fmt(first2):>9} {fmt(idle2)} "
                  f"{c2 - c1:6.1f} {b2:7.1f}   {load}", flush=True)
        browser.close()


if __name__ == "__main__":
    main()
