// The one gpuvet.bench/v1 reader: what the lenient view keeps of a malformed document (the
// fleet), what the strict view refuses and how it says so (--baseline), and outcomes by name.
#include "core/bench_document.h"

#include <gtest/gtest.h>

namespace gpuvet {
namespace {

TEST(BenchDocumentTest, ReadsAWellFormedDocument) {
  Result<BenchDocument> doc = ReadBenchDocument(R"({"schema": "gpuvet.bench/v1",
      "run": {"mode": "quick"},
      "gpus": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-1",
                "pci_bus_id": "0000:1b:00.0", "vbios_version": "96.00",
                "pcie": {"gen_max": 5, "width_max": 16}}],
      "measurements": [
        {"id": "h2d_pinned", "gpu": 0, "peer": -1, "median": 52.5, "unit": "GB/s",
         "numa_node": 0, "status": "measured", "skipped": null},
        {"id": "bf16_tensor", "gpu": 0, "peer": -1, "median": null, "status": "unavailable",
         "skipped": "no lib"},
        {"id": "d2d_copy_engine", "gpu": 0, "peer": -1, "median": null, "status": "abandoned"}]})");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  EXPECT_EQ(doc->problem, "");
  EXPECT_EQ(doc->mode, "quick");
  ASSERT_EQ(doc->gpus.size(), 1u);
  EXPECT_EQ(doc->gpus[0].index, 0);
  EXPECT_TRUE(doc->gpus[0].index_is_integer);
  EXPECT_EQ(doc->gpus[0].pci_bus_id, "0000:1b:00.0");
  EXPECT_EQ(*doc->gpus[0].pcie_width_max, 16);
  ASSERT_EQ(doc->measurements.size(), 3u);
  const BenchDocumentEntry& h2d = doc->measurements[0];
  EXPECT_TRUE(h2d.has_median);
  EXPECT_FALSE(h2d.skipped_set);
  EXPECT_EQ(h2d.m.numa_node, 0);
  EXPECT_DOUBLE_EQ(h2d.m.median, 52.5);
  EXPECT_EQ(h2d.m.outcome, BenchOutcome::kMeasured);
  EXPECT_EQ(doc->measurements[1].m.outcome, BenchOutcome::kUnavailable);
  EXPECT_TRUE(doc->measurements[1].skipped_set);
  EXPECT_EQ(doc->measurements[2].m.outcome, BenchOutcome::kAbandoned);
  EXPECT_EQ(doc->measurements[2].m.skipped, "not measured");
}

TEST(BenchDocumentTest, LenientViewKeepsWhatIsUsable) {
  Result<BenchDocument> doc = ReadBenchDocument(R"({"schema": "gpuvet.bench/v1",
      "gpus": [{"index": 1e300, "pcie": {"gen_max": "five"}}, 7, {"index": 2.0}],
      "measurements": [{"id": "h2d_pinned", "gpu": -1e300, "peer": 0.5, "median": 1},
                       "junk", {"id": "x", "gpu": 3000000000, "peer": 2, "median": 2}]})");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  EXPECT_EQ(doc->problem, "measurements[0]: \"gpu\" must be an integer");
  ASSERT_EQ(doc->gpus.size(), 3u);
  EXPECT_EQ(doc->gpus[0].index, -1);
  EXPECT_FALSE(doc->gpus[0].index_is_integer);
  EXPECT_FALSE(doc->gpus[0].pcie_gen_max.has_value());
  EXPECT_EQ(doc->gpus[1].index, -1);  // not an object
  EXPECT_EQ(doc->gpus[2].index, 2);   // integral, though not a JSON integer
  EXPECT_FALSE(doc->gpus[2].index_is_integer);
  ASSERT_EQ(doc->measurements.size(), 3u);
  EXPECT_EQ(doc->measurements[0].m.gpu, -1);
  EXPECT_EQ(doc->measurements[0].m.peer, -1);
  EXPECT_EQ(doc->measurements[1].problem, "must be an object");
  EXPECT_EQ(doc->measurements[1].m.id, "");
  EXPECT_EQ(doc->measurements[2].m.gpu, -1);  // past int range
  EXPECT_EQ(doc->measurements[2].problem, "\"gpu\" must be an integer");

  Result<BenchDocument> no_list = ReadBenchDocument(R"({"schema": "gpuvet.bench/v1"})");
  ASSERT_TRUE(no_list.ok());
  EXPECT_EQ(no_list->problem, "\"measurements\" must be an array");
  EXPECT_TRUE(no_list->measurements.empty());
}

