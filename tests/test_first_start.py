"""A first start explains itself in the server's terminal (``svmviz_app.terminal``): where the app
is, which data set it opened on and why, and that the method pages are being got ready."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time

import pytest

from conftest import ROOT, _free_port
from svmviz_app import terminal
from test_fetch import _closed_port_url, fresh_default, served  # noqa: F401 (fixtures)


@pytest.fixture
def first_start(monkeypatch):
    """The process as before its first default data set: nothing said yet."""
    monkeypatch.setattr(terminal, "_said", set())


def test_offline_the_terminal_names_the_look_alike_why_and_that_data_dir_needs_a_restart(
        fresh_default, first_start, monkeypatch, capsys):
    monkeypatch.setenv("SVMVIZ_FOURCLASS_URL", _closed_port_url())
    assert terminal.default_dataset_spec() == "fourclass_like"
    out = capsys.readouterr().out
    assert "opened on the generated fourclass-like data set" in out
    assert "Cannot download fourclass_scale" in out and "offline?" in out   # why
    assert "set SVMVIZ_DATA_DIR" in out and "start it again" in out        # how to get the real one
    assert terminal.default_dataset_spec() == "fourclass_like"
    assert capsys.readouterr().out == ""                                    # once per process


def test_a_first_download_says_where_it_went_and_a_later_start_reads_the_cache(
        fresh_default, first_start, monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("SVMVIZ_FOURCLASS_URL", fresh_default.url())
    assert terminal.default_dataset_spec() == "fourclass"
    out = capsys.readouterr().out
    assert "opened on fourclass (LIBSVM), downloaded" in out and str(tmp_path / "cache") in out
    # the next server process: the copy in the cache, no download
    monkeypatch.setattr(terminal, "_said", set())
    monkeypatch.setenv("SVMVIZ_FOURCLASS_URL", _closed_port_url())
    assert terminal.default_dataset_spec() == "fourclass"
    out = capsys.readouterr().out
    assert "read from the download cache" in out and len(fresh_default.requests) == 1


def test_a_data_dir_is_named_as_the_source(fresh_default, first_start, monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("SVMVIZ_DATA_DIR", str(tmp_path / "www"))   # the served folder holds the file
    monkeypatch.setenv("SVMVIZ_FOURCLASS_URL", _closed_port_url())
    assert terminal.default_dataset_spec() == "fourclass"
    out = capsys.readouterr().out
    assert "read from SVMVIZ_DATA_DIR" in out and str(tmp_path / "www") in out
    assert fresh_default.requests == []


@pytest.mark.slow
def test_the_readme_command_says_where_the_app_is_what_it_opened_on_and_that_it_is_warming(tmp_path):
    # ``streamlit run app.py`` as the README says, offline (the download goes to a closed port),
    # and one visit of the home page over Streamlit's protocol, as a browser's first visit
    from apphelpers import bench_classroom, run_coroutine
    from svmviz_app.warm import READY, WARMING

    port = _free_port()
    env = dict(os.environ, SVMVIZ_DATA_DIR="", SVMVIZ_CACHE_DIR=str(tmp_path), SVMVIZ_FOURCLASS_URL=_closed_port_url(),
               STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    log = tmp_path / "terminal.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", f"--server.port={port}"],
                                cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
    try:
        bench = bench_classroom()

        async def visit():
            s = bench.Student(port, "", "", None)
            for _ in range(120):                   # until the server listens
                if await s.open(60):
                    break
                s = bench.Student(port, "", "", None)
                await asyncio.sleep(0.5)
            await s.close()
            return s.errors

        assert run_coroutine(visit()) == []
        for _ in range(900):                       # the warming thread's report (a guard, not a timing)
            if READY in log.read_text() or proc.poll() is not None:
                break
            time.sleep(1)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    said = log.read_text()
    assert f"http://localhost:{port}" in said                                  # where the app is
    assert "opened on the generated fourclass-like data set" in said and "SVMVIZ_DATA_DIR" in said
    assert WARMING in said and READY in said
    assert said.index(WARMING) < said.index(READY)
