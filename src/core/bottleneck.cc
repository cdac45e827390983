// The bottleneck table (see bottleneck.h). Keep it sorted by id (a test checks). Thresholds quoted
// in the evidence are the defaults of AnalyzeThresholds (analysis/recording/recording_options.h)
// and TraceThresholds (analysis/trace/trace_options.h); the decisions are the `decision` texts of
// `gpuvet analyze` and must not change without a golden update.
#include "core/bottleneck.h"

#include <ostream>
#include <utility>

namespace gpuvet {

namespace {

using B = Bottleneck;
using S = Subcase;
// The severity column's values (see BottleneckInfo::severity).
constexpr Severity kOk = Severity::kOk;
constexpr Severity kInfo = Severity::kInfo;
constexpr Severity kWarn = Severity::kWarn;
constexpr Severity kFail = Severity::kFail;
constexpr Severity kUnknown = Severity::kUnknown;

constexpr std::string_view kCpuSaturatedDecision =
    "The host CPUs cannot prepare data fast enough: move decode/tokenisation off the critical path "
    "(GPU decode, precomputed features), use more or faster cores local to the GPU's NUMA node; a "
    "faster GPU would not help.";
constexpr std::string_view kStorageDecision =
    "Storage cannot deliver the input fast enough: cache the dataset on local NVMe, increase "
    "read-ahead and loader parallelism, or move to a faster tier.";
constexpr std::string_view kLaunchDecision =
    "The GPU is nominally busy with tiny kernels: batch more work per kernel, fuse ops "
    "(torch.compile), capture the step in a CUDA graph and remove per-step synchronisation; a "
    "faster GPU makes this worse, not better.";
constexpr std::string_view kNotLimitedDecision =
    "Nothing to fix here: the GPU is not the limit and nothing waits.";
constexpr std::string_view kPeriodicDecision =
    "Make the periodic work asynchronous: write checkpoints in a background thread to local disk "
    "then upload, evaluate less often or on another GPU, and batch logging.";
constexpr std::string_view kLeakDecision =
    "Memory grows without bound: find the growing cache or reference (tracemalloc, "
    "torch.cuda.memory_snapshot), bound caches, or recycle workers before it runs out.";
constexpr std::string_view kPowerCapDecision =
    "The GPU runs into its power limit and lowers clocks: check the limit against the board "
    "default (`gpuvet check --only power`) and raise it if it was lowered.";

constexpr BottleneckInfo kBottlenecks[] = {
    {B::kCommBound, S::kNone, "comm_bound", "trace", kWarn, 7, "GPU waiting on communication",
     "Collective communication (NCCL/RCCL, MSCCL, NVSHMEM, DeepEP dispatch/combine, "
     "symmetric-memory and inference engines' custom all-reduce kernels, or kernels the profiler "
     "tags as collectives) not overlapped by compute takes a large share of the GPU span: "
     "ranks wait on each other or on the network. Idle with no host or launch cause next to "
     "exposed communication counts here too.",
     "Exposed communication (communication kernels minus their overlap with compute) >= 20 % of "
     "the GPU span.",
     "Overlap communication with compute (bucketed all-reduce, FSDP prefetch), check the "
     "interconnect (NVLink/InfiniBand health, NCCL topology) and look for straggler ranks."},
    {B::kCommBound, S::kNetwork, "comm_bound/network", "analyze", kWarn, 7,
     "GPUs waiting on the network",
     "The GPUs idle while the workload's InfiniBand/RoCE ports run near their line rate or signal "
     "congestion: the ranks wait for all-reduce traffic between nodes, not for data or the host.",
     "GPU activity < 50 % with the busiest ACTIVE RDMA port (recorded by `gpuvet record`) at "
     ">= 60 % of its rate in either direction, or >= 500 congestion notification packets (CNPs, "
     "sent + handled) per second across the ports.",
     "The job is bound by inter-node bandwidth: overlap communication with compute (bucketed "
     "all-reduce, FSDP prefetch), cut what crosses the network (gradient compression, larger "
     "per-node batches, hierarchical or tensor-parallel-within-node layouts), check that every "
     "rail is used (`NCCL_IB_HCA`, one HCA per GPU) and, under congestion, the fabric's adaptive "
     "routing and ECN/PFC settings."},
    {B::kComputeBound, S::kNone, "compute_bound", "analyze, trace", kOk, 2, "GPU busy with compute",
     "The GPU is doing the work and nothing upstream waits: the job is limited by the GPU itself, "
     "which is where it should be. A counter-mode trace says so when most of the kernels' "
     "roofline time lies above the ridge point.",
     "Recording: GPU activity >= 50 % with none of stalled, throttled, transfer_bound or "
     "memory_bound, and evidence that nothing upstream held it back: host figures, GPM SM "
     "activity or board power >= 60 % of the limit (GPU-Util alone: busy >= 90 %, confidence "
     "low). "
     "Trace: no bottleneck threshold crossed (compute share of span >= 60 % for confidence above "
     "low); counter mode: >= 50 % of roofline time in kernels above the ridge point.",
     "The GPU itself is the limit, which is where it should be: lower precision on tensor cores, "
     "fused kernels or a faster GPU speed this job up."},
    {B::kCountersOnly, S::kNone, "counters_only", "trace", kUnknown, 7,
     "Kernel counters, no timeline",
     "A counter-mode trace (CUPTI range profiler) whose counters cannot place the kernels on the "
     "roofline: no DRAM byte or FLOP counters, or a GPU missing from the spec table. It has no "
     "timeline, so no idle, launch or copy label applies.",
     "A trace with profiled kernel ranges and no GPU timeline, lacking DRAM bytes, FLOP counts or "
     "a "
     "known ridge point.",
     "Add dram__bytes_read.sum, dram__bytes_write.sum and the SASS add/mul/fma counters to "
     "profiler_metrics, and take a normal (timeline) trace for idle, launch and copy analysis."},
    {B::kCpuFallback, S::kNone, "cpu_fallback", "analyze", kWarn, 5, "Job runs on the CPU",
     "The workload never appears on a GPU while the GPUs idle and the workload keeps a CPU core "
     "busy: it silently fell back to the CPU.",
     "The whole recording: no workload process on any GPU, GPU activity <= 5 % and workload CPU >= "
     "50 % of one core (>= 25 % when PSI cpu >= 20 %).",
     "The job runs on the CPU: check that it sees a GPU (CUDA_VISIBLE_DEVICES, container GPU "
     "runtime, device permissions), that the framework build has CUDA, and that the model is moved "
     "to the device; do not scale up."},
    {B::kGpuImbalance, S::kNone, "gpu_imbalance", "analyze", kWarn, 7, "One GPU unlike the others",
     "One GPU of the node behaves unlike the other GPUs of the workload while they work: it "
     "idles, runs slower, hotter or more throttled, or is the one always busy. In synchronous "
     "multi-GPU training every step waits for the slowest rank, so one GPU sets the pace of all.",
     "Among >= 3 workload GPUs, over the samples where most of them are busy: one GPU's activity, "
     "SM clock, temperature or slowdown share is far from the median of the others (thresholds "
     "in the sub-cases).",
     "Look at that GPU: `gpuvet check` for its throttle reasons, PCIe link and errors, its "
     "cooling and power; in a data-parallel job check that the work is split evenly across "
     "ranks."},
    {B::kGpuImbalance, S::kHotGpu, "gpu_imbalance/hot_gpu", "analyze", kWarn, 7, "One GPU hotter",
     "One GPU runs much hotter than the others under the same work: its cooling (fan, airflow, "
     "heatsink, liquid loop) is worse. It has not lost clock yet, but it will throttle first.",
     "Mean temperature while busy >= 10 C above the median of the other GPUs, SM clock within "
     "10 % of theirs.",
     "Check that GPU's airflow and cooling (blocked inlet, failed fan, liquid-loop flow) before "
     "it throttles; compare its slot's inlet temperature."},
    {B::kGpuImbalance, S::kIdleGpu, "gpu_imbalance/idle_gpu", "analyze", kWarn, 7,
     "One GPU idle while the others work",
     "One GPU of the workload stays idle while the others are busy: it was not given work (a "
     "rank that died or waits, a wrong device mapping), or its process hangs.",
     "Activity < 20 % while the median of the other GPUs is >= 50 %, for >= 10 % of the run.",
     "Check which process should run on that GPU (`nvidia-smi`, the job's rank-to-device "
     "mapping, CUDA_VISIBLE_DEVICES), whether that rank is alive, and its log."},
    {B::kGpuImbalance, S::kSlowGpu, "gpu_imbalance/slow_gpu", "analyze", kWarn, 7,
     "One GPU clocked lower",
     "One GPU runs at a lower SM clock than the others under the same work (power cap, thermal or "
     "hardware slowdown, or a lower clock setting): every synchronous step waits for it.",
     "Mean SM clock while busy >= 10 % below the median of the other GPUs, or slowdown reasons "
     "active >= 30 points more of its busy time than theirs.",
     "Fix that GPU's throttle cause (`gpuvet check`: thermal, power cap, HW slowdown, application "
     "clocks), or exclude it from the job until it is repaired."},
    {B::kGpuImbalance, S::kStraggler, "gpu_imbalance/straggler", "analyze", kWarn, 7,
     "One GPU busier than the others",
     "One GPU is busy while the others wait: in synchronous training the others idle in "
     "collectives until the straggler finishes. It has more work (uneven shards, a rank that "
     "also does logging or evaluation) or does it slower.",
     "Activity >= 25 points above the median of the other GPUs while they are below 80 %.",
     "Balance the work across ranks (even shards, move evaluation and logging off rank 0) and "
     "check the straggler's clock and PCIe link."},
    {B::kHostCpuBound, S::kNone, "host_cpu_bound", "analyze, trace", kWarn, 5,
     "GPU waiting on the host CPU",
     "The GPU is starved because the host does not prepare or enqueue work fast enough: data "
     "loading, preprocessing, Python overhead or a CPU limit.",
     "Recording: GPU activity < 50 % with a CPU cause (see the sub-cases). Trace: GPU idle >= 20 % "
     "of the span with >= 50 % of the idle time waiting on the host, and not launch_bound.",
     "The host does not feed the GPU fast enough: find what it spends the time on (data loader "
     "workers, decode or tokenisation, per-step Python), move that work off the critical path "
     "(more loader workers, pinned-memory prefetch, GPU decode, torch.compile or CUDA graphs to "
     "cut per-step Python) and use cores local to the GPU's NUMA node; a faster GPU would not "
     "help."},
    {B::kHostCpuBound, S::kCpuQuota, "host_cpu_bound/cpu_quota", "analyze", kWarn, 5,
     "GPU waiting on the job's CPU quota",
     "The workload's cgroup CPU quota holds it back: the job could use more CPU than it may, and "
     "the GPU waits.",
     "GPU activity < 50 % and cgroup throttling >= 10 % of periods, or the workload uses >= 90 % "
     "of its CPU quota.",
     "Raise the job's CPU limit (cgroup cpu.max, Kubernetes limits.cpu, Slurm --cpus-per-task) to "
     "match the GPU's appetite; a faster GPU would not help."},
    {B::kHostCpuBound, S::kCpuSaturated, "host_cpu_bound/cpu_saturated", "analyze", kWarn, 5,
     "GPU waiting on saturated host CPUs",
     "Every CPU of the host is busy (or tasks queue for one): the host cannot prepare data as fast "
     "as the GPU consumes it.",
     "GPU activity < 50 % and host CPU >= 85 %, half the cores pegged (>= 90 %), or PSI cpu "
     "\"some\" >= 20 %.",
     kCpuSaturatedDecision},
    {B::kHostCpuBound, S::kSingleThreadFeeder, "host_cpu_bound/single_thread_feeder", "analyze",
     kWarn, 5, "GPU fed by one pegged thread",
     "One workload thread is pegged at a full core while the host has CPUs to spare: the job feeds "
     "the GPU from a single thread (the Python main loop, one data loader).",
     "GPU activity < 50 %, the busiest workload thread >= 90 % of a core, and the host not "
     "saturated.",
     "One thread feeds the GPU: add data-loader workers (num_workers), move decode and "
     "augmentation to worker processes or the GPU (DALI), or cut per-step Python (torch.compile, "
     "CUDA graphs); a faster GPU would not help."},
    {B::kHostIoBound, S::kNone, "host_io_bound", "analyze", kWarn, 1, "GPU waiting on storage",
     "The GPU is starved because input does not arrive from storage fast enough.",
     "GPU activity < 50 % with a storage cause (see the sub-cases); the workload's own reads must "
     "reach 1 MiB/s when they are known, else the wait is another tenant's.",
     kStorageDecision},
    {B::kHostIoBound, S::kSmallFiles, "host_io_bound/small_files", "analyze", kWarn, 1,
     "GPU waiting on many small files",
     "The input is many small files: metadata latency (open, stat, short reads), not bandwidth, "
     "starves the GPU.",
     "GPU activity < 50 % and the workload's average read < 64 KiB with >= 50 opens/s or >= 500 "
     "reads/s.",
     "Many small files starve the GPU through metadata latency: shard the dataset into larger "
     "files (tar/WebDataset, TFRecord, LMDB) or stage it on local NVMe before the job."},
    {B::kHostIoBound, S::kStorage, "host_io_bound/storage", "analyze", kWarn, 1,
     "GPU waiting on storage bandwidth",
     "Tasks wait on storage: the dataset's tier cannot deliver the input fast enough.",
     "GPU activity < 50 % and iowait >= 10 %, PSI io >= 20 % or a disk >= 80 % busy.",
     kStorageDecision},
    {B::kIdle, S::kNone, "idle", "analyze, trace", kInfo, 7, "No work given to the GPU",
     "The GPU is idle and nothing on the host is busy, or (in a trace) idle without a dominant "
     "cause: no work is being given to the GPU.",
     "Recording: GPU activity < 5 % with the host idle, or a CPU-fallback-shaped run whose "
     "workload is not busy. Trace: GPU idle >= 20 % of the span with no host, launch or "
     "communication cause.",
     "Nothing is given to the GPU: check whether the job is still starting, waiting on another "
     "service, or has finished its work."},
    {B::kIdle, S::kNoHostData, "idle/no_host_data", "analyze", kInfo, 7,
     "Starved GPU, cause not recorded",
     "The GPU idles part of the time but the recording holds GPU figures only (an import of "
     "nvidia-smi logs): "
     "the starvation is visible, its cause is not.",
     "No host CPU, iowait or workload figures in the window and GPU activity < 50 %, or busy < "
     "90 % with neither GPM nor board power >= 60 % of the limit showing it saturated; "
     "confidence low.",
     "Record the job with `gpuvet record` (host CPU, iowait, threads, reads) to see what the GPU "
     "waits on; GPU figures alone show the starvation, not its cause."},
    {B::kInsufficientData, S::kNone, "insufficient_data", "trace", kUnknown, 7,
     "Too little GPU activity",
     "The analysed window holds too little GPU time to say anything about the workload.",
     "GPU span of the analysed window < 100 us.",
     "Trace a longer window covering a few complete steps (skip the first steps of start-up)."},
    {B::kLaunchBound, S::kNone, "launch_bound", "analyze, trace", kWarn, 6,
     "Bound by kernel launches",
     "The GPU waits between tiny kernels: launch overhead and per-step synchronisation, not GPU "
     "speed, set the pace.",
     "Trace: GPU idle >= 20 % of the span, >= 50 % of kernels shorter than their launch and >= 50 "
     "% "
     "of idle in gaps < 50 us. Recording: see launch_bound/busy_not_productive.",
     kLaunchDecision},
    {B::kLaunchBound, S::kBusyNotProductive, "launch_bound/busy_not_productive", "analyze", kWarn,
     6, "GPU nominally busy, SMs idle",
     "Kernels are resident (GPU-Util high) while the SMs stay mostly idle: tiny kernels or "
     "per-step synchronisation keep the GPU nominally busy.",
     "GPM: GPU-Util >= 80 % while SM activity < 50 %. Without GPM: GPU-Util >= 80 % while board "
     "power < 35 % of its limit (GPU-Util overstates the load; confidence low).",
     kLaunchDecision},
    {B::kMemoryBound, S::kNone, "memory_bound", "analyze, trace", kWarn, 4,
     "Bound by memory bandwidth",
     "Kernels are limited by device memory bandwidth rather than arithmetic.",
     "Recording: GPU activity >= 50 % and GPM DRAM bandwidth >= 60 % with tensor activity < 30 % "
     "(without GPM: NVML memory utilisation >= 70 %, confidence at most medium). Counter-mode "
     "trace: >= 50 % of roofline time in kernels below the ridge point.",
     "Kernels are limited by memory bandwidth: fuse memory-bound ops, use lower precision "
     "(BF16/FP8) to move fewer bytes; a GPU with more memory bandwidth (H200, B200) helps, more "
     "FLOPS alone does not."},
    {B::kMemoryLeak, S::kNone, "memory_leak", "analyze", kFail, 1, "Memory grows without bound",
     "A workload process's RSS or a GPU's memory in use grows steadily over the run and will run "
     "out.",
     "A least-squares fit of memory over >= 120 s with r2 >= 0.8 that grows >= 10 % of its start "
     "and >= 64 MiB (see the sub-cases for which memory).",
     kLeakDecision},
    {B::kMemoryLeak, S::kGpuMemory, "memory_leak/gpu_memory", "analyze", kFail, 1,
     "GPU memory grows", "Memory in use on a workload GPU grows steadily.",
     "The GPU's memory-used series passes the memory_leak fit; time to OOM from the GPU's total.",
     kLeakDecision},
    {B::kMemoryLeak, S::kHostRss, "memory_leak/host_rss", "analyze", kFail, 1, "Host RSS grows",
     "The resident memory of a workload process grows steadily.",
     "The process's RSS series passes the memory_leak fit; time to OOM from MemAvailable.",
     kLeakDecision},
    {B::kNoGpuActivity, S::kNone, "no_gpu_activity", "trace", kUnknown, 7, "No GPU operations",
     "The trace (or rank) holds no GPU operations: a CPU-only process, or one that never reached "
     "the GPU.",
     "No kernel, copy or memset in the trace and no profiled kernel ranges.",
     "Check that the process saw a GPU (CUDA_VISIBLE_DEVICES, device placement); a CPU-only rank "
     "of a job has no GPU work to judge."},
    {B::kNone, S::kNone, "none", "analyze", kOk, 7, "Not limited",
     "The GPU is not the limit and nothing waits: a light job that is still fast, or a window with "
     "no GPU activity readings. Not a bottleneck.",
     "GPU activity < 50 % with no host, storage, copy or launch cause and activity >= 5 %; or no "
     "activity readings at all (confidence low).",
     kNotLimitedDecision},
    {B::kNone, S::kBursty, "none/bursty", "analyze", kOk, 7, "Bursty, waiting for work",
     "The GPU works in bursts with the host idle between them: a server between requests, a job "
     "that waits for work, not for a resource.",
     "As none, with >= 20 % of samples switching between busy and trough.", kNotLimitedDecision},
    {B::kPeriodicStall, S::kNone, "periodic_stall", "analyze", kWarn, 3,
     "GPU stalls at a regular period",
     "GPU activity drops at a regular period inside an otherwise busy run: checkpoints, "
     "evaluation or logging that the training loop waits for.",
     "Median activity >= 50 % and >= 3 troughs below 50 % whose start-to-start intervals agree "
     "within 15 %, each shorter than half the period.",
     kPeriodicDecision},
    {B::kPeriodicStall, S::kInputBursts, "periodic_stall/input_bursts", "analyze", kWarn, 3,
     "Input arriving in bursts",
     "GPU activity alternates between short busy bursts and idle gaps at a fixed period of a few "
     "seconds: each batch arrives, the GPU consumes it quickly and waits for the next. The input "
     "pipeline delivers in bursts (a loader with too few workers or no prefetch, synchronous "
     "reads) and the GPU idles for the rest of each cycle.",
     "GPU activity alone: >= 8 busy bursts whose start-to-start intervals stay within one sample "
     "of their mean (a period of 2 to 60 samples), busy and idle levels >= 30 points apart, busy "
     "share of each cycle < 80 %.",
     "Overlap input with compute: more DataLoader workers, `prefetch_factor`, pinned memory and "
     "non-blocking copies, asynchronous reads; record the job with `gpuvet record` to see whether "
     "the CPU, storage or a single thread paces the bursts."},
    {B::kPeriodicStall, S::kKernelEvent, "periodic_stall/kernel_event", "analyze", kWarn, 3,
     "Periodic stalls with a kernel event",
     "The periodic stalls coincide with a kernel log event recorded during the run (a hung task, "
     "I/O errors, an Xid): the loop waits on what the kernel reports, not on its own work.",
     "As periodic_stall, with an event of the same kind and subject in the kernel log within two "
     "intervals of at least half of the stalls (and at least two).",
     "Follow the kernel event first: a hung task names the process and the wait (`cat "
     "/proc/PID/stack`), I/O errors name the device (`smartctl`, `nvme smart-log`, replace it), "
     "an Xid names the GPU (`gpuvet check`); tuning the job cannot remove these stalls."},
    {B::kPeriodicStall, S::kNfsOutage, "periodic_stall/nfs_outage", "analyze", kWarn, 3,
     "Periodic stalls while NFS does not answer",
     "The periodic stalls coincide with `nfs: server … not responding` in the kernel log: the job "
     "blocks on an NFS server that stops answering, typically while it writes or reads "
     "checkpoints there.",
     "As periodic_stall, with `nfs: server X not responding` within two intervals of at least "
     "half of the stalls (and at least two).",
     "Fix the storage path, not the job: check the NFS server's load and network at those times "
     "(`nfsstat -c`, `mountstats`, the server's logs), write checkpoints to local disk and copy "
     "them off asynchronously, or move the job's data to storage that keeps up."},
    {B::kPeriodicStall, S::kWriteBurst, "periodic_stall/write_burst", "analyze", kWarn, 3,
     "Periodic stalls with disk writes",
     "The periodic stalls coincide with a burst of disk writes: the loop waits for a checkpoint "
     "to be written.",
     "As periodic_stall, with disk writes during the stalls >= 1 MB/s and >= 3x the rate outside "
     "them.",
     kPeriodicDecision},
    {B::kStalled, S::kNone, "stalled", "analyze", kFail, 1, "GPU pinned busy, nothing moving",
     "A kernel or collective is not progressing: GPU-Util stays pinned high while the board draws "
     "near-idle power and no memory or link traffic moves. The typical shape of a hung NCCL "
     "collective (a rank that never joined it, a deadlock) or a kernel spinning on a flag. No "
     "speedup or faster GPU applies to it.",
     "GPU-Util >= 80 % while board power <= 25 % of its limit, memory utilisation and GPM DRAM "
     "bandwidth <= 2 %, PCIe <= 1 % of the link and NVLink <= 100 MB/s per GPU where recorded, "
     "for >= 120 s. Needs power readings and the power limit.",
     "A kernel or collective is not progressing: dump the stacks (py-spy dump --pid, the "
     "torch.distributed flight recorder with TORCH_NCCL_TRACE_BUFFER_SIZE, NCCL_DEBUG=INFO) and "
     "find the rank that is not in the collective; a faster GPU would not help."},
    {B::kStartup, S::kNone, "startup", "trace", kInfo, 7, "Start-up, not steady state",
     "The traced window is dominated by one-time work: stream, event and module creation, "
     "allocations, NCCL set-up, first launches that load code, CUDA-graph capture. It says how "
     "long start-up takes, not how the job runs; the idle it shows is not a host bottleneck.",
     "Trace: one-time host work (union of those calls, graph capture from begin to end capture, "
     "first launches of a kernel >= 1 ms) >= 50 % of the window from the first to the last GPU op "
     "or runtime call. The verdict on what follows it is reported beside the label.",
     "Profile later steps, after warm-up: torch.profiler.schedule(wait=N, warmup=1, active=3) with "
     "wait past start-up (and past CUDA-graph capture or torch.compile), so the window holds "
     "steady-state steps."},
    {B::kThrottled, S::kNone, "throttled", "analyze", kWarn, 5, "GPU clocks held down",
     "The GPU is doing the work but its clocks are held down by its power limit, heat or a "
     "hardware slowdown.",
     "GPU activity >= 50 %, slowdown reasons active >= 50 % of busy time and the SM clock >= 10 % "
     "below its maximum (run level: a slowdown reason >= 10 % of a GPU's busy time).",
     kPowerCapDecision},
    {B::kThrottled, S::kHwSlowdown, "throttled/hw_slowdown", "analyze", kWarn, 5,
     "Hardware slowdown",
     "Hardware slowdown or power brake (an external signal: PSU, power cable, BMC) lowers the "
     "clocks.",
     "As throttled, with HW slowdown the largest share of busy time.",
     "Hardware slowdown or power brake: check PSUs, power cables and BMC events; drain the node if "
     "it persists."},
    {B::kThrottled, S::kPowerCap, "throttled/power_cap", "analyze", kWarn, 5, "Power-capped clocks",
     "The GPU runs into its power limit and lowers its clocks.",
     "As throttled, with the SW power cap the largest share of busy time.", kPowerCapDecision},
    {B::kThrottled, S::kThermal, "throttled/thermal", "analyze", kWarn, 5, "Thermal throttling",
     "The GPU is hot and lowers its clocks (SW or HW thermal slowdown).",
     "As throttled, with thermal slowdown the largest share of busy time (ties go to thermal).",
     "Clocks drop because the GPU is hot: fix airflow, fan curves and inlet temperature before "
     "tuning software."},
    {B::kTransferBound, S::kNone, "transfer_bound", "analyze, trace", kWarn, 3,
     "Bound by host-device copies",
     "Host-device copies fill the PCIe link or take a large share of GPU time: the job is bound "
     "by transfers.",
     "Recording: PCIe traffic >= 60 % of the link's rate (starved or not). Trace: host-device "
     "copies not overlapped by compute >= 10 % of the GPU span.",
     "Host-device copies fill the PCIe link: pin host memory, overlap copies with compute, keep "
     "tensors resident on the GPU, and confirm the link runs at full width and generation "
     "(`gpuvet check`)."},
    {B::kUnsupportedDevice, S::kNone, "unsupported_device", "trace", kUnknown, 7,
     "Accelerator events gpuvet cannot analyse",
     "The trace records an accelerator (MTIA, HPU, XPU, PrivateUse1) in events that are not a "
     "device timeline gpuvet can read (host-side runtime events only, insight or counter "
     "samples). The rank is not CPU-only: its device work is just not in an analysable form.",
     "Trace: no kernel, copy or memset events, and events of an accelerator category (hpu_op, "
     "mtia_insight, mtia_counters, xpu_runtime, privateuse1_runtime, …); the finding names the "
     "category and its event count.",
     "Analyse the device side with the vendor's profiler (Gaudi: habana profiler; MTIA: its "
     "insight tooling), or record the device activity in Kineto (the device's activity types in "
     "torch.profiler activities) so the trace holds kernel events."},
};

// The labels `gpuvet trace` also reports as a catalogue finding of their own: the finding's
// title, meaning and decision are the label row's (core/catalogue generates the entries).
constexpr std::pair<Bottleneck, std::string_view> kTraceFindings[] = {
    {B::kCommBound, "trace.comm_bound"},
    {B::kComputeBound, "trace.compute_bound"},
    {B::kHostCpuBound, "trace.host_cpu_bound"},
    {B::kIdle, "trace.idle"},
    {B::kLaunchBound, "trace.launch_bound"},
    {B::kStartup, "trace.startup"},
    {B::kTransferBound, "trace.transfer_bound"},
    {B::kUnsupportedDevice, "trace.unsupported_device"},
};

const BottleneckInfo* LabelRow(Bottleneck label) { return FindBottleneckRow(label, S::kNone); }

const BottleneckInfo* RowOrLabel(Bottleneck label, Subcase subcase) {
  const BottleneckInfo* row = FindBottleneckRow(label, subcase);
  return row ? row : LabelRow(label);
}

// The label row of `id` when the table has no row for the whole id ("idle/other" -> "idle").
const BottleneckInfo* RowOrLabel(std::string_view id) {
  const BottleneckInfo* row = FindBottleneck(id);
  return row ? row : FindBottleneck(id.substr(0, id.find('/')));
}

}  // namespace

std::span<const BottleneckInfo> Bottlenecks() { return kBottlenecks; }

const BottleneckInfo* FindBottleneck(std::string_view id) {
  for (const BottleneckInfo& b : kBottlenecks) {
    if (b.id == id) return &b;
  }
  return nullptr;
}

const BottleneckInfo* FindBottleneckRow(Bottleneck label, Subcase subcase) {
  for (const BottleneckInfo& b : kBottlenecks) {
    if (b.label == label && b.subcase == subcase) return &b;
  }
  return nullptr;
}

std::string_view BottleneckName(Bottleneck label) {
  const BottleneckInfo* row = LabelRow(label);
  return row ? row->id : "";  // every label has a row (bottleneck_test)
}

std::string_view SubcaseName(Subcase subcase) {
  if (subcase == S::kNone) return "";
  for (const BottleneckInfo& b : kBottlenecks) {
    if (b.subcase == subcase) return b.id.substr(b.id.find('/') + 1);
  }
  return "";  // every sub-case has a row (bottleneck_test)
}

std::optional<Subcase> FindSubcase(std::string_view name) {
  for (int i = 0; i < kSubcaseCount; ++i) {
    Subcase s = static_cast<Subcase>(i);
    if (SubcaseName(s) == name) return s;
  }
  return std::nullopt;
}

std::string_view DecisionFor(Bottleneck label, Subcase subcase) {
  const BottleneckInfo* row = RowOrLabel(label, subcase);
  return row ? row->decision : "";
}

Severity LabelSeverity(Bottleneck label, Subcase subcase) {
  const BottleneckInfo* row = RowOrLabel(label, subcase);
  return row ? row->severity : Severity::kUnknown;
}

Severity LabelSeverity(std::string_view id) {
  const BottleneckInfo* row = RowOrLabel(id);
  return row ? row->severity : Severity::kUnknown;
}

bool IsBottleneck(Bottleneck label, Subcase subcase) {
  Severity s = LabelSeverity(label, subcase);
  return s == Severity::kWarn || s == Severity::kFail;
}

int LabelChartColour(std::string_view id) {
  const BottleneckInfo* row = RowOrLabel(id);
  return row ? row->chart_colour : 7;
}

std::string_view TraceFindingId(Bottleneck label) {
  for (const auto& [l, id] : kTraceFindings) {
    if (l == label) return id;
  }
  return "";
}

std::ostream& operator<<(std::ostream& os, Bottleneck label) { return os << BottleneckName(label); }

std::ostream& operator<<(std::ostream& os, Subcase subcase) { return os << SubcaseName(subcase); }

}  // namespace gpuvet
