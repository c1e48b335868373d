"""LIBSVM's ``fourclass_scale`` (Zapién Arreola, Fehr and Burkhardt 2007: the running example of §3, Figs. 3.4–3.11, and the
experiment of §5.1.3), fetched once into a user cache and checked against its known SHA-256
before it is used.

Where the file comes from, first match wins:

1. ``$SVMVIZ_DATA_DIR/fourclass_scale`` when that file exists (a folder the user manages);
2. the cache: ``data_home``, else ``$SVMVIZ_CACHE_DIR``, else the platform's user cache
   (``~/.cache/svmviz`` on Linux), when it holds a copy with the right hash;
3. a download from ``$SVMVIZ_FOURCLASS_URL`` (a mirror, or a local server in tests), else from
   LIBSVM's site, through pooch: streamed to a temporary file and kept only if its hash matches.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from svmviz.data.dataset import Dataset
from svmviz.errors import DataError

FOURCLASS_FILE = "fourclass_scale"
FOURCLASS_URL = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/fourclass_scale"
#: SHA-256 of LIBSVM's fourclass_scale (862 lines, 23,155 bytes)
FOURCLASS_SHA256 = "b0d75d26036e2ebb274d8bbc9d49fef85561cbd273771a21b6d27721db634f14"
#: Seconds to wait for the server to connect and then between bytes: offline, a page must not hang.
FETCH_TIMEOUT = 5.0

HOW_TO_GET = (f"download fourclass_scale from {FOURCLASS_URL} into a folder and set SVMVIZ_DATA_DIR "
              "to that folder (or upload the file on the Data page)")


def data_dir_path() -> Path | None:
    """``$SVMVIZ_DATA_DIR/fourclass_scale`` when the variable is set and the file is there."""
    d = os.environ.get("SVMVIZ_DATA_DIR")
    if d and (Path(d) / FOURCLASS_FILE).is_file():
        return Path(d) / FOURCLASS_FILE
    return None


def cache_dir(data_home=None) -> Path:
    """The folder the downloaded copy lives in."""
    if data_home is not None:
        return Path(data_home)
    if os.environ.get("SVMVIZ_CACHE_DIR"):
        return Path(os.environ["SVMVIZ_CACHE_DIR"])
    import pooch

    return Path(pooch.os_cache("svmviz"))


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


def cached_fourclass(data_home=None) -> Path | None:
    """The file from ``SVMVIZ_DATA_DIR`` or a cached copy with the known hash; never downloads."""
    p = data_dir_path()
    if p is not None:
        return p
    p = cache_dir(data_home) / FOURCLASS_FILE
    try:
        return p if p.is_file() and _sha256(p) == FOURCLASS_SHA256 else None
    except OSError:
        return None


def fourclass_file(data_home=None, url: str | None = None, timeout: float = FETCH_TIMEOUT) -> Path:
    """The path of a verified fourclass_scale, downloading it into the cache if needed.

    ``url`` defaults to ``$SVMVIZ_FOURCLASS_URL``, else LIBSVM's site. A file whose SHA-256 is
    not the known one is refused (``DataError``) and not kept; so is a failed download, with a
    one-line message saying how to get the file by hand.
    """
    p = cached_fourclass(data_home)
    if p is not None:
        return p
    import pooch
    import requests

    url = url or os.environ.get("SVMVIZ_FOURCLASS_URL") or FOURCLASS_URL
    folder = cache_dir(data_home)
    try:
        got = pooch.retrieve(url, known_hash=f"sha256:{FOURCLASS_SHA256}", fname=FOURCLASS_FILE, path=folder,
                             downloader=pooch.HTTPDownloader(progressbar=False, timeout=timeout))
    except ValueError:
        # pooch's hash check: the temporary download is deleted, nothing is cached
        raise DataError(f"the file downloaded from {url} is not fourclass_scale (its SHA-256 is not "
                        f"{FOURCLASS_SHA256[:12]}…) and was refused; {HOW_TO_GET}") from None
    except requests.RequestException as exc:
        raise DataError(f"cannot download fourclass_scale from {url} (offline? {type(exc).__name__}); "
                        f"{HOW_TO_GET}") from None
    except OSError as exc:
        raise DataError(f"cannot store fourclass_scale in {folder} ({exc.strerror}); pass another "
                        f"data_home or set SVMVIZ_CACHE_DIR; or {HOW_TO_GET}") from None
    return Path(got)


def read_fourclass(path: Path) -> Dataset:
    from svmviz.data.loaders import load_dataset

    ds = load_dataset(path, fmt="libsvm", name="fourclass")
    ds.source = str(path)
    return ds


def fetch_fourclass(data_home=None, url: str | None = None, timeout: float = FETCH_TIMEOUT) -> Dataset:
    """LIBSVM's fourclass (862 × 2, labels ±1, scaled to [-1, 1]) as a ``Dataset``.

    Downloaded once into the cache (``data_home``, ``$SVMVIZ_CACHE_DIR`` or the user cache) and
    checked by SHA-256; ``$SVMVIZ_DATA_DIR/fourclass_scale`` is used instead when it exists.
    Raises ``DataError`` when the file cannot be had (offline, wrong hash, unwritable cache).
    """
    return read_fourclass(fourclass_file(data_home, url, timeout))
