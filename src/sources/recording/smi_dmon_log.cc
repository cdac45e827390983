// `nvidia-smi dmon` logs: '#' header pairs (column names, then units) that may repeat, then one
// whitespace-separated line per GPU per tick. `-o D`, `-o T`, `-o DT` add Date (YYYYMMDD) and
// Time (HH:MM:SS) columns in front. '-' (and N/A) mean the GPU did not report the value.
#include <algorithm>
#include <cmath>
#include <map>

#include "core/gpu_state.h"
#include "sources/recording/smi_log_import.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

using smi_import_internal::SmiRow;

constexpr double kMiB = 1024.0 * 1024.0;

enum class Col { kIgnored, kDate, kTime, kGpu, kField, kPowerViolation, kThermalViolation };

// A dmon column that fills a GpuSample field: the field and the factor to its unit.
struct FieldMap {
  const char* name;
  double scale;
  void (*set)(GpuSample&, double);
};

// dmon column names (nvidia-smi(1), "dmon"): p = pwr/gtemp/mtemp, u = sm/mem/enc/dec/jpg/ofa,
// c = mclk/pclk, v = pviol/tviol, m = fb/bar1/ccpm (MB, i.e. MiB), e = sbecc/dbecc/pci,
// t = rxpci/txpci (MB/s: NVML's KB/s over 1024, so MiB/s).
const FieldMap kFields[] = {
    {"pwr", 1, [](GpuSample& g, double v) { g.power_w = v; }},
    {"gtemp", 1, [](GpuSample& g, double v) { g.temperature_c = v; }},
    {"sm", 1, [](GpuSample& g, double v) { g.util_pct = v; }},
    {"mem", 1, [](GpuSample& g, double v) { g.mem_util_pct = v; }},
    {"mclk", 1, [](GpuSample& g, double v) { g.mem_clock_mhz = v; }},
    {"pclk", 1, [](GpuSample& g, double v) { g.sm_clock_mhz = v; }},
    {"fb", kMiB, [](GpuSample& g, double v) { g.memory_used_bytes = static_cast<uint64_t>(v); }},
    {"sbecc", 1,
     [](GpuSample& g, double v) { g.ecc_corrected_volatile = static_cast<uint64_t>(v); }},
    {"dbecc", 1,
     [](GpuSample& g, double v) { g.ecc_uncorrected_volatile = static_cast<uint64_t>(v); }},
    {"rxpci", kMiB, [](GpuSample& g, double v) { g.pcie_rx_bytes_per_s = v; }},
    {"txpci", kMiB, [](GpuSample& g, double v) { g.pcie_tx_bytes_per_s = v; }},
};

struct Header {
  std::vector<std::string> names;
  std::vector<Col> kinds;
  std::vector<const FieldMap*> fields;
  bool has_date = false, has_time = false;
};

Header ParseHeader(const std::vector<std::string_view>& words, std::vector<std::string>* ignored) {
  Header h;
  for (std::string_view w : words) {
    std::string name(w);
    Col kind = Col::kIgnored;
    const FieldMap* field = nullptr;
    if (name == "Date") {
      kind = Col::kDate;
      h.has_date = true;
    } else if (name == "Time") {
      kind = Col::kTime;
      h.has_time = true;
    } else if (name == "gpu") {
      kind = Col::kGpu;
    } else if (name == "pviol") {
      kind = Col::kPowerViolation;
    } else if (name == "tviol") {
      kind = Col::kThermalViolation;
    } else {
      for (const FieldMap& f : kFields) {
        if (name == f.name) field = &f;
      }
      kind = field ? Col::kField : Col::kIgnored;
    }
    if (kind == Col::kIgnored &&
        std::find(ignored->begin(), ignored->end(), name) == ignored->end()) {
      ignored->push_back(name);
    }
    h.names.push_back(name);
    h.kinds.push_back(kind);
    h.fields.push_back(field);
  }
  return h;
}

bool IsAbsent(std::string_view v) { return v == "-" || v == "N/A" || v == "[N/A]"; }

Status LineError(int line, const std::string& what) {
  return InvalidInput("line " + std::to_string(line) + ": " + what);
}

}  // namespace

