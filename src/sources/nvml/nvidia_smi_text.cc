// Reads a plain `nvidia-smi -q` report by label and indentation. Each "Label : value" line is
// placed by its label path ("Temperature/GPU Current Temp") at the element `nvidia-smi -q -x`
// gives the same field (kLabels below), into a document the XML reader then walks; so the two
// formats cannot drift apart field by field. Lines are read one at a time with a stack of open
// sections (no recursion), so deep or hostile indentation costs nothing.
#include "sources/nvml/nvidia_smi_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <optional>
#include <pugixml.hpp>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "sources/nvml/nvidia_smi_xml.h"
#include "sources/nvml/nvidia_smi_xml_values.h"
#include "util/file.h"
#include "util/strings.h"
#include "util/utf8.h"

namespace gpuvet {
namespace {

// Largest capture we read (the XML reader's bound too). Real -q reports are small (H100×8: 90 KB).
constexpr size_t kMaxCaptureBytes = 64 << 20;

// Sections nest at most 4 deep in real reports; deeper label paths cannot match kLabels.
constexpr size_t kMaxDepth = 16;

// Label path below a GPU section (lower case, single spaces) -> element path below <gpu>. Spellings
// of every driver from 525 to 610 (Linux and Windows) that the XML reader reads.
constexpr std::pair<std::string_view, std::string_view> kLabels[] = {
    {"product name", "product_name"},
    {"persistence mode", "persistence_mode"},
    {"serial number", "serial"},
    {"gpu uuid", "uuid"},
    {"minor number", "minor_number"},
    {"vbios version", "vbios_version"},
    {"performance state", "performance_state"},
    {"gpu recovery action", "gpu_recovery_action"},  // 570+
    {"ecc errors/channel repair pending", "ecc_errors/channel_repair_pending"},
    {"ecc errors/tpc repair pending", "ecc_errors/tpc_repair_pending"},
    {"ecc errors/unrepairable memory", "ecc_errors/unrepairable_memory"},
    {"fabric/state", "fabric/state"},
    {"fabric/status", "fabric/status"},
    {"mig mode/current", "mig_mode/current_mig"},
    {"mig mode/pending", "mig_mode/pending_mig"},
    {"pci/bus id", "pci/pci_bus_id"},
    {"pci/gpu link info/pcie generation/max", "pci/pci_gpu_link_info/pcie_gen/max_link_gen"},
    {"pci/gpu link info/pcie generation/current",
     "pci/pci_gpu_link_info/pcie_gen/current_link_gen"},
    {"pci/gpu link info/pcie generation/device current",
     "pci/pci_gpu_link_info/pcie_gen/device_current_link_gen"},
    {"pci/gpu link info/pcie generation/device max",
     "pci/pci_gpu_link_info/pcie_gen/max_device_link_gen"},
    {"pci/gpu link info/pcie generation/host max",
     "pci/pci_gpu_link_info/pcie_gen/max_host_link_gen"},
    {"pci/gpu link info/link width/max", "pci/pci_gpu_link_info/link_widths/max_link_width"},
    {"pci/gpu link info/link width/current",
     "pci/pci_gpu_link_info/link_widths/current_link_width"},
    {"pci/replays since reset", "pci/replay_counter"},
    {"pci/replay number rollovers", "pci/replay_rollover_counter"},
    {"fb memory usage/total", "fb_memory_usage/total"},
    {"fb memory usage/reserved", "fb_memory_usage/reserved"},
    {"fb memory usage/used", "fb_memory_usage/used"},
    {"fb memory usage/free", "fb_memory_usage/free"},
    {"utilization/gpu", "utilization/gpu_util"},
    {"utilization/memory", "utilization/memory_util"},
    {"utilization/encoder", "utilization/encoder_util"},
    {"utilization/decoder", "utilization/decoder_util"},
    {"ecc mode/current", "ecc_mode/current_ecc"},
    {"ecc mode/pending", "ecc_mode/pending_ecc"},
    {"ecc errors", "ecc_errors"},
    {"ecc errors/volatile", "ecc_errors/volatile"},
    {"ecc errors/aggregate", "ecc_errors/aggregate"},
    {"retired pages", "retired_pages"},
    {"retired pages/single bit ecc", "retired_pages/multiple_single_bit_retirement/retired_count"},
    {"retired pages/double bit ecc", "retired_pages/double_bit_retirement/retired_count"},
    {"retired pages/pending page blacklist", "retired_pages/pending_blacklist"},
    {"retired pages/pending page retirement", "retired_pages/pending_retirement"},
    {"remapped rows", "remapped_rows"},
    {"remapped rows/correctable error", "remapped_rows/remapped_row_corr"},
    {"remapped rows/uncorrectable error", "remapped_rows/remapped_row_unc"},
    {"remapped rows/pending", "remapped_rows/remapped_row_pending"},
    {"remapped rows/remapping failure occurred", "remapped_rows/remapped_row_failure"},
    {"temperature/gpu current temp", "temperature/gpu_temp"},
    {"temperature/gpu t.limit temp", "temperature/gpu_temp_tlimit"},          // 535-565
    {"temperature/gpu current t.limit temp", "temperature/gpu_temp_tlimit"},  // 595+
    {"temperature/gpu shutdown temp", "temperature/gpu_temp_max_threshold"},
    {"temperature/gpu slowdown temp", "temperature/gpu_temp_slow_threshold"},
    {"temperature/gpu max operating temp", "temperature/gpu_temp_max_gpu_threshold"},
    {"temperature/gpu shutdown t.limit temp", "temperature/gpu_temp_max_tlimit_threshold"},
    {"temperature/gpu slowdown t.limit temp", "temperature/gpu_temp_slow_tlimit_threshold"},
    {"temperature/gpu max operating t.limit temp", "temperature/gpu_temp_max_gpu_tlimit_threshold"},
    {"temperature/memory current temp", "temperature/memory_temp"},
    {"clocks/graphics", "clocks/graphics_clock"},
    {"clocks/sm", "clocks/sm_clock"},
    {"clocks/memory", "clocks/mem_clock"},
    {"clocks/video", "clocks/video_clock"},
    {"max clocks/graphics", "max_clocks/graphics_clock"},
    {"max clocks/sm", "max_clocks/sm_clock"},
    {"max clocks/memory", "max_clocks/mem_clock"},
    {"max clocks/video", "max_clocks/video_clock"},
};

// ECC counter labels under "ECC Errors/Volatile" and "ECC Errors/Aggregate".
constexpr std::pair<std::string_view, std::string_view> kEccLabels[] = {
    {"sram correctable", "sram_correctable"},
    {"sram uncorrectable", "sram_uncorrectable"},
    {"sram uncorrectable parity", "sram_uncorrectable_parity"},
    {"sram uncorrectable sec-ded", "sram_uncorrectable_secded"},
    {"dram correctable", "dram_correctable"},
    {"dram uncorrectable", "dram_uncorrectable"},
    {"single bit/total", "single_bit/total"},  // pre-Ampere layout
    {"double bit/total", "double_bit/total"},
    {"sram threshold exceeded", "sram_threshold_exceeded"},  // aggregate only, 570+
};

// Power labels under "GPU Power Readings" (520+) or "Power Readings" (older); 595+ nests the
// limits under "GPU Ceiling Power Limit".
constexpr std::pair<std::string_view, std::string_view> kPowerLabels[] = {
    {"power draw", "power_draw"},
    {"average power draw", "average_power_draw"},
    {"instantaneous power draw", "instant_power_draw"},
    {"current power limit", "current_power_limit"},
    {"gpu ceiling power limit/current power limit", "current_power_limit"},
    {"requested power limit", "requested_power_limit"},
    {"gpu ceiling power limit/requested power limit", "requested_power_limit"},
    {"default power limit", "default_power_limit"},
    {"gpu ceiling power limit/default power limit", "default_power_limit"},
    {"enforced power limit", "enforced_power_limit"},
    {"power limit", "power_limit"},
    {"min power limit", "min_power_limit"},
    {"max power limit", "max_power_limit"},
};

// Clock event reason labels under "Clocks Event Reasons" (535+) or "Clocks Throttle Reasons".
constexpr std::pair<std::string_view, std::string_view> kReasonLabels[] = {
    {"idle", "gpu_idle"},
    {"applications clocks setting", "applications_clocks_setting"},
    {"sw power cap", "sw_power_cap"},
    {"hw slowdown", "hw_slowdown"},
    {"hw slowdown/hw thermal slowdown", "hw_thermal_slowdown"},
    {"hw slowdown/hw power brake slowdown", "hw_power_brake_slowdown"},
    {"hw thermal slowdown", "hw_thermal_slowdown"},
    {"hw power brake slowdown", "hw_power_brake_slowdown"},
    {"sync boost", "sync_boost"},
    {"sw thermal slowdown", "sw_thermal_slowdown"},
    {"display clock setting", "display_clocks_setting"},
};

// Labels of one process entry under "Processes" (Type, Name and memory nest under Process ID).
constexpr std::pair<std::string_view, std::string_view> kProcessLabels[] = {
    {"gpu instance id", "gpu_instance_id"},
    {"compute instance id", "compute_instance_id"},
    {"process id", "pid"},
    {"type", "type"},
    {"name", "process_name"},
    {"used gpu memory", "used_memory"},
};

std::optional<std::string_view> Find(
    std::span<const std::pair<std::string_view, std::string_view>> table, std::string_view key) {
  for (const auto& [label, element] : table) {
    if (label == key) return element;
  }
  return std::nullopt;
}

// "GPU  Current Temp" -> "gpu current temp": labels compare case- and spacing-blind ("Gpu" in
// 535, "GPU" in 595; "GPU Memory Power Readings " with a trailing space).
std::string Normalise(std::string_view label) {
  std::string out;
  for (std::string_view word : SplitWhitespace(label)) {
    if (!out.empty()) out += ' ';
    out += ToLower(word);
  }
  return out;
}

// "610.62 [Deprecated; will be removed in CUDA 14.0. Use KMD Version instead]" -> "610.62".
std::string_view StripDeprecation(std::string_view value) {
  size_t at = value.find(" [Deprecated");
  if (at != std::string_view::npos && !value.empty() && value.back() == ']') {
    return Trim(value.substr(0, at));
  }
  return value;
}

// Finds or creates the element at `path` ("temperature/gpu_temp") below `base`.
pugi::xml_node Ensure(pugi::xml_node base, std::string_view path) {
  pugi::xml_node node = base;
  for (std::string_view name : Split(path, '/')) {
    std::string n(name);
    pugi::xml_node next = node.child(n.c_str());
    node = next ? next : node.append_child(n.c_str());
  }
  return node;
}

// A GPU section header: "GPU 00000000:53:00.0" (a PCI address), not "GPU 0: NVIDIA H100 (UUID:
// …)" of `nvidia-smi -L` or a help line that starts with "GPU".
bool IsGpuSectionHeader(std::string_view label) {
  if (!StartsWith(label, "GPU ")) return false;
  std::string_view id = Trim(label.substr(4));
  if (id.find(':') == std::string_view::npos || id.find('.') == std::string_view::npos) {
    return false;
  }
  return std::all_of(id.begin(), id.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) != 0 || c == ':' || c == '.';
  });
}

