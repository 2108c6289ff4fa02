#include <gtest/gtest.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include "backends/cpu/network_eval.hpp"
#include "backends/cpu/train_body.hpp"
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/games/othello/ntuple_evaluator.hpp"
#include "evalforge/games/othello/shape.hpp"
#include "evalforge/games/othello/squares.hpp"
#include "test_support.hpp"

using namespace ef;
using namespace ef::ntuple;

namespace {

u64 bit(const char* sq) { return u64{1} << *parse_square(sq); }

// Random reachable positions: random legal moves from the start.
std::vector<othello::Board> random_positions(int n, int plies, u64 seed) {
  std::vector<othello::Board> out;
  for (int g = 0; g < n; ++g) {
    Rng rng(seed, Purpose::kGame, static_cast<u32>(g));
    othello::Board b;
    for (int p = 0; p < plies && !b.game_over(); ++p) {
      u64 m = b.moves();
      if (!m) {
        b.pass();
        continue;
      }
      b.play(rng.random_bit(m));
    }
    out.push_back(b);
  }
  return out;
}

std::filesystem::path temp_file(const std::string& name, const std::string& text) {
  auto p = std::filesystem::temp_directory_path() / ("ef_ntuple_" + name);
  std::ofstream(p) << text;
  return p;
}

}  // namespace

// The paper's Figure 1 tuple (row 8, a8..h8), on a board with a8 black, b8 white, d8 black:
// index = 2*3^0 + 1*3^1 + 0*3^2 + 2*3^3 = 59.
TEST(NTupleIndex, PaperFigure1Example) {
  const u64 row8 = 0xFF00000000000000ull;
  EXPECT_EQ(tuple_index(bit("a8") | bit("d8"), bit("b8"), row8), 59u);
  EXPECT_EQ(tuple_index(0, 0, row8), 0u);
  EXPECT_EQ(tuple_index(row8, 0, row8), 2u * (6561u - 1u) / 2u);  // all black: sum 2*3^j = 3^8 - 1
}

// Symmetric sampling of the same tuple: the 8 images of that board, worked out by hand from
// the symmetry definitions (transpose, mirror files, mirror ranks): row 8 of each image holds
// a8/b8/d8 (identity: 59), their file mirror (e8 B, g8 W, h8 B: 2*3^4 + 1*3^6 + 2*3^7 = 5265),
// the a-file image via transpose (h8 B: 2*3^7 = 4374; a8 B: 2), or nothing (4 images: 0).
TEST(NTupleIndex, SymmetricSamplingByHand) {
  Shape s = make_shape("row8", {{"a8", "b8", "c8", "d8", "e8", "f8", "g8", "h8"}}, "test");
  const Geometry g = s.geometry();
  u32 idx[8];
  feature_indices(g, bit("a8") | bit("d8"), bit("b8"), idx);
  std::vector<u32> got(idx, idx + 8);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<u32>{0, 0, 0, 0, 2, 59, 4374, 5265}));
  // Eq. (2): F = sum of the 8 weights; with w[59] = 5 discs and w[0] = 1 disc, F = 9 discs.
  std::vector<i32> w(g.num_weights(), 0);
  w[59] = 5 * kOne;
  w[0] = 1 * kOne;
  EXPECT_EQ(evaluate(g, w.data(), bit("a8") | bit("d8"), bit("b8")), 9 * kOne);
}

TEST(NTupleIndex, LoopAndTableAndPextAgree) {
  for (u32 b = 0; b < 4096; ++b) EXPECT_EQ(binary_to_ternary(b), binary_to_ternary_loop(b));
  const Shape edax = edax_shape();
  const Geometry g = edax.geometry();
  for (const auto& pos : random_positions(50, 30, 7)) {
    for (int i = 0; i < g.num_tuples; ++i) {
      // Reference: Eq. (1) digit by digit over the tuple's squares in ascending order.
      u32 expect = 0, p = 1;
      for (int sq : edax.tuples[i]) {
        const u32 x = (pos.black() >> sq & 1) ? 2 : ((pos.white() >> sq & 1) ? 1 : 0);
        expect += p * x;
        p *= 3;
      }
      EXPECT_EQ(tuple_index(pos.black(), pos.white(), g.mask[i]), expect);
    }
  }
}

