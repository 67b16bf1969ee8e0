/* hipscan shim: the CUDA language surface, declared for a host-side libclang parse without a
 * CUDA toolkit. Enough for the AST to show kernels, launches, device calls, textures and types;
 * not a working CUDA implementation. Runtime/driver function declarations come from
 * hipscan_cuda_api.h, generated from the API table. */
#pragma once
#pragma clang system_header
#define __HIPSCAN_SHIM__ 1
#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
#ifndef __NVCC__
#define __NVCC__ 1
#endif
/* nvcc does not define __CUDA__; clang predefines it for every CUDA parse. Project code that
 * tests `defined(__clang__) && defined(__CUDA__)` for clang-CUDA (QUDA's block_reduce_helper.h
 * picks cub over cooperative groups there) must take the arm nvcc takes. */
#undef __CUDA__
#ifndef CUDART_VERSION
#define CUDART_VERSION 12040
#endif
#ifndef __CUDACC_VER_MAJOR__
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 4
#endif
/* include guards of the toolkit headers, which project code tests to see what is available */
#define __DRIVER_TYPES_H__
#define __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_API_H__
#define __VECTOR_TYPES_H__
#define __HOST_DEFINES_H__
#define __cuda_cuda_h__
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
// kept in the AST (an annotation on the parameter): HIP has no __grid_constant__
#define __grid_constant__ __attribute__((annotate("__grid_constant__")))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __cluster_dims__(...)
#define __maxnreg__(...)
#define __block_size__(...)
#define __forceinline__ __inline__ __attribute__((always_inline))

#define __align__(n) __attribute__((aligned(n)))
#define __restrict__ __restrict
#define __device_builtin__
#define __builtin_align__(a) __attribute__((aligned(a)))
#define CUDARTAPI
#define CUDAAPI
#define __CUDA_ALIGN__(n) __attribute__((aligned(n)))
#define CUDART_CB
#define CUDA_CB

typedef __SIZE_TYPE__ __hipscan_size_t;
#include <stddef.h> /* the toolkit headers bring size_t and NULL into scope */

struct uint3 { unsigned int x, y, z; };
struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;

#define __HIPSCAN_VEC(T, N)                                                                         \
  struct N##1 { T x; };                                                                             \
  struct N##2 { T x, y; };                                                                          \
  struct N##3 { T x, y, z; };                                                                       \
  struct N##4 { T x, y, z, w; };
__HIPSCAN_VEC(signed char, char)
__HIPSCAN_VEC(unsigned char, uchar)
__HIPSCAN_VEC(short, short)
__HIPSCAN_VEC(unsigned short, ushort)
__HIPSCAN_VEC(int, int)
__HIPSCAN_VEC(float, float)
__HIPSCAN_VEC(long, long)
__HIPSCAN_VEC(unsigned long, ulong)
__HIPSCAN_VEC(long long, longlong)
__HIPSCAN_VEC(unsigned long long, ulonglong)
__HIPSCAN_VEC(double, double)
struct uint1 { unsigned int x; };
struct uint2 { unsigned int x, y; };
struct uint4 { unsigned int x, y, z, w; };
#undef __HIPSCAN_VEC
#define __HIPSCAN_MAKE(N, T)                                                                        \
  static __host__ __device__ inline N##2 make_##N##2(T a, T b) { return N##2{a, b}; }               \
  static __host__ __device__ inline N##3 make_##N##3(T a, T b, T c) { return N##3{a, b, c}; }       \
  static __host__ __device__ inline N##4 make_##N##4(T a, T b, T c, T d) { return N##4{a, b, c, d}; }
