// The per-device NVML reader: one DeviceReader per GPU walks identity, activity, clocks, thermal
// and power, PCIe, ECC, memory health, MIG, NVLink and processes. Every call goes through
// NvmlCaller (nvml_caller.h), so the code below is only "which call, which unit".
#include "sources/nvml/nvml_device_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "sources/nvml/nvml_caller.h"
#include "sources/nvml/nvml_source.h"
#include "sources/nvml/scenario_fields.h"

namespace gpuvet::nvml_internal {

namespace {

// NVML_PSTATE_UNKNOWN (nvml.h nvmlPstates_t): the driver does not know the P-state.
constexpr int kPstateUnknown = 32;
// NVML_DEVICE_MIG_ENABLE (nvml.h).
constexpr unsigned kMigEnabled = 1;
// nvmlProcessInfo_t.usedGpuMemory when the driver cannot tell (NVML_VALUE_NOT_AVAILABLE).
constexpr unsigned long long kValueNotAvailable = ~0ULL;
// Processes can start between the count query and the fetch: room for this many more, and retries.
constexpr unsigned kProcessSlack = 16;
constexpr int kProcessAttempts = 3;

// "nvmlDeviceGetPowerUsage", &NvmlLibrary::nvmlDeviceGetPowerUsage: the call name is never typed
// twice.
#define GPUVET_NVML(fn) #fn, &NvmlLibrary::fn

// Reads every GpuState field of one device.
class DeviceReader {
 public:
  DeviceReader(const NvmlLibrary& lib, CallRunner& exec, nvmlDevice_t dev, GpuState& gpu,
               const StaticDeviceInfo* cached)
      : nvml_(lib, exec, &gpu.failures, &gpu), dev_(dev), gpu_(gpu), cached_(cached) {}

  NvmlCaller& caller() { return nvml_; }

  // The static fields as read (valid after ReadAll).
  StaticDeviceInfo Learned() const {
    StaticDeviceInfo s;
    s.name = gpu_.name;
    s.uuid = gpu_.uuid;
    s.serial = gpu_.serial;
    s.vbios_version = gpu_.vbios_version;
    s.pci_bus_id = gpu_.pci_bus_id;
    s.minor_number = gpu_.minor_number;
    s.sm_clock_max_mhz = gpu_.sm_clock_max_mhz;
    s.mem_clock_max_mhz = gpu_.mem_clock_max_mhz;
    s.slowdown_temperature_c = gpu_.slowdown_temperature_c;
    s.shutdown_temperature_c = gpu_.shutdown_temperature_c;
    s.pcie_gen_max = gpu_.pcie_gen_max;
    s.pcie_width_max = gpu_.pcie_width_max;
    s.default_power_limit_w = gpu_.default_power_limit_w;
    s.nvlink_count = nvlink_count_;
    return s;
  }

  void ReadAll() {
    ReadIdentity();
    ReadActivity();
    ReadClocks();
    ReadThermalAndPower();
    ReadPcie();
    ReadEcc();
    ReadMemoryHealth();
    ReadMig();
    ReadNvLinks();
    ReadProcesses();
  }

 private:
  template <typename T>
  using Getter = nvmlReturn_t (NvmlLibrary::*)(nvmlDevice_t, T*) const;
  template <typename A, typename T>
  using ArgGetter = nvmlReturn_t (NvmlLibrary::*)(nvmlDevice_t, A, T*) const;

  // A getter of one output: nvmlReturn_t (device, T*).
  template <typename T>
  std::pair<Outcome, T> Get(const char* call, Getter<T> getter,
                            std::initializer_list<int> expected = {}) {
    nvmlDevice_t dev = dev_;
    return nvml_.Query<T>(
        call, [dev, getter](const NvmlLibrary& l, T& out) { return (l.*getter)(dev, &out); },
        expected);
  }

