#include "backend_cpu/train_body.hpp"
#include "evalforge/core/error.hpp"

namespace ef::cpu {

void train_job(const PositionData& data, const TrainJob& job, TrainResult& result, TrainScratch& s) {
  const ntuple::Geometry& g = *job.geometry;
  const int nf = g.num_features();
  const std::size_t n = job.train_ids.size();
  const TrainParams& p = job.params;
  if (p.batch_size < 1) fail("training: batch_size must be >= 1 (got {})", p.batch_size);
  if (p.epochs < 0) fail("training: epochs must be >= 0 (got {})", p.epochs);

  s.indices.resize(n * static_cast<std::size_t>(nf));
  for (std::size_t k = 0; k < n; ++k) {
    const u32 id = job.train_ids[k];
    ntuple::feature_indices(g, data.black[id], data.white[id], &s.indices[k * nf]);
  }
  std::vector<i32> weights(g.num_weights(), 0);
  const u32 rate = ntuple::rate_multiplier(p.learning_rate, nf);
  s.order.resize(n);
  s.errors.resize(static_cast<std::size_t>(p.batch_size));
  result.epoch_loss.clear();

  for (int epoch = 0; epoch < p.epochs; ++epoch) {
    std::iota(s.order.begin(), s.order.end(), 0u);
    shuffle_ids(s.order, p.seed, job.stream[0], job.stream[1], static_cast<u32>(epoch));
    ntuple::LossSums train_loss;
    if (p.batch_size == 1) {
      for (std::size_t k = 0; k < n; ++k) {
        const u32 i = s.order[k];
        train_loss.add(ntuple::sgd_step(weights.data(), &s.indices[i * nf], nf, data.label[job.train_ids[i]], rate));
      }
    } else {
      // Mini-batch: every error of the batch is taken with the weights as they were before the
      // batch; then all updates are applied. Integer adds commute, so the device may apply
      // them in any order and still produce these bits.
      for (std::size_t b0 = 0; b0 < n; b0 += p.batch_size) {
        const std::size_t b1 = std::min(n, b0 + static_cast<std::size_t>(p.batch_size));
        for (std::size_t k = b0; k < b1; ++k) {
          const u32 i = s.order[k];
          const i64 e = ntuple::clamp_error(data.label[job.train_ids[i]] -
                                            ntuple::evaluate_indices(weights.data(), &s.indices[i * nf], nf));
          s.errors[k - b0] = e;
          train_loss.add(e);
        }
        for (std::size_t k = b0; k < b1; ++k) {
          const i32 d = ntuple::weight_step(s.errors[k - b0], rate);
          const u32* idx = &s.indices[s.order[k] * nf];
          for (int f = 0; f < nf; ++f) ntuple::add_weight(weights[idx[f]], d);
        }
      }
    }
    if (job.record_epoch_loss) result.epoch_loss.push_back(train_loss);
  }

  result.eval_loss = {};
  for (const u32 id : job.eval_ids) {
    const i64 e = ntuple::clamp_error(data.label[id] - ntuple::evaluate(g, weights.data(), data.black[id], data.white[id]));
    result.eval_loss.add(e);
  }
  if (job.return_weights) result.weights = std::move(weights);
  else result.weights.clear();
}

}  // namespace ef::cpu