__HIPSCAN_MAKE(float, float)
__HIPSCAN_MAKE(int, int)
__HIPSCAN_MAKE(uint, unsigned int)
__HIPSCAN_MAKE(double, double)
__HIPSCAN_MAKE(uchar, unsigned char)
__HIPSCAN_MAKE(char, signed char)
__HIPSCAN_MAKE(short, short)
__HIPSCAN_MAKE(ushort, unsigned short)
__HIPSCAN_MAKE(longlong, long long)
__HIPSCAN_MAKE(ulonglong, unsigned long long)
#undef __HIPSCAN_MAKE
static __host__ __device__ inline dim3 make_dim3(unsigned a, unsigned b, unsigned c) { return dim3(a, b, c); }
static __host__ __device__ inline uint3 make_uint3_(unsigned a, unsigned b, unsigned c) { return uint3{a, b, c}; }

/* --- runtime types --- */
enum cudaError { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,
  cudaErrorNotReady = 600, cudaErrorPeerAccessAlreadyEnabled = 704, cudaErrorUnknown = 999 };
typedef enum cudaError cudaError_t;
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;
typedef struct CUgraphNode_st *cudaGraphNode_t;
typedef struct cudaArray *cudaArray_t;
typedef const struct cudaArray *cudaArray_const_t;
typedef struct cudaMipmappedArray *cudaMipmappedArray_t;
typedef struct cudaGraphicsResource *cudaGraphicsResource_t;
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;
typedef unsigned long long cudaGraphConditionalHandle;
typedef void (*cudaHostFn_t)(void *);
typedef void (*cudaStreamCallback_t)(cudaStream_t, cudaError_t, void *);
typedef struct CUmemPoolHandle_st *cudaMemPool_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4 };
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureAddressMode { cudaAddressModeWrap = 0, cudaAddressModeClamp = 1, cudaAddressModeMirror = 2, cudaAddressModeBorder = 3 };
enum cudaChannelFormatKind { cudaChannelFormatKindSigned = 0, cudaChannelFormatKindUnsigned = 1, cudaChannelFormatKindFloat = 2, cudaChannelFormatKindNone = 3 };
enum cudaResourceType { cudaResourceTypeArray = 0, cudaResourceTypeMipmappedArray = 1, cudaResourceTypeLinear = 2, cudaResourceTypePitch2D = 3 };
enum cudaSurfaceBoundaryMode { cudaBoundaryModeZero = 0, cudaBoundaryModeClamp = 1, cudaBoundaryModeTrap = 2 };
enum cudaFuncCache { cudaFuncCachePreferNone = 0, cudaFuncCachePreferShared = 1, cudaFuncCachePreferL1 = 2, cudaFuncCachePreferEqual = 3 };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8, cudaFuncAttributePreferredSharedMemoryCarveout = 9,
  cudaFuncAttributeClusterDimMustBeSet = 10, cudaFuncAttributeRequiredClusterWidth = 11, cudaFuncAttributeNonPortableClusterSizeAllowed = 16 };
enum cudaMemoryAdvise { cudaMemAdviseSetReadMostly = 1, cudaMemAdviseUnsetReadMostly = 2, cudaMemAdviseSetPreferredLocation = 3,
  cudaMemAdviseUnsetPreferredLocation = 4, cudaMemAdviseSetAccessedBy = 5, cudaMemAdviseUnsetAccessedBy = 6 };
enum cudaComputeMode { cudaComputeModeDefault = 0, cudaComputeModeExclusive = 1, cudaComputeModeProhibited = 2, cudaComputeModeExclusiveProcess = 3 };
struct cudaChannelFormatDesc { int x, y, z, w; enum cudaChannelFormatKind f; };
struct cudaExtent { __hipscan_size_t width, height, depth; };
struct cudaPos { __hipscan_size_t x, y, z; };
struct cudaPitchedPtr { void *ptr; __hipscan_size_t pitch, xsize, ysize; };
struct cudaMemcpy3DParms { cudaArray_t srcArray; struct cudaPos srcPos; struct cudaPitchedPtr srcPtr;
  cudaArray_t dstArray; struct cudaPos dstPos; struct cudaPitchedPtr dstPtr; struct cudaExtent extent; enum cudaMemcpyKind kind; };
