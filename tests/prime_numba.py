"""Fill Numba's on-disk cache for the test run (``conftest`` runs this before the xdist workers get
their first test), in two processes side by side: ``pages``, the pages' solver code as a server's
warming loads it; ``large``, the SMO solver's float32-column path, which only problems whose
float64 kernel columns do not all fit in the cache take (the library's large fits; the pages never
do)."""

from __future__ import annotations

import sys

PARTS = ("pages", "large")


def main(part: str) -> None:
    if part == "pages":
        from svmviz_app.warm import warm

        warm()
        return
    from svmviz.data.generators import gaussians_on_circle
    from svmviz.models import BinaryNuSVC, BinarySVC, param_spec
    from svmviz.solvers.smo import AUTO_FLOAT32_N

    wide = gaussians_on_circle(n_classes=2, n_per_class=AUTO_FLOAT32_N // 2, spacing=4.0, seed=0)
    for kernel in param_spec(BinarySVC, "kernel"):
        # their float64 columns (128 MB) beyond a 16 MB cache: float32 columns, on demand
        BinarySVC(kernel=kernel, cache_mb=16).fit(wide.X, wide.y)
        BinaryNuSVC(kernel=kernel, cache_mb=16).fit(wide.X, wide.y)


if __name__ == "__main__":
    main(sys.argv[1])
