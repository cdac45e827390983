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

// The INSERT statements the writer prepares once; the reader selects the same columns in the same
// order (kSelect*), so a column added here must be added to both.
extern const char* const kInsertSampleSql;
extern const char* const kInsertDiskSql;
extern const char* const kInsertNetSql;
extern const char* const kInsertProcessSql;
extern const char* const kInsertIbSql;
extern const char* const kInsertEventSql;

extern const char* const kSelectSamplesSql;
extern const char* const kSelectDisksSql;
extern const char* const kSelectNetsSql;
extern const char* const kSelectProcessesSql;
extern const char* const kSelectIbSql;
// One row when the file has the ib_samples table (recordings written before it have none).
extern const char* const kHasIbTableSql;
// Version 2 and later; its one parameter is the most events to read.
extern const char* const kSelectEventsSql;

}  // namespace gpuvet