struct cudaResourceDesc {
  enum cudaResourceType resType;
  union {
    struct { cudaArray_t array; } array;
    struct { cudaMipmappedArray_t mipmap; } mipmap;
    struct { void *devPtr; struct cudaChannelFormatDesc desc; __hipscan_size_t sizeInBytes; } linear;
    struct { void *devPtr; struct cudaChannelFormatDesc desc; __hipscan_size_t width, height, pitchInBytes; } pitch2D;
  } res;
};
struct cudaTextureDesc { enum cudaTextureAddressMode addressMode[3]; enum cudaTextureFilterMode filterMode;
  enum cudaTextureReadMode readMode; int sRGB; float borderColor[4]; int normalizedCoords;
  unsigned int maxAnisotropy; enum cudaTextureFilterMode mipmapFilterMode; float mipmapLevelBias,
  minMipmapLevelClamp, maxMipmapLevelClamp; int disableTrilinearOptimization; int seamlessCubemap; };
struct cudaDeviceProp {
  char name[256]; __hipscan_size_t totalGlobalMem, sharedMemPerBlock; int regsPerBlock, warpSize;
  __hipscan_size_t memPitch; int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], clockRate;
  __hipscan_size_t totalConstMem; int major, minor; __hipscan_size_t textureAlignment, texturePitchAlignment;
  int deviceOverlap, multiProcessorCount, kernelExecTimeoutEnabled, integrated, canMapHostMemory,
  computeMode, maxTexture1D, maxTexture2D[2], maxTexture3D[3], concurrentKernels, ECCEnabled, pciBusID,
  pciDeviceID, pciDomainID, tccDriver, asyncEngineCount, unifiedAddressing, memoryClockRate,
  memoryBusWidth, l2CacheSize, persistingL2CacheMaxSize, maxThreadsPerMultiProcessor,
  streamPrioritiesSupported, globalL1CacheSupported, localL1CacheSupported;
  __hipscan_size_t sharedMemPerMultiprocessor; int regsPerMultiprocessor, managedMemory, isMultiGpuBoard,
  multiGpuBoardGroupID, singleToDoublePrecisionPerfRatio, pageableMemoryAccess, concurrentManagedAccess,
  computePreemptionSupported, canUseHostPointerForRegisteredMem, cooperativeLaunch,
  cooperativeMultiDeviceLaunch; __hipscan_size_t sharedMemPerBlockOptin; int pageableMemoryAccessUsesHostPageTables,
  directManagedMemAccessFromHost, maxBlocksPerMultiProcessor, accessPolicyMaxWindowSize;
  __hipscan_size_t reservedSharedMemPerBlock; int hostRegisterSupported, sparseCudaArraySupported,
  clusterLaunch, unifiedFunctionPointers;
};
struct cudaFuncAttributes { __hipscan_size_t sharedSizeBytes, constSizeBytes, localSizeBytes; int maxThreadsPerBlock,
  numRegs, ptxVersion, binaryVersion, cacheModeCA, maxDynamicSharedSizeBytes, preferredShmemCarveout; };
struct cudaPointerAttributes { int type; int device; void *devicePointer; void *hostPointer; };
struct cudaIpcMemHandle_st { char reserved[64]; };
typedef struct cudaIpcMemHandle_st cudaIpcMemHandle_t;
struct cudaIpcEventHandle_st { char reserved[64]; };
typedef struct cudaIpcEventHandle_st cudaIpcEventHandle_t;
struct cudaLaunchAttribute { int id; union { struct { unsigned x, y, z; } clusterDim; int cooperative; } val; };
struct cudaLaunchConfig_t { dim3 gridDim, blockDim; __hipscan_size_t dynamicSmemBytes; cudaStream_t stream;
  struct cudaLaunchAttribute *attrs; unsigned int numAttrs; };
struct textureReference { int normalized; enum cudaTextureFilterMode filterMode;
  enum cudaTextureAddressMode addressMode[3]; struct cudaChannelFormatDesc channelDesc; };
