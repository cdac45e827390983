// CudaLibrary against the fake libcuda.so.1 (tests/fake_cuda/): loading, device queries, copies
// with their data checked, event timings equal to the scenario's model, the JIT error log, and the
// failures (missing library, missing symbol, no device, garbled scenario).
#include "sources/cuda/cuda_loader.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <vector>

#include "sources/cuda/ptx_kernels.h"

namespace gpuvet {
namespace {

namespace fs = std::filesystem;

constexpr char kScenarioEnv[] = "GPUVET_FAKE_CUDA_SCENARIO";

// Two GPUs; GPU 1 copies slowly (a Gen3 x8 link) and GPU 0 -> 1 has a P2P route.
constexpr char kTwoGpus[] = R"({
  "driver_version": 12080,
  "timing": {"h2d_pinned_gbps": 50, "d2h_pinned_gbps": 40, "h2d_pageable_gbps": 20,
             "d2h_pageable_gbps": 10, "d2d_gbps": 2000, "launch_overhead_us": 4,
             "fp32_tflops": 50, "remote_numa_factor": 0.5},
  "devices": [
    {"name": "NVIDIA H100 PCIe", "cc": "9.0", "sm_count": 114, "sm_clock_mhz": 1755,
     "mem_clock_mhz": 1593, "memory_bus_bits": 5120, "memory_bytes": 85520809984,
     "pci_bus_id": "0000:3b:00.0", "copy_engines": 3},
    {"name": "NVIDIA A100-SXM4-40GB", "cc": "8.0", "pci_bus_id": "0000:af:00.0",
     "memory_bytes": 1073741824, "local_cpus": "4000",
     "timing": {"h2d_pinned_gbps": 6.5}}
  ],
  "p2p": [{"src": 0, "dst": 1, "gbps": 25, "latency_us": 2}]
})";

class CudaLoaderFake : public testing::Test {
 protected:
  void SetUp() override {
    auto lib = CudaLibrary::Load(GPUVET_FAKE_CUDA_LIB);
    ASSERT_TRUE(lib.ok()) << lib.status().message();
    lib_ = std::move(lib).value();
  }

  // Writes `json` to a file of this test and points the fake at it.
  void UseScenario(const std::string& json) {
    const char* env = std::getenv("GPUVET_TEST_TMPDIR");
    fs::path dir = env != nullptr && env[0] != '\0' ? fs::path(env) : fs::path(testing::TempDir());
    dir /= "cuda_loader_test";
    fs::create_directories(dir);
    const fs::path path =
        dir /
        (std::string(testing::UnitTest::GetInstance()->current_test_info()->name()) + ".json");
    std::ofstream(path) << json;
    setenv(kScenarioEnv, path.c_str(), 1);
  }

  // cuInit, then device `ordinal`'s primary context made current.
  void InitDevice(int ordinal) {
    ASSERT_EQ(lib_->cuInit(0), CUDA_SUCCESS);
    CUdevice dev = -1;
    ASSERT_EQ(lib_->cuDeviceGet(&dev, ordinal), CUDA_SUCCESS);
    ASSERT_EQ(lib_->cuDevicePrimaryCtxRetain(&ctx_, dev), CUDA_SUCCESS);
    ASSERT_EQ(lib_->cuCtxSetCurrent(ctx_), CUDA_SUCCESS);
  }

  // Milliseconds the events measure around `work` queued on `stream`.
  template <typename F>
  float Timed(CUstream stream, F work) {
    CUevent start = nullptr, end = nullptr;
    EXPECT_EQ(lib_->cuEventCreate(&start, CU_EVENT_DEFAULT), CUDA_SUCCESS);
    EXPECT_EQ(lib_->cuEventCreate(&end, CU_EVENT_DEFAULT), CUDA_SUCCESS);
    EXPECT_EQ(lib_->cuEventRecord(start, stream), CUDA_SUCCESS);
    work();
    EXPECT_EQ(lib_->cuEventRecord(end, stream), CUDA_SUCCESS);
    EXPECT_EQ(lib_->cuEventSynchronize(end), CUDA_SUCCESS);
    float ms = -1;
    EXPECT_EQ(lib_->cuEventElapsedTime(&ms, start, end), CUDA_SUCCESS);
    lib_->cuEventDestroy_v2(start);
    lib_->cuEventDestroy_v2(end);
    return ms;
  }

  std::unique_ptr<CudaLibrary> lib_;
  CUcontext ctx_ = nullptr;
};

