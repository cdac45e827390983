// Shared parts of the nvidia-smi log importers: format detection, timestamps, the two-pass line
// engine (over text in memory or a file read a buffer at a time), the interval estimate, turning
// the per-GPU rows both formats produce into time-ordered samples, and the recording sink.
#include "sources/recording/smi_log_import.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>

#include "sources/recording/recording_store.h"
#include "util/file.h"
#include "util/iso_time.h"
#include "util/strings.h"

namespace gpuvet {

namespace smi_import_internal {

namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int Digits(std::string_view s, size_t at, size_t n) {
  int v = 0;
  for (size_t i = at; i < at + n; ++i) v = v * 10 + (s[i] - '0');
  return v;
}

bool AllDigits(std::string_view s, size_t at, size_t n) {
  if (at + n > s.size()) return false;
  for (size_t i = at; i < at + n; ++i) {
    if (!IsDigit(s[i])) return false;
  }
  return true;
}

// The common spellings ("2025/07/05" or "20250705", "15:01:02.123") without sscanf: the same
// fields the general path reads, so the same result. Nullopt when the text is not of that shape
// (the general path then decides).
std::optional<double> FastTimestamp(std::string_view ds, std::string_view ts) {
  int y = 0, mo = 0, d = 0;
  if (ds.size() == 10 && AllDigits(ds, 0, 4) && (ds[4] == '/' || ds[4] == '-') && ds[7] == ds[4] &&
      AllDigits(ds, 5, 2) && AllDigits(ds, 8, 2)) {
    y = Digits(ds, 0, 4), mo = Digits(ds, 5, 2), d = Digits(ds, 8, 2);
  } else if (ds.size() == 8 && AllDigits(ds, 0, 8)) {
    y = Digits(ds, 0, 4), mo = Digits(ds, 4, 2), d = Digits(ds, 6, 2);
  } else {
    return std::nullopt;
  }
  if (ts.size() < 8 || ts.size() > 24 || !AllDigits(ts, 0, 2) || ts[2] != ':' ||
      !AllDigits(ts, 3, 2) || ts[5] != ':' || !AllDigits(ts, 6, 2)) {
    return std::nullopt;
  }
  if (ts.size() > 8 && (ts[8] != '.' || ts.size() == 9 || !AllDigits(ts, 9, ts.size() - 9))) {
    return std::nullopt;
  }
  const int h = Digits(ts, 0, 2), mi = Digits(ts, 3, 2);
  std::optional<double> seconds = ParseLogNumber(ts.substr(6));  // what sscanf's %lf reads
  if (!seconds) return std::nullopt;
  const double s = *seconds;
  if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s >= 61) {
    return std::nullopt;  // malformed: the general path says the same
  }
  const int64_t days = DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  return static_cast<double>(days * 86400 + h * 3600 + mi * 60) + s;
}

}  // namespace

std::optional<double> ParseSmiTimestamp(std::string_view date, std::string_view time) {
  std::string_view dt = Trim(date), tt = Trim(time);
  if (std::optional<double> fast = FastTimestamp(dt, tt)) return fast;
  int y = 0, mo = 0, d = 0, h = 0, mi = 0;
  double s = 0;
  std::string ds(dt), ts(tt);
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

bool FitsCount(double v) { return v >= 0 && v < 18446744073709551616.0; }

bool FitsInt(double v) {
  return v >= static_cast<double>(std::numeric_limits<int>::min()) &&
         v <= static_cast<double>(std::numeric_limits<int>::max());
}

std::optional<double> ParseLogNumber(std::string_view s) {
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  size_t i = 0;
  const bool negative = !s.empty() && s[0] == '-';
  if (negative) ++i;
  uint64_t mantissa = 0;
  int digits = 0, fraction = -1;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      mantissa = mantissa * 10 + static_cast<uint64_t>(c - '0');
      ++digits;
      if (fraction >= 0) ++fraction;
    } else if (c == '.' && fraction < 0) {
      fraction = 0;
    } else {
      break;
    }
  }
  if (i != s.size() || digits == 0 || digits > 15 || fraction > 22) return ParseDouble(s);
  double v = static_cast<double>(mantissa);  // exact: below 10^15 < 2^53
  if (fraction > 0) v /= kPow10[fraction];
  return negative ? -v : v;
}

