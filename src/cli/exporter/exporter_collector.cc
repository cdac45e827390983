// The exporter's collection loop and cache (see exporter_collector.h). One collection: NVML
// (skipped while backing off after hangs), host sources and kernel log, rules, render. Scrapes
// copy a shared pointer to the rendered text under a mutex and add the self-metrics.
#include "cli/exporter/exporter_collector.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "core/host_paths.h"
#include "output/metrics/metrics_renderer.h"
#include "output/metrics/prometheus_text.h"
#include "rules/rules.h"
#include "sources/host/host_source.h"

namespace gpuvet {

namespace {

using Clock = std::chrono::steady_clock;

// Longest pause between NVML attempts after repeated hangs (each hung attempt leaves a thread
// blocked inside NVML; backing off bounds how many pile up while a GPU stays wedged).
constexpr std::chrono::minutes kMaxNvmlBackoff{10};
// /healthz turns unhealthy when the last success is older than this many intervals.
constexpr int kHealthyIntervals = 3;

double UnixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string_view StateName(GpuSourceState s) {
  switch (s) {
    case GpuSourceState::kOk:
      return "ok";
    case GpuSourceState::kLibraryMissing:
      return "library missing";
    case GpuSourceState::kDriverNotLoaded:
      return "driver not loaded";
    case GpuSourceState::kInitFailed:
      return "initialisation failed";
    case GpuSourceState::kHung:
      return "hung";
    case GpuSourceState::kNotRun:
      return "not run";
  }
  return "unknown";
}

// The first hung call of an inventory, or "" when nothing hung.
std::string HungCall(const GpuInventory& inv) {
  auto first_timeout = [](const std::vector<CallFailure>& failures) -> std::string {
    for (const CallFailure& f : failures) {
      if (f.timed_out) return fmt::format("{}: {}", f.call, f.message);
    }
    return "";
  };
  if (std::string s = first_timeout(inv.failures); !s.empty()) return s;
  for (const GpuState& g : inv.gpus) {
    if (std::string s = first_timeout(g.failures); !s.empty()) return s;
  }
  return "";
}

// Why an NVML read is not usable as fresh values ("" when it is).
std::string NvmlProblem(const GpuInventory& inv) {
  bool abandoned =
      std::any_of(inv.gpus.begin(), inv.gpus.end(), [](const GpuState& g) { return g.abandoned; });
  if (inv.state == GpuSourceState::kOk && !abandoned) return "";
  std::string hung = HungCall(inv);
  if (inv.state == GpuSourceState::kOk) return "nvml: a call hung: " + hung;
  std::string detail = inv.detail.empty() ? hung : inv.detail;
  return fmt::format("nvml {}: {}", StateName(inv.state), detail);
}

bool IsHang(const GpuInventory& inv) {
  return inv.state == GpuSourceState::kHung || !HungCall(inv).empty();
}

// What to serve after a failed NVML read: when devices were enumerated, the GPUs read completely
// before a hang stay fresh and only the abandoned ones fall back to their last good values; when
// NVML failed as a whole, the last good inventory.
GpuInventory MergeWithLastGood(const GpuInventory& attempt, const GpuInventory& last_good) {
  if (attempt.state != GpuSourceState::kOk) return last_good;
  GpuInventory merged = attempt;
  for (GpuState& g : merged.gpus) {
    if (!g.abandoned) continue;
    for (const GpuState& old : last_good.gpus) {
      if (old.index == g.index) g = old;
    }
  }
  return merged;
}

// Copies the identity of `from` into a GPU that could not say it itself (lost: every call
// answered GPU_IS_LOST, so name, uuid and PCI address are empty).
void FillIdentity(const GpuState& from, GpuState& to) {
  if (to.name.empty()) to.name = from.name;
  if (to.uuid.empty()) to.uuid = from.uuid;
  if (to.serial.empty()) to.serial = from.serial;
  if (to.vbios_version.empty()) to.vbios_version = from.vbios_version;
  if (to.pci_bus_id.empty()) to.pci_bus_id = from.pci_bus_id;
  if (!to.minor_number.has() && from.minor_number.has()) to.minor_number = from.minor_number;
}

}  // namespace

// A lost GPU answers nothing, not even its PCI address, yet its Xid 79 names the address. When
// exactly one GPU has no address and exactly one NVIDIA function on the PCI bus matches no GPU,
// they are the same device.
void Collector::MapLostGpu(const GpuInventory& inv, const HostState& host) {
  if (!host.pci_gpus.has()) return;
  const GpuState* unplaced = nullptr;
  int unplaced_count = 0;
  std::set<std::string> known;
  for (const GpuState& g : inv.gpus) {
    if (g.pci_bus_id.empty()) {
      unplaced = &g;
      ++unplaced_count;
    } else {
      known.insert(g.pci_bus_id);
    }
  }
  std::vector<std::string> free_addresses;
  for (const GpuPciTopology& t : *host.pci_gpus) {
    if (!known.count(t.gpu.address)) free_addresses.push_back(t.gpu.address);
  }
  if (unplaced_count != 1 || free_addresses.size() != 1) return;
  auto& entry = gpu_by_address_[free_addresses[0]];
  entry.first = std::to_string(unplaced->index);
  if (!unplaced->uuid.empty()) entry.second = unplaced->uuid;
}

Collector::Collector(CollectorOptions options)
    : options_(std::move(options)), nvml_(options_.nvml) {
  errors_["nvml"] = 0;
  errors_["kernel_log"] = 0;
}

Collector::~Collector() { Stop(); }

void Collector::CollectOnce() {
  std::lock_guard<std::mutex> collect_lock(collect_mutex_);
  const Clock::time_point start = Clock::now();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    in_flight_since_ = start;
  }

