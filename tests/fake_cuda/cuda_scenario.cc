// Strict parser for fake-driver scenarios: every value is checked with its JSON pointer, unknown
// keys are errors (keys starting with "_" are comments), and error names must be CUresult names.
#include "cuda_scenario.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>

#include "sources/cuda/cuda_loader.h"
#include "util/strings.h"

namespace gpuvet::fake_cuda {

namespace {

using json = nlohmann::json;

// The function names a scenario may inject errors into: the exported symbols.
const std::set<std::string>& FunctionNames() {
  static const auto* names = new std::set<std::string>{
#define FAKE_CUDA_NAME(fn, params, args, required) #fn,
      CUDA_API_FUNCTIONS(FAKE_CUDA_NAME)
#undef FAKE_CUDA_NAME
  };
  return *names;
}

class Parser {
 public:
  explicit Parser(std::string_view origin) : origin_(origin) {}

  Status Fail(const std::string& ptr, std::string_view what) const {
    return InvalidInput(fmt::format("{}: {}: {}", origin_, ptr.empty() ? "/" : ptr, what));
  }

  // Calls `field(key, value, pointer)` for every non-comment key of object `j`; the callback
  // answers NotFound for a key it does not know, which becomes "unknown key".
  Status Object(const json& j, const std::string& ptr,
                const std::function<Status(const std::string&, const json&, const std::string&)>&
                    field) const {
    if (!j.is_object()) return Fail(ptr, "expected an object");
    for (const auto& [key, value] : j.items()) {
      if (StartsWith(key, "_")) continue;
      const std::string child = ptr + "/" + key;
      Status s = field(key, value, child);
      if (s.code() == StatusCode::kNotFound) return Fail(child, "unknown key");
      if (!s.ok()) return s;
    }
    return Status::Ok();
  }

  Status Int(const json& j, const std::string& ptr, int min, int* out) const {
    if (!j.is_number_integer() || j.get<int64_t>() < min || j.get<int64_t>() > INT32_MAX) {
      return Fail(ptr, fmt::format("expected an integer >= {}", min));
    }
    *out = static_cast<int>(j.get<int64_t>());
    return Status::Ok();
  }

  Status Uint64(const json& j, const std::string& ptr, uint64_t* out) const {
    if (!j.is_number_unsigned()) return Fail(ptr, "expected a non-negative integer");
    *out = j.get<uint64_t>();
    return Status::Ok();
  }

  // A finite number; `positive` rejects zero too (a zero rate would divide by zero).
  Status Number(const json& j, const std::string& ptr, bool positive, double* out) const {
    if (!j.is_number() || !std::isfinite(j.get<double>()) || j.get<double>() < 0 ||
        (positive && j.get<double>() == 0)) {
      return Fail(ptr, positive ? "expected a positive number" : "expected a number >= 0");
    }
    *out = j.get<double>();
    return Status::Ok();
  }

  Status String(const json& j, const std::string& ptr, std::string* out) const {
    if (!j.is_string()) return Fail(ptr, "expected a string");
    *out = j.get<std::string>();
    return Status::Ok();
  }

  Status ErrorCode(const json& j, const std::string& ptr, bool allow_success, CUresult* out) const {
    if (!j.is_string())
      return Fail(ptr, "expected a CUresult name such as \"CUDA_ERROR_NO_DEVICE\"");
    std::optional<CUresult> code = CudaErrorFromName(j.get<std::string>());
    if (!code) return Fail(ptr, fmt::format("unknown CUresult name \"{}\"", j.get<std::string>()));
    if (*code == CUDA_SUCCESS && !allow_success) return Fail(ptr, "CUDA_SUCCESS is not an error");
    *out = *code;
    return Status::Ok();
  }

  Status TimingField(const std::string& key, const json& v, const std::string& p, Timing* t) const {
    struct Rate {
      const char* key;
      double Timing::*field;
      bool positive;
    };
    static constexpr Rate kRates[] = {
        {"h2d_pinned_gbps", &Timing::h2d_pinned_gbps, true},
        {"d2h_pinned_gbps", &Timing::d2h_pinned_gbps, true},
        {"h2d_pageable_gbps", &Timing::h2d_pageable_gbps, true},
        {"d2h_pageable_gbps", &Timing::d2h_pageable_gbps, true},
        {"d2d_gbps", &Timing::d2d_gbps, true},
        {"remote_numa_factor", &Timing::remote_numa_factor, true},
        {"copy_latency_us", &Timing::copy_latency_us, false},
        {"launch_overhead_us", &Timing::launch_overhead_us, false},
        {"fp32_tflops", &Timing::fp32_tflops, true},
    };
    for (const Rate& r : kRates) {
      if (key == r.key) return Number(v, p, r.positive, &(t->*r.field));
    }
    return NotFound(key);
  }