void SplitInto(std::string_view s, char sep, std::vector<std::string_view>* out) {
  out->clear();
  size_t start = 0;
  while (true) {
    size_t at = s.find(sep, start);
    if (at == std::string_view::npos) {
      out->push_back(s.substr(start));
      return;
    }
    out->push_back(s.substr(start, at - start));
    start = at + 1;
  }
}

void SplitWhitespaceInto(std::string_view s, std::vector<std::string_view>* out) {
  out->clear();
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && IsSpace(s[i])) ++i;
    size_t start = i;
    while (i < s.size() && !IsSpace(s[i])) ++i;
    if (i > start) out->push_back(s.substr(start, i - start));
  }
}

}  // namespace smi_import_internal

namespace {

using smi_import_internal::SmiLineParser;
using smi_import_internal::SmiLogFacts;
using smi_import_internal::SmiRow;

// A source of raw log lines (without the '\n'), in order.
class LineSource {
 public:
  enum class Got { kLine, kEnd, kTooLong, kError };
  virtual ~LineSource() = default;
  virtual Got Next(std::string_view* line) = 0;
  // The read error after kError.
  virtual Status error() const { return Status::Ok(); }
};

// Lines of a text in memory: the text split at '\n'; a last line without one counts, a final
// '\n' does not start another.
class TextLines : public LineSource {
 public:
  explicit TextLines(std::string_view text) : text_(text) {}
  Got Next(std::string_view* line) override {
    if (pos_ >= text_.size()) return Got::kEnd;
    size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    *line = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return line->size() > kSmiMaxLineBytes ? Got::kTooLong : Got::kLine;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

// Lines of an open file, read a buffer at a time and at most `limit` bytes; the same lines as
// TextLines over the file's text. Owns the fd; counts the bytes it read into `*bytes_read`.
class FileLines : public LineSource {
 public:
  FileLines(int fd, std::string path, uint64_t limit, uint64_t* bytes_read)
      : fd_(fd),
        path_(std::move(path)),
        limit_(limit),
        bytes_read_(bytes_read),
        buf_(kSmiMaxLineBytes + kChunk + 1) {}
  ~FileLines() override { ::close(fd_); }
  FileLines(const FileLines&) = delete;
  FileLines& operator=(const FileLines&) = delete;

  Got Next(std::string_view* line) override {
    while (true) {
      const char* nl = static_cast<const char*>(
          begin_ < end_ ? std::memchr(buf_.data() + begin_, '\n', end_ - begin_) : nullptr);
      if (nl != nullptr) {
        size_t at = static_cast<size_t>(nl - buf_.data());
        *line = std::string_view(buf_.data() + begin_, at - begin_);
        begin_ = at + 1;
        return line->size() > kSmiMaxLineBytes ? Got::kTooLong : Got::kLine;
      }
      if (eof_) {
        if (begin_ >= end_) return Got::kEnd;
        *line = std::string_view(buf_.data() + begin_, end_ - begin_);
        begin_ = end_;
        return line->size() > kSmiMaxLineBytes ? Got::kTooLong : Got::kLine;
      }
      if (end_ - begin_ > kSmiMaxLineBytes) return Got::kTooLong;
      if (begin_ > 0) {  // keep the unfinished line, make room behind it
        std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
        end_ -= begin_;
        begin_ = 0;
      }
      size_t room = std::min<uint64_t>(buf_.size() - end_, limit_ - read_);
      if (room == 0) {
        eof_ = true;
        continue;
      }
      ssize_t n = ::read(fd_, buf_.data() + end_, room);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        error_ = Unavailable("cannot read " + path_ + ": " + std::strerror(errno));
        return Got::kError;
      }
      if (n == 0) eof_ = true;
      end_ += static_cast<size_t>(n);
      read_ += static_cast<uint64_t>(n);
      if (bytes_read_ != nullptr) *bytes_read_ = read_;
    }
  }
  Status error() const override { return error_; }

 private:
  static constexpr size_t kChunk = size_t{256} << 10;
  int fd_;
  std::string path_;
  uint64_t limit_;
  uint64_t* bytes_read_;
  std::vector<char> buf_;
  size_t begin_ = 0, end_ = 0;
  uint64_t read_ = 0;
  bool eof_ = false;
  Status error_;
};

std::string TooLong(int line_no) {
  return "line " + std::to_string(line_no) + ": longer than " + std::to_string(kSmiMaxLineBytes) +
         " bytes, which no nvidia-smi log line is";
}

// The median spacing of distinct timestamps, from a count per distinct gap (a log's gaps take a
// handful of values: the -l interval and the milliseconds between a tick's GPU lines), so it costs
// memory per distinct gap, not per line.
class IntervalEstimate {
 public:
  void Add(std::optional<double> t) {
    if (!t) return;
    if (any_ && *t == last_) return;
    if (any_ && *t > last_) ++gaps_[*t - last_];
    last_ = *t;
    any_ = true;
  }
  bool timed() const { return any_; }
  // The -l / -d interval the log was written with, or `fallback` without two distinct times. A
  // tick's GPU lines carry slightly different times (…16.977, …16.981): the median of all gaps
  // would be those milliseconds, so this is the median of the gaps above a tenth of the largest.
  double Interval(double fallback) const {
    if (gaps_.empty()) return fallback;
    const double floor = gaps_.rbegin()->first / 10;
    int64_t big = 0;
    for (auto it = gaps_.upper_bound(floor); it != gaps_.end(); ++it) big += it->second;
    int64_t want = big / 2, seen = 0;
    for (auto it = gaps_.upper_bound(floor); it != gaps_.end(); ++it) {
      seen += it->second;
      if (seen > want) return it->first;
    }
    return fallback;  // not reached: the largest gap is above a tenth of itself
  }

