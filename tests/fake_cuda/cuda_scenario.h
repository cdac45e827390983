// The scenario that drives the fake libcuda.so.1 (docs/cuda-scenario.md): the devices it reports
// and the deterministic timing model its events measure. Parsed strictly, so a typo in a test
// scenario is an error naming the file and the JSON pointer instead of a silently ignored key.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sources/cuda/cuda_api.h"
#include "util/status.h"

namespace gpuvet::fake_cuda {

// Rates of one device. Defaults are the H100 PCIe (Gen5 x16) figures of docs/cuda-scenario.md.
struct Timing {
  double h2d_pinned_gbps = 53;  // GB/s = 1e9 bytes/s, copy bytes per second
  double d2h_pinned_gbps = 53;
  double h2d_pageable_gbps = 20;
  double d2h_pageable_gbps = 20;
  double d2d_gbps = 2800;           // device memory, read+write bytes counted
  double remote_numa_factor = 1.0;  // host copies x this when the thread is off the GPU's CPUs
  double copy_latency_us = 0;       // added to every copy and memset
  double launch_overhead_us = 4;    // an empty kernel; the floor of every kernel
  double fp32_tflops = 60;          // gpuvet_fma
};

struct Device {
  std::string name = "NVIDIA H100 PCIe";
  int cc_major = 9, cc_minor = 0;
  int sm_count = 114;
  int sm_clock_mhz = 1755;
  int mem_clock_mhz = 1593;
  int memory_bus_bits = 5120;
  uint64_t memory_bytes = 85520809984ull;  // 79.6 GiB as cuDeviceTotalMem reports an H100 80GB
  uint64_t l2_bytes = 52428800;            // 50 MiB
  int max_threads_per_sm = 2048;
  int pci_domain = 0, pci_bus = 0, pci_device = 0;  // from "pci_bus_id"
  int copy_engines = 3;
  std::vector<int> local_cpus;  // empty: never remote
  Timing timing;
};

// A P2P route src -> dst. Listed routes are peer-capable (cuDeviceCanAccessPeer = 1).
struct Peer {
  int src = 0, dst = 0;
  double gbps = 0;
  double latency_us = 0;
};

struct Scenario {
  int driver_version = 12080;  // cuDriverGetVersion: 1000 * major + 10 * minor
  CUresult init = CUDA_SUCCESS;
  std::map<std::string, CUresult> errors;  // function name -> code it returns
  std::set<std::string> hangs;             // functions that never return (a wedged GPU)
  std::string jit_error_log;               // copied into CU_JIT_ERROR_LOG_BUFFER
  std::string jit_info_log;                // copied into CU_JIT_INFO_LOG_BUFFER
  // Device-to-device copies on one GPU flip the lowest bit of byte 17 of their destination (bad
  // device memory that reports no error): what the benchmarks' data check must catch.
  bool corrupt_device_copies = false;
  std::vector<Device> devices;
  std::vector<Peer> p2p;
};

// Parses a scenario; `origin` (the file name) prefixes every error, with the JSON pointer of the
// offending value ("s.json: /devices/0/timing/d2d_gbps: expected a positive number").
Result<Scenario> ParseScenario(std::string_view text, std::string_view origin);

}  // namespace gpuvet::fake_cuda
