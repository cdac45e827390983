// GPU memory health per GPU: ECC mode, error counters since the last reset and over the GPU's
// lifetime, page retirement (pre-Ampere) and row remapping (Ampere and newer). Counters a part
// does not support (consumer GPUs, retirement on remapping parts) are skipped, never read as zero.
#include <fmt/format.h>

#include "rules/rules.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// Collects "name: why" for readings that failed, so an unknown finding names every one.
class ErrorList {
 public:
  template <typename T>
  ErrorList& Add(const Reading<T>& r, std::string_view name) {
    if (r.error()) errors_.push_back(fmt::format("{}: {}", name, r.note));
    return *this;
  }
  bool empty() const { return errors_.empty(); }
  std::string str() const { return Join(errors_, "; "); }

 private:
  std::vector<std::string> errors_;
};

std::string OnOff(bool b) { return b ? "enabled" : "disabled"; }

// With MIG enabled the driver reports some GPU-level memory figures as N/A (they are kept per MIG
// instance). Such a figure is unknown, not "not supported": the GPU has it, the report hides it.
template <typename T>
bool HiddenByMig(const GpuState& gpu, const Reading<T>& r) {
  return gpu.mig_enabled.has() && *gpu.mig_enabled && gpu.ecc_enabled.has() && *gpu.ecc_enabled &&
         r.unsupported() && !NotInCapture(r);
}

// The unknown finding for memory figures MIG hides; `what` names them, `r` gives the driver's note.
// Under MIG, NVML gives GPU-level ECC counts only to privileged callers (per MIG instance
// otherwise), and row-remapping state not at all (real A100 capture: <remapped_rows>N/A).
template <typename T>
Finding MigHiddenFinding(std::string_view id, const std::string& subject, std::string_view what,
                         const Reading<T>& r, bool rows) {
  Finding f = MakeFinding(id, subject, Severity::kUnknown,
                          fmt::format("{} not reported while MIG is enabled ({})", what, r.note),
                          {{"mig_enabled", "yes", ""}, {"ecc_enabled", "yes", ""}});
  f.decision =
      rows ? "The driver does not report row remapping while MIG is enabled: read it when MIG is "
             "next disabled (a maintenance window) and watch the kernel log for Xid 63/64 "
             "(row-remap recorded / failed) meanwhile; until then this GPU's memory health is not "
             "known."
           : "Under MIG the GPU-level counts need a privileged caller: capture `nvidia-smi -q` as "
             "root, or read the counts of each MIG device; until then this GPU's memory health is "
             "not known.";
  return f;
}

void CheckMode(const GpuState& gpu, const std::string& subject, std::vector<Finding>& out) {
  const Reading<bool>& mode = gpu.ecc_enabled;
  if (mode.error()) {
    out.push_back(
        MakeFinding("ecc.mode", subject, Severity::kUnknown, "ECC mode unreadable: " + mode.note));
    return;
  }
  if (NotInCapture(mode)) {
    out.push_back(MakeFinding("ecc.mode", subject, Severity::kUnknown,
                              "ECC mode not in the capture: cannot tell whether ECC is on",
                              {{"ecc_mode/current_ecc", "absent from the capture", ""}}));
    return;
  }
  if (mode.unsupported()) {
    out.push_back(MakeFinding("ecc.mode", subject, Severity::kOk,
                              "ECC not supported by this GPU: not applicable",
                              {{"ecc_enabled", "not supported", ""}}));
    return;
  }
  if (!mode.has()) return;
  std::vector<Evidence> ev = {{"ecc_enabled", OnOff(*mode), "enabled"}};
  const bool pending_change = gpu.ecc_pending_enabled.has() && *gpu.ecc_pending_enabled != *mode;
  if (gpu.ecc_pending_enabled.has()) {
    ev.push_back({"ecc_pending", OnOff(*gpu.ecc_pending_enabled), ""});
  }
  if (!*mode) {
    // Unprotected now, whatever is pending.
    out.push_back(MakeFinding("ecc.mode", subject, Severity::kWarn,
                              pending_change ? "ECC disabled; enabling is pending until GPU reset"
                                             : "ECC disabled on a GPU that supports it",
                              ev));
  } else if (pending_change) {
    out.push_back(MakeFinding("ecc.mode", subject, Severity::kInfo,
                              "ECC enabled; disabling takes effect after GPU reset", ev));
  } else {
    out.push_back(MakeFinding("ecc.mode", subject, Severity::kOk, "ECC enabled", ev));
  }
}

