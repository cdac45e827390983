// Little-endian packing of the recording's blob columns (layouts in docs/recording.md). Every
// read is bounds-checked: a damaged blob decodes as far as it is whole and reports false.
#include "sources/recording/recording_packing.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace gpuvet {

static_assert(std::endian::native == std::endian::little,
              "the recording blobs are little-endian; add byte swapping for this host");

namespace {

constexpr size_t kGpuFieldCount = 0
#define GPUVET_COUNT(name, kind) +1
    GPUVET_GPU_SAMPLE_FIELDS(GPUVET_COUNT)
#undef GPUVET_COUNT
    ;
static_assert(kGpuFieldCount <= 32, "the presence mask is 32 bits");

// GPU record header: int32 gpu, uint32 presence mask, uint16 slot count, uint16 process count.
constexpr size_t kGpuHeaderBytes = 12;
// Process record: uint32 pid, uint32 presence mask (bit 0 memory, bit 1 SM), u64, f64.
constexpr size_t kGpuProcessBytes = 24;
// Thread record: int32 tid, 16 bytes comm (NUL padded), f64 cpu_pct.
constexpr size_t kThreadBytes = 28;
constexpr size_t kCommBytes = 16;

template <typename T>
void Put(std::string* out, T v) {
  char buf[sizeof(T)];
  std::memcpy(buf, &v, sizeof(T));
  out->append(buf, sizeof(T));
}

class Cursor {
 public:
  explicit Cursor(std::string_view b) : b_(b) {}
  bool Has(size_t n) const { return b_.size() - pos_ >= n; }
  bool done() const { return pos_ == b_.size(); }
  template <typename T>
  T Get() {  // caller checked Has()
    T v;
    std::memcpy(&v, b_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  std::string_view Bytes(size_t n) {
    std::string_view v = b_.substr(pos_, n);
    pos_ += n;
    return v;
  }
  void Skip(size_t n) { pos_ += n; }

 private:
  std::string_view b_;
  size_t pos_ = 0;
};

void PutSlot(std::string* out, uint32_t* mask, int bit, const std::optional<double>& v) {
  Put<double>(out, v.value_or(0));
  if (v) *mask |= 1u << bit;
}
void PutSlot(std::string* out, uint32_t* mask, int bit, const std::optional<uint64_t>& v) {
  Put<uint64_t>(out, v.value_or(0));
  if (v) *mask |= 1u << bit;
}
// Set or reset, so a reused GpuSample keeps nothing of the sample decoded into it before.
void GetSlot(Cursor* c, uint32_t mask, int bit, std::optional<double>* v) {
  double x = c->Get<double>();
  if (mask & (1u << bit)) {
    *v = x;
  } else {
    v->reset();
  }
}
void GetSlot(Cursor* c, uint32_t mask, int bit, std::optional<uint64_t>* v) {
  uint64_t x = c->Get<uint64_t>();
  if (mask & (1u << bit)) {
    *v = x;
  } else {
    v->reset();
  }
}

// A slot this reader knows that the record's writer did not write (an older field list): absent.
void Absent(std::optional<double>* v) { v->reset(); }
void Absent(std::optional<uint64_t>* v) { v->reset(); }

// Decodes one GPU record into `g` (every field overwritten). False when it is not whole. A record
// of an older field list (fewer slots) reads the fields appended since as absent; one of a newer
// list (more slots) has the slots this reader does not know skipped.
bool GetGpu(Cursor* c, GpuSample* g) {
  if (!c->Has(kGpuHeaderBytes)) return false;
  const int32_t gpu = c->Get<int32_t>();
  uint32_t mask = c->Get<uint32_t>();
  size_t slots = c->Get<uint16_t>();
  size_t processes = c->Get<uint16_t>();
  if (!c->Has(slots * 8 + processes * kGpuProcessBytes)) return false;
  g->gpu = gpu;
  size_t bit = 0;
#define GPUVET_GET(name, kind)                         \
  if (bit < slots) {                                   \
    GetSlot(c, mask, static_cast<int>(bit), &g->name); \
  } else {                                             \
    Absent(&g->name);                                  \
  }                                                    \
  ++bit;
  GPUVET_GPU_SAMPLE_FIELDS(GPUVET_GET)
#undef GPUVET_GET
  if (slots > kGpuFieldCount) c->Skip((slots - kGpuFieldCount) * 8);  // a newer field list's
  g->processes.resize(processes);
  for (GpuProcessSample& p : g->processes) {
    p.pid = c->Get<uint32_t>();
    uint32_t pmask = c->Get<uint32_t>();
    uint64_t mem = c->Get<uint64_t>();
    double sm = c->Get<double>();
    p.used_memory_bytes.reset();
    p.sm_util_pct.reset();
    if (pmask & 1u) p.used_memory_bytes = mem;
    if (pmask & 2u) p.sm_util_pct = sm;
  }
  return true;
}

// What SQLite makes of a double bound into a REAL column: NaN becomes NULL (read back as 0 by
// sqlite3_column_double, as absent by an optional reader).
double Required(double v) { return std::isnan(v) ? 0.0 : v; }
std::optional<double> Optional(const std::optional<double>& v) {
  return v && std::isnan(*v) ? std::nullopt : v;
}

// A name: uint16 length, then its bytes (cut to 65535).
void PutName(std::string* out, const std::string& name) {
  const size_t n = std::min<size_t>(name.size(), 65535);
  Put<uint16_t>(out, static_cast<uint16_t>(n));
  out->append(name.data(), n);
}
bool GetName(Cursor* c, std::string* name) {
  if (!c->Has(2)) return false;
  size_t n = c->Get<uint16_t>();
  if (!c->Has(n)) return false;
  std::string_view v = c->Bytes(n);
  name->assign(v.data(), v.size());
  return true;
}

// Optional doubles behind a presence mask: bit `bit` set = present.
void PutOpt(std::string* out, uint32_t* mask, int bit, const std::optional<double>& v) {
  std::optional<double> x = Optional(v);
  Put<double>(out, x.value_or(0));
  if (x) *mask |= 1u << bit;
}
void GetOpt(Cursor* c, uint32_t mask, int bit, std::optional<double>* v) {
  double x = c->Get<double>();
  if (mask & (1u << bit)) {
    *v = x;
  } else {
    v->reset();
  }
}

// Decodes records with get(cursor, element) into `*out`, reusing its elements; false at the
// first record that is not whole (`*out` keeps the whole ones).
template <typename T, typename Get>
bool Records(std::string_view blob, std::vector<T>* out, Get get) {
  Cursor c(blob);
  size_t n = 0;
  bool ok = true;
  while (!c.done()) {
    if (n == out->size()) out->emplace_back();
    if (!get(&c, &(*out)[n])) {
      ok = false;
      break;
    }
    ++n;
  }
  out->resize(n);
  return ok;
}

// Process record: int32 pid, int32 ppid, int32 threads, uint32 mask, f64 cpu_pct, u64 rss_bytes,
// five f64 rates; then the comm (a name) and uint16 thread count + the top_threads records.
constexpr size_t kProcessFixedBytes = 4 * 4 + 8 * 7;

}  // namespace

std::string PackGpus(const std::vector<GpuSample>& gpus) {
  std::string out;
  out.reserve(gpus.size() * (kGpuHeaderBytes + kGpuFieldCount * 8));
  for (const GpuSample& g : gpus) {
    size_t header_at = out.size();
    Put<int32_t>(&out, g.gpu);
    Put<uint32_t>(&out, 0);  // mask, filled below
    Put<uint16_t>(&out, kGpuFieldCount);
    Put<uint16_t>(&out, static_cast<uint16_t>(std::min<size_t>(g.processes.size(), 65535)));
    uint32_t mask = 0;
    int bit = 0;
#define GPUVET_PUT(name, kind) PutSlot(&out, &mask, bit++, g.name);
    GPUVET_GPU_SAMPLE_FIELDS(GPUVET_PUT)
#undef GPUVET_PUT
    std::memcpy(out.data() + header_at + 4, &mask, sizeof(mask));
    for (size_t i = 0; i < g.processes.size() && i < 65535; ++i) {
      const GpuProcessSample& p = g.processes[i];
      Put<uint32_t>(&out, p.pid);
      Put<uint32_t>(&out, (p.used_memory_bytes ? 1u : 0u) | (p.sm_util_pct ? 2u : 0u));
      Put<uint64_t>(&out, p.used_memory_bytes.value_or(0));
      Put<double>(&out, p.sm_util_pct.value_or(0));
    }
  }
  return out;
}

bool UnpackGpus(std::string_view blob, std::vector<GpuSample>* out) {
  Cursor c(blob);
  while (!c.done()) {
    GpuSample& g = out->emplace_back();
    if (!GetGpu(&c, &g)) {
      out->pop_back();
      return false;
    }
  }
  return true;
}

bool ReplaceGpus(std::string_view blob, std::vector<GpuSample>* out) {
  return Records(blob, out, GetGpu);
}

std::string PackThreads(const std::vector<ThreadSample>& threads) {
  std::string out;
  out.reserve(threads.size() * kThreadBytes);
  for (const ThreadSample& t : threads) {
    Put<int32_t>(&out, t.tid);
    char comm[kCommBytes] = {};
    std::memcpy(comm, t.comm.data(), std::min(t.comm.size(), kCommBytes - 1));
    out.append(comm, kCommBytes);
    Put<double>(&out, t.cpu_pct);
  }
  return out;
}

bool UnpackThreads(std::string_view blob, std::vector<ThreadSample>* out) {
  Cursor c(blob);
  out->reserve(out->size() + blob.size() / kThreadBytes);
  while (c.Has(kThreadBytes)) {
    ThreadSample& t = out->emplace_back();
    t.tid = c.Get<int32_t>();
    std::string_view comm = c.Bytes(kCommBytes);
    t.comm.assign(comm.data(), strnlen(comm.data(), kCommBytes));
    t.cpu_pct = c.Get<double>();
  }
  return c.done();
}

std::string PackDisks(const std::vector<DiskSample>& disks) {
  std::string out;
  for (const DiskSample& d : disks) {
    PutName(&out, d.device);
    Put<double>(&out, Required(d.read_bytes_per_s));
    Put<double>(&out, Required(d.write_bytes_per_s));
    Put<double>(&out, Required(d.busy_pct));
  }
  return out;
}

bool UnpackDisks(std::string_view blob, std::vector<DiskSample>* out) {
  return Records(blob, out, [](Cursor* c, DiskSample* d) {
    if (!GetName(c, &d->device) || !c->Has(24)) return false;
    d->read_bytes_per_s = c->Get<double>();
    d->write_bytes_per_s = c->Get<double>();
    d->busy_pct = c->Get<double>();
    return true;
  });
}

std::string PackNets(const std::vector<NetSample>& nets) {
  std::string out;
  for (const NetSample& n : nets) {
    PutName(&out, n.interface);
    Put<double>(&out, Required(n.rx_bytes_per_s));
    Put<double>(&out, Required(n.tx_bytes_per_s));
  }
  return out;
}

bool UnpackNets(std::string_view blob, std::vector<NetSample>* out) {
  return Records(blob, out, [](Cursor* c, NetSample* n) {
    if (!GetName(c, &n->interface) || !c->Has(16)) return false;
    n->rx_bytes_per_s = c->Get<double>();
    n->tx_bytes_per_s = c->Get<double>();
    return true;
  });
}

// RDMA port record: port and link layer (names), uint32 mask (bit 0 active, bits 1-3
// xmit_wait, cnp, errors present), f64 rate_gbps, rx, tx, xmit_wait, cnp, errors.
std::string PackIbPorts(const std::vector<IbPortSample>& ports) {
  std::string out;
  for (const IbPortSample& p : ports) {
    PutName(&out, p.port);
    PutName(&out, p.link_layer);
    size_t mask_at = out.size();
    uint32_t mask = p.active ? 1u : 0u;
    Put<uint32_t>(&out, 0);
    Put<double>(&out, Required(p.rate_gbps));
    Put<double>(&out, Required(p.rx_bytes_per_s));
    Put<double>(&out, Required(p.tx_bytes_per_s));
    PutOpt(&out, &mask, 1, p.xmit_wait_per_s);
    PutOpt(&out, &mask, 2, p.cnp_per_s);
    PutOpt(&out, &mask, 3, p.errors_per_s);
    std::memcpy(out.data() + mask_at, &mask, sizeof(mask));
  }
  return out;
}

bool UnpackIbPorts(std::string_view blob, std::vector<IbPortSample>* out) {
  return Records(blob, out, [](Cursor* c, IbPortSample* p) {
    if (!GetName(c, &p->port) || !GetName(c, &p->link_layer) || !c->Has(4 + 6 * 8)) return false;
    uint32_t mask = c->Get<uint32_t>();
    p->active = (mask & 1u) != 0;
    p->rate_gbps = c->Get<double>();
    p->rx_bytes_per_s = c->Get<double>();
    p->tx_bytes_per_s = c->Get<double>();
    GetOpt(c, mask, 1, &p->xmit_wait_per_s);
    GetOpt(c, mask, 2, &p->cnp_per_s);
    GetOpt(c, mask, 3, &p->errors_per_s);
    return true;
  });
}

std::string PackProcesses(const std::vector<ProcessSample>& processes) {
  std::string out;
  for (const ProcessSample& p : processes) {
    Put<int32_t>(&out, p.pid);
    Put<int32_t>(&out, p.ppid);
    Put<int32_t>(&out, p.threads);
    size_t mask_at = out.size();
    uint32_t mask = p.rss_bytes ? 1u : 0u;
    Put<uint32_t>(&out, 0);
    Put<double>(&out, Required(p.cpu_pct));
    Put<uint64_t>(&out, p.rss_bytes.value_or(0));
    PutOpt(&out, &mask, 1, p.read_bytes_per_s);
    PutOpt(&out, &mask, 2, p.write_bytes_per_s);
    PutOpt(&out, &mask, 3, p.rchar_per_s);
    PutOpt(&out, &mask, 4, p.read_syscalls_per_s);
    PutOpt(&out, &mask, 5, p.opens_per_s);
    std::memcpy(out.data() + mask_at, &mask, sizeof(mask));
    PutName(&out, p.comm);
    const size_t threads = std::min<size_t>(p.top_threads.size(), 65535);
    Put<uint16_t>(&out, static_cast<uint16_t>(threads));
    std::vector<ThreadSample> head(p.top_threads.begin(), p.top_threads.begin() + threads);
    out += PackThreads(head);
  }
  return out;
}

bool UnpackProcesses(std::string_view blob, bool details, std::vector<ProcessSample>* out) {
  return Records(blob, out, [details](Cursor* c, ProcessSample* p) {
    if (!c->Has(kProcessFixedBytes)) return false;
    const int32_t pid = c->Get<int32_t>();
    const int32_t ppid = c->Get<int32_t>();
    const int32_t threads = c->Get<int32_t>();
    const uint32_t mask = c->Get<uint32_t>();
    const double cpu = c->Get<double>();
    const uint64_t rss = c->Get<uint64_t>();
    p->pid = pid;
    if (mask & 1u) {
      p->rss_bytes = rss;
    } else {
      p->rss_bytes.reset();
    }
    if (!details) {  // pid and RSS only: the rest as a default ProcessSample
      c->Skip(5 * 8);
      p->ppid = 0;
      p->comm.clear();
      p->cpu_pct = 0;
      p->threads = 0;
      p->read_bytes_per_s = p->write_bytes_per_s = p->rchar_per_s = std::nullopt;
      p->read_syscalls_per_s = p->opens_per_s = std::nullopt;
      p->top_threads.clear();
      if (!c->Has(2)) return false;
      size_t comm = c->Get<uint16_t>();
      if (!c->Has(comm + 2)) return false;
      c->Skip(comm);
      size_t n = c->Get<uint16_t>();
      if (!c->Has(n * kThreadBytes)) return false;
      c->Skip(n * kThreadBytes);
      return true;
    }
    p->ppid = ppid;
    p->threads = threads;
    p->cpu_pct = cpu;
    GetOpt(c, mask, 1, &p->read_bytes_per_s);
    GetOpt(c, mask, 2, &p->write_bytes_per_s);
    GetOpt(c, mask, 3, &p->rchar_per_s);
    GetOpt(c, mask, 4, &p->read_syscalls_per_s);
    GetOpt(c, mask, 5, &p->opens_per_s);
    if (!GetName(c, &p->comm) || !c->Has(2)) return false;
    size_t n = c->Get<uint16_t>();
    if (!c->Has(n * kThreadBytes)) return false;
    p->top_threads.resize(n);
    for (ThreadSample& t : p->top_threads) {
      t.tid = c->Get<int32_t>();
      std::string_view comm = c->Bytes(kCommBytes);
      t.comm.assign(comm.data(), strnlen(comm.data(), kCommBytes));
      t.cpu_pct = c->Get<double>();
    }
    return true;
  });
}

std::string PackDoubles(const std::vector<double>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
}

bool UnpackDoubles(std::string_view blob, std::vector<double>* out) {
  size_t n = blob.size() / sizeof(double);
  out->resize(n);
  if (n > 0) std::memcpy(out->data(), blob.data(), n * sizeof(double));
  return blob.size() % sizeof(double) == 0;
}

}  // namespace gpuvet
