"""ef::Error becomes evalforge.Error (a RuntimeError) with the command line's message."""
import json

import numpy as np
import pytest

import evalforge
from conftest import run_cli


def cli_error(*args):
    r = run_cli(*args, check=False)
    assert r.returncode != 0
    prefix = "evalforge: error: "
    line = next(l for l in r.stderr.splitlines() if l.startswith(prefix))
    return line[len(prefix):]


def test_error_is_a_runtime_error():
    assert issubclass(evalforge.Error, RuntimeError)


def test_missing_data_file_is_named_as_the_cli_names_it(tmp_path):
    missing = tmp_path / "no" / "such.gam"
    with pytest.raises(evalforge.Error) as e:
        evalforge.Evaluator(str(missing), moves=[20])
    assert str(missing) in str(e.value)
    assert str(e.value) == cli_error("score", "--data", str(missing), "--moves", "20")


def test_bad_shape_file_is_named(games_file, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"name": "bad", "tuples": [["a1", "z9"]]}))
    ev = evalforge.Evaluator(games_file, moves=[20], epochs=1, threads=2)
    with pytest.raises(evalforge.Error) as e:
        ev.evaluate([str(bad)])
    assert str(bad) in str(e.value) and "z9" in str(e.value)
    assert str(e.value) == cli_error("score", "--data", str(games_file), "--shapes", str(bad), "--moves", "20")


def test_bad_shapes_from_python(games_file):
    ev = evalforge.Evaluator(games_file, moves=[20], epochs=1, threads=2)
    with pytest.raises(evalforge.Error, match=r"shape 2: tuple 1: 64 is not a square"):
        ev.evaluate([[[0, 1]], [[64]]])
    with pytest.raises(evalforge.Error, match=r"shape 1: tuple 1: square a1 appears twice"):
        ev.evaluate([[[0, 0]]])
    with pytest.raises(evalforge.Error, match=r"shapes: no shape given"):
        ev.evaluate([])
    with pytest.raises(evalforge.Error, match=r"shapes: expected"):
        ev.evaluate(42)
    # The evaluator still works after an error.
    assert ev.evaluate([[[0, 1]]]).shape == (1, 1)


def test_bad_options(games_file):
    with pytest.raises(evalforge.Error, match=r"^split: 'diagonal' is not a split"):
        evalforge.Evaluator(games_file, split="diagonal")
    with pytest.raises(evalforge.Error, match=r"^moves: 61 is not a move number"):
        evalforge.Evaluator(games_file, moves=[61])
    with pytest.raises(evalforge.Error, match=r"^backend: "):
        evalforge.Evaluator(games_file, moves=[20], backend="abacus")
    with pytest.raises(evalforge.Error, match=r"^epochs: "):
        evalforge.Evaluator(games_file, epochs=-1)


def test_solve_table_that_cannot_fit_is_refused_before_it_is_allocated(monkeypatch):
    # 2^28 entries of 24 B are 6.4 GB: above a 100 MB limit, refused naming table_bits and the
    # estimate, before any allocation (the module used to allocate it without an estimate).
    monkeypatch.setenv("EF_MEMORY_LIMIT_MB", "100")
    with pytest.raises(evalforge.Error) as e:
        evalforge.solve(0x0000000810000000, 0x0000001008000000, 0, ordering="none", table_bits=28)
    assert "table_bits" in str(e.value)
    assert "needs about 6.44 GB" in str(e.value)
    assert "a smaller table_bits" in str(e.value)


def test_message_with_bytes_that_are_not_utf8_arrives_escaped_as_the_cli_prints_it(games_file, tmp_path):
    # A shape file whose square name holds a byte that is not UTF-8: the parser's message quotes
    # it, and used to reach Python as evalforge.Error('') (the CLI printed it).
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"name": "bad", "tuples": [["a1", "z\xff"]]}')
    ev = evalforge.Evaluator(games_file, moves=[20], epochs=1, threads=2)
    with pytest.raises(evalforge.Error) as e:
        ev.evaluate([str(bad)])
    msg = str(e.value)
    assert str(bad) in msg
    assert "\\xff" in msg and "\xff" not in msg
    assert msg == cli_error("score", "--data", str(games_file), "--shapes", str(bad), "--moves", "20")