// One "Label : value" line split apart; `value` is unset for a section header.
struct TextLine {
  size_t indent = 0;
  std::string_view label;
  std::optional<std::string_view> value;
};

TextLine SplitLine(std::string_view line) {
  TextLine out;
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) {
    out.indent += line[i] == '\t' ? 4 : 1;
    ++i;
  }
  std::string_view rest = line.substr(i);
  // The separator is the first " :" followed by a space or the end ("Name : " may be empty);
  // colons inside a label ("GPU 00000000:53:00.0") or a value (times) do not split.
  for (size_t at = rest.find(" :"); at != std::string_view::npos; at = rest.find(" :", at + 1)) {
    if (at + 2 == rest.size() || rest[at + 2] == ' ') {
      out.label = Trim(rest.substr(0, at));
      out.value = Trim(rest.substr(at + 2));
      return out;
    }
  }
  out.label = Trim(rest);
  return out;
}

// Builds the <nvidia_smi_log> document from the report's lines.
class DocumentBuilder {
 public:
  explicit DocumentBuilder(pugi::xml_document& doc) : root_(doc.append_child("nvidia_smi_log")) {}

  void Line(size_t number, const TextLine& line) {
    if (Special(number, line)) return;
    while (!stack_.empty() && stack_.back().indent >= line.indent) stack_.pop_back();
    if (stack_.size() >= kMaxDepth) return;  // deeper than any real report: cannot match
    stack_.push_back({line.indent, Normalise(line.label), std::string(line.label)});
    if (stack_.size() == 1) return TopLevel(number, line);
    if (!gpu_) return;  // a nested line outside any GPU section
    std::string rel;
    for (size_t i = 1; i < stack_.size(); ++i) rel += (i > 1 ? "/" : "") + stack_[i].key;
    last_line_ = number;
    if (stack_[1].key == "processes") return Process(number, line);
    if (stack_[1].key == "mig devices" || stack_[1].key == "mig device") return Mig(line, rel);
    if (!line.value) return;
    ++gpu_values_;
    if (std::optional<std::string> element = ElementOf(rel)) {
      Set(gpu_, *element, number, line);
    } else if (IsErrorText(*line.value)) {
      // A field gpuvet does not read that holds nvidia-smi's error text: kept, so it is judged.
      std::string name = rel;
      std::replace_if(
          name.begin(), name.end(),
          [](char c) { return std::isalnum(static_cast<unsigned char>(c)) == 0; }, '_');
      Set(gpu_.append_child("gpuvet_error_value"), name, number, line);
    }
  }

