// Peer-to-peer benchmarks between two GPUs: bandwidth of large cuMemcpyPeerAsync copies and the
// per-copy time of tiny ones, from the source GPU's stream after enabling peer access to the
// destination. Pairs the driver refuses (cuDeviceCanAccessPeer = 0) are reported, not measured.
#pragma once

#include "core/bench.h"
#include "sources/bench/bench_cuda.h"
#include "sources/bench/bench_plan.h"

namespace gpuvet::bench {

// Enables peer access from `src`'s context to `dst`'s memory. NotSupported naming both GPUs when
// cuDeviceCanAccessPeer says no (or the driver lacks it); an error when enabling fails.
// An already enabled peer is fine.
Status EnablePeerAccess(const GpuSession& src, const GpuSession& dst);

// p2p_bandwidth (GB/s, bytes written to the peer per second): plan.transfer_copies copies of
// plan.transfer_bytes per sample, timed with events on src's stream; data checked after.
// Requires EnablePeerAccess(src, dst) to have succeeded.
Status MeasureP2pBandwidth(const GpuSession& src, const GpuSession& dst, const BenchPlan& plan,
                           BenchMeasurement& m);

// p2p_latency (us per copy): plan.p2p_latency_copies back-to-back copies of
// plan.p2p_latency_bytes per sample, the event span divided by the count.
Status MeasureP2pLatency(const GpuSession& src, const GpuSession& dst, const BenchPlan& plan,
                         BenchMeasurement& m);

}  // namespace gpuvet::bench