 private:
  std::map<double, int64_t> gaps_;
  double last_ = 0;
  bool any_ = false;
};

// Groups rows into samples (a new sample starts when a GPU index repeats or the timestamp moves
// by more than half the interval) and hands each finished one to the sink with t, unix_time and
// interval_s set and its GPUs in index order.
class SampleGrouper {
 public:
  SampleGrouper(double interval_s, bool timed, double start, SmiSampleSink* sink)
      : interval_s_(interval_s), timed_(timed), start_(start), sink_(sink) {}

  Status Add(SmiRow& r) {
    const int gpu = r.gpu.gpu;
    bool repeat = gpu >= 0 && static_cast<size_t>(gpu) < seen_.size() && seen_[gpu];
    bool moved = r.unix_time && group_time_ && *r.unix_time - *group_time_ > interval_s_ / 2;
    if (!open_ || repeat || moved) {
      if (open_) {
        if (Status s = Emit(); !s.ok()) return s;
      }
      open_ = true;
      current_.gpus.clear();
      current_.unix_time = r.unix_time.value_or(0);
      seen_.assign(seen_.size(), false);
      group_time_ = r.unix_time;
    }
    if (gpu >= 0) {
      if (static_cast<size_t>(gpu) >= seen_.size()) seen_.resize(gpu + 1, false);
      seen_[gpu] = true;
    }
    current_.gpus.push_back(std::move(r.gpu));
    return Status::Ok();
  }

  // Emits the last sample; the end time is the last sample plus an interval, on the log's clock
  // or (untimed, --interval) on the index clock: an import read to its end is finished, never
  // "not finished".
  Result<std::optional<double>> Finish() {
    if (!open_) return std::optional<double>();
    if (Status s = Emit(); !s.ok()) return s;
    open_ = false;
    return std::optional<double>(previous_unix_ + interval_s_);
  }
  int64_t samples() const { return index_; }