  // Called after the last line. `ended_mid_line`: the text does not end with a newline. The last
  // GPU section is cut off when it lacks the Processes entry every complete section ends with,
  // while an earlier section has it, fewer GPUs than "Attached GPUs" are present, or the text ends
  // mid-line. (A filtered `nvidia-smi -q -d ...` lacks Processes in every section; a saved report
  // may lack its final newline, as one real RTX 4090 capture does.)
  void Finish(bool ended_mid_line) {
    if (!last_gpu_) return;
    const bool earlier_complete = gpus_with_processes_ - (last_gpu_.child("processes") ? 1 : 0) > 0;
    const bool last_complete = last_gpu_.child("processes");
    pugi::xml_node attached = root_.child("attached_gpus");
    const auto attached_n = attached ? ParseInt(Trim(attached.child_value())) : std::nullopt;
    const bool fewer = attached_n && *attached_n > gpu_count_;
    if (!last_complete && (earlier_complete || fewer || ended_mid_line)) {
      truncated_at_line_ = last_line_;
    }
  }

  // Ends the report: closes the open GPU section.
  void End() { CloseGpu(); }

  // Whether the report says it was taken of selected GPUs (a saved `nvidia-smi -q -i N` command).
  bool selected() const { return selected_; }

  // The line at which the last GPU section was cut off; 0 when the report is complete.
  size_t truncated_at_line() const { return truncated_at_line_; }
  int gpu_count() const { return gpu_count_; }

