// The exporter's HTTP side (cpp-httplib): GET /metrics, /healthz and an index page, nothing else.
// A fixed pool of worker threads with a bounded queue of accepted connections, read/write
// timeouts and keep-alive limits, so slow or idle clients cannot exhaust memory or stall scrapes
// for longer than a timeout.
#pragma once

#include <memory>
#include <string>

#include "util/status.h"

namespace httplib {
class Server;
}

namespace gpuvet {

class Collector;

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 9835;   // 0: any free port (Bind returns it)
  int threads = 16;  // worker threads; each idle keep-alive or slow client holds one
  int queue = 64;    // accepted connections waiting for a worker; accept pauses beyond
  int read_timeout_ms = 5000;
  int write_timeout_ms = 5000;
  int keep_alive_max = 100;  // requests per connection
  int keep_alive_timeout_s = 5;
};

class ExporterServer {
 public:
  // `collector` must outlive the server.
  ExporterServer(Collector& collector, ServerOptions options);
  ~ExporterServer();
  ExporterServer(const ExporterServer&) = delete;
  ExporterServer& operator=(const ExporterServer&) = delete;

  // Binds the listening socket. Returns the bound port, or Unavailable naming the address and
  // why (in use, permission, bad host).
  Result<int> Bind();

  // Serves until Stop(). Returns false when the server failed to run.
  bool Run();

  // Stops Run() from any thread (signal handler threads included; not async-signal-safe).
  void Stop();

 private:
  Collector& collector_;
  ServerOptions options_;
  std::unique_ptr<httplib::Server> server_;
};

// The index page served at "/".
std::string ExporterIndexPage();

}  // namespace gpuvet
