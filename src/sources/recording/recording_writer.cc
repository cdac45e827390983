// RecordingWriter: creates the file (mode 0600 unless told otherwise) with the schema and
// metadata, then appends samples through statements prepared once, one transaction per sample or
// per batch, and events in the open transaction. Every SQLite error becomes a Status that names
// the file and, where the OS said why (ENOSPC, EFBIG, EIO), the OS error.
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "sources/recording/recording_packing.h"
#include "sources/recording/recording_schema.h"
#include "sources/recording/recording_store.h"

namespace gpuvet {

namespace {

// One prepared statement with positional binding helpers; absent optionals bind NULL.
class Insert {
 public:
  Insert() = default;
  Insert(const Insert&) = delete;
  Insert& operator=(const Insert&) = delete;
  ~Insert() { sqlite3_finalize(stmt_); }

  int Prepare(sqlite3* db, const char* sql) {
    return sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
  }
  Insert& Int(int64_t v) {
    sqlite3_bind_int64(stmt_, ++col_, v);
    return *this;
  }
  Insert& Real(double v) {
    sqlite3_bind_double(stmt_, ++col_, v);
    return *this;
  }
  Insert& Text(const std::string& v) {
    sqlite3_bind_text(stmt_, ++col_, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
    return *this;
  }
  Insert& Blob(const void* data, size_t bytes) {
    if (bytes == 0) {
      sqlite3_bind_null(stmt_, ++col_);
    } else {
      sqlite3_bind_blob(stmt_, ++col_, data, static_cast<int>(bytes), SQLITE_STATIC);
    }
    return *this;
  }
  template <typename T>
  Insert& Opt(const std::optional<T>& v) {
    if (!v) {
      sqlite3_bind_null(stmt_, ++col_);
    } else if constexpr (std::is_floating_point_v<T>) {
      Real(*v);
    } else {
      Int(static_cast<int64_t>(*v));
    }
    return *this;
  }
  // Runs the statement and rewinds it for the next row; returns the SQLite result code.
  int Run() {
    int rc = sqlite3_step(stmt_);
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    col_ = 0;
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int col_ = 0;
};

// Doubles as text with enough digits to read back the same bits.
std::string ExactText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

std::vector<std::pair<std::string, std::string>> MetaRows(const RecordingMeta& meta, int version) {
  std::vector<std::pair<std::string, std::string>> rows = {
      {"schema_version", std::to_string(version)},
      {"producer", meta.producer},
      {"host", meta.host},
      {"kernel_release", meta.kernel_release},
      {"driver_version", meta.driver_version},
      {"cuda_version", meta.cuda_version},
      {"command",
       nlohmann::json(meta.command).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)},
      {"target_pid", std::to_string(meta.target_pid)},
      {"interval_s", ExactText(meta.interval_s)},
      {"start_unix_s", ExactText(meta.start_unix_s)},
      {"online_cpus", std::to_string(meta.online_cpus)},
      {"work_unit", meta.work_unit},
  };
  if (meta.end_unix_s) rows.emplace_back("end_unix_s", ExactText(*meta.end_unix_s));
  if (meta.exit_code) rows.emplace_back("exit_code", std::to_string(*meta.exit_code));
  if (meta.cpu_quota_cores) rows.emplace_back("cpu_quota_cores", ExactText(*meta.cpu_quota_cores));
  return rows;
}

}  // namespace

struct RecordingWriter::Statements {
  Insert sample, disk, net, ib, process, meta, note, event;
};

RecordingWriter::RecordingWriter(std::string path, sqlite3* db,
                                 const RecordingWriterOptions& options)
    : path_(std::move(path)),
      db_(db),
      options_(options),
      statements_(std::make_unique<Statements>()) {
  if (options_.samples_per_commit < 1) options_.samples_per_commit = 1;
  if (options_.schema_version != 2) options_.schema_version = kRecordingSchemaVersion;
}

RecordingWriter::~RecordingWriter() {
  statements_.reset();  // finalize before closing
  if (db_ != nullptr) sqlite3_close_v2(db_);
}

Status RecordingWriter::Error(const std::string& what) {
  std::string message = "writing recording " + path_ + ": " + what + ": " + sqlite3_errmsg(db_);
  // SQLite keeps the errno of a failed write() only per file, so name the likely causes here.
  int code = sqlite3_extended_errcode(db_);
  if (code == SQLITE_FULL || code == SQLITE_IOERR_WRITE || code == SQLITE_IOERR_SHMSIZE ||
      code == SQLITE_IOERR_TRUNCATE) {
    struct rlimit limit = {};
    std::string dir = path_.find('/') == std::string::npos
                          ? std::string(".")
                          : path_.substr(0, path_.rfind('/') + (path_.rfind('/') == 0 ? 1 : 0));
    struct statvfs fs = {};
    if (statvfs(dir.c_str(), &fs) == 0 && fs.f_bavail * fs.f_frsize < (1 << 20)) {
      message += " (no space left on the file system of " + dir + ")";
    } else if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
      message += " (file size limit reached: ulimit -f is " +
                 std::to_string(limit.rlim_cur / 1024) + " KiB)";
    } else if (int os_errno = sqlite3_system_errno(db_); os_errno != 0) {
      message += std::string(" (") + std::strerror(os_errno) + ")";
    }
  }
  return Unavailable(message);
}

Status RecordingWriter::Exec(const char* sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &err);
  sqlite3_free(err);
  return rc == SQLITE_OK ? Status::Ok() : Error(sql);
}

