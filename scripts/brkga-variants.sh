#!/usr/bin/env bash
# The BRKGA variants of the shape search side by side (issue 56; docs/method.md 1.2): classic
# (two parents, rho_e), multi-parent (3 parents, 2 elite, log-inverse bias) and multi-parent
# with shaking, reset and implicit path relinking, each on the same seeds, at equal cost: the
# relinking variant runs fewer generations so that its fitness evaluations, its paths' included
# (counted from its log), do not exceed the others'.
#
#   scripts/brkga-variants.sh --data GAMES [--config configs/quick.toml] [--seeds "1 2 3 4 5"]
#                             [--out runs/brkga-variants] [--threads N] [--generations G]
#
# --generations G cuts (or extends) the base config's run for every variant, e.g. the 2-core
# paper-sized search (configs/logbook-2core.toml, 2,000 generations, about 70 minutes a run on
# 2 cores) to a few hundred.
#
# Each run is a plain search run directory under OUT/<variant>-s<seed> (an interrupted script
# resumes the runs it finds). OUT/summary.md gets, per move, each variant's final held-out test
# MSE (each run's own test split: metrics.csv at its last generation) as mean and 95% t-interval
# over the seeds, and the paired difference to classic (same seed, same data split) with its
# interval; and each variant's evaluations. Lower MSE is better.
set -euo pipefail
cd "$(dirname "$0")/.."
config=configs/quick.toml seeds="1 2 3 4 5" out=runs/brkga-variants data="" threads=$(nproc) cut=""
while (($#)); do
  case $1 in
    --config) config=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --generations) cut=$2; shift 2 ;;
    *) echo "usage: scripts/brkga-variants.sh --data GAMES [--config C] [--seeds \"1 2 3\"] [--out DIR] [--threads N] [--generations G]" >&2; exit 2 ;;
  esac
done
[[ -n $data ]] || { echo "brkga-variants: --data GAMES is needed (e.g. runs/builtin-edax-30000.txt)" >&2; exit 2; }
[[ -f $config ]] || { echo "brkga-variants: $config: no such config" >&2; exit 2; }
ef=build/evalforge
mkdir -p "$out/configs"

# The base config's size: islands x island size, generations, elite.
read -r islands size generations elite < <(python3 - "$config" <<'PY'
import sys, tomllib
c = tomllib.load(open(sys.argv[1], "rb"))["search"]
print(len(c.get("moves", [18, 22, 26, 30, 34, 38, 42, 46])), c.get("island_size", 100), c.get("generations", 4000), c.get("elite", 20))
PY
)
if [[ -n $cut ]]; then
  [[ $cut =~ ^[1-9][0-9]*$ ]] || { echo "brkga-variants: --generations $cut: expected a positive integer" >&2; exit 2; }
  generations=$cut