 private:
  struct Open {
    size_t indent;
    std::string key;    // normalised
    std::string label;  // as printed, for notes
  };

  // Ends the open GPU section: any top-level line does.
  void CloseGpu() {
    if (gpu_ && gpu_.child("processes")) ++gpus_with_processes_;
    if (gpu_) gpu_.append_attribute("gpuvet_values") = gpu_values_;
    gpu_ = pugi::xml_node();
    gpu_values_ = 0;
  }

  static bool IsErrorText(std::string_view value) {
    return StartsWith(value, "Unknown Error") || StartsWith(value, "GPU requires reset") ||
           StartsWith(value, "GPU is lost");
  }

  // Lines that are not "Label : value" entries of the report: nvidia-smi's error for a GPU it
  // cannot open ("Unable to determine the device handle for GPU0000:9A:00.0: Unknown Error",
  // printed in place of its section) becomes a GPU section holding only <handle_error>; a saved
  // command line ("$ nvidia-smi -q -i 0") says which GPUs were asked for.
  bool Special(size_t number, const TextLine& line) {
    constexpr std::string_view kHandle = "Unable to determine the device handle for ";
    std::string_view text = line.label;
    if (line.value) return false;
    if (StartsWith(text, kHandle)) {
      text.remove_prefix(kHandle.size());
      if (StartsWith(text, "GPU")) text.remove_prefix(3);
      text = Trim(text);
      const size_t colon = text.find(": ");
      if (colon == std::string_view::npos) return false;
      CloseGpu();
      stack_.clear();
      pugi::xml_node gpu = root_.append_child("gpu");
      gpu.append_attribute("id") = MakeValidUtf8(text.substr(0, colon)).c_str();
      pugi::xml_node handle = gpu.append_child("handle_error");
      handle.text().set(MakeValidUtf8(Trim(text.substr(colon + 2))).c_str());
      handle.append_attribute("gpuvet_src") = fmt::format("line {}", number).c_str();
      ++gpu_count_;
      return true;
    }
    if (gpu_count_ == 0 && text.find("nvidia-smi") != std::string_view::npos) {
      for (std::string_view word : SplitWhitespace(text)) {
        if (word == "-i" || StartsWith(word, "--id") ||
            (StartsWith(word, "-i") && word.size() > 2 &&
             std::isdigit(static_cast<unsigned char>(word[2])) != 0)) {
          selected_ = true;
        }
      }
      return true;
    }
    return false;
  }

