// RecordingCursor (and ReadRecording over it): checks that the file is an SQLite database, that it
// is a gpuvet recording (application_id) and that this gpuvet knows its schema version
// (user_version), reads the metadata and the events, then walks `samples`: from version 3 one row
// per sample with its child rows packed in blobs; before, beside the child tables, each in rowid
// (= insertion = time) order, attaching child rows to the sample they name. Column access is by
// position in the order recording_schema.cc declares. Samples are decoded into the caller's
// Sample in place (its vectors and strings reused), so a pass allocates almost nothing.
#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
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
  Query() = default;
  void Prepare(sqlite3* db, const char* sql) {
    sqlite3_finalize(stmt_);
    stmt_ = nullptr;
    rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr);
  }
  void Reset() {
    sqlite3_reset(stmt_);
    rc_ = SQLITE_OK;
  }
  void BindInt(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  int rc() const { return rc_; }
  ~Query() { sqlite3_finalize(stmt_); }
  bool prepared() const { return rc_ == SQLITE_OK; }
  // True on a row; false at the end or on an error (then rc() says which).
  bool Next() {
    rc_ = sqlite3_step(stmt_);
    return rc_ == SQLITE_ROW;
  }
  bool done() const { return rc_ == SQLITE_DONE; }

  // A column past the row's last (a field appended after the file was written) reads as NULL:
  // absent, 0 or empty; columns past the ones this reader knows (a newer writer's) are not read.
  bool Has(int c) const { return c < sqlite3_column_count(stmt_); }
  int64_t Int(int c) const { return Has(c) ? sqlite3_column_int64(stmt_, c) : 0; }
  double Real(int c) const { return Has(c) ? sqlite3_column_double(stmt_, c) : 0.0; }
  std::string Text(int c) const {
    if (!Has(c)) return std::string();
    const unsigned char* p = sqlite3_column_text(stmt_, c);
    return p ? std::string(reinterpret_cast<const char*>(p),
                           static_cast<size_t>(sqlite3_column_bytes(stmt_, c)))
             : std::string();
  }
  bool Null(int c) const { return !Has(c) || sqlite3_column_type(stmt_, c) == SQLITE_NULL; }
  // One column lookup for the type and the value (the sample row has 20 such columns).
  std::optional<double> OptReal(int c) const {
    if (!Has(c)) return std::nullopt;
    sqlite3_value* v = sqlite3_column_value(stmt_, c);
    return sqlite3_value_type(v) == SQLITE_NULL ? std::nullopt
                                                : std::optional<double>(sqlite3_value_double(v));
  }
  template <typename T = uint64_t>
  std::optional<T> OptInt(int c) const {
    if (!Has(c)) return std::nullopt;
    sqlite3_value* v = sqlite3_column_value(stmt_, c);
    return sqlite3_value_type(v) == SQLITE_NULL
               ? std::nullopt
               : std::optional<T>(static_cast<T>(sqlite3_value_int64(v)));
  }
  std::string_view Blob(int c) const {
    if (!Has(c)) return std::string_view();
    const void* p = sqlite3_column_blob(stmt_, c);
    return p ? std::string_view(static_cast<const char*>(p),
                                static_cast<size_t>(sqlite3_column_bytes(stmt_, c)))
             : std::string_view();
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_OK;
};

Status ReadMeta(sqlite3* db, const std::string& path, RecordingMeta* meta) {
  auto fail = [&](const char* what) {
    return InvalidInput("reading recording " + path + ": table " + what + ": " +
                        sqlite3_errmsg(db));
  };
  Query q(db, "SELECT key, value FROM meta");
  if (!q.prepared()) return fail("meta");
  std::map<std::string, std::string> kv;
  while (q.Next()) kv[q.Text(0)] = q.Text(1);
  if (!q.done()) return fail("meta");
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
    if (!cmd.is_array()) return InvalidInput(path + ": meta 'command' is not a JSON array");
    for (const auto& a : cmd) meta->command.push_back(a.is_string() ? a.get<std::string>() : "");
  }

  Query n(db, "SELECT key, value FROM notes");
  if (!n.prepared()) return fail("notes");
  while (n.Next()) meta->notes[n.Text(0)] = n.Text(1);
  if (!n.done()) return fail("notes");

  Query g(db, "SELECT * FROM gpus ORDER BY gpu");
  if (!g.prepared()) return fail("gpus");
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
  if (!g.done()) return fail("gpus");
  return Status::Ok();
}

