// `nvidia-smi --query-gpu=FIELDS --format=csv[,noheader][,nounits] [-l N]` logs: a header line
// ("timestamp, index, utilization.gpu [%], ...") unless `noheader` (then the field list comes
// from --columns), one line per GPU per tick, values with or without units ("56 %", "56"),
// "[N/A]" / "[Not Supported]" for values the GPU does not report. Concatenated runs repeat the
// header; a different header switches the column set from that line on.
#include <algorithm>
#include <cmath>
#include <map>

#include "sources/recording/smi_log_import.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

using smi_import_internal::SmiRow;

constexpr double kMiB = 1024.0 * 1024.0;

enum class Kind {
  kIgnored,
  kTimestamp,
  kIndex,
  kUtil,
  kMemUtil,
  kMemUsed,
  kPower,
  kTemp,
  kSmClock,
  kGraphicsClock,
  kMemClock,
  kClockReasons,
  kEccCorrected,
  kEccUncorrected,
  kName,
  kUuid,
  kBusId,
  kMemTotal,
  kPowerLimit,
  kSmClockMax,
  kMemClockMax,
  kPcieGenMax,
  kPcieWidthMax,
  kDriver,
};

// --query-gpu field names (`nvidia-smi --help-query-gpu`), with their aliases.
const std::map<std::string, Kind>& FieldKinds() {
  static const std::map<std::string, Kind> kinds = {
      {"timestamp", Kind::kTimestamp},
      {"index", Kind::kIndex},
      {"utilization.gpu", Kind::kUtil},
      {"utilization.memory", Kind::kMemUtil},
      {"memory.used", Kind::kMemUsed},
      {"power.draw", Kind::kPower},
      {"power.draw.instant", Kind::kPower},
      {"power.draw.average", Kind::kPower},
      {"temperature.gpu", Kind::kTemp},
      {"clocks.current.sm", Kind::kSmClock},
      {"clocks.sm", Kind::kSmClock},
      {"clocks.current.graphics", Kind::kGraphicsClock},
      {"clocks.gr", Kind::kGraphicsClock},
      {"clocks.current.memory", Kind::kMemClock},
      {"clocks.mem", Kind::kMemClock},
      {"clocks_event_reasons.active", Kind::kClockReasons},
      {"clocks_throttle_reasons.active", Kind::kClockReasons},
      {"clocks_event_reasons", Kind::kClockReasons},
      {"ecc.errors.corrected.volatile.total", Kind::kEccCorrected},
      {"ecc.errors.uncorrected.volatile.total", Kind::kEccUncorrected},
      {"name", Kind::kName},
      {"gpu_name", Kind::kName},
      {"uuid", Kind::kUuid},
      {"gpu_uuid", Kind::kUuid},
      {"pci.bus_id", Kind::kBusId},
      {"gpu_bus_id", Kind::kBusId},
      {"memory.total", Kind::kMemTotal},
      {"power.limit", Kind::kPowerLimit},
      {"enforced.power.limit", Kind::kPowerLimit},
      {"clocks.max.sm", Kind::kSmClockMax},
      {"clocks.max.graphics", Kind::kSmClockMax},
      {"clocks.max.gr", Kind::kSmClockMax},
      {"clocks.max.memory", Kind::kMemClockMax},
      {"clocks.max.mem", Kind::kMemClockMax},
      {"pcie.link.gen.max", Kind::kPcieGenMax},
      {"pcie.link.width.max", Kind::kPcieWidthMax},
      {"driver_version", Kind::kDriver},
  };
  return kinds;
}

struct Column {
  std::string name;
  Kind kind = Kind::kIgnored;
};

// "utilization.gpu [%]" -> "utilization.gpu".
std::string FieldName(std::string_view header_field) {
  std::string_view f = Trim(header_field);
  size_t bracket = f.find(" [");
  if (bracket != std::string_view::npos) f = Trim(f.substr(0, bracket));
  return ToLower(f);
}

