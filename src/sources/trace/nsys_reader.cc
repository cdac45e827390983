// Nsight Systems SQLite export -> RankTrace: which nsys table and column becomes which model field.
// One pass per table, rows stepped straight into the model; the runtime table goes first because
// its cudaGraphLaunch correlation ids mark the kernels read after it. Schema discovery, scans and
// strings live in nsys_export.h, enum ids and API names in nsys_kinds.h.
#include "sources/trace/nsys_reader.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "sources/trace/nsys_export.h"
#include "sources/trace/nsys_kinds.h"
#include "sources/trace/nsys_split.h"
#include "sources/trace/nsys_sqlite.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

constexpr char kKernelTable[] = "CUPTI_ACTIVITY_KIND_KERNEL";
constexpr char kMemcpyTable[] = "CUPTI_ACTIVITY_KIND_MEMCPY";
constexpr char kMemsetTable[] = "CUPTI_ACTIVITY_KIND_MEMSET";
constexpr char kRuntimeTable[] = "CUPTI_ACTIVITY_KIND_RUNTIME";
constexpr char kSyncTable[] = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
// Whole-graph executions, written instead of per-node kernels with --cuda-graph-trace=graph.
constexpr char kGraphTable[] = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE";
constexpr char kNvtxTable[] = "NVTX_EVENTS";
constexpr char kRanksTable[] = "MPI_RANKS";
constexpr char kDiagnosticTable[] = "DIAGNOSTIC_EVENT";
constexpr char kEventTypeEnum[] = "ENUM_NSYS_EVENT_TYPE";
constexpr std::string_view kCuptiPrefix = "CUPTI_ACTIVITY_KIND_";

// globalTid serialises (pid << 24) | tid; the nsys "Common SQLite examples" take the thread id as
// globalTid % 0x1000000.
constexpr int64_t kThreadIdMask = 0xFFFFFF;
// NVTX_EVENTS.eventType of ranges: 59 NvtxPushPopRange, 60 NvtxStartEndRange (nsys "SQLite Schema
// Event Values"); marks (34) and domain/category registrations have no duration.
constexpr int64_t kNvtxPushPopRange = 59;
constexpr int64_t kNvtxStartEndRange = 60;
// PyTorch's profiler marks each step with a range named "ProfilerStep#<n>".
constexpr std::string_view kStepPrefix = "ProfilerStep#";

int32_t ToInt32(int64_t v) {
  return v >= INT32_MIN && v <= INT32_MAX ? static_cast<int32_t>(v) : -1;
}

int32_t ThreadId(const SqliteStatement& row, int col) {
  return row.IsNull(col) ? -1 : static_cast<int32_t>(row.Int(col) & kThreadIdMask);
}

// The process of a globalTid or globalPid column; -1 when NULL.
int64_t ProcessId(const SqliteStatement& row, int col) {
  return row.IsNull(col) ? -1 : PidOfGlobalId(row.Int(col));
}

class NsysReader {
 public:
  NsysReader(SqliteDb db, RankTrace* trace) : x_(std::move(db), trace), t_(*trace) {}

  // Fills the trace (vectors in read order) and owners(); errors name the file.
  Status Run();
  const NsysOwners& owners() const { return owners_; }

 private:
  Status CheckTables();
  Status ReadRuntime();
  Status ReadSync();
  Status ReadKernels();
  Status ReadGraphs();
  Status ReadMemcpy();
  Status ReadMemset();
  Status ReadNvtx();
  Status ReadRank();
  Status ReadDiagnostics();
  std::vector<int64_t> NvtxRangeTypes();
  // Device, stream and correlation of a GPU op from columns 2, 3, 4; graph_launched from the
  // graphNodeId in `graph_col` or the correlation of a cudaGraphLaunch.
  void ReadGpuOpIds(const SqliteStatement& row, int graph_col, GpuOp* op) const;
  // Appends `op`, owned by the process in globalPid column `pid_col`.
  void AddOp(const GpuOp& op, const SqliteStatement& row, int pid_col);

  NsysExport x_;
  RankTrace& t_;
  NsysOwners owners_;
  std::unordered_map<int64_t, std::pair<uint32_t, RuntimeKind>> runtime_names_;  // by StringIds id
  std::unordered_set<int64_t> graph_correlations_;
  std::unordered_map<uint32_t, uint32_t> copy_names_;  // (copy, src, dst) ids -> name index
};

