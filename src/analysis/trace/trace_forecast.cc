// Time budget sweep and the trace forecast. One class per distinct (name, collective) is decided
// once; the sweep sorts the ops' start and end events and gives each stretch of time to the
// highest-priority class running in it.
#include "analysis/trace/trace_forecast.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <initializer_list>

#include "analysis/trace/kernel_class.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

bool Has(std::string_view n, std::initializer_list<std::string_view> needles) {
  for (std::string_view x : needles) {
    if (n.find(x) != std::string_view::npos) return true;
  }
  return false;
}

// Budget slots in priority order: the first eight are tensor kernels by MathPrecision value.
enum Slot : int {
  kTensor0 = 0,
  kMemoryKernel = 8,
  kUnknownKernel,
  kDeviceCopy,
  kComm,
  kHostCopy,
  kHostCopyPageable,
  kOtherCopy,
  kSlots
};

int KernelSlot(const GpuOp& op, std::string_view name) {
  std::string_view cat = KernelCategory(op, name);
  if (cat == "communication") return kComm;
  if (cat == "memory") return kDeviceCopy;
  if (cat == "elementwise" || cat == "reduction") return kMemoryKernel;
  if (cat == "gemm" || cat == "attention") {
    std::string n = ToLower(name);
    if (Has(n, {"gemv"})) return kMemoryKernel;  // matrix-vector: bandwidth-bound by design
    return kTensor0 + static_cast<int>(KernelPrecision(n));
  }
  return kUnknownKernel;
}

int CopySlot(const GpuOp& op) {
  if (op.kind == GpuOpKind::kMemset) return kDeviceCopy;
  switch (op.copy) {
    case CopyKind::kHtoD:
    case CopyKind::kDtoH:
      return op.src == MemKind::kPageable || op.dst == MemKind::kPageable ? kHostCopyPageable
                                                                          : kHostCopy;
    case CopyKind::kDtoD:
      return kDeviceCopy;
    case CopyKind::kPtoP:
      return kComm;
    default:
      return kOtherCopy;
  }
}

// What the kernel-name prefixes say about the architecture, for a trace without deviceProperties.
std::string ArchHint(const RankTrace& t) {
  struct Prefix {
    std::string_view prefix, hint;
  };
  static constexpr Prefix kPrefixes[] = {
      {"sm100_", "Blackwell (sm100), e.g. B200"},
      {"sm90_", "Hopper (sm90), e.g. H100 SXM"},
      {"sm80_", "Ampere (sm80), e.g. A100 80GB"},
      {"ampere_", "Ampere, e.g. A100 80GB"},
      {"turing_", "Turing, e.g. T4"},
      {"volta_", "Volta, e.g. V100 SXM2"},
  };
  for (const Prefix& p : kPrefixes) {
    for (const std::string& n : t.names) {
      if (n.size() > p.prefix.size() && ToLower(n.substr(0, p.prefix.size())) == p.prefix) {
        return fmt::format("kernel names like {} suggest {}", n.substr(0, 40), p.hint);
      }
    }
  }
  return "";
}

BudgetPart Part(std::string id, ForecastGovernor g, int64_t ns, std::string note = {},
                MathPrecision p = MathPrecision::kUnknown) {
  BudgetPart b;
  b.part = std::move(id);
  b.governor = g;
  b.precision = p;
  b.seconds = ns / 1e9;
  b.note = std::move(note);
  return b;
}

std::string FirstChange(const std::string& part) {
  if (part == "idle_dataloader") {
    return "the DataLoader holds the GPU: more workers (num_workers), pin_memory=True, cheaper "
           "decode or pre-processed data";
  }
  if (part == "idle_sync") {
    return "host synchronisation while the GPU idles: remove .item()/.cpu()/print of GPU tensors "
           "and explicit synchronize calls from the step";
  }
  if (part == "idle_launch_gaps") {
    return "launch gaps between small kernels: CUDA graphs, torch.compile or larger fused kernels";
  }
  if (part == "idle_optimizer") {
    return "the optimizer step on the host: a fused or foreach optimizer (fused=True)";
  }
  if (part == "communication") {
    return "exposed communication: overlap it with computation (bucketed/async collectives) or "
           "reduce it (larger batches per rank, gradient accumulation)";
  }
  if (part == "host_copies_pageable") {
    return "pageable host copies: pin the host memory (pin_memory=True) and copy with "
           "non_blocking=True";
  }
  return "host work between kernels (Python, framework): profile the host side; batch the work "
         "into fewer, larger kernels";
}

