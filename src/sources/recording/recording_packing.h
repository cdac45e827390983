// Packed columns of the recording file (docs/recording.md, "Packed columns"): the per-GPU
// metrics of a sample, a process's busiest threads and the per-core busy shares are stored as
// little-endian blobs, one per sample or process row, because reading 8 GPUs x 86400 samples as
// 23-column SQLite rows costs more than the whole analyze budget; a blob decodes with memcpy.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/recording.h"

namespace gpuvet {

// The metric fields of GpuSample in their packed order (slot index = position here). F64 fields
// are IEEE-754 doubles, U64 unsigned integers; each takes 8 bytes. Append only: a new field gets
// the next slot and bit, and old readers ignore slots past the ones they know.
#define GPUVET_GPU_SAMPLE_FIELDS(X) \
  X(util_pct, F64)                  \
  X(mem_util_pct, F64)              \
  X(sm_clock_mhz, F64)              \
  X(mem_clock_mhz, F64)             \
  X(power_w, F64)                   \
  X(energy_j, F64)                  \
  X(temperature_c, F64)             \
  X(clock_event_reasons, U64)       \
  X(pcie_tx_bytes_per_s, F64)       \
  X(pcie_rx_bytes_per_s, F64)       \
  X(memory_used_bytes, U64)         \
  X(ecc_corrected_volatile, U64)    \
  X(ecc_uncorrected_volatile, U64)  \
  X(sm_active_pct, F64)             \
  X(sm_occupancy_pct, F64)          \
  X(tensor_active_pct, F64)         \
  X(dram_bw_util_pct, F64)          \
  X(gpm_pcie_tx_bytes_per_s, F64)   \
  X(gpm_pcie_rx_bytes_per_s, F64)   \
  X(nvlink_tx_bytes_per_s, F64)     \
  X(nvlink_rx_bytes_per_s, F64)

// The GPUs of one sample (with their processes) as the `samples.gpus` blob; empty for none.
std::string PackGpus(const std::vector<GpuSample>& gpus);
// Decodes PackGpus' bytes into `out` (appended). False, with `out` holding what decoded before
// the damage, when the blob is truncated or malformed.
bool UnpackGpus(std::string_view blob, std::vector<GpuSample>* out);
// As UnpackGpus, but replaces `*out`: its elements (and their process vectors) are overwritten in
// place, so a reader that decodes sample after sample into one vector allocates nothing.
bool ReplaceGpus(std::string_view blob, std::vector<GpuSample>* out);

// The child rows of one sample, packed into the samples row from schema version 3 on
// (`samples.disks`, `.nets`, `.ib_ports`, `.processes`; layouts in docs/recording.md). Names are
// cut to 65535 bytes. NaN is stored as SQLite stored it in the version 2 tables: an absent
// optional value, 0 for a required one, so both layouts read back the same samples.
std::string PackDisks(const std::vector<DiskSample>& disks);
std::string PackNets(const std::vector<NetSample>& nets);
std::string PackIbPorts(const std::vector<IbPortSample>& ports);
std::string PackProcesses(const std::vector<ProcessSample>& processes);
// Decode the blobs above into `*out`, replacing its contents and reusing its elements (no
// allocation once the vectors have grown to a sample's size). False, with `*out` holding the
// records that decoded whole before the damage, when the blob is truncated or malformed.
bool UnpackDisks(std::string_view blob, std::vector<DiskSample>* out);
bool UnpackNets(std::string_view blob, std::vector<NetSample>* out);
bool UnpackIbPorts(std::string_view blob, std::vector<IbPortSample>* out);
// details false: each process gets its pid and rss_bytes only, every other field its default
// (what RecordingParts::process_details = false reads from a version 2 file).
bool UnpackProcesses(std::string_view blob, bool details, std::vector<ProcessSample>* out);

// A process's top threads as the `process_samples.top_threads` blob; comm is cut to 15 bytes
// (the kernel's TASK_COMM_LEN less its NUL).
std::string PackThreads(const std::vector<ThreadSample>& threads);
bool UnpackThreads(std::string_view blob, std::vector<ThreadSample>* out);

// Per-core busy shares as the `samples.core_busy_pct` blob (doubles).
std::string PackDoubles(const std::vector<double>& values);
bool UnpackDoubles(std::string_view blob, std::vector<double>* out);

}  // namespace gpuvet