  // A getter with one argument before its output: nvmlReturn_t (device, A, T*).
  template <typename A, typename T>
  std::pair<Outcome, T> GetArg(const char* call, ArgGetter<A, T> getter,
                               std::type_identity_t<A> arg,
                               std::initializer_list<int> expected = {}) {
    nvmlDevice_t dev = dev_;
    return nvml_.Query<T>(
        call,
        [dev, getter, arg](const NvmlLibrary& l, T& out) { return (l.*getter)(dev, arg, &out); },
        expected);
  }

  // A string getter: nvmlReturn_t (device, char*, length). "" unless it succeeded.
  using StringGetter = nvmlReturn_t (NvmlLibrary::*)(nvmlDevice_t, char*, unsigned int) const;
  std::string GetString(const char* call, StringGetter getter) {
    using Buffer = std::array<char, 128>;  // above every NVML_DEVICE_*_BUFFER_SIZE
    nvmlDevice_t dev = dev_;
    auto [o, buf] = nvml_.Query<Buffer>(call, [dev, getter](const NvmlLibrary& l, Buffer& b) {
      return (l.*getter)(dev, b.data(), b.size() - 1);  // keep a final NUL whatever it writes
    });
    return o.ok() ? std::string(buf.data(), strnlen(buf.data(), buf.size())) : std::string();
  }

  Reading<int> Uint(const char* call, Getter<unsigned> getter) {
    auto [o, v] = Get(call, getter);
    return ToReading(o, static_cast<int>(v));
  }
  Reading<double> Milliwatts(const char* call, Getter<unsigned> getter) {
    auto [o, mw] = Get(call, getter);
    return ToReading(o, mw / 1000.0);
  }

  void ReadIdentity() {
    if (cached_ != nullptr) {
      gpu_.name = cached_->name;
      gpu_.uuid = cached_->uuid;
      gpu_.serial = cached_->serial;
      gpu_.vbios_version = cached_->vbios_version;
      gpu_.pci_bus_id = cached_->pci_bus_id;
      gpu_.minor_number = cached_->minor_number;
      return;
    }
    gpu_.name = GetString(GPUVET_NVML(nvmlDeviceGetName));
    gpu_.uuid = GetString(GPUVET_NVML(nvmlDeviceGetUUID));
    gpu_.serial = GetString(GPUVET_NVML(nvmlDeviceGetSerial));
    gpu_.vbios_version = GetString(GPUVET_NVML(nvmlDeviceGetVbiosVersion));
    auto [o, pci] = Get(GPUVET_NVML(nvmlDeviceGetPciInfo_v3));
    if (o.ok()) {
      pci.busId[sizeof(pci.busId) - 1] = '\0';
      pci.busIdLegacy[sizeof(pci.busIdLegacy) - 1] = '\0';
      gpu_.pci_bus_id = NormalizePciBusId(pci.busId[0] != '\0' ? pci.busId : pci.busIdLegacy);
    }
    gpu_.minor_number = Uint(GPUVET_NVML(nvmlDeviceGetMinorNumber));
  }

  void ReadActivity() {
    auto [pm, mode] = Get(GPUVET_NVML(nvmlDeviceGetPersistenceMode));
    gpu_.persistence_mode = ToReading(pm, mode != 0);
    auto [ps, pstate] = Get(GPUVET_NVML(nvmlDeviceGetPerformanceState));
    gpu_.performance_state =
        ps.ok() && pstate == kPstateUnknown
            ? Reading<int>::Unsupported("nvmlDeviceGetPerformanceState: P-state unknown")
            : ToReading(ps, pstate);
    auto [uo, util] = Get(GPUVET_NVML(nvmlDeviceGetUtilizationRates));
    gpu_.gpu_util_pct = ToReading(uo, static_cast<int>(util.gpu));
    gpu_.memory_util_pct = ToReading(uo, static_cast<int>(util.memory));
    auto [mo, mem] = Get(GPUVET_NVML(nvmlDeviceGetMemoryInfo));
    gpu_.memory_total_bytes = ToReading(mo, static_cast<uint64_t>(mem.total));
    gpu_.memory_used_bytes = ToReading(mo, static_cast<uint64_t>(mem.used));
  }

