#include "backends/cpu/train_body.hpp"
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string_view>
#include "backends/cpu/network_eval.hpp"
#include "evalforge/core/error.hpp"
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace ef::cpu {

namespace {

// ---- The feature program: every feature's squares, in digit order ----------------------
//
// Feature f = 8i + s (feature_indices' layout) reads the squares image_squares(mask_i, s) as
// base-3 digits 0, 1, ...; the vector paths gather those squares' states (2 black + 1 white)
// as bytes and weigh them by powers of 3 with integer multiply-adds.
struct FeatureSquares {
  int count = 0;
  int square[ntuple::kMaxTupleSize];
  u32 offset = 0;
};

FeatureSquares feature_squares(const ntuple::Geometry& g, int f) {
  FeatureSquares fs;
  if (f < g.num_features()) {
    fs.count = ntuple::image_squares(g.mask[f / 8], f % 8, fs.square);
    fs.offset = g.offset[f / 8];
  }
  return fs;  // past the last feature: no squares, index 0 (padding, never read)
}

// Both vector paths combine four registers of per-feature digit sums the same way, and lay out
// their features so that the result comes out in order: in a group of 4L features (L = 128-bit
// lanes per register), feature 4l + r sits in lane l of register r.
constexpr int lane_of(int rel) { return rel / 4; }
constexpr int reg_of(int rel) { return rel % 4; }

// AVX-512 group: 16 features. perm[r] selects, for lane l's 16 bytes, the squares of feature
// 4l + r; keep[r] zeroes the bytes past its last digit.
struct alignas(64) Avx512Group {
  std::uint8_t perm[4][64];
  u32 offset[16];
  u64 keep[4];
};

// AVX2 group: 8 features. A byte shuffle reaches only the 16 bytes of its lane, so the board's
// 64 states are four quarters of 16 squares and shuf[r][q] picks feature 4l + r's squares that
// lie in quarter q (0x80, which the shuffle turns into 0, elsewhere).
struct alignas(32) Avx2Group {
  std::uint8_t shuf[4][4][32];
  u32 offset[8];
};

template <class Group, int kFeatures>
void build_program(const ntuple::Geometry& g, std::vector<std::uint8_t>& storage, int groups);

}  // namespace

// ---- Portable path -----------------------------------------------------------------------

namespace path_portable {
struct Indexer {
  const ntuple::Geometry& g;
  int stride() const { return g.num_features(); }
  void operator()(u64 black, u64 white, u32* out) const { ntuple::feature_indices(g, black, white, out); }
};
#include "backends/cpu/train_loop.inc"
}  // namespace path_portable

#if defined(__x86_64__)

// ---- AVX2 path ---------------------------------------------------------------------------

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
namespace path_avx2 {
struct Indexer {
  const Avx2Group* groups;
  int num_groups;
  int stride() const { return 8 * num_groups; }
  // The states of squares 32h .. 32h+31 as bytes (2 black, 1 white, 0 empty).
  static __m256i states(u32 black, u32 white) {
    const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,  //
                                            2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bit = _mm256_set1_epi64x(static_cast<long long>(0x8040201008040201ull));
    const __m256i b = _mm256_and_si256(_mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(black)), spread), bit);
    const __m256i w = _mm256_and_si256(_mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(white)), spread), bit);
    return _mm256_or_si256(_mm256_and_si256(_mm256_cmpeq_epi8(b, bit), _mm256_set1_epi8(2)),
                           _mm256_and_si256(_mm256_cmpeq_epi8(w, bit), _mm256_set1_epi8(1)));
  }
  void operator()(u64 black, u64 white, u32* out) const {
    const __m256i lo = states(static_cast<u32>(black), static_cast<u32>(white));
    const __m256i hi = states(static_cast<u32>(black >> 32), static_cast<u32>(white >> 32));
    const __m256i quarter[4] = {_mm256_permute2x128_si256(lo, lo, 0x00), _mm256_permute2x128_si256(lo, lo, 0x11),
                                _mm256_permute2x128_si256(hi, hi, 0x00), _mm256_permute2x128_si256(hi, hi, 0x11)};
    const __m256i m13 = _mm256_set1_epi16(0x0301);        // bytes (1, 3): d0 + 3 d1
    const __m256i m19 = _mm256_set1_epi32(0x00090001);    // words (1, 9): digits 0-3 of a group of 4
    const __m256i m81 = _mm256_set1_epi32(0x00510001);    // words (1, 81)
    const __m256i m6561 = _mm256_set1_epi32(0x19A10001);  // words (1, 6561)
    for (int t = 0; t < num_groups; ++t) {
      const Avx2Group& gr = groups[t];
      __m256i sum[4];
      for (int r = 0; r < 4; ++r) {
        __m256i d = _mm256_shuffle_epi8(quarter[0], _mm256_load_si256(reinterpret_cast<const __m256i*>(gr.shuf[r][0])));
        for (int q = 1; q < 4; ++q)
          d = _mm256_or_si256(
              d, _mm256_shuffle_epi8(quarter[q], _mm256_load_si256(reinterpret_cast<const __m256i*>(gr.shuf[r][q]))));
        sum[r] = _mm256_madd_epi16(_mm256_maddubs_epi16(d, m13), m19);  // 4 dwords of 4 digits each, <= 80
      }
      const __m256i p01 = _mm256_madd_epi16(_mm256_packus_epi32(sum[0], sum[1]), m81);
      const __m256i p23 = _mm256_madd_epi16(_mm256_packus_epi32(sum[2], sum[3]), m81);
      const __m256i idx = _mm256_add_epi32(_mm256_madd_epi16(_mm256_packus_epi32(p01, p23), m6561),
                                           _mm256_load_si256(reinterpret_cast<const __m256i*>(gr.offset)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8 * t), idx);
    }
  }
};
#include "backends/cpu/train_loop.inc"
}  // namespace path_avx2
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

