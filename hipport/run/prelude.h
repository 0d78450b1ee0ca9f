// hipport run prelude: force-included into every program `hipport verify --run`
// builds against the HIP CPU Runtime. It bridges what real HIP has and the CPU
// runtime lacks; it never enters what `hipport convert` writes.
#pragma once
#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

// Device min/max: real HIP declares them for every arithmetic pair (int, unsigned,
// long long, float, double); the CPU runtime has only std::min/std::max.
template <typename T, typename U,
          typename = std::enable_if_t<std::is_arithmetic_v<T> && std::is_arithmetic_v<U>>>
inline std::common_type_t<T, U> min(T a, U b) { return b < a ? b : a; }
template <typename T, typename U,
          typename = std::enable_if_t<std::is_arithmetic_v<T> && std::is_arithmetic_v<U>>>
inline std::common_type_t<T, U> max(T a, U b) { return a < b ? b : a; }

// Fast-math intrinsics real HIP has and the CPU runtime does not.
inline float __fdividef(float a, float b) { return a / b; }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }

// Warp intrinsics HIP 5.2 has and the CPU runtime does not. Like its own
// shuffles, these wait for the whole block: call them where every thread does.
inline std::uint64_t __activemask() noexcept { return __ballot(1); }
#define __syncwarp(...) __syncthreads()

// hipDeviceGetAttribute, which the runtime lacks, for the attributes ported
// code queries most; read from hipGetDeviceProperties, except the wavefront
// width, which the runtime's properties misreport (4 instead of its 64).
enum hipDeviceAttribute_t {
    hipDeviceAttributeMaxThreadsPerBlock,
    hipDeviceAttributeMultiprocessorCount,
    hipDeviceAttributeWarpSize,
    hipDeviceAttributeComputeCapabilityMajor,
    hipDeviceAttributeComputeCapabilityMinor,
    hipDeviceAttributeMaxSharedMemoryPerBlock,
};
inline hipError_t hipDeviceGetAttribute(int* value, hipDeviceAttribute_t attribute, int device) {
    hipDeviceProp_t p;
    const hipError_t status = hipGetDeviceProperties(&p, device);
    if (status != hipSuccess) return status;
    switch (attribute) {
    case hipDeviceAttributeMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case hipDeviceAttributeMultiprocessorCount: *value = p.multiProcessorCount; break;
    case hipDeviceAttributeWarpSize: *value = warpSize; break;
    case hipDeviceAttributeComputeCapabilityMajor: *value = p.major; break;
    case hipDeviceAttributeComputeCapabilityMinor: *value = p.minor; break;
    case hipDeviceAttributeMaxSharedMemoryPerBlock: *value = static_cast<int>(p.sharedMemPerBlock); break;
    }
    return hipSuccess;
}

// The runtime's hipStreamWaitEvent never returns when the event belongs to
// another stream (its stream waits inside the worker that would complete the
// event). Waiting on the host instead gives the same order, only stricter.
inline hipError_t hipport_stream_wait_event(hipStream_t, hipEvent_t event, unsigned int) {
    return hipEventSynchronize(event);
}
#define hipStreamWaitEvent hipport_stream_wait_event

// The runtime declares __ffsll for int64_t and uint64_t only, which makes a call
// with HIP's own (unsigned) long long ambiguous.
inline unsigned int __ffsll(unsigned long long x) noexcept { return x ? __builtin_ctzll(x) + 1 : 0; }
inline unsigned int __ffsll(long long x) noexcept { return __ffsll(static_cast<unsigned long long>(x)); }
