"""A live class at the protocol level: one instructor and N followers on a stepping page of one
``streamlit run serve.py``, every session a websocket speaking Streamlit's protocol (the client of
``bench_classroom.py``, plus the browser's timers, which send on their own schedule whatever the session is doing: a
fragment with ``run_every`` sends an ``auto_rerun`` message and the browser then asks for a run of
that fragment every interval (the instructor's tally is such a fragment); and the script of the
live class's ticker element, a timer in the browser that sets the element's trigger every
interval its data names (the followers' room poll)).

1. The instructor opens the page (``data=fourclass`` when available) and starts a class; the N
   followers open the join link (``/SVM_Tree?room=CODE``) and wait until they show the
   instructor's step and figure. Before they join, the server is left until its CPU time nearly
   stops growing (``harness.wait_quiet``: a fresh server warms itself as it starts, work
   that would otherwise be counted as the room's); the wait and its CPU are printed.
2. **Idle:** nobody acts for ``--idle`` seconds: server CPU per follower poll.
3. **Stepping:** the instructor clicks Next every ``--every`` seconds, ``--steps`` times. A
   follower's **lag** for a step is the time from the instructor's click to the end of the
   follower's first run that shows that step's text ("Step k of n") with the instructor's figures
   for it (the same Plotly specs). A step a follower never showed is **missed**. Server CPU (user +
   system, from /proc) per instructor step is the whole room's: the instructor's run and every
   follower's polls and runs meanwhile. kB are what each follower received per step.
4. **Question:** the instructor asks "what happens next?"; every follower answers within
   ``--answer-window`` seconds (a random option at a random time; every third one changes its mind
   once); the tally the instructor's panel shows must equal the followers' last answers exactly.
   The instructor reveals; the **reveal lag** is the time until a follower shows the answer.

Targets (a 2-core machine): lag p95 <= 1.5 s, no missed step, CPU per instructor step <= 1.0 s,
exact tally, every reveal within 1.5 s. Latencies are inflated by other work on a shared machine:
the load average is printed with every figure; CPU seconds and bytes are what to trust.

The step element: a following student's stepper leaves its steps to an element
(``svmviz_app.step_element``) whose script long-polls ``GET /live/<code>/step`` and draws a step
without a script run; each follower here does what that script does (``StepElement``: the same
verdict on each payload, its trigger set for anything but a step), and a step is shown when
either its page's run or its element drew it. Its CPU is in the room's CPU per step.

Heavy links beside the class: ``--heavy N`` opens, as the stepping starts, N more sessions (not
in the class) each on a different heavy link (``--heavy-page``, ``--heavy-query`` with ``{i}``
the session's number: by default DAG SVM's voting tab on a generated 20-class set, each of its
own seed, so nothing is shared between them). Printed: how many of them opened and when, the
instructor's click latency, and ``/_stcore/health`` probed every second while stepping (its
answer p50 / max, target ≤ 1 s). The CPU per step then includes the heavy links' work.

Several processes: ``--processes 2`` starts two servers sharing the room through Redis
(``--rooms redis://...``, or a redis-server the benchmark starts), the instructor on the first, the
followers spread over both; CPU per step is reported per process too.

Usage: python benchmarks/bench_live.py [--followers 30] [--steps 20] [--every 2] [--serve-ports 8800-8849]
       python benchmarks/bench_live.py --followers 300 --processes 2
       python benchmarks/bench_live.py --followers 30 --steps 10 --heavy 10
Quick check: python benchmarks/bench_live.py --followers 3 --steps 3
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_classroom as bc   # noqa: E402  (the protocol client and statistics)
from harness import Quiet, Run, listening_pid, start_app_server, stop_app_server, wait_quiet  # noqa: E402

CODE_RE = re.compile(r"[?&]room=([A-Z0-9]{4}-?[A-Z0-9]{4})")
ANSWER_KEY_RE = re.compile(r"live_ans_(\d+)_(\d+)$")


# ----------------------------------------------------------------------------- pure parts
@dataclass(frozen=True)
class Shown:
    """What a session showed at the end of one of its runs."""

    t: float
    step: int | None          # 1-based, as the page prints it
    figures: str              # digest of the Plotly specs on the page
    question: int | None = None   # the qid of the question whose answer buttons are shown
    revealed: bool = False        # the answer of a question is shown


def figures_digest(specs) -> str:
    """One digest of a page's Plotly figures (their JSON specs, in page order)."""
    h = hashlib.sha256()
    for s in specs:
        h.update(s.encode() if isinstance(s, str) else bytes(s))
        h.update(b"\0")
    return h.hexdigest()[:16]


def step_lags(steps: dict[int, tuple[float, str]], history: list[Shown]) -> dict[int, float | None]:
    """For each instructor step ``s -> (click time, figures digest)``: the time from the click to
    the first run end in ``history`` at or after it that shows step s with those figures; None when
    the follower never showed it (a missed step)."""
    out = {}
    for s, (t0, digest) in steps.items():
        out[s] = next((h.t - t0 for h in history if h.t >= t0 and h.step == s and h.figures == digest), None)
    return out


def interval_due(last: float, every: float, now: float) -> float:
    """When a ``setInterval`` timer that last fired when due at ``last`` fires next: a period
    after it, however long that firing's work took; a timer already late by more than a period
    fires once, now, not once per period missed."""
    return max(last + every, now)


