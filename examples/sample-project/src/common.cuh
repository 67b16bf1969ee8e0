// Shared helpers for the particle demo.
#pragma once
#include <cuda_runtime.h>
#include <cstdio>

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t err_ = (call);                                                   \
    if (err_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
    }                                                                            \
  } while (0)

// Lane index read straight from the PTX special register.
__device__ __forceinline__ unsigned lane_id() {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

__device__ __forceinline__ unsigned warp_id() { return threadIdx.x >> 5; }
