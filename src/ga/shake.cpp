#include "evalforge/ga/shake.hpp"
#include <algorithm>
#include <cmath>
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"

namespace ef::ga {

namespace {
// The stream of a shake's intensity: no slot has this number.
constexpr u32 kShakeIntensitySlot = 0xFFFFFFFFu;
}  // namespace

const char* shake_kind_name(ShakeKind kind) { return kind == ShakeKind::kSwap ? "swap" : "change"; }

std::optional<ShakeKind> parse_shake_kind(std::string_view name) {
  if (name == "change") return ShakeKind::kChange;
  if (name == "swap") return ShakeKind::kSwap;
  return std::nullopt;
}

void ShakeParams::validate() const {
  if (interval < 0) fail("shake: interval {} must not be negative (0 = never)", interval);
  if (reset_interval < 0) fail("shake: reset_interval {} must not be negative (0 = never)", reset_interval);
  if (!(intensity_min > 0.0 && intensity_min <= 1.0))
    fail("shake: intensity_min = {} is outside (0, 1]", intensity_min);
  if (!(intensity_max > 0.0 && intensity_max <= 1.0))
    fail("shake: intensity_max = {} is outside (0, 1]", intensity_max);
  if (intensity_min > intensity_max)
    fail("shake: intensity_min = {} is larger than intensity_max = {}", intensity_min, intensity_max);
}

void update_stall(StallState& state, double best) {
  if (std::isnan(state.best) || best < state.best) {
    state.best = best;
    state.stalled = 0;
  } else {
    ++state.stalled;
  }
}

ShakeAction shake_action(const ShakeParams& params, const StallState& state) {
  if (params.reset_interval > 0 && state.stalled >= params.reset_interval) return ShakeAction::kReset;
  if (params.interval > 0 && state.stalled > 0 && state.stalled % params.interval == 0) return ShakeAction::kShake;
  return ShakeAction::kNone;
}

void apply_shake(ShakeAction action, Population& population, const BrkgaParams& brkga, const ShakeParams& params,
                 StallState& state, u64 seed, u32 island, u32 generation) {
  if (action == ShakeAction::kNone) return;
  const int n = population.num_keys;
  const int pe = brkga.elite_count, pm = brkga.mutant_count;
  auto fresh = [&](int slot) {
    Rng rng(seed, Purpose::kShake, island, generation, static_cast<u32>(slot));
    for (double& key : population.individual(slot)) key = rng.uniform();
    population.fitness[static_cast<std::size_t>(slot)] = kNotEvaluated;
  };
  // Old material: the elite but the best, and the offspring (shake.hpp).
  for (int slot = pe + pm; slot < population.size; ++slot) fresh(slot);
  if (action == ShakeAction::kReset) {
    for (int slot = 1; slot < pe; ++slot) fresh(slot);
    state.stalled = 0;
    return;
  }
  Rng intensity_rng(seed, Purpose::kShake, island, generation, kShakeIntensitySlot);
  const double intensity =
      params.intensity_min + (params.intensity_max - params.intensity_min) * intensity_rng.uniform();
  const int rounds = std::max(1, static_cast<int>(std::lround(intensity * n)));
  for (int slot = 1; slot < pe; ++slot) {
    Rng rng(seed, Purpose::kShake, island, generation, static_cast<u32>(slot));
    std::span<double> keys = population.individual(slot);
    for (int r = 0; r < rounds; ++r) {
      const u32 i = rng.below(static_cast<u32>(n));
      if (params.kind == ShakeKind::kSwap && n >= 2) {
        u32 j = rng.below(static_cast<u32>(n - 1));
        if (j >= i) ++j;  // distinct from i, uniform over the others
        std::swap(keys[i], keys[j]);
      } else {
        keys[i] = rng.uniform();
      }
    }
    population.fitness[static_cast<std::size_t>(slot)] = kNotEvaluated;
  }
}

}  // namespace ef::ga