def trigger_state(component_id: str, event: str, value):
    """The widget state an element's ``setTriggerValue(event, value)`` sends: the element's trigger
    (its id as the frontend makes it, ``$$STREAMLIT_INTERNAL_KEY_<id>__events``) holding the list
    of events set since the last flush."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    return WidgetState(id=f"$$STREAMLIT_INTERNAL_KEY_{component_id}__events",
                       json_trigger_value=json.dumps([{"event": event, "value": value}]))


def tick_state(component_id: str):
    """What a ticker's ``setTriggerValue("tick", now)`` sends."""
    return trigger_state(component_id, "tick", int(time.time() * 1000))


def route_lags(steps: dict[int, tuple[float, str]], seen: list[tuple[float, int]]) -> dict[int, float | None]:
    """For each instructor step ``s -> (click time, _)``: the time from the click to the first time
    at or after it the step element drew step s (``seen``: (time, 1-based step)); None when it
    never did."""
    return {s: next((t - t0 for t, k in seen if t >= t0 and k == s), None) for s, (t0, _) in steps.items()}


def first_after(history: list[Shown], t0: float, pred) -> float | None:
    """Seconds from t0 to the first run end at or after t0 whose ``Shown`` satisfies pred."""
    return next((h.t - t0 for h in history if h.t >= t0 and pred(h)), None)


def parse_tally(texts: list[str], options: list[str]) -> list[int] | None:
    """The counts the instructor's panel prints, one ``"<option>: <n>"`` line per option (a
    revealed option is marked with a trailing check); None when an option's line is missing."""
    counts = {}
    for t in texts:
        head, sep, tail = t.rpartition(": ")
        m = re.match(r"\s*(\d+)", tail)
        if sep and m and head in options:
            counts[head] = int(m.group(1))
    return [counts[o] for o in options] if all(o in counts for o in options) else None


def expected_tally(last_answers: list[int | None], n_options: int) -> list[int]:
    """What an exact tally shows: each follower's last answer counted once."""
    counts = [0] * n_options
    for a in last_answers:
        if a is not None:
            counts[a] += 1
    return counts


def summarize(n: int, lags: list[dict[int, float | None]], cpu_steps: float, n_steps: int, kbytes: list[float],
              cpu_idle: float, idle_polls: int) -> dict:
    """The stepping phase's figures: ``lags`` one dict per follower (step -> lag or None)."""
    got = [v for d in lags for v in d.values() if v is not None]
    return {
        "followers": n, "steps": n_steps,
        "missed": sum(1 for d in lags for v in d.values() if v is None),
        "lag_p50": bc.percentile(got, 50), "lag_p95": bc.percentile(got, 95),
        "lag_max": max(got, default=float("nan")),
        "cpu_per_step": cpu_steps / n_steps if n_steps else float("nan"),
        "kb_per_follower_step": sum(kbytes) / (n * n_steps) if n and n_steps else float("nan"),
        "cpu_per_idle_poll": cpu_idle / idle_polls if idle_polls else float("nan"),
        "idle_polls": idle_polls,
    }


