"""Per-click latency of the Data page's drawing canvas, in headless Chromium at 1280×720 against a
``streamlit run app.py`` of this checkout.

Each click lands on an empty spot of the canvas (a new point of class 1) and is timed from the
mouse click to the canvas legend showing the new count, split by the websocket traffic into

- click → request sent (the browser turning the Plotly click into a rerun request),
- request → last reply (the server's fragment run and the network),
- last reply → point shown (the browser drawing the new canvas),

and the browser's main-thread script time per click (Chrome's ``Performance.getMetrics``). The
machine's load average is printed first: on a shared machine the browser and the server compete
with everything else for the cores, so the figures only mean something next to it.

Usage: python benchmarks/bench_draw.py [--clicks 10] [--port 8750] [--url URL (a running server)]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LEGEND_HAS = ("k => [...document.querySelectorAll('.js-plotly-plot .legendtext')]"
              ".some(e => e.textContent.endsWith('(' + k + ')'))")
IDLE = "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"


def start_server(port: int) -> subprocess.Popen:
    env = dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true",
                             f"--server.port={port}", "--server.address=127.0.0.1",
                             "--server.fileWatcherType=none"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(180):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                return proc
        except OSError:
            time.sleep(0.5)
    proc.kill()
    raise SystemExit("the server did not start")


def summary(name: str, xs: list[float]) -> str:
    return (f"{name:<28} median {statistics.median(xs):5.2f} s   mean {statistics.mean(xs):5.2f} ± "
            f"{statistics.stdev(xs) if len(xs) > 1 else 0:4.2f} s   worst {max(xs):5.2f} s")


def run(url: str, clicks: int) -> None:
    from playwright.sync_api import sync_playwright

    print(f"load average (1, 5, 15 min): {' '.join(f'{v:.1f}' for v in os.getloadavg())} on {os.cpu_count()} cores")
    rows = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=os.environ.get("SVMVIZ_CHROMIUM", "/usr/bin/chromium"),
                                     headless=True, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        frames: list[tuple[str, float]] = []
        page.on("websocket", lambda ws: (ws.on("framesent", lambda _: frames.append(("s", time.perf_counter()))),
                                         ws.on("framereceived", lambda _: frames.append(("r", time.perf_counter())))))
        page.goto(f"{url}/Data?data.source=Draw")
        page.wait_for_selector(".js-plotly-plot .nsewdrag", state="visible", timeout=180000)
        page.wait_for_function(IDLE, timeout=180000)
        page.locator(".js-plotly-plot").first.scroll_into_view_if_needed()
        page.wait_for_timeout(1500)
        cdp = page.context.new_cdp_session(page)
        cdp.send("Performance.enable")

        def script_s() -> float:
            return next(m["value"] for m in cdp.send("Performance.getMetrics")["metrics"] if m["name"] == "ScriptDuration")

        for k in range(clicks):
            box = page.locator(".js-plotly-plot .nsewdrag").first.bounding_box()
            fx, fy = 0.05 + 0.09 * (k % 10), 0.1 + 0.08 * (k % 5)
            s0, t0 = script_s(), time.perf_counter()
            page.mouse.click(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
            page.wait_for_function(LEGEND_HAS, arg=k + 1, timeout=120000, polling="raf")
            t1 = time.perf_counter()
            page.wait_for_function(IDLE, timeout=120000)
            page.wait_for_timeout(400)
            sent = [t for d, t in frames if d == "s" and t >= t0]
            recv = [t for d, t in frames if d == "r" and t0 <= t <= t1]
            rows.append((t1 - t0, sent[0] - t0, recv[-1] - sent[0], t1 - recv[-1], script_s() - s0))
            print(f"click {k + 1:2d}: shown after {rows[-1][0]:.2f} s (sent {rows[-1][1]:.2f}, server+network "
                  f"{rows[-1][2]:.2f}, drawing {rows[-1][3]:.2f}; browser script {rows[-1][4]:.2f} s)")
        browser.close()
    cols = list(zip(*rows))
    for name, xs in zip(["click -> point shown", "click -> request sent", "request -> last reply",
                         "last reply -> point shown", "browser script time"], cols):
        print(summary(name, list(xs)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clicks", type=int, default=10)
    ap.add_argument("--port", type=int, default=8750)
    ap.add_argument("--url", help="a running server instead of starting one")
    a = ap.parse_args()
    proc = None if a.url else start_server(a.port)
    try:
        run(a.url or f"http://127.0.0.1:{a.port}", a.clicks)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=10)


if __name__ == "__main__":
    main()
