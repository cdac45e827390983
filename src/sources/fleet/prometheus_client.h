// A small client of the Prometheus HTTP API (/api/v1/query, /api/v1/query_range) with its own
// HTTP/1.1 over sockets (prometheus_http.*): one deadline for the whole request (connect, send,
// every read; a server that drips one byte at a time cannot stretch it), a cap on the answer's
// size, and errors that say what went wrong: connection refused, time or size exceeded, an HTTP
// status, or Prometheus's own {"status":"error"} answer. https loads the system's OpenSSL
// (libssl.so.3) at run time, only when an https URL is used. The response parser is a separate
// pure function so tests feed it text.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/fleet.h"
#include "util/status.h"

namespace gpuvet {

// One series of a query answer: its labels (with __name__ when Prometheus keeps it) and samples
// in time order (one for an instant vector).
struct PromSeries {
  std::map<std::string, std::string> labels;
  std::vector<TimedValue> samples;

  // The label's value, "" when absent.
  std::string Label(const std::string& name) const;
};

// Parses a /api/v1/query or /api/v1/query_range JSON answer ("vector" or "matrix"; a "scalar" is
// one unlabelled series). InvalidInput for malformed JSON or an unexpected shape; Unavailable with
// Prometheus's errorType and error for "status": "error". NaN/Inf sample values are dropped.
Result<std::vector<PromSeries>> ParsePromResponse(std::string_view body);

class PrometheusClient {
 public:
  // `url` is "http://host:port" or "https://host:port", optionally with a path prefix
  // ("http://host/prometheus"). `timeout_s` bounds each request as a whole; an answer larger
  // than `max_bytes` (headers and body) is refused with an error naming the limit. InvalidInput
  // when it is not such a URL.
  static Result<std::unique_ptr<PrometheusClient>> Create(const std::string& url, double timeout_s,
                                                          size_t max_bytes = kDefaultMaxBytes);
  // The default answer cap: 128 MiB (a fleet of 10,000 nodes answers in a few MiB).
  static constexpr size_t kDefaultMaxBytes = size_t{128} << 20;
  ~PrometheusClient();

  // Instant query at unix time `time`.
  Result<std::vector<PromSeries>> Query(const std::string& promql, double time);

  // Range query over [start, end] every `step_s` seconds.
  Result<std::vector<PromSeries>> QueryRange(const std::string& promql, double start, double end,
                                             double step_s);

  const std::string& url() const { return url_; }

 private:
  PrometheusClient() = default;
  Result<std::vector<PromSeries>> Post(const std::string& endpoint,
                                       const std::vector<std::pair<std::string, std::string>>& form,
                                       const std::string& promql);

  std::string url_;
  bool tls_ = false;
  std::string host_;
  int port_ = 80;
  std::string prefix_;
  double timeout_s_ = 10;
  size_t max_bytes_ = kDefaultMaxBytes;
};

}  // namespace gpuvet
