"""The svmviz command line: datasets, plot-data, fit, predict; bad input is one line and exit 2."""

from __future__ import annotations

import csv
import io
import pathlib
import re
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from svmviz.cli import Progress, main
from svmviz.data import BUILTINS, load_builtin
from svmviz.export import dumps_model, load_model
from svmviz.models import BinarySVC

ROOT = Path(__file__).resolve().parents[1]
SMALL_FIT = ["--param", "solver=cvxpy", "--param", "kernel=linear", "--param", "C=0.5"]


def test_datasets_lists_every_builtin(capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out] == list(BUILTINS)


def test_plot_data_html(tmp_path, capsys):
    out = tmp_path / "wine.html"
    assert main(["plot-data", "wine", "--features", "1", "7", "--out", str(out)]) == 0
    html = out.read_text()
    assert "alcohol" in html and "flavanoids" in html  # the two chosen features label the axes
    assert main(["plot-data", "wine", "--pca", "--out", str(out)]) == 0
    assert "PCA component 1" in out.read_text()
    assert "done" in capsys.readouterr().err  # the progress line


def test_plot_data_from_a_file(tmp_path):
    src = tmp_path / "pts.csv"
    src.write_text("a,b,label\n0,0,x\n1,1,x\n5,5,y\n6,6,y\n")
    assert main(["plot-data", str(src), "--out", str(tmp_path / "p.html")]) == 0


def test_fit_then_predict_round_trip(tmp_path, capsys):
    model_path = tmp_path / "m.json"
    assert main(["fit", "BinarySVC", "hypercubes", *SMALL_FIT, "--test-size", "0.25", "--seed", "1",
                 "--out", str(model_path)]) == 0
    out = capsys.readouterr().out
    assert "train accuracy: 1.0000 (150 samples)" in out  # the hypercubes are far apart
    assert "test accuracy:  1.0000 (50 samples)" in out
    model = load_model(model_path)
    assert model.get_params()["C"] == 0.5 and model.kernel == "linear"
    preds = tmp_path / "p.csv"
    assert main(["predict", str(model_path), "hypercubes", "--out", str(preds)]) == 0
    assert "accuracy: 1.0000 (200 samples)" in capsys.readouterr().out
    table = np.genfromtxt(preds, delimiter=",", names=True)
    np.testing.assert_array_equal(table["prediction"], load_builtin("hypercubes").y)


