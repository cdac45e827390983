// Tests of the event-to-model rules: which events are kept, thread ids, graph launches, warnings.
#include "sources/trace/kineto_builder.h"

#include <gtest/gtest.h>

namespace gpuvet {
namespace {

KinetoEvent Complete(KinetoCategory cat, std::string name, int64_t ts_ns, int64_t dur_ns) {
  KinetoEvent ev;
  ev.ph = 'X';
  ev.has_cat = true;
  ev.cat = cat;
  ev.has_name = true;
  ev.name = std::move(name);
  ev.ts_ns = ts_ns;
  ev.dur_ns = dur_ns;
  return ev;
}

TEST(KinetoBuilderTest, ThreadIds) {
  EXPECT_EQ(FoldThreadId(2919752), 2919752);
  EXPECT_EQ(FoldThreadId(0), 0);
  EXPECT_GE(FoldThreadId(4093687616), 0);
  EXPECT_EQ(FoldThreadId(4093687616), FoldThreadId(4093687616));
  EXPECT_NE(FoldThreadId(4093687616), FoldThreadId(4093687617));
  EXPECT_GE(FoldThreadId(-5), 0);
  // FNV-1a of "a" is 0xe40c292c; the top bit is cleared.
  EXPECT_EQ(HashThreadName("a"), 0x640c292c);
  EXPECT_GE(HashThreadName("main thread"), 0);
}

TEST(KinetoBuilderTest, KeepsOnlyCompleteEventsOfModelledKinds) {
  RankTrace trace;
  KinetoTraceBuilder b(&trace, "f.json");
  b.Add(Complete(KinetoCategory::kKernel, "k", 30, 1), 0);
  KinetoEvent instant = Complete(KinetoCategory::kKernel, "k", 10, 1);
  instant.ph = 'i';
  b.Add(instant, 10);
  b.Add(Complete(KinetoCategory::kHostOp, "aten::mm", 5, 1), 20);
  b.Add(Complete(KinetoCategory::kHostOp, "ProfilerStep#3", 5, 100), 30);
  b.Add(Complete(KinetoCategory::kIgnored, "ac2g", 5, 1), 40);
  b.Add(Complete(KinetoCategory::kGpuUserAnnotation, "ProfilerStep#3", 6, 90), 50);
  b.Add(Complete(KinetoCategory::kGpuUserAnnotation, "## fwd ##", 7, 9), 60);
  KinetoEvent launch = Complete(KinetoCategory::kRuntime, "cudaGraphLaunch", 1, 2);
  launch.correlation = 77;
  b.Add(launch, 70);
  KinetoEvent graph_kernel = Complete(KinetoCategory::kKernel, "k", 20, 1);
  graph_kernel.correlation = 77;
  b.Add(graph_kernel, 80);
  b.Finish();
  ASSERT_EQ(trace.gpu_ops.size(), 2u);
  EXPECT_EQ(trace.gpu_ops[0].start_ns, 20);  // sorted
  EXPECT_TRUE(trace.gpu_ops[0].graph_launched);
  EXPECT_FALSE(trace.gpu_ops[1].graph_launched);
  EXPECT_EQ(trace.gpu_ops[0].name, trace.gpu_ops[1].name);
  EXPECT_EQ(trace.steps.size(), 1u);
  EXPECT_EQ(trace.annotations.size(), 1u);
  EXPECT_EQ(trace.runtime.size(), 1u);
  EXPECT_EQ(trace.device_type, "cuda");
  EXPECT_TRUE(trace.warnings.empty());
}

TEST(KinetoBuilderTest, AggregatedWarnings) {
  RankTrace trace;
  KinetoTraceBuilder b(&trace, "f.json");
  KinetoEvent no_dur = Complete(KinetoCategory::kKernel, "k", 1, 1);
  no_dur.dur_ns.reset();
  b.Add(no_dur, 100);
  b.Add(no_dur, 200);
  b.AddNonObject(300);
  KinetoEvent odd = Complete(KinetoCategory::kUnknown, "x", 1, 1);
  odd.cat_text = "weird";
  b.Add(odd, 400);
  b.Finish();
  EXPECT_TRUE(trace.gpu_ops.empty());
  EXPECT_EQ(trace.device_type, "");
  ASSERT_EQ(trace.warnings.size(), 3u);
  EXPECT_EQ(trace.warnings[0],
            "f.json: skipped 2 events with a missing or malformed ts/dur (first at byte 100)");
  EXPECT_EQ(trace.warnings[1],
            "f.json: skipped 1 traceEvents elements that are not objects (first at byte 300)");
  EXPECT_EQ(trace.warnings[2], "f.json: ignored 1 events of unrecognised categories (weird)");
}

}  // namespace
}  // namespace gpuvet
