// The subset of the NVML C API gpuvet uses, declared once. The NVML_API_FUNCTIONS X-macro list
// generates the dlopen loader (nvml_loader.cc) and the fake libnvidia-ml.so.1 used by the tests
// (tests/fake_nvml/). Types, constants and signatures follow nvml.h (NVIDIA, r535–r580); only
// what gpuvet calls is declared, and no NVIDIA header is needed to build.
#pragma once

#include <cstdint>

extern "C" {

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st* nvmlDevice_t;
typedef int nvmlEnableState_t;  // NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1

// Return codes (nvml.h nvmlReturn_enum).
enum : int {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NO_PERMISSION = 4,
  NVML_ERROR_ALREADY_INITIALIZED = 5,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_INSUFFICIENT_POWER = 8,
  NVML_ERROR_DRIVER_NOT_LOADED = 9,
  NVML_ERROR_TIMEOUT = 10,
  NVML_ERROR_IRQ_ISSUE = 11,
  NVML_ERROR_LIBRARY_NOT_FOUND = 12,
  NVML_ERROR_FUNCTION_NOT_FOUND = 13,
  NVML_ERROR_CORRUPTED_INFOROM = 14,
  NVML_ERROR_GPU_IS_LOST = 15,
  NVML_ERROR_RESET_REQUIRED = 16,
  NVML_ERROR_OPERATING_SYSTEM = 17,
  NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
  NVML_ERROR_IN_USE = 19,
  NVML_ERROR_MEMORY = 20,
  NVML_ERROR_NO_DATA = 21,
  NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,  // a versioned struct of another version
  NVML_ERROR_UNKNOWN = 999,
};

// nvmlClockType_t
enum : int { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_CLOCK_VIDEO = 3 };
// nvmlTemperatureSensors_t
enum : int { NVML_TEMPERATURE_GPU = 0 };
// nvmlTemperatureThresholds_t
enum : int {
  NVML_TEMPERATURE_THRESHOLD_SHUTDOWN = 0,
  NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1,
  NVML_TEMPERATURE_THRESHOLD_MEM_MAX = 2,
  NVML_TEMPERATURE_THRESHOLD_GPU_MAX = 3,
};
// nvmlMemoryErrorType_t, nvmlEccCounterType_t
enum : int { NVML_MEMORY_ERROR_TYPE_CORRECTED = 0, NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1 };
enum : int { NVML_VOLATILE_ECC = 0, NVML_AGGREGATE_ECC = 1 };
// nvmlPageRetirementCause_t
enum : int {
  NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0,
  NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1,
};
// nvmlNvLinkErrorCounter_t
enum : int {
  NVML_NVLINK_ERROR_DL_REPLAY = 0,
  NVML_NVLINK_ERROR_DL_RECOVERY = 1,
  NVML_NVLINK_ERROR_DL_CRC_FLIT = 2,
  NVML_NVLINK_ERROR_DL_CRC_DATA = 3,
};
// The most links nvmlDeviceGetNvLinkState may be asked about (nvml.h r535+: 18). Newer GPUs
// report their own count through NVML_FI_DEV_NVLINK_LINK_COUNT, which may exceed it.
inline constexpr unsigned NVML_NVLINK_MAX_LINKS = 18;
inline constexpr unsigned NVML_DEVICE_NAME_V2_BUFFER_SIZE = 96;
inline constexpr unsigned NVML_DEVICE_UUID_V2_BUFFER_SIZE = 96;
inline constexpr unsigned NVML_DEVICE_SERIAL_BUFFER_SIZE = 30;
inline constexpr unsigned NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE = 32;
inline constexpr unsigned NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE = 80;
inline constexpr unsigned NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE = 80;

typedef struct {
  char busIdLegacy[16];  // "0000:3B:00.0" (legacy 16-byte form)
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;  // (device id << 16) | vendor id
  unsigned int pciSubSystemId;
  char busId[32];  // "00000000:3B:00.0"
} nvmlPciInfo_t;

typedef struct {
  unsigned int gpu;     // % of time a kernel was executing over the last sample period
  unsigned int memory;  // % of time device memory was being read or written
} nvmlUtilization_t;

typedef struct {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_t;

typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory;  // bytes; NVML_VALUE_NOT_AVAILABLE (~0ULL) when unknown
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvmlProcessInfo_t;

// ---- Sampling (gpuvet record/watch: src/sources/sampler/gpu_sampler.cc) ----

// nvmlPcieUtilCounter_t: nvmlDeviceGetPcieThroughput counts bytes over a 20 ms window, in KB/s.
enum : int { NVML_PCIE_UTIL_TX_BYTES = 0, NVML_PCIE_UTIL_RX_BYTES = 1 };

// One per-process utilisation sample (nvmlDeviceGetProcessUtilization).
typedef struct {
  unsigned int pid;
  unsigned long long timeStamp;  // CPU timestamp in microseconds
  unsigned int smUtil;           // percent
  unsigned int memUtil;
  unsigned int encUtil;
  unsigned int decUtil;
} nvmlProcessUtilizationSample_t;

// GPU Performance Monitoring (Hopper and newer, r520+): opaque samples, metrics between two.
typedef struct nvmlGpmSample_st* nvmlGpmSample_t;

// nvmlGpmMetricId_t (the ones gpuvet asks for).
enum : unsigned {
  NVML_GPM_METRIC_SM_UTIL = 2,                   // % of SMs busy
  NVML_GPM_METRIC_SM_OCCUPANCY = 3,              // % of warps resident vs the maximum
  NVML_GPM_METRIC_ANY_TENSOR_UTIL = 5,           // % of time any tensor pipe was busy
  NVML_GPM_METRIC_DRAM_BW_UTIL = 10,             // % of peak DRAM bandwidth
  NVML_GPM_METRIC_PCIE_TX_PER_SEC = 20,          // MiB/s
  NVML_GPM_METRIC_PCIE_RX_PER_SEC = 21,          // MiB/s
  NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC = 60,  // MiB/s, all links
  NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC = 61,  // MiB/s, all links
};
// Size of the metrics array in nvmlGpmMetricsGet_t as of r525 (later headers grow it; the library
// reads only numMetrics entries, so the smaller struct stays valid).
inline constexpr unsigned NVML_GPM_METRIC_MAX = 98;
inline constexpr unsigned NVML_GPM_METRICS_GET_VERSION = 1;
inline constexpr unsigned NVML_GPM_SUPPORT_VERSION = 1;

typedef struct {
  unsigned int metricId;
  nvmlReturn_t nvmlReturn;  // this metric's own outcome
  double value;
  struct {
    char* shortName;
    char* longName;
    char* unit;
  } metricInfo;
} nvmlGpmMetric_t;

typedef struct {
  unsigned int version;  // NVML_GPM_METRICS_GET_VERSION
  unsigned int numMetrics;
  nvmlGpmSample_t sample1;
  nvmlGpmSample_t sample2;
  nvmlGpmMetric_t metrics[NVML_GPM_METRIC_MAX];
} nvmlGpmMetricsGet_t;

typedef struct {
  unsigned int version;  // NVML_GPM_SUPPORT_VERSION
  unsigned int isSupportedDevice;
} nvmlGpmSupport_t;

// ---- Field values (nvmlDeviceGetFieldValues, r384+): one call, many counters ----

// nvmlValueType_t: which member of nvmlValue_t an answer uses.
enum : int {
  NVML_VALUE_TYPE_DOUBLE = 0,
  NVML_VALUE_TYPE_UNSIGNED_INT = 1,
  NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
  NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
  NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
  NVML_VALUE_TYPE_SIGNED_INT = 5,
  NVML_VALUE_TYPE_UNSIGNED_SHORT = 6,  // r570+
};

typedef union {
  double dVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  long long sllVal;
  int siVal;
  unsigned short usVal;
} nvmlValue_t;

// One requested field: the caller sets fieldId and scopeId (the NVLink link for per-link
// fields); NVML fills the rest, with this field's own return code in nvmlReturn (the value is
// undefined unless it is NVML_SUCCESS).
typedef struct {
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;    // CPU time of the value, microseconds since 1970
  long long latencyUsec;  // how long NVML took to update it
  int valueType;          // nvmlValueType_t
  nvmlReturn_t nvmlReturn;
  nvmlValue_t value;
} nvmlFieldValue_t;
static_assert(sizeof(nvmlFieldValue_t) == 40, "nvml.h nvmlFieldValue_t is 40 bytes");

// Field ids (nvml.h NVML_FI_*) gpuvet asks for. Per-link ids take the link in scopeId.
enum : unsigned {
  NVML_FI_DEV_NVLINK_LINK_COUNT = 91,          // links the device has
  NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY = 161,    // per link: data-link replays
  NVML_FI_DEV_NVLINK_ERROR_DL_RECOVERY = 162,  // per link: data-link recoveries
  NVML_FI_DEV_NVLINK_ERROR_DL_CRC = 163,       // per link: CRC errors
  // NVLink5 (Blackwell) counters, per link; nvmlDeviceGetNvLinkErrorCounter is not supported
  // there (NVML API reference, NvLink methods).
  NVML_FI_DEV_NVLINK_COUNT_XMIT_BYTES = 202,
  NVML_FI_DEV_NVLINK_COUNT_RCV_BYTES = 204,
  NVML_FI_DEV_NVLINK_COUNT_MALFORMED_PACKET_ERRORS = 206,
  NVML_FI_DEV_NVLINK_COUNT_BUFFER_OVERRUN_ERRORS = 207,
  NVML_FI_DEV_NVLINK_COUNT_RCV_ERRORS = 208,
  NVML_FI_DEV_NVLINK_COUNT_LOCAL_LINK_INTEGRITY_ERRORS = 211,
  NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_SUCCESSFUL_EVENTS = 213,
  NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS = 214,
  NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS = 219,
  NVML_FI_DEV_NVLINK_COUNT_SYMBOL_ERRORS = 221,
};

// ---- Margin temperature (nvmlDeviceGetMarginTemperature, r555+) ----

// Degrees C the GPU is below its slowdown T.Limit (negative: above it).
typedef struct {
  unsigned int version;  // nvmlMarginTemperature_v1
  int marginTemperature;
} nvmlMarginTemperature_t;
// NVML_STRUCT_VERSION(MarginTemperature, 1): the struct size with the version in the top byte.
inline constexpr unsigned nvmlMarginTemperature_v1 =
    static_cast<unsigned>(sizeof(nvmlMarginTemperature_t)) | (1u << 24);

}  // extern "C"

// NVML_FN(name, parameter list, argument list, required)
// `required` functions must exist in the library; optional ones may be missing in older drivers
// and then answer NVML_ERROR_FUNCTION_NOT_FOUND.
#define NVML_API_FUNCTIONS(NVML_FN)                                                                \
  NVML_FN(nvmlInit_v2, (), (), true)                                                               \
  NVML_FN(nvmlShutdown, (), (), true)                                                              \
  NVML_FN(nvmlSystemGetDriverVersion, (char* version, unsigned int length), (version, length),     \
          true)                                                                                    \
  NVML_FN(nvmlSystemGetNVMLVersion, (char* version, unsigned int length), (version, length),       \
          false)                                                                                   \
  NVML_FN(nvmlSystemGetCudaDriverVersion_v2, (int* version), (version), false)                     \
  NVML_FN(nvmlDeviceGetCount_v2, (unsigned int* count), (count), true)                             \
  NVML_FN(nvmlDeviceGetHandleByIndex_v2, (unsigned int index, nvmlDevice_t* device),               \
          (index, device), true)                                                                   \
  NVML_FN(nvmlDeviceGetName, (nvmlDevice_t device, char* name, unsigned int length),               \
          (device, name, length), false)                                                           \
  NVML_FN(nvmlDeviceGetUUID, (nvmlDevice_t device, char* uuid, unsigned int length),               \
          (device, uuid, length), false)                                                           \
  NVML_FN(nvmlDeviceGetSerial, (nvmlDevice_t device, char* serial, unsigned int length),           \
          (device, serial, length), false)                                                         \
  NVML_FN(nvmlDeviceGetPciInfo_v3, (nvmlDevice_t device, nvmlPciInfo_t * pci), (device, pci),      \
          false)                                                                                   \
  NVML_FN(nvmlDeviceGetVbiosVersion, (nvmlDevice_t device, char* version, unsigned int length),    \
          (device, version, length), false)                                                        \
  NVML_FN(nvmlDeviceGetMinorNumber, (nvmlDevice_t device, unsigned int* minor), (device, minor),   \
          false)                                                                                   \
  NVML_FN(nvmlDeviceGetPersistenceMode, (nvmlDevice_t device, nvmlEnableState_t * mode),           \
          (device, mode), false)                                                                   \
  NVML_FN(nvmlDeviceGetPerformanceState, (nvmlDevice_t device, int* pstate), (device, pstate),     \
          false)                                                                                   \
  NVML_FN(nvmlDeviceGetUtilizationRates, (nvmlDevice_t device, nvmlUtilization_t * util),          \
          (device, util), false)                                                                   \
  NVML_FN(nvmlDeviceGetMemoryInfo, (nvmlDevice_t device, nvmlMemory_t * memory), (device, memory), \
          false)                                                                                   \
  NVML_FN(nvmlDeviceGetClockInfo, (nvmlDevice_t device, int type, unsigned int* clock),            \
          (device, type, clock), false)                                                            \
  NVML_FN(nvmlDeviceGetMaxClockInfo, (nvmlDevice_t device, int type, unsigned int* clock),         \
          (device, type, clock), false)                                                            \
  NVML_FN(nvmlDeviceGetCurrentClocksEventReasons,                                                  \
          (nvmlDevice_t device, unsigned long long* reasons), (device, reasons), false)            \
  NVML_FN(nvmlDeviceGetCurrentClocksThrottleReasons,                                               \
          (nvmlDevice_t device, unsigned long long* reasons), (device, reasons), false)            \
  NVML_FN(nvmlDeviceGetTemperature, (nvmlDevice_t device, int sensor, unsigned int* temp),         \
          (device, sensor, temp), false)                                                           \
  NVML_FN(nvmlDeviceGetTemperatureThreshold,                                                       \
          (nvmlDevice_t device, int threshold, unsigned int* temp), (device, threshold, temp),     \
          false)                                                                                   \
  NVML_FN(nvmlDeviceGetPowerUsage, (nvmlDevice_t device, unsigned int* milliwatts),                \
          (device, milliwatts), false)                                                             \
  NVML_FN(nvmlDeviceGetEnforcedPowerLimit, (nvmlDevice_t device, unsigned int* milliwatts),        \
          (device, milliwatts), false)                                                             \
  NVML_FN(nvmlDeviceGetPowerManagementDefaultLimit,                                                \
          (nvmlDevice_t device, unsigned int* milliwatts), (device, milliwatts), false)            \
  NVML_FN(nvmlDeviceGetTotalEnergyConsumption, (nvmlDevice_t device, unsigned long long* mj),      \
          (device, mj), false)                                                                     \
  NVML_FN(nvmlDeviceGetCurrPcieLinkGeneration, (nvmlDevice_t device, unsigned int* gen),           \
          (device, gen), false)                                                                    \
  NVML_FN(nvmlDeviceGetMaxPcieLinkGeneration, (nvmlDevice_t device, unsigned int* gen),            \
          (device, gen), false)                                                                    \
  NVML_FN(nvmlDeviceGetCurrPcieLinkWidth, (nvmlDevice_t device, unsigned int* width),              \
          (device, width), false)                                                                  \
  NVML_FN(nvmlDeviceGetMaxPcieLinkWidth, (nvmlDevice_t device, unsigned int* width),               \
          (device, width), false)                                                                  \
  NVML_FN(nvmlDeviceGetPcieReplayCounter, (nvmlDevice_t device, unsigned int* count),              \
          (device, count), false)                                                                  \
  NVML_FN(nvmlDeviceGetEccMode,                                                                    \
          (nvmlDevice_t device, nvmlEnableState_t * current, nvmlEnableState_t * pending),         \
          (device, current, pending), false)                                                       \
  NVML_FN(nvmlDeviceGetTotalEccErrors,                                                             \
          (nvmlDevice_t device, int error_type, int counter_type, unsigned long long* count),      \
          (device, error_type, counter_type, count), false)                                        \
  NVML_FN(                                                                                         \
      nvmlDeviceGetRetiredPages,                                                                   \
      (nvmlDevice_t device, int cause, unsigned int* page_count, unsigned long long* addresses),   \
      (device, cause, page_count, addresses), false)                                               \
  NVML_FN(nvmlDeviceGetRetiredPagesPendingStatus,                                                  \
          (nvmlDevice_t device, nvmlEnableState_t * pending), (device, pending), false)            \
  NVML_FN(nvmlDeviceGetRemappedRows,                                                               \
          (nvmlDevice_t device, unsigned int* corr_rows, unsigned int* unc_rows,                   \
           unsigned int* is_pending, unsigned int* failure_occurred),                              \
          (device, corr_rows, unc_rows, is_pending, failure_occurred), false)                      \
  NVML_FN(nvmlDeviceGetMigMode,                                                                    \
          (nvmlDevice_t device, unsigned int* current, unsigned int* pending),                     \
          (device, current, pending), false)                                                       \
  NVML_FN(nvmlDeviceGetMaxMigDeviceCount, (nvmlDevice_t device, unsigned int* count),              \
          (device, count), false)                                                                  \
  NVML_FN(nvmlDeviceGetMigDeviceHandleByIndex,                                                     \
          (nvmlDevice_t device, unsigned int index, nvmlDevice_t* mig_device),                     \
          (device, index, mig_device), false)                                                      \
  NVML_FN(nvmlDeviceGetNvLinkState,                                                                \
          (nvmlDevice_t device, unsigned int link, nvmlEnableState_t* active),                     \
          (device, link, active), false)                                                           \
  NVML_FN(nvmlDeviceGetNvLinkErrorCounter,                                                         \
          (nvmlDevice_t device, unsigned int link, int counter, unsigned long long* value),        \
          (device, link, counter, value), false)                                                   \
  NVML_FN(nvmlDeviceGetFieldValues,                                                                \
          (nvmlDevice_t device, int values_count, nvmlFieldValue_t* values),                       \
          (device, values_count, values), false)                                                   \
  NVML_FN(nvmlDeviceGetMarginTemperature, (nvmlDevice_t device, nvmlMarginTemperature_t * margin), \
          (device, margin), false)                                                                 \
  NVML_FN(nvmlDeviceGetComputeRunningProcesses_v3,                                                 \
          (nvmlDevice_t device, unsigned int* count, nvmlProcessInfo_t* infos),                    \
          (device, count, infos), false)                                                           \
  NVML_FN(nvmlDeviceGetPcieThroughput, (nvmlDevice_t device, int counter, unsigned int* kbps),     \
          (device, counter, kbps), false)                                                          \
  NVML_FN(nvmlDeviceGetProcessUtilization,                                                         \
          (nvmlDevice_t device, nvmlProcessUtilizationSample_t * samples, unsigned int* count,     \
           unsigned long long last_seen_us),                                                       \
          (device, samples, count, last_seen_us), false)                                           \
  NVML_FN(nvmlGpmQueryDeviceSupport, (nvmlDevice_t device, nvmlGpmSupport_t * support),            \
          (device, support), false)                                                                \
  NVML_FN(nvmlGpmSampleAlloc, (nvmlGpmSample_t * sample), (sample), false)                         \
  NVML_FN(nvmlGpmSampleFree, (nvmlGpmSample_t sample), (sample), false)                            \
  NVML_FN(nvmlGpmSampleGet, (nvmlDevice_t device, nvmlGpmSample_t sample), (device, sample),       \
          false)                                                                                   \
  NVML_FN(nvmlGpmMetricsGet, (nvmlGpmMetricsGet_t * metrics), (metrics), false)
