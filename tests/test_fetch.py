"""fetch_fourclass and the default data set, against a local HTTP server on 127.0.0.1: never the
real internet, always a temporary cache folder."""

from __future__ import annotations

import functools
import hashlib
import http.server
import shutil
import socket
import threading
from pathlib import Path

import numpy as np
import pytest

from svmviz.data import builtins, fetch, fetch_fourclass, load_builtin
from svmviz.errors import DataError

class _Server:
    """A static file server on a free loopback port that counts the requests it answers."""

    def __init__(self, folder: Path):
        self.requests: list[str] = []
        outer = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):
                outer.requests.append(self.path)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                                     functools.partial(Handler, directory=str(folder)))
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def url(self, name: str = fetch.FOURCLASS_FILE) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/{name}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def _libsvm_file(path: Path, n: int = 60, seed: int = 0) -> str:
    """A small fourclass-like file in LIBSVM format; returns its SHA-256."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
    path.write_text("".join(f"{c:+d} 1:{a:.6f} 2:{b:.6f}\n" for c, (a, b) in zip(y, X)))
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def served(tmp_path, monkeypatch):
    """A served folder holding a generated fourclass_scale whose hash is made the known one."""
    monkeypatch.delenv("SVMVIZ_DATA_DIR", raising=False)
    monkeypatch.delenv("SVMVIZ_FOURCLASS_URL", raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    folder = tmp_path / "www"
    folder.mkdir()
    digest = _libsvm_file(folder / fetch.FOURCLASS_FILE)
    monkeypatch.setattr(fetch, "FOURCLASS_SHA256", digest)
    server = _Server(folder)
    yield server, folder, tmp_path / "cache"
    server.close()


def _closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/{fetch.FOURCLASS_FILE}"


def test_download_once_then_cache_hit(served):
    server, folder, cache = served
    ds = fetch_fourclass(data_home=cache, url=server.url())
    assert ds.X.shape == (60, 2) and set(ds.y.tolist()) == {-1, 1}
    assert (cache / fetch.FOURCLASS_FILE).read_bytes() == (folder / fetch.FOURCLASS_FILE).read_bytes()
    assert len(server.requests) == 1
    again = fetch_fourclass(data_home=cache, url=server.url())
    np.testing.assert_array_equal(again.X, ds.X)
    assert len(server.requests) == 1  # the verified cached copy was used


def test_url_from_environment(served, monkeypatch):
    server, _, cache = served
    monkeypatch.setenv("SVMVIZ_FOURCLASS_URL", server.url())
    assert fetch_fourclass(data_home=cache).n_samples == 60
    assert server.requests == [f"/{fetch.FOURCLASS_FILE}"]


def test_wrong_hash_is_refused_and_not_kept(served):
    server, folder, cache = served
    _libsvm_file(folder / "other", seed=1)  # same format, other content
    with pytest.raises(DataError, match="refused") as err:
        fetch_fourclass(data_home=cache, url=server.url("other"))
    assert "\n" not in str(err.value) and "SVMVIZ_DATA_DIR" in str(err.value)
    assert not (cache / fetch.FOURCLASS_FILE).exists()
    assert not any(cache.iterdir())  # pooch's temporary download is gone too


def test_tampered_cache_is_downloaded_again(served):
    server, folder, cache = served
    cache.mkdir()
    (cache / fetch.FOURCLASS_FILE).write_text("+1 1:0.5 2:0.5\n-1 1:-0.5 2:-0.5\n")
    assert fetch.cached_fourclass(cache) is None
    fetch_fourclass(data_home=cache, url=server.url())
    assert len(server.requests) == 1
    assert fetch.cached_fourclass(cache) == cache / fetch.FOURCLASS_FILE


def test_data_dir_wins(served, tmp_path, monkeypatch):
    server, _, cache = served
    mine = tmp_path / "mine"
    mine.mkdir()
    _libsvm_file(mine / fetch.FOURCLASS_FILE, n=40, seed=2)  # not hash-checked: the user's folder
    monkeypatch.setenv("SVMVIZ_DATA_DIR", str(mine))
    ds = fetch_fourclass(data_home=cache, url=server.url())
    assert ds.n_samples == 40 and ds.source == str(mine / fetch.FOURCLASS_FILE)
    assert server.requests == [] and not cache.exists()


@pytest.mark.parametrize("where", ["closed port", "missing file"])
def test_unreachable_gives_one_line_how_to(served, where):
    server, _, cache = served
    url = _closed_port_url() if where == "closed port" else server.url("nothing_here")
    with pytest.raises(DataError, match="cannot download fourclass_scale") as err:
        fetch_fourclass(data_home=cache, url=url, timeout=2)
    msg = str(err.value)
    assert "\n" not in msg and "SVMVIZ_DATA_DIR" in msg and fetch.FOURCLASS_URL in msg


@pytest.mark.real_data
def test_real_fourclass_served_locally(tmp_path, monkeypatch):
    real = fetch.data_dir_path()
    if real is None:
        pytest.skip("fourclass_scale is not in $SVMVIZ_DATA_DIR (the generated-file tests cover the path)")
    monkeypatch.delenv("SVMVIZ_DATA_DIR", raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    folder = tmp_path / "www"
    folder.mkdir()
    shutil.copy(real, folder / fetch.FOURCLASS_FILE)
    server = _Server(folder)
    try:
        ds = fetch_fourclass(data_home=tmp_path / "cache", url=server.url())  # the real known hash
    finally:
        server.close()
    assert ds.X.shape == (862, 2) and set(ds.y.tolist()) == {-1, 1}
    assert ds.X.min() >= -1 and ds.X.max() <= 1


@pytest.fixture
def fresh_default(served, monkeypatch):
    """The builtins' process-wide download attempt reset, the cache in a temporary folder."""
    server, folder, cache = served
    monkeypatch.setattr(builtins, "_fetch_error", None)
    monkeypatch.setenv("SVMVIZ_CACHE_DIR", str(cache))
    return server


def test_default_is_fourclass_when_it_can_be_fetched(fresh_default, monkeypatch):
    monkeypatch.setenv("SVMVIZ_FOURCLASS_URL", fresh_default.url())
    assert builtins.fourclass_path() is None  # not there before
    assert builtins.default_dataset_name() == "fourclass"
    assert builtins.fourclass_note() is None
    assert load_builtin("fourclass").n_samples == 60
    assert builtins.fourclass_path() is not None and len(fresh_default.requests) == 1


def test_offline_default_falls_back_once_per_process(fresh_default, monkeypatch):
    monkeypatch.setenv("SVMVIZ_FOURCLASS_URL", _closed_port_url())
    assert builtins.default_dataset_name() == "fourclass_like"
    note = builtins.fourclass_note()
    assert note and "\n" not in note and "fourclass-like" in note and "SVMVIZ_DATA_DIR" in note
    with pytest.raises(DataError, match="not available"):
        load_builtin("fourclass")
    # the failure is remembered: a reachable server is not asked again in this process
    monkeypatch.setenv("SVMVIZ_FOURCLASS_URL", fresh_default.url())
    assert builtins.default_dataset_name() == "fourclass_like"
    assert fresh_default.requests == []


def test_default_uses_the_cache_without_network(fresh_default, monkeypatch, tmp_path):
    shutil.copytree(tmp_path / "www", tmp_path / "cache")  # as left by an earlier download
    monkeypatch.setenv("SVMVIZ_FOURCLASS_URL", _closed_port_url())
    assert builtins.default_dataset_name() == "fourclass"
    assert builtins.fourclass_note() is None and fresh_default.requests == []
