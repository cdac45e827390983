// Schema version 3 of the recording file. Every sample is one row of `samples`: host and workload
// figures as columns; per-core busy shares, the GPUs and the sample's disks, network interfaces,
// RDMA ports and workload processes as packed blobs (recording_packing.h). Versions 1 and 2 (the
// schema the writer still makes for tests) keep the disks, interfaces, ports and processes (their
// busiest threads packed) in child tables keyed by sample_id; version 1 is version 2 without
// `events`. Rows are inserted in time order, so reading by rowid is a plain sequential scan. RDMA
// ports (ib_samples) were added within version 1: a recording written before has no such table
// and reads with no ports.
#include "sources/recording/recording_schema.h"

namespace gpuvet {

const char* const kRecordingSchemaSql = R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE notes (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE gpus (
  gpu INTEGER PRIMARY KEY, name TEXT, uuid TEXT, pci_bus_id TEXT, memory_total_bytes INTEGER,
  power_limit_w REAL, sm_clock_max_mhz INTEGER, mem_clock_max_mhz INTEGER, pcie_gen_max INTEGER,
  pcie_width_max INTEGER, numa_node INTEGER);
CREATE TABLE samples (
  sample_id INTEGER PRIMARY KEY, t REAL NOT NULL, unix_time REAL NOT NULL,
  interval_s REAL NOT NULL,
  cpu_user_pct REAL, cpu_system_pct REAL, cpu_iowait_pct REAL, cpu_steal_pct REAL,
  cpu_idle_pct REAL, core_busy_pct BLOB, run_queue REAL,
  psi_cpu_some_pct REAL, psi_io_some_pct REAL, psi_io_full_pct REAL, psi_memory_some_pct REAL,
  psi_memory_full_pct REAL, mem_available_bytes INTEGER, major_faults_per_s REAL,
  cgroup_throttled_pct REAL, cgroup_nr_throttled_per_s REAL, work_total REAL, gpus BLOB,
  disks BLOB, nets BLOB, ib_ports BLOB, processes BLOB);
CREATE TABLE events (
  t REAL NOT NULL, kind TEXT NOT NULL, subject TEXT NOT NULL, message TEXT NOT NULL);
)sql";

// Version 2: the child rows in tables of their own.
const char* const kRecordingSchemaV2Sql = R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE notes (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE gpus (
  gpu INTEGER PRIMARY KEY, name TEXT, uuid TEXT, pci_bus_id TEXT, memory_total_bytes INTEGER,
  power_limit_w REAL, sm_clock_max_mhz INTEGER, mem_clock_max_mhz INTEGER, pcie_gen_max INTEGER,
  pcie_width_max INTEGER, numa_node INTEGER);
CREATE TABLE samples (
  sample_id INTEGER PRIMARY KEY, t REAL NOT NULL, unix_time REAL NOT NULL,
  interval_s REAL NOT NULL,
  cpu_user_pct REAL, cpu_system_pct REAL, cpu_iowait_pct REAL, cpu_steal_pct REAL,
  cpu_idle_pct REAL, core_busy_pct BLOB, run_queue REAL,
  psi_cpu_some_pct REAL, psi_io_some_pct REAL, psi_io_full_pct REAL, psi_memory_some_pct REAL,
  psi_memory_full_pct REAL, mem_available_bytes INTEGER, major_faults_per_s REAL,
  cgroup_throttled_pct REAL, cgroup_nr_throttled_per_s REAL, work_total REAL, gpus BLOB);
CREATE TABLE disk_samples (
  sample_id INTEGER NOT NULL, device TEXT NOT NULL, read_bytes_per_s REAL NOT NULL,
  write_bytes_per_s REAL NOT NULL, busy_pct REAL NOT NULL);
CREATE TABLE net_samples (
  sample_id INTEGER NOT NULL, interface TEXT NOT NULL, rx_bytes_per_s REAL NOT NULL,
  tx_bytes_per_s REAL NOT NULL);
CREATE TABLE ib_samples (
  sample_id INTEGER NOT NULL, port TEXT NOT NULL, link_layer TEXT NOT NULL,
  rate_gbps REAL NOT NULL, active INTEGER NOT NULL, rx_bytes_per_s REAL NOT NULL,
  tx_bytes_per_s REAL NOT NULL, xmit_wait_per_s REAL, cnp_per_s REAL, errors_per_s REAL);
CREATE TABLE process_samples (
  sample_id INTEGER NOT NULL, pid INTEGER NOT NULL, ppid INTEGER NOT NULL, comm TEXT NOT NULL,
  cpu_pct REAL NOT NULL, rss_bytes INTEGER, threads INTEGER NOT NULL, read_bytes_per_s REAL,
  write_bytes_per_s REAL, rchar_per_s REAL, read_syscalls_per_s REAL, opens_per_s REAL,
  top_threads BLOB);
CREATE TABLE events (
  t REAL NOT NULL, kind TEXT NOT NULL, subject TEXT NOT NULL, message TEXT NOT NULL);
)sql";

const char* const kInsertSampleSql =
    "INSERT INTO samples VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
const char* const kInsertSampleV2Sql =
    "INSERT INTO samples VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
const char* const kInsertDiskSql = "INSERT INTO disk_samples VALUES (?,?,?,?,?)";
const char* const kInsertNetSql = "INSERT INTO net_samples VALUES (?,?,?,?)";
const char* const kInsertIbSql = "INSERT INTO ib_samples VALUES (?,?,?,?,?,?,?,?,?,?)";
const char* const kInsertProcessSql =
    "INSERT INTO process_samples VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)";
const char* const kInsertEventSql = "INSERT INTO events VALUES (?,?,?,?)";

// SELECT * keeps the column order of the CREATE TABLE above; rowid order is insertion order.
const char* const kSelectSamplesSql = "SELECT * FROM samples ORDER BY sample_id";
const char* const kSelectSampleGpusSql =
    "SELECT sample_id, t, unix_time, interval_s, gpus FROM samples ORDER BY sample_id";
const char* const kSelectSampleGpusProcessesSql =
    "SELECT sample_id, t, unix_time, interval_s, gpus, processes FROM samples ORDER BY sample_id";
const char* const kSelectDisksSql = "SELECT * FROM disk_samples ORDER BY rowid";
const char* const kSelectNetsSql = "SELECT * FROM net_samples ORDER BY rowid";
const char* const kSelectIbSql = "SELECT * FROM ib_samples ORDER BY rowid";
const char* const kHasIbTableSql =
    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ib_samples'";
const char* const kSelectProcessesSql = "SELECT * FROM process_samples ORDER BY rowid";
const char* const kSelectProcessRssSql =
    "SELECT sample_id, pid, rss_bytes FROM process_samples ORDER BY rowid";
const char* const kSelectEventsSql = "SELECT * FROM events ORDER BY t, rowid LIMIT ?";

}  // namespace gpuvet
