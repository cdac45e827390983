// Parses a saved `nvidia-smi -q -x` capture into a GpuInventory: the document walk. Each field is
// looked up by its element path and converted with its unit (nvidia_smi_xml_values.h); a field that
// does not parse becomes a Reading error, so one garbled value never hides the rest of the capture.
#include "sources/nvml/nvidia_smi_xml.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <iterator>
#include <optional>
#include <pugixml.hpp>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sources/nvml/nvidia_smi_xml_values.h"
#include "util/file.h"
#include "util/strings.h"
#include "util/utf8.h"

namespace gpuvet {
namespace {

using smi_xml_internal::AnyTrue;
using smi_xml_internal::Field;
using smi_xml_internal::FirstPresent;
using smi_xml_internal::FirstReadable;
using smi_xml_internal::FromNode;
using smi_xml_internal::Garbled;
using smi_xml_internal::Lookup;
using smi_xml_internal::NormalisePciBusId;
using smi_xml_internal::NotRead;
using smi_xml_internal::Quote;
using smi_xml_internal::TextOrEmpty;
using smi_xml_internal::ToBool;
using smi_xml_internal::ToBytesFromMib;
using smi_xml_internal::ToCudaVersion;
using smi_xml_internal::ToDouble;
using smi_xml_internal::ToInt;
using smi_xml_internal::ToPerformanceState;
using smi_xml_internal::ToText;
using smi_xml_internal::ToUint;

// Largest capture we read. Real ones are small (two RTX A5000s: 94 KB); this bounds garbage input.
constexpr size_t kMaxCaptureBytes = 64 << 20;

// Element suffixes under <clocks_event_reasons> (v12+) or <clocks_throttle_reasons> (older), and
// their NVML bits.
constexpr std::pair<std::string_view, uint64_t> kClockReasons[] = {
    {"gpu_idle", clock_reason::kGpuIdle},
    {"applications_clocks_setting", clock_reason::kApplicationsClocksSetting},
    {"sw_power_cap", clock_reason::kSwPowerCap},
    {"hw_slowdown", clock_reason::kHwSlowdown},
    {"sync_boost", clock_reason::kSyncBoost},
    {"sw_thermal_slowdown", clock_reason::kSwThermalSlowdown},
    {"hw_thermal_slowdown", clock_reason::kHwThermalSlowdown},
    {"hw_power_brake_slowdown", clock_reason::kHwPowerBrakeSlowdown},
    {"display_clocks_setting", clock_reason::kDisplayClockSetting},
};

Reading<uint64_t> ReadClockReasons(pugi::xml_node gpu, std::string_view gpu_path) {
  constexpr std::pair<std::string_view, std::string_view> kSpellings[] = {
      {"clocks_event_reasons", "clocks_event_reason_"},
      {"clocks_throttle_reasons", "clocks_throttle_reason_"},
  };
  for (const auto& [container, prefix] : kSpellings) {
    Field box = Lookup(gpu, gpu_path, container);
    if (box.kind == Field::Kind::kMissing) continue;
    if (!box.readable()) return NotRead<uint64_t>(box);
    uint64_t bits = 0;
    bool any = false;
    std::string note = "nvidia-smi reports N/A";
    for (pugi::xml_node child : box.node.children()) {
      std::string_view name = child.name();
      if (child.type() != pugi::node_element || !StartsWith(name, prefix)) continue;
      name.remove_prefix(prefix.size());
      const auto* it = std::find_if(std::begin(kClockReasons), std::end(kClockReasons),
                                    [&](const auto& r) { return r.first == name; });
      if (it == std::end(kClockReasons)) continue;  // a reason newer than this table
      Field f = FromNode(child, fmt::format("{}/{}", box.path, child.name()));
      Reading<bool> active = ToBool(f);
      if (active.error()) return Reading<uint64_t>::Error(active.note);
      if (!active.has()) continue;
      any = true;
      if (*active) bits |= it->second;
    }
    return any ? Reading<uint64_t>::Of(bits) : Reading<uint64_t>::Unsupported(note);
  }
  return Reading<uint64_t>::Unsupported(std::string(kNotInCapture));
}

// ECC counter elements of the sram/dram layout (Ampere and later).
constexpr std::string_view kEccCorrectable[] = {"sram_correctable", "dram_correctable"};
constexpr std::string_view kEccUncorrectable[] = {"sram_uncorrectable", "sram_uncorrectable_parity",
                                                  "sram_uncorrectable_secded",
                                                  "dram_uncorrectable"};

// Sums the ECC counters under `rel` ("ecc_errors/volatile"). Ampere and later report
// sram_/dram_ (un)correctable (v13 splits SRAM uncorrectable into parity and SEC-DED); older GPUs
// report single_bit/double_bit with a <total>.
Reading<uint64_t> SumEcc(pugi::xml_node gpu, std::string_view gpu_path, std::string_view rel,
                         bool correctable) {
  Field scope = Lookup(gpu, gpu_path, rel);
  if (!scope.readable()) return NotRead<uint64_t>(scope);
  std::vector<Field> counters;
  const char* bits_name = correctable ? "single_bit" : "double_bit";
  if (scope.node.child(bits_name)) {
    counters.push_back(Lookup(scope.node, scope.path, fmt::format("{}/total", bits_name)));
  }
  const bool sram_split = scope.node.child("sram_uncorrectable_parity") ||
                          scope.node.child("sram_uncorrectable_secded");
  for (std::string_view name : correctable ? std::span<const std::string_view>(kEccCorrectable)
                                           : std::span<const std::string_view>(kEccUncorrectable)) {
    if (sram_split && name == "sram_uncorrectable") continue;  // the split parts replace it
    Field f = Lookup(scope.node, scope.path, name);
    if (f.kind != Field::Kind::kMissing) counters.push_back(std::move(f));
  }
  uint64_t sum = 0;
  bool any = false;
  std::string note(kNotInCapture);
  for (const Field& f : counters) {
    Reading<uint64_t> v = ToUint(f, "");
    if (v.error()) return v;
    if (!v.has()) {
      note = v.note;
      continue;
    }
    if (sum > UINT64_MAX - *v) return Garbled<uint64_t>(f, "a count (sum overflows)");
    sum += *v;
    any = true;
  }
  return any ? Reading<uint64_t>::Of(sum) : Reading<uint64_t>::Unsupported(note);
}

// <processes><process_info>. Graphics-only entries (type "G", e.g. Xorg) are left out, matching
// NVML's compute process list; a missing or N/A pid is kept as pid 0.
Reading<std::vector<GpuProcess>> ReadProcesses(pugi::xml_node gpu, std::string_view gpu_path) {
  using Procs = Reading<std::vector<GpuProcess>>;
  Field box = Lookup(gpu, gpu_path, "processes");
  if (!box.readable()) return NotRead<std::vector<GpuProcess>>(box);
  std::vector<GpuProcess> processes;
  int i = 0;
  for (pugi::xml_node p : box.node.children("process_info")) {
    std::string path = fmt::format("{}/process_info[{}]", box.path, i++);
    Field type = Lookup(p, path, "type");
    if (type.readable() && type.text == "G") continue;
    Field pid_field = Lookup(p, path, "pid");
    Reading<uint64_t> pid = ToUint(pid_field, "");
    if (pid.error()) return Procs::Error(pid.note);
    if (pid.has() && *pid > UINT32_MAX) return Procs::Error(path + "/pid: out of range");
    Reading<uint64_t> mem = ToBytesFromMib(Lookup(p, path, "used_memory"));
    if (mem.error()) return Procs::Error(mem.note);
    processes.push_back(
        GpuProcess{pid.has() ? static_cast<uint32_t>(*pid) : 0, mem.has() ? *mem : 0});
  }
  return Procs::Of(std::move(processes));
}

// nvidia-smi's own error texts, printed in place of a value ("Unknown Error", "GPU requires
// reset", "GPU is lost. Reboot the system to recover this GPU"): the text as a finding names it.
std::optional<std::string_view> ErrorText(std::string_view text) {
  for (std::string_view e : {"Unknown Error", "GPU requires reset", "GPU is lost"}) {
    if (StartsWith(text, e)) return e;
  }
  return std::nullopt;
}

// Counts the value fields below `node` (leaf elements) and records those holding an error text,
// by element path (the text reader's source note when it has one). Iterative: a deep document
// cannot exhaust the stack.
void ScanErrorValues(pugi::xml_node gpu, const std::string& gpu_path, GpuState& g) {
  std::vector<std::pair<pugi::xml_node, std::string>> todo = {{gpu, gpu_path}};
  while (!todo.empty()) {
    auto [node, path] = std::move(todo.back());
    todo.pop_back();
    for (pugi::xml_node child : node.children()) {
      if (child.type() != pugi::node_element) continue;
      std::string child_path = fmt::format("{}/{}", path, child.name());
      if (child.find_child([](pugi::xml_node n) { return n.type() == pugi::node_element; })) {
        todo.emplace_back(child, std::move(child_path));
        continue;
      }
      if (std::string_view(child.name()) == "handle_error") continue;  // the GPU's, not a field
      ++g.value_fields;
      if (std::optional<std::string_view> e = ErrorText(Trim(child.child_value()))) {
        std::string where = child_path;
        if (pugi::xml_attribute src = child.attribute("gpuvet_src")) {
          where = fmt::format("{} ({})", child_path, src.value());
        }
        g.error_values.push_back(CallFailure{std::move(where), std::string(*e), false});
      }
    }
  }
  // The text reader counts every value line of the section, also those it keeps no element for.
  if (pugi::xml_attribute n = gpu.attribute("gpuvet_values")) g.value_fields = n.as_int();
}

// What "Unable to determine the device handle for GPU…: TEXT" says about the GPU.
GpuFault HandleFaultOf(std::string_view text) {
  if (StartsWith(text, "GPU is lost")) return GpuFault::kLost;
  if (StartsWith(text, "GPU requires reset")) return GpuFault::kResetRequired;
  if (StartsWith(text, "Unknown Error")) return GpuFault::kUnknown;
  if (StartsWith(text, "Insufficient Permissions")) return GpuFault::kNoPermission;
  if (StartsWith(text, "Insufficient External Power")) return GpuFault::kInsufficientPower;
  if (StartsWith(text, "Interrupt Request Issue")) return GpuFault::kIrqIssue;
  if (StartsWith(text, "Corrupted infoROM")) return GpuFault::kCorruptedInforom;
  if (StartsWith(text, "Timeout")) return GpuFault::kTimeout;
  return GpuFault::kOther;
}

GpuState ParseGpu(pugi::xml_node gpu, int index) {
  const std::string p = fmt::format("gpu[{}]", index);
  auto at = [&](std::string_view rel) { return Lookup(gpu, p, rel); };
  GpuState g;
  g.index = index;
  g.name = TextOrEmpty(at("product_name"));
  g.uuid = TextOrEmpty(at("uuid"));
  g.serial = TextOrEmpty(at("serial"));
  g.vbios_version = TextOrEmpty(at("vbios_version"));
  g.minor_number = ToInt(at("minor_number"), "");

  Field bus_id = at("pci/pci_bus_id");
  std::string bus_text = bus_id.readable() ? std::string(bus_id.text) : gpu.attribute("id").value();
  if (std::optional<std::string> normalised = NormalisePciBusId(bus_text)) {
    g.pci_bus_id = *normalised;
  } else {
    g.pci_bus_id = ToLower(bus_text);
    g.failures.push_back(CallFailure{
        "pci/pci_bus_id",
        fmt::format("{}: cannot parse {} as a PCI address", bus_id.path, Quote(bus_text)), false});
  }

  g.persistence_mode = ToBool(at("persistence_mode"));
  g.performance_state = ToPerformanceState(at("performance_state"));
  g.gpu_util_pct = ToInt(at("utilization/gpu_util"), "%");
  g.memory_util_pct = ToInt(at("utilization/memory_util"), "%");
  g.memory_total_bytes = ToBytesFromMib(at("fb_memory_usage/total"));
  g.memory_used_bytes = ToBytesFromMib(at("fb_memory_usage/used"));

  g.sm_clock_mhz = ToInt(at("clocks/sm_clock"), "MHz");
  g.sm_clock_max_mhz = ToInt(at("max_clocks/sm_clock"), "MHz");
  g.mem_clock_mhz = ToInt(at("clocks/mem_clock"), "MHz");
  g.mem_clock_max_mhz = ToInt(at("max_clocks/mem_clock"), "MHz");
  g.clock_event_reasons = ReadClockReasons(gpu, p);

  g.temperature_c = ToInt(at("temperature/gpu_temp"), "C");
  g.slowdown_temperature_c = ToInt(at("temperature/gpu_temp_slow_threshold"), "C");
  g.shutdown_temperature_c = ToInt(at("temperature/gpu_temp_max_threshold"), "C");
  // Ada and newer: the margin below T.Limit and the slowdown/shutdown offsets relative to it.
  g.temperature_margin_c = ToInt(at("temperature/gpu_temp_tlimit"), "C");
  g.slowdown_tlimit_c = ToInt(at("temperature/gpu_temp_slow_tlimit_threshold"), "C");
  g.shutdown_tlimit_c = ToInt(at("temperature/gpu_temp_max_tlimit_threshold"), "C");

  // v12+ renamed <power_readings> to <gpu_power_readings> and the enforced limit to
  // current_power_limit; v13 replaced power_draw with average_ and instant_power_draw. Where
  // power_draw says N/A (drivers that fill only the instantaneous reading), the instantaneous one
  // stands in.
  const std::string pw = gpu.child("gpu_power_readings") ? "gpu_power_readings" : "power_readings";
  g.power_w =
      ToDouble(FirstReadable({at(pw + "/power_draw"), at(pw + "/instant_power_draw")}), "W");
  g.power_limit_w =
      ToDouble(FirstPresent({at(pw + "/enforced_power_limit"), at(pw + "/current_power_limit"),
                             at(pw + "/power_limit")}),
               "W");
  g.default_power_limit_w = ToDouble(at(pw + "/default_power_limit"), "W");
  g.requested_power_limit_w = ToDouble(at(pw + "/requested_power_limit"), "W");

  const std::string link = "pci/pci_gpu_link_info";
  g.pcie_gen = ToInt(at(link + "/pcie_gen/current_link_gen"), "");
  g.pcie_gen_max = ToInt(FirstPresent({at(link + "/pcie_gen/max_link_gen"),
                                       at(link + "/pcie_gen/max_device_link_gen")}),
                         "");
  g.pcie_width = ToInt(at(link + "/link_widths/current_link_width"), "x");
  g.pcie_width_max = ToInt(at(link + "/link_widths/max_link_width"), "x");
  g.pcie_replay_counter = ToUint(at("pci/replay_counter"), "");
  // "Pass-Through" or "VGPU": the capture was taken in a virtual machine (the PCIe rules judge
  // its link without reseat advice).
  g.virtualization_mode = ToText(at("gpu_virtualization_mode/virtualization_mode"));

  g.ecc_enabled = ToBool(at("ecc_mode/current_ecc"));
  g.ecc_pending_enabled = ToBool(at("ecc_mode/pending_ecc"));
  g.ecc_corrected_volatile = SumEcc(gpu, p, "ecc_errors/volatile", true);
  g.ecc_uncorrected_volatile = SumEcc(gpu, p, "ecc_errors/volatile", false);
  g.ecc_corrected_aggregate = SumEcc(gpu, p, "ecc_errors/aggregate", true);
  g.ecc_uncorrected_aggregate = SumEcc(gpu, p, "ecc_errors/aggregate", false);

  g.retired_pages_sbe = ToInt(at("retired_pages/multiple_single_bit_retirement/retired_count"), "");
  g.retired_pages_dbe = ToInt(at("retired_pages/double_bit_retirement/retired_count"), "");
  // pending_blacklist (older) and pending_retirement (newer) both report the NVML pending status.
  g.retired_pages_pending = AnyTrue(ToBool(at("retired_pages/pending_blacklist")),
                                    ToBool(at("retired_pages/pending_retirement")));
  g.remapped_rows_correctable = ToInt(at("remapped_rows/remapped_row_corr"), "");
  g.remapped_rows_uncorrectable = ToInt(at("remapped_rows/remapped_row_unc"), "");
  g.remap_pending = ToBool(at("remapped_rows/remapped_row_pending"));
  g.remap_failure = ToBool(at("remapped_rows/remapped_row_failure"));

  g.mig_enabled = ToBool(at("mig_mode/current_mig"));
  g.mig_pending_enabled = ToBool(at("mig_mode/pending_mig"));
  Field mig_devices = at("mig_devices");  // "None" or <mig_device> entries
  if (g.mig_enabled.unsupported()) {
    g.mig_instances = Reading<int>::Unsupported(g.mig_enabled.note);
  } else if (!mig_devices.readable()) {
    g.mig_instances = NotRead<int>(mig_devices);
  } else {
    auto devices = mig_devices.node.children("mig_device");
    g.mig_instances =
        Reading<int>::Of(static_cast<int>(std::distance(devices.begin(), devices.end())));
  }

  g.compute_processes = ReadProcesses(gpu, p);
  // Driver 570+ health fields.
  g.recovery_action = ToText(at("gpu_recovery_action"));
  g.unrepairable_memory = ToBool(at("ecc_errors/unrepairable_memory"));
  g.channel_repair_pending = ToBool(at("ecc_errors/channel_repair_pending"));
  g.tpc_repair_pending = ToBool(at("ecc_errors/tpc_repair_pending"));
  g.sram_threshold_exceeded = ToBool(at("ecc_errors/aggregate/sram_threshold_exceeded"));
  g.fabric_state = ToText(at("fabric/state"));
  g.fabric_status = ToText(at("fabric/status"));
  // A GPU nvidia-smi could not open ("Unable to determine the device handle for GPU…: Unknown
  // Error", kept by the text reader as <handle_error>): nothing else of it was printed.
  if (pugi::xml_node handle = gpu.child("handle_error")) {
    g.handle_fault = HandleFaultOf(Trim(handle.child_value()));
    g.failures.clear();  // its empty fields are not unparseable ones
    if (g.handle_fault == GpuFault::kLost) {
      g.lost = true;
      g.lost_call = "nvidia-smi: Unable to determine the device handle";
    } else if (g.handle_fault == GpuFault::kResetRequired) {
      g.reset_required = true;
      g.reset_required_call = "nvidia-smi: Unable to determine the device handle";
    } else {
      g.failures.push_back(CallFailure{"nvidia-smi: Unable to determine the device handle",
                                       std::string(Trim(handle.child_value())), false});
    }
    return g;
  }
  ScanErrorValues(gpu, p, g);
  // A field reading "GPU requires reset" or "GPU is lost" speaks for the whole GPU.
  for (const CallFailure& f : g.error_values) {
    if (f.message == "GPU requires reset" && !g.reset_required) {
      g.reset_required = true;
      g.reset_required_call = f.call;
    } else if (f.message == "GPU is lost" && !g.lost) {
      g.lost = true;
      g.lost_call = f.call;
    }
  }
  return g;
}

size_t LineOf(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
}

}  // namespace

namespace smi_xml_internal {

GpuInventory ReadSmiLog(pugi::xml_node root, std::string origin) {
  GpuInventory inv;
  inv.origin = std::move(origin);
  inv.state = GpuSourceState::kOk;
  inv.from_capture = true;
  const std::string_view top = "nvidia_smi_log";
  inv.driver_version = ToText(Lookup(root, top, "driver_version"));
  inv.nvml_version = Reading<std::string>::Unsupported(std::string(kNotInCapture));
  inv.cuda_driver_version = ToCudaVersion(Lookup(root, top, "cuda_version"));
  inv.captured_at = ToText(Lookup(root, top, "timestamp"));

  int index = 0;
  for (pugi::xml_node gpu : root.children("gpu")) inv.gpus.push_back(ParseGpu(gpu, index++));

  Field attached = Lookup(root, top, "attached_gpus");
  if (attached.kind == Field::Kind::kMissing) {
    // Minimal captures (v10) omit attached_gpus; every attached GPU still has a <gpu> element.
    inv.device_count = Reading<int>::Of(static_cast<int>(inv.gpus.size()));
    inv.device_count.note = "attached_gpus not in capture; counted <gpu> elements";
  } else {
    inv.device_count = ToInt(attached, "");
  }
  inv.capture_selected = root.attribute("gpuvet_selected").as_bool();
  return inv;
}

}  // namespace smi_xml_internal

namespace {

// What pugixml's parse_default lets through that XML 1.0 forbids, as "at byte N (line L): what",
// or nullopt: a control character (XML 1.0 "Char": only tab, CR and LF below 0x20), an '&' that
// starts no entity or character reference, text or a second element after the root element.
// Comments, CDATA sections and processing instructions are skipped when scanning for '&'.
std::optional<std::string> NotWellFormed(std::string_view xml, const pugi::xml_document& doc) {
  auto at = [&](size_t offset, const std::string& what) {
    return fmt::format("at byte {} (line {}): {}", offset, LineOf(xml, offset), what);
  };
  for (size_t i = 0; i < xml.size(); ++i) {
    const auto c = static_cast<unsigned char>(xml[i]);
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
      return at(i, fmt::format("control character 0x{:02x} is not allowed in XML", c));
    }
    if (c == '<') {
      for (auto [open, close] : {std::pair<std::string_view, std::string_view>{"<!--", "-->"},
                                 {"<![CDATA[", "]]>"},
                                 {"<?", "?>"}}) {
        if (xml.substr(i, open.size()) == open) {
          size_t end = xml.find(close, i + open.size());
          if (end == std::string_view::npos) return at(i, "unterminated " + std::string(open));
          i = end + close.size() - 1;
          break;
        }
      }
    } else if (c == '&') {
      size_t semi = xml.find(';', i);
      std::string_view ref = xml.substr(i + 1, semi == std::string_view::npos ? 0 : semi - i - 1);
      bool known = ref == "amp" || ref == "lt" || ref == "gt" || ref == "quot" || ref == "apos";
      if (!known && ref.size() >= 2 && ref.size() <= 8 && ref[0] == '#') {
        const bool hex = ref[1] == 'x';
        known = ref.size() > (hex ? 2u : 1u);
        for (char d : ref.substr(hex ? 2 : 1)) {
          known = known && (hex ? std::isxdigit(static_cast<unsigned char>(d)) != 0
                                : std::isdigit(static_cast<unsigned char>(d)) != 0);
        }
      }
      if (!known) return at(i, "'&' starts no entity or character reference (write &amp;)");
    }
  }
  int elements = 0;
  for (pugi::xml_node n = doc.first_child(); n; n = n.next_sibling()) {
    const size_t offset = n.offset_debug() < 0 ? 0 : static_cast<size_t>(n.offset_debug());
    if (n.type() == pugi::node_element && ++elements > 1) {
      return at(offset,
                fmt::format("a second top-level element <{}> after the root element", n.name()));
    }
    if (n.type() == pugi::node_pcdata && !Trim(n.value()).empty()) {
      return at(offset, "text outside the root element");
    }
  }
  // pugixml drops text after the last element without a word: only white space may follow it.
  const size_t last = xml.rfind('>');
  if (last != std::string_view::npos) {
    for (size_t i = last + 1; i < xml.size(); ++i) {
      if (xml[i] != ' ' && xml[i] != '\t' && xml[i] != '\r' && xml[i] != '\n') {
        return at(i, "text outside the root element");
      }
    }
  }
  return std::nullopt;
}

// Product names, serials and notes are quoted in findings: every text and attribute value with
// invalid UTF-8 is rewritten in the parsed document (util/utf8.h), after parsing, so the byte
// offsets of parse errors still point into the file as it is.
void MakeTextValidUtf8(pugi::xml_document& doc) {
  // pugixml's traverse() walks without recursion, so a deeply nested capture cannot exhaust the
  // stack here.
  struct Walker : pugi::xml_tree_walker {
    bool for_each(pugi::xml_node& n) override {
      if (!IsValidUtf8(n.value())) n.set_value(MakeValidUtf8(n.value()).c_str());
      for (pugi::xml_attribute a = n.first_attribute(); a; a = a.next_attribute()) {
        if (!IsValidUtf8(a.value())) a.set_value(MakeValidUtf8(a.value()).c_str());
      }
      return true;
    }
  } walker;
  doc.traverse(walker);
}

}  // namespace

