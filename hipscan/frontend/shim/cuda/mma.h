/* hipscan shim: the warp matrix (WMMA) surface. */
#pragma once
namespace nvcuda {
namespace wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };
namespace precision { struct tf32 {}; struct b1 {}; struct s4 {}; struct u4 {}; }
template <class Use, int m, int n, int k, class T, class Layout = void> struct fragment {
  enum { num_elements = 8 };
  T x[8];
};
template <class... A> __device__ void load_matrix_sync(A...);
template <class... A> __device__ void store_matrix_sync(A...);
template <class... A> __device__ void fill_fragment(A...);
template <class... A> __device__ void mma_sync(A...);
template <class... A> __device__ void bmma_sync(A...);
}  // namespace wmma
}  // namespace nvcuda
