// Policy parsing with toml++. Every key is known: an unknown key or a wrong type is an error with
// its position, because a typo in a health policy must not silently turn a check off.
#include "core/policy.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "core/catalogue.h"
#include "util/file.h"
#include "util/utf8.h"

namespace gpuvet {

namespace {

std::string Where(std::string_view file, const toml::source_region& r) {
  return fmt::format("{}:{}:{}", file, r.begin.line, r.begin.column);
}

class PolicyReader {
 public:
  PolicyReader(std::string_view file, Policy& policy) : file_(file), policy_(policy) {}

  Status Read(const toml::table& root) {
    for (auto&& [key, node] : root) {
      std::string k(key.str());
      if (!node.is_table()) return Error(node, fmt::format("'{}' must be a table ([{}])", k, k));
      const toml::table& t = *node.as_table();
      Status s;
      if (k == "gpu") {
        s = ReadGpu(t);
      } else if (k == "driver") {
        s = ReadDriver(t);
      } else if (k == "thresholds") {
        s = ReadThresholds(t);
      } else if (k == "checks") {
        s = ReadChecks(t);
      } else if (k == "severity") {
        s = ReadSeverity(t);
      } else if (k == "bench") {
        s = ReadBench(t);
      } else if (k == "fleet") {
        s = ReadFleet(t);
      } else {
        return Error(node, fmt::format("unknown table [{}]; expected one of [gpu], [driver], "
                                       "[thresholds], [checks], [severity], [bench], [fleet]",
                                       k));
      }
      if (!s.ok()) return s;
    }
    return Status::Ok();
  }

 private:
  // `n` is the node at fault, or for an unknown key the key itself, so the column points at the
  // key's name rather than its value.
  template <typename NodeOrKey>
  Status Error(const NodeOrKey& n, const std::string& what) {
    return InvalidInput(Where(file_, n.source()) + ": " + what);
  }

  Status ReadInt(const toml::node& n, std::string_view key, int64_t lo, int64_t hi, int64_t& out) {
    // The type first: value<int64_t>() converts a float node, and 2e30 does not fit (UB).
    const toml::value<int64_t>* iv = n.as_integer();
    if (iv == nullptr) return Error(n, fmt::format("'{}' must be an integer", key));
    const int64_t v = iv->get();
    if (v < lo || v > hi) {
      return Error(n, fmt::format("'{}' must be between {} and {}, got {}", key, lo, hi, v));
    }
    out = v;
    return Status::Ok();
  }

  Status ReadNumber(const toml::node& n, std::string_view key, double lo, double hi, double& out) {
    if (!n.is_number()) return Error(n, fmt::format("'{}' must be a number", key));
    double v =
        n.is_integer() ? static_cast<double>(n.as_integer()->get()) : n.as_floating_point()->get();
    // TOML accepts nan and inf; a NaN threshold makes every comparison false and turns its check
    // off without a word, an infinite one never fires.
    if (!std::isfinite(v)) {
      return Error(
          n, fmt::format("'{}' must be a finite number between {} and {}, got {}", key, lo, hi, v));
    }
    if (v < lo || v > hi) {
      return Error(n, fmt::format("'{}' must be between {} and {}, got {}", key, lo, hi, v));
    }
    out = v;
    return Status::Ok();
  }

  Status ReadStrings(const toml::node& n, std::string_view key, std::vector<std::string>& out) {
    const toml::array* a = n.as_array();
    if (!a) return Error(n, fmt::format("'{}' must be an array of strings", key));
    out.clear();
    for (const toml::node& e : *a) {
      auto s = e.value<std::string>();
      if (!e.is_string() || !s) {
        return Error(e, fmt::format("'{}' must contain only strings", key));
      }
      out.push_back(*s);
    }
    return Status::Ok();
  }

  Status ReadGpu(const toml::table& t) {
    for (auto&& [key, node] : t) {
      if (key.str() == "expected_count") {
        int64_t v = 0;
        if (Status s = ReadInt(node, "gpu.expected_count", 0, 1024, v); !s.ok()) return s;
        policy_.expected_gpu_count = static_cast<int>(v);
      } else {
        return Error(key,
                     fmt::format("unknown key 'gpu.{}'; expected 'expected_count'", key.str()));
      }
    }
    return Status::Ok();
  }

