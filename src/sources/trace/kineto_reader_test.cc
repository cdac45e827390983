// Tests of the Kineto trace reader: both top-level schemas, category spellings, exact times,
// memcpy kinds, graph launches, steps, ROCm, bad and truncated input, and the shared real traces.
#include "sources/trace/kineto_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace gpuvet {
namespace {

RankTrace MustParse(const std::string& json) {
  Result<RankTrace> r = ParseKinetoTrace(json, "t.json");
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r.value() : RankTrace{};
}

std::string ParseError(const std::string& json) {
  Result<RankTrace> r = ParseKinetoTrace(json, "t.json");
  EXPECT_FALSE(r.ok());
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  return r.status().message();
}

// A small current-schema trace: a kernel, a memcpy, a memset, their launches, a step, an
// annotation, flow and metadata events, and a cpu_op with big args.
const char kCurrent[] = R"js({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "NVIDIA A100", "numSms": 108}],
  "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8, "pg_config": [{"ranks": [0, 1]}]},
  "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#7", "pid": 1, "tid": 11, "ts": 100.5, "dur": 50},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 11, "ts": 101, "dur": 3,
     "args": {"Input Dims": [[2, 3], []], "Input type": ["float", ""], "External id": 5}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 11, "ts": 102, "dur": 4.25,
     "args": {"cbid": 211, "correlation": 42, "External id": 5}},
    {"ph": "s", "id": 42, "pid": 1, "tid": 11, "ts": 102, "cat": "ac2g", "name": "ac2g"},
    {"ph": "X", "cat": "kernel", "name": "void add_kernel<float>(float*)", "pid": 0, "tid": 7, "ts": 110.001, "dur": 2.5,
     "args": {"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 42, "grid": [1, 1, 1]}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 105, "dur": 3,
     "args": {"device": 0, "stream": 7, "correlation": 43, "bytes": 4096, "memory bandwidth (GB/s)": 1.5}},
    {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 104, "dur": 1,
     "args": {"device": 0, "stream": 7, "correlation": 44, "bytes": 128}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 11, "ts": 103, "dur": 5,
     "args": {"correlation": 43}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, "tid": 11, "ts": 120, "dur": 5,
     "args": {"correlation": 45}},
    {"ph": "X", "cat": "user_annotation", "name": "## forward ##", "pid": 1, "tid": 11, "ts": 100.75, "dur": 20},
    {"ph": "X", "cat": "gpu_user_annotation", "name": "## forward ##", "pid": 0, "tid": 7, "ts": 104, "dur": 9},
    {"name": "process_name", "ph": "M", "ts": 0, "pid": 1, "tid": 0, "args": {"name": "python3"}},
    {"name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g", "pid": "Traces", "tid": "Trace PyTorch Profiler", "ts": 100}
  ],
  "traceName": "t.json"
})js";

TEST(KinetoReaderTest, CurrentSchema) {
  RankTrace t = MustParse(kCurrent);
  EXPECT_EQ(t.format, "kineto-json");
  EXPECT_EQ(t.source, "t.json");
  EXPECT_EQ(t.rank, 3);
  EXPECT_EQ(t.world_size, 8);
  EXPECT_EQ(t.device_type, "cuda");
  EXPECT_EQ(t.events_seen, 13u);
  EXPECT_EQ(t.input_bytes, sizeof(kCurrent) - 1);
  EXPECT_FALSE(t.truncated);
  EXPECT_TRUE(t.warnings.empty()) << t.warnings[0];
  EXPECT_EQ(t.names[0], "");

  ASSERT_EQ(t.gpu_ops.size(), 3u);  // sorted by start: memset 104, memcpy 105, kernel 110.001
  const GpuOp& memset = t.gpu_ops[0];
  EXPECT_EQ(memset.kind, GpuOpKind::kMemset);
  EXPECT_EQ(memset.bytes, 128u);
  EXPECT_EQ(memset.copy, CopyKind::kNone);
  const GpuOp& memcpy = t.gpu_ops[1];
  EXPECT_EQ(memcpy.kind, GpuOpKind::kMemcpy);
  EXPECT_EQ(memcpy.copy, CopyKind::kHtoD);
  EXPECT_EQ(memcpy.src, MemKind::kPageable);
  EXPECT_EQ(memcpy.dst, MemKind::kDevice);
  EXPECT_EQ(memcpy.bytes, 4096u);
  EXPECT_EQ(memcpy.correlation, 43);
  const GpuOp& kernel = t.gpu_ops[2];
  EXPECT_EQ(kernel.kind, GpuOpKind::kKernel);
  EXPECT_EQ(t.Name(kernel.name), "void add_kernel<float>(float*)");
  EXPECT_EQ(kernel.start_ns, 110001);
  EXPECT_EQ(kernel.dur_ns, 2500);
  EXPECT_EQ(kernel.device, 0);
  EXPECT_EQ(kernel.stream, 7);
  EXPECT_EQ(kernel.correlation, 42);
  EXPECT_EQ(kernel.bytes, 0u);
  EXPECT_FALSE(kernel.graph_launched);

  ASSERT_EQ(t.runtime.size(), 3u);
  EXPECT_EQ(t.Name(t.runtime[0].name), "cudaLaunchKernel");
  EXPECT_EQ(t.runtime[0].kind, RuntimeKind::kLaunch);
  EXPECT_EQ(t.runtime[0].dur_ns, 4250);
  EXPECT_EQ(t.runtime[0].tid, 11);
  EXPECT_EQ(t.runtime[0].correlation, 42);
  EXPECT_EQ(t.runtime[1].kind, RuntimeKind::kMemcpyAsync);
  EXPECT_EQ(t.runtime[2].kind, RuntimeKind::kStreamSync);

  ASSERT_EQ(t.steps.size(), 1u);
  EXPECT_EQ(t.Name(t.steps[0].name), "ProfilerStep#7");
  EXPECT_EQ(t.steps[0].start_ns, 100500);
  EXPECT_EQ(t.steps[0].dur_ns, 50000);
  EXPECT_EQ(t.steps[0].tid, 11);
  ASSERT_EQ(t.annotations.size(), 2u);  // host and GPU copies of "## forward ##"
  EXPECT_EQ(t.annotations[0].start_ns, 100750);
  EXPECT_EQ(t.annotations[0].name, t.annotations[1].name);  // interned once
}

