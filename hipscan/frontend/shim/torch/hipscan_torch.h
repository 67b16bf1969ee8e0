/* hipscan's stand-in for the PyTorch C++ headers a CUDA extension includes, used only when the
 * real ones are not on the include path (searched after every other folder). It declares the
 * names extension code uses around its kernels (at::Tensor, c10::Half, the current stream, the
 * AT_DISPATCH_* macros with their scalar_t) so that code parses; it does not model PyTorch. */
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include <cuda_runtime.h>

namespace c10 {
struct Half {
  unsigned short x;
  __host__ __device__ Half() {}
  __host__ __device__ Half(float);
  __host__ __device__ operator float() const;
};
struct BFloat16 {
  unsigned short x;
  __host__ __device__ BFloat16() {}
  __host__ __device__ BFloat16(float);
  __host__ __device__ operator float() const;
};
enum class ScalarType { Byte, Char, Short, Int, Long, Half, Float, Double, Bool, BFloat16 };
enum class DeviceType { CPU, CUDA, HIP };
struct Device {
  Device(DeviceType = DeviceType::CUDA, int = -1);
  int index() const;
  bool is_cuda() const;
};
using IntArrayRef = std::vector<int64_t>;
template <class T> using optional = std::optional<T>;
template <class T> using ArrayRef = std::vector<T>;
namespace cuda {
struct CUDAStream {
  cudaStream_t stream() const;
  operator cudaStream_t() const;
};
CUDAStream getCurrentCUDAStream(int device = -1);
CUDAStream getDefaultCUDAStream(int device = -1);
CUDAStream getStreamFromPool(bool high_priority = false, int device = -1);
struct CUDAGuard {
  template <class... A> explicit CUDAGuard(A...);
};
struct OptionalCUDAGuard {
  template <class... A> explicit OptionalCUDAGuard(A...);
};
}  // namespace cuda
}  // namespace c10

namespace at {
using c10::BFloat16;
using c10::Device;
using c10::Half;
using c10::IntArrayRef;
using c10::ScalarType;
using c10::optional;
constexpr ScalarType kByte = ScalarType::Byte, kChar = ScalarType::Char, kInt = ScalarType::Int,
                     kLong = ScalarType::Long, kHalf = ScalarType::Half, kFloat = ScalarType::Float,
                     kDouble = ScalarType::Double, kBool = ScalarType::Bool,
                     kBFloat16 = ScalarType::BFloat16;
struct TensorOptions {
  TensorOptions dtype(ScalarType) const;
  TensorOptions device(Device) const;
};
template <class T, size_t N> struct TensorAccessor {
  __host__ __device__ TensorAccessor<T, N - 1> operator[](int64_t) const;
  __host__ __device__ int64_t size(int64_t) const;
};
template <class T> struct TensorAccessor<T, 1> {
  __host__ __device__ T &operator[](int64_t) const;
  __host__ __device__ int64_t size(int64_t) const;
};
template <class T, size_t N, template <class> class P = std::add_pointer_t, class I = int64_t>
struct PackedTensorAccessor : TensorAccessor<T, N> {};
template <class T> struct RestrictPtrTraits {};
template <class T> struct DefaultPtrTraits {};
template <class T, size_t N, template <class> class P = DefaultPtrTraits>
using PackedTensorAccessor32 = PackedTensorAccessor<T, N>;
template <class T, size_t N, template <class> class P = DefaultPtrTraits>
using PackedTensorAccessor64 = PackedTensorAccessor<T, N>;
class Tensor {
 public:
  template <class T = void> T *data_ptr() const;
  template <class T = void> T *mutable_data_ptr() const;
  template <class T = void> const T *const_data_ptr() const;
  template <class T, size_t N> TensorAccessor<T, N> accessor() const;
  template <class T, size_t N, template <class> class P = DefaultPtrTraits, class I = int64_t>
  PackedTensorAccessor<T, N> packed_accessor() const;
  template <class T, size_t N, template <class> class P = DefaultPtrTraits>
  PackedTensorAccessor<T, N> packed_accessor32() const;
  template <class T, size_t N, template <class> class P = DefaultPtrTraits>
  PackedTensorAccessor<T, N> packed_accessor64() const;
  int64_t size(int64_t) const;
  IntArrayRef sizes() const;
  int64_t stride(int64_t) const;
  int64_t numel() const;
  int64_t dim() const;
  int64_t element_size() const;
  ScalarType scalar_type() const;
  ScalarType dtype() const;
  TensorOptions options() const;
  Device device() const;
  bool is_cuda() const;
  bool is_contiguous() const;
  bool defined() const;
  Tensor contiguous() const;
  Tensor to(...) const;
  Tensor view(...) const;
  Tensor reshape(...) const;
  Tensor zero_() const;
  Tensor fill_(...) const;
  Tensor slice(...) const;
  Tensor select(...) const;
  Tensor transpose(...) const;
  Tensor index(...) const;
  Tensor clone() const;
  template <class T> T item() const;
};
Tensor empty(...);
Tensor empty_like(...);
Tensor zeros(...);
Tensor zeros_like(...);
Tensor ones(...);
Tensor full(...);
Tensor arange(...);
template <class T, bool is_cuda> using acc_type = float;
namespace cuda {
using c10::cuda::CUDAGuard;
using c10::cuda::CUDAStream;
using c10::cuda::OptionalCUDAGuard;
using c10::cuda::getCurrentCUDAStream;
using c10::cuda::getDefaultCUDAStream;
cudaDeviceProp *getCurrentDeviceProperties();
cudaDeviceProp *getDeviceProperties(int64_t);
int warp_size();
}  // namespace cuda
}  // namespace at

