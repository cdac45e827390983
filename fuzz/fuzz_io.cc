// Fuzz helpers: scratch files and SQL-built databases (see fuzz_support.h).
#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "fuzz_support.h"

namespace gpuvet::fuzz {

namespace {

std::string ScratchDir() {
  if (const char* t = std::getenv("TMPDIR"); t != nullptr && *t != '\0') return t;
  return ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
}

std::string ScratchPath(std::string_view suffix) {
  return ScratchDir() + "/gpuvet-fuzz-" + std::to_string(::getpid()) + std::string(suffix);
}

[[noreturn]] void HarnessFailure(const std::string& what) {
  std::fprintf(stderr, "fuzz harness: %s\n", what.c_str());
  std::abort();
}

}  // namespace

std::string WriteScratchFile(std::string_view bytes, std::string_view suffix) {
  std::string path = ScratchPath(suffix);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) HarnessFailure("cannot create " + path);
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
    if (n <= 0) HarnessFailure("cannot write " + path);
    off += static_cast<size_t>(n);
  }
  ::close(fd);
  return path;
}

std::string SqlScriptToDatabase(std::string_view sql, std::string_view suffix) {
  sqlite3* db = nullptr;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) HarnessFailure("sqlite3_open(:memory:)");
  // Bounds: a mutated script may recurse (WITH RECURSIVE) or build huge strings.
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
  sqlite3_exec(db, "PRAGMA max_page_count = 4096", nullptr, nullptr, nullptr);
  int steps = 0;
  sqlite3_progress_handler(
      db, 1000, [](void* p) { return ++*static_cast<int*>(p) > 2000 ? 1 : 0; }, &steps);
  std::string script(sql);
  // Run statement by statement so one bad statement does not drop the rest.
  const char* tail = script.c_str();
  while (tail != nullptr && *tail != '\0' && steps <= 2000) {
    sqlite3_stmt* stmt = nullptr;
    const char* next = nullptr;
    if (sqlite3_prepare_v2(db, tail, -1, &stmt, &next) != SQLITE_OK) {
      // Skip to after the next ';' and carry on.
      const char* semi = std::strchr(tail, ';');
      tail = semi ? semi + 1 : nullptr;
      continue;
    }
    if (stmt) {
      while (sqlite3_step(stmt) == SQLITE_ROW) {
      }
      sqlite3_finalize(stmt);
    }
    tail = next;
  }
  sqlite3_progress_handler(db, 0, nullptr, nullptr);
  sqlite3_int64 size = 0;
  unsigned char* bytes = sqlite3_serialize(db, "main", &size, 0);
  sqlite3_close(db);
  if (bytes == nullptr) return "";
  std::string path =
      WriteScratchFile(std::string_view(reinterpret_cast<char*>(bytes), size_t(size)), suffix);
  sqlite3_free(bytes);
  return path;
}

}  // namespace gpuvet::fuzz