// Event timings equal the model up to float rounding (cuEventElapsedTime answers a float).
#define EXPECT_MODEL(actual, expected) EXPECT_NEAR(actual, expected, (expected)*1e-5)

// Milliseconds to move `bytes` at `gbps`.
double Ms(double bytes, double gbps) { return bytes / (gbps * 1e9) * 1e3; }

TEST(CudaLoader, MissingLibraryIsUnavailable) {
  auto lib = CudaLibrary::Load("/nonexistent/libcuda.so.1");
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(lib.status().message().find("/nonexistent/libcuda.so.1"), std::string::npos);
}

TEST(CudaLoader, MissingRequiredSymbolIsNamed) {
  auto lib = CudaLibrary::Load("libm.so.6");
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(lib.status().message().find("cuInit"), std::string::npos) << lib.status().message();
}

TEST(CudaLoader, ErrorNamesRoundTrip) {
  EXPECT_EQ(CudaErrorName(CUDA_ERROR_INVALID_PTX), "CUDA_ERROR_INVALID_PTX");
  EXPECT_EQ(CudaErrorFromName("CUDA_ERROR_NO_DEVICE"), CUDA_ERROR_NO_DEVICE);
  EXPECT_EQ(CudaErrorFromName("NO_DEVICE"), CUDA_ERROR_NO_DEVICE);
  EXPECT_EQ(CudaErrorFromName("CUDA_SUCCESS"), CUDA_SUCCESS);
  EXPECT_EQ(CudaErrorFromName("no_device"), std::nullopt);
  EXPECT_EQ(CudaErrorName(12345), "CUDA_ERROR_UNRECOGNISED");
}

TEST_F(CudaLoaderFake, LoadsAndReportsItsPath) {
  EXPECT_NE(lib_->path().find("libcuda.so.1"), std::string::npos) << lib_->path();
  EXPECT_TRUE(lib_->has_cuGetErrorName());
  EXPECT_TRUE(lib_->has_cuMemcpyPeerAsync());
}

TEST_F(CudaLoaderFake, EnumeratesDevicesAndAttributes) {
  UseScenario(kTwoGpus);
  int version = 0;
  ASSERT_EQ(lib_->cuDriverGetVersion(&version), CUDA_SUCCESS);
  EXPECT_EQ(version, 12080);
  ASSERT_EQ(lib_->cuInit(0), CUDA_SUCCESS);
  int count = 0;
  ASSERT_EQ(lib_->cuDeviceGetCount(&count), CUDA_SUCCESS);
  ASSERT_EQ(count, 2);
  char name[96];
  ASSERT_EQ(lib_->cuDeviceGetName(name, sizeof(name), 1), CUDA_SUCCESS);
  EXPECT_STREQ(name, "NVIDIA A100-SXM4-40GB");
  auto attribute = [&](int attr, CUdevice dev) {
    int v = -1;
    EXPECT_EQ(lib_->cuDeviceGetAttribute(&v, attr, dev), CUDA_SUCCESS) << attr;
    return v;
  };
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0), 9);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 1), 0);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0), 114);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 0), 1755000);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, 0), 1593000);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, 0), 5120);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, 0), 3);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 0), 0x3b);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 1), 0xaf);
  int v = 0;
  EXPECT_EQ(lib_->cuDeviceGetAttribute(&v, 9999, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(lib_->cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 2),
            CUDA_ERROR_INVALID_DEVICE);
  size_t bytes = 0;
  ASSERT_EQ(lib_->cuDeviceTotalMem_v2(&bytes, 0), CUDA_SUCCESS);
  EXPECT_EQ(bytes, 85520809984u);
  char bus_id[32];
  ASSERT_EQ(lib_->cuDeviceGetPCIBusId(bus_id, sizeof(bus_id), 1), CUDA_SUCCESS);
  EXPECT_STREQ(bus_id, "0000:AF:00.0");
  int can = -1;
  ASSERT_EQ(lib_->cuDeviceCanAccessPeer(&can, 0, 1), CUDA_SUCCESS);
  EXPECT_EQ(can, 1);
  ASSERT_EQ(lib_->cuDeviceCanAccessPeer(&can, 1, 0), CUDA_SUCCESS);
  EXPECT_EQ(can, 0);
}

