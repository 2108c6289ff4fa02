"""examples/es_shapes.py end to end, small: an outside optimiser using the evaluator."""
import csv
import os
import shutil
import subprocess
import sys

from conftest import ROOT


def test_es_example_runs(games_file, tmp_path):
    out = tmp_path / "es"
    subprocess.run([sys.executable, str(ROOT / "examples" / "es_shapes.py"), "--data", str(games_file), "--out",
                    str(out), "--mu", "2", "--lam", "3", "--generations", "3", "--moves", "20,30", "--epochs", "1",
                    "--threads", "2"], check=True, capture_output=True, text=True, env=dict(os.environ))
    rows = list(csv.DictReader(open(out / "es.csv")))
    assert [int(r["generation"]) for r in rows] == [0, 1, 2, 3]
    assert [int(r["evaluations"]) for r in rows] == [2, 5, 8, 11]
    best = [float(r["best"]) for r in rows]
    # (mu + lambda) keeps its parents: the best never gets worse.
    assert all(b1 <= b0 for b0, b1 in zip(best, best[1:]))
    assert all(float(r["best"]) <= float(r["mean"]) for r in rows)
    assert (out / "best_shape.txt").read_text().count("\n") == 4
    if shutil.which("gnuplot"):
        assert (out / "es.png").stat().st_size > 1000