// Hands out a document `step` bytes at a time.
class SlicedSource : public ChunkSource {
 public:
  SlicedSource(std::string_view data, size_t step) : data_(data), step_(step) {}
  std::string_view Next() override {
    std::string_view out = data_.substr(0, step_);
    data_.remove_prefix(out.size());
    return out;
  }
  const Status& status() const override { return status_; }

 private:
  std::string_view data_;
  size_t step_;
  Status status_;
};

TEST(KinetoReaderTest, ChunkBoundariesDoNotMatter) {
  RankTrace whole = MustParse(kCurrent);
  for (size_t step : {1, 2, 3, 7, 64}) {
    SlicedSource src(kCurrent, step);
    Result<RankTrace> r = ParseKinetoStream(&src, "t.json");
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->names, whole.names);
    ASSERT_EQ(r->gpu_ops.size(), whole.gpu_ops.size());
    for (size_t i = 0; i < whole.gpu_ops.size(); ++i) {
      EXPECT_EQ(r->gpu_ops[i].start_ns, whole.gpu_ops[i].start_ns);
      EXPECT_EQ(r->gpu_ops[i].correlation, whole.gpu_ops[i].correlation);
    }
    EXPECT_EQ(r->runtime.size(), whole.runtime.size());
    EXPECT_EQ(r->rank, 3);
    EXPECT_EQ(r->input_bytes, whole.input_bytes);
  }
}

TEST(KinetoReaderTest, KeyOrderDoesNotMatter) {
  // distributedInfo after traceEvents; event keys in unusual orders (args before cat and ph).
  RankTrace t = MustParse(R"js({"traceEvents": [
      {"args": {"stream": 9, "correlation": 5, "device": 1}, "dur": 2, "ts": 10, "name": "k", "cat": "kernel", "ph": "X"},
      {"args": {"correlation": 5}, "name": "cudaLaunchKernel", "tid": 3, "ts": 8, "dur": 1, "ph": "X", "cat": "cuda_runtime"}
    ], "distributedInfo": {"world_size": 2, "rank": 1}})js");
  EXPECT_EQ(t.rank, 1);
  EXPECT_EQ(t.world_size, 2);
  ASSERT_EQ(t.gpu_ops.size(), 1u);
  EXPECT_EQ(t.gpu_ops[0].stream, 9);
  EXPECT_EQ(t.gpu_ops[0].device, 1);
  EXPECT_EQ(t.gpu_ops[0].correlation, 5);
  ASSERT_EQ(t.runtime.size(), 1u);
  EXPECT_EQ(t.runtime[0].correlation, 5);
  EXPECT_EQ(t.runtime[0].tid, 3);
}

TEST(KinetoReaderTest, BareListOlderSpellings) {
  // The 2020 PyTorch profiler format: a bare list; Kernel/Memcpy/Memset/Runtime/Operator; string
  // tids; integer µs.
  RankTrace t = MustParse(R"js([
    {"ph": "X", "cat": "Operator", "name": "ProfilerStep#5", "pid": 67844, "tid": "4093687616", "ts": 1606910596297023, "dur": 13},
    {"ph": "X", "cat": "Operator", "name": "aten::empty", "pid": 67844, "tid": "4093687616", "ts": 1606910596297024, "dur": 1,
     "args": {"Input dims": [[], []], "Device": 0}},
    {"ph": "X", "cat": "Memset", "name": "Memset (Device)", "pid": 0, "tid": "stream 7", "ts": 1606910596288081, "dur": 1,
     "args": {
  "device" : 0, "context" : 1, "stream" : 7, "correlation" : 60031, "external id" : 0,
      "bytes" : 1048576}},
    {"ph": "X", "cat": "Kernel", "name": "void cudnn::k()", "pid": 0, "tid": "stream 7", "ts": 1606910596288085, "dur": 379,
     "args": {"device": 0, "stream": 7, "correlation": 60032}},
    {"ph": "X", "cat": "Memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": "stream 7", "ts": 1606910596350714, "dur": 2353,
     "args": {"device": 0, "stream": 7, "correlation": 65460, "bytes": 19267584}},
    {"ph": "X", "cat": "Runtime", "name": "cudaMemcpyAsync", "pid": 67844, "tid": "4093687616", "ts": 1606910596350464, "dur": 2494,
     "args": {"cbid": 41, "correlation": 65460}},
    {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 67844, "tid": "main thread", "ts": 1606910596288000, "dur": 2,
     "args": {"correlation": 60032}},
    {"ph": "s", "id": 65460, "pid": 67844, "tid": 4093687616, "ts": 1606910596350464, "cat": "async", "name": "launch"}
  ])js");
  EXPECT_EQ(t.format, "kineto-json (bare list)");
  EXPECT_EQ(t.rank, -1);
  EXPECT_EQ(t.world_size, -1);
  EXPECT_EQ(t.device_type, "cuda");
  EXPECT_EQ(t.events_seen, 8u);
  ASSERT_EQ(t.gpu_ops.size(), 3u);
  EXPECT_EQ(t.gpu_ops[0].kind, GpuOpKind::kMemset);
  EXPECT_EQ(t.gpu_ops[0].start_ns, int64_t{1606910596288081000});
  EXPECT_EQ(t.gpu_ops[1].kind, GpuOpKind::kKernel);
  EXPECT_EQ(t.gpu_ops[2].kind, GpuOpKind::kMemcpy);
  EXPECT_EQ(t.gpu_ops[2].copy, CopyKind::kHtoD);
  EXPECT_EQ(t.gpu_ops[2].src, MemKind::kUnknown);
  EXPECT_EQ(t.gpu_ops[2].dst, MemKind::kUnknown);
  EXPECT_EQ(t.gpu_ops[2].bytes, 19267584u);
  ASSERT_EQ(t.runtime.size(), 2u);
  EXPECT_EQ(t.runtime[0].kind, RuntimeKind::kLaunch);
  EXPECT_EQ(t.runtime[1].kind, RuntimeKind::kMemcpyAsync);
  // Numeric string tids too big for int32 fold deterministically; other strings hash.
  EXPECT_GE(t.runtime[1].tid, 0);
  EXPECT_GE(t.runtime[0].tid, 0);
  EXPECT_NE(t.runtime[0].tid, t.runtime[1].tid);
  ASSERT_EQ(t.steps.size(), 1u);
  EXPECT_EQ(t.Name(t.steps[0].name), "ProfilerStep#5");
  EXPECT_EQ(t.steps[0].tid, t.runtime[1].tid);  // same thread, same folded id
  EXPECT_TRUE(t.annotations.empty());
}

