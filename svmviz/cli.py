"""The ``svmviz`` command line.

    svmviz datasets                                   list the built-in data sets
    svmviz plot-data NAME --out FILE                  the data plot as .html/.png/.svg
    svmviz fit ESTIMATOR DATA [--param k=v ...] [--test-size F] [--seed S] --out model.json
    svmviz predict MODEL.json DATA [--out predictions.csv]

DATA is a built-in name (see ``svmviz datasets``) or a CSV/LIBSVM file. Bad input ends with a
one-line message on stderr and exit code 2; work longer than a second shows a progress bar on
stderr; Ctrl-C stops it with one line and exit code 130. Nothing is refused on size unless
``--budget KEY=N[,KEY=N...]`` (the bounds of ``svmviz.limits.Budget``, e.g.
``--budget solver_samples=10000,search_work=25e6`` on a shared machine) says so; work that is
large for one machine warns.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np
from tqdm import tqdm

from svmviz.errors import SvmvizError

EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130   # the shell's code for a command ended by SIGINT
BAR_DELAY_S = 1.0        # work shorter than this draws no bar
BAR_MIN_INTERVAL_S = 0.1   # the bar redraws at most this often


def _terminal_columns(stream) -> int | None:
    """Columns of the terminal ``stream`` writes to; None when it is no terminal (or has no file)."""
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):   # io.UnsupportedOperation is both
        return None


class Progress:
    """A progress bar on stderr (tqdm) for work that lasts longer than ``delay`` seconds. On a
    terminal it redraws one line; elsewhere (logs, CI) it prints only the finished line, so
    captured output stays readable. Work without steps shows the elapsed time."""

    def __init__(self, label: str, total: int | None = None, stream=None, delay: float | None = None):
        self.label, self.total = label, total
        self.stream = sys.stderr if stream is None else stream
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        self.done = 0
        self.t0 = time.perf_counter()
        # a terminal that reports no size (0 columns: a pty opened without one, as script(1) or a
        # container's exec may) would get no bar from tqdm: it gets a fixed 80 × 24 instead
        sized = _terminal_columns(self.stream) != 0
        self.bar = tqdm(total=total, desc=label, file=self.stream,
                        delay=BAR_DELAY_S if delay is None else delay, disable=not self.live,
                        leave=False, dynamic_ncols=sized, ncols=None if sized else 80,
                        nrows=None if sized else 24, mininterval=BAR_MIN_INTERVAL_S, unit="step")
        self._spin: threading.Thread | None = None
        self._stop = threading.Event()

    def update(self, n: int = 1) -> None:
        self.done += n
        self.bar.update(n)

    def __call__(self, done: int, total: int) -> None:
        """The library's ``progress(done, total)`` callback (SVM tree, TD, DAG, Scatter, guard
        vectors): the bar takes the estimator's own count of steps."""
        total, done = (int(total) or None), int(done)   # 0: the solver does not know its total
        if total != self.total:
            self.total = self.bar.total = total
        self.update(done - self.done)

    def line(self) -> str:
        steps = f" {self.done}/{self.total}" if self.total else ""
        return f"{self.label}{steps} done in {time.perf_counter() - self.t0:.1f} s"

    def __enter__(self) -> "Progress":
        if self.live:  # the elapsed time moves on between the estimator's reports
            self._spin = threading.Thread(target=self._tick, daemon=True)
            self._spin.start()
        return self

    def _tick(self) -> None:
        while not self._stop.wait(0.25):
            self.bar.update(0)

    def __exit__(self, exc_type, *_):
        self._stop.set()
        if self._spin is not None:
            self._spin.join()
        self.bar.close()
        if exc_type is None:
            self.stream.write(self.line() + "\n")
        self.stream.flush()


# --- helpers ------------------------------------------------------------------------------------

def _dataset(spec: str):
    """A local file wins over a built-in of the same name; stderr says which was used."""
    from svmviz.data import BUILTINS, DataError, load_builtin, load_dataset

    path = Path(spec)
    if spec in BUILTINS and not path.is_file():
        return load_builtin(spec)
    if path.exists() or path.is_symlink():
        if spec in BUILTINS:
            print(f"svmviz: using the local file {spec!r}, not the built-in data set of that name "
                  f"(give ./{spec} or rename the file to silence this)", file=sys.stderr)
        return load_dataset(path)
    raise DataError(f"{spec!r} is neither a built-in data set ({', '.join(BUILTINS)}) nor a file")


