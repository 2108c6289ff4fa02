"""The evaluator against `evalforge score`: the same bits for the same data, shapes and options."""
import json

import numpy as np
import pytest

import evalforge
from conftest import run_cli

# A small shape in three spellings: square numbers, names, and a padded integer array.
TUPLES = [[0, 1, 2, 3, 8, 9], [0, 9, 18, 27, 36], [2, 3, 4, 5, 10, 11, 12, 13]]
NAMED = [[f"{'abcdefgh'[s % 8]}{s // 8 + 1}" for s in t] for t in TUPLES]
WIDTH = max(len(t) for t in TUPLES)
ARRAY = np.array([t + [-1] * (WIDTH - len(t)) for t in TUPLES], dtype=np.int64)


def cli_score(games_file, tmp_path, moves, *flags):
    shape_file = tmp_path / "small.json"
    shape_file.write_text(json.dumps({"name": "small", "tuples": NAMED}))
    out = run_cli("score", "--data", str(games_file), "--shapes", "edax", "--shapes", str(shape_file),
                  "--moves", ",".join(map(str, moves)), "--threads", "2", "--json", *flags).stdout
    return json.loads(out)


@pytest.mark.parametrize("split", ["position", "game"])
def test_losses_are_the_cli_bits(games_file, tmp_path, split):
    moves = [20, 30]
    table = cli_score(games_file, tmp_path, moves, "--split", split, "--epochs", "2", "--lr", "0.02")
    ev = evalforge.Evaluator(str(games_file), moves=moves, split=split, epochs=2, learning_rate=0.02, threads=2)
    mse, mae = ev.evaluate(["edax", TUPLES], return_mae=True)
    assert mse.shape == (2, len(moves)) and mse.dtype == np.float64
    for m, row in enumerate(table["rows"]):
        assert row["move"] == ev.moves[m]
        assert row["fitness_positions"] == ev.fitness_positions[m]
        assert row["test_positions"] == ev.test_positions[m]
        assert row["constant_mse"] == ev.constant_mse[m]
        for s, cell in enumerate(row["cells"]):
            # Exact: JSON carries doubles in round-trip form.
            assert cell["mse"] == mse[s, m], (split, m, s)
            assert cell["mae"] == mae[s, m], (split, m, s)


def test_shape_spellings_give_the_same_bits(games_file):
    ev = evalforge.Evaluator(games_file, moves=[24], epochs=1, threads=2)
    by_number = ev.evaluate([TUPLES])
    assert np.array_equal(by_number, ev.evaluate([NAMED]))
    assert np.array_equal(by_number, ev.evaluate([ARRAY]))
    assert np.array_equal(by_number, ev.evaluate(ARRAY[np.newaxis]))
    assert np.array_equal(by_number, ev.evaluate([{"name": "x", "tuples": TUPLES}]))
    # One batch of several shapes: each row as when evaluated alone.
    both = ev.evaluate([TUPLES, "edax"])
    assert np.array_equal(both[0], by_number[0])
    assert np.array_equal(both[1], ev.evaluate("edax")[0])


def test_evaluator_from_loaded_games(games_file):
    games = evalforge.load_games(games_file)
    a = evalforge.Evaluator(games, moves=[22, 26], epochs=1, threads=2).evaluate([TUPLES])
    b = evalforge.Evaluator(str(games_file), moves=[22, 26], epochs=1, threads=2).evaluate([TUPLES])
    assert np.array_equal(a, b)
    assert np.all(np.isfinite(a)) and np.all(a > 0)
