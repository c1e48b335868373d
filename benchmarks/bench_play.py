"""Play's pace in a real browser: does the SVM Tree page advance one step per second when Play
says "advance one step every 1 s"?

A headless Chromium (Playwright, Debian's ``/usr/bin/chromium``) opens the page by its link,
goes to the first step and clicks Play. In the page a MutationObserver stamps every change of the
step caption ("Step k of n") with ``performance.now()``, so the intervals are what a class sees on
the screen: the server's timed fragment run, the websocket and the frontend's drawing included.
Play runs to the last step and stops there; a run is repeated ``--repeats`` times (First, then
Play again). It reports the intervals between consecutive steps (p50, mean, min, max and how
many lie within 1 s ± 0.2 s), the steps skipped or repeated, and the server's CPU per step.

``--protocol`` plays without a browser: one student of ``bench_classroom.py`` (Streamlit's
websocket protocol) runs the fragment's timer as the frontend does (a fixed-rate interval from the
server's ``auto_rerun`` message) and stamps each step when its run has ended — the server's pace
alone, with no drawing, for a machine where Chromium's drawing is what is slow.

By default it starts its own server (``streamlit run serve.py`` from the project folder, so with the
project's ``.streamlit/config.toml``) on a free port (``--serve-ports lo-hi`` to pick the range);
``--url`` attaches to a running one. The page's fit is paid before the first Play (the page is
open and drawn when Play is clicked).

Usage: python benchmarks/bench_play.py [--repeats 3] [--query data=fourclass] [--url URL] [--protocol]
"""

from __future__ import annotations

import argparse
from contextlib import nullcontext
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_classroom import free_port, percentile, proc_cpu  # noqa: E402
from harness import Run, start_app_server  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
DELAY_S = 1.0            # what the Play button says (svmviz_app.stepper)
TOLERANCE_S = 0.2

