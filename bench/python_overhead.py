#!/usr/bin/env python3
"""Overhead of a Python Evaluator.evaluate call against the same batch through the C++ API.

Both in the same process, on the same evaluator (same resident data, same backend): the Python
side is the wall time of evaluate() (shape conversion, the hand-off to the evaluator's worker
thread, the wait, the numpy results); the C++ side is score_shapes() on the same batch, timed in
C++ on the worker (Evaluator._native_seconds). Medians of --repeats runs, interleaved.

    PYTHONPATH=build/python python3 bench/python_overhead.py --data games.txt
"""
import argparse
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

try:
    import evalforge
except ImportError:
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "build" / "python"))
    import evalforge


def cpu_model():
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith("Model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def measure(ev, shapes, repeats):
    ev.evaluate(shapes)  # warm up (page faults, the pool's first start)
    py, native = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        ev.evaluate(shapes)
        py.append(time.perf_counter() - t0)
        native.append(ev._native_seconds(shapes))
    return statistics.median(py), statistics.median(native)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", help="game records (default: 2,000 generated swh1 games)")
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    data = a.data
    if not data:
        binary = pathlib.Path(__file__).resolve().parents[1] / "build" / "evalforge"
        data = str(pathlib.Path(tempfile.mkdtemp()) / "games.txt")
        subprocess.run([str(binary), "data", "generate", "--games", "2000", "--player", "swh1", "--seed", "11",
                        "--out", data], check=True, capture_output=True)
    rng = np.random.default_rng(1)
    shape = lambda: np.stack([rng.choice(64, 6, replace=False) for _ in range(4)])  # noqa: E731
    cases = [
        ("1 shape x 1 move, 1 epoch (fixed cost)", dict(moves=[30], epochs=1), [shape()]),
        ("8 shapes x 3 moves, 2 epochs (an ES generation)", dict(moves=[20, 30, 40], epochs=2),
         [shape() for _ in range(8)]),
        ("edax x 8 moves, 4 epochs (score defaults)", dict(), ["edax"]),
    ]
    print(f"CPU: {cpu_model()}; threads {a.threads}; data {data}; median of {a.repeats}")
    print(f"{'batch':<48} {'python s':>10} {'C++ s':>10} {'overhead s':>11} {'ratio':>7}")
    for name, opts, shapes in cases:
        ev = evalforge.Evaluator(data, threads=a.threads, **opts)
        py, native = measure(ev, shapes, a.repeats)
        print(f"{name:<48} {py:>10.5f} {native:>10.5f} {py - native:>11.6f} {py / native:>7.4f}")


if __name__ == "__main__":
    main()