TEST(KinetoReaderTest, EscapedNamesAreDecoded) {
  RankTrace t = MustParse(R"js({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k\"q\\b\u00e9\ud83d\ude00", "ts": 1, "dur": 1, "args": {}}]})js");
  ASSERT_EQ(t.gpu_ops.size(), 1u);
  EXPECT_EQ(t.Name(t.gpu_ops[0].name), "k\"q\\b\xC3\xA9\xF0\x9F\x98\x80");
}

TEST(KinetoReaderTest, FractionalTimesKeepNanoseconds) {
  RankTrace t = MustParse(R"js({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "a", "ts": 4458676522690.655, "dur": 156.777},
    {"ph": "X", "cat": "kernel", "name": "b", "ts": 4458676522690.6555, "dur": 0.0004},
    {"ph": "X", "cat": "kernel", "name": "c", "ts": "4458676522691", "dur": 1e-3}]})js");
  ASSERT_EQ(t.gpu_ops.size(), 3u);
  EXPECT_EQ(t.gpu_ops[0].start_ns, 4458676522690655);
  EXPECT_EQ(t.gpu_ops[0].dur_ns, 156777);
  EXPECT_EQ(t.gpu_ops[1].start_ns, 4458676522690656);  // rounded half away from zero
  EXPECT_EQ(t.gpu_ops[1].dur_ns, 0);
  EXPECT_EQ(t.gpu_ops[2].start_ns, 4458676522691000);  // a quoted number is accepted
  EXPECT_EQ(t.gpu_ops[2].dur_ns, 1);
}

TEST(KinetoReaderTest, MemcpyKinds) {
  RankTrace t = MustParse(R"js({"traceEvents": [
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "ts": 1, "dur": 1, "args": {
  "bytes" : 1}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pinned)", "ts": 2, "dur": 1, "args": {"bytes": 2}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD (Device -> Device)", "ts": 3, "dur": 1, "args": {"bytes": 3}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy PtoP (Device -> Device)", "ts": 4, "dur": 1, "args": {"bytes": 4}},
    {"ph": "X", "cat": "Memcpy", "name": "Memcpy DtoH", "ts": 5, "dur": 1, "args": {"bytes": "5"}}]
})js");
  ASSERT_EQ(t.gpu_ops.size(), 5u);
  EXPECT_EQ(t.gpu_ops[0].copy, CopyKind::kHtoD);
  EXPECT_EQ(t.gpu_ops[0].src, MemKind::kPageable);
  EXPECT_EQ(t.gpu_ops[1].copy, CopyKind::kDtoH);
  EXPECT_EQ(t.gpu_ops[1].dst, MemKind::kPinned);
  EXPECT_EQ(t.gpu_ops[2].copy, CopyKind::kDtoD);
  EXPECT_EQ(t.gpu_ops[3].copy, CopyKind::kPtoP);
  EXPECT_EQ(t.gpu_ops[4].copy, CopyKind::kDtoH);
  EXPECT_EQ(t.gpu_ops[4].src, MemKind::kUnknown);
  EXPECT_EQ(t.gpu_ops[4].bytes, 5u);
}

TEST(KinetoReaderTest, GraphLaunchedKernelsAreKeptAndMarked) {
  // The kernels come before their launch call in the file; both graph kernels share its
  // correlation id (HTA drops such kernels, HTA issue #290).
  RankTrace t = MustParse(R"js({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "g1", "ts": 20, "dur": 1, "args": {"stream": 7, "correlation": 9}},
    {"ph": "X", "cat": "kernel", "name": "g2", "ts": 22, "dur": 1, "args": {"stream": 7, "correlation": 9}},
    {"ph": "X", "cat": "kernel", "name": "plain", "ts": 30, "dur": 1, "args": {"stream": 7, "correlation": 10}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "ts": 10, "dur": 5, "args": {"correlation": 9}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 25, "dur": 5, "args": {"correlation": 10}}]})js");
  ASSERT_EQ(t.gpu_ops.size(), 3u);
  EXPECT_TRUE(t.gpu_ops[0].graph_launched);
  EXPECT_TRUE(t.gpu_ops[1].graph_launched);
  EXPECT_FALSE(t.gpu_ops[2].graph_launched);
  EXPECT_EQ(t.runtime[0].kind, RuntimeKind::kGraphLaunch);
}

