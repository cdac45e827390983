// Copy benchmarks: host<->device bandwidth with pinned and pageable host memory, both directions
// at once, and device-to-device through the copy engines. The engine decides where the calling
// thread is pinned (local or remote NUMA node) before calling them.
#pragma once

#include "sources/bench/bench_measure.h"

namespace gpuvet::bench {

// h2d_pinned / d2h_pinned (and the *_remote variants, run from a remote node): plan.transfer_copies
// cuMemcpy{HtoD,DtoH}Async_v2 of plan.transfer_bytes between two events on a non-blocking stream,
// after one untimed warm-up copy. The H2D run also reads the PCIe generation while its first
// sample's copies are in flight (GpuBench::pcie_gen_loaded). GB/s.
Status MeasureH2dPinned(const GpuBench& b, BenchMeasurement& m);
Status MeasureD2hPinned(const GpuBench& b, BenchMeasurement& m);

// h2d_pageable / d2h_pageable: synchronous cuMemcpy{HtoD,DtoH}_v2 from new[]'ed memory, timed with
// events on the legacy stream recorded before the first call and after the last one returned
// (so the span holds the host's staging work and any DMA tail). GB/s.
Status MeasureH2dPageable(const GpuBench& b, BenchMeasurement& m);
Status MeasureD2hPageable(const GpuBench& b, BenchMeasurement& m);

// bidir_pinned: H2D on one stream and D2H on another at once; the figure is both directions'
// bytes over the span from the first start to the last stop. GB/s.
Status MeasureBidirPinned(const GpuBench& b, BenchMeasurement& m);

// d2d_copy_engine: cuMemcpyDtoDAsync_v2 of plan.device_bytes; read + write counted (2 x bytes
// per copy, as nvbandwidth and PyTorch's copy benchmarks count). GB/s.
Status MeasureD2dCopyEngine(const GpuBench& b, BenchMeasurement& m);

}  // namespace gpuvet::bench