Status NsysReader::CheckTables() {
  Status s = x_.ListTables();
  if (!s.ok()) return s;
  bool any_cupti = std::any_of(x_.tables().begin(), x_.tables().end(),
                               [](const std::string& t) { return StartsWith(t, kCuptiPrefix); });
  if (!any_cupti) {
    return InvalidInput(x_.path() + ": " +
                        (x_.tables().empty() ? "an SQLite database without any table"
                                             : "no CUPTI_ACTIVITY_KIND_* table") +
                        "; expected an Nsight Systems export of a CUDA trace (nsys profile "
                        "--trace=cuda, then nsys export --type sqlite)");
  }
  std::vector<std::string> missing;
  for (const char* name : {kKernelTable, kMemcpyTable, kMemsetTable, kRuntimeTable, kSyncTable,
                           kNvtxTable, "StringIds"}) {
    if (!x_.Has(name)) missing.emplace_back(name);
  }
  if (!missing.empty()) {
    x_.Warn("no " + Join(missing, ", ") +
            " table: those events are absent (none were recorded or traced, or an older nsys)");
  }
  return Status::Ok();
}

Status NsysReader::ReadRuntime() {
  if (!x_.Has(kRuntimeTable)) return Status::Ok();
  RowProblems p;
  auto on_row = [&](const SqliteStatement& row) {
    RuntimeCall c;
    if (!NsysExport::ReadSpan(row, &c.start_ns, &c.dur_ns, &p)) return;
    c.tid = ThreadId(row, 2);
    if (!row.IsNull(3)) c.correlation = row.Int(3);
    if (row.IsNull(4) || row.IsText(4)) {
      std::string_view raw = row.IsText(4) ? row.Text(4) : std::string_view();
      c.name = x_.Intern(StripApiVersionSuffix(raw));
      c.kind = ClassifyRuntimeApi(raw);
    } else {
      int64_t id = row.Int(4);
      auto it = runtime_names_.find(id);
      if (it == runtime_names_.end()) {
        std::string raw = t_.names[x_.StringName(id)];  // a copy: Intern may grow names
        auto named = std::make_pair(x_.Intern(StripApiVersionSuffix(raw)), ClassifyRuntimeApi(raw));
        it = runtime_names_.emplace(id, named).first;
      }
      c.name = it->second.first;
      c.kind = it->second.second;
    }
    if (c.kind == RuntimeKind::kGraphLaunch && c.correlation >= 0) {
      graph_correlations_.insert(c.correlation);
    }
    t_.runtime.push_back(c);
    owners_.call_pid.push_back(ProcessId(row, 2));
  };
  Status s = x_.Scan(
      kRuntimeTable,
      x_.Select(kRuntimeTable, {"start", "end", "globalTid", "correlationId", "nameId"}), on_row);
  x_.ReportProblems(kRuntimeTable, p);
  return s;
}

Status NsysReader::ReadSync() {
  if (!x_.Has(kSyncTable)) return Status::Ok();
  std::vector<int> remap = x_.LoadEnumRemap("ENUM_CUPTI_SYNC_TYPE", NsysEnum::kSyncType);
  std::string sql =
      x_.Select(kSyncTable, {"start", "end", "globalTid", "correlationId", "syncType"});
  // A record whose runtime call is in the RUNTIME table adds nothing; keep only the others. The
  // anti-join runs inside SQLite (its temp store), not in a set held here.
  if (x_.HasColumn(kSyncTable, "correlationId") && x_.HasColumn(kRuntimeTable, "correlationId")) {
    sql += " WHERE correlationId IS NULL OR correlationId NOT IN (SELECT correlationId FROM " +
           QuoteIdentifier(kRuntimeTable) + " WHERE correlationId IS NOT NULL)";
  }
  RowProblems p;
  auto on_row = [&](const SqliteStatement& row) {
    int type = NsysExport::Remap(remap, row, 4);
    RuntimeCall c;
    c.kind = SyncTypeKind(type);
    if (c.kind == RuntimeKind::kOther) return;  // not a host-blocking synchronisation
    if (!NsysExport::ReadSpan(row, &c.start_ns, &c.dur_ns, &p)) return;
    c.tid = ThreadId(row, 2);
    if (!row.IsNull(3)) c.correlation = row.Int(3);
    c.name = x_.Intern(SyncTypeLabel(type));
    t_.runtime.push_back(c);
    owners_.call_pid.push_back(ProcessId(row, 2));
  };
  Status s = x_.Scan(kSyncTable, sql, on_row);
  x_.ReportProblems(kSyncTable, p);
  return s;
}

