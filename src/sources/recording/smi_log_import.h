// `gpuvet import`: turns the nvidia-smi logs people already keep into a recording. Two formats:
// `nvidia-smi dmon` text (any -s column set, optional -o D/T/DT columns) and
// `nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits] [-l N]` logs. Columns map to
// GpuSample fields with unit conversion (docs/recording.md, "Importing nvidia-smi logs").
//
// The log is read line by line in two passes, in memory bounded by one line and one sample
// (never by the length of the log): the first checks every line and learns what the recording's
// metadata needs (the GPUs, the sampling interval as the median spacing of the timestamps), the
// second turns the rows into samples and hands them to a sink as they complete (the recording
// writer for `import`). A garbled line stops the first pass, so nothing is written for a log that
// cannot be read.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/recording.h"
#include "util/status.h"

namespace gpuvet {

enum class SmiLogFormat { kAuto, kDmon, kQueryCsv };

struct SmiImportOptions {
  SmiLogFormat format = SmiLogFormat::kAuto;
  // Seconds between samples when the log has no timestamps (dmon without -o T, CSV without a
  // timestamp column); otherwise the median spacing of the timestamps is used.
  double interval_s = 1.0;
  // The --query-gpu field list of a CSV log written with `noheader` ("timestamp,index,...").
  std::string csv_columns;
  // Named in meta.producer and the notes ("gpuvet import nvidia-smi dmon (PATH)").
  std::string source_name;
};

// A log line longer than this is refused ("line N: longer than ..."): no nvidia-smi line comes
// near it, and it bounds what one line may cost in memory.
inline constexpr size_t kSmiMaxLineBytes = size_t{1} << 20;

// Samples per transaction when `import` writes a recording: 68 minutes of a 1 Hz log (about
// 10 MiB of WAL per commit with 8 GPUs), the most a killed import loses.
inline constexpr int kImportSamplesPerCommit = 4096;

// "dmon", "query-csv" or nullopt for a text that is neither (looked at the first lines).
std::optional<SmiLogFormat> DetectSmiLogFormat(std::string_view text);

// Receives a parsed log in order: Begin once with the metadata (every GPU, the interval, the
// notes; end_unix_s absent), Add for each sample in time order, End once with the end time
// (absent when the log has no timestamps). An error from any call stops the import with it.
class SmiSampleSink {
 public:
  virtual ~SmiSampleSink() = default;
  virtual Status Begin(const RecordingMeta& meta) = 0;
  // `sample` is valid for the call only (its storage is reused for the next one).
  virtual Status Add(const Sample& sample) = 0;
  virtual Status End(std::optional<double> end_unix_s) = 0;
};

// Parses a `nvidia-smi dmon` log held in memory into `sink`. InvalidInput "line N: ..." for a
// garbled line (wrong column count, a value that is not a number or '-', data before the header);
// unknown columns are ignored and listed in meta.notes["import.ignored_columns"]. The sink sees
// nothing when the text has an error.
Status StreamDmonLog(std::string_view text, const SmiImportOptions& options, SmiSampleSink* sink);

// Parses a `nvidia-smi --query-gpu=... --format=csv` log held in memory; same rules.
Status StreamQueryCsvLog(std::string_view text, const SmiImportOptions& options,
                         SmiSampleSink* sink);

// Reads `path` (a regular file, twice, a buffer at a time) in the given or detected format into
// `sink`. Errors name the file: NotFound / PermissionDenied / InvalidInput (not a regular file) as
// ReadFile, InvalidInput "PATH: line N: ..." for a garbled line (the sink sees nothing), and
// InvalidInput when the file was replaced or shrank between the passes. A file that grows while
// it is read (a running `nvidia-smi -l`) is imported as far as the first pass read it.
Status StreamSmiLog(const std::string& path, const SmiImportOptions& options, SmiSampleSink* sink);

// Parses a `nvidia-smi dmon` log into a whole Recording (tests, fuzzers, small logs): the
// samples StreamDmonLog gives, with meta.end_unix_s set.
Result<Recording> ParseDmonLog(std::string_view text, const SmiImportOptions& options);

// Parses a `nvidia-smi --query-gpu=... --format=csv` log into a whole Recording; same rules.
Result<Recording> ParseQueryCsvLog(std::string_view text, const SmiImportOptions& options);

// Reads `path` and parses it in the given (or detected) format into a whole Recording.
Result<Recording> ImportSmiLog(const std::string& path, const SmiImportOptions& options);

// Writes what it is given as a recording at `out` through RecordingWriter, one transaction per
// `samples_per_commit` samples. The file is created at Begin (so a log refused in the first pass
// leaves an existing `out` alone). A process killed mid-import leaves a readable recording of the
// samples of every committed batch (a multiple of samples_per_commit, possibly none) with the
// metadata and GPUs but no end time, which `analyze` warns about. Commits are not synced to the
// disk (RecordingWriterOptions::sync_commits false): only a power loss or kernel crash during the
// import can lose the file; End syncs the finished recording.
class SmiRecordingSink : public SmiSampleSink {
 public:
  explicit SmiRecordingSink(std::string out, int samples_per_commit = kImportSamplesPerCommit);
  ~SmiRecordingSink() override;
  Status Begin(const RecordingMeta& meta) override;
  Status Add(const Sample& sample) override;
  Status End(std::optional<double> end_unix_s) override;