void CheckVolatile(const GpuState& gpu, const std::string& subject, const Thresholds& t,
                   std::vector<Finding>& out) {
  const Reading<uint64_t>& dbe = gpu.ecc_uncorrected_volatile;
  if (gpu.ecc_enabled.has() && *gpu.ecc_enabled && NotInCapture(dbe) &&
      NotInCapture(gpu.ecc_corrected_volatile)) {
    out.push_back(MakeFinding("ecc.volatile_dbe", subject, Severity::kUnknown,
                              "ECC is enabled but its error counts are not in the capture"));
    return;
  }
  if (HiddenByMig(gpu, dbe)) {
    out.push_back(MigHiddenFinding("ecc.volatile_dbe", subject,
                                   "uncorrectable ECC errors since last reset", dbe, false));
  } else if (dbe.error()) {
    out.push_back(MakeFinding("ecc.volatile_dbe", subject, Severity::kUnknown,
                              "volatile uncorrectable ECC count unreadable: " + dbe.note));
  } else if (dbe.has()) {
    std::vector<Evidence> ev = {{"uncorrected_volatile", std::to_string(*dbe), "== 0"}};
    out.push_back(
        *dbe > 0
            ? MakeFinding("ecc.volatile_dbe", subject, Severity::kFail,
                          fmt::format("{} uncorrectable ECC errors since last reset", *dbe), ev)
            : MakeFinding("ecc.volatile_dbe", subject, Severity::kOk,
                          "no uncorrectable ECC errors since last reset", ev));
  }

  const Reading<uint64_t>& sbe = gpu.ecc_corrected_volatile;
  if (HiddenByMig(gpu, sbe)) {
    out.push_back(MigHiddenFinding("ecc.volatile_sbe", subject,
                                   "corrected ECC errors since last reset", sbe, false));
  } else if (sbe.error()) {
    out.push_back(MakeFinding("ecc.volatile_sbe", subject, Severity::kUnknown,
                              "volatile corrected ECC count unreadable: " + sbe.note));
  } else if (sbe.has()) {
    std::vector<Evidence> ev = {{"corrected_volatile", std::to_string(*sbe),
                                 fmt::format("< {}", t.ecc_corrected_volatile_warn)}};
    const bool high = *sbe >= t.ecc_corrected_volatile_warn;
    out.push_back(MakeFinding("ecc.volatile_sbe", subject, high ? Severity::kWarn : Severity::kOk,
                              fmt::format("{} corrected ECC errors since last reset{}", *sbe,
                                          high ? ", a high count" : ""),
                              ev));
  }
}