// Kineto puts NCCL's metadata on collective kernels ("Collective name", "Process Group Name",
// "Process Group Ranks"): the kernel is marked a collective whatever its name; the keys on a
// runtime call or a copy mark nothing.
TEST(KinetoReaderTest, CollectiveArgsMarkKernels) {
  RankTrace t = MustParse(R"js({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "fused_a2a", "ts": 1, "dur": 1, "args": {"stream": 7, "Collective name": "all_to_all"}},
    {"ph": "X", "cat": "kernel", "name": "k2", "ts": 2, "dur": 1, "args": {"Process Group Name": "1", "stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "k3", "ts": 3, "dur": 1, "args": {"Process Group Ranks": [0, 1]}},
    {"ph": "X", "cat": "kernel", "name": "plain", "ts": 4, "dur": 1, "args": {"stream": 7, "grid": [1, 1, 1]}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD (Device -> Device)", "ts": 5, "dur": 1, "args": {"Collective name": "x"}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 0, "dur": 1, "args": {"Collective name": "x"}}]})js");
  ASSERT_EQ(t.gpu_ops.size(), 5u);
  EXPECT_TRUE(t.gpu_ops[0].collective);
  EXPECT_TRUE(t.gpu_ops[1].collective);
  EXPECT_EQ(t.gpu_ops[1].stream, 7);  // keys after the hint are still read
  EXPECT_TRUE(t.gpu_ops[2].collective);
  EXPECT_FALSE(t.gpu_ops[3].collective);
  EXPECT_FALSE(t.gpu_ops[4].collective);
  ASSERT_EQ(t.runtime.size(), 1u);
}

TEST(KinetoReaderTest, ProfilerRangesKeepTheirCountersAndDeviceName) {
  // CUPTI range-profiler mode: counters as numeric args (a string holding a number counts too;
  // other values are dropped); deviceProperties gives the GPU's name.
  RankTrace t = MustParse(R"js({"deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"},
      {"id": 1, "name": "other"}],
    "traceEvents": [
    {"ph": "X", "cat": "cuda_profiler_range", "name": "gemm", "ts": 1, "dur": 121431,
     "args": {"dram__bytes_read.sum": 1024, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": "2e3",
              "note": {"x": 1}, "flag": true}},
    {"ph": "X", "cat": "cuda_profiler_range", "name": "add", "ts": 2, "dur": 121431,
     "args": {"dram__bytes_read.sum": 8}}]})js");
  EXPECT_EQ(t.gpu_name, "NVIDIA H100 80GB HBM3");
  EXPECT_TRUE(t.gpu_ops.empty());
  ASSERT_EQ(t.counter_ranges.size(), 2u);
  EXPECT_EQ(t.Name(t.counter_ranges[0].name), "gemm");
  ASSERT_EQ(t.counter_ranges[0].count, 2u);
  const CounterValue& a = t.counter_values[t.counter_ranges[0].first];
  const CounterValue& b = t.counter_values[t.counter_ranges[0].first + 1];
  EXPECT_EQ(t.Name(a.metric), "dram__bytes_read.sum");
  EXPECT_DOUBLE_EQ(a.value, 1024);
  EXPECT_DOUBLE_EQ(b.value, 2000);
  EXPECT_EQ(t.counter_ranges[1].count, 1u);
  EXPECT_DOUBLE_EQ(t.counter_values[t.counter_ranges[1].first].value, 8);
}

TEST(KinetoReaderTest, StepsFromEveryHostCategory) {
  RankTrace t = MustParse(R"js({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#2", "tid": 1, "ts": 20, "dur": 10},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "tid": 1, "ts": 5, "dur": 10},
    {"ph": "X", "cat": "Operator", "name": "ProfilerStep#3", "tid": 1, "ts": 40, "dur": 10},
    {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#1", "tid": 7, "ts": 6, "dur": 9},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "tid": 1, "ts": 21, "dur": 1},
    {"ph": "i", "cat": "user_annotation", "name": "ProfilerStep#9", "tid": 1, "ts": 60}]})js");
  ASSERT_EQ(t.steps.size(), 3u);
  EXPECT_EQ(t.Name(t.steps[0].name), "ProfilerStep#1");
  EXPECT_EQ(t.Name(t.steps[1].name), "ProfilerStep#2");
  EXPECT_EQ(t.Name(t.steps[2].name), "ProfilerStep#3");
  EXPECT_TRUE(t.annotations.empty());  // the GPU-side copy of a step is not a second step
  EXPECT_EQ(t.device_type, "");        // no GPU ops
}

TEST(KinetoReaderTest, RocmFromHipNamesOrDispatchKernels) {
  RankTrace hip = MustParse(R"js({"traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "ts": 1, "dur": 1, "args": {"correlation": 3}},
    {"ph": "X", "cat": "cuda_runtime", "name": "hipMemcpyWithStream", "ts": 2, "dur": 1, "args": {"correlation": 4, "stream": "0x0"}},
    {"ph": "X", "cat": "kernel", "name": "k", "ts": 3, "dur": 1, "args": {"device": 2, "stream": 0, "correlation": 3}}]})js");
  EXPECT_EQ(hip.device_type, "rocm");
  EXPECT_EQ(hip.runtime[0].kind, RuntimeKind::kLaunch);
  EXPECT_EQ(hip.runtime[1].kind, RuntimeKind::kMemcpy);
  RankTrace dispatch = MustParse(R"js({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "ts": 3, "dur": 1, "args": {"kind": "Dispatch Kernel", "device": 2}}]})js");
  EXPECT_EQ(dispatch.device_type, "rocm");
}

TEST(KinetoReaderTest, RocmCopyBytesComeFromTheirCall) {
  // ROCm's copy events carry no bytes; the hipMemcpy* call has them as args.size (a string).
  RankTrace t = MustParse(R"js({"traceEvents": [
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Host -> Device)", "ts": 10, "dur": 2,
     "args": {"device": 2, "stream": 0, "correlation": 117, "kind": "HtoD"}},
    {"ph": "X", "cat": "cuda_runtime", "name": "hipMemcpyWithStream", "ts": 5, "dur": 9,
     "args": {"stream": "0x0", "correlation": 117, "size": "2560", "kind": "1"}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH", "ts": 20, "dur": 2,
     "args": {"device": 0, "stream": 7, "correlation": 118, "bytes": 64}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "ts": 15, "dur": 1,
     "args": {"correlation": 118, "size": 999}}]})js");
  ASSERT_EQ(t.gpu_ops.size(), 2u);
  EXPECT_EQ(t.gpu_ops[0].bytes, 2560u);
  EXPECT_EQ(t.gpu_ops[1].bytes, 64u);  // the copy's own bytes win
}

