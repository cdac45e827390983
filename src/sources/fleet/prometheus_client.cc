// Prometheus HTTP API client (see prometheus_client.h). Queries are POSTed as forms, as the API
// allows, so long PromQL never hits URL length limits.
#include "sources/fleet/prometheus_client.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "sources/fleet/prometheus_http.h"
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

// application/x-www-form-urlencoded: unreserved bytes as they are, everything else %XX.
std::string FormEncode(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

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
                                                                   double timeout_s,
                                                                   size_t max_bytes) {
  std::string_view u = url;
  size_t scheme_end = u.find("://");
  if (scheme_end == std::string_view::npos ||
      (u.substr(0, scheme_end) != "http" && u.substr(0, scheme_end) != "https")) {
    return InvalidInput(
        fmt::format("--prometheus {}: expected http://HOST:PORT or https://…", url));
  }
  const bool tls = u.substr(0, scheme_end) == "https";
  size_t path = u.find('/', scheme_end + 3);
  std::string_view authority =
      u.substr(scheme_end + 3,
               path == std::string_view::npos ? std::string_view::npos : path - scheme_end - 3);
  if (authority.empty()) return InvalidInput(fmt::format("--prometheus {}: no host", url));
  std::string_view host = authority;
  int port = tls ? 443 : 80;
  std::string_view port_text;
  if (authority.front() == '[') {  // [v6]:port
    size_t close = authority.find(']');
    if (close == std::string_view::npos) {
      return InvalidInput(fmt::format("--prometheus {}: unclosed [ in the host", url));
    }
    host = authority.substr(1, close - 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':')
        return InvalidInput(fmt::format("--prometheus {}: bad host", url));
      port_text = authority.substr(close + 2);
    }
  } else if (size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port_text = authority.substr(colon + 1);
  }
  if (!port_text.empty() || (authority.back() == ':')) {
    auto p = ParseInt(port_text);
    if (!p || *p < 1 || *p > 65535) {
      return InvalidInput(fmt::format("--prometheus {}: bad port '{}'", url, port_text));
    }
    port = static_cast<int>(*p);
  }
  if (host.empty()) return InvalidInput(fmt::format("--prometheus {}: no host", url));
  std::unique_ptr<PrometheusClient> c(new PrometheusClient());
  c->url_ = url;
  c->tls_ = tls;
  c->host_ = std::string(host);
  c->port_ = port;
  if (path != std::string_view::npos) c->prefix_ = std::string(u.substr(path));
  while (!c->prefix_.empty() && c->prefix_.back() == '/') c->prefix_.pop_back();
  c->timeout_s_ = timeout_s;
  c->max_bytes_ = max_bytes;
  return c;
}

PrometheusClient::~PrometheusClient() = default;

Result<std::vector<PromSeries>> PrometheusClient::Post(
    const std::string& endpoint, const std::vector<std::pair<std::string, std::string>>& form,
    const std::string& promql) {
  HttpCall call;
  call.tls = tls_;
  call.host = host_;
  call.port = port_;
  call.method = "POST";
  call.path = prefix_ + endpoint;
  call.content_type = "application/x-www-form-urlencoded";
  for (const auto& [k, v] : form) {
    if (!call.body.empty()) call.body += '&';
    call.body += FormEncode(k) + "=" + FormEncode(v);
  }
  call.timeout_s = timeout_s_;
  call.max_bytes = max_bytes_;
  const std::string what = fmt::format("{}{} ({})", url_, endpoint, promql);
  Result<HttpAnswer> res = HttpExchange(call);
  if (!res.ok()) return Unavailable(fmt::format("{}: {}", what, res.status().message()));
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
