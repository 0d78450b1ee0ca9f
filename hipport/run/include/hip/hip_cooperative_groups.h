// hipport run bridge: the part of HIP's cooperative groups that the HIP CPU
// Runtime lacks and ported code uses most (this_thread_block, tiled_partition
// with static tile sizes). Tiles sit inside the 64-lane wavefront as on AMD GPUs.
// The runtime's warp operations wait for the whole block, so these do too:
// call them where every thread of the block does.
#pragma once
#include <hip/hip_runtime.h>

#include <cstdint>

namespace cooperative_groups {

class thread_block {
public:
    void sync() const { __syncthreads(); }
    unsigned thread_rank() const { return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x; }
    unsigned size() const { return blockDim.x * blockDim.y * blockDim.z; }
    unsigned num_threads() const { return size(); }
    dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
};

inline thread_block this_thread_block() { return thread_block{}; }
inline void sync(const thread_block& block) { block.sync(); }

template <unsigned N, typename Parent = void>
class thread_block_tile {
    static_assert(N >= 1 && N <= 64 && (N & (N - 1)) == 0, "a tile is a power of two of at most 64 lanes");
    // where this tile starts in the wavefront, and this thread's lane in the tile
    static unsigned base() { return this_thread_block().thread_rank() % warpSize / N * N; }
    static unsigned lane() { return this_thread_block().thread_rank() % N; }

public:
    static constexpr unsigned size() { return N; }
    static constexpr unsigned num_threads() { return N; }
    unsigned thread_rank() const { return lane(); }
    unsigned meta_group_rank() const { return this_thread_block().thread_rank() / N; }
    unsigned meta_group_size() const { return (this_thread_block().size() + N - 1) / N; }
    void sync() const { __syncthreads(); }

    template <typename T> T shfl(T value, int source) const {
        return __shfl(value, static_cast<int>(base() + (static_cast<unsigned>(source) % N)));
    }
    template <typename T> T shfl_down(T value, unsigned delta) const {
        const unsigned from = lane() + delta < N ? lane() + delta : lane();
        return __shfl(value, static_cast<int>(base() + from));
    }
    template <typename T> T shfl_up(T value, unsigned delta) const {
        const unsigned from = lane() >= delta ? lane() - delta : lane();
        return __shfl(value, static_cast<int>(base() + from));
    }
    template <typename T> T shfl_xor(T value, unsigned mask) const {
        return __shfl(value, static_cast<int>(base() + ((lane() ^ mask) % N)));
    }
    std::uint64_t ballot(int predicate) const {
        const std::uint64_t all = __ballot(predicate);
        const std::uint64_t lanes = N == 64 ? ~0ull : ((1ull << N) - 1);
        return (all >> base()) & lanes;
    }
    bool any(int predicate) const { return ballot(predicate) != 0; }
    bool all(int predicate) const {
        return ballot(predicate) == (N == 64 ? ~0ull : ((1ull << N) - 1));
    }
};

template <unsigned N, typename Parent>
thread_block_tile<N> tiled_partition(const Parent&) { return {}; }

}  // namespace cooperative_groups