// MTIA: on-device ops in mtia_ccp_events, host calls in mtia_runtime, insight samples counted;
// DataLoader and optimizer host ops kept as phases, other cpu_ops dropped.
const char kMtia[] = R"js({
  "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", "pid": 1, "tid": 11, "ts": 10, "dur": 5},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 11, "ts": 16, "dur": 2},
    {"ph": "X", "cat": "user_annotation", "name": "Optimizer.step#AdamW.step", "pid": 1, "tid": 11, "ts": 30, "dur": 8},
    {"ph": "X", "cat": "cpu_op", "name": "Optimizer.zero_grad#AdamW.zero_grad", "pid": 1, "tid": 11, "ts": 40, "dur": 1},
    {"ph": "X", "cat": "mtia_runtime", "name": "runFunction", "pid": 1, "tid": 11, "ts": 17, "dur": 3, "args": {"correlation": 9}},
    {"ph": "X", "cat": "mtia_ccp_events", "name": "mtia::fused_gemm", "pid": 0, "tid": 3, "ts": 21, "dur": 6, "args": {"device": 0, "stream": 3, "correlation": 9}},
    {"ph": "X", "cat": "mtia_insight", "name": "sample", "pid": 0, "tid": 9, "ts": 22, "dur": 1},
    {"ph": "X", "cat": "mtia_insight", "name": "sample", "pid": 0, "tid": 9, "ts": 23, "dur": 1}
  ]
})js";

TEST(KinetoReaderTest, MtiaEventsAreDeviceActivity) {
  RankTrace t = MustParse(kMtia);
  EXPECT_EQ(t.device_type, "mtia");
  ASSERT_EQ(t.gpu_ops.size(), 1u);
  EXPECT_EQ(t.Name(t.gpu_ops[0].name), "mtia::fused_gemm");
  EXPECT_EQ(t.gpu_ops[0].correlation, 9);
  ASSERT_EQ(t.runtime.size(), 1u);
  EXPECT_EQ(t.runtime[0].correlation, 9);
  ASSERT_EQ(t.unanalysed.size(), 1u);
  EXPECT_EQ(t.unanalysed[0].category, "mtia_insight");
  EXPECT_EQ(t.unanalysed[0].events, 2u);
  ASSERT_EQ(t.host_phases.size(), 3u);
  EXPECT_EQ(t.host_phases[0].kind, HostPhaseKind::kDataLoader);
  EXPECT_EQ(t.host_phases[0].dur_ns, 5000);
  EXPECT_EQ(t.host_phases[1].kind, HostPhaseKind::kOptimizerStep);
  EXPECT_EQ(t.host_phases[2].kind, HostPhaseKind::kZeroGrad);
  EXPECT_TRUE(t.warnings.empty()) << t.warnings.front();
}

TEST(KinetoReaderTest, HostOnlyAcceleratorEventsAreUnanalysed) {
  RankTrace t = MustParse(R"({"traceEvents": [
    {"ph": "X", "cat": "hpu_op", "name": "launch", "pid": 1, "tid": 1, "ts": 1, "dur": 2},
    {"ph": "X", "cat": "hpu_op", "name": "launch", "pid": 1, "tid": 1, "ts": 4, "dur": 2}]})");
  EXPECT_EQ(t.device_type, "hpu");
  EXPECT_TRUE(t.gpu_ops.empty());
  ASSERT_EQ(t.unanalysed.size(), 1u);
  EXPECT_EQ(t.unanalysed[0].category, "hpu_op");
  EXPECT_EQ(t.unanalysed[0].device, "hpu");
  EXPECT_EQ(t.unanalysed[0].events, 2u);
}

TEST(KinetoReaderTest, XpuKernelsWithXpuRuntime) {
  RankTrace t = MustParse(R"({"traceEvents": [
    {"ph": "X", "cat": "xpu_runtime", "name": "zeCommandListAppendLaunchKernel", "pid": 1, "tid": 1, "ts": 1, "dur": 2, "args": {"correlation": 3}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 2, "ts": 4, "dur": 2, "args": {"correlation": 3, "device": 0, "stream": 2}}]})");
  EXPECT_EQ(t.device_type, "xpu");
  EXPECT_EQ(t.gpu_ops.size(), 1u);
  EXPECT_TRUE(t.unanalysed.empty());
}

TEST(KinetoReaderTest, MtiaTruncationAtEveryByteNeverCrashes) {
  const std::string doc = kMtia;
  for (size_t cut = 0; cut < doc.size(); ++cut) {
    Result<RankTrace> r = ParseKinetoTrace(std::string_view(doc).substr(0, cut), "t.json");
    if (r.ok()) {
      EXPECT_TRUE(r->truncated) << cut;
      EXPECT_LE(r->host_phases.size(), 3u);
    } else {
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput) << cut;
    }
  }
}

TEST(KinetoReaderTest, MtiaMutationsNeverCrash) {
  const std::string doc = kMtia;
  const std::string alphabet = "{}[]\",:0123456789.eE-+tfnu\\ \x01\xff_#";
  uint32_t state = 777;  // fixed seed
  auto next = [&state]() {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  for (int i = 0; i < 2000; ++i) {
    std::string m = doc;
    for (int e = 0, edits = 1 + next() % 4; e < edits; ++e) {
      size_t at = next() % m.size();
      if (next() % 2) {
        m[at] = alphabet[next() % alphabet.size()];
      } else {
        m.erase(at, 1 + next() % 8);
      }
      if (m.empty()) m = "x";
    }
    Result<RankTrace> r = ParseKinetoTrace(m, "t.json");
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
    }
  }
}