  Reading<int> UintArg(const char* call, ArgGetter<int, unsigned> getter, int arg) {
    auto [o, v] = GetArg(call, getter, arg);
    return ToReading(o, static_cast<int>(v));
  }

  void ReadClocks() {
    gpu_.sm_clock_mhz = UintArg(GPUVET_NVML(nvmlDeviceGetClockInfo), NVML_CLOCK_SM);
    gpu_.sm_clock_max_mhz = cached_ != nullptr
                                ? cached_->sm_clock_max_mhz
                                : UintArg(GPUVET_NVML(nvmlDeviceGetMaxClockInfo), NVML_CLOCK_SM);
    gpu_.mem_clock_mhz = UintArg(GPUVET_NVML(nvmlDeviceGetClockInfo), NVML_CLOCK_MEM);
    gpu_.mem_clock_max_mhz = cached_ != nullptr
                                 ? cached_->mem_clock_max_mhz
                                 : UintArg(GPUVET_NVML(nvmlDeviceGetMaxClockInfo), NVML_CLOCK_MEM);
    // r535 renamed "throttle reasons" to "clocks event reasons"; older drivers have only the old
    // name, so fall back when the new one is absent or refused.
    auto [o, reasons] = Get(GPUVET_NVML(nvmlDeviceGetCurrentClocksEventReasons),
                            {NVML_ERROR_FUNCTION_NOT_FOUND, NVML_ERROR_NOT_SUPPORTED});
    if (o.called && !o.ok() && !o.stalled()) {
      std::tie(o, reasons) = Get(GPUVET_NVML(nvmlDeviceGetCurrentClocksThrottleReasons));
    }
    gpu_.clock_event_reasons = ToReading(o, static_cast<uint64_t>(reasons));
  }

  void ReadThermalAndPower() {
    gpu_.temperature_c = UintArg(GPUVET_NVML(nvmlDeviceGetTemperature), NVML_TEMPERATURE_GPU);
    if (cached_ != nullptr) {
      gpu_.slowdown_temperature_c = cached_->slowdown_temperature_c;
      gpu_.shutdown_temperature_c = cached_->shutdown_temperature_c;
    } else {
      gpu_.slowdown_temperature_c = UintArg(GPUVET_NVML(nvmlDeviceGetTemperatureThreshold),
                                            NVML_TEMPERATURE_THRESHOLD_SLOWDOWN);
      gpu_.shutdown_temperature_c = UintArg(GPUVET_NVML(nvmlDeviceGetTemperatureThreshold),
                                            NVML_TEMPERATURE_THRESHOLD_SHUTDOWN);
    }
    // r555+; older drivers lack the symbol (FUNCTION_NOT_FOUND) and pre-Ada GPUs answer
    // NOT_SUPPORTED: both leave the margin absent, which is a skip, not a failure.
    nvmlDevice_t dev = dev_;
    nvmlMarginTemperature_t request{};
    request.version = nvmlMarginTemperature_v1;
    auto [mo, margin] = nvml_.Query<nvmlMarginTemperature_t>(
        scenario_internal::kMarginTemperatureCall,
        [dev](const NvmlLibrary& l, nvmlMarginTemperature_t& m) {
          return l.nvmlDeviceGetMarginTemperature(dev, &m);
        },
        {}, request);
    gpu_.temperature_margin_c = ToReading(mo, margin.marginTemperature);
    gpu_.power_w = Milliwatts(GPUVET_NVML(nvmlDeviceGetPowerUsage));
    gpu_.power_limit_w = Milliwatts(GPUVET_NVML(nvmlDeviceGetEnforcedPowerLimit));
    gpu_.default_power_limit_w =
        cached_ != nullptr ? cached_->default_power_limit_w
                           : Milliwatts(GPUVET_NVML(nvmlDeviceGetPowerManagementDefaultLimit));
    auto [eo, mj] = Get(GPUVET_NVML(nvmlDeviceGetTotalEnergyConsumption));
    gpu_.energy_j = ToReading(eo, static_cast<double>(mj) / 1000.0);
  }

