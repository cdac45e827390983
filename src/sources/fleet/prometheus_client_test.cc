// Tests for the Prometheus API client: the response parser on every result type and error
// shape, and the client against a real in-process HTTP server (cpp-httplib) for success,
// Prometheus errors, HTTP errors, a refused connection and a server that does not answer.
#include "sources/fleet/prometheus_client.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <thread>

namespace gpuvet {
namespace {

TEST(PromResponseTest, VectorAndMatrix) {
  auto v = ParsePromResponse(R"({"status":"success","data":{"resultType":"vector","result":[
      {"metric":{"__name__":"up","instance":"a:1"},"value":[1700000000.5,"1"]},
      {"metric":{"instance":"b:1"},"value":[1700000000.5,"NaN"]}]}})");
  ASSERT_TRUE(v.ok()) << v.status().message();
  ASSERT_EQ(v->size(), 2u);
  EXPECT_EQ((*v)[0].Label("instance"), "a:1");
  EXPECT_EQ((*v)[0].Label("missing"), "");
  ASSERT_EQ((*v)[0].samples.size(), 1u);
  EXPECT_DOUBLE_EQ((*v)[0].samples[0].t, 1700000000.5);
  EXPECT_TRUE((*v)[1].samples.empty());  // NaN dropped
  auto m = ParsePromResponse(R"({"status":"success","data":{"resultType":"matrix","result":[
      {"metric":{"gpu":"0"},"values":[[1,"0"],[2,"5"],[3,"+Inf"],[4,"7"]]}]}})");
  ASSERT_TRUE(m.ok());
  ASSERT_EQ((*m)[0].samples.size(), 3u);
  EXPECT_DOUBLE_EQ((*m)[0].samples[2].v, 7);
}

TEST(PromResponseTest, Errors) {
  auto e = ParsePromResponse(
      R"({"status":"error","errorType":"bad_data","error":"parse error at char 3"})");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(e.status().message(),
            "Prometheus answered status \"error\" (bad_data): parse error at char 3");
  EXPECT_EQ(ParsePromResponse("<html>").status().code(), StatusCode::kInvalidInput);
  EXPECT_FALSE(ParsePromResponse(R"({"status":"success"})").ok());
  EXPECT_FALSE(
      ParsePromResponse(R"({"status":"success","data":{"resultType":"string","result":[]}})").ok());
}

TEST(PromClientTest, BadUrls) {
  EXPECT_FALSE(PrometheusClient::Create("localhost:9090", 1).ok());
  EXPECT_FALSE(PrometheusClient::Create("ftp://x", 1).ok());
  EXPECT_FALSE(PrometheusClient::Create("http://", 1).ok());
  EXPECT_TRUE(PrometheusClient::Create("http://127.0.0.1:9090/prom/", 1).ok());
}

// A loopback HTTP server on a free port for the duration of a test.
class FakePrometheus {
 public:
  FakePrometheus() {
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakePrometheus() {
    server_.stop();
    thread_.join();
  }
  httplib::Server& server() { return server_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

TEST(PromClientTest, QueriesAndErrorsOverHttp) {
  FakePrometheus prom;
  std::string seen_query, seen_step;
  prom.server().Post("/prom/api/v1/query", [&](const httplib::Request& req,
                                               httplib::Response& res) {
    seen_query = req.get_param_value("query");
    if (seen_query == "bad(") {
      res.status = 400;
      res.set_content(R"({"status":"error","errorType":"bad_data","error":"unclosed paren"})",
                      "application/json");
      return;
    }
    if (seen_query == "boom") {
      res.status = 503;
      res.set_content("overloaded", "text/plain");
      return;
    }
    res.set_content(
        R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":"b"},"value":[5,"3"]}]}})",
        "application/json");
  });
  prom.server().Post(
      "/prom/api/v1/query_range", [&](const httplib::Request& req, httplib::Response& res) {
        seen_step = req.get_param_value("step");
        res.set_content(R"({"status":"success","data":{"resultType":"matrix","result":[]}})",
                        "application/json");
      });
  auto client = PrometheusClient::Create(prom.url() + "/prom", 5);
  ASSERT_TRUE(client.ok());
  auto ok = (*client)->Query("up", 100);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(seen_query, "up");
  EXPECT_EQ((*ok)[0].Label("a"), "b");
  auto range = (*client)->QueryRange("up", 0, 60, 2);
  ASSERT_TRUE(range.ok()) << range.status().message();
  EXPECT_EQ(seen_step, "2.000");
  auto bad = (*client)->Query("bad(", 100);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("HTTP 400: Prometheus answered status \"error\" "
                                        "(bad_data): unclosed paren"),
            std::string::npos)
      << bad.status().message();
  auto boom = (*client)->Query("boom", 100);
  ASSERT_FALSE(boom.ok());
  EXPECT_NE(boom.status().message().find("HTTP 503: overloaded"), std::string::npos);
}

TEST(PromClientTest, ConnectionRefused) {
  std::string url;
  {
    FakePrometheus prom;  // a port that was free a moment ago and is closed now
    url = prom.url();
  }
  auto client = PrometheusClient::Create(url, 2);
  ASSERT_TRUE(client.ok());
  auto r = (*client)->Query("up", 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cannot connect"), std::string::npos) << r.status().message();
}

TEST(PromClientTest, SilentServerTimesOut) {
  FakePrometheus prom;
  prom.server().Post("/api/v1/query", [](const httplib::Request&, httplib::Response& res) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    res.set_content("{}", "application/json");
  });
  auto client = PrometheusClient::Create(prom.url(), 0.3);
  ASSERT_TRUE(client.ok());
  auto start = std::chrono::steady_clock::now();
  auto r = (*client)->Query("up", 1);
  ASSERT_FALSE(r.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1400));
  EXPECT_NE(r.status().message().find("no answer within 0.3 s"), std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace gpuvet