# ----------------------------------------------------------------------------- a live session
class LiveSession(bc.Student):
    """A Student that runs the browser's timers and records what it shows at each run.

    The timers are what Streamlit 1.67's frontend does (static/js/index.*.js and
    BidiComponent.*.js):

    - **A fragment's** ``run_every``: ``handleAutoRerun`` starts a ``setInterval`` calling
      ``widgetMgr.sendUpdateWidgetsMessage(fragmentId, true)``; a full run's start
      (``handleNewSession``) drops every timer and that run's ``auto_rerun`` messages set those of
      the fragments it still draws; an ``auto_rerun`` for a timer already running at that interval
      leaves it be; ``stop_auto_rerun`` ends the timers of nested fragments a fragment run
      evicted. The server skips, silently, a timed run of a fragment id it no longer holds.
    - **The ticker element's script** (``svmviz_app.live``) runs when the element mounts — its
      effect depends on the element's data, fragment and id, all unchanged when a run draws the
      element again, so a redraw keeps the timer — and calls ``setTriggerValue("tick", ...)``
      every interval: ``WidgetStateManager.setTriggerValue`` flushes on the next macrotask with
      ``sendRerunBackMsg`` (every widget state and the trigger, for the element's fragment). The
      element leaves the page at the end of a run that did not draw it.
    - **The claim element's script** (the instructor's claim on the class): it runs when the element
      mounts or its data changes; ``keep`` writes the claim into the browser's local storage,
      ``forget`` removes it, ``ask`` sends a stored claim back as the element's trigger.
      ``storage`` is that browser's local storage (a dict; sessions of one browser share it).

    Neither waits for anything: ``sendRerunBackMsg`` only checks that the websocket is connected,
    so a tick or a timed run is sent while a run is in progress (the server queues a fragment's
    request behind the run, coalescing one fragment's repeated requests), as it is while a click
    waits. Chromium confirms it (one ``setInterval`` per mounted ticker, firing every 2.000 s
    through the ticker fragment's own redraws and the stepper's runs)."""

    def __init__(self, port: int, page: str, query: str, storage: dict | None = None):
        super().__init__(port, page, query, bc.PAGES[page])
        self.storage = {} if storage is None else storage
        self.claim_seen: dict[str, str] = {}   # claim element id -> the data its script last ran with
        self.timers: dict[str, tuple[asyncio.Task, float]] = {}   # fragment id -> (timer, interval)
        self.history: list[Shown] = []
        self.total_bytes = 0
        self.auto_runs = 0
        self.full_runs = 0     # runs of the whole page (the rest were fragment runs)
        self.tickers: dict[str, tuple[asyncio.Task, tuple]] = {}   # ticker element id -> (its timer, what started it)
        self.elements_live: dict[str, StepElement] = {}   # step element id -> its poll (one per data it ran with)
        self.element_seen: list[tuple[float, int]] = []   # (time, 1-based step) of each step its element drew
        self.element_line = ""   # the step line its element drew last
        self.ended_run = 0     # the run_id (new_session count) of the last run that ended
        self.waiters: list[tuple] = []   # (predicate, future) of wait_for calls, checked at run ends

    def handle(self, data: bytes) -> None:
        self.total_bytes += len(data)
        super().handle(data)

    def run_started(self, fragment_ids: list[str]) -> None:
        # the frontend clears, at a run's end, what that run's fragments no longer draw: the
        # fragments of a run cut short before its end (its elements stay) are not this run's
        self.run_drew = set()
        if not fragment_ids:
            self._stop_timers(list(self.timers))

    def timer_message(self, msg) -> None:
        if msg.WhichOneof("type") == "auto_rerun":
            fid, every = msg.auto_rerun.fragment_id, msg.auto_rerun.interval
            if fid in self.timers and self.timers[fid][1] == every:
                return
            self._stop_timers([fid])
            timer = self._every(every, lambda: self.rerun(self.widget_states(), fid, auto=True))
            self.timers[fid] = (asyncio.get_running_loop().create_task(timer), every)
        else:
            self._stop_timers(msg.stop_auto_rerun.fragment_ids)

    def _stop_timers(self, fids) -> None:
        for fid in fids:
            t = self.timers.pop(fid, None)
            if t is not None:
                t[0].cancel()

    async def _every(self, every: float, send) -> None:
        """A browser's ``setInterval``: ``send()`` every ``every`` seconds from now, on the timer's
        own schedule (a late firing does not shift the next ones, nor is it made up twice)."""
        loop = asyncio.get_running_loop()
        due = loop.time()
        while not self.closed:
            due = interval_due(due, every, loop.time())
            await asyncio.sleep(due - loop.time())
            if self.closed:
                return
            self.auto_runs += 1
            await send()

    def run_ended(self, status) -> None:
        self.ended_run = self.run_id
        self.errors += self.run_errors   # every run's, the timers' too
        self.run_errors = []
        if status in self.finished_ok:
            self.full_runs += status == self._fm.FINISHED_SUCCESSFULLY
            self.history.append(self.shown())
            self.check_waiters()
            on_page = {el.bidi_component.id for _, el, _ in self.elements.values()
                       if el.WhichOneof("type") == "bidi_component"}
            for cid in set(self.tickers) - on_page:
                self.tickers.pop(cid)[0].cancel()
            for cid in set(self.elements_live) - on_page:
                self.elements_live.pop(cid).stop()

    def check_waiters(self) -> None:
        """At a run's end, and when the step element drew a step: the ``wait_for`` calls now met."""
        for pred, done in self.waiters:
            if not done.done() and pred(self):
                done.set_result(True)

    def step(self) -> tuple[int, int] | None:
        """(k, n) of the step the page shows: in the text its runs drew, else in the line its step
        element drew."""
        found = super().step()
        if found is None and self.elements_live and self.element_line and self.profile is not None:
            m = re.search(self.profile.pattern, self.element_line)
            found = (int(m.group(1)), int(m.group(2))) if m else None
        return found

    def shows_step(self) -> bool:
        """The page shows a step: as text its run drew, or through the step element drawing it."""
        return super().shows_step() or bool(self.elements_live)

    def element_step(self) -> int | None:
        """The step (1-based, as ``shown().step``) the step element drew last (None before any)."""
        return self.element_seen[-1][1] if self.element_seen else None

    def _element(self, path: tuple, el, fragment_id: str) -> None:
        super()._element(path, el, fragment_id)
        if el.WhichOneof("type") == "bidi_component" and el.bidi_component.component_name.endswith("ticker"):
            self._mount_ticker(el.bidi_component, fragment_id)
        if el.WhichOneof("type") == "bidi_component" and el.bidi_component.component_name.endswith("live_claim"):
            self._run_claim(el.bidi_component, fragment_id)
        if el.WhichOneof("type") == "bidi_component" and el.bidi_component.component_name.endswith("live_step"):
            old = self.elements_live.get(el.bidi_component.id)
            if old is None or old.data != json.loads(el.bidi_component.json):   # its script runs again
                if old is not None:
                    old.stop()
                self.elements_live[el.bidi_component.id] = StepElement(self, el.bidi_component, fragment_id)

    def _run_claim(self, comp, fragment_id: str) -> None:
        """The claim element's script, as the browser runs it on a mount or a change of data."""
        if self.claim_seen.get(comp.id) == comp.json:
            return
        self.claim_seen[comp.id] = comp.json
        data, key = json.loads(comp.json), "svmviz.live.claim"
        if data.get("keep"):
            self.storage[key] = json.dumps(data["keep"])
        elif data.get("forget"):
            self.storage.pop(key, None)
        elif key in self.storage:
            held = trigger_state(comp.id, "claim", self.storage[key])
            asyncio.get_running_loop().create_task(self.rerun(self.widget_states() + [held], fragment_id))

    def _mount_ticker(self, comp, fragment_id: str) -> None:
        """The ticker element drawn: its script starts a timer when it mounts, and again only when
        what its effect depends on changed (its data, its fragment)."""
        started = (comp.json, fragment_id)
        old = self.tickers.get(comp.id)
        if old is not None and old[1] == started:
            return
        if old is not None:
            old[0].cancel()
        every = json.loads(comp.json)["every_ms"] / 1000
        timer = self._every(every, lambda: self.rerun(self.widget_states() + [tick_state(comp.id)], fragment_id))
        self.tickers[comp.id] = (asyncio.get_running_loop().create_task(timer), started)

    def shown(self) -> Shown:
        step = self.step()
        specs, qid, revealed = [], None, False
        for el in self.current():
            kind = el.WhichOneof("type")
            if kind == "plotly_chart":
                specs.append(el.plotly_chart.spec)
            elif kind == "button":
                m = ANSWER_KEY_RE.search(el.button.id)
                if m:
                    qid = int(m.group(1))
            elif kind == "alert" and el.alert.body.startswith("Answer:"):
                revealed = True
        return Shown(time.perf_counter(), None if step is None else step[0], figures_digest(specs), qid, revealed)

    def texts(self) -> list[str]:
        return [el.text.body for el in self.current() if el.WhichOneof("type") == "text"]

    def find_text(self, pattern: re.Pattern) -> str | None:
        for el in self.current():
            kind = el.WhichOneof("type")
            body = {"code": lambda e: e.code.code_text, "markdown": lambda e: e.markdown.body,
                    "text": lambda e: e.text.body}.get(kind)
            if body:
                m = pattern.search(body(el))
                if m:
                    return m.group(1)
        return None

    def answer_buttons(self) -> dict[int, tuple[str, str, str]]:
        """option index -> (widget id, label, fragment id) of the shown question's answer buttons."""
        out = {}
        for _, (_, el, frag) in sorted(self.elements.items()):
            if el.WhichOneof("type") == "button":
                m = ANSWER_KEY_RE.search(el.button.id)
                if m:
                    out[int(m.group(2))] = (el.button.id, el.button.label, frag)
        return out

    async def click(self, prefix_or_id: str, timeout: float, by_id: bool = False, until=None) -> float | None:
        """Click a button (by label prefix, or by widget id), wait for a run's end after it (and,
        with ``until``, for one after which the page satisfies it: the browser's timers send their
        own requests meanwhile, whose runs may end first); the latency."""
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        if by_id:
            found = next(((el.button.id, el.button.disabled, frag) for _, (_, el, frag) in self.elements.items()
                          if el.WhichOneof("type") == "button" and el.button.id == prefix_or_id), None)
        else:
            found = self.button(prefix_or_id)
        if found is None or found[1]:
            self.errors.append(f"no enabled button {prefix_or_id!r}")
            return None
        bid, _, frag = found
        t0, ends = time.perf_counter(), len(self.history)
        await self.rerun(self.widget_states() + [WidgetState(id=bid, trigger_value=True)], frag)
        ok = await self.wait_for(lambda x: len(x.history) > ends and (until is None or until(x)), timeout)
        return time.perf_counter() - t0 if ok else None

    async def wait_for(self, pred, timeout: float) -> bool:
        """Until what the page shows at a run's end satisfies pred: read now when no run is in
        progress, else at each run's end, never mid-run (a run's elements come one delta at a
        time, and a wait that saw them mid-run would end before the run end that ``history``, the
        lags, records). A session whose timers keep it running back to back (a loaded server)
        may never be seen between runs by a reader that polls."""
        if self.elements and self.ended_run == self.run_id and pred(self):
            return True
        waiter = (pred, asyncio.get_running_loop().create_future())
        self.waiters.append(waiter)
        try:
            return await asyncio.wait_for(asyncio.shield(waiter[1]), timeout)
        except asyncio.TimeoutError:
            return False
        finally:
            self.waiters.remove(waiter)

    async def close(self) -> None:
        self._stop_timers(list(self.timers))
        for e in self.elements_live.values():
            e.stop()
        for t, _ in self.tickers.values():
            t.cancel()
        await super().close()


