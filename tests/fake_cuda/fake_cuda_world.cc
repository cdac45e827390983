// The fake driver's object model and virtual clock (see fake_cuda_world.h).
#include "fake_cuda_world.h"

#include <sched.h>

#include <algorithm>

namespace gpuvet::fake_cuda {

std::unique_ptr<World> MakeWorld(Scenario scenario, std::string text) {
  auto w = std::make_unique<World>();
  w->scenario = std::move(scenario);
  w->scenario_text = std::move(text);
  for (size_t i = 0; i < w->scenario.devices.size(); ++i) {
    auto d = std::make_unique<DeviceState>();
    d->spec = &w->scenario.devices[i];
    d->ctx.device = static_cast<int>(i);
    d->null_stream.device = static_cast<int>(i);
    d->null_stream.is_null = true;
    w->devices.push_back(std::move(d));
  }
  return w;
}

const Allocation* FindAllocation(const World& w, uintptr_t address, uint64_t bytes, bool host) {
  auto it = w.allocations.upper_bound(address);
  if (it == w.allocations.begin()) return nullptr;
  --it;
  const Allocation& a = it->second;
  if ((a.device < 0) != host) return nullptr;
  const uint64_t offset = address - it->first;
  if (offset > a.bytes || bytes > a.bytes - offset) return nullptr;
  return &a;
}

double StartOf(const World& w, const CUstream_st& s) {
  const DeviceState& d = *w.devices[s.device];
  double t = std::max(s.clock_us, d.host_now_us);
  if (s.is_null) {
    for (const auto& [handle, other] : w.streams) {
      if (other->device == s.device && other->blocking) t = std::max(t, other->clock_us);
    }
  } else if (s.blocking) {
    t = std::max(t, d.null_stream.clock_us);
  }
  return t;
}

double Enqueue(World& w, CUstream_st& s, double duration_us) {
  s.clock_us = StartOf(w, s) + duration_us;
  return s.clock_us;
}

double TransferMicros(double bytes, double gbps) { return bytes / (gbps * 1e3); }

bool CallerIsRemote(const Device& device) {
  if (device.local_cpus.empty()) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return false;  // unknown: assume local
  return std::none_of(device.local_cpus.begin(), device.local_cpus.end(), [&](int cpu) {
    return cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &set);
  });
}

const Peer* FindPeer(const Scenario& s, int src, int dst) {
  for (const Peer& p : s.p2p) {
    if (p.src == src && p.dst == dst) return &p;
  }
  return nullptr;
}

}  // namespace gpuvet::fake_cuda