struct surfaceReference { struct cudaChannelFormatDesc channelDesc; };
template <class T, int dim = 1, enum cudaTextureReadMode mode = cudaReadModeElementType>
struct texture : public textureReference {
  texture(int norm = 0, enum cudaTextureFilterMode fMode = cudaFilterModePoint,
          enum cudaTextureAddressMode aMode = cudaAddressModeClamp);
  texture(int norm, enum cudaTextureFilterMode fMode, enum cudaTextureAddressMode aMode,
          struct cudaChannelFormatDesc desc);
};
template <class T, int dim = 1> struct surface : public surfaceReference { surface(); };
template <class T> struct cudaChannelFormatDesc cudaCreateChannelDesc();
struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f);

/* kernel launch configuration (clang calls one of these for <<<>>>) */
extern "C" int cudaConfigureCall(dim3 gridSize, dim3 blockSize, __hipscan_size_t sharedSize = 0, cudaStream_t stream = 0);
extern "C" unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, __hipscan_size_t sharedMem = 0, void *stream = 0);

/* device-side C library (clang overloads on __host__/__device__) */
extern "C" __device__ int printf(const char *, ...);
extern "C" __device__ void *malloc(__hipscan_size_t);
extern "C" __device__ void free(void *);
extern "C" __device__ void *memcpy(void *, const void *, __hipscan_size_t);
extern "C" __device__ void *memset(void *, int, __hipscan_size_t);
extern "C" __device__ void __assertfail(const char *, const char *, unsigned, const char *, __hipscan_size_t);
extern "C" __device__ void __assert_fail(const char *, const char *, unsigned, const char *);

/* --- device functions (signatures loose on purpose: the AST only needs the names) --- */
#define __HIPSCAN_DEV template <class... __T> __device__
__device__ void __syncthreads();
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ void __syncwarp(unsigned mask = 0xffffffffu);
__device__ void __threadfence();
__device__ void __threadfence_block();
__device__ void __threadfence_system();
__device__ unsigned __activemask();
__device__ long long clock64();
__device__ long long clock();
__device__ void __nanosleep(unsigned);
__device__ unsigned __ballot_sync(unsigned mask, int pred);
__device__ unsigned __ballot(int pred);
__device__ int __any_sync(unsigned mask, int pred);
__device__ int __all_sync(unsigned mask, int pred);
__device__ int __uni_sync(unsigned mask, int pred);
__device__ int __any(int pred);
__device__ int __all(int pred);
template <class T> __device__ T __shfl_sync(unsigned mask, T var, int srcLane, int width = 32);
template <class T> __device__ T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32);
template <class T> __device__ T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32);
template <class T> __device__ T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = 32);
template <class T> __device__ T __shfl(T var, int srcLane, int width = 32);
template <class T> __device__ T __shfl_up(T var, unsigned delta, int width = 32);
template <class T> __device__ T __shfl_down(T var, unsigned delta, int width = 32);
template <class T> __device__ T __shfl_xor(T var, int laneMask, int width = 32);
template <class T> __device__ unsigned __match_any_sync(unsigned mask, T value);
template <class T> __device__ unsigned __match_all_sync(unsigned mask, T value, int *pred);
template <class T> __device__ T __reduce_add_sync(unsigned mask, T value);
template <class T> __device__ T __reduce_min_sync(unsigned mask, T value);
template <class T> __device__ T __reduce_max_sync(unsigned mask, T value);
template <class T> __device__ T __ldg(const T *ptr);
template <class T> __device__ T __ldcg(const T *ptr);
template <class T> __device__ T __ldcs(const T *ptr);
template <class T> __device__ T __ldlu(const T *ptr);
template <class T> __device__ T __ldcv(const T *ptr);
template <class T> __device__ void __stcg(T *ptr, T v);
template <class T> __device__ void __stcs(T *ptr, T v);
template <class T> __device__ void __stwt(T *ptr, T v);
__device__ int __popc(unsigned);
__device__ int __popcll(unsigned long long);
__device__ int __clz(int);
__device__ int __clzll(long long);
__device__ int __ffs(int);
__device__ int __ffsll(long long);
__device__ unsigned __brev(unsigned);
__device__ unsigned __byte_perm(unsigned, unsigned, unsigned);
__device__ unsigned __funnelshift_l(unsigned, unsigned, unsigned);
__device__ unsigned __funnelshift_r(unsigned, unsigned, unsigned);
__device__ int __mul24(int, int);
__device__ int __mulhi(int, int);
__device__ unsigned __umulhi(unsigned, unsigned);
__device__ float __fdividef(float, float);
__device__ float __expf(float);
__device__ float __logf(float);
__device__ float __sinf(float);
__device__ float __cosf(float);
__device__ float __powf(float, float);
__device__ float __saturatef(float);
__device__ float __int_as_float(int);
__device__ int __float_as_int(float);
__device__ float __uint_as_float(unsigned);
__device__ unsigned __float_as_uint(float);
__device__ double __longlong_as_double(long long);
__device__ long long __double_as_longlong(double);
__device__ int __float2int_rn(float);
__device__ float __int2float_rn(int);
__device__ unsigned __float2uint_rn(float);
__device__ float __fmaf_rn(float, float, float);
__device__ float __fmul_rn(float, float);
__device__ float __fadd_rn(float, float);
__device__ float rsqrtf(float);
__device__ float __frsqrt_rn(float);
__device__ float fast_rsqrtf_(float);
__device__ unsigned __vabsdiffu4(unsigned, unsigned);
__device__ unsigned __dp4a(unsigned, unsigned, unsigned);
__device__ int __dp4a(int, int, int);
__device__ unsigned __isGlobal(const void *);
__device__ unsigned __isShared(const void *);
__device__ unsigned __cvta_generic_to_shared(const void *);
__device__ unsigned long long __globaltimer();
__device__ void __trap();
__device__ void __brkpt();
__device__ void __prof_trigger(int);
#define __HIPSCAN_ATOMIC(N)                                                                         \
  template <class T, class V> __device__ T N(T *address, V val);                                    \
  template <class T, class V> __device__ T N##_block(T *address, V val);                            \
  template <class T, class V> __device__ T N##_system(T *address, V val);
