// Peer-to-peer bandwidth and latency (bench_p2p.h).
#include "sources/bench/bench_p2p.h"

#include <fmt/format.h>

#include <algorithm>

#include "sources/bench/bench_measure.h"

namespace gpuvet::bench {

namespace {

constexpr int kSeedP2p = 21;

struct PeerBuffers {
  DeviceBuffer src;
  DeviceBuffer dst;
};

// Allocates `bytes` on each GPU (each in its own context) and leaves `src` current.
Result<PeerBuffers> AllocatePair(const GpuSession& src, const GpuSession& dst, uint64_t bytes) {
  const CudaLibrary& cuda = src.cuda();
  if (Status st = dst.MakeCurrent(); !st.ok()) return st;
  auto d = DeviceBuffer::Allocate(cuda, bytes);
  if (!d.ok()) return d.status();
  if (Status st = src.MakeCurrent(); !st.ok()) return st;
  auto s = DeviceBuffer::Allocate(cuda, bytes);
  if (!s.ok()) return s.status();
  return PeerBuffers{std::move(s).value(), std::move(d).value()};
}

// Times `per_sample` peer copies of `bytes` per sample; returns seconds per sample.
Result<std::vector<double>> TimeCopies(const GpuSession& src, const GpuSession& dst,
                                       const PeerBuffers& bufs, uint64_t bytes, int per_sample,
                                       int samples) {
  const CudaLibrary& cuda = src.cuda();
  auto timer = EventTimer::Create(cuda);
  if (!timer.ok()) return timer.status();
  const CUstream s = src.stream();
  auto copy = [&] {
    return CudaCheck(cuda,
                     cuda.cuMemcpyPeerAsync(bufs.dst.ptr(), dst.context(), bufs.src.ptr(),
                                            src.context(), bytes, s),
                     "cuMemcpyPeerAsync");
  };
  if (Status st = copy(); !st.ok()) return st;  // warm-up: maps the peer's pages
  std::vector<double> seconds;
  for (int i = 0; i < samples; ++i) {
    if (Status st = timer->Start(s); !st.ok()) return st;
    for (int c = 0; c < per_sample; ++c) {
      if (Status st = copy(); !st.ok()) return st;
    }
    if (Status st = timer->Record(s); !st.ok()) return st;
    if (Status st = timer->Wait(); !st.ok()) return st;
    auto t = timer->ElapsedSeconds();
    if (!t.ok()) return t.status();
    seconds.push_back(*t);
  }
  return seconds;
}

}  // namespace

Status EnablePeerAccess(const GpuSession& src, const GpuSession& dst) {
  const CudaLibrary& cuda = src.cuda();
  int can = 0;
  const CUresult rc = cuda.cuDeviceCanAccessPeer(&can, src.device(), dst.device());
  if (rc == CUDA_ERROR_NOT_FOUND && !cuda.has_cuDeviceCanAccessPeer()) {
    return NotSupported("the driver library lacks cuDeviceCanAccessPeer");
  }
  if (Status st = CudaCheck(cuda, rc, "cuDeviceCanAccessPeer"); !st.ok()) return st;
  if (can == 0) {
    return NotSupported(
        fmt::format("P2P not supported from GPU {} to GPU {} (cuDeviceCanAccessPeer "
                    "= 0): copies between them go through host memory",
                    src.ordinal(), dst.ordinal()));
  }
  if (Status st = src.MakeCurrent(); !st.ok()) return st;
  const CUresult enable = cuda.cuCtxEnablePeerAccess(dst.context(), 0);
  if (enable == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) return Status::Ok();
  return CudaCheck(cuda, enable, "cuCtxEnablePeerAccess");
}

Status MeasureP2pBandwidth(const GpuSession& src, const GpuSession& dst, const BenchPlan& plan,
                           BenchMeasurement& m) {
  const CudaLibrary& cuda = src.cuda();
  return WithShrinkOnce(plan.transfer_bytes, [&](uint64_t bytes) -> Status {
    m.samples.clear();
    auto bufs = AllocatePair(src, dst, bytes);
    if (!bufs.ok()) return bufs.status();
    const uint64_t check = std::min(bytes, plan.verify_bytes);
    if (Status st = FillDevice(cuda, bufs->src.ptr(), check, kSeedP2p); !st.ok()) return st;
    auto seconds = TimeCopies(src, dst, *bufs, bytes, plan.transfer_copies, plan.samples);
    if (!seconds.ok()) return seconds.status();
    for (double s : *seconds) {
      m.samples.push_back(GigabytesPerSecond(static_cast<double>(bytes) * plan.transfer_copies, s));
    }
    m.bytes = bytes;
    m.repetitions = plan.transfer_copies;
    m.method = fmt::format(
        "cuMemcpyPeerAsync GPU {} -> GPU {} on GPU {}'s non-blocking stream, peer access enabled: "
        "{} copies of {} per sample between two CUDA events, {} samples after one warm-up",
        src.ordinal(), dst.ordinal(), src.ordinal(), plan.transfer_copies, FormatBytes(bytes),
        plan.samples);
    return VerifyDevice(cuda, bufs->dst.ptr(), check, kSeedP2p, "cuMemcpyPeerAsync");
  });
}

Status MeasureP2pLatency(const GpuSession& src, const GpuSession& dst, const BenchPlan& plan,
                         BenchMeasurement& m) {
  const uint64_t bytes = plan.p2p_latency_bytes;
  auto bufs = AllocatePair(src, dst, bytes);
  if (!bufs.ok()) return bufs.status();
  auto seconds = TimeCopies(src, dst, *bufs, bytes, plan.p2p_latency_copies, plan.samples);
  if (!seconds.ok()) return seconds.status();
  for (double s : *seconds) m.samples.push_back(s / plan.p2p_latency_copies * 1e6);
  m.bytes = bytes;
  m.repetitions = plan.p2p_latency_copies;
  m.method = fmt::format(
      "cuMemcpyPeerAsync GPU {} -> GPU {} of {}: {} back-to-back copies per sample, the CUDA "
      "event span divided by the count (microseconds per copy), {} samples",
      src.ordinal(), dst.ordinal(), FormatBytes(bytes), plan.p2p_latency_copies, plan.samples);
  return Status::Ok();
}

}  // namespace gpuvet::bench
