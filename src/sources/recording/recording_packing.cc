// Little-endian packing of the recording's blob columns (layouts in docs/recording.md). Every
// read is bounds-checked: a damaged blob decodes as far as it is whole and reports false.
#include "sources/recording/recording_packing.h"

#include <bit>
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
void GetSlot(Cursor* c, uint32_t mask, int bit, std::optional<double>* v) {
  double x = c->Get<double>();
  if (mask & (1u << bit)) *v = x;
}
void GetSlot(Cursor* c, uint32_t mask, int bit, std::optional<uint64_t>* v) {
  uint64_t x = c->Get<uint64_t>();
  if (mask & (1u << bit)) *v = x;
}

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
    if (!c.Has(kGpuHeaderBytes)) return false;
    GpuSample& g = out->emplace_back();
    g.gpu = c.Get<int32_t>();
    uint32_t mask = c.Get<uint32_t>();
    size_t slots = c.Get<uint16_t>();
    size_t processes = c.Get<uint16_t>();
    if (slots < kGpuFieldCount || !c.Has(slots * 8 + processes * kGpuProcessBytes)) {
      out->pop_back();
      return false;
    }
    int bit = 0;
#define GPUVET_GET(name, kind) GetSlot(&c, mask, bit++, &g.name);
    GPUVET_GPU_SAMPLE_FIELDS(GPUVET_GET)
#undef GPUVET_GET
    c.Skip((slots - kGpuFieldCount) * 8);  // fields of a newer minor layout
    g.processes.resize(processes);
    for (GpuProcessSample& p : g.processes) {
      p.pid = c.Get<uint32_t>();
      uint32_t pmask = c.Get<uint32_t>();
      uint64_t mem = c.Get<uint64_t>();
      double sm = c.Get<double>();
      if (pmask & 1u) p.used_memory_bytes = mem;
      if (pmask & 2u) p.sm_util_pct = sm;
    }
  }
  return true;
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
