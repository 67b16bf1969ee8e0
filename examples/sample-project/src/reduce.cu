// Block-wide sum of particle energies: warp shuffles, then one warp combines the partials.
#include "common.cuh"

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}

__global__ void energy_sum(const float *energy, float *out, int n) {
  __shared__ float partial[32];  // one slot per warp
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? energy[i] : 0.0f;
  v = warp_sum(v);
  unsigned lane = threadIdx.x & 31;
  if (lane == 0) partial[warp_id()] = v;
  __syncthreads();
  if (warp_id() == 0) {
    v = lane < blockDim.x / warpSize ? partial[lane] : 0.0f;
    v = warp_sum(v);
    if (lane == 0) atomicAdd(out, v);
  }
}

__global__ void count_active(const int *flags, int *count) {
  unsigned ballot = __ballot_sync(0xffffffff, flags[threadIdx.x] != 0);
  if (lane_id() == 0) atomicAdd(count, __popc(ballot));
}

void launch_energy_sum(const float *energy, float *out, int n, cudaStream_t stream) {
  const int TILE = 256;  // threads per block, not a warp width
  energy_sum<<<(n + TILE - 1) / TILE, TILE, 0, stream>>>(energy, out, n);
  CHECK(cudaGetLastError());
}
