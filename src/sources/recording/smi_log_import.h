// `gpuvet import`: turns the nvidia-smi logs people already keep into a recording. Two formats:
// `nvidia-smi dmon` text (any -s column set, optional -o D/T/DT columns) and
// `nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits] [-l N]` logs. Parsers are pure
// functions over the text; columns map to GpuSample fields with unit conversion
// (docs/recording.md, "Importing nvidia-smi logs").
#pragma once

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

// "dmon", "query-csv" or nullopt for a text that is neither (looked at the first lines).
std::optional<SmiLogFormat> DetectSmiLogFormat(std::string_view text);

// Parses a `nvidia-smi dmon` log. InvalidInput "line N: ..." for a garbled line (wrong column
// count, a value that is not a number or '-', data before the header); unknown columns are
// ignored and listed in meta.notes["import.ignored_columns"].
Result<Recording> ParseDmonLog(std::string_view text, const SmiImportOptions& options);

// Parses a `nvidia-smi --query-gpu=... --format=csv` log; same error and note rules.
Result<Recording> ParseQueryCsvLog(std::string_view text, const SmiImportOptions& options);

// Reads `path` and parses it in the given (or detected) format.
Result<Recording> ImportSmiLog(const std::string& path, const SmiImportOptions& options);

namespace smi_import_internal {

// One parsed log line: the GPU it is about, its time when the log has one, its values.
struct SmiRow {
  int line = 0;
  std::optional<double> unix_time;
  GpuSample gpu;
};

// Groups rows into samples (a new sample starts when a GPU index repeats or the timestamp moves
// by more than half the interval), sets t / unix_time / interval_s, fills the GPU list and the
// meta timing. `gpus` carries what the log said about each GPU (name, uuid …) by index.
Recording BuildRecording(std::vector<SmiRow> rows, std::vector<RecordedGpu> gpus,
                         const SmiImportOptions& options, const std::string& producer,
                         const std::vector<std::string>& ignored_columns);

// "2025/07/05 15:01:02.123" (query CSV) or "20240104 13:54:35" (dmon -o DT) as seconds since the
// epoch, read as UTC (nvidia-smi writes local time without a zone). Nullopt when malformed.
std::optional<double> ParseSmiTimestamp(std::string_view date, std::string_view time);

}  // namespace smi_import_internal

}  // namespace gpuvet
