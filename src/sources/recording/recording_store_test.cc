// The recording store: every field round-trips (absent stays absent), a writer killed with
// SIGKILL leaves a readable file, a write error is a Status, and foreign or newer files are
// refused with a message that says why.
#include "sources/recording/recording_store.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>

#include "sources/recording/recording_packing.h"
#include "testing/temp_tree.h"
#include "util/file.h"

namespace gpuvet {
namespace {

RecordingMeta FullMeta() {
  RecordingMeta m;
  m.producer = "gpuvet record test";
  m.host = "node-7";
  m.kernel_release = "6.1.0-18-amd64";
  m.driver_version = "550.90.07";
  m.cuda_version = "12.4";
  m.command = {"python3", "train.py", "--lr", "0.1 x"};
  m.target_pid = 4242;
  m.interval_s = 0.25;
  m.start_unix_s = 1764489600.123456;
  m.online_cpus = 96;
  m.cpu_quota_cores = 7.5;
  m.work_unit = "samples";
  m.notes = {{"sampler.gpm", "not supported"}, {"x", "y"}};
  RecordedGpu g;
  g.index = 0;
  g.name = "NVIDIA H100 80GB HBM3";
  g.uuid = "GPU-1234";
  g.pci_bus_id = "0000:3b:00.0";
  g.memory_total_bytes = 85899345920ull;
  g.power_limit_w = 700;
  g.sm_clock_max_mhz = 1980;
  g.mem_clock_max_mhz = 2619;
  g.pcie_gen_max = 5;
  g.pcie_width_max = 16;
  g.numa_node = 1;
  m.gpus.push_back(g);
  RecordedGpu bare;  // every optional absent
  bare.index = 1;
  bare.name = "NVIDIA A10";
  m.gpus.push_back(bare);
  return m;
}

Sample FullSample(int i) {
  Sample s;
  s.t = i * 0.25;
  s.unix_time = 1764489600.123456 + s.t;
  s.interval_s = 0.25;
  GpuSample g;
  g.gpu = 0;
  g.util_pct = 40 + i;
  g.mem_util_pct = 12.5;
  g.sm_clock_mhz = 1755;
  g.mem_clock_mhz = 2619;
  g.power_w = 312.25;
  g.energy_j = 123456.789 + i;
  g.temperature_c = 61;
  g.clock_event_reasons = 0x4;
  g.pcie_tx_bytes_per_s = 1.5e9;
  g.pcie_rx_bytes_per_s = 2.5e9;
  g.memory_used_bytes = 42ull << 30;
  g.ecc_corrected_volatile = 3;
  g.ecc_uncorrected_volatile = 0;
  g.sm_active_pct = 33.3;
  g.sm_occupancy_pct = 20;
  g.tensor_active_pct = 10;
  g.dram_bw_util_pct = 55;
  g.gpm_pcie_tx_bytes_per_s = 1e9;
  g.gpm_pcie_rx_bytes_per_s = 2e9;
  g.nvlink_tx_bytes_per_s = 3e9;
  g.nvlink_rx_bytes_per_s = 4e9;
  g.processes = {{4242, 40ull << 30, 35.5}, {4243, std::nullopt, std::nullopt}};
  s.gpus.push_back(g);
  GpuSample bare;  // a GPU that answered nothing
  bare.gpu = 1;
  s.gpus.push_back(bare);
  HostSample& h = s.host;
  h.cpu_user_pct = 50;
  h.cpu_system_pct = 10;
  h.cpu_iowait_pct = 5;
  h.cpu_steal_pct = 0;
  h.cpu_idle_pct = 35;
  h.core_busy_pct = {100, 0.5, 33.25};
  h.run_queue = 4;
  h.psi_cpu_some_pct = 1.5;
  h.psi_io_some_pct = 2.5;
  h.psi_io_full_pct = 1.25;
  h.psi_memory_some_pct = 0.5;
  h.psi_memory_full_pct = 0.25;
  h.mem_available_bytes = 123ull << 30;
  h.major_faults_per_s = 7;
  h.disks = {{"nvme0n1", 1e8, 2e7, 45}, {"sda", 0, 0, 0}};
  h.nets = {{"eth0", 1e6, 2e6}};
  h.ib_ports = {{"mlx5_0/1", "InfiniBand", 200, true, 2.2e10, 2.1e10, 1.5e6, std::nullopt, 0},
                {"mlx5_1/1", "Ethernet", 400, false, 0, 0, std::nullopt, 1200, std::nullopt}};
  ProcessSample p;
  p.pid = 4242;
  p.ppid = 1;
  p.comm = "python3";
  p.cpu_pct = 180;
  p.rss_bytes = 3ull << 30;
  p.threads = 12;
  p.read_bytes_per_s = 1e6;
  p.write_bytes_per_s = 2e6;
  p.rchar_per_s = 3e6;
  p.read_syscalls_per_s = 400;
  p.opens_per_s = 12;
  p.top_threads = {{4242, "python3", 99.5}, {4250, "pt_data_worker", 40}};
  s.processes.push_back(p);
  ProcessSample child;  // no /proc/PID/io permission
  child.pid = 4300;
  child.ppid = 4242;
  child.comm = "worker";
  s.processes.push_back(child);
  s.workload.cgroup_throttled_pct = 12.5;
  s.workload.cgroup_nr_throttled_per_s = 3;
  s.workload.work_total = 1000 + i;
  return s;
}

Sample BareSample(int i) {
  Sample s;
  s.t = i;
  s.unix_time = 1000 + i;
  s.interval_s = 1;
  return s;
}

void ExpectGpuEq(const GpuSample& a, const GpuSample& b) {
  EXPECT_EQ(a.gpu, b.gpu);
  EXPECT_EQ(a.util_pct, b.util_pct);
  EXPECT_EQ(a.mem_util_pct, b.mem_util_pct);
  EXPECT_EQ(a.sm_clock_mhz, b.sm_clock_mhz);
  EXPECT_EQ(a.mem_clock_mhz, b.mem_clock_mhz);
  EXPECT_EQ(a.power_w, b.power_w);
  EXPECT_EQ(a.energy_j, b.energy_j);
  EXPECT_EQ(a.temperature_c, b.temperature_c);
  EXPECT_EQ(a.clock_event_reasons, b.clock_event_reasons);
  EXPECT_EQ(a.pcie_tx_bytes_per_s, b.pcie_tx_bytes_per_s);
  EXPECT_EQ(a.pcie_rx_bytes_per_s, b.pcie_rx_bytes_per_s);
  EXPECT_EQ(a.memory_used_bytes, b.memory_used_bytes);
  EXPECT_EQ(a.ecc_corrected_volatile, b.ecc_corrected_volatile);
  EXPECT_EQ(a.ecc_uncorrected_volatile, b.ecc_uncorrected_volatile);
  EXPECT_EQ(a.sm_active_pct, b.sm_active_pct);
  EXPECT_EQ(a.sm_occupancy_pct, b.sm_occupancy_pct);
  EXPECT_EQ(a.tensor_active_pct, b.tensor_active_pct);
  EXPECT_EQ(a.dram_bw_util_pct, b.dram_bw_util_pct);
  EXPECT_EQ(a.gpm_pcie_tx_bytes_per_s, b.gpm_pcie_tx_bytes_per_s);
  EXPECT_EQ(a.gpm_pcie_rx_bytes_per_s, b.gpm_pcie_rx_bytes_per_s);
  EXPECT_EQ(a.nvlink_tx_bytes_per_s, b.nvlink_tx_bytes_per_s);
  EXPECT_EQ(a.nvlink_rx_bytes_per_s, b.nvlink_rx_bytes_per_s);
  ASSERT_EQ(a.processes.size(), b.processes.size());
  for (size_t i = 0; i < a.processes.size(); ++i) {
    EXPECT_EQ(a.processes[i].pid, b.processes[i].pid);
    EXPECT_EQ(a.processes[i].used_memory_bytes, b.processes[i].used_memory_bytes);
    EXPECT_EQ(a.processes[i].sm_util_pct, b.processes[i].sm_util_pct);
  }
}

void ExpectSampleEq(const Sample& a, const Sample& b) {
  EXPECT_EQ(a.t, b.t);
  EXPECT_EQ(a.unix_time, b.unix_time);
  EXPECT_EQ(a.interval_s, b.interval_s);
  ASSERT_EQ(a.gpus.size(), b.gpus.size());
  for (size_t i = 0; i < a.gpus.size(); ++i) ExpectGpuEq(a.gpus[i], b.gpus[i]);
  const HostSample &x = a.host, &y = b.host;
  EXPECT_EQ(x.cpu_user_pct, y.cpu_user_pct);
  EXPECT_EQ(x.cpu_system_pct, y.cpu_system_pct);
  EXPECT_EQ(x.cpu_iowait_pct, y.cpu_iowait_pct);
  EXPECT_EQ(x.cpu_steal_pct, y.cpu_steal_pct);
  EXPECT_EQ(x.cpu_idle_pct, y.cpu_idle_pct);
  EXPECT_EQ(x.core_busy_pct, y.core_busy_pct);
  EXPECT_EQ(x.run_queue, y.run_queue);
  EXPECT_EQ(x.psi_cpu_some_pct, y.psi_cpu_some_pct);
  EXPECT_EQ(x.psi_io_some_pct, y.psi_io_some_pct);
  EXPECT_EQ(x.psi_io_full_pct, y.psi_io_full_pct);
  EXPECT_EQ(x.psi_memory_some_pct, y.psi_memory_some_pct);
  EXPECT_EQ(x.psi_memory_full_pct, y.psi_memory_full_pct);
  EXPECT_EQ(x.mem_available_bytes, y.mem_available_bytes);
  EXPECT_EQ(x.major_faults_per_s, y.major_faults_per_s);
  ASSERT_EQ(x.disks.size(), y.disks.size());
  for (size_t i = 0; i < x.disks.size(); ++i) {
    EXPECT_EQ(x.disks[i].device, y.disks[i].device);
    EXPECT_EQ(x.disks[i].read_bytes_per_s, y.disks[i].read_bytes_per_s);
    EXPECT_EQ(x.disks[i].write_bytes_per_s, y.disks[i].write_bytes_per_s);
    EXPECT_EQ(x.disks[i].busy_pct, y.disks[i].busy_pct);
  }
  ASSERT_EQ(x.nets.size(), y.nets.size());
  for (size_t i = 0; i < x.nets.size(); ++i) {
    EXPECT_EQ(x.nets[i].interface, y.nets[i].interface);
    EXPECT_EQ(x.nets[i].rx_bytes_per_s, y.nets[i].rx_bytes_per_s);
    EXPECT_EQ(x.nets[i].tx_bytes_per_s, y.nets[i].tx_bytes_per_s);
  }
  ASSERT_EQ(x.ib_ports.size(), y.ib_ports.size());
  for (size_t i = 0; i < x.ib_ports.size(); ++i) {
    const IbPortSample &p = x.ib_ports[i], &q = y.ib_ports[i];
    EXPECT_EQ(p.port, q.port);
    EXPECT_EQ(p.link_layer, q.link_layer);
    EXPECT_EQ(p.rate_gbps, q.rate_gbps);
    EXPECT_EQ(p.active, q.active);
    EXPECT_EQ(p.rx_bytes_per_s, q.rx_bytes_per_s);
    EXPECT_EQ(p.tx_bytes_per_s, q.tx_bytes_per_s);
    EXPECT_EQ(p.xmit_wait_per_s, q.xmit_wait_per_s);
    EXPECT_EQ(p.cnp_per_s, q.cnp_per_s);
    EXPECT_EQ(p.errors_per_s, q.errors_per_s);
  }
  ASSERT_EQ(a.processes.size(), b.processes.size());
  for (size_t i = 0; i < a.processes.size(); ++i) {
    const ProcessSample &p = a.processes[i], &q = b.processes[i];
    EXPECT_EQ(p.pid, q.pid);
    EXPECT_EQ(p.ppid, q.ppid);
    EXPECT_EQ(p.comm, q.comm);
    EXPECT_EQ(p.cpu_pct, q.cpu_pct);
    EXPECT_EQ(p.rss_bytes, q.rss_bytes);
    EXPECT_EQ(p.threads, q.threads);
    EXPECT_EQ(p.read_bytes_per_s, q.read_bytes_per_s);
    EXPECT_EQ(p.write_bytes_per_s, q.write_bytes_per_s);
    EXPECT_EQ(p.rchar_per_s, q.rchar_per_s);
    EXPECT_EQ(p.read_syscalls_per_s, q.read_syscalls_per_s);
    EXPECT_EQ(p.opens_per_s, q.opens_per_s);
    ASSERT_EQ(p.top_threads.size(), q.top_threads.size());
    for (size_t j = 0; j < p.top_threads.size(); ++j) {
      EXPECT_EQ(p.top_threads[j].tid, q.top_threads[j].tid);
      EXPECT_EQ(p.top_threads[j].comm, q.top_threads[j].comm);
      EXPECT_EQ(p.top_threads[j].cpu_pct, q.top_threads[j].cpu_pct);
    }
  }
  EXPECT_EQ(a.workload.cgroup_throttled_pct, b.workload.cgroup_throttled_pct);
  EXPECT_EQ(a.workload.cgroup_nr_throttled_per_s, b.workload.cgroup_nr_throttled_per_s);
  EXPECT_EQ(a.workload.work_total, b.workload.work_total);
}

TEST(RecordingStoreTest, RoundTripsEveryField) {
  test::TempTree tree("rec_roundtrip");
  std::string path = tree.Path("r.gpuvet");
  RecordingMeta meta = FullMeta();
  auto w = RecordingWriter::Create(path, meta);
  ASSERT_TRUE(w.ok()) << w.status().message();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE((*w)->Append(FullSample(i)).ok());
  ASSERT_TRUE((*w)->Append(BareSample(3)).ok());
  ASSERT_TRUE((*w)->Finish(1764489700.5, 3).ok());
  EXPECT_FALSE(PathExists(path + "-wal"));

  auto r = ReadRecording(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const RecordingMeta& m = r->meta;
  EXPECT_EQ(m.schema_version, kRecordingSchemaVersion);
  EXPECT_EQ(m.producer, meta.producer);
  EXPECT_EQ(m.host, meta.host);
  EXPECT_EQ(m.kernel_release, meta.kernel_release);
  EXPECT_EQ(m.driver_version, meta.driver_version);
  EXPECT_EQ(m.cuda_version, meta.cuda_version);
  EXPECT_EQ(m.command, meta.command);
  EXPECT_EQ(m.target_pid, meta.target_pid);
  EXPECT_EQ(m.interval_s, meta.interval_s);
  EXPECT_EQ(m.start_unix_s, meta.start_unix_s);
  EXPECT_EQ(m.end_unix_s, std::optional<double>(1764489700.5));
  EXPECT_EQ(m.exit_code, std::optional<int>(3));
  EXPECT_EQ(m.online_cpus, meta.online_cpus);
  EXPECT_EQ(m.cpu_quota_cores, meta.cpu_quota_cores);
  EXPECT_EQ(m.work_unit, meta.work_unit);
  EXPECT_EQ(m.notes, meta.notes);
  ASSERT_EQ(m.gpus.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const RecordedGpu &a = m.gpus[i], &b = meta.gpus[i];
    EXPECT_EQ(a.index, b.index);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.uuid, b.uuid);
    EXPECT_EQ(a.pci_bus_id, b.pci_bus_id);
    EXPECT_EQ(a.memory_total_bytes, b.memory_total_bytes);
    EXPECT_EQ(a.power_limit_w, b.power_limit_w);
    EXPECT_EQ(a.sm_clock_max_mhz, b.sm_clock_max_mhz);
    EXPECT_EQ(a.mem_clock_max_mhz, b.mem_clock_max_mhz);
    EXPECT_EQ(a.pcie_gen_max, b.pcie_gen_max);
    EXPECT_EQ(a.pcie_width_max, b.pcie_width_max);
    EXPECT_EQ(a.numa_node, b.numa_node);
  }
  ASSERT_EQ(r->samples.size(), 4u);
  for (int i = 0; i < 3; ++i) ExpectSampleEq(r->samples[i], FullSample(i));
  ExpectSampleEq(r->samples[3], BareSample(3));
}

TEST(RecordingStoreTest, AbsentEndAndExitCodeStayAbsent) {
  test::TempTree tree("rec_noend");
  std::string path = tree.Path("r.gpuvet");
  RecordingMeta meta;
  meta.producer = "p";
  auto w = RecordingWriter::Create(path, meta);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Finish(std::nullopt, std::nullopt).ok());
  EXPECT_FALSE((*w)->Append(BareSample(0)).ok());  // finished
  auto r = ReadRecording(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->meta.end_unix_s.has_value());
  EXPECT_FALSE(r->meta.exit_code.has_value());
  EXPECT_FALSE(r->meta.cpu_quota_cores.has_value());
  EXPECT_TRUE(r->meta.command.empty());
  EXPECT_TRUE(r->samples.empty());
}

TEST(RecordingStoreTest, CreateReplacesAnExistingFile) {
  test::TempTree tree("rec_replace");
  std::string path = tree.Path("r.gpuvet");
  tree.Write("r.gpuvet", "old contents");
  auto w = RecordingWriter::Create(path, FullMeta());
  ASSERT_TRUE(w.ok()) << w.status().message();
  ASSERT_TRUE((*w)->Append(FullSample(0)).ok());
  ASSERT_TRUE((*w)->Finish(std::nullopt, 0).ok());
  auto r = ReadRecording(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->samples.size(), 1u);
}

// The child writes samples, then SIGKILLs itself while the writer is open: the file it leaves
// (main file + WAL) must read back with every committed sample and no end time or exit code.
TEST(RecordingStoreTest, ReadsARecordingWhoseWriterWasKilled) {
  test::TempTree tree("rec_killed");
  std::string path = tree.Path("r.gpuvet");
  constexpr int kSamples = 25;
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto w = RecordingWriter::Create(path, FullMeta());
    if (!w.ok()) _exit(10);
    for (int i = 0; i < kSamples; ++i) {
      if (!(*w)->Append(FullSample(i)).ok()) _exit(11);
    }
    kill(getpid(), SIGKILL);
    _exit(12);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  EXPECT_TRUE(PathExists(path + "-wal"));

  auto r = ReadRecording(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_GE(r->samples.size(), static_cast<size_t>(kSamples - 1));
  EXPECT_FALSE(r->meta.end_unix_s.has_value());
  EXPECT_FALSE(r->meta.exit_code.has_value());
  EXPECT_EQ(r->meta.host, "node-7");
  ExpectSampleEq(r->samples[5], FullSample(5));
}

// RLIMIT_FSIZE with SIGXFSZ ignored makes write() fail with EFBIG, as a full disk fails with
// ENOSPC: Append must return a Status naming the file (in a child, so the limit stays there).
TEST(RecordingStoreTest, AWriteErrorIsAStatusNamingTheFile) {
  test::TempTree tree("rec_efbig");
  std::string path = tree.Path("r.gpuvet");
  std::string message_path = tree.Path("message.txt");
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    auto w = RecordingWriter::Create(path, FullMeta());
    if (!w.ok()) _exit(10);
    struct rlimit limit = {256 * 1024, 256 * 1024};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(11);
    Status first;
    int appended = 0;
    for (int i = 0; i < 100000 && first.ok(); ++i) {
      first = (*w)->Append(FullSample(i));
      if (first.ok()) ++appended;
    }
    if (first.ok()) _exit(12);
    Status again = (*w)->Append(FullSample(0));  // the same error, the file untouched
    if (again.message() != first.message()) _exit(13);
    limit = {RLIM_INFINITY, RLIM_INFINITY};
    setrlimit(RLIMIT_FSIZE, &limit);
    FILE* f = std::fopen(message_path.c_str(), "w");
    if (f == nullptr) _exit(14);
    std::fprintf(f, "%d\n%s", appended, first.message().c_str());
    std::fclose(f);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  FILE* f = std::fopen(message_path.c_str(), "r");
  ASSERT_NE(f, nullptr);
  int appended = 0;
  char buf[1024] = {};
  ASSERT_EQ(std::fscanf(f, "%d\n", &appended), 1);
  size_t n = std::fread(buf, 1, sizeof(buf) - 1, f);
  std::fclose(f);
  std::string message(buf, n);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("file size limit"), std::string::npos) << message;
  EXPECT_GT(appended, 0);

  auto r = ReadRecording(path);  // what was committed before the error is still there
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_GE(r->samples.size(), static_cast<size_t>(appended) - 1);
}

TEST(RecordingStoreTest, RefusesAFileThatIsNotSqlite) {
  test::TempTree tree("rec_text");
  tree.Write("r.gpuvet", "# gpu   pwr  gtemp\n# Idx     W      C\n    0    63     40\n");
  auto r = ReadRecording(tree.Path("r.gpuvet"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(r.status().message().find("not an SQLite database"), std::string::npos);
  tree.Write("empty", "");
  EXPECT_EQ(ReadRecording(tree.Path("empty")).status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(ReadRecording(tree.Path("missing")).status().code(), StatusCode::kNotFound);
}

void Exec(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

TEST(RecordingStoreTest, RefusesAnSqliteFileThatIsNotARecording) {
  test::TempTree tree("rec_foreign");
  std::string path = tree.Path("other.sqlite");
  Exec(path, "CREATE TABLE samples (x); INSERT INTO samples VALUES (1);");
  auto r = ReadRecording(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(r.status().message().find("not a gpuvet recording"), std::string::npos)
      << r.status().message();
}

TEST(RecordingStoreTest, RefusesANewerSchemaVersion) {
  test::TempTree tree("rec_newer");
  std::string path = tree.Path("r.gpuvet");
  auto w = RecordingWriter::Create(path, FullMeta());
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Finish(std::nullopt, std::nullopt).ok());
  const int newer = kRecordingSchemaVersion + 1;
  Exec(path, ("PRAGMA user_version=" + std::to_string(newer) + ";").c_str());
  auto r = ReadRecording(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(r.status().message().find("schema version " + std::to_string(newer)), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("newer gpuvet"), std::string::npos);
}

// Recordings written before the RDMA port table (ib_samples) was added read with no ports.
TEST(RecordingStoreTest, ARecordingWithoutTheRdmaTableReadsWithNoPorts) {
  test::TempTree tree("rec_no_ib");
  std::string path = tree.Path("r.gpuvet");
  RecordingWriterOptions v2;
  v2.schema_version = 2;  // the table exists in versions 1 and 2 only
  auto w = RecordingWriter::Create(path, FullMeta(), v2);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Append(FullSample(1)).ok());
  ASSERT_TRUE((*w)->Finish(std::nullopt, std::nullopt).ok());
  Exec(path, "DROP TABLE ib_samples;");
  auto r = ReadRecording(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->samples.size(), 1u);
  EXPECT_TRUE(r->samples[0].host.ib_ports.empty());
  EXPECT_EQ(r->samples[0].host.nets.size(), 1u);
}

TEST(RecordingStoreTest, ADamagedBlobIsAnErrorNamingTheSample) {
  test::TempTree tree("rec_damaged");
  std::string path = tree.Path("r.gpuvet");
  auto w = RecordingWriter::Create(path, FullMeta());
  ASSERT_TRUE(w.ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE((*w)->Append(FullSample(i)).ok());
  ASSERT_TRUE((*w)->Finish(std::nullopt, std::nullopt).ok());
  Exec(path, "UPDATE samples SET gpus = x'0000000001' WHERE sample_id = 2;");
  auto r = ReadRecording(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(r.status().message().find("damaged gpus blob in sample 2"), std::string::npos)
      << r.status().message();
}

// A newer writer may append fields (more slots per GPU record): this reader skips them.
TEST(RecordingPackingTest, SkipsSlotsAddedByANewerLayout) {
  std::vector<GpuSample> in(2);
  in[0].gpu = 3;
  in[0].util_pct = 50;
  in[0].nvlink_rx_bytes_per_s = 7;
  in[0].processes = {{99, 1024, std::nullopt}};
  in[1].gpu = 4;
  std::string blob = PackGpus(in);
  const size_t record0 = 12 + 21 * 8 + 24;
  ASSERT_EQ(blob.size(), record0 + 12 + 21 * 8);
  // Rewrite both records as if they had one extra slot.
  std::string newer;
  size_t at = 0;
  for (size_t bytes : {record0, size_t{12 + 21 * 8}}) {
    std::string rec = blob.substr(at, bytes);
    at += bytes;
    rec[8] = 22;  // slot count (uint16 little-endian)
    rec.insert(12 + 21 * 8, std::string(8, '\x7f'));
    newer += rec;
  }
  std::vector<GpuSample> out;
  ASSERT_TRUE(UnpackGpus(newer, &out));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].gpu, 3);
  EXPECT_EQ(out[0].util_pct, std::optional<double>(50));
  EXPECT_FALSE(out[0].mem_util_pct.has_value());
  EXPECT_EQ(out[0].nvlink_rx_bytes_per_s, std::optional<double>(7));
  ASSERT_EQ(out[0].processes.size(), 1u);
  EXPECT_EQ(out[0].processes[0].pid, 99u);
  EXPECT_EQ(out[0].processes[0].used_memory_bytes, std::optional<uint64_t>(1024));
  EXPECT_FALSE(out[0].processes[0].sm_util_pct.has_value());
  EXPECT_EQ(out[1].gpu, 4);
}

// A GPU record as a writer whose field list has `slots` fields packs it: today's fields up to
// `slots` (a previous list when fewer), then the fields a next list appended, each holding 42.
std::string PackWithFieldList(const GpuSample& g, size_t slots) {
  std::string fields;
  uint32_t mask = 0;
  size_t bit = 0;
  auto put = [&](const auto& v) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    if (bit < slots) {
      T x = v.value_or(T{});
      fields.append(reinterpret_cast<const char*>(&x), sizeof(x));
      if (v) mask |= 1u << bit;
    }
    ++bit;
  };
#define GPUVET_PUT(name, kind) put(g.name);
  GPUVET_GPU_SAMPLE_FIELDS(GPUVET_PUT)
#undef GPUVET_PUT
  for (size_t i = bit; i < slots; ++i) {
    double x = 42;
    fields.append(reinterpret_cast<const char*>(&x), sizeof(x));
    mask |= 1u << i;
  }
  std::string out;
  auto raw = [&out](const auto& v) { out.append(reinterpret_cast<const char*>(&v), sizeof(v)); };
  raw(static_cast<int32_t>(g.gpu));
  raw(mask);
  raw(static_cast<uint16_t>(slots));
  raw(static_cast<uint16_t>(g.processes.size()));
  out += fields;
  for (const GpuProcessSample& p : g.processes) {
    raw(p.pid);
    raw(static_cast<uint32_t>((p.used_memory_bytes ? 1u : 0u) | (p.sm_util_pct ? 2u : 0u)));
    raw(p.used_memory_bytes.value_or(0));
    raw(p.sm_util_pct.value_or(0.0));
  }
  return out;
}

// Recordings survive an upgrade both ways (docs/recording.md, "Compatibility"): today's reader
// reads a GPU blob of the previous field list (the field appended since reads as absent) and of
// the next one (the extra field skipped), and the blob it packs itself is the same bytes as the
// test's packer makes with today's list.
TEST(RecordingPackingTest, ReadsThePreviousAndTheNextFieldList) {
  GpuSample g = FullSample(3).gpus.at(0);
  g.nvlink_rx_bytes_per_s = 9;  // the last field of today's list
  size_t today = 0;
#define GPUVET_COUNT(name, kind) ++today;
  GPUVET_GPU_SAMPLE_FIELDS(GPUVET_COUNT)
#undef GPUVET_COUNT
  ASSERT_EQ(PackWithFieldList(g, today), PackGpus({g}));

  std::vector<GpuSample> next;
  ASSERT_TRUE(UnpackGpus(PackWithFieldList(g, today + 1) + PackWithFieldList(g, today + 3), &next));
  ASSERT_EQ(next.size(), 2u);
  ExpectGpuEq(next[0], g);
  ExpectGpuEq(next[1], g);

  // Decoded into a vector that held today's sample: nothing of it survives in the absent field.
  std::vector<GpuSample> previous = {g};
  ASSERT_TRUE(ReplaceGpus(PackWithFieldList(g, today - 1), &previous));
  ASSERT_EQ(previous.size(), 1u);
  EXPECT_FALSE(previous[0].nvlink_rx_bytes_per_s.has_value());
  GpuSample want = g;
  want.nvlink_rx_bytes_per_s.reset();
  ExpectGpuEq(previous[0], want);
  std::vector<GpuSample> first_list;  // an older list of 13 fields: every later one absent
  ASSERT_TRUE(UnpackGpus(PackWithFieldList(g, 13), &first_list));
  EXPECT_EQ(first_list.at(0).util_pct, g.util_pct);
  EXPECT_FALSE(first_list.at(0).sm_active_pct.has_value());
  EXPECT_EQ(first_list.at(0).processes.size(), g.processes.size());
}

// The samples row both ways: a column appended after the file was written reads as absent, a
// column a newer writer appended is not read.
TEST(RecordingStoreTest, ReadsASamplesRowWithAColumnLessOrMore) {
  test::TempTree tree("rec_columns");
  for (bool more : {false, true}) {
    std::string path = tree.Path(more ? "more.gpuvet" : "less.gpuvet");
    auto w = RecordingWriter::Create(path, FullMeta());
    ASSERT_TRUE(w.ok());
    for (int i = 0; i < 3; ++i) ASSERT_TRUE((*w)->Append(FullSample(i)).ok());
    ASSERT_TRUE((*w)->Finish(std::nullopt, std::nullopt).ok());
    Exec(path, more ? "ALTER TABLE samples ADD COLUMN next_field REAL; "
                      "UPDATE samples SET next_field = 42;"
                    : "ALTER TABLE samples DROP COLUMN processes;");  // the last column
    auto r = ReadRecording(path);
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_EQ(r->samples.size(), 3u);
    for (int i = 0; i < 3; ++i) {
      Sample want = FullSample(i);
      if (!more) want.processes.clear();
      ExpectSampleEq(r->samples[i], want);
    }
  }
}

// Files of every released schema version, written from docs/recording.md by
// tests/fixtures/recordings/generate.py (not by this writer), read with the same samples.
TEST(RecordingStoreTest, ReleasedSchemaFixturesRead) {
  std::vector<Recording> read;
  for (int version : {1, 2, 3}) {
    const std::string path = std::string(GPUVET_SOURCE_DIR) + "/tests/fixtures/recordings/v" +
                             std::to_string(version) + ".gpuvet";
    auto r = ReadRecording(path);
    ASSERT_TRUE(r.ok()) << path << ": " << r.status().message();
    EXPECT_EQ(r->meta.schema_version, version);
    EXPECT_EQ(r->meta.host, "node-7");
    ASSERT_EQ(r->meta.gpus.size(), 1u);
    ASSERT_EQ(r->samples.size(), 3u) << path;
    const Sample& s = r->samples[1];
    EXPECT_EQ(s.t, 1.0);
    ASSERT_EQ(s.gpus.size(), 1u);
    EXPECT_EQ(s.gpus[0].util_pct, std::optional<double>(41));
    EXPECT_FALSE(s.gpus[0].sm_active_pct.has_value());
    EXPECT_EQ(s.gpus[0].nvlink_rx_bytes_per_s, std::optional<double>(4e9));
    ASSERT_EQ(s.gpus[0].processes.size(), 1u);
    EXPECT_EQ(s.gpus[0].processes[0].pid, 4242u);
    ASSERT_EQ(s.host.disks.size(), 1u);
    EXPECT_EQ(s.host.disks[0].device, "nvme0n1");
    ASSERT_EQ(s.host.ib_ports.size(), 1u);
    EXPECT_FALSE(s.host.ib_ports[0].cnp_per_s.has_value());
    ASSERT_EQ(s.processes.size(), 1u);
    EXPECT_EQ(s.processes[0].comm, "python3");
    EXPECT_FALSE(s.processes[0].write_bytes_per_s.has_value());
    ASSERT_EQ(s.processes[0].top_threads.size(), 1u);
    EXPECT_EQ(s.processes[0].top_threads[0].comm, "loader");
    EXPECT_EQ(r->events.size(), version >= 2 ? 1u : 0u);
    read.push_back(std::move(*r));
  }
  for (size_t v = 1; v < read.size(); ++v) {
    for (size_t i = 0; i < read[0].samples.size(); ++i) {
      ExpectSampleEq(read[v].samples[i], read[0].samples[i]);
    }
  }
}

TEST(RecordingPackingTest, TruncatedBlobsReportFalse) {
  std::vector<GpuSample> in(1);
  in[0].util_pct = 1;
  std::string blob = PackGpus(in);
  for (size_t cut = 1; cut < blob.size(); ++cut) {
    std::vector<GpuSample> out;
    EXPECT_FALSE(UnpackGpus(blob.substr(0, cut), &out)) << cut;
  }
  std::vector<ThreadSample> threads;
  EXPECT_FALSE(
      UnpackThreads(PackThreads({{1, "a-very-long-thread-name", 5}}).substr(0, 27), &threads));
  threads.clear();
  ASSERT_TRUE(UnpackThreads(PackThreads({{1, "a-very-long-thread-name", 5}}), &threads));
  EXPECT_EQ(threads[0].comm, "a-very-long-thr");  // TASK_COMM_LEN - 1
  std::vector<double> cores;
  EXPECT_FALSE(UnpackDoubles("abc", &cores));
}

// A copy cut short (an interrupted scp) is an error naming the file, never a crash.
TEST(RecordingStoreTest, ATruncatedFileIsAnErrorNotACrash) {
  test::TempTree tree("rec_truncated");
  std::string path = tree.Path("r.gpuvet");
  auto w = RecordingWriter::Create(path, FullMeta());
  ASSERT_TRUE(w.ok());
  for (int i = 0; i < 200; ++i) ASSERT_TRUE((*w)->Append(FullSample(i)).ok());
  ASSERT_TRUE((*w)->Finish(std::nullopt, 0).ok());
  auto whole = ReadFile(path);
  ASSERT_TRUE(whole.ok());
  for (size_t keep : {size_t{100}, whole->size() / 3, whole->size() / 2, whole->size() - 1}) {
    tree.Write("cut.gpuvet", whole->substr(0, keep));
    auto r = ReadRecording(tree.Path("cut.gpuvet"));
    if (r.ok()) {
      EXPECT_LE(r->samples.size(), 200u) << keep;  // SQLite may serve what is still whole
    } else {
      EXPECT_NE(r.status().message().find("cut.gpuvet"), std::string::npos)
          << keep << ": " << r.status().message();
    }
  }
}

TEST(RecordingStoreTest, CreateFailsWithAMessageForAnUnwritableDirectory) {
  auto w = RecordingWriter::Create("/nonexistent-dir/x/r.gpuvet", FullMeta());
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("/nonexistent-dir/x/r.gpuvet"), std::string::npos)
      << w.status().message();
}

}  // namespace
}  // namespace gpuvet

namespace gpuvet {
namespace {

TEST(RecordingStoreTest, AVersionOneFileStillReadsWithoutEvents) {
  test::TempTree tree("rec_v1");
  std::string path = tree.Path("r.gpuvet");
  RecordingWriterOptions v2;
  v2.schema_version = 2;  // version 1 is version 2 without events
  auto w = RecordingWriter::Create(path, FullMeta(), v2);
  ASSERT_TRUE(w.ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE((*w)->Append(FullSample(i)).ok());
  ASSERT_TRUE((*w)->Finish(std::nullopt, std::nullopt).ok());
  Exec(path, "DROP TABLE events; PRAGMA user_version=1;");  // what gpuvet wrote before events
  auto r = ReadRecording(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->meta.schema_version, 1);
  ASSERT_EQ(r->samples.size(), 3u);
  for (int i = 0; i < 3; ++i) ExpectSampleEq(r->samples[i], FullSample(i));
  EXPECT_TRUE(r->events.empty());
}

TEST(RecordingStoreTest, EventsRoundTripAndATruncatedFileNamesTheOffset) {
  test::TempTree tree("rec_events");
  std::string path = tree.Path("r.gpuvet");
  auto w = RecordingWriter::Create(path, FullMeta());
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->AppendEvent({1.5, RecordingEventKind::kGpuLost, "gpu1", "lost"}).ok());
  for (int i = 0; i < 400; ++i) ASSERT_TRUE((*w)->Append(FullSample(i)).ok());
  ASSERT_TRUE((*w)->Finish(std::nullopt, std::nullopt).ok());
  auto r = ReadRecording(path);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->events.size(), 1u);
  EXPECT_EQ(r->events[0].kind, RecordingEventKind::kGpuLost);
  EXPECT_EQ(r->events[0].subject, "gpu1");
  EXPECT_EQ(r->events[0].t, 1.5);
  // Cut the file in half: the cursor reads what it can and says where the file ends.
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  auto c = RecordingCursor::Open(path);
  if (!c.ok()) {
    EXPECT_NE(c.status().message().find("truncated at byte"), std::string::npos)
        << c.status().message();
    return;
  }
  Sample s;
  int n = 0;
  while ((*c)->Next(&s)) ++n;
  EXPECT_LT(n, 400);
  EXPECT_NE((*c)->damage().find("truncated at byte"), std::string::npos) << (*c)->damage();
}

// analyze's survey pass: the times, the GPUs and the processes' RSS, the rest left absent; a
// Rewind with every part reads everything again.
TEST(RecordingStoreTest, ACursorReadsOnlyThePartsAsked) {
  test::TempTree tree("rec_parts");
  std::string path = tree.Path("r.gpuvet");
  auto w = RecordingWriter::Create(path, FullMeta());
  ASSERT_TRUE(w.ok());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE((*w)->Append(FullSample(i)).ok());
  ASSERT_TRUE((*w)->Finish(std::nullopt, std::nullopt).ok());
  auto whole = ReadRecording(path);
  ASSERT_TRUE(whole.ok());
  ASSERT_FALSE(whole->samples[2].processes.empty());
  ASSERT_TRUE(whole->samples[2].host.cpu_user_pct.has_value());
  RecordingParts survey;
  survey.disks = survey.nets = survey.host = survey.process_details = false;
  auto c = RecordingCursor::Open(path, survey);
  ASSERT_TRUE(c.ok());
  Sample s;
  for (int pass = 0; pass < 2; ++pass) {
    int n = 0;
    while ((*c)->Next(&s)) {
      const Sample& want = whole->samples[n++];
      EXPECT_EQ(s.t, want.t);
      EXPECT_EQ(s.unix_time, want.unix_time);
      EXPECT_EQ(s.interval_s, want.interval_s);
      ASSERT_EQ(s.gpus.size(), want.gpus.size());
      EXPECT_EQ(s.gpus[0].util_pct, want.gpus[0].util_pct);
      EXPECT_EQ(s.gpus[0].processes.size(), want.gpus[0].processes.size());
      ASSERT_EQ(s.processes.size(), want.processes.size());
      EXPECT_EQ(s.processes[0].pid, want.processes[0].pid);
      EXPECT_EQ(s.processes[0].rss_bytes, want.processes[0].rss_bytes);
      if (pass == 0) {
        EXPECT_TRUE(s.processes[0].comm.empty());
        EXPECT_TRUE(s.processes[0].top_threads.empty());
        EXPECT_FALSE(s.host.cpu_user_pct.has_value());
        EXPECT_TRUE(s.host.disks.empty());
        EXPECT_TRUE(s.host.core_busy_pct.empty());
        EXPECT_FALSE(s.workload.work_total.has_value());
      } else {
        EXPECT_EQ(s.processes[0].comm, want.processes[0].comm);
        EXPECT_EQ(s.processes[0].top_threads.size(), want.processes[0].top_threads.size());
        EXPECT_EQ(s.host.cpu_user_pct, want.host.cpu_user_pct);
        EXPECT_EQ(s.host.disks.size(), want.host.disks.size());
        EXPECT_EQ(s.host.core_busy_pct, want.host.core_busy_pct);
        EXPECT_EQ(s.workload.work_total, want.workload.work_total);
      }
    }
    EXPECT_EQ(n, 5);
    ASSERT_TRUE((*c)->Rewind(RecordingParts()).ok());
  }
}

// Version 3 packs the child rows into the samples row; a version 2 file (child tables) of the same
// samples reads back the same, whole and through the survey pass's parts.
TEST(RecordingStoreTest, BothLayoutsReadTheSameSamples) {
  test::TempTree tree("rec_layouts");
  auto samples = [] {
    std::vector<Sample> v;
    for (int i = 0; i < 4; ++i) v.push_back(FullSample(i));
    v.push_back(BareSample(4));
    Sample nan = FullSample(5);  // SQLite stores a NaN as NULL: absent in both layouts
    nan.processes[0].read_bytes_per_s = std::nan("");
    nan.host.ib_ports[0].cnp_per_s = std::nan("");
    nan.host.nets.push_back({std::string(300, 'n'), 5, 6});  // a long name
    v.push_back(nan);
    return v;
  }();
  std::vector<Recording> read;
  for (int version : {2, 3}) {
    std::string path = tree.Path("v" + std::to_string(version) + ".gpuvet");
    RecordingWriterOptions options;
    options.schema_version = version;
    auto w = RecordingWriter::Create(path, FullMeta(), options);
    ASSERT_TRUE(w.ok()) << w.status().message();
    EXPECT_EQ((*w)->version(), version);
    for (const Sample& s : samples) ASSERT_TRUE((*w)->Append(s).ok());
    ASSERT_TRUE((*w)->Finish(std::nullopt, std::nullopt).ok());
    auto r = ReadRecording(path);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->meta.schema_version, version);
    read.push_back(std::move(*r));

    RecordingParts survey;
    survey.disks = survey.nets = survey.host = survey.process_details = false;
    auto c = RecordingCursor::Open(path, survey);
    ASSERT_TRUE(c.ok());
    Sample s;
    size_t n = 0;
    while ((*c)->Next(&s)) {
      ASSERT_LT(n, samples.size());
      Sample want;  // what the survey reads: the times, the GPUs, the processes' pid and RSS
      want.t = samples[n].t, want.unix_time = samples[n].unix_time;
      want.interval_s = samples[n].interval_s, want.gpus = samples[n].gpus;
      for (const ProcessSample& p : samples[n].processes) {
        want.processes.emplace_back().pid = p.pid;
        want.processes.back().rss_bytes = p.rss_bytes;
      }
      ExpectSampleEq(s, want);
      ++n;
    }
    EXPECT_EQ(n, samples.size());
    EXPECT_TRUE((*c)->damage().empty()) << (*c)->damage();
  }
  ASSERT_EQ(read[0].samples.size(), samples.size());
  ASSERT_EQ(read[1].samples.size(), samples.size());
  for (size_t i = 0; i < samples.size(); ++i) {
    ExpectSampleEq(read[0].samples[i], read[1].samples[i]);
    if (i < 5) ExpectSampleEq(read[1].samples[i], samples[i]);
  }
  EXPECT_FALSE(read[1].samples[5].processes[0].read_bytes_per_s.has_value());
  EXPECT_FALSE(read[1].samples[5].host.ib_ports[0].cnp_per_s.has_value());
  EXPECT_EQ(read[1].samples[5].host.nets[1].interface, std::string(300, 'n'));
}

// A damaged child blob ends the samples there, with the sample named, in either pass.
TEST(RecordingStoreTest, ADamagedChildBlobIsAnErrorNamingTheSample) {
  for (const char* column : {"disks", "nets", "ib_ports", "processes"}) {
    test::TempTree tree("rec_damaged_child");
    std::string path = tree.Path("r.gpuvet");
    auto w = RecordingWriter::Create(path, FullMeta());
    ASSERT_TRUE(w.ok());
    for (int i = 0; i < 3; ++i) ASSERT_TRUE((*w)->Append(FullSample(i)).ok());
    ASSERT_TRUE((*w)->Finish(std::nullopt, std::nullopt).ok());
    Exec(path, ("UPDATE samples SET " + std::string(column) + " = substr(" + column +
                ", 1, 7) WHERE sample_id = 1;")
                   .c_str());
    auto r = ReadRecording(path);
    ASSERT_FALSE(r.ok()) << column;
    EXPECT_NE(r.status().message().find(std::string("damaged ") + column + " blob in sample 1"),
              std::string::npos)
        << r.status().message();
    RecordingParts survey;
    survey.disks = survey.nets = survey.host = survey.process_details = false;
    auto c = RecordingCursor::Open(path, survey);
    ASSERT_TRUE(c.ok());
    Sample s;
    int n = 0;
    while ((*c)->Next(&s)) ++n;
    // The survey reads the processes only: other damaged blobs are found by the main pass.
    EXPECT_EQ(n, std::string(column) == "processes" ? 1 : 3) << column;
  }
}

// Every packed child layout: a round trip, a cut at every byte (false unless the cut falls
// between two records, and the whole records before it kept) and fixed-seed mutations (never a
// crash, never more records than the bytes allow).
template <typename T, typename Pack, typename Unpack, typename Eq>
void CheckChildLayout(const std::vector<T>& in, Pack pack, Unpack unpack, Eq eq) {
  const std::string blob = pack(in);
  std::vector<size_t> ends;  // where each record ends
  for (size_t i = 1; i <= in.size(); ++i) {
    ends.push_back(pack(std::vector<T>(in.begin(), in.begin() + static_cast<long>(i))).size());
  }
  std::vector<T> out;
  ASSERT_TRUE(unpack(blob, &out));
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) eq(out[i], in[i]);
  for (size_t cut = 0; cut < blob.size(); ++cut) {
    std::vector<T> part(in);  // decoded into a vector holding more: replaced, not appended
    const bool whole = cut == 0 || std::count(ends.begin(), ends.end(), cut) > 0;
    EXPECT_EQ(unpack(std::string_view(blob).substr(0, cut), &part), whole) << cut;
    size_t kept =
        static_cast<size_t>(std::upper_bound(ends.begin(), ends.end(), cut) - ends.begin());
    ASSERT_EQ(part.size(), kept) << cut;
    for (size_t i = 0; i < kept; ++i) eq(part[i], in[i]);
  }
  std::mt19937 rng(14);
  for (int round = 0; round < 3000; ++round) {
    std::string m = blob;
    for (int k = 0, edits = 1 + static_cast<int>(rng() % 4); k < edits && !m.empty(); ++k) {
      size_t at = rng() % m.size();
      switch (rng() % 3) {
        case 0:
          m[at] = static_cast<char>(rng());
          break;
        case 1:
          m.erase(at, 1 + rng() % 8);
          break;
        default:
          m.insert(at, std::string(1 + rng() % 4, static_cast<char>(rng())));
          break;
      }
    }
    std::vector<T> got;
    unpack(m, &got);
    EXPECT_LE(got.size(), m.size());
  }
}

