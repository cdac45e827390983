// ReadRecording: checks that the file is an SQLite database, that it is a gpuvet recording
// (application_id) and that this gpuvet knows its schema version (user_version), then reads the
// metadata and every table in one sequential scan each, attaching child rows to their samples.
// Column access is by position in the order recording_schema.cc declares.
#include <sqlite3.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string_view>

#include "sources/recording/recording_packing.h"
#include "sources/recording/recording_schema.h"
#include "sources/recording/recording_store.h"
#include "util/file.h"

namespace gpuvet {

namespace {

constexpr char kSqliteMagic[] = "SQLite format 3";  // with its NUL: the 16-byte header string

class Db {
 public:
  ~Db() {
    if (db_ != nullptr) sqlite3_close_v2(db_);
  }
  sqlite3** out() { return &db_; }
  sqlite3* get() const { return db_; }

 private:
  sqlite3* db_ = nullptr;
};

// One SELECT stepped row by row; typed, NULL-aware column readers.
class Query {
 public:
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;
  explicit Query(sqlite3* db, const char* sql) {
    rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr);
  }
  ~Query() { sqlite3_finalize(stmt_); }
  bool prepared() const { return rc_ == SQLITE_OK; }
  // True on a row; false at the end or on an error (then rc() says which).
  bool Next() {
    rc_ = sqlite3_step(stmt_);
    return rc_ == SQLITE_ROW;
  }
  bool done() const { return rc_ == SQLITE_DONE; }

  int64_t Int(int c) const { return sqlite3_column_int64(stmt_, c); }
  double Real(int c) const { return sqlite3_column_double(stmt_, c); }
  std::string Text(int c) const {
    const unsigned char* p = sqlite3_column_text(stmt_, c);
    return p ? std::string(reinterpret_cast<const char*>(p),
                           static_cast<size_t>(sqlite3_column_bytes(stmt_, c)))
             : std::string();
  }
  bool Null(int c) const { return sqlite3_column_type(stmt_, c) == SQLITE_NULL; }
  std::optional<double> OptReal(int c) const {
    return Null(c) ? std::nullopt : std::optional<double>(Real(c));
  }
  template <typename T = uint64_t>
  std::optional<T> OptInt(int c) const {
    return Null(c) ? std::nullopt : std::optional<T>(static_cast<T>(Int(c)));
  }
  std::string_view Blob(int c) const {
    const void* p = sqlite3_column_blob(stmt_, c);
    return p ? std::string_view(static_cast<const char*>(p),
                                static_cast<size_t>(sqlite3_column_bytes(stmt_, c)))
             : std::string_view();
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_OK;
};

class Reader {
 public:
  Reader(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}

  Status Read(Recording* out);

 private:
  Status Fail(const std::string& what) const {
    return InvalidInput("reading recording " + path_ + ": " + what + ": " + sqlite3_errmsg(db_));
  }
  Status Damaged(const char* column, int64_t sample_id) const {
    return InvalidInput("reading recording " + path_ + ": damaged " + column + " blob in sample " +
                        std::to_string(sample_id));
  }
  Status Finish(const Query& q, const char* table) const {
    return q.done() ? Status::Ok() : Fail(std::string("table ") + table);
  }
  // The sample a child row belongs to, or nullptr for a row without one (never written by
  // gpuvet; skipped rather than trusted).
  Sample* SampleFor(int64_t id) {
    if (id >= 0 && static_cast<size_t>(id) < ids_.size() && ids_[id] == id) {
      return &samples_->at(id);  // the normal case: ids are 0..n-1
    }
    auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
    if (it == ids_.end() || *it != id) return nullptr;
    return &(*samples_)[it - ids_.begin()];
  }
  Status ReadMeta(RecordingMeta* meta);
  Status ReadSamples();
  Status ReadChildren();