void NsysReader::AddOp(const GpuOp& op, const SqliteStatement& row, int pid_col) {
  t_.gpu_ops.push_back(op);
  owners_.op_pid.push_back(ProcessId(row, pid_col));
}

void NsysReader::ReadGpuOpIds(const SqliteStatement& row, int graph_col, GpuOp* op) const {
  if (!row.IsNull(2)) op->device = ToInt32(row.Int(2));
  if (!row.IsNull(3)) op->stream = ToInt32(row.Int(3));
  if (!row.IsNull(4)) op->correlation = row.Int(4);
  op->graph_launched = (!row.IsNull(graph_col) && row.Int(graph_col) != 0) ||
                       graph_correlations_.count(op->correlation) > 0;
}

Status NsysReader::ReadKernels() {
  if (!x_.Has(kKernelTable)) return Status::Ok();
  // demangledName is the full signature Kineto also shows; older exports may have only the others.
  std::string name_col =
      x_.FirstColumn(kKernelTable, {"demangledName", "shortName", "mangledName", "name"});
  if (name_col.empty()) x_.Warn(std::string(kKernelTable) + ": no kernel name column; names empty");
  RowProblems p;
  auto on_row = [&](const SqliteStatement& row) {
    GpuOp op;
    if (!NsysExport::ReadSpan(row, &op.start_ns, &op.dur_ns, &p)) return;
    op.kind = GpuOpKind::kKernel;
    ReadGpuOpIds(row, 6, &op);
    op.name = x_.NameAt(row, 5);
    AddOp(op, row, 7);
  };
  Status s =
      x_.Scan(kKernelTable,
              x_.Select(kKernelTable, {"start", "end", "deviceId", "streamId", "correlationId",
                                       name_col, "graphNodeId", "globalPid"}),
              on_row);
  x_.ReportProblems(kKernelTable, p);
  return s;
}

Status NsysReader::ReadGraphs() {
  if (!x_.Has(kGraphTable)) return Status::Ok();
  RowProblems p;
  std::unordered_map<int64_t, uint32_t> graph_names;  // graphId -> name index
  auto on_row = [&](const SqliteStatement& row) {
    GpuOp op;
    if (!NsysExport::ReadSpan(row, &op.start_ns, &op.dur_ns, &p)) return;
    op.kind = GpuOpKind::kKernel;
    ReadGpuOpIds(row, 5, &op);
    // CUPTI: deviceId INT_MAX means the graph's first node runs on the host.
    if (op.device == INT32_MAX) op.device = -1;
    op.graph_launched = true;
    int64_t graph = row.IsNull(5) ? -1 : row.Int(5);
    auto it = graph_names.find(graph);
    if (it == graph_names.end()) {
      std::string name = graph >= 0 ? "CUDA graph " + std::to_string(graph) : "CUDA graph";
      it = graph_names.emplace(graph, x_.Intern(name)).first;
    }
    op.name = it->second;
    AddOp(op, row, 6);
  };
  Status s = x_.Scan(kGraphTable,
                     x_.Select(kGraphTable, {"start", "end", "deviceId", "streamId",
                                             "correlationId", "graphId", "globalPid"}),
                     on_row);
  x_.ReportProblems(kGraphTable, p);
  return s;
}