  void TopLevel(size_t number, const TextLine& line) {
    const std::string& key = stack_.back().key;
    CloseGpu();
    if (!line.value && StartsWith(key, "gpu ") && IsGpuSectionHeader(line.label)) {
      gpu_ = root_.append_child("gpu");
      gpu_.append_attribute("id") = std::string(Trim(line.label.substr(4))).c_str();
      last_gpu_ = gpu_;
      ++gpu_count_;
      last_line_ = number;
      return;
    }
    if (!line.value) return;
    // KMD / CUDA UMD Version (595+) replace the deprecated Driver / CUDA Version.
    if (key == "timestamp") Set(root_, "timestamp", number, line);
    if (key == "attached gpus") Set(root_, "attached_gpus", number, line);
    if (key == "driver version" || key == "kmd version") {
      Set(root_, "driver_version", number, line, key == "kmd version");
    }
    if (key == "cuda version" || key == "cuda umd version") {
      Set(root_, "cuda_version", number, line, key == "cuda umd version");
    }
  }

  // The element a label path below the GPU names, or nullopt for a label gpuvet does not read.
  static std::optional<std::string> ElementOf(std::string_view rel) {
    if (std::optional<std::string_view> e = Find(kLabels, rel)) return std::string(*e);
    for (std::string_view scope : {"ecc errors/volatile/", "ecc errors/aggregate/"}) {
      if (!StartsWith(rel, scope)) continue;
      if (auto e = Find(kEccLabels, rel.substr(scope.size()))) {
        return fmt::format("ecc_errors/{}/{}",
                           scope == "ecc errors/volatile/" ? "volatile" : "aggregate", *e);
      }
    }
    for (auto [scope, element] : {std::pair{"gpu power readings/", "gpu_power_readings"},
                                  std::pair{"power readings/", "power_readings"}}) {
      if (!StartsWith(rel, scope)) continue;
      if (auto e = Find(kPowerLabels, rel.substr(std::string_view(scope).size()))) {
        return fmt::format("{}/{}", element, *e);
      }
    }
    for (auto [scope, element, prefix] :
         {std::tuple{"clocks event reasons/", "clocks_event_reasons", "clocks_event_reason_"},
          std::tuple{"clocks throttle reasons/", "clocks_throttle_reasons",
                     "clocks_throttle_reason_"}}) {
      if (!StartsWith(rel, scope)) continue;
      if (auto e = Find(kReasonLabels, rel.substr(std::string_view(scope).size()))) {
        return fmt::format("{}/{}{}", element, prefix, *e);
      }
    }
    return std::nullopt;
  }