// ecc.aggregate_dbe: the lifetime count never resets (it lives in the InfoROM), so a warning on
// any non-zero value would stay forever after one old event. When nothing happened since the last
// reset it is history: info, and retired_pages / row_remap judge whether the memory is still
// sound. With errors since the reset too (or that count unknown) it is a live trend: warn.
void CheckAggregate(const GpuState& gpu, const std::string& subject, std::vector<Finding>& out) {
  const Reading<uint64_t>& agg = gpu.ecc_uncorrected_aggregate;
  if (agg.error()) {
    out.push_back(MakeFinding("ecc.aggregate_dbe", subject, Severity::kUnknown,
                              "lifetime uncorrectable ECC count unreadable: " + agg.note));
    return;
  }
  if (HiddenByMig(gpu, agg)) {
    out.push_back(MigHiddenFinding("ecc.aggregate_dbe", subject,
                                   "lifetime uncorrectable ECC errors", agg, false));
    return;
  }
  if (!agg.has()) return;
  std::vector<Evidence> ev = {{"uncorrected_aggregate", std::to_string(*agg), "== 0"}};
  if (*agg == 0) {
    out.push_back(MakeFinding("ecc.aggregate_dbe", subject, Severity::kOk,
                              "no uncorrectable ECC errors over the GPU's lifetime", ev));
    return;
  }
  const Reading<uint64_t>& vol = gpu.ecc_uncorrected_volatile;
  if (vol.has()) ev.push_back({"uncorrected_volatile", std::to_string(*vol), ""});
  if (vol.has() && *vol == 0) {
    out.push_back(MakeFinding(
        "ecc.aggregate_dbe", subject, Severity::kInfo,
        fmt::format("{} uncorrectable ECC errors over the GPU's lifetime, none since last reset",
                    *agg),
        ev));
    return;
  }
  out.push_back(
      MakeFinding("ecc.aggregate_dbe", subject, Severity::kWarn,
                  fmt::format("{} uncorrectable ECC errors over the GPU's lifetime{}", *agg,
                              vol.has() ? fmt::format(", {} since last reset", *vol)
                                        : " (count since last reset unknown)"),
                  ev));
}

void CheckRetiredPages(const GpuState& gpu, const std::string& subject, const Thresholds& t,
                       std::vector<Finding>& out) {
  const Reading<int>& sbe = gpu.retired_pages_sbe;
  const Reading<int>& dbe = gpu.retired_pages_dbe;
  ErrorList errors;
  errors.Add(sbe, "retired_pages_sbe")
      .Add(dbe, "retired_pages_dbe")
      .Add(gpu.retired_pages_pending, "retired_pages_pending");
  if (!errors.empty()) {
    out.push_back(MakeFinding("ecc.retired_pages", subject, Severity::kUnknown,
                              "retired pages unreadable: " + errors.str()));
    return;
  }
  if (!sbe.has() && !dbe.has()) return;  // Ampere and newer remap rows instead
  const int total = (sbe.has() ? *sbe : 0) + (dbe.has() ? *dbe : 0);
  const bool pending = gpu.retired_pages_pending.has() && *gpu.retired_pages_pending;
  std::vector<Evidence> ev = {
      {"retired_pages", std::to_string(total), fmt::format("< {}", t.retired_pages_fail)}};
  if (sbe.has()) ev.push_back({"retired_pages_sbe", std::to_string(*sbe), ""});
  if (dbe.has()) ev.push_back({"retired_pages_dbe", std::to_string(*dbe), ""});
  if (gpu.retired_pages_pending.has()) {
    ev.push_back({"retirement_pending", pending ? "yes" : "no", "no"});
  }
  std::vector<std::string> problems;
  if (total >= t.retired_pages_fail) {
    problems.push_back(fmt::format("{} retired pages, {} the {} limit", total,
                                   total == t.retired_pages_fail ? "at" : "over",
                                   t.retired_pages_fail));
  }
  if (pending) problems.push_back("retirement pending: reset the GPU to retire");
  if (!problems.empty()) {
    out.push_back(
        MakeFinding("ecc.retired_pages", subject, Severity::kFail, Join(problems, "; "), ev));
  } else if (total > 0) {
    out.push_back(
        MakeFinding("ecc.retired_pages", subject, Severity::kInfo,
                    fmt::format("{} retired pages (limit {})", total, t.retired_pages_fail), ev));
  } else {
    out.push_back(MakeFinding("ecc.retired_pages", subject, Severity::kOk, "no retired pages", ev));
  }
}

