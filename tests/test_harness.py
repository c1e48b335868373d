"""The benchmarks' timing harness (benchmarks/harness.py): interleaved rounds and the JSON record."""

from __future__ import annotations

import io
import json
import sys

import numpy as np

from conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
import harness  # noqa: E402


def test_interleaved_runs_every_peer_once_per_round_in_turn():
    calls = []
    best = harness.interleaved({"a": lambda: calls.append("a") or 1, "b": lambda: calls.append("b") or 2}, 3)
    assert calls == ["a", "b"] * 3
    assert best["a"].result == 1 and best["b"].result == 2
    assert 0 <= best["a"].cpu < np.inf and 0 <= best["b"].wall < np.inf


def test_a_run_without_columns_prints_no_table_and_records_nested_numpy_values(tmp_path):
    out = io.StringIO()
    path = tmp_path / "rec.json"
    with harness.Run("bench_x", (), None, path, {"k": 3}, out=out) as run:
        run.row(table="1", cpu={"ovr": np.float64(0.5), "n": np.int64(7)}, acc=np.array([1.0, 2.0]),
                pairs=[(np.int64(1), 2)])
        assert json.loads(path.read_text())["rows"][0]["cpu"] == {"ovr": 0.5, "n": 7}
    rec = json.loads(path.read_text())
    assert rec["k"] == 3 and rec["repeats"] is None
    assert rec["rows"][0]["acc"] == [1.0, 2.0] and rec["rows"][0]["pairs"] == [[1, 2]]
    printed = out.getvalue().strip().splitlines()
    assert len(printed) == 1 and printed[0].startswith("load average")   # no header, no rows


def test_a_run_with_columns_prints_its_rows_under_the_header(tmp_path):
    out = io.StringIO()
    with harness.Run("bench_x", [("cpu", "cpu ratio", "{:.2f}")], 3, tmp_path / "r.json", out=out) as run:
        run.row(cpu=0.5, extra="kept in the record")
    lines = out.getvalue().splitlines()
    assert lines[0].strip() == "cpu ratio" and lines[2].strip() == "0.50"
    assert json.loads((tmp_path / "r.json").read_text())["rows"][0]["extra"] == "kept in the record"


class _FakeServer:
    """A server's CPU seconds as a fake clock advances: ``rates`` cores for each following second
    (the last rate holds after them)."""

    def __init__(self, rates):
        self.rates, self.t, self.cpu_s = list(rates), 0.0, 0.0

    def sleep(self, s):
        while s > 1e-12:
            dt = min(s, 1.0 - (self.t % 1.0))
            i = min(int(self.t), len(self.rates) - 1)
            self.cpu_s += self.rates[i] * dt
            self.t += dt
            s -= dt

    def wait(self, **kw):
        return harness.wait_quiet(lambda: self.cpu_s, sleep=self.sleep, clock=lambda: self.t, **kw)


def test_the_wait_for_a_quiet_server_returns_in_the_first_window_under_the_idle_rate():
    server = _FakeServer([1.0, 1.0, 0.8, 0.02])     # warming for 3 s, then the idle level
    q = server.wait(quiet_cores=0.05, window_s=1.0, limit_s=60)
    assert q.quiet and q.waited_s == 4.0 and abs(q.cpu_s - 2.82) < 1e-9
    assert "quiet" in q.line() and "4.0 s" in q.line() and "2.82 s" in q.line()


def test_the_wait_for_a_quiet_server_reports_a_timeout_when_it_stays_busy():
    server = _FakeServer([0.5])
    q = server.wait(quiet_cores=0.05, window_s=1.0, limit_s=10)
    assert not q.quiet and q.waited_s == 10.0 and abs(q.cpu_s - 5.0) < 1e-9
    assert "STILL BUSY" in q.line()


def test_an_already_quiet_server_is_waited_for_one_window():
    server = _FakeServer([0.0])
    q = server.wait(window_s=0.5)
    assert q.quiet and q.waited_s == 0.5 and q.cpu_s == 0.0