  Status ReadDriver(const toml::table& t) {
    for (auto&& [key, node] : t) {
      if (key.str() == "allowed_versions") {
        if (Status s =
                ReadStrings(node, "driver.allowed_versions", policy_.allowed_driver_versions);
            !s.ok())
          return s;
      } else if (key.str() == "allowed_cuda_versions") {
        if (Status s =
                ReadStrings(node, "driver.allowed_cuda_versions", policy_.allowed_cuda_versions);
            !s.ok())
          return s;
      } else if (key.str() == "allowed_vbios_versions") {
        if (Status s =
                ReadStrings(node, "driver.allowed_vbios_versions", policy_.allowed_vbios_versions);
            !s.ok())
          return s;
      } else {
        return Error(key, fmt::format("unknown key 'driver.{}'; expected 'allowed_versions', "
                                      "'allowed_cuda_versions' or 'allowed_vbios_versions'",
                                      key.str()));
      }
    }
    return Status::Ok();
  }

  Status ReadThresholds(const toml::table& t) {
    Thresholds& th = policy_.thresholds;
    struct IntKey {
      const char* name;
      std::function<void(int64_t)> set;
      int64_t lo, hi;
    };
    struct NumKey {
      const char* name;
      double* target;
      double lo, hi;
    };
    const IntKey ints[] = {
        {"temperature_margin_warn_c", [&](int64_t v) { th.temperature_margin_warn_c = int(v); }, 0,
         100},
        {"busy_util_pct", [&](int64_t v) { th.busy_util_pct = int(v); }, 0, 100},
        {"ecc_corrected_volatile_warn",
         [&](int64_t v) { th.ecc_corrected_volatile_warn = uint64_t(v); }, 0, INT64_MAX},
        {"retired_pages_fail", [&](int64_t v) { th.retired_pages_fail = int(v); }, 1, 100000},
        {"remapped_rows_uncorrectable_fail",
         [&](int64_t v) { th.remapped_rows_uncorrectable_fail = int(v); }, 1, 100000},
        {"nvlink_crc_max", [&](int64_t v) { th.nvlink_crc_max = uint64_t(v); }, 0, INT64_MAX},
        {"nvlink_recovery_max", [&](int64_t v) { th.nvlink_recovery_max = uint64_t(v); }, 0,
         INT64_MAX},
        {"ib_symbol_error_max", [&](int64_t v) { th.ib_symbol_error_max = uint64_t(v); }, 0,
         INT64_MAX},
        {"ib_link_downed_max", [&](int64_t v) { th.ib_link_downed_max = uint64_t(v); }, 0,
         INT64_MAX},
        {"ib_link_error_recovery_max",
         [&](int64_t v) { th.ib_link_error_recovery_max = uint64_t(v); }, 0, INT64_MAX},
        {"ib_rcv_errors_max", [&](int64_t v) { th.ib_rcv_errors_max = uint64_t(v); }, 0, INT64_MAX},
        {"ib_rcv_remote_physical_errors_max",
         [&](int64_t v) { th.ib_rcv_remote_physical_errors_max = uint64_t(v); }, 0, INT64_MAX},
        {"ib_xmit_discards_max", [&](int64_t v) { th.ib_xmit_discards_max = uint64_t(v); }, 0,
         INT64_MAX},
    };
    const NumKey nums[] = {
        {"power_limit_min_ratio", &th.power_limit_min_ratio, 0, 1},
        {"sm_clock_min_ratio", &th.sm_clock_min_ratio, 0, 1},
        {"pcie_replay_ber", &th.pcie_replay_ber, 0, 1},
        {"aer_corrected_per_min", &th.aer_corrected_per_min, 0, 1e9},
        {"cpu_cores_per_gpu_min", &th.cpu_cores_per_gpu_min, 0, 4096},
        {"memory_per_gpu_min_gib", &th.memory_per_gpu_min_gib, 0, 1e6},
        {"memory_available_min_pct", &th.memory_available_min_pct, 0, 100},
        {"psi_memory_full_warn_pct", &th.psi_memory_full_warn_pct, 0, 100},
        {"psi_io_full_warn_pct", &th.psi_io_full_warn_pct, 0, 100},
        {"psi_cpu_some_warn_pct", &th.psi_cpu_some_warn_pct, 0, 100},
        {"ib_min_rate_gbps", &th.ib_min_rate_gbps, 0, 1e5},
    };
    for (auto&& [key, node] : t) {
      bool known = false;
      for (const IntKey& k : ints) {
        if (key.str() != k.name) continue;
        int64_t v = 0;
        if (Status s = ReadInt(node, std::string("thresholds.") + k.name, k.lo, k.hi, v); !s.ok())
          return s;
        k.set(v);
        known = true;
      }
      for (const NumKey& k : nums) {
        if (key.str() != k.name) continue;
        if (Status s = ReadNumber(node, std::string("thresholds.") + k.name, k.lo, k.hi, *k.target);
            !s.ok())
          return s;
        known = true;
      }
      if (!known) {
        return Error(
            key, fmt::format("unknown key 'thresholds.{}' (docs/policy.md lists them)", key.str()));
      }
    }
    return Status::Ok();
  }

