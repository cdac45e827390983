// HttpServer over real loopback sockets: routing and methods, header size and line caps, the
// total header deadline against trickling clients, idle keep-alive expiry, eviction at the
// connection cap, pipelining, and scrapes that still succeed while slow-loris clients are
// connected (functional, not timed tightly).
#include "cli/exporter/exporter_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace gpuvet {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

class Served {
 public:
  explicit Served(ServerOptions o = {}) {
    o.host = "127.0.0.1";
    o.port = 0;
    server_ = std::make_unique<HttpServer>(
        o, std::vector<std::string>{"/", "/metrics"}, [this](const HttpRequest& req) {
          ++handled_;
          HttpResponse r;
          r.body = "hello " + req.path + " " + req.accept_encoding + "\n";
          return r;
        });
    auto port = server_->Bind();
    EXPECT_TRUE(port.ok()) << port.status().message();
    port_ = port.ok() ? *port : 0;
    thread_ = std::thread([this] { ran_ = server_->Run(); });
  }
  ~Served() {
    server_->Stop();
    thread_.join();
  }
  int port() const { return port_; }
  HttpServer& server() { return *server_; }
  int handled() const { return handled_; }

 private:
  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<int> handled_{0};
  std::atomic<bool> ran_{false};
};

int Connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

void Send(int fd, const std::string& s) {
  ASSERT_EQ(send(fd, s.data(), s.size(), MSG_NOSIGNAL), static_cast<ssize_t>(s.size()));
}