def _param_value(text: str):
    """JSON literals (numbers, true/false/null, lists) become those values; anything else a string."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def _params(pairs: list[str]) -> dict:
    from svmviz.errors import ParameterError

    out = {}
    for p in pairs:
        key, sep, value = p.partition("=")
        if not sep or not key.strip():
            raise ParameterError(f"--param expects key=value, got {p!r}")
        out[key.strip()] = _param_value(value.strip())
    return out


def parse_budget(text: str | None):
    """``KEY=N[,KEY=N...]`` as a ``svmviz.limits.Budget`` (None: no budget)."""
    from svmviz.errors import ParameterError
    from svmviz.limits import Budget

    if text is None:
        return None
    names, bounds = Budget.bound_names(), {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in names:
            raise ParameterError(f"--budget expects KEY=N[,KEY=N...] with KEY one of {', '.join(names)}; "
                                 f"got {part!r}")
        try:
            number = float(value)
        except ValueError:
            number = float("nan")
        if not number > 0 or number == float("inf"):
            raise ParameterError(f"--budget {key} must be a positive number, got {value.strip()!r}")
        bounds[key] = int(number) if number.is_integer() else number
    if not bounds:
        raise ParameterError("--budget names no bound: give KEY=N[,KEY=N...]")
    return Budget(scope="the --budget", **bounds)


def _estimators() -> dict[str, type]:
    import svmviz.models

    return dict(svmviz.models.ESTIMATORS)


def _predict(model, X: np.ndarray, label: str) -> np.ndarray:
    chunk = 2000
    parts = []
    with Progress(label, total=X.shape[0]) as bar:
        for s in range(0, X.shape[0], chunk):
            parts.append(np.asarray(model.predict(X[s:s + chunk])))
            bar.update(min(chunk, X.shape[0] - s))
    return np.concatenate(parts)


# --- commands -----------------------------------------------------------------------------------

def cmd_datasets(args) -> None:
    from svmviz.data import BUILTINS, FOURCLASS_URL, fourclass_path

    width = max(map(len, BUILTINS))
    for name, b in BUILTINS.items():
        note = ""
        if name == "fourclass" and fourclass_path() is None:
            note = f"  [not installed: set SVMVIZ_DATA_DIR to a folder with fourclass_scale from {FOURCLASS_URL}]"
        print(f"{name:<{width}}  {b.title} — {b.description}{note}")


def cmd_plot_data(args) -> None:
    from svmviz.export import export_figure
    from svmviz.plots.data import plot_dataset

    ds = _dataset(args.name)
    features = tuple(j - 1 for j in args.features)
    fig = plot_dataset(ds, features, "pca" if args.pca else "features")
    with Progress(f"writing {args.out}"):
        export_figure(fig, args.out)


def cmd_fit(args) -> None:
    from svmviz.data import train_test_split
    from svmviz.errors import ParameterError
    from svmviz.export import save_model

    estimators = _estimators()
    if args.estimator not in estimators:
        raise ParameterError(f"unknown estimator {args.estimator!r}; choose one of {', '.join(sorted(estimators))}")
    ds = _dataset(args.data)
    if args.test_size:
        train, test = train_test_split(ds, args.test_size, args.seed)
    else:
        train, test = ds, None
    params = _params(args.param)
    try:
        model = estimators[args.estimator](**params)
        with Progress(f"fitting {args.estimator} on {train.n_samples} samples") as bar:
            if "progress" in inspect.signature(model.fit).parameters:
                model.fit(train.X, train.y, progress=bar)
            else:
                model.fit(train.X, train.y)
    except TypeError as exc:  # an unknown parameter, or a value of the wrong type
        raise ParameterError(f"{args.estimator} cannot be fitted with {params}: {exc}") from None
    train_acc = float(np.mean(_predict(model, train.X, "predicting the training part") == train.y))
    print(f"train accuracy: {train_acc:.4f} ({train.n_samples} samples)")
    if test is not None:
        test_acc = float(np.mean(_predict(model, test.X, "predicting the test part") == test.y))
        print(f"test accuracy:  {test_acc:.4f} ({test.n_samples} samples)")
    save_model(model, args.out)
    print(f"model written to {args.out}")


def cmd_predict(args) -> None:
    import pandas as pd

    from svmviz.data.dataset import csv_cell
    from svmviz.errors import DataError
    from svmviz.export import load_model

    model = load_model(args.model)
    ds = _dataset(args.data)
    expected = getattr(model, "n_features_in_", ds.n_features)
    if expected != ds.n_features:
        raise DataError(f"the model was trained on {expected} features but {args.data} has {ds.n_features}")
    pred = _predict(model, ds.X, f"predicting {ds.n_samples} samples")
    print(f"accuracy: {float(np.mean(pred == ds.y)):.4f} ({ds.n_samples} samples)")
    if args.out:
        # feature names and labels come from the user's file: a cell "=cmd|..." must not become a
        # formula when a spreadsheet opens the output
        table = pd.DataFrame(ds.X, columns=[csv_cell(f) for f in ds.feature_names])
        table["label"] = [csv_cell(v) for v in ds.y.tolist()]
        table["prediction"] = [csv_cell(v) for v in pred.tolist()]
        table.to_csv(args.out, index=False)
        print(f"predictions written to {args.out}")


def _warning_line(message, category, *_args, **_kw) -> None:
    """A warning on the command line is one line on stderr (no source location)."""
    print(f"svmviz: {category.__name__}: " + " ".join(str(message).split()), file=sys.stderr)


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit code 2 (argparse prints the whole usage otherwise)
        self.exit(EXIT_BAD_INPUT, f"svmviz: error: {message} (see svmviz --help)\n")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="svmviz", description="svmviz: five SVM methods step by step (the app: streamlit run app.py)")
    p.add_argument("--budget", metavar="KEY=N[,KEY=N...]",
                   help="refuse work above these bounds before it starts (svmviz.limits.Budget: e.g. "
                        "solver_samples=10000,search_work=25e6,file_mb=50); default: no bound")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    s = sub.add_parser("datasets", help="list the built-in data sets")
    s.set_defaults(func=cmd_datasets)

    s = sub.add_parser("plot-data", help="write the data plot (.html, .png or .svg)")
    s.add_argument("name", help="a built-in name or a CSV/LIBSVM file")
    s.add_argument("--out", required=True, help="output file; the format follows its extension")
    s.add_argument("--features", type=int, nargs=2, default=(1, 2), metavar=("I", "J"),
                   help="the two features (1-based) to plot when there are more than two")
    s.add_argument("--pca", action="store_true", help="plot the PCA plane instead of two features")
    s.set_defaults(func=cmd_plot_data)

    s = sub.add_parser("fit", help="fit a registered estimator, print accuracies, save it as JSON")
    s.add_argument("estimator", help="a registered estimator, e.g. BinarySVC")
    s.add_argument("data", help="a built-in name or a CSV/LIBSVM file")
    s.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="an estimator parameter (repeatable); values are JSON literals or strings")
    s.add_argument("--test-size", type=float, default=0.3, help="test fraction (0: no test part)")
    s.add_argument("--seed", type=int, default=0, help="seed of the stratified split")
    s.add_argument("--out", required=True, help="where to write the model (JSON)")
    s.set_defaults(func=cmd_fit)

    s = sub.add_parser("predict", help="predict a labelled data set with a saved model")
    s.add_argument("model", help="a model file written by svmviz fit or the app")
    s.add_argument("data", help="a built-in name or a CSV/LIBSVM file")
    s.add_argument("--out", help="write features, label and prediction as CSV")
    s.set_defaults(func=cmd_predict)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (2 for bad input, 0 otherwise)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error already reported on one line
        return int(exc.code or 0)
    from svmviz.limits import budget

    try:
        bounds = parse_budget(args.budget)
        with budget(bounds), warnings.catch_warnings():
            warnings.showwarning = _warning_line
            args.func(args)
    except KeyboardInterrupt:
        print(f"\nsvmviz: stopped (Ctrl-C) during {args.command}; nothing more was written", file=sys.stderr)
        return EXIT_INTERRUPTED
    except (SvmvizError, ValueError, ArithmeticError) as exc:  # every bad input: one line, exit 2
        print("svmviz: error: " + " ".join(str(exc).split()), file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        print(f"svmviz: error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), file=sys.stderr)
        return EXIT_BAD_INPUT
    return 0


if __name__ == "__main__":
    sys.exit(main())