  Status ReadChecks(const toml::table& t) {
    for (auto&& [key, node] : t) {
      if (key.str() != "skip") {
        return Error(key, fmt::format("unknown key 'checks.{}'; expected 'skip'", key.str()));
      }
      std::vector<std::string> skip;
      if (Status s = ReadStrings(node, "checks.skip", skip); !s.ok()) return s;
      const toml::array& a = *node.as_array();
      for (size_t i = 0; i < skip.size(); ++i) {
        if (!FindCatalogueEntry(skip[i]) && !IsCatalogueArea(skip[i])) {
          return Error(*a.get(i), fmt::format("'{}' is neither a check id nor an area (see "
                                              "`gpuvet checks`)",
                                              skip[i]));
        }
        policy_.skip.insert(skip[i]);
      }
    }
    return Status::Ok();
  }

  Status ReadSeverity(const toml::table& t) {
    for (auto&& [key, node] : t) {
      std::string id(key.str());
      if (!FindCatalogueEntry(id)) {
        return Error(node, fmt::format("'{}' is not a check id (see `gpuvet checks`)", id));
      }
      auto name = node.value<std::string>();
      std::optional<Severity> sev = name ? ParseSeverity(*name) : std::nullopt;
      if (!node.is_string() || !sev) {
        return Error(node, fmt::format("severity for '{}' must be one of \"ok\", \"info\", "
                                       "\"warn\", \"fail\", \"unknown\"",
                                       id));
      }
      policy_.severity_overrides[id] = *sev;
    }
    return Status::Ok();
  }

  // [bench] thresholds and the [bench.minimums] table of per-measurement absolute minimums.
  Status ReadBench(const toml::table& t) {
    BenchThresholds& b = policy_.bench;
    struct NumKey {
      const char* name;
      double* target;
      double lo, hi;
    };
    const NumKey nums[] = {
        {"min_fraction_of_expected", &b.min_fraction_of_expected, 0, 1},
        {"pageable_min_ratio", &b.pageable_min_ratio, 0, 1},
        {"numa_max_penalty", &b.numa_max_penalty, 0, 1},
        {"launch_latency_max_us", &b.launch_latency_max_us, 0, 1e6},
        {"regression_max_drop", &b.regression_max_drop, 0, 1},
    };
    // Higher-is-better measurement ids of core/bench.h (latencies have their own thresholds).
    constexpr std::string_view kMinimumIds[] = {
        "h2d_pinned",   "d2h_pinned",        "h2d_pageable",      "d2h_pageable",
        "bidir_pinned", "h2d_pinned_remote", "d2h_pinned_remote", "d2d_copy_engine",
        "d2d_sm_copy",  "sm_triad",          "fp32_fma",          "bf16_tensor",
        "fp16_tensor",  "launch_rate",       "p2p_bandwidth",     "nccl_allreduce_busbw",
    };
    for (auto&& [key, node] : t) {
      if (key.str() == "minimums") {
        const toml::table* m = node.as_table();
        if (!m) return Error(node, "'bench.minimums' must be a table ([bench.minimums])");
        for (auto&& [id, value] : *m) {
          bool known = false;
          for (std::string_view k : kMinimumIds) known = known || k == id.str();
          if (!known) {
            return Error(value, fmt::format("'{}' is not a benchmark figure with a minimum "
                                            "(docs/bench.md lists them)",
                                            id.str()));
          }
          double v = 0;
          if (Status s = ReadNumber(value, "bench.minimums." + std::string(id.str()), 0, 1e12, v);
              !s.ok())
            return s;
          b.minimums[std::string(id.str())] = v;
        }
        continue;
      }
      bool known = false;
      for (const NumKey& k : nums) {
        if (key.str() != k.name) continue;
        if (Status s = ReadNumber(node, std::string("bench.") + k.name, k.lo, k.hi, *k.target);
            !s.ok())
          return s;
        known = true;
      }
      if (!known) {
        return Error(key,
                     fmt::format("unknown key 'bench.{}' (docs/policy.md lists them)", key.str()));
      }
    }
    return Status::Ok();
  }

