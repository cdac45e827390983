// The recording file: a SQLite database (schema in docs/recording.md) that `gpuvet record` and
// `gpuvet import` write and `analyze`/`watch` read. WAL journal with synchronous=NORMAL and one
// transaction per sample: a recorder killed with SIGKILL leaves a readable file missing at most
// the sample it was writing, and a sample costs no fsync.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "core/recording.h"
#include "util/status.h"

struct sqlite3;

namespace gpuvet {

// Writes a recording; one transaction per Append, so a recorder killed with SIGKILL leaves a
// readable file missing at most the last sample. Not thread-safe; one writer per file.
class RecordingWriter {
 public:
  // Creates `path` (an existing file and its -wal/-shm companions are replaced) with the schema,
  // `meta` and its GPUs. Errors name the file.
  static Result<std::unique_ptr<RecordingWriter>> Create(const std::string& path,
                                                         const RecordingMeta& meta);
  ~RecordingWriter();
  RecordingWriter(const RecordingWriter&) = delete;
  RecordingWriter& operator=(const RecordingWriter&) = delete;

  // Appends one sample in its own transaction. A write error (a full disk, EFBIG, EIO) is a
  // Status naming the file and the OS error, never a crash; the failed sample is rolled back and
  // every later call answers the same error without touching the file.
  Status Append(const Sample& sample);

  // Rewrites the metadata keys from `meta` (not its GPUs or notes), e.g. the target pid once
  // the workload was started. Errors as Append.
  Status UpdateMeta(const RecordingMeta& meta);

  // Stores the end time and the workload's exit code (absent stays absent), checkpoints the WAL
  // into the main file and closes it, so the finished recording is one self-contained file.
  // Later Append/Finish calls fail.
  Status Finish(std::optional<double> end_unix_s, std::optional<int> exit_code);

  const std::string& path() const { return path_; }
  // Samples written so far.
  int64_t samples_written() const { return next_sample_id_; }

 private:
  struct Statements;
  RecordingWriter(std::string path, sqlite3* db);
  Status Error(const std::string& what);
  Status Exec(const char* sql);
  Status InsertSample(const Sample& sample);

  std::string path_;
  sqlite3* db_ = nullptr;
  std::unique_ptr<Statements> statements_;
  int64_t next_sample_id_ = 0;
  Status failed_;  // the first write error; once set, the writer only repeats it
};

// Reads a whole recording (also one whose writer was killed: end/exit code absent). InvalidInput
// naming the file for a file that is not SQLite, an SQLite file that is not a gpuvet recording,
// or a recording written by a newer gpuvet (schema version above kRecordingSchemaVersion);
// NotFound/PermissionDenied when it cannot be opened. Never modifies the file.
Result<Recording> ReadRecording(const std::string& path);

}  // namespace gpuvet
