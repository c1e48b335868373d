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