TEST_F(CudaLoaderFake, CopyRoundTripKeepsTheData) {
  UseScenario(kTwoGpus);
  InitDevice(0);
  constexpr size_t kBytes = 1 << 20;
  void* pinned = nullptr;
  ASSERT_EQ(lib_->cuMemHostAlloc(&pinned, kBytes, CU_MEMHOSTALLOC_PORTABLE), CUDA_SUCCESS);
  auto* bytes = static_cast<unsigned char*>(pinned);
  for (size_t i = 0; i < kBytes; ++i) bytes[i] = static_cast<unsigned char>(i * 7 + 3);
  CUdeviceptr a = 0, b = 0;
  ASSERT_EQ(lib_->cuMemAlloc_v2(&a, kBytes), CUDA_SUCCESS);
  ASSERT_EQ(lib_->cuMemAlloc_v2(&b, kBytes), CUDA_SUCCESS);
  CUstream stream = nullptr;
  ASSERT_EQ(lib_->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  ASSERT_EQ(lib_->cuMemcpyHtoDAsync_v2(a, pinned, kBytes, stream), CUDA_SUCCESS);
  ASSERT_EQ(lib_->cuMemcpyDtoDAsync_v2(b, a, kBytes, stream), CUDA_SUCCESS);
  std::vector<unsigned char> back(kBytes, 0);
  ASSERT_EQ(lib_->cuMemcpyDtoHAsync_v2(back.data(), b, kBytes, stream), CUDA_SUCCESS);
  ASSERT_EQ(lib_->cuStreamSynchronize(stream), CUDA_SUCCESS);
  EXPECT_EQ(std::memcmp(back.data(), pinned, kBytes), 0);
  // Out of bounds is refused, not a crash.
  EXPECT_EQ(lib_->cuMemcpyDtoHAsync_v2(back.data(), b, kBytes + 1, stream),
            CUDA_ERROR_INVALID_VALUE);
  size_t free_bytes = 0, total = 0;
  ASSERT_EQ(lib_->cuMemGetInfo_v2(&free_bytes, &total), CUDA_SUCCESS);
  EXPECT_EQ(total - free_bytes, 2 * kBytes);
  EXPECT_EQ(lib_->cuMemFree_v2(a), CUDA_SUCCESS);
  EXPECT_EQ(lib_->cuMemFree_v2(b), CUDA_SUCCESS);
  EXPECT_EQ(lib_->cuMemFree_v2(b), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(lib_->cuMemFreeHost(pinned), CUDA_SUCCESS);
  EXPECT_EQ(lib_->cuStreamDestroy_v2(stream), CUDA_SUCCESS);
}

TEST_F(CudaLoaderFake, EventTimingEqualsTheModel) {
  UseScenario(kTwoGpus);
  InitDevice(0);
  constexpr size_t kBytes = 8 << 20;
  void* pinned = nullptr;
  ASSERT_EQ(lib_->cuMemHostAlloc(&pinned, kBytes, 0), CUDA_SUCCESS);
  std::vector<char> pageable(kBytes, 1);
  CUdeviceptr dev = 0, dev2 = 0;
  ASSERT_EQ(lib_->cuMemAlloc_v2(&dev, kBytes), CUDA_SUCCESS);
  ASSERT_EQ(lib_->cuMemAlloc_v2(&dev2, kBytes), CUDA_SUCCESS);
  CUstream s = nullptr;
  ASSERT_EQ(lib_->cuStreamCreate(&s, 0), CUDA_SUCCESS);
  const double b = kBytes;
  EXPECT_MODEL(Timed(s, [&] { lib_->cuMemcpyHtoDAsync_v2(dev, pinned, kBytes, s); }), Ms(b, 50));
  EXPECT_MODEL(Timed(s, [&] { lib_->cuMemcpyDtoHAsync_v2(pinned, dev, kBytes, s); }), Ms(b, 40));
  EXPECT_MODEL(Timed(s, [&] { lib_->cuMemcpyHtoDAsync_v2(dev, pageable.data(), kBytes, s); }),
               Ms(b, 20));
  EXPECT_MODEL(Timed(s, [&] { lib_->cuMemcpyDtoHAsync_v2(pageable.data(), dev, kBytes, s); }),
               Ms(b, 10));
  // Ten copies back to back: ten times one (read + write counted at d2d_gbps).
  EXPECT_MODEL(Timed(s,
                     [&] {
                       for (int i = 0; i < 10; ++i)
                         lib_->cuMemcpyDtoDAsync_v2(dev2, dev, kBytes, s);
                     }),
               10 * Ms(2 * b, 2000));

  auto module = LoadPtxModule(*lib_, GpuvetPtxModule());
  ASSERT_TRUE(module.ok()) << module.status().message();
  CUfunction copy = nullptr, fma = nullptr, empty = nullptr;
  ASSERT_EQ(lib_->cuModuleGetFunction(&copy, *module, "gpuvet_copy"), CUDA_SUCCESS);
  ASSERT_EQ(lib_->cuModuleGetFunction(&fma, *module, "gpuvet_fma"), CUDA_SUCCESS);
  ASSERT_EQ(lib_->cuModuleGetFunction(&empty, *module, "gpuvet_empty"), CUDA_SUCCESS);
  CUfunction missing = nullptr;
  EXPECT_EQ(lib_->cuModuleGetFunction(&missing, *module, "nope"), CUDA_ERROR_NOT_FOUND);

  // gpuvet_copy really copies, and takes 2 * bytes / d2d.
  std::memset(pinned, 0x5a, kBytes);
  ASSERT_EQ(lib_->cuMemcpyHtoD_v2(dev, pinned, kBytes), CUDA_SUCCESS);
  uint64_t n = kBytes / kPtxVectorBytes;
  void* copy_args[] = {&dev2, &dev, &n};
  EXPECT_MODEL(
      Timed(s,
            [&] {
              EXPECT_EQ(lib_->cuLaunchKernel(copy, 1024, 1, 1, 256, 1, 1, 0, s, copy_args, nullptr),
                        CUDA_SUCCESS);
            }),
      Ms(2 * b, 2000));
  std::vector<char> back(kBytes);
  ASSERT_EQ(lib_->cuMemcpyDtoH_v2(back.data(), dev2, kBytes), CUDA_SUCCESS);
  EXPECT_EQ(std::memcmp(back.data(), pinned, kBytes), 0);

  // gpuvet_fma: 2 * kFmaPerIteration * iterations * threads FLOPs at 50 TFLOP/s.
  CUdeviceptr out = dev;
  uint32_t iterations = 1000;
  float fa = 0.9999f, fb = 1e-4f;
  void* fma_args[] = {&out, &iterations, &fa, &fb};
  const double flops = 2.0 * kFmaPerIteration * iterations * 1024 * 256;
  EXPECT_MODEL(
      Timed(s, [&] { lib_->cuLaunchKernel(fma, 1024, 1, 1, 256, 1, 1, 0, s, fma_args, nullptr); }),
      flops / 50e12 * 1e3);

  // 100 empty launches: 100 launch overheads.
  EXPECT_MODEL(Timed(s,
                     [&] {
                       for (int i = 0; i < 100; ++i) {
                         lib_->cuLaunchKernel(empty, 1, 1, 1, 1, 1, 1, 0, s, nullptr, nullptr);
                       }
                     }),
               100 * 4e-3);
  // A copy kernel pointed past its buffer is refused.
  uint64_t too_many = n + 1;
  void* bad_args[] = {&dev2, &dev, &too_many};
  EXPECT_EQ(lib_->cuLaunchKernel(copy, 1, 1, 1, 1, 1, 1, 0, s, bad_args, nullptr),
            CUDA_ERROR_ILLEGAL_ADDRESS);
  EXPECT_EQ(lib_->cuModuleUnload(*module), CUDA_SUCCESS);
}

// GPU 1's local CPU (4000) is outside any affinity mask: its host copies run at the remote factor.
TEST_F(CudaLoaderFake, RemoteNumaCopiesAreSlower) {
  UseScenario(kTwoGpus);
  InitDevice(1);
  constexpr size_t kBytes = 4 << 20;
  void* pinned = nullptr;
  ASSERT_EQ(lib_->cuMemHostAlloc(&pinned, kBytes, 0), CUDA_SUCCESS);
  CUdeviceptr dev = 0;
  ASSERT_EQ(lib_->cuMemAlloc_v2(&dev, kBytes), CUDA_SUCCESS);
  const float ms =
      Timed(nullptr, [&] { lib_->cuMemcpyHtoDAsync_v2(dev, pinned, kBytes, nullptr); });
  EXPECT_NEAR(ms, Ms(kBytes, 6.5 * 0.5), Ms(kBytes, 6.5 * 0.5) * 1e-5);
}

TEST_F(CudaLoaderFake, PeerCopyUsesTheRouteOnceEnabled) {
  UseScenario(kTwoGpus);
  InitDevice(1);
  CUcontext ctx1 = ctx_;
  CUdeviceptr on1 = 0;
  ASSERT_EQ(lib_->cuMemAlloc_v2(&on1, 1 << 20), CUDA_SUCCESS);
  InitDevice(0);
  CUdeviceptr on0 = 0;
  ASSERT_EQ(lib_->cuMemAlloc_v2(&on0, 1 << 20), CUDA_SUCCESS);
  auto copy = [&] {
    EXPECT_EQ(lib_->cuMemcpyPeerAsync(on1, ctx1, on0, ctx_, 1 << 20, nullptr), CUDA_SUCCESS);
  };
  // Not enabled: staged through host memory (D2H of GPU 0, then H2D of GPU 1).
  const double b = 1 << 20;
  EXPECT_NEAR(Timed(nullptr, copy), Ms(b, 40) + Ms(b, 6.5), 1e-4);
  ASSERT_EQ(lib_->cuCtxEnablePeerAccess(ctx1, 0), CUDA_SUCCESS);
  EXPECT_EQ(lib_->cuCtxEnablePeerAccess(ctx1, 0), CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
  EXPECT_NEAR(Timed(nullptr, copy), 2e-3 + Ms(b, 25), 1e-4);
}

TEST_F(CudaLoaderFake, JitErrorLogIsSurfaced) {
  UseScenario(R"({"devices": [{}], "errors": {"cuModuleLoadDataEx": "CUDA_ERROR_INVALID_PTX"},
                  "jit_error_log": "ptxas application ptx input, line 12; error   : Unknown symbol 'x'"})");
  InitDevice(0);
  auto module = LoadPtxModule(*lib_, GpuvetPtxModule());
  ASSERT_FALSE(module.ok());
  const std::string& m = module.status().message();
  EXPECT_NE(m.find("CUDA_ERROR_INVALID_PTX = 218"), std::string::npos) << m;
  EXPECT_NE(m.find("a PTX JIT compilation failed"), std::string::npos) << m;
  EXPECT_NE(m.find("line 12; error   : Unknown symbol 'x'"), std::string::npos) << m;
}

TEST_F(CudaLoaderFake, ImageWithoutEntryIsInvalidPtx) {
  UseScenario(R"({"devices": [{}]})");
  InitDevice(0);
  auto module = LoadPtxModule(*lib_, ".version 6.0\n.target sm_50\n");
  ASSERT_FALSE(module.ok());
  EXPECT_NE(module.status().message().find("no .entry"), std::string::npos)
      << module.status().message();
}

TEST_F(CudaLoaderFake, InitErrorsAndInjectedErrors) {
  UseScenario(R"({"init": "CUDA_ERROR_NO_DEVICE", "devices": [{}]})");
  EXPECT_EQ(lib_->cuInit(0), CUDA_ERROR_NO_DEVICE);
  int count = -1;
  EXPECT_EQ(lib_->cuDeviceGetCount(&count), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(DescribeCudaError(*lib_, CUDA_ERROR_NO_DEVICE),
            "no CUDA-capable device is detected (CUDA_ERROR_NO_DEVICE = 100)");
  EXPECT_EQ(DescribeCudaError(*lib_, 12345),
            "unrecognised CUDA error code (CUDA_ERROR_UNRECOGNISED = 12345)");

  UseScenario(R"({"devices": []})");
  EXPECT_EQ(lib_->cuInit(0), CUDA_ERROR_NO_DEVICE);

  UseScenario(R"({"devices": [{}], "errors": {"cuMemAlloc_v2": "CUDA_ERROR_OUT_OF_MEMORY"}})");
  InitDevice(0);
  CUdeviceptr p = 0;
  EXPECT_EQ(lib_->cuMemAlloc_v2(&p, 1024), CUDA_ERROR_OUT_OF_MEMORY);
}

// A scenario the fake cannot parse makes cuInit fail (the reason goes to stderr) instead of
// crashing or answering from an empty scenario.
TEST_F(CudaLoaderFake, GarbledScenarioFailsInit) {
  UseScenario(R"({"devices": [{"sm_count": "many"}]})");
  EXPECT_EQ(lib_->cuInit(0), CUDA_ERROR_UNKNOWN);
  UseScenario(R"({"devices": [{}], "typo": 1})");
  EXPECT_EQ(lib_->cuInit(0), CUDA_ERROR_UNKNOWN);
  UseScenario("{not json");
  EXPECT_EQ(lib_->cuInit(0), CUDA_ERROR_UNKNOWN);
  UseScenario(R"({"errors": {"cuNoSuchCall": "CUDA_ERROR_UNKNOWN"}})");
  EXPECT_EQ(lib_->cuInit(0), CUDA_ERROR_UNKNOWN);
}

}  // namespace
}  // namespace gpuvet