  // Sets the element at `path` below `base` to the line's value (the first line wins unless
  // `replace`), noting the line and label for error messages.
  void Set(pugi::xml_node base, std::string_view path, size_t number, const TextLine& line,
           bool replace = false) {
    pugi::xml_node node = Ensure(base, path);
    if (node.first_child().type() == pugi::node_pcdata && !replace) return;
    if (node.first_child().type() == pugi::node_pcdata) node.remove_child(node.first_child());
    std::string value = MakeValidUtf8(StripDeprecation(*line.value));
    node.prepend_child(pugi::node_pcdata).set_value(value.c_str());
    std::vector<std::string> labels;
    for (size_t i = gpu_ && stack_.size() > 1 ? 1 : 0; i < stack_.size(); ++i) {
      labels.push_back(stack_[i].label);  // without the "GPU 0000..." line
    }
    std::string src = MakeValidUtf8(fmt::format("line {} '{}'", number, Join(labels, " > ")));
    if (pugi::xml_attribute a = node.attribute("gpuvet_src")) {
      a.set_value(src.c_str());
    } else {
      node.append_attribute("gpuvet_src") = src.c_str();
    }
  }

  // "Processes : None", or entries of "GPU instance ID", "Process ID" (with Type, Name and Used
  // GPU Memory nested below it): a new entry starts at "GPU instance ID" or a repeated label.
  void Process(size_t number, const TextLine& line) {
    pugi::xml_node box = Ensure(gpu_, "processes");
    if (stack_.size() == 2) {
      if (line.value) Set(gpu_, "processes", number, line);
      return;
    }
    if (!line.value) return;
    std::optional<std::string_view> element = Find(kProcessLabels, stack_.back().key);
    if (!element) return;
    pugi::xml_node entry = box.last_child();
    if (!entry || std::string_view(entry.name()) != "process_info" ||
        *element == "gpu_instance_id" || entry.child(std::string(*element).c_str())) {
      entry = box.append_child("process_info");
    }
    Set(entry, *element, number, line);
  }

  // "MIG Devices : None", or one "MIG Device" section per configured device (their fields are
  // per instance and not read).
  void Mig(const TextLine& line, std::string_view rel) {
    if (rel == "mig devices" && line.value) {
      Ensure(gpu_, "mig_devices").text().set(std::string(*line.value).c_str());
    } else if ((rel == "mig device" || rel == "mig devices/mig device") && !line.value) {
      Ensure(gpu_, "mig_devices").append_child("mig_device");
    }
  }

  pugi::xml_node root_;
  pugi::xml_node gpu_;       // the open GPU section
  pugi::xml_node last_gpu_;  // the last GPU section seen
  std::vector<Open> stack_;
  int gpu_count_ = 0;
  int gpus_with_processes_ = 0;
  size_t last_line_ = 0;
  size_t truncated_at_line_ = 0;
  int gpu_values_ = 0;  // value lines of the open GPU section
  bool selected_ = false;
};

bool IsBanner(std::string_view line) { return line.find("NVSMI LOG") != std::string_view::npos; }

}  // namespace

CaptureFormat SniffCaptureFormat(std::string_view text) {
  size_t start = 0;
  if (StartsWith(text, "\xEF\xBB\xBF")) start = 3;  // UTF-8 byte order mark (Windows)
  while (start < text.size() && (text[start] == ' ' || text[start] == '\t' || text[start] == '\r' ||
                                 text[start] == '\n')) {
    ++start;
  }
  if (start < text.size() && text[start] == '<') return CaptureFormat::kXml;
  // Only the head matters: a -q report names its driver within its first lines.
  std::string_view head = text.substr(start, 4096);
  int lines = 0;
  for (std::string_view raw : Split(head, '\n')) {
    if (++lines > 40) break;
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    if (IsBanner(raw)) return CaptureFormat::kQueryText;
    if (StartsWith(Trim(raw), "| NVIDIA-SMI ")) return CaptureFormat::kTable;
    TextLine line = SplitLine(raw);
    if (line.indent == 0 && line.value && Normalise(line.label) == "driver version") {
      return CaptureFormat::kQueryText;
    }
    if (line.indent == 0 && !line.value && StartsWith(line.label, "GPU 0")) break;
  }
  return CaptureFormat::kUnknown;
}

