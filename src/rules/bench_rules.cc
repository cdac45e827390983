// Benchmark judgement. Each rule reads the run (never the OS), emits one finding per figure with
// the measured value, the expectation and its basis, and names the likely cause when the GPU's
// own link or NUMA placement explains a shortfall.
#include "rules/bench_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "rules/bench_expectations.h"
#include "rules/bench_format.h"
#include "rules/bench_regression.h"
#include "rules/rule_util.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

struct Ctx {
  const BenchRun& run;
  const Policy& policy;
  BenchJudgement& out;
};

const BenchMeasurement* FindMeasurement(const BenchRun& run, std::string_view id, int gpu,
                                        int peer = -1) {
  for (const BenchMeasurement& m : run.measurements) {
    if (m.id == id && m.gpu == gpu && m.peer == peer) return &m;
  }
  return nullptr;
}

// Records what `m` was held against and returns the evidence every judged figure carries.
std::vector<Evidence> Record(Ctx& c, const BenchMeasurement& m, double expected,
                             const std::string& basis, const std::string& threshold) {
  double ratio = expected > 0 ? m.median / expected : 0;
  c.out.expectations.push_back({m.id, m.gpu, m.peer, m.numa_node, expected, basis, ratio});
  return {{"measured", BenchFigure(m.median, m.unit), ""},
          {"expected", BenchFigure(expected, m.unit), basis},
          {"ratio", FormatNumber(ratio, 2), threshold},
          {"method", m.method, ""}};
}

// The CUDA error name in an engine message ("… (CUDA_ERROR_ILLEGAL_ADDRESS = 700)"), or "".
std::string CudaErrorIn(const std::string& why) {
  const size_t at = why.find("CUDA_ERROR_");
  if (at == std::string::npos) return "";
  size_t end = at;
  while (end < why.size() &&
         (std::isupper(static_cast<unsigned char>(why[end])) ||
          std::isdigit(static_cast<unsigned char>(why[end])) || why[end] == '_')) {
    ++end;
  }
  return why.substr(at, end - at);
}

// What to do about a failed figure, by what failed.
std::string FailureDecision(const std::string& why) {
  const std::string err = CudaErrorIn(why);
  if (why.find("PTX") != std::string::npos || err == "CUDA_ERROR_INVALID_PTX" ||
      err == "CUDA_ERROR_UNSUPPORTED_PTX_VERSION" || err == "CUDA_ERROR_JIT_COMPILER_NOT_FOUND" ||
      err == "CUDA_ERROR_NO_BINARY_FOR_GPU") {
    return "The driver could not compile gpuvet's PTX kernels (the JIT log is in the notes): "
           "update the driver to one that supports this GPU and PTX ISA 7.0, then bench again; "
           "jobs that JIT their own kernels fail the same way.";
  }
  if (why.starts_with("hung")) {
    return "Drain the node: a driver call never returned. Run `gpuvet check` (Xid, ECC, PCIe) and "
           "read the kernel log; reset the GPU (nvidia-smi -r) or reboot before returning the node "
           "to service.";
  }
  if (why.find("data corruption") != std::string::npos) {
    return "Drain the node: the GPU returned wrong data without reporting an error. Run `gpuvet "
           "check` for ECC and Xid errors, reset the GPU and bench again; replace it if the data "
           "is wrong again.";
  }
  return "Drain the node: run `gpuvet check` for Xid and ECC errors and read the kernel log, reset "
         "the GPU (or reboot) and bench again; replace the GPU if the error repeats.";
}

