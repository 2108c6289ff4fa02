#!/usr/bin/env python3
"""Summarises the oracle.csv of Tic-Tac-Toe evolve runs (docs/tictactoe.md, "Monitoring against
perfect play"): one line per run directory given on the command line.

For each run, over its (trial, population) rows:
  first best   the generation at which the trial's best network first never loses to any
               opponent with either colour (median and range over trials; "-" for a trial where
               it never happens, counted in "never")
  first member the generation at which some member of the population first never loses, read
               from the population column (measured every [monitor] population_every
               generations, so this is exact only with population_every = 1)
  final share  the last generation's population share that never loses (mean, range)
  best optimal the last generation's best network: share of optimal moves on non-trivial
               positions (mean, range)
  best holds   how many trials' last best never lose to any opponent
  per trial    the first-best generation of each trial and the networks the trial had evaluated
               by then ((generation + 1) x population size, from the run's config.toml): the
               figure to set beside `evalforge tictactoe --screen-random` (random sampling)

    scripts/ttt-oracle-figures.py runs/ttt-ply4 runs/ttt-ply1w
"""
import csv
import re
import statistics
import sys
from collections import defaultdict


def summarise(run):
    rows = list(csv.DictReader(open(f"{run}/oracle.csv")))
    by = defaultdict(list)  # (trial, population) -> rows in generation order
    for r in rows:
        by[(r["trial"], r["population"])].append(r)
    first_best, first_member, final_share, optimal, holds = [], [], [], [], 0
    for key, rs in sorted(by.items()):
        never = lambda r: r["best_x_vs_any"] != "loss" and r["best_o_vs_any"] != "loss"
        fb = next((int(r["generation"]) for r in rs if never(r)), None)
        fm = next((int(r["generation"]) for r in rs
                   if r["population_never_loses"] and float(r["population_never_loses"]) > 0), None)
        first_best.append(fb)
        first_member.append(fm)
        last = rs[-1]
        final_share.append(float(last["population_never_loses"] or "nan"))
        optimal.append(float(last["best_nontrivial_optimal"]))
        holds += never(last)

    def gens(v):
        got = [x for x in v if x is not None]
        if not got:
            return f"never ({len(v)})"
        text = f"{statistics.median(got):g} [{min(got)}, {max(got)}]"
        return text + (f", never in {len(v) - len(got)}" if len(got) < len(v) else "")

    def spread(v, scale=1.0, digits=1):
        return (f"{statistics.mean(v) * scale:.{digits}f} [{min(v) * scale:.{digits}f}, "
                f"{max(v) * scale:.{digits}f}]")

    generations = max(int(r["generation"]) for r in rows) + 1
    size = int(re.search(r"^size = (\d+)", open(f"{run}/config.toml").read(), re.M).group(1))
    per_trial = ", ".join("-" if g is None else f"{g} ({(g + 1) * size:,})" for g in first_best)
    return (f"{run}: {len(by)} trial(s) x population(s), {generations} generations | first best: "
            f"{gens(first_best)} | first member: {gens(first_member)} | final share: "
            f"{spread(final_share, 100)} % | best optimal (non-trivial): {spread(optimal, 100, 2)} % | "
            f"best holds: {holds} of {len(by)} | per trial, first best (networks evaluated): {per_trial}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for run in sys.argv[1:]:
        print(summarise(run))
