// One training job on the CPU: the loop around the shared EF_HD steps of ntuple.hpp.
// The feature indices of every training position are computed once per job and reused by
// every epoch (training then streams indices and gathers/scatters weights only).
#pragma once
#include <numeric>
#include <vector>
#include "evalforge/backend.hpp"

namespace ef::cpu {

struct TrainScratch {
  std::vector<u32> indices;  // n_train * num_features
  std::vector<u32> order;
  std::vector<i64> errors;   // one mini-batch
};

void train_job(const PositionData& data, const TrainJob& job, TrainResult& result, TrainScratch& scratch);

}  // namespace ef::cpu

namespace ef {
std::unique_ptr<Backend> make_cpu_backend(int threads);
}  // namespace ef
