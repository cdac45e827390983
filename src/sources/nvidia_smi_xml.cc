// Parses a saved `nvidia-smi -q -x` capture into a GpuInventory. Each field is looked up by its
// element path, classified (value, "N/A", missing) and converted with its unit; a field that does
// not parse becomes a Reading error, so one garbled value never hides the rest of the capture.
#include "sources/nvidia_smi_xml.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <pugixml.hpp>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/file.h"
#include "util/strings.h"

namespace gpuvet {
namespace {

// Largest capture we read. Real ones are small (two RTX A5000s: 94 KB); this bounds garbage input.
constexpr size_t kMaxCaptureBytes = 64 << 20;

// nvidia-smi prints frame-buffer and process memory in MiB (2^20 bytes).
constexpr uint64_t kBytesPerMib = uint64_t{1} << 20;

// Longest element text quoted in an error note; the rest is elided.
constexpr size_t kMaxQuotedText = 64;

// One element looked up by path, classified by what its text says.
struct Field {
  enum class Kind { kMissing, kUnsupported, kText };
  Kind kind = Kind::kMissing;
  std::string path;       // "gpu[0]/temperature/gpu_temp", for notes
  std::string_view text;  // trimmed text (kText); points into the parsed document
  std::string note;       // why not read (kMissing, kUnsupported)
  pugi::xml_node node;    // the element (kText, kUnsupported)