namespace torch {
using at::Tensor;
using at::TensorOptions;
using namespace at;
}  // namespace torch

#define TORCH_CHECK(cond, ...) ((void)(cond))
#define TORCH_INTERNAL_ASSERT(cond, ...) ((void)(cond))
#define AT_ASSERTM(cond, ...) ((void)(cond))
#define AT_ERROR(...) ((void)0)
#define C10_CUDA_CHECK(expr) ((void)(expr))
#define C10_CUDA_KERNEL_LAUNCH_CHECK() ((void)0)
#define AT_CUDA_CHECK(expr) ((void)(expr))
#define C10_HOST_DEVICE __host__ __device__
#define C10_DEVICE __device__
#define C10_HOST __host__
#define C10_LAUNCH_BOUNDS_1(n) __launch_bounds__(n)
#define C10_LAUNCH_BOUNDS_2(n, m) __launch_bounds__(n, m)
#define C10_WARP_SIZE 32
/* the dispatch macros: the body once, with the first type it stands for as scalar_t */
#define __HIPSCAN_DISPATCH(T, ...) [&] { using scalar_t = T; return __VA_ARGS__(); }()
#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) __HIPSCAN_DISPATCH(float, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...) __HIPSCAN_DISPATCH(float, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND(A, TYPE, NAME, ...) __HIPSCAN_DISPATCH(float, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND2(A, B, TYPE, NAME, ...) __HIPSCAN_DISPATCH(float, __VA_ARGS__)
#define AT_DISPATCH_REDUCED_FLOATING_TYPES(TYPE, NAME, ...) __HIPSCAN_DISPATCH(at::Half, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES(TYPE, NAME, ...) __HIPSCAN_DISPATCH(float, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...) __HIPSCAN_DISPATCH(float, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND(A, TYPE, NAME, ...) __HIPSCAN_DISPATCH(float, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND2(A, B, TYPE, NAME, ...) __HIPSCAN_DISPATCH(float, __VA_ARGS__)
#define AT_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...) __HIPSCAN_DISPATCH(int, __VA_ARGS__)
#define AT_DISPATCH_INDEX_TYPES(TYPE, NAME, ...) [&] { using index_t = int; return __VA_ARGS__(); }()
#define AT_DISPATCH_SWITCH(TYPE, NAME, ...) ((void)0)
#define PYBIND11_MODULE(name, m) void __hipscan_pybind_##name(int m)
#define TORCH_LIBRARY(ns, m) void __hipscan_torch_library_##ns(int m)
#define TORCH_LIBRARY_IMPL(ns, k, m) void __hipscan_torch_library_impl_##ns##_##k(int m)
#define TORCH_EXTENSION_NAME hipscan_extension
