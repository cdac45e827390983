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

// A dmon column that fills a GpuSample field: the field and the factor to its unit; `count`:
// stored as an unsigned integer (a negative or huge value makes the row invalid).
struct FieldMap {
  const char* name;
  double scale;
  void (*set)(GpuSample&, double);
  bool count = false;
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
    {"fb", kMiB, [](GpuSample& g, double v) { g.memory_used_bytes = static_cast<uint64_t>(v); },
     true},
    {"sbecc", 1,
     [](GpuSample& g, double v) { g.ecc_corrected_volatile = static_cast<uint64_t>(v); }, true},
    {"dbecc", 1,
     [](GpuSample& g, double v) { g.ecc_uncorrected_volatile = static_cast<uint64_t>(v); }, true},
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

class DmonLineParser : public smi_import_internal::SmiLineParser {
 public:
  Result<bool> Line(std::string_view line, int line_no, SmiRow* row) override {
    if (line[0] == '#') {
      smi_import_internal::SplitWhitespaceInto(line.substr(1), &values_);
      if (std::find(values_.begin(), values_.end(), "gpu") != values_.end()) {
        header_ = ParseHeader(values_, &ignored_);
      }
      return false;  // the units line ("# Idx W C ...") and comments
    }
    if (!header_) return LineError(line_no, "data before the '# gpu ...' dmon header");
    smi_import_internal::SplitWhitespaceInto(line, &values_);
    if (values_.size() != header_->names.size()) {
      return LineError(line_no, "expected " + std::to_string(header_->names.size()) +
                                    " columns as in the header, found " +
                                    std::to_string(values_.size()) + ": \"" + std::string(line) +
                                    "\"");
    }
    *row = SmiRow();
    row->line = line_no;
    row->gpu.gpu = -1;
    std::string_view date, time;
    std::optional<double> pviol, tviol;
    for (size_t i = 0; i < values_.size(); ++i) {
      std::string_view v = values_[i];
      switch (header_->kinds[i]) {
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
          row->gpu.gpu = static_cast<int>(*idx);
          break;
        }
        default: {
          if (IsAbsent(v)) break;
          auto x = smi_import_internal::ParseLogNumber(v);
          if (!x || !std::isfinite(*x)) {
            return LineError(line_no, "column '" + header_->names[i] + "': \"" + std::string(v) +
                                          "\" is not a number or '-'");
          }
          if (header_->kinds[i] == Col::kPowerViolation) {
            pviol = *x;
          } else if (header_->kinds[i] == Col::kThermalViolation) {
            tviol = *x;
          } else {
            const FieldMap& f = *header_->fields[i];
            double value = *x * f.scale;
            if (f.count && !smi_import_internal::FitsCount(value)) {
              return LineError(line_no, "column '" + header_->names[i] + "': \"" + std::string(v) +
                                            "\" is not a count (0 or more)");
            }
            f.set(row->gpu, value);
          }
        }
      }
    }
    if (row->gpu.gpu < 0) return LineError(line_no, "the header has no 'gpu' column");
    // pviol/tviol: percent of the interval spent power- or thermally-capped (nvidia-smi(1)).
    if (pviol || tviol) {
      uint64_t bits = 0;
      if (pviol.value_or(0) > 0) bits |= clock_reason::kSwPowerCap;
      if (tviol.value_or(0) > 0) bits |= clock_reason::kSwThermalSlowdown;
      row->gpu.clock_event_reasons = bits;
    }
    if (header_->has_time) {
      if (header_->has_date) {
        row->unix_time = smi_import_internal::ParseSmiTimestamp(date, time);
      } else {  // -o T: time of day only; a step back by hours is midnight
        row->unix_time = smi_import_internal::ParseSmiTimestamp("19700101", time);
        if (row->unix_time) {
          time_of_day_only_ = true;
          if (*row->unix_time + 12 * 3600 < last_time_of_day_) day_offset_ += 86400;
          last_time_of_day_ = *row->unix_time;
          *row->unix_time += day_offset_;
        }
      }
      if (!row->unix_time) {
        return LineError(line_no, "date/time \"" + std::string(date) + " " + std::string(time) +
                                      "\" is not YYYYMMDD HH:MM:SS");
      }
    }
    return true;
  }

  smi_import_internal::SmiLogFacts Facts() const override {
    smi_import_internal::SmiLogFacts facts;
    facts.ignored_columns = ignored_;
    if (time_of_day_only_) {
      facts.notes["import.clock"] = "time of day only (dmon -o T): dates are unknown";
    }
    return facts;
  }
  std::string Producer() const override { return "gpuvet import nvidia-smi dmon"; }
  std::string NoSamplesMessage() const override {
    return "no dmon samples (only headers or an empty log)";
  }

 private:
  std::vector<std::string> ignored_;
  std::optional<Header> header_;
  double day_offset_ = 0, last_time_of_day_ = -1;
  bool time_of_day_only_ = false;
  std::vector<std::string_view> values_;  // reused line by line
};

}  // namespace

namespace smi_import_internal {

std::unique_ptr<SmiLineParser> MakeDmonLineParser(const SmiImportOptions&) {
  return std::make_unique<DmonLineParser>();
}

}  // namespace smi_import_internal

}  // namespace gpuvet
