// Writes the synthetic recordings of the `gpuvet analyze` golden tests
// (tests/fixtures/analyze/NAME): `make_recordings OUT_DIR NAME...` writes OUT_DIR/NAME.gpuvet
// for each scenario through the real RecordingWriter, so the e2e test reads files exactly as
// `gpuvet record` leaves them. Deterministic: the same scenario gives the same samples.
// `--schema-version 2` before the names writes the layout of gpuvet before schema version 3.
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>

#include "sources/recording/recording_store.h"
#include "testing/recording_builder.h"

namespace {

using gpuvet::Recording;
using gpuvet::Sample;
using gpuvet::test::kGiB;
using gpuvet::test::RecordingBuilder;
using gpuvet::test::SetGpus;

void Feeder(Sample& s) {
  SetGpus(s, 21);
  s.host.core_busy_pct.assign(s.host.core_busy_pct.size(), 14);
  s.host.core_busy_pct[2] = 100;
  s.processes[0].top_threads = {{100, "python3", 99.5}, {101, "pt_data_worker", 3}};
}

// 5 minutes with one pegged data-loading thread, then 10 minutes compute-bound; work counted.
Recording HostCpuFeeder() {
  RecordingBuilder b(2, "NVIDIA A100-SXM4-80GB");
  b.meta().work_unit = "images";
  return b
      .Add(300,
           [](Sample& s, int i) {
             Feeder(s);
             s.workload.work_total = 40.0 * i;
           })
      .Add(600, [](Sample& s, int i) { s.workload.work_total = 12000 + 180.0 * i; })
      .Build();
}

// A loader opening ~900 small files a second on a network share; the GPU starves.
Recording SmallFiles() {
  RecordingBuilder b(1, "NVIDIA H100 80GB HBM3");
  return b
      .Add(600,
           [](Sample& s, int i) {
             SetGpus(s, 17 + (i % 5), 14 + (i % 4));
             for (gpuvet::GpuSample& g : s.gpus) g.tensor_active_pct = 9, g.dram_bw_util_pct = 6;
             s.host.cpu_iowait_pct = 4;
             s.processes[0].read_syscalls_per_s = 2700;
             s.processes[0].rchar_per_s = 2700 * 12 * 1024.0;
             s.processes[0].opens_per_s = 900;
           })
      .Build();
}

// Compute-bound with a 10 s checkpoint every 2 minutes that writes 1.2 GB/s.
Recording CheckpointStalls() {
  RecordingBuilder b(1, "NVIDIA H100 80GB HBM3");
  return b
      .Add(900,
           [](Sample& s, int i) {
             SetGpus(s, 97, 86);
             for (gpuvet::GpuSample& g : s.gpus) g.tensor_active_pct = 55, g.dram_bw_util_pct = 38;
             if (i % 120 >= 60 && i % 120 < 70) {
               SetGpus(s, 1, 0.5);
               s.host.disks[0].write_bytes_per_s = 1.2e9;
               s.host.disks[0].busy_pct = 70;
             }
           })
      .Build();
}

// The workload never opens a GPU and burns eight cores.
Recording CpuFallback() {
  RecordingBuilder b(1, "NVIDIA L4");
  return b
      .Add(300,
           [](Sample& s, int) {
             SetGpus(s, 0);
             for (gpuvet::GpuSample& g : s.gpus) g.processes.clear(), g.power_w = 16;
             s.processes[0].cpu_pct = 785;
             s.host.core_busy_pct.assign(s.host.core_busy_pct.size(), 98);
             s.host.cpu_user_pct = 95, s.host.cpu_system_pct = 3, s.host.cpu_idle_pct = 2;
           })
      .Build();
}

// Near-miss: an inference server, busy in irregular bursts and idle between requests.
Recording BurstyServer() {
  RecordingBuilder b(1, "NVIDIA L40S");
  const int busy[] = {2, 1, 3, 1, 4, 2, 1, 3};
  const int idle[] = {5, 9, 3, 7, 2, 8, 4, 6, 11};
  for (int k = 0; k < 60; ++k) {
    b.Add(busy[k % 8], [](Sample& s, int) {
      SetGpus(s, 88);
      s.host.cpu_user_pct = 8;
    });
    b.Add(idle[k % 9], [](Sample& s, int) {
      SetGpus(s, 0);
      s.host.cpu_user_pct = 1;
      s.processes[0].cpu_pct = 2;
      s.processes[0].top_threads = {{100, "tritonserver", 1}};
    });
  }
  return b.Build();
}

// GPU memory grows 40 MB/s under a power-capped GPU; the recorder was killed (no end time).
Recording LeakKilled() {
  RecordingBuilder b(1, "NVIDIA A100-SXM4-40GB");
  b.meta().gpus[0].memory_total_bytes = 40 * kGiB;
  return b
      .Add(600,
           [](Sample& s, int i) {
             for (gpuvet::GpuSample& g : s.gpus) {
               g.memory_used_bytes = 20 * kGiB + static_cast<uint64_t>(i) * 15'000'000;
               g.clock_event_reasons = 0x4;
               g.sm_clock_mhz = 1095;
               g.power_w = 399;
             }
           })
      .BuildUnfinished();
}

// A container limited to 2 CPUs (cgroup cpu.max) whose loader is throttled 40 % of the time.
Recording QuotaBound() {
  RecordingBuilder b(1, "NVIDIA A10");
  b.meta().cpu_quota_cores = 2;
  return b
      .Add(400,
           [](Sample& s, int i) {
             SetGpus(s, 24 + (i % 9));
             s.processes[0].cpu_pct = 197;
             s.workload.cgroup_throttled_pct = 40;
             s.workload.cgroup_nr_throttled_per_s = 10;
           })
      .Build();
}

// An H100 (GPM) busy on memory-bound kernels: DRAM bandwidth 92 %, tensor cores nearly idle.
Recording MemoryBoundGpm() {
  RecordingBuilder b(1, "NVIDIA H100 80GB HBM3");
  return b
      .Add(400,
           [](Sample& s, int i) {
             SetGpus(s, 99, 74 + (i % 3));
             for (gpuvet::GpuSample& g : s.gpus) {
               g.dram_bw_util_pct = 92;
               g.tensor_active_pct = 4;
               g.sm_occupancy_pct = 45;
             }
           })
      .Build();
}

// --- Issue 14: the network, short feeding cycles, one GPU among eight.

// One node of a multi-node job: 8 H100s at 25 % while each of the 8 HDR rails (one per GPU)
// moves ~22 GB/s of its 25 GB/s in each direction; the host is idle. Bound by all-reduce over
// InfiniBand.
Recording MultinodeNetworkBound() {
  RecordingBuilder b(8, "NVIDIA H100 80GB HBM3");
  return b
      .Add(600,
           [](Sample& s, int i) {
             SetGpus(s, 24 + (i % 4));
             s.host.cpu_user_pct = 9;
             s.processes[0].cpu_pct = 380;
             for (int p = 0; p < 8; ++p) {
               gpuvet::IbPortSample x;
               x.port = "mlx5_" + std::to_string(p) + "/1";
               x.link_layer = "InfiniBand";
               x.rate_gbps = 200;
               x.active = true;
               x.rx_bytes_per_s = 21.6e9 + (p == 4 ? 0.6e9 : 0) + (i % 5) * 0.05e9;
               x.tx_bytes_per_s = x.rx_bytes_per_s - 0.1e9;
               x.xmit_wait_per_s = 2.4e6;
               x.errors_per_s = 0;
               s.host.ib_ports.push_back(x);
             }
           })
      .Build();
}

// An A100 fed in bursts, GPU figures only (an nvidia-smi dmon import): 2 s busy at ~90 % SM,
// 3 s idle, for 4 minutes.
Recording InputBursts() {
  RecordingBuilder b(1, "NVIDIA A100-PCIE-40GB");
  b.meta().producer = "gpuvet import nvidia-smi-dmon (synthetic)";
  b.meta().command.clear();
  b.meta().target_pid = 0;
  return b
      .Add(240,
           [](Sample& s, int i) {
             s.host = gpuvet::HostSample{};
             s.processes.clear();
             s.workload = gpuvet::WorkloadSample{};
             gpuvet::GpuSample& g = s.gpus[0];
             g.processes.clear();
             bool busy = i % 5 < 2;
             g.util_pct = busy ? 88 + (i % 7) : 4 + (i % 3);
             g.power_w = busy ? 231 + (i % 11) : 72 + (i % 5);
             g.sm_clock_mhz = 1410;
           })
      .Build();
}

// Eight busy H100s but one: `bend` changes gpu `odd` in every sample.
Recording OneAmongEight(int odd, const std::function<void(gpuvet::GpuSample&)>& bend) {
  RecordingBuilder b(8, "NVIDIA H100 80GB HBM3");
  return b
      .Add(600,
           [&](Sample& s, int i) {
             for (gpuvet::GpuSample& g : s.gpus) {
               g.util_pct = 93 + (g.gpu + i) % 4;
               g.temperature_c = 61 + g.gpu % 3;
               g.sm_clock_mhz = 1410;
             }
             bend(s.gpus[odd]);
           })
      .Build();
}

Recording OneGpuIdle() {
  return OneAmongEight(5, [](gpuvet::GpuSample& g) {
    g.util_pct = 0;
    g.power_w = 70;
  });
}

Recording OneGpuThrottled() {
  return OneAmongEight(2, [](gpuvet::GpuSample& g) {
    g.sm_clock_mhz = 1125;
    g.temperature_c = 88;
    g.clock_event_reasons = 0x20 | 0x40;  // SW and HW thermal slowdown
  });
}

Recording OneGpuHot() {
  return OneAmongEight(6, [](gpuvet::GpuSample& g) { g.temperature_c = 78; });
}

Recording OneGpuStraggler() {
  RecordingBuilder b(8, "NVIDIA H100 80GB HBM3");
  return b
      .Add(600,
           [](Sample& s, int i) {
             for (gpuvet::GpuSample& g : s.gpus) g.util_pct = 60 + (g.gpu + i) % 5;
             s.gpus[0].util_pct = 99;
           })
      .Build();
}

// Eight H100s training compute-bound for an hour; every 10 minutes the job writes a checkpoint
// to the NFS server fs1 and stalls 45 s: the writes leave on eth0 for the first seconds, then the
// server stops answering (little traffic, tasks in D state: iowait and I/O pressure up, the local
// disk quiet) until it answers again and the write completes. With `nfs_events` the recording
// holds what `record` read from the kernel log during each stall (`nfs: server fs1 not
// responding, still trying` 8 s in, `nfs: server fs1 OK` 42 s in); without, the same samples only.
Recording NfsCheckpointStalls(bool nfs_events) {
  RecordingBuilder b(8, "NVIDIA H100 80GB HBM3");
  b.meta().online_cpus = 32;
  b.meta().notes["record.kernel_log"] = "followed: /dev/kmsg";
  Recording rec = b.Add(3600, [](Sample& s, int i) {
                     SetGpus(s, 97, 86);
                     for (gpuvet::GpuSample& g : s.gpus)
                       g.tensor_active_pct = 55, g.dram_bw_util_pct = 38;
                     s.host.core_busy_pct.assign(s.host.core_busy_pct.size(), 24);
                     s.host.nets[0] = {"eth0", 2e6, 3e6};
                     const int in_stall = i % 600 - 300;
                     if (in_stall < 0 || in_stall >= 45) return;
                     SetGpus(s, 1, 0.5);
                     s.host.cpu_iowait_pct = 11;
                     s.host.cpu_user_pct = 3;
                     s.host.cpu_idle_pct = 84;
                     s.host.psi_io_some_pct = 62;
                     s.host.psi_io_full_pct = 48;
                     const bool writing = in_stall < 8 || in_stall >= 42;
                     s.host.nets[0] = {"eth0", 1e6, writing ? 1.1e9 : 0.2e6};
                     s.processes[0].cpu_pct = 2;
                   }).Build();
  if (nfs_events) {
    for (int k = 0; k < 6; ++k) {
      const double stall = 301.0 + 600 * k;  // sample i has t = i + 1
      rec.events.push_back({stall + 8, gpuvet::RecordingEventKind::kNfsNotResponding, "fs1",
                            "nfs: server fs1 not responding, still trying"});
      rec.events.push_back(
          {stall + 42, gpuvet::RecordingEventKind::kNfsOk, "fs1", "nfs: server fs1 OK"});
    }
  }
  return rec;
}

// --- Issue 27: a hung job, GPU-only logs judged from what they hold.

// Eight H100s (700 W limit) training for 10 minutes, then a collective that never completes:
// every GPU at 100 % GPU-Util, 77 W (11 % of the limit), memory utilisation 0, no PCIe or NVLink
// traffic, for 10 minutes. With `idle_gpu` >= 0 that GPU is not spinning in the hang (its rank
// never joined the collective): 0 % GPU-Util at 70 W.
Recording StuckCollective(int idle_gpu) {
  RecordingBuilder b(8, "NVIDIA H100 80GB HBM3");
  for (gpuvet::RecordedGpu& g : b.meta().gpus) g.power_limit_w = 700;
  return b
      .Add(600,
           [](Sample& s, int i) {
             for (gpuvet::GpuSample& g : s.gpus) {
               g.util_pct = 97 + (g.gpu + i) % 3;
               g.power_w = 560 + 5 * ((g.gpu + i) % 7);
               g.mem_util_pct = 44 + (i % 4);
               g.nvlink_tx_bytes_per_s = g.nvlink_rx_bytes_per_s = 38e9;
             }
           })
      .Add(600,
           [idle_gpu](Sample& s, int) {
             for (gpuvet::GpuSample& g : s.gpus) {
               g.util_pct = 100;
               g.power_w = 77;
               g.mem_util_pct = 0;
               g.pcie_tx_bytes_per_s = g.pcie_rx_bytes_per_s = 0.02e6;
               g.nvlink_tx_bytes_per_s = g.nvlink_rx_bytes_per_s = 0;
               if (g.gpu == idle_gpu) g.util_pct = 0, g.power_w = 70, g.processes.clear();
             }
             s.processes[0].cpu_pct = 800;  // each rank's host thread spins in the wait
             s.processes[0].read_syscalls_per_s = 0, s.processes[0].rchar_per_s = 0;
           })
      .Build();
}

// An nvidia-smi log (GPU figures only, no host data) of an A100 (400 W) busy `busy_pct` % of the
// samples, in an irregular pattern (no feeding cycle): 100 % GPU-Util at 300 W when busy, 0 %
// at 60 W when not. With GPM, an H100 import whose SM activity and power show it saturated.
Recording GpuOnly(int busy_pct, bool gpm) {
  RecordingBuilder b(1, gpm ? "NVIDIA H100 80GB HBM3" : "NVIDIA A100-SXM4-80GB");
  b.meta().producer = "gpuvet import nvidia-smi-csv (synthetic)";
  b.meta().command.clear();
  b.meta().target_pid = 0;
  if (gpm) b.meta().gpus[0].power_limit_w = 700;
  return b
      .Add(900,
           [busy_pct, gpm](Sample& s, int i) {
             s.host = gpuvet::HostSample{};
             s.processes.clear();
             s.workload = gpuvet::WorkloadSample{};
             gpuvet::GpuSample& g = s.gpus[0];
             g.processes.clear();
             g.clock_event_reasons.reset();
             g.pcie_tx_bytes_per_s.reset(), g.pcie_rx_bytes_per_s.reset();
             const bool busy = (static_cast<unsigned>(i) * 2654435761u >> 7) % 100 <
                               static_cast<unsigned>(busy_pct);
             g.util_pct = busy ? 100 : 0;
             g.power_w = busy ? 300 : 60;
             g.mem_util_pct = busy ? 38 : 0;
             if (gpm) {
               g.util_pct = 99, g.sm_active_pct = 86 + i % 4, g.tensor_active_pct = 61;
               g.dram_bw_util_pct = 41, g.power_w = 640;
             }
           })
      .Build();
}

const std::map<std::string, std::function<Recording()>> kScenarios = {
    {"host-cpu-feeder", HostCpuFeeder},
    {"forecast-with-trace", HostCpuFeeder},  // the same recording, refined by a trace
    {"small-files", SmallFiles},
    {"checkpoint-stalls", CheckpointStalls},
    {"cpu-fallback", CpuFallback},
    {"bursty-server", BurstyServer},
    {"leak-killed", LeakKilled},
    {"quota-bound", QuotaBound},
    {"memory-bound-gpm", MemoryBoundGpm},
    {"multinode-network-bound", MultinodeNetworkBound},
    {"input-bursts", InputBursts},
    {"one-gpu-idle", OneGpuIdle},
    {"one-gpu-throttled", OneGpuThrottled},
    {"one-gpu-hot", OneGpuHot},
    {"one-gpu-straggler", OneGpuStraggler},
    {"nfs-checkpoint-stalls", [] { return NfsCheckpointStalls(true); }},
    {"checkpoint-stalls-no-kernel-events", [] { return NfsCheckpointStalls(false); }},
    {"stuck-collective", [] { return StuckCollective(-1); }},
    {"stuck-collective-one-idle", [] { return StuckCollective(3); }},
    {"stuck-collective-target", [] { return StuckCollective(-1); }},
    {"gpu-only-busy-30", [] { return GpuOnly(30, false); }},
    {"gpu-only-busy-58", [] { return GpuOnly(58, false); }},
    {"gpu-only-busy-95", [] { return GpuOnly(95, false); }},
    {"gpu-only-saturated-gpm", [] { return GpuOnly(100, true); }},
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: make_recordings OUT_DIR [--schema-version 2] NAME...\n");
    return 2;
  }
  gpuvet::RecordingWriterOptions options;  // one transaction per sample, as `record` writes
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "--schema-version" && i + 1 < argc) {
      options.schema_version = std::atoi(argv[++i]);  // 2: the layout before version 3
      continue;
    }
    auto it = kScenarios.find(argv[i]);
    if (it == kScenarios.end()) {
      std::fprintf(stderr, "make_recordings: unknown scenario %s\n", argv[i]);
      return 2;
    }
    Recording rec = it->second();
    std::string path = std::string(argv[1]) + "/" + argv[i] + ".gpuvet";
    auto w = gpuvet::RecordingWriter::Create(path, rec.meta, options);
    if (!w.ok()) {
      std::fprintf(stderr, "%s\n", w.status().message().c_str());
      return 1;
    }
    // Events go in with the sample of their time, as `record` stores what it read meanwhile.
    size_t next_event = 0;
    for (const Sample& s : rec.samples) {
      for (; next_event < rec.events.size() && rec.events[next_event].t <= s.t; ++next_event) {
        if (auto st = (*w)->AppendEvent(rec.events[next_event]); !st.ok()) {
          std::fprintf(stderr, "%s\n", st.message().c_str());
          return 1;
        }
      }
      if (auto st = (*w)->Append(s); !st.ok()) {
        std::fprintf(stderr, "%s\n", st.message().c_str());
        return 1;
      }
    }
    for (; next_event < rec.events.size(); ++next_event) {
      if (auto st = (*w)->AppendEvent(rec.events[next_event]); !st.ok()) {
        std::fprintf(stderr, "%s\n", st.message().c_str());
        return 1;
      }
    }
    // A killed recorder never writes the end: leave the file as it is (WAL included).
    if (rec.meta.end_unix_s) {
      if (auto st = (*w)->Finish(rec.meta.end_unix_s, rec.meta.exit_code); !st.ok()) {
        std::fprintf(stderr, "%s\n", st.message().c_str());
        return 1;
      }
    }
  }
  return 0;
}
