/* hipscan shim: cuComplex.h. The complex types are the vector types, as in CUDA (cuDoubleComplex
   is double2), so a project's operators on them are seen with their real parameter types. float2
   and double2 come from hipscan_cuda.h, included before every file. */
#pragma once

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

/* one family per precision: cuCrealf/cuCaddf/... for float, cuCreal/cuCadd/... for double */
#define __HIPSCAN_COMPLEX(T, C, S, MAKE)                                                          \
  static __host__ __device__ inline T cuCreal##S(C x) { return x.x; }                              \
  static __host__ __device__ inline T cuCimag##S(C x) { return x.y; }                              \
  static __host__ __device__ inline C MAKE(T r, T i) { return C{r, i}; }                           \
  static __host__ __device__ inline C cuConj##S(C x) { return C{x.x, -x.y}; }                      \
  static __host__ __device__ inline C cuCadd##S(C x, C y) { return C{x.x + y.x, x.y + y.y}; }      \
  static __host__ __device__ inline C cuCsub##S(C x, C y) { return C{x.x - y.x, x.y - y.y}; }      \
  __host__ __device__ C cuCmul##S(C x, C y);                                                       \
  __host__ __device__ C cuCdiv##S(C x, C y);                                                       \
  __host__ __device__ T cuCabs##S(C x);                                                            \
  __host__ __device__ C cuCfma##S(C x, C y, C d);
__HIPSCAN_COMPLEX(float, cuFloatComplex, f, make_cuFloatComplex)
__HIPSCAN_COMPLEX(double, cuDoubleComplex, , make_cuDoubleComplex)
#undef __HIPSCAN_COMPLEX

static __host__ __device__ inline cuComplex make_cuComplex(float r, float i) { return make_cuFloatComplex(r, i); }
static __host__ __device__ inline cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex c) { return cuDoubleComplex{c.x, c.y}; }
static __host__ __device__ inline cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex c) { return cuFloatComplex{(float)c.x, (float)c.y}; }