__HIPSCAN_ATOMIC(atomicAdd)
__HIPSCAN_ATOMIC(atomicSub)
__HIPSCAN_ATOMIC(atomicExch)
__HIPSCAN_ATOMIC(atomicMin)
__HIPSCAN_ATOMIC(atomicMax)
__HIPSCAN_ATOMIC(atomicAnd)
__HIPSCAN_ATOMIC(atomicOr)
__HIPSCAN_ATOMIC(atomicXor)
__HIPSCAN_ATOMIC(atomicInc)
__HIPSCAN_ATOMIC(atomicDec)
#undef __HIPSCAN_ATOMIC
template <class T, class C, class V> __device__ T atomicCAS(T *address, C compare, V val);
template <class T, class C, class V> __device__ T atomicCAS_block(T *address, C compare, V val);
template <class T, class C, class V> __device__ T atomicCAS_system(T *address, C compare, V val);

/* device overloads of the C math library (clang overloads on __host__/__device__) */
#define __HIPSCAN_MATH1(N) __device__ float N##f(float); __device__ double N(double);
#define __HIPSCAN_MATH2(N) __device__ float N##f(float, float); __device__ double N(double, double);
__HIPSCAN_MATH1(sin) __HIPSCAN_MATH1(cos) __HIPSCAN_MATH1(tan) __HIPSCAN_MATH1(asin) __HIPSCAN_MATH1(acos)
__HIPSCAN_MATH1(atan) __HIPSCAN_MATH1(sinh) __HIPSCAN_MATH1(cosh) __HIPSCAN_MATH1(tanh) __HIPSCAN_MATH1(exp)
__HIPSCAN_MATH1(exp2) __HIPSCAN_MATH1(exp10) __HIPSCAN_MATH1(expm1) __HIPSCAN_MATH1(log) __HIPSCAN_MATH1(log2)
__HIPSCAN_MATH1(log10) __HIPSCAN_MATH1(log1p) __HIPSCAN_MATH1(sqrt) __HIPSCAN_MATH1(rsqrt) __HIPSCAN_MATH1(cbrt)
__HIPSCAN_MATH1(fabs) __HIPSCAN_MATH1(floor) __HIPSCAN_MATH1(ceil) __HIPSCAN_MATH1(round) __HIPSCAN_MATH1(trunc)
__HIPSCAN_MATH1(rint) __HIPSCAN_MATH1(erf) __HIPSCAN_MATH1(erfc) __HIPSCAN_MATH1(lgamma) __HIPSCAN_MATH1(tgamma)
__HIPSCAN_MATH1(normcdf) __HIPSCAN_MATH1(normcdfinv) __HIPSCAN_MATH1(erfinv) __HIPSCAN_MATH1(sinpi) __HIPSCAN_MATH1(cospi)
__HIPSCAN_MATH2(pow) __HIPSCAN_MATH2(atan2) __HIPSCAN_MATH2(fmod) __HIPSCAN_MATH2(fmin) __HIPSCAN_MATH2(fmax)
__HIPSCAN_MATH2(hypot) __HIPSCAN_MATH2(copysign) __HIPSCAN_MATH2(fdim) __HIPSCAN_MATH2(remainder)
#undef __HIPSCAN_MATH1
#undef __HIPSCAN_MATH2
__device__ float fmaf(float, float, float);
__device__ double fma(double, double, double);
__device__ void sincosf(float, float *, float *);
__device__ void sincos(double, double *, double *);
/* CUDA's C++ math overloads them for float too (HIP's device math does not) */
__device__ void sincos(float, float *, float *);
__device__ void sincospif(float, float *, float *);
__device__ void sincospi(double, double *, double *);
__device__ void sincospi(float, float *, float *);
__device__ float __fsqrt_rn(float);
__device__ int abs(int);
__device__ long long llabs(long long);
__device__ float fabsf(float);
#define __HIPSCAN_MINMAX(T) __host__ __device__ T min(T, T); __host__ __device__ T max(T, T);
__HIPSCAN_MINMAX(int) __HIPSCAN_MINMAX(unsigned int) __HIPSCAN_MINMAX(long) __HIPSCAN_MINMAX(unsigned long)
__HIPSCAN_MINMAX(long long) __HIPSCAN_MINMAX(unsigned long long) __HIPSCAN_MINMAX(float) __HIPSCAN_MINMAX(double)
#undef __HIPSCAN_MINMAX
__device__ float saturate(float);
__device__ int __isnanf(float);
__device__ int isnan(float);
__device__ int isinf(float);
__device__ int isfinite(float);

