// Shaking and reset of a stalled population (the perturbations of BRKGA-MP-IPR, Andrade, Toso,
// Gonçalves & Resende 2021; docs/search.md, "Shaking and reset").
//
// Stall rule: after each generation is evaluated, an island whose best fitness is not strictly
// better than its best so far has stalled one generation more; a better best sets the count to
// 0. When the transition to generation g follows a count of c stalled generations:
//   - reset, when reset_interval > 0 and c >= reset_interval: every individual but the best
//     (slot 0) gets fresh random keys, and the count starts again at 0;
//   - else shake, when interval > 0 and c is a positive multiple of interval: the other elite
//     individuals are perturbed (below) and the offspring get fresh random keys.
// Both act after crossover and migration (islands.hpp), on the slots that hold old material:
// the elite [1, pe) and the offspring [pe + pm, p). The best individual (slot 0) is never
// touched, so the best-so-far stays in the population, its reports and its migrants; the
// mutant slots [pe, pe + pm) are fresh random keys or immigrants already and are left alone.
// Every touched individual loses its fitness (it is evaluated again).
//
// A perturbation of an elite individual of n keys: r = max(1, round(intensity * n)) rounds,
// intensity drawn once per shake uniformly in [intensity_min, intensity_max]; a round of kind
// change gives one uniformly chosen key a fresh uniform value; a round of kind swap exchanges
// two distinct uniformly chosen keys (n >= 2; with one key it changes it).
//
// Determinism: Rng(seed, Purpose::kShake, island, g, slot) for each touched slot and
// Rng(seed, Purpose::kShake, island, g, kShakeIntensitySlot) for the intensity: the same bits
// for any thread or rank count. The stall counts belong to the run's state (checkpoints carry
// them when shaking is on).
#pragma once
#include <limits>
#include <optional>
#include <string_view>
#include "evalforge/core/hd.hpp"
#include "evalforge/ga/brkga.hpp"

namespace ef::ga {

enum class ShakeKind { kChange, kSwap };
// "change" or "swap".
const char* shake_kind_name(ShakeKind kind);
std::optional<ShakeKind> parse_shake_kind(std::string_view name);

struct ShakeParams {
  int interval = 0;        // shake after each `interval` stalled generations; 0 = never
  int reset_interval = 0;  // reset after `reset_interval` stalled generations; 0 = never
  ShakeKind kind = ShakeKind::kChange;
  double intensity_min = 0.1;  // fraction of an individual's keys perturbed, drawn in [min, max]
  double intensity_max = 0.3;
  bool enabled() const { return interval > 0 || reset_interval > 0; }
  // Throws ef::Error for a negative interval, intensities outside (0, 1] or min > max.
  void validate() const;
};

// One island's stall state: the best fitness seen so far (NaN before the first generation) and
// the generations since it last improved (or since the last reset).
struct StallState {
  double best = std::numeric_limits<double>::quiet_NaN();
  int stalled = 0;
  bool operator==(const StallState&) const = default;
};

// The stall rule for one evaluated generation whose best fitness is `best`.
void update_stall(StallState& state, double best);

enum class ShakeAction { kNone, kShake, kReset };
// What the transition after `state` does (the rule above); kNone when shaking is off.
ShakeAction shake_action(const ShakeParams& params, const StallState& state);

// Applies `action` to `population` (fresh from next_generation and migration, layout of
// brkga.hpp) for generation `generation` of island `island`; a reset also sets state.stalled
// to 0. kNone changes nothing.
void apply_shake(ShakeAction action, Population& population, const BrkgaParams& brkga, const ShakeParams& params,
                 StallState& state, u64 seed, u32 island, u32 generation);

}  // namespace ef::ga
