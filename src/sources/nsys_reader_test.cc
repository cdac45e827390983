// Nsight Systems SQLite reader: exact model contents for a current and an older export schema
// (both built at test time from tests/data/nsys/make_synthetic.sql), the enum and API-name
// tables, and precise errors for files that are not usable exports.
#include "sources/nsys_reader.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "sources/nsys_kinds.h"

namespace gpuvet {
namespace {

namespace fs = std::filesystem;

// A directory of this test's own: ctest runs every test as its own process, in parallel, so a
// shared path would let two tests build the same database at once.
fs::path TestDir() {
  const char* base = std::getenv("GPUVET_TEST_TMPDIR");
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string leaf = "nsys-" + std::to_string(::getpid());
  if (info != nullptr) leaf += std::string("-") + info->test_suite_name() + "." + info->name();
  fs::path dir = (base != nullptr ? fs::path(base) : fs::path(::testing::TempDir())) / leaf;
  fs::create_directories(dir);
  return dir;
}

std::string ReadText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteText(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

// The SQL of export `name` from make_synthetic.sql: the lines after "-- @@export <name>" up to
// the next marker.
std::string ExportSql(const std::string& name) {
  std::istringstream in(
      ReadText(fs::path(GPUVET_SOURCE_DIR) / "tests/data/nsys/make_synthetic.sql"));
  std::string line, sql;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("-- @@export ", 0) == 0) {
      inside = line == "-- @@export " + name;
      continue;
    }
    if (inside) sql += line + "\n";
  }
  return sql;
}

// Builds `<tmp>/<file>` from `sql` (replacing any earlier copy) and returns its path.
std::string BuildDb(const std::string& file, const std::string& sql) {
  fs::path path = TestDir() / file;
  fs::remove(path);
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << (err != nullptr ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
  return path.string();
}

std::string BuildExport(const std::string& name) {
  std::string sql = ExportSql(name);
  EXPECT_FALSE(sql.empty()) << "no '-- @@export " << name << "' section";
  return BuildDb(name + ".sqlite", sql);
}

// The only trace of a single-process, single-device export (errors pass through).
Result<RankTrace> ReadSingle(const std::string& path) {
  auto r = ReadNsysSqlite(path);
  if (!r.ok()) return r.status();
  EXPECT_EQ(r->size(), 1u) << path;
  if (r->size() != 1) return Internal(path + ": " + std::to_string(r->size()) + " traces");
  return std::move(r->front());
}

const char* OpKind(GpuOpKind k) {
  switch (k) {
    case GpuOpKind::kKernel:
      return "kernel";
    case GpuOpKind::kMemcpy:
      return "memcpy";
    case GpuOpKind::kMemset:
      return "memset";
  }
  return "?";
}

const char* Copy(CopyKind k) {
  constexpr const char* kNames[] = {"-", "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "other"};
  return kNames[static_cast<int>(k)];
}

const char* Mem(MemKind k) {
  constexpr const char* kNames[] = {"?", "pageable", "pinned", "device", "managed", "array"};
  return kNames[static_cast<int>(k)];
}

const char* Runtime(RuntimeKind k) {
  constexpr const char* kNames[] = {"launch",       "graph_launch", "memcpy",
                                    "memcpy_async", "memset",       "device_sync",
                                    "stream_sync",  "event_sync",   "other"};
  return kNames[static_cast<int>(k)];
}

// One line per element, so a mismatch shows exactly which field differs.
std::vector<std::string> Ops(const RankTrace& t) {
  std::vector<std::string> out;
  for (const GpuOp& o : t.gpu_ops) {
    out.push_back(std::string(OpKind(o.kind)) + " " + std::to_string(o.start_ns) + "+" +
                  std::to_string(o.dur_ns) + " dev" + std::to_string(o.device) + " s" +
                  std::to_string(o.stream) + " c" + std::to_string(o.correlation) + " " +
                  std::to_string(o.bytes) + "B " + Copy(o.copy) + " " + Mem(o.src) + ">" +
                  Mem(o.dst) + (o.graph_launched ? " graph" : "") + " | " + t.Name(o.name));
  }
  return out;
}

std::vector<std::string> Calls(const RankTrace& t) {
  std::vector<std::string> out;
  for (const RuntimeCall& c : t.runtime) {
    out.push_back(std::to_string(c.start_ns) + "+" + std::to_string(c.dur_ns) + " t" +
                  std::to_string(c.tid) + " c" + std::to_string(c.correlation) + " " +
                  Runtime(c.kind) + " | " + t.Name(c.name));
  }
  return out;
}

std::vector<std::string> Ranges(const RankTrace& t, const std::vector<TraceRange>& ranges) {
  std::vector<std::string> out;
  for (const TraceRange& r : ranges) {
    out.push_back(std::to_string(r.start_ns) + "+" + std::to_string(r.dur_ns) + " t" +
                  std::to_string(r.tid) + " | " + t.Name(r.name));
  }
  return out;
}

bool AnyWarningHas(const RankTrace& t, const std::string& text) {
  for (const std::string& w : t.warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

constexpr char kFill[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
    "at::detail::Array<char *, 1>>(int, at::native::FillFunctor<float>, at::detail::Array<char "
    "*, 1>)";
constexpr char kNccl[] =
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm *, unsigned long, ncclWork *)";

TEST(NsysReaderTest, CurrentSchemaExactModel) {
  std::string path = BuildExport("current");
  auto r = ReadSingle(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const RankTrace& t = r.value();
  EXPECT_EQ(t.source, path);
  EXPECT_EQ(t.format, "nsys-sqlite");
  EXPECT_EQ(t.rank, 3);  // MPI_RANKS
  EXPECT_EQ(t.world_size, -1);
  EXPECT_EQ(t.device_type, "cuda");
  EXPECT_FALSE(t.truncated);
  EXPECT_EQ(t.input_bytes, fs::file_size(path));
  ASSERT_FALSE(t.names.empty());
  EXPECT_EQ(t.names[0], "");

  std::vector<std::string> ops = {
      std::string("kernel 2000+1000 dev0 s7 c101 0B - ?>? | ") + kFill,
      "kernel 5000+4000 dev0 s7 c102 0B - ?>? | ampere_sgemm_128x64_tn",
      "kernel 11000+1000 dev0 s7 c103 0B - ?>? graph | ampere_sgemm_128x64_tn",
      std::string("kernel 12100+400 dev0 s7 c103 0B - ?>? graph | ") + kFill,
      "memcpy 13500+1000 dev0 s7 c104 1048576B HtoD pinned>device | Memcpy HtoD (Pinned -> "
      "Device)",
      "memcpy 16000+8000 dev0 s7 c105 4194304B HtoD pageable>device | Memcpy HtoD (Pageable -> "
      "Device)",
      "memset 26500+300 dev0 s7 c106 65536B - ?>device | Memset (Device)",
      std::string("kernel 28000+12000 dev0 s13 c107 0B - ?>? | ") + kNccl,
      "memcpy 42200+500 dev0 s7 c110 2048B DtoH device>pinned | Memcpy DtoH (Device -> Pinned)",
  };
  EXPECT_EQ(Ops(t), ops);

  std::vector<std::string> calls = {
      "800+20 t4242 c100 other | cudaStreamIsCapturing",
      "1000+500 t4242 c101 launch | cudaLaunchKernel",
      "4000+400 t4242 c102 launch | cudaLaunchKernel",
      "10000+800 t4242 c103 graph_launch | cudaGraphLaunch",
      "13000+300 t4242 c104 memcpy_async | cudaMemcpyAsync",
      "15000+10000 t4242 c105 memcpy | cudaMemcpy",
      "26000+200 t4242 c106 memset | cudaMemsetAsync",
      "27000+400 t4242 c107 launch | cudaLaunchKernel",
      "27500+12600 t4242 c108 stream_sync | cudaStreamSynchronize",
      "41000+500 t4242 c109 device_sync | cudaDeviceSynchronize",
      "42000+100 t4242 c110 memcpy_async | cudaMemcpyAsync",
      "43000+600 t-1 c111 event_sync | Event sync",  // SYNCHRONIZATION record without a call
      "44000+1000 t4250 c113 event_sync | cudaEventSynchronize",
  };
  EXPECT_EQ(Calls(t), calls);

  EXPECT_EQ(Ranges(t, t.steps), (std::vector<std::string>{"500+41500 t4242 | ProfilerStep#0",
                                                          "42000+4000 t4242 | ProfilerStep#1"}));
  EXPECT_EQ(Ranges(t, t.annotations),
            (std::vector<std::string>{"100+300 t4250 | data_load", "900+8600 t4242 | forward",
                                      "47000+0 t4242 | clock_skewed"}));

  // 12 runtime + 2 unmatched sync + 5 kernel + 3 memcpy + 1 memset + 6 NVTX range rows.
  EXPECT_EQ(t.events_seen, 29u);
  EXPECT_TRUE(AnyWarningHas(t, "NVTX_EVENTS: 1 ranges without an end")) << t.warnings.size();
  EXPECT_TRUE(AnyWarningHas(t, "NVTX_EVENTS: 1 rows end before they start"));
  EXPECT_EQ(t.warnings.size(), 2u);
  for (const std::string& w : t.warnings) EXPECT_EQ(w.rfind(path + ": ", 0), 0u) << w;
}

TEST(NsysReaderTest, OlderSchemaTolerated) {
  std::string path = BuildExport("older");
  auto r = ReadSingle(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const RankTrace& t = r.value();
  EXPECT_EQ(t.rank, -1);
  EXPECT_EQ(t.device_type, "cuda");
  // Names from shortName; graph kernels found by the cudaGraphLaunch correlation alone; memory
  // kinds from the documented constants (no ENUM_ tables).
  std::vector<std::string> ops = {
      "kernel 400+2000 dev0 s7 c1 0B - ?>? | volta_sgemm_128x64_nn",
      "kernel 1300+500 dev0 s7 c2 0B - ?>? graph | elementwise_kernel",
      "kernel 1850+100 dev0 s7 c2 0B - ?>? graph | volta_sgemm_128x64_nn",
      "memcpy 2500+6000 dev0 s7 c3 8388608B HtoD pageable>device | Memcpy HtoD (Pageable -> "
      "Device)",
      "kernel 9400+9600 dev0 s21 c5 0B - ?>? | ncclKernel_AllReduce_RING_LL_Sum_float",
  };
  EXPECT_EQ(Ops(t), ops);
  std::vector<std::string> calls = {
      "100+200 t4242 c1 launch | cudaLaunchKernel",
      "1000+200 t4242 c2 graph_launch | cudaGraphLaunch",
      "2000+7000 t4242 c3 memcpy | cudaMemcpy",
      "9100+200 t4242 c5 launch | cudaLaunchKernel",
      "9500+10500 t4242 c4 stream_sync | cudaStreamSynchronize",
  };
  EXPECT_EQ(Calls(t), calls);
  EXPECT_EQ(Ranges(t, t.steps), (std::vector<std::string>{"50+20450 t4242 | ProfilerStep#5"}));
  EXPECT_EQ(Ranges(t, t.annotations), (std::vector<std::string>{"150+8850 t4242 | train_body"}));
  EXPECT_EQ(t.events_seen, 5u + 4u + 1u + 2u);
  ASSERT_EQ(t.warnings.size(), 1u);
  EXPECT_EQ(t.warnings[0], path +
                               ": no CUPTI_ACTIVITY_KIND_MEMSET, "
                               "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION table: those events are absent "
                               "(none were recorded or traced, or an older nsys)");
}

TEST(NsysReaderTest, NeverModifiesTheFile) {
  std::string path = BuildExport("current");
  std::string before = ReadText(path);
  auto mtime = fs::last_write_time(path);
  ASSERT_TRUE(ReadSingle(path).ok());
  EXPECT_EQ(ReadText(path), before);
  EXPECT_EQ(fs::last_write_time(path), mtime);
  EXPECT_FALSE(fs::exists(path + "-journal"));
  EXPECT_FALSE(fs::exists(path + "-wal"));
}

TEST(NsysReaderTest, InlineTextNamesAndMissingStringIds) {
  // Kernel names stored as text, runtime names as ids without a StringIds table.
  std::string path = BuildDb("inline.sqlite",
                             "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, "
                             "deviceId INT, streamId INT, correlationId INT, demangledName TEXT);"
                             "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES "
                             "(10, 20, 1, 3, 7, 'my_kernel'), (NULL, 5, 1, 3, 8, 'x');"
                             "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, "
                             "globalTid INT, correlationId INT, nameId INT);"
                             "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1, 2, 5, 7, 42);");
  auto r = ReadSingle(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Ops(r.value()),
            (std::vector<std::string>{"kernel 10+10 dev1 s3 c7 0B - ?>? | my_kernel"}));
  EXPECT_EQ(Calls(r.value()), (std::vector<std::string>{"1+1 t5 c7 other | string#42"}));
  EXPECT_TRUE(AnyWarningHas(r.value(), "CUPTI_ACTIVITY_KIND_KERNEL: 1 rows without a usable"));
  EXPECT_TRUE(AnyWarningHas(r.value(), "1 string ids not found in StringIds"));
}

TEST(NsysBadInputTest, MissingFile) {
  auto r = ReadSingle((TestDir() / "does-not-exist.sqlite").string());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("does-not-exist.sqlite"), std::string::npos);
}

TEST(NsysBadInputTest, NotSqlite) {
  fs::path p = TestDir() / "trace.json";
  WriteText(p, "{\"traceEvents\": []}");
  auto r = ReadSingle(p.string());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(r.status().message().find(p.string() + ": not an SQLite database"), std::string::npos)
      << r.status().message();
}

TEST(NsysBadInputTest, EmptyFile) {
  fs::path p = TestDir() / "empty.sqlite";
  WriteText(p, "");
  auto r = ReadSingle(p.string());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(r.status().message().find(p.string() + ": file is empty"), std::string::npos);
}

TEST(NsysBadInputTest, EmptySqlite) {
  // A valid database with no table at all (VACUUM writes the header page).
  std::string path = BuildDb("no-tables.sqlite", "VACUUM;");
  auto r = ReadSingle(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(r.status().message().find(path + ": an SQLite database without any table"),
            std::string::npos)
      << r.status().message();
}

TEST(NsysBadInputTest, NoCuptiTables) {
  std::string path = BuildDb("nvtx-only.sqlite",
                             "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
                             "CREATE TABLE NVTX_EVENTS (start INT, end INT, text TEXT);");
  auto r = ReadSingle(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(r.status().message().find(path + ": no CUPTI_ACTIVITY_KIND_* table"), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("nsys export --type sqlite"), std::string::npos);
}

TEST(NsysBadInputTest, TruncatedHeader) {
  std::string whole = ReadText(BuildExport("current"));
  fs::path p = TestDir() / "cut-header.sqlite";
  WriteText(p, whole.substr(0, 60));
  auto r = ReadSingle(p.string());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(r.status().message().find(p.string() + ": truncated SQLite file: 60 bytes"),
            std::string::npos)
      << r.status().message();
}

TEST(NsysBadInputTest, TruncatedFileNeverCrashes) {
  std::string whole = ReadText(BuildExport("current"));
  ASSERT_GT(whole.size(), 8192u);
  // Every page boundary and a few odd offsets: a clear error naming the file, or partial results
  // flagged truncated with a warning that names the file.
  for (size_t cut = 100; cut < whole.size(); cut += (cut < 4096 ? 997 : 4096)) {
    fs::path p = TestDir() / "cut.sqlite";
    WriteText(p, whole.substr(0, cut));
    auto r = ReadSingle(p.string());
    if (r.ok()) {
      EXPECT_TRUE(r->truncated) << cut;
      ASSERT_FALSE(r->warnings.empty());
      EXPECT_NE(r->warnings[0].find(p.string() + ": truncated: " + std::to_string(cut) + " bytes"),
                std::string::npos)
          << r->warnings[0];
    } else {
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput) << cut << r.status().message();
      EXPECT_NE(r.status().message().find(p.string() + ": truncated: " + std::to_string(cut) +
                                          " bytes of the " + std::to_string(whole.size())),
                std::string::npos)
          << r.status().message();
    }
  }
}

TEST(NsysBadInputTest, GarbledPagesNeverCrash) {
  std::string whole = ReadText(BuildExport("current"));
  for (size_t page = 1; page * 4096 < whole.size(); ++page) {
    std::string bad = whole;
    for (size_t i = page * 4096; i < page * 4096 + 600 && i < bad.size(); ++i) {
      bad[i] = static_cast<char>(i * 31 + 7);
    }
    fs::path p = TestDir() / "garbled.sqlite";
    WriteText(p, bad);
    auto r = ReadSingle(p.string());
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput) << r.status().message();
      EXPECT_EQ(r.status().message().rfind(p.string() + ": ", 0), 0u) << r.status().message();
    }
  }
}

TEST(NsysKindsTest, RuntimeApiNames) {
  EXPECT_EQ(StripApiVersionSuffix("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(StripApiVersionSuffix("cudaMemcpyAsync_ptsz_v7000"), "cudaMemcpyAsync_ptsz");
  EXPECT_EQ(StripApiVersionSuffix("cuLaunchKernel"), "cuLaunchKernel");
  EXPECT_EQ(StripApiVersionSuffix("odd_v"), "odd_v");
  EXPECT_EQ(StripApiVersionSuffix("my_vec"), "my_vec");

  EXPECT_EQ(ClassifyRuntimeApi("cudaLaunchKernel_v7000"), RuntimeKind::kLaunch);
  EXPECT_EQ(ClassifyRuntimeApi("cudaLaunchKernelExC_v11060"), RuntimeKind::kLaunch);
  EXPECT_EQ(ClassifyRuntimeApi("cuLaunchKernel"), RuntimeKind::kLaunch);
  EXPECT_EQ(ClassifyRuntimeApi("hipLaunchKernel"), RuntimeKind::kLaunch);
  EXPECT_EQ(ClassifyRuntimeApi("cudaLaunchHostFunc_v10000"), RuntimeKind::kOther);
  EXPECT_EQ(ClassifyRuntimeApi("cudaGraphLaunch_v10000"), RuntimeKind::kGraphLaunch);
  EXPECT_EQ(ClassifyRuntimeApi("cudaMemcpy_v3020"), RuntimeKind::kMemcpy);
  EXPECT_EQ(ClassifyRuntimeApi("cudaMemcpy2D_v3020"), RuntimeKind::kMemcpy);
  EXPECT_EQ(ClassifyRuntimeApi("cudaMemcpyAsync_ptsz_v7000"), RuntimeKind::kMemcpyAsync);
  EXPECT_EQ(ClassifyRuntimeApi("cuMemcpyHtoDAsync_v2"), RuntimeKind::kMemcpyAsync);
  EXPECT_EQ(ClassifyRuntimeApi("cudaMemsetAsync_v3020"), RuntimeKind::kMemset);
  EXPECT_EQ(ClassifyRuntimeApi("cudaDeviceSynchronize_v3020"), RuntimeKind::kDeviceSync);
  EXPECT_EQ(ClassifyRuntimeApi("cuCtxSynchronize"), RuntimeKind::kDeviceSync);
  EXPECT_EQ(ClassifyRuntimeApi("cudaStreamSynchronize_v3020"), RuntimeKind::kStreamSync);
  EXPECT_EQ(ClassifyRuntimeApi("cudaEventSynchronize_v3020"), RuntimeKind::kEventSync);
  EXPECT_EQ(ClassifyRuntimeApi("cudaStreamWaitEvent_v3020"), RuntimeKind::kOther);
  EXPECT_EQ(ClassifyRuntimeApi(""), RuntimeKind::kOther);
}

TEST(NsysKindsTest, DocumentedEnumIds) {
  EXPECT_EQ(DocumentedNsysId(NsysEnum::kMemcpyOper, "CUDA_MEMCPY_KIND_HTOD"), 1);
  EXPECT_EQ(DocumentedNsysId(NsysEnum::kMemcpyOper, "CUDA_MEMCPY_KIND_PTOP"), 10);
  EXPECT_EQ(DocumentedNsysId(NsysEnum::kMemcpyOper, "CUDA_MEMCPY_KIND_NEW"), -1);
  EXPECT_EQ(DocumentedNsysId(NsysEnum::kMemKind, "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE"), 0);
  EXPECT_EQ(DocumentedNsysId(NsysEnum::kMemKind, "CUDA_MEMOPR_MEMORY_KIND_PINNED"), 1);
  EXPECT_EQ(DocumentedNsysId(NsysEnum::kSyncType,
                             "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE"),
            4);
  EXPECT_EQ(CopyKindFromNsys(2), CopyKind::kDtoH);
  EXPECT_EQ(CopyKindFromNsys(8), CopyKind::kDtoD);
  EXPECT_EQ(CopyKindFromNsys(10), CopyKind::kPtoP);
  EXPECT_EQ(CopyKindFromNsys(99), CopyKind::kOther);
  EXPECT_EQ(CopyKindFromNsys(-1), CopyKind::kOther);
  EXPECT_EQ(MemKindFromNsys(0), MemKind::kPageable);
  EXPECT_EQ(MemKindFromNsys(1), MemKind::kPinned);
  EXPECT_EQ(MemKindFromNsys(4), MemKind::kManaged);
  EXPECT_EQ(MemKindFromNsys(7), MemKind::kUnknown);
  EXPECT_EQ(MemKindLabel(5), "Device Static");
  EXPECT_EQ(SyncTypeKind(2), RuntimeKind::kOther);  // stream wait event does not block the host
  EXPECT_EQ(SyncTypeKind(3), RuntimeKind::kStreamSync);
  EXPECT_EQ(SyncTypeLabel(4), "Context sync");
}

TEST(NsysReaderTest, RemapsRenumberedEnums) {
  // An export whose ENUM_ ids differ from the documented ones: the symbols decide.
  std::string path = BuildDb(
      "renumbered.sqlite",
      "CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER PRIMARY KEY, name TEXT, label TEXT);"
      "INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (5, 'CUDA_MEMCPY_KIND_DTOH', 'x');"
      "CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER PRIMARY KEY, name TEXT, label TEXT);"
      "INSERT INTO ENUM_CUDA_MEM_KIND VALUES (20, 'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE', 'x'),"
      " (21, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE', 'x');"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INT, end INT, deviceId INT, streamId INT,"
      " correlationId INT, bytes INT, copyKind INT, srcKind INT, dstKind INT);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (1, 3, 0, 7, 9, 64, 5, 21, 20);");
  auto r = ReadSingle(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Ops(r.value()), (std::vector<std::string>{"memcpy 1+2 dev0 s7 c9 64B DtoH "
                                                      "device>pageable | Memcpy DtoH (Device -> "
                                                      "Pageable)"}));
}

}  // namespace
}  // namespace gpuvet

namespace gpuvet {
namespace {

size_t CountKind(const RankTrace& t, RuntimeKind k) {
  return std::count_if(t.runtime.begin(), t.runtime.end(),
                       [k](const RuntimeCall& c) { return c.kind == k; });
}

bool AllOnDevice(const RankTrace& t, int device) {
  return std::all_of(t.gpu_ops.begin(), t.gpu_ops.end(),
                     [device](const GpuOp& o) { return o.device == device; });
}

TEST(NsysMultiProcessTest, OneTracePerRank) {
  // Two torchrun ranks in one export: each rank keeps its own kernels, launches (matched by
  // correlation id within its own process: both use ids 1000..1499) and NVTX ranges.
  std::string path = BuildExport("multigpu");
  auto r = ReadNsysSqlite(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  for (int rank = 0; rank < 2; ++rank) {
    const RankTrace& t = (*r)[rank];
    SCOPED_TRACE(rank);
    EXPECT_EQ(t.rank, rank);
    EXPECT_EQ(t.part, "");
    EXPECT_EQ(t.source, path);
    EXPECT_EQ(t.device_type, "cuda");
    ASSERT_EQ(t.gpu_ops.size(), 500u);
    EXPECT_TRUE(AllOnDevice(t, rank));
    EXPECT_EQ(t.gpu_ops[0].start_ns, 1000000 + 1000 * rank);
    EXPECT_EQ(t.gpu_ops[1].start_ns - t.gpu_ops[0].start_ns, 2000);  // the 1 us gap is kept
    EXPECT_EQ(CountKind(t, RuntimeKind::kLaunch), 500u);
    EXPECT_EQ(CountKind(t, RuntimeKind::kDeviceSync), 1u);
    ASSERT_EQ(t.runtime.size(), 501u);
    EXPECT_EQ(t.runtime.back().start_ns, 2001000 + 1000 * rank);  // its own process's sync
    EXPECT_EQ(Ranges(t, t.annotations),
              (std::vector<std::string>{"900000+1100000 t" + std::to_string(100 * (rank + 1)) +
                                        " | train"}));
    EXPECT_EQ(t.events_seen, 1002u);
    EXPECT_TRUE(AnyWarningHas(t, "2 processes, 2 process/device timelines in one export"));
    // The launcher's NVTX range (pid 50, no CUDA activity) is not analysed.
    EXPECT_TRUE(AnyWarningHas(t, "1 host events of processes without CUDA activity"));
  }
}

TEST(NsysMultiProcessTest, OneProcessTwoDevicesKeptApart) {
  // The same work driven by one process (pid 100) on two GPUs: one trace per device, launches
  // following their kernels, the sync and NVTX ranges shared by both devices.
  std::string sql = ExportSql("multigpu") +
                    "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET globalPid = 100 << 24, "
                    "correlationId = correlationId + 100000 WHERE deviceId = 1;"
                    "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET globalTid = (100 << 24) | 101, "
                    "correlationId = correlationId + 100000 WHERE globalTid = (200 << 24) | 200;"
                    "UPDATE NVTX_EVENTS SET globalTid = (100 << 24) | 101 "
                    "WHERE globalTid = (200 << 24) | 200;"
                    "DELETE FROM MPI_RANKS WHERE rank = 1;";
  std::string path = BuildDb("one-process.sqlite", sql);
  auto r = ReadNsysSqlite(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  for (int dev = 0; dev < 2; ++dev) {
    const RankTrace& t = (*r)[dev];
    SCOPED_TRACE(dev);
    // Not "rank 0" twice (that reads as two runs of one rank): the rank goes into the label.
    EXPECT_EQ(t.rank, -1);
    EXPECT_EQ(t.part, "rank 0, pid 100, device " + std::to_string(dev));
    ASSERT_EQ(t.gpu_ops.size(), 500u);
    EXPECT_TRUE(AllOnDevice(t, dev));
    EXPECT_EQ(CountKind(t, RuntimeKind::kLaunch), 500u);
    EXPECT_EQ(CountKind(t, RuntimeKind::kDeviceSync), 2u);  // no GPU op: both devices see both
    EXPECT_EQ(t.annotations.size(), 2u);
    EXPECT_TRUE(AnyWarningHas(t, "1 processes, 2 process/device timelines"));
  }
}

TEST(NsysMultiProcessTest, UnknownProcessesWithoutRanks) {
  // No MPI_RANKS and GPU ops of a process whose host side was not traced: subjects by pid.
  std::string sql = ExportSql("multigpu") +
                    "DROP TABLE MPI_RANKS;"
                    "DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE globalTid = (200 << 24) | 200;";
  auto r = ReadNsysSqlite(BuildDb("no-ranks.sqlite", sql));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].rank, -1);
  EXPECT_EQ((*r)[0].part, "pid 100, device 0");
  EXPECT_EQ((*r)[0].runtime.size(), 501u);
  EXPECT_EQ((*r)[1].part, "pid 200, device 1");
  EXPECT_EQ((*r)[1].runtime.size(), 0u);
  EXPECT_EQ((*r)[1].annotations.size(), 1u);
}

TEST(NsysMultiProcessTest, OpsWithoutProcessColumnStayTogether) {
  // An export without globalPid on GPU ops and one traced process: nothing to split by
  // process, but the two devices are still kept apart.
  std::string sql = ExportSql("multigpu") +
                    "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET globalPid = NULL;"
                    "DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE globalTid = (200 << 24) | 200;"
                    "DELETE FROM NVTX_EVENTS WHERE globalTid <> (100 << 24) | 100;";
  auto r = ReadNsysSqlite(BuildDb("no-pid.sqlite", sql));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].part, "rank 0, pid 100, device 0");
  EXPECT_EQ((*r)[1].part, "rank 0, pid 100, device 1");
  EXPECT_TRUE(AllOnDevice((*r)[1], 1));
  EXPECT_EQ((*r)[1].gpu_ops.size(), 500u);
}

TEST(NsysMultiProcessTest, OnlyActiveProcessTakesItsRank) {
  // MPI_RANKS lists two ranks but only rank 1's process ran CUDA work: one trace, rank 1.
  std::string sql = ExportSql("multigpu") +
                    "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE globalPid = 100 << 24;"
                    "DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE globalTid = (100 << 24) | 100;";
  auto r = ReadNsysSqlite(BuildDb("one-active.sqlite", sql));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ(r->front().rank, 1);
  EXPECT_EQ(r->front().part, "");
  EXPECT_EQ(r->front().gpu_ops.size(), 500u);
  EXPECT_FALSE(AnyWarningHas(r->front(), "rank left unknown"));
  // Its own NVTX range only: rank 0's and the launcher's are not this rank's.
  EXPECT_EQ(Ranges(r->front(), r->front().annotations),
            (std::vector<std::string>{"900000+1100000 t200 | train"}));
  EXPECT_TRUE(AnyWarningHas(r->front(), "2 host events of processes without CUDA activity"));
}

TEST(NsysMultiProcessTest, TruncatedOrGarbledNeverCrashes) {
  // Cut or damaged multi-process exports: every part flagged truncated, or a precise error.
  std::string whole = ReadText(BuildExport("multigpu"));
  ASSERT_GT(whole.size(), 8192u);
  for (size_t cut = 4096; cut < whole.size(); cut += 4096) {
    fs::path p = TestDir() / "cut-multi.sqlite";
    WriteText(p, whole.substr(0, cut));
    auto r = ReadNsysSqlite(p.string());
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput) << cut << r.status().message();
      continue;
    }
    ASSERT_FALSE(r->empty()) << cut;
    EXPECT_LE(r->size(), 2u) << cut;
    for (const RankTrace& t : *r) EXPECT_TRUE(t.truncated) << cut;
  }
  for (size_t page = 1; page * 4096 < whole.size(); ++page) {
    std::string bad = whole;
    for (size_t i = page * 4096 + 100; i < page * 4096 + 900 && i < bad.size(); ++i) {
      bad[i] = static_cast<char>(i * 13 + 5);
    }
    fs::path p = TestDir() / "garbled-multi.sqlite";
    WriteText(p, bad);
    auto r = ReadNsysSqlite(p.string());
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput) << r.status().message();
    } else {
      EXPECT_FALSE(r->empty());
    }
  }
}

TEST(NsysMultiProcessTest, ImplausiblyManyTimelinesAreNotSplit) {
  // 1100 device ids (damaged ids, not a real capture): one trace and a warning, not 1100 copies
  // of the names table.
  auto r = ReadNsysSqlite(
      BuildDb("many-devices.sqlite",
              "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, "
              "streamId INT, correlationId INT, demangledName TEXT, globalPid INT);"
              "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 1099) "
              "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 10 * i, 10 * i + 5, i, 7, i, 'k', "
              "100 << 24 FROM n;"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ(r->front().gpu_ops.size(), 1100u);
  EXPECT_TRUE(AnyWarningHas(r->front(), "1100 process/device pairs, more than 1024"));
}

TEST(NsysGraphTraceTest, WholeGraphExecutionsAreGpuWork) {
  std::string path = BuildExport("graphs");
  auto r = ReadSingle(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const RankTrace& t = r.value();
  ASSERT_EQ(t.gpu_ops.size(), 20u);
  std::vector<std::string> ops = Ops(t);
  EXPECT_EQ(ops[0], "kernel 1000000+1000000 dev0 s14 c10 0B - ?>? graph | CUDA graph 7");
  EXPECT_EQ(ops[19], "kernel 20950000+1000000 dev0 s14 c29 0B - ?>? graph | CUDA graph 7");
  EXPECT_EQ(CountKind(t, RuntimeKind::kGraphLaunch), 20u);
  EXPECT_TRUE(AnyWarningHas(t, "CUPTI_ACTIVITY_KIND_GRAPH_TRACE: 1 rows without a usable"));
}

TEST(NsysGraphTraceTest, HostStartedGraphStaysWithItsDevice) {
  // deviceId INT_MAX: the graph's first node ran on the host. Device unknown, but the process
  // drives one GPU, so it is that GPU's work, not a second timeline.
  std::string sql = ExportSql("graphs") +
                    "UPDATE CUPTI_ACTIVITY_KIND_GRAPH_TRACE SET deviceId = 2147483647 "
                    "WHERE correlationId = 10;";
  auto r = ReadNsysSqlite(BuildDb("host-graph.sqlite", sql));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  ASSERT_EQ(r->front().gpu_ops.size(), 20u);
  EXPECT_EQ(r->front().gpu_ops[0].device, 0);  // so the stream is not split in two
  EXPECT_EQ(r->front().gpu_ops[1].device, 0);
  // With a second process on another GPU, each process keeps its own.
  sql +=
      "INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE VALUES (1000000, 1500000, 3, 1, NULL, 14, "
      "10, 301 << 24, 8, 1);";
  r = ReadNsysSqlite(BuildDb("host-graph-2.sqlite", sql));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].part, "pid 300, device 0");
  EXPECT_EQ((*r)[0].gpu_ops.size(), 20u);
  EXPECT_EQ((*r)[1].part, "pid 301, device 3");
  EXPECT_EQ(Ops((*r)[1]),
            (std::vector<std::string>{"kernel 1000000+500000 dev3 s14 c10 0B - ?>? graph | "
                                      "CUDA graph 8"}));
  EXPECT_TRUE((*r)[1].runtime.empty());  // pid 300's launch with the same correlation id
}

TEST(NsysGraphTraceTest, ToleratesMissingColumns) {
  // Only start/end: device, stream, graph unknown; still busy GPU time.
  auto r = ReadSingle(BuildDb("graph-min.sqlite",
                              "CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE (start INT, end INT);"
                              "INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE VALUES (10, 50);"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Ops(r.value()),
            (std::vector<std::string>{"kernel 10+40 dev-1 s-1 c-1 0B - ?>? graph | CUDA graph"}));
}

TEST(NsysStepsTest, RealisticWindow) {
  // The steps export spans 80 ms with 20 ProfilerStep ranges (analysed to a verdict in the e2e
  // test); here: the model the analyses get.
  auto r = ReadSingle(BuildExport("steps"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const RankTrace& t = r.value();
  EXPECT_EQ(t.steps.size(), 20u);
  EXPECT_EQ(t.annotations.size(), 20u);
  EXPECT_EQ(t.gpu_ops.size(), 220u);  // 200 kernels + 20 copies
  EXPECT_EQ(t.runtime.size(), 240u);
  EXPECT_EQ(t.gpu_ops.back().start_ns + t.gpu_ops.back().dur_ns, 80980000);
  EXPECT_EQ(t.Name(t.steps[19].name), "ProfilerStep#19");
}

}  // namespace
}  // namespace gpuvet
