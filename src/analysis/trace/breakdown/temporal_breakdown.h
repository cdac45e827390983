// Where the GPU's time goes over the traced span: HTA's temporal breakdown (idle / compute /
// non-compute), HTA's communication/computation overlap, and the same busy/idle split per
// profiler step. All are unions of op intervals, so concurrent streams are not double counted.
#pragma once

#include <vector>

#include "analysis/trace/op_window.h"
#include "core/trace/trace.h"
#include "core/trace/trace_report.h"

namespace gpuvet {

// HTA BreakdownAnalysis.get_temporal_breakdown over the ops in `window`, with gpuvet's kernel
// types (ClassifyKernel: DeepEP, NVSHMEM, custom all-reduce… are communication, not compute; on
// NCCL-only traces HTA's own types). All zero when the window holds no op.
TemporalBreakdown ComputeTemporal(const RankTrace& trace, const OpWindow& window);

// HTA CommunicationAnalysis.get_comm_comp_overlap over the ops in `window`: the share of the
// union of communication kernels (every kind ClassifyKernel knows) also covered by the union of
// computation kernels.
CommOverlap ComputeCommOverlap(const RankTrace& trace, const OpWindow& window);

// Per profiler step: its host range, the union of all GPU ops clipped to that range, and the
// busy/idle shares of the range. Empty when the trace marks no steps.
std::vector<StepStat> ComputeSteps(const RankTrace& trace);

}  // namespace gpuvet
