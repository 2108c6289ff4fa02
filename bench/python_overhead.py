#!/usr/bin/env python3
"""Overhead of a Python Evaluator.evaluate call against the same batch through the C++ API.

Both in the same process, on the same evaluator (same resident data, same backend): the Python
side is the wall time of evaluate() (shape conversion, the hand-off to the evaluator's worker
thread, the wait, the numpy results); the C++ side is score_shapes() on the same batch, timed in
C++ on the worker inside that very call. Medians of --repeats calls.

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
    """Per call: the wall time of evaluate() in Python and the time of the same call's batch in
    C++ (score_shapes on the worker, Evaluator._last_batch_seconds): paired, so the batch's own
    noise cancels out of the difference. Also a separate C++-only run of the batch
    (Evaluator._native_seconds), interleaved, as a second reference."""
    ev.evaluate(shapes)  # warm up (page faults, the pool's first start)
    py, inner, native = [], [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        ev.evaluate(shapes)
        py.append(time.perf_counter() - t0)
        inner.append(ev._last_batch_seconds)
        native.append(ev._native_seconds(shapes))
    over = [p - i for p, i in zip(py, inner)]
    ratio = [p / i for p, i in zip(py, inner)]
    return statistics.median(py), statistics.median(inner), statistics.median(over), statistics.median(ratio), \
        statistics.median(native)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", help="game records (default: --games generated swh1 games)")
    ap.add_argument("--repeats", type=int, default=21)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--games", type=int, default=5000, help="games to generate when --data is not given")
    a = ap.parse_args()
    data = a.data
    if not data:
        binary = pathlib.Path(__file__).resolve().parents[1] / "build" / "evalforge"
        data = str(pathlib.Path(tempfile.mkdtemp()) / "games.txt")
        subprocess.run([str(binary), "data", "generate", "--games", str(a.games), "--player", "swh1", "--seed", "11",
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
    print(f"{'batch':<48} {'python s':>10} {'C++ s':>10} {'overhead s':>11} {'ratio':>7} {'C++ alone s':>12}")
    for name, opts, shapes in cases:
        ev = evalforge.Evaluator(data, threads=a.threads, **opts)
        py, inner, over, ratio, native = measure(ev, shapes, a.repeats)
        print(f"{name:<48} {py:>10.5f} {inner:>10.5f} {over:>11.6f} {ratio:>7.4f} {native:>12.5f}")
    print("python s: evaluate() wall time; C++ s: the same call's score_shapes inside C++; overhead and ratio: "
          "medians of the per-call difference and quotient; C++ alone s: a separate score_shapes run of the batch")


if __name__ == "__main__":
    main()