constexpr int64_t kMaxEvents = 100'000;

int PragmaInt(sqlite3* db, const char* pragma, bool* ok) {
  Query q(db, pragma);
  *ok = q.prepared() && q.Next();
  return *ok ? static_cast<int>(q.Int(0)) : 0;
}

// What the SQLite header (bytes 16-17 page size, 28-31 pages) says the file's size is, against
// its size on disk: a message when the file is shorter, else "".
std::string TruncationOf(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  unsigned char h[100] = {};
  if (!f.read(reinterpret_cast<char*>(h), sizeof(h))) return "";
  f.seekg(0, std::ios::end);
  const auto size = static_cast<uint64_t>(f.tellg());
  uint64_t page = (uint64_t{h[16]} << 8) | h[17];
  if (page == 1) page = 65536;
  const uint64_t pages =
      (uint64_t{h[28]} << 24) | (uint64_t{h[29]} << 16) | (uint64_t{h[30]} << 8) | h[31];
  const bool valid = std::memcmp(h + 24, h + 92, 4) == 0;  // the size field is current
  if (!valid || page < 512 || pages == 0 || size >= page * pages) return "";
  return "the file is truncated at byte " + std::to_string(size) + " (its header declares " +
         std::to_string(page * pages) + " bytes, " + std::to_string(pages) + " pages of " +
         std::to_string(page) + ")";
}

// "; the 125 samples before it (to sample 124, t = 125.0 s) are used".
std::string fmt_after(int64_t read, int64_t last_id, double last_t) {
  char buf[160];
  std::snprintf(buf, sizeof(buf), "; the %lld sample%s before it (to sample %lld, t = %.1f s) %s",
                static_cast<long long>(read), read == 1 ? "" : "s", static_cast<long long>(last_id),
                last_t, read == 1 ? "is used" : "are used");
  return buf;
}

}  // namespace

struct RecordingCursor::Impl {
  std::string path;
  Db db;
  RecordingParts parts;
  size_t gpus = 0;
  std::string truncation;
  // RDMA ports (ib_samples) were added within schema version 1: older files have no such table.
  bool has_ib = false;
  // Version 3 and later: the child rows are blobs of the samples row (no child tables).
  bool packed = false;
  Query samples, disks, nets, processes, ib;
  // A child row read ahead: it belongs to a later sample than the one being filled.
  bool disk_ahead = false, net_ahead = false, process_ahead = false, ib_ahead = false;
  bool children_done[4] = {false, false, false, false};
  int64_t last_id = -1;
  double last_t = 0;
  int64_t read = 0;
  bool ended = false;
  int64_t orphans = 0;
};

RecordingCursor::RecordingCursor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

RecordingCursor::~RecordingCursor() {
  if (impl_ && impl_->db.get() != nullptr) {
    sqlite3_exec(impl_->db.get(), "COMMIT", nullptr, nullptr, nullptr);
  }
}