// ---- AVX-512 path (BW, VBMI byte permutes, VNNI dot products) ----------------------------

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vnni"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vbmi,avx512vnni")
#endif
namespace path_avx512 {
struct Indexer {
  const Avx512Group* groups;
  int num_groups;
  int stride() const { return 16 * num_groups; }
  void operator()(u64 black, u64 white, u32* out) const {
    const __m512i states = _mm512_or_si512(_mm512_maskz_mov_epi8(black, _mm512_set1_epi8(2)),
                                           _mm512_maskz_mov_epi8(white, _mm512_set1_epi8(1)));
    const __m512i powers = _mm512_set1_epi32(0x1B090301);  // bytes (1, 3, 9, 27)
    const __m512i m81 = _mm512_set1_epi32(0x00510001);     // words (1, 81)
    const __m512i m6561 = _mm512_set1_epi32(0x19A10001);   // words (1, 6561)
    for (int t = 0; t < num_groups; ++t) {
      const Avx512Group& gr = groups[t];
      __m512i sum[4];
      for (int r = 0; r < 4; ++r) {
        const __m512i d = _mm512_maskz_permutexvar_epi8(gr.keep[r], _mm512_load_si512(gr.perm[r]), states);
        sum[r] = _mm512_dpbusd_epi32(_mm512_setzero_si512(), d, powers);  // 4 dwords of 4 digits each, <= 80
      }
      const __m512i p01 = _mm512_madd_epi16(_mm512_packus_epi32(sum[0], sum[1]), m81);
      const __m512i p23 = _mm512_madd_epi16(_mm512_packus_epi32(sum[2], sum[3]), m81);
      const __m512i idx =
          _mm512_add_epi32(_mm512_madd_epi16(_mm512_packus_epi32(p01, p23), m6561), _mm512_load_si512(gr.offset));
      _mm512_storeu_si512(out + 16 * t, idx);
    }
  }
};
#include "backends/cpu/train_loop.inc"
}  // namespace path_avx512
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif  // __x86_64__

