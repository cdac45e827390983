// RAII helpers over the CUDA driver API for the benchmarks (bench_cuda.h).
#include "sources/bench/bench_cuda.h"

#include <fmt/format.h>

#include <new>
#include <utility>

namespace gpuvet::bench {

Status CudaCheck(const CudaLibrary& cuda, CUresult rc, std::string_view call) {
  if (rc == CUDA_SUCCESS) return Status::Ok();
  std::string message = fmt::format("{}: {}", call, DescribeCudaError(cuda, rc));
  if (rc == CUDA_ERROR_OUT_OF_MEMORY) return Unavailable(std::move(message));
  if (rc == CUDA_ERROR_NOT_SUPPORTED || rc == CUDA_ERROR_PEER_ACCESS_UNSUPPORTED) {
    return NotSupported(std::move(message));
  }
  return Internal(std::move(message));
}

// ---- GpuSession ----

Result<std::unique_ptr<GpuSession>> GpuSession::Open(const CudaLibrary& cuda, int ordinal) {
  std::unique_ptr<GpuSession> s(new GpuSession(cuda, ordinal));
  if (Status st = CudaCheck(cuda, cuda.cuDeviceGet(&s->device_, ordinal), "cuDeviceGet");
      !st.ok()) {
    return st;
  }
  if (Status st = CudaCheck(cuda, cuda.cuDevicePrimaryCtxRetain(&s->context_, s->device_),
                            "cuDevicePrimaryCtxRetain");
      !st.ok()) {
    return st;
  }
  s->retained_ = true;
  if (Status st = s->MakeCurrent(); !st.ok()) return st;
  if (Status st = CudaCheck(cuda, cuda.cuStreamCreate(&s->stream_, CU_STREAM_NON_BLOCKING),
                            "cuStreamCreate");
      !st.ok()) {
    return st;
  }
  if (Status st = CudaCheck(cuda, cuda.cuStreamCreate(&s->second_stream_, CU_STREAM_NON_BLOCKING),
                            "cuStreamCreate");
      !st.ok()) {
    return st;
  }
  return s;
}

GpuSession::~GpuSession() {
  if (context_ != nullptr) cuda_.cuCtxSetCurrent(context_);
  if (stream_ != nullptr) cuda_.cuStreamDestroy_v2(stream_);
  if (second_stream_ != nullptr) cuda_.cuStreamDestroy_v2(second_stream_);
  if (retained_) {
    cuda_.cuCtxSetCurrent(nullptr);
    cuda_.cuDevicePrimaryCtxRelease_v2(device_);
  }
}

Status GpuSession::MakeCurrent() const {
  return CudaCheck(cuda_, cuda_.cuCtxSetCurrent(context_), "cuCtxSetCurrent");
}

Status GpuSession::Probe() const {
  if (Status st = MakeCurrent(); !st.ok()) return st;
  return CudaCheck(cuda_, cuda_.cuCtxSynchronize(), "cuCtxSynchronize");
}

// ---- DeviceBuffer ----

Result<DeviceBuffer> DeviceBuffer::Allocate(const CudaLibrary& cuda, uint64_t bytes) {
  CUdeviceptr ptr = 0;
  if (Status st =
          CudaCheck(cuda, cuda.cuMemAlloc_v2(&ptr, bytes), fmt::format("cuMemAlloc_v2({})", bytes));
      !st.ok()) {
    return st;
  }
  return DeviceBuffer(&cuda, ptr, bytes);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : cuda_(other.cuda_), ptr_(std::exchange(other.ptr_, 0)), bytes_(other.bytes_) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (ptr_ != 0) cuda_->cuMemFree_v2(ptr_);
    cuda_ = other.cuda_;
    ptr_ = std::exchange(other.ptr_, 0);
    bytes_ = other.bytes_;
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ != 0) cuda_->cuMemFree_v2(ptr_);
}

// ---- HostBuffer ----

