// Writes a long synthetic recording for the recording benchmarks (bench/recording_bench.sh): 8
// H100s sampled at 1 Hz for --hours, with the mix of bench/analyze_bench.cc (a host-bound first
// hour, compute-bound hours with a 30 s checkpoint stall every 10 minutes, a leaking process, 32
// host CPUs, 4 workload processes), one sample at a time so any length fits in memory. With
// --csv it also writes the GPU rows as an `nvidia-smi --query-gpu=... --format=csv` log (the
// input of `gpuvet import` and of `sqlite3 .import` in the benchmark), with --dmon the same rows
// as an `nvidia-smi dmon -s puc -o DT` log. --schema-version 2 writes the layout of gpuvet before
// schema version 3 (child rows in tables of their own), to time or test reading old files.
//   recording_make --hours 24 --out day.gpuvet [--csv day.csv] [--dmon day.dmon]
//                  [--schema-version 2]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

#include "sources/recording/recording_store.h"
#include "testing/recording_builder.h"

namespace {

void Fill(gpuvet::Sample& s, int i) {
  s.host.core_busy_pct.assign(32, 30.0);
  for (int p = 1; p < 4; ++p) {
    gpuvet::ProcessSample w = s.processes[0];
    w.pid = 100 + p;
    w.comm = "pt_data_worker";
    s.processes.push_back(w);
  }
  s.processes[0].rss_bytes = 6 * gpuvet::test::kGiB + static_cast<uint64_t>(i) * 4096;
  s.workload.work_total = 32.0 * i;
  double util = 95, sm = 80;
  if (i < 3600) util = 25, sm = 20, s.processes[0].top_threads[0].cpu_pct = 99;
  if (i % 600 >= 300 && i % 600 < 330) util = 2, sm = 1, s.host.disks[0].write_bytes_per_s = 8e8;
  gpuvet::test::SetGpus(s, util + (i % 7), sm + (i % 5));
  for (gpuvet::GpuSample& g : s.gpus) g.tensor_active_pct = 50, g.dram_bw_util_pct = 40;
}

void CsvRow(std::FILE* f, const gpuvet::Sample& s) {
  time_t t = static_cast<time_t>(s.unix_time);
  tm u = {};
  gmtime_r(&t, &u);
  char when[32];
  std::strftime(when, sizeof(when), "%Y/%m/%d %H:%M:%S", &u);
  for (const gpuvet::GpuSample& g : s.gpus) {
    std::fprintf(f, "%s.000, %d, %.0f, %.0f, %llu, 81559, %.2f, %.0f, %.0f\n", when, g.gpu,
                 g.util_pct.value_or(0), g.mem_util_pct.value_or(0),
                 static_cast<unsigned long long>(g.memory_used_bytes.value_or(0) >> 20),
                 g.power_w.value_or(0), g.temperature_c.value_or(0), g.sm_clock_mhz.value_or(0));
  }
}

void DmonRow(std::FILE* f, const gpuvet::Sample& s) {
  time_t t = static_cast<time_t>(s.unix_time);
  tm u = {};
  gmtime_r(&t, &u);
  char when[32];
  std::strftime(when, sizeof(when), "%Y%m%d %H:%M:%S", &u);
  for (const gpuvet::GpuSample& g : s.gpus) {
    std::fprintf(f, "%s %6d %6.0f %6.0f      - %6.0f %6.0f      0      0   2619 %7.0f\n", when,
                 g.gpu, g.power_w.value_or(0), g.temperature_c.value_or(0), g.util_pct.value_or(0),
                 g.mem_util_pct.value_or(0), g.sm_clock_mhz.value_or(0));
  }
}

}  // namespace

int main(int argc, char** argv) {
  double hours = 24;
  std::string out, csv, dmon;
  int version = gpuvet::kRecordingSchemaVersion;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--hours")) hours = std::atof(argv[i + 1]);
    if (!std::strcmp(argv[i], "--out")) out = argv[i + 1];
    if (!std::strcmp(argv[i], "--csv")) csv = argv[i + 1];
    if (!std::strcmp(argv[i], "--dmon")) dmon = argv[i + 1];
    if (!std::strcmp(argv[i], "--schema-version")) version = std::atoi(argv[i + 1]);
  }
  if (out.empty() || !(hours > 0)) {
    std::fprintf(stderr,
                 "usage: recording_make --hours H --out FILE [--csv FILE] [--dmon FILE] "
                 "[--schema-version 2]\n");
    return 2;
  }
  gpuvet::test::RecordingBuilder b(8, "NVIDIA H100 80GB HBM3", 1.0);
  b.meta().online_cpus = 32;
  b.meta().work_unit = "samples";
  gpuvet::RecordingWriterOptions options;
  options.samples_per_commit = 4096;
  options.schema_version = version;
  auto w = gpuvet::RecordingWriter::Create(out, b.meta(), options);
  if (!w.ok()) {
    std::fprintf(stderr, "%s\n", w.status().message().c_str());
    return 1;
  }
  std::FILE* f = csv.empty() ? nullptr : std::fopen(csv.c_str(), "w");
  if (f) {
    std::fprintf(f,
                 "timestamp, index, utilization.gpu [%%], utilization.memory [%%], memory.used "
                 "[MiB], memory.total [MiB], power.draw [W], temperature.gpu, clocks.sm [MHz]\n");
  }
  std::FILE* d = dmon.empty() ? nullptr : std::fopen(dmon.c_str(), "w");
  if (d) {
    std::fprintf(d,
                 "#Date    Time        gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk "
                 "   pclk\n#YYYYMMDD HH:MM:SS    Idx      W      C      C      %%      %%      %%  "
                 "    %%    MHz     MHz\n");
  }
  const long n = static_cast<long>(hours * 3600);
  double last_t = 0;
  for (long i = 0; i < n; ++i) {
    gpuvet::Sample s = b.Next(Fill);
    if (f) CsvRow(f, s);
    if (d) DmonRow(d, s);
    last_t = s.t;
    if (auto st = (*w)->Append(s); !st.ok()) {
      std::fprintf(stderr, "%s\n", st.message().c_str());
      return 1;
    }
  }
  if (f) std::fclose(f);
  if (d) std::fclose(d);
  if (auto st = (*w)->Finish(b.meta().start_unix_s + last_t, 0); !st.ok()) {
    std::fprintf(stderr, "%s\n", st.message().c_str());
    return 1;
  }
  std::printf("%ld samples of 8 GPUs written to %s\n", n, out.c_str());
  return 0;
}