std::string_view CaptureFormatName(CaptureFormat format) {
  switch (format) {
    case CaptureFormat::kXml:
      return "nvidia-smi -q -x";
    case CaptureFormat::kQueryText:
      return "nvidia-smi -q";
    case CaptureFormat::kTable:
      return "plain nvidia-smi table";
    case CaptureFormat::kUnknown:
      break;
  }
  return "unknown";
}

Result<GpuInventory> ParseNvidiaSmiText(std::string_view text, std::string_view origin) {
  if (size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return InvalidInput(
        fmt::format("{}: byte {} is NUL: not an nvidia-smi -q text report", origin, nul));
  }
  CaptureFormat format = SniffCaptureFormat(text);
  if (format != CaptureFormat::kQueryText) {
    return InvalidInput(fmt::format(
        "{}: not an nvidia-smi -q report (no 'NVSMI LOG' banner or 'Driver Version :' line{})",
        origin,
        format == CaptureFormat::kUnknown
            ? ""
            : "; it looks like " + std::string(CaptureFormatName(format))));
  }
  pugi::xml_document doc;
  DocumentBuilder builder(doc);
  size_t number = 0;
  int banners = 0;
  for (std::string_view raw : Split(text, '\n')) {
    ++number;
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);  // Windows line ends
    if (IsBanner(raw) && ++banners > 1) {
      // A bundle of outputs (a bug report: -L, --help-query-gpu, two -q): never merge two reports.
      return InvalidInput(fmt::format(
          "{}: holds more than one nvidia-smi -q report (the second begins at line {}; a bundle "
          "of several outputs?): save one `nvidia-smi -q` per file and check each",
          origin, number));
    }
    if (Trim(raw).empty() || IsBanner(raw)) continue;
    builder.Line(number, SplitLine(raw));
  }
  builder.End();
  const bool ended_mid_line = !text.empty() && text.back() != '\n';
  builder.Finish(ended_mid_line);
  if (builder.gpu_count() == 0) {
    return InvalidInput(
        fmt::format("{}: the nvidia-smi -q report holds no 'GPU <address>' section", origin));
  }
  if (builder.selected()) doc.document_element().append_attribute("gpuvet_selected") = true;
  GpuInventory inv = smi_xml_internal::ReadSmiLog(doc.document_element(),
                                                  fmt::format("nvidia-smi-q ({})", origin));
  if (size_t line = builder.truncated_at_line(); line > 0 && !inv.gpus.empty()) {
    inv.capture_truncated = true;
    inv.gpus.back().failures.push_back(CallFailure{
        "capture",
        fmt::format("{}: the report ends at line {} inside this GPU's section (truncated?); its "
                    "fields after that line are not in the capture",
                    origin, line),
        false});
  }
  return inv;
}