Result<std::unique_ptr<RecordingWriter>> RecordingWriter::Create(
    const std::string& path, const RecordingMeta& meta, const RecordingWriterOptions& options) {
  struct stat info = {};
  if (lstat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
    return Unavailable("cannot write recording " + path +
                       ": it exists and is not a regular file (a device, directory, FIFO or "
                       "symbolic link is never replaced)");
  }
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    std::string p = path + suffix;
    if (unlink(p.c_str()) != 0 && errno != ENOENT) {
      return Unavailable("cannot replace " + p + ": " + std::strerror(errno));
    }
  }
  // Created here, exclusively and without following a link, so the mode is ours (SQLite would
  // create it 0644 less the umask); SQLite gives -wal and -shm the database file's mode.
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                static_cast<mode_t>(options.mode));
  if (fd < 0) {
    return Unavailable("cannot create recording " + path + ": " + std::strerror(errno));
  }
  fchmod(fd, static_cast<mode_t>(options.mode));  // the umask may have taken bits we were told
  close(fd);
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr);
  std::unique_ptr<RecordingWriter> w(new RecordingWriter(path, db, options));
  if (rc != SQLITE_OK) {
    return Unavailable("cannot create recording " + path + ": " +
                       (db ? sqlite3_errmsg(db) : "out of memory"));
  }
  sqlite3_busy_timeout(db, 2000);
  // 8 KiB pages: a sample row (8 packed GPUs, per-core shares) is 2-3 KiB; with the default 4 KiB
  // pages each row fills a page of its own (a 24 h x 8 GPU file grows from ~250 to ~400 MiB),
  // while larger pages multiply what each one-sample commit writes to the WAL.
  std::string pragmas = "PRAGMA page_size=8192; PRAGMA journal_mode=WAL; PRAGMA synchronous=" +
                        std::string(options.sync_commits ? "NORMAL" : "OFF") +
                        "; "
                        "PRAGMA application_id=" +
                        std::to_string(kRecordingApplicationId) +
                        "; PRAGMA user_version=" + std::to_string(w->version()) + ";";
  if (Status s = w->Exec(pragmas.c_str()); !s.ok()) return s;
  if (Status s = w->Exec("BEGIN"); !s.ok()) return s;
  const bool packed = w->version() >= kFirstPackedChildrenVersion;
  if (Status s = w->Exec(packed ? kRecordingSchemaSql : kRecordingSchemaV2Sql); !s.ok()) return s;

  Statements& st = *w->statements_;
  struct {
    Insert* insert;
    const char* sql;
    bool wanted;
  } prepared[] = {{&st.sample, packed ? kInsertSampleSql : kInsertSampleV2Sql, true},
                  {&st.disk, kInsertDiskSql, !packed},
                  {&st.net, kInsertNetSql, !packed},
                  {&st.ib, kInsertIbSql, !packed},
                  {&st.process, kInsertProcessSql, !packed},
                  {&st.meta, "INSERT OR REPLACE INTO meta VALUES (?,?)", true},
                  {&st.note, "INSERT OR REPLACE INTO notes VALUES (?,?)", true},
                  {&st.event, kInsertEventSql, true}};
  for (auto& p : prepared) {
    if (p.wanted && p.insert->Prepare(db, p.sql) != SQLITE_OK) {
      return w->Error("preparing statements");
    }
  }
  for (const auto& [key, value] : MetaRows(meta, w->version())) {
    if (st.meta.Text(key).Text(value).Run() != SQLITE_OK) return w->Error("writing metadata");
  }
  for (const auto& [key, value] : meta.notes) {
    if (st.note.Text(key).Text(value).Run() != SQLITE_OK) return w->Error("writing notes");
  }
  Insert gpu;
  if (gpu.Prepare(db, "INSERT INTO gpus VALUES (?,?,?,?,?,?,?,?,?,?,?)") != SQLITE_OK) {
    return w->Error("preparing statements");
  }
  for (const RecordedGpu& g : meta.gpus) {
    gpu.Int(g.index).Text(g.name).Text(g.uuid).Text(g.pci_bus_id).Opt(g.memory_total_bytes);
    gpu.Opt(g.power_limit_w).Opt(g.sm_clock_max_mhz).Opt(g.mem_clock_max_mhz);
    gpu.Opt(g.pcie_gen_max).Opt(g.pcie_width_max).Opt(g.numa_node);
    if (gpu.Run() != SQLITE_OK) return w->Error("writing GPU " + std::to_string(g.index));
  }
  if (Status s = w->Exec("COMMIT"); !s.ok()) return s;
  return w;
}