// A figure that was not measured, judged by why: unavailable here (info, or `unavailable` for
// P2P), failed by the GPU or driver (fail, naming the step and the error), not run for a local
// reason (unknown). Abandoned figures are covered by bench.gpu_error and emit nothing.
void NotMeasured(Ctx& c, std::string_view finding_id, const BenchMeasurement& m,
                 const std::string& subject, Severity unavailable = Severity::kInfo) {
  switch (m.outcome) {
    case BenchOutcome::kMeasured:
    case BenchOutcome::kAbandoned:
      return;
    case BenchOutcome::kUnavailable: {
      Finding f = MakeFinding(finding_id, subject, unavailable,
                              fmt::format("{} not measured: {}", BenchLabel(m.id), m.skipped));
      if (unavailable == Severity::kInfo) {
        f.meaning =
            "This figure was not measured on this node, for the reason given; it is neither "
            "zero nor a failure.";
        f.decision =
            "Nothing to fix unless the figure matters here: then provide what is missing "
            "(library, second GPU, NUMA node) and run gpuvet bench again.";
      }
      c.out.findings.push_back(std::move(f));
      return;
    }
    case BenchOutcome::kFailed: {
      std::vector<Evidence> ev = {{"step", m.id, ""}, {"error", m.skipped, ""}};
      if (std::string err = CudaErrorIn(m.skipped); !err.empty()) {
        ev.push_back({"cuda_error", err, ""});
      }
      Finding f = MakeFinding(finding_id, subject, Severity::kFail,
                              fmt::format("{} failed: {}", BenchLabel(m.id), m.skipped), ev);
      f.meaning =
          "The benchmark did not produce a figure because the GPU or its driver failed it (a "
          "CUDA error, a hung call or wrong data): a broken GPU, not a slow one.";
      f.decision = FailureDecision(m.skipped);
      c.out.findings.push_back(std::move(f));
      return;
    }
    case BenchOutcome::kIncomplete: {
      Finding f = MakeFinding(finding_id, subject, Severity::kUnknown,
                              fmt::format("{} not measured: {}", BenchLabel(m.id), m.skipped),
                              {{"step", m.id, ""}, {"reason", m.skipped, ""}});
      f.meaning =
          "This figure could not be measured for a reason local to this run (memory held by "
          "other processes, a small host): the GPU was not judged on it.";
      f.decision =
          "Free the memory (stop other jobs on the GPU or host) and run gpuvet bench again.";
      c.out.findings.push_back(std::move(f));
      return;
    }
  }
}

// The policy's absolute minimum for `m`, judged as a fail below it. True when one was set.
bool JudgeMinimum(Ctx& c, std::string_view finding_id, const BenchMeasurement& m,
                  const std::string& subject) {
  auto it = c.policy.bench.minimums.find(m.id);
  if (it == c.policy.bench.minimums.end()) return false;
  double min = it->second;
  auto ev = Record(c, m, min, "policy minimum (" + c.policy.source + ")", ">= 1.00");
  bool low = m.median < min;
  c.out.findings.push_back(MakeFinding(
      finding_id, subject, low ? Severity::kFail : Severity::kOk,
      fmt::format("{} {} {} the policy minimum {}", BenchLabel(m.id), BenchFigure(m.median, m.unit),
                  low ? "is below" : "meets", BenchFigure(min, m.unit)),
      ev));
  return true;
}

// Why a host copy on `g` is slow, as far as the run itself can tell.
std::string CopyCause(const BenchGpu& g, const BenchMeasurement& m) {
  if (g.pcie_width.has() && g.pcie_width_max.has() && *g.pcie_width < *g.pcie_width_max) {
    return fmt::format("the link trained at x{} of x{} (see pcie.link_width_reduced)",
                       *g.pcie_width, *g.pcie_width_max);
  }
  if (g.pcie_gen_loaded.has() && g.pcie_gen_max.has() && *g.pcie_gen_loaded < *g.pcie_gen_max) {
    return fmt::format(
        "the link ran at Gen{} under load, Gen{} possible (see "
        "bench.pcie_under_load)",
        *g.pcie_gen_loaded, *g.pcie_gen_max);
  }
  if (m.numa_node >= 0 && g.numa_node.has() && *g.numa_node >= 0 && m.numa_node != *g.numa_node) {
    return fmt::format(
        "the copy ran from NUMA node {}, the GPU sits on node {} (see "
        "bench.numa_penalty)",
        m.numa_node, *g.numa_node);
  }
  return "the link is at full width and speed: look at host memory, the socket, or other "
         "traffic on the same switch";
}

