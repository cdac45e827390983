// Nsight Systems SQLite reader: exact model contents for a current and an older export schema
// (both built at test time from tests/data/nsys/make_synthetic.sql), the enum and API-name
// tables, and precise errors for files that are not usable exports.
#include "sources/trace/nsys_reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "sources/trace/nsys_kinds.h"
#include "testing/nsys_export_for_test.h"

namespace gpuvet {
namespace {

using namespace nsys_test;  // NOLINT: test helpers

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

// nsys says in DIAGNOSTIC_EVENT when CUPTI collected no CUDA events: kept as the capture note.
TEST(NsysReaderTest, DiagnosticNoCudaEventsIsKept) {
  auto r = ReadSingle(BuildExport("nocuda"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r.value().gpu_ops.empty());
  EXPECT_EQ(r.value().runtime.size(), 3u);
  EXPECT_EQ(r.value().gpu_capture_note, "No CUDA events collected. Does the process use CUDA?");
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
