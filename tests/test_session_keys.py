"""The app's own entries in a session's state are named in one module (``svmviz_app.session_keys``):
no other module of the app writes an ``_svmviz_`` key of its own, and no two names share a key."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _app_sources():
    yield ROOT / "app.py"
    yield from sorted((ROOT / "pages").glob("*.py"))
    yield from sorted((ROOT / "svmviz_app").glob("*.py"))


def test_no_session_key_is_spelled_outside_its_module():
    spelled = [f"{p.relative_to(ROOT)}:{n}" for p in _app_sources() if p.name != "session_keys.py"
               for n, line in enumerate(p.read_text().splitlines(), 1) if "_svmviz_" in line]
    assert spelled == []


def test_every_session_key_is_its_own():
    from svmviz_app import session_keys

    keys = {name: v for name, v in vars(session_keys).items() if name.isupper() and isinstance(v, str)}
    assert keys and all(v.startswith("_svmviz_") for v in keys.values())
    assert len(set(keys.values())) == len(keys)
    prefixes = [v for v in keys.values() if v.endswith("_")]
    assert not [v for v in keys.values() for p in prefixes if v != p and v.startswith(p)]
    # the per-page keys cannot be taken for one another or for a fixed key
    page_keys = {session_keys.imported_model("dag"), session_keys.import_seen("dag")}
    assert len(page_keys) == 2 and not page_keys & set(keys.values())
    assert re.fullmatch(r"_svmviz_\w+", session_keys.imported_model("tree"))
