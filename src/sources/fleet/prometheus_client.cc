// Prometheus HTTP API client (see prometheus_client.h). Queries are POSTed as forms, as the API
// allows, so long PromQL never hits URL length limits.
#include "sources/fleet/prometheus_client.h"

#include <fmt/format.h>
#include <httplib.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "util/strings.h"

namespace gpuvet {

using nlohmann::json;

std::string PromSeries::Label(const std::string& name) const {
  auto it = labels.find(name);
  return it == labels.end() ? "" : it->second;
}

namespace {

// A [time, "value"] pair; nullopt for a malformed or non-finite one.
std::optional<TimedValue> ParsePoint(const json& p) {
  if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_string()) {
    return std::nullopt;
  }
  std::optional<double> v = ParseDouble(p[1].get<std::string>());
  if (!v || !std::isfinite(*v)) return std::nullopt;
  return TimedValue{p[0].get<double>(), *v};
}

std::string FormatTime(double t) { return fmt::format("{:.3f}", t); }

}  // namespace

Result<std::vector<PromSeries>> ParsePromResponse(std::string_view body) {
  json doc;
  try {
    doc = json::parse(body);
  } catch (const json::parse_error& e) {
    return InvalidInput(fmt::format("answer is not JSON (byte {})", e.byte));
  } catch (const json::out_of_range& e) {
    // 1e999999: the parser refuses a number no double holds.
    return InvalidInput(fmt::format(
        "answer holds a number that does not fit: {}",
        std::string(std::string_view(e.what()).substr(std::string_view(e.what()).find("] ") + 2))));
  }
  if (!doc.is_object() || !doc.contains("status") || !doc["status"].is_string()) {
    return InvalidInput("answer has no \"status\"");
  }
  if (doc["status"] != "success") {
    std::string type = doc.value("errorType", std::string("unknown"));
    std::string error = doc.value("error", std::string("no message"));
    return Unavailable(fmt::format("Prometheus answered status \"{}\" ({}): {}",
                                   doc["status"].get<std::string>(), type, error));
  }
  if (!doc.contains("data") || !doc["data"].is_object()) return InvalidInput("answer has no data");
  const json& data = doc["data"];
  const std::string type = data.value("resultType", std::string());
  if (!data.contains("result")) return InvalidInput("answer has no data.result");
  const json& result = data["result"];
  std::vector<PromSeries> out;
  if (type == "scalar") {
    PromSeries s;
    if (auto p = ParsePoint(result)) s.samples.push_back(*p);
    out.push_back(std::move(s));
    return out;
  }
  if ((type != "vector" && type != "matrix") || !result.is_array()) {
    return InvalidInput(fmt::format("unexpected resultType \"{}\"", type));
  }
  for (const json& r : result) {
    if (!r.is_object()) return InvalidInput("a result entry is not an object");
    PromSeries s;
    if (r.contains("metric") && r["metric"].is_object()) {
      for (auto it = r["metric"].begin(); it != r["metric"].end(); ++it) {
        if (it.value().is_string()) s.labels[it.key()] = it.value().get<std::string>();
      }
    }
    if (type == "vector") {
      if (!r.contains("value")) return InvalidInput("a vector entry has no value");
      if (auto p = ParsePoint(r["value"])) s.samples.push_back(*p);
    } else {
      if (!r.contains("values") || !r["values"].is_array()) {
        return InvalidInput("a matrix entry has no values");
      }
      for (const json& v : r["values"]) {
        if (auto p = ParsePoint(v)) s.samples.push_back(*p);
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

Result<std::unique_ptr<PrometheusClient>> PrometheusClient::Create(const std::string& url,
                                                                   double timeout_s) {
  std::string_view u = url;
  size_t scheme_end = u.find("://");
  if (scheme_end == std::string_view::npos ||
      (u.substr(0, scheme_end) != "http" && u.substr(0, scheme_end) != "https")) {
    return InvalidInput(
        fmt::format("--prometheus {}: expected http://HOST:PORT or https://…", url));
  }
  size_t path = u.find('/', scheme_end + 3);
  std::string_view host =
      u.substr(scheme_end + 3,
               path == std::string_view::npos ? std::string_view::npos : path - scheme_end - 3);
  if (host.empty()) return InvalidInput(fmt::format("--prometheus {}: no host", url));
  std::unique_ptr<PrometheusClient> c(new PrometheusClient());
  c->url_ = url;
  c->scheme_host_port_ = std::string(u.substr(0, scheme_end + 3)) + std::string(host);
  if (path != std::string_view::npos) c->prefix_ = std::string(u.substr(path));
  while (!c->prefix_.empty() && c->prefix_.back() == '/') c->prefix_.pop_back();
  c->timeout_s_ = timeout_s;
  return c;
}

PrometheusClient::~PrometheusClient() = default;

Result<std::vector<PromSeries>> PrometheusClient::Post(
    const std::string& endpoint, const std::vector<std::pair<std::string, std::string>>& form,
    const std::string& promql) {
  httplib::Client client(scheme_host_port_);
  const time_t sec = static_cast<time_t>(timeout_s_);
  const time_t usec = static_cast<time_t>((timeout_s_ - sec) * 1e6);
  client.set_connection_timeout(sec, usec);
  client.set_read_timeout(sec, usec);
  client.set_write_timeout(sec, usec);
  httplib::Params params;
  for (const auto& [k, v] : form) params.emplace(k, v);
  const std::string path = prefix_ + endpoint;
  httplib::Result res = client.Post(path, params);
  const std::string what = fmt::format("{}{} ({})", url_, endpoint, promql);
  if (!res) {
    const httplib::Error err = res.error();
    std::string why = httplib::to_string(err);
    if (err == httplib::Error::Connection)
      why = "cannot connect (connection refused or host unreachable)";
    if (err == httplib::Error::Read) why = fmt::format("no answer within {} s", timeout_s_);
    return Unavailable(fmt::format("{}: {}", what, why));
  }
  auto parsed = ParsePromResponse(res->body);
  if (res->status != 200) {
    // Prometheus puts its reason in a JSON error body (400 bad_data, 422 execution, 503 …).
    std::string detail = !parsed.ok() && parsed.status().code() == StatusCode::kUnavailable
                             ? parsed.status().message()
                             : std::string(Trim(res->body.substr(0, 200)));
    return Unavailable(fmt::format("{}: HTTP {}: {}", what, res->status, detail));
  }
  if (!parsed.ok()) return Status(parsed.status().code(), what + ": " + parsed.status().message());
  return parsed;
}

Result<std::vector<PromSeries>> PrometheusClient::Query(const std::string& promql, double time) {
  return Post("/api/v1/query", {{"query", promql}, {"time", FormatTime(time)}}, promql);
}

Result<std::vector<PromSeries>> PrometheusClient::QueryRange(const std::string& promql,
                                                             double start, double end,
                                                             double step_s) {
  return Post("/api/v1/query_range",
              {{"query", promql},
               {"start", FormatTime(start)},
               {"end", FormatTime(end)},
               {"step", fmt::format("{:.3f}", step_s)}},
              promql);
}

}  // namespace gpuvet