std::vector<Column> ParseColumns(const std::vector<std::string_view>& fields,
                                 std::vector<std::string>* ignored) {
  std::vector<Column> cols;
  for (std::string_view f : fields) {
    Column c;
    c.name = FieldName(f);
    auto it = FieldKinds().find(c.name);
    if (it != FieldKinds().end()) {
      c.kind = it->second;
    } else if (std::find(ignored->begin(), ignored->end(), c.name) == ignored->end()) {
      ignored->push_back(c.name);
    }
    cols.push_back(std::move(c));
  }
  return cols;
}

bool IsAbsent(std::string_view v) {
  return v.empty() || v == "N/A" || (v.front() == '[' && v.back() == ']');
}

// A header line names fields: each is a query field name ("utilization.gpu [%]"), so
// lower-case letters, digits, dots and underscores before an optional " [unit]".
bool LooksLikeHeader(const std::vector<std::string_view>& fields) {
  return std::all_of(fields.begin(), fields.end(), [](std::string_view f) {
    std::string name = FieldName(f);
    return !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
           std::all_of(name.begin(), name.end(), [](char c) {
             return std::islower(static_cast<unsigned char>(c)) ||
                    std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '_';
           });
  });
}

Status LineError(int line, const std::string& what) {
  return InvalidInput("line " + std::to_string(line) + ": " + what);
}

}  // namespace