namespace {

template <class Group, int kFeatures>
void build_program(const ntuple::Geometry& g, std::vector<std::uint8_t>& storage, int groups) {
  static_assert(kFeatures == 8 || kFeatures == 16);
  storage.assign(sizeof(Group) * groups + alignof(Group), 0);
  void* base = storage.data();
  std::size_t space = storage.size();
  Group* out = static_cast<Group*>(std::align(alignof(Group), sizeof(Group) * groups, base, space));
  for (int t = 0; t < groups; ++t) {
    Group& gr = out[t];
    std::memset(&gr, 0, sizeof gr);
    if constexpr (kFeatures == 8) std::memset(gr.shuf, 0x80, sizeof gr.shuf);
    for (int rel = 0; rel < kFeatures; ++rel) {
      const FeatureSquares fs = feature_squares(g, kFeatures * t + rel);
      const int l = lane_of(rel), r = reg_of(rel);
      gr.offset[rel] = fs.offset;
      for (int j = 0; j < fs.count; ++j) {
        const int sq = fs.square[j];
        if constexpr (kFeatures == 16) {
          gr.perm[r][16 * l + j] = static_cast<std::uint8_t>(sq);
          gr.keep[r] |= u64{1} << (16 * l + j);
        } else {
          gr.shuf[r][sq / 16][16 * l + j] = static_cast<std::uint8_t>(sq % 16);
        }
      }
    }
  }
}

template <class Group>
const Group* program_of(const std::vector<std::uint8_t>& storage) {
  void* base = const_cast<std::uint8_t*>(storage.data());
  std::size_t space = storage.size();
  return static_cast<const Group*>(std::align(alignof(Group), sizeof(Group), base, space));
}

bool cpu_has(VectorPath p) {
#if defined(__x86_64__)
  switch (p) {
    case VectorPath::kPortable: return true;
    case VectorPath::kAvx2: return __builtin_cpu_supports("avx2");
    case VectorPath::kAvx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512vnni");
  }
  return false;
#else
  return p == VectorPath::kPortable;
#endif
}

VectorPath chosen_path() {
  const char* env = std::getenv("EF_CPU_PATH");
  if (!env || !*env) return available_paths().back();
  try {
    return path_from_name(env);
  } catch (const Error& e) {
    fail("EF_CPU_PATH: {}", e.what());
  }
}

}  // namespace

const char* path_name(VectorPath p) {
  switch (p) {
    case VectorPath::kPortable: return "portable";
    case VectorPath::kAvx2: return "avx2";
    case VectorPath::kAvx512: return "avx512";
  }
  return "?";
}

std::vector<VectorPath> available_paths() {
  std::vector<VectorPath> out;
  for (VectorPath p : {VectorPath::kPortable, VectorPath::kAvx2, VectorPath::kAvx512})
    if (cpu_has(p)) out.push_back(p);
  return out;
}

VectorPath path_from_name(std::string_view name) {
  const auto paths = available_paths();
  std::string have;
  for (VectorPath a : paths) have += std::string(have.empty() ? "" : ", ") + path_name(a);
  for (VectorPath p : {VectorPath::kPortable, VectorPath::kAvx2, VectorPath::kAvx512})
    if (name == path_name(p)) {
      if (!cpu_has(p)) fail("'{}': this CPU cannot run that vector path (it has: {})", name, have);
      return p;
    }
  fail("'{}': unknown vector path (expected portable, avx2 or avx512)", name);
}

VectorPath default_path() {
  static const VectorPath path = chosen_path();
  return path;
}