TEST(KinetoReaderTest, BadTimesAreSkippedWithOneWarning) {
  const std::string doc = R"js({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "ok", "ts": 1, "dur": 1},
    {"ph": "X", "cat": "kernel", "name": "no dur", "ts": 1},
    {"ph": "X", "cat": "kernel", "name": "garbage ts", "ts": "soon", "dur": 1},
    {"ph": "X", "cat": "kernel", "name": "null ts", "ts": null, "dur": 1},
    {"ph": "X", "cat": "kernel", "name": "object ts", "ts": {"a": 1}, "dur": 1},
    {"ph": "X", "cat": "kernel", "name": "negative dur", "ts": 1, "dur": -1},
    {"ph": "X", "cat": "cpu_op", "name": "unused, not counted", "ts": "x"},
    7, "stray",
    {"ph": "X", "cat": "mystery", "name": "m", "ts": 1, "dur": 1}]})js";
  RankTrace t = MustParse(doc);
  EXPECT_EQ(t.gpu_ops.size(), 1u);
  EXPECT_EQ(t.events_seen, 8u);
  size_t first_bad = doc.find("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"no dur\"");
  size_t first_stray = doc.find("7, \"stray\"");
  ASSERT_EQ(t.warnings.size(), 3u);
  EXPECT_EQ(t.warnings[0],
            "t.json: skipped 5 events with a missing or malformed ts/dur (first at byte " +
                std::to_string(first_bad) + ")");
  EXPECT_EQ(t.warnings[1],
            "t.json: skipped 2 traceEvents elements that are not objects (first at byte " +
                std::to_string(first_stray) + ")");
  EXPECT_EQ(t.warnings[2], "t.json: ignored 1 events of unrecognised categories (mystery)");
}

TEST(KinetoReaderTest, NotATrace) {
  EXPECT_EQ(ParseError(""), "t.json: empty file, not a trace");
  EXPECT_EQ(ParseError("  hello"),
            "t.json: byte 2: expected '{' or '[' at the start of a trace (not a JSON trace)");
  EXPECT_EQ(ParseError("42"),
            "t.json: byte 0: expected '{' or '[' at the start of a trace (not a JSON trace)");
  EXPECT_EQ(ParseError(R"js({"schemaVersion": 1})js"),
            "t.json: no traceEvents array at the top level");
  EXPECT_EQ(ParseError(R"js([1, 2, "a"])js"),
            "t.json: traceEvents holds 3 element(s) and none is an event object: not a trace");
  EXPECT_EQ(ParseError(R"js({"traceEvents": {}})js"),
            "t.json: byte 16: traceEvents is not an array");
  EXPECT_EQ(ParseError(R"js({"a": 1 "traceEvents": []})js"),
            "t.json: byte 8: expected ',' or '}' after an object member");
  EXPECT_EQ(ParseError(R"js({"traceEvents": [{"ph": "X" "cat": "kernel"}]})js"),
            "t.json: byte 28: expected ',' or '}' after an object member");
  // Garbage after complete events is damage, not a non-trace: those events are kept.
  RankTrace damaged = MustParse(R"js({"traceEvents": [{"ph": "X"} {"ph": "X"}]})js");
  EXPECT_TRUE(damaged.truncated);
  EXPECT_EQ(damaged.events_seen, 1u);
  ASSERT_EQ(damaged.warnings.size(), 1u);
  EXPECT_EQ(damaged.warnings[0],
            "t.json: input is unreadable from byte 29 inside traceEvents (byte 29: expected ',' or "
            "']' after an array element); analysed the 1 complete events before it");
  EXPECT_EQ(ParseError("{\"traceEvents\": [" + std::string(100000, '[')),
            "t.json: byte 529: nesting deeper than 512 levels");
}

TEST(KinetoReaderTest, TrailingDataIsAWarning) {
  RankTrace t = MustParse(R"js({"traceEvents": []} xyz)js");
  ASSERT_EQ(t.warnings.size(), 1u);
  EXPECT_EQ(t.warnings[0], "t.json: byte 20: ignored data after the end of the JSON document");
}

TEST(KinetoReaderTest, TruncatedInsideEventsKeepsCompleteEvents) {
  std::string doc = kCurrent;
  size_t cut = doc.find("{\"ph\": \"X\", \"cat\": \"gpu_memset\"") + 20;
  Result<RankTrace> r = ParseKinetoTrace(std::string_view(doc).substr(0, cut), "t.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->truncated);
  EXPECT_EQ(r->events_seen, 6u);  // step, cpu_op, launch, flow, kernel, memcpy
  EXPECT_EQ(r->gpu_ops.size(), 2u);
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0], "t.json: input ends at byte " + std::to_string(cut) +
                                " inside traceEvents; analysed the 6 complete events before it");
}

TEST(KinetoReaderTest, TruncatedBeforeEventsIsAnError) {
  std::string doc = kCurrent;
  size_t cut = doc.find("traceEvents") - 3;
  EXPECT_EQ(ParseError(doc.substr(0, cut)),
            "t.json: input ends at byte " + std::to_string(cut) + " before traceEvents");
}

TEST(KinetoReaderTest, TruncatedAfterEventsKeepsAll) {
  std::string doc = kCurrent;
  size_t cut = doc.find("\"traceName\"") + 5;
  Result<RankTrace> r = ParseKinetoTrace(std::string_view(doc).substr(0, cut), "t.json");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->truncated);
  EXPECT_EQ(r->events_seen, 13u);
  EXPECT_EQ(r->warnings[0], "t.json: input ends at byte " + std::to_string(cut) +
                                " after traceEvents; analysed all 13 events");
}

TEST(KinetoReaderTest, TruncationAtEveryByteNeverCrashes) {
  const std::string doc = kCurrent;
  uint64_t previous_events = 0;
  for (size_t cut = 0; cut < doc.size(); ++cut) {
    Result<RankTrace> r = ParseKinetoTrace(std::string_view(doc).substr(0, cut), "t.json");
    if (r.ok()) {
      // Only the final whitespace-free '}' is missing at worst; everything shorter is truncated.
      EXPECT_TRUE(r->truncated) << cut;
      EXPECT_GE(r->events_seen, previous_events) << cut;
      previous_events = r->events_seen;
      EXPECT_EQ(r->warnings.back().rfind("t.json: input ends at byte " + std::to_string(cut), 0),
                0u)
          << r->warnings.back();
    } else {
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput) << cut;
      EXPECT_NE(r.status().message().find("t.json: "), std::string::npos);
    }
  }
  EXPECT_EQ(previous_events, 13u);
}

