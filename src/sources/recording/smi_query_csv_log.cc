// `nvidia-smi --query-gpu=FIELDS --format=csv[,noheader][,nounits] [-l N]` logs: a header line
// ("timestamp, index, utilization.gpu [%], ...") unless `noheader` (then the field list comes
// from --columns), one line per GPU per tick, values with or without units ("56 %", "56"),
// "[N/A]" / "[Not Supported]" for values the GPU does not report. Concatenated runs repeat the
// header; a different header switches the column set from that line on.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
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
// lower-case letters, digits, dots and underscores before an optional " [unit]". Checked in place
// (FieldName's text without building it): every data line of a log passes through here.
bool LooksLikeHeader(const std::vector<std::string_view>& fields) {
  return std::all_of(fields.begin(), fields.end(), [](std::string_view f) {
    std::string_view name = Trim(f);
    size_t bracket = name.find(" [");
    if (bracket != std::string_view::npos) name = Trim(name.substr(0, bracket));
    auto lower = [](char c) {
      return static_cast<unsigned char>(std::tolower(static_cast<unsigned char>(c)));
    };
    return !name.empty() && !std::isdigit(lower(name[0])) &&
           std::all_of(name.begin(), name.end(), [&](char c) {
             unsigned char l = lower(c);
             return std::islower(l) || std::isdigit(l) || l == '.' || l == '_';
           });
  });
}

Status LineError(int line, const std::string& what) {
  return InvalidInput("line " + std::to_string(line) + ": " + what);
}

// What a row said about its GPU (the first such row of each GPU is kept).
struct InfoView {
  std::string_view name, uuid, bus_id;
  std::optional<uint64_t> memory_total_bytes;
  std::optional<double> power_limit_w;
  std::optional<int> sm_clock_max_mhz, mem_clock_max_mhz, pcie_gen_max, pcie_width_max;
};

class QueryCsvLineParser : public smi_import_internal::SmiLineParser {
 public:
  explicit QueryCsvLineParser(const SmiImportOptions& options) {
    if (!options.csv_columns.empty()) SetColumns(Split(options.csv_columns, ','));
  }