// A figure with a built-in expectation: fail below min_fraction_of_expected.
void JudgeAgainstExpected(Ctx& c, std::string_view finding_id, const BenchGpu& g,
                          const BenchMeasurement& m, const std::string& cause_if_low) {
  std::string subject = BenchSubject(&g, g.index);
  if (!m.measured()) return NotMeasured(c, finding_id, m, subject);
  if (JudgeMinimum(c, finding_id, m, subject)) return;
  Expected e = ExpectedFor(g, m.id);
  if (e.value <= 0) {
    c.out.findings.push_back(
        NotChecked(finding_id, subject,
                   fmt::format("{} {}: no expectation known for {} (set [bench.minimums] {})",
                               BenchLabel(m.id), BenchFigure(m.median, m.unit),
                               g.name.empty() ? "this GPU" : g.name, m.id),
                   {{"measured", BenchFigure(m.median, m.unit), ""}}));
    return;
  }
  double floor = c.policy.bench.min_fraction_of_expected;
  auto ev = Record(c, m, e.value, e.basis, fmt::format(">= {:.2f}", floor));
  double ratio = m.median / e.value;
  std::string summary =
      fmt::format("{} {} = {} of the {} expected", BenchLabel(m.id), BenchFigure(m.median, m.unit),
                  BenchPct(ratio), BenchFigure(e.value, m.unit));
  bool low = ratio < floor;
  if (low && !cause_if_low.empty()) summary += ": " + cause_if_low;
  c.out.findings.push_back(
      MakeFinding(finding_id, subject, low ? Severity::kFail : Severity::kOk, summary, ev));
}

// A figure with no built-in expectation: judged only against a policy minimum.
void JudgeMinimumOnly(Ctx& c, std::string_view finding_id, const BenchGpu& g,
                      const BenchMeasurement& m, const std::string& why_no_expectation) {
  std::string subject = BenchSubject(&g, g.index);
  if (!m.measured()) return NotMeasured(c, finding_id, m, subject);
  if (JudgeMinimum(c, finding_id, m, subject)) return;
  c.out.findings.push_back(MakeFinding(
      finding_id, subject, Severity::kOk,
      fmt::format("{} {} (reported, not judged: {}; set [bench.minimums] {})", BenchLabel(m.id),
                  BenchFigure(m.median, m.unit), why_no_expectation, m.id),
      {{"measured", BenchFigure(m.median, m.unit), ""}}));
}

void CheckDriverState(Ctx& c) {
  const BenchRun& r = c.run;
  switch (r.state) {
    case BenchState::kOk:
      c.out.findings.push_back(MakeFinding(
          "bench.driver", "host", Severity::kOk,
          fmt::format("CUDA driver {}.{} ({}): {} GPU(s) benchmarked", r.driver_version / 1000,
                      (r.driver_version % 1000) / 10, r.library, r.gpus.size())));
      return;
    case BenchState::kDriverMissing:
      c.out.findings.push_back(MakeFinding(
          "bench.driver", "host", Severity::kUnknown, "no benchmark ran: " + r.detail,
          {{"library", r.library, "the path tried: --cuda-lib, GPUVET_CUDA_LIB or libcuda.so.1"}}));
      return;
    case BenchState::kTimedOut: {
      Finding f = MakeFinding("bench.driver", "host", Severity::kFail,
                              "the CUDA driver stopped answering: " + r.detail,
                              {{"library", r.library, ""}});
      f.meaning =
          "A CUDA driver call never returned during the run: the figures measured before it are "
          "reported and judged, the later steps did not run.";
      f.decision =
          "Drain the node: a driver call never returned. Run `gpuvet check` (Xid, ECC, PCIe) and "
          "read the kernel log; reset the GPU (nvidia-smi -r) or reboot before returning the "
          "node to service.";
      c.out.findings.push_back(std::move(f));
      return;
    }
    case BenchState::kBadRequest:
      c.out.findings.push_back(NotChecked("bench.driver", "host", "no benchmark ran: " + r.detail,
                                          {{"library", r.library, ""}}));
      return;
    case BenchState::kNoDevice: {
      // The driver answers but lists no GPU: on a node sent to bench that is not "nothing to
      // fix" but a question about where the GPUs went (gpuvet check says).
      Finding f =
          MakeFinding("bench.driver", "host", Severity::kUnknown,
                      "no CUDA device to benchmark: " + r.detail, {{"library", r.library, ""}});
      f.meaning =
          "The CUDA driver loaded but reports no device, so no benchmark ran: the GPUs are "
          "hidden (CUDA_VISIBLE_DEVICES, a container without GPUs), not bound to the driver, or "
          "gone from the bus.";
      f.decision =
          "Run `gpuvet check` (driver.gpus_visible, gpu.lost, Xid 79) and check "
          "CUDA_VISIBLE_DEVICES and the container's GPU assignment, then bench again.";
      c.out.findings.push_back(std::move(f));
      return;
    }
    case BenchState::kFailed:
      c.out.findings.push_back(MakeFinding("bench.driver", "host", Severity::kFail,
                                           "the CUDA driver failed: " + r.detail,
                                           {{"library", r.library, ""}}));
      return;
  }
}