  // The metadata given to Begin (empty before).
  const RecordingMeta& meta() const { return meta_; }
  // Samples written so far.
  int64_t samples() const { return samples_; }

 private:
  struct State;
  std::string out_;
  int samples_per_commit_;
  std::unique_ptr<State> state_;
  RecordingMeta meta_;
  int64_t samples_ = 0;
};

namespace smi_import_internal {

// One parsed log line: the GPU it is about, its time when the log has one, its values.
struct SmiRow {
  int line = 0;
  std::optional<double> unix_time;
  GpuSample gpu;
};

// What a format's parser learned from the whole log besides its rows.
struct SmiLogFacts {
  std::vector<std::string> ignored_columns;  // in the order first seen
  std::vector<RecordedGpu> gpus;             // what the log said about each GPU (name, uuid …)
  std::string driver_version;
  std::map<std::string, std::string> notes;  // format-specific notes ("import.clock")
};

// One format's line parser; keeps the state that runs across lines (the header in force, the
// day count of a time-of-day-only dmon log). Deterministic: a fresh parser fed the same lines
// gives the same rows, which the second pass relies on.
class SmiLineParser {
 public:
  virtual ~SmiLineParser() = default;
  // Parses one trimmed, non-empty line (numbered from 1). Returns true and fills `*row` (reset
  // first) for a data line, false for a header or comment; InvalidInput "line N: ..." for a
  // garbled one.
  virtual Result<bool> Line(std::string_view line, int line_no, SmiRow* row) = 0;
  // After the last line.
  virtual SmiLogFacts Facts() const = 0;
  // "gpuvet import nvidia-smi dmon" (the source name is added in parentheses).
  virtual std::string Producer() const = 0;
  // The error for a log without a single data line.
  virtual std::string NoSamplesMessage() const = 0;
};

std::unique_ptr<SmiLineParser> MakeDmonLineParser(const SmiImportOptions& options);
std::unique_ptr<SmiLineParser> MakeQueryCsvLineParser(const SmiImportOptions& options);

// "2025/07/05 15:01:02.123" (query CSV) or "20240104 13:54:35" (dmon -o DT) as seconds since the
// epoch, read as UTC (nvidia-smi writes local time without a zone). Nullopt when malformed.
std::optional<double> ParseSmiTimestamp(std::string_view date, std::string_view time);

// ParseDouble (strtod) of a log value, faster for the plain decimals logs are made of
// ("-12.50", "1980"): up to 15 digits are read exactly as an integer and divided by a power of ten
// no larger than 1e22, which IEEE division rounds correctly, so the result is the one strtod gives;
// anything else goes to ParseDouble.
std::optional<double> ParseLogNumber(std::string_view s);

// Whether `v` converts to the integer type without undefined behaviour: a count or byte size
// (0 <= v < 2^64), or an int (a clock, a PCIe generation). A value outside makes its row invalid.
bool FitsCount(double v);
bool FitsInt(double v);

// Splits `s` at `sep` into `*out` (cleared first; keeps its capacity): Split without allocating.
void SplitInto(std::string_view s, char sep, std::vector<std::string_view>* out);
// Splits at runs of whitespace into `*out`: SplitWhitespace without allocating.
void SplitWhitespaceInto(std::string_view s, std::vector<std::string_view>* out);

}  // namespace smi_import_internal

}  // namespace gpuvet