TEST(NTupleShape, EdaxShapeSizes) {
  const Shape e = edax_shape();
  EXPECT_EQ(e.tuple_sizes(), (std::vector<int>{9, 10, 10, 10, 8, 8, 8, 8, 7, 6, 5, 4}));
  // 3^9 + 3*3^10 + 4*3^8 + 3^7 + 3^6 + 3^5 + 3^4
  EXPECT_EQ(e.num_weights(), 19683u + 3 * 59049u + 4 * 6561u + 2187u + 729u + 243u + 81u);
}

TEST(NTupleShape, FilesRoundTripAndErrors) {
  const auto json = temp_file("a.json", R"({"name":"x","tuples":[["a1","b1"],["h8","c3","a2"]]})");
  auto shapes = load_shapes(json.string());
  ASSERT_EQ(shapes.size(), 1u);
  EXPECT_EQ(shapes[0].tuples[1], (std::vector<int>{*parse_square("a2"), *parse_square("c3"), *parse_square("h8")}));
  const auto toml = temp_file("b.toml", "name = \"y\"\ntuples = [[\"a1\", \"b1\"], [\"c1\"]]\n");
  EXPECT_EQ(load_shapes(toml.string())[0].tuples.size(), 2u);
  const auto out = std::filesystem::temp_directory_path() / "ef_ntuple_out.json";
  save_shapes_json(out, {edax_shape()});
  EXPECT_EQ(load_shapes(out.string())[0].tuples, edax_shape().tuples);

  auto expect_error = [](const std::string& text, const std::string& ext, const std::string& needle) {
    const auto f = temp_file("bad" + ext, text);
    try {
      load_shapes(f.string());
      ADD_FAILURE() << "no error for " << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(f.string()), std::string::npos) << e.what();
    }
  };
  expect_error(R"({"tuples":[["a1","z9"]]})", ".json", "'z9' is not a square");
  expect_error(R"({"tuples":[["a1","a1"]]})", ".json", "appears twice");
  expect_error(R"({"tuples":[["a1","b1","c1","d1","e1","f1","g1","h1","a2","b2","c2","d2","e2"]]})", ".json",
               "expected 1 to 12");
  expect_error(R"({"tuples":[]})", ".json", "at least one tuple");
  expect_error(R"({"tuples":[["a1"]], "colour": 3})", ".json", "unknown key 'colour'");
  expect_error("{not json", ".json", "not valid JSON");
  expect_error("tuples = [[\"a1\", 3]]\n", ".toml", "non-string");
  // Values of the wrong type or out of range are errors that name the file, never a library
  // exception ("internal error" before).
  expect_error(R"({"name": 40, "tuples":[["a1"]]})", ".json", "'name' must be a string");
  expect_error(R"({"move": 1e999, "tuples":[["a1"]]})", ".json", "cannot read the JSON");
  expect_error(R"({"move": 99999999999, "tuples":[["a1"]]})", ".json", "'move' must be an integer from 0 to 60");
  expect_error(R"({"move": -3, "tuples":[["a1"]]})", ".json", "'move' must be an integer from 0 to 60");
  expect_error(R"({"move": 30.5, "tuples":[["a1"]]})", ".json", "'move' must be an integer from 0 to 60");
  expect_error("move = 99999999999\ntuples = [[\"a1\"]]\n", ".toml", "'move' must be an integer from 0 to 60");
  expect_error("name = 4\ntuples = [[\"a1\"]]\n", ".toml", "'name' must be a string");
  EXPECT_EQ(load_shapes(temp_file("m.json", R"({"move": 60, "tuples":[["a1"]]})").string())[0].move, 60);
  EXPECT_THROW(load_shapes("/nonexistent/shape.json"), Error);
}

