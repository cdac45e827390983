// The scaling rules of the forecast (docs/forecast.md): one function per governor, each writing
// the figures it used into the term's basis so the reader can redo the sum by hand.
#include "core/forecast.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpuvet {

namespace {

void SetRange(ForecastTerm& t, double a, double b, double mid) {
  t.scale_low = std::min(a, b);
  t.scale_high = std::max(a, b);
  t.scale = mid;
}

void SetPoint(ForecastTerm& t, double s) { t.scale = t.scale_low = t.scale_high = s; }

// The precision the target runs `p` in: its own when it has that path, else FP16 for BF16 (Volta,
// Turing), else FP32.
MathPrecision OnTarget(const GpuSpec& to, MathPrecision p) {
  if (DenseTflops(to, p) > 0) return p;
  if (p == MathPrecision::kBf16 && to.fp16_tflops > 0) return MathPrecision::kFp16;
  return MathPrecision::kFp32;
}

std::string Ratio(std::string_view what, double a, double b, std::string_view unit) {
  return fmt::format("{} {:g} -> {:g} {}", what, a, b, unit);
}

void ScaleTensor(ForecastTerm& t, MathPrecision p, const GpuSpec& from, const GpuSpec& to) {
  if (p == MathPrecision::kUnknown) {
    // The name gives no precision: between the slowest and the fastest plausible one.
    double lo = 0, hi = 0;
    std::string names;
    for (MathPrecision q : {MathPrecision::kFp32, MathPrecision::kTf32, MathPrecision::kFp16}) {
      double a = DenseTflops(from, q), b = DenseTflops(to, OnTarget(to, q));
      if (a <= 0 || b <= 0) continue;
      double s = a / b;
      lo = lo == 0 ? s : std::min(lo, s);
      hi = std::max(hi, s);
      names += (names.empty() ? "" : ", ") + std::string(PrecisionName(q));
    }
    double mid = from.fp16_tflops > 0 && to.fp16_tflops > 0 ? from.fp16_tflops / to.fp16_tflops
                                                            : std::sqrt(lo * hi);
    SetRange(t, lo, hi, mid);
    t.basis = fmt::format("precision not in the kernel names: {} dense, {:.2f}-{:.2f}x time", names,
                          t.scale_low, t.scale_high);
    return;
  }
  MathPrecision q = OnTarget(to, p);
  double a = DenseTflops(from, p);
  if (a <= 0) a = DenseTflops(from, OnTarget(from, p));
  double b = DenseTflops(to, q);
  std::string unit = p == MathPrecision::kInt8 ? "TOPS" : "TFLOPS";
  if (a <= 0 || b <= 0) {
    SetPoint(t, 1);
    t.basis = fmt::format("{}: no datasheet figure, assumed unchanged", PrecisionName(p));
    return;
  }
  std::string kind =
      p == MathPrecision::kFp32 ? "FP32 (CUDA cores)" : fmt::format("{} dense", PrecisionName(p));
  t.basis = Ratio(kind, a, b, unit);
  if (q != p)
    t.basis += fmt::format(" (target has no {}: runs as {})", PrecisionName(p), PrecisionName(q));
  SetPoint(t, a / b);
  // FP32 GEMMs on a source without TF32 may run as TF32 on the target (PyTorch allows it for
  // cuDNN convolutions by default, for matmuls when asked): the favourable end.
  if (p == MathPrecision::kFp32 && from.tf32_tflops <= 0 && to.tf32_tflops > 0) {
    t.scale_low = a / to.tf32_tflops;
    t.basis += fmt::format("; {:g} if TF32 is allowed on the target", to.tf32_tflops);
  }
}

}  // namespace