 private:
  Status Emit() {
    Sample& s = current_;
    if (!timed_) s.unix_time = static_cast<double>(index_) * interval_s_;
    s.t = s.unix_time - start_;
    s.interval_s = index_ == 0 ? interval_s_ : s.unix_time - previous_unix_;
    std::sort(s.gpus.begin(), s.gpus.end(),
              [](const GpuSample& a, const GpuSample& b) { return a.gpu < b.gpu; });
    previous_unix_ = s.unix_time;
    ++index_;
    return sink_->Add(s);
  }

  double interval_s_;
  bool timed_;
  double start_;
  SmiSampleSink* sink_;
  Sample current_;
  bool open_ = false;
  std::vector<bool> seen_;
  std::optional<double> group_time_;
  double previous_unix_ = 0;
  int64_t index_ = 0;
};

using ParserFactory = std::unique_ptr<SmiLineParser> (*)(const SmiImportOptions&);
using SourceFactory = std::function<Result<std::unique_ptr<LineSource>>(int pass)>;

// Reads the lines of `source`, feeding the data rows to `row` (which may stop with an error).
// Returns the number of data rows; parse errors carry `prefix`.
template <typename OnRow>
Result<int64_t> ReadRows(LineSource& source, SmiLineParser& parser, const std::string& prefix,
                         OnRow&& on_row) {
  SmiRow row;
  int line_no = 0;
  int64_t rows = 0;
  std::string_view raw;
  while (true) {
    LineSource::Got got = source.Next(&raw);
    if (got == LineSource::Got::kEnd) break;
    if (got == LineSource::Got::kError) return source.error();
    ++line_no;
    if (got == LineSource::Got::kTooLong) return InvalidInput(prefix + TooLong(line_no));
    std::string_view line = Trim(raw);
    if (line.empty()) continue;
    Result<bool> is_row = parser.Line(line, line_no, &row);
    if (!is_row.ok()) return InvalidInput(prefix + is_row.status().message());
    if (!*is_row) continue;
    ++rows;
    if (Status s = on_row(row); !s.ok()) return s;
  }
  return rows;
}

Status RunPasses(const SourceFactory& open, ParserFactory make_parser,
                 const SmiImportOptions& options, const std::string& prefix, SmiSampleSink* sink) {
  // Pass 1: every line checked; the interval, the start, the GPUs and the notes.
  std::unique_ptr<SmiLineParser> parser = make_parser(options);
  IntervalEstimate interval;
  std::optional<double> first_time;
  bool first = true;
  std::vector<bool> indices;
  Result<std::unique_ptr<LineSource>> opened = open(1);
  if (!opened.ok()) return opened.status();
  std::unique_ptr<LineSource> source = std::move(opened).value();
  Result<int64_t> rows = ReadRows(*source, *parser, prefix, [&](const SmiRow& r) {
    if (first) first_time = r.unix_time, first = false;
    interval.Add(r.unix_time);
    if (static_cast<size_t>(r.gpu.gpu) >= indices.size()) indices.resize(r.gpu.gpu + 1, false);
    indices[r.gpu.gpu] = true;
    return Status::Ok();
  });
  source.reset();
  if (!rows.ok()) return rows.status();
  if (*rows == 0) return InvalidInput(prefix + parser->NoSamplesMessage());

  SmiLogFacts facts = parser->Facts();
  RecordingMeta meta;
  meta.producer = parser->Producer();
  if (!options.source_name.empty()) meta.producer += " (" + options.source_name + ")";
  meta.interval_s = interval.Interval(options.interval_s);
  if (!options.source_name.empty()) meta.notes["import.source"] = options.source_name;
  if (!facts.ignored_columns.empty()) {
    meta.notes["import.ignored_columns"] = Join(facts.ignored_columns, ",");
  }
  for (auto& [key, value] : facts.notes) meta.notes[key] = value;
  meta.driver_version = facts.driver_version;
  meta.start_unix_s = interval.timed() ? first_time.value_or(0) : 0;
  std::map<int, RecordedGpu> by_index;
  for (RecordedGpu& g : facts.gpus) by_index[g.index] = std::move(g);
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i]) by_index[static_cast<int>(i)].index = static_cast<int>(i);
  }
  for (auto& [index, g] : by_index) meta.gpus.push_back(std::move(g));
  if (Status s = sink->Begin(meta); !s.ok()) return s;

  // Pass 2: the same rows again, grouped into samples as they come.
  parser = make_parser(options);
  SampleGrouper grouper(meta.interval_s, interval.timed(), meta.start_unix_s, sink);
  opened = open(2);
  if (!opened.ok()) return opened.status();
  source = std::move(opened).value();
  const std::string changed = prefix + "the file changed while it was imported: ";
  Result<int64_t> rows2 =
      ReadRows(*source, *parser, changed, [&](SmiRow& r) { return grouper.Add(r); });
  if (!rows2.ok()) return rows2.status();
  if (*rows2 != *rows) {
    return InvalidInput(changed + std::to_string(*rows) + " rows on the first pass, " +
                        std::to_string(*rows2) + " on the second");
  }
  Result<std::optional<double>> end = grouper.Finish();
  if (!end.ok()) return end.status();
  return sink->End(*end);
}

