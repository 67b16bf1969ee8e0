/* hipscan shim: cuComplex.h. The complex types are the vector types, as in CUDA (cuDoubleComplex
   is double2), so a project's operators on them are seen with their real parameter types. */
#pragma once
/* float2 and double2 come from hipscan_cuda.h, included before every file */

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

static __host__ __device__ inline float cuCrealf(cuFloatComplex x) { return x.x; }
static __host__ __device__ inline float cuCimagf(cuFloatComplex x) { return x.y; }
static __host__ __device__ inline cuFloatComplex make_cuFloatComplex(float r, float i) { return cuFloatComplex{r, i}; }
static __host__ __device__ inline cuFloatComplex cuConjf(cuFloatComplex x) { return cuFloatComplex{x.x, -x.y}; }
static __host__ __device__ inline cuFloatComplex cuCaddf(cuFloatComplex x, cuFloatComplex y) { return cuFloatComplex{x.x + y.x, x.y + y.y}; }
static __host__ __device__ inline cuFloatComplex cuCsubf(cuFloatComplex x, cuFloatComplex y) { return cuFloatComplex{x.x - y.x, x.y - y.y}; }
__host__ __device__ cuFloatComplex cuCmulf(cuFloatComplex x, cuFloatComplex y);
__host__ __device__ cuFloatComplex cuCdivf(cuFloatComplex x, cuFloatComplex y);
__host__ __device__ float cuCabsf(cuFloatComplex x);
static __host__ __device__ inline double cuCreal(cuDoubleComplex x) { return x.x; }
static __host__ __device__ inline double cuCimag(cuDoubleComplex x) { return x.y; }
static __host__ __device__ inline cuDoubleComplex make_cuDoubleComplex(double r, double i) { return cuDoubleComplex{r, i}; }
static __host__ __device__ inline cuDoubleComplex cuConj(cuDoubleComplex x) { return cuDoubleComplex{x.x, -x.y}; }
static __host__ __device__ inline cuDoubleComplex cuCadd(cuDoubleComplex x, cuDoubleComplex y) { return cuDoubleComplex{x.x + y.x, x.y + y.y}; }
static __host__ __device__ inline cuDoubleComplex cuCsub(cuDoubleComplex x, cuDoubleComplex y) { return cuDoubleComplex{x.x - y.x, x.y - y.y}; }
__host__ __device__ cuDoubleComplex cuCmul(cuDoubleComplex x, cuDoubleComplex y);
__host__ __device__ cuDoubleComplex cuCdiv(cuDoubleComplex x, cuDoubleComplex y);
__host__ __device__ double cuCabs(cuDoubleComplex x);
static __host__ __device__ inline cuComplex make_cuComplex(float r, float i) { return make_cuFloatComplex(r, i); }
static __host__ __device__ inline cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex c) { return cuDoubleComplex{c.x, c.y}; }
static __host__ __device__ inline cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex c) { return cuFloatComplex{(float)c.x, (float)c.y}; }
__host__ __device__ cuComplex cuCfmaf(cuComplex x, cuComplex y, cuComplex d);
__host__ __device__ cuDoubleComplex cuCfma(cuDoubleComplex x, cuDoubleComplex y, cuDoubleComplex d);