TEST(KinetoReaderTest, MutatedDocumentsNeverCrash) {
  // Deterministic mutations (a fixed linear congruential sequence, Numerical Recipes constants):
  // every result is a trace or an InvalidInput error naming the file.
  const std::string doc = kCurrent;
  const std::string alphabet = "{}[]\",:0123456789.eE-+tfnu\\ \x01\xff";
  uint32_t state = 12345;
  auto next = [&state]() {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  for (int i = 0; i < 3000; ++i) {
    std::string m = doc;
    int edits = 1 + next() % 4;
    for (int e = 0; e < edits; ++e) {
      size_t at = next() % m.size();
      char c = alphabet[next() % alphabet.size()];
      switch (next() % 3) {
        case 0:
          m[at] = c;
          break;
        case 1:
          m.insert(m.begin() + at, c);
          break;
        default:
          m.erase(at, 1 + next() % 8);
          break;
      }
      if (m.empty()) m = "x";
    }
    Result<RankTrace> r = ParseKinetoTrace(m, "t.json");
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
      EXPECT_EQ(r.status().message().rfind("t.json: ", 0), 0u) << r.status().message();
    }
  }
}

// --- Files: gzip and plain, truncated and corrupt gzip. ---

// A path of this process's own: ctest runs tests as parallel processes.
std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("GPUVET_TEST_TMPDIR");
  std::string base = dir != nullptr ? dir : ::testing::TempDir();
  std::filesystem::create_directories(base);
  return base + "/" + std::to_string(::getpid()) + "-" + name;
}

std::string Gzip(const std::string& data) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, data.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream f(path, std::ios::binary);
  f << data;
}

// A trace with many kernels, large enough to span several small chunks.
std::string BigTrace(int kernels) {
  std::string doc = R"js({"distributedInfo": {"rank": 0}, "traceEvents": [)js";
  for (int i = 0; i < kernels; ++i) {
    if (i > 0) doc += ",\n";
    doc += R"js({"ph": "X", "cat": "kernel", "name": "kernel_)js" + std::to_string(i % 17) +
           R"js(", "ts": )js" + std::to_string(1000 + i) +
           R"js(.5, "dur": 0.25, "args": {"stream": 7, "correlation": )js" + std::to_string(i) +
           "}}";
  }
  return doc + "]}";
}

TEST(KinetoReaderTest, ReadsPlainAndGzipFilesInSmallChunks) {
  std::string doc = BigTrace(5000);
  std::string plain = TempPath("kineto_big.json");
  std::string gz = TempPath("kineto_big.json.gz");
  WriteFile(plain, doc);
  WriteFile(gz, Gzip(doc));
  for (const std::string& path : {plain, gz}) {
    Result<RankTrace> r = ReadKinetoTrace(path, KinetoOptions{.chunk_bytes = 4096});
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->gpu_ops.size(), 5000u);
    EXPECT_EQ(r->names.size(), 18u);  // "" + 17 distinct kernel names
    EXPECT_EQ(r->gpu_ops[4999].start_ns, 5999500);
    EXPECT_EQ(r->input_bytes, doc.size());
    EXPECT_EQ(r->source, path);
    EXPECT_TRUE(r->warnings.empty());
  }
  std::remove(plain.c_str());
  std::remove(gz.c_str());
}

// Issue 16: gzip data followed by junk was read as a complete trace without a word.
TEST(KinetoReaderTest, JunkAfterGzipDataIsAWarningWithItsOffset) {
  std::string doc = BigTrace(2000);
  std::string compressed = Gzip(doc);
  std::string path = TempPath("kineto_junk.json.gz");
  WriteFile(path, compressed + "PK\x03\x04 not gzip at all");
  Result<RankTrace> r = ReadKinetoTrace(path, KinetoOptions{.chunk_bytes = 4096});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->truncated);
  EXPECT_EQ(r->gpu_ops.size(), 2000u);
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0], path +
                                ": ignored 20 byte(s) after the end of the gzip data at "
                                "compressed byte " +
                                std::to_string(compressed.size()) + " (not another gzip member)");
  std::remove(path.c_str());
}

TEST(KinetoReaderTest, TruncatedAndCorruptGzipFiles) {
  std::string doc = BigTrace(20000);
  std::string compressed = Gzip(doc);
  std::string path = TempPath("kineto_cut.json.gz");

  WriteFile(path, compressed.substr(0, compressed.size() / 2));
  Result<RankTrace> cut = ReadKinetoTrace(path, KinetoOptions{.chunk_bytes = 4096});
  ASSERT_TRUE(cut.ok()) << cut.status().message();
  EXPECT_TRUE(cut->truncated);
  EXPECT_GT(cut->gpu_ops.size(), 1000u);
  EXPECT_LT(cut->gpu_ops.size(), 20000u);
  ASSERT_EQ(cut->warnings.size(), 1u);
  EXPECT_NE(cut->warnings[0].find("inside traceEvents (gzip data ends early at compressed byte " +
                                  std::to_string(compressed.size() / 2) + "); analysed the "),
            std::string::npos)
      << cut->warnings[0];

  std::string corrupt = compressed;
  for (size_t i = corrupt.size() / 2; i < corrupt.size() / 2 + 200; ++i) corrupt[i] = '\xff';
  WriteFile(path, corrupt);
  Result<RankTrace> bad = ReadKinetoTrace(path, KinetoOptions{.chunk_bytes = 4096});
  ASSERT_TRUE(bad.ok()) << bad.status().message();
  EXPECT_TRUE(bad->truncated);
  // zlib may emit garbage before it detects the damage; either way the events before it count.
  EXPECT_NE(bad->warnings[0].find(" traceEvents (gzip data corrupt at compressed byte "),
            std::string::npos)
      << bad->warnings[0];

  WriteFile(path, compressed.substr(0, 30));  // ends before traceEvents
  Result<RankTrace> early = ReadKinetoTrace(path);
  ASSERT_FALSE(early.ok());
  EXPECT_EQ(early.status().message().rfind(path + ": input ends at byte ", 0), 0u)
      << early.status().message();
  EXPECT_NE(early.status().message().find("before traceEvents"), std::string::npos);
  std::remove(path.c_str());
}