  // NVML, unless backing off after hangs.
  GpuInventory inv;
  bool attempted = start >= next_nvml_attempt_ || !last_attempt_;
  std::string problem;
  if (attempted) {
    inv = nvml_.Read();
    problem = NvmlProblem(inv);
    if (IsHang(inv)) {
      ++consecutive_hangs_;
      auto backoff = options_.interval * (1 << std::min(consecutive_hangs_ - 1, 16));
      next_nvml_attempt_ =
          start + std::min<Clock::duration>(
                      backoff, std::chrono::duration_cast<Clock::duration>(kMaxNvmlBackoff));
    } else {
      consecutive_hangs_ = 0;
      next_nvml_attempt_ = {};
    }
    last_attempt_ = inv;
  } else {
    inv = *last_attempt_;
    problem = NvmlProblem(inv) + " (retry after back-off)";
  }
  const bool nvml_ok = problem.empty();
  if (nvml_ok) last_good_ = inv;
  for (const GpuInventory* g : {&inv, last_good_ ? &*last_good_ : nullptr}) {
    if (g == nullptr) continue;
    for (const GpuState& gpu : g->gpus) {
      if (!gpu.pci_bus_id.empty() && !gpu.uuid.empty()) {
        gpu_by_address_[gpu.pci_bus_id] = {std::to_string(gpu.index), gpu.uuid};
      }
    }
  }
  const bool serving_old = !nvml_ok && last_good_.has_value();
  GpuInventory values = serving_old ? MergeWithLastGood(inv, *last_good_) : inv;
  // Identity labels: remembered per index while the device count stays the same (a count that
  // changed means indexes may name other devices), and given back to GPUs that lost theirs.
  if (values.device_count.has()) {
    if (identity_device_count_ != *values.device_count) identity_by_index_.clear();
    identity_device_count_ = *values.device_count;
    for (GpuState& g : values.gpus) {
      auto it = identity_by_index_.find(g.index);
      if (!g.uuid.empty()) {
        GpuState id;
        FillIdentity(g, id);
        identity_by_index_[g.index] = std::move(id);
      } else if (it != identity_by_index_.end()) {
        FillIdentity(it->second, g);
      }
    }
  }

  // Host sources and the kernel log.
  HostOptions host_options;
  host_options.kernel_log_file = options_.kernel_log;
  for (const GpuState& g : values.gpus) {
    if (g.minor_number.has()) host_options.gpu_minors.push_back(*g.minor_number);
    if (g.compute_processes.has()) {
      for (const GpuProcess& p : *g.compute_processes) host_options.gpu_pids.push_back(p.pid);
    }
  }
  HostState host = ReadHostState(HostPaths(options_.root), host_options);
  bool kernel_log_failed = host.kernel_log.record_count.error();
  if (host.kernel_log.record_count.has()) xids_.Observe(host.kernel_log.xid_occurrences);
  MapLostGpu(inv, host);

  std::vector<XidSeries> xid_series;
  for (const auto& [key, count] : xids_.totals()) {
    XidSeries s;
    if (auto it = gpu_by_address_.find(key.first); it != gpu_by_address_.end()) {
      s.gpu = it->second.first;
      s.uuid = it->second.second;
    }
    s.xid = key.second;
    s.count = count;
    xid_series.push_back(std::move(s));
  }

  CheckInput input{host, inv};
  std::vector<Finding> findings = RunRules(input, options_.policy);

  MetricSet set;
  AddNodeInfo(set, host, values, options_.gpuvet_version);
  AddGpuMetrics(set, values);
  AddGpuOwners(set, values, host);
  AddXidCounters(set, xid_series);
  AddCheckStatus(set, findings);
  auto body = std::make_shared<const std::string>(set.Render());
  auto body_gzip = std::make_shared<const GzipPrefix>(GzipStart(*body));

  const double duration = std::chrono::duration<double>(Clock::now() - start).count();
  std::lock_guard<std::mutex> lock(mutex_);
  body_ = std::move(body);
  body_gzip_ = std::move(body_gzip);
  last_duration_s_ = duration;
  in_flight_since_.reset();
  ++collections_;
  if (attempted && !nvml_ok) ++errors_["nvml"];
  if (kernel_log_failed) ++errors_["kernel_log"];
  // Stale whenever the GPU values served are not from a read that completed: old values after a
  // failure, or a partial read cut short by a hang (also when no earlier good read exists). A
  // definitive failure (no library, no driver) serves no GPU values at all: not stale, unready.
  stale_ = serving_old || IsHang(inv);
  problem_ = problem;
  if (nvml_ok) {
    last_success_unix_ = UnixNow();
    last_success_steady_ = Clock::now();
  }
}

