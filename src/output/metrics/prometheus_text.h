// Prometheus text exposition format 0.0.4: metric families with HELP and TYPE written once each,
// label values escaped, values in the format's number syntax. A MetricSet collects samples in
// any order and writes each family in one block, which the format requires.
#pragma once

#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gpuvet {

enum class MetricType { kGauge, kCounter };

// Label name/value pairs of one sample, in the order they are written.
using MetricLabels = std::vector<std::pair<std::string, std::string>>;

struct MetricSample {
  MetricLabels labels;
  double value = 0;
};

struct MetricFamily {
  std::string name;  // "gpuvet_gpu_power_watts"; a counter's name ends in "_total"
  std::string help;
  MetricType type = MetricType::kGauge;
  std::vector<MetricSample> samples;
};

// Families in first-use order. Adding a sample whose label set is already present in the family
// replaces nothing and is dropped (the format forbids duplicate series), so callers that can
// produce duplicates must merge them first. Thread-compatible.
class MetricSet {
 public:
  // The family `name`, created with `help` and `type` on first use (later calls return it as is).
  MetricFamily& Family(std::string_view name, std::string_view help, MetricType type);

  // Adds one sample to Family(name, help, type). Returns false when the series already exists.
  bool Add(std::string_view name, std::string_view help, MetricType type, MetricLabels labels,
           double value);

  // Appends every non-empty family as "# HELP", "# TYPE" and one line per sample.
  void AppendTo(std::string& out) const;
  std::string Render() const;

  const std::deque<MetricFamily>& families() const { return families_; }

 private:
  std::deque<MetricFamily> families_;  // deque: references stay valid as families are added
  std::unordered_map<std::string, size_t> index_;
};

// Appends one family (nothing when it has no samples).
void AppendFamily(std::string& out, const MetricFamily& family);

// Label value escaping: backslash, double quote and newline become \\, \" and \n.
std::string EscapeLabelValue(std::string_view value);

// HELP text escaping: backslash and newline become \\ and \n.
std::string EscapeHelp(std::string_view help);

// A sample value: integers without a fraction ("42", "-1"), others with the shortest text that
// reads back to the same double ("0.25"), and "NaN", "+Inf", "-Inf".
std::string FormatMetricValue(double value);

}  // namespace gpuvet
