// Benchmark of the kernel log path `gpuvet check` runs on every node: parsing plus Xid and the
// other signal extraction, over a synthetic 200,000-line dmesg (a few percent signal lines, the
// rest ordinary boot and network chatter) and over the real 2,381-line boot log in ../shared when
// present. Prints lines per second; asserts nothing.
//   build/bench/bench/kernel_log_bench
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <string>

#include "sources/kmsg/kernel_log.h"
#include "sources/kmsg/kernel_log_signals.h"

namespace {

std::string SyntheticLog(int lines) {
  static const char* kChatter[] = {
      "IPv6: ADDRCONF(NETDEV_CHANGE): cali16b7bb8d9d5: link becomes ready",
      "nvme nvme1: Shutdown timeout set to 11 seconds",
      "EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Opts: errors=remount-ro",
      "pcieport 0000:d9:00.0: pciehp: Slot #162 AttnBtn- PwrCtrl- MRL- AttnInd- HotPlug+",
      "perf: interrupt took too long (2509 > 2500), lowering kernel.perf_event_max_sample_rate",
  };
  static const char* kSignals[] = {
      "nfs: server fs01 not responding, still trying",
      "nfs: server fs01 OK",
      "INFO: task python3:4242 blocked for more than 122 seconds.",
      "blk_update_request: I/O error, dev sdb, sector 2048 op 0x1:(WRITE) flags 0x800",
      "python3[4242]: segfault at 8 ip 0 sp 0 error 4 in libnccl.so.2.18.3[7f00+1000]",
      "nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping",
      "pcieport 0000:17:01.0: AER: Corrected error received: 0000:18:00.0",
      "NVRM: Xid (PCI:0000:38:00): 13, pid=4242, name=python3, Graphics Exception",
  };
  std::ostringstream out;
  for (int i = 0; i < lines; ++i) {
    const char* text = i % 25 == 0 ? kSignals[(i / 25) % 8] : kChatter[i % 5];
    out << "[" << 1000 + i / 100 << "." << (i % 100) * 10000 << "] " << text << "\n";
  }
  return out.str();
}

void BM_ParseAndExtract(benchmark::State& state) {
  const std::string text = SyntheticLog(static_cast<int>(state.range(0)));
  size_t events = 0;
  for (auto _ : state) {
    auto records = gpuvet::ParseKernelLog(text);
    auto xids = gpuvet::ExtractXidEvents(records);
    auto signals = gpuvet::ExtractKernelEvents(records);
    auto outages = gpuvet::ExtractNfsOutages(records);
    events = xids.size() + signals.size() + outages.size();
    benchmark::DoNotOptimize(events);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
  state.counters["grouped_events"] = static_cast<double>(events);
}
BENCHMARK(BM_ParseAndExtract)->Arg(200000)->Unit(benchmark::kMillisecond);

void BM_SignalsOnly(benchmark::State& state) {
  const auto records = gpuvet::ParseKernelLog(SyntheticLog(static_cast<int>(state.range(0))));
  for (auto _ : state) benchmark::DoNotOptimize(gpuvet::ClassifyKernelLog(records));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_SignalsOnly)->Arg(200000)->Unit(benchmark::kMillisecond);

void BM_RealBootLog(benchmark::State& state) {
  const std::string path = std::string(GPUVET_SHARED_DATA_DIR) + "/kmsg/dmesg.decode.iso.log.1";
  if (!std::ifstream(path)) {
    state.SkipWithError(("shared data absent: " + path).c_str());
    return;
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(gpuvet::ReadKernelLog(gpuvet::HostPaths(), path));
  }
  state.SetItemsProcessed(state.iterations() * 2381);
}
BENCHMARK(BM_RealBootLog)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