Result<std::unique_ptr<RecordingCursor>> RecordingCursor::Open(const std::string& path,
                                                               RecordingParts parts) {
  auto head = ReadFile(path, sizeof(kSqliteMagic));
  if (!head.ok()) return head.status();
  if (head->size() < sizeof(kSqliteMagic) ||
      std::memcmp(head->data(), kSqliteMagic, sizeof(kSqliteMagic)) != 0) {
    return InvalidInput(path + ": not a gpuvet recording (not an SQLite database; write one with " +
                        "`gpuvet record` or `gpuvet import`)");
  }
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->parts = parts;
  sqlite3*& raw = *impl->db.out();
  if (sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr) !=
      SQLITE_OK) {
    return Unavailable("cannot open recording " + path + ": " +
                       (raw ? sqlite3_errmsg(raw) : "out of memory"));
  }
  sqlite3* db = raw;
  sqlite3_busy_timeout(db, 2000);
  // A small page cache and no memory map: a full scan reads each page once, and mapped pages of
  // a multi-GiB file would count as resident memory of the node being diagnosed.
  sqlite3_exec(db, "PRAGMA cache_size=-4096; PRAGMA mmap_size=0", nullptr, nullptr, nullptr);
  bool ok = false;
  int app_id = PragmaInt(db, "PRAGMA application_id", &ok);
  if (!ok) {
    std::string why = sqlite3_errmsg(db);
    std::string cut = TruncationOf(path);
    return InvalidInput("reading recording " + path + ": " + (cut.empty() ? why : cut));
  }
  int version = PragmaInt(db, "PRAGMA user_version", &ok);
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
  // One read transaction: every table and every pass is seen at the same commit even while a
  // recorder appends.
  sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
  std::unique_ptr<RecordingCursor> c(new RecordingCursor(std::move(impl)));
  Impl& m = *c->impl_;
  c->meta_.schema_version = version;
  if (Status s = ReadMeta(db, path, &c->meta_); !s.ok()) {
    std::string cut = TruncationOf(path);
    if (!cut.empty()) return InvalidInput("reading recording " + path + ": " + cut);
    return s;
  }
  m.gpus = c->meta_.gpus.size();
  m.truncation = TruncationOf(path);
  m.packed = version >= kFirstPackedChildrenVersion;
  if (!m.packed) {
    Query has_ib(db, kHasIbTableSql);
    m.has_ib = has_ib.prepared() && has_ib.Next();
  }
  if (version >= 2) {
    Query e(db, kSelectEventsSql);
    if (e.prepared()) {
      e.BindInt(1, kMaxEvents + 1);
      while (e.Next()) {
        if (static_cast<int64_t>(c->events_.size()) == kMaxEvents) {
          c->warnings_.push_back("more than " + std::to_string(kMaxEvents) +
                                 " events: only the first are used");
          break;
        }
        RecordingEvent ev;
        ev.t = e.Real(0);
        ev.kind = FindRecordingEventKind(e.Text(1)).value_or(RecordingEventKind::kKernelOther);
        ev.subject = e.Text(2);
        ev.message = e.Text(3);
        c->events_.push_back(std::move(ev));
      }
      if (!e.done() && e.rc() != SQLITE_ROW) {
        c->warnings_.push_back("the events table is damaged (" + std::string(sqlite3_errmsg(db)) +
                               "): " + std::to_string(c->events_.size()) + " events read");
      }
    } else {
      c->warnings_.push_back("the events table cannot be read: " + std::string(sqlite3_errmsg(db)));
    }
  }
  {
    Query last(db, "SELECT max(sample_id) FROM samples");
    if (last.prepared() && last.Next() && !last.Null(0) && last.Int(0) >= 0) {
      c->sample_rows_ = std::min<int64_t>(last.Int(0) + 1, int64_t{1} << 40);
    }
  }
  if (Status s = c->Rewind(); !s.ok()) return s;
  return c;
}

Status RecordingCursor::Rewind(RecordingParts parts) {
  impl_->parts = parts;
  return Rewind();
}

