"""The svmviz command line: datasets, plot-data, fit, predict; bad input is one line and exit 2."""

from __future__ import annotations

import io
import re
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from svmviz.cli import Progress, main
from svmviz.data import BUILTINS, load_builtin
from svmviz.export import load_model

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
    with Progress("work", total=4, stream=tty, width=8) as bar:
        bar.update(2)
        assert "\rwork [####----] 2/4" in tty.getvalue()
        bar.update(2)
    assert tty.getvalue().rstrip().endswith("done") and "[########] 4/4" in tty.getvalue()
    log = io.StringIO()
    with Progress("work", total=4, stream=log) as bar:
        bar.update(4)
    assert log.getvalue().count("\n") == 1 and "\r" not in log.getvalue()


def test_fit_shows_the_estimators_own_steps(tmp_path, monkeypatch):
    """An estimator whose fit reports progress(done, total) drives the CLI's bar (here the SVM
    tree's steps); the bar ends at the estimator's total."""
    class Tty(io.StringIO):
        def isatty(self):
            return True

    err = Tty()
    monkeypatch.setattr(sys, "stderr", err)
    out = tmp_path / "tree.json"
    main(["fit", "SVMTreeClassifier", "fourclass_like", "--out", str(out)])
    text = err.getvalue()
    counts = re.findall(r"fitting SVMTreeClassifier on \d+ samples \[[#-]+\] (\d+)/(\d+)", text)
    assert len(counts) >= 2, text[-500:]
    done, total = map(int, counts[-1])
    assert done == total > 1 and text.rstrip().endswith("done")
    assert out.exists()
