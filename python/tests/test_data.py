"""Games and positions as numpy arrays, split as `evalforge score` splits them."""
import numpy as np
import pytest

import evalforge


def popcount(a):
    return np.array([bin(int(x)).count("1") for x in a])


def test_games_and_positions(games_file):
    games = evalforge.load_games(games_file)
    assert len(games) == 300
    assert games.files == [str(games_file)]
    assert games.scores.dtype == np.int32 and len(games.scores) == 300
    first = games.moves(0)
    assert first.dtype == np.uint8 and 55 <= len(first) <= 60
    with pytest.raises(IndexError):
        games.moves(300)
    p = games.positions(20, dedup="keep")
    assert len(p) == np.count_nonzero([len(games.moves(i)) >= 20 for i in range(len(games))])
    assert p.black.dtype == np.uint64 and p.label.dtype == np.float64
    assert np.all(p.black & p.white == 0)
    assert np.all(popcount(p.black | p.white) == 24)  # 4 start discs + 20 placed
    assert not p.black.flags.owndata  # the library's vector, not a copy
    merged = games.positions(20)
    assert len(merged) <= len(p) and merged.count.sum() == len(p)


def test_split_matches_the_evaluator(games_file):
    games = evalforge.load_games(games_file)
    fit, test = games.split(26, split="game", seed=3)
    ev = evalforge.Evaluator(games, moves=[26], split="game", seed=3, epochs=0, threads=1)
    assert len(fit) == ev.fitness_positions[0] and len(test) == ev.test_positions[0]