Result<GpuInventory> ParseNvidiaSmiXml(std::string_view xml, std::string_view origin) {
  pugi::xml_document doc;
  pugi::xml_parse_result parsed = doc.load_buffer(xml.data(), xml.size(), pugi::parse_default);
  if (!parsed) {
    size_t offset = parsed.offset < 0 ? 0 : static_cast<size_t>(parsed.offset);
    const bool at_end =
        offset + 1 >= xml.size() && parsed.status != pugi::status_no_document_element;
    const char* hint = at_end ? " (file ends early: truncated?)" : "";
    return InvalidInput(fmt::format("{}: malformed nvidia-smi XML at byte {} (line {}): {}{}",
                                    origin, offset, LineOf(xml, offset), parsed.description(),
                                    hint));
  }
  // pugixml accepts some documents that are not well-formed XML; a capture cut and pasted
  // together, or damaged in transit, must not be read as data.
  if (std::optional<std::string> bad = NotWellFormed(xml, doc)) {
    return InvalidInput(fmt::format("{}: malformed nvidia-smi XML {}", origin, *bad));
  }
  MakeTextValidUtf8(doc);
  pugi::xml_node root = doc.document_element();
  if (std::string_view(root.name()) != "nvidia_smi_log") {
    size_t offset = root.offset_debug() < 0 ? 0 : static_cast<size_t>(root.offset_debug());
    return InvalidInput(
        fmt::format("{}: not an nvidia-smi -q -x capture: root element is <{}> at byte {} (line "
                    "{}), expected <nvidia_smi_log>",
                    origin, root.name(), offset, LineOf(xml, offset)));
  }

  return smi_xml_internal::ReadSmiLog(root, fmt::format("nvidia-smi-xml ({})", origin));
}

Result<GpuInventory> LoadNvidiaSmiXml(const std::string& path) {
  // `--nvidia-smi-xml <(ssh node nvidia-smi -q -x)` is read to its end; a device is refused.
  Result<std::string> text = ReadFile(path, kMaxCaptureBytes, FileKinds::kRegularOrPipe);
  if (!text.ok()) return text.status();
  return ParseNvidiaSmiXml(*text, path);
}

}  // namespace gpuvet