// A GPU that stopped working during the run: one fail naming the step and the error; the figures
// it could not run afterwards are listed here instead of one finding each.
void CheckGpuFailure(Ctx& c, const BenchGpu& g) {
  if (g.failed.empty()) return;
  std::vector<std::string> abandoned;
  for (const BenchMeasurement& m : c.run.measurements) {
    if (m.gpu == g.index && m.outcome == BenchOutcome::kAbandoned) abandoned.push_back(m.id);
  }
  std::vector<Evidence> ev = {{"failure", g.failed, ""}};
  if (std::string err = CudaErrorIn(g.failed); !err.empty()) ev.push_back({"cuda_error", err, ""});
  if (!abandoned.empty()) {
    ev.push_back({"not_run", std::to_string(abandoned.size()), Join(abandoned, ", ")});
  }
  Finding f = MakeFinding(
      "bench.gpu_error", BenchSubject(&g, g.index), Severity::kFail,
      fmt::format("GPU {} stopped working {}{}", g.index, g.failed,
                  abandoned.empty()
                      ? ""
                      : fmt::format(" ({} later figures not measured)", abandoned.size())),
      ev);
  const size_t colon = g.failed.find(": ");
  f.decision = FailureDecision(colon == std::string::npos ? g.failed : g.failed.substr(colon + 2));
  c.out.findings.push_back(std::move(f));
}

void CheckPcieUnderLoad(Ctx& c, const BenchGpu& g) {
  std::string subject = BenchSubject(&g, g.index);
  const auto& loaded = g.pcie_gen_loaded;
  if (loaded.error()) {
    Finding f = MakeFinding("bench.pcie_under_load", subject, Severity::kUnknown,
                            "PCIe generation under load could not be read: " + loaded.note);
    f.meaning =
        "The link's generation was not read while a copy kept it busy, so whether it trains "
        "down under load is not known; this is not a downgrade.";
    f.decision =
        "Make the GPU's PCI function readable under /sys (bare metal, or a container with the "
        "host's /sys), and if the host copies did not run, fix what stopped them; then bench "
        "again.";
    c.out.findings.push_back(std::move(f));
    return;
  }
  if (!loaded.has() || !g.pcie_gen_max.has()) return;  // not supported (e.g. a VM): skipped
  std::vector<Evidence> ev = {
      {"gen_loaded", std::to_string(*loaded), fmt::format("== gen_max ({})", *g.pcie_gen_max)}};
  if (g.pcie_gen_idle.has()) ev.push_back({"gen_idle", std::to_string(*g.pcie_gen_idle), ""});
  if (g.pcie_width.has()) {
    ev.push_back({"width", std::to_string(*g.pcie_width),
                  g.pcie_width_max.has() ? fmt::format("max x{}", *g.pcie_width_max) : ""});
  }
  if (*loaded < *g.pcie_gen_max) {
    c.out.findings.push_back(MakeFinding(
        "bench.pcie_under_load", subject, Severity::kFail,
        fmt::format("PCIe Gen{} while a copy kept the link busy, Gen{} possible: a real "
                    "downgrade, not idle power saving",
                    *loaded, *g.pcie_gen_max),
        ev));
    return;
  }
  std::string idle;
  if (g.pcie_gen_idle.has() && *g.pcie_gen_idle < *loaded) {
    idle = fmt::format(" (Gen{} at idle: power saving)", *g.pcie_gen_idle);
  }
  c.out.findings.push_back(MakeFinding("bench.pcie_under_load", subject, Severity::kOk,
                                       fmt::format("PCIe Gen{} under load{}", *loaded, idle), ev));
}

void CheckCopies(Ctx& c, const BenchGpu& g) {
  for (const char* id : {"h2d_pinned", "d2h_pinned"}) {
    if (const BenchMeasurement* m = FindMeasurement(c.run, id, g.index)) {
      JudgeAgainstExpected(c, "bench.copy_bandwidth", g, *m, CopyCause(g, *m));
    }
  }
  if (const BenchMeasurement* m = FindMeasurement(c.run, "bidir_pinned", g.index)) {
    JudgeAgainstExpected(
        c, "bench.copy_bandwidth", g, *m,
        "the link does not carry both directions at once (full duplex); " + CopyCause(g, *m));
  }
}