ForecastTerm ScaleBudgetPart(const BudgetPart& part, const GpuSpec& from, const GpuSpec& to) {
  ForecastTerm t;
  t.part = part.part;
  double mem = from.memory_gbps / to.memory_gbps;
  switch (part.governor) {
    case ForecastGovernor::kTensor:
      ScaleTensor(t, part.precision, from, to);
      break;
    case ForecastGovernor::kMemory:
      SetPoint(t, mem);
      t.basis = Ratio("memory bandwidth", from.memory_gbps, to.memory_gbps, "GB/s");
      break;
    case ForecastGovernor::kKernelUnknown: {
      double fp32 = from.fp32_tflops / to.fp32_tflops;
      SetRange(t, mem, fp32, mem);
      t.basis = fmt::format(
          "class not in the kernel names: memory {:g} -> {:g} GB/s or FP32 {:g} -> {:g} TFLOPS",
          from.memory_gbps, to.memory_gbps, from.fp32_tflops, to.fp32_tflops);
      break;
    }
    case ForecastGovernor::kBusyUnsplit: {
      double c = from.fp16_tflops / to.fp16_tflops;
      SetRange(t, mem, c, std::sqrt(mem * c));
      t.basis = fmt::format(
          "compute or memory, unknown: FP16/BF16 dense {:g} -> {:g} TFLOPS or memory {:g} -> {:g} "
          "GB/s",
          from.fp16_tflops, to.fp16_tflops, from.memory_gbps, to.memory_gbps);
      break;
    }
    case ForecastGovernor::kHostLink:
    case ForecastGovernor::kHostLinkPageable: {
      std::string na, nb;
      double a = HostLinkGbps(from, &na), b = HostLinkGbps(to, &nb);
      if (a <= 0 || b <= 0) {
        SetPoint(t, 1);
        t.basis = "host link unknown: assumed unchanged";
        break;
      }
      t.basis = fmt::format("{} {:.1f} -> {} {:.1f} GB/s per direction", na, a, nb, b);
      if (part.governor == ForecastGovernor::kHostLink) {
        SetPoint(t, a / b);
      } else {
        SetRange(t, a / b, 1, 1);
        t.basis += "; pageable: host staging may set the pace (unchanged)";
        t.fixed = true;
      }
      break;
    }
    case ForecastGovernor::kInterconnect:
      t.fixed = true;
      if (from.nvlink_gbps > 0 && to.nvlink_gbps > 0 && from.nvlink_gbps != to.nvlink_gbps) {
        SetRange(t, from.nvlink_gbps / to.nvlink_gbps, 1, 1);
        t.basis = fmt::format(
            "NVLink {} {:g} -> NVLink {} {:g} GB/s if it stays in the node; unchanged over the "
            "network",
            from.nvlink_gen, from.nvlink_gbps, to.nvlink_gen, to.nvlink_gbps);
      } else {
        SetPoint(t, 1);
        t.basis = from.nvlink_gbps > 0 && from.nvlink_gbps == to.nvlink_gbps
                      ? fmt::format("same interconnect (NVLink {} {:g} GB/s): unchanged",
                                    from.nvlink_gen, from.nvlink_gbps)
                      : std::string(
                            "interconnect not faster on the target (PCIe or network): "
                            "unchanged");
      }
      break;
    case ForecastGovernor::kUnchanged:
      SetPoint(t, 1);
      t.fixed = true;
      t.basis = part.note.empty() ? "host-side: does not shrink on a faster GPU" : part.note;
      break;
  }
  return t;
}

UpgradeForecast ForecastFromBudget(const std::vector<BudgetPart>& budget, const GpuSpec* from,
                                   const GpuSpec& to) {
  UpgradeForecast f;
  f.target = std::string(to.key);
  f.current_known = from != nullptr;
  if (from) f.current = std::string(from->key);
  double total = 0;
  for (const BudgetPart& p : budget) total += std::max(0.0, p.seconds);
  f.window_s = total;
  if (total <= 0) return f;
  double mid = 0, lo = 0, hi = 0, fixed = 0;
  for (const BudgetPart& p : budget) {
    if (p.seconds <= 0) continue;
    ForecastTerm t;
    if (from) {
      t = ScaleBudgetPart(p, *from, to);
    } else {
      t.part = p.part;
      t.fixed = p.governor == ForecastGovernor::kUnchanged;
      t.basis = t.fixed ? (p.note.empty() ? "host-side: does not shrink" : p.note)
                        : "source GPU unknown: no ratio";
    }
    t.share_pct = 100.0 * p.seconds / total;
    mid += p.seconds * t.scale;
    lo += p.seconds * t.scale_low;
    hi += p.seconds * t.scale_high;
    if (t.fixed) fixed += p.seconds * t.scale;
    // Any part the inputs cannot pin down makes the answer a range, however narrow.
    if (from && t.scale_high > t.scale_low * 1.0001) f.range = true;
    f.terms.push_back(std::move(t));
  }
  f.max_speedup = fixed > 0 ? total / fixed : 0;
  if (!from) {
    f.summary =
        fmt::format("the source GPU is unknown, so no move to {} can be forecast", f.target);
    return f;
  }
  f.computed = true;
  f.speedup = mid > 0 ? total / mid : 1;
  f.speedup_low = hi > 0 ? total / hi : 1;
  f.speedup_high = lo > 0 ? total / lo : 1;
  for (const GpuSpec* s : {from, &to}) {
    if (std::find(f.sources.begin(), f.sources.end(), s->source) == f.sources.end()) {
      f.sources.emplace_back(s->source);
    }
  }
  f.summary = fmt::format("a move from {} to {} would speed this up by {}", f.current, f.target,
                          SpeedupText(f));
  if (f.max_speedup > 0) {
    f.summary += fmt::format("; any faster GPU by at most {:.2f}x", f.max_speedup);
  }
  return f;
}

std::string SpeedupText(const UpgradeForecast& f) {
  if (!f.computed) return "unknown";
  if (f.range) return fmt::format("{:.2f}x-{:.2f}x", f.speedup_low, f.speedup_high);
  return fmt::format("about {:.2f}x", f.speedup);
}

}  // namespace gpuvet
