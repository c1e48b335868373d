"""The sidebar's page icons in Chromium without an emoji font (headless, as on some lecture-room
machines): drawn with the Material Symbols font Streamlit serves, never as an emoji that falls
back to a missing-glyph box, and the browser tab's icon made on the server, not fetched from
fonts.gstatic.com. Screenshot in test-artifacts/."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from conftest import wait_for_app

pytestmark = pytest.mark.browser


def test_the_navigation_icons_are_material_symbols_and_the_tab_icon_is_local(streamlit_url, browser,
                                                                              artifacts_dir):
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    page = ctx.new_page()
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    try:
        page.goto(streamlit_url, timeout=120000)
        wait_for_app(page, 180000)
        nav = page.locator('[data-testid="stSidebarNav"]')
        # (before the script's navigation arrives, Streamlit lists the file "app")
        home = nav.locator('a[data-testid="stSidebarNavLink"]', has_text="Home")
        home.wait_for(timeout=60000)
        assert home.locator('[data-testid="stIconMaterial"]').count() == 1, home.inner_html()
        assert home.inner_text().split() == ["home", "Home"]   # the icon's ligature name, then the title
        assert nav.locator('[data-testid="stIconEmoji"]').count() == 0
        # the ligature is drawn by the Material font (loaded from the server), not spelled out
        page.wait_for_function("() => document.fonts.check('24px \"Material Symbols Rounded\"', 'home')",
                               timeout=60000)
        icon = home.locator('[data-testid="stIconMaterial"]').bounding_box()
        assert icon["width"] < 30, icon    # one glyph wide; the word "home" in a text font is ~40 px
        favicon = page.evaluate("() => document.querySelector('link[rel~=icon]').href")
        assert favicon.startswith("data:image/svg+xml"), favicon[:80]
        page.screenshot(path=str(artifacts_dir / "navigation_icons_1280x720.png"))
    finally:
        ctx.close()
    outside = [u for u in requests
               if u.startswith(("http:", "https:")) and urlparse(u).hostname not in ("127.0.0.1", "localhost")]
    assert not outside, outside