std::string_view PartLabel(const std::string& part) {
  if (part == "idle_dataloader") return "data loader";
  if (part == "idle_sync") return "syncs";
  if (part == "idle_launch_gaps") return "launch gaps";
  if (part == "idle_optimizer") return "optimizer (host)";
  if (part == "idle_host") return "host time";
  if (part == "communication") return "communication";
  if (part == "host_copies_pageable") return "pageable copies";
  return part;
}

void Explain(UpgradeForecast& f) {
  if (!f.computed) return;
  // What to fix first: the largest part that does not shrink, when it is a twentieth or more.
  const ForecastTerm* worst = nullptr;
  for (const ForecastTerm& t : f.terms) {
    if (t.fixed && t.part != "other_copies" && (!worst || t.share_pct > worst->share_pct)) {
      worst = &t;
    }
  }
  if (worst && worst->share_pct >= 5) {
    f.first_change = fmt::format(
        "{} takes {:.1f} % of the window and does not shrink on a faster "
        "GPU: fix it first. {}",
        PartLabel(worst->part), worst->share_pct, FirstChange(worst->part));
  } else if (f.speedup_low > 1.05) {
    f.first_change = "nothing host-side stands in the way: the upgrade pays roughly as forecast";
  } else {
    f.first_change = "the target is not faster for what this window is bound by";
  }
  // Why a range, and what would narrow it.
  std::vector<std::string> why, narrow;
  double tf32 = 0, unknown_prec = 0, unknown_class = 0, comm = 0, pageable = 0;
  for (const ForecastTerm& t : f.terms) {
    if (t.scale_high <= t.scale_low * 1.001) continue;
    if (t.part == "gemm_fp32") tf32 += t.share_pct;
    if (t.part == "gemm_unknown") unknown_prec += t.share_pct;
    if (t.part == "other_kernels") unknown_class += t.share_pct;
    if (t.part == "communication") comm += t.share_pct;
    if (t.part == "host_copies_pageable") pageable += t.share_pct;
  }
  if (tf32 > 0) {
    why.push_back(
        fmt::format("FP32 GEMMs/convolutions ({:.1f} %) run on CUDA cores here and may "
                    "run as TF32 on the target",
                    tf32));
    narrow.push_back(
        "whether the job allows TF32 (torch.backends.cuda.matmul.allow_tf32, "
        "torch.backends.cudnn.allow_tf32)");
  }
  if (unknown_prec > 0) {
    why.push_back(
        fmt::format("GEMM-like kernels ({:.1f} %) whose names give no precision", unknown_prec));
    narrow.push_back("the job's dtype (autocast/bf16) or a trace with kernel names that carry it");
  }
  if (unknown_class > 0) {
    why.push_back(
        fmt::format("kernels ({:.1f} %) whose names do not say whether they compute or "
                    "stream memory",
                    unknown_class));
    narrow.push_back(
        "a counter-mode trace (CUPTI range profiler: dram__bytes_read.sum, "
        "smsp__sass_thread_inst_executed_op_*) that places them on the roofline");
  }
  if (comm > 0) {
    why.push_back(
        fmt::format("communication ({:.1f} %) speeds up only if it stays on NVLink", comm));
    narrow.push_back("where the ranks are: one NVLink domain or across nodes");
  }
  if (pageable > 0) {
    why.push_back(fmt::format("pageable copies ({:.1f} %) may be bound by host staging", pageable));
  }
  if (f.range) {
    f.range_reason = Join(why, "; ");
    f.narrow_by = Join(narrow, "; ");
  }
  f.notes.push_back(
      "copies and communication hidden under computation now are assumed to stay "
      "hidden; each GEMM is assumed to reach the same share of the peak on the "
      "target as it does now");
}

}  // namespace

