#!/usr/bin/env python3
"""A (mu + lambda) evolution strategy over n-tuple shapes in plain numpy, with evalforge's
Evaluator as its fitness function (docs/python.md).

A shape is K tuples of L distinct squares (0..63). A child copies a random parent and moves one
square of one tuple to a square that tuple lacks (or, with probability p_swap, redraws a whole
tuple). Fitness: the mean test MSE over the scored moves, as `evalforge score` measures it
(lower is better). Each generation's lambda children go to the evaluator as ONE batch; parents
keep their fitness (the evaluation is deterministic), and the best mu of parents and children
survive. Writes es.csv (one row per generation) and, with gnuplot on the PATH, es.png.

    PYTHONPATH=build/python python3 examples/es_shapes.py --data games.txt --out es-out
"""
import argparse
import csv
import os
import pathlib
import platform
import shutil
import subprocess
import sys
import time

import numpy as np

try:
    import evalforge
except ImportError:  # a source checkout: the build tree's package
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "build" / "python"))
    import evalforge


def random_shape(rng, tuples, size):
    return np.stack([rng.choice(64, size=size, replace=False) for _ in range(tuples)])


def mutate(rng, shape, p_swap):
    child = shape.copy()
    t = rng.integers(len(child))
    if rng.random() < p_swap:
        child[t] = rng.choice(64, size=child.shape[1], replace=False)
    else:
        free = np.setdiff1d(np.arange(64), child[t])
        child[t, rng.integers(child.shape[1])] = rng.choice(free)
    return child


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, help="game records or a data-set name (as evalforge score --data)")
    ap.add_argument("--out", default="es-out", help="directory for es.csv and es.png")
    ap.add_argument("--moves", default="20,30,40")
    ap.add_argument("--mu", type=int, default=4)
    ap.add_argument("--lam", type=int, default=8, help="children per generation (one evaluator batch)")
    ap.add_argument("--generations", type=int, default=10)
    ap.add_argument("--tuples", type=int, default=4)
    ap.add_argument("--size", type=int, default=6, help="squares per tuple")
    ap.add_argument("--p-swap", type=float, default=0.2)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--backend", default="cpu")
    a = ap.parse_args(argv)

    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(a.seed)
    moves = [int(m) for m in a.moves.split(",")]
    t0 = time.monotonic()
    ev = evalforge.Evaluator(a.data, moves=moves, epochs=a.epochs, threads=a.threads, backend=a.backend)
    fitness = lambda shapes: ev.evaluate(np.stack(shapes)).mean(axis=1)  # noqa: E731
    edax = float(ev.evaluate("edax").mean())  # a reference line: the 12-tuple Edax shape

    parents = [random_shape(rng, a.tuples, a.size) for _ in range(a.mu)]
    parent_fit = fitness(parents)
    evaluations = a.mu
    rows = []

    def record(gen):
        rows.append({"generation": gen, "evaluations": evaluations, "best": float(parent_fit.min()),
                     "mean": float(parent_fit.mean()), "edax": edax, "seconds": round(time.monotonic() - t0, 2)})
        print(f"gen {gen:3d}  evals {evaluations:4d}  best {parent_fit.min():8.3f}  mean {parent_fit.mean():8.3f}"
              f"  (edax {edax:.3f})", flush=True)

    record(0)
    for gen in range(1, a.generations + 1):
        children = [mutate(rng, parents[rng.integers(a.mu)], a.p_swap) for _ in range(a.lam)]
        child_fit = fitness(children)
        evaluations += a.lam
        pool = parents + children
        pool_fit = np.concatenate([parent_fit, child_fit])
        keep = np.argsort(pool_fit, kind="stable")[: a.mu]
        parents = [pool[i] for i in keep]
        parent_fit = pool_fit[keep]
        record(gen)

    with open(out / "es.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    best = parents[0]
    (out / "best_shape.txt").write_text(
        "\n".join(" ".join(f"{'abcdefgh'[s % 8]}{s // 8 + 1}" for s in sorted(t)) for t in best) + "\n")
    print(f"wrote {out / 'es.csv'}")

    if shutil.which("gnuplot"):
        script = f"""
set terminal pngcairo size 800,500
set output '{out / "es.png"}'
set datafile separator ','
set key top right
set xlabel 'generation ({a.lam} children per evaluator batch)'
set ylabel 'test MSE (discs^2), mean over moves {a.moves}'
set title '(mu+lambda) ES over shapes, mu={a.mu} lambda={a.lam}, {a.tuples}x{a.size}-tuples'
plot '{out / "es.csv"}' using 1:3 skip 1 with linespoints title 'best', \\
     '' using 1:4 skip 1 with lines title 'population mean', \\
     '' using 1:5 skip 1 with lines dashtype 2 title 'edax shape (12 tuples)'
"""
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
        print(f"wrote {out / 'es.png'}")
    return rows


if __name__ == "__main__":
    main()
