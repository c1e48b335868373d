"""CI's smoke test of the README's app command: the server at URL answers its health check, and
headless Chromium gets the home page with its text and the data set it opened on.

    python .ci/first_page.py http://localhost:8501 APP_LOG
"""

import sys
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

url, log = sys.argv[1], Path(sys.argv[2])
HOME_TEXT = "Explore five support-vector-machine methods step by step"


def fail(why: str) -> None:
    sys.exit(f"first page: {why}\n--- the app's terminal so far ---\n{log.read_text(errors='replace')}")


deadline = time.monotonic() + 300  # the pip install before the start included
while True:
    try:
        with urllib.request.urlopen(url + "/_stcore/health", timeout=5) as r:
            if r.status == 200 and r.read().strip() == b"ok":
                break
    except OSError:
        pass
    if time.monotonic() > deadline:
        fail(f"{url}/_stcore/health did not answer 'ok' within 300 s")
    time.sleep(1)
print(f"first page: {url}/_stcore/health answers ok")

with sync_playwright() as pw:
    browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=["--no-sandbox"])
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.goto(url, wait_until="domcontentloaded")
    try:
        page.wait_for_selector(f"text={HOME_TEXT}", timeout=180_000)
        page.wait_for_selector("text=Change it on the Data page", timeout=180_000)  # below the data's line
    except Exception as exc:  # Playwright's timeout: say what was on screen
        fail(f"the home page did not show its text ({exc}); on screen: {page.inner_text('body')[:2000]!r}")
    main = page.inner_text("[data-testid='stMain']")
    browser.close()
data = main.split("Current data", 1)[1].split("Change it on the Data page", 1)[0].strip()
print(f"first page: the home page is served; its current data: {data}")