TEST(NTupleTraining, StepRoundsSymmetrically) {
  EXPECT_EQ(weight_step(1000, 1u << 23), 500);  // rate 1/2
  EXPECT_EQ(weight_step(-1000, 1u << 23), -500);
  EXPECT_EQ(weight_step(3, 1u << 23), 2);  // 1.5 rounds away from zero
  EXPECT_EQ(weight_step(-3, 1u << 23), -2);
  i32 w = 5;
  add_weight(w, -7);
  EXPECT_EQ(w, -2);
}

namespace {

struct Problem {
  PositionData data;
  std::vector<u32> train, eval;
};

// Labels made by a hidden "teacher" network of the Edax shape with random weights: a
// learnable target, so training must drive the loss far below the label variance.
Problem teacher_problem(int n) {
  const Geometry g = edax_shape().geometry();
  std::vector<i32> teacher(g.num_weights());
  Rng rng(99, Purpose::kPopulation);
  for (auto& w : teacher) w = static_cast<i32>(rng.below(2 * kOne / 4)) - kOne / 4;
  Problem p;
  for (const auto& b : random_positions(n, 24, 3)) {
    p.data.black.push_back(b.black());
    p.data.white.push_back(b.white());
    p.data.label.push_back(evaluate(g, teacher.data(), b.black(), b.white()));
  }
  for (u32 i = 0; i < static_cast<u32>(n); ++i) (i % 5 == 0 ? p.eval : p.train).push_back(i);
  return p;
}

// Job k of a test batch: epochs, rates and sample orders differ from job to job.
TrainJob job_of(const Problem& p, const Geometry& g, int k, int batch, int positions = 0) {
  TrainJob j;
  j.geometry = &g;
  j.positions = positions;
  j.train_ids = p.train;
  j.eval_ids = p.eval;
  j.params.epochs = 3 + k % 2;
  j.params.learning_rate = 0.2 + 0.1 * (k % 3);
  j.params.batch_size = batch;
  j.stream[0] = static_cast<u32>(k);
  j.return_weights = true;
  j.record_epoch_loss = true;
  return j;
}

std::vector<TrainResult> run(Backend& backend, const Problem& p, const Geometry& g, int jobs, int batch) {
  const int h = backend.add_positions(p.data);
  std::vector<TrainJob> js(jobs);
  for (int k = 0; k < jobs; ++k) js[k] = job_of(p, g, k, batch, h);
  std::vector<TrainResult> rs(jobs);
  backend.train(js, rs);
  return rs;
}

}  // namespace

TEST(NTupleTraining, LowersTheLoss) {
  const Problem p = teacher_problem(3000);
  const Geometry g = edax_shape().geometry();
  auto backend = make_backend("cpu", 1);
  const auto rs = run(*backend, p, g, 1, 1);
  ASSERT_EQ(rs[0].epoch_loss.size(), 3u);
  LossSums zero;  // loss of the all-zero network on the eval set
  for (u32 id : p.eval) zero.add(clamp_error(p.data.label[id]));
  EXPECT_LT(rs[0].epoch_loss[2].mse(), rs[0].epoch_loss[0].mse());
  EXPECT_LT(rs[0].eval_loss.mse(), 0.8 * zero.mse()) << "zero-net MSE " << zero.mse();
}

TEST(NTupleTraining, BitIdenticalForOneAndManyThreads) {
  const Problem p = teacher_problem(1500);
  const Geometry g = edax_shape().geometry();
  for (int batch : {1, 16}) {
    auto one = make_backend("cpu", 1);
    auto many = make_backend("cpu", 3);
    const auto a = run(*one, p, g, 6, batch);
    const auto b = run(*many, p, g, 6, batch);
    for (int k = 0; k < 6; ++k) {
      EXPECT_EQ(a[k].eval_loss.squared, b[k].eval_loss.squared);
      EXPECT_EQ(a[k].eval_loss.absolute, b[k].eval_loss.absolute);
      EXPECT_TRUE(a[k].weights == b[k].weights) << "job " << k << " batch " << batch;
    }
    // Different jobs (rates, epochs, orders) do give different weights: the check can fail.
    EXPECT_FALSE(a[0].weights == a[1].weights);
  }
}

