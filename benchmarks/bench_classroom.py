"""A classroom on one server, at the protocol level: N students open a stepping page of one
``streamlit run serve.py`` by its link and click its "Next" button K times, with a think time.

Each student is one websocket session on ``/_stcore/stream`` speaking Streamlit's own protocol
(``BackMsg`` / ``ForwardMsg`` protobufs from ``streamlit.proto``), as the browser frontend does,
with no browser: on a small machine the cores go to the server, so thirty students cost what
thirty laptops would cost the server. What a browser alone shows (rendering) is measured by
``bench_classroom_browser.py``.

A student
  1. connects and asks for a run of the page as the frontend does for a link: ``page_name`` from the
     path (``SVM_Tree``), the query string (``data=fourclass``) and the browser's context;
  2. reads ForwardMsgs until the run ends (``script_finished``; a run ended early for a rerun is
     not the end), keeping what the frontend keeps: the elements by delta path (the ones a run did
     not send are dropped when it ends; a fragment run replaces only its fragment's elements), the
     widget states, the page's script hash, the query string and the message cache (cacheable
     messages by hash; their hashes go back with every rerun so the server sends references);
  3. once every student has the page (the open and click phases are measured apart), clicks the
     button whose label starts with "Next" K times: a rerun with the button's trigger and every
     other widget's state, naming the button's fragment when the button lives in an
     ``st.fragment``; it waits for the run's end, then a think time, then clicks again.

A click is LOST when its run ends without the page's step moving by exactly one. Errors are
exception elements, ``st.error`` alerts, compile errors, an unknown page or a run that does not
end within the timeout. A run that shows fit progress on a page opened with a cached fit is a
refit.

Per round (one row as soon as it ends) it reports open and click latency p50/p95/max (send -> the
run's end), lost clicks, errors, server CPU (user + system of the server process and its children,
from /proc) per open and per click, kB received per click, the server's RSS before the round, with
the sessions open and after they closed, the latency of ``/_stcore/health`` (polled every second:
the server's event loop answers it, the loop that writes every student's messages) and the load
average at the start and end (other work on the machine shares its cores). Every round with its raw
clicks goes to a JSON record beside the table (``harness.Run``: ``test-artifacts/benchmarks/`` or
``--json FILE``).

By default it starts its own server (``harness.start_app_server``: ``streamlit run serve.py`` from the
project folder, so with the project's ``.streamlit/config.toml``, on a free loopback port) and stops it at the end; ``--port``
attaches to a running one instead. One warm-up session opens the page first, alone: the first
open on a fresh server pays imports and the fit, which the app shares between sessions. Every
round starts once the server's CPU time nearly stops growing (``harness.wait_quiet``: a fresh
server warms itself as it starts, work that would otherwise be counted as the round's); the
wait and its CPU are printed under the round.

Usage: python benchmarks/bench_classroom.py [--sessions 1,10,30] [--clicks 10] [--page SVM_Tree]
       [--think 1,3] [--port PORT] [--json FILE] [--config runner.postScriptGC=false] [--env K=V]
Quick check: python benchmarks/bench_classroom.py --sessions 1,3 --clicks 3
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import signal
import socket
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import Quiet, Run, listening_pid, start_app_server, stop_app_server, wait_quiet  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CLK_TCK = os.sysconf("SC_CLK_TCK")
# a fit in progress: the app's progress bar counts "(done/total)" or waits for another session
FIT_PROGRESS_RE = re.compile(r"\(\d+/\d+\)|waiting for another session")


# ----------------------------------------------------------------------------- the pages
@dataclass(frozen=True)
class PageProfile:
    """How a stepping page shows its step: the element kind holding it (``markdown`` or ``metric``),
    for a metric its label, and a pattern whose two groups are the step and the last step."""

    button: str
    kind: str
    pattern: str
    label: str = ""
    opens: str = ""   # what the link adds to open the stepper (its tab), e.g. "td.tab=4"

    def step_of(self, kind: str, label: str, text: str) -> tuple[int, int] | None:
        if kind != self.kind or (self.label and label != self.label):
            return None
        m = re.search(self.pattern, text)
        return (int(m.group(1)), int(m.group(2))) if m else None


PAGES = {
    # "**Step k of n** — ..." above the tree (k from 1 to n)
    "SVM_Tree": PageProfile(button="Next", kind="markdown", pattern=r"Step\s+(\d+)\s+of\s+(\d+)"),
    # the metric "iteration t" shows "t / T" (t from 0 to T)
    "Solvers": PageProfile(button="Next", kind="metric", label="iteration t", pattern=r"(\d+)\s*/\s*(\d+)"),
    # "**Step k of n** — μ = ...": μ walked down from 1 (k from 1 to n)
    "Convex_Hulls": PageProfile(button="Next", kind="markdown", pattern=r"Step\s+(\d+)\s+of\s+(\d+)"),
    # "**Step k of n** — Test ...": the points tested one at a time (k from 1 to n)
    "Guard_Vectors": PageProfile(button="Next", kind="markdown", pattern=r"Step\s+(\d+)\s+of\s+(\d+)"),
    # the lessons of the other methods show "**Step k of n** — ..." as the SVM tree does, in a tab of their own
    "Tree_Decomposition": PageProfile(button="Next", kind="markdown", pattern=r"Step\s+(\d+)\s+of\s+(\d+)",
                                      opens="td.tab=4"),
    "DAG_SVM": PageProfile(button="Next", kind="markdown", pattern=r"Step\s+(\d+)\s+of\s+(\d+)", opens="dag.tab=4"),
    "Scatter_SVM": PageProfile(button="Next", kind="markdown", pattern=r"Step\s+(\d+)\s+of\s+(\d+)",
                               opens="scatter.tab=3"),
}


def default_query(page: str = "SVM_Tree") -> str:
    """``data=fourclass`` when LIBSVM's fourclass is available without downloading
    (``SVMVIZ_DATA_DIR`` or the library's cache), else no query: the page's default data; with
    what opens the page's stepper."""
    sys.path.insert(0, str(ROOT))
    from svmviz.data import fourclass_path

    parts = (["data=fourclass"] if fourclass_path() is not None else []) + ([PAGES[page].opens]
                                                                             if PAGES[page].opens else [])
    return "&".join(parts)


# ----------------------------------------------------------------------------- statistics
def percentile(xs, q: float) -> float:
    """The q-th percentile with linear interpolation (NumPy's default); NaN for no values."""
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * q / 100
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


@dataclass
class Click:
    before: tuple[int, int] | None
    after: tuple[int, int] | None = None
    latency: float | None = None        # send -> the run's end; None: no end within the timeout
    kbytes: float = 0.0                 # received during the run
    fragment: bool = False              # the button lived in an st.fragment (a fragment rerun)
    fit_progress: bool = False
    errors: list = field(default_factory=list)

    @property
    def advanced(self) -> bool:
        return self.before is not None and self.after is not None and self.after[0] == self.before[0] + 1


def summarize(n: int, opens: list, clicks: list, cpu_open: float, cpu_clicks: float) -> dict:
    """The round's figures from its raw records: ``opens`` are open latencies (None: the page
    did not open), ``clicks`` the Click records of every student."""
    opened = [t for t in opens if t is not None]
    lat = [c.latency for c in clicks if c.latency is not None]
    return {
        "n": n, "opened": len(opened), "clicks": len(clicks),
        "lost": sum(1 for c in clicks if not c.advanced),
        "timeouts": sum(1 for c in clicks if c.latency is None),
        "fragment_clicks": sum(1 for c in clicks if c.fragment),
        "refits": sum(1 for c in clicks if c.fit_progress),
        "open_p50": percentile(opened, 50), "open_p95": percentile(opened, 95),
        "open_max": max(opened, default=float("nan")),
        "click_p50": percentile(lat, 50), "click_p95": percentile(lat, 95),
        "click_max": max(lat, default=float("nan")),
        "cpu_open": cpu_open, "cpu_clicks": cpu_clicks,
        "cpu_per_open": cpu_open / len(opened) if opened else float("nan"),
        "cpu_per_click": cpu_clicks / len(clicks) if clicks else float("nan"),
        "kb_per_click": sum(c.kbytes for c in clicks) / len(clicks) if clicks else float("nan"),
    }


# ----------------------------------------------------------------------------- the server
def proc_cpu(pid: int) -> float:
    """User + system CPU seconds of a process and its descendants (all threads), from /proc."""
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / CLK_TCK
            for tid in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{tid}/children") as f:
                    todo += [int(c) for c in f.read().split()]
        except OSError:     # ended meanwhile
            continue
    return total


def proc_rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def proc_threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def loadavg() -> tuple[float, float, float]:
    return os.getloadavg()


def free_port(lo: int = 0, hi: int = 0) -> int:
    """A free loopback port in [lo, hi], or any free one when no range is given."""
    for port in (range(lo, hi + 1) if lo else [0]):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return s.getsockname()[1]
    raise SystemExit(f"no free port in {lo}-{hi}")


class HealthProbe:
    """Every second, GET /_stcore/health on a new connection, timed."""

    def __init__(self, port: int):
        self.port, self.rows, self._task = port, [], None

    async def once(self, timeout: float = 30.0) -> float | None:
        t0 = time.perf_counter()
        try:
            r, w = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", self.port), timeout)
            w.write(f"GET /_stcore/health HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
                    "Connection: close\r\n\r\n".encode())
            await w.drain()
            await asyncio.wait_for(r.read(), timeout)
            w.close()
            return time.perf_counter() - t0
        except (OSError, asyncio.TimeoutError):
            return None

    async def _loop(self):
        while True:
            t = time.time()
            self.rows.append((t, await self.once()))
            await asyncio.sleep(max(0.0, 1.0 - (time.time() - t)))

    def start(self):
        self._task = asyncio.create_task(self._loop())

    async def stop(self):
        self._task.cancel()
        try:
            await self._task
        except asyncio.CancelledError:
            pass

    def summary(self, t0: float, t1: float) -> dict:
        got = [v for t, v in self.rows if t0 <= t <= t1]
        ok = [v for v in got if v is not None]
        return {"health_p50": percentile(ok, 50), "health_max": max(ok, default=float("nan")),
                "health_failed": len(got) - len(ok), "health_probes": len(got)}


# ----------------------------------------------------------------------------- one student
class Student:
    """One browser-like Streamlit session over the websocket protocol."""

    def __init__(self, port: int, page: str, query: str, profile: PageProfile | None):
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        self._fm = ForwardMsg
        self.finished_ok = (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)
        self.port, self.page, self.query, self.profile = port, page, query, profile
        self.origin = f"http://127.0.0.1:{port}"
        self.page_hash = ""                                      # from the navigation message
        self.session_id = ""                                     # from the new_session message
        self.ws = self.reader = None
        self.elements: dict[tuple, tuple[int, object, str]] = {}  # delta path -> (run, Element, fragment id)
        self.widgets: dict[str, object] = {}                      # widget id -> last WidgetState
        self.cache: dict[str, list] = {}                          # hash -> [encoded msg, last run used, fragment id]
        self.runs = 0                                             # runs ended (ages the cache)
        self.run_fragments: list[str] = []                        # the fragments of the run in progress
        self.told_run = False                                     # a run started since the last request
        self.run_id = 0                                           # new_session messages seen
        self.max_age = 2
        self.run_fragment = ""
        self.run_drew: set[str] = set()                           # fragment ids of the run's elements
        self.finished = asyncio.Event()
        self.status = None
        self.run_bytes = 0
        self.run_errors: list[str] = []
        self.run_fit = False
        self.closed: str | None = None
        self.open_s: float | None = None
        self.errors: list[str] = []
        self.clicks: list[Click] = []

    # ---- protocol
    async def connect(self, timeout: float) -> None:
        from websockets.asyncio.client import connect

        # no client pings: a browser sends none, and an unanswered ping while the server's loop is
        # busy would close a session no browser would lose
        self.ws = await connect(f"ws://127.0.0.1:{self.port}/_stcore/stream", origin=self.origin,
                                subprotocols=["streamlit"], max_size=None, max_queue=None, proxy=None,
                                open_timeout=timeout, close_timeout=5, ping_interval=None)
        self.reader = asyncio.create_task(self._read())

    async def rerun(self, widget_states=(), fragment_id: str = "", auto: bool = False) -> None:
        """Ask for a run; ``auto``: a fragment's timed run (``run_every``), as the frontend marks it."""
        from streamlit.proto.BackMsg_pb2 import BackMsg

        bm = BackMsg()
        cs = bm.rerun_script
        cs.query_string = self.query
        cs.page_script_hash = self.page_hash
        if not self.page_hash:
            cs.page_name = self.page
        cs.widget_states.widgets.extend(widget_states)
        cs.cached_message_hashes.extend(self.cache)
        if fragment_id:
            cs.fragment_id = fragment_id
        cs.is_auto_rerun = auto
        ci = cs.context_info
        ci.timezone, ci.timezone_offset, ci.locale = "UTC", 0, "en-US"
        ci.url = f"{self.origin}/{self.page}"
        ci.is_embedded, ci.color_scheme = False, "light"
        self.run_fragment = fragment_id
        self.told_run = False
        self.finished.clear()
        self.status = None
        self.run_bytes, self.run_errors, self.run_fit = 0, [], False
        await self.ws.send(bm.SerializeToString())

    async def _read(self):
        try:
            async for data in self.ws:
                self.handle(data)
        except Exception as exc:   # the connection ended: whoever waits is told
            self.closed = f"{type(exc).__name__}: {exc}"
        else:
            self.closed = "connection closed"
        self.finished.set()

    def handle(self, data: bytes) -> None:
        FM = self._fm
        self.run_bytes += len(data)
        msg = FM()
        msg.ParseFromString(data)
        kind = msg.WhichOneof("type")
        if kind == "ref_hash":       # a message this client has: the server sent only its hash
            entry = self.cache.get(msg.ref_hash)
            if entry is None:
                self.run_errors.append(f"cache miss for ref_hash {msg.ref_hash}")
                return
            entry[1] = self.runs
            meta = msg.metadata
            msg = FM()
            msg.ParseFromString(entry[0])
            msg.metadata.CopyFrom(meta)
            kind = msg.WhichOneof("type")
        elif msg.metadata.cacheable and msg.hash:
            if msg.hash in self.cache:
                self.cache[msg.hash][1] = self.runs
            else:
                self.cache[msg.hash] = [data, self.runs, msg.delta.fragment_id]
        if kind == "new_session":
            self.session_id = msg.new_session.initialize.session_id
            self.run_id += 1
            self.told_run = True
            self.run_fragments = list(msg.metadata.run.fragment_ids)
            self.max_age = msg.new_session.config.max_cached_message_age or self.max_age
            self.run_started(list(msg.metadata.run.fragment_ids))
        elif kind == "navigation" and msg.navigation.page_script_hash:
            self.page_hash = msg.navigation.page_script_hash
        elif kind == "page_info_changed":
            self.query = msg.page_info_changed.query_string
        elif kind == "page_not_found":
            self.run_errors.append(f"page not found: {msg.page_not_found.page_name}")
        elif kind == "session_event" and msg.session_event.WhichOneof("type") == "script_compilation_exception":
            self.run_errors.append(f"compile error: {msg.session_event.script_compilation_exception.message}")
        elif kind == "delta" and msg.delta.WhichOneof("type") in ("new_element", "add_block"):
            # a block is kept as an element: an expander that reruns when opened is a widget
            self._element(tuple(msg.metadata.delta_path), getattr(msg.delta, msg.delta.WhichOneof("type")),
                          msg.delta.fragment_id)
        elif kind == "script_finished":
            self._finished(msg.script_finished)
        elif kind in ("auto_rerun", "stop_auto_rerun"):
            self.timer_message(msg)

    def timer_message(self, msg) -> None:
        """A fragment's ``run_every`` timer set or stopped: this client does not run timers (a
        subclass that follows a room does)."""

    def run_started(self, fragment_ids: list[str]) -> None:
        """A run starts: of these fragments, or of the whole page when none (for subclasses)."""

    def _finished(self, status) -> None:
        FM = self._fm
        if status == FM.FINISHED_EARLY_FOR_RERUN:
            return                   # another run follows (st.rerun, a newer request)
        if self.told_run:
            self._age_cache()
        if status in self.finished_ok:
            fragment_run = status == FM.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
            # what the frontend does: drop what this run did not send (a fragment run: only in
            # the fragments it drew; a timed run of another fragment may end before the one
            # asked for)
            self.elements = {p: v for p, v in self.elements.items()
                             if v[0] == self.run_id or (fragment_run and v[2] not in self.run_drew)}
            self.run_drew = set()
        else:
            self.run_errors.append("the script has a compile error")
        self.status = status
        self.finished.set()
        self.run_ended(status)

    def _age_cache(self) -> None:
        """The frontend's message cache at a run's end (ForwardMsgCache.incrementRunCount in
        Streamlit 1.67's static/js/index.*.js, called when a run ends other than early for a rerun
        and a run has started since the last request was sent): a message not used for more than
        ``max_age`` runs is dropped — in a fragment run, only the messages of that run's
        fragments, so a poll's runs do not drop a stepper's figures. The server sends a hash for
        every message the last request said the client holds."""
        self.runs += 1
        self.cache = {h: e for h, e in self.cache.items()
                      if (self.run_fragments and e[2] not in self.run_fragments) or self.runs - e[1] <= self.max_age}

    def run_ended(self, status) -> None:
        """Called at the end of every run with what the page shows then (for subclasses)."""

    def _element(self, path: tuple, el, fragment_id: str) -> None:
        self.elements[path] = (self.run_id, el, fragment_id)
        self.run_drew.add(fragment_id)
        kind = el.WhichOneof("type")
        if kind == "exception":
            self.run_errors.append(f"exception: {el.exception.type}: {el.exception.message[:200]}")
        elif kind == "alert" and el.alert.format == el.alert.ERROR:
            self.run_errors.append(f"st.error: {el.alert.body[:200]}")
        elif kind == "progress" and FIT_PROGRESS_RE.search(el.progress.text):
            self.run_fit = True
        state = widget_state(kind, getattr(el, kind, None), self.widgets)
        if state is not None:
            self.widgets[state.id] = state

    async def wait_run(self, timeout: float) -> bool:
        try:
            await asyncio.wait_for(self.finished.wait(), timeout)
        except asyncio.TimeoutError:
            return False
        return self.status in self.finished_ok

    # ---- what the page shows
    def current(self):
        return [v[1] for _, v in sorted(self.elements.items())]

    def step(self) -> tuple[int, int] | None:
        for el in self.current():
            kind = el.WhichOneof("type")
            if kind == "markdown":
                found = self.profile.step_of(kind, "", el.markdown.body)
            elif kind == "metric":
                found = self.profile.step_of(kind, el.metric.label, el.metric.body)
            else:
                continue
            if found:
                return found
        return None

    def button(self, prefix: str) -> tuple[str, bool, str] | None:
        """(widget id, disabled, fragment id) of the first button whose label starts with prefix."""
        for _, (_, el, frag) in sorted(self.elements.items()):
            if el.WhichOneof("type") == "button" and el.button.label.strip().startswith(prefix):
                return el.button.id, el.button.disabled, frag
        return None

    def widget_states(self) -> list:
        """The states of the widgets on the page now (what the frontend sends with a rerun)."""
        on_page = set()
        for el in self.current():
            w = getattr(el, el.WhichOneof("type"), None)
            if getattr(w, "id", ""):
                on_page.add(w.id)
        return [s for wid, s in self.widgets.items() if wid in on_page]

    def shows_step(self) -> bool:
        return self.step() is not None

    # ---- the visit
    async def open(self, timeout: float) -> bool:
        t0 = time.perf_counter()
        try:
            await self.connect(timeout)
        except Exception as exc:
            self.errors.append(f"connect: {type(exc).__name__}: {exc}")
            return False
        await self.rerun()
        ok = await self.wait_run(timeout)
        self.errors += self.run_errors
        if not ok:
            self.errors.append(f"open: the run did not end within {timeout:g} s ({self.closed or 'still running'})")
            return False
        if self.profile is not None and not self.shows_step():
            self.errors.append("open: the page shows no step")
            return False
        self.open_s = time.perf_counter() - t0
        return True

    async def expand(self, label: str, timeout: float) -> bool:
        """Open the expander ``label`` whose opening reruns the page (``on_change="rerun"``), as a
        click on its header does: a rerun carrying its new state; whether that run ended."""
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        found = next(((el.expandable.id, frag) for _, (_, el, frag) in sorted(self.elements.items())
                      if el.WhichOneof("type") == "expandable" and el.expandable.label == label
                      and el.expandable.id), None)
        if found is None:
            self.errors.append(f"no expander {label!r} that reruns when opened")
            return False
        wid, frag = found
        self.widgets[wid] = WidgetState(id=wid, bool_value=True)
        await self.rerun(self.widget_states(), frag)
        return await self.wait_run(timeout)

    async def click_through(self, clicks: int, think: tuple[float, float], timeout: float) -> None:
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        for _ in range(clicks):
            await asyncio.sleep(random.uniform(*think))
            before = self.step()
            if before is None or before[0] >= before[1]:
                self.errors.append(f"no next step after {before}")
                return
            found = self.button(self.profile.button)
            if found is None or found[1]:
                self.errors.append(f"no enabled button '{self.profile.button}' at step {before}")
                return
            bid, _, frag = found
            c = Click(before=before, fragment=bool(frag))
            t0 = time.perf_counter()
            await self.rerun(self.widget_states() + [WidgetState(id=bid, trigger_value=True)], frag)
            ok = await self.wait_run(timeout)
            c.kbytes, c.errors, c.fit_progress = self.run_bytes / 1e3, list(self.run_errors), self.run_fit
            self.clicks.append(c)
            if not ok:
                c.errors.append(f"the click's run did not end within {timeout:g} s ({self.closed or 'still running'})")
                return
            c.latency = time.perf_counter() - t0
            c.after = self.step()

    async def close(self) -> None:
        if self.ws is not None:
            try:
                await self.ws.close()
            except Exception:
                pass
        if self.reader is not None:
            try:
                await asyncio.wait_for(self.reader, 10)
            except (asyncio.TimeoutError, Exception):
                self.reader.cancel()


def widget_state(kind: str, w, known: dict):
    """A widget's state as the frontend keeps it: the value the server set (``set_value``), else
    the value it had, else its default; None for widgets without a kept value (buttons) or kinds
    this client does not model (the server then keeps its own value)."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    wid = getattr(w, "id", "") if w is not None else ""
    if not wid or kind in ("button", "download_button", "page_link"):
        return None
    old = known.get(wid)
    st = WidgetState(id=wid)
    if kind == "checkbox":
        st.bool_value = w.value if w.set_value else (old.bool_value if old else w.default)
    elif kind in ("radio", "selectbox"):
        if w.set_value:
            st.string_value = w.raw_value
        elif old is not None:
            st.CopyFrom(old)
        elif w.HasField("default") and len(w.options) > w.default:
            st.string_value = w.options[w.default]
        else:
            return None
    elif kind == "number_input":
        if not w.set_value and old is not None:
            st.CopyFrom(old)
        elif w.data_type == w.INT:
            st.int_value = int(w.value if w.set_value else w.default)
        else:
            st.double_value = float(w.value if w.set_value else w.default)
    elif kind == "slider" and w.options:      # a select_slider: its options' labels
        if not w.set_value and old is not None:
            st.CopyFrom(old)
        else:
            st.string_array_value.data.extend(list(w.raw_value) if w.set_value
                                              else [w.options[int(i)] for i in w.default])
    elif kind == "slider":
        if not w.set_value and old is not None:
            st.CopyFrom(old)
        else:
            st.double_array_value.data.extend(list(w.value) if w.set_value else list(w.default))
    elif kind == "file_uploader":
        st.file_uploader_state_value.SetInParent()      # no file: what the frontend sends
    elif kind == "expandable":
        st.bool_value = w.expanded      # the server's value: set by the app or by the last rerun
    else:
        return None
    return st


# ----------------------------------------------------------------------------- a round
async def purge_visit(port: int, timeout: float) -> None:
    """Open and close one Home session: Streamlit drops expired sessions on its next storage write."""
    s = Student(port, "", "", None)
    try:
        await s.open(timeout)
    finally:
        await s.close()


async def run_round(label: str, n: int, args, pid: int, health: HealthProbe) -> dict:
    # the server warms itself after its first run: a round starts once that (and the last
    # round's closing) is done, or its CPU would be counted as the round's
    quiet = await asyncio.to_thread(wait_quiet, lambda: proc_cpu(pid), limit_s=args.quiet_timeout)
    load0, rss0, threads0 = loadavg(), proc_rss_mb(pid), proc_threads(pid)
    students = [Student(args.port, args.page, args.query, PAGES[args.page]) for _ in range(n)]

    async def open_one(s):
        await asyncio.sleep(random.uniform(0, args.stagger) if n > 1 else 0)
        return await s.open(args.open_timeout)

    t0, cpu0 = time.time(), proc_cpu(pid)
    opened = await asyncio.gather(*(open_one(s) for s in students))
    t1, cpu1 = time.time(), proc_cpu(pid)
    rss_open = proc_rss_mb(pid)
    await asyncio.gather(*(s.click_through(args.clicks, args.think, args.click_timeout)
                           for s, ok in zip(students, opened) if ok))
    t2, cpu2 = time.time(), proc_cpu(pid)
    r = {"label": label, **summarize(n, [s.open_s for s in students], [c for s in students for c in s.clicks],
                                     cpu1 - cpu0, cpu2 - cpu1)}
    r.update({"quiet_wait_s": quiet.waited_s, "quiet_cpu_s": quiet.cpu_s, "quiet": quiet.quiet,
              "wall_open": t1 - t0, "wall_clicks": t2 - t1, "load_start": load0, "load_end": loadavg(),
              "rss_before": rss0, "rss_open": rss_open, "rss_clicked": proc_rss_mb(pid),
              "threads_before": threads0, "threads_open": proc_threads(pid), **health.summary(t0, t2)})
    await asyncio.gather(*(s.close() for s in students))
    await asyncio.sleep(args.settle)
    r["rss_closed"] = proc_rss_mb(pid)
    if args.purge_after > 0:
        await asyncio.sleep(args.purge_after)
        await purge_visit(args.port, args.open_timeout)
        await asyncio.sleep(2)
        r["rss_purged"] = proc_rss_mb(pid)
    r["errors"] = sorted({e for s in students for e in s.errors + [x for c in s.clicks for x in c.errors]})
    r["lost_detail"] = [f"{c.before} -> {c.after}" for s in students for c in s.clicks if not c.advanced]
    r["students"] = [{"open_s": s.open_s, "errors": s.errors, "clicks": [asdict(c) for c in s.clicks]}
                     for s in students]
    return r


# (title, key, width, format): one printed row per round
COLUMNS = [("round", "label", 5, ""), ("open", "opened", 5, ""), ("clicks", "clicks", 6, "d"),
           ("lost", "lost", 4, "d"), ("err", "n_errors", 3, "d"),
           ("open p50", "open_p50", 8, ".2f"), ("p95", "open_p95", 6, ".2f"), ("max", "open_max", 6, ".2f"),
           ("click p50", "click_p50", 9, ".3f"), ("p95", "click_p95", 6, ".2f"), ("max", "click_max", 6, ".2f"),
           ("CPU/open", "cpu_per_open", 8, ".3f"), ("CPU/click", "cpu_per_click", 9, ".3f"),
           ("kB/click", "kb_per_click", 8, ".0f"), ("RSS MB before", "rss_before", 13, ".0f"),
           ("open", "rss_open", 5, ".0f"), ("closed", "rss_closed", 6, ".0f"),
           ("health p50", "health_p50", 10, ".3f"), ("max", "health_max", 6, ".2f"),
           ("load start", "load_start_1", 10, ".2f"), ("end", "load_end_1", 5, ".2f")]


def header() -> str:
    return " ".join(f"{title:>{width}}" for title, _, width, _ in COLUMNS)


def row(r: dict) -> str:
    vals = {**r, "n_errors": len(r.get("errors", [])), "opened": f"{r['opened']}/{r['n']}",
            "load_start_1": r["load_start"][0], "load_end_1": r["load_end"][0]}
    return " ".join(f"{vals[key]:>{width}{spec}}" for _, key, width, spec in COLUMNS)


async def main_async(args, pid: int, server_cmd: dict) -> int:
    health = HealthProbe(args.port)
    health.start()
    print(f"page /{args.page}?{args.query}, button '{PAGES[args.page].button}', {args.clicks} clicks per student, "
          f"think {args.think[0]:g}-{args.think[1]:g} s, opens within {args.stagger:g} s; server pid {pid} on port "
          f"{args.port} {server_cmd}; {os.cpu_count()} cores, load average {' '.join(f'{x:.2f}' for x in loadavg())}")
    print("times and CPU in s; open/click = request -> the run's end; CPU = server user+system CPU of the open "
          "(or click) phase / opens (clicks); health = GET /_stcore/health every s; load = 1-min load average")
    print(header(), flush=True)
    import streamlit

    meta = {"args": {k: v for k, v in vars(args).items() if k != "json"}, "server": server_cmd,
            "streamlit": streamlit.__version__}
    with Run("bench_classroom", (), None, args.json or None, meta) as run:
        bad = await _rounds(args, pid, health, run)
        await health.stop()
        run.note(health=health.rows)
    return 1 if bad else 0


async def _rounds(args, pid: int, health, run) -> bool:
    """Every round, printed and recorded (each with its raw clicks); whether any went wrong."""
    bad = False
    for label, n in ([("warm", 1)] if args.warmup else []) + [(str(n), n) for n in args.sessions]:
        r = await run_round(label, n, args, pid, health)
        run.row(**r)
        print(row(r), flush=True)
        print(f"      {r['fragment_clicks']} of {r['clicks']} clicks were fragment reruns; {r['refits']} click runs "
              f"showed fit progress; server busy {r['cpu_clicks'] / max(r['wall_clicks'], 1e-9):.2f} cores while "
              f"clicking; threads {r['threads_before']} -> {r['threads_open']}"
              + (f"; RSS after purge {r['rss_purged']:.0f} MB" if "rss_purged" in r else "")
              + (f"; {r['health_failed']} health probes unanswered" if r["health_failed"] else "")
              + f"; before the round {Quiet(r['quiet_wait_s'], r['quiet_cpu_s'], r['quiet']).line()}", flush=True)
        for e in r["errors"]:
            print(f"      error: {e}", flush=True)
        for e in r["lost_detail"][:10]:
            print(f"      lost: {e}", flush=True)
        bad |= bool(r["errors"] or r["lost"] or r["opened"] < r["n"])
    return bad


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", default="1,10,30", help="students per round, comma-separated")
    ap.add_argument("--clicks", type=int, default=10, help="Next clicks per student")
    ap.add_argument("--think", default="1,3", help="think time range in s before each click")
    ap.add_argument("--stagger", type=float, default=2.0, help="students open the page within this many s")
    ap.add_argument("--page", default="SVM_Tree", choices=sorted(PAGES))
    ap.add_argument("--query", default=None, help="the link's query string (default: data=fourclass when "
                                                  "available, else the page's default data)")
    ap.add_argument("--port", type=int, default=0, help="attach to the server on this port (default: start one)")
    ap.add_argument("--serve-ports", default="", help="lo-hi: start the server on a free port in this range")
    ap.add_argument("--config", action="append", default=[],
                    help="a Streamlit option for the started server, e.g. runner.postScriptGC=false (repeatable)")
    ap.add_argument("--env", action="append", default=[],
                    help="an environment variable for the started server, e.g. MALLOC_ARENA_MAX=2 (repeatable)")
    ap.add_argument("--no-warmup", dest="warmup", action="store_false",
                    help="skip the first round of one session that pays the imports and the fit")
    ap.add_argument("--open-timeout", type=float, default=300.0)
    ap.add_argument("--click-timeout", type=float, default=120.0)
    ap.add_argument("--quiet-timeout", type=float, default=180.0,
                    help="at most this many s waiting before each round for the server's CPU to nearly stop")
    ap.add_argument("--settle", type=float, default=3.0, help="s after closing the sessions before RSS is read")
    ap.add_argument("--purge-after", type=float, default=0.0,
                    help="after the settle, wait this long (the server's disconnectedSessionTTL), open and "
                         "close a Home session so Streamlit drops the expired sessions, read RSS again")
    ap.add_argument("--seed", type=int, default=0, help="seeds the think times and opening order")
    ap.add_argument("--json", default="", help="the run's JSON record goes to this file (default: test-artifacts/benchmarks/)")
    args = ap.parse_args(argv)
    args.sessions = [int(s) for s in args.sessions.split(",") if s]
    think = [float(x) for x in args.think.split(",")]
    args.think = (think[0], think[-1])
    if args.query is None:
        args.query = default_query(args.page)
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    random.seed(args.seed)
    proc = None
    if args.port:
        server_cmd = {"attached": True}
    else:
        lo, hi = (int(x) for x in args.serve_ports.split("-")) if args.serve_ports else (0, 0)
        args.port = free_port(lo, hi)
        env = dict(kv.split("=", 1) for kv in args.env)
        server_cmd = {"config": args.config, "env": env}
        proc = start_app_server(args.port, 180.0, args.config, env)
    # a benchmark stopped by SIGTERM stops its server too (the finally below)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        pid = proc.pid if proc else listening_pid(args.port)
        if pid is None:
            raise SystemExit(f"no process of this user listens on port {args.port}")
        return asyncio.run(main_async(args, pid, server_cmd))
    finally:
        if proc is not None:
            stop_app_server(proc)


if __name__ == "__main__":
    sys.exit(main())