Status StreamText(std::string_view text, ParserFactory make_parser, const SmiImportOptions& options,
                  SmiSampleSink* sink) {
  return RunPasses(
      [text](int) -> Result<std::unique_ptr<LineSource>> {
        return std::unique_ptr<LineSource>(std::make_unique<TextLines>(text));
      },
      make_parser, options, "", sink);
}

// Keeps what it is given as a whole Recording.
class CollectSink : public SmiSampleSink {
 public:
  Status Begin(const RecordingMeta& meta) override {
    rec.meta = meta;
    return Status::Ok();
  }
  Status Add(const Sample& sample) override {
    rec.samples.push_back(sample);
    return Status::Ok();
  }
  Status End(std::optional<double> end_unix_s) override {
    rec.meta.end_unix_s = end_unix_s;
    return Status::Ok();
  }
  Recording rec;
};

// The first-lines test of DetectSmiLogFormat: the format a line decides, kAuto to look further.
// Nullopt when the line decides that the text is neither.
std::optional<SmiLogFormat> ClassifyLine(std::string_view line) {
  if (line.empty()) return SmiLogFormat::kAuto;
  if (line[0] == '#') {
    std::vector<std::string_view> words = SplitWhitespace(line.substr(1));
    for (std::string_view w : words) {
      if (w == "gpu" || w == "Idx") return SmiLogFormat::kDmon;
    }
    return SmiLogFormat::kAuto;
  }
  if (line.find(',') != std::string_view::npos) return SmiLogFormat::kQueryCsv;
  return std::nullopt;
}

constexpr int kDetectLines = 50;

}  // namespace

std::optional<SmiLogFormat> DetectSmiLogFormat(std::string_view text) {
  size_t pos = 0;
  for (int lines = 0; pos < text.size() && lines < kDetectLines; ++lines) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = Trim(text.substr(pos, end - pos));
    pos = end + 1;
    std::optional<SmiLogFormat> f = ClassifyLine(line);
    if (f != SmiLogFormat::kAuto) return f;
  }
  return std::nullopt;
}

Status StreamDmonLog(std::string_view text, const SmiImportOptions& options, SmiSampleSink* sink) {
  return StreamText(text, smi_import_internal::MakeDmonLineParser, options, sink);
}

Status StreamQueryCsvLog(std::string_view text, const SmiImportOptions& options,
                         SmiSampleSink* sink) {
  return StreamText(text, smi_import_internal::MakeQueryCsvLineParser, options, sink);
}

Result<Recording> ParseDmonLog(std::string_view text, const SmiImportOptions& options) {
  CollectSink sink;
  if (Status s = StreamDmonLog(text, options, &sink); !s.ok()) return s;
  return std::move(sink.rec);
}

Result<Recording> ParseQueryCsvLog(std::string_view text, const SmiImportOptions& options) {
  CollectSink sink;
  if (Status s = StreamQueryCsvLog(text, options, &sink); !s.ok()) return s;
  return std::move(sink.rec);
}