# ----------------------------------------------------------------------------- the step route
def _canon(v) -> str:
    return json.dumps(v, sort_keys=True)


def judge(data: dict, p: dict) -> str:
    """The step element's verdict on a route payload ``p`` (``svmviz_app.step_element``'s
    ``judge``): "draw", "wait" (its figure is still to come) or "news" (the session takes it)."""
    q = p.get("question")
    qkey = "none" if q is None else f"{q['qid']}.{int(q['revealed'])}"
    if not data["draw"]:   # the page draws the steps: the session takes every change
        return "news" if (p["version"], qkey, p["away"]) != (data["version"], data["q"], data["away"]) else "wait"
    if p["frame"] != data["frame"] or qkey != data["q"] or p["away"] != data["away"]:
        return "news"
    step = (p.get("steps") or {}).get(data["step_key"])
    scope = {data["step_key"], *(step["scope"] if step else data["scope"])}
    if any(k not in p["state"] for k in data["state"]):
        return "news"
    if any(k not in scope and _canon(v) != _canon(data["state"].get(k)) for k, v in p["state"].items()):
        return "news"
    return "draw" if step and step.get("figure") is not None and step["k"] == p["state"].get(data["step_key"]) else "wait"


class StepElement:
    """A following student's step element as the browser runs it: a long poll of the class's step
    route on one kept-alive connection, again at once after each answer; a step it may draw is
    recorded as (time, 1-based step), anything else sets its trigger (a rerun of its fragment)."""

    def __init__(self, session: "LiveSession", comp, fragment_id: str):
        self.session, self.id, self.fragment_id = session, comp.id, fragment_id
        self.data = json.loads(comp.json)
        self.bytes = 0
        self.task = asyncio.get_running_loop().create_task(self.run())

    async def _get(self, reader, writer, path: str) -> tuple[int, bytes]:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.session.port}\r\n\r\n".encode())
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:"))
        body = await reader.readexactly(length)
        self.bytes += len(head) + length
        return status, body

    async def run(self) -> None:
        d, since, figures = self.data, None, None
        reader, writer = await asyncio.open_connection("127.0.0.1", self.session.port)
        try:
            while not self.session.closed:
                query = f"?sid={d['sid']}" + ("" if since is None else f"&since={since}&q={d['q']}&f={figures}")
                status, body = await self._get(reader, writer, d["route"] + query)
                t = time.perf_counter()
                if status != 200:
                    if status in (404, 409):
                        await self._news(int(time.time() * 1000))
                        return
                    self.session.errors.append(f"the step route answered {status}")
                    await asyncio.sleep(2.0)
                    continue
                p = json.loads(body)
                verdict = judge(d, p)
                since, figures = p["version"], p["figures"]
                if verdict == "draw":
                    self.session.element_seen.append((t, int(p["state"][d["step_key"]]) + 1))
                    self.session.element_line = p["steps"][d["step_key"]]["line"]
                    self.session.check_waiters()
                elif verdict == "news":
                    await self._news(p["version"])
                    await asyncio.sleep(2.0)
        finally:
            writer.close()

    async def _news(self, value) -> None:
        await self.session.rerun(self.session.widget_states() + [trigger_state(self.id, "news", value)],
                                 self.fragment_id)

    def stop(self) -> None:
        self.task.cancel()