  // [fleet]: thresholds of `gpuvet fleet audit`.
  Status ReadFleet(const toml::table& t) {
    FleetThresholds& f = policy_.fleet;
    struct NumKey {
      const char* name;
      double* target;
      double lo, hi;
    };
    const NumKey nums[] = {
        {"ecc_sbe_rate_warn_per_h", &f.ecc_sbe_rate_warn_per_h, 0, 1e12},
        {"ecc_sbe_rate_fail_per_h", &f.ecc_sbe_rate_fail_per_h, 0, 1e12},
        {"thermal_share_warn", &f.thermal_share_warn, 0, 1},
        {"thermal_share_fail", &f.thermal_share_fail, 0, 1},
        {"power_share_warn", &f.power_share_warn, 0, 1},
        {"bench_z", &f.bench_z, 0, 1000},
        {"bench_min_drop", &f.bench_min_drop, 0, 1},
        {"bench_fail_drop", &f.bench_fail_drop, 0, 1},
    };
    // Where each number was set, for the warn-below-fail checks after the loop.
    std::map<std::string, const toml::node*> set_at;
    for (auto&& [key, node] : t) {
      set_at[std::string(key.str())] = &node;
      if (key.str() == "min_pool_nodes") {
        int64_t v = 0;
        if (Status s = ReadInt(node, "fleet.min_pool_nodes", 2, 1000000, v); !s.ok()) return s;
        f.min_pool_nodes = static_cast<int>(v);
        continue;
      }
      bool known = false;
      for (const NumKey& k : nums) {
        if (key.str() != k.name) continue;
        if (Status s = ReadNumber(node, std::string("fleet.") + k.name, k.lo, k.hi, *k.target);
            !s.ok())
          return s;
        known = true;
      }
      if (!known) {
        return Error(key,
                     fmt::format("unknown key 'fleet.{}' (docs/policy.md lists them)", key.str()));
      }
    }
    // A warn level above its fail level would fail before it warns: refuse it where it is set.
    struct Ordered {
      const char* lower;
      const char* upper;
      double lower_value, upper_value;
    };
    const Ordered pairs[] = {
        {"ecc_sbe_rate_warn_per_h", "ecc_sbe_rate_fail_per_h", f.ecc_sbe_rate_warn_per_h,
         f.ecc_sbe_rate_fail_per_h},
        {"thermal_share_warn", "thermal_share_fail", f.thermal_share_warn, f.thermal_share_fail},
        {"bench_min_drop", "bench_fail_drop", f.bench_min_drop, f.bench_fail_drop},
    };
    for (const Ordered& o : pairs) {
      if (o.lower_value <= o.upper_value) continue;
      auto it = set_at.find(o.lower);
      const toml::node* at = it != set_at.end() ? it->second : set_at.at(o.upper);
      return Error(*at, fmt::format("'fleet.{}' ({}) must not be above 'fleet.{}' ({}): the warn "
                                    "level comes before the fail level",
                                    o.lower, o.lower_value, o.upper, o.upper_value));
    }
    return Status::Ok();
  }

  std::string_view file_;
  Policy& policy_;
};

}  // namespace

Result<Policy> ParsePolicy(std::string_view toml_text, std::string_view filename) {
  Policy policy;
  policy.source = std::string(filename);
  // TOML is UTF-8 (toml.io: "A TOML file must be a valid UTF-8 encoded Unicode document").
  if (size_t bad = FindInvalidUtf8(toml_text); bad != std::string_view::npos) {
    std::string_view before = toml_text.substr(0, bad);
    size_t line_start = before.rfind('\n');
    line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
    const size_t line = 1 + static_cast<size_t>(std::count(before.begin(), before.end(), '\n'));
    return InvalidInput(fmt::format(
        "{}:{}:{}: byte 0x{:02x} is not UTF-8; a policy must be UTF-8 "
        "text (TOML)",
        filename, line, bad - line_start + 1, static_cast<unsigned char>(toml_text[bad])));
  }
  toml::table root;
  try {
    root = toml::parse(toml_text, filename);
  } catch (const toml::parse_error& e) {
    return InvalidInput(fmt::format("{}: {}", Where(filename, e.source()), e.description()));
  }
  PolicyReader reader(filename, policy);
  if (Status s = reader.Read(root); !s.ok()) return s;
  return policy;
}

Result<Policy> LoadPolicy(const std::string& path) {
  // A path the user named: `--policy <(generate-policy)` is read to its end; a device is refused.
  auto text = ReadFile(path, 1 << 20, FileKinds::kRegularOrPipe);
  if (!text.ok()) return InvalidInput("cannot read policy: " + text.status().message());
  return ParsePolicy(text.value(), path);
}

bool IsSkipped(const Policy& policy, std::string_view id) {
  if (policy.skip.count(std::string(id))) return true;
  size_t dot = id.find('.');
  return dot != std::string_view::npos && policy.skip.count(std::string(id.substr(0, dot)));
}

}  // namespace gpuvet