Status RecordingCursor::Rewind() {
  Impl& m = *impl_;
  sqlite3* db = m.db.get();
  struct {
    Query* q;
    const char* sql;
    bool wanted;
  } tables[] = {{&m.samples,
                 m.parts.host ? kSelectSamplesSql
                 : m.packed   ? kSelectSampleGpusProcessesSql
                              : kSelectSampleGpusSql,
                 true},
                {&m.disks, kSelectDisksSql, m.parts.disks && !m.packed},
                {&m.nets, kSelectNetsSql, m.parts.nets && !m.packed},
                {&m.processes, m.parts.process_details ? kSelectProcessesSql : kSelectProcessRssSql,
                 m.parts.processes && !m.packed},
                {&m.ib, kSelectIbSql, m.parts.nets && m.has_ib && !m.packed}};
  for (auto& t : tables) {
    if (!t.wanted) continue;
    t.q->Prepare(db, t.sql);
    if (!t.q->prepared()) {
      return InvalidInput("reading recording " + m.path + ": " + sqlite3_errmsg(db));
    }
  }
  m.disk_ahead = m.net_ahead = m.process_ahead = m.ib_ahead = false;
  m.children_done[0] = !m.parts.disks || m.packed;
  m.children_done[1] = !m.parts.nets || m.packed;
  m.children_done[2] = !m.parts.processes || m.packed;
  m.children_done[3] = !(m.parts.nets && m.has_ib) || m.packed;
  m.last_id = -1;
  m.last_t = 0;
  m.read = 0;
  m.ended = false;
  return Status::Ok();
}

namespace {

// Steps `q` to the rows of sample `id`, calling fill(q) for each; rows of earlier ids (never
// written by gpuvet) are counted as orphans and skipped; a row of a later id stays ahead.
// False when the table is damaged.
template <typename Fill>
bool Attach(Query& q, bool& ahead, bool& done, int64_t id, int64_t& orphans, Fill fill) {
  while (!done) {
    if (!ahead) {
      if (!q.Next()) {
        done = true;
        return q.done();
      }
      ahead = true;
    }
    int64_t row = q.Int(0);
    if (row > id) return true;
    ahead = false;
    if (row < id) {
      ++orphans;
      continue;
    }
    if (!fill(q)) return false;
  }
  return true;
}

}  // namespace

