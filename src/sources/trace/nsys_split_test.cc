// One Nsight export, several timelines: multi-process (torchrun) and multi-GPU exports split per
// process and device (nsys_split.h), CUDA-graph executions from GRAPH_TRACE, and the realistic
// 20-step export, all built at test time from tests/data/nsys/make_synthetic.sql.
#include "sources/trace/nsys_split.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sources/trace/nsys_reader.h"
#include "sources/trace/trace_input.h"
#include "testing/nsys_export_for_test.h"

namespace gpuvet {
namespace {

using namespace nsys_test;  // NOLINT: test helpers

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

TEST(NsysMultiProcessTest, TraceInputPassesEveryPart) {
  // `gpuvet trace FILE` and `gpuvet trace DIR` both hand every part to the analyses.
  std::string multi = BuildExport("multigpu");
  auto one = ReadTraceInput(multi);
  ASSERT_TRUE(one.ok()) << one.status().message();
  ASSERT_EQ(one->ranks.size(), 2u);
  EXPECT_EQ(one->ranks[0].rank, 0);
  EXPECT_EQ(one->ranks[1].rank, 1);
  fs::path dir = TestDir() / "ranks";
  fs::create_directories(dir);
  fs::copy_file(multi, dir / "node0.sqlite", fs::copy_options::overwrite_existing);
  fs::copy_file(BuildExport("steps"), dir / "other.sqlite", fs::copy_options::overwrite_existing);
  auto all = ReadTraceInput(dir.string());
  ASSERT_TRUE(all.ok()) << all.status().message();
  ASSERT_EQ(all->ranks.size(), 3u);
  EXPECT_EQ(all->ranks[0].rank, -1);  // the steps export names no rank
  EXPECT_EQ(all->ranks[0].source, (dir / "other.sqlite").string());
  EXPECT_EQ(all->ranks[1].rank, 0);
  EXPECT_EQ(all->ranks[2].rank, 1);
  EXPECT_EQ(all->ranks[2].source, (dir / "node0.sqlite").string());
  EXPECT_TRUE(all->problems.empty());
}

}  // namespace
}  // namespace gpuvet