/* textures and surfaces: both the legacy reference forms and the object forms */
template <class T, int d, enum cudaTextureReadMode m> __device__ T tex1Dfetch(texture<T, d, m>, int);
template <class T, int d, enum cudaTextureReadMode m> __device__ T tex1D(texture<T, d, m>, float);
template <class T, int d, enum cudaTextureReadMode m> __device__ T tex2D(texture<T, d, m>, float, float);
template <class T, int d, enum cudaTextureReadMode m> __device__ T tex3D(texture<T, d, m>, float, float, float);
template <class T, int d, enum cudaTextureReadMode m> __device__ T tex1DLayered(texture<T, d, m>, float, int);
template <class T, int d, enum cudaTextureReadMode m> __device__ T tex2DLayered(texture<T, d, m>, float, float, int);
template <class T, int d, enum cudaTextureReadMode m> __device__ T texCubemap(texture<T, d, m>, float, float, float);
template <class T, int d, enum cudaTextureReadMode m> __device__ T tex2DLod(texture<T, d, m>, float, float, float);
template <class T> __device__ T tex1Dfetch(cudaTextureObject_t, int);
template <class T> __device__ T tex1D(cudaTextureObject_t, float);
template <class T> __device__ T tex2D(cudaTextureObject_t, float, float);
template <class T> __device__ T tex3D(cudaTextureObject_t, float, float, float);
template <class T> __device__ T tex1DLayered(cudaTextureObject_t, float, int);
template <class T> __device__ T tex2DLayered(cudaTextureObject_t, float, float, int);
template <class T> __device__ T texCubemap(cudaTextureObject_t, float, float, float);
template <class T> __device__ T tex2DLod(cudaTextureObject_t, float, float, float);
template <class T> __device__ T tex2Dgather(cudaTextureObject_t, float, float, int = 0);
template <class T> __device__ void tex2D(T *, cudaTextureObject_t, float, float);
__HIPSCAN_DEV void surf1Dread(__T...);
__HIPSCAN_DEV void surf2Dread(__T...);
__HIPSCAN_DEV void surf3Dread(__T...);
__HIPSCAN_DEV void surf1Dwrite(__T...);
__HIPSCAN_DEV void surf2Dwrite(__T...);
__HIPSCAN_DEV void surf3Dwrite(__T...);
__HIPSCAN_DEV void surf2DLayeredwrite(__T...);
__HIPSCAN_DEV void surf2DLayeredread(__T...);