bool RecordingCursor::Next(Sample* out) {
  Impl& m = *impl_;
  if (m.ended) return false;
  auto stop = [&](const std::string& what) {
    m.ended = true;
    if (damage_.empty()) {
      damage_ = what;
      if (!m.truncation.empty()) damage_ = m.truncation + "; " + what;
      damage_ += m.read > 0 ? fmt_after(m.read, m.last_id, m.last_t)
                            : std::string("; no sample could be read");
    }
    return false;
  };
  Query& q = m.samples;
  if (!q.Next()) {
    if (q.done()) {
      m.ended = true;
      if (m.orphans > 0 && warnings_.size() < 16) {
        warnings_.push_back(std::to_string(m.orphans) +
                            " child rows name no sample or are out of order: skipped");
      }
      m.orphans = 0;
      return false;
    }
    return stop(std::string("table samples: ") + sqlite3_errmsg(m.db.get()));
  }
  Sample& s = *out;
  const int64_t id = q.Int(0);
  s.t = q.Real(1);
  s.unix_time = q.Real(2);
  s.interval_s = q.Real(3);
  HostSample& h = s.host;
  if (!m.parts.host) {  // the times and the GPUs (and in version 3 the processes) only
    h = HostSample();
    s.workload = WorkloadSample();
    if (!ReplaceGpus(q.Blob(4), &s.gpus)) {
      return stop("damaged gpus blob in sample " + std::to_string(id));
    }
    if (m.packed) {
      if (!m.parts.processes) {
        s.processes.clear();
      } else if (!UnpackProcesses(q.Blob(5), m.parts.process_details, &s.processes)) {
        return stop("damaged processes blob in sample " + std::to_string(id));
      }
      return Took(s.t, id);
    }
  } else {
    h.cpu_user_pct = q.OptReal(4);
    h.cpu_system_pct = q.OptReal(5);
    h.cpu_iowait_pct = q.OptReal(6);
    h.cpu_steal_pct = q.OptReal(7);
    h.cpu_idle_pct = q.OptReal(8);
    if (!UnpackDoubles(q.Blob(9), &h.core_busy_pct)) {
      return stop("damaged core_busy_pct blob in sample " + std::to_string(id));
    }
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
    if (!ReplaceGpus(q.Blob(21), &s.gpus)) {
      return stop("damaged gpus blob in sample " + std::to_string(id));
    }
    if (m.packed) {
      struct {
        bool ok;
        const char* name;
      } blobs[] = {
          {!m.parts.disks || UnpackDisks(q.Blob(22), &h.disks), "disks"},
          {!m.parts.nets || UnpackNets(q.Blob(23), &h.nets), "nets"},
          {!m.parts.nets || UnpackIbPorts(q.Blob(24), &h.ib_ports), "ib_ports"},
          {!m.parts.processes || UnpackProcesses(q.Blob(25), m.parts.process_details, &s.processes),
           "processes"}};
      for (const auto& b : blobs) {
        if (!b.ok)
          return stop(std::string("damaged ") + b.name + " blob in sample " + std::to_string(id));
      }
      if (!m.parts.disks) h.disks.clear();
      if (!m.parts.nets) h.nets.clear(), h.ib_ports.clear();
      if (!m.parts.processes) s.processes.clear();
      return Took(s.t, id);
    }
  }
  h.disks.clear();
  h.nets.clear();
  h.ib_ports.clear();
  s.processes.clear();
  bool ok = Attach(m.disks, m.disk_ahead, m.children_done[0], id, m.orphans, [&](Query& d) {
    h.disks.push_back({d.Text(1), d.Real(2), d.Real(3), d.Real(4)});
    return true;
  });
  if (!ok) return stop(std::string("table disk_samples: ") + sqlite3_errmsg(m.db.get()));
  ok = Attach(m.nets, m.net_ahead, m.children_done[1], id, m.orphans, [&](Query& n) {
    h.nets.push_back({n.Text(1), n.Real(2), n.Real(3)});
    return true;
  });
  if (!ok) return stop(std::string("table net_samples: ") + sqlite3_errmsg(m.db.get()));
  ok = Attach(m.ib, m.ib_ahead, m.children_done[3], id, m.orphans, [&](Query& b) {
    IbPortSample& x = h.ib_ports.emplace_back();
    x.port = b.Text(1);
    x.link_layer = b.Text(2);
    x.rate_gbps = b.Real(3);
    x.active = b.Int(4) != 0;
    x.rx_bytes_per_s = b.Real(5);
    x.tx_bytes_per_s = b.Real(6);
    x.xmit_wait_per_s = b.OptReal(7);
    x.cnp_per_s = b.OptReal(8);
    x.errors_per_s = b.OptReal(9);
    return true;
  });
  if (!ok) return stop(std::string("table ib_samples: ") + sqlite3_errmsg(m.db.get()));
  bool threads_ok = true;
  ok = Attach(m.processes, m.process_ahead, m.children_done[2], id, m.orphans, [&](Query& p) {
    ProcessSample& ps = s.processes.emplace_back();
    if (!m.parts.process_details) {
      ps.pid = static_cast<int>(p.Int(1));
      ps.rss_bytes = p.OptInt(2);
      return true;
    }
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
    threads_ok = UnpackThreads(p.Blob(12), &ps.top_threads);
    return threads_ok;
  });
  if (!threads_ok) return stop("damaged top_threads blob in sample " + std::to_string(id));
  if (!ok) return stop(std::string("table process_samples: ") + sqlite3_errmsg(m.db.get()));
  return Took(s.t, id);
}

bool RecordingCursor::Took(double t, int64_t id) {
  impl_->last_id = id;
  impl_->last_t = t;
  ++impl_->read;
  return true;
}

Result<Recording> ReadRecording(const std::string& path) {
  auto cursor = RecordingCursor::Open(path);
  if (!cursor.ok()) return cursor.status();
  RecordingCursor& c = **cursor;
  Recording rec;
  rec.meta = c.meta();
  rec.events = c.events();
  rec.samples.reserve(static_cast<size_t>(std::min<int64_t>(c.sample_rows(), 100'000'000)));
  Sample s;
  while (c.Next(&s)) rec.samples.push_back(s);
  if (!c.damage().empty()) {
    return InvalidInput("reading recording " + path + ": " + c.damage());
  }
  return rec;
}

}  // namespace gpuvet
