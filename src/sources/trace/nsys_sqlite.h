// Read-only SQLite access for the Nsight Systems reader: checks the 100-byte header first so a
// file that is not SQLite, or is truncated, gets a precise message; opens without ever writing or
// waiting long on a lock; lists tables and columns so queries can be built from what a given nsys
// version exported; and steps through rows one at a time so memory stays bounded.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace gpuvet {

// What the file and its SQLite header say about its size (https://www.sqlite.org/fileformat.html,
// "1.3 The Database Header": page size at offset 16, page count at 28, valid when the change
// counter at 24 equals the version-valid-for number at 92).
struct SqliteFileInfo {
  uint64_t file_bytes = 0;
  uint64_t declared_bytes = 0;  // page size x page count; 0 when the header does not say
  bool truncated() const { return declared_bytes > file_bytes; }
};

// Checks that `path` starts with the SQLite 3 magic. NotFound/PermissionDenied/Unavailable when it
// cannot be read; InvalidInput, naming the file and what was expected, when it is empty or not an
// SQLite 3 database.
Result<SqliteFileInfo> CheckSqliteFile(const std::string& path);

// One prepared statement. Move-only; finalized on destruction. Column accessors are valid only
// after Step() returned true. Not thread-safe (neither is the connection it came from).
class SqliteStatement {
 public:
  SqliteStatement(sqlite3_stmt* stmt, std::string path);

  // Advances to the next row: true on a row, false when done, or an error naming the file
  // (InvalidInput for a corrupt or truncated file, Timeout when locked, Unavailable otherwise).
  Result<bool> Step();
  // Rewinds so the statement can run again with new bindings.
  void Reset();
  void BindInt(int index, int64_t value);  // 1-based, as sqlite3_bind_int64

  bool IsNull(int col) const;
  bool IsText(int col) const;
  int64_t Int(int col) const;
  std::string_view Text(int col) const;  // valid until the next Step()/Reset()

 private:
  struct Finalizer {
    void operator()(sqlite3_stmt* s) const;
  };
  std::unique_ptr<sqlite3_stmt, Finalizer> stmt_;
  std::string path_;
};

// A read-only connection. Move-only; closed on destruction. Not thread-safe.
class SqliteDb {
 public:
  // Opens `path` read-only (SQLITE_OPEN_READONLY, no URI parsing, 2 s busy timeout) and never
  // modifies it. With `salvage`, a file shorter than its header declares is read as far as it
  // goes instead of being refused whole (PRAGMA writable_schema, harmless on a read-only
  // connection). Errors name the file.
  static Result<SqliteDb> OpenReadOnly(const std::string& path, bool salvage);

  // Compiles `sql`; an error names the file and carries SQLite's message.
  Result<SqliteStatement> Prepare(const std::string& sql) const;

  // Names of the ordinary tables (views and triggers are never read: a view can be made to run
  // for ever, a table scan cannot).
  Result<std::vector<std::string>> Tables() const;

  // Column names of `table`, in declaration order.
  Result<std::vector<std::string>> Columns(const std::string& table) const;

  const std::string& path() const { return path_; }

 private:
  struct Closer {
    void operator()(sqlite3* db) const;
  };
  SqliteDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}

  std::unique_ptr<sqlite3, Closer> db_;
  std::string path_;
};

// `name` as a double-quoted SQL identifier ("end" is a keyword in some positions).
std::string QuoteIdentifier(std::string_view name);

}  // namespace gpuvet
