// Read-only SQLite access: header check, connection and statement wrappers with errors as values.
#include "sources/trace/nsys_sqlite.h"

#include <sqlite3.h>

#include <cstring>
#include <filesystem>
#include <system_error>

#include "util/file.h"

namespace gpuvet {

namespace {

// "SQLite format 3\0": the 16-byte magic every SQLite 3 database starts with (fileformat.html 1.3).
constexpr char kSqliteMagic[] = "SQLite format 3";
constexpr size_t kSqliteHeaderBytes = 100;
// How long a query waits for another process's write lock before giving up.
constexpr int kBusyTimeoutMs = 2000;

uint32_t BigEndian(const std::string& s, size_t offset, size_t width) {
  uint32_t v = 0;
  for (size_t i = 0; i < width; ++i) v = (v << 8) | static_cast<unsigned char>(s[offset + i]);
  return v;
}

// Maps an SQLite result code to a Status naming the file.
Status SqliteError(const std::string& path, int rc, const char* detail) {
  std::string msg = path + ": SQLite: " + (detail != nullptr ? detail : sqlite3_errstr(rc));
  switch (rc & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_FORMAT:
    case SQLITE_IOERR:
      return InvalidInput(msg + " (the file is corrupt or truncated)");
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Timeout(msg);
    case SQLITE_CANTOPEN:
      return NotFound(msg);
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return PermissionDenied(msg);
    default:
      return Unavailable(msg);
  }
}

}  // namespace

Result<SqliteFileInfo> CheckSqliteFile(const std::string& path) {
  auto head = ReadFile(path, kSqliteHeaderBytes);
  if (!head.ok()) return head.status();
  const std::string& h = head.value();
  SqliteFileInfo info;
  std::error_code ec;
  info.file_bytes = std::filesystem::file_size(path, ec);
  if (ec) info.file_bytes = h.size();
  if (h.empty()) {
    return InvalidInput(path + ": file is empty (0 bytes); expected an Nsight Systems SQLite " +
                        "export (nsys export --type sqlite)");
  }
  if (h.size() < sizeof(kSqliteMagic) ||
      std::memcmp(h.data(), kSqliteMagic, sizeof(kSqliteMagic)) != 0) {
    return InvalidInput(path +
                        ": not an SQLite database (no \"SQLite format 3\" header at offset " +
                        "0); expected an Nsight Systems SQLite export (nsys export --type sqlite)");
  }
  if (h.size() < kSqliteHeaderBytes) {
    return InvalidInput(path + ": truncated SQLite file: " + std::to_string(h.size()) +
                        " bytes, shorter than the 100-byte database header");
  }
  uint32_t page_size = BigEndian(h, 16, 2);
  if (page_size == 1) page_size = 65536;  // the header stores 65536 as 1
  uint32_t page_count = BigEndian(h, 28, 4);
  bool count_valid = BigEndian(h, 24, 4) == BigEndian(h, 92, 4);
  if (count_valid && page_count > 0) {
    info.declared_bytes = static_cast<uint64_t>(page_size) * page_count;
  }
  return info;
}

SqliteStatement::SqliteStatement(sqlite3_stmt* stmt, std::string path)
    : stmt_(stmt), path_(std::move(path)) {}

void SqliteStatement::Finalizer::operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }

Result<bool> SqliteStatement::Step() {
  int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteError(path_, rc, sqlite3_errmsg(sqlite3_db_handle(stmt_.get())));
}

void SqliteStatement::Reset() {
  sqlite3_reset(stmt_.get());
  sqlite3_clear_bindings(stmt_.get());
}

void SqliteStatement::BindInt(int index, int64_t value) {
  sqlite3_bind_int64(stmt_.get(), index, value);
}

bool SqliteStatement::IsNull(int col) const {
  return sqlite3_column_type(stmt_.get(), col) == SQLITE_NULL;
}

bool SqliteStatement::IsText(int col) const {
  return sqlite3_column_type(stmt_.get(), col) == SQLITE_TEXT;
}

int64_t SqliteStatement::Int(int col) const { return sqlite3_column_int64(stmt_.get(), col); }

std::string_view SqliteStatement::Text(int col) const {
  const unsigned char* p = sqlite3_column_text(stmt_.get(), col);
  if (p == nullptr) return {};
  return {reinterpret_cast<const char*>(p),
          static_cast<size_t>(sqlite3_column_bytes(stmt_.get(), col))};
}

void SqliteDb::Closer::operator()(sqlite3* db) const { sqlite3_close_v2(db); }

Result<SqliteDb> SqliteDb::OpenReadOnly(const std::string& path, bool salvage) {
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  SqliteDb db(raw, path);  // owns the handle even when the open failed
  if (rc != SQLITE_OK) {
    return SqliteError(path, rc, raw != nullptr ? sqlite3_errmsg(raw) : nullptr);
  }
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, kBusyTimeoutMs);
  // Untrusted input: functions with side effects may not run from schema objects.
  sqlite3_db_config(raw, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  if (salvage) {
    // SQLite refuses a file shorter than its header's page count as corrupt unless the schema is
    // "writable"; on a read-only connection that only lets it read the pages that are there.
    sqlite3_exec(raw, "PRAGMA writable_schema=ON", nullptr, nullptr, nullptr);
  }
  return db;
}

Result<SqliteStatement> SqliteDb::Prepare(const std::string& sql) const {
  sqlite3_stmt* stmt = nullptr;
  int rc =
      sqlite3_prepare_v2(db_.get(), sql.c_str(), static_cast<int>(sql.size()) + 1, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return SqliteError(path_, rc, sqlite3_errmsg(db_.get()));
  }
  return SqliteStatement(stmt, path_);
}

Result<std::vector<std::string>> SqliteDb::Tables() const {
  auto stmt = Prepare("SELECT name FROM sqlite_master WHERE type = 'table'");
  if (!stmt.ok()) return stmt.status();
  std::vector<std::string> names;
  for (;;) {
    auto row = stmt.value().Step();
    if (!row.ok()) return row.status();
    if (!row.value()) break;
    names.emplace_back(stmt.value().Text(0));
  }
  return names;
}

Result<std::vector<std::string>> SqliteDb::Columns(const std::string& table) const {
  // table_info columns: cid, name, type, notnull, dflt_value, pk.
  auto stmt = Prepare("PRAGMA table_info(" + QuoteIdentifier(table) + ")");
  if (!stmt.ok()) return stmt.status();
  std::vector<std::string> names;
  for (;;) {
    auto row = stmt.value().Step();
    if (!row.ok()) return row.status();
    if (!row.value()) break;
    names.emplace_back(stmt.value().Text(1));
  }
  return names;
}

std::string QuoteIdentifier(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace gpuvet
