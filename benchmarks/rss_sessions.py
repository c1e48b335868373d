"""Does the server's RSS grow with sessions because of a leak or because of allocator
fragmentation? (A classroom keeps one server up for hours, so the two need different fixes.)

Runs rounds of K Streamlit sessions (``AppTest``: the page script runs in this process, with the
same global ``st.cache_data`` / ``st.cache_resource`` as a server) on the given pages, drops
them, and after every round reports:

- RSS after ``gc.collect()`` (what the server would show);
- Python heap: the bytes ``tracemalloc`` traces as live (objects still referenced: a leak of
  Python objects — per-session state, figures, unbounded caches — shows up here);
- entries and bytes in Streamlit's caches (st.cache_data and st.cache_resource);
- RSS after ``malloc_trim(0)`` (glibc hands free pages back to the OS: memory that comes back
  here was free but held by the allocator, i.e. fragmentation, not a leak).

At the end the Streamlit caches and the shared figures (``svmviz_app.cache.VIEWS``) are cleared and
both RSS values read again.

Verdict rule: growth that shows in the traced Python heap (and survives clearing the caches) is
a leak; growth that is not traced and comes back with ``malloc_trim`` is fragmentation; growth
that is neither (untraced, kept after trim) is native memory held by a library (Numba, BLAS...).

Usage: python benchmarks/rss_sessions.py [--rounds 6] [--sessions 4] [--pages pages/1_Data.py,...]
       [--no-tracemalloc]   (tracemalloc slows the pages ~2×; RSS then excludes its own tables)
Set SVMVIZ_DATA_DIR to a folder holding fourclass_scale to use it without a download (else the
pages fetch it once into the user cache, as the app does).
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import os
import sys
import time
import tracemalloc
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PAGES = "pages/1_Data.py,pages/6_DAG_SVM.py,pages/7_Scatter_SVM.py"


def rss_mb() -> float:
    return psutil.Process().memory_info().rss / 2**20


def malloc_trim() -> bool:
    try:
        return bool(ctypes.CDLL("libc.so.6").malloc_trim(0))
    except (OSError, AttributeError):  # not glibc
        return False


def streamlit_cache_size() -> tuple[int, float]:
    """(entries, MB) in st.cache_data and st.cache_resource, from the stats Streamlit serves at
    /_stcore/metrics (resource sizes are Streamlit's own estimate)."""
    from streamlit.runtime.caching import get_data_cache_stats_provider, get_resource_cache_stats_provider

    stats = []
    for caches in (get_data_cache_stats_provider(), get_resource_cache_stats_provider()):
        got = caches.get_stats()
        stats += [s for fam in got.values() for s in fam] if isinstance(got, dict) else list(got)
    return len(stats), sum(s.byte_length for s in stats) / 2**20


def one_session(page: str, timeout: float) -> str:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / page), default_timeout=timeout)
    at.run()
    if at.exception:
        return f"{page}: exception {at.exception[0].message[:80]}"
    return ""


def measure(label: str, traced: bool) -> dict:
    gc.collect()
    row = {"round": label, "rss_gc": rss_mb()}
    row["py_heap"] = tracemalloc.get_traced_memory()[0] / 2**20 if traced else float("nan")
    row["cache_entries"], row["cache_mb"] = streamlit_cache_size()
    malloc_trim()
    row["rss_trim"] = rss_mb()
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--sessions", type=int, default=4, help="sessions per round")
    ap.add_argument("--pages", default=DEFAULT_PAGES)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--no-tracemalloc", action="store_true")
    ap.add_argument("--top", type=int, default=5,
                    help="list the source lines whose live Python memory grew most (tracemalloc)")
    args = ap.parse_args(argv)
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    pages = [p for p in args.pages.split(",") if p]
    traced = not args.no_tracemalloc

    # warm-up: imports, Numba compilation and the first cache fills are not per-session costs
    t0 = time.perf_counter()
    problems = [m for p in pages if (m := one_session(p, args.timeout))]
    if traced:
        tracemalloc.start()
    rows = [measure("warm-up", traced)]
    snap0 = tracemalloc.take_snapshot() if traced else None
    for r in range(1, args.rounds + 1):
        for _ in range(args.sessions):
            problems += [m for p in pages if (m := one_session(p, args.timeout))]
        rows.append(measure(str(r), traced))
    growth = (tracemalloc.take_snapshot().compare_to(snap0, "lineno")[: args.top]
              if traced and args.top else [])
    import streamlit as st

    from svmviz_app.cache import VIEWS   # the shared figures and tables (not Streamlit's caches)

    st.cache_data.clear()
    st.cache_resource.clear()
    VIEWS.clear()
    rows.append(measure("caches cleared", traced))

    print(f"{args.rounds} rounds × {args.sessions} sessions × pages {', '.join(pages)}; "
          f"{time.perf_counter() - t0:.0f} s wall, {time.process_time():.0f} s CPU")
    print(f"{'round':>15} {'RSS after gc':>13} {'RSS after trim':>15} {'Python heap':>12} "
          f"{'cache entries':>14} {'cache MB':>9}")
    for row in rows:
        print(f"{row['round']:>15} {row['rss_gc']:>10.1f} MB {row['rss_trim']:>12.1f} MB "
              f"{row['py_heap']:>9.1f} MB {row['cache_entries']:>14} {row['cache_mb']:>9.1f}")
    first, last = rows[0], rows[-2]
    n = args.rounds * args.sessions * len(pages)
    print(f"per session after warm-up: RSS {(last['rss_gc'] - first['rss_gc']) / n:+.2f} MB, "
          f"after trim {(last['rss_trim'] - first['rss_trim']) / n:+.2f} MB, "
          f"Python heap {(last['py_heap'] - first['py_heap']) / n:+.2f} MB")
    for stat in growth:
        print(f"Python heap growth {stat.size_diff / 2**10:+8.1f} KiB in {stat.count_diff:+6d} blocks at "
              f"{stat.traceback[0].filename}:{stat.traceback[0].lineno}")
    for m in sorted(set(problems)):
        print("problem:", m)
    return 0


if __name__ == "__main__":
    sys.exit(main())
