// Prometheus text exposition writer (format 0.0.4, as documented in prometheus/docs
// "exposition_formats.md"): escaping rules, number syntax and the one-block-per-family layout.
#include "output/metrics/prometheus_text.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "util/utf8.h"

namespace gpuvet {

namespace {

std::string_view TypeName(MetricType t) { return t == MetricType::kCounter ? "counter" : "gauge"; }

bool SameLabels(const MetricLabels& a, const MetricLabels& b) {
  if (a.size() != b.size()) return false;
  std::set<std::pair<std::string, std::string>> sa(a.begin(), a.end());
  for (const auto& kv : b) {
    if (!sa.count(kv)) return false;
  }
  return true;
}

}  // namespace

MetricFamily& MetricSet::Family(std::string_view name, std::string_view help, MetricType type) {
  auto it = index_.find(std::string(name));
  if (it != index_.end()) return families_[it->second];
  index_.emplace(std::string(name), families_.size());
  families_.push_back(MetricFamily{std::string(name), std::string(help), type, {}});
  return families_.back();
}

bool MetricSet::Add(std::string_view name, std::string_view help, MetricType type,
                    MetricLabels labels, double value) {
  MetricFamily& f = Family(name, help, type);
  // Families hold at most a few hundred series (8 GPUs × a few labels), so a linear scan is
  // cheaper than hashing label sets.
  for (const MetricSample& s : f.samples) {
    if (SameLabels(s.labels, labels)) return false;
  }
  f.samples.push_back(MetricSample{std::move(labels), value});
  return true;
}

void MetricSet::AppendTo(std::string& out) const {
  for (const MetricFamily& f : families_) AppendFamily(out, f);
}

std::string MetricSet::Render() const {
  std::string out;
  AppendTo(out);
  return out;
}

void AppendFamily(std::string& out, const MetricFamily& family) {
  if (family.samples.empty()) return;
  fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} {}\n", family.name,
                 EscapeHelp(family.help), family.name, TypeName(family.type));
  for (const MetricSample& s : family.samples) {
    out += family.name;
    if (!s.labels.empty()) {
      out.push_back('{');
      for (size_t i = 0; i < s.labels.size(); ++i) {
        if (i > 0) out.push_back(',');
        out += s.labels[i].first;
        out += "=\"";
        out += EscapeLabelValue(s.labels[i].second);
        out.push_back('"');
      }
      out.push_back('}');
    }
    out.push_back(' ');
    out += FormatMetricValue(s.value);
    out.push_back('\n');
  }
}

std::string EscapeLabelValue(std::string_view raw) {
  // The exposition format is UTF-8: a label value from input (a kernel log's process name, a
  // capture's product name) with invalid bytes is made valid here, at the one string boundary.
  const std::string value = MakeValidUtf8(raw);
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string EscapeHelp(std::string_view raw) {
  const std::string help = MakeValidUtf8(raw);
  std::string out;
  out.reserve(help.size());
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string FormatMetricValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // Integers up to 2^53 are exact in a double; print them without an exponent or fraction.
  if (value == std::floor(value) && std::fabs(value) < 9007199254740992.0) {
    return fmt::format("{}", static_cast<long long>(value));
  }
  return fmt::format("{}", value);  // shortest round-trip representation
}

}  // namespace gpuvet