# ----------------------------------------------------------------------------- the class
async def run_class(args, pids: list[int]) -> dict:
    """The class on the servers of ``args.ports`` (processes ``pids``): the instructor on the first,
    the followers spread over all of them in turn; server CPU is the processes' sum (and each's
    per step)."""
    r: dict = {"load_start": bc.loadavg(), "errors": []}

    def cpu() -> float:
        return sum(bc.proc_cpu(p) for p in pids)

    # a fresh server serves its very first run the pages-folder way (without app.py's sidebar):
    # one Home visit first, as bench_classroom's warm-up
    for port in args.ports:
        await bc.purge_visit(port, args.open_timeout)
    teacher = LiveSession(args.ports[0], args.page, args.query)
    if not await teacher.open(args.open_timeout):
        raise SystemExit(f"the instructor's page did not open: {teacher.errors}")
    # the panel is drawn only while open
    if not (await teacher.expand("Live class", args.click_timeout)
            and await teacher.wait_for(lambda x: x.button("Start a class") is not None, args.click_timeout)):
        raise SystemExit(f"the instructor's 'Live class' panel did not open: {teacher.errors}")
    await teacher.click("Start a class", args.click_timeout)
    code = teacher.find_text(CODE_RE)
    if code is None:
        raise SystemExit(f"no join code on the instructor's page: {teacher.errors}")
    base = teacher.shown()
    followers = [LiveSession(args.ports[i % len(args.ports)], args.page, f"room={code}") for i in range(args.followers)]
    # a fresh server warms itself after its first run: the room's figures start once that is done
    # (in a thread: the instructor's session keeps its timers meanwhile, its polls are the idle level)
    quiet = await asyncio.to_thread(wait_quiet, cpu, limit_s=args.quiet_timeout)
    print(quiet.line(), file=sys.stderr, flush=True)
    r.update(quiet_wait_s=quiet.waited_s, quiet_cpu_s=quiet.cpu_s, quiet=quiet.quiet)

    async def join(s):
        await asyncio.sleep(random.uniform(0, args.stagger))
        return await s.open(args.open_timeout)

    t0, cpu0 = time.time(), cpu()
    opened = await asyncio.gather(*(join(s) for s in followers))
    # a follower shows the instructor's view as its page drew it, or as its step element drew it
    synced = await asyncio.gather(*(s.wait_for(lambda x: (x.shown().step, x.shown().figures) == (base.step, base.figures)
                                               or x.element_step() == base.step, args.open_timeout)
                                    for s in followers))
    print(f"joined: {sum(opened)} of {len(followers)}; load {bc.loadavg()[0]:.2f}", file=sys.stderr, flush=True)
    r.update(opened=sum(opened), synced=sum(synced), cpu_join=cpu() - cpu0, wall_join=time.time() - t0)
    if not all(synced):
        r["errors"].append(f"{len(synced) - sum(synced)} followers never showed the instructor's view")

    seen0 = [len(s.element_seen) for s in followers]

    # idle: nobody acts
    polls0 = sum(s.auto_runs for s in followers)
    cpu0, load_idle = cpu(), bc.loadavg()
    await asyncio.sleep(args.idle)
    cpu_idle = cpu() - cpu0
    idle_polls = sum(s.auto_runs for s in followers) - polls0

    # stepping
    steps: dict[int, tuple[float, str]] = {}
    bytes0 = [s.total_bytes for s in followers]
    full0 = sum(s.full_runs for s in followers)
    health = bc.HealthProbe(args.ports[0])
    health.start()
    heavy = [bc.Student(args.ports[0], args.heavy_page, args.heavy_query.format(i=i), None) for i in range(args.heavy)]

    async def open_heavy(s):
        await asyncio.sleep(random.uniform(0, 1.0))
        return await s.open(args.open_timeout)

    heavy_t0 = time.perf_counter()
    heavy_tasks = [asyncio.create_task(open_heavy(s)) for s in heavy]
    clicks_s = []
    cpu0, t_start, load_step = cpu(), time.perf_counter(), bc.loadavg()
    t_step0 = time.time()
    each0 = [bc.proc_cpu(p) for p in pids]
    for i in range(args.steps):
        await asyncio.sleep(max(0.0, t_start + i * args.every - time.perf_counter()))
        before = teacher.step()
        if before is None or before[0] >= before[1]:
            r["errors"].append(f"the instructor cannot step on from {before}")
            break
        t_click = time.perf_counter()
        if await teacher.click(bc.PAGES[args.page].button, args.click_timeout,
                               until=lambda x, k=before[0]: (x.step() or (0,))[0] == k + 1) is None:
            r["errors"].append(f"the instructor's step {i + 1} did not end (shows {teacher.step()}, last run "
                               f"{teacher.status}, {teacher.closed or 'connected'})")
            break
        clicks_s.append(time.perf_counter() - t_click)
        now = teacher.shown()
        steps[now.step] = (t_click, now.figures)
    await asyncio.sleep(max(0.0, t_start + len(steps) * args.every - time.perf_counter()))
    await asyncio.sleep(args.every)    # the last step's followers
    cpu_steps = cpu() - cpu0
    load_step_end = bc.loadavg()
    r.update(health.summary(t_step0, time.time()), click_p50=bc.percentile(clicks_s, 50),
             click_max=max(clicks_s, default=float("nan")))
    await health.stop()
    r["cpu_per_step_each"] = [(bc.proc_cpu(p) - c0) / max(len(steps), 1) for p, c0 in zip(pids, each0)]
    if heavy:
        r["heavy_done_in_steps"] = sum(t.done() and t.result() for t in heavy_tasks)
        done = await asyncio.gather(*heavy_tasks)
        r.update(heavy_opened=sum(done), heavy_open_s=sorted(s.open_s for s in heavy if s.open_s is not None),
                 heavy_wall_s=time.perf_counter() - heavy_t0)
        r["errors"] += sorted({e for s in heavy for e in s.errors})
        await asyncio.gather(*(s.close() for s in heavy))
    # a step's lag: to the first run that showed it or the first time the step element drew it
    lags = [{k: min((v for v in (a[k], b[k]) if v is not None), default=None)
             for k in steps} for a, b in ((step_lags(steps, s.history), route_lags(steps, s.element_seen[n0:]))
                                          for s, n0 in zip(followers, seen0))]
    r.update(summarize(args.followers, lags, cpu_steps, len(steps),
                       [(s.total_bytes - b) / 1e3 for s, b in zip(followers, bytes0)], cpu_idle, idle_polls))
    r["full_runs_per_follower_step"] = (sum(s.full_runs for s in followers) - full0) / max(
        len(steps) * len(followers), 1)
    r.update(load_idle=load_idle, load_step=load_step, load_step_end=load_step_end)
    r["lags"] = [{str(k): v for k, v in d.items()} for d in lags]
    r["element_draws_per_follower_step"] = sum(len(s.element_seen) - n0 for s, n0 in zip(followers, seen0)) / max(
        len(steps) * len(followers), 1)

    # the question
    if args.question:
        r.update(await question_round(args, cpu, teacher, followers))
    r["errors"] += sorted({e for s in [teacher, *followers] for e in s.errors})
    r["load_end"] = bc.loadavg()
    await asyncio.gather(*(s.close() for s in [teacher, *followers]))
    return r