Status RecordingWriter::InsertSample(const Sample& s) {
  Statements& st = *statements_;
  const int64_t id = next_sample_id_;
  const HostSample& h = s.host;
  st.sample.Int(id).Real(s.t).Real(s.unix_time).Real(s.interval_s);
  st.sample.Opt(h.cpu_user_pct).Opt(h.cpu_system_pct).Opt(h.cpu_iowait_pct);
  st.sample.Opt(h.cpu_steal_pct).Opt(h.cpu_idle_pct);
  const std::string cores = PackDoubles(h.core_busy_pct);
  st.sample.Blob(cores.data(), cores.size());
  st.sample.Opt(h.run_queue).Opt(h.psi_cpu_some_pct).Opt(h.psi_io_some_pct);
  st.sample.Opt(h.psi_io_full_pct).Opt(h.psi_memory_some_pct).Opt(h.psi_memory_full_pct);
  st.sample.Opt(h.mem_available_bytes).Opt(h.major_faults_per_s);
  st.sample.Opt(s.workload.cgroup_throttled_pct).Opt(s.workload.cgroup_nr_throttled_per_s);
  st.sample.Opt(s.workload.work_total);
  const std::string gpus = PackGpus(s.gpus);
  st.sample.Blob(gpus.data(), gpus.size());
  if (version() >= kFirstPackedChildrenVersion) {  // the child rows as blobs of the sample row
    const std::string disks = PackDisks(h.disks), nets = PackNets(h.nets);
    const std::string ports = PackIbPorts(h.ib_ports), processes = PackProcesses(s.processes);
    st.sample.Blob(disks.data(), disks.size()).Blob(nets.data(), nets.size());
    st.sample.Blob(ports.data(), ports.size()).Blob(processes.data(), processes.size());
    if (st.sample.Run() != SQLITE_OK) return Error("sample " + std::to_string(id));
    return Status::Ok();
  }
  if (st.sample.Run() != SQLITE_OK) return Error("sample " + std::to_string(id));

  for (const DiskSample& d : h.disks) {
    st.disk.Int(id).Text(d.device).Real(d.read_bytes_per_s).Real(d.write_bytes_per_s);
    if (st.disk.Real(d.busy_pct).Run() != SQLITE_OK) return Error("disk " + std::to_string(id));
  }
  for (const NetSample& n : h.nets) {
    st.net.Int(id).Text(n.interface).Real(n.rx_bytes_per_s).Real(n.tx_bytes_per_s);
    if (st.net.Run() != SQLITE_OK) return Error("network " + std::to_string(id));
  }
  for (const IbPortSample& p : h.ib_ports) {
    st.ib.Int(id).Text(p.port).Text(p.link_layer).Real(p.rate_gbps).Int(p.active ? 1 : 0);
    st.ib.Real(p.rx_bytes_per_s).Real(p.tx_bytes_per_s).Opt(p.xmit_wait_per_s).Opt(p.cnp_per_s);
    if (st.ib.Opt(p.errors_per_s).Run() != SQLITE_OK)
      return Error("RDMA port " + std::to_string(id));
  }
  for (const ProcessSample& p : s.processes) {
    Insert& q = st.process;
    q.Int(id).Int(p.pid).Int(p.ppid).Text(p.comm).Real(p.cpu_pct).Opt(p.rss_bytes).Int(p.threads);
    q.Opt(p.read_bytes_per_s).Opt(p.write_bytes_per_s).Opt(p.rchar_per_s);
    q.Opt(p.read_syscalls_per_s).Opt(p.opens_per_s);
    const std::string threads = PackThreads(p.top_threads);
    q.Blob(threads.data(), threads.size());
    if (q.Run() != SQLITE_OK) return Error("process " + std::to_string(id));
  }
  return Status::Ok();
}