TEST(BenchDocumentTest, RefusesWhatIsNotABenchReport) {
  Result<BenchDocument> garbled = ReadBenchDocument("{\"schema\": ");
  ASSERT_FALSE(garbled.ok());
  EXPECT_EQ(garbled.status().message().rfind("not JSON at byte 12: ", 0), 0u)
      << garbled.status().message();
  for (const char* other : {R"({"schema": "gpuvet.check/v1"})", "[]", "{}", "5"}) {
    Result<BenchDocument> r = ReadBenchDocument(other);
    ASSERT_FALSE(r.ok()) << other;
    EXPECT_EQ(r.status().message(),
              "not a gpuvet bench report (expected \"schema\": \"gpuvet.bench/v1\"; write one "
              "with `gpuvet bench --format json`)");
  }
}

TEST(BenchDocumentTest, StrictBaselineNamesTheFileAndTheEntry) {
  const struct {
    const char* entry;
    const char* why;
  } kCases[] = {
      {R"("x")", "measurements[0]: must be an object"},
      {R"({"gpu": 0, "peer": -1, "median": 1})", "measurements[0]: \"id\" must be a string"},
      {R"({"id": "a", "gpu": 0.0, "peer": -1, "median": 1})",
       "measurements[0]: \"gpu\" must be an integer"},
      {R"({"id": "a", "gpu": 0, "median": 1})", "measurements[0]: \"peer\" must be an integer"},
      {R"({"id": "a", "gpu": 0, "peer": -1})", "measurements[0]: \"median\" must be a number"},
  };
  for (const auto& c : kCases) {
    Result<BenchBaseline> b = ParseBenchBaseline(
        std::string(R"({"schema": "gpuvet.bench/v1", "measurements": [)") + c.entry + "]}",
        "b.json");
    ASSERT_FALSE(b.ok()) << c.entry;
    EXPECT_EQ(b.status().message(), std::string("b.json: ") + c.why);
  }
  // Not measured needs no median.
  Result<BenchBaseline> failed = ParseBenchBaseline(
      R"({"schema": "gpuvet.bench/v1", "gpus": [{"index": 0, "pci_bus_id": ""},
          {"index": 1, "pci_bus_id": "0000:3b:00.0"}, {"index": 2.0, "pci_bus_id": "x"}],
          "measurements": [{"id": "a", "gpu": 1, "peer": -1, "status": "failed"}]})",
      "b.json");
  ASSERT_TRUE(failed.ok()) << failed.status().message();
  ASSERT_EQ(failed->bus_ids.size(), 1u);  // only an integer index with a bus id
  EXPECT_EQ(failed->bus_ids[0], (std::pair<int, std::string>{1, "0000:3b:00.0"}));
  EXPECT_EQ(failed->measurements[0].outcome, BenchOutcome::kFailed);
  EXPECT_EQ(failed->measurements[0].skipped, "not measured");
  EXPECT_EQ(ParseBenchBaseline("", "e.json").status().message().rfind("e.json: not JSON", 0), 0u);
}

TEST(BenchDocumentTest, OutcomeNamesRoundTrip) {
  for (BenchOutcome o : {BenchOutcome::kMeasured, BenchOutcome::kUnavailable, BenchOutcome::kFailed,
                         BenchOutcome::kIncomplete, BenchOutcome::kAbandoned}) {
    Result<BenchDocument> doc = ReadBenchDocument(
        std::string(R"({"schema": "gpuvet.bench/v1", "measurements": [{"status": ")") +
        BenchOutcomeName(o) + "\"}]}");
    ASSERT_TRUE(doc.ok());
    EXPECT_EQ(doc->measurements[0].m.outcome, o) << BenchOutcomeName(o);
  }
  Result<BenchDocument> unknown = ReadBenchDocument(
      R"({"schema": "gpuvet.bench/v1", "measurements": [{"status": "exploded"}]})");
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(unknown->measurements[0].m.outcome, BenchOutcome::kFailed);
}

}  // namespace
}  // namespace gpuvet
