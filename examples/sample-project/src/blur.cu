// Smooths the density field through a legacy texture reference.
#include "common.cuh"

texture<float, 2, cudaReadModeElementType> densityTex;

__global__ void blur(float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = tex2D(densityTex, x - 1, y) + tex2D(densityTex, x + 1, y) +
            tex2D(densityTex, x, y - 1) + tex2D(densityTex, x, y + 1);
  out[y * w + x] = 0.25f * s;
}

void run_blur(const float *density, float *out, int w, int h, size_t pitch) {
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  CHECK(cudaBindTexture2D(nullptr, densityTex, density, desc, w, h, pitch));
  dim3 block(16, 16);
  dim3 grid((w + 15) / 16, (h + 15) / 16);
  blur<<<grid, block>>>(out, w, h);
  CHECK(cudaUnbindTexture(densityTex));
}