  Status PciBusId(const json& j, const std::string& ptr, Device* d) const {
    std::string id;
    if (Status s = String(j, ptr, &id); !s.ok()) return s;
    // "0000:3b:00.0" (sysfs), "00000000:3B:00.0" (NVML) or "3b:00.0".
    unsigned domain = 0, bus = 0, device = 0, function = 0;
    char tail = 0;
    const bool full =
        std::sscanf(id.c_str(), "%x:%x:%x.%x%c", &domain, &bus, &device, &function, &tail) == 4;
    const bool brief =
        !full && std::sscanf(id.c_str(), "%x:%x.%x%c", &bus, &device, &function, &tail) == 3;
    if ((!full && !brief) || domain > 0xffff || bus > 0xff || device > 0x1f || function > 7) {
      return Fail(ptr, fmt::format("\"{}\" is not a PCI address like \"0000:3b:00.0\"", id));
    }
    d->pci_domain = static_cast<int>(domain);
    d->pci_bus = static_cast<int>(bus);
    d->pci_device = static_cast<int>(device);
    return Status::Ok();
  }

  Status Cpus(const json& j, const std::string& ptr, std::vector<int>* out) const {
    if (j.is_string()) {
      Result<std::vector<int>> cpus = ParseCpuList(j.get<std::string>());
      if (!cpus.ok()) return Fail(ptr, cpus.status().message());
      *out = *cpus;
      return Status::Ok();
    }
    if (!j.is_array()) return Fail(ptr, "expected a CPU list string (\"0-31,64-95\") or array");
    out->clear();
    for (size_t i = 0; i < j.size(); ++i) {
      int cpu = 0;
      if (Status s = Int(j[i], fmt::format("{}/{}", ptr, i), 0, &cpu); !s.ok()) return s;
      out->push_back(cpu);
    }
    return Status::Ok();
  }

  Status DeviceObject(const json& j, const std::string& ptr, const Timing& base, int index,
                      Device* d) const {
    d->timing = base;
    d->pci_bus = index + 1;  // distinct default addresses
    return Object(j, ptr, [&](const std::string& key, const json& v, const std::string& p) {
      if (key == "name") return String(v, p, &d->name);
      if (key == "cc") {
        std::string cc;
        if (Status s = String(v, p, &cc); !s.ok()) return s;
        char tail = 0;
        if (std::sscanf(cc.c_str(), "%d.%d%c", &d->cc_major, &d->cc_minor, &tail) != 2 ||
            d->cc_major < 1 || d->cc_minor < 0) {
          return Fail(p, "expected a compute capability like \"9.0\"");
        }
        return Status::Ok();
      }
      if (key == "sm_count") return Int(v, p, 1, &d->sm_count);
      if (key == "sm_clock_mhz") return Int(v, p, 1, &d->sm_clock_mhz);
      if (key == "mem_clock_mhz") return Int(v, p, 1, &d->mem_clock_mhz);
      if (key == "memory_bus_bits") return Int(v, p, 1, &d->memory_bus_bits);
      if (key == "memory_bytes") return Uint64(v, p, &d->memory_bytes);
      if (key == "l2_bytes") return Uint64(v, p, &d->l2_bytes);
      if (key == "max_threads_per_sm") return Int(v, p, 1, &d->max_threads_per_sm);
      if (key == "pci_bus_id") return PciBusId(v, p, d);
      if (key == "copy_engines") return Int(v, p, 0, &d->copy_engines);
      if (key == "local_cpus") return Cpus(v, p, &d->local_cpus);
      if (key == "timing") {
        return Object(v, p, [&](const std::string& k, const json& tv, const std::string& tp) {
          return TimingField(k, tv, tp, &d->timing);
        });
      }
      return NotFound(key);
    });
  }

  Status PeerObject(const json& j, const std::string& ptr, Peer* peer) const {
    bool has_gbps = false;
    Status s = Object(j, ptr, [&](const std::string& key, const json& v, const std::string& p) {
      if (key == "src") return Int(v, p, 0, &peer->src);
      if (key == "dst") return Int(v, p, 0, &peer->dst);
      if (key == "gbps") {
        has_gbps = true;
        return Number(v, p, true, &peer->gbps);
      }
      if (key == "latency_us") return Number(v, p, false, &peer->latency_us);
      return NotFound(key);
    });
    if (!s.ok()) return s;
    if (!has_gbps) return Fail(ptr, "missing \"gbps\"");
    return Status::Ok();
  }