namespace {

// What nvidia-smi prints instead of a report when it cannot run on a broken node, and what the
// node's driver state is then: saved by fleet scripts, such output is a verdict, not bad input.
struct BrokenNodeOutput {
  std::string_view text;
  GpuSourceState state;
  std::string_view detail;
};

constexpr BrokenNodeOutput kBrokenNodeOutputs[] = {
    {"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver",
     GpuSourceState::kDriverNotLoaded,
     "nvidia-smi could not communicate with the NVIDIA driver (the kernel module is not loaded "
     "or does not answer)"},
    {"Driver/library version mismatch", GpuSourceState::kInitFailed,
     "Failed to initialize NVML: Driver/library version mismatch (LIB_RM_VERSION_MISMATCH): the "
     "kernel module and the user-space library come from different driver versions"},
    {"couldn't find libnvidia-ml.so", GpuSourceState::kLibraryMissing,
     "nvidia-smi couldn't find libnvidia-ml.so: the NVIDIA user-space driver is not installed"},
    {"Failed to initialize NVML: Unknown Error", GpuSourceState::kInitFailed,
     "Failed to initialize NVML: Unknown Error (UNKNOWN)"},
};

// The inventory a saved broken-node output stands for, when the text is one (and holds no -q
// report): its first lines name the failure.
std::optional<GpuInventory> ReadBrokenNodeOutput(std::string_view text, const std::string& path) {
  std::string_view head = text.substr(0, 4096);
  if (IsBanner(head) || head.find("NVSMI LOG") != std::string_view::npos) return std::nullopt;
  for (const BrokenNodeOutput& b : kBrokenNodeOutputs) {
    if (head.find(b.text) == std::string_view::npos) continue;
    GpuInventory inv;
    inv.origin = fmt::format("nvidia-smi output ({})", path);
    inv.state = b.state;
    inv.detail = std::string(b.detail);
    inv.from_capture = true;
    return inv;
  }
  // Only nvidia-smi's "cannot open" errors and no report (a table run, or -q -x with its errors
  // saved in front of nothing): one GPU per error, read as the -q reader reads such a line.
  constexpr std::string_view kHandle = "Unable to determine the device handle for ";
  if (text.substr(0, 64).find('<') != std::string_view::npos ||
      text.find(kHandle) == std::string_view::npos) {
    return std::nullopt;
  }
  pugi::xml_document doc;
  pugi::xml_node root = doc.append_child("nvidia_smi_log");
  for (std::string_view raw : Split(text, '\n')) {
    std::string_view line = Trim(raw);
    const size_t at = line.find(kHandle);
    if (at == std::string_view::npos) continue;
    std::string_view rest = line.substr(at + kHandle.size());
    if (StartsWith(rest, "GPU")) rest.remove_prefix(3);
    rest = Trim(rest);
    const size_t colon = rest.find(": ");
    if (colon == std::string_view::npos) continue;
    pugi::xml_node gpu = root.append_child("gpu");
    gpu.append_attribute("id") = MakeValidUtf8(rest.substr(0, colon)).c_str();
    gpu.append_child("handle_error")
        .text()
        .set(MakeValidUtf8(Trim(rest.substr(colon + 2))).c_str());
  }
  if (!root.first_child()) return std::nullopt;
  return smi_xml_internal::ReadSmiLog(root, fmt::format("nvidia-smi output ({})", path));
}

}  // namespace

Result<GpuInventory> LoadNvidiaSmiCapture(const std::string& path, CaptureFormat format,
                                          CaptureFormat* detected) {
  Result<std::string> text = ReadFile(path, kMaxCaptureBytes);
  if (!text.ok()) return text.status();
  if (std::optional<GpuInventory> broken = ReadBrokenNodeOutput(*text, path)) {
    if (detected != nullptr) *detected = format;
    return *std::move(broken);
  }
  const CaptureFormat found = SniffCaptureFormat(*text);
  if (detected != nullptr) *detected = found;
  if (found == CaptureFormat::kTable) {
    return InvalidInput(fmt::format(
        "{}: this is the plain `nvidia-smi` summary table, not a report gpuvet can check; on the "
        "node run `nvidia-smi -q -x > FILE` (or `nvidia-smi -q > FILE`) and check that",
        path));
  }
  if (found == CaptureFormat::kUnknown) {
    return InvalidInput(fmt::format(
        "{}: neither `nvidia-smi -q -x` XML (it does not start with '<') nor `nvidia-smi -q` text "
        "(no 'NVSMI LOG' banner or 'Driver Version :' line in its first lines)",
        path));
  }
  (void)format;  // either flag reads either format; the caller says when they differ
  if (found == CaptureFormat::kXml) return ParseNvidiaSmiXml(*text, path);
  return ParseNvidiaSmiText(*text, path);
}

}  // namespace gpuvet