@pytest.mark.parametrize("argv,words", [
    (["fit", "NoSuchSVC", "iris", "--out", "m.json"], "unknown estimator 'NoSuchSVC'; choose one of"),
    (["fit", "BinarySVC", "no_such_data", "--out", "m.json"], "neither a built-in data set"),
    (["fit", "BinarySVC", "iris", *SMALL_FIT, "--out", "m.json"], "handles 2 classes"),
    (["fit", "BinarySVC", "hypercubes", "--param", "C", "--out", "m.json"], "--param expects key=value"),
    (["fit", "BinarySVC", "hypercubes", "--param", "colour=red", "--out", "m.json"], "cannot be fitted with"),
    (["fit", "BinarySVC", "hypercubes", "--test-size", "1.5", "--out", "m.json"], "test fraction"),
    (["fit", "BinarySVC"], "the following arguments are required"),
    (["plot-data", "iris", "--out", "plot.jpg"], "unknown figure format"),
    (["plot-data", "iris", "--features", "1", "9", "--out", "p.html"], "choose two different features"),
    (["predict", "missing.json", "iris"], "cannot read missing.json: no such file"),
    (["predict", "bad.json", "iris"], "not a svmviz model file"),
    (["frobnicate"], "invalid choice"),
    ([], "required: command"),
])
def test_bad_input_is_one_line_and_exit_code_2(argv, words, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.json").write_text('{"format": "pickle"}')
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("svmviz: error: ") and words in err[0], err
    assert not (tmp_path / "m.json").exists()


def test_predict_refuses_data_with_other_features(tmp_path, capsys):
    model_path = tmp_path / "m.json"
    assert main(["fit", "BinarySVC", "hypercubes", *SMALL_FIT, "--test-size", "0", "--out", str(model_path)]) == 0
    assert main(["predict", str(model_path), "sensitivity_5d"]) == 2
    assert "trained on 2 features but sensitivity_5d has 5" in capsys.readouterr().err


def test_console_script_and_module_entry_points(tmp_path):
    """The installed ``svmviz`` script and ``python -m svmviz``: no traceback on bad input."""
    run = subprocess.run([sys.executable, "-m", "svmviz", "plot-data", "nope", "--out", "x.html"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.count("\n") == 1
    ok = subprocess.run([sys.executable, "-m", "svmviz", "datasets"], capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0 and "fourclass_like" in ok.stdout
    scripts = json.loads(subprocess.run(
        [sys.executable, "-c", "import json, importlib.metadata as m; print(json.dumps("
         "[e.value for e in m.entry_points(group='console_scripts') if e.name == 'svmviz']))"],
        capture_output=True, text=True, timeout=60).stdout)
    assert scripts == ["svmviz.cli:main"]


def test_progress_bar_draws_on_a_terminal_and_stays_quiet_in_logs():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty = Tty()
    with Progress("work", total=4, stream=tty, delay=0) as bar:
        time.sleep(0.2)   # the bar redraws at most every 0.1 s
        bar.update(2)
        assert "work" in tty.getvalue() and "2/4" in tty.getvalue()
        bar.update(2)
    assert tty.getvalue().rstrip().endswith("s") and "work 4/4 done in" in tty.getvalue()
    log = io.StringIO()
    with Progress("work", total=4, stream=log, delay=0) as bar:
        bar.update(4)
    assert log.getvalue().count("\n") == 1 and "\r" not in log.getvalue()
    short = Tty()
    with Progress("work", total=4, stream=short, delay=60) as bar:   # shorter than the delay: no bar
        bar.update(4)
    assert short.getvalue().startswith("work 4/4 done in")


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_progress_bar_draws_on_a_terminal_that_reports_no_size():
    """A pseudo-terminal opened without a window size (script(1) without a terminal, some
    container and CI ptys) reports 0 columns: the bar is drawn at a default width."""
    master, slave = os.openpty()
    assert os.get_terminal_size(slave).columns == 0
    os.set_blocking(master, False)
    with os.fdopen(slave, "w") as tty:
        with Progress("work", total=4, stream=tty, delay=0) as bar:
            time.sleep(0.2)   # the bar redraws at most every 0.1 s
            bar.update(2)
            tty.flush()
        drawn = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except BlockingIOError:
                break
            if not chunk:
                break
            drawn += chunk
    os.close(master)
    text = drawn.decode("utf-8", "replace")
    assert "2/4" in text and "%|" in text, text


def test_fit_shows_the_estimators_own_steps(tmp_path, monkeypatch):
    """An estimator whose fit reports progress(done, total) drives the CLI's bar (here the SVM
    tree's steps); the bar ends at the estimator's total."""
    import svmviz.cli as cli

    class Tty(io.StringIO):
        def isatty(self):
            return True

    err = Tty()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(cli, "BAR_DELAY_S", 0.0)   # the fit is shorter than the bar's second
    # and than the bar's redraw interval once the solvers are compiled: every step is drawn
    monkeypatch.setattr(cli, "BAR_MIN_INTERVAL_S", 0.0)
    out = tmp_path / "tree.json"
    main(["fit", "SVMTreeClassifier", "fourclass_like", "--out", str(out)])
    text = err.getvalue()
    counts = re.findall(r"fitting SVMTreeClassifier on \d+ samples:.*?\| *(\d+)/(\d+)", text)
    assert len(counts) >= 2, text[-500:]
    final = re.findall(r"fitting SVMTreeClassifier on \d+ samples (\d+)/(\d+) done in", text)
    done, total = map(int, final[-1])
    assert done == total > 1 and int(counts[-1][1]) == total
    assert out.exists()


def test_a_budget_on_the_command_line_refuses_before_the_work(tmp_path, capsys):
    data = tmp_path / "blobs.csv"
    data.write_text("x1,x2,label\n" + "".join(f"{x:.6f},{z:.6f},{c}\n" for (x, z), c in zip(BLOBS_X, BLOBS_Y)))
    out = tmp_path / "m.json"
    code, _, err = run(["--budget", "solver_samples=10", "fit", "BinarySVC", data, "--out", out], capsys)
    assert code == 2 and err.count("\n") == 1 and not out.exists()
    assert "21 samples: 21 is more than the 10 the --budget may ask for" in err
    code, stdout, _ = run(["--budget", "solver_samples=1e3,file_mb=1", "fit", "BinarySVC", data, "--out", out], capsys)
    assert code == 0 and out.exists() and "test accuracy" in stdout
    for bad, words in [("solver_sample=10", "KEY one of"), ("solver_samples=-1", "positive number"),
                       ("solver_samples=many", "positive number"), (",", "names no bound")]:
        code, _, err = run(["--budget", bad, "datasets"], capsys)
        assert code == 2 and words in err and err.count("\n") == 1, err


def test_ctrl_c_stops_with_one_line(tmp_path, capsys, monkeypatch):
    from svmviz.models.svm_tree import SVMTreeClassifier

    def interrupted(self, X, y, progress=None, _reference=False):
        progress(1, 5)
        raise KeyboardInterrupt

    monkeypatch.setattr(SVMTreeClassifier, "fit", interrupted)
    out = tmp_path / "m.json"
    code, _, err = run(["fit", "SVMTreeClassifier", "fourclass_like", "--out", out], capsys)
    assert code == 130 and not out.exists()
    assert err.strip().splitlines()[-1] == "svmviz: stopped (Ctrl-C) during fit; nothing more was written"


def test_large_work_warns_in_one_line(capsys, monkeypatch):
    from svmviz import limits

    monkeypatch.setattr(limits, "LARGE", limits.Budget(solver_samples=100, scope="one machine"))
    code, _, err = run(["fit", "BinarySVC", "fourclass_like", "--param", "kernel=linear", "--out", "/dev/null"],
                       capsys)
    assert code == 0
    lines = [ln for ln in err.splitlines() if "LargeWorkWarning" in ln]
    assert lines and lines[0].startswith("svmviz: LargeWorkWarning: BinarySVC") and "large for one machine" in lines[0]


# ---------------------------------------------------------------- hostile files and parameters


rng = np.random.default_rng(1)
# two separated blobs, small enough to fit in milliseconds
BLOBS_X = np.vstack([rng.normal(-2, 0.6, size=(15, 2)), rng.normal(2, 0.6, size=(15, 2))])
BLOBS_Y = np.repeat([0, 1], 15)


def run(argv, capsys):
    code = main([str(a) for a in argv])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_cli_predict_with_a_bad_model_is_one_line_exit_2(tmp_path, capsys):
    data = tmp_path / "d.csv"
    data.write_text("x1,x2,label\n" + "".join(f"{a},{b},{c}\n" for (a, b), c in zip(BLOBS_X, BLOBS_Y)))
    doc = json.loads(dumps_model(BinarySVC(kernel="linear").fit(BLOBS_X, BLOBS_Y)))
    doc["model"]["fitted"]["support_vectors_"]["__ndarray__"]["data"][0] = "nan"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    for model in (bad, "/dev/zero", tmp_path):
        code, _, err = run(["predict", model, data], capsys)
        assert code == 2 and err.count("\n") == 1 and err.startswith("svmviz: error:"), err


def test_predict_out_neutralises_formula_cells(tmp_path, capsys):
    src = tmp_path / "inj.csv"
    body = "".join(f"{a:.3f},{b:.3f},{'=cmd|calc' if c else '@SUM(A1)'}\n" for (a, b), c in zip(BLOBS_X, BLOBS_Y))
    src.write_text("=HYPERLINK(x),+x2,label\n" + body)
    model, out = tmp_path / "m.json", tmp_path / "p.csv"
    assert run(["fit", "BinarySVC", src, "--test-size", "0", "--param", "kernel=linear",
                "--out", model], capsys)[0] == 0
    assert run(["predict", model, src, "--out", out], capsys)[0] == 0
    with out.open(newline="") as fh:
        rows = list(csv.reader(fh))
    cells = [c for r in rows for c in r]
    assert not any(c.startswith(("=", "+", "-", "@", "\t", "\r")) and not _is_number(c) for c in cells)
    assert rows[0][:2] == ["'=HYPERLINK(x)", "'+x2"] and {"'=cmd|calc", "'@SUM(A1)"} <= set(cells)
    assert any(c.startswith("-") and _is_number(c) for c in cells)   # negative numbers stay numbers


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def test_cli_prefers_a_local_file_over_a_builtin_and_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    pathlib.Path("iris").write_text("x1,x2,label\n0,0,a\n0,1,a\n5,5,b\n5,6,b\n")
    code, out, err = run(["fit", "BinarySVC", "iris", "--test-size", "0", "--param", "kernel=linear",
                          "--out", "m.json"], capsys)
    assert code == 0 and "using the local file 'iris'" in err and "(4 samples)" in out


@pytest.mark.parametrize("param,words", [("degree=2.5", "degree"), ("degree=-1", "degree"),
                                         ("max_iter=1e30", "max_iter"), ('C="1"', "C must be"),
                                         ("tol=NaN", "tol")])
def test_cli_bad_parameter_is_one_line_exit_2(param, words, tmp_path, capsys):
    code, _, err = run(["fit", "BinarySVC", "iris", "--param", "kernel=poly", "--param", param,
                        "--out", tmp_path / "m.json"], capsys)
    assert code == 2 and words in err and err.count("\n") == 1, err

