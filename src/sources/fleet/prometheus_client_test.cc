// Tests for the Prometheus API client: the response parser on every result type and error
// shape; the client against a real in-process HTTP server (cpp-httplib, tests only) for success,
// Prometheus errors, HTTP errors, a refused connection and a server that does not answer; and
// against raw misbehaving servers: an endless body, a huge declared length, one byte per 100 ms,
// chunked, close-delimited, truncated and non-HTTP answers; https against `openssl s_server`.
#include "sources/fleet/prometheus_client.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <string_view>
#include <thread>
#include <vector>

#include "testing/temp_tree.h"

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

// A raw loopback server that misbehaves: `serve(fd)` runs for each accepted connection on its
// own thread (so one stuck connection does not stop the next).
class RawServer {
 public:
  explicit RawServer(std::function<void(int)> serve) : serve_(std::move(serve)) {
    listen_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(listen_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    listen(listen_, 16);
    socklen_t len = sizeof(addr);
    getsockname(listen_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] {
      for (;;) {
        int fd = accept(listen_, nullptr, nullptr);
        if (fd < 0 || stop_) {
          if (fd >= 0) close(fd);
          return;
        }
        workers_.emplace_back([this, fd] {
          // Read the request headers first, as a server would.
          char buf[4096];
          std::string req;
          while (req.find("\r\n\r\n") == std::string::npos) {
            ssize_t n = recv(fd, buf, sizeof(buf), 0);
            if (n <= 0) break;
            req.append(buf, static_cast<size_t>(n));
          }
          serve_(fd);
          close(fd);
        });
      }
    });
  }
  ~RawServer() {
    stop_ = true;
    shutdown(listen_, SHUT_RDWR);
    close(listen_);
    thread_.join();
    for (std::thread& t : workers_) t.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::atomic<bool>& stopping() { return stop_; }

 private:
  std::function<void(int)> serve_;
  int listen_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::vector<std::thread> workers_;
};

bool SendAll(int fd, std::string_view s) {
  return send(fd, s.data(), s.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(s.size());
}

TEST(PromClientTest, EndlessBodyIsCutAtTheSizeCap) {
  RawServer server([](int fd) {
    SendAll(fd, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{\"status\":\"");
    const std::string chunk(65536, 'a');
    while (SendAll(fd, chunk)) {
    }
  });
  auto client = PrometheusClient::Create(server.url(), 20, 1 << 20);
  ASSERT_TRUE(client.ok());
  auto r = (*client)->Query("up", 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("answer larger than 1048576 bytes"), std::string::npos)
      << r.status().message();
}

TEST(PromClientTest, DeclaredTooLargeBodyIsRefusedBeforeReading) {
  RawServer server(
      [](int fd) { SendAll(fd, "HTTP/1.1 200 OK\r\nContent-Length: 999999999999\r\n\r\n{"); });
  auto client = PrometheusClient::Create(server.url(), 5, 1 << 20);
  ASSERT_TRUE(client.ok());
  auto r = (*client)->Query("up", 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("answer larger than"), std::string::npos)
      << r.status().message();
}

TEST(PromClientTest, DrippingServerIsBoundedByTheTotalTimeout) {
  RawServer* self = nullptr;
  RawServer server([&self](int fd) {
    const std::string answer =
        "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + std::string(100, ' ');
    // One byte every 100 ms: each read is quick, the whole answer would take 14 s.
    for (char c : answer) {
      if ((self != nullptr && self->stopping()) || !SendAll(fd, std::string_view(&c, 1))) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  self = &server;
  auto client = PrometheusClient::Create(server.url(), 0.5);
  ASSERT_TRUE(client.ok());
  auto start = std::chrono::steady_clock::now();
  auto r = (*client)->Query("up", 1);
  auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r.ok());
  EXPECT_LT(took, std::chrono::milliseconds(2000));
  EXPECT_NE(r.status().message().find("no answer within 0.5 s (the limit for the whole request"),
            std::string::npos)
      << r.status().message();
}

TEST(PromClientTest, ReadsChunkedAndCloseDelimitedAnswers) {
  const std::string json =
      R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":"b"},"value":[5,"3"]}]}})";
  RawServer chunked([&json](int fd) {
    std::string body = fmt::format("{:x};ext=1\r\n{}\r\n", 10, json.substr(0, 10)) +
                       fmt::format("{:X}\r\n{}\r\n", json.size() - 10, json.substr(10)) +
                       "0\r\n\r\n";
    SendAll(fd, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + body);
  });
  auto client = PrometheusClient::Create(chunked.url(), 5);
  ASSERT_TRUE(client.ok());
  auto r = (*client)->Query("up", 1);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].Label("a"), "b");

  RawServer until_close([&json](int fd) { SendAll(fd, "HTTP/1.0 200 OK\r\n\r\n" + json); });
  client = PrometheusClient::Create(until_close.url(), 5);
  ASSERT_TRUE(client.ok());
  r = (*client)->Query("up", 1);
  ASSERT_TRUE(r.ok()) << r.status().message();

  RawServer truncated(
      [](int fd) { SendAll(fd, "HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{"); });
  client = PrometheusClient::Create(truncated.url(), 5);
  r = (*client)->Query("up", 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("before the answer was complete"), std::string::npos)
      << r.status().message();

  RawServer garbage([](int fd) { SendAll(fd, "SSH-2.0-OpenSSH_9.2\r\n\r\n"); });
  client = PrometheusClient::Create(garbage.url(), 5);
  r = (*client)->Query("up", 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not HTTP"), std::string::npos) << r.status().message();
}

TEST(PromClientTest, ParsesHostsPortsAndPrefixes) {
  EXPECT_TRUE(PrometheusClient::Create("http://[::1]:9090/", 1).ok());
  EXPECT_TRUE(PrometheusClient::Create("https://prom.example", 1).ok());
  EXPECT_FALSE(PrometheusClient::Create("http://host:0", 1).ok());
  EXPECT_FALSE(PrometheusClient::Create("http://host:99999", 1).ok());
  EXPECT_FALSE(PrometheusClient::Create("http://[::1", 1).ok());
}

// https through the system OpenSSL (loaded at run time) against `openssl s_server` with a
// self-signed certificate: the handshake runs and verification refuses the certificate.
TEST(PromClientTest, HttpsVerifiesTheCertificate) {
  if (access("/usr/bin/openssl", X_OK) != 0) {
    GTEST_SKIP() << "openssl (Debian package openssl) not installed: https not exercised";
  }
  test::TempTree tree("prom_tls");
  const std::string key = tree.Path("key.pem"), cert = tree.Path("cert.pem");
  ASSERT_EQ(std::system(("/usr/bin/openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=localhost "
                         "-days 1 -keyout " +
                         key + " -out " + cert + " >/dev/null 2>&1")
                            .c_str()),
            0);
  int port = 0;
  {
    RawServer probe([](int) {});  // a free port
    port = std::stoi(probe.url().substr(probe.url().rfind(':') + 1));
  }
  const std::string pid_file = tree.Path("pid");
  ASSERT_EQ(std::system(("/usr/bin/openssl s_server -quiet -accept 127.0.0.1:" +
                         std::to_string(port) + " -key " + key + " -cert " + cert +
                         " -www >/dev/null 2>&1 & echo $! > " + pid_file)
                            .c_str()),
            0);
  auto client = PrometheusClient::Create("https://localhost:" + std::to_string(port), 5);
  ASSERT_TRUE(client.ok());
  Result<std::vector<PromSeries>> r = InvalidInput("not run");
  for (int i = 0; i < 50; ++i) {  // until s_server listens
    r = (*client)->Query("up", 1);
    if (r.status().message().find("cannot connect") == std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::system(("kill $(cat " + pid_file + ") 2>/dev/null").c_str());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("TLS: certificate verification failed: self-signed"),
            std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace gpuvet