void CheckRowRemap(const GpuState& gpu, const std::string& subject, const Thresholds& t,
                   std::vector<Finding>& out) {
  const Reading<int>& corr = gpu.remapped_rows_correctable;
  const Reading<int>& uncorr = gpu.remapped_rows_uncorrectable;
  ErrorList errors;
  errors.Add(corr, "remapped_rows_correctable")
      .Add(uncorr, "remapped_rows_uncorrectable")
      .Add(gpu.remap_pending, "remap_pending")
      .Add(gpu.remap_failure, "remap_failure");
  if (!errors.empty()) {
    out.push_back(MakeFinding("ecc.row_remap", subject, Severity::kUnknown,
                              "row remapping state unreadable: " + errors.str()));
    return;
  }
  if (!corr.has() && !uncorr.has() && !gpu.remap_pending.has() && !gpu.remap_failure.has()) {
    // Pre-Ampere parts retire pages instead; but MIG runs only on parts that remap rows.
    if (HiddenByMig(gpu, gpu.remap_pending)) {
      out.push_back(
          MigHiddenFinding("ecc.row_remap", subject, "remapped rows", gpu.remap_pending, true));
    }
    return;
  }
  const int n_corr = corr.has() ? *corr : 0, n_uncorr = uncorr.has() ? *uncorr : 0;
  const bool pending = gpu.remap_pending.has() && *gpu.remap_pending;
  const bool failure = gpu.remap_failure.has() && *gpu.remap_failure;
  std::vector<Evidence> ev;
  if (corr.has()) ev.push_back({"remapped_rows_correctable", std::to_string(n_corr), ""});
  if (uncorr.has()) {
    ev.push_back({"remapped_rows_uncorrectable", std::to_string(n_uncorr),
                  fmt::format("< {}", t.remapped_rows_uncorrectable_fail)});
  }
  if (gpu.remap_pending.has()) ev.push_back({"remap_pending", pending ? "yes" : "no", "no"});
  if (gpu.remap_failure.has()) ev.push_back({"remap_failure", failure ? "yes" : "no", "no"});

  std::vector<std::string> problems;
  if (failure) problems.push_back("row remap failed: no spare rows left");
  if (n_uncorr >= t.remapped_rows_uncorrectable_fail) {
    problems.push_back(fmt::format("{} rows remapped for uncorrectable errors, {} the {} limit",
                                   n_uncorr,
                                   n_uncorr == t.remapped_rows_uncorrectable_fail ? "at" : "over",
                                   t.remapped_rows_uncorrectable_fail));
  }
  // A pending remap fails (not warns): the faulty row stays in use, unprotected, until a reset.
  if (pending) problems.push_back("remap pending: reset the GPU to apply it");
  if (!problems.empty()) {
    out.push_back(MakeFinding("ecc.row_remap", subject, Severity::kFail, Join(problems, "; "), ev));
  } else if (n_corr + n_uncorr > 0) {
    out.push_back(MakeFinding("ecc.row_remap", subject, Severity::kInfo,
                              fmt::format("{} rows remapped ({} correctable, {} uncorrectable)",
                                          n_corr + n_uncorr, n_corr, n_uncorr),
                              ev));
  } else {
    out.push_back(MakeFinding("ecc.row_remap", subject, Severity::kOk, "no remapped rows", ev));
  }
}

}  // namespace

void CheckEcc(const CheckInput& in, const Policy& policy, std::vector<Finding>& out) {
  const Thresholds& t = policy.thresholds;
  for (const GpuState& gpu : in.gpus.gpus) {
    if (!Evaluable(gpu)) continue;  // gpu.lost / gpu.query_failed report it
    const std::string subject = GpuSubject(gpu);
    CheckMode(gpu, subject, out);
    CheckVolatile(gpu, subject, t, out);
    CheckAggregate(gpu, subject, out);
    CheckRetiredPages(gpu, subject, t, out);
    CheckRowRemap(gpu, subject, t, out);
  }
}

}  // namespace gpuvet
