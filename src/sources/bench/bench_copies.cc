// Copy benchmarks (bench_copies.h). Every figure is bytes moved per sample over the sample's time;
// the first bytes of the destination are checked against the source pattern afterwards.
#include "sources/bench/bench_copies.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "sources/bench/bench_gpu_info.h"

namespace gpuvet::bench {

namespace {

// Seeds of the verification pattern, one per benchmark so a stale buffer never passes.
constexpr int kSeedH2d = 11, kSeedD2h = 12, kSeedBidir = 13, kSeedD2d = 14;

enum class Direction { kH2d, kD2h };

const char* AsyncCall(Direction d) {
  return d == Direction::kH2d ? "cuMemcpyHtoDAsync_v2" : "cuMemcpyDtoHAsync_v2";
}

CUresult CopyAsync(const CudaLibrary& cuda, Direction d, const HostBuffer& host,
                   const DeviceBuffer& dev, uint64_t bytes, CUstream s) {
  return d == Direction::kH2d ? cuda.cuMemcpyHtoDAsync_v2(dev.ptr(), host.data(), bytes, s)
                              : cuda.cuMemcpyDtoHAsync_v2(host.data(), dev.ptr(), bytes, s);
}

// Prepares the source side of a copy in direction `d` and returns how to verify it afterwards.
Status PrepareSource(const CudaLibrary& cuda, Direction d, const HostBuffer& host,
                     const DeviceBuffer& dev, uint64_t check, int seed) {
  std::memset(host.data(), 0, host.bytes());  // first touch, on the node the thread is pinned to
  if (d == Direction::kH2d) {
    FillPattern(host.data(), check, seed);
    return Status::Ok();
  }
  return FillDevice(cuda, dev.ptr(), check, seed);
}

Status VerifyDestination(const CudaLibrary& cuda, Direction d, const HostBuffer& host,
                         const DeviceBuffer& dev, uint64_t check, int seed) {
  if (d == Direction::kH2d) return VerifyDevice(cuda, dev.ptr(), check, seed, AsyncCall(d));
  const int64_t bad = FirstPatternMismatch(host.data(), check, seed);
  if (bad < 0) return Status::Ok();
  return Internal(fmt::format("data corruption: byte {} of the first {} differs after {}", bad,
                              FormatBytes(check), AsyncCall(d)));
}

Status PinnedCopies(const GpuBench& b, BenchMeasurement& m, Direction d) {
  const CudaLibrary& cuda = b.session.cuda();
  const int seed = d == Direction::kH2d ? kSeedH2d : kSeedD2h;
  const int copies = b.plan.transfer_copies;
  return WithShrinkOnce(b.plan.transfer_bytes, [&](uint64_t bytes) -> Status {
    m.samples.clear();
    auto host = HostBuffer::Pinned(cuda, bytes);
    if (!host.ok()) return host.status();
    auto dev = DeviceBuffer::Allocate(cuda, bytes);
    if (!dev.ok()) return dev.status();
    auto timer = EventTimer::Create(cuda);
    if (!timer.ok()) return timer.status();
    const uint64_t check = std::min(bytes, b.plan.verify_bytes);
    if (Status st = PrepareSource(cuda, d, *host, *dev, check, seed); !st.ok()) return st;
    const CUstream s = b.session.stream();
    // Warm-up: the first copy pays for mapping and power-state changes.
    if (Status st = CudaCheck(cuda, CopyAsync(cuda, d, *host, *dev, bytes, s), AsyncCall(d));
        !st.ok()) {
      return st;
    }
    if (Status st = CudaCheck(cuda, cuda.cuStreamSynchronize(s), "cuStreamSynchronize"); !st.ok()) {
      return st;
    }
    for (int i = 0; i < b.plan.samples; ++i) {
      if (Status st = timer->Start(s); !st.ok()) return st;
      for (int c = 0; c < copies; ++c) {
        if (Status st = CudaCheck(cuda, CopyAsync(cuda, d, *host, *dev, bytes, s), AsyncCall(d));
            !st.ok()) {
          return st;
        }
      }
      if (Status st = timer->Record(s); !st.ok()) return st;
      // The copies are queued and running: a link that downshifts at idle is up to speed now.
      if (i == 0 && d == Direction::kH2d && b.pcie_gen_loaded != nullptr) {
        *b.pcie_gen_loaded = ReadPcieGen(b.paths, b.gpu.pci_bus_id);
      }
      if (Status st = timer->Wait(); !st.ok()) return st;
      auto seconds = timer->ElapsedSeconds();
      if (!seconds.ok()) return seconds.status();
      m.samples.push_back(GigabytesPerSecond(static_cast<double>(bytes) * copies, *seconds));
    }
    m.bytes = bytes;
    m.repetitions = copies;
    m.method = fmt::format(
        "{} with pinned host memory (cuMemHostAlloc) on a non-blocking stream: {} copies of {} per "
        "sample between two CUDA events, {} samples after one warm-up copy",
        AsyncCall(d), copies, FormatBytes(bytes), b.plan.samples);
    return VerifyDestination(cuda, d, *host, *dev, check, seed);
  });
}

Status PageableCopies(const GpuBench& b, BenchMeasurement& m, Direction d) {
  const CudaLibrary& cuda = b.session.cuda();
  const int seed = d == Direction::kH2d ? kSeedH2d : kSeedD2h;
  const int copies = b.plan.pageable_copies;
  const char* call = d == Direction::kH2d ? "cuMemcpyHtoD_v2" : "cuMemcpyDtoH_v2";
  auto copy = [&](const HostBuffer& host, const DeviceBuffer& dev, uint64_t bytes) {
    return CudaCheck(cuda,
                     d == Direction::kH2d ? cuda.cuMemcpyHtoD_v2(dev.ptr(), host.data(), bytes)
                                          : cuda.cuMemcpyDtoH_v2(host.data(), dev.ptr(), bytes),
                     call);
  };
  return WithShrinkOnce(b.plan.transfer_bytes, [&](uint64_t bytes) -> Status {
    m.samples.clear();
    auto host = HostBuffer::Pageable(bytes);
    if (!host.ok()) return host.status();
    auto dev = DeviceBuffer::Allocate(cuda, bytes);
    if (!dev.ok()) return dev.status();
    const uint64_t check = std::min(bytes, b.plan.verify_bytes);
    if (Status st = PrepareSource(cuda, d, *host, *dev, check, seed); !st.ok()) return st;
    if (Status st = copy(*host, *dev, bytes); !st.ok()) return st;  // warm-up
    auto timer = EventTimer::Create(cuda);
    if (!timer.ok()) return timer.status();
    // The legacy default stream (null handle) is the one synchronous copies run on, so events
    // recorded there bracket them exactly.
    constexpr CUstream kLegacyStream = nullptr;
    for (int i = 0; i < b.plan.samples; ++i) {
      if (Status st = timer->Start(kLegacyStream); !st.ok()) return st;
      for (int c = 0; c < copies; ++c) {
        if (Status st = copy(*host, *dev, bytes); !st.ok()) return st;
      }
      // Recorded only after the last synchronous call returned, so the stop event cannot complete
      // before the host's part (a D2H call's final staging copy) ended, and it waits for any DMA
      // an H2D call returned before (CUDA API sync behaviour): the span covers both, where
      // bandwidthTest's host clock missed the H2D tail.
      if (Status st = timer->Record(kLegacyStream); !st.ok()) return st;
      if (Status st = timer->Wait(); !st.ok()) return st;
      auto seconds = timer->ElapsedSeconds();
      if (!seconds.ok()) return seconds.status();
      m.samples.push_back(GigabytesPerSecond(static_cast<double>(bytes) * copies, *seconds));
    }
    m.bytes = bytes;
    m.repetitions = copies;
    m.method = fmt::format(
        "{} (synchronous) with pageable host memory (new[]): {} copies of {} per sample, timed "
        "with "
        "CUDA events on the legacy stream recorded around the calls, {} samples after one warm-up "
        "copy",
        call, copies, FormatBytes(bytes), b.plan.samples);
    return VerifyDestination(cuda, d, *host, *dev, check, seed);
  });
}

}  // namespace

Status MeasureH2dPinned(const GpuBench& b, BenchMeasurement& m) {
  return PinnedCopies(b, m, Direction::kH2d);
}

Status MeasureD2hPinned(const GpuBench& b, BenchMeasurement& m) {
  return PinnedCopies(b, m, Direction::kD2h);
}

Status MeasureH2dPageable(const GpuBench& b, BenchMeasurement& m) {
  return PageableCopies(b, m, Direction::kH2d);
}

Status MeasureD2hPageable(const GpuBench& b, BenchMeasurement& m) {
  return PageableCopies(b, m, Direction::kD2h);
}

Status MeasureBidirPinned(const GpuBench& b, BenchMeasurement& m) {
  const CudaLibrary& cuda = b.session.cuda();
  const int copies = b.plan.transfer_copies;
  return WithShrinkOnce(b.plan.transfer_bytes, [&](uint64_t bytes) -> Status {
    m.samples.clear();
    auto up_host = HostBuffer::Pinned(cuda, bytes);
    if (!up_host.ok()) return up_host.status();
    auto down_host = HostBuffer::Pinned(cuda, bytes);
    if (!down_host.ok()) return down_host.status();
    auto up_dev = DeviceBuffer::Allocate(cuda, bytes);
    if (!up_dev.ok()) return up_dev.status();
    auto down_dev = DeviceBuffer::Allocate(cuda, bytes);
    if (!down_dev.ok()) return down_dev.status();
    auto up_timer = EventTimer::Create(cuda);
    if (!up_timer.ok()) return up_timer.status();
    auto down_timer = EventTimer::Create(cuda);
    if (!down_timer.ok()) return down_timer.status();
    const uint64_t check = std::min(bytes, b.plan.verify_bytes);
    if (Status st = PrepareSource(cuda, Direction::kH2d, *up_host, *up_dev, check, kSeedBidir);
        !st.ok()) {
      return st;
    }
    if (Status st = PrepareSource(cuda, Direction::kD2h, *down_host, *down_dev, check, kSeedBidir);
        !st.ok()) {
      return st;
    }
    const CUstream up = b.session.stream();
    const CUstream down = b.session.second_stream();
    for (int i = 0; i < b.plan.samples; ++i) {
      if (Status st = up_timer->Start(up); !st.ok()) return st;
      if (Status st = down_timer->Start(down); !st.ok()) return st;
      for (int c = 0; c < copies; ++c) {
        if (Status st =
                CudaCheck(cuda, CopyAsync(cuda, Direction::kH2d, *up_host, *up_dev, bytes, up),
                          AsyncCall(Direction::kH2d));
            !st.ok()) {
          return st;
        }
        if (Status st = CudaCheck(
                cuda, CopyAsync(cuda, Direction::kD2h, *down_host, *down_dev, bytes, down),
                AsyncCall(Direction::kD2h));
            !st.ok()) {
          return st;
        }
      }
      if (Status st = up_timer->Record(up); !st.ok()) return st;
      if (Status st = down_timer->Record(down); !st.ok()) return st;
      if (Status st = up_timer->Wait(); !st.ok()) return st;
      if (Status st = down_timer->Wait(); !st.ok()) return st;
      // The span runs from the first start event to whichever stream finished last.
      auto up_span = up_timer->ElapsedSeconds();
      if (!up_span.ok()) return up_span.status();
      auto down_span = up_timer->ElapsedSecondsTo(*down_timer);
      if (!down_span.ok()) return down_span.status();
      const double span = std::max(*up_span, *down_span);
      m.samples.push_back(GigabytesPerSecond(2.0 * static_cast<double>(bytes) * copies, span));
    }
    m.bytes = bytes;
    m.repetitions = copies;
    m.method = fmt::format(
        "cuMemcpyHtoDAsync_v2 and cuMemcpyDtoHAsync_v2 on two non-blocking streams at once, pinned "
        "host memory: {} copies of {} each way per sample, both directions summed over the span "
        "of the CUDA events, {} samples",
        copies, FormatBytes(bytes), b.plan.samples);
    if (Status st = VerifyDestination(cuda, Direction::kH2d, *up_host, *up_dev, check, kSeedBidir);
        !st.ok()) {
      return st;
    }
    return VerifyDestination(cuda, Direction::kD2h, *down_host, *down_dev, check, kSeedBidir);
  });
}

Status MeasureD2dCopyEngine(const GpuBench& b, BenchMeasurement& m) {
  const CudaLibrary& cuda = b.session.cuda();
  const int reps = b.plan.device_reps;
  return WithShrinkOnce(b.plan.device_bytes, [&](uint64_t bytes) -> Status {
    m.samples.clear();
    auto src = DeviceBuffer::Allocate(cuda, bytes);
    if (!src.ok()) return src.status();
    auto dst = DeviceBuffer::Allocate(cuda, bytes);
    if (!dst.ok()) return dst.status();
    auto timer = EventTimer::Create(cuda);
    if (!timer.ok()) return timer.status();
    const uint64_t check = std::min(bytes, b.plan.verify_bytes);
    if (Status st = FillDevice(cuda, src->ptr(), check, kSeedD2d); !st.ok()) return st;
    const CUstream s = b.session.stream();
    auto copy = [&] {
      return CudaCheck(cuda, cuda.cuMemcpyDtoDAsync_v2(dst->ptr(), src->ptr(), bytes, s),
                       "cuMemcpyDtoDAsync_v2");
    };
    if (Status st = copy(); !st.ok()) return st;  // warm-up
    for (int i = 0; i < b.plan.samples; ++i) {
      if (Status st = timer->Start(s); !st.ok()) return st;
      for (int r = 0; r < reps; ++r) {
        if (Status st = copy(); !st.ok()) return st;
      }
      if (Status st = timer->Record(s); !st.ok()) return st;
      if (Status st = timer->Wait(); !st.ok()) return st;
      auto seconds = timer->ElapsedSeconds();
      if (!seconds.ok()) return seconds.status();
      m.samples.push_back(GigabytesPerSecond(2.0 * static_cast<double>(bytes) * reps, *seconds));
    }
    m.bytes = bytes;
    m.repetitions = reps;
    m.method = fmt::format(
        "cuMemcpyDtoDAsync_v2 (copy engine) on a non-blocking stream: {} copies of {} per sample "
        "between two CUDA events, read + write counted (2 x bytes), {} samples after one warm-up",
        reps, FormatBytes(bytes), b.plan.samples);
    return VerifyDevice(cuda, dst->ptr(), check, kSeedD2d, "cuMemcpyDtoDAsync_v2");
  });
}

}  // namespace gpuvet::bench
