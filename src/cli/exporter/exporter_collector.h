// The exporter's collector: reads NVML, the host and the kernel log on its own thread at a fixed
// interval, runs the rules, and keeps the rendered exposition in memory, so scrapes never touch
// NVML. A hung NVML call leaves the last good GPU values in place and marks them stale.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "cli/exporter/exporter_gzip.h"
#include "core/gpu_state.h"
#include "core/host_state.h"
#include "core/policy.h"
#include "core/xid_counter.h"
#include "sources/nvml/nvml_source.h"

namespace gpuvet {

struct CollectorOptions {
  std::string root;        // --root ("" = live system)
  std::string kernel_log;  // --kernel-log FILE ("" = /dev/kmsg)
  NvmlOptions nvml;        // library path and per-call deadline
  Policy policy;           // thresholds and skips for gpuvet_check_status
  std::chrono::milliseconds interval{15000};
  std::string gpuvet_version;
};

// /readyz answer: healthy means the last collection succeeded and is recent.
struct ExporterHealth {
  bool healthy = false;
  std::string reason;  // one line, for operators
};

// One NVML session is kept across collections (init, handles and static identity once; see
// NvmlSession); it starts over after a hang or a failed enumeration.
// Thread-safe: RenderScrape and Health may be called from any number of threads while the
// collection thread runs; CollectOnce serialises with itself.
class Collector {
 public:
  explicit Collector(CollectorOptions options);
  // Stops and joins the collection thread.
  ~Collector();
  Collector(const Collector&) = delete;
  Collector& operator=(const Collector&) = delete;

  // Runs one collection on the calling thread and replaces the cached exposition. Bounded: each
  // NVML call has its deadline, after a hang later calls are skipped, and after repeated hangs
  // NVML is retried with a growing back-off (each hung call strands one thread inside NVML).
  void CollectOnce();

  // Starts the collection thread: a collection every interval, the first one at once (so the
  // caller can serve while it runs: a file read or NVML call that blocks never delays serving).
  void Start();
  // Stops the thread (waits for a collection in progress). Idempotent.
  void Stop();
  // Asks the thread to stop and waits up to `wait` for it. True when it stopped (and was
  // joined); false when a collection is still running (blocked in a file read or NVML): the
  // thread is then left running, and the caller must end the process without destroying this
  // object (the exporter's SIGTERM path: std::_Exit).
  bool StopWithin(std::chrono::milliseconds wait);

  // The exposition for one scrape: the cached families plus the self-metrics, with
  // gpuvet_exporter_scrapes_total counting this scrape. Never waits for a collection. With
  // `gzip`, the same text as one gzip member, built from the body compressed once per collection.
  std::string RenderScrape(bool gzip = false);

  ExporterHealth Health() const;

  // Completed collections (for tests).
  uint64_t collections() const;

  // Ends the NVML session; the next collection initialises NVML again. For tests whose fake
  // NVML scenario changes between collections (the fake reads it at nvmlInit), and for an
  // operator-visible restart of the session without restarting the process.
  void ResetNvmlSession();

 private:
  void Loop();
  void MapLostGpu(const GpuInventory& inv, const HostState& host);
  bool InFlightOverdue(std::chrono::steady_clock::time_point now,
                       std::chrono::steady_clock::duration* running) const;

  const CollectorOptions options_;

  // Collection-thread state (guarded by collect_mutex_).
  std::mutex collect_mutex_;
  NvmlSession nvml_;  // kept across collections (nvml_source.h)
  XidCounter xids_;
  std::optional<GpuInventory> last_good_;
  std::optional<GpuInventory> last_attempt_;
  std::map<std::string, std::pair<std::string, std::string>> gpu_by_address_;  // -> (index, uuid)
  // Identity (name, uuid, serial, VBIOS, PCI address, minor) of each GPU index from the last
  // collection that read it, and the device count then: a lost GPU answers nothing, yet its
  // series must keep their labels.
  std::map<int, GpuState> identity_by_index_;
  std::optional<int> identity_device_count_;
  int consecutive_hangs_ = 0;
  std::chrono::steady_clock::time_point next_nvml_attempt_{};

  // Scrape-visible state.
  mutable std::mutex mutex_;
  std::shared_ptr<const std::string> body_;
  std::shared_ptr<const GzipPrefix> body_gzip_;
  double last_duration_s_ = 0;
  std::optional<double> last_success_unix_;
  std::optional<std::chrono::steady_clock::time_point> last_success_steady_;
  std::optional<std::chrono::steady_clock::time_point> in_flight_since_;
  bool stale_ = false;
  std::string problem_;  // why the last collection was not a success ("" when it was)
  std::map<std::string, uint64_t> errors_;
  uint64_t collections_ = 0;
  std::atomic<uint64_t> scrapes_{0};

  // Thread control.
  std::mutex thread_mutex_;
  std::condition_variable wake_;
  std::condition_variable finished_;
  bool stop_ = false;
  bool loop_done_ = false;
  std::thread thread_;
};

}  // namespace gpuvet
