// gpuvet's kernel breakdown against HTA's get_gpu_kernel_breakdown on the shared traces
// (../shared/data/traces/hta_reference, HTA f4d0062, include_memory_kernels=True, num_kernels=10):
// the kernel-type table (exclusive union time per combination, with "overlapping" rows) and the
// top kernels per type (names kept and their summed time, plus the "others" row).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "analysis/trace/analyze.h"
#include "sources/trace/kineto_reader.h"
#include "util/strings.h"

namespace gpuvet {
namespace {

namespace fs = std::filesystem;

const fs::path kTraces = fs::path(GPUVET_SHARED_DATA_DIR) / "traces";

// Cases where HTA's numbers are off, and why; `names` when the per-name sums are affected too.
struct Deviation {
  const char* name;
  bool names;
  const char* reason;
};
constexpr Deviation kDeviations[] = {
    {"cuda_event_sync_a100", false,
     "HTA counts Kineto's `cuda_sync` host records as GPU kernels (name-typed COMPUTATION); "
     "they are the host waiting, not GPU work (hta_agreement_test.cc, same cause)"},
    {"triton_a100", true,
     "HTA counts the `cpu_op` triton_poi_fused_add_cos_sin_0 (96 µs on the host, it carries "
     "args.stream) as a GPU kernel beside the real 1.8 µs kernel of that name"},
    {"nccl_a100", false,
     "fractional-µs timestamps that HTA f4d0062 truncates to whole µs (hta_agreement_test.cc): "
     "with hundreds of 1-3 µs memcpy/memset ops that moves the small rows by ~0.6 points"},
    {"amd_mi250", false,
     "131 µs of GPU time in 16 ops of 1-21 µs: HTA's whole-µs rounding of every event moves the "
     "shares by about a point"},
};

const Deviation* FindDeviation(const std::string& name) {
  for (const Deviation& d : kDeviations) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

fs::path InputDir(const std::string& name) {
  const std::string suffix = "_worker0";
  if (StartsWith(name, "resnet50_") && EndsWith(name, suffix)) {
    return kTraces / "kineto_tb_plugin" / name.substr(0, name.size() - suffix.size());
  }
  return kTraces / "hta" / name;
}

// One CSV record with RFC 4180 quoting (kernel names hold commas and quotes).
std::vector<std::string> SplitCsv(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

std::vector<std::vector<std::string>> ReadCsv(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    if (!Trim(line).empty()) rows.push_back(SplitCsv(line));
  }
  return rows;
}

double Num(const std::string& s) { return ParseDouble(Trim(s)).value_or(0); }

std::optional<TraceReport> AnalyzeCase(const std::string& name) {
  fs::path dir = InputDir(name);
  if (!fs::is_directory(dir)) return std::nullopt;
  std::vector<fs::path> files;
  for (const auto& f : fs::directory_iterator(dir)) files.push_back(f.path());
  std::sort(files.begin(), files.end());
  std::vector<RankTrace> ranks;
  for (const fs::path& f : files) {
    Result<RankTrace> t = ReadKinetoTrace(f.string());
    if (!t.ok()) return std::nullopt;  // HTA failed on these too (the 2020 bare list parses)
    ranks.push_back(std::move(t).value());
  }
  return AnalyzeTraces(std::move(ranks), TraceOptions{});
}

const RankAnalysis* ForRank(const TraceReport& r, int rank) {
  for (const RankAnalysis& a : r.ranks) {
    if (a.rank == rank) return &a;
  }
  return r.ranks.size() == 1 ? &r.ranks[0] : nullptr;
}

TEST(HtaKernelBreakdownTest, KernelTypesAndTopKernelsMatchHta) {
  fs::path ref = kTraces / "hta_reference";
  if (!fs::exists(ref)) GTEST_SKIP() << "shared data absent: " << ref;
  int cases = 0, names = 0;
  for (const auto& entry : fs::directory_iterator(ref)) {
    std::string name = entry.path().filename().string();
    fs::path types_csv = entry.path() / "kernel_type_breakdown.csv";
    fs::path kernels_csv = entry.path() / "kernel_breakdown.csv";
    if (!fs::exists(types_csv) || !fs::exists(kernels_csv)) continue;
    SCOPED_TRACE(name);
    std::optional<TraceReport> report = AnalyzeCase(name);
    if (!report) continue;
    ++cases;

    // kernel_type,sum,percentage: summed over ranks.
    const Deviation* dev = FindDeviation(name);
    SCOPED_TRACE(dev ? dev->reason : "no known deviation");
    std::map<std::string, double> mine;
    double mine_total = 0;
    for (const RankAnalysis& a : report->ranks) {
      for (const KernelTypeTime& t : a.kernels.types) {
        mine[ToLower(t.type)] += static_cast<double>(t.time_ns);
        mine_total += static_cast<double>(t.time_ns);
      }
    }
    for (const auto& row : ReadCsv(types_csv)) {
      ASSERT_EQ(row.size(), 3u);
      std::string type = ToLower(Trim(row[0]));
      SCOPED_TRACE(type);
      double hta_pct = Num(row[2]);
      double pct = mine_total > 0 ? 100 * mine[type] / mine_total : 0;
      if (dev) continue;
      // HTA rounds its percentages to 0.1.
      EXPECT_NEAR(pct, hta_pct, 0.5);
    }

    // name,sum (us),max (us),min (us),stddev,mean (us),kernel_type,rank
    std::map<std::pair<int, std::string>, std::map<std::string, double>> hta;
    for (const auto& row : ReadCsv(kernels_csv)) {
      ASSERT_EQ(row.size(), 8u);
      int rank = row[7].empty() ? 0 : static_cast<int>(Num(row[7]));
      hta[{rank, ToLower(Trim(row[6]))}][row[0]] = Num(row[1]);
    }
    for (const auto& [key, rows] : hta) {
      SCOPED_TRACE("rank " + std::to_string(key.first) + " " + key.second);
      const RankAnalysis* a = ForRank(*report, key.first);
      ASSERT_NE(a, nullptr);
      std::map<std::string, double> listed;
      std::map<std::string, uint64_t> launches;
      for (const KernelStat& k : a->kernels.top) {
        if (k.type != key.second) continue;
        listed[k.name] = static_cast<double>(k.total_ns) / 1000;
        launches[k.name] = k.count;
      }
      std::set<std::string> hta_names, my_names;
      for (const auto& [n, v] : rows) hta_names.insert(n);
      for (const auto& [n, v] : listed) my_names.insert(n);
      EXPECT_EQ(my_names, hta_names);
      for (const auto& [n, hta_us] : rows) {
        if (!listed.count(n) || (dev && dev->names)) continue;
        ++names;
        // HTA sums durations rounded to whole µs: allow 1 % and 2 µs per launch.
        EXPECT_NEAR(listed[n], hta_us, 0.01 * hta_us + 2.0 * static_cast<double>(launches[n])) << n;
      }
    }
  }
  EXPECT_GE(cases, 9) << "expected the shared HTA reference cases";
  EXPECT_GE(names, 100);
}

}  // namespace
}  // namespace gpuvet