Status RecordingWriter::Fail(Status s) {
  sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  in_batch_ = false;
  pending_ = 0;
  next_sample_id_ = committed_samples_;  // the rolled-back batch is not in the file
  failed_ = s;
  return s;
}

Status RecordingWriter::Begin() {
  if (in_batch_) return Status::Ok();
  Status s = Exec("BEGIN");
  if (s.ok()) in_batch_ = true;
  return s;
}

Status RecordingWriter::Flush() {
  if (!failed_.ok()) return failed_;
  if (db_ == nullptr || !in_batch_) return Status::Ok();
  Status s = Exec("COMMIT");
  if (!s.ok()) return Fail(s);
  in_batch_ = false;
  pending_ = 0;
  committed_samples_ = next_sample_id_;
  return Status::Ok();
}

Status RecordingWriter::Append(const Sample& sample) {
  if (!failed_.ok()) return failed_;
  if (db_ == nullptr) return Internal("recording " + path_ + " is already finished");
  Status s = Begin();
  if (s.ok()) s = InsertSample(sample);
  if (!s.ok()) return Fail(s);
  ++next_sample_id_;
  if (++pending_ >= options_.samples_per_commit) return Flush();
  return Status::Ok();
}

Status RecordingWriter::AppendEvent(const RecordingEvent& event) {
  if (!failed_.ok()) return failed_;
  if (db_ == nullptr) return Internal("recording " + path_ + " is already finished");
  if (events_ >= options_.max_events) {
    ++events_dropped_;
    return Status::Ok();
  }
  const bool own = !in_batch_;
  Status s = Begin();
  Insert& e = statements_->event;
  const std::string kind = RecordingEventKindId(event.kind);  // bound without a copy: keep it
  if (s.ok()) {
    e.Real(event.t).Text(kind).Text(event.subject).Text(event.message);
    if (e.Run() != SQLITE_OK) s = Error("event");
  }
  if (!s.ok()) return Fail(s);
  ++events_;
  return own ? Flush() : Status::Ok();
}