  void ReadPcie() {
    gpu_.pcie_gen = Uint(GPUVET_NVML(nvmlDeviceGetCurrPcieLinkGeneration));
    gpu_.pcie_gen_max = cached_ != nullptr ? cached_->pcie_gen_max
                                           : Uint(GPUVET_NVML(nvmlDeviceGetMaxPcieLinkGeneration));
    gpu_.pcie_width = Uint(GPUVET_NVML(nvmlDeviceGetCurrPcieLinkWidth));
    gpu_.pcie_width_max = cached_ != nullptr ? cached_->pcie_width_max
                                             : Uint(GPUVET_NVML(nvmlDeviceGetMaxPcieLinkWidth));
    auto [o, replays] = Get(GPUVET_NVML(nvmlDeviceGetPcieReplayCounter));
    gpu_.pcie_replay_counter = ToReading(o, static_cast<uint64_t>(replays));
  }

  Reading<uint64_t> EccCount(int error_type, int counter_type) {
    nvmlDevice_t dev = dev_;
    auto [o, n] = nvml_.Query<unsigned long long>(
        "nvmlDeviceGetTotalEccErrors",
        [dev, error_type, counter_type](const NvmlLibrary& l, unsigned long long& c) {
          return l.nvmlDeviceGetTotalEccErrors(dev, error_type, counter_type, &c);
        });
    return ToReading(o, static_cast<uint64_t>(n));
  }

  void ReadEcc() {
    nvmlDevice_t dev = dev_;
    using Modes = std::pair<nvmlEnableState_t, nvmlEnableState_t>;
    auto [o, modes] =
        nvml_.Query<Modes>("nvmlDeviceGetEccMode", [dev](const NvmlLibrary& l, Modes& m) {
          return l.nvmlDeviceGetEccMode(dev, &m.first, &m.second);
        });
    gpu_.ecc_enabled = ToReading(o, modes.first != 0);
    gpu_.ecc_pending_enabled = ToReading(o, modes.second != 0);
    gpu_.ecc_corrected_volatile = EccCount(NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC);
    gpu_.ecc_uncorrected_volatile = EccCount(NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC);
    gpu_.ecc_corrected_aggregate = EccCount(NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC);
    gpu_.ecc_uncorrected_aggregate =
        EccCount(NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC);
  }

  // Count-query protocol: page_count = 0 answers SUCCESS (none) or INSUFFICIENT_SIZE with the
  // count.
  Reading<int> RetiredPages(int cause) {
    nvmlDevice_t dev = dev_;
    auto [o, count] =
        nvml_.Query<unsigned>("nvmlDeviceGetRetiredPages",
                              [dev, cause](const NvmlLibrary& l, unsigned& n) {
                                n = 0;
                                return l.nvmlDeviceGetRetiredPages(dev, cause, &n, nullptr);
                              },
                              {NVML_ERROR_INSUFFICIENT_SIZE});
    if (o.code == NVML_ERROR_INSUFFICIENT_SIZE) o.code = NVML_SUCCESS;
    return ToReading(o, static_cast<int>(count));
  }

  void ReadMemoryHealth() {
    gpu_.retired_pages_sbe =
        RetiredPages(NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS);
    gpu_.retired_pages_dbe = RetiredPages(NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR);
    auto [po, pending] = Get(GPUVET_NVML(nvmlDeviceGetRetiredPagesPendingStatus));
    gpu_.retired_pages_pending = ToReading(po, pending != 0);
    using Rows = std::array<unsigned, 4>;  // correctable, uncorrectable, pending, failure
    nvmlDevice_t dev = dev_;
    auto [ro, rows] =
        nvml_.Query<Rows>("nvmlDeviceGetRemappedRows", [dev](const NvmlLibrary& l, Rows& r) {
          return l.nvmlDeviceGetRemappedRows(dev, &r[0], &r[1], &r[2], &r[3]);
        });
    gpu_.remapped_rows_correctable = ToReading(ro, static_cast<int>(rows[0]));
    gpu_.remapped_rows_uncorrectable = ToReading(ro, static_cast<int>(rows[1]));
    gpu_.remap_pending = ToReading(ro, rows[2] != 0);
    gpu_.remap_failure = ToReading(ro, rows[3] != 0);
  }