void ExpectProcessEq(const ProcessSample& a, const ProcessSample& b) {
  Sample x, y;
  x.processes = {a};
  y.processes = {b};
  ExpectSampleEq(x, y);
}

TEST(RecordingPackingTest, ChildLayoutsRoundTripAndSurviveCutsAndMutations) {
  const Sample full = FullSample(1);
  CheckChildLayout(full.host.disks, PackDisks, UnpackDisks,
                   [](const DiskSample& a, const DiskSample& b) {
                     EXPECT_EQ(a.device, b.device);
                     EXPECT_EQ(a.read_bytes_per_s, b.read_bytes_per_s);
                     EXPECT_EQ(a.write_bytes_per_s, b.write_bytes_per_s);
                     EXPECT_EQ(a.busy_pct, b.busy_pct);
                   });
  CheckChildLayout(std::vector<NetSample>{{"eth0", 1, 2}, {"", 0, 3}, {"ib0", 4, 5}}, PackNets,
                   UnpackNets, [](const NetSample& a, const NetSample& b) {
                     EXPECT_EQ(a.interface, b.interface);
                     EXPECT_EQ(a.rx_bytes_per_s, b.rx_bytes_per_s);
                     EXPECT_EQ(a.tx_bytes_per_s, b.tx_bytes_per_s);
                   });
  CheckChildLayout(full.host.ib_ports, PackIbPorts, UnpackIbPorts,
                   [](const IbPortSample& a, const IbPortSample& b) {
                     Sample x, y;
                     x.host.ib_ports = {a};
                     y.host.ib_ports = {b};
                     ExpectSampleEq(x, y);
                   });
  CheckChildLayout(
      full.processes, PackProcesses,
      [](std::string_view b, std::vector<ProcessSample>* out) {
        return UnpackProcesses(b, true, out);
      },
      ExpectProcessEq);
  // pid and RSS only: the other fields are a default process's, whatever the vector held.
  std::vector<ProcessSample> lean(full.processes);
  ASSERT_TRUE(UnpackProcesses(PackProcesses(full.processes), false, &lean));
  ASSERT_EQ(lean.size(), 2u);
  ProcessSample want;
  want.pid = full.processes[0].pid;
  want.rss_bytes = full.processes[0].rss_bytes;
  ExpectProcessEq(lean[0], want);
}

