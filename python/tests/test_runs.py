"""The built-in shape search from Python: the CLI's run, bit for bit, with a per-generation callback."""
import csv

import numpy as np
import pytest

import evalforge
from conftest import run_cli

CONFIG = """
[search]
moves = [22, 30]
island_size = 6
elite = 2
mutants = 1
elite_inheritance = 0.7
generations = 3
seed = 4
tuple_sizes = [6, 5, 4]

[migration]
topology = "paper"
interval = 2
size = 1

[data]
split = "position"
test_fraction = 0.2

[fitness]
validation_fraction = 0.2
test_every = 2

[training]
learning_rate = 0.03
epochs = 1
batch_size = 1

[run]
checkpoint_every = 1
"""


def fitness_rows(run_dir):
    """metrics.csv without test_mse and seconds: a run cut at generation 1 and extended also
    measures the test MSE at its end then (the last generation of that session)."""
    with open(run_dir / "metrics.csv") as f:
        return [r[:6] for r in csv.reader(f)]


def test_search_and_resume_match_the_cli(games_file, tmp_path):
    config = tmp_path / "tiny.toml"
    config.write_text(CONFIG)
    seen = []
    lines = []
    out = evalforge.search(config, tmp_path / "py", data=[games_file], generations=2, threads=2,
                           on_generation=lambda g, rows: seen.append((g, rows)), progress=lines.append)
    assert out["generations_done"] == 2 and out["complete"] and not out["interrupted"]
    assert [g for g, _ in seen] == [0, 1]
    assert list(seen[0][1]["move"]) == [22, 30] and seen[0][1]["best"].dtype == np.float64
    assert np.all(seen[1][1]["best"] <= seen[1][1]["mean"])
    assert any("gen" in line for line in lines)
    # Extended to the 3 generations of the config, as `evalforge search --resume DIR --generations 3`.
    done = evalforge.resume_search(tmp_path / "py", generations=3, threads=2,
                                   on_generation=lambda g, rows: seen.append((g, rows)))
    assert done["complete"] and done["generations_done"] == 3
    assert [g for g, _ in seen] == [0, 1, 2]

    run_cli("search", "--config", str(config), "--data", str(games_file), "--out", str(tmp_path / "cli"),
            "--threads", "2", "--quiet")
    cli_rows = fitness_rows(tmp_path / "cli")
    assert fitness_rows(tmp_path / "py") == cli_rows
    # The callback's values are the ones written (6 decimals in metrics.csv).
    for g, rows in seen:
        for k in range(2):
            assert f"{rows['best'][k]:.6f}" == cli_rows[1 + 2 * g + k][3]
    assert (tmp_path / "py" / "best_shapes.json").read_text() == (tmp_path / "cli" / "best_shapes.json").read_text()


def test_search_errors(tmp_path, games_file):
    with pytest.raises(evalforge.Error, match="nothere.toml"):
        evalforge.search(tmp_path / "nothere.toml", tmp_path / "run", data=[games_file])
    with pytest.raises(evalforge.Error):
        evalforge.resume_search(tmp_path / "no-run-here")


def test_callback_exception_ends_the_run_resumably(games_file, tmp_path):
    config = tmp_path / "tiny.toml"
    config.write_text(CONFIG)

    def stop_at_1(g, rows):
        if g == 1:
            raise ValueError("enough")

    with pytest.raises(ValueError, match="enough"):
        evalforge.search(config, tmp_path / "run", data=[games_file], threads=2, on_generation=stop_at_1)
    # Checkpoints every generation: the run resumes after generation 0 or 1 and completes.
    done = evalforge.resume_search(tmp_path / "run", threads=2)
    assert done["complete"] and done["generations_done"] == 3


SEARCH_CHILD = """
import sys, evalforge
def on_generation(g, rows):
    if g == 0:
        print("ready", flush=True)
try:
    evalforge.search(sys.argv[1], sys.argv[2], data=[sys.argv[3]], generations=100000, threads=1,
                     on_generation=on_generation)
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


def test_sigint_stops_a_search_with_a_checkpoint(games_file, tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    config = tmp_path / "tiny.toml"
    config.write_text(CONFIG.replace("checkpoint_every = 1", "checkpoint_every = 0"))
    run = tmp_path / "run"
    child = subprocess.Popen([sys.executable, "-c", SEARCH_CHILD, str(config), str(run), str(games_file)],
                             stdout=subprocess.PIPE, text=True, env=dict(os.environ))
    try:
        assert child.stdout.readline().strip() == "ready"
        child.send_signal(signal.SIGINT)
        sent = time.monotonic()
        assert child.stdout.readline().strip() == "interrupted"
        assert time.monotonic() - sent < 5.0  # a generation of this config takes milliseconds
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    # Stopped as the CLI stops: a checkpoint (none would exist otherwise: checkpoint_every = 0).
    assert (run / "checkpoint.bin").exists()
    rows = fitness_rows(run)
    assert len(rows) >= 3 and len(rows) % 2 == 1  # header + 2 islands per generation


def test_validate_is_the_searchs_fitness(games_file, tmp_path):
    config = tmp_path / "tiny.toml"
    config.write_text(CONFIG)
    seen = {}
    evalforge.search(config, tmp_path / "run", data=[games_file], threads=2,
                     on_generation=lambda g, rows: seen.setdefault(g, rows))
    # The config's data options, seed and training: the search's fitness sets and jobs.
    ev = evalforge.Evaluator(games_file, moves=[22, 30], split="position", test_fraction=0.2, seed=4, epochs=1,
                             learning_rate=0.03, batch_size=1, threads=2)
    fit = ev.validate(str(tmp_path / "run" / "best_shapes.json"), generation=2)
    assert fit.shape == (2, 2)
    # best_shapes.json: each island's best of the last generation (2), whose fitness the
    # callback got as doubles: the same bits.
    assert fit[0, 0] == seen[2]["best"][0] and fit[1, 1] == seen[2]["best"][1]
    # Another generation draws another split: other values.
    assert not np.array_equal(fit, ev.validate(str(tmp_path / "run" / "best_shapes.json"), generation=1))


EVOLVE = """[evolve]
kind = "tictactoe"
generations = 4
trials = 2
seed = 4
[population]
size = 12
mutation_rate = 0.01
elitism = 1
[network]
depth = 2
[opponent]
depth = 2
"""


def rows_without_time(run_dir):
    with open(run_dir / "metrics.csv") as f:
        rows = list(csv.reader(f))
    keep = [i for i, name in enumerate(rows[0]) if "second" not in name]
    return [[r[i] for i in keep] for r in rows]


def test_evolve_and_resume_match_the_cli(tmp_path):
    config = tmp_path / "ttt.toml"
    config.write_text(EVOLVE)
    lines = []
    out = evalforge.evolve(config, tmp_path / "py", threads=2, progress=lines.append)
    assert out["generations_done"] == 4 and out["complete"] and lines
    done = evalforge.resume_evolve(tmp_path / "py", threads=2)  # a complete run: nothing to do
    assert done["complete"] and done["generations_done"] == 4
    with pytest.raises(evalforge.Error, match="is not extended"):
        evalforge.resume_evolve(tmp_path / "py", generations=6)
    run_cli("evolve", "--config", str(config), "--out", str(tmp_path / "cli"), "--threads", "2", "--quiet")
    assert rows_without_time(tmp_path / "py") == rows_without_time(tmp_path / "cli")
    assert len(rows_without_time(tmp_path / "cli")) == 1 + 2 * 4  # header, then 2 trials x 4 generations
