"""The benchmarks' timing harness: peers timed in the same process, interleaved, best of N, CPU
and wall time, BLAS pinned to one thread, and a JSON record of every run beside the printed table.

    from harness import Run, interleaved, pinned_blas

    with pinned_blas(), Run("bench_x", COLUMNS, repeats=3) as run:
        best = interleaved({"ours": lambda: ours(X), "peer": lambda: peer(X)}, repeats=3)
        run.row(data="x", cpu=best["ours"].cpu / best["peer"].cpu, ...)

Why each rule. The peer runs in the same process on the same data, one run of each in turn
(``interleaved``), so a slow minute of a shared machine lands on both sides; the best of N drops
the runs that another process interrupted. Process CPU time (``time.process_time``) is the steadier
measure on a shared machine, wall time is what a user waits; both are kept. BLAS gets one thread
(``pinned_blas``): both solvers compared here are single-threaded, and an idle OpenBLAS worker left
spinning by an earlier NumPy call is charged to the process CPU time of whatever runs next. The
load average goes into every record, since a figure taken on a loaded machine is inflated.

Records: ``Run`` prints each row as it comes and rewrites
``test-artifacts/benchmarks/<name>-<UTC time>.json`` (or ``--json PATH``) with the command, the
commit, versions, load average, repeats and every row so far, so an interrupted run keeps its rows.

Old commits: ``baseline_checkout(rev)`` checks ``rev`` out in a temporary ``git worktree`` and
``load_modules`` imports files of it under private names, next to today's code.
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "test-artifacts" / "benchmarks"


@contextmanager
def pinned_blas():
    """BLAS (and OpenMP) limited to one thread inside the block."""
    from threadpoolctl import threadpool_limits
    with threadpool_limits(limits=1):
        yield


@dataclass
class Timing:
    """Best CPU and wall seconds over the repeats, and the last run's result."""
    cpu: float
    wall: float
    result: Any


def timed(f: Callable[[], Any]) -> tuple[Any, float, float]:
    """f()'s result, process CPU seconds and wall seconds."""
    c0, w0 = time.process_time(), time.perf_counter()
    out = f()
    return out, time.process_time() - c0, time.perf_counter() - w0


def interleaved(peers: dict[str, Callable[[], Any]], repeats: int = 3) -> dict[str, Timing]:
    """Every peer once per round, in the given order, ``repeats`` rounds: the best CPU and wall
    time of each (taken separately) and its last result."""
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    best = {k: Timing(np.inf, np.inf, None) for k in peers}
    for _ in range(repeats):
        for name, f in peers.items():
            out, c, w = timed(f)
            b = best[name]
            b.cpu, b.wall, b.result = min(b.cpu, c), min(b.wall, w), out
    return best


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def commit() -> str:
    """The checked-out commit (with "+dirty" when the tracked files differ from it)."""
    try:
        sha = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", "svmviz", "benchmarks"],
                               cwd=ROOT).returncode != 0
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return sha + ("+dirty" if dirty else "")


def _jsonable(v):
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return v


class Run:
    """One run of a benchmark: a table printed row by row and the same rows in a JSON record.

    ``columns``: (key, header, format[, width]), e.g. ``("cpu", "cpu ratio", "{:.2f}")``; a row
    may hold more keys than are printed (all go to the record). No columns: nothing is printed,
    the rows only go to the record (a benchmark that prints tables of its own, e.g. a paper's
    layout). ``meta``: anything else the record should hold (parameters of the run)."""

    def __init__(self, name: str, columns, repeats: int | None, json_path: Path | None = None,
                 meta: dict | None = None, out=sys.stdout):
        self.name, self.columns, self.out = name, list(columns), out
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        self.path = Path(json_path) if json_path else RESULTS / f"{name}-{stamp}.json"
        self.record = {"bench": name, "command": " ".join(["python", *sys.argv]),
                       "commit": commit(), "started": stamp, "python": platform.python_version(),
                       "numpy": np.__version__, "machine": platform.machine(),
                       "cpus": os.cpu_count(), "repeats": repeats, "load_start": load_average(),
                       **(meta or {}), "rows": []}
        self.widths = [max(len(c[1]), 9, c[3] if len(c) > 3 else 0) for c in self.columns]

    def __enter__(self):
        if self.columns:
            head = " ".join(f"{c[1]:>{w}}" for c, w in zip(self.columns, self.widths))
            print(head, file=self.out)
            print("-" * len(head), file=self.out, flush=True)
        return self

    def row(self, **fields):
        """Print the row (when there are columns) and add it, with the load average now, to the
        record on disk."""
        if self.columns:
            cells = []
            for (key, _, fmt, *_), w in zip(self.columns, self.widths):
                v = fields.get(key, "")
                cells.append(f"{(fmt.format(v) if v != '' and v is not None else '—'):>{w}}")
            print(" ".join(cells), file=self.out, flush=True)
        rec = {k: _jsonable(v) for k, v in fields.items()}
        rec["load"] = load_average()
        self.record["rows"].append(rec)
        self._write()

    def note(self, **fields):
        """Add summary fields to the record."""
        self.record.update({k: _jsonable(v) for k, v in fields.items()})
        self._write()

    def _write(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(self.record, indent=1, default=str), encoding="utf-8")

    def __exit__(self, *exc):
        self.record["finished"] = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        self.record["load_end"] = load_average()
        self._write()
        print(f"\nload average {self.record['load_start']} at the start, "
              f"{self.record['load_end']} at the end; record: {self.path}", file=self.out)
        return False


