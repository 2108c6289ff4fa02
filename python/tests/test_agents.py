"""Training, agent files, games between agents and the solver, against the command line."""
import json
import os

import numpy as np
import pytest

import evalforge
from conftest import run_cli
from test_evaluator import NAMED, TUPLES


def test_trained_agent_is_the_clis(games_file, tmp_path):
    moves = [20, 30]
    ev = evalforge.Evaluator(games_file, moves=moves, epochs=1, threads=2)
    mse, weights = ev.train(TUPLES)
    assert np.array_equal(mse, ev.evaluate([TUPLES])[0])
    assert len(weights) == 2 and all(w.dtype == np.int32 for w in weights)
    assert all(len(w) == 3**6 + 3**5 + 3**8 for w in weights) and all(np.any(w != 0) for w in weights)

    agent = ev.agent({"name": "small", "tuples": TUPLES}, depth=2)
    assert agent.kind == "ntuple" and agent.depth == 2 and agent.exact_empties == -1
    agent.save(tmp_path / "mine" / "small.toml")
    again = evalforge.load_agent(tmp_path / "mine" / "small.toml")
    assert all(np.array_equal(x, y) for x, y in zip(agent.networks, again.networks))
    assert np.array_equal(agent.network_of_move, again.network_of_move)

    shape_file = tmp_path / "small.json"
    shape_file.write_text(json.dumps({"name": "small", "tuples": NAMED}))
    run_cli("score", "--data", str(games_file), "--shapes", str(shape_file), "--moves", "20,30", "--epochs", "1",
            "--threads", "2", "--agent-depth", "2", "--save-agents", str(tmp_path / "cli"))
    cli = evalforge.load_agent(tmp_path / "cli" / "small.toml")
    assert len(cli.networks) == len(agent.networks)
    assert all(np.array_equal(x, y) for x, y in zip(agent.networks, cli.networks))
    assert np.array_equal(agent.network_of_move, cli.network_of_move)


def test_play_a_batch(games_file):
    ev = evalforge.Evaluator(games_file, moves=[20, 30, 40], epochs=1, threads=2)
    mine = ev.agent("edax")
    swh = evalforge.load_agent("swh")
    r = evalforge.play(mine, swh, openings=3, seed=5, threads=2)
    assert set(r) == {"score", "result", "plies"}
    assert len(r["score"]) == 6
    assert np.array_equal(np.sign(r["score"]), r["result"])
    assert np.all((r["plies"] > 40) & (r["plies"] <= 70))
    # Deterministic: the same games for another thread count.
    r1 = evalforge.play(mine, swh, openings=3, seed=5, threads=1)
    assert all(np.array_equal(r[k], r1[k]) for k in r)


def test_solve_matches_the_cli(games_file, tmp_path):
    games = evalforge.load_games(games_file)
    p = games.positions(48, dedup="keep")  # 12 empties, black to move unless black must pass
    black, white = int(p.black[0]), int(p.white[0])
    board = "".join("X" if black >> s & 1 else "O" if white >> s & 1 else "-" for s in range(64))
    obf = tmp_path / "pos.obf"
    obf.write_text(f"{board} X;\n")
    out = run_cli("solve", str(obf), "--no-timing", "--threads", "1").stdout.splitlines()
    fields = next(l for l in out if l.split() and l.split()[0] == "1").split()
    r = evalforge.solve(black, white, 0)
    assert int(fields[3]) == r["score"]
    move = r["best_move"]
    name = "pass" if move == -1 else "-" if move < -1 else f"{'abcdefgh'[move % 8]}{move // 8 + 1}"
    assert fields[4] == name
    assert int(fields[6]) == r["nodes"]
    # Without ordering the exact score is the same.
    assert evalforge.solve(black, white, 0, ordering="none")["score"] == r["score"]


def test_tictactoe_games():
    perfect = evalforge.play_tictactoe("static:9", "static:9", games=3, threads=2)
    assert np.all(perfect["result"] == 0) and np.all(perfect["plies"] == 9)  # perfect play draws
    r = evalforge.play_tictactoe("static:9", "random", games=20, seed=3, threads=2)
    assert len(r["result"]) == 40 and np.all(r["result"] >= 0) and np.any(r["result"] == 1)
    again = evalforge.play_tictactoe("static:9", "random", games=20, seed=3, threads=1)
    assert np.array_equal(r["result"], again["result"]) and np.array_equal(r["plies"], again["plies"])
    with pytest.raises(evalforge.Error, match=r"^b: 'minimax' is not a Tic-Tac-Toe player"):
        evalforge.play_tictactoe("random", "minimax")
    # An evolved network from its agent file (networks/tictactoe/: it never loses to any opponent)
    # against the perfect player: every game drawn, with either colour.
    network = os.path.join(os.path.dirname(__file__), "..", "..", "networks", "tictactoe", "ttt-oracle-t0a.toml")
    drawn = evalforge.play_tictactoe(network, "perfect", games=2, threads=2)
    assert len(drawn["result"]) == 4 and np.all(drawn["result"] == 0)
