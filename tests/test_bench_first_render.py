"""The first-render benchmark's peer: the bare Streamlit app it times beside the pages draws one
Plotly chart of fourclass's size and nothing else, and the ratios to it read as such."""

from __future__ import annotations

import base64
import importlib.util
import json
import sys

import numpy as np

from streamlit.testing.v1 import AppTest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
_spec = importlib.util.spec_from_file_location("bench_first_render", ROOT / "benchmarks" / "bench_first_render.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def test_the_peer_app_is_one_chart_of_fourclass_size():
    at = AppTest.from_string(bench.PEER_APP).run()
    assert not at.exception
    charts = at.get("plotly_chart")
    assert len(charts) == 1 and len(at.main.children) == 1
    fig = json.loads(charts[0].proto.spec)
    assert [t["type"] for t in fig["data"]] == ["scatter", "scatter"]
    assert sum(_points(t["x"]) for t in fig["data"]) == 862


def _points(x) -> int:
    """The length of a trace's coordinates as Plotly sends them (a list, or typed-array base64)."""
    if isinstance(x, dict):
        return len(base64.b64decode(x["bdata"])) // np.dtype(x["dtype"]).itemsize
    return len(x)


def test_a_ratio_to_the_peer_needs_both_plots():
    assert bench.ratio(6.0, 3.0) == "2.00×"
    assert bench.ratio(None, 3.0) == "—" and bench.ratio(4.0, None) == "—"


def test_a_chart_message_is_told_from_the_others():
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    chart, text, done = ForwardMsg(), ForwardMsg(), ForwardMsg()
    chart.delta.new_element.plotly_chart.spec = '{"data": [], "layout": {}}'
    text.delta.new_element.markdown.body = '"layout"'
    done.script_finished = ForwardMsg.FINISHED_SUCCESSFULLY
    assert bench.is_chart(chart.SerializeToString())
    assert not bench.is_chart(text.SerializeToString()) and not bench.is_chart(done.SerializeToString())
