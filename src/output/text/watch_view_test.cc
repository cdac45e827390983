// The watch frame and line: every row present, absent values as '-', throttle names, the
// verdict spot, the busiest processes first, width cut.
#include "output/text/watch_view.h"

#include <gtest/gtest.h>

#include "core/gpu_state.h"

namespace gpuvet {
namespace {

RecordingMeta Meta() {
  RecordingMeta m;
  m.host = "node-7";
  m.interval_s = 1;
  RecordedGpu g;
  g.index = 0;
  g.memory_total_bytes = 80ull << 30;
  g.power_limit_w = 700;
  m.gpus = {g};
  return m;
}

Sample Busy() {
  Sample s;
  s.t = 12;
  GpuSample g;
  g.gpu = 0;
  g.util_pct = 98;
  g.sm_active_pct = 71;
  g.mem_util_pct = 45;
  g.memory_used_bytes = 40ull << 30;
  g.power_w = 650;
  g.temperature_c = 71;
  g.sm_clock_mhz = 1980;
  g.mem_clock_mhz = 2619;
  g.clock_event_reasons = clock_reason::kSwPowerCap | clock_reason::kHwThermalSlowdown;
  g.pcie_rx_bytes_per_s = 1.2e9;
  g.pcie_tx_bytes_per_s = 3e8;
  s.gpus.push_back(g);
  GpuSample quiet;  // a GPU that answered nothing
  quiet.gpu = 1;
  s.gpus.push_back(quiet);
  s.host.cpu_user_pct = 40;
  s.host.cpu_iowait_pct = 2;
  s.host.core_busy_pct = {100, 95, 10, 0};
  s.host.psi_io_some_pct = 1;
  s.host.disks = {{"nvme0n1", 5e8, 1e7, 30}};
  ProcessSample loader;
  loader.pid = 20;
  loader.comm = "pt_data_worker";
  loader.cpu_pct = 99;
  loader.top_threads = {{21, "pt_data_worker", 99}};
  ProcessSample main;
  main.pid = 10;
  main.comm = "python3";
  main.cpu_pct = 180;
  main.rss_bytes = 8ull << 30;
  main.top_threads = {{10, "python3", 99}, {11, "pin_memory", 60}};
  s.processes = {loader, main};
  return s;
}

TEST(WatchViewTest, FrameHasEveryRowAndTheVerdictSpot) {
  WatchViewOptions o;
  o.width = 160;
  o.clock = "2026-11-30 08:50:01 UTC";
  std::string f = RenderWatchFrame(Meta(), Busy(), o);
  EXPECT_NE(f.find("node-7"), std::string::npos);
  EXPECT_NE(f.find("2026-11-30 08:50:01 UTC"), std::string::npos);
  EXPECT_NE(f.find("98%"), std::string::npos);
  EXPECT_NE(f.find("71%"), std::string::npos);  // SM activity
  EXPECT_NE(f.find("40.0/80.0 GiB"), std::string::npos);
  EXPECT_NE(f.find("650/700 W"), std::string::npos);
  EXPECT_NE(f.find("sw-power,hw-thermal"), std::string::npos);
  EXPECT_NE(f.find("1.2 GB/s / 300 MB/s"), std::string::npos);
  EXPECT_NE(f.find("2 cores >= 90%"), std::string::npos);
  EXPECT_NE(f.find("nvme0n1 r 500 MB/s"), std::string::npos);
  EXPECT_NE(f.find("verdict: (gathering samples)"), std::string::npos);  // no verdict yet
  // The busiest process first, with its busiest threads.
  size_t python = f.find("python3"), loader = f.find("pt_data_worker");
  ASSERT_NE(python, std::string::npos);
  EXPECT_LT(python, loader);
  EXPECT_NE(f.find("python3 99%, pin_memory 60%"), std::string::npos);
  o.verdict = "host_cpu_bound 80% — add loader workers";
  EXPECT_NE(RenderWatchFrame(Meta(), Busy(), o).find("verdict: host_cpu_bound"), std::string::npos);
}

TEST(WatchViewTest, AbsentValuesShowAsDashAndRowsAreCut) {
  WatchViewOptions o;
  o.width = 40;
  std::string f = RenderWatchFrame(Meta(), Busy(), o);
  size_t pos = 0;
  while (pos < f.size()) {
    size_t end = f.find('\n', pos);
    EXPECT_LE(end - pos, 40u) << f.substr(pos, end - pos);
    pos = end + 1;
  }
  Sample none;
  none.gpus.resize(1);
  std::string line = RenderWatchLine(none);
  EXPECT_EQ(line,
            "t=0.0s gpu0 util=- sm=- mem=- pwr=- temp=- clk=- | cpu usr=- sys=- iowait=- "
            "psi_io=-\n");
}

TEST(WatchViewTest, LineNamesTheBusiestProcess) {
  std::string line = RenderWatchLine(Busy());
  EXPECT_NE(line.find("t=12.0s gpu0 util=98% sm=71% mem=45% pwr=650W temp=71C clk=1980MHz"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("| top 10 python3 180%"), std::string::npos) << line;
  EXPECT_EQ(line.back(), '\n');
}

TEST(WatchViewTest, LinkHealthHistoryAndProcessesPerGpu) {
  WatchViewOptions o;
  o.width = 200;
  o.links[0] = {"Gen4 x8", true};
  o.util_history[0] = {0, 50, 100, -1, 100};
  Sample s = Busy();
  s.gpus[0].processes = {{10, 12ull << 30, 70.0}, {999, std::nullopt, std::nullopt}};
  std::string f = RenderWatchFrame(Meta(), s, o);
  EXPECT_NE(f.find("Gen4 x8!"), std::string::npos) << f;   // degraded link is marked
  EXPECT_NE(f.find("HW-SLOW"), std::string::npos) << f;    // hw-thermal in the throttle bits
  EXPECT_NE(f.find("no answer"), std::string::npos) << f;  // GPU 1 answered nothing
  EXPECT_NE(f.find("gpu0 util \u2581\u2585\u2588 \u2588"), std::string::npos) << f;
  EXPECT_NE(f.find("gpu0 procs 10 python3 12.0 GiB sm 70%, 999 ?"), std::string::npos) << f;
  EXPECT_EQ(f.find("\x1b["), std::string::npos);  // no colour unless asked
}

TEST(WatchViewTest, ColourPaintsWholeRowsAndCutCountsCharacters) {
  WatchViewOptions o;
  o.color = true;
  o.width = 30;
  o.verdict_severity = Severity::kOk;
  for (int i = 0; i < 40; ++i) o.verdict += "\u00e9";  // two bytes each
  o.util_history[0] = std::vector<double>(100, 90);
  std::string f = RenderWatchFrame(Meta(), Busy(), o);
  EXPECT_NE(f.find("\x1b[31m0 "), std::string::npos) << f;  // GPU 0: HW-SLOW is red
  auto columns = [](const std::string& line) {
    size_t cols = 0;
    for (unsigned char c : line) cols += (c & 0xC0) != 0x80;
    return cols;
  };
  size_t v = f.find("\x1b[32mverdict: ");
  ASSERT_NE(v, std::string::npos) << f;
  std::string verdict = f.substr(v + 5, f.find("\x1b[0m", v) - v - 5);
  EXPECT_EQ(columns(verdict), 30u) << verdict;  // cut at 30 characters, not 30 bytes
  size_t spark = f.find("gpu0 util ");
  ASSERT_NE(spark, std::string::npos);
  std::string line = f.substr(spark - 2, f.find('\n', spark) - spark + 2);
  EXPECT_LE(columns(line), 30u) << line;  // the most recent points that fit
  EXPECT_NE(line.find("\u2587"), std::string::npos) << line;
}

TEST(WatchViewTest, HealthAndSparkline) {
  GpuSample g;
  EXPECT_EQ(GpuHealth(g), "no answer");
  g.util_pct = 10;
  EXPECT_EQ(GpuHealth(g), "ok");
  g.clock_event_reasons = clock_reason::kSwThermalSlowdown;
  EXPECT_EQ(GpuHealth(g), "thermal");
  g.ecc_uncorrected_volatile = 3;
  EXPECT_EQ(GpuHealth(g), "ECC-UE 3");
  EXPECT_EQ(Sparkline({}), "");
  EXPECT_EQ(Sparkline({0, 100, 250, -5}), "\u2581\u2588\u2588 ");
}

TEST(WatchViewTest, ClockReasonNames) {
  EXPECT_EQ(ClockReasonNames(0), "none");
  EXPECT_EQ(ClockReasonNames(clock_reason::kGpuIdle), "idle");
  EXPECT_EQ(ClockReasonNames(clock_reason::kGpuIdle | clock_reason::kSwThermalSlowdown),
            "sw-thermal");
}

}  // namespace
}  // namespace gpuvet
