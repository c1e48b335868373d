"""The Data page in headless Chromium: the plot is drawn, a bad upload shows its error and the
previous data (and its plot) stay. Screenshots go to test-artifacts/."""

from __future__ import annotations

import pytest

from conftest import wait_for_app
from svmviz.data import fourclass_path

pytestmark = pytest.mark.browser

BAD_CSV = b"x1,x2,label\n0.1,0.2,1\n0.3,abc,-1\n0.5,0.6,1\n0.7,0.8,-1\n"


def test_data_page_plot_and_bad_upload(streamlit_url, page, artifacts_dir):
    name = "fourclass" if fourclass_path() is not None else "fourclass-like"  # the default data set
    page.goto(streamlit_url)  # the home page: links to the pages, the current data set
    wait_for_app(page)
    page.locator('[data-testid="stPageLink"]').first.wait_for(timeout=30000)
    summary = page.locator('[data-testid="stMain"] [data-testid="stMarkdownContainer"]').filter(has_text=" samples × ")
    summary.first.wait_for(timeout=60000)
    wait_for_app(page)
    assert summary.first.inner_text().startswith(f"{name} — ")
    page.screenshot(path=str(artifacts_dir / "home_page.png"), full_page=True)

    page.goto(f"{streamlit_url}/Data")
    wait_for_app(page)
    page.wait_for_selector(".js-plotly-plot .scatterlayer .point", timeout=60000)
    heading = page.locator("h3").filter(has_text=name).first
    heading.wait_for(timeout=30000)
    before = heading.inner_text()
    page.screenshot(path=str(artifacts_dir / "data_page.png"), full_page=True)
    page.locator(".js-plotly-plot").first.screenshot(path=str(artifacts_dir / "data_plot.png"))

    page.get_by_text("Upload a file", exact=True).click()
    wait_for_app(page)
    page.set_input_files('input[type="file"]', files=[{"name": "bad.csv", "mimeType": "text/csv",
                                                       "buffer": BAD_CSV}])
    alert = page.locator('[data-testid="stAlert"]').filter(has_text="cannot load bad.csv")
    alert.wait_for(timeout=60000)
    wait_for_app(page)
    assert "row 3, column 'x2' holds 'abc', which is not a number" in alert.inner_text()
    # the data loaded before is still the current one, and its plot is still drawn
    assert page.locator("h3").filter(has_text=name).first.inner_text() == before == name
    assert page.locator(".js-plotly-plot .scatterlayer .point").count() >= 800
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(artifacts_dir / "data_page_bad_upload.png"), full_page=True)
    page.locator(".js-plotly-plot").first.screenshot(path=str(artifacts_dir / "data_plot_after_bad_upload.png"))

    # the figure download is made when the button is clicked (a callable behind st.download_button)
    with page.expect_download(timeout=60000) as dl:
        page.get_by_role("button", name="Download HTML").click()
    saved = artifacts_dir / "data_plot_download.html"
    dl.value.save_as(saved)
    html = saved.read_text()
    assert dl.value.suggested_filename == f"data_{name}.html"
    assert f"{name}: " in html and " training + " in html
