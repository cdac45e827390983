// Per-GPU settings and links that decide whether a GPU is ready for jobs: persistence mode, MIG
// mode (and changes pending until reset), NVLink links up and their error counters.
#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "rules/rules.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

void CheckPersistence(const GpuState& gpu, const std::string& subject, std::vector<Finding>& out) {
  const Reading<bool>& pm = gpu.persistence_mode;
  if (pm.error()) {
    out.push_back(MakeFinding("settings.persistence_mode", subject, Severity::kUnknown,
                              "persistence mode unreadable: " + pm.note));
    return;
  }
  if (!pm.has()) return;
  std::vector<Evidence> ev = {{"persistence_mode", *pm ? "enabled" : "disabled", "enabled"}};
  out.push_back(*pm ? MakeFinding("settings.persistence_mode", subject, Severity::kOk,
                                  "persistence mode enabled", ev)
                    : MakeFinding("settings.persistence_mode", subject, Severity::kWarn,
                                  "persistence mode disabled", ev));
}

void CheckMig(const GpuState& gpu, const std::string& subject, std::vector<Finding>& out) {
  const Reading<bool>& mig = gpu.mig_enabled;
  if (mig.error()) {
    out.push_back(
        MakeFinding("mig.mode", subject, Severity::kUnknown, "MIG mode unreadable: " + mig.note));
    return;
  }
  if (!mig.has()) return;  // MIG not supported by this GPU
  const auto on_off = [](bool b) { return std::string(b ? "enabled" : "disabled"); };
  std::vector<Evidence> ev = {{"mig_mode", on_off(*mig), ""}};
  if (gpu.mig_pending_enabled.has()) {
    ev.push_back({"mig_pending", on_off(*gpu.mig_pending_enabled), "== current mode"});
  }
  std::string instances;
  if (gpu.mig_instances.has()) {
    ev.push_back({"mig_instances", std::to_string(*gpu.mig_instances), ""});
    instances = fmt::format("{} MIG device(s)", *gpu.mig_instances);
  } else if (gpu.mig_instances.error()) {
    ev.push_back({"mig_instances", "unreadable: " + gpu.mig_instances.note, ""});
    instances = "MIG device count unreadable";
  }
  if (gpu.mig_pending_enabled.has() && *gpu.mig_pending_enabled != *mig) {
    out.push_back(MakeFinding("mig.mode", subject, Severity::kWarn,
                              fmt::format("MIG {}, {} pending until GPU reset", on_off(*mig),
                                          *gpu.mig_pending_enabled ? "enabling" : "disabling"),
                              ev));
  } else if (*mig) {
    out.push_back(MakeFinding(
        "mig.mode", subject, Severity::kInfo,
        instances.empty() ? std::string("MIG enabled") : "MIG enabled: " + instances, ev));
  } else {
    out.push_back(MakeFinding("mig.mode", subject, Severity::kOk, "MIG disabled", ev));
  }
}

std::string LinkList(const std::vector<int>& links) {
  std::vector<std::string> parts;
  for (int l : links) parts.push_back(std::to_string(l));
  return Join(parts, ",");
}

void CheckLinksUp(const GpuState& gpu, const std::string& subject, std::vector<Finding>& out) {
  std::vector<int> down;
  for (const NvLinkState& l : gpu.nvlinks) {
    if (!l.active) down.push_back(l.link);
  }
  const int total = static_cast<int>(gpu.nvlinks.size());
  const int up = total - static_cast<int>(down.size());
  std::vector<Evidence> ev = {{"active_links", std::to_string(up), fmt::format("== {}", total)}};
  if (!down.empty()) ev.push_back({"inactive_links", LinkList(down), ""});
  if (down.empty()) {
    out.push_back(MakeFinding("nvlink.link_down", subject, Severity::kOk,
                              fmt::format("all {} NVLink links active", total), ev));
  } else if (up > 0) {
    out.push_back(
        MakeFinding("nvlink.link_down", subject, Severity::kFail,
                    fmt::format("NVLink {} of {} links inactive: {} {}", down.size(), total,
                                down.size() == 1 ? "link" : "links", LinkList(down)),
                    ev));
  } else {
    // All down: NVLink may simply be unused (no bridge fitted), or the fabric is not up.
    out.push_back(MakeFinding("nvlink.link_down", subject, Severity::kWarn,
                              fmt::format("all {} NVLink links inactive", total), ev));
  }
}

// Sum of the readings that have a value; `any` tells whether one did.
uint64_t SumOf(std::initializer_list<const Reading<uint64_t>*> rs, bool& any) {
  uint64_t sum = 0;
  for (const Reading<uint64_t>* r : rs) {
    if (r->has()) {
      sum += r->value;
      any = true;
    }
  }
  return sum;
}