Result<Recording> ParseQueryCsvLog(std::string_view text, const SmiImportOptions& options) {
  std::vector<std::string> ignored;
  std::vector<Column> columns;
  if (!options.csv_columns.empty())
    columns = ParseColumns(Split(options.csv_columns, ','), &ignored);
  std::vector<SmiRow> rows;
  std::map<int, RecordedGpu> gpus;
  std::string driver;
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = Trim(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    if (line.empty()) continue;
    std::vector<std::string_view> fields = Split(line, ',');
    if (LooksLikeHeader(fields)) {
      columns = ParseColumns(fields, &ignored);
      continue;
    }
    if (columns.empty()) {
      return LineError(line_no,
                       "a CSV log without a header line (--format=csv,noheader): pass --columns "
                       "with the --query-gpu field list it was written with");
    }
    if (fields.size() != columns.size()) {
      return LineError(line_no, "expected " + std::to_string(columns.size()) +
                                    " comma-separated fields as in the header, found " +
                                    std::to_string(fields.size()) + ": \"" + std::string(line) +
                                    "\"");
    }
    SmiRow row;
    row.line = line_no;
    row.gpu.gpu = -1;
    RecordedGpu info;
    bool has_info = false;
    for (size_t i = 0; i < fields.size(); ++i) {
      std::string_view v = Trim(fields[i]);
      const Column& c = columns[i];
      if (c.kind == Kind::kIgnored || IsAbsent(v)) continue;
      auto bad = [&](const char* expected) {
        return LineError(line_no,
                         "field '" + c.name + "': \"" + std::string(v) + "\" is not " + expected);
      };
      if (c.kind == Kind::kTimestamp) {
        size_t space = v.find(' ');
        row.unix_time =
            space == std::string_view::npos
                ? std::nullopt
                : smi_import_internal::ParseSmiTimestamp(v.substr(0, space), v.substr(space + 1));
        if (!row.unix_time) return bad("a timestamp (YYYY/MM/DD HH:MM:SS.mmm)");
        continue;
      }
      if (c.kind == Kind::kName || c.kind == Kind::kUuid || c.kind == Kind::kBusId ||
          c.kind == Kind::kDriver) {
        std::string s(v);
        if (c.kind == Kind::kName) info.name = s;
        if (c.kind == Kind::kUuid) info.uuid = s;
        if (c.kind == Kind::kBusId) info.pci_bus_id = s;
        if (c.kind == Kind::kDriver) driver = s;
        has_info = true;
        continue;
      }
      if (c.kind == Kind::kClockReasons) {
        auto bits =
            StartsWith(v, "0x") || StartsWith(v, "0X")
                ? std::optional<uint64_t>(std::strtoull(std::string(v).c_str(), nullptr, 16))
                : ParseUint(v);
        if (!bits || v.size() > 18 ||
            v.find_first_not_of("0123456789abcdefABCDEFxX") != std::string_view::npos) {
          return bad("a hexadecimal bit mask");
        }
        row.gpu.clock_event_reasons = *bits;
        continue;
      }
      // A number with or without its unit ("56 %", "600.00 W", "100 MiB", "56").
      std::vector<std::string_view> parts = SplitWhitespace(v);
      auto x = parts.empty() || parts.size() > 2 ? std::nullopt : ParseDouble(parts[0]);
      if (!x || !std::isfinite(*x)) return bad("a number");
      switch (c.kind) {
        case Kind::kIndex:
          if (*x < 0 || *x > 1023 || *x != std::floor(*x)) return bad("a GPU index");
          row.gpu.gpu = static_cast<int>(*x);
          break;
        case Kind::kUtil:
          row.gpu.util_pct = *x;
          break;
        case Kind::kMemUtil:
          row.gpu.mem_util_pct = *x;
          break;
        case Kind::kMemUsed:
          row.gpu.memory_used_bytes = static_cast<uint64_t>(*x * kMiB);
          break;
        case Kind::kPower:
          if (!row.gpu.power_w) row.gpu.power_w = *x;
          break;
        case Kind::kTemp:
          row.gpu.temperature_c = *x;
          break;
        case Kind::kSmClock:
          row.gpu.sm_clock_mhz = *x;
          break;
        case Kind::kGraphicsClock:
          if (!row.gpu.sm_clock_mhz) row.gpu.sm_clock_mhz = *x;
          break;
        case Kind::kMemClock:
          row.gpu.mem_clock_mhz = *x;
          break;
        case Kind::kEccCorrected:
          row.gpu.ecc_corrected_volatile = static_cast<uint64_t>(*x);
          break;
        case Kind::kEccUncorrected:
          row.gpu.ecc_uncorrected_volatile = static_cast<uint64_t>(*x);
          break;
        case Kind::kMemTotal:
          info.memory_total_bytes = static_cast<uint64_t>(*x * kMiB);
          break;
        case Kind::kPowerLimit:
          info.power_limit_w = *x;
          break;
        case Kind::kSmClockMax:
          info.sm_clock_max_mhz = static_cast<int>(*x);
          break;
        case Kind::kMemClockMax:
          info.mem_clock_max_mhz = static_cast<int>(*x);
          break;
        case Kind::kPcieGenMax:
          info.pcie_gen_max = static_cast<int>(*x);
          break;
        case Kind::kPcieWidthMax:
          info.pcie_width_max = static_cast<int>(*x);
          break;
        default:
          break;
      }
      if (c.kind >= Kind::kMemTotal) has_info = true;
    }
    if (row.gpu.gpu < 0) {
      // Without an index column the log is about one GPU (`-i N`), or the rows are in GPU order.
      bool has_index = std::any_of(columns.begin(), columns.end(),
                                   [](const Column& c) { return c.kind == Kind::kIndex; });
      if (has_index) return LineError(line_no, "no GPU index");
      row.gpu.gpu = 0;
    }
    if (has_info && !gpus.count(row.gpu.gpu)) {
      info.index = row.gpu.gpu;
      gpus[row.gpu.gpu] = std::move(info);
    }
    rows.push_back(std::move(row));
  }
  if (rows.empty()) return InvalidInput("no samples (only a header or an empty log)");
  std::string producer = "gpuvet import nvidia-smi query-gpu csv";
  if (!options.source_name.empty()) producer += " (" + options.source_name + ")";
  std::vector<RecordedGpu> known;
  for (auto& [index, g] : gpus) known.push_back(std::move(g));
  Recording rec = smi_import_internal::BuildRecording(std::move(rows), std::move(known), options,
                                                      producer, ignored);
  rec.meta.driver_version = driver;
  return rec;
}

}  // namespace gpuvet
