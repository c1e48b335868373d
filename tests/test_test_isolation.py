"""The test process stays usable after a Streamlit script ran in it: a later test can start worker
processes (Dask's LocalCluster spawns them) whatever ran before it on the same xdist worker."""

from __future__ import annotations

import multiprocessing
import os

import pytest

pytestmark = pytest.mark.xdist_group("interpreter_main")
RAN = []


def test_an_app_test_runs_a_page_as_the_main_module():
    from streamlit.testing.v1 import AppTest

    def page():
        import streamlit as st

        st.write("a page")

    at = AppTest.from_function(page).run()
    assert not at.exception and at.markdown[0].value == "a page"
    RAN.append("app test")


def test_a_spawned_process_starts_after_the_app_test():
    assert RAN == ["app test"], "the xdist group did not keep both tests on one worker, in order"
    child = multiprocessing.get_context("spawn").Process(target=os.getpid)
    child.start()
    child.join(60)
    assert child.exitcode == 0
