"""evalforge: the fitness-evaluation engine as a Python library (docs/python.md).

Hand a batch of n-tuple shapes to ``Evaluator.evaluate`` and get the test losses of the score
procedure (``evalforge score``) back as a numpy array, bit for bit the command line's; games,
positions and splits come as numpy arrays; agents can be trained, saved, loaded and played, and
endgame positions solved. Library errors raise ``evalforge.Error`` (a RuntimeError) with the
command line's message.
"""
import pathlib as _pathlib

from . import _evalforge as _extension
from ._evalforge import (  # noqa: F401
    Agent,
    Error,
    Evaluator,
    Games,
    Positions,
    __version__,
    evolve,
    load_agent,
    load_games,
    play,
    play_tictactoe,
    resume_evolve,
    resume_search,
    search,
    solve,
)

# `pip install .` puts a copy of the networks (the solver's built-in move ordering) inside the
# package; the build tree's package has none and finds the source tree's (docs/install.md).
if (_pathlib.Path(__file__).resolve().parent / "networks").is_dir():
    _extension._set_networks_dir(str(_pathlib.Path(__file__).resolve().parent / "networks"))

__all__ = ["Agent", "Error", "Evaluator", "Games", "Positions", "load_agent", "load_games", "play", "play_tictactoe", "search",
           "resume_search", "evolve", "resume_evolve", "solve", "__version__"]
