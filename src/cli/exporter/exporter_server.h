// The exporter's HTTP side: a small single-threaded poll() server for GET/HEAD of /metrics,
// /healthz, /readyz and an index page, nothing else. It replaced cpp-httplib 0.11 (Debian 12),
// whose thread-per-connection pool let 16 trickling clients hold every worker and whose header
// reader has no size or count cap. Here every connection is non-blocking state in one loop, with
// hard limits: header bytes and lines, a total deadline for each request's headers (not per
// read), an idle keep-alive deadline, a deadline for sending each response, a connection cap
// that evicts the oldest connection without a request in progress, and no request bodies. So no
// client can hold a worker, and memory is bounded by max_connections * max_header_bytes plus
// the responses being sent.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "util/status.h"

namespace gpuvet {

class Collector;

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 9835;                  // 0: any free port (Bind returns it)
  size_t max_header_bytes = 16384;  // request line + headers; beyond: 431 and close
  int max_header_lines = 100;       // header lines; beyond: 431 and close
  int max_connections = 512;        // open connections; beyond: the oldest idle one is closed
  std::chrono::milliseconds header_timeout{5000};  // first byte to end of headers, total
  std::chrono::milliseconds idle_timeout{30000};   // keep-alive with no request started
  std::chrono::milliseconds write_timeout{10000};  // one response, total
  int keep_alive_max = 1000;  // requests per connection; the last one says Connection: close
};

// What a handler answers.
struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::string extra_headers;  // "Name: value\r\n" lines
};

// One parsed request as handlers see it (only what the exporter needs).
struct HttpRequest {
  std::string method;
  std::string path;  // without the query string
  std::string accept_encoding;
};

// Answers a request; called on the server thread, so it must not block.
using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

// Server counters (for tests and the benchmark).
struct ServerStats {
  uint64_t accepted = 0;
  uint64_t requests = 0;
  uint64_t header_too_large = 0;  // 431 answers
  uint64_t header_timeouts = 0;   // requests whose headers did not arrive within header_timeout
  uint64_t idle_closed = 0;       // keep-alive connections closed after idle_timeout
  uint64_t write_timeouts = 0;    // responses not taken within write_timeout
  uint64_t evicted = 0;           // closed to make room under max_connections
};

class HttpServer {
 public:
  // `handler` answers GET/HEAD requests for the paths in `paths`; other methods on those paths
  // get 405 with Allow: GET, HEAD, other paths 404. Both never read a request body.
  HttpServer(ServerOptions options, std::vector<std::string> paths, HttpHandler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds the listening socket. Returns the bound port, or Unavailable naming the address and
  // why (in use, permission, bad host).
  Result<int> Bind();

  // Serves on the calling thread until Stop(). Returns false when the server failed to run (not
  // bound, or poll failed).
  bool Run();

  // Makes Run() return soon (within one poll wake-up) from any thread; async-signal-safe. A
  // Stop() before Run() makes Run() return at once.
  void Stop();

  // A copy of the counters; thread-safe.
  ServerStats stats() const;

 private:
  struct Impl;
  Impl* impl_;
};

// The exporter's server: /metrics from the collector's cache (gzip when asked), /healthz (200
// whenever the server runs: liveness), /readyz (200 after a successful collection, 503 with the
// reason before one or while stale: readiness) and the index page.
class ExporterServer {
 public:
  // `collector` must outlive the server.
  ExporterServer(Collector& collector, ServerOptions options);
  Result<int> Bind() { return server_.Bind(); }
  bool Run() { return server_.Run(); }
  void Stop() { server_.Stop(); }
  ServerStats stats() const { return server_.stats(); }

 private:
  HttpResponse Handle(const HttpRequest& req);
  Collector& collector_;
  HttpServer server_;
};

// The index page served at "/".
std::string ExporterIndexPage();

// True when an Accept-Encoding value lists gzip without refusing it ("gzip;q=0").
bool AcceptsGzip(const std::string& accept);

}  // namespace gpuvet
