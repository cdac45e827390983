// The recording file: a SQLite database (schema in docs/recording.md) that `gpuvet record` and
// `gpuvet import` write and `analyze`/`watch` read. WAL journal with synchronous=NORMAL and one
// transaction per sample for `record` (per batch of samples for `import`): a recorder killed with
// SIGKILL leaves a readable file missing at most the transaction it was writing, and a sample
// costs no fsync. `RecordingCursor` reads a file sample by sample in bounded memory.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/recording.h"
#include "util/status.h"

struct sqlite3;

namespace gpuvet {

struct RecordingWriterOptions {
  // Samples per transaction. 1 (record): a SIGKILL loses at most the sample being written. N
  // (import: 4096): one commit per N samples, so a crash loses at most the last N − 1 samples
  // and the batch being written; a failed write rolls back the whole open batch.
  int samples_per_commit = 1;
  // Permission bits of a new file (and so of its -wal/-shm companions, which SQLite creates
  // with the database's mode): recordings hold command lines and host details.
  unsigned mode = 0600;
  // At most this many events are stored; later ones are counted in the note "events.dropped".
  int64_t max_events = 100'000;
  // false (import): commits are not synced to the disk (PRAGMA synchronous=OFF). A killed
  // process still leaves every committed batch readable (the data is with the OS); a power loss
  // or kernel crash before Finish may lose the file. Finish syncs the finished file either way.
  bool sync_commits = true;
  // The schema version to write: kRecordingSchemaVersion, or 2 (the child rows in tables of
  // their own, as gpuvet wrote before version 3) for tests that old files still read the same.
  // Any other value writes kRecordingSchemaVersion.
  int schema_version = kRecordingSchemaVersion;
};

// Writes a recording; one transaction per Append (or per options.samples_per_commit samples).
// Not thread-safe; one writer per file.
class RecordingWriter {
 public:
  // Creates `path` (an existing regular file and its -wal/-shm companions are replaced; anything
  // else at `path` — a device, a directory, a FIFO — is refused) with the schema, `meta` and its
  // GPUs, mode options.mode. Errors name the file.
  static Result<std::unique_ptr<RecordingWriter>> Create(const std::string& path,
                                                         const RecordingMeta& meta,
                                                         const RecordingWriterOptions& options);
  static Result<std::unique_ptr<RecordingWriter>> Create(const std::string& path,
                                                         const RecordingMeta& meta) {
    return Create(path, meta, RecordingWriterOptions());
  }
  ~RecordingWriter();
  RecordingWriter(const RecordingWriter&) = delete;
  RecordingWriter& operator=(const RecordingWriter&) = delete;

  // Appends one sample in its own transaction. A write error (a full disk, EFBIG, EIO) is a
  // Status naming the file and the OS error, never a crash; the failed sample is rolled back and
  // every later call answers the same error without touching the file.
  Status Append(const Sample& sample);

  // Stores one event (committed with the open batch, or at once when none is open). Errors as
  // Append. Beyond options.max_events events are counted, not stored.
  Status AppendEvent(const RecordingEvent& event);

  // Commits the open batch, if any. Errors as Append.
  Status Flush();

  // Rewrites the metadata keys from `meta` (not its GPUs or notes), e.g. the target pid once
  // the workload was started. Errors as Append.
  Status UpdateMeta(const RecordingMeta& meta);

  // Adds or replaces notes (what the sampler learned during the run: a GPU lost, a hung call).
  // Errors as Append.
  Status UpdateNotes(const std::map<std::string, std::string>& notes);

  // Stores the end time and the workload's exit code (absent stays absent), checkpoints the WAL
  // into the main file and closes it, so the finished recording is one self-contained file.
  // Later Append/Finish calls fail.
  Status Finish(std::optional<double> end_unix_s, std::optional<int> exit_code);

  const std::string& path() const { return path_; }
  // Samples written so far.
  int64_t samples_written() const { return next_sample_id_; }
  // The schema version of the file (RecordingWriterOptions::schema_version).
  int version() const { return options_.schema_version; }

