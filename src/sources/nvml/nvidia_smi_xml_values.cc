// nvidia-smi XML element lookup and value converters (see nvidia_smi_xml_values.h): each
// converter strips the unit nvidia-smi prints, parses the number, and keeps "N/A" apart from
// zero and from garbled text.
#include "sources/nvml/nvidia_smi_xml_values.h"

#include <fmt/format.h>

#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "util/strings.h"

namespace gpuvet::smi_xml_internal {

namespace {

// nvidia-smi prints frame-buffer and process memory in MiB (2^20 bytes).
constexpr uint64_t kBytesPerMib = uint64_t{1} << 20;

// Longest element text quoted in an error note; the rest is elided.
constexpr size_t kMaxQuotedText = 64;

std::string Expected(std::string_view unit) {
  return unit.empty() ? "an integer" : fmt::format("an integer in {}", unit);
}

// "27 C" -> "27" for unit "C". A bare number is accepted too (nothing else is ambiguous).
std::string_view StripUnit(std::string_view text, std::string_view unit) {
  if (!unit.empty() && EndsWith(text, unit)) return Trim(text.substr(0, text.size() - unit.size()));
  return text;
}

std::optional<uint32_t> ParseHex(std::string_view s, size_t max_digits) {
  uint32_t v = 0;
  if (s.empty() || s.size() > max_digits) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

// The note for texts nvidia-smi prints instead of a value the driver does not offer: "N/A",
// "[N/A]", "Not Supported", "[Not Supported]" and (v13) "Requested functionality has been
// deprecated". Other words ("Unknown Error", "GPU requires reset") are errors, not unsupported.
std::optional<std::string> UnsupportedNote(std::string_view text) {
  std::string_view t = text;
  if (t.size() >= 2 && t.front() == '[' && t.back() == ']') t = Trim(t.substr(1, t.size() - 2));
  // "Not available in WDDM driver model": process memory on Windows.
  constexpr std::string_view kWords[] = {"N/A", "Not Supported",
                                         "Requested functionality has been deprecated",
                                         "Not available", "Not available in WDDM driver model"};
  for (std::string_view word : kWords) {
    if (t == word) return "nvidia-smi reports " + std::string(word);
  }
  return std::nullopt;
}

Field FromNode(pugi::xml_node node, std::string path) {
  Field f;
  f.path = std::move(path);
  f.node = node;
  // The text reader notes where a value came from ("line 212 'Temperature > GPU Current Temp'").
  if (pugi::xml_attribute src = node.attribute("gpuvet_src")) f.path = src.value();
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
      f.note = note ? *note : std::string(kNotInCapture);
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

// The first of `fields` with a value, else the first present (with its N/A note), else the first.
Field FirstReadable(std::initializer_list<Field> fields) {
  for (const Field& f : fields) {
    if (f.readable()) return f;
  }
  return FirstPresent(fields);
}

std::string Quote(std::string_view text) {
  if (text.size() <= kMaxQuotedText) return fmt::format("'{}'", text);
  return fmt::format("'{}...' ({} bytes)", text.substr(0, kMaxQuotedText), text.size());
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
  return a.note == kNotInCapture ? b : a;
}

}  // namespace gpuvet::smi_xml_internal