TEST(KinetoReaderTest, MissingFile) {
  Result<RankTrace> r = ReadKinetoTrace("/nonexistent/dir/trace.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
}

// --- The shared real traces. ---

std::string SharedTraces() { return std::string(GPUVET_SHARED_DATA_DIR) + "/traces/"; }

TEST(KinetoReaderTest, EverySharedTraceReads) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(SharedTraces())) GTEST_SKIP() << "no shared data at " << SharedTraces();
  int files = 0;
  for (const char* dir : {"hta", "kineto_tb_plugin"}) {
    if (!fs::is_directory(SharedTraces() + dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(SharedTraces() + dir)) {
      std::string path = entry.path().string();
      if (!entry.is_regular_file()) continue;
      if (!(path.ends_with(".json") || path.ends_with(".json.gz"))) continue;
      ++files;
      Result<RankTrace> r = ReadKinetoTrace(path);
      ASSERT_TRUE(r.ok()) << r.status().message();
      EXPECT_FALSE(r->truncated) << path;
      EXPECT_GT(r->events_seen, 0u) << path;
      for (const std::string& w : r->warnings) ADD_FAILURE() << w;
    }
  }
  EXPECT_GE(files, 20);
}

Result<RankTrace> ReadShared(const std::string& rel) {
  return ReadKinetoTrace(SharedTraces() + rel);
}

size_t Count(const RankTrace& t, GpuOpKind kind) {
  return std::count_if(t.gpu_ops.begin(), t.gpu_ops.end(),
                       [&](const GpuOp& op) { return op.kind == kind; });
}

TEST(KinetoReaderTest, SharedTraceCounts) {
  if (!std::filesystem::is_directory(SharedTraces())) {
    GTEST_SKIP() << "no shared data at " << SharedTraces();
  }
  // Counts computed independently with python3 json on the same files.
  Result<RankTrace> simple =
      ReadShared("hta/simple_add_a100/benchmark_result_493459_1694039959_trace.json.gz");
  ASSERT_TRUE(simple.ok()) << simple.status().message();
  EXPECT_EQ(Count(*simple, GpuOpKind::kKernel), 79u);
  EXPECT_EQ(Count(*simple, GpuOpKind::kMemcpy), 16u);
  EXPECT_EQ(Count(*simple, GpuOpKind::kMemset), 3u);
  EXPECT_EQ(simple->runtime.size(), 331u);
  EXPECT_EQ(simple->rank, 0);
  EXPECT_EQ(simple->device_type, "cuda");

  Result<RankTrace> nccl = ReadShared("hta/nccl_a100/nccl_data.json.gz");
  ASSERT_TRUE(nccl.ok()) << nccl.status().message();
  EXPECT_EQ(nccl->rank, 0);
  EXPECT_EQ(nccl->world_size, 2);
  EXPECT_EQ(Count(*nccl, GpuOpKind::kKernel), 2700u);
  EXPECT_EQ(Count(*nccl, GpuOpKind::kMemcpy), 960u);
  EXPECT_EQ(Count(*nccl, GpuOpKind::kMemset), 114u);
  EXPECT_EQ(nccl->runtime.size(), 8740u);
  EXPECT_EQ(nccl->steps.size(), 3u);
  EXPECT_EQ(nccl->annotations.size(), 69u);
  EXPECT_EQ(nccl->events_seen, 40573u);
  EXPECT_EQ(nccl->input_bytes, 9778890u);

  Result<RankTrace> bare =
      ReadShared("kineto_tb_plugin/resnet50_2020dec_num_workers_0/worker0.pt.trace.json.gz");
  ASSERT_TRUE(bare.ok()) << bare.status().message();
  EXPECT_EQ(bare->format, "kineto-json (bare list)");
  EXPECT_EQ(Count(*bare, GpuOpKind::kKernel), 9538u);
  EXPECT_EQ(Count(*bare, GpuOpKind::kMemcpy), 12u);
  EXPECT_EQ(Count(*bare, GpuOpKind::kMemset), 377u);
  EXPECT_EQ(bare->runtime.size(), 10800u);
  EXPECT_EQ(bare->steps.size(), 6u);
  EXPECT_EQ(bare->events_seen, 82276u);

  Result<RankTrace> amd = ReadShared("hta/amd_mi250/mi250_minitoy_train_ROCm6_2_kineto.json.gz");
  ASSERT_TRUE(amd.ok()) << amd.status().message();
  EXPECT_EQ(amd->device_type, "rocm");
  EXPECT_EQ(amd->gpu_ops.size(), 16u);
  EXPECT_EQ(amd->steps.size(), 2u);
  EXPECT_EQ(amd->annotations.size(), 2u);

  Result<RankTrace> cpu = ReadShared("hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz");
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  EXPECT_EQ(cpu->device_type, "");
  EXPECT_EQ(cpu->rank, 34);
  EXPECT_EQ(cpu->world_size, 300);

  Result<RankTrace> cupti =
      ReadShared("hta/cupti_profiler_a100/benchmark_result_924719_1679055439_trace.json.gz");
  ASSERT_TRUE(cupti.ok()) << cupti.status().message();
  EXPECT_TRUE(cupti->gpu_ops.empty());
  EXPECT_EQ(cupti->counter_ranges.size(), 77u);
  EXPECT_EQ(cupti->counter_values.size(), 693u);
  EXPECT_EQ(cupti->gpu_name, "NVIDIA A100-PG509-200");
}

}  // namespace
}  // namespace gpuvet
