// gpuvet's temporal and idle-time breakdowns against HTA's own answers on the shared traces
// (../shared/data/traces/hta_reference, produced by HTA f4d0062; see its README). Every case with
// both CSVs must agree within 0.5 percentage points, or be listed in kDeviations with the reason
// HTA is wrong there and the value HTA's definition gives once the error is removed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "analysis/trace/analyze.h"
#include "sources/trace/kineto_reader.h"
#include "util/strings.h"

namespace gpuvet {
namespace {

namespace fs = std::filesystem;

const fs::path kTraces = fs::path(GPUVET_SHARED_DATA_DIR) / "traces";
constexpr double kTolerancePp = 0.5;

// Where each case's input lives (hta_reference/README.md: resnet50_* under kineto_tb_plugin/,
// the rest under hta/).
fs::path InputDir(const std::string& name) {
  const std::string suffix = "_worker0";
  if (StartsWith(name, "resnet50_") && EndsWith(name, suffix)) {
    return kTraces / "kineto_tb_plugin" / name.substr(0, name.size() - suffix.size());
  }
  return kTraces / "hta" / name;
}

// Cases where HTA's temporal breakdown is wrong, with the percentages HTA's own definition gives
// on the same trace without the error (computed by re-running HTA's algorithm on the raw JSON
// with the one faulty input removed; the same script reproduces HTA's published numbers exactly
// when the faulty input is kept).
struct Deviation {
  const char* name;
  int rank;
  double idle_pct, compute_pct, non_compute_pct;
  const char* reason;
};
constexpr Deviation kDeviations[] = {
    {"cuda_event_sync_a100", 0, 80.61, 18.63, 0.76,
     "HTA counts Kineto's `cuda_sync` records (here a 5 µs 'Stream Sync' on stream 7) as GPU "
     "busy, non-compute time. They mark the host waiting in cudaStreamSynchronize, not GPU work; "
     "gpuvet's trace model has no such op, so that time is idle (HTA: 78.71 % idle, 2.66 % "
     "non-compute)."},
    {"nccl_a100", 0, 77.23, 17.66, 5.11,
     "This trace has fractional-microsecond timestamps, which HTA f4d0062 handles as integer "
     "microseconds (its CSVs are whole µs). HTA's algorithm on exact timestamps gives 77.23 % "
     "idle, as gpuvet (nanoseconds) does; truncating ts/dur to whole µs gives 77.50 %; HTA "
     "reports 77.78 % idle, 17.26 % compute. The last 0.28 pp is rounding inside HTA's "
     "pandas pipeline that was not pinned down further."},
};

const Deviation* FindDeviation(const std::string& name, int rank) {
  for (const Deviation& d : kDeviations) {
    if (name == d.name && rank == d.rank) return &d;
  }
  return nullptr;
}

std::vector<std::vector<std::string>> ReadCsv(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    if (Trim(line).empty()) continue;
    std::vector<std::string> row;
    for (std::string_view f : Split(line, ',')) row.emplace_back(Trim(f));
    rows.push_back(row);
  }
  return rows;
}

double Num(const std::string& s) { return ParseDouble(s).value_or(0); }

// The rank's analysis: matched by rank number, or the only trace of a single-file case.
const RankAnalysis* ForRank(const TraceReport& r, int rank) {
  for (const RankAnalysis& a : r.ranks) {
    if (a.rank == rank) return &a;
  }
  return r.ranks.size() == 1 ? &r.ranks[0] : nullptr;
}

TEST(HtaAgreementTest, TemporalAndIdleBreakdownsMatchHta) {
  fs::path ref = kTraces / "hta_reference";
  if (!fs::exists(ref)) GTEST_SKIP() << "shared data absent: " << ref;
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(ref)) {
    std::string name = entry.path().filename().string();
    fs::path temporal_csv = entry.path() / "temporal_breakdown.csv";
    fs::path idle_csv = entry.path() / "idle_time_breakdown.csv";
    if (!fs::exists(temporal_csv) || !fs::exists(idle_csv)) continue;
    SCOPED_TRACE(name);
    std::vector<RankTrace> ranks;
    std::vector<fs::path> files;
    for (const auto& f : fs::directory_iterator(InputDir(name))) files.push_back(f.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      Result<RankTrace> t = ReadKinetoTrace(f.string());
      ASSERT_TRUE(t.ok()) << t.status().message();
      ranks.push_back(std::move(t).value());
    }
    TraceReport report = AnalyzeTraces(std::move(ranks), TraceOptions{});
    ++cases;

    // rank,idle_time(us),compute_time(us),non_compute_time(us),kernel_time(us),idle_pctg,...
    for (const auto& row : ReadCsv(temporal_csv)) {
      ASSERT_EQ(row.size(), 8u);
      int rank = static_cast<int>(Num(row[0]));
      SCOPED_TRACE("rank " + row[0]);
      const RankAnalysis* a = ForRank(report, rank);
      ASSERT_NE(a, nullptr);
      double idle = Num(row[5]), compute = Num(row[6]), non_compute = Num(row[7]);
      if (const Deviation* d = FindDeviation(name, rank)) {
        SCOPED_TRACE(d->reason);
        // HTA really differs here (else the note is stale), and gpuvet matches the fixed value.
        EXPECT_GT(std::abs(a->temporal.idle_pct - idle), kTolerancePp);
        idle = d->idle_pct, compute = d->compute_pct, non_compute = d->non_compute_pct;
      }
      EXPECT_NEAR(a->temporal.idle_pct, idle, kTolerancePp);
      EXPECT_NEAR(a->temporal.compute_pct, compute, kTolerancePp);
      EXPECT_NEAR(a->temporal.non_compute_pct, non_compute, kTolerancePp);
    }

    // rank,stream,idle_category,idle_time,idle_time_ratio: compare each category's share of the
    // stream's idle, from HTA's idle_time column (µs) rather than its 2-decimal ratio.
    std::map<std::pair<int, int>, std::map<std::string, double>> hta;
    for (const auto& row : ReadCsv(idle_csv)) {
      ASSERT_EQ(row.size(), 5u);
      hta[{static_cast<int>(Num(row[0])), static_cast<int>(Num(row[1]))}][row[2]] += Num(row[3]);
    }
    for (const auto& [key, cats] : hta) {
      SCOPED_TRACE("rank " + std::to_string(key.first) + " stream " + std::to_string(key.second));
      const RankAnalysis* a = ForRank(report, key.first);
      ASSERT_NE(a, nullptr);
      StreamIdle mine;
      bool found = false;
      for (const StreamIdle& s : a->idle) {
        if (s.stream != key.second) continue;
        found = true;
        mine.host_wait_ns += s.host_wait_ns;
        mine.kernel_wait_ns += s.kernel_wait_ns;
        mine.other_ns += s.other_ns;
      }
      ASSERT_TRUE(found);
      double total = 0;
      for (const auto& [c, v] : cats) total += v;
      auto share = [](double part, double whole) { return whole > 0 ? 100 * part / whole : 0.0; };
      double mine_total = static_cast<double>(mine.idle_ns());
      // Through a reference: clang 14 cannot capture a structured binding in a lambda.
      const auto& by_cat = cats;
      auto get = [&by_cat](const char* c) { return by_cat.count(c) ? by_cat.at(c) : 0.0; };
      EXPECT_NEAR(share(static_cast<double>(mine.host_wait_ns), mine_total),
                  share(get("host_wait"), total), kTolerancePp);
      EXPECT_NEAR(share(static_cast<double>(mine.kernel_wait_ns), mine_total),
                  share(get("kernel_wait"), total), kTolerancePp);
      EXPECT_NEAR(share(static_cast<double>(mine.other_ns), mine_total), share(get("other"), total),
                  kTolerancePp);
    }
  }
  EXPECT_GE(cases, 10) << "expected the shared HTA reference cases";
}

