"""Shared fixtures: the evalforge CLI, a small generated game file (no network, no ../shared)."""
import os
import pathlib
import subprocess
import sys
import tempfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Data-set downloads and the binary game cache go to a private directory, not ~/.cache: set
# before the module reads its settings (on first use).
_CACHE = tempfile.mkdtemp(prefix="evalforge-pytest-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE

# EF_TEST_INSTALLED=1: test the package as installed (`pip install .`, docs/install.md), never
# the build tree's: the import must come from outside this checkout.
if os.environ.get("EF_TEST_INSTALLED") == "1":
    import evalforge as _installed

    if ROOT in pathlib.Path(_installed.__file__).resolve().parents:
        raise RuntimeError(f"EF_TEST_INSTALLED=1, but evalforge was imported from {_installed.__file__}, inside "
                           f"the checkout {ROOT}: unset PYTHONPATH and run the installed interpreter")
# Run from a source checkout without PYTHONPATH: the build tree's package (ctest sets PYTHONPATH).
elif "evalforge" not in sys.modules and not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, str(ROOT / "build" / "python"))


def cli_path() -> str:
    path = os.environ.get("EF_EVALFORGE_BIN", str(ROOT / "build" / "evalforge"))
    if not os.path.exists(path):
        pytest.skip(f"no evalforge binary at {path} (set EF_EVALFORGE_BIN)")
    return path


@pytest.fixture(scope="session")
def cli() -> str:
    return cli_path()


def run_cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = dict(os.environ, XDG_CACHE_HOME=_CACHE)
    return subprocess.run([cli_path(), *args], capture_output=True, text=True, check=check, env=env)


@pytest.fixture(scope="session")
def games_file(tmp_path_factory) -> pathlib.Path:
    """300 self-play games from the built-in generator (the 1-ply SWH players: fast)."""
    out = tmp_path_factory.mktemp("data") / "games.txt"
    run_cli("data", "generate", "--games", "300", "--seed", "7", "--player", "swh1", "--threads", "2",
            "--out", str(out))
    return out