TEST(NTupleTraining, ShuffleIsAPermutationKeyedByEpoch) {
  std::vector<u32> a(100), b(100);
  for (u32 i = 0; i < 100; ++i) a[i] = b[i] = i;
  shuffle_ids(a, 1, 2, 3, 0);
  shuffle_ids(b, 1, 2, 3, 1);
  EXPECT_NE(a, b);
  std::sort(a.begin(), a.end());
  for (u32 i = 0; i < 100; ++i) EXPECT_EQ(a[i], i);
}

TEST(Backend, UnknownKindIsAnError) { EXPECT_THROW(make_backend("tpu", 1), Error); }
// A job that continues from given weights (the match experiment's rounds) gives the bits of the
// host's plain SGD loop (feature_indices and sgd_step, the loop the match ran before it trained
// through the backend) from those weights, in the job's order: as shuffle_ids draws it, or
// train_ids as given (shuffle = false); two one-epoch jobs chained through their weights equal
// one two-epoch job; on the backend and on every vector path.
TEST(NTupleTraining, JobsContinueFromGivenWeightsAsTheHostLoopDoes) {
  const Problem p = teacher_problem(600);
  const Geometry g = edax_shape().geometry();
  std::vector<i32> start(g.num_weights());
  Rng rng(5, Purpose::kPopulation, 3);
  for (auto& w : start) w = static_cast<i32>(rng.below(kOne / 8)) - static_cast<i32>(kOne / 16);
  const double lr = 0.1;
  auto host = [&](std::vector<i32> w, const std::vector<std::vector<u32>>& epochs) {
    const u32 rate = rate_multiplier(lr, g.num_features());
    std::vector<u32> idx(static_cast<std::size_t>(g.num_features()));
    for (const auto& order : epochs)
      for (const u32 id : order) {
        feature_indices(g, p.data.black[id], p.data.white[id], idx.data());
        sgd_step(w.data(), idx.data(), g.num_features(), p.data.label[id], rate);
      }
    return w;
  };
  const std::vector<u32> given(p.train.rbegin(), p.train.rend());
  auto shuffled = [&](u32 epoch) {  // the order shuffle_ids draws for (seed 11, streams 4 and 9)
    std::vector<u32> order(given.size());
    for (u32 i = 0; i < order.size(); ++i) order[i] = i;
    shuffle_ids(order, 11, 4, 9, epoch);
    for (u32& o : order) o = given[o];
    return order;
  };
  auto backend = make_backend("cpu", 2);
  const int h = backend->add_positions(p.data);
  TrainJob as_given;
  as_given.geometry = &g;
  as_given.positions = h;
  as_given.train_ids = given;
  as_given.params.learning_rate = lr;
  as_given.params.epochs = 2;
  as_given.shuffle = false;
  as_given.initial_weights = start;
  as_given.return_weights = true;
  TrainJob drawn = as_given;
  drawn.shuffle = true;
  drawn.params.seed = 11;
  drawn.stream[0] = 4;
  drawn.stream[1] = 9;
  TrainJob from_zero = as_given;
  from_zero.initial_weights = {};
  TrainJob first_epoch = as_given;
  first_epoch.params.epochs = 1;
  const std::vector<TrainJob> jobs{as_given, drawn, from_zero, first_epoch};
  std::vector<TrainResult> rs(jobs.size());
  backend->train(jobs, rs);
  const std::vector<i32> want = host(start, {given, given});
  EXPECT_TRUE(rs[0].weights == want);
  EXPECT_TRUE(rs[1].weights == host(start, {shuffled(0), shuffled(1)}));
  EXPECT_TRUE(rs[2].weights == host(std::vector<i32>(start.size(), 0), {given, given}));
  EXPECT_FALSE(rs[0].weights == rs[1].weights);  // the order matters: the checks can fail
  EXPECT_FALSE(rs[0].weights == start);
  TrainJob second_epoch = first_epoch;
  second_epoch.initial_weights = rs[3].weights;
  std::vector<TrainResult> chained(1);
  backend->train({&second_epoch, 1}, chained);
  EXPECT_TRUE(chained[0].weights == want);
  const cpu::PackedPositions packed = cpu::pack_positions(p.data);
  for (const cpu::VectorPath path : cpu::available_paths()) {
    TrainResult r;
    cpu::TrainScratch scratch;
    cpu::train_job(packed, as_given, r, scratch, path);
    EXPECT_TRUE(r.weights == want) << cpu::path_name(path);
  }
}