// Pageable vs pinned, and remote vs local NUMA node, both as ratios to the pinned local copy.
void CheckRatios(Ctx& c, const BenchGpu& g) {
  std::string subject = BenchSubject(&g, g.index);
  const BenchThresholds& t = c.policy.bench;
  for (const char* dir : {"h2d", "d2h"}) {
    const BenchMeasurement* pinned = FindMeasurement(c.run, std::string(dir) + "_pinned", g.index);
    bool pinned_ok = pinned && pinned->measured() && pinned->median > 0;
    if (const BenchMeasurement* m =
            FindMeasurement(c.run, std::string(dir) + "_pageable", g.index)) {
      if (!m->measured()) {
        NotMeasured(c, "bench.pageable_copies", *m, subject);
      } else if (pinned_ok) {
        auto ev = Record(c, *m, pinned->median, "pinned " + std::string(dir),
                         fmt::format(">= {:.2f}", t.pageable_min_ratio));
        double ratio = m->median / pinned->median;
        bool low = ratio < t.pageable_min_ratio;
        c.out.findings.push_back(MakeFinding(
            "bench.pageable_copies", subject, low ? Severity::kWarn : Severity::kOk,
            fmt::format("{} reaches {} of pinned ({} vs {}){}", BenchLabel(m->id), BenchPct(ratio),
                        BenchFigure(m->median, m->unit), BenchFigure(pinned->median, pinned->unit),
                        low ? ": pin the loader's buffers" : ""),
            ev));
      }
    }
    if (const BenchMeasurement* m =
            FindMeasurement(c.run, std::string(dir) + "_pinned_remote", g.index)) {
      if (!m->measured()) {
        NotMeasured(c, "bench.numa_penalty", *m, subject);
      } else if (pinned_ok) {
        std::string local =
            pinned->numa_node >= 0 ? fmt::format("node {}", pinned->numa_node) : "local node";
        auto ev = Record(c, *m, pinned->median, "pinned " + std::string(dir) + " from " + local,
                         fmt::format(">= {:.2f}", 1 - t.numa_max_penalty));
        double penalty = 1 - m->median / pinned->median;
        bool high = penalty > t.numa_max_penalty;
        c.out.findings.push_back(MakeFinding(
            "bench.numa_penalty", subject, high ? Severity::kWarn : Severity::kOk,
            fmt::format("{} from NUMA node {} is {} {} than from {} ({} vs {}){}",
                        BenchLabel(pinned->id), m->numa_node, BenchPct(std::fabs(penalty)),
                        penalty >= 0 ? "slower" : "faster", local, BenchFigure(m->median, m->unit),
                        BenchFigure(pinned->median, pinned->unit),
                        high ? ": bind copy threads to the GPU's node" : ""),
            ev));
      }
    }
  }
}

void CheckMemoryAndCompute(Ctx& c, const BenchGpu& g) {
  for (const char* id : {"d2d_sm_copy", "sm_triad"}) {
    if (const BenchMeasurement* m = FindMeasurement(c.run, id, g.index)) {
      JudgeAgainstExpected(c, "bench.memory_bandwidth", g, *m,
                           "memory clocks are reduced or the GPU is degraded");
    }
  }
  if (const BenchMeasurement* m = FindMeasurement(c.run, "d2d_copy_engine", g.index)) {
    JudgeMinimumOnly(c, "bench.memory_bandwidth", g, *m,
                     "no built-in expectation: copy-engine throughput on device memory differs by "
                     "part and driver and has no published figure; d2d_sm_copy is judged against "
                     "the memory peak");
  }
  for (const char* id : {"fp32_fma", "bf16_tensor", "fp16_tensor"}) {
    if (const BenchMeasurement* m = FindMeasurement(c.run, id, g.index)) {
      JudgeAgainstExpected(c, "bench.compute", g, *m,
                           "clocks are capped under load (power limit, thermal, application "
                           "clocks) or the GPU is shared");
    }
  }
}

