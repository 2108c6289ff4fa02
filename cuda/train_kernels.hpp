// Interface between the CUDA backend's host side (cuda_train.cpp, compiled by the host
// compiler) and its kernels (train_kernels.cu, compiled by nvcc): plain structs of device
// pointers and launch functions that return the CUDA status.
#pragma once
#include <cuda_runtime.h>
#include "evalforge/games/othello/ntuple.hpp"

namespace ef::cuda {

// One training job as the kernel sees it; every pointer is device memory.
struct DeviceJob {
  const ntuple::Geometry* geometry = nullptr;
  i32* weights = nullptr;      // geometry->num_weights() int32, zeroed before the launch
  const u64* black = nullptr;  // the job's resident position set
  const u64* white = nullptr;
  const i64* label = nullptr;
  const u32* const* epoch_samples = nullptr;  // `epochs` pointers: position ids in the sample order of each epoch
  const u32* eval_ids = nullptr;
  i32* steps = nullptr;  // batch_size scratch (mini-batch steps); null when batch_size == 1
  u32* batch_indices =
      nullptr;  // batch_size * num_features scratch (the batch's feature indices); null when batch_size == 1
  ntuple::LossSums* epoch_loss = nullptr;  // `epochs` entries, or null when not recorded
  ntuple::LossSums* eval_loss = nullptr;   // one entry
  u32 num_train = 0;
  u32 num_eval = 0;
  u32 rate = 0;  // ntuple::rate_multiplier, computed on the host as the CPU does
  i32 epochs = 0;
  i32 batch_size = 1;
};

// Trains and evaluates jobs[0..num_jobs) (device array), one warp per job.
cudaError_t launch_train(const DeviceJob* jobs, int num_jobs, cudaStream_t stream);

// cudaFuncGetAttributes of the training kernel: fails when the build holds no kernel image the
// device can run (e.g. an sm_90 build on an older GPU).
cudaError_t train_kernel_attributes(cudaFuncAttributes* attributes);

// out[p * 8m + f] = feature f of position p, computed by the training kernel's lane code.
cudaError_t launch_feature_indices(const ntuple::Geometry* geometry, const u64* black, const u64* white, int n,
                                   u32* out, cudaStream_t stream);

}  // namespace ef::cuda