// Streams where gpuvet's queue length differs from HTA's, and why.
struct QueueDeviation {
  const char* name;
  int rank, stream;
  const char* reason;
};
// (sampled_2rank's streams 7 and 84 were listed here as "HTA counts only calls named exactly
// cudaLaunchKernel…"; the real difference was the window: HTA counts the ops of its analysis
// window, without the last ProfilerStep, and so does gpuvet now, with the same maxima.)
constexpr QueueDeviation kQueueDeviations[] = {
    {"cuda_event_sync_multi_stream_a100", 0, 28,
     "a launch and the op start share one timestamp: HTA's pandas sort counts the launch first "
     "(queue 2), gpuvet the start (an op that starts as its successor is launched is not "
     "waiting)"},
};

// HTA get_queue_length_summary: per stream, the maximum and mean of the queue length time series
// (+1 at the launch call, -1 when the op starts). Same maximum on every stream, mean within 10 %,
// except the deviations above (whose maximum must then really differ).
TEST(HtaAgreementTest, QueueLengthMatchesHta) {
  fs::path ref = kTraces / "hta_reference";
  if (!fs::exists(ref)) GTEST_SKIP() << "shared data absent: " << ref;
  int streams = 0;
  for (const auto& entry : fs::directory_iterator(ref)) {
    std::string name = entry.path().filename().string();
    fs::path csv = entry.path() / "queue_length_summary.csv";
    if (!fs::exists(csv) || !fs::exists(InputDir(name))) continue;
    SCOPED_TRACE(name);
    std::vector<RankTrace> ranks;
    std::vector<fs::path> files;
    if (fs::is_directory(InputDir(name))) {
      for (const auto& f : fs::directory_iterator(InputDir(name))) files.push_back(f.path());
    } else {
      files.push_back(InputDir(name));
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      Result<RankTrace> t = ReadKinetoTrace(f.string());
      ASSERT_TRUE(t.ok()) << t.status().message();
      ranks.push_back(std::move(t).value());
    }
    TraceReport report = AnalyzeTraces(std::move(ranks), TraceOptions{});
    // rank,stream,count,mean,std,min,25%,50%,75%,max (after a second header row)
    for (const auto& row : ReadCsv(csv)) {
      if (row.size() != 10 || row[0].empty()) continue;
      int rank = static_cast<int>(Num(row[0])), stream = static_cast<int>(Num(row[1]));
      SCOPED_TRACE("rank " + row[0] + " stream " + row[1]);
      const RankAnalysis* a = ForRank(report, rank);
      ASSERT_NE(a, nullptr);
      const StreamQueue* q = nullptr;
      for (const StreamQueue& x : a->launch.queues) {
        if (x.stream == stream) q = &x;
      }
      ASSERT_NE(q, nullptr);
      ++streams;
      const double hta_max = Num(row[9]), hta_mean = Num(row[3]);
      bool deviates = false;
      for (const QueueDeviation& d : kQueueDeviations) {
        deviates |= name == d.name && rank == d.rank && stream == d.stream;
      }
      if (deviates) {
        EXPECT_NE(q->max_queue, static_cast<int>(hta_max)) << "deviation note is stale";
        continue;
      }
      EXPECT_EQ(q->max_queue, static_cast<int>(hta_max));
      EXPECT_NEAR(q->mean_queue, hta_mean, 0.1 * hta_mean + 0.01);
    }
  }
  EXPECT_GE(streams, 20) << "expected the shared HTA reference cases";
}

}  // namespace
}  // namespace gpuvet