  bool readable() const { return kind == Kind::kText; }
};

// The note for texts nvidia-smi prints instead of a value the driver does not offer: "N/A",
// "[N/A]", "Not Supported", "[Not Supported]" and (v13) "Requested functionality has been
// deprecated". Other words ("Unknown Error", "GPU requires reset") are errors, not unsupported.
std::optional<std::string> UnsupportedNote(std::string_view text) {
  std::string_view t = text;
  if (t.size() >= 2 && t.front() == '[' && t.back() == ']') t = Trim(t.substr(1, t.size() - 2));
  constexpr std::string_view kWords[] = {"N/A", "Not Supported",
                                         "Requested functionality has been deprecated"};
  for (std::string_view word : kWords) {
    if (t == word) return "nvidia-smi reports " + std::string(word);
  }
  return std::nullopt;
}

Field FromNode(pugi::xml_node node, std::string path) {
  Field f;
  f.path = std::move(path);
  f.node = node;
  f.text = Trim(node.child_value());
  if (auto note = UnsupportedNote(f.text)) {
    f.kind = Field::Kind::kUnsupported;
    f.note = *note;
  } else {
    f.kind = Field::Kind::kText;
  }
  return f;
}

// Looks up `rel` ("temperature/gpu_temp") below `base`, whose path is `base_path`. A missing
// element under a container that says "N/A" as a whole (<remapped_rows>N/A</remapped_rows>) is
// unsupported, not missing.
Field Lookup(pugi::xml_node base, std::string_view base_path, std::string_view rel) {
  std::string path = fmt::format("{}/{}", base_path, rel);
  pugi::xml_node node = base;
  for (std::string_view name : Split(rel, '/')) {
    pugi::xml_node next = node.child(std::string(name).c_str());
    if (!next) {
      Field f;
      f.path = std::move(path);
      auto note = node == base ? std::nullopt : UnsupportedNote(Trim(node.child_value()));
      f.kind = note ? Field::Kind::kUnsupported : Field::Kind::kMissing;
      f.note = note ? *note : "not in capture";
      return f;
    }
    node = next;
  }
  return FromNode(node, std::move(path));
}

// The first of `fields` present in the capture (element spellings differ between versions).
Field FirstPresent(std::initializer_list<Field> fields) {
  for (const Field& f : fields) {
    if (f.kind != Field::Kind::kMissing) return f;
  }
  return *fields.begin();
}

std::string Quote(std::string_view text) {
  if (text.size() <= kMaxQuotedText) return fmt::format("'{}'", text);
  return fmt::format("'{}...' ({} bytes)", text.substr(0, kMaxQuotedText), text.size());
}

template <typename T>
Reading<T> NotRead(const Field& f) {
  return Reading<T>::Unsupported(f.note);
}

template <typename T>
Reading<T> Garbled(const Field& f, std::string_view what) {
  // nvidia-smi prints NVML errors in place of values: "Unknown Error", "[GPU requires reset]".
  if (EndsWith(f.text, "Error") || EndsWith(f.text, "]")) {
    return Reading<T>::Error(fmt::format("{}: nvidia-smi reports {}", f.path, Quote(f.text)));
  }
  return Reading<T>::Error(fmt::format("{}: cannot parse {} as {}", f.path, Quote(f.text), what));
}

std::string Expected(std::string_view unit) {
  return unit.empty() ? "an integer" : fmt::format("an integer in {}", unit);
}

// "27 C" -> "27" for unit "C". A bare number is accepted too (nothing else is ambiguous).
std::string_view StripUnit(std::string_view text, std::string_view unit) {
  if (!unit.empty() && EndsWith(text, unit)) return Trim(text.substr(0, text.size() - unit.size()));
  return text;
}

Reading<int> ToInt(const Field& f, std::string_view unit) {
  if (!f.readable()) return NotRead<int>(f);
  std::optional<int64_t> v = ParseInt(StripUnit(f.text, unit));
  if (!v || *v < INT_MIN || *v > INT_MAX) return Garbled<int>(f, Expected(unit));
  return Reading<int>::Of(static_cast<int>(*v));
}

Reading<uint64_t> ToUint(const Field& f, std::string_view unit) {
  if (!f.readable()) return NotRead<uint64_t>(f);
  std::optional<uint64_t> v = ParseUint(StripUnit(f.text, unit));
  if (!v) return Garbled<uint64_t>(f, unit.empty() ? "a count" : Expected(unit));
  return Reading<uint64_t>::Of(*v);
}

Reading<uint64_t> ToBytesFromMib(const Field& f) {
  Reading<uint64_t> mib = ToUint(f, "MiB");
  if (!mib.has()) return mib;
  if (*mib > UINT64_MAX / kBytesPerMib) return Garbled<uint64_t>(f, "a size in MiB (overflow)");
  return Reading<uint64_t>::Of(*mib * kBytesPerMib);
}

Reading<double> ToDouble(const Field& f, std::string_view unit) {
  if (!f.readable()) return NotRead<double>(f);
  std::optional<double> v = ParseDouble(StripUnit(f.text, unit));
  if (!v || !std::isfinite(*v)) return Garbled<double>(f, fmt::format("a number in {}", unit));
  return Reading<double>::Of(*v);
}

// The on/off words nvidia-smi uses for modes, flags and clock event reasons.
Reading<bool> ToBool(const Field& f) {
  if (!f.readable()) return NotRead<bool>(f);
  constexpr std::pair<std::string_view, bool> kWords[] = {
      {"Enabled", true}, {"Disabled", false}, {"Yes", true},
      {"No", false},     {"Active", true},    {"Not Active", false},
  };
  for (const auto& [word, value] : kWords) {
    if (f.text == word) return Reading<bool>::Of(value);
  }
  return Garbled<bool>(f, "Enabled/Disabled, Yes/No or Active/Not Active");
}

Reading<std::string> ToText(const Field& f) {
  if (!f.readable()) return NotRead<std::string>(f);
  if (f.text.empty()) return Reading<std::string>::Error(f.path + ": empty");
  return Reading<std::string>::Of(std::string(f.text));
}

// Identity strings (name, serial) are plain strings in GpuState: empty when not reported.
std::string TextOrEmpty(const Field& f) { return f.readable() ? std::string(f.text) : ""; }

// "P0" .. "P15" (NVML performance states).
Reading<int> ToPerformanceState(const Field& f) {
  if (!f.readable()) return NotRead<int>(f);
  std::optional<int64_t> v;
  if (StartsWith(f.text, "P")) v = ParseInt(f.text.substr(1));
  if (!v || *v < 0 || *v > 15) return Garbled<int>(f, "a performance state P0..P15");
  return Reading<int>::Of(static_cast<int>(*v));
}

// "12.2" -> 12020: the CUDA driver API encoding, 1000 * major + 10 * minor.
Reading<int> ToCudaVersion(const Field& f) {
  if (!f.readable()) return NotRead<int>(f);
  std::vector<std::string_view> parts = Split(f.text, '.');
  std::optional<int64_t> major = ParseInt(parts[0]);
  std::optional<int64_t> minor = parts.size() == 2 ? ParseInt(parts[1]) : int64_t{0};
  if (parts.size() > 2 || !major || !minor || *major < 0 || *major > 1000 || *minor < 0 ||
      *minor > 99) {
    return Garbled<int>(f, "a CUDA version like 12.2");
  }
  return Reading<int>::Of(static_cast<int>(*major * 1000 + *minor * 10));
}

std::optional<uint32_t> ParseHex(std::string_view s, size_t max_digits) {
  uint32_t v = 0;
  if (s.empty() || s.size() > max_digits) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// "00000000:01:00.0" (NVML's 8-digit domain, upper case) -> "0000:01:00.0" (sysfs form).
std::optional<std::string> NormalisePciBusId(std::string_view text) {
  std::vector<std::string_view> parts = Split(text, ':');
  if (parts.size() != 3) return std::nullopt;
  std::vector<std::string_view> dev_fn = Split(parts[2], '.');
  if (dev_fn.size() != 2) return std::nullopt;
  std::optional<uint32_t> domain = ParseHex(parts[0], 8);
  std::optional<uint32_t> bus = ParseHex(parts[1], 2);
  std::optional<uint32_t> dev = ParseHex(dev_fn[0], 2);
  std::optional<uint32_t> fn = ParseHex(dev_fn[1], 1);
  // PCI: 32 devices per bus, 8 functions per device.
  if (!domain || !bus || !dev || !fn || *dev > 31 || *fn > 7) return std::nullopt;
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", *domain, *bus, *dev, *fn);
}

// True if either says so; otherwise an error, a value, or the more telling "unsupported" note.
Reading<bool> AnyTrue(const Reading<bool>& a, const Reading<bool>& b) {
  if ((a.has() && *a) || (b.has() && *b)) return Reading<bool>::Of(true);
  if (a.error()) return a;
  if (b.error()) return b;
  if (a.has()) return a;
  if (b.has()) return b;
  return a.note == "not in capture" ? b : a;
}

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
  return Reading<uint64_t>::Unsupported("not in capture");
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
  std::string note = "not in capture";
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

  // v12+ renamed <power_readings> to <gpu_power_readings> and the enforced limit to
  // current_power_limit; v13 replaced power_draw with average_ and instant_power_draw.
  const std::string pw = gpu.child("gpu_power_readings") ? "gpu_power_readings" : "power_readings";
  g.power_w = ToDouble(FirstPresent({at(pw + "/power_draw"), at(pw + "/instant_power_draw")}), "W");
  g.power_limit_w =
      ToDouble(FirstPresent({at(pw + "/enforced_power_limit"), at(pw + "/current_power_limit"),
                             at(pw + "/power_limit")}),
               "W");
  g.default_power_limit_w = ToDouble(at(pw + "/default_power_limit"), "W");

  const std::string link = "pci/pci_gpu_link_info";
  g.pcie_gen = ToInt(at(link + "/pcie_gen/current_link_gen"), "");
  g.pcie_gen_max = ToInt(FirstPresent({at(link + "/pcie_gen/max_link_gen"),
                                       at(link + "/pcie_gen/max_device_link_gen")}),
                         "");
  g.pcie_width = ToInt(at(link + "/link_widths/current_link_width"), "x");
  g.pcie_width_max = ToInt(at(link + "/link_widths/max_link_width"), "x");
  g.pcie_replay_counter = ToUint(at("pci/replay_counter"), "");

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
  return g;
}

size_t LineOf(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
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
  pugi::xml_node root = doc.document_element();
  if (std::string_view(root.name()) != "nvidia_smi_log") {
    size_t offset = root.offset_debug() < 0 ? 0 : static_cast<size_t>(root.offset_debug());
    return InvalidInput(
        fmt::format("{}: not an nvidia-smi -q -x capture: root element is <{}> at byte {} (line "
                    "{}), expected <nvidia_smi_log>",
                    origin, root.name(), offset, LineOf(xml, offset)));
  }

  GpuInventory inv;
  inv.origin = fmt::format("nvidia-smi-xml ({})", origin);
  inv.state = GpuSourceState::kOk;
  const std::string_view top = "nvidia_smi_log";
  inv.driver_version = ToText(Lookup(root, top, "driver_version"));
  inv.nvml_version = Reading<std::string>::Unsupported("not in capture");
  inv.cuda_driver_version = ToCudaVersion(Lookup(root, top, "cuda_version"));

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
  return inv;
}

Result<GpuInventory> LoadNvidiaSmiXml(const std::string& path) {
  Result<std::string> text = ReadFile(path, kMaxCaptureBytes);
  if (!text.ok()) return text.status();
  return ParseNvidiaSmiXml(*text, path);
}

}  // namespace gpuvet
