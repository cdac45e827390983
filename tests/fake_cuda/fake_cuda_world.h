// The fake driver's object model: what one scenario (one cuInit) creates, i.e. devices with their
// primary contexts, streams, events, modules and allocations, plus the virtual clock. Every
// operation on a stream takes a modelled duration and advances that stream's clock; events read
// the clock, so cuEventElapsedTime measures exactly the model. Nothing here sleeps or reads time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cuda_scenario.h"
#include "sources/cuda/cuda_api.h"

// The opaque handle types of cuda.h, defined here: a handle is a pointer to one of these.
struct CUctx_st {
  int device = 0;
};
struct CUstream_st {
  int device = 0;
  bool blocking = true;  // false: CU_STREAM_NON_BLOCKING, does not order with the null stream
  bool is_null = false;  // the device's legacy default stream
  double clock_us = 0;   // when the last queued operation completes
};
struct CUevent_st {
  int device = -1;
  bool recorded = false;
  bool timing = true;  // false: CU_EVENT_DISABLE_TIMING
  double time_us = 0;
};
struct CUfunc_st {
  std::string name;
  CUmod_st* module = nullptr;
};
struct CUmod_st {
  std::set<std::string> entries;
  std::map<std::string, std::unique_ptr<CUfunc_st>> functions;  // handed out by name
};

namespace gpuvet::fake_cuda {

// One allocation: device memory (cuMemAlloc) or pinned host memory (cuMemHostAlloc).
struct Allocation {
  size_t bytes = 0;
  int device = -1;  // -1: host memory
  unsigned flags = 0;
};

struct DeviceState {
  const Device* spec = nullptr;
  CUctx_st ctx;  // the primary context
  int retained = 0;
  double host_now_us = 0;  // how far the host has waited on this device's timeline
  CUstream_st null_stream;
  uint64_t allocated_bytes = 0;
  std::set<int> peers_enabled;  // devices this device's context may access directly
};

// Everything one scenario's cuInit created. Handles are validated against these sets before use.
struct World {
  std::string scenario_text;
  Scenario scenario;
  bool initialised = false;
  std::vector<std::unique_ptr<DeviceState>> devices;
  std::map<uintptr_t, Allocation> allocations;  // by start address
  std::map<CUstream, std::unique_ptr<CUstream_st>> streams;
  std::map<CUevent, std::unique_ptr<CUevent_st>> events;
  std::map<CUmodule, std::unique_ptr<CUmod_st>> modules;
  std::set<CUfunction> functions;
};

// Builds the world for `scenario` (devices and their contexts; nothing allocated yet).
std::unique_ptr<World> MakeWorld(Scenario scenario, std::string text);

// The allocation holding [address, address + bytes), or null; `host` picks the kind wanted.
const Allocation* FindAllocation(const World& w, uintptr_t address, uint64_t bytes, bool host);

// When the next operation queued on `s` may start: after the stream's previous work, after what
// the host already waited for, and ordered with the null stream (legacy default-stream rules).
double StartOf(const World& w, const CUstream_st& s);

// Queues an operation of `duration_us` on `s`; returns its completion time.
double Enqueue(World& w, CUstream_st& s, double duration_us);

// Microseconds to move `bytes` at `gbps` (1 GB/s = 1e9 bytes/s = 1e3 bytes/us).
double TransferMicros(double bytes, double gbps);

// True when the calling thread's CPU affinity holds none of the device's local CPUs (a scenario
// without local_cpus is never remote).
bool CallerIsRemote(const Device& device);

// The peer route src -> dst, or null when the scenario lists none.
const Peer* FindPeer(const Scenario& s, int src, int dst);

}  // namespace gpuvet::fake_cuda