  void ReadMig() {
    nvmlDevice_t dev = dev_;
    using Modes = std::pair<unsigned, unsigned>;
    auto [o, modes] =
        nvml_.Query<Modes>("nvmlDeviceGetMigMode", [dev](const NvmlLibrary& l, Modes& m) {
          return l.nvmlDeviceGetMigMode(dev, &m.first, &m.second);
        });
    gpu_.mig_enabled = ToReading(o, modes.first == kMigEnabled);
    gpu_.mig_pending_enabled = ToReading(o, modes.second == kMigEnabled);
    if (!o.ok() || modes.first != kMigEnabled) {
      gpu_.mig_instances = o.ok() ? Reading<int>::Of(0) : ToReading(o, 0);
      return;
    }
    auto [mo, max] = Get(GPUVET_NVML(nvmlDeviceGetMaxMigDeviceCount));
    if (!mo.ok()) {
      gpu_.mig_instances = ToReading(mo, 0);
      return;
    }
    int instances = 0;
    for (unsigned i = 0; i < max && i < kMaxDevices; ++i) {
      auto [ho, handle] =
          nvml_.Query<nvmlDevice_t>("nvmlDeviceGetMigDeviceHandleByIndex",
                                    [dev, i](const NvmlLibrary& l, nvmlDevice_t& h) {
                                      return l.nvmlDeviceGetMigDeviceHandleByIndex(dev, i, &h);
                                    },
                                    {NVML_ERROR_NOT_FOUND, NVML_ERROR_INVALID_ARGUMENT});
      if (ho.ok()) {
        ++instances;
      } else if (ho.code != NVML_ERROR_NOT_FOUND) {  // INVALID_ARGUMENT: past the last slot
        if (ho.code != NVML_ERROR_INVALID_ARGUMENT) {
          gpu_.mig_instances = ToReading(ho, 0);
          return;
        }
        break;
      }
    }
    gpu_.mig_instances = Reading<int>::Of(instances);
  }

  Reading<uint64_t> NvLinkCounter(unsigned link, int counter) {
    nvmlDevice_t dev = dev_;
    auto [o, n] = nvml_.Query<unsigned long long>(
        "nvmlDeviceGetNvLinkErrorCounter",
        [dev, link, counter](const NvmlLibrary& l, unsigned long long& v) {
          return l.nvmlDeviceGetNvLinkErrorCounter(dev, link, counter, &v);
        });
    return ToReading(o, static_cast<uint64_t>(n));
  }

  // One nvmlDeviceGetFieldValues call for `ids` with `scope` (the link for per-link fields).
  // Returns the whole call's outcome and each field's answer as NVML wrote it.
  std::pair<Outcome, std::vector<nvmlFieldValue_t>> FieldValues(const std::vector<unsigned>& ids,
                                                                unsigned scope) {
    std::vector<nvmlFieldValue_t> request(ids.size());
    for (size_t i = 0; i < ids.size(); ++i) {
      request[i] = nvmlFieldValue_t{};
      request[i].fieldId = ids[i];
      request[i].scopeId = scope;
    }
    nvmlDevice_t dev = dev_;
    auto answer = nvml_.Query<std::vector<nvmlFieldValue_t>>(
        scenario_internal::kFieldValuesCall,
        [dev](const NvmlLibrary& l, std::vector<nvmlFieldValue_t>& v) {
          return l.nvmlDeviceGetFieldValues(dev, static_cast<int>(v.size()), v.data());
        },
        {}, std::move(request));
    // The call succeeds as a whole even when no field does: only a field's value is an answer.
    if (answer.first.ok() &&
        std::none_of(answer.second.begin(), answer.second.end(),
                     [](const nvmlFieldValue_t& f) { return f.nvmlReturn == NVML_SUCCESS; })) {
      --gpu_.answered_calls;
    }
    return answer;
  }

