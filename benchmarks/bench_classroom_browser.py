"""A classroom on one server, seen from browsers: N = 1, 10, 30 students open the SVM Tree page of
one ``streamlit run serve.py`` and click "Next" 10 times each.

What only a browser shows: the time until the new step is on screen (the frontend's rendering
included). The server's cost per open and per click, at class sizes a browser per student cannot
reach on a small machine, is measured by ``bench_classroom.py`` (Streamlit's protocol, no browser).

Each student is a real browser session (a Playwright context in one headless Chromium, so a real
websocket session on the server). Before the rounds, one warm-up session opens the page: it pays
the fit, which the app caches across sessions; the rounds then show what every further student
costs. Per round it prints:

- open p50/p95: from navigation to the "Step k of n" caption on screen;
- click p50/p95: from the click on "Next" to the caption's text changing, measured in the page
  (``performance.now()`` and a MutationObserver), over every click of every session;
- server CPU: user + system seconds of the server process (and its children) during the round;
  browser CPU: the same for Chromium and Playwright, which share the machine with the server
  (in a classroom each browser has its own laptop): they run at ``--browser-nice`` so that they
  yield the cores to the server;
- RSS of the server before the round, with the N sessions open, and after they are closed and
  expired: the server runs with ``server.disconnectedSessionTTL`` = ``--ttl`` seconds; Streamlit
  drops expired sessions lazily, on its next session-storage write, so after waiting out the TTL
  a short visit to the Home page (opened and closed) makes it purge them before RSS is read.

One round per N (a load test, not a micro-benchmark: its spread is in the percentiles). The server
is started by ``harness.start_app_server``; every round goes to a JSON record beside the table
(``harness.Run``: ``test-artifacts/benchmarks/`` or ``--json``).

Usage: python benchmarks/bench_classroom_browser.py [--sessions 1,10,30] [--clicks 10] [--data-dir DIR]
Quick check while developing: --sessions 1,3 --clicks 3 --ttl 2
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import sys
import time
from pathlib import Path

import numpy as np
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import Run, start_app_server, stop_app_server  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("SVMVIZ_CHROMIUM", "/usr/bin/chromium")

# The caption "Step k of n" and the button labelled "Next" are found by their text, not by
# widget keys, so the script follows the page through rewrites.
_STEP_TEXT = """() => {
  for (const el of document.querySelectorAll('[data-testid="stMarkdownContainer"]')) {
    const m = el.innerText.match(/Step\\s+(\\d+)\\s+of\\s+(\\d+)/);
    if (m) return m[0];
  }
  return null;
}"""
_CLICK_NEXT = """async (timeoutMs) => {
  const stepText = %s;
  const before = stepText();
  const btn = [...document.querySelectorAll('button')].find(b => /^\\s*Next\\b/.test(b.innerText));
  if (!btn) return {error: 'no button labelled Next', before};
  if (btn.disabled) return {error: 'Next is disabled', before};
  const t0 = performance.now();
  return await new Promise(resolve => {
    let timer;
    const obs = new MutationObserver(() => {
      const now = stepText();
      if (now && now !== before) {
        obs.disconnect(); clearTimeout(timer);
        resolve({ms: performance.now() - t0, before, after: now});
      }
    });
    obs.observe(document.body, {subtree: true, childList: true, characterData: true});
    timer = setTimeout(() => { obs.disconnect(); resolve({error: 'timeout', before}); }, timeoutMs);
    btn.click();
  });
}""" % _STEP_TEXT
# ready for the next click: the script run is over (no status widget) and the caption and the
# button are drawn (the caption may arrive before the buttons in a run)
_READY = """() => !document.querySelector('[data-testid="stStatusWidget"]') && (%s)() !== null
  && [...document.querySelectorAll('button')].some(b => /^\\s*Next\\b/.test(b.innerText))""" % _STEP_TEXT
_IDLE = "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(proc: psutil.Process) -> float:
    total = 0.0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.NoSuchProcess:
            pass
    return total


def _browser_processes(server: psutil.Process) -> list[psutil.Process]:
    """Every process this script started except the server: Playwright's driver, Chromium and
    its renderers."""
    skip = {server.pid, *(p.pid for p in server.children(recursive=True))}
    return [p for p in psutil.Process().children(recursive=True) if p.pid not in skip]


def browser_cpu(server: psutil.Process) -> dict[int, float]:
    """CPU seconds of the browser processes by pid: on a small machine they compete with the server."""
    out = {}
    for p in _browser_processes(server):
        try:
            t = p.cpu_times()
            out[p.pid] = t.user + t.system
        except psutil.NoSuchProcess:
            pass
    return out


async def renice_browsers(server: psutil.Process, nice: int) -> None:
    # In a classroom every browser runs on its own laptop; here they share the server's cores, so
    # they yield to it. Chromium starts renderers (and sets some priorities itself) all along:
    # look again every second.
    while True:
        for p in _browser_processes(server):
            try:
                if p.nice() != nice:
                    p.nice(nice)
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                pass
        await asyncio.sleep(1.0)


def rss_mb(proc: psutil.Process) -> float:
    return proc.memory_info().rss / 2**20


async def student(browser, url: str, clicks: int, think: float, timeout_s: float, click_timeout_s: float) -> dict:
    """One session: open the page, then click Next until ``clicks`` clicks or the last step."""
    ctx = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await ctx.new_page()
    out = {"ctx": ctx, "latencies": [], "errors": [], "steps": []}
    t0 = time.perf_counter()
    try:
        await page.goto(url + "/SVM_Tree", timeout=timeout_s * 1000)
        await page.wait_for_function(f"() => ({_STEP_TEXT})() !== null", timeout=timeout_s * 1000)
        out["open"] = time.perf_counter() - t0
        # the student reads the first step; a run right after the first one (the app writing the
        # view into the URL) would otherwise swallow an immediate click
        for _ in range(2):
            await page.wait_for_function(_READY, timeout=timeout_s * 1000)
            await asyncio.sleep(think)
        out["steps"].append(await page.evaluate(_STEP_TEXT))
        for _ in range(clicks):
            k, n = (int(v) for v in out["steps"][-1].split()[1::2])
            if k >= n:
                out["errors"].append(f"stopped at the last step ({k} of {n})")
                break
            r = await page.evaluate(_CLICK_NEXT, click_timeout_s * 1000)
            if "error" in r:
                out["errors"].append(f"{r['error']} (at {r['before']})")
                break
            out["latencies"].append(r["ms"] / 1000)
            out["steps"].append(r["after"])
            await page.wait_for_function(_READY, timeout=timeout_s * 1000)
            await asyncio.sleep(think)  # a student looks at the new step
    except Exception as exc:  # a session that fails is counted and reported, the round goes on
        out["errors"].append(f"{type(exc).__name__}: {str(exc).splitlines()[0]}")
    return out


async def visit_home(browser, url: str, timeout_s: float) -> None:
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.goto(url, timeout=timeout_s * 1000)
    await page.wait_for_function(_IDLE, timeout=timeout_s * 1000)
    await ctx.close()


async def run_round(browser, url, server, n, args) -> dict:
    rss_before = rss_mb(server)
    cpu0, w0, b0 = cpu_seconds(server), time.perf_counter(), browser_cpu(server)
    runs = await asyncio.gather(*(student(browser, url, args.clicks, args.think, args.timeout, args.click_timeout)
                                  for _ in range(n)))
    cpu, wall = cpu_seconds(server) - cpu0, time.perf_counter() - w0
    bcpu = sum(t - b0.get(pid, 0.0) for pid, t in browser_cpu(server).items())
    rss_open = rss_mb(server)
    for r in runs:
        await r.pop("ctx").close()
    await asyncio.sleep(args.ttl + 2)
    await visit_home(browser, url, args.timeout)
    await asyncio.sleep(2)
    lat = np.array([x for r in runs for x in r["latencies"]])
    opens = np.array([r["open"] for r in runs if "open" in r])
    return {"n": n, "ok": sum(1 for r in runs if not r["errors"]), "clicks": lat.size,
            "open": np.percentile(opens, [50, 95]) if opens.size else [np.nan] * 2,
            "click": np.percentile(lat, [50, 95]) if lat.size else [np.nan] * 2,
            "cpu": cpu, "browser_cpu": bcpu, "wall": wall, "rss": (rss_before, rss_open, rss_mb(server)),
            "errors": sorted({e for r in runs for e in r["errors"]}),
            "steps": runs[0]["steps"]}


def print_row(r) -> None:
    """One row as soon as its round is over (a long run killed at N = 30 keeps N = 1 and 10)."""
    print(f"{r['label']:>4} {r['ok']:>4} {r['clicks']:>6} {r['open'][0]:>9.2f} {r['open'][1]:>9.2f} "
          f"{r['click'][0]:>10.3f} {r['click'][1]:>10.3f} {r['cpu']:>10.1f} {r['browser_cpu']:>10.1f} "
          f"{r['wall']:>7.1f} {r['rss'][0]:>9.0f}MB {r['rss'][1]:>9.0f}MB {r['rss'][2]:>10.0f}MB", flush=True)
    for e in r["errors"]:
        print(f"      N={r['label']}: {e}", flush=True)


async def main_async(args) -> None:
    from playwright.async_api import async_playwright

    print(f"SVM Tree page, data dir {args.data_dir or '(none: the default data set)'}, {args.clicks} clicks on "
          f"Next per session, think time {args.think:g} s, session TTL {args.ttl} s, browsers at nice "
          f"{args.browser_nice}; machine load average {os.getloadavg()[0]:.1f} at the start ({os.cpu_count()} "
          "cores)\n'warm' = the first session on a fresh server (it pays the fit); times in seconds")
    print(f"{'N':>4} {'ok':>4} {'clicks':>6} {'open p50':>9} {'open p95':>9} {'click p50':>10} "
          f"{'click p95':>10} {'srv CPU s':>10} {'brw CPU s':>10} {'wall s':>7} {'RSS before':>11} "
          f"{'RSS N open':>11} {'RSS expired':>12}", flush=True)
    port = _free_port()
    proc = start_app_server(port, config=[f"server.disconnectedSessionTTL={args.ttl}"],
                            env={"SVMVIZ_DATA_DIR": args.data_dir} if args.data_dir else None)
    server = psutil.Process(proc.pid)
    url = f"http://127.0.0.1:{port}"
    try:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(
                executable_path=CHROMIUM, headless=True,
                args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                      "--disable-background-networking", "--disable-component-update", "--disable-sync",
                      "--disable-dev-shm-usage", "--disable-renderer-backgrounding"])
            renicer = asyncio.create_task(renice_browsers(server, args.browser_nice))
            meta = {"args": {k: v for k, v in vars(args).items() if k != "json"}}
            with Run("bench_classroom_browser", (), None, args.json, meta) as run:
                for label, n in [("warm", 1), *((str(n), n) for n in args.sessions)]:
                    r = await run_round(browser, url, server, n, args)
                    r["label"] = label
                    print_row(r)
                    run.row(**r)
                    if label == "warm":
                        steps = r["steps"]
                        first = " → ".join(steps[:2] + (["…", steps[-1]] if len(steps) > 2 else []))
            renicer.cancel()
            await browser.close()
    finally:
        stop_app_server(proc)
    print(f"warm-up session: {first}; machine load average {os.getloadavg()[0]:.1f} at the end")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", default="1,10,30", help="comma-separated session counts")
    ap.add_argument("--clicks", type=int, default=10)
    ap.add_argument("--think", type=float, default=1.0, help="seconds a student waits after each step")
    ap.add_argument("--ttl", type=int, default=10, help="server.disconnectedSessionTTL in seconds")
    ap.add_argument("--browser-nice", type=int, default=10,
                    help="niceness of Chromium and Playwright, so they yield the cores to the server")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for a page or a step")
    ap.add_argument("--click-timeout", type=float, default=120.0,
                    help="seconds after which a click that changed nothing counts as lost")
    ap.add_argument("--data-dir", default=os.environ.get("SVMVIZ_DATA_DIR"),
                    help="SVMVIZ_DATA_DIR for the server, the folder holding fourclass_scale "
                         "(default: the environment's)")
    ap.add_argument("--json", type=Path, default=None,
                    help="where the run's JSON record goes (default: test-artifacts/benchmarks/)")
    args = ap.parse_args(argv)
    args.sessions = [int(s) for s in args.sessions.split(",")]
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"no Chromium at {CHROMIUM}: set SVMVIZ_CHROMIUM")
    t0, c0 = time.perf_counter(), time.process_time()
    asyncio.run(main_async(args))
    print(f"benchmark wall {time.perf_counter() - t0:.0f} s, driver process CPU {time.process_time() - c0:.0f} s")


if __name__ == "__main__":
    main()