Status StreamSmiLog(const std::string& path, const SmiImportOptions& options, SmiSampleSink* sink) {
  SmiImportOptions o = options;
  if (o.source_name.empty()) o.source_name = path;
  struct stat first = {};
  uint64_t first_bytes = 0;  // the second pass reads exactly what the first read
  auto open = [&](int pass) -> Result<std::unique_ptr<LineSource>> {
    Result<int> fd = OpenForReading(path);
    if (!fd.ok()) return fd.status();
    struct stat now = {};
    fstat(*fd, &now);
    if (pass == 1) {
      first = now;
      return std::unique_ptr<LineSource>(
          std::make_unique<FileLines>(*fd, path, UINT64_MAX, &first_bytes));
    }
    if (now.st_ino != first.st_ino || now.st_dev != first.st_dev ||
        static_cast<uint64_t>(now.st_size) < first_bytes) {
      ::close(*fd);
      return InvalidInput(path +
                          ": the file changed while it was imported (replaced or truncated "
                          "between the two passes); import it again");
    }
    return std::unique_ptr<LineSource>(
        std::make_unique<FileLines>(*fd, path, first_bytes, nullptr));
  };
  SmiLogFormat format = o.format;
  if (format == SmiLogFormat::kAuto) {
    Result<int> fd = OpenForReading(path);
    if (!fd.ok()) return fd.status();
    FileLines lines(*fd, path, UINT64_MAX, nullptr);
    std::optional<SmiLogFormat> detected;
    std::string_view raw;
    for (int n = 0; n < kDetectLines; ++n) {
      LineSource::Got got = lines.Next(&raw);
      if (got == LineSource::Got::kError) return lines.error();
      if (got == LineSource::Got::kTooLong) return InvalidInput(path + ": " + TooLong(n + 1));
      if (got == LineSource::Got::kEnd) break;
      detected = ClassifyLine(Trim(raw));
      if (detected != SmiLogFormat::kAuto) break;
    }
    if (!detected || *detected == SmiLogFormat::kAuto) {
      return InvalidInput(path +
                          ": neither an `nvidia-smi dmon` log (no '# gpu ...' header) nor an "
                          "`nvidia-smi --query-gpu=... --format=csv` log (no comma-separated "
                          "lines); pass --format to say which it is");
    }
    format = *detected;
  }
  return RunPasses(open,
                   format == SmiLogFormat::kDmon ? smi_import_internal::MakeDmonLineParser
                                                 : smi_import_internal::MakeQueryCsvLineParser,
                   o, path + ": ", sink);
}

Result<Recording> ImportSmiLog(const std::string& path, const SmiImportOptions& options) {
  CollectSink sink;
  if (Status s = StreamSmiLog(path, options, &sink); !s.ok()) return s;
  return std::move(sink.rec);
}

struct SmiRecordingSink::State {
  std::unique_ptr<RecordingWriter> writer;
};

SmiRecordingSink::SmiRecordingSink(std::string out, int samples_per_commit)
    : out_(std::move(out)),
      samples_per_commit_(samples_per_commit),
      state_(std::make_unique<State>()) {}

SmiRecordingSink::~SmiRecordingSink() = default;

Status SmiRecordingSink::Begin(const RecordingMeta& meta) {
  meta_ = meta;
  RecordingWriterOptions options;
  options.samples_per_commit = samples_per_commit_;
  options.sync_commits = false;  // the log is still there: Finish syncs the finished recording
  auto writer = RecordingWriter::Create(out_, meta, options);
  if (!writer.ok()) return writer.status();
  state_->writer = std::move(writer).value();
  return Status::Ok();
}

Status SmiRecordingSink::Add(const Sample& sample) {
  if (!state_->writer) return Internal("recording " + out_ + " was not begun");
  if (Status s = state_->writer->Append(sample); !s.ok()) return s;
  ++samples_;
  return Status::Ok();
}

Status SmiRecordingSink::End(std::optional<double> end_unix_s) {
  if (!state_->writer) return Internal("recording " + out_ + " was not begun");
  meta_.end_unix_s = end_unix_s;
  return state_->writer->Finish(end_unix_s, std::nullopt);
}

}  // namespace gpuvet