Result<HostBuffer> HostBuffer::Pinned(const CudaLibrary& cuda, uint64_t bytes) {
  void* ptr = nullptr;
  if (Status st = CudaCheck(cuda, cuda.cuMemHostAlloc(&ptr, bytes, CU_MEMHOSTALLOC_PORTABLE),
                            fmt::format("cuMemHostAlloc({})", bytes));
      !st.ok()) {
    return st;
  }
  return HostBuffer(&cuda, static_cast<unsigned char*>(ptr), bytes);
}

Result<HostBuffer> HostBuffer::Pageable(uint64_t bytes) {
  auto* data = new (std::nothrow) unsigned char[bytes];
  if (data == nullptr) {
    return Unavailable(fmt::format("cannot allocate {} bytes of pageable host memory", bytes));
  }
  return HostBuffer(nullptr, data, bytes);
}

HostBuffer::HostBuffer(HostBuffer&& other) noexcept
    : cuda_(other.cuda_), data_(std::exchange(other.data_, nullptr)), bytes_(other.bytes_) {}

HostBuffer& HostBuffer::operator=(HostBuffer&& other) noexcept {
  if (this != &other) {
    Release();
    cuda_ = other.cuda_;
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = other.bytes_;
  }
  return *this;
}

HostBuffer::~HostBuffer() { Release(); }

void HostBuffer::Release() {
  if (data_ == nullptr) return;
  if (cuda_ != nullptr) {
    cuda_->cuMemFreeHost(data_);
  } else {
    delete[] data_;
  }
  data_ = nullptr;
}

// ---- pattern ----

namespace {
// 131 and 251: primes, so the pattern has period 251 and no power-of-two stride aliases it.
unsigned char PatternByte(uint64_t i, int seed) {
  return static_cast<unsigned char>((i * 131 + static_cast<uint64_t>(seed)) % 251);
}
}  // namespace

void FillPattern(unsigned char* data, uint64_t bytes, int seed) {
  for (uint64_t i = 0; i < bytes; ++i) data[i] = PatternByte(i, seed);
}

int64_t FirstPatternMismatch(const unsigned char* data, uint64_t bytes, int seed) {
  for (uint64_t i = 0; i < bytes; ++i) {
    if (data[i] != PatternByte(i, seed)) return static_cast<int64_t>(i);
  }
  return -1;
}

// ---- EventTimer ----

Result<EventTimer> EventTimer::Create(const CudaLibrary& cuda) {
  CUevent start = nullptr, stop = nullptr;
  if (Status st = CudaCheck(cuda, cuda.cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
      !st.ok()) {
    return st;
  }
  if (Status st = CudaCheck(cuda, cuda.cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
      !st.ok()) {
    cuda.cuEventDestroy_v2(start);
    return st;
  }
  return EventTimer(&cuda, start, stop);
}

EventTimer::EventTimer(EventTimer&& other) noexcept
    : cuda_(other.cuda_),
      start_(std::exchange(other.start_, nullptr)),
      stop_(std::exchange(other.stop_, nullptr)) {}

EventTimer::~EventTimer() {
  if (start_ != nullptr) cuda_->cuEventDestroy_v2(start_);
  if (stop_ != nullptr) cuda_->cuEventDestroy_v2(stop_);
}

Status EventTimer::Start(CUstream stream) const {
  return CudaCheck(*cuda_, cuda_->cuEventRecord(start_, stream), "cuEventRecord");
}

Status EventTimer::Record(CUstream stream) const {
  return CudaCheck(*cuda_, cuda_->cuEventRecord(stop_, stream), "cuEventRecord");
}

Status EventTimer::Wait() const {
  return CudaCheck(*cuda_, cuda_->cuEventSynchronize(stop_), "cuEventSynchronize");
}

Result<double> EventTimer::ElapsedSeconds() const { return ElapsedSecondsTo(*this); }

Result<double> EventTimer::ElapsedSecondsTo(const EventTimer& other) const {
  float ms = 0;
  if (Status st = CudaCheck(*cuda_, cuda_->cuEventElapsedTime(&ms, start_, other.stop_),
                            "cuEventElapsedTime");
      !st.ok()) {
    return st;
  }
  return static_cast<double>(ms) / 1e3;
}

}  // namespace gpuvet::bench