  // One field's answer as a count: its own return code decides (not supported stays a skip, an
  // error is recorded once under nvmlDeviceGetFieldValues), then its value by its type.
  Reading<uint64_t> FieldCount(const Outcome& call, const nvmlFieldValue_t& f, const char* name) {
    if (!call.ok()) return ToReading(call, uint64_t{0});
    const std::string what = fmt::format("{}({})", scenario_internal::kFieldValuesCall, name);
    if (f.nvmlReturn == NVML_ERROR_NOT_SUPPORTED || f.nvmlReturn == NVML_ERROR_INVALID_ARGUMENT) {
      // INVALID_ARGUMENT per field: this driver does not know the field id (or link).
      return Reading<uint64_t>::Unsupported(what + ": not supported");
    }
    if (f.nvmlReturn != NVML_SUCCESS) {
      if (f.nvmlReturn == NVML_ERROR_GPU_IS_LOST) {
        gpu_.lost = true;
        gpu_.lost_call = scenario_internal::kFieldValuesCall;
      } else {
        RecordFailure(scenario_internal::kFieldValuesCall,
                      fmt::format("{}: {}", name, DescribeNvmlError(f.nvmlReturn)));
      }
      return Reading<uint64_t>::Error(fmt::format("{}: {}", what, NvmlErrorName(f.nvmlReturn)));
    }
    std::optional<uint64_t> v = FieldValueAsCount(f);
    if (!v) {
      RecordFailure(scenario_internal::kFieldValuesCall,
                    fmt::format("{}: value type {} is not a count", name, f.valueType));
      return Reading<uint64_t>::Error(what + ": unexpected value type");
    }
    return Reading<uint64_t>::Of(*v);
  }

  // A failure that is not one call's return code (a field of nvmlDeviceGetFieldValues), once per
  // call name like NvmlCaller's own.
  void RecordFailure(const char* call, std::string message) {
    for (const CallFailure& f : gpu_.failures) {
      if (f.call == call) return;
    }
    gpu_.failures.push_back(CallFailure{call, std::move(message), false});
  }

  // The counters of one link through field values (NVLink5 and newer, where the per-link error
  // counter call is not supported). `old_call` is that call's outcome, kept for crc_data_errors,
  // which has no field.
  void ReadLinkFields(unsigned link, const Outcome& old_call, NvLinkState& state) {
    std::vector<unsigned> ids;
    for (const auto& f : scenario_internal::kNvLinkFieldIds) ids.push_back(f.field_id);
    auto [o, values] = FieldValues(ids, link);
    state.from_field_values = o.ok();
    for (size_t i = 0; i < ids.size(); ++i) {
      const auto& f = scenario_internal::kNvLinkFieldIds[i];
      state.*f.member = i < values.size() && values[i].fieldId == f.field_id
                            ? FieldCount(o, values[i], f.name)
                            : ToReading(o, uint64_t{0});
    }
    state.crc_data_errors = ToReading(old_call, uint64_t{0});
  }

  // How many links to walk: NVML_FI_DEV_NVLINK_LINK_COUNT where the driver answers it (it may
  // exceed NVML_NVLINK_MAX_LINKS on newer GPUs), else NVML_NVLINK_MAX_LINKS; 0 for no NVLink.
  unsigned NvLinkCount() {
    auto [o, values] = FieldValues({NVML_FI_DEV_NVLINK_LINK_COUNT}, 0);
    if (!o.ok() || values.size() != 1 || values[0].nvmlReturn != NVML_SUCCESS) {
      return NVML_NVLINK_MAX_LINKS;
    }
    std::optional<uint64_t> n = FieldValueAsCount(values[0]);
    if (!n) return NVML_NVLINK_MAX_LINKS;
    return static_cast<unsigned>(std::min<uint64_t>(*n, scenario_internal::kMaxNvLinks));
  }