async def question_round(args, cpu, teacher: LiveSession, followers: list[LiveSession]) -> dict:
    out: dict = {}
    step = teacher.step()
    if step is None or step[0] >= step[1]:
        return {"question_error": f"no next step to ask about at {step}"}
    cpu0, t_pose = cpu(), time.perf_counter()
    await teacher.click("Ask the class", args.click_timeout)
    seen = await asyncio.gather(*(s.wait_for(lambda x: x.answer_buttons(), args.answer_window) for s in followers))
    out["question_seen"] = sum(seen)
    out["question_seen_s"] = bc.percentile([first_after(s.history, t_pose, lambda h: h.question is not None)
                                            for s in followers], 95)
    window_end = t_pose + args.answer_window
    last: list[int | None] = [None] * len(followers)
    latencies: list[float | None] = []
    labels: set[tuple[str, ...]] = set()

    async def answer(i: int, s: LiveSession):
        buttons = s.answer_buttons()
        if not buttons:
            return
        labels.add(tuple(label for _, (_, label, _) in sorted(buttons.items())))
        changes = 2 if i % 3 == 0 else 1
        for c in range(changes):
            remaining = window_end - time.perf_counter() - 1.0
            await asyncio.sleep(random.uniform(0, max(remaining, 0) / (changes - c)))
            buttons = s.answer_buttons()
            if not buttons:
                s.errors.append("the answer buttons went away before the reveal")
                return
            opt = random.randrange(len(buttons))
            mine = re.compile("(Your answer: " + re.escape(buttons[opt][1]) + r" \()")
            last[i] = opt       # sent: the server must count it (a lost answer shows in the tally)
            lat = await s.click(buttons[opt][0], args.click_timeout, by_id=True,
                                until=lambda x: x.find_text(mine) is not None)
            latencies.append(lat)

    await asyncio.gather(*(answer(i, s) for i, s in enumerate(followers)))
    out["answered_within_s"] = time.perf_counter() - t_pose
    out["answers"] = sum(a is not None for a in last)
    out["answer_p95"] = bc.percentile(latencies, 95)
    out["answers_unconfirmed"] = sum(v is None for v in latencies)
    if len(labels) != 1:
        return {**out, "question_error": f"the followers saw different options: {sorted(labels)}"}
    options = list(labels.pop())
    want = expected_tally(last, len(options))
    shown = None
    deadline = time.perf_counter() + args.tally_timeout
    while time.perf_counter() < deadline:     # the instructor's tally refreshes every second
        shown = parse_tally(teacher.texts(), options)
        if shown == want:
            break
        await asyncio.sleep(0.2)
    out.update(tally_expected=want, tally_shown=shown, tally_exact=shown == want)
    t_reveal = time.perf_counter()
    await teacher.click("Reveal and go on", args.click_timeout)
    await asyncio.gather(*(s.wait_for(lambda x: x.shown().revealed, args.reveal_wait) for s in followers))
    reveals = [first_after(s.history, t_reveal, lambda h: h.revealed) for s in followers]
    out.update(reveal_reached=sum(v is not None for v in reveals),
               reveal_p50=bc.percentile(reveals, 50), reveal_max=max((v for v in reveals if v is not None),
                                                                     default=float("nan")),
               reveal_within_target=sum(v is not None and v <= 1.5 for v in reveals),
               cpu_question=cpu() - cpu0)
    return out


