// Shared parts of the nvidia-smi log importers: format detection, timestamps, and turning the
// per-GPU rows both formats produce into time-ordered samples of a recording.
#include "sources/recording/smi_log_import.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "util/file.h"
#include "util/iso_time.h"
#include "util/strings.h"

namespace gpuvet {

namespace smi_import_internal {

std::optional<double> ParseSmiTimestamp(std::string_view date, std::string_view time) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0;
  double s = 0;
  std::string ds(Trim(date)), ts(Trim(time));
  char tail = 0;
  if (ds.size() == 8 && std::sscanf(ds.c_str(), "%4d%2d%2d%c", &y, &mo, &d, &tail) == 3) {
    // dmon -o D: YYYYMMDD
  } else if (std::sscanf(ds.c_str(), "%d/%d/%d%c", &y, &mo, &d, &tail) != 3 &&
             std::sscanf(ds.c_str(), "%d-%d-%d%c", &y, &mo, &d, &tail) != 3) {
    return std::nullopt;
  }
  if (std::sscanf(ts.c_str(), "%d:%d:%lf%c", &h, &mi, &s, &tail) != 3) return std::nullopt;
  if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 ||
      s < 0 || s >= 61) {
    return std::nullopt;
  }
  const int64_t days = DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  return static_cast<double>(days * 86400 + h * 3600 + mi * 60) + s;
}

Recording BuildRecording(std::vector<SmiRow> rows, std::vector<RecordedGpu> gpus,
                         const SmiImportOptions& options, const std::string& producer,
                         const std::vector<std::string>& ignored_columns) {
  Recording rec;
  RecordingMeta& meta = rec.meta;
  meta.producer = producer;
  meta.interval_s = options.interval_s;
  if (!options.source_name.empty()) meta.notes["import.source"] = options.source_name;
  if (!ignored_columns.empty()) meta.notes["import.ignored_columns"] = Join(ignored_columns, ",");

  // Median spacing of distinct timestamps: the -l / -d interval the log was written with.
  std::vector<double> times;
  for (const SmiRow& r : rows) {
    if (r.unix_time && (times.empty() || *r.unix_time != times.back())) {
      times.push_back(*r.unix_time);
    }
  }
  std::vector<double> gaps;
  for (size_t i = 1; i < times.size(); ++i) {
    if (times[i] > times[i - 1]) gaps.push_back(times[i] - times[i - 1]);
  }
  if (!gaps.empty()) {
    std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
    // A tick's GPU lines carry slightly different times (…16.977, …16.981): the median of all
    // gaps would be those milliseconds, so take the median of gaps above a tenth of the largest.
    double largest = *std::max_element(gaps.begin(), gaps.end());
    std::vector<double> big;
    for (double g : gaps) {
      if (g > largest / 10) big.push_back(g);
    }
    std::nth_element(big.begin(), big.begin() + big.size() / 2, big.end());
    meta.interval_s = big[big.size() / 2];
  }

  std::vector<Sample>& samples = rec.samples;
  std::vector<bool> seen;
  std::optional<double> group_time;
  for (SmiRow& r : rows) {
    bool repeat = r.gpu.gpu >= 0 && static_cast<size_t>(r.gpu.gpu) < seen.size() && seen[r.gpu.gpu];
    bool moved = r.unix_time && group_time && *r.unix_time - *group_time > meta.interval_s / 2;
    if (samples.empty() || repeat || moved) {
      Sample& s = samples.emplace_back();
      s.unix_time = r.unix_time.value_or(0);
      seen.assign(seen.size(), false);
      group_time = r.unix_time;
    }
    if (r.gpu.gpu >= 0) {
      if (static_cast<size_t>(r.gpu.gpu) >= seen.size()) seen.resize(r.gpu.gpu + 1, false);
      seen[r.gpu.gpu] = true;
    }
    samples.back().gpus.push_back(std::move(r.gpu));
  }

  const bool timed = !times.empty();
  double start = timed ? samples.front().unix_time : 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    Sample& s = samples[i];
    if (!timed) s.unix_time = i * meta.interval_s;
    s.t = s.unix_time - start;
    s.interval_s = i == 0 ? meta.interval_s : s.unix_time - samples[i - 1].unix_time;
    std::sort(s.gpus.begin(), s.gpus.end(),
              [](const GpuSample& a, const GpuSample& b) { return a.gpu < b.gpu; });
  }
  meta.start_unix_s = start;
  if (timed && !samples.empty()) meta.end_unix_s = samples.back().unix_time + meta.interval_s;

  // Every GPU index the log mentions, with what it said about it.
  std::map<int, RecordedGpu> by_index;
  for (RecordedGpu& g : gpus) by_index[g.index] = std::move(g);
  for (const Sample& s : samples) {
    for (const GpuSample& g : s.gpus) by_index[g.gpu].index = g.gpu;
  }
  for (auto& [index, g] : by_index) meta.gpus.push_back(std::move(g));
  return rec;
}

}  // namespace smi_import_internal

std::optional<SmiLogFormat> DetectSmiLogFormat(std::string_view text) {
  size_t pos = 0;
  for (int lines = 0; pos < text.size() && lines < 50; ++lines) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = Trim(text.substr(pos, end - pos));
    pos = end + 1;
    if (line.empty()) continue;
    if (line[0] == '#') {
      std::vector<std::string_view> words = SplitWhitespace(line.substr(1));
      for (std::string_view w : words) {
        if (w == "gpu" || w == "Idx") return SmiLogFormat::kDmon;
      }
      continue;
    }
    if (line.find(',') != std::string_view::npos) return SmiLogFormat::kQueryCsv;
    return std::nullopt;
  }
  return std::nullopt;
}

Result<Recording> ImportSmiLog(const std::string& path, const SmiImportOptions& options) {
  auto text = ReadFile(path, size_t{4} << 30);
  if (!text.ok()) return text.status();
  SmiImportOptions o = options;
  if (o.source_name.empty()) o.source_name = path;
  SmiLogFormat format = o.format;
  if (format == SmiLogFormat::kAuto) {
    auto detected = DetectSmiLogFormat(*text);
    if (!detected) {
      return InvalidInput(path +
                          ": neither an `nvidia-smi dmon` log (no '# gpu ...' header) nor an "
                          "`nvidia-smi --query-gpu=... --format=csv` log (no comma-separated "
                          "lines); pass --format to say which it is");
    }
    format = *detected;
  }
  Result<Recording> rec =
      format == SmiLogFormat::kDmon ? ParseDmonLog(*text, o) : ParseQueryCsvLog(*text, o);
  if (!rec.ok()) return InvalidInput(path + ": " + rec.status().message());
  return rec;
}

}  // namespace gpuvet