@contextmanager
def baseline_checkout(rev: str):
    """``rev`` checked out in a temporary git worktree (removed afterwards): its path."""
    tmp = Path(tempfile.mkdtemp(prefix="svmviz-baseline-"))
    subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(tmp), rev], cwd=ROOT,
                   check=True)
    try:
        yield tmp
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tmp)], cwd=ROOT, check=False)


def load_modules(checkout: Path, modules: list[str], prefix: str = "_baseline"):
    """Import ``modules`` (dotted names such as "svmviz.models.guard") from the files of
    ``checkout`` under the names ``prefix.<module>``, in order, next to today's code: while one
    is executed, an import of an earlier one in the list resolves to the checkout's (everything
    else is today's). Returns {module: loaded module}."""
    loaded = {}
    saved = {m: sys.modules.get(m) for m in modules}
    try:
        for name in modules:
            path = checkout / (name.replace(".", "/") + ".py")
            alias = f"{prefix}.{name}"
            spec = importlib.util.spec_from_file_location(alias, path)
            mod = importlib.util.module_from_spec(spec)
            sys.modules[alias] = mod
            for done, m in loaded.items():
                sys.modules[done] = m
            spec.loader.exec_module(mod)
            loaded[name] = mod
    finally:
        for name, m in saved.items():
            if m is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = m
    return loaded


@dataclass
class Quiet:
    """How a wait for a quiet server went: its seconds, the server's CPU seconds meanwhile, and
    whether it ended quiet (False: it timed out, the server was still busy)."""
    waited_s: float
    cpu_s: float
    quiet: bool

    def line(self) -> str:
        state = "quiet" if self.quiet else "STILL BUSY (timed out; its work is in the figures below)"
        return f"waited {self.waited_s:.1f} s for a quiet server: {state}, server CPU meanwhile {self.cpu_s:.2f} s"


def wait_quiet(cpu: Callable[[], float], quiet_cores: float = 0.05, window_s: float = 1.0,
               limit_s: float = 180.0, sleep: Callable[[float], Any] = time.sleep,
               clock: Callable[[], float] = time.monotonic) -> Quiet:
    """Wait until a server's CPU time (``cpu()``, seconds) grows by less than ``quiet_cores`` ×
    ``window_s`` in a window of ``window_s`` seconds, at most ``limit_s`` seconds. A fresh server
    warms itself as it starts (imports, a first fit of every estimator, Numba's compilation when
    its cache is cold); measured meanwhile, that work is counted as the sessions'."""
    t0 = clock()
    c0 = last = cpu()
    quiet = False
    while clock() - t0 < limit_s:
        sleep(window_s)
        now = cpu()
        if now - last < quiet_cores * window_s:
            quiet = True
            break
        last = now
    return Quiet(clock() - t0, cpu() - c0, quiet)


def listening_pid(port: int) -> int | None:
    """The process listening on a local TCP port (from /proc/net/tcp* and /proc/*/fd), or None."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    parts = line.split()
                    if int(parts[1].rsplit(":", 1)[1], 16) == port and parts[3] == "0A":   # LISTEN
                        inodes.add(parts[9])
        except OSError:
            pass
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                if os.readlink(f"/proc/{pid}/fd/{fd}")[8:-1] in inodes:
                    return int(pid)
        except OSError:
            continue
    return None


def start_app_server(port: int, wait_s: float = 120.0, config=(), env: dict | None = None,
                     script: Path | None = None) -> subprocess.Popen:
    """``streamlit run serve.py`` of this repository (the README's command: its
    ``.streamlit/config.toml`` applies) on 127.0.0.1:``port``, returned once it answers its health
    check as the port's listener (another server that took the port meanwhile answers too); the
    server warms itself meanwhile and after. ``script``: another app to run the same way (a
    benchmark's peer), with this repository's config. ``config``: more options as
    "section.name=value" (e.g. "server.disconnectedSessionTTL=10"; they override the defaults
    here), ``env``: variables added to the environment. Its output goes to a temporary file (a
    full pipe would block the server), shown when it exits before answering."""
    options = {"server.headless": "true", "server.port": str(port),
               "server.address": "127.0.0.1", "server.fileWatcherType": "none"}
    options.update(c.split("=", 1) for c in config)
    cmd = [sys.executable, "-m", "streamlit", "run", str(script or "serve.py"),
           *(f"--{k}={v}" for k, v in options.items())]
    out = tempfile.TemporaryFile()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                            env={**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
                                 **(env or {})})
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            out.seek(0)
            raise SystemExit(f"the server exited:\n{out.read().decode(errors='replace')}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.status == 200 and listening_pid(port) == proc.pid:
                    return proc
        except OSError:
            pass
        time.sleep(0.5)
    stop_app_server(proc)
    raise SystemExit(f"the server did not answer within {wait_s:g} s")


def stop_app_server(proc: subprocess.Popen) -> None:
    """SIGTERM, and SIGKILL if the server has not ended 15 s later."""
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