void CheckLaunch(Ctx& c, const BenchGpu& g) {
  std::string subject = BenchSubject(&g, g.index);
  const BenchMeasurement* lat = FindMeasurement(c.run, "launch_latency", g.index);
  const BenchMeasurement* rate = FindMeasurement(c.run, "launch_rate", g.index);
  // launch_rate is evidence only, but its failure is still a failure.
  if (rate &&
      (rate->outcome == BenchOutcome::kFailed || rate->outcome == BenchOutcome::kIncomplete)) {
    NotMeasured(c, "bench.launch_overhead", *rate, subject);
  }
  if (!lat) return;
  if (!lat->measured()) return NotMeasured(c, "bench.launch_overhead", *lat, subject);
  double max = c.policy.bench.launch_latency_max_us;
  auto ev = Record(c, *lat, max, "policy launch_latency_max_us", "<= 1.00");
  if (rate && rate->measured()) {
    ev.push_back({"launch_rate", BenchFigure(rate->median, rate->unit), ""});
  }
  bool slow = lat->median > max;
  c.out.findings.push_back(MakeFinding(
      "bench.launch_overhead", subject, slow ? Severity::kWarn : Severity::kOk,
      fmt::format("launch-to-completion latency {:.1f} µs{}", lat->median,
                  slow ? fmt::format(" (limit {:.0f} µs): every small kernel pays it", max) : ""),
      ev));
}

// P2P pairs: unsupported warns; a measured pair fails below min_fraction of the larger of the
// PCIe copy expectation of its slower GPU (P2P never needs to be slower than the host path) and
// the median of the other pairs (a pair slower than its siblings points at one link).
void CheckP2p(Ctx& c) {
  std::vector<const BenchMeasurement*> pairs;
  for (const BenchMeasurement& m : c.run.measurements) {
    if (m.id == "p2p_bandwidth") pairs.push_back(&m);
  }
  for (const BenchMeasurement* m : pairs) {
    const BenchGpu* a = FindBenchGpu(c.run, m->gpu);
    const BenchGpu* b = FindBenchGpu(c.run, m->peer);
    std::string subject = fmt::format("gpu{} -> gpu{}", m->gpu, m->peer);
    if (m->outcome == BenchOutcome::kUnavailable) {
      c.out.findings.push_back(MakeFinding(
          "bench.p2p_bandwidth", subject, Severity::kWarn,
          fmt::format("peer-to-peer gpu{} -> gpu{} unsupported: {}", m->gpu, m->peer, m->skipped)));
      continue;
    }
    if (!m->measured()) {
      NotMeasured(c, "bench.p2p_bandwidth", *m, subject);
      continue;
    }
    if (JudgeMinimum(c, "bench.p2p_bandwidth", *m, subject)) continue;
    double expected = 0;
    std::string basis;
    if (a && b) {
      Expected ea = ExpectedFor(*a, "h2d_pinned"), eb = ExpectedFor(*b, "h2d_pinned");
      const Expected& slower = ea.value <= eb.value ? ea : eb;
      if (slower.value > 0) {
        expected = slower.value;
        basis = "host copy expectation of the slower GPU (" + slower.basis + ")";
      }
    }
    std::vector<double> others;
    for (const BenchMeasurement* o : pairs) {
      if (o != m && o->measured()) others.push_back(o->median);
    }
    if (others.size() >= 2) {
      std::sort(others.begin(), others.end());
      double median = others[others.size() / 2];
      if (median > expected) {
        expected = median;
        basis = fmt::format("median of the other {} pairs", others.size());
      }
    }
    if (expected <= 0) {
      c.out.findings.push_back(
          MakeFinding("bench.p2p_bandwidth", subject, Severity::kOk,
                      fmt::format("P2P {} (reported, not judged: no expectation known)",
                                  BenchFigure(m->median, m->unit)),
                      {{"measured", BenchFigure(m->median, m->unit), ""}}));
      continue;
    }
    double floor = c.policy.bench.min_fraction_of_expected;
    auto ev = Record(c, *m, expected, basis, fmt::format(">= {:.2f}", floor));
    if (const BenchMeasurement* lat = FindMeasurement(c.run, "p2p_latency", m->gpu, m->peer)) {
      if (lat->measured()) {
        ev.push_back({"latency", BenchFigure(lat->median, lat->unit), ""});
      } else if (lat->outcome == BenchOutcome::kFailed) {
        NotMeasured(c, "bench.p2p_bandwidth", *lat, subject);
      }
    }
    double ratio = m->median / expected;
    bool low = ratio < floor;
    c.out.findings.push_back(
        MakeFinding("bench.p2p_bandwidth", subject, low ? Severity::kFail : Severity::kOk,
                    fmt::format("P2P {} = {} of the {} expected{}", BenchFigure(m->median, m->unit),
                                BenchPct(ratio), BenchFigure(expected, m->unit),
                                low ? ": check NVLink, ACS and IOMMU on this pair" : ""),
                    ev));
  }
}