def report(r: dict, args) -> str:
    lines = [
        f"{args.followers} followers + 1 instructor on /{args.page} ({args.query or 'default data'}); "
        f"{r['opened']}/{args.followers} joined, {r['synced']} showed the instructor's view; join CPU "
        f"{r['cpu_join']:.2f} s in {r['wall_join']:.1f} s",
        f"before joining: {Quiet(r['quiet_wait_s'], r['quiet_cpu_s'], r['quiet']).line()}",
        f"idle {args.idle:g} s: {r['idle_polls']} follower polls, server CPU per poll "
        f"{1000 * r['cpu_per_idle_poll']:.1f} ms (load {r['load_idle'][0]:.2f})",
        f"{'steps':>5} {'missed':>6} {'lag p50':>7} {'p95':>5} {'max':>5} {'CPU/step':>8} {'kB/follower/step':>16} "
        f"{'load start':>10} {'end':>5}",
        f"{r['steps']:>5} {r['missed']:>6} {r['lag_p50']:>7.2f} {r['lag_p95']:>5.2f} {r['lag_max']:>5.2f} "
        f"{r['cpu_per_step']:>8.3f} {r['kb_per_follower_step']:>16.1f} {r['load_step'][0]:>10.2f} "
        f"{r['load_step_end'][0]:>5.2f}",
        f"      page runs per follower per step {r['full_runs_per_follower_step']:.2f} (the rest: fragment runs)",
        f"      CPU per step per process {' '.join(f'{c:.3f}' for c in r['cpu_per_step_each'])} s "
        f"({len(r['cpu_per_step_each'])} process(es), rooms {args.rooms or 'in memory'})",
    ]
    lines.append(f"      steps drawn by the followers' step elements, per follower per step "
                 f"{r['element_draws_per_follower_step']:.2f}")
    lines.append(f"      instructor's click p50 {r['click_p50']:.2f} s, max {r['click_max']:.2f} s; health check while "
                 f"stepping p50 {r['health_p50']:.3f} s, max {r['health_max']:.3f} s, "
                 f"{r['health_failed']} of {r['health_probes']} failed")
    if "heavy_opened" in r:
        opens = r["heavy_open_s"]
        lines.append(f"      heavy links ({args.heavy_page}?{args.heavy_query}): {r['heavy_opened']} of {args.heavy} "
                     f"opened, {r['heavy_done_in_steps']} while the class stepped; open p50 "
                     f"{bc.percentile(opens, 50):.1f} s, max {max(opens, default=float('nan')):.1f} s; all within "
                     f"{r['heavy_wall_s']:.1f} s")
    if "tally_exact" in r:
        lines.append(
            f"question: seen by {r['question_seen']}/{args.followers} (p95 {r['question_seen_s']:.2f} s), "
            f"{r['answers']} answers in {r['answered_within_s']:.1f} s (click p95 {r['answer_p95']:.2f} s, "
            f"{r['answers_unconfirmed']} not confirmed on screen within the click timeout); tally "
            f"{'exact' if r['tally_exact'] else 'WRONG'} {r['tally_shown']} (expected {r['tally_expected']}); "
            f"reveal reached {r['reveal_reached']}/{args.followers}, {r['reveal_within_target']} within 1.5 s, "
            f"p50 {r['reveal_p50']:.2f} s, max {r['reveal_max']:.2f} s")
    elif "question_error" in r:
        lines.append(f"question: {r['question_error']}")
    lines += [f"error: {e}" for e in r["errors"]]
    lines.append(f"load average at the end {' '.join(f'{x:.2f}' for x in r['load_end'])}")
    return "\n".join(lines)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--followers", type=int, default=30)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--every", type=float, default=2.0, help="s between the instructor's steps")
    ap.add_argument("--idle", type=float, default=10.0, help="s of an idle room before stepping")
    ap.add_argument("--no-question", dest="question", action="store_false")
    ap.add_argument("--answer-window", type=float, default=10.0)
    ap.add_argument("--tally-timeout", type=float, default=5.0)
    ap.add_argument("--reveal-wait", type=float, default=60.0, help="at most this many s for the reveal to reach them")
    ap.add_argument("--page", default="SVM_Tree", choices=sorted(bc.PAGES))
    ap.add_argument("--query", default=None)
    ap.add_argument("--stagger", type=float, default=3.0, help="followers join within this many s")
    ap.add_argument("--heavy", type=int, default=0, help="sessions opening different heavy links as the stepping starts")
    ap.add_argument("--heavy-page", default="DAG_SVM")
    ap.add_argument("--heavy-query", default="data=gen:gaussians_on_circle;n_classes=20;n_per_class=20;seed={i}"
                                             "&dag.tab=1", help="a heavy session's link; {i}: its number")
    ap.add_argument("--port", type=int, default=0, help="attach to the server on this port (default: start one)")
    ap.add_argument("--processes", type=int, default=1,
                    help="start this many servers sharing the room through Redis, followers spread over them")
    ap.add_argument("--rooms", default="", help="the servers' SVMVIZ_ROOMS (a Redis URL); with --processes > 1 "
                    "and none given, a redis-server of the benchmark's own is started")
    ap.add_argument("--serve-ports", default="", help="lo-hi: start the server on a free port in this range")
    ap.add_argument("--config", action="append", default=[],
                    help="a Streamlit option for the started server, e.g. runner.postScriptGC=false (repeatable)")
    ap.add_argument("--open-timeout", type=float, default=300.0)
    ap.add_argument("--click-timeout", type=float, default=120.0)
    ap.add_argument("--quiet-timeout", type=float, default=180.0,
                    help="at most this many s waiting for the server to end its warming before the followers join")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default="", help="the run's JSON record goes to this file (default: test-artifacts/benchmarks/)")
    args = ap.parse_args(argv)
    if args.query is None:
        args.query = bc.default_query()
    return args


