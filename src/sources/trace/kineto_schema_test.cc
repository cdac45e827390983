// Tests of the Kineto name tables and the exact microsecond-to-nanosecond conversion.
#include "sources/trace/kineto_schema.h"

#include <gtest/gtest.h>

namespace gpuvet {
namespace {

TEST(KinetoSchemaTest, CategoriesCurrentAndOlderSpellings) {
  EXPECT_EQ(ClassifyCategory("kernel"), KinetoCategory::kKernel);
  EXPECT_EQ(ClassifyCategory("Kernel"), KinetoCategory::kKernel);
  EXPECT_EQ(ClassifyCategory("gpu_memcpy"), KinetoCategory::kMemcpy);
  EXPECT_EQ(ClassifyCategory("Memcpy"), KinetoCategory::kMemcpy);
  EXPECT_EQ(ClassifyCategory("GPU_MEMSET"), KinetoCategory::kMemset);
  EXPECT_EQ(ClassifyCategory("Memset"), KinetoCategory::kMemset);
  EXPECT_EQ(ClassifyCategory("cuda_runtime"), KinetoCategory::kRuntime);
  EXPECT_EQ(ClassifyCategory("Runtime"), KinetoCategory::kRuntime);
  EXPECT_EQ(ClassifyCategory("cuda_driver"), KinetoCategory::kRuntime);
  EXPECT_EQ(ClassifyCategory("cpu_op"), KinetoCategory::kHostOp);
  EXPECT_EQ(ClassifyCategory("Operator"), KinetoCategory::kHostOp);
  EXPECT_EQ(ClassifyCategory("user_annotation"), KinetoCategory::kUserAnnotation);
  EXPECT_EQ(ClassifyCategory("gpu_user_annotation"), KinetoCategory::kGpuUserAnnotation);
  EXPECT_EQ(ClassifyCategory("ac2g"), KinetoCategory::kIgnored);
  EXPECT_EQ(ClassifyCategory("Trace"), KinetoCategory::kIgnored);
  EXPECT_EQ(ClassifyCategory("kernels"), KinetoCategory::kUnknown);
  EXPECT_EQ(ClassifyCategory(""), KinetoCategory::kUnknown);
}

TEST(KinetoSchemaTest, RuntimeKinds) {
  EXPECT_EQ(ClassifyRuntimeCall("cudaLaunchKernel"), RuntimeKind::kLaunch);
  EXPECT_EQ(ClassifyRuntimeCall("cudaLaunchKernelExC"), RuntimeKind::kLaunch);
  EXPECT_EQ(ClassifyRuntimeCall("cudaLaunchKernel_ptsz"), RuntimeKind::kLaunch);
  EXPECT_EQ(ClassifyRuntimeCall("cudaLaunchCooperativeKernel"), RuntimeKind::kLaunch);
  EXPECT_EQ(ClassifyRuntimeCall("cuLaunchKernel"), RuntimeKind::kLaunch);
  EXPECT_EQ(ClassifyRuntimeCall("cuLaunchKernelEx"), RuntimeKind::kLaunch);
  EXPECT_EQ(ClassifyRuntimeCall("hipLaunchKernel"), RuntimeKind::kLaunch);
  EXPECT_EQ(ClassifyRuntimeCall("hipExtLaunchKernel"), RuntimeKind::kLaunch);
  EXPECT_EQ(ClassifyRuntimeCall("hipExtModuleLaunchKernel"), RuntimeKind::kLaunch);
  EXPECT_EQ(ClassifyRuntimeCall("hipModuleLaunchKernel"), RuntimeKind::kLaunch);
  EXPECT_EQ(ClassifyRuntimeCall("cudaLaunchHostFunc"), RuntimeKind::kOther);
  EXPECT_EQ(ClassifyRuntimeCall("cudaGraphLaunch"), RuntimeKind::kGraphLaunch);
  EXPECT_EQ(ClassifyRuntimeCall("cudaGraphLaunch_ptsz"), RuntimeKind::kGraphLaunch);
  EXPECT_EQ(ClassifyRuntimeCall("hipGraphLaunch"), RuntimeKind::kGraphLaunch);
  EXPECT_EQ(ClassifyRuntimeCall("cudaMemcpy"), RuntimeKind::kMemcpy);
  EXPECT_EQ(ClassifyRuntimeCall("cudaMemcpy2D"), RuntimeKind::kMemcpy);
  EXPECT_EQ(ClassifyRuntimeCall("cuMemcpyDtoH_v2"), RuntimeKind::kMemcpy);
  EXPECT_EQ(ClassifyRuntimeCall("hipMemcpyWithStream"), RuntimeKind::kMemcpy);
  EXPECT_EQ(ClassifyRuntimeCall("cudaMemcpyAsync"), RuntimeKind::kMemcpyAsync);
  EXPECT_EQ(ClassifyRuntimeCall("cudaMemcpyAsync_ptsz"), RuntimeKind::kMemcpyAsync);
  EXPECT_EQ(ClassifyRuntimeCall("cuMemcpyHtoDAsync_v2"), RuntimeKind::kMemcpyAsync);
  EXPECT_EQ(ClassifyRuntimeCall("hipMemcpyAsync"), RuntimeKind::kMemcpyAsync);
  EXPECT_EQ(ClassifyRuntimeCall("cudaMemsetAsync"), RuntimeKind::kMemset);
  EXPECT_EQ(ClassifyRuntimeCall("cudaMemset"), RuntimeKind::kMemset);
  EXPECT_EQ(ClassifyRuntimeCall("cudaDeviceSynchronize"), RuntimeKind::kDeviceSync);
  EXPECT_EQ(ClassifyRuntimeCall("hipDeviceSynchronize"), RuntimeKind::kDeviceSync);
  EXPECT_EQ(ClassifyRuntimeCall("cuCtxSynchronize"), RuntimeKind::kDeviceSync);
  EXPECT_EQ(ClassifyRuntimeCall("cudaStreamSynchronize"), RuntimeKind::kStreamSync);
  EXPECT_EQ(ClassifyRuntimeCall("hipStreamSynchronize"), RuntimeKind::kStreamSync);
  EXPECT_EQ(ClassifyRuntimeCall("cudaEventSynchronize"), RuntimeKind::kEventSync);
  EXPECT_EQ(ClassifyRuntimeCall("cudaStreamWaitEvent"), RuntimeKind::kOther);
  EXPECT_EQ(ClassifyRuntimeCall("cudaEventRecord"), RuntimeKind::kOther);
  EXPECT_EQ(ClassifyRuntimeCall("ncclAllReduce"), RuntimeKind::kOther);
  EXPECT_EQ(ClassifyRuntimeCall(""), RuntimeKind::kOther);
}

TEST(KinetoSchemaTest, MemcpyNames) {
  CopyInfo a = ParseMemcpyName("Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(a.copy, CopyKind::kHtoD);
  EXPECT_EQ(a.src, MemKind::kPageable);
  EXPECT_EQ(a.dst, MemKind::kDevice);
  CopyInfo b = ParseMemcpyName("Memcpy DtoH (Device -> Pinned)");
  EXPECT_EQ(b.copy, CopyKind::kDtoH);
  EXPECT_EQ(b.src, MemKind::kDevice);
  EXPECT_EQ(b.dst, MemKind::kPinned);
  CopyInfo c = ParseMemcpyName("Memcpy DtoD (Device -> Device)");
  EXPECT_EQ(c.copy, CopyKind::kDtoD);
  CopyInfo d = ParseMemcpyName("Memcpy PtoP (Device -> Device)");
  EXPECT_EQ(d.copy, CopyKind::kPtoP);
  CopyInfo e = ParseMemcpyName("Memcpy HtoD");
  EXPECT_EQ(e.copy, CopyKind::kHtoD);
  EXPECT_EQ(e.src, MemKind::kUnknown);
  EXPECT_EQ(e.dst, MemKind::kUnknown);
  CopyInfo f = ParseMemcpyName("Memcpy HtoD (Host -> Device)");  // ROCm
  EXPECT_EQ(f.src, MemKind::kUnknown);
  EXPECT_EQ(f.dst, MemKind::kDevice);
  CopyInfo g = ParseMemcpyName("Memcpy AtoD (Array -> Device)");
  EXPECT_EQ(g.copy, CopyKind::kOther);
  EXPECT_EQ(g.src, MemKind::kArray);
  CopyInfo h = ParseMemcpyName("Memcpy HtoH (Pinned -> Managed)");
  EXPECT_EQ(h.copy, CopyKind::kHtoH);
  EXPECT_EQ(h.dst, MemKind::kManaged);
  EXPECT_EQ(ParseMemcpyName("something else").copy, CopyKind::kOther);
  EXPECT_EQ(ParseMemcpyName("Memcpy HtoD (Pageable").src, MemKind::kUnknown);
}

TEST(KinetoSchemaTest, ProfilerStepAndHipNames) {
  EXPECT_TRUE(IsProfilerStepName("ProfilerStep#12"));
  EXPECT_FALSE(IsProfilerStepName("ProfilerStep"));
  EXPECT_TRUE(IsHipApiName("hipLaunchKernel"));
  EXPECT_FALSE(IsHipApiName("cudaLaunchKernel"));
}

TEST(KinetoSchemaTest, MicrosToNanosExact) {
  EXPECT_EQ(MicrosTextToNanos("0"), 0);
  EXPECT_EQ(MicrosTextToNanos("12"), 12000);
  EXPECT_EQ(MicrosTextToNanos("4458676522690.655"), 4458676522690655);
  EXPECT_EQ(MicrosTextToNanos("1606910596297023"), int64_t{1606910596297023000});
  EXPECT_EQ(MicrosTextToNanos("1.5e3"), 1500000);
  EXPECT_EQ(MicrosTextToNanos("15E-1"), 1500);
  EXPECT_EQ(MicrosTextToNanos("-0.25"), -250);
  EXPECT_EQ(MicrosTextToNanos("-0"), 0);
  EXPECT_EQ(MicrosTextToNanos("0.0000001e5"), 10);
  // Rounding at the nanosecond: half away from zero, on the decimal text.
  EXPECT_EQ(MicrosTextToNanos("1.0004"), 1000);
  EXPECT_EQ(MicrosTextToNanos("1.0005"), 1001);
  EXPECT_EQ(MicrosTextToNanos("1.00049999999"), 1000);
  EXPECT_EQ(MicrosTextToNanos("0.0005"), 1);
  EXPECT_EQ(MicrosTextToNanos("0.00049"), 0);
  EXPECT_EQ(MicrosTextToNanos("-1.0005"), -1001);
  // A double loses this: 4458676522690.6555 is not representable to 0.1 ns.
  EXPECT_EQ(MicrosTextToNanos("4458676522690.6555"), 4458676522690656);
  EXPECT_EQ(MicrosTextToNanos("1e-400"), 0);
  EXPECT_EQ(MicrosTextToNanos("0e999999999999"), 0);
  // int64 range: 9223372036854775807 ns.
  EXPECT_EQ(MicrosTextToNanos("9223372036854775.807"), INT64_MAX);
  EXPECT_EQ(MicrosTextToNanos("-9223372036854775.808"), INT64_MIN);
  EXPECT_EQ(MicrosTextToNanos("9223372036854775.808"), std::nullopt);
  EXPECT_EQ(MicrosTextToNanos("1e300"), std::nullopt);
  EXPECT_EQ(MicrosTextToNanos("1e999999999999"), std::nullopt);
  for (const char* bad :
       {"", "-", "1.", ".5", "+1", "1e", "1e+", "0x10", "1 ", "NaN", "1.2.3", "true", "--1"}) {
    EXPECT_EQ(MicrosTextToNanos(bad), std::nullopt) << bad;
  }
}

TEST(KinetoSchemaTest, AcceleratorCategories) {
  EXPECT_EQ(ClassifyCategory("mtia_ccp_events"), KinetoCategory::kKernel);
  EXPECT_EQ(ClassifyCategory("mtia_runtime"), KinetoCategory::kRuntime);
  EXPECT_EQ(ClassifyCategory("hpu_op"), KinetoCategory::kRuntime);
  EXPECT_EQ(ClassifyCategory("xpu_runtime"), KinetoCategory::kRuntime);
  EXPECT_EQ(ClassifyCategory("privateuse1_driver"), KinetoCategory::kRuntime);
  EXPECT_EQ(ClassifyCategory("mtia_insight"), KinetoCategory::kAcceleratorOther);
  EXPECT_EQ(AcceleratorOfCategory("MTIA_CCP_EVENTS"), "mtia");
  EXPECT_EQ(AcceleratorOfCategory("hpu_op"), "hpu");
  EXPECT_EQ(AcceleratorOfCategory("privateuse1_runtime"), "privateuse1");
  EXPECT_EQ(AcceleratorOfCategory("kernel"), "");
  EXPECT_EQ(AcceleratorOfCategory(""), "");
}

TEST(KinetoSchemaTest, HostPhases) {
  EXPECT_EQ(ClassifyHostPhase("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"),
            HostPhaseKind::kDataLoader);
  EXPECT_EQ(ClassifyHostPhase("_MultiProcessingDataLoaderIter.__next__"),
            HostPhaseKind::kDataLoader);
  EXPECT_EQ(ClassifyHostPhase("DataLoader.__next__"), HostPhaseKind::kDataLoader);
  EXPECT_EQ(ClassifyHostPhase("Optimizer.step#SGD.step"), HostPhaseKind::kOptimizerStep);
  EXPECT_EQ(ClassifyHostPhase("Optimizer.zero_grad#SGD.zero_grad"), HostPhaseKind::kZeroGrad);
  EXPECT_FALSE(ClassifyHostPhase("aten::add"));
  EXPECT_FALSE(ClassifyHostPhase("enumerate"));
  EXPECT_FALSE(ClassifyHostPhase("Optimizer"));
  EXPECT_FALSE(ClassifyHostPhase(""));
}

}  // namespace
}  // namespace gpuvet