Result<Recording> ParseDmonLog(std::string_view text, const SmiImportOptions& options) {
  std::vector<std::string> ignored;
  std::optional<Header> header;
  std::vector<SmiRow> rows;
  double day_offset = 0, last_time_of_day = -1;
  bool time_of_day_only = false;
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = Trim(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    if (line.empty()) continue;
    if (line[0] == '#') {
      std::vector<std::string_view> words = SplitWhitespace(line.substr(1));
      if (std::find(words.begin(), words.end(), "gpu") != words.end()) {
        header = ParseHeader(words, &ignored);
      }
      continue;  // the units line ("# Idx W C ...") and comments
    }
    if (!header) return LineError(line_no, "data before the '# gpu ...' dmon header");
    std::vector<std::string_view> values = SplitWhitespace(line);
    if (values.size() != header->names.size()) {
      return LineError(line_no, "expected " + std::to_string(header->names.size()) +
                                    " columns as in the header, found " +
                                    std::to_string(values.size()) + ": \"" + std::string(line) +
                                    "\"");
    }
    SmiRow row;
    row.line = line_no;
    row.gpu.gpu = -1;
    std::string_view date, time;
    std::optional<double> pviol, tviol;
    for (size_t i = 0; i < values.size(); ++i) {
      std::string_view v = values[i];
      switch (header->kinds[i]) {
        case Col::kIgnored:
          break;
        case Col::kDate:
          date = v;
          break;
        case Col::kTime:
          time = v;
          break;
        case Col::kGpu: {
          auto idx = ParseInt(v);
          if (!idx || *idx < 0 || *idx > 1023) {
            return LineError(line_no, "GPU index \"" + std::string(v) + "\" is not a number");
          }
          row.gpu.gpu = static_cast<int>(*idx);
          break;
        }
        default: {
          if (IsAbsent(v)) break;
          auto x = ParseDouble(v);
          if (!x || !std::isfinite(*x)) {
            return LineError(line_no, "column '" + header->names[i] + "': \"" + std::string(v) +
                                          "\" is not a number or '-'");
          }
          if (header->kinds[i] == Col::kPowerViolation) {
            pviol = *x;
          } else if (header->kinds[i] == Col::kThermalViolation) {
            tviol = *x;
          } else {
            header->fields[i]->set(row.gpu, *x * header->fields[i]->scale);
          }
        }
      }
    }
    if (row.gpu.gpu < 0) return LineError(line_no, "the header has no 'gpu' column");
    // pviol/tviol: percent of the interval spent power- or thermally-capped (nvidia-smi(1)).
    if (pviol || tviol) {
      uint64_t bits = 0;
      if (pviol.value_or(0) > 0) bits |= clock_reason::kSwPowerCap;
      if (tviol.value_or(0) > 0) bits |= clock_reason::kSwThermalSlowdown;
      row.gpu.clock_event_reasons = bits;
    }
    if (header->has_time) {
      if (header->has_date) {
        row.unix_time = smi_import_internal::ParseSmiTimestamp(date, time);
      } else {  // -o T: time of day only; a step back by hours is midnight
        row.unix_time = smi_import_internal::ParseSmiTimestamp("19700101", time);
        if (row.unix_time) {
          time_of_day_only = true;
          if (*row.unix_time + 12 * 3600 < last_time_of_day) day_offset += 86400;
          last_time_of_day = *row.unix_time;
          *row.unix_time += day_offset;
        }
      }
      if (!row.unix_time) {
        return LineError(line_no, "date/time \"" + std::string(date) + " " + std::string(time) +
                                      "\" is not YYYYMMDD HH:MM:SS");
      }
    }
    rows.push_back(std::move(row));
  }
  if (rows.empty()) return InvalidInput("no dmon samples (only headers or an empty log)");
  std::string producer = "gpuvet import nvidia-smi dmon";
  if (!options.source_name.empty()) producer += " (" + options.source_name + ")";
  Recording rec =
      smi_import_internal::BuildRecording(std::move(rows), {}, options, producer, ignored);
  if (time_of_day_only) {
    rec.meta.notes["import.clock"] = "time of day only (dmon -o T): dates are unknown";
  }
  return rec;
}

}  // namespace gpuvet
