"""The Streamlit app through AppTest: every page runs, the Data page loads, refuses and keeps data."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from svmviz.data import default_dataset_name
from svmviz_app.budget import classroom_budget
from svmviz_app.navigation import PAGES as PAGE_INDEX

from apphelpers import as_read

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "pages").glob("*.py"))
TIMEOUT = 180  # the machine is shared; a page may fit a model on first run


def run(path: str) -> AppTest:
    return AppTest.from_file(str(ROOT / path), default_timeout=TIMEOUT).run()


def test_the_classroom_file_limit_is_the_servers_upload_limit_and_nothing_is_sent():
    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert classroom_budget().file_mb == cfg["server"]["maxUploadSize"]
    assert cfg["server"]["headless"] is True
    assert cfg["browser"]["gatherUsageStats"] is False


@pytest.mark.parametrize("path", ["app.py", "home.py", *PAGES])
def test_app_and_every_page_run_without_an_exception(path):
    at = run(path)
    assert not at.exception, [e.value for e in at.exception]
    assert at.title, f"{path} shows no title"


def test_app_routes_home_first_then_to_a_page_by_its_file():
    at = run("app.py")
    assert at.title[0].value == "svmviz"
    at.switch_page("pages/1_Data.py").run()
    assert not at.exception
    assert at.title[0].value == "Data"


def test_home_page_links_exactly_the_existing_pages():
    at = run("app.py")
    labels = [link.value for link in at.get("page_link")]
    assert len(PAGE_INDEX) == 8
    for fname, title, _ in PAGE_INDEX:
        linked = any(label.startswith(f"**{title}**") for label in labels)
        assert linked == (ROOT / "pages" / fname).is_file(), fname
    assert any(default_dataset_name().split("_")[0] in m.value for m in at.markdown)


def test_data_page_builtin_generator_split_and_bad_upload_keeps_the_data():
    at = run("pages/1_Data.py")
    assert not at.exception and not at.error
    first = at.session_state["_svmviz_dataset"]
    assert first.name in ("fourclass", "fourclass-like")
    assert len(at.get("plotly_chart")) == 1

    at.selectbox(key="data.builtin").set_value("wine").run()
    at.button(key="data_builtin_load").click().run()
    assert at.session_state["_svmviz_dataset"].name == "wine"
    at.radio(key="data.plane").set_value("PCA plane").run()
    assert not at.exception and not at.error

    at.radio(key="data.source").set_value("Upload a file").run()
    at.file_uploader(key="data_upload").set_value(("bad.csv", b"x1,x2,label\n1,2,0\n3,abc,1\n", "text/csv")).run()
    assert [as_read(e.value) for e in at.error] == [
        "cannot load bad.csv: row 3, column 'x2' holds 'abc', which is not a number: every feature must be numeric"]
    assert at.session_state["_svmviz_dataset"].name == "wine"  # the previous data stays
    assert len(at.get("plotly_chart")) == 1 and not at.exception
    at.run()  # a rerun with the bad file still in the uploader: same message, same data
    assert len(at.error) == 1 and at.session_state["_svmviz_dataset"].name == "wine"

    good = b"a,b,label\n" + b"".join(f"{i},{i % 3},{i % 2}\n".encode() for i in range(20))
    at.file_uploader(key="data_upload").set_value(("good.csv", good, "text/csv")).run()
    assert not at.error and at.session_state["_svmviz_dataset"].name == "good"

    at.radio(key="data.source").set_value("Generate").run()
    at.selectbox(key="data.generator").set_value("checkerboard").run()
    at.number_input(key="gen.checkerboard.n_classes").set_value(1).run()
    at.button(key="data_generate").click().run()
    assert "only one class" in at.error[0].value
    assert at.session_state["_svmviz_dataset"].name == "good"
    at.number_input(key="gen.checkerboard.n_classes").set_value(5).run()
    at.button(key="data_generate").click().run()
    assert not at.error and at.session_state["_svmviz_dataset"].name == "checkerboard K=5"


def test_the_data_page_generates_tabular_regions_at_its_defaults():
    """The large-data generator is one of the Data page's: its number inputs (counts as integers,
    the overlap as a fraction) generate the set its defaults describe."""
    at = run("pages/1_Data.py")
    at.radio(key="data.source").set_value("Generate").run()
    at.selectbox(key="data.generator").set_value("tabular_regions").run()
    assert at.number_input(key="gen.tabular_regions.overlap").value == 0.01
    at.button(key="data_generate").click().run()
    ds = at.session_state["_svmviz_dataset"]
    assert not at.error and not at.exception
    assert ds.X.shape == (3000, 8) and len(np.unique(ds.y)) == 3


def test_split_settings_reach_other_pages_through_current_split():
    at = run("pages/1_Data.py")
    at.selectbox(key="split.norm").set_value("minmax").run()
    at.slider(key="split.test").set_value(0.2).run()
    at.number_input(key="split.seed").set_value(7).run()
    s = at.session_state["_svmviz_split_cache"][1]   # the settings current_split() used
    assert (s.normalization, s.test_size, s.seed, s.stratify) == ("minmax", 0.2, 7, True)
    train, test = at.session_state["_svmviz_split_cache"][2]  # what current_split() returns
    ds = at.session_state["_svmviz_dataset"]
    assert train.n_samples + test.n_samples == ds.n_samples
    assert train.X.min() == -1 and train.X.max() == 1
    at.slider(key="split.test").set_value(0.0).run()
    assert at.session_state["_svmviz_split_cache"][2][1] is None and not at.error


def test_data_page_without_fourclass_says_where_to_get_it(monkeypatch, tmp_path):
    monkeypatch.setenv("SVMVIZ_DATA_DIR", str(tmp_path))  # a folder without fourclass_scale
    at = run("pages/1_Data.py")
    assert at.session_state["_svmviz_dataset"].name == "fourclass-like"  # the always-available default
    at.selectbox(key="data.builtin").set_value("fourclass").run()
    assert "libsvmtools/datasets/binary/fourclass_scale" in at.info[0].value
    at.button(key="data_builtin_load").click().run()
    assert "SVMVIZ_DATA_DIR" in as_read(at.error[0].value) and not at.exception
    assert at.session_state["_svmviz_dataset"].name == "fourclass-like"


def test_readme_gives_the_venv_step_then_the_two_commands_each_in_a_code_block_and_ci_runs_them():
    text = (ROOT / "README.md").read_text()
    lines = text.splitlines()
    venv = "python3 -m venv .venv && . .venv/bin/activate"
    run_cmd = "python -m pip install -e . && streamlit run app.py"
    test_cmd = 'python -m pip install -e ".[test]" && python -m pytest'
    fences = [i for i, line in enumerate(lines) if line.startswith("```")]
    in_code = {i for a, b in zip(fences[::2], fences[1::2]) for i in range(a + 1, b)}
    # each command alone on a line of a code block (a Markdown viewer joins the lines of a paragraph)
    at = {cmd: next(i for i in in_code if lines[i] == cmd) for cmd in (venv, run_cmd, test_cmd)}
    assert at[venv] < at[run_cmd] < at[test_cmd]
    assert len(lines) <= 120 and "Chromium" in text[:text.index("## Where to click first")]
    # the picture floats beside the opening paragraph, not beside a code block (which a renderer
    # narrows beside it and cuts off, with a scroll bar, where the command should be read whole)
    picture = next(i for i, line in enumerate(lines) if line.startswith("<img") and 'align="right"' in line)
    intro = next(i for i, line in enumerate(lines) if line.startswith("svmviz is "))
    assert picture < intro < lines.index("## Start") < min(fences)
    # the docs pages, each linked once; nothing points at a folder beside the repository
    docs = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    assert docs and all(text.count(f"(docs/{name})") == 1 for name in docs)
    assert all("../shared" not in t for t in [text, *((ROOT / "docs" / n).read_text() for n in docs)])
    ci = (ROOT / ".ci" / "run").read_text()
    ci_lines = [line.strip() for line in ci.splitlines()]
    assert ci_lines[0] == "#!/usr/bin/env bash" and "set -euo pipefail" in ci_lines
    # CI as the newcomer: the README's virtual environment made anew, its commands verbatim, then
    # the real-fourclass tests; no Python that brings its own packages
    assert ci_lines.index("rm -rf .venv") < ci_lines.index(venv)
    assert sum(test_cmd in line for line in ci_lines) == 1 and sum(run_cmd in line for line in ci_lines) == 1
    assert any(line.endswith("python -m pytest -m real_data") for line in ci_lines)
    assert "system-site-packages" not in ci and "accepts installs" not in ci