PackedPositions pack_positions(const PositionData& data) {
  if (data.black.size() != data.label.size() || data.white.size() != data.label.size())
    fail("training: a position set has {} black boards, {} white boards and {} labels", data.black.size(),
         data.white.size(), data.label.size());
  PackedPositions out(data.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = {data.black[i], data.white[i], data.label[i], 0};
  return out;
}

void train_job(const PackedPositions& data, const TrainJob& job, TrainResult& result, TrainScratch& s,
               VectorPath path) {
  const ntuple::Geometry& g = *job.geometry;
  const TrainParams& p = job.params;
  if (p.batch_size < 1) fail("training: batch_size must be >= 1 (got {})", p.batch_size);
  if (p.epochs < 0) fail("training: epochs must be >= 0 (got {})", p.epochs);
  if (!cpu_has(path)) fail("training: this CPU cannot run the {} path", path_name(path));
  std::vector<i32> table = job.initial_weights.empty()
                               ? std::vector<i32>(g.num_weights(), 0)
                               : std::vector<i32>(job.initial_weights.begin(), job.initial_weights.end());
  if (table.size() != static_cast<std::size_t>(g.num_weights()))
    fail("training: {} initial weights for a geometry of {}", table.size(), g.num_weights());
  i32* const weights = table.data();
  const int nf = g.num_features();
  const u32 rate = ntuple::rate_multiplier(p.learning_rate, nf);
  switch (path) {
    case VectorPath::kPortable:
      path_portable::run_job(path_portable::Indexer{g}, data, job, weights, rate, result, s);
      break;
#if defined(__x86_64__)
    case VectorPath::kAvx2: {
      const int groups = (nf + 7) / 8;
      build_program<Avx2Group, 8>(g, s.program, groups);
      path_avx2::run_job(path_avx2::Indexer{program_of<Avx2Group>(s.program), groups}, data, job, weights, rate, result,
                         s);
      break;
    }
    case VectorPath::kAvx512: {
      const int groups = (nf + 15) / 16;
      build_program<Avx512Group, 16>(g, s.program, groups);
      path_avx512::run_job(path_avx512::Indexer{program_of<Avx512Group>(s.program), groups}, data, job, weights, rate,
                           result, s);
      break;
    }
#else
    default: fail("training: the {} path exists on x86-64 only", path_name(path));
#endif
  }
  if (job.return_weights)
    result.weights = std::move(table);
  else
    result.weights.clear();
}

NetworkEval::NetworkEval(const ntuple::Geometry& g, VectorPath path) : g_(&g), path_(path) {
  if (!cpu_has(path)) fail("network evaluation: this CPU cannot run the {} path", path_name(path));
  const int nf = g.num_features();
  switch (path) {
    case VectorPath::kPortable: break;
#if defined(__x86_64__)
    case VectorPath::kAvx2:
      num_groups_ = (nf + 7) / 8;
      build_program<Avx2Group, 8>(g, program_, num_groups_);
      groups_ = program_of<Avx2Group>(program_);
      break;
    case VectorPath::kAvx512:
      num_groups_ = (nf + 15) / 16;
      build_program<Avx512Group, 16>(g, program_, num_groups_);
      groups_ = program_of<Avx512Group>(program_);
      break;
#else
    default: fail("network evaluation: the {} path exists on x86-64 only", path_name(path));
#endif
  }
}

i64 NetworkEval::operator()(const i32* weights, u64 black, u64 white) const {
  const int nf = g_->num_features();
  switch (path_) {
#if defined(__x86_64__)
    case VectorPath::kAvx2:
      return path_avx2::evaluate_network(path_avx2::Indexer{static_cast<const Avx2Group*>(groups_), num_groups_},
                                         weights, nf, black, white);
    case VectorPath::kAvx512:
      return path_avx512::evaluate_network(path_avx512::Indexer{static_cast<const Avx512Group*>(groups_), num_groups_},
                                           weights, nf, black, white);
#endif
    default: return path_portable::evaluate_network(path_portable::Indexer{*g_}, weights, nf, black, white);
  }
}

SolverOrdering::SolverOrdering(const ntuple::Evaluator& evaluator, VectorPath path) {
  std::vector<const ntuple::Geometry*> seen;
  for (int t = 0; t < ntuple::kMoveNumbers; ++t) {
    const ntuple::Stage& s = evaluator.stage_of_move[t];
    if (!s.geometry || !s.weights) fail("solver ordering: the network has no weights for move {}", t);
    std::size_t k = 0;
    while (k < seen.size() && seen[k] != s.geometry) ++k;
    if (k == seen.size()) {
      seen.push_back(s.geometry);
      evals_.push_back(std::make_unique<NetworkEval>(*s.geometry, path));
    }
    stages_[static_cast<std::size_t>(t)] = Stage{evals_[k].get(), s.weights};
  }
}

}  // namespace ef::cpu
