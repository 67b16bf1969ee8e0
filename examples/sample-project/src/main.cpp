// Particle demo driver.
#include <cuda_runtime.h>
#include <cstdio>

void launch_energy_sum(const float *energy, float *out, int n, cudaStream_t stream);

int main() {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  // Tensor-core path only on Volta and newer.
  bool use_tensor_cores = prop.major >= 7;
  std::printf("%s: tensor cores %s\n", prop.name, use_tensor_cores ? "on" : "off");
  float *energy = nullptr, *out = nullptr;
  cudaMallocManaged(&energy, 1 << 20);
  cudaMalloc(&out, sizeof(float));
  launch_energy_sum(energy, out, 1 << 18, 0);
  cudaDeviceSynchronize();
  return 0;
}
