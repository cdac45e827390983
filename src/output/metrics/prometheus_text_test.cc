// Exposition format: escaping, one HELP/TYPE block per family, number syntax, duplicate series.
#include "output/metrics/prometheus_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace gpuvet {
namespace {

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = 0; (pos = text.find(what, pos)) != std::string::npos; pos += what.size()) ++n;
  return n;
}

TEST(PrometheusText, EscapesLabelValues) {
  EXPECT_EQ(EscapeLabelValue(R"(a"b\c)"
                             "\n"
                             "d"),
            R"(a\"b\\c\nd)");
  EXPECT_EQ(EscapeLabelValue("plain 0000:3b:00.0"), "plain 0000:3b:00.0");
  // HELP escapes backslash and newline but leaves quotes alone.
  EXPECT_EQ(EscapeHelp("say \"x\"\\\nnext"), "say \"x\"\\\\\\nnext");
}

TEST(PrometheusText, WritesHelpAndTypeOncePerFamilyEvenWhenSamplesInterleave) {
  MetricSet set;
  set.Add("gpuvet_a_watts", "A.", MetricType::kGauge, {{"gpu", "0"}}, 1);
  set.Add("gpuvet_b_total", "B.", MetricType::kCounter, {{"gpu", "0"}}, 2);
  set.Add("gpuvet_a_watts", "A.", MetricType::kGauge, {{"gpu", "1"}}, 3);
  std::string text = set.Render();
  EXPECT_EQ(text,
            "# HELP gpuvet_a_watts A.\n"
            "# TYPE gpuvet_a_watts gauge\n"
            "gpuvet_a_watts{gpu=\"0\"} 1\n"
            "gpuvet_a_watts{gpu=\"1\"} 3\n"
            "# HELP gpuvet_b_total B.\n"
            "# TYPE gpuvet_b_total counter\n"
            "gpuvet_b_total{gpu=\"0\"} 2\n");
  EXPECT_EQ(Count(text, "# TYPE gpuvet_a_watts"), 1u);
}

TEST(PrometheusText, EscapesInsideSamples) {
  MetricSet set;
  set.Add("gpuvet_x", "Line one\nline two.", MetricType::kGauge, {{"name", "A \"B\"\n"}}, 1);
  EXPECT_EQ(set.Render(),
            "# HELP gpuvet_x Line one\\nline two.\n# TYPE gpuvet_x gauge\n"
            "gpuvet_x{name=\"A \\\"B\\\"\\n\"} 1\n");
}

TEST(PrometheusText, DropsDuplicateSeriesWhateverTheLabelOrder) {
  MetricSet set;
  EXPECT_TRUE(set.Add("m", "h", MetricType::kGauge, {{"a", "1"}, {"b", "2"}}, 1));
  EXPECT_FALSE(set.Add("m", "h", MetricType::kGauge, {{"b", "2"}, {"a", "1"}}, 5));
  EXPECT_TRUE(set.Add("m", "h", MetricType::kGauge, {{"a", "1"}, {"b", "3"}}, 1));
  EXPECT_EQ(set.families().front().samples.size(), 2u);
}

TEST(PrometheusText, EmptyFamiliesAreNotWritten) {
  MetricSet set;
  set.Family("gpuvet_empty", "Nothing.", MetricType::kGauge);
  EXPECT_EQ(set.Render(), "");
}

TEST(PrometheusText, FormatsNumbers) {
  EXPECT_EQ(FormatMetricValue(0), "0");
  EXPECT_EQ(FormatMetricValue(-3), "-3");
  EXPECT_EQ(FormatMetricValue(85520809984.0), "85520809984");
  EXPECT_EQ(FormatMetricValue(0.25), "0.25");
  EXPECT_EQ(FormatMetricValue(71.5), "71.5");
  EXPECT_EQ(FormatMetricValue(1e300), "1e+300");
  EXPECT_EQ(FormatMetricValue(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(FormatMetricValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatMetricValue(-std::numeric_limits<double>::infinity()), "-Inf");
}

}  // namespace
}  // namespace gpuvet