// Decoding sample after sample into one vector (the cursor's reuse) leaves nothing of the
// earlier, larger sample behind.
TEST(RecordingPackingTest, ReplacingDecodersKeepNothingOfTheLastSample) {
  const Sample full = FullSample(2);
  Sample bare = FullSample(2);  // the same sample with fewer and emptier children
  bare.gpus.resize(1);
  bare.gpus[0] = GpuSample();
  bare.gpus[0].gpu = 5;
  bare.processes.resize(1);
  bare.processes[0] = ProcessSample();
  bare.processes[0].pid = 7;
  bare.host.ib_ports.resize(1);
  bare.host.ib_ports[0] = IbPortSample();
  Sample got = full;
  ASSERT_TRUE(ReplaceGpus(PackGpus(bare.gpus), &got.gpus));
  ASSERT_TRUE(UnpackProcesses(PackProcesses(bare.processes), true, &got.processes));
  ASSERT_TRUE(UnpackIbPorts(PackIbPorts(bare.host.ib_ports), &got.host.ib_ports));
  ExpectSampleEq(got, bare);
  ASSERT_TRUE(ReplaceGpus("", &got.gpus));
  EXPECT_TRUE(got.gpus.empty());
  std::vector<GpuSample> gpus(3);
  EXPECT_FALSE(ReplaceGpus(PackGpus(full.gpus).substr(0, 20), &gpus));
  EXPECT_TRUE(gpus.empty());
}

}  // namespace
}  // namespace gpuvet
