// TraceReport: everything `gpuvet trace` learned from one or more profiler traces, handed to the
// renderers (output/trace_*.cc). Plain structs only: the analyses that fill them live in
// analysis/, so a renderer sees numbers and findings, never the trace model. Times are integer
// nanoseconds; percentages are 0–100 doubles of the named denominator.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/bottleneck.h"
#include "core/finding.h"
#include "core/forecast.h"

namespace gpuvet {

inline constexpr const char* kTraceSchema = "gpuvet.trace/v1";

// HTA's temporal breakdown: span = first GPU op start to last GPU op end (all streams; GPU ops of
// the last ProfilerStep excluded when there are several), idle = span − union of all GPU ops,
// compute = union of computation kernels, non_compute = the rest (communication, memcpy, memset).
struct TemporalBreakdown {
  int64_t start_ns = 0;  // the span: first GPU op start to last GPU op end in the window
  int64_t end_ns = 0;
  int64_t span_ns = 0;
  int64_t idle_ns = 0;
  int64_t compute_ns = 0;
  int64_t non_compute_ns = 0;
  double idle_pct = 0;
  double compute_pct = 0;
  double non_compute_pct = 0;
  uint64_t ops_counted = 0;         // GPU ops inside the analysed window
  bool last_step_excluded = false;  // HTA drops the last ProfilerStep when there are several
};

// HTA's idle-time breakdown of one (device, stream): each gap before a GPU op is host wait (its
// launching call started after the previous op ended), kernel wait (shorter than the
// consecutive-kernel delay) or other. Ratios are of this stream's total idle.
struct StreamIdle {
  int device = -1;
  int stream = -1;
  uint64_t ops = 0;
  int64_t busy_ns = 0;  // sum of the stream's op durations (weights the stream in the verdict)
  int64_t host_wait_ns = 0;
  int64_t kernel_wait_ns = 0;
  int64_t other_ns = 0;
  // Part of host_wait_ns in gaps shorter than TraceThresholds.launch_gap_max_ns: the host was
  // only just behind, as when every kernel waits for its own launch.
  int64_t host_wait_short_ns = 0;
  double host_wait_ratio = 0;  // 0–1, as HTA reports it
  double kernel_wait_ratio = 0;
  double other_ratio = 0;
  int64_t idle_ns() const { return host_wait_ns + kernel_wait_ns + other_ns; }
};

// Time per kernel category ("gemm", "attention", "elementwise", "reduction", "communication",
// "memory", "other"); pct is of all GPU-op time (sum of durations).
struct KernelCategoryTime {
  std::string category;
  uint64_t count = 0;
  int64_t total_ns = 0;
  double pct = 0;
};

// One kernel name aggregated over its launches, or HTA's "others" row of a kernel type (name
// "others", category "": the names past HTA's cut, summed).
struct KernelStat {
  std::string name;
  std::string category;
  std::string type;  // "computation", "communication", "memory" (gpuvet's kernel type)
  uint64_t count = 0;
  int64_t total_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  int64_t mean_ns = 0;
  double pct = 0;  // of all GPU-op time
};

// Time during which exactly one combination of kernel types runs (HTA get_gpu_kernel_breakdown's
// kernel_type table): "computation", "communication", "memory", or several joined by
// " overlapping " in that order ("computation overlapping communication"). The rows partition the
// union of all GPU ops, so their pcts add up to 100.
struct KernelTypeTime {
  std::string type;
  int64_t time_ns = 0;
  double pct = 0;  // of the union of all GPU ops in the window
};

struct KernelBreakdown {
  uint64_t op_count = 0;                       // kernels + memcpy + memset
  uint64_t kernel_count = 0;                   // kernels only
  uint64_t graph_launched_count = 0;           // kernels enqueued by a CUDA graph launch
  int64_t total_ns = 0;                        // sum of op durations (not the union)
  std::vector<KernelCategoryTime> categories;  // descending by time
  std::vector<KernelTypeTime> types;           // exclusive union time, descending
  // The top kernels of each kernel type as HTA lists them (computation, then communication, then
  // memory; by descending time within a type, its "others" row last).
  std::vector<KernelStat> top;
};

// Queue length on one stream as HTA defines it: ops launched (runtime call started) and not yet
// finished, sampled at every launch and completion event.
struct StreamQueue {
  int device = -1;
  int stream = -1;
  int max_queue = 0;
  double mean_queue = 0;
};

struct LaunchStats {
  uint64_t launches = 0;             // kernels joined to their launch call by correlation
  uint64_t shorter_than_launch = 0;  // kernel duration < CPU duration of its launch call
  double shorter_pct = 0;            // of launches
  int64_t launch_mean_ns = 0;        // mean CPU time of a launch call
  int64_t launch_median_ns = 0;      // its median (one 3 s first launch skews the mean)
  int64_t kernel_mean_ns = 0;        // mean duration of the joined kernels
  int64_t kernel_median_ns = 0;
  int64_t delay_p50_ns = 0;  // kernel start − launch call start
  int64_t delay_p95_ns = 0;
  std::vector<StreamQueue> queues;
};

// Copies in one direction ("HtoD", "DtoH", "DtoD", "PtoP", "HtoH", "other").
struct CopyDirection {
  std::string direction;
  uint64_t count = 0;
  uint64_t bytes = 0;
  int64_t time_ns = 0;
  double gb_per_s = 0;  // bytes / time (1 GB = 1e9 bytes), 0 when time is 0
};

// One kind of host synchronisation ("device", "stream", "event", "memcpy" for synchronous copies).
struct SyncKindStat {
  std::string kind;
  uint64_t count = 0;
  int64_t time_ns = 0;
};

struct CopyStats {
  std::vector<CopyDirection> directions;  // in the order HtoD, DtoH, DtoD, PtoP, HtoH, other
  uint64_t pageable_count = 0;            // host side is pageable memory
  uint64_t pageable_bytes = 0;
  int64_t pageable_ns = 0;
  int64_t copy_busy_ns = 0;          // union of memcpy intervals
  int64_t copy_busy_in_span_ns = 0;  // the part of it inside the temporal breakdown's span
  // Host<->device copies (HtoD, DtoH) inside the span: their union, and the part of it during
  // which no computation kernel runs on any stream (what transfer_bound judges). DtoD and peer
  // copies are device-memory traffic or communication, not transfers over the host link.
  int64_t host_copy_in_span_ns = 0;
  int64_t host_copy_exposed_in_span_ns = 0;
  // Blocking copies: a synchronous cudaMemcpy, or a cudaMemcpyAsync whose copy touches pageable
  // host memory (the call returns only once the data is staged), whatever its size (a small
  // DtoH `.item()`-style read included). Host time inside those calls, and the copy's own wait:
  // the part of the calls (a union over threads) inside the span while no GPU op runs on any
  // stream, which is what trace.pageable_copies judges.
  uint64_t blocking_copies = 0;
  int64_t blocking_copy_ns = 0;
  int64_t blocking_copy_in_span_ns = 0;       // clipped to the span
  int64_t blocking_copy_max_ns = 0;           // the longest single call
  int64_t blocking_copy_idle_in_span_ns = 0;  // clipped to the span, while the GPU idles
  int64_t blocking_copy_idle_max_ns = 0;      // the largest GPU-idle part of a single call
  // Blocking DtoH calls that wait for the GPU: the part of each call while some other GPU op
  // runs (the copy queues behind the stream's work, an implicit sync; the GPU loses nothing).
  uint64_t dtoh_gpu_waits = 0;   // calls with such a wait
  int64_t dtoh_gpu_wait_ns = 0;  // their summed GPU-busy part
  int64_t dtoh_gpu_wait_max_ns = 0;
  uint64_t dtoh_gpu_wait_max_bytes = 0;  // the longest one's copy size
  std::string dtoh_gpu_wait_call;        // the longest one's runtime call ("cudaMemcpyAsync")
  std::string dtoh_gpu_wait_behind;      // the GPU op it queued behind (last before it on its
                                         // stream); "" when none
  std::vector<SyncKindStat> syncs;       // device, stream, event, memcpy (synchronous copies)
  int64_t sync_ns = 0;                   // host time blocked in all of them
  int64_t sync_in_span_ns = 0;           // the part of it inside the temporal breakdown's span
  // The part of sync_in_span_ns (as a union over threads) during which no GPU op runs on any
  // stream: the host waits and the GPU has nothing to do (what sync_stalls judges). A sync while
  // the GPU is busy costs the GPU nothing.
  int64_t sync_idle_in_span_ns = 0;
  // Small DtoH copies (`.item()`) by a synchronous cudaMemcpy, or a cudaMemcpyAsync followed by
  // a stream/device sync on the same thread; host time in the copy call and that sync.
  uint64_t scalar_reads = 0;
  int64_t scalar_read_ns = 0;
};

// Communication/computation overlap as HTA's get_comm_comp_overlap: the share of communication
// kernel time during which a computation kernel also runs. Communication is every kernel gpuvet
// recognises as such (NCCL/RCCL as HTA, plus DeepEP, NVSHMEM, MSCCL, custom all-reduce…).
// Communication kernels of one kind ("nccl", "deepep", "nvshmem", …; see CommunicationKind).
struct CommKindTime {
  std::string kind;
  uint64_t count = 0;
  int64_t time_ns = 0;  // sum of durations
};

struct CommOverlap {
  int64_t comm_ns = 0;              // union of communication kernels
  int64_t overlapped_ns = 0;        // part of it overlapped by computation kernels
  double overlap_pct = 0;           // overlapped / comm
  int64_t exposed_ns = 0;           // comm_ns − overlapped_ns
  std::vector<CommKindTime> kinds;  // by descending time
};

// One profiler step: host range and what the GPU did inside it.
struct StepStat {
  std::string name;
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  int64_t gpu_busy_ns = 0;  // union of GPU ops clipped to the step
  double busy_pct = 0;
  double idle_pct = 0;
};

// A bottleneck label in the shared vocabulary with the share of the span it explains.
struct TraceVerdict {
  // host_cpu_bound, launch_bound, transfer_bound, comm_bound, compute_bound, idle;
  // no_gpu_activity for a CPU-only rank; insufficient_data for a window too short to judge; for a
  // counter-mode trace memory_bound/compute_bound (roofline) or counters_only when its counters
  // cannot place the kernels. Always set by RankVerdict/OverallVerdict.
  Bottleneck label = Bottleneck::kNone;
  double share_pct = 0;    // share of the GPU span (counter mode: of the roofline time) the
                           // label accounts for
  std::string confidence;  // "high", "medium", "low"
  std::string reason;      // one line
  // What share_pct is of: "gpu_span", "roofline_time" or "trace_window" (startup).
  std::string share_of = "gpu_span";
};

// One kernel (by name) of a CUPTI range-profiler trace, placed on the roofline.
struct KernelCounterStat {
  std::string name;
  uint64_t ranges = 0;  // profiled instances
  double flops = 0;     // FP64 + FP32 + FP16 operations from SASS instruction counts (FMA = 2)
  std::optional<double> dram_bytes;  // read + write
  std::optional<double> intensity;   // FLOP per DRAM byte
  // memory_bound or compute_bound; nullopt when the kernel cannot be placed.
  std::optional<Bottleneck> bound;
  double flop_share_pct = 0;  // of all profiled FLOPs
};

// The counters of a CUPTI range-profiler (counter-mode) trace. ranges == 0 for a normal trace.
struct CounterStats {
  uint64_t ranges = 0;
  uint64_t kernels = 0;              // distinct kernel names
  std::vector<std::string> metrics;  // distinct counter names, sorted
  bool has_flops = false;            // any smsp__sass_thread_inst_executed_op_* counter
  double flops_fp64 = 0;
  double flops_fp32 = 0;
  double flops_fp16 = 0;
  bool has_dram = false;  // dram__bytes_read/write.sum or dram__bytes.sum
  double dram_bytes = 0;
  std::string gpu_name;  // from the trace ("" unknown)
  std::string gpu_spec;  // spec row used for the ridge point, "" when the GPU is not known
  double ridge_flop_per_byte = 0;  // FP32 peak / memory bandwidth; 0 unknown
  uint64_t memory_bound_kernels = 0;
  uint64_t compute_bound_kernels = 0;
  // Share of the profiled kernels' roofline time (max(FLOPs / peak, bytes / bandwidth), summed)
  // spent in memory-bound kernels; set only when kernels could be placed.
  std::optional<double> memory_bound_time_pct;
  std::vector<KernelCounterStat> top;  // by FLOPs, then DRAM bytes; at most 10
};

// One kind of one-time start-up work found in the window ("CUDA-graph capture", "first launch").
struct StartupWork {
  std::string kind;
  uint64_t count = 0;
  int64_t time_ns = 0;  // union of its host intervals inside the window
};

// Start-up detection: the share of the window (first to last GPU op or runtime call) the host
// spends in one-time work: stream/event creation, module loads, allocations, CUDA-graph capture
// and instantiation, first launches of a kernel over a threshold, NCCL communicator set-up.
struct StartupStats {
  bool detected = false;  // share_pct >= TraceThresholds::startup_pct
  int64_t window_ns = 0;
  int64_t one_time_ns = 0;        // union of every kind's intervals
  double share_pct = 0;           // one_time_ns / window_ns
  int64_t end_ns = 0;             // end of the last one-time interval: steady state starts after it
  std::vector<StartupWork> work;  // by time, descending
  // The verdict on what follows end_ns (set when detected): insufficient_data when too little.
  TraceVerdict steady;
};

// Who holds the GPU while it idles: each gap of the merged GPU timeline inside the span is
// attributed, exclusively and in this order, to host synchronisation calls, the DataLoader, the
// optimizer (step and zero_grad), or the rest (Python and framework work between kernels).
struct HostAttribution {
  bool has_phases = false;             // the trace marks DataLoader or optimizer ops
  uint64_t steps = 0;                  // profiler steps measured
  int64_t step_ns = 0;                 // their summed duration
  int64_t dataloader_in_steps_ns = 0;  // DataLoader host time inside them
  double dataloader_step_pct = 0;      // of step time (the TensorBoard plugin's overview share)
  double dataloader_max_step_pct = 0;  // the worst single step
  double optimizer_step_pct = 0;       // optimizer step + zero_grad, of step time
  int64_t idle_ns = 0;                 // GPU idle inside the span
  int64_t sync_idle_ns = 0;
  int64_t dataloader_idle_ns = 0;
  int64_t optimizer_idle_ns = 0;
  int64_t other_idle_ns = 0;
};

// Device work the trace records in a form gpuvet cannot analyse, by category.
struct UnsupportedDevice {
  std::string category;
  std::string device;
  uint64_t events = 0;
};

struct RankAnalysis {
  std::string source;
  std::string format;
  std::string subject;  // "rank N" or the file name
  int rank = -1;
  int world_size = -1;
  std::string device_type;
  bool has_gpu_ops = false;
  bool truncated = false;
  uint64_t events_seen = 0;
  uint64_t input_bytes = 0;
  // What tells a rank whose GPU side was not captured from a CPU-only one: runtime calls that
  // enqueue GPU work (launches, graph launches, copies, memsets), events only the PyTorch
  // profiler writes (RankTrace::profiler_events) and the profiler's own note on the capture.
  uint64_t gpu_work_calls = 0;
  uint64_t profiler_events = 0;
  std::string gpu_capture_note;
  std::vector<std::string> warnings;
  TemporalBreakdown temporal;
  std::vector<StreamIdle> idle;  // sorted by (device, stream)
  // The same categories for the gaps of the merged timeline (every stream and device): time
  // nothing ran at all, sorted by why. Its total is temporal.idle_ns; device/stream are -1.
  StreamIdle gpu_idle;
  KernelBreakdown kernels;
  LaunchStats launch;
  CopyStats copies;
  CommOverlap overlap;
  std::vector<StepStat> steps;
  CounterStats counters;
  StartupStats startup;
  HostAttribution host;
  std::vector<UnsupportedDevice> unsupported;
  // The analysis of the steady state after start-up (one element when startup.detected and the
  // rest holds GPU work), whose findings replace the whole window's.
  std::vector<RankAnalysis> steady_state;
  TraceVerdict verdict;
  std::string gpu_name;  // the trace's deviceProperties name; "" when it gives none
  // The window's time budget for the upgrade forecast; filled only when TraceOptions asks.
  TimeBudget budget;
};

// How often each rank started the compared collective last (HTA's late-start straggler metric).
struct RankLateness {
  int rank = -1;
  uint64_t late_count = 0;    // steps in which this rank started the collective last
  int64_t mean_delay_ns = 0;  // mean start delay behind the earliest rank over compared steps
};

// One run among the inputs: traces that share a world size and a device class, overlap in time
// and claim distinct ranks.
struct TraceRun {
  int world_size = -1;
  std::string device;  // "NVIDIA A100-SXM4-80GB (cuda)"
  std::vector<int> ranks;
  std::vector<std::string> sources;
  int64_t start_ns = 0;  // first to last event of its traces, on the traces' clock
  int64_t end_ns = 0;
  uint64_t steps = 0;        // profiler steps over its ranks
  int64_t mean_step_ns = 0;  // 0 when no rank marks steps
};

struct CrossRank {
  int world_size = -1;       // from the traces; -1 unknown
  int64_t mean_step_ns = 0;  // mean step (or GPU span) over the compared ranks
  std::vector<int> ranks_present;
  std::vector<int> missing_ranks;  // 0..world_size-1 without a trace
  // Ranks claimed by more than one input (two runs compared, not one run's ranks), with the
  // sources that claim each; no straggler comparison is made when there are any.
  std::vector<std::pair<int, std::vector<std::string>>> duplicate_ranks;
  std::string collective;  // kernel name compared across ranks ("" when none)
  uint64_t steps_compared = 0;
  std::vector<RankLateness> lateness;  // by rank
  std::vector<int> stragglers;
  // The runs the inputs form; more than one means no cross-rank comparison was made.
  std::vector<TraceRun> runs;
  // A straggler candidate whose delay exceeded a whole mean step: the clocks of the ranks do not
  // line up, so no straggler is named.
  bool clocks_disagree = false;
};

struct TraceReport {
  std::vector<RankAnalysis> ranks;  // in input order
  CrossRank cross;
  std::vector<Finding> findings;  // area "trace"
  TraceVerdict verdict;           // overall, over all ranks
  Severity worst = Severity::kOk;
  // `trace --target`: one forecast per rank with GPU work, in rank order (empty without it).
  std::vector<UpgradeForecast> forecasts;
};

}  // namespace gpuvet