@pytest.mark.parametrize("value, shown", [
    (1.5, "1.5"),                        # used to truncate to b1
    (float("nan"), "nan"),
    (True, "True"),                      # a bool is an int to Python, not a square
    (1 + 0j, "(1+0j)"),
    (2**70, str(2**70)),                 # used to end in a bare RuntimeError
    (-(2**70), str(-(2**70))),
    ("z9", "z9"),
])
def test_a_square_that_is_not_an_integer_or_a_name_is_refused_naming_shape_tuple_and_value(games_file, value, shown):
    ev = evalforge.Evaluator(games_file, moves=[20], epochs=1, threads=2)
    with pytest.raises(evalforge.Error) as e:
        ev.evaluate([[[0, 1]], [[2, 3], [4, value]]])
    assert str(e.value).startswith("shape 2: tuple 2: "), str(e.value)
    assert shown in str(e.value)
    # numpy's scalars follow the same rule: an integer passes, a bool or a float does not.
    assert ev.evaluate([[[np.int64(0), np.uint8(1)]]]).shape == (1, 1)
    for scalar in (np.bool_(True), np.float64(1.0)):
        with pytest.raises(evalforge.Error, match=r"^shape 1: tuple 1: .* is not a square"):
            ev.evaluate([[[0, scalar]]])


def test_shape_arrays_must_hold_integers(games_file):
    ev = evalforge.Evaluator(games_file, moves=[20], epochs=1, threads=2)
    for dtype in (np.float64, np.bool_, np.complex128):
        with pytest.raises(evalforge.Error, match=r"^shape 1: an array of squares must have an integer dtype"):
            ev.evaluate([np.array([[0, 1]], dtype=dtype)])
        with pytest.raises(evalforge.Error, match=r"^shapes: an array of squares must have an integer dtype"):
            ev.evaluate(np.array([[[0, 1]]], dtype=dtype))
    # A uint64 maximum used to wrap to -1 (padding) and vanish: unsigned arrays have no padding.
    with pytest.raises(evalforge.Error, match=r"^shape 1: tuple 1: 18446744073709551615 is not a square"):
        ev.evaluate([np.array([[0, 2**64 - 1]], dtype=np.uint64)])
    # Signed arrays keep -1 as padding, unsigned ones give the same fitness without it.
    padded = ev.evaluate([np.array([[0, 1, -1], [2, 3, 4]], dtype=np.int32)])
    ragged = ev.evaluate([[[0, 1], [2, 3, 4]]])
    assert (padded == ragged).all()
    assert (ev.evaluate(np.array([[[0, 1]]], dtype=np.uint16)) == ev.evaluate([[[0, 1]]])).all()


def test_batches_that_cannot_fit_are_refused_before_they_are_built(games_file, monkeypatch):
    # As the CLI's commands: the games of play/play_tictactoe and the weight tables of a batch of
    # shapes are estimated first, and refused above the limit naming the argument to lower.
    monkeypatch.setenv("EF_MEMORY_LIMIT_MB", "200")
    swh = evalforge.load_agent("swh")
    with pytest.raises(evalforge.Error, match=r"^openings: play: needs about .* a smaller openings"):
        evalforge.play(swh, swh, openings=100_000_000)
    with pytest.raises(evalforge.Error, match=r"^games: play_tictactoe: needs about .* a smaller games"):
        evalforge.play_tictactoe("random", "random", games=100_000_000)
    # 64 distinct tuples of 12 squares: 136 MB of weights a worker thread; two jobs on 64 threads
    # use two of them (no more threads than jobs run).
    big = [[(t + 5 * k) % 64 for k in range(12)] for t in range(64)]
    ev = evalforge.Evaluator(games_file, moves=[20], epochs=1, threads=64)
    two_tables = r"^evaluate: needs about 27.*\(weight tables, one a worker thread \(2 x 136 MB\)"
    with pytest.raises(evalforge.Error, match=two_tables):
        ev.evaluate([big, big])
    # Within the limit they run as before.
    assert len(evalforge.play(swh, swh, openings=2)["score"]) == 4
    assert ev.evaluate([[[0, 1]]]).shape == (1, 1)


def test_a_bad_memory_limit_is_named_as_such_not_as_the_argument(monkeypatch):
    monkeypatch.setenv("EF_MEMORY_LIMIT_MB", "lots")
    swh = evalforge.load_agent("swh")
    with pytest.raises(evalforge.Error, match=r"^EF_MEMORY_LIMIT_MB='lots' \(expected a positive number"):
        evalforge.play(swh, swh, openings=2)
    with pytest.raises(evalforge.Error, match=r"^EF_MEMORY_LIMIT_MB='lots'"):
        evalforge.solve(0x0000000810000000, 0x0000001008000000, 0, ordering="none", table_bits=10)