  Result<bool> Line(std::string_view line, int line_no, SmiRow* row) override {
    smi_import_internal::SplitInto(line, ',', &fields_);
    if (LooksLikeHeader(fields_)) {
      SetColumns(fields_);
      return false;
    }
    if (columns_.empty()) {
      return LineError(line_no,
                       "a CSV log without a header line (--format=csv,noheader): pass --columns "
                       "with the --query-gpu field list it was written with");
    }
    if (fields_.size() != columns_.size()) {
      return LineError(line_no, "expected " + std::to_string(columns_.size()) +
                                    " comma-separated fields as in the header, found " +
                                    std::to_string(fields_.size()) + ": \"" + std::string(line) +
                                    "\"");
    }
    *row = SmiRow();
    row->line = line_no;
    row->gpu.gpu = -1;
    InfoView info;
    bool has_info = false;
    for (size_t i = 0; i < fields_.size(); ++i) {
      std::string_view v = Trim(fields_[i]);
      const Column& c = columns_[i];
      if (c.kind == Kind::kIgnored || IsAbsent(v)) continue;
      auto bad = [&](const char* expected) {
        return LineError(line_no,
                         "field '" + c.name + "': \"" + std::string(v) + "\" is not " + expected);
      };
      if (c.kind == Kind::kTimestamp) {
        size_t space = v.find(' ');
        row->unix_time =
            space == std::string_view::npos
                ? std::nullopt
                : smi_import_internal::ParseSmiTimestamp(v.substr(0, space), v.substr(space + 1));
        if (!row->unix_time) return bad("a timestamp (YYYY/MM/DD HH:MM:SS.mmm)");
        continue;
      }
      if (c.kind == Kind::kName || c.kind == Kind::kUuid || c.kind == Kind::kBusId ||
          c.kind == Kind::kDriver) {
        if (c.kind == Kind::kName) info.name = v;
        if (c.kind == Kind::kUuid) info.uuid = v;
        if (c.kind == Kind::kBusId) info.bus_id = v;
        if (c.kind == Kind::kDriver) driver_.assign(v);
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
        row->gpu.clock_event_reasons = *bits;
        continue;
      }
      // A number with or without its unit ("56 %", "600.00 W", "100 MiB", "56").
      smi_import_internal::SplitWhitespaceInto(v, &parts_);
      auto x = parts_.empty() || parts_.size() > 2 ? std::nullopt
                                                   : smi_import_internal::ParseLogNumber(parts_[0]);
      if (!x || !std::isfinite(*x)) return bad("a number");
      GpuSample& g = row->gpu;
      using smi_import_internal::FitsCount;
      using smi_import_internal::FitsInt;
      switch (c.kind) {
        case Kind::kMemUsed:
        case Kind::kMemTotal:
          if (!FitsCount(*x * kMiB)) return bad("a size in MiB (0 or more)");
          break;
        case Kind::kEccCorrected:
        case Kind::kEccUncorrected:
          if (!FitsCount(*x)) return bad("a count (0 or more)");
          break;
        case Kind::kSmClockMax:
        case Kind::kMemClockMax:
        case Kind::kPcieGenMax:
        case Kind::kPcieWidthMax:
          if (!FitsInt(*x)) return bad("a whole number that fits");
          break;
        default:
          break;
      }
      switch (c.kind) {
        case Kind::kIndex:
          if (*x < 0 || *x > 1023 || *x != std::floor(*x)) return bad("a GPU index");
          g.gpu = static_cast<int>(*x);
          break;
        case Kind::kUtil:
          g.util_pct = *x;
          break;
        case Kind::kMemUtil:
          g.mem_util_pct = *x;
          break;
        case Kind::kMemUsed:
          g.memory_used_bytes = static_cast<uint64_t>(*x * kMiB);
          break;
        case Kind::kPower:
          if (!g.power_w) g.power_w = *x;
          break;
        case Kind::kTemp:
          g.temperature_c = *x;
          break;
        case Kind::kSmClock:
          g.sm_clock_mhz = *x;
          break;
        case Kind::kGraphicsClock:
          if (!g.sm_clock_mhz) g.sm_clock_mhz = *x;
          break;
        case Kind::kMemClock:
          g.mem_clock_mhz = *x;
          break;
        case Kind::kEccCorrected:
          g.ecc_corrected_volatile = static_cast<uint64_t>(*x);
          break;
        case Kind::kEccUncorrected:
          g.ecc_uncorrected_volatile = static_cast<uint64_t>(*x);
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
    if (row->gpu.gpu < 0) {
      // Without an index column the log is about one GPU (`-i N`), or the rows are in GPU order.
      if (has_index_) return LineError(line_no, "no GPU index");
      row->gpu.gpu = 0;
    }
    if (has_info && !gpus_.count(row->gpu.gpu)) {
      RecordedGpu& g = gpus_[row->gpu.gpu];
      g.index = row->gpu.gpu;
      g.name = std::string(info.name);
      g.uuid = std::string(info.uuid);
      g.pci_bus_id = std::string(info.bus_id);
      g.memory_total_bytes = info.memory_total_bytes;
      g.power_limit_w = info.power_limit_w;
      g.sm_clock_max_mhz = info.sm_clock_max_mhz;
      g.mem_clock_max_mhz = info.mem_clock_max_mhz;
      g.pcie_gen_max = info.pcie_gen_max;
      g.pcie_width_max = info.pcie_width_max;
    }
    return true;
  }

  smi_import_internal::SmiLogFacts Facts() const override {
    smi_import_internal::SmiLogFacts facts;
    facts.ignored_columns = ignored_;
    for (const auto& [index, g] : gpus_) facts.gpus.push_back(g);
    facts.driver_version = driver_;
    return facts;
  }
  std::string Producer() const override { return "gpuvet import nvidia-smi query-gpu csv"; }
  std::string NoSamplesMessage() const override {
    return "no samples (only a header or an empty log)";
  }

 private:
  void SetColumns(const std::vector<std::string_view>& fields) {
    columns_ = ParseColumns(fields, &ignored_);
    has_index_ = std::any_of(columns_.begin(), columns_.end(),
                             [](const Column& c) { return c.kind == Kind::kIndex; });
  }

  std::vector<std::string> ignored_;
  std::vector<Column> columns_;
  bool has_index_ = false;
  std::map<int, RecordedGpu> gpus_;
  std::string driver_;
  std::vector<std::string_view> fields_, parts_;  // reused line by line
};

}  // namespace

namespace smi_import_internal {

std::unique_ptr<SmiLineParser> MakeQueryCsvLineParser(const SmiImportOptions& options) {
  return std::make_unique<QueryCsvLineParser>(options);
}

}  // namespace smi_import_internal

}  // namespace gpuvet