fi
tuples=12
ipr_interval=$(( generations >= 100 ? 25 : 10 ))
# A path of percentage 0.5 over at most 12 differing tuples costs at most 12 + 11 + ... + 7 = 57
# evaluations; one pair per island every ipr_interval generations.
ipr_generations=$(python3 -c "
import math
base = $islands * $size * $generations
per_gen = $islands * $size + $islands * 57 / $ipr_interval
print(int(base // per_gen))")

variant_config() {  # variant seed -> config file
  local v=$1 s=$2 f=$out/configs/$1-s$2.toml
  python3 - "$config" "$f" "$v" "$s" "$ipr_generations" "$ipr_interval" "$generations" <<'PY'
import re, sys
src, dst, variant, seed, ipr_generations, ipr_interval, generations = sys.argv[1:]
text = open(src).read()
def set_key(text, key, value):
    pattern = re.compile(r"^%s\s*=.*$" % key, re.M)
    if pattern.search(text):
        return pattern.sub("%s = %s" % (key, value), text, count=1)
    return text.replace("[search]\n", "[search]\n%s = %s\n" % (key, value), 1)
text = set_key(text, "seed", seed)
text = set_key(text, "generations", generations)
if variant != "classic":
    text = set_key(text, "parents", "3")
    text = set_key(text, "elite_parents", "2")
    text = set_key(text, "bias", '"loginverse"')
if variant == "mp-ipr-shake":
    text = set_key(text, "generations", ipr_generations)
    text += "\n[search.shake]\ninterval = %d\nreset_interval = %d\nkind = \"change\"\n" % (int(ipr_interval), 4 * int(ipr_interval))
    text += "\n[search.ipr]\ninterval = %s\npairs = 1\nselection = \"best\"\npercentage = 0.5\nmin_distance = 1\n" % ipr_interval
open(dst, "w").write(text)
PY
  echo "$f"
}

variants="classic mp mp-ipr-shake"
for s in $seeds; do
  for v in $variants; do
    run=$out/$v-s$s
    if [[ -f $run/checkpoint.bin ]] && grep -q "search complete" "$run/log.txt" 2>/dev/null; then continue; fi
    if [[ -d $run ]]; then
      $ef search --resume "$run" --threads "$threads" >/dev/null
    else
      $ef search --config "$(variant_config "$v" "$s")" --data "$data" --out "$run" --threads "$threads" >/dev/null
    fi
    echo "brkga-variants: $run done"
  done
done

python3 - "$out" "$islands" "$size" "$variants" "$seeds" <<'PY' | tee "$out/summary.md"
import csv, math, os, re, statistics, sys
out, islands, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
variants, seeds = sys.argv[4].split(), sys.argv[5].split()
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228}
def interval(xs):
    m = statistics.mean(xs)
    if len(xs) < 2: return m, float("nan")
    return m, T975.get(len(xs) - 1, 1.96) * statistics.stdev(xs) / math.sqrt(len(xs))
# Per run: each generation's cumulative fitness evaluations (the population's, and the relinking
# paths' of that generation and before), best fitness per move, and the final test MSE per move.
best, evals_at, final, evals = {}, {}, {}, {}
curves = open(os.path.join(out, "curves.csv"), "w")
curves.write("variant,seed,generation,evaluations,move,best,test_mse\n")
for v in variants:
    for s in seeds:
        run = os.path.join(out, "%s-s%s" % (v, s))
        rows = list(csv.DictReader(open(os.path.join(run, "metrics.csv"))))
        # Keyed by (generation, island, pair): a generation evaluated again after a resume logs its paths again.
        paths = {}
        for g, k, pair, m in re.findall(r"generation (\d+): path relinking island (\d+) .*?pair (\d+) .*?, (\d+) evaluations",
                                        open(os.path.join(run, "log.txt")).read()):
            paths[int(g), int(k), int(pair)] = int(m)
        relink = {}
        for (g, _, _), m in paths.items():
            relink[g] = relink.get(g, 0) + m
        last = max(int(r["generation"]) for r in rows)
        cumulative, total = [], 0
        for g in range(last + 1):
            total += islands * size + relink.get(g, 0)
            cumulative.append(total)
        evals_at[v, s], evals[v, s] = cumulative, total
        best[v, s] = {}
        for r in rows:
            g, m = int(r["generation"]), int(r["move"])
            best[v, s].setdefault(m, {})[g] = float(r["best"])
            curves.write("%s,%s,%d,%d,%d,%s,%s\n" % (v, s, g, cumulative[g], m, r["best"], r["test_mse"]))
        final[v, s] = {int(r["move"]): float(r["test_mse"]) for r in rows if int(r["generation"]) == last}
curves.close()
moves = sorted(final[variants[0], seeds[0]])
def table(title, value):  # value(v, s, m) -> float
    print(title + "\n")
    print("| move | " + " | ".join(variants) + " | " + " | ".join("%s - classic" % v for v in variants[1:]) + " |")
    print("|---" * (1 + 2 * len(variants) - 1) + "|")
    for m in moves:
        cells = []
        for v in variants:
            mean, half = interval([value(v, s, m) for s in seeds])
            cells.append("%.2f ± %.2f" % (mean, half))
        for v in variants[1:]:
            mean, half = interval([value(v, s, m) - value("classic", s, m) for s in seeds])
            cells.append("%+.2f ± %.2f" % (mean, half))
        print("| %d | %s |" % (m, " | ".join(cells)))
    print()
table("Final held-out test MSE (discs^2) per move: each run's best shape at its last generation, trained on the "
      "fitness positions and scored on its test split; mean and 95%% t-interval over %d seeds, and the paired "
      "difference to classic (same seed, same split; negative = better than classic)." % len(seeds),
      lambda v, s, m: final[v, s][m])
budget = min(evals[v, s] for v in variants for s in seeds)
for frac in (0.5, 1.0):
    def at(v, s, m, frac=frac):  # best fitness of the last generation within frac of the budget
        g = max(i for i, e in enumerate(evals_at[v, s]) if e <= frac * budget + 1e-9)
        return best[v, s][m][g]
    table("Best validation fitness (MSE, discs^2) per move at %d%% of the budget (%d evaluations): the last "
          "generation within it; each generation measures everyone on its own split, so this is one "
          "generation's best, not a running minimum." % (round(100 * frac), round(frac * budget)), at)
print("Fitness evaluations per run (relinking paths included): " + ", ".join(
    "%s %s" % (v, "/".join(str(evals[v, s]) for s in seeds)) for v in variants))
print("\nPer generation (evaluations, best fitness, test MSE where measured): %s" % os.path.join(out, "curves.csv"))
PY