/* low precision: opaque structs are enough to keep the types visible */
/* the raw types are CUDA's plain structs (HIP's __half_raw/__half2_raw are unions: a rule reads
   their aggregate initialisers) */
struct __half_raw { unsigned short x; };
struct __half2_raw { unsigned short x, y; };
struct __nv_bfloat16_raw { unsigned short x; };
struct __nv_bfloat162_raw { unsigned short x, y; };
struct __half { unsigned short __x; __host__ __device__ __half() {} __host__ __device__ __half(float); __host__ __device__ __half(const __half_raw &); __host__ __device__ operator float() const; };
struct __half2 { __half x, y; __host__ __device__ __half2() {} __host__ __device__ __half2(__half, __half); __host__ __device__ __half2(const __half2_raw &); };
struct __nv_bfloat16 { unsigned short __x; __host__ __device__ __nv_bfloat16() {} __host__ __device__ __nv_bfloat16(float); __host__ __device__ __nv_bfloat16(const __nv_bfloat16_raw &); __host__ __device__ operator float() const; };
struct __nv_bfloat162 { __nv_bfloat16 x, y; };
#define __HIPSCAN_FP8(N) struct N { unsigned char __x; __host__ __device__ N() {} __host__ __device__ N(float); __host__ __device__ operator float() const; };
__HIPSCAN_FP8(__nv_fp8_e4m3) __HIPSCAN_FP8(__nv_fp8_e5m2) __HIPSCAN_FP8(__nv_fp8_e8m0)
__HIPSCAN_FP8(__nv_fp8x2_e4m3) __HIPSCAN_FP8(__nv_fp8x2_e5m2) __HIPSCAN_FP8(__nv_fp8x4_e4m3) __HIPSCAN_FP8(__nv_fp8x4_e5m2)
__HIPSCAN_FP8(__nv_fp6_e2m3) __HIPSCAN_FP8(__nv_fp6_e3m2) __HIPSCAN_FP8(__nv_fp4_e2m1) __HIPSCAN_FP8(__nv_fp4x2_e2m1)
#undef __HIPSCAN_FP8
typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short __nv_fp8x2_storage_t;
typedef __half half;
typedef __half2 half2;
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;
/* host and device in CUDA's cuda_fp16.hpp/cuda_bf16.hpp and in HIP's amd_hip_fp16.h/amd_hip_bf16.h:
   host code converting scalars (cuBLAS alpha/beta) compiles with both */
__host__ __device__ __half __float2half(float);
__host__ __device__ float __half2float(__half);
__host__ __device__ __half2 __floats2half2_rn(float, float);
__host__ __device__ __half2 __float2half2_rn(float);
__host__ __device__ __nv_bfloat16 __float2bfloat16(float);
__host__ __device__ float __bfloat162float(__nv_bfloat16);

#undef __HIPSCAN_DEV
#include "hipscan_cuda_api.h"