def start_redis(port: int, folder: str) -> tuple[subprocess.Popen, str]:
    """Debian's ``redis-server`` on 127.0.0.1:``port``, its files in ``folder``, nothing saved to
    disk: (process, URL) once it answers."""
    import redis

    exe = shutil.which("redis-server") or "/usr/bin/redis-server"
    proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--dir", folder, "--save", "",
                             "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    for _ in range(100):
        try:
            redis.Redis.from_url(url).ping()
            return proc, url
        except redis.ConnectionError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"redis-server did not start on port {port}")


def main(argv=None) -> int:
    args = parse_args(argv)
    random.seed(args.seed)
    procs: list = []
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with tempfile.TemporaryDirectory(prefix="bench-live-redis-") as folder:
        try:
            return _serve_and_run(args, procs, folder)
        finally:
            for p in procs[::-1]:
                stop_app_server(p)


def _serve_and_run(args, procs: list, folder: str) -> int:
    lo, hi = (int(x) for x in args.serve_ports.split("-")) if args.serve_ports else (0, 0)
    if args.processes > 1 and not args.rooms:
        redis_proc, args.rooms = start_redis(bc.free_port(lo, hi), folder)
        procs.append(redis_proc)
    if args.port:
        args.ports, pids = [args.port], [listening_pid(args.port)]
    else:
        # a class admits as many students as the benchmark brings (the default cap is one process's hall)
        env = {"SVMVIZ_ROOM_SEATS": str(max(args.followers, 100)), **({"SVMVIZ_ROOMS": args.rooms} if args.rooms else {})}
        args.ports = []
        for _ in range(args.processes):
            args.ports.append(bc.free_port(lo, hi))
            procs.append(start_app_server(args.ports[-1], 180.0, args.config, env=env))
        pids = [p.pid for p in procs[-args.processes:]]
    r = asyncio.run(run_class(args, pids))
    print(report(r, args), flush=True)
    meta = {"args": {k: v for k, v in vars(args).items() if k != "json"}}
    with Run("bench_live", (), None, args.json or None, meta) as run:
        run.row(**r)
    bad = r["errors"] or r["missed"] or not r.get("tally_exact", True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
