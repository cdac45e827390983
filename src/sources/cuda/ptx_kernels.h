// The PTX kernels `gpuvet bench` runs, kept as text in the source so no toolkit is needed: the
// driver JIT-compiles them (LoadPtxModule in cuda_loader.h). Written for PTX ISA 6.0 and
// .target sm_50, the floor every driver from Volta through Blackwell accepts. cuLaunchKernel takes
// the parameters as void** (an array of pointers to each value), so their order and types are the
// contract below; the fake driver (tests/fake_cuda/) decodes them the same way.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace gpuvet {

// Entry names, as declared by `.visible .entry` in the PTX and looked up with cuModuleGetFunction.
//
// gpuvet_empty(): does nothing; launch with 1 block of 1 thread to time launch cost.
inline constexpr std::string_view kPtxEmptyKernel = "gpuvet_empty";
// gpuvet_copy(CUdeviceptr dst, CUdeviceptr src, uint64_t n): dst[i] = src[i] for i < n, where an
// element is 16 bytes (uint4, ld.global.nc.v4); grid-stride, so any grid covers any n. Both
// pointers 16-byte aligned (cuMemAlloc gives 256). Memory traffic: 2 * 16 * n bytes.
inline constexpr std::string_view kPtxCopyKernel = "gpuvet_copy";
// gpuvet_triad(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, float s, uint64_t n):
// a[i] = b[i] + s * c[i] on float4 elements (fma.rn per lane), i < n, grid-stride; pointers
// 16-byte aligned. Memory traffic: 3 * 16 * n bytes (two reads, one write).
inline constexpr std::string_view kPtxTriadKernel = "gpuvet_triad";
// gpuvet_fma(CUdeviceptr out, uint32_t iterations, float a, float b): each thread runs
// kFmaChains independent chains x = fma(x, a, b), kFmaUnroll steps per chain per iteration, then
// writes the sum of its chains to out[thread] (float; `out` holds one float per launched thread of
// a 1-D launch), so the work cannot be optimised away. Pass |a| <= 1 (e.g. 0.9999f, b = 1e-4f) to
// stay finite. FLOPs = 2 * kFmaPerIteration * iterations * threads.
inline constexpr std::string_view kPtxFmaKernel = "gpuvet_fma";
// gpuvet_spin(CUdeviceptr flag, uint64_t max_spins): reads the 32-bit word at `flag` (host memory
// from cuMemHostAlloc(CU_MEMHOSTALLOC_DEVICEMAP), device address from cuMemHostGetDevicePointer)
// with ld.volatile until it is non-zero or max_spins reads were made, so work queued behind it
// starts together when the host sets the flag (start gating, as nvbandwidth does). Launch with one
// thread; max_spins bounds the wait if the host never sets the flag.
inline constexpr std::string_view kPtxSpinKernel = "gpuvet_spin";

// gpuvet_fma's shape: independent chains per thread (hide the ~4-cycle FMA latency with ILP) and
// unrolled steps per chain per loop iteration (amortise the loop branch).
inline constexpr int kFmaChains = 8;
inline constexpr int kFmaUnroll = 16;
inline constexpr int kFmaPerIteration = kFmaChains * kFmaUnroll;

// Bytes per element of gpuvet_copy and gpuvet_triad (uint4 / float4).
inline constexpr uint64_t kPtxVectorBytes = 16;

// One kernel: its entry name and its PTX body (the `.visible .entry` definition, without the
// module header).
struct PtxKernel {
  std::string_view entry;
  std::string body;
};

// Every kernel above, in the order declared. The result lives for the program (built once).
std::span<const PtxKernel> AllPtxKernels();

// A complete PTX module (header + body) holding only `kernel`, for tests that assemble each one.
std::string PtxModuleFor(const PtxKernel& kernel);

// A complete PTX module holding every kernel: what bench loads with one LoadPtxModule call.
std::string GpuvetPtxModule();

}  // namespace gpuvet
