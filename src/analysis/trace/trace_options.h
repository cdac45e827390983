// The knobs of `gpuvet trace`: every threshold the verdict compares against, in one struct, with
// where each default comes from. HTA's own constants keep HTA's values so that gpuvet's numbers
// can be checked against HTA's; gpuvet's judgement thresholds say why they sit where they do.
#pragma once

#include <cstdint>

namespace gpuvet {

struct TraceThresholds {
  // Idle-time breakdown: a gap shorter than this between two ops on a stream whose next launch
  // was already queued is "kernel wait" (HTA get_idle_time_breakdown consecutive_kernel_delay =
  // 30 in trace units; HTA f4d0062 keeps Kineto's microseconds, so 30 µs).
  int64_t consecutive_kernel_delay_ns = 30'000;
  // trace.idle / host_cpu_bound / launch_bound: the GPU counts as starved when idle is at least
  // this share of the span. gpuvet default: a fifth of the span; it separates the Kineto TB
  // plugin's resnet50 examples num_workers_0 (29 % idle, DataLoader-bound) and num_workers_4
  // (11 % idle, not bound).
  double idle_pct = 20;
  // host_cpu_bound: at least this share of idle (all streams) is host wait. gpuvet default:
  // host wait is then the majority cause.
  double host_wait_share_pct = 50;
  // launch_bound: at least this share of launched kernels run shorter than their launch call
  // (NVIDIA "Getting Started with CUDA Graphs": launch overhead is a few µs, comparable to short
  // kernels; gpuvet default: a majority).
  double short_kernel_pct = 50;
  // launch_bound: with that many short kernels, at least this share of idle lies in launch-sized
  // gaps: kernel wait, or host wait in gaps shorter than launch_gap_max_ns. gpuvet default: a
  // majority.
  double launch_gap_share_pct = 50;
  // launch_bound: a host-wait gap shorter than this is launch latency, not other host work.
  // gpuvet default: 50 µs, ~10× the few-µs launch cost (NVIDIA, above), far below a data-loading
  // stall.
  int64_t launch_gap_max_ns = 50'000;
  // transfer_bound: host<->device copy time (HtoD, DtoH) during which no computation kernel runs
  // on any stream is at least this share of the span. Exposed time, as comm_bound's: a copy
  // hidden behind compute costs the step nothing, and DtoD/peer copies are device-memory or
  // communication traffic, not the host link. gpuvet default: exposed copies then cost more than
  // a typical 10 % optimisation target.
  double transfer_pct = 10;
  // trace.pageable_copies: warn when copies from/to pageable memory move at least this many bytes
  // per profiler step (over the whole trace when it marks no steps) (smaller ones are
  // `.item()`-style scalar reads, reported under trace.sync_stalls). gpuvet default: 64 KiB, well
  // above a scalar read.
  uint64_t pageable_min_bytes = 64 * 1024;
  // trace.sync_stalls: host time blocked in synchronisation while no GPU op runs is at least this
  // share of the span. A sync while the GPU is busy only waits for work the GPU is doing anyway;
  // only the idle part is lost GPU time. gpuvet default: as transfer_pct, a 10 % target.
  double sync_pct = 10;
  // trace.pageable_copies: warn, whatever the bytes, when blocking copies (synchronous cudaMemcpy,
  // pageable cudaMemcpyAsync) hold the host while no GPU op runs for at least this share of the
  // span. gpuvet default:
  // half of sync_pct, because unlike a sync it is removed by pinning memory alone
  // (pin_memory=True, non_blocking=True), a one-line change.
  double blocking_copy_pct = 5;
  // `.item()`-style scalar read: a DtoH copy of at most this many bytes followed by a stream or
  // device sync on the same thread. gpuvet choice: 8 KiB covers scalars and small metric tensors.
  uint64_t scalar_read_max_bytes = 8 * 1024;
  // comm_bound: communication not overlapped by compute is at least this share of the span.
  // gpuvet default.
  double comm_exposed_pct = 20;
  // compute_bound (info): computation kernels cover at least this share of the span. gpuvet
  // default: the GPU is busy with compute most of the time.
  double compute_pct = 60;
  // trace.straggler: a collective kernel counts when it lasts at least this share of the mean step
  // (HTA straggler.py min_normalized_duration = 0.01).
  double straggler_min_normalized_duration = 0.01;
  // trace.straggler: a rank is a straggler when it starts the compared collective last in at
  // least this share of compared steps, with at least `straggler_min_steps` steps. gpuvet default.
  double straggler_late_share = 0.75;
  uint64_t straggler_min_steps = 2;
  // ... and its mean delay behind the earliest rank is at least this share of the mean step.
  // With two ranks one is always last; a few hundred µs in a 600 ms step is noise (or clock skew
  // between hosts), not a straggler. gpuvet default: 2 % of every step lost by all other ranks.
  double straggler_min_delay_share = 0.02;
  // startup: the window counts as start-up when one-time host work (see StartupStats) covers at
  // least this share of it. gpuvet default: start-up is then the majority of what was traced, so
  // no steady-state label describes the window.
  double startup_pct = 50;
  // startup: the first launch of a kernel counts as one-time work (lazy module loading, JIT)
  // when its launch call takes at least this long. gpuvet default: 1 ms, ~200× a normal launch of
  // a few µs (NVIDIA, above); a steady-state launch blocks that long only on a full queue, which
  // a first launch cannot hit.
  int64_t startup_first_launch_ns = 1'000'000;
  // Verdict confidence drops to "low" with fewer GPU ops than this or a shorter span. gpuvet
  // default: below ~100 ops or 1 ms a trace is a snapshot, not a workload.
  uint64_t min_ops_for_confidence = 100;
  int64_t min_span_for_confidence_ns = 1'000'000;
  // Below this GPU span no label is given ("insufficient_data"): a window of a few kernels says
  // nothing about a workload (a 0 µs test trace, or what is left after HTA drops the last step).
  // gpuvet default: 100 µs, a few dozen launches; a training or inference step is milliseconds.
  int64_t min_span_for_verdict_ns = 100'000;
};

struct TraceOptions {
  TraceThresholds thresholds;
  // Top kernels per kernel type, as HTA's get_gpu_kernel_breakdown lists them (duration_ratio =
  // 0.8, num_kernels = 10): every name when a type has at most `top_kernel_count`, else the
  // heaviest names within the `top_kernel_share` quantile of their running totals, at most
  // `top_kernel_count`, plus an "others" row.
  double top_kernel_share = 0.8;
  int top_kernel_count = 10;
  // Measure each window's time budget (RankAnalysis::budget) for the upgrade forecast
  // (`trace --target`); off by default, since it costs one more sweep over the GPU ops.
  bool time_budget = false;
};

}  // namespace gpuvet