void Collector::Start() {
  std::lock_guard<std::mutex> lock(thread_mutex_);
  if (thread_.joinable()) return;
  stop_ = false;
  loop_done_ = false;
  thread_ = std::thread([this] { Loop(); });
}

void Collector::Stop() {
  {
    std::lock_guard<std::mutex> lock(thread_mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool Collector::StopWithin(std::chrono::milliseconds wait) {
  std::unique_lock<std::mutex> lock(thread_mutex_);
  stop_ = true;
  wake_.notify_all();
  if (!thread_.joinable()) return true;
  if (!finished_.wait_for(lock, wait, [this] { return loop_done_; })) return false;
  lock.unlock();
  thread_.join();
  return true;
}

void Collector::Loop() {
  Clock::time_point next = Clock::now();
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(thread_mutex_);
      if (wake_.wait_until(lock, next, [this] { return stop_; })) {
        loop_done_ = true;
        finished_.notify_all();
        return;
      }
    }
    next += options_.interval;
    CollectOnce();
    // A collection longer than the interval: start the next one a full interval later rather
    // than back to back.
    if (Clock::now() > next) next = Clock::now() + options_.interval;
  }
}

bool Collector::InFlightOverdue(Clock::time_point now, Clock::duration* running) const {
  if (!in_flight_since_) return false;
  *running = now - *in_flight_since_;
  return *running > options_.interval;
}

std::string Collector::RenderScrape(bool gzip) {
  const uint64_t scrapes = scrapes_.fetch_add(1, std::memory_order_relaxed) + 1;
  std::shared_ptr<const std::string> body;
  std::shared_ptr<const GzipPrefix> body_gzip;
  MetricSet self;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    body = body_;
    body_gzip = body_gzip_;
    Clock::duration running{};
    // Before the first collection completes nothing served comes from one.
    bool stale = stale_ || collections_ == 0 || InFlightOverdue(Clock::now(), &running);
    self.Add("gpuvet_exporter_collection_duration_seconds",
             "Wall time of the last completed collection, in seconds.", MetricType::kGauge, {},
             last_duration_s_);
    for (const auto& [source, n] : errors_) {
      self.Add("gpuvet_exporter_collection_errors_total",
               "Collections in which this source failed or hung.", MetricType::kCounter,
               {{"source", source}}, static_cast<double>(n));
    }
    if (last_success_unix_) {
      self.Add("gpuvet_exporter_last_success_timestamp_seconds",
               "Unix time of the last collection whose NVML read succeeded.", MetricType::kGauge,
               {}, *last_success_unix_);
    }
    self.Add("gpuvet_exporter_stale",
             "1 when the GPU values served are not from a completed collection (none has "
             "completed yet, NVML hung and old or partial values are served, or a collection "
             "is overdue), else 0.",
             MetricType::kGauge, {}, stale ? 1 : 0);
    self.Add("gpuvet_exporter_collections_total", "Collections completed since the start.",
             MetricType::kCounter, {}, static_cast<double>(collections_));
  }
  self.Add("gpuvet_exporter_scrapes_total", "Scrapes of /metrics served.", MetricType::kCounter, {},
           static_cast<double>(scrapes));
  std::string self_text = self.Render();
  if (gzip) return GzipFinish(body_gzip ? *body_gzip : GzipStart(""), self_text);
  std::string out;
  out.reserve((body ? body->size() : 0) + self_text.size());
  if (body) out += *body;
  out += self_text;
  return out;
}

ExporterHealth Collector::Health() const {
  std::lock_guard<std::mutex> lock(mutex_);
  const Clock::time_point now = Clock::now();
  Clock::duration running{};
  auto seconds = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
  if (InFlightOverdue(now, &running)) {
    return {false, fmt::format("collection running for {:.1f} s, longer than the {:.1f} s "
                               "interval: NVML or a kernel file is not answering",
                               seconds(running), seconds(options_.interval))};
  }
  if (collections_ == 0) {
    return {false, in_flight_since_
                       ? fmt::format("no collection has completed yet (the first one has run "
                                     "for {:.1f} s)",
                                     seconds(now - *in_flight_since_))
                       : std::string("no collection has run yet")};
  }
  if (!last_success_steady_) {
    return {false, "no successful collection yet: " + problem_};
  }
  const double age = seconds(now - *last_success_steady_);
  if (stale_) {
    return {false, fmt::format("{}; serving GPU values from {:.1f} s ago", problem_, age)};
  }
  if (age > kHealthyIntervals * seconds(options_.interval)) {
    return {false, fmt::format("last successful collection {:.1f} s ago", age)};
  }
  return {true,
          fmt::format("ok: last collection {:.1f} s ago, took {:.3f} s", age, last_duration_s_)};
}

void Collector::ResetNvmlSession() {
  std::lock_guard<std::mutex> collect_lock(collect_mutex_);
  nvml_.Reset();
}

uint64_t Collector::collections() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return collections_;
}

}  // namespace gpuvet
