// Small RAII helpers over the CUDA driver API for the benchmarks: a CUresult turned into a Status
// naming the call, a GPU's primary context with two non-blocking streams, device and host buffers
// that free themselves, and event-pair timing. Everything is bound to one CudaLibrary.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "sources/cuda/cuda_api.h"
#include "sources/cuda/cuda_loader.h"
#include "util/status.h"

namespace gpuvet::bench {

// Ok for CUDA_SUCCESS; otherwise "<call>: <description>" with the code mapped so callers can act
// on it: CUDA_ERROR_OUT_OF_MEMORY -> kUnavailable (shrink and retry), CUDA_ERROR_NOT_SUPPORTED and
// CUDA_ERROR_PEER_ACCESS_UNSUPPORTED -> kNotSupported, anything else -> kInternal.
Status CudaCheck(const CudaLibrary& cuda, CUresult rc, std::string_view call);

// True for the status CudaCheck gives for CUDA_ERROR_OUT_OF_MEMORY.
inline bool IsOutOfMemory(const Status& s) { return s.code() == StatusCode::kUnavailable; }

// One GPU's primary context, made current on the calling thread, with two non-blocking streams
// (bidirectional copies need two). Releases the context and destroys the streams on destruction.
class GpuSession {
 public:
  // Retains the primary context of `ordinal`, makes it current and creates the streams.
  static Result<std::unique_ptr<GpuSession>> Open(const CudaLibrary& cuda, int ordinal);
  ~GpuSession();
  GpuSession(const GpuSession&) = delete;
  GpuSession& operator=(const GpuSession&) = delete;

  // Makes this context current on the calling thread (P2P work switches between contexts).
  Status MakeCurrent() const;
  // Ok while the context still works: cuCtxSynchronize succeeds. After a sticky error (illegal
  // address, GPU fallen off the bus) every later call fails; this says so once, with the error.
  Status Probe() const;

  const CudaLibrary& cuda() const { return cuda_; }
  int ordinal() const { return ordinal_; }
  CUdevice device() const { return device_; }
  CUcontext context() const { return context_; }
  CUstream stream() const { return stream_; }
  CUstream second_stream() const { return second_stream_; }

 private:
  GpuSession(const CudaLibrary& cuda, int ordinal) : cuda_(cuda), ordinal_(ordinal) {}

  const CudaLibrary& cuda_;
  int ordinal_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  bool retained_ = false;
  CUstream stream_ = nullptr;
  CUstream second_stream_ = nullptr;
};

// Device memory from cuMemAlloc_v2, freed on destruction (in whatever context is current: device
// pointers are valid in every context of the process under unified addressing).
class DeviceBuffer {
 public:
  static Result<DeviceBuffer> Allocate(const CudaLibrary& cuda, uint64_t bytes);
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  ~DeviceBuffer();

  CUdeviceptr ptr() const { return ptr_; }
  uint64_t bytes() const { return bytes_; }

 private:
  DeviceBuffer(const CudaLibrary* cuda, CUdeviceptr ptr, uint64_t bytes)
      : cuda_(cuda), ptr_(ptr), bytes_(bytes) {}
  const CudaLibrary* cuda_ = nullptr;
  CUdeviceptr ptr_ = 0;
  uint64_t bytes_ = 0;
};

// Host memory: pinned (cuMemHostAlloc, portable so every context may use it) or pageable
// (operator new, first touched by Fill on the calling thread, so after the thread was pinned to a
// NUMA node the pages land on that node).
class HostBuffer {
 public:
  static Result<HostBuffer> Pinned(const CudaLibrary& cuda, uint64_t bytes);
  static Result<HostBuffer> Pageable(uint64_t bytes);
  HostBuffer(HostBuffer&& other) noexcept;
  HostBuffer& operator=(HostBuffer&& other) noexcept;
  ~HostBuffer();

  unsigned char* data() const { return data_; }
  uint64_t bytes() const { return bytes_; }

 private:
  HostBuffer(const CudaLibrary* cuda, unsigned char* data, uint64_t bytes)
      : cuda_(cuda), data_(data), bytes_(bytes) {}
  void Release();
  const CudaLibrary* cuda_ = nullptr;  // null for pageable memory
  unsigned char* data_ = nullptr;
  uint64_t bytes_ = 0;
};

// Writes the verification pattern (byte i = (i * 131 + seed) mod 251, a prime cycle that no
// power-of-two stride repeats) into the first `bytes` of `data`.
void FillPattern(unsigned char* data, uint64_t bytes, int seed);
// Offset of the first byte of `data` that differs from the pattern, or -1 when all match.
int64_t FirstPatternMismatch(const unsigned char* data, uint64_t bytes, int seed);

// Two events around work on one stream: Start() records the first, Stop() the second and waits
// for it; the elapsed time is what the GPU measured between them.
class EventTimer {
 public:
  static Result<EventTimer> Create(const CudaLibrary& cuda);
  EventTimer(EventTimer&& other) noexcept;
  EventTimer& operator=(EventTimer&&) = delete;
  ~EventTimer();

  Status Start(CUstream stream) const;
  Status Record(CUstream stream) const;  // records the stop event without waiting
  Status Wait() const;                   // waits for the stop event
  Result<double> ElapsedSeconds() const;
  // From this timer's start event to `other`'s stop event (both in the same context): the span
  // of work spread over two streams.
  Result<double> ElapsedSecondsTo(const EventTimer& other) const;

 private:
  EventTimer(const CudaLibrary* cuda, CUevent start, CUevent stop)
      : cuda_(cuda), start_(start), stop_(stop) {}
  const CudaLibrary* cuda_ = nullptr;
  CUevent start_ = nullptr;
  CUevent stop_ = nullptr;
};

}  // namespace gpuvet::bench