Status NsysReader::ReadMemcpy() {
  if (!x_.Has(kMemcpyTable)) return Status::Ok();
  std::vector<int> copy_remap = x_.LoadEnumRemap("ENUM_CUDA_MEMCPY_OPER", NsysEnum::kMemcpyOper);
  std::vector<int> mem_remap = x_.LoadEnumRemap("ENUM_CUDA_MEM_KIND", NsysEnum::kMemKind);
  if (!x_.HasColumn(kMemcpyTable, "srcKind") || !x_.HasColumn(kMemcpyTable, "dstKind")) {
    x_.Warn(std::string(kMemcpyTable) +
            ": no srcKind/dstKind columns; memory kinds unknown (pageable copies cannot be told)");
  }
  RowProblems p;
  auto on_row = [&](const SqliteStatement& row) {
    GpuOp op;
    if (!NsysExport::ReadSpan(row, &op.start_ns, &op.dur_ns, &p)) return;
    op.kind = GpuOpKind::kMemcpy;
    ReadGpuOpIds(row, 9, &op);
    op.bytes = static_cast<uint64_t>(std::max<int64_t>(0, row.Int(5)));
    int copy = NsysExport::Remap(copy_remap, row, 6);
    int src = NsysExport::Remap(mem_remap, row, 7);
    int dst = NsysExport::Remap(mem_remap, row, 8);
    op.copy = CopyKindFromNsys(copy);
    op.src = MemKindFromNsys(src);
    op.dst = MemKindFromNsys(dst);
    uint32_t key = (static_cast<uint32_t>(copy & 0xff) << 16) |
                   (static_cast<uint32_t>(src & 0xff) << 8) | static_cast<uint32_t>(dst & 0xff);
    auto it = copy_names_.find(key);
    if (it == copy_names_.end()) {
      // Kineto's name for the same copy, so analyses treat both sources alike.
      std::string name = "Memcpy " + std::string(CopyKindLabel(copy)) + " (" +
                         std::string(MemKindLabel(src)) + " -> " + std::string(MemKindLabel(dst)) +
                         ")";
      it = copy_names_.emplace(key, x_.Intern(name)).first;
    }
    op.name = it->second;
    AddOp(op, row, 10);
  };
  Status s = x_.Scan(
      kMemcpyTable,
      x_.Select(kMemcpyTable, {"start", "end", "deviceId", "streamId", "correlationId", "bytes",
                               "copyKind", "srcKind", "dstKind", "graphNodeId", "globalPid"}),
      on_row);
  x_.ReportProblems(kMemcpyTable, p);
  return s;
}

Status NsysReader::ReadMemset() {
  if (!x_.Has(kMemsetTable)) return Status::Ok();
  std::vector<int> mem_remap = x_.LoadEnumRemap("ENUM_CUDA_MEM_KIND", NsysEnum::kMemKind);
  RowProblems p;
  auto on_row = [&](const SqliteStatement& row) {
    GpuOp op;
    if (!NsysExport::ReadSpan(row, &op.start_ns, &op.dur_ns, &p)) return;
    op.kind = GpuOpKind::kMemset;
    ReadGpuOpIds(row, 7, &op);
    op.bytes = static_cast<uint64_t>(std::max<int64_t>(0, row.Int(5)));
    int mem = NsysExport::Remap(mem_remap, row, 6);
    op.dst = MemKindFromNsys(mem);
    op.name = x_.Intern("Memset (" + std::string(MemKindLabel(mem)) + ")");  // as Kineto names it
    AddOp(op, row, 8);
  };
  Status s =
      x_.Scan(kMemsetTable,
              x_.Select(kMemsetTable, {"start", "end", "deviceId", "streamId", "correlationId",
                                       "bytes", "memKind", "graphNodeId", "globalPid"}),
              on_row);
  x_.ReportProblems(kMemsetTable, p);
  return s;
}

std::vector<int64_t> NsysReader::NvtxRangeTypes() {
  std::vector<int64_t> ids;
  if (x_.HasColumn(kEventTypeEnum, "id") && x_.HasColumn(kEventTypeEnum, "name")) {
    auto on_row = [&](const SqliteStatement& row) {
      std::string_view name = row.Text(1);
      if (!row.IsNull(0) && (name.find("PushPopRange") != std::string_view::npos ||
                             name.find("StartEndRange") != std::string_view::npos)) {
        ids.push_back(row.Int(0));
      }
    };
    Status s = x_.Scan(kEventTypeEnum, x_.Select(kEventTypeEnum, {"id", "name"}), on_row, false);
    if (!s.ok()) ids.clear();
  }
  if (ids.empty()) ids = {kNvtxPushPopRange, kNvtxStartEndRange};
  return ids;
}