void CheckNccl(Ctx& c) {
  const BenchMeasurement* m = FindMeasurement(c.run, "nccl_allreduce_busbw", -1);
  if (!m) return;
  if (!m->measured()) return NotMeasured(c, "bench.nccl", *m, "all GPUs");
  if (JudgeMinimum(c, "bench.nccl", *m, "all GPUs")) return;
  // No built-in expectation: bus bandwidth follows the NVLink/NVSwitch topology, which bench
  // does not read (it uses the CUDA driver only, not NVML).
  c.out.findings.push_back(MakeFinding(
      "bench.nccl", "all GPUs", Severity::kOk,
      fmt::format("all-reduce bus bandwidth {} (not judged: it depends on the NVLink/NVSwitch "
                  "topology, which bench does not read; set [bench.minimums] "
                  "nccl_allreduce_busbw; AzNHC uses 460-480 GB/s on 8 × H100/H200)",
                  BenchFigure(m->median, m->unit)),
      {{"measured", BenchFigure(m->median, m->unit), ""}, {"method", m->method, ""}}));
}

}  // namespace

std::string BenchLabel(const std::string& id) {
  static const std::map<std::string, std::string> kLabels = {
      {"h2d_pinned", "H2D pinned"},
      {"d2h_pinned", "D2H pinned"},
      {"h2d_pageable", "H2D pageable"},
      {"d2h_pageable", "D2H pageable"},
      {"bidir_pinned", "bidirectional pinned"},
      {"h2d_pinned_remote", "H2D pinned (remote NUMA)"},
      {"d2h_pinned_remote", "D2H pinned (remote NUMA)"},
      {"d2d_copy_engine", "device copy (copy engine)"},
      {"d2d_sm_copy", "device copy (SM kernel)"},
      {"sm_triad", "SM triad"},
      {"fp32_fma", "FP32 FMA"},
      {"bf16_tensor", "BF16 tensor"},
      {"fp16_tensor", "FP16 tensor"},
      {"launch_rate", "launch rate"},
      {"launch_latency", "launch latency"},
      {"p2p_bandwidth", "P2P bandwidth"},
      {"p2p_latency", "P2P latency"},
      {"nccl_allreduce_busbw", "NCCL all-reduce bus bandwidth"},
  };
  auto it = kLabels.find(id);
  return it == kLabels.end() ? id : it->second;
}

BenchJudgement JudgeBench(const BenchRun& run, const Policy& policy,
                          const BenchBaseline* baseline) {
  BenchJudgement j;
  Ctx c{run, policy, j};
  CheckDriverState(c);
  // A run the watchdog stopped is judged on what it measured before the hang.
  if (run.state == BenchState::kOk || run.state == BenchState::kTimedOut) {
    for (const BenchGpu& g : run.gpus) CheckGpuFailure(c, g);
    for (const BenchGpu& g : run.gpus) CheckPcieUnderLoad(c, g);
    for (const BenchGpu& g : run.gpus) CheckCopies(c, g);
    for (const BenchGpu& g : run.gpus) CheckRatios(c, g);
    for (const BenchGpu& g : run.gpus) CheckMemoryAndCompute(c, g);
    for (const BenchGpu& g : run.gpus) CheckLaunch(c, g);
    CheckP2p(c);
    CheckNccl(c);
    if (baseline) {
      std::vector<Finding> regression =
          JudgeBenchRegression(run, *baseline, policy.bench.regression_max_drop);
      j.findings.insert(j.findings.end(), regression.begin(), regression.end());
    }
  }
  std::vector<Finding> kept;
  for (Finding& f : j.findings) {
    if (IsSkipped(policy, f.id)) continue;
    if (auto it = policy.severity_overrides.find(f.id);
        it != policy.severity_overrides.end() && f.severity != Severity::kOk) {
      f.severity = it->second;
    }
    kept.push_back(std::move(f));
  }
  j.findings = std::move(kept);
  return j;
}

}  // namespace gpuvet