  void ReadNvLinks() {
    const unsigned links = cached_ != nullptr ? cached_->nvlink_count : NvLinkCount();
    nvlink_count_ = links;
    for (unsigned link = 0; link < links && !gpu_.lost && !gpu_.abandoned; ++link) {
      auto [o, active] = GetArg(
          GPUVET_NVML(nvmlDeviceGetNvLinkState), link,
          {NVML_ERROR_NOT_SUPPORTED, NVML_ERROR_FUNCTION_NOT_FOUND, NVML_ERROR_INVALID_ARGUMENT});
      if (o.code == NVML_ERROR_INVALID_ARGUMENT) break;  // past the last link this GPU has
      if (!o.ok()) {
        // Link 0 unsupported: no NVLink at all. A hang or error ends the walk too.
        if (link == 0 || !o.unsupported()) break;
        continue;
      }
      NvLinkState state;
      state.link = static_cast<int>(link);
      state.active = active != 0;
      if (state.active) {
        nvmlDevice_t dev = dev_;
        auto [ro, replays] = nvml_.Query<unsigned long long>(
            "nvmlDeviceGetNvLinkErrorCounter",
            [dev, link](const NvmlLibrary& l, unsigned long long& v) {
              return l.nvmlDeviceGetNvLinkErrorCounter(dev, link, NVML_NVLINK_ERROR_DL_REPLAY, &v);
            },
            {NVML_ERROR_NOT_SUPPORTED, NVML_ERROR_FUNCTION_NOT_FOUND});
        if (ro.code == NVML_ERROR_NOT_SUPPORTED || ro.code == NVML_ERROR_FUNCTION_NOT_FOUND) {
          ro.note = ro.code == NVML_ERROR_NOT_SUPPORTED
                        ? "nvmlDeviceGetNvLinkErrorCounter: not supported"
                        : "nvmlDeviceGetNvLinkErrorCounter: not supported (absent from this "
                          "driver's NVML)";
          ReadLinkFields(link, ro, state);  // Blackwell and newer: counters are field values
        } else {
          state.replay_errors = ToReading(ro, static_cast<uint64_t>(replays));
          state.recovery_errors = NvLinkCounter(link, NVML_NVLINK_ERROR_DL_RECOVERY);
          state.crc_flit_errors = NvLinkCounter(link, NVML_NVLINK_ERROR_DL_CRC_FLIT);
          state.crc_data_errors = NvLinkCounter(link, NVML_NVLINK_ERROR_DL_CRC_DATA);
        }
      }
      gpu_.nvlinks.push_back(std::move(state));
    }
  }

  // Count protocol: count = 0 answers SUCCESS (none) or INSUFFICIENT_SIZE with the count; then
  // fetch with room to spare, retrying when more processes started in between.
  void ReadProcesses() {
    struct Procs {
      unsigned count = 0;
      std::vector<nvmlProcessInfo_t> infos;
    };
    nvmlDevice_t dev = dev_;
    unsigned capacity = 0;
    for (int attempt = 0; attempt < kProcessAttempts; ++attempt) {
      Procs initial;
      initial.infos.resize(capacity);
      auto [o, procs] = nvml_.Query<Procs>(
          "nvmlDeviceGetComputeRunningProcesses_v3",
          [dev](const NvmlLibrary& l, Procs& p) {
            p.count = static_cast<unsigned>(p.infos.size());
            return l.nvmlDeviceGetComputeRunningProcesses_v3(
                dev, &p.count, p.infos.empty() ? nullptr : p.infos.data());
          },
          {NVML_ERROR_INSUFFICIENT_SIZE}, std::move(initial));
      if (o.code == NVML_ERROR_INSUFFICIENT_SIZE && attempt + 1 < kProcessAttempts) {
        capacity = procs.count + kProcessSlack;
        continue;
      }
      if (o.code == NVML_ERROR_INSUFFICIENT_SIZE) {  // the list kept growing: give up
        o.note = "nvmlDeviceGetComputeRunningProcesses_v3: INSUFFICIENT_SIZE";
      }
      std::vector<GpuProcess> out;
      for (unsigned i = 0; o.ok() && i < procs.count && i < procs.infos.size(); ++i) {
        const nvmlProcessInfo_t& p = procs.infos[i];
        out.push_back(GpuProcess{p.pid, p.usedGpuMemory == kValueNotAvailable
                                            ? 0
                                            : static_cast<uint64_t>(p.usedGpuMemory)});
      }
      gpu_.compute_processes = ToReading(o, std::move(out));
      return;
    }
  }

