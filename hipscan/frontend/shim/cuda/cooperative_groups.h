/* hipscan shim: the cooperative groups surface, enough for the AST to name what is used. */
#pragma once
namespace cooperative_groups {
struct thread_group {
  __device__ void sync() const;
  __device__ unsigned size() const;
  __device__ unsigned thread_rank() const;
  __device__ unsigned num_threads() const;
  __device__ unsigned meta_group_rank() const;
  __device__ unsigned meta_group_size() const;
};
struct thread_block : thread_group {
  __device__ dim3 group_index() const;
  __device__ dim3 thread_index() const;
  __device__ dim3 group_dim() const;
  __device__ dim3 dim_threads() const;
};
struct grid_group : thread_group {
  __device__ bool is_valid() const;
  __device__ dim3 group_dim() const;
  __device__ unsigned long long num_blocks() const;
  __device__ unsigned long long block_rank() const;
};
struct multi_grid_group : thread_group { __device__ bool is_valid() const; };
struct cluster_group : thread_group {
  __device__ unsigned block_rank() const;
  __device__ unsigned num_blocks() const;
  template <class T> __device__ T *map_shared_rank(T *addr, int rank) const;
};
struct coalesced_group : thread_group {
  template <class T> __device__ T shfl(T var, int src) const;
  template <class T> __device__ T shfl_down(T var, unsigned d) const;
  template <class T> __device__ T shfl_up(T var, unsigned d) const;
  __device__ unsigned ballot(int p) const;
  __device__ int any(int p) const;
  __device__ int all(int p) const;
};
template <unsigned N, class P = void> struct thread_block_tile : thread_group {
  template <class T> __device__ T shfl(T var, int src) const;
  template <class T> __device__ T shfl_down(T var, unsigned d) const;
  template <class T> __device__ T shfl_up(T var, unsigned d) const;
  template <class T> __device__ T shfl_xor(T var, unsigned m) const;
  __device__ unsigned ballot(int p) const;
  __device__ int any(int p) const;
  __device__ int all(int p) const;
  template <class T> __device__ unsigned match_any(T v) const;
  template <class T> __device__ unsigned match_all(T v, int &pred) const;
};
__device__ thread_block this_thread_block();
__device__ grid_group this_grid();
__device__ multi_grid_group this_multi_grid();
__device__ cluster_group this_cluster();
__device__ coalesced_group coalesced_threads();
template <unsigned N, class G> __device__ thread_block_tile<N> tiled_partition(const G &g);
template <class G> __device__ thread_group tiled_partition(const G &g, unsigned n);
template <class G> __device__ coalesced_group labeled_partition(const G &g, int label);
template <class G> __device__ coalesced_group binary_partition(const G &g, bool pred);
template <class G> __device__ void sync(const G &g);
template <class G, class T, class Op> __device__ T reduce(const G &g, T val, Op op);
template <class G, class T, class Op> __device__ T inclusive_scan(const G &g, T val, Op op);
template <class G, class T, class Op> __device__ T exclusive_scan(const G &g, T val, Op op);
template <class G, class... A> __device__ void memcpy_async(const G &g, A... args);
template <class G> __device__ void wait(const G &g);
template <unsigned N, class G> __device__ void wait_prior(const G &g);
template <class T> struct plus { __device__ T operator()(T a, T b) const; };
template <class T> struct less { __device__ T operator()(T a, T b) const; };
template <class T> struct greater { __device__ T operator()(T a, T b) const; };
template <class T> struct bit_and { __device__ T operator()(T a, T b) const; };
template <class T> struct bit_or { __device__ T operator()(T a, T b) const; };
template <class T> struct bit_xor { __device__ T operator()(T a, T b) const; };
namespace details {}
namespace experimental {}
}  // namespace cooperative_groups