// A removed position set: a job that names it is an error, so is removing it again; its handle
// is not reused and the other sets train as before. Ids outside a set and initial weights of the
// wrong size are errors naming the job. On one backend and on several (make_multi_device_backend,
// which must remove on every device).
TEST(Backend, RemovedPositionSetsAndBadJobsAreErrorsNamingTheJob) {
  const Problem p = teacher_problem(300);
  const Geometry g = edax_shape().geometry();
  const int devices[] = {0, 1};
  std::vector<std::unique_ptr<Backend>> backends;
  backends.push_back(make_backend("cpu", 1));
  backends.push_back(make_multi_device_backend("cpu", 2, devices));
  for (auto& backend : backends) {
    const auto ok = run(*backend, p, g, 2, 1);  // set 0
    const int a = backend->add_positions(p.data), b = backend->add_positions(p.data);
    backend->remove_positions(a);
    EXPECT_EQ(backend->add_positions(p.data), b + 1) << backend->name();
    auto error_of = [&](TrainJob job) {
      std::vector<TrainResult> r(1);
      try {
        backend->train({&job, 1}, r);
      } catch (const Error& e) {
        return std::string(e.what());
      }
      return std::string("no error");
    };
    const std::string removed = error_of(job_of(p, g, 0, 1, a));
    EXPECT_NE(removed.find("position set " + std::to_string(a) + " does not exist"), std::string::npos) << removed;
    EXPECT_THROW(backend->remove_positions(a), Error);
    EXPECT_THROW(backend->remove_positions(99), Error);
    // Set b still trains to the bits of a fresh backend's.
    std::vector<TrainResult> again(2);
    const std::vector<TrainJob> jobs{job_of(p, g, 0, 1, b), job_of(p, g, 1, 1, b)};
    backend->train(jobs, again);
    EXPECT_TRUE(again[0].weights == ok[0].weights && again[1].weights == ok[1].weights) << backend->name();
    const std::vector<u32> outside{0, 1, static_cast<u32>(p.data.size())};
    TrainJob bad_ids = job_of(p, g, 0, 1, b);
    bad_ids.eval_ids = outside;
    const std::string ids = error_of(bad_ids);
    EXPECT_NE(ids.find("job 0: evaluation id 300 is outside its position set of 300"), std::string::npos) << ids;
    const std::vector<i32> short_weights(10, 0);
    TrainJob bad_weights = job_of(p, g, 0, 1, b);
    bad_weights.initial_weights = short_weights;
    const std::string weights = error_of(bad_weights);
    EXPECT_NE(weights.find("job 0: 10 initial weights for a geometry of"), std::string::npos) << weights;
    // A bad job second in a batch is named by its place in the batch (the multi-device backend
    // hands each device a part of it).
    const std::vector<TrainJob> pair{job_of(p, g, 0, 1, b), bad_weights};
    std::vector<TrainResult> two(2);
    try {
      backend->train(pair, two);
      ADD_FAILURE() << backend->name() << ": a job with 10 initial weights trained";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("job 1: 10 initial weights"), std::string::npos) << e.what();
    }
  }
}