MathPrecision KernelPrecision(std::string_view name) {
  std::string n = ToLower(name);
  if (Has(n, {"fp8", "e4m3", "e5m2", "f8f6f4"})) return MathPrecision::kFp8;
  if (Has(n, {"int8", "imma", "i8i8", "i8816", "s8s8"})) return MathPrecision::kInt8;
  if (Has(n, {"bf16", "bfloat16"})) return MathPrecision::kBf16;
  if (Has(n, {"fp16", "f16f16", "half", "h884", "h1688", "h16816", "hgemm", "hmma", "_f16"})) {
    return MathPrecision::kFp16;
  }
  if (Has(n, {"tf32", "s1688", "s16816", "s884"})) return MathPrecision::kTf32;
  if (Has(n, {"dgemm", "fp64", "<double", "d884", "dmma", "_f64"})) return MathPrecision::kFp64;
  if (Has(n, {"sgemm", "scudnn", "<float", "f32f32", "_fp32", "simt"})) return MathPrecision::kFp32;
  return MathPrecision::kUnknown;
}

TimeBudget ComputeTimeBudget(const RankTrace& t, const OpWindow& window, const RankAnalysis& a) {
  TimeBudget out;
  const int64_t lo = a.temporal.start_ns, hi = a.temporal.end_ns;
  if (hi <= lo) return out;
  // One slot per (name, collective) of a kernel: -1 not yet decided.
  std::vector<int8_t> slot_of(t.names.size() * 2, -1);
  struct Event {
    int64_t at;
    int16_t slot;  // +slot+1 start, -(slot+1) end
  };
  std::vector<Event> events;
  events.reserve(window.ops.size() * 2);
  for (uint32_t i : window.ops) {
    const GpuOp& op = t.gpu_ops[i];
    int64_t s = std::max(op.start_ns, lo), e = std::min(op.start_ns + op.dur_ns, hi);
    if (e <= s) continue;
    int slot;
    if (op.kind == GpuOpKind::kKernel) {
      size_t key = size_t{op.name} * 2 + (op.collective ? 1 : 0);
      if (key >= slot_of.size()) continue;
      if (slot_of[key] < 0) slot_of[key] = static_cast<int8_t>(KernelSlot(op, t.Name(op.name)));
      slot = slot_of[key];
    } else {
      slot = CopySlot(op);
    }
    events.push_back({s, static_cast<int16_t>(slot + 1)});
    events.push_back({e, static_cast<int16_t>(-(slot + 1))});
  }
  // Ends before starts at the same instant, so touching ops leave no overlap.
  std::sort(events.begin(), events.end(), [](const Event& x, const Event& y) {
    return x.at != y.at ? x.at < y.at : x.slot < y.slot;
  });
  std::array<int, kSlots> active{};
  std::array<int64_t, kSlots> ns{};
  int64_t prev = lo, busy = 0;
  for (const Event& ev : events) {
    if (ev.at > prev) {
      for (int s = 0; s < kSlots; ++s) {
        if (active[s] > 0) {
          ns[s] += ev.at - prev;
          busy += ev.at - prev;
          break;
        }
      }
      prev = ev.at;
    }
    if (ev.slot > 0) {
      ++active[ev.slot - 1];
    } else {
      --active[-ev.slot - 1];
    }
  }
  for (int p = 0; p < 8; ++p) {
    if (ns[kTensor0 + p] <= 0) continue;
    MathPrecision prec = static_cast<MathPrecision>(p);
    std::string id =
        prec == MathPrecision::kUnknown ? "gemm_unknown" : "gemm_" + ToLower(PrecisionName(prec));
    out.parts.push_back(Part(id, ForecastGovernor::kTensor, ns[kTensor0 + p],
                             "GEMM, convolution, attention", prec));
  }
  out.parts.push_back(Part("memory_kernels", ForecastGovernor::kMemory, ns[kMemoryKernel],
                           "elementwise, reduction, normalisation"));
  out.parts.push_back(Part("other_kernels", ForecastGovernor::kKernelUnknown, ns[kUnknownKernel]));
  out.parts.push_back(Part("device_copies", ForecastGovernor::kMemory, ns[kDeviceCopy],
                           "device-to-device copies, memsets"));
  out.parts.push_back(Part("communication", ForecastGovernor::kInterconnect, ns[kComm]));
  out.parts.push_back(Part("host_copies", ForecastGovernor::kHostLink, ns[kHostCopy]));
  out.parts.push_back(
      Part("host_copies_pageable", ForecastGovernor::kHostLinkPageable, ns[kHostCopyPageable]));
  out.parts.push_back(Part("other_copies", ForecastGovernor::kUnchanged, ns[kOtherCopy],
                           "host-to-host and other copies: unchanged"));
  // The idle rest, split as host attribution split it (scaled to this sweep's idle time).
  int64_t idle = (hi - lo) - busy;
  const HostAttribution& h = a.host;
  int64_t attributed =
      h.sync_idle_ns + h.dataloader_idle_ns + h.optimizer_idle_ns + h.other_idle_ns;
  double k = attributed > 0 ? static_cast<double>(idle) / attributed : 0;
  int64_t launch =
      std::min<int64_t>(h.other_idle_ns, a.gpu_idle.host_wait_short_ns + a.gpu_idle.kernel_wait_ns);
  int64_t sync = static_cast<int64_t>(h.sync_idle_ns * k);
  int64_t loader = static_cast<int64_t>(h.dataloader_idle_ns * k);
  int64_t optim = static_cast<int64_t>(h.optimizer_idle_ns * k);
  int64_t gaps = static_cast<int64_t>(launch * k);
  int64_t rest = attributed > 0 ? idle - sync - loader - optim - gaps : idle;
  out.parts.push_back(Part("idle_sync", ForecastGovernor::kUnchanged, sync,
                           "host synchronisation while the GPU idles: unchanged"));
  out.parts.push_back(Part("idle_dataloader", ForecastGovernor::kUnchanged, loader,
                           "the DataLoader holds the GPU: unchanged"));
  out.parts.push_back(Part("idle_optimizer", ForecastGovernor::kUnchanged, optim,
                           "optimizer host time: unchanged"));
  out.parts.push_back(Part("idle_launch_gaps", ForecastGovernor::kUnchanged, gaps,
                           "launch gaps: host-side, unchanged"));
  out.parts.push_back(Part("idle_host", ForecastGovernor::kUnchanged, rest,
                           "other host time between kernels: unchanged"));
  std::erase_if(out.parts, [](const BudgetPart& p) { return p.seconds <= 0; });
  if (t.gpu_name.empty()) out.arch_hint = ArchHint(t);
  return out;
}