  NvmlCaller nvml_;
  nvmlDevice_t dev_;
  GpuState& gpu_;
  const StaticDeviceInfo* cached_;
  unsigned nvlink_count_ = 0;
};

}  // namespace

std::optional<uint64_t> FieldValueAsCount(const nvmlFieldValue_t& f) {
  switch (f.valueType) {
    case NVML_VALUE_TYPE_UNSIGNED_INT:
      return f.value.uiVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG:
      return static_cast<uint64_t>(f.value.ulVal);
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
      return static_cast<uint64_t>(f.value.ullVal);
    case NVML_VALUE_TYPE_UNSIGNED_SHORT:
      return f.value.usVal;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
      if (f.value.sllVal < 0) return std::nullopt;
      return static_cast<uint64_t>(f.value.sllVal);
    case NVML_VALUE_TYPE_SIGNED_INT:
      if (f.value.siVal < 0) return std::nullopt;
      return static_cast<uint64_t>(f.value.siVal);
    case NVML_VALUE_TYPE_DOUBLE:
      // Below 2^63 so the conversion is defined; NaN fails every comparison.
      if (!(f.value.dVal >= 0 && f.value.dVal < 9.2e18)) return std::nullopt;
      return static_cast<uint64_t>(std::llround(f.value.dVal));
    default:
      return std::nullopt;
  }
}

void ReadNvmlDevice(const NvmlLibrary& lib, CallRunner& exec, nvmlDevice_t dev, GpuState& gpu,
                    const StaticDeviceInfo* cached, StaticDeviceInfo* learned, CallTape* tape,
                    TapeReplay* replay) {
  gpu.answered_calls = 0;  // the handle is NVML's own bookkeeping, not an answer from the GPU
  DeviceReader reader(lib, exec, dev, gpu, cached);
  reader.caller().RecordTo(tape);
  reader.caller().ReplayFrom(replay);
  reader.ReadAll();
  gpu.answered_nothing =
      gpu.answered_calls <= 0 && !gpu.failures.empty() && !gpu.lost && !gpu.abandoned;
  // Only a clean read is remembered: a failed call is asked again next time (and reported).
  if (learned != nullptr && gpu.failures.empty() && !gpu.lost && !gpu.abandoned &&
      !gpu.uuid.empty()) {
    *learned = reader.Learned();
  }
}

void ReadNvmlDeviceBatched(const NvmlLibrary& lib, BoundedExecutor& exec, nvmlDevice_t dev,
                           GpuState& gpu, const StaticDeviceInfo* cached,
                           StaticDeviceInfo* learned) {
  // The worker reads into its own copies (it may outlive this call when a call hangs) and
  // records every answer; this thread then builds `gpu` from the answers.
  auto tape = std::make_shared<CallTape>();
  auto scratch = std::make_shared<GpuState>(gpu);
  std::shared_ptr<const StaticDeviceInfo> cache_copy =
      cached != nullptr ? std::make_shared<const StaticDeviceInfo>(*cached) : nullptr;
  const NvmlLibrary* l = &lib;
  Status batch = exec.RunBatch(
      [l, dev, tape, scratch, cache_copy](CallRunner& runner) {
        ReadNvmlDevice(*l, runner, dev, *scratch, cache_copy.get(), nullptr, tape.get(), nullptr);
      },
      [tape] { tape->Close(); });
  TapeReplay replay{tape->Close(), 0};
  // A batch refused outright (wedged, out of time) recorded nothing: the replay then asks the
  // executor, which skips each call with its reason, as an unbatched read would.
  (void)batch;
  ReadNvmlDevice(lib, exec, dev, gpu, cached, learned, nullptr, &replay);
}

}  // namespace gpuvet::nvml_internal
