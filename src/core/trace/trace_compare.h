// TraceComparison: what `gpuvet trace A --compare B` found between two runs (each one trace file
// or a directory of per-rank traces), handed to the renderers (output/trace_compare_*.cc). Plain
// structs; analysis/trace/trace_compare.cc fills them. Every time is per step, averaged over the
// run's ranks ("per window" when a trace marks no ProfilerStep), in nanoseconds as doubles so the
// per-step means keep their fractions; B − A is the difference ("delta"), positive when B takes
// longer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/bottleneck.h"

namespace gpuvet {

inline constexpr const char* kTraceCompareSchema = "gpuvet.trace_compare/v1";

// One run as the comparison sees it.
struct CompareRun {
  std::vector<std::string> sources;   // the trace files read
  std::vector<std::string> problems;  // files of a directory that could not be read
  int ranks = 0;                      // traces with GPU work that were compared
  int world_size = -1;                // from the traces; -1 unknown
  std::string device_type;            // "cuda", "rocm", … ("" no device events)
  std::string gpu_name;     // Kineto deviceProperties ("" unknown; "mixed" if ranks differ)
  double steps = 0;         // profiler steps in each rank's window, averaged over ranks
  bool has_steps = false;   // every compared rank marks ProfilerSteps
  double host_step_ns = 0;  // mean ProfilerStep duration (host), 0 without steps
  // The step the parts below sum to: the host's ProfilerStep (the GPU span without steps), or
  // the GPU's busy time when that is longer (`gpu_behind`).
  double step_ns = 0;
  bool gpu_behind = false;                 // some rank's GPU work per step outlasts its host step
  double kernels_per_step = 0;             // GPU ops (kernels, copies, memsets) launched per step
  Bottleneck verdict = Bottleneck::kNone;  // `gpuvet trace`'s overall label for this run
  double startup_pct = 0;  // the largest share of a rank's window spent in one-time start-up work
};

// One line of a side-by-side table: a part of the step, a kernel category, a copy direction…
struct CompareRow {
  std::string name;
  double a_ns = 0;  // per step
  double b_ns = 0;
  double delta_ns = 0;   // b − a
  double share_pct = 0;  // delta / the step-time delta (signed; 0 when that delta is 0)
  double a_bytes = 0;    // copies only: bytes per step
  double b_bytes = 0;
  double a_count = 0;  // launches (or calls) per step
  double b_count = 0;
};

// One kernel matched across the runs by its normalised name (see NormaliseKernelName), or present
// in one run only.
struct CompareKernel {
  std::string key;     // the normalised name both runs share (or the family, see `match`)
  std::string name_a;  // as the trace writes it (the longest-running name of the key); "" absent
  std::string name_b;
  std::string category;  // gemm, attention, elementwise, reduction, communication, memory, other
  // "same": the same normalised name in both; "family": the same kernel built for another GPU
  // architecture (volta_sgemm_128x64_nn vs ampere_sgemm_128x64_nn); "a_only", "b_only".
  std::string match;
  double a_ns = 0;  // summed kernel time per step
  double b_ns = 0;
  double delta_ns = 0;
  double share_pct = 0;  // of the step-time delta
  double a_count = 0;    // launches per step
  double b_count = 0;
};

struct TraceComparison {
  CompareRun a;
  CompareRun b;
  // "step" when both runs mark ProfilerSteps, else "window" (each trace's analysed window whole).
  std::string unit = "step";
  double delta_ns = 0;    // b.step_ns − a.step_ns
  double change_pct = 0;  // delta / a.step_ns × 100
  // False when the two runs cannot be compared kernel for kernel (no GPU work in one, or no kernel
  // in common); `reason` says why, and only the side-by-side numbers are given.
  bool comparable = true;
  std::string reason;
  // The step split as HTA's temporal breakdown: computation, non-computation (communication,
  // copies and memsets not hidden by computation), idle. The three deltas sum to delta_ns.
  std::vector<CompareRow> temporal;
  // The idle time split by why: HTA's idle breakdown of the merged timeline inside the GPU span
  // (host wait, kernel wait, other) and, per step, the rest of the step outside that span (the
  // span's edges; the host's own time before the first and after the last kernel). Sums to the
  // temporal idle row.
  std::vector<CompareRow> idle;
  // GPU idle inside the span by who held the host (gpuvet's host attribution): host syncs, the
  // DataLoader and the optimizer (when the trace marks them), and Python/framework code between
  // kernels.
  std::vector<CompareRow> host;
  std::vector<CompareRow> categories;  // summed kernel time per category (streams can overlap)
  std::vector<CompareRow> copies;      // per direction: time, bytes and count per step
  std::vector<CompareRow> syncs;       // host synchronisation time per step, by kind
  CompareRow comm;                     // communication kernels' union per step
  CompareRow comm_exposed;             // the part of it no computation hides
  // Kernels whose time per step changed most (by |delta|, at most 15), then the kernels found in
  // one run only (at most 10 each, by time).
  std::vector<CompareKernel> changed;
  std::vector<CompareKernel> added;    // in B only
  std::vector<CompareKernel> removed;  // in A only
  uint64_t kernels_matched = 0;        // normalised names in both runs (same or family), copies
                                       // and memsets aside
  uint64_t kernels_a_only = 0;
  uint64_t kernels_b_only = 0;
  // Likely causes outside the kernels: another GPU model, another world size, another device type,
  // a start-up window, kernels built for another architecture.
  std::vector<std::string> causes;
  std::string answer;  // the one-paragraph answer
};

}  // namespace gpuvet
