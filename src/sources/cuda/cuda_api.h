// The subset of the CUDA driver API `gpuvet bench` uses, declared once. CUDA_API_FUNCTIONS
// generates the dlopen loader (cuda_loader.cc) and the fake libcuda.so.1 of the tests
// (tests/fake_cuda/). Types, constants and signatures follow cuda.h (CUDA 11–13, 64-bit); the
// exported `_v2` names are the ones the driver library defines. No toolkit is needed to build.
// Checked against cuda.h of CUDA 13.0. cuEventElapsedTime is the v1 symbol on purpose: CUDA 13's
// cuda.h maps the name to _v2, which older drivers lack; v1 (same signature) is in every driver.
#pragma once

#include <cstddef>

extern "C" {

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef struct CUstream_st* CUstream;
typedef struct CUevent_st* CUevent;

// CUresult values used by name (cuda.h cudaError_enum).
enum : int {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_DEVICE_UNAVAILABLE = 46,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_ECC_UNCORRECTABLE = 214,
  CUDA_ERROR_CONTEXT_ALREADY_IN_USE = 216,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
  CUDA_ERROR_NVLINK_UNCORRECTABLE = 220,
  CUDA_ERROR_INVALID_SOURCE = 300,
  CUDA_ERROR_FILE_NOT_FOUND = 301,
  CUDA_ERROR_OPERATING_SYSTEM = 304,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_LAUNCH_TIMEOUT = 702,
  CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
  CUDA_ERROR_PEER_ACCESS_NOT_ENABLED = 705,
  CUDA_ERROR_LAUNCH_FAILED = 719,
  CUDA_ERROR_NOT_PERMITTED = 800,
  CUDA_ERROR_PEER_ACCESS_UNSUPPORTED = 217,
  CUDA_ERROR_NOT_SUPPORTED = 801,
  CUDA_ERROR_SYSTEM_NOT_READY = 802,
  CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
  CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
  CUDA_ERROR_UNKNOWN = 999,
};

// CUdevice_attribute values used (cuda.h CUdevice_attribute_enum).
enum : int {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,  // kHz
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY = 19,
  CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
  CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
  CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36,        // kHz
  CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37,  // bits
  CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,            // bytes
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
  CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT = 40,
  CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41,
  CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

// CUjit_option values used by cuModuleLoadDataEx (cuda.h CUjit_option_enum).
enum : int {
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_JIT_LOG_VERBOSE = 12,
};

inline constexpr unsigned CU_MEMHOSTALLOC_PORTABLE = 0x01;
inline constexpr unsigned CU_MEMHOSTALLOC_DEVICEMAP = 0x02;  // host memory the GPU can address
inline constexpr unsigned CU_MEMHOSTALLOC_WRITECOMBINED = 0x04;
inline constexpr unsigned CU_STREAM_DEFAULT = 0x0;
inline constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
inline constexpr unsigned CU_EVENT_DEFAULT = 0x0;
inline constexpr unsigned CU_EVENT_BLOCKING_SYNC = 0x1;
inline constexpr unsigned CU_EVENT_DISABLE_TIMING = 0x2;

}  // extern "C"

// CUDA_FN(name, parameter list, argument list, required)
#define CUDA_API_FUNCTIONS(CUDA_FN)                                                                \
  CUDA_FN(cuInit, (unsigned int flags), (flags), true)                                             \
  CUDA_FN(cuDriverGetVersion, (int* version), (version), true)                                     \
  CUDA_FN(cuGetErrorName, (CUresult error, const char** name), (error, name), false)               \
  CUDA_FN(cuGetErrorString, (CUresult error, const char** text), (error, text), false)             \
  CUDA_FN(cuDeviceGetCount, (int* count), (count), true)                                           \
  CUDA_FN(cuDeviceGet, (CUdevice * device, int ordinal), (device, ordinal), true)                  \
  CUDA_FN(cuDeviceGetName, (char* name, int length, CUdevice device), (name, length, device),      \
          true)                                                                                    \
  CUDA_FN(cuDeviceGetAttribute, (int* value, int attribute, CUdevice device),                      \
          (value, attribute, device), true)                                                        \
  CUDA_FN(cuDeviceTotalMem_v2, (size_t * bytes, CUdevice device), (bytes, device), true)           \
  CUDA_FN(cuDeviceGetPCIBusId, (char* bus_id, int length, CUdevice device),                        \
          (bus_id, length, device), false)                                                         \
  CUDA_FN(cuDeviceCanAccessPeer, (int* can, CUdevice device, CUdevice peer), (can, device, peer),  \
          false)                                                                                   \
  CUDA_FN(cuDevicePrimaryCtxRetain, (CUcontext * ctx, CUdevice device), (ctx, device), true)       \
  CUDA_FN(cuDevicePrimaryCtxRelease_v2, (CUdevice device), (device), true)                         \
  CUDA_FN(cuCtxSetCurrent, (CUcontext ctx), (ctx), true)                                           \
  CUDA_FN(cuCtxSynchronize, (), (), true)                                                          \
  CUDA_FN(cuCtxEnablePeerAccess, (CUcontext peer, unsigned int flags), (peer, flags), false)       \
  CUDA_FN(cuMemAlloc_v2, (CUdeviceptr * ptr, size_t bytes), (ptr, bytes), true)                    \
  CUDA_FN(cuMemFree_v2, (CUdeviceptr ptr), (ptr), true)                                            \
  CUDA_FN(cuMemGetInfo_v2, (size_t * free_bytes, size_t * total_bytes), (free_bytes, total_bytes), \
          true)                                                                                    \
  CUDA_FN(cuMemHostAlloc, (void** ptr, size_t bytes, unsigned int flags), (ptr, bytes, flags),     \
          true)                                                                                    \
  CUDA_FN(cuMemFreeHost, (void* ptr), (ptr), true)                                                 \
  CUDA_FN(cuMemHostGetDevicePointer_v2,                                                            \
          (CUdeviceptr * device_ptr, void* host_ptr, unsigned int flags),                          \
          (device_ptr, host_ptr, flags), false)                                                    \
  CUDA_FN(cuMemcpyHtoD_v2, (CUdeviceptr dst, const void* src, size_t bytes), (dst, src, bytes),    \
          true)                                                                                    \
  CUDA_FN(cuMemcpyDtoH_v2, (void* dst, CUdeviceptr src, size_t bytes), (dst, src, bytes), true)    \
  CUDA_FN(cuMemcpyHtoDAsync_v2, (CUdeviceptr dst, const void* src, size_t bytes, CUstream stream), \
          (dst, src, bytes, stream), true)                                                         \
  CUDA_FN(cuMemcpyDtoHAsync_v2, (void* dst, CUdeviceptr src, size_t bytes, CUstream stream),       \
          (dst, src, bytes, stream), true)                                                         \
  CUDA_FN(cuMemcpyDtoDAsync_v2, (CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream), \
          (dst, src, bytes, stream), true)                                                         \
  CUDA_FN(cuMemcpyPeerAsync,                                                                       \
          (CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx, size_t bytes,   \
           CUstream stream),                                                                       \
          (dst, dst_ctx, src, src_ctx, bytes, stream), false)                                      \
  CUDA_FN(cuMemsetD8Async, (CUdeviceptr dst, unsigned char value, size_t count, CUstream stream),  \
          (dst, value, count, stream), true)                                                       \
  CUDA_FN(cuStreamCreate, (CUstream * stream, unsigned int flags), (stream, flags), true)          \
  CUDA_FN(cuStreamDestroy_v2, (CUstream stream), (stream), true)                                   \
  CUDA_FN(cuStreamSynchronize, (CUstream stream), (stream), true)                                  \
  CUDA_FN(cuStreamQuery, (CUstream stream), (stream), false)                                       \
  CUDA_FN(cuEventCreate, (CUevent * event, unsigned int flags), (event, flags), true)              \
  CUDA_FN(cuEventDestroy_v2, (CUevent event), (event), true)                                       \
  CUDA_FN(cuEventRecord, (CUevent event, CUstream stream), (event, stream), true)                  \
  CUDA_FN(cuEventSynchronize, (CUevent event), (event), true)                                      \
  CUDA_FN(cuEventElapsedTime, (float* ms, CUevent start, CUevent end), (ms, start, end), true)     \
  CUDA_FN(cuModuleLoadDataEx,                                                                      \
          (CUmodule * module, const void* image, unsigned int num_options, int* options,           \
           void** option_values),                                                                  \
          (module, image, num_options, options, option_values), true)                              \
  CUDA_FN(cuModuleGetFunction, (CUfunction * function, CUmodule module, const char* name),         \
          (function, module, name), true)                                                          \
  CUDA_FN(cuModuleUnload, (CUmodule module), (module), true)                                       \
  CUDA_FN(cuLaunchKernel,                                                                          \
          (CUfunction function, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,     \
           unsigned int block_x, unsigned int block_y, unsigned int block_z,                       \
           unsigned int shared_bytes, CUstream stream, void** params, void** extra),               \
          (function, grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes, stream,      \
           params, extra),                                                                         \
          true)
