// The SQLite schema of a gpuvet recording (docs/recording.md), shared by the writer and the
// reader so the column order is written down once. A file is recognised by its application_id;
// its schema version is PRAGMA user_version.
#pragma once

#include <cstdint>

namespace gpuvet {

// PRAGMA application_id of every recording: "gpvr" in ASCII, so `file(1)` and a reader can tell a
// recording from any other SQLite database.
inline constexpr int32_t kRecordingApplicationId = 0x67707672;

// CREATE TABLE statements of schema version kRecordingSchemaVersion (core/recording.h), run in
// one transaction when a recording is created.
extern const char* const kRecordingSchemaSql;
// Version 2 (child tables for disks, interfaces, RDMA ports and processes): what gpuvet wrote
// before version 3; RecordingWriterOptions::schema_version 2 writes it, for tests of old files.
extern const char* const kRecordingSchemaV2Sql;
inline constexpr int kFirstPackedChildrenVersion = 3;

// The INSERT statements the writer prepares once; the reader selects the same columns in the same
// order (kSelect*), so a column added here must be added to both.
extern const char* const kInsertSampleSql;
extern const char* const kInsertSampleV2Sql;  // version 2: without the four child blobs
extern const char* const kInsertDiskSql;
extern const char* const kInsertNetSql;
extern const char* const kInsertProcessSql;
extern const char* const kInsertIbSql;
extern const char* const kInsertEventSql;

extern const char* const kSelectSamplesSql;
// The samples' times and GPUs only (RecordingParts::host false): sample_id, t, unix_time,
// interval_s, gpus.
extern const char* const kSelectSampleGpusSql;
// Version 3: sample_id, t, unix_time, interval_s, gpus, processes.
extern const char* const kSelectSampleGpusProcessesSql;
// Versions 1 and 2: the child tables.
extern const char* const kSelectDisksSql;
extern const char* const kSelectNetsSql;
extern const char* const kSelectProcessesSql;
// sample_id, pid, rss_bytes of each process row (RecordingParts::process_details false).
extern const char* const kSelectProcessRssSql;
extern const char* const kSelectIbSql;
// One row when the file has the ib_samples table (recordings written before it have none).
extern const char* const kHasIbTableSql;
// Version 2 and later; its one parameter is the most events to read.
extern const char* const kSelectEventsSql;

}  // namespace gpuvet