// Reads until the peer closes or `timeout` passes; returns what arrived.
std::string ReadAll(int fd, milliseconds timeout = milliseconds(3000)) {
  std::string out;
  const Clock::time_point end = Clock::now() + timeout;
  char buf[4096];
  while (Clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    int left =
        static_cast<int>(std::chrono::duration_cast<milliseconds>(end - Clock::now()).count());
    if (poll(&p, 1, std::max(left, 1)) <= 0) break;
    ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

// Reads one response (headers and Content-Length body) from a kept-alive connection. Bytes of
// the next response that arrived with it (pipelined answers often come in one segment) stay in
// `*carry` for the next call.
std::string ReadResponse(int fd, std::string* carry, milliseconds timeout = milliseconds(3000)) {
  std::string out = std::move(*carry);
  carry->clear();
  const Clock::time_point end = Clock::now() + timeout;
  char buf[4096];
  while (true) {
    size_t head_end = out.find("\r\n\r\n");
    if (head_end != std::string::npos) {
      size_t cl = out.find("Content-Length: ");
      size_t len = cl == std::string::npos || cl > head_end ? 0 : std::stoul(out.substr(cl + 16));
      if (out.size() >= head_end + 4 + len) {
        *carry = out.substr(head_end + 4 + len);
        return out.substr(0, head_end + 4 + len);
      }
    }
    if (Clock::now() >= end) break;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

std::string Get(int port, const std::string& request) {
  int fd = Connect(port);
  if (fd < 0) return "connect failed";
  Send(fd, request);
  std::string r = ReadAll(fd);
  close(fd);
  return r;
}

TEST(HttpServer, RoutesMethodsAndPaths) {
  Served s;
  std::string r = Get(s.port(),
                      "GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\nAccept-Encoding: gzip\r\n"
                      "Connection: close\r\n\r\n");
  EXPECT_EQ(r.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << r;
  EXPECT_NE(r.find("\r\n\r\nhello /metrics gzip\n"), std::string::npos) << r;
  EXPECT_NE(r.find("Connection: close"), std::string::npos);

  r = Get(s.port(), "HEAD / HTTP/1.0\r\n\r\n");
  EXPECT_EQ(r.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << r;
  EXPECT_NE(r.find("Content-Length: 9\r\n"), std::string::npos) << r;
  EXPECT_EQ(r.find("hello"), std::string::npos) << "HEAD has no body";

  r = Get(s.port(), "POST /metrics HTTP/1.1\r\nContent-Length: 1\r\n\r\nx");
  EXPECT_EQ(r.rfind("HTTP/1.1 405 ", 0), 0u) << r;
  EXPECT_NE(r.find("Allow: GET, HEAD\r\n"), std::string::npos);
  EXPECT_EQ(Get(s.port(), "DELETE /nope HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 404 ", 0), 0u);
  EXPECT_EQ(Get(s.port(), "GET /debug HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 404 ", 0), 0u);
  EXPECT_EQ(
      Get(s.port(), "GET / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello").rfind("HTTP/1.1 413 ", 0),
      0u);
  EXPECT_EQ(Get(s.port(), "GARBAGE\r\n\r\n").rfind("HTTP/1.1 400 ", 0), 0u);
  EXPECT_EQ(Get(s.port(), "GET / HTTP/2.0\r\n\r\n").rfind("HTTP/1.1 505 ", 0), 0u);
  EXPECT_EQ(Get(s.port(), "GET / HTTP/1.1\r\nno colon here\r\n\r\n").rfind("HTTP/1.1 400 ", 0), 0u);
}

TEST(HttpServer, KeepsAliveAndAnswersPipelinedRequestsInOrder) {
  Served s;
  int fd = Connect(s.port());
  Send(fd, "GET /metrics HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n");
  std::string carry;
  std::string a = ReadResponse(fd, &carry);
  std::string b = ReadResponse(fd, &carry);
  EXPECT_NE(a.find("hello /metrics"), std::string::npos) << a;
  EXPECT_NE(b.find("hello / "), std::string::npos) << b;
  Send(fd, "GET /metrics HTTP/1.1\r\n\r\n");
  EXPECT_NE(ReadResponse(fd, &carry).find("200 OK"), std::string::npos);
  close(fd);
}

TEST(HttpServer, CapsHeaderBytesAndLines) {
  ServerOptions o;
  o.max_header_bytes = 4096;
  o.max_header_lines = 20;
  Served s(o);
  std::string big = "GET / HTTP/1.1\r\nX-Big: " + std::string(8192, 'a') + "\r\n\r\n";
  EXPECT_EQ(Get(s.port(), big).rfind("HTTP/1.1 431 ", 0), 0u);
  std::string many = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 30; ++i) many += "X-" + std::to_string(i) + ": y\r\n";
  EXPECT_EQ(Get(s.port(), many + "\r\n").rfind("HTTP/1.1 431 ", 0), 0u);
  // An endless header stream without a blank line is cut off at the cap, not buffered.
  int fd = Connect(s.port());
  std::string chunk(1024, 'b');
  Send(fd, "GET / HTTP/1.1\r\nX: ");
  bool refused = false;
  for (int i = 0; i < 12 && !refused; ++i) {
    refused = send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL) < 0;
  }
  EXPECT_EQ(ReadAll(fd).rfind("HTTP/1.1 431 ", 0), 0u);
  close(fd);
  EXPECT_EQ(s.server().stats().header_too_large, 3u);
  EXPECT_EQ(s.handled(), 0);
}

TEST(HttpServer, DropsATricklingClientAtItsTotalHeaderDeadline) {
  ServerOptions o;
  o.header_timeout = milliseconds(400);
  Served s(o);
  int fd = Connect(s.port());
  const Clock::time_point start = Clock::now();
  const std::string req = "GET /metrics HTTP/1.1\r\nX-Slow: " + std::string(200, 'z');
  bool closed = false;
  // One byte every 20 ms: each read is quick, but the request never completes in time.
  for (char c : req) {
    if (send(fd, &c, 1, MSG_NOSIGNAL) < 0) {
      closed = true;
      break;
    }
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 20) > 0) {
      char buf[256];
      if (recv(fd, buf, sizeof(buf), 0) >= 0) {
        closed = true;
        break;
      }
    }
  }
  EXPECT_TRUE(closed);
  EXPECT_LT(Clock::now() - start, milliseconds(3000));
  close(fd);
  EXPECT_GE(s.server().stats().header_timeouts, 1u);
}

TEST(HttpServer, ClosesIdleKeepAliveConnections) {
  ServerOptions o;
  o.idle_timeout = milliseconds(300);
  o.header_timeout = milliseconds(300);
  Served s(o);
  int never_spoke = Connect(s.port());
  int fd = Connect(s.port());
  Send(fd, "GET / HTTP/1.1\r\n\r\n");
  std::string carry;
  EXPECT_NE(ReadResponse(fd, &carry).find("200 OK"), std::string::npos);
  EXPECT_EQ(carry + ReadAll(fd, milliseconds(3000)), "") << "closed without another answer";
  EXPECT_EQ(ReadAll(never_spoke, milliseconds(3000)), "");
  close(fd);
  close(never_spoke);
  ServerStats st = s.server().stats();
  EXPECT_EQ(st.idle_closed, 1u);
  EXPECT_EQ(st.header_timeouts, 1u);
}

TEST(HttpServer, EvictsTheOldestIdleConnectionAtTheCap) {
  ServerOptions o;
  o.max_connections = 8;
  Served s(o);
  std::vector<int> idle;
  for (int i = 0; i < 20; ++i) idle.push_back(Connect(s.port()));
  // However many idle connections there are, a scrape gets through.
  std::string r = Get(s.port(), "GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(r.rfind("HTTP/1.1 200 OK", 0), 0u) << r;
  EXPECT_GE(s.server().stats().evicted, 12u);
  for (int fd : idle) close(fd);
}

TEST(HttpServer, ScrapesSucceedWhileSlowLorisClientsAreConnected) {
  ServerOptions o;
  o.header_timeout = milliseconds(2000);
  Served s(o);
  std::atomic<bool> stop{false};
  std::vector<std::thread> loris;
  for (int i = 0; i < 8; ++i) {
    loris.emplace_back([&] {
      while (!stop) {
        int fd = Connect(s.port());
        std::string req = "GET /metrics HTTP/1.1\r\nX-A: ";
        for (char c : req) {
          if (stop || send(fd, &c, 1, MSG_NOSIGNAL) < 0) break;
          std::this_thread::sleep_for(milliseconds(50));
        }
        while (!stop && send(fd, "a", 1, MSG_NOSIGNAL) == 1) {
          std::this_thread::sleep_for(milliseconds(50));
        }
        close(fd);
      }
    });
  }
  std::this_thread::sleep_for(milliseconds(200));
  int ok = 0;
  for (int i = 0; i < 50; ++i) {
    std::string r = Get(s.port(), "GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n");
    if (r.rfind("HTTP/1.1 200 OK", 0) == 0) ++ok;
  }
  stop = true;
  for (std::thread& t : loris) t.join();
  EXPECT_EQ(ok, 50);
}

TEST(HttpServer, StopBeforeRunReturnsAtOnce) {
  HttpServer server(ServerOptions{"127.0.0.1", 0}, {"/"},
                    [](const HttpRequest&) { return HttpResponse{}; });
  ASSERT_TRUE(server.Bind().ok());
  server.Stop();
  const Clock::time_point start = Clock::now();
  EXPECT_TRUE(server.Run());
  EXPECT_LT(Clock::now() - start, milliseconds(1000));
}

TEST(HttpServer, ReportsABusyPort) {
  Served s;
  HttpServer second(ServerOptions{"127.0.0.1", s.port()}, {"/"},
                    [](const HttpRequest&) { return HttpResponse{}; });
  auto r = second.Bind();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cannot listen on 127.0.0.1:" + std::to_string(s.port())),
            std::string::npos)
      << r.status().message();
}

TEST(AcceptsGzip, ReadsTheQualityValue) {
  EXPECT_TRUE(AcceptsGzip("gzip"));
  EXPECT_TRUE(AcceptsGzip("deflate, gzip;q=0.5"));
  EXPECT_FALSE(AcceptsGzip("gzip;q=0"));
  EXPECT_FALSE(AcceptsGzip("identity"));
}

}  // namespace
}  // namespace gpuvet
