"""evalforge: the fitness-evaluation engine as a Python library (docs/python.md).

Hand a batch of n-tuple shapes to ``Evaluator.evaluate`` and get the test losses of the score
procedure (``evalforge score``) back as a numpy array, bit for bit the command line's; games,
positions and splits come as numpy arrays; agents can be trained, saved, loaded and played, and
endgame positions solved. Library errors raise ``evalforge.Error`` (a RuntimeError) with the
command line's message.
"""
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

__all__ = ["Agent", "Error", "Evaluator", "Games", "Positions", "load_agent", "load_games", "play", "play_tictactoe", "search",
           "resume_search", "evolve", "resume_evolve", "solve", "__version__"]
