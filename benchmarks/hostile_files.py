"""Small files that ask for much: the CPU, peak memory and outcome of reading each under the
classroom budget (``svmviz_app/budget.py``), every case in a subprocess of its own.

    python benchmarks/hostile_files.py [--timeout 60] [--only csv-labels,...]

Cases: a CSV of 150,000 one-letter labels and two labels of 2,000 characters (0.58 MB); the same
labels in a lesson file and in a model file's ``classes_``; a lesson of 100,000 classes of two
samples each. A case still running after ``--timeout`` seconds is stopped and reported so.
Peak memory is the child's maximum resident set (``wait4``), CPU its user + system time.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

LONG = "L" * 2000
N = 150_000


def _labels() -> list[str]:
    return ["a" if k % 2 else "b" for k in range(N)] + [LONG, LONG]


def make_csv(folder: Path) -> Path:
    path = folder / "labels.csv"
    path.write_text("".join(f"1,{c}\n" for c in _labels()))
    return path


def _lesson(y: list, X: list) -> dict:
    return {"format": "svmviz-lesson", "version": 1, "svmviz_version": "0",
            "dataset": {"name": "d", "source": "s", "feature_names": ["x1"], "class_names": [],
                        "X": {"__ndarray__": {"dtype": "float", "shape": [len(X), 1], "data": X}},
                        "y": {"__ndarray__": {"dtype": "str" if isinstance(y[0], str) else "int",
                                              "shape": [len(y)], "data": y}}},
            "state": {"data.test_fraction": 0.0}, "model": None}


def make_lesson_labels(folder: Path) -> Path:
    y = _labels()
    path = folder / "labels.lesson.json"
    path.write_text(json.dumps(_lesson(y, [1.0] * len(y)), separators=(",", ":")))
    return path


def make_lesson_classes(folder: Path) -> Path:
    y = [k // 2 for k in range(200_000)]
    path = folder / "classes.lesson.json"
    path.write_text(json.dumps(_lesson(y, [float(k % 97) for k in range(len(y))]), separators=(",", ":")))
    return path


def make_model_classes(folder: Path) -> Path:
    import numpy as np

    from svmviz.export import dumps_model
    from svmviz.models import BinarySVC

    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    doc = json.loads(dumps_model(BinarySVC(kernel="linear").fit(X, np.array(["a", "a", "b", "b"]))))
    labels = _labels()
    doc["model"]["fitted"]["classes_"] = {"__ndarray__": {"dtype": "str", "shape": [len(labels)], "data": labels}}
    path = folder / "classes.model.json"
    path.write_text(json.dumps(doc, separators=(",", ":")))
    return path


CASES = {
    "csv-labels": (make_csv, "from svmviz.data import load_dataset as read"),
    "lesson-labels": (make_lesson_labels,
                      "from svmviz.export.lesson import loads_lesson\nread = lambda p: loads_lesson(open(p, 'rb').read())"),
    "model-classes": (make_model_classes, "from svmviz.export import load_model as read"),
    "lesson-classes": (make_lesson_classes,
                       "from svmviz.export.lesson import loads_lesson\nread = lambda p: loads_lesson(open(p, 'rb').read())"),
}

_CHILD = """
import sys
from svmviz.limits import budget
from svmviz_app.budget import CLASSROOM
{reader}
with budget(CLASSROOM.replace(file_mb=50)):
    try:
        got = read(sys.argv[1])
        ds = getattr(got, "dataset", got)
        n = getattr(ds, "classes", getattr(ds, "classes_", []))
        print(f"accepted ({{len(n):,}} classes)")
    except ValueError as exc:
        print(f"refused: {{type(exc).__name__}}: {{str(exc)[:110]}}")
"""


def run_case(name: str, path: Path, timeout: float) -> dict:
    _, reader = CASES[name]
    proc = subprocess.Popen([sys.executable, "-c", _CHILD.format(reader=reader), str(path)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    timer = threading.Timer(timeout, lambda: os.kill(proc.pid, signal.SIGKILL))
    start = time.perf_counter()
    timer.start()
    _, status, usage = os.wait4(proc.pid, 0)
    timer.cancel()
    wall = time.perf_counter() - start
    out = proc.stdout.read().strip().splitlines()
    killed = os.WIFSIGNALED(status)
    outcome = f"stopped after {timeout:g} s (still running)" if killed else (out[-1] if out else "no output")
    return {"case": name, "file_mb": round(path.stat().st_size / 2**20, 2), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "wall_s": round(wall, 2), "peak_mb": round(usage.ru_maxrss / 1024), "outcome": outcome}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--only", default=",".join(CASES))
    args = ap.parse_args()
    print(f"load average: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.only.split(","):
            path = CASES[name][0](Path(tmp))
            row = run_case(name, path, args.timeout)
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
