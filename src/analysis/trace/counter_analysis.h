// Counter-mode traces: the PyTorch profiler's CUPTI range profiler replays each kernel to read
// hardware counters and writes them as "cuda_profiler_range" events with no usable timeline.
// This puts each profiled kernel on the roofline (FLOPs from SASS instruction counts, bytes from
// DRAM counters, the ridge point from the GPU's spec row) so such a trace still answers
// memory_bound vs compute_bound.
#pragma once

#include "core/trace/trace.h"
#include "core/trace/trace_report.h"

namespace gpuvet {

// FLOPs: smsp__sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}_pred_on.sum, an FMA counted as
// two operations (Nsight Compute's roofline formula). Bytes: dram__bytes_read.sum +
// dram__bytes_write.sum, or dram__bytes.sum. A kernel is memory-bound when its FLOP per byte is
// below the ridge point, FP32 peak / memory bandwidth of the trace's GPU (gpu_specs.h); without
// a known GPU, byte counters or FLOP counters kernels are listed but not placed.
CounterStats ComputeCounterStats(const RankTrace& trace);

}  // namespace gpuvet