void ForecastTraceReport(TraceReport& report, const GpuSpec& target,
                         const std::optional<std::string>& source) {
  const GpuSpec* forced = source ? FindGpuSpec(*source) : nullptr;
  for (const RankAnalysis& whole : report.ranks) {
    const RankAnalysis& a = whole.steady_state.empty() ? whole : whole.steady_state.front();
    if (a.budget.parts.empty()) continue;
    const GpuSpec* from = forced;
    std::string from_how = forced ? "--source" : "";
    if (!from && !whole.gpu_name.empty()) {
      from = FindGpuSpec(whole.gpu_name);
      from_how = "trace deviceProperties";
    }
    UpgradeForecast f = ForecastFromBudget(a.budget.parts, from, target);
    f.subject = whole.subject;
    f.current_from = from ? from_how : "";
    if (!from) {
      f.current = whole.gpu_name.empty() ? "unknown GPU" : whole.gpu_name;
      f.summary =
          whole.gpu_name.empty()
              ? "the trace does not name its GPU (no deviceProperties): pass --source GPU"
              : fmt::format("'{}' is not in the spec table: pass --source GPU", whole.gpu_name);
      if (!a.budget.arch_hint.empty()) f.summary += " (" + a.budget.arch_hint + ")";
      if (!whole.steady_state.empty()) f.notes.push_back("steady state after start-up");
    } else {
      if (!whole.steady_state.empty()) {
        f.notes.push_back("the budget is the steady state after the start-up work");
      }
      Explain(f);
    }
    report.forecasts.push_back(std::move(f));
  }
}

}  // namespace gpuvet
