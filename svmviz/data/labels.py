"""Class labels given as names, read as categories: each distinct name is kept once and every row
holds a code into them, so the cost of a file's labels is stated and checked before the per-row
array is built.

NumPy keeps text in fixed-width arrays as wide as the longest entry: one label of 2,000 characters
among 150,000 one-letter labels made every row 8 kB (2.4 GB from a 0.58 MB file). Here a name
longer than ``MAX_LABEL_CHARS`` is refused with its row, the number of classes is checked against
the work budget (``svmviz.limits``) before anything per class happens, and the memory of the
labels' array (rows × its width) is compared with what the budget lets a table take before it is
allocated. CSV, LIBSVM, lesson and model files all read their text labels here.
"""

from __future__ import annotations

import os
from typing import Callable

import numpy as np

from svmviz import limits
from svmviz.errors import DataError

#: The longest class name a file may give (characters). Class names are shown in legends, tables
#: and step lines; a hundred characters is already a sentence there.
MAX_LABEL_CHARS = 100
_BYTES_PER_CHAR = 4   # NumPy stores text as UCS-4


def label_bytes(n_rows: int, width: int) -> int:
    """Bytes of ``n_rows`` labels in a NumPy text array ``width`` characters wide."""
    return n_rows * max(width, 1) * _BYTES_PER_CHAR


def _memory_cap() -> tuple[int | None, str]:
    """Bytes the labels may take, and what sets that: under a budget the dense table its ``cells``
    bound allows (8 bytes a value), without one this machine's memory."""
    cells = limits.bound("cells")
    if cells is not None:
        return 8 * int(cells), f"the {8 * cells / 2**20:,.0f} MB a table may take here"
    try:
        have = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None, ""
    return have, f"this machine's {have / 2**30:,.1f} GB of memory"


def name_labels(values, what: str = "the data", row: Callable[[int], str] = lambda k: f"row {k + 1}",
                max_chars: int = MAX_LABEL_CHARS) -> np.ndarray:
    """``values`` (a sequence of class names) as a NumPy text array built from its distinct names
    and one code per row, after checking, in this order and each before the next costs anything:
    every name at most ``max_chars`` characters (else a ``DataError`` naming ``row(k)`` of the
    first such label), the number of classes (``limits.check_classes``), the array's memory."""
    import pandas as pd

    codes, names = pd.factorize(pd.Series(values, dtype=object, copy=False), sort=False)
    names = [str(v) for v in names]
    widths = [len(v) for v in names]
    long = next((j for j, w in enumerate(widths) if w > max_chars), None)
    if long is not None:
        k = int(np.flatnonzero(codes == long)[0])
        raise DataError(f"{row(k)}: the label {names[long][:40]!r}… is {widths[long]:,} characters long; "
                        f"a class name has at most {max_chars} characters")
    limits.check_classes(len(names), what)
    width = max(widths, default=1)
    need = label_bytes(len(codes), width)
    cap, where = _memory_cap()
    if cap is not None and need > cap:
        raise DataError(f"{what}: {len(codes):,} labels up to {width} characters long take "
                        f"{need / 2**20:,.0f} MB as text, more than {where}: use shorter class names")
    return np.array(names, dtype=f"<U{width}")[codes]
