"""Read the decided regions back from a figure: the filled polygon traces of ``svmviz.plots.regions``
by their legend group, and the label each gives to points of the plane."""

from __future__ import annotations

import numpy as np

from svmviz.plots.regions import inside_rings


def region_traces(fig, subplot: str | None = None) -> dict[str, list]:
    """The filled region traces of ``fig`` (of one subplot's x-axis, e.g. "x2") by name: a region
    may be drawn in several pieces (one per leaf of a tree decomposition)."""
    out: dict[str, list] = {}
    for t in fig.data:
        if getattr(t, "fill", None) == "toself" and t.legendgroup and (subplot is None or (t.xaxis or "x") == subplot):
            out.setdefault(t.name, []).append(t)
    return out


def rings_of(trace) -> list[np.ndarray]:
    """The polygons of one filled trace (its sub-paths are separated by None)."""
    rings, cur = [], []
    for x, y in zip(list(trace.x) + [None], list(trace.y) + [None]):
        if x is None:
            if cur:
                rings.append(np.array(cur + [cur[0]], dtype=float))
            cur = []
        else:
            cur.append((x, y))
    return rings


def labels_from_regions(fig, names: dict[str, object], P: np.ndarray, subplot: str | None = None):
    """(label of each point of ``P`` by the region traces named in ``names`` → label, number of
    regions holding it): a label of None where no region holds the point."""
    traces = region_traces(fig, subplot)
    label = np.full(len(P), None, dtype=object)
    hits = np.zeros(len(P), dtype=np.int64)
    for name, value in names.items():
        if name not in traces:
            continue
        inside = inside_rings([r for t in traces[name] for r in rings_of(t)], P)
        label[inside] = value
        hits += inside
    return label, hits


def clear_of_boundaries(predict, P: np.ndarray, h: float) -> np.ndarray:
    """Points whose label is the same ``h`` away in the 8 directions: farther than h from every
    boundary, where a traced region must agree with the model."""
    base = np.asarray(predict(P))
    ok = np.ones(len(P), dtype=bool)
    for dx in (-h, 0.0, h):
        for dy in (-h, 0.0, h):
            if dx or dy:
                ok &= np.asarray(predict(P + np.array([dx, dy]))) == base
    return ok