namespace {

// A geometry of `tuples` random tuples of 1..12 squares (every size the index code handles,
// including the largest), for training tests beyond the Edax shape.
Geometry random_geometry(int tuples, u64 seed) {
  Geometry g;
  Rng rng(seed, Purpose::kPopulation, 7);
  g.num_tuples = tuples;
  for (int i = 0; i < tuples; ++i) {
    const int size = 1 + static_cast<int>(rng.below(kMaxTupleSize));
    u64 m = 0;
    while (popcount64(m) < size) m |= u64{1} << rng.below(64);
    g.mask[i] = m;
    g.offset[i + 1] = g.offset[i] + pow3(size);
  }
  return g;
}

// FNV-1a over everything a training job returns: weights, evaluation loss, epoch losses.
u64 result_digest(const std::vector<TrainResult>& rs) {
  u64 h = 1469598103934665603ull;
  auto mix = [&](u64 v) {
    for (int b = 0; b < 8; ++b) h = (h ^ ((v >> (8 * b)) & 0xff)) * 1099511628211ull;
  };
  for (const TrainResult& r : rs) {
    mix(r.eval_loss.squared), mix(r.eval_loss.absolute), mix(r.eval_loss.count);
    for (const LossSums& l : r.epoch_loss) mix(l.squared), mix(l.absolute), mix(l.count);
    for (const i32 w : r.weights) mix(static_cast<u32>(w));
  }
  return h;
}

}  // namespace

// Pins what training returns for fixed jobs (Edax shape; 13 and 64 random tuples of up to 12
// squares; plain SGD and mini-batches) to the digests the CPU backend gave before its training
// loop was rewritten for speed (the per-job index buffer of commit cc16d01), on every vector
// path this CPU has: every implementation and backend must reproduce these bits.
TEST(NTupleTraining, ResultsPinnedToTheReferenceImplementation) {
  const Problem p = teacher_problem(1500);
  const Geometry edax = edax_shape().geometry();
  const Geometry g13 = random_geometry(13, 5), g64 = random_geometry(64, 6);
  struct Case {
    const Geometry* g;
    int batch;
    u64 digest;
  };
  const Case cases[] = {
      {&edax, 1, 3962305714964865251ull}, {&edax, 16, 17232471666596888471ull}, {&g13, 1, 1319402293025304148ull},
      {&g13, 7, 9662633339188579647ull},  {&g64, 1, 14732157137490896535ull},
  };
  // The backend (its default path, two threads), then each path on its own.
  auto backend = make_backend("cpu", 2);
  for (const Case& c : cases) {
    const auto rs = run(*backend, p, *c.g, 3, c.batch);
    EXPECT_EQ(result_digest(rs), c.digest) << "backend, tuples " << c.g->num_tuples << " batch " << c.batch;
  }
  const auto paths = cpu::available_paths();
  ASSERT_EQ(paths.front(), cpu::VectorPath::kPortable);
  const cpu::PackedPositions packed = cpu::pack_positions(p.data);
  for (const cpu::VectorPath path : paths)
    for (const Case& c : cases) {
      std::vector<TrainResult> rs(3);
      cpu::TrainScratch scratch;
      for (int k = 0; k < 3; ++k) cpu::train_job(packed, job_of(p, *c.g, k, c.batch), rs[k], scratch, path);
      EXPECT_EQ(result_digest(rs), c.digest)
          << cpu::path_name(path) << ", tuples " << c.g->num_tuples << " batch " << c.batch;
    }
}