  std::string path_;
  sqlite3* db_;
  std::vector<Sample>* samples_ = nullptr;
  std::vector<int64_t> ids_;
  size_t gpus_ = 0;  // GPUs in the metadata: the usual number of GPU rows per sample
};

Status Reader::ReadMeta(RecordingMeta* meta) {
  Query q(db_, "SELECT key, value FROM meta");
  if (!q.prepared()) return Fail("table meta");
  std::map<std::string, std::string> kv;
  while (q.Next()) kv[q.Text(0)] = q.Text(1);
  if (Status s = Finish(q, "meta"); !s.ok()) return s;
  auto text = [&](const char* k) { return kv.count(k) ? kv[k] : std::string(); };
  auto number = [&](const char* k) -> std::optional<double> {
    if (!kv.count(k) || kv[k].empty()) return std::nullopt;
    char* end = nullptr;
    double v = std::strtod(kv[k].c_str(), &end);
    if (*end != '\0') return std::nullopt;
    return v;
  };
  meta->producer = text("producer");
  meta->host = text("host");
  meta->kernel_release = text("kernel_release");
  meta->driver_version = text("driver_version");
  meta->cuda_version = text("cuda_version");
  meta->work_unit = text("work_unit");
  meta->target_pid = static_cast<int>(number("target_pid").value_or(0));
  meta->interval_s = number("interval_s").value_or(1.0);
  meta->start_unix_s = number("start_unix_s").value_or(0);
  meta->end_unix_s = number("end_unix_s");
  if (auto code = number("exit_code")) meta->exit_code = static_cast<int>(*code);
  meta->online_cpus = static_cast<int>(number("online_cpus").value_or(0));
  meta->cpu_quota_cores = number("cpu_quota_cores");
  if (!text("command").empty()) {
    auto cmd = nlohmann::json::parse(text("command"), nullptr, /*allow_exceptions=*/false);
    if (!cmd.is_array()) return InvalidInput(path_ + ": meta 'command' is not a JSON array");
    for (const auto& a : cmd) meta->command.push_back(a.is_string() ? a.get<std::string>() : "");
  }

  Query n(db_, "SELECT key, value FROM notes");
  if (!n.prepared()) return Fail("table notes");
  while (n.Next()) meta->notes[n.Text(0)] = n.Text(1);
  if (Status s = Finish(n, "notes"); !s.ok()) return s;

  Query g(db_, "SELECT * FROM gpus ORDER BY gpu");
  if (!g.prepared()) return Fail("table gpus");
  while (g.Next()) {
    RecordedGpu gpu;
    gpu.index = static_cast<int>(g.Int(0));
    gpu.name = g.Text(1);
    gpu.uuid = g.Text(2);
    gpu.pci_bus_id = g.Text(3);
    gpu.memory_total_bytes = g.OptInt(4);
    gpu.power_limit_w = g.OptReal(5);
    gpu.sm_clock_max_mhz = g.OptInt<int>(6);
    gpu.mem_clock_max_mhz = g.OptInt<int>(7);
    gpu.pcie_gen_max = g.OptInt<int>(8);
    gpu.pcie_width_max = g.OptInt<int>(9);
    gpu.numa_node = g.OptInt<int>(10);
    meta->gpus.push_back(std::move(gpu));
  }
  gpus_ = meta->gpus.size();
  return Finish(g, "gpus");
}

Status Reader::ReadSamples() {
  {  // reserve once: a day at 1 Hz is 86400 samples of a few hundred bytes each
    Query last(db_, "SELECT max(sample_id) FROM samples");
    if (last.prepared() && last.Next() && !last.Null(0) && last.Int(0) >= 0) {
      int64_t n = std::min<int64_t>(last.Int(0) + 1, 100'000'000);
      samples_->reserve(static_cast<size_t>(n));
      ids_.reserve(static_cast<size_t>(n));
    }
  }
  Query q(db_, kSelectSamplesSql);
  if (!q.prepared()) return Fail("table samples");
  while (q.Next()) {
    Sample& s = samples_->emplace_back();
    s.gpus.reserve(gpus_);
    ids_.push_back(q.Int(0));
    s.t = q.Real(1);
    s.unix_time = q.Real(2);
    s.interval_s = q.Real(3);
    HostSample& h = s.host;
    h.cpu_user_pct = q.OptReal(4);
    h.cpu_system_pct = q.OptReal(5);
    h.cpu_iowait_pct = q.OptReal(6);
    h.cpu_steal_pct = q.OptReal(7);
    h.cpu_idle_pct = q.OptReal(8);
    if (!UnpackDoubles(q.Blob(9), &h.core_busy_pct)) return Damaged("core_busy_pct", q.Int(0));
    h.run_queue = q.OptReal(10);
    h.psi_cpu_some_pct = q.OptReal(11);
    h.psi_io_some_pct = q.OptReal(12);
    h.psi_io_full_pct = q.OptReal(13);
    h.psi_memory_some_pct = q.OptReal(14);
    h.psi_memory_full_pct = q.OptReal(15);
    h.mem_available_bytes = q.OptInt(16);
    h.major_faults_per_s = q.OptReal(17);
    s.workload.cgroup_throttled_pct = q.OptReal(18);
    s.workload.cgroup_nr_throttled_per_s = q.OptReal(19);
    s.workload.work_total = q.OptReal(20);
    if (!UnpackGpus(q.Blob(21), &s.gpus)) return Damaged("gpus", q.Int(0));
  }
  return Finish(q, "samples");
}

Status Reader::ReadChildren() {
  Query d(db_, kSelectDisksSql);
  if (!d.prepared()) return Fail("table disk_samples");
  // Child vectors are sized like the previous sample's: a recording has the same disks, interfaces
  // and processes from one second to the next, and growing a vector row by row costs malloc/free
  // pairs that dominate reading a long recording.
  Sample* last = nullptr;
  size_t hint = 0;
  while (d.Next()) {
    Sample* s = SampleFor(d.Int(0));
    if (s == nullptr) continue;
    if (s != last) {
      if (last != nullptr) hint = last->host.disks.size();
      s->host.disks.reserve(hint);
      last = s;
    }
    s->host.disks.push_back({d.Text(1), d.Real(2), d.Real(3), d.Real(4)});
  }
  if (Status s = Finish(d, "disk_samples"); !s.ok()) return s;

  Query n(db_, kSelectNetsSql);
  if (!n.prepared()) return Fail("table net_samples");
  last = nullptr;
  hint = 0;
  while (n.Next()) {
    Sample* s = SampleFor(n.Int(0));
    if (s == nullptr) continue;
    if (s != last) {
      if (last != nullptr) hint = last->host.nets.size();
      s->host.nets.reserve(hint);
      last = s;
    }
    s->host.nets.push_back({n.Text(1), n.Real(2), n.Real(3)});
  }
  if (Status s = Finish(n, "net_samples"); !s.ok()) return s;

  Query has_ib(db_, kHasIbTableSql);
  if (has_ib.prepared() && has_ib.Next()) {
    Query ib(db_, kSelectIbSql);
    if (!ib.prepared()) return Fail("table ib_samples");
    last = nullptr;
    hint = 0;
    while (ib.Next()) {
      Sample* s = SampleFor(ib.Int(0));
      if (s == nullptr) continue;
      if (s != last) {
        if (last != nullptr) hint = last->host.ib_ports.size();
        s->host.ib_ports.reserve(hint);
        last = s;
      }
      IbPortSample& x = s->host.ib_ports.emplace_back();
      x.port = ib.Text(1);
      x.link_layer = ib.Text(2);
      x.rate_gbps = ib.Real(3);
      x.active = ib.Int(4) != 0;
      x.rx_bytes_per_s = ib.Real(5);
      x.tx_bytes_per_s = ib.Real(6);
      x.xmit_wait_per_s = ib.OptReal(7);
      x.cnp_per_s = ib.OptReal(8);
      x.errors_per_s = ib.OptReal(9);
    }
    if (Status st = Finish(ib, "ib_samples"); !st.ok()) return st;
  }

  Query p(db_, kSelectProcessesSql);
  if (!p.prepared()) return Fail("table process_samples");
  last = nullptr;
  hint = 0;
  while (p.Next()) {
    Sample* s = SampleFor(p.Int(0));
    if (s == nullptr) continue;
    if (s != last) {
      if (last != nullptr) hint = last->processes.size();
      s->processes.reserve(hint);
      last = s;
    }
    ProcessSample& ps = s->processes.emplace_back();
    ps.pid = static_cast<int>(p.Int(1));
    ps.ppid = static_cast<int>(p.Int(2));
    ps.comm = p.Text(3);
    ps.cpu_pct = p.Real(4);
    ps.rss_bytes = p.OptInt(5);
    ps.threads = static_cast<int>(p.Int(6));
    ps.read_bytes_per_s = p.OptReal(7);
    ps.write_bytes_per_s = p.OptReal(8);
    ps.rchar_per_s = p.OptReal(9);
    ps.read_syscalls_per_s = p.OptReal(10);
    ps.opens_per_s = p.OptReal(11);
    if (!UnpackThreads(p.Blob(12), &ps.top_threads)) return Damaged("top_threads", p.Int(0));
  }
  return Finish(p, "process_samples");
}

Status Reader::Read(Recording* out) {
  samples_ = &out->samples;
  // One read transaction: every table is seen at the same commit even while a recorder appends.
  sqlite3_exec(db_, "BEGIN", nullptr, nullptr, nullptr);
  Status s = ReadMeta(&out->meta);
  if (s.ok()) s = ReadSamples();
  if (s.ok()) s = ReadChildren();
  sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
  return s;
}

int PragmaInt(sqlite3* db, const char* pragma, bool* ok) {
  Query q(db, pragma);
  *ok = q.prepared() && q.Next();
  return *ok ? static_cast<int>(q.Int(0)) : 0;
}

}  // namespace

Result<Recording> ReadRecording(const std::string& path) {
  auto head = ReadFile(path, sizeof(kSqliteMagic));
  if (!head.ok()) return head.status();
  if (head->size() < sizeof(kSqliteMagic) ||
      std::memcmp(head->data(), kSqliteMagic, sizeof(kSqliteMagic)) != 0) {
    return InvalidInput(path + ": not a gpuvet recording (not an SQLite database; write one with " +
                        "`gpuvet record` or `gpuvet import`)");
  }
  Db db;
  if (sqlite3_open_v2(path.c_str(), db.out(), SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
                      nullptr) != SQLITE_OK) {
    return Unavailable("cannot open recording " + path + ": " +
                       (db.get() ? sqlite3_errmsg(db.get()) : "out of memory"));
  }
  sqlite3_busy_timeout(db.get(), 2000);
  // Map the file instead of copying each page through read() into a small page cache: halves the
  // time of a full scan. SQLite clamps the size to its compile-time maximum.
  sqlite3_exec(db.get(), "PRAGMA mmap_size=17179869184", nullptr, nullptr, nullptr);
  bool ok = false;
  int app_id = PragmaInt(db.get(), "PRAGMA application_id", &ok);
  if (!ok) {
    return InvalidInput("reading recording " + path + ": " + sqlite3_errmsg(db.get()));
  }
  int version = PragmaInt(db.get(), "PRAGMA user_version", &ok);
  if (app_id != kRecordingApplicationId || !ok || version < 1) {
    return InvalidInput(path + ": an SQLite database but not a gpuvet recording (application_id " +
                        std::to_string(app_id) + ", expected " +
                        std::to_string(kRecordingApplicationId) + ")");
  }
  if (version > kRecordingSchemaVersion) {
    return InvalidInput(path + ": recording schema version " + std::to_string(version) +
                        " was written by a newer gpuvet; this gpuvet reads up to version " +
                        std::to_string(kRecordingSchemaVersion) + ": upgrade gpuvet");
  }
  Recording rec;
  rec.meta.schema_version = version;
  Reader reader(path, db.get());
  if (Status s = reader.Read(&rec); !s.ok()) return s;
  return rec;
}

}  // namespace gpuvet
