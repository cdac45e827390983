// The trace model: what a profiler trace says happened on one rank, in plain compact structs, the
// same whether it came from a PyTorch profiler (Kineto) Chrome-trace JSON or an Nsight Systems
// SQLite export. Readers (sources/trace_*.cc) fill it; analyses (analysis/) read it. Times are
// integer nanoseconds on the trace's own clock; strings are interned once in `names` so a
// million-kernel trace costs tens of bytes per event, not the size of its JSON.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpuvet {

enum class GpuOpKind : uint8_t { kKernel, kMemcpy, kMemset };

// Direction of a copy (Kineto "Memcpy HtoD (Pageable -> Device)", nsys copyKind).
enum class CopyKind : uint8_t { kNone, kHtoD, kDtoH, kDtoD, kHtoH, kPtoP, kOther };

// Memory kind of a copy's host or device side; kPageable copies are synchronous in practice.
enum class MemKind : uint8_t { kUnknown, kPageable, kPinned, kDevice, kManaged, kArray };

// One operation executed on a GPU: a kernel, a memcpy or a memset.
struct GpuOp {
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  int64_t correlation = -1;  // id linking it to the runtime call that enqueued it; -1 unknown
  uint64_t bytes = 0;        // memcpy/memset size; 0 for kernels
  uint32_t name = 0;         // index into RankTrace::names
  int32_t device = -1;
  int32_t stream = -1;
  GpuOpKind kind = GpuOpKind::kKernel;
  CopyKind copy = CopyKind::kNone;
  MemKind src = MemKind::kUnknown;
  MemKind dst = MemKind::kUnknown;
  bool graph_launched = false;  // enqueued by a CUDA graph launch (cudaGraphLaunch)
  // A kernel the profiler tagged as a collective (Kineto args "Collective name", "Process Group
  // Name" or "Process Group Ranks" on the kernel event), whatever its name.
  bool collective = false;
};

// What a host-side CUDA/HIP runtime or driver API call does, for launch and sync analyses.
enum class RuntimeKind : uint8_t {
  kLaunch,       // cudaLaunchKernel, cudaLaunchKernelExC, cuLaunchKernel, hipLaunchKernel …
  kGraphLaunch,  // cudaGraphLaunch
  kMemcpy,       // synchronous cudaMemcpy*
  kMemcpyAsync,  // cudaMemcpy*Async
  kMemset,       // cudaMemset* (sync or async)
  kDeviceSync,   // cudaDeviceSynchronize
  kStreamSync,   // cudaStreamSynchronize
  kEventSync,    // cudaEventSynchronize, cudaStreamWaitEvent is not a host sync
  kOther,
};

// One host-side runtime/driver API call.
struct RuntimeCall {
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  int64_t correlation = -1;
  uint32_t name = 0;  // index into RankTrace::names
  int32_t tid = -1;
  RuntimeKind kind = RuntimeKind::kOther;
};

// A named host-side range: a profiler step ("ProfilerStep#12") or an NVTX/user annotation.
struct TraceRange {
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  uint32_t name = 0;
  int32_t tid = -1;
};

// A host-side phase of a training step that the host_cpu_bound verdict can name: the DataLoader
// fetching the next batch (`enumerate(DataLoader)#...`, `..DataLoaderIter.__next__`), the
// optimizer step (`Optimizer.step#...`) and gradient zeroing (`Optimizer.zero_grad#...`).
enum class HostPhaseKind : uint8_t { kDataLoader, kOptimizerStep, kZeroGrad };

// One host op of a HostPhaseKind (the reader keeps only these of all the host ops).
struct HostPhase {
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  int32_t tid = -1;
  HostPhaseKind kind = HostPhaseKind::kDataLoader;
};

// Events of an accelerator category the reader recognised but cannot turn into device activity
// (MTIA insight/counter samples, HPU host ops without device events): what `unsupported_device`
// names.
struct UnanalysedEvents {
  std::string category;  // the Kineto category as written ("mtia_insight", "hpu_op")
  std::string device;    // "mtia", "hpu", "xpu", "privateuse1"
  uint64_t events = 0;
};

// One kernel measured by the CUPTI range profiler (Kineto "cuda_profiler_range" events, from
// `experimental_config=_ExperimentalConfig(profiler_metrics=[...])`): the profiler replays each
// kernel to read its counters, so a trace in this mode has counters per kernel and no timeline.
struct CounterRange {
  uint32_t name = 0;   // kernel name, index into RankTrace::names
  uint32_t first = 0;  // first of its values in RankTrace::counter_values
  uint32_t count = 0;  // number of values
};

struct CounterValue {
  uint32_t metric = 0;  // metric name ("dram__bytes_read.sum"), index into RankTrace::names
  double value = 0;
};

struct RankTrace {
  std::string source;  // file path (or "dir/file")
  std::string format;  // "kineto-json", "kineto-json (bare list)", "nsys-sqlite"
  int rank = -1;       // distributedInfo.rank; -1 when the trace does not say
  int world_size = -1;
  // Which process/device of a multi-process Nsight export this is ("pid 4242, device 1"); ""
  // when the file (and rank) alone name it.
  std::string part;
  // "cuda", "rocm", "mtia", "xpu", "hpu", "privateuse1" (from the categories and API names);
  // "" when the trace has no device events.
  std::string device_type;
  std::vector<std::string> names;       // interned strings; names[0] == ""
  std::vector<GpuOp> gpu_ops;           // sorted by start_ns
  std::vector<RuntimeCall> runtime;     // sorted by start_ns
  std::vector<TraceRange> steps;        // profiler steps, sorted by start_ns
  std::vector<TraceRange> annotations;  // NVTX / user annotations (not steps), sorted
  std::vector<HostPhase> host_phases;   // DataLoader / optimizer host ops, sorted by start
  // Accelerator events kept only as counts, by category (first-seen order).
  std::vector<UnanalysedEvents> unanalysed;
  std::vector<CounterRange> counter_ranges;  // in trace order
  std::vector<CounterValue> counter_values;
  std::string gpu_name;      // the first device's name from Kineto deviceProperties; "" unknown
  uint64_t input_bytes = 0;  // bytes of (uncompressed) input read
  uint64_t events_seen = 0;  // events parsed, of any kind
  // Events only the PyTorch profiler writes (Kineto categories: kernel, cuda_runtime, cpu_op,
  // user_annotation, python_function, …); 0 for a plain chrome://tracing JSON. Nsight Systems
  // exports leave it 0 (format says what they are).
  uint64_t profiler_events = 0;
  // Why the GPU side of the capture is missing, as the profiler itself said it (nsys
  // DIAGNOSTIC_EVENT "No CUDA events collected…"); "" when it said nothing.
  std::string gpu_capture_note;
  // Problems that did not stop the read (a truncated file read up to the last whole event,
  // unknown categories, events with missing fields skipped), each naming file and offset/field.
  std::vector<std::string> warnings;
  bool truncated = false;  // the input ended early; results cover what was read

  const std::string& Name(uint32_t id) const { return names[id]; }
};

}  // namespace gpuvet