Status NsysReader::ReadNvtx() {
  if (!x_.Has(kNvtxTable)) return Status::Ok();
  std::string sql = x_.Select(kNvtxTable, {"start", "end", "text", "textId", "globalTid"});
  if (x_.HasColumn(kNvtxTable, "eventType")) {
    std::vector<std::string> ids;
    for (int64_t id : NvtxRangeTypes()) ids.push_back(std::to_string(id));
    sql += " WHERE eventType IN (" + Join(ids, ", ") + ")";
  }
  RowProblems p;
  uint64_t unclosed = 0;
  auto on_row = [&](const SqliteStatement& row) {
    if (!row.IsNull(0) && row.IsNull(1)) {
      ++unclosed;  // a range still open when the capture stopped
      return;
    }
    TraceRange r;
    if (!NsysExport::ReadSpan(row, &r.start_ns, &r.dur_ns, &p)) return;
    r.name = !row.IsNull(2) ? x_.Intern(row.Text(2)) : x_.NameAt(row, 3);
    r.tid = ThreadId(row, 4);
    bool step = StartsWith(t_.names[r.name], kStepPrefix);
    (step ? t_.steps : t_.annotations).push_back(r);
    (step ? owners_.step_pid : owners_.annotation_pid).push_back(ProcessId(row, 4));
  };
  Status s = x_.Scan(kNvtxTable, sql, on_row);
  if (unclosed > 0) {
    x_.Warn(std::string(kNvtxTable) + ": " + std::to_string(unclosed) +
            " ranges without an end (still open when the capture stopped) skipped");
  }
  x_.ReportProblems(kNvtxTable, p);
  return s;
}

Status NsysReader::ReadRank() {
  if (!x_.HasColumn(kRanksTable, "rank")) return Status::Ok();
  auto on_row = [&](const SqliteStatement& row) {
    if (!row.IsNull(1)) owners_.ranks[ProcessId(row, 0)].insert(ToInt32(row.Int(1)));
  };
  return x_.Scan(kRanksTable, x_.Select(kRanksTable, {"globalTid", "rank"}), on_row, false);
}

// DIAGNOSTIC_EVENT: what nsys itself said about the capture. A message that no CUDA events were
// collected (CUPTI failed to attach, an unsupported driver) explains an export without GPU ops.
Status NsysReader::ReadDiagnostics() {
  if (!x_.HasColumn(kDiagnosticTable, "text")) return Status::Ok();
  auto on_row = [&](const SqliteStatement& row) {
    if (!t_.gpu_capture_note.empty() || row.IsNull(0)) return;
    std::string text = row.IsText(0) ? std::string(row.Text(0)) : t_.names[x_.NameAt(row, 0)];
    if (text.find("No CUDA events") != std::string::npos ||
        text.find("CUDA events were not collected") != std::string::npos) {
      t_.gpu_capture_note = text.substr(0, 300);
    }
  };
  // Diagnostics only explain; an unreadable row must not fail the read of the events.
  Status s = x_.Scan(kDiagnosticTable, x_.Select(kDiagnosticTable, {"text"}), on_row, false);
  (void)s;
  return Status::Ok();
}

Status NsysReader::Run() {
  Status s = CheckTables();
  for (auto step : {&NsysReader::ReadRuntime, &NsysReader::ReadSync, &NsysReader::ReadKernels,
                    &NsysReader::ReadGraphs, &NsysReader::ReadMemcpy, &NsysReader::ReadMemset,
                    &NsysReader::ReadNvtx, &NsysReader::ReadRank, &NsysReader::ReadDiagnostics}) {
    if (!s.ok()) return s;
    s = (this->*step)();
  }
  if (!s.ok()) return s;
  x_.Finish();
  if ((x_.corrupt() || t_.truncated) && t_.events_seen == 0) {
    return InvalidInput(x_.path() + ": corrupt SQLite export: no event could be read (" +
                        WithoutPath(x_.path(), t_.warnings.empty() ? "" : t_.warnings.back()) +
                        ")");
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<RankTrace>> ReadNsysSqlite(const std::string& path) {
  auto info = CheckSqliteFile(path);
  if (!info.ok()) return info.status();
  RankTrace trace;
  trace.source = path;
  trace.format = "nsys-sqlite";
  trace.input_bytes = info->file_bytes;
  std::string cut;
  if (info->truncated()) {
    trace.truncated = true;
    cut = path + ": truncated: " + std::to_string(info->file_bytes) + " bytes of the " +
          std::to_string(info->declared_bytes) + " its SQLite header declares";
    trace.warnings.push_back(cut + "; results cover what could be read");
  }
  auto db = SqliteDb::OpenReadOnly(path, info->truncated());
  if (!db.ok()) return db.status();
  NsysReader reader(std::move(db).value(), &trace);
  Status s = reader.Run();
  if (!s.ok() && trace.truncated && s.code() == StatusCode::kInvalidInput) {
    return InvalidInput(cut + ", too little to read (" + WithoutPath(path, s.message()) + ")");
  }
  if (!s.ok()) return s;
  return SplitNsysTrace(std::move(trace), reader.owners());
}

}  // namespace gpuvet