 private:
  struct Statements;
  RecordingWriter(std::string path, sqlite3* db, const RecordingWriterOptions& options);
  Status Error(const std::string& what);
  Status Exec(const char* sql);
  Status InsertSample(const Sample& sample);
  Status Begin();         // opens a batch unless one is open
  Status Fail(Status s);  // rolls the open batch back and keeps `s` as the writer's error

  std::string path_;
  sqlite3* db_ = nullptr;
  RecordingWriterOptions options_;
  std::unique_ptr<Statements> statements_;
  int64_t next_sample_id_ = 0;
  int64_t committed_samples_ = 0;
  int pending_ = 0;  // samples in the open batch
  bool in_batch_ = false;
  int64_t events_ = 0, events_dropped_ = 0;
  Status failed_;  // the first write error; once set, the writer only repeats it
};

// Which parts of each sample a RecordingCursor fills (t, unix_time, interval_s and the GPUs
// always). Leaving out what a pass does not use makes it cheaper (analyze's survey pass reads the
// GPUs and the processes' RSS only).
struct RecordingParts {
  bool disks = true, nets = true, processes = true;
  // false: the host and workload columns of the samples row stay absent (HostSample(),
  // WorkloadSample()).
  bool host = true;
  // false: each process carries its pid and rss_bytes only (no comm, rates or threads).
  bool process_details = true;
};

// Reads a recording one sample at a time, in one read transaction (every pass sees the same
// commit, also while a recorder appends): memory follows one sample, not the file. A damaged
// file (truncated, a malformed page, a damaged packed column) ends the samples early with
// damage() saying where; what was read before it is good.
class RecordingCursor {
 public:
  // Opens and checks the file as ReadRecording does and reads the metadata and the events.
  static Result<std::unique_ptr<RecordingCursor>> Open(const std::string& path,
                                                       RecordingParts parts = RecordingParts());
  ~RecordingCursor();
  RecordingCursor(const RecordingCursor&) = delete;
  RecordingCursor& operator=(const RecordingCursor&) = delete;

  const RecordingMeta& meta() const { return meta_; }
  // Events by time (at most 100,000; a warning says when more were cut).
  const std::vector<RecordingEvent>& events() const { return events_; }
  // Sample rows the file declares (the largest sample_id + 1): the length of a pass unless the
  // file is damaged.
  int64_t sample_rows() const { return sample_rows_; }

  // Fills `*s` (cleared first; its vectors keep their capacity) with the next sample. False at
  // the end or at the first damage.
  bool Next(Sample* s);
  // Starts a new pass from the first sample, filling `parts` from now on.
  Status Rewind();
  Status Rewind(RecordingParts parts);

  // Empty, or what was damaged and where: "the file is truncated at byte 1048576 (its header
  // declares 2097152 bytes); samples after 125 (t = 126.0 s) could not be read".
  const std::string& damage() const { return damage_; }
  // Notes on the input beyond damage (events cut at the cap, child rows without a sample).
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  struct Impl;
  explicit RecordingCursor(std::unique_ptr<Impl> impl);
  bool Took(double t, int64_t id);  // counts sample `id` (time `t`) as read; true
  std::unique_ptr<Impl> impl_;
  RecordingMeta meta_;
  std::vector<RecordingEvent> events_;
  int64_t sample_rows_ = 0;
  std::string damage_;
  std::vector<std::string> warnings_;
};

// Reads a whole recording into memory (also one whose writer was killed: end/exit code absent);
// for tests, `watch` and small files — `analyze` streams through RecordingCursor. InvalidInput
// naming the file for a file that is not SQLite, an SQLite file that is not a gpuvet recording,
// a recording written by a newer gpuvet (schema version above kRecordingSchemaVersion), or a
// damaged one; NotFound/PermissionDenied when it cannot be opened. Never modifies the file.
Result<Recording> ReadRecording(const std::string& path);

}  // namespace gpuvet