Status RecordingWriter::UpdateMeta(const RecordingMeta& meta) {
  if (Status f = Flush(); !f.ok()) return f;
  if (db_ == nullptr) return Internal("recording " + path_ + " is already finished");
  Status s = Exec("BEGIN");
  for (const auto& [key, value] : MetaRows(meta, version())) {
    if (s.ok() && statements_->meta.Text(key).Text(value).Run() != SQLITE_OK) {
      s = Error("writing metadata");
    }
  }
  if (s.ok()) s = Exec("COMMIT");
  if (!s.ok()) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    failed_ = s;
  }
  return s;
}

Status RecordingWriter::UpdateNotes(const std::map<std::string, std::string>& notes) {
  if (Status f = Flush(); !f.ok()) return f;
  if (db_ == nullptr) return Internal("recording " + path_ + " is already finished");
  Status s = Exec("BEGIN");
  for (const auto& [key, value] : notes) {
    if (s.ok() && statements_->note.Text(key).Text(value).Run() != SQLITE_OK) {
      s = Error("writing notes");
    }
  }
  if (s.ok()) s = Exec("COMMIT");
  if (!s.ok()) return Fail(s);
  return s;
}

namespace {

// fdatasync of the finished recording, then fsync of its directory (the file's name), for a
// recording written with unsynced commits.
Status SyncFinishedFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return Unavailable("cannot sync recording " + path + ": " + std::strerror(errno));
  const bool synced = fdatasync(fd) == 0;
  const int err = errno;
  close(fd);
  if (!synced) return Unavailable("cannot sync recording " + path + ": " + std::strerror(err));
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {  // a directory that cannot be opened or synced (some filesystems) is no error
    fsync(dfd);
    close(dfd);
  }
  return Status::Ok();
}

}  // namespace

Status RecordingWriter::Finish(std::optional<double> end_unix_s, std::optional<int> exit_code) {
  if (db_ == nullptr && failed_.ok()) {
    return Internal("recording " + path_ + " is already finished");
  }
  if (Status f = Flush(); !f.ok()) return f;
  Statements& st = *statements_;
  Status s = Exec("BEGIN");
  if (s.ok() && events_dropped_ > 0 &&
      st.note.Text("events.dropped").Text(std::to_string(events_dropped_)).Run() != SQLITE_OK) {
    s = Error("writing notes");
  }
  if (s.ok() && end_unix_s &&
      st.meta.Text("end_unix_s").Text(ExactText(*end_unix_s)).Run() != SQLITE_OK) {
    s = Error("writing the end time");
  }
  if (s.ok() && exit_code &&
      st.meta.Text("exit_code").Text(std::to_string(*exit_code)).Run() != SQLITE_OK) {
    s = Error("writing the exit code");
  }
  if (s.ok()) s = Exec("COMMIT");
  // Back to a rollback journal: checkpoints the WAL into the file and removes -wal/-shm. With
  // synced commits the checkpoint syncs the WAL and then the file. Without (import), it runs
  // unsynced and the file is synced once below: SQLite would sync the WAL first, a second
  // flush of the same data (20 ms of a 1 h import's 130 ms).
  if (s.ok()) s = Exec("PRAGMA journal_mode=DELETE");
  if (!s.ok()) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    failed_ = s;
  }
  statements_.reset();
  if (sqlite3_close_v2(db_) != SQLITE_OK && s.ok()) s = Unavailable("closing recording " + path_);
  db_ = nullptr;
  if (s.ok() && !options_.sync_commits) s = SyncFinishedFile(path_);
  return s;
}

}  // namespace gpuvet