// The vector paths' index computation against ntuple::feature_indices on many positions and on
// geometries of 1..20, 31, 42, 53 and 64 tuples (odd and even counts: every padding case of the
// 8- and 16-feature groups), through whole training jobs: a wrong index would move the wrong
// weights, so the trained weights differ.
TEST(NTupleTraining, EveryVectorPathMatchesPortableOnEveryTupleCount) {
  const Problem p = teacher_problem(300);
  const cpu::PackedPositions packed = cpu::pack_positions(p.data);
  for (int tuples = 1; tuples <= kMaxTuples; tuples += (tuples < 20 ? 1 : 11)) {
    const Geometry g = random_geometry(tuples, 100 + tuples);
    const TrainJob job = job_of(p, g, 0, 1);
    TrainResult want;
    cpu::TrainScratch scratch;
    cpu::train_job(packed, job, want, scratch, cpu::VectorPath::kPortable);
    for (const cpu::VectorPath path : cpu::available_paths()) {
      TrainResult got;
      cpu::train_job(packed, job, got, scratch, path);
      EXPECT_TRUE(got.weights == want.weights) << cpu::path_name(path) << ", " << tuples << " tuples";
      EXPECT_EQ(got.eval_loss.squared, want.eval_loss.squared) << cpu::path_name(path) << ", " << tuples << " tuples";
    }
  }
}

// cpu::NetworkEval (the solver's and play's fast evaluation) gives ntuple::evaluate's value on
// every vector path, for every tuple count's padding case, random weights and random boards;
// and cpu::SolverOrdering gives ntuple::SolverOrdering's value (colours from the disc count).
TEST(NTupleTraining, NetworkEvalMatchesEvaluateOnEveryPath) {
  for (int tuples = 1; tuples <= kMaxTuples; tuples += (tuples < 20 ? 1 : 11)) {
    const Geometry g = random_geometry(tuples, 300 + tuples);
    Rng rng(tuples, Purpose::kPopulation, 9);
    std::vector<i32> weights(g.num_weights());
    for (i32& w : weights) w = static_cast<i32>(rng.below(1u << 20)) - (1 << 19);
    std::vector<cpu::NetworkEval> evals;
    for (const cpu::VectorPath path : cpu::available_paths()) evals.emplace_back(g, path);
    for (int k = 0; k < 200; ++k) {
      const u64 occupied = rng.next_u64() | rng.next_u64(), black = occupied & rng.next_u64();
      const i64 want = evaluate(g, weights.data(), black, occupied & ~black);
      for (const cpu::NetworkEval& e : evals)
        ASSERT_EQ(e(weights.data(), black, occupied & ~black), want)
            << cpu::path_name(e.path()) << ", " << tuples << " tuples";
    }
  }
  const Geometry g = random_geometry(12, 77);
  std::vector<i32> weights(static_cast<std::size_t>(g.num_weights()) * kMoveNumbers);
  Rng rng(3, Purpose::kPopulation, 9);
  for (i32& w : weights) w = static_cast<i32>(rng.below(1u << 22)) - (1 << 21);
  const Evaluator per_move = Evaluator::per_move(&g, weights.data());
  const SolverOrdering reference{per_move};
  for (const cpu::VectorPath path : cpu::available_paths()) {
    const cpu::SolverOrdering fast(per_move, path);
    for (int k = 0; k < 300; ++k) {
      const u64 occupied = rng.next_u64() | rng.next_u64() | rng.next_u64(), P = occupied & rng.next_u64();
      ASSERT_EQ(fast.value(P, occupied & ~P), reference.value(P, occupied & ~P)) << cpu::path_name(path);
    }
  }
}

TEST(NTupleTraining, VectorPathNamesAndErrors) {
  for (const cpu::VectorPath p : cpu::available_paths()) EXPECT_EQ(cpu::path_from_name(cpu::path_name(p)), p);
  EXPECT_EQ(cpu::default_path(), std::getenv("EF_CPU_PATH") ? cpu::path_from_name(std::getenv("EF_CPU_PATH"))
                                                            : cpu::available_paths().back());
  EXPECT_NE(test::error_of([] { cpu::path_from_name("sse9"); }).find("'sse9': unknown vector path"), std::string::npos);
}
