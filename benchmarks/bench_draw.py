"""Per-click latency of the Data page's drawing canvas, in headless Chromium at 1280×720 against a
``streamlit run serve.py`` of this checkout.

Each click lands on an empty spot of the canvas (a new point of class 1) and is timed from the
mouse click to the canvas legend showing the new count, split by the websocket traffic into

- click → request sent (the browser turning the Plotly click into a rerun request),
- request → last reply (the server's fragment run and the network),
- last reply → point shown (the browser drawing the new canvas),

the browser's main-thread script time per click (Chrome's ``Performance.getMetrics``) and the CPU
seconds per click of all the browser's processes (renderer, GPU/WebGL, browser) and of the server
when the benchmark started it. The machine's load average is printed before and after: on a shared
machine the browser and the server compete with everything else for the cores, so the latencies
only mean something next to it, while the CPU seconds hold on a loaded machine too.

Usage: python benchmarks/bench_draw.py [--clicks 10] [--port 8750] [--url URL (a running server)]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import psutil
from harness import Run, start_app_server, stop_app_server

#: what each click's record holds, in seconds
FIELDS = ("shown", "sent", "server_and_network", "drawing", "browser_script", "browser_cpu", "server_cpu")

ROOT = Path(__file__).resolve().parents[1]
LEGEND_HAS = ("k => [...document.querySelectorAll('.js-plotly-plot .legendtext')]"
              ".some(e => e.textContent.endsWith('(' + k + ')'))")
IDLE = "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"



def tree_cpu_s(root: psutil.Process, name_has: str = "") -> float:
    """User + system CPU seconds of ``root``'s descendants whose name contains ``name_has``."""
    total = 0.0
    for p in root.children(recursive=True):
        try:
            if name_has in p.name():
                t = p.cpu_times()
                total += t.user + t.system
        except psutil.NoSuchProcess:
            pass
    return total


def proc_cpu_s(pid: int | None) -> float:
    if pid is None:
        return 0.0
    t = psutil.Process(pid).cpu_times()
    return t.user + t.system + t.children_user + t.children_system


def summary(name: str, xs: list[float]) -> str:
    return (f"{name:<28} median {statistics.median(xs):5.2f} s   mean {statistics.mean(xs):5.2f} ± "
            f"{statistics.stdev(xs) if len(xs) > 1 else 0:4.2f} s   worst {max(xs):5.2f} s")


def run(url: str, clicks: int, record: Run, server_pid: int | None = None) -> None:
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

        me = psutil.Process()
        for k in range(clicks):
            b0, v0 = tree_cpu_s(me, "chrom"), proc_cpu_s(server_pid)
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
            rows.append((t1 - t0, sent[0] - t0, recv[-1] - sent[0], t1 - recv[-1], script_s() - s0,
                         tree_cpu_s(me, "chrom") - b0, proc_cpu_s(server_pid) - v0))
            record.row(click=k + 1, **dict(zip(FIELDS, rows[-1])))
            print(f"click {k + 1:2d}: shown after {rows[-1][0]:.2f} s (sent {rows[-1][1]:.2f}, server+network "
                  f"{rows[-1][2]:.2f}, drawing {rows[-1][3]:.2f}; browser script {rows[-1][4]:.2f} s, browser CPU "
                  f"{rows[-1][5]:.2f} s, server CPU {rows[-1][6]:.2f} s)")
        browser.close()
    cols = list(zip(*rows))
    names = ["click -> point shown", "click -> request sent", "request -> last reply",
             "last reply -> point shown", "browser script time", "browser CPU (all processes)"]
    for name, xs in zip(names + (["server CPU"] if server_pid else []), cols):
        print(summary(name, list(xs)))
    shown = sorted(cols[0])
    print(f"click -> point shown: p50 {statistics.median(shown):.2f} s, p95 "
          f"{statistics.quantiles(shown, n=20, method='inclusive')[-1]:.2f} s, max {shown[-1]:.2f} s")
    print(f"load average after (1, 5, 15 min): {' '.join(f'{v:.1f}' for v in os.getloadavg())}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clicks", type=int, default=10)
    ap.add_argument("--port", type=int, default=8750)
    ap.add_argument("--url", help="a running server instead of starting one")
    ap.add_argument("--json", type=Path, default=None, help="where the JSON record goes")
    a = ap.parse_args()
    proc = None if a.url else start_app_server(a.port)
    try:
        with Run("bench_draw", (), a.clicks, a.json, meta={"url": a.url}) as record:
            run(a.url or f"http://127.0.0.1:{a.port}", a.clicks, record, None if proc is None else proc.pid)
    finally:
        if proc is not None:
            stop_app_server(proc)


if __name__ == "__main__":
    main()