# the step caption of the SVM Tree page as drawn: "Step k of n" in bold at the start of a paragraph
_WATCH = r"""() => {
  const read = () => {
    for (const p of document.querySelectorAll('[data-testid="stMarkdownContainer"] p')) {
      const m = /^Step (\d+) of (\d+)/.exec(p.innerText);
      if (m) return [+m[1], +m[2]];
    }
    return null;
  };
  window.__steps = [];
  let last = read();
  if (last) window.__steps.push([performance.now(), last[0], last[1]]);
  new MutationObserver(() => {
    const now = read();
    if (now && (!last || now[0] !== last[0])) {
      window.__steps.push([performance.now(), now[0], now[1]]);
      last = now;
    }
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def _default_query() -> str:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from svmviz.data import fourclass_path

    return "data=fourclass" if fourclass_path() is not None else "data=fourclass_like"


def play_once(page, timeout_s: float) -> list[tuple[float, int, int]]:
    """First, then Play; the (time s, step, of) of every step shown until the last one."""
    page.get_by_role("button", name="First").click()
    page.wait_for_function("() => window.__steps.length && window.__steps.at(-1)[1] === 1", timeout=60000)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=60000)
    page.evaluate("() => { window.__steps = window.__steps.slice(-1); }")
    page.get_by_role("button", name="Play").click()
    page.wait_for_function("() => { const s = window.__steps.at(-1); return s && s[1] === s[2]; }",
                           timeout=timeout_s * 1000)
    page.wait_for_function(
        "() => [...document.querySelectorAll('button')].some(b => b.innerText.trim().endsWith('Play'))",
        timeout=30000)   # Play ended by itself at the last step
    return [(t / 1000.0, k, n) for t, k, n in page.evaluate("() => window.__steps")]


def play_protocol(port: int, query: str, timeout_s: float) -> list[tuple[float, int, int]]:
    """Play once from the first step at the protocol level; the (time s, step, of) of each step."""
    import asyncio

    from bench_classroom import PAGES, Student
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    class Player(Student):
        timer = None

        def timer_message(self, msg) -> None:
            self.timer = (msg.auto_rerun.interval, msg.auto_rerun.fragment_id) \
                if msg.WhichOneof("type") == "auto_rerun" else None

    async def click(s, label):
        bid, _, fragment = s.button(label)
        await s.rerun(s.widget_states() + [WidgetState(id=bid, trigger_value=True)], fragment)
        if not await s.wait_run(timeout_s):
            raise SystemExit(f"the {label} click's run did not end within {timeout_s:g} s")

    async def play():
        s = Player(port, "SVM_Tree", query, PAGES["SVM_Tree"])
        try:
            if not await s.open(300):
                raise SystemExit(f"the page did not open: {s.errors}")
            await click(s, "First")
            await click(s, "Play")
            if s.timer is None:
                raise SystemExit("Play set no timer")
            steps = [(time.perf_counter(), *s.step())]
            interval, fragment = s.timer
            due = time.perf_counter() + interval
            deadline = time.perf_counter() + timeout_s
            while steps[-1][1] < steps[-1][2] and time.perf_counter() < deadline:   # Play stops at the last
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
                due += interval        # the frontend's timer: a fixed rate, whatever the runs take
                await s.rerun(s.widget_states(), fragment, auto=True)
                await s.wait_run(timeout_s)
                if s.step() is not None and s.step()[0] != steps[-1][1]:
                    steps.append((time.perf_counter(), *s.step()))
            return steps
        finally:
            await s.close()

    return asyncio.run(play())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3, help="Play runs, each from the first step to the last")
    ap.add_argument("--query", default=None, help="the link's query (default: data=fourclass when available)")
    ap.add_argument("--url", default="", help="attach to a running app at this URL (default: start one)")
    ap.add_argument("--serve-ports", default="", help="lo-hi: start the server on a free port in this range")
    ap.add_argument("--protocol", action="store_true", help="play over Streamlit's protocol, no browser")
    ap.add_argument("--json", default="", help="the JSON record's path (default: test-artifacts/benchmarks/)")
    args = ap.parse_args(argv)
    query = args.query if args.query is not None else _default_query()
    proc = None
    url = args.url.rstrip("/")
    if not url:
        lo, hi = (int(x) for x in args.serve_ports.split("-")) if args.serve_ports else (0, 0)
        port = free_port(lo, hi)
        proc = start_app_server(port)
        url = f"http://127.0.0.1:{port}"
    from playwright.sync_api import sync_playwright

    intervals, skipped, cpu_per_step = [], 0, []
    columns = [("run", "run", "{}"), ("steps", "steps", "{}"), ("p50", "interval p50 s", "{:.3f}"),
               ("mean", "mean s", "{:.3f}"), ("min", "min s", "{:.3f}"), ("max", "max s", "{:.3f}"),
               ("within", f"within {DELAY_S:g}±{TOLERANCE_S:g} s", "{}"), ("skipped", "skipped", "{}"),
               ("cpu", "server CPU/step s", "{:.3f}")]
    try:
        with (nullcontext() if args.protocol else sync_playwright()) as pw, Run("bench_play", columns, args.repeats,
                                          json_path=Path(args.json) if args.json else None,
                                          meta={"url": f"{url}/SVM_Tree?{query}", "delay_s": DELAY_S,
                                                "client": "protocol" if args.protocol else "chromium"}) as run:
            if not args.protocol:
                browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
                page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
                page.goto(f"{url}/SVM_Tree?{query}")
                page.wait_for_function("() => document.body.innerText.includes('Step 1 of')", timeout=300000)
                page.evaluate(_WATCH)
            for r in range(args.repeats):
                cpu0 = proc_cpu(proc.pid) if proc else float("nan")
                steps = (play_protocol(int(url.rsplit(":", 1)[1]), query, timeout_s=120) if args.protocol
                         else play_once(page, timeout_s=120))
                cpu = (proc_cpu(proc.pid) - cpu0) if proc else float("nan")
                gaps = [b[0] - a[0] for a, b in zip(steps, steps[1:])]
                skip = sum(1 for a, b in zip(steps, steps[1:]) if b[1] != a[1] + 1)
                intervals += gaps
                skipped += skip
                cpu_per_step.append(cpu / max(len(gaps), 1))
                run.row(run=r + 1, steps=len(steps), p50=percentile(gaps, 50),
                        mean=sum(gaps) / max(len(gaps), 1), min=min(gaps, default=float("nan")),
                        max=max(gaps, default=float("nan")),
                        within=f"{sum(abs(g - DELAY_S) <= TOLERANCE_S for g in gaps)}/{len(gaps)}",
                        skipped=skip, cpu=cpu_per_step[-1], intervals=gaps)
            run.note(intervals=intervals, skipped=skipped,
                     within=sum(abs(g - DELAY_S) <= TOLERANCE_S for g in intervals), n_intervals=len(intervals))
            if not args.protocol:
                browser.close()
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except Exception:
                proc.kill()
    print(f"all runs: {len(intervals)} intervals, p50 {percentile(intervals, 50):.3f} s, "
          f"min {min(intervals, default=float('nan')):.3f} s, max {max(intervals, default=float('nan')):.3f} s, "
          f"{sum(abs(g - DELAY_S) <= TOLERANCE_S for g in intervals)} within {DELAY_S:g} ± {TOLERANCE_S:g} s, "
          f"{skipped} skipped or repeated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
