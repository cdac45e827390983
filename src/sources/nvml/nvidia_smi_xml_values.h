// Internal to the nvidia-smi XML source: a capture element looked up by path and classified
// (value, "N/A", missing), and the converters that turn its text into a typed Reading with its
// unit. A text that does not parse becomes a Reading error naming the element path and the text.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <pugixml.hpp>
#include <string>
#include <string_view>

#include "core/gpu_state.h"
#include "util/strings.h"

namespace gpuvet::smi_xml_internal {

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
// deprecated"; nullopt for other texts ("Unknown Error", "GPU requires reset" are errors).
std::optional<std::string> UnsupportedNote(std::string_view text);

// `node` (whose path is `path`) classified by its trimmed text.
Field FromNode(pugi::xml_node node, std::string path);

// Looks up `rel` ("temperature/gpu_temp") below `base`, whose path is `base_path`. A missing
// element under a container that says "N/A" as a whole (<remapped_rows>N/A</remapped_rows>) is
// unsupported, not missing.
Field Lookup(pugi::xml_node base, std::string_view base_path, std::string_view rel);

// The first of `fields` present in the capture (element spellings differ between versions).
Field FirstPresent(std::initializer_list<Field> fields);

// The first of `fields` with a value, else the first present (with its N/A note), else the first.
Field FirstReadable(std::initializer_list<Field> fields);

// The inventory of a capture document whose root element is <nvidia_smi_log> (the XML reader
// checks that; the text reader builds such a document). `origin` becomes GpuInventory::origin.
GpuInventory ReadSmiLog(pugi::xml_node root, std::string origin);

// `text` in single quotes for an error note, elided past 64 bytes.
std::string Quote(std::string_view text);

// The Reading of a field that has no value (missing or unsupported): Unsupported with its note.
template <typename T>
Reading<T> NotRead(const Field& f) {
  return Reading<T>::Unsupported(f.note);
}

// The Reading error for a field whose text is not `what`; names the path and quotes the text.
template <typename T>
Reading<T> Garbled(const Field& f, std::string_view what) {
  // nvidia-smi prints NVML errors in place of values: "Unknown Error", "[GPU requires reset]".
  if (EndsWith(f.text, "Error") || EndsWith(f.text, "]")) {
    return Reading<T>::Error(fmt::format("{}: nvidia-smi reports {}", f.path, Quote(f.text)));
  }
  return Reading<T>::Error(fmt::format("{}: cannot parse {} as {}", f.path, Quote(f.text), what));
}

// Converters: "27 C" with unit "C" -> 27 (a bare number is accepted too). A field without a value
// gives NotRead, a text that does not parse gives Garbled.
Reading<int> ToInt(const Field& f, std::string_view unit);
Reading<uint64_t> ToUint(const Field& f, std::string_view unit);
// "81559 MiB" -> bytes.
Reading<uint64_t> ToBytesFromMib(const Field& f);
Reading<double> ToDouble(const Field& f, std::string_view unit);
// The on/off words nvidia-smi uses for modes, flags and clock event reasons.
Reading<bool> ToBool(const Field& f);
// Non-empty text.
Reading<std::string> ToText(const Field& f);
// Identity strings (name, serial) are plain strings in GpuState: empty when not reported.
std::string TextOrEmpty(const Field& f);
// "P0" .. "P15" (NVML performance states).
Reading<int> ToPerformanceState(const Field& f);
// "12.2" -> 12020: the CUDA driver API encoding, 1000 * major + 10 * minor.
Reading<int> ToCudaVersion(const Field& f);

// "00000000:01:00.0" (NVML's 8-digit domain, upper case) -> "0000:01:00.0" (sysfs form); nullopt
// when `text` is not a PCI address.
std::optional<std::string> NormalisePciBusId(std::string_view text);

// True if either says so; otherwise an error, a value, or the more telling "unsupported" note.
Reading<bool> AnyTrue(const Reading<bool>& a, const Reading<bool>& b);

}  // namespace gpuvet::smi_xml_internal
