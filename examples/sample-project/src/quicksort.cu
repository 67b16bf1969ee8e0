// Sorts particles by cell id; each partition launches its children from the device.
#include "common.cuh"

__device__ int partition(unsigned *keys, int lo, int hi) {
  unsigned pivot = keys[hi];
  int i = lo;
  for (int j = lo; j < hi; ++j)
    if (keys[j] < pivot) { unsigned t = keys[i]; keys[i] = keys[j]; keys[j] = t; ++i; }
  unsigned t = keys[i]; keys[i] = keys[hi]; keys[hi] = t;
  return i;
}

__global__ void quicksort(unsigned *keys, int lo, int hi, int depth) {
  if (lo >= hi) return;
  int p = partition(keys, lo, hi);
  if (depth < 16) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    quicksort<<<1, 1, 0, s>>>(keys, lo, p - 1, depth + 1);
    quicksort<<<1, 1, 0, s>>>(keys, p + 1, hi, depth + 1);
    cudaStreamDestroy(s);
  }
}

void sort_cells(unsigned *keys, int n) {
  quicksort<<<1, 1>>>(keys, 0, n - 1, 0);
  CHECK(cudaDeviceSynchronize());
}