  Status Top(const json& j, Scenario* sc) const {
    if (!j.is_object()) return Fail("", "expected an object");
    // Timing first: devices start from it whatever the key order in the file.
    Timing base;
    if (j.contains("timing")) {
      Status s = Object(j["timing"], "/timing",
                        [&](const std::string& k, const json& v, const std::string& p) {
                          return TimingField(k, v, p, &base);
                        });
      if (!s.ok()) return s;
    }
    Status s = Object(j, "", [&](const std::string& key, const json& v, const std::string& p) {
      if (key == "timing") return Status::Ok();
      if (key == "scenario_version") {
        int version = 0;
        if (Status st = Int(v, p, 1, &version); !st.ok()) return st;
        return version == 1 ? Status::Ok() : Fail(p, "only scenario_version 1 is known");
      }
      if (key == "driver_version") return Int(v, p, 0, &sc->driver_version);
      if (key == "init") return ErrorCode(v, p, true, &sc->init);
      if (key == "jit_error_log") return String(v, p, &sc->jit_error_log);
      if (key == "jit_info_log") return String(v, p, &sc->jit_info_log);
      if (key == "corrupt_device_copies") {
        if (!v.is_boolean()) return Fail(p, "expected true or false");
        sc->corrupt_device_copies = v.get<bool>();
        return Status::Ok();
      }
      if (key == "errors") {
        return Object(v, p, [&](const std::string& fn, const json& ev, const std::string& ep) {
          if (!FunctionNames().contains(fn)) {
            return Fail(ep, "not a function of CUDA_API_FUNCTIONS (src/sources/cuda/cuda_api.h)");
          }
          return ErrorCode(ev, ep, false, &sc->errors[fn]);
        });
      }
      if (key == "hangs") {
        if (!v.is_array()) return Fail(p, "expected an array of function names");
        for (size_t i = 0; i < v.size(); ++i) {
          const std::string ep = fmt::format("{}/{}", p, i);
          if (!v[i].is_string()) return Fail(ep, "expected a function name");
          const std::string fn = v[i].get<std::string>();
          if (!FunctionNames().contains(fn)) {
            return Fail(ep, "not a function of CUDA_API_FUNCTIONS (src/sources/cuda/cuda_api.h)");
          }
          sc->hangs.insert(fn);
        }
        return Status::Ok();
      }
      if (key == "devices") {
        if (!v.is_array()) return Fail(p, "expected an array of devices");
        for (size_t i = 0; i < v.size(); ++i) {
          Device d;
          Status st = DeviceObject(v[i], fmt::format("{}/{}", p, i), base, static_cast<int>(i), &d);
          if (!st.ok()) return st;
          sc->devices.push_back(std::move(d));
        }
        return Status::Ok();
      }
      if (key == "p2p") {
        if (!v.is_array()) return Fail(p, "expected an array of {src, dst, gbps}");
        for (size_t i = 0; i < v.size(); ++i) {
          Peer peer;
          if (Status st = PeerObject(v[i], fmt::format("{}/{}", p, i), &peer); !st.ok()) return st;
          sc->p2p.push_back(peer);
        }
        return Status::Ok();
      }
      return NotFound(key);
    });
    if (!s.ok()) return s;
    for (size_t i = 0; i < sc->p2p.size(); ++i) {
      const Peer& peer = sc->p2p[i];
      const int n = static_cast<int>(sc->devices.size());
      if (peer.src >= n || peer.dst >= n || peer.src == peer.dst) {
        return Fail(fmt::format("/p2p/{}", i),
                    fmt::format("route {} -> {} needs two different devices of the {} listed",
                                peer.src, peer.dst, n));
      }
    }
    return Status::Ok();
  }

 private:
  std::string origin_;
};

}  // namespace

Result<Scenario> ParseScenario(std::string_view text, std::string_view origin) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    // e.byte is the 1-based offset; e.what() repeats it with the parser's explanation.
    return InvalidInput(fmt::format("{}: not valid JSON (byte {}): {}", origin, e.byte, e.what()));
  }
  Scenario scenario;
  if (Status s = Parser(origin).Top(j, &scenario); !s.ok()) return s;
  return scenario;
}

}  // namespace gpuvet::fake_cuda
