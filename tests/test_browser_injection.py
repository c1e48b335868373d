"""Hostile names in a real browser: a CSV whose file name, headers and class names hold Markdown
and HTML that would fetch from an outside host or link to it. Uploaded on the Data page, then
shown on Convex Hulls and Home: Chromium requests nothing outside 127.0.0.1 and the page holds no
live link or image pointing outside. Screenshots go to test-artifacts/."""

from __future__ import annotations

from urllib.parse import urlparse

import numpy as np
import pytest

from conftest import wait_for_app

pytestmark = pytest.mark.browser

OUT = "evil.example"
FILE_NAME = "**b** <img src=http:evil.example> [x](http:evil.example).csv"
HEADERS = [f"![i](http://{OUT}/h.png)", f"<img src=http://{OUT}/a.png>", "label"]
CLASSES = [f"[x](http://{OUT}/)", f"**b** ![i](http://{OUT}/c.png)"]


def _csv() -> bytes:
    rng = np.random.default_rng(0)
    rows = [",".join(HEADERS)]
    for k in range(60):
        c = k % 2
        x = rng.normal(size=2) + (2.5 if c else -2.5)
        rows.append(f"{x[0]:.4f},{x[1]:.4f},{CLASSES[c]}")
    return ("\n".join(rows) + "\n").encode()


def _outside(url: str) -> bool:
    host = urlparse(url).hostname
    return url.startswith(("http:", "https:")) and host not in ("127.0.0.1", "localhost")


def _live_outside(page) -> list[str]:
    """Links, images and frames in the page (its iframes included) that point outside."""
    found = []
    for frame in page.frames:
        found += frame.eval_on_selector_all(
            "a[href], img[src], image[href], iframe[src], object[data]",
            "els => els.map(e => e.getAttribute('href') || e.getAttribute('src') || e.getAttribute('data'))")
    return [u for u in found if u and (OUT in u or _outside(u))]


def test_hostile_names_fetch_nothing_and_link_nowhere(streamlit_url, page, artifacts_dir):
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(f"{streamlit_url}/Data")
    wait_for_app(page)
    source = page.get_by_text("Upload a file", exact=True)
    source.wait_for(timeout=120000)   # a fresh server on a shared machine
    source.click()
    wait_for_app(page)
    page.set_input_files('input[type="file"]', files=[{"name": FILE_NAME, "mimeType": "text/csv",
                                                       "buffer": _csv()}])
    # the data set is named after the file: its heading shows the name as typed
    page.locator("h3").filter(has_text="**b** <img").first.wait_for(timeout=60000)
    wait_for_app(page)
    page.wait_for_selector(".js-plotly-plot .scatterlayer .point", timeout=60000)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(artifacts_dir / "hostile_names_data.png"), full_page=True)
    assert not _live_outside(page)

    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Convex Hulls", exact=True).click()
    wait_for_app(page)
    page.wait_for_selector(".js-plotly-plot", timeout=120000)
    wait_for_app(page)
    main = page.locator('[data-testid="stMain"]').inner_text()
    assert CLASSES[0] in main and "**b** ![i]" in main   # names shown as typed
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(artifacts_dir / "hostile_names_hulls.png"), full_page=True)
    assert not _live_outside(page)

    page.locator('[data-testid="stSidebarNav"] a').first.click()   # Home
    wait_for_app(page)
    page.locator('[data-testid="stMain"]').get_by_text(" samples × ", exact=False).first.wait_for(timeout=60000)
    assert not _live_outside(page)
    assert not [u for u in requests if _outside(u)], [u for u in requests if _outside(u)]
