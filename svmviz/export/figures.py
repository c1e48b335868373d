"""Figures to files: HTML always (self-contained), PNG/SVG through kaleido and a Chromium."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from svmviz.errors import SvmvizError

FORMATS = ("html", "png", "svg")


class ExportError(SvmvizError):
    """A figure cannot be written in the asked format (e.g. no browser for PNG/SVG)."""


def _browser() -> str | None:
    for name in (os.environ.get("BROWSER_PATH"), "chromium", "chromium-browser", "google-chrome",
                 "chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def image_export_available() -> bool:
    """Whether PNG/SVG export can work here (a Chrome/Chromium for kaleido was found)."""
    return _browser() is not None


def figure_bytes(fig, fmt: str) -> bytes:
    """The figure as ``fmt`` bytes ("html", "png" or "svg")."""
    fmt = fmt.lower().lstrip(".")
    if fmt == "html":
        # animations wait for the reader's Play: Plotly would start them on load
        return fig.to_html(include_plotlyjs=True, full_html=True, auto_play=False).encode("utf-8")
    if fmt not in ("png", "svg"):
        raise ExportError(f"unknown figure format {fmt!r}; use one of {', '.join(FORMATS)}")
    browser = _browser()
    if browser is None:
        raise ExportError(f"{fmt.upper()} export needs Chrome or Chromium (kaleido drives it) and "
                          "none was found; install it (Debian: apt-get install chromium) or export HTML")
    os.environ["BROWSER_PATH"] = browser  # kaleido's choreographer reads it; keep it a valid path
    try:
        import kaleido  # noqa: F401
    except ImportError:
        raise ExportError(f"{fmt.upper()} export needs the 'kaleido' package") from None
    try:
        return fig.to_image(format=fmt, scale=2 if fmt == "png" else 1)
    except Exception as exc:  # kaleido reports browser problems with many exception types
        raise ExportError(f"{fmt.upper()} export failed: {exc}") from None


def export_figure(fig, path) -> Path:
    """Write ``fig`` to ``path``; the format follows the file name (.html, .png, .svg)."""
    path = Path(path)
    data = figure_bytes(fig, path.suffix or ".html")
    path.write_bytes(data)
    return path