void CheckLinkErrors(const GpuState& gpu, const std::string& subject, const Thresholds& t,
                     std::vector<Finding>& out) {
  std::vector<std::string> over, fatal, unreadable;
  std::vector<Evidence> ev;
  bool any = false, field_values = false;
  uint64_t max_crc = 0, max_rec = 0;  // worst link, for the ok evidence
  for (const NvLinkState& l : gpu.nvlinks) {
    field_values = field_values || l.from_field_values;
    for (const auto& [r, name] : {std::pair{&l.crc_flit_errors, "crc_flit"},
                                  {&l.crc_data_errors, "crc_data"},
                                  {&l.replay_errors, "replay"},
                                  {&l.recovery_errors, "recovery"},
                                  {&l.recovery_failed_events, "recovery_failed"},
                                  {&l.malformed_packet_errors, "malformed_packets"},
                                  {&l.buffer_overrun_errors, "buffer_overruns"},
                                  {&l.recovery_successful_events, "recovery_successful"},
                                  {&l.effective_errors, "effective_errors"},
                                  {&l.local_link_integrity_errors, "local_link_integrity"},
                                  {&l.rx_errors, "rx_errors"}}) {
      if (r->error()) unreadable.push_back(fmt::format("link {} {}: {}", l.link, name, r->note));
    }
    // Fatal (NVLink5 counters): the link lost data or did not come back from a recovery. One is
    // enough: the job using the link saw an error.
    std::vector<std::string> lost;
    struct Fatal {
      const Reading<uint64_t>* r;
      const char* key;
      const char* what;
    };
    for (const Fatal& c :
         {Fatal{&l.recovery_failed_events, "recovery_failed", "failed link recoveries"},
          Fatal{&l.malformed_packet_errors, "malformed_packets", "malformed packets"},
          Fatal{&l.buffer_overrun_errors, "buffer_overruns", "buffer overruns"}}) {
      if (c.r->has()) any = true;
      if (c.r->has() && c.r->value > 0) {
        lost.push_back(fmt::format("{} {}", c.r->value, c.what));
        ev.push_back({fmt::format("link{}_{}", l.link, c.key), std::to_string(c.r->value), "== 0"});
      }
    }
    if (!lost.empty()) fatal.push_back(fmt::format("link {}: {}", l.link, Join(lost, ", ")));
    // Non-fatal: errors the link corrected by retransmitting (CRC, effective errors after FEC,
    // integrity and receive errors) and recoveries that succeeded.
    bool crc_any = false, rec_any = false;
    const uint64_t crc = SumOf({&l.crc_flit_errors, &l.crc_data_errors, &l.effective_errors,
                                &l.local_link_integrity_errors, &l.rx_errors},
                               crc_any);
    const uint64_t rec =
        SumOf({&l.replay_errors, &l.recovery_errors, &l.recovery_successful_events}, rec_any);
    any = any || crc_any || rec_any;
    max_crc = std::max(max_crc, crc);
    max_rec = std::max(max_rec, rec);
    std::vector<std::string> why;
    if (crc_any && crc > t.nvlink_crc_max) {
      why.push_back(fmt::format("{} CRC", crc));
      ev.push_back({fmt::format("link{}_crc_errors", l.link), std::to_string(crc),
                    fmt::format("<= {}", t.nvlink_crc_max)});
    }
    if (rec_any && rec > t.nvlink_recovery_max) {
      why.push_back(fmt::format("{} replay+recovery", rec));
      ev.push_back({fmt::format("link{}_replay_recovery", l.link), std::to_string(rec),
                    fmt::format("<= {}", t.nvlink_recovery_max)});
    }
    if (!why.empty()) over.push_back(fmt::format("link {}: {}", l.link, Join(why, ", ")));
  }
  if (field_values) {
    ev.push_back({"counters",
                  "NVML field values (NVLink5: the per-link error counter call is "
                  "not supported)",
                  ""});
  }
  if (!unreadable.empty()) ev.push_back({"unreadable", Join(unreadable, "; "), ""});
  if (!fatal.empty()) {
    Finding f = MakeFinding("nvlink.errors", subject, Severity::kFail,
                            "fatal NVLink errors: " + Join(fatal, "; ") +
                                (over.empty() ? "" : "; over budget: " + Join(over, "; ")),
                            ev);
    f.meaning =
        "An NVLink link lost data or failed to come back after a recovery: the job using it got "
        "an error (on NVLink5 these come with Xid 144-150), and the link may stay degraded.";
    f.decision =
        "Drain the node; reset the GPU (on NVL72, with its NVSwitch tray as NVIDIA's recovery "
        "action says) and run `gpuvet check` again; if the counters climb again, have the "
        "link's cable, tray or GPU inspected.";
    out.push_back(std::move(f));
  } else if (!over.empty()) {
    out.push_back(MakeFinding("nvlink.errors", subject, Severity::kWarn,
                              "NVLink errors over budget: " + Join(over, "; "), ev));
  } else if (!unreadable.empty()) {
    out.push_back(MakeFinding("nvlink.errors", subject, Severity::kUnknown,
                              "NVLink error counters unreadable: " + Join(unreadable, "; "), ev));
  } else if (any) {
    ev.push_back({"links", std::to_string(gpu.nvlinks.size()), ""});
    ev.push_back({"max_crc_errors_per_link", std::to_string(max_crc),
                  fmt::format("<= {}", t.nvlink_crc_max)});
    ev.push_back({"max_replay_recovery_per_link", std::to_string(max_rec),
                  fmt::format("<= {}", t.nvlink_recovery_max)});
    out.push_back(MakeFinding(
        "nvlink.errors", subject, Severity::kOk,
        fmt::format("NVLink error counters within budget on {} links", gpu.nvlinks.size()), ev));
  }
  // No counter supported on any link: nothing to judge.
}

}  // namespace

void CheckGpuSettings(const CheckInput& in, const Policy& policy, std::vector<Finding>& out) {
  for (const GpuState& gpu : in.gpus.gpus) {
    if (!Evaluable(gpu)) continue;  // gpu.lost / gpu.query_failed report it
    const std::string subject = GpuSubject(gpu);
    CheckPersistence(gpu, subject, out);
    CheckMig(gpu, subject, out);
    if (gpu.nvlinks.empty()) continue;  // no NVLink, or not supported
    CheckLinksUp(gpu, subject, out);
    CheckLinkErrors(gpu, subject, policy.thresholds, out);
  }
}

}  // namespace gpuvet
