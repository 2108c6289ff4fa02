# Type stubs of the compiled module (python/src/*.cpp); docstrings are in the module itself.
import os
from typing import Callable, Literal, Sequence, Union, overload

import numpy as np
import numpy.typing as npt

__version__: str

PathLike = Union[str, os.PathLike[str]]
DataSpec = Union[PathLike, Sequence[PathLike], "Games"]
Square = Union[int, str]
Shape = Union[PathLike, dict, Sequence[Sequence[Square]], npt.NDArray[np.integer]]
Shapes = Union[PathLike, Sequence[Shape], npt.NDArray[np.integer]]

class Error(RuntimeError): ...

class Positions:
    move: int
    black: npt.NDArray[np.uint64]
    white: npt.NDArray[np.uint64]
    label: npt.NDArray[np.float64]
    count: npt.NDArray[np.uint32]
    def __len__(self) -> int: ...

class Games:
    files: list[str]
    problems: list[str]
    read_errors: list[str]
    scores: npt.NDArray[np.int32]
    def __len__(self) -> int: ...
    def moves(self, index: int) -> npt.NDArray[np.uint8]: ...
    def positions(self, move: int, dedup: str = "merge", label: str = "recorded") -> Positions: ...
    def split(self, move: int, split: str = "position", dedup: str = "auto", label: str = "recorded",
              seed: int = 1, test_fraction: float = 0.2) -> tuple[Positions, Positions]: ...

def load_games(data: Union[PathLike, Sequence[PathLike]], cache: bool = True, fatal: bool = False,
               accept_damaged: bool = False) -> Games: ...

class Agent:
    name: str
    kind: str
    depth: int
    exact_empties: int
    epsilon: float
    networks: list[npt.NDArray[np.int32]]
    network_of_move: npt.NDArray[np.int32]
    def save(self, file: PathLike) -> os.PathLike[str]: ...

def load_agent(spec: PathLike) -> Agent: ...

class Evaluator:
    moves: npt.NDArray[np.int32]
    fitness_positions: npt.NDArray[np.int64]
    test_positions: npt.NDArray[np.int64]
    constant_mse: npt.NDArray[np.float64]
    irreducible_mse: npt.NDArray[np.float64]
    backend: str
    def __init__(self, data: DataSpec, *, moves: Sequence[int] = ..., split: str = "position",
                 dedup: str = "auto", label: str = "recorded", seed: int = 1, test_fraction: float = 0.2,
                 learning_rate: float = 0.03, epochs: int = 4, batch_size: int = 1, train_seed: int = 1,
                 backend: str = "cpu", threads: int = 0, cache: bool = True,
                 test_data: Union[DataSpec, None] = None, exclude_seen: bool = False) -> None: ...
    @overload
    def evaluate(self, shapes: Shapes, return_mae: Literal[False] = False) -> npt.NDArray[np.float64]: ...
    @overload
    def evaluate(self, shapes: Shapes,
                 return_mae: Literal[True]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
    def validate(self, shapes: Shapes, *, generation: int = 0,
                 validation_fraction: float = 0.2) -> npt.NDArray[np.float64]: ...
    def train(self, shape: Shape) -> tuple[npt.NDArray[np.float64], list[npt.NDArray[np.int32]]]: ...
    def agent(self, shape: Shape, *, depth: int = 1, exact_empties: int = -1) -> Agent: ...

def play(a: Agent, b: Agent, *, openings: int = 10, opening_plies: int = 8, seed: int = 1, backend: str = "cpu",
         threads: int = 0) -> dict[str, npt.NDArray[np.int32]]: ...

def solve(black: int, white: int, side: int = 0, *, ordering: str = "builtin",
          table_bits: int = 20) -> dict[str, int]: ...

def search(config: PathLike, out: PathLike, *, data: Union[Sequence[PathLike], None] = None, generations: int = 0,
           backend: str = "cpu", threads: int = 0,
           on_generation: Union[Callable[[int, dict[str, np.ndarray]], None], None] = None,
           progress: Union[Callable[[str], None], None] = None) -> dict[str, Union[str, int, bool]]: ...

def resume_search(dir: PathLike, *, generations: int = 0, backend: str = "cpu", threads: int = 0,
                  on_generation: Union[Callable[[int, dict[str, np.ndarray]], None], None] = None,
                  progress: Union[Callable[[str], None], None] = None) -> dict[str, Union[str, int, bool]]: ...

def evolve(config: PathLike, out: PathLike, *, generations: int = 0, backend: str = "cpu", threads: int = 0,
           progress: Union[Callable[[str], None], None] = None) -> dict[str, Union[str, int, bool]]: ...

def resume_evolve(dir: PathLike, *, generations: int = 0, backend: str = "cpu", threads: int = 0,
                  progress: Union[Callable[[str], None], None] = None) -> dict[str, Union[str, int, bool]]: ...

def play_tictactoe(a: str, b: str, *, games: int = 10, seed: int = 1, backend: str = "cpu",
                   threads: int = 0) -> dict[str, npt.NDArray[np.int32]]: ...
