// The check report's HTML section (output/html/html_check.h).
#include "output/html/html_check.h"

#include <set>

namespace gpuvet::html {
namespace {

std::string Opt(const std::optional<double>& v, const std::string& unit = "") {
  return v ? Num(*v) + unit : "—";
}

}  // namespace

Result<CheckView> ReadCheckView(const nlohmann::json& doc, const std::string& what) {
  DocReader r(what);
  Node root{&doc, ""};
  CheckView v;
  v.generated_at = r.Str(root, "generated_at");
  v.policy = r.OptStr(root, "policy").value_or("");
  Node host = r.Obj(root, "host");
  v.hostname = r.OptStr(host, "hostname").value_or("");
  v.kernel_release = r.OptStr(host, "kernel_release").value_or("");
  Node src = r.Obj(root, "gpu_source");
  v.origin = r.OptStr(src, "origin").value_or("");
  v.source_state = r.OptStr(src, "state").value_or("");
  v.source_detail = r.OptStr(src, "detail").value_or("");
  v.driver_version = r.OptStr(src, "driver_version").value_or("");
  v.cuda_version = r.OptStr(src, "cuda_version").value_or("");
  v.device_count = r.OptNum(src, "device_count");
  for (const Node& g : r.Arr(root, "gpus")) {
    CheckGpuView gv;
    gv.index = r.Int(g, "index");
    gv.name = r.OptStr(g, "name").value_or("");
    gv.uuid = r.OptStr(g, "uuid").value_or("");
    gv.serial = r.OptStr(g, "serial").value_or("");
    gv.pci_bus_id = r.OptStr(g, "pci_bus_id").value_or("");
    gv.vbios = r.OptStr(g, "vbios_version").value_or("");
    gv.lost = r.Bool(g, "lost");
    gv.temperature_c = r.OptNum(g, "temperature_c");
    gv.power_w = r.OptNum(g, "power_w");
    gv.power_limit_w = r.OptNum(g, "power_limit_w");
    gv.util_pct = r.OptNum(g, "gpu_util_pct");
    gv.memory_used_bytes = r.OptNum(g, "memory_used_bytes");
    gv.memory_total_bytes = r.OptNum(g, "memory_total_bytes");
    if (std::optional<Node> p = r.OptObj(g, "pcie")) {
      gv.pcie_gen = r.OptNum(*p, "gen");
      gv.pcie_gen_max = r.OptNum(*p, "gen_max");
      gv.pcie_width = r.OptNum(*p, "width");
      gv.pcie_width_max = r.OptNum(*p, "width_max");
    }
    v.gpus.push_back(std::move(gv));
    if (!r.ok()) break;
  }
  v.findings = ReadFindings(r, root, "findings");
  Node verdict = r.Obj(root, "verdict");
  v.severity = r.Severity(verdict, "severity");
  v.healthy = r.Bool(verdict, "healthy");
  v.counts = ReadCounts(r, verdict, "counts");
  if (!r.ok()) return r.status();
  return v;
}

Section CheckSection(const CheckView& v, const std::string& id) {
  Section s;
  s.id = id;
  s.kind = "check";
  s.title = "Node check" + (v.hostname.empty() ? "" : ": " + v.hostname);
  const FindingView* worst = WorstFinding(v.findings);
  int problems = 0;
  std::set<std::string> failing_gpus;
  for (const FindingView& f : v.findings) {
    if (f.severity == "ok") continue;
    ++problems;
    if (f.severity == "fail" && f.gpu_index) {
      failing_gpus.insert("gpu" + std::to_string(*f.gpu_index) +
                          (f.gpu_uuid.empty() ? "" : " (" + f.gpu_uuid + ")"));
    }
  }
  Verdict& vd = s.verdict;
  vd.severity = v.severity;
  std::string node = v.hostname.empty() ? "this node" : v.hostname;
  vd.headline =
      node + ": " +
      (v.counts.ok + v.counts.info + v.counts.warn + v.counts.unknown + v.counts.fail == 0
           ? "NOTHING CHECKED"
       : v.healthy
           ? (v.severity == "ok" || v.severity == "info" ? "HEALTHY" : "HEALTHY, with warnings")
           : "UNHEALTHY") +
      " (" + CountsText(v.counts) + ")";
  if (worst) {
    vd.node_sentence =
        "Worst: " + worst->subject + " — " + worst->summary + " [" + worst->id + "]" +
        (problems > 1 ? "; " + std::to_string(problems - 1) + " more problem(s) below." : ".");
    vd.node_action = worst->decision.empty() ? "See the finding below." : worst->decision;
  } else {
    vd.node_sentence = "Every check passed (" + std::to_string(v.counts.ok + v.counts.info) +
                       " checks, " + std::to_string(v.gpus.size()) + " GPUs, driver " +
                       (v.driver_version.empty() ? "unknown" : v.driver_version) + ").";
    vd.node_action = "Nothing; keep running the check before jobs.";
  }
  if (v.severity == "fail") {
    vd.job_sentence = "A job here may crash, hang or run slow" +
                      (failing_gpus.empty() ? std::string(": the failure is node-wide.")
                                            : ": the failure is on " +
                                                  [&] {
                                                    std::string g;
                                                    for (const std::string& x : failing_gpus)
                                                      g += (g.empty() ? "" : ", ") + x;
                                                    return g;
                                                  }() +
                                                  ".");
    vd.job_action =
        "Run elsewhere until the node passes; a job that ran here since the fault should be "
        "checked "
        "or resumed from a checkpoint taken before it.";
  } else if (v.severity == "warn" || v.severity == "unknown") {
    vd.job_sentence = worst ? "A job can run, but " + worst->summary + "." : "A job can run.";
    vd.job_action = "If step times matter, compare them with a node without warnings.";
  } else {
    vd.job_sentence = "Nothing found here would slow a job or break it.";
    vd.job_action = "Run.";
  }

  std::string& b = s.body;
  b += "<p class=\"meta\">GPU source: " + Esc(v.origin) + " · state " + Esc(v.source_state) +
       (v.source_detail.empty() ? "" : " (" + Esc(v.source_detail) + ")") + " · driver " +
       Esc(v.driver_version.empty() ? "—" : v.driver_version) + " · CUDA " +
       Esc(v.cuda_version.empty() ? "—" : v.cuda_version) + " · kernel " + Esc(v.kernel_release) +
       " · policy " + Esc(v.policy) + " · generated " + Esc(v.generated_at) + "</p>\n";
  b += "<h3>Findings by area</h3>\n";
  std::vector<std::string> groups;
  std::vector<FindingBlock> blocks;
  for (const FindingView& f : v.findings) {
    groups.push_back(f.area);
    blocks.push_back(ToBlock(f));
  }
  b += FindingGroups(id + "-findings", groups, blocks);
  b += "<h3>GPU inventory</h3>\n";
  std::vector<std::vector<std::string>> rows;
  for (const CheckGpuView& g : v.gpus) {
    std::string pcie = g.pcie_gen ? "Gen" + Opt(g.pcie_gen) + "/" + Opt(g.pcie_gen_max) + " x" +
                                        Opt(g.pcie_width) + "/" + Opt(g.pcie_width_max)
                                  : "—";
    rows.push_back({std::to_string(g.index), g.name + (g.lost ? " (LOST)" : ""),
                    g.serial.empty() ? "—" : g.serial, g.uuid.empty() ? "—" : g.uuid, g.pci_bus_id,
                    g.vbios.empty() ? "—" : g.vbios, pcie, Opt(g.temperature_c, " °C"),
                    Opt(g.power_w, " W") + " / " + Opt(g.power_limit_w, " W"),
                    Opt(g.util_pct, " %"),
                    g.memory_used_bytes && g.memory_total_bytes
                        ? Bytes(*g.memory_used_bytes) + " / " + Bytes(*g.memory_total_bytes)
                        : "—"});
  }
  b += Table(id + "-gpus",
             {"index", "name", "serial", "UUID", "PCI address", "VBIOS", "PCIe (now/max)",
              "temperature", "power / limit", "util", "memory used / total"},
             rows);
  return s;
}

}  // namespace gpuvet::html
