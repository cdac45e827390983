// ExporterServer: cpp-httplib wiring for the exporter. Read-only by construction: only GET/HEAD
// on three paths reach a handler; other methods on them answer 405, other paths 404, and request
// bodies are refused before they are read.
#include "cli/exporter/exporter_server.h"

#include <fmt/format.h>
#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "cli/exporter/exporter_collector.h"

namespace gpuvet {

namespace {

constexpr const char* kExpositionType = "text/plain; version=0.0.4; charset=utf-8";

// A fixed pool with a bounded queue. httplib's own ThreadPool queues without limit, so a flood
// of connections would grow memory; here the accept thread waits when the queue is full, and the
// kernel's listen backlog pushes back on clients.
class BoundedPool : public httplib::TaskQueue {
 public:
  BoundedPool(int threads, int capacity) : capacity_(static_cast<size_t>(capacity)) {
    for (int i = 0; i < threads; ++i) workers_.emplace_back([this] { Work(); });
  }
  ~BoundedPool() override = default;

  void enqueue(std::function<void()> fn) override {
    std::unique_lock<std::mutex> lock(mu_);
    space_.wait(lock, [this] { return shutdown_ || jobs_.size() < capacity_; });
    if (shutdown_) return;  // the connection's socket is closed by httplib's shutdown
    jobs_.push_back(std::move(fn));
    ready_.notify_one();
  }

  void shutdown() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      shutdown_ = true;
    }
    ready_.notify_all();
    space_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

 private:
  void Work() {
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock<std::mutex> lock(mu_);
        ready_.wait(lock, [this] { return shutdown_ || !jobs_.empty(); });
        if (jobs_.empty()) return;  // shutdown with nothing left
        fn = std::move(jobs_.front());
        jobs_.pop_front();
      }
      space_.notify_one();
      fn();
    }
  }

  const size_t capacity_;
  std::mutex mu_;
  std::condition_variable ready_, space_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> workers_;
  bool shutdown_ = false;
};

// True when an Accept-Encoding value lists gzip without refusing it ("gzip;q=0").
bool AcceptsGzip(const std::string& accept) {
  size_t at = accept.find("gzip");
  if (at == std::string::npos) return false;
  size_t end = accept.find(',', at);
  std::string item = accept.substr(at, end == std::string::npos ? std::string::npos : end - at);
  item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
  return item.find("q=0") == std::string::npos || item.find("q=0.") != std::string::npos;
}

bool IsKnownPath(const std::string& path) {
  return path == "/" || path == "/metrics" || path == "/healthz" || path == "/readyz" ||
         path == "/livez";
}

}  // namespace

std::string ExporterIndexPage() {
  return "<!DOCTYPE html>\n<html><head><title>gpuvet exporter</title></head><body>\n"
         "<h1>gpuvet exporter</h1>\n"
         "<p>Prometheus metrics of this node's GPUs and the results of <code>gpuvet check"
         "</code>.</p>\n<ul>\n"
         "<li><a href=\"/metrics\">/metrics</a>: Prometheus text exposition</li>\n"
         "<li><a href=\"/healthz\">/healthz</a>: 200 when the last collection succeeded "
         "recently, 503 with the reason otherwise</li>\n"
         "<li><a href=\"/readyz\">/readyz</a>: 200 once a collection has succeeded "
         "(Kubernetes readiness)</li>\n"
         "<li><a href=\"/livez\">/livez</a>: 200 while the server answers (Kubernetes "
         "liveness)</li>\n"
         "</ul>\n</body></html>\n";
}

ExporterServer::ExporterServer(Collector& collector, ServerOptions options)
    : collector_(collector), options_(std::move(options)), server_(new httplib::Server) {
  httplib::Server& s = *server_;
  const int threads = options_.threads, queue = options_.queue;
  s.new_task_queue = [threads, queue] { return new BoundedPool(threads, queue); };
  s.set_read_timeout(std::chrono::milliseconds(options_.read_timeout_ms));
  s.set_write_timeout(std::chrono::milliseconds(options_.write_timeout_ms));
  s.set_keep_alive_max_count(static_cast<size_t>(options_.keep_alive_max));
  s.set_keep_alive_timeout(options_.keep_alive_timeout_s);
  s.set_payload_max_length(0);  // no request carries a body
  s.set_tcp_nodelay(true);
  // cpp-httplib's default also sets SO_REUSEPORT on Linux, which lets a second exporter bind the
  // same port and silently take half the scrapes; SO_REUSEADDR alone allows quick restarts.
  s.set_socket_options([](int sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });

  // Read-only: anything but GET/HEAD is answered before routing (and before a body is read).
  s.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
    if (req.method == "GET" || req.method == "HEAD")
      return httplib::Server::HandlerResponse::Unhandled;
    if (IsKnownPath(req.path)) {
      res.status = 405;
      res.set_header("Allow", "GET, HEAD");
      res.set_content("method not allowed: this exporter is read-only\n", "text/plain");
    } else {
      res.status = 404;
      res.set_content("not found\n", "text/plain");
    }
    return httplib::Server::HandlerResponse::Handled;
  });
  s.Get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
    const bool gzip = AcceptsGzip(req.get_header_value("Accept-Encoding"));
    auto body = std::make_shared<const std::string>(collector_.RenderScrape(gzip));
    if (gzip) res.set_header("Content-Encoding", "gzip");
    res.set_header("Vary", "Accept-Encoding");
    // A sized content provider: cpp-httplib sends it as is, where set_content would gzip the
    // whole text again on every scrape.
    res.set_content_provider(body->size(), kExpositionType,
                             [body](size_t offset, size_t length, httplib::DataSink& sink) {
                               return sink.write(body->data() + offset, length);
                             });
  });
  s.Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
    ExporterHealth h = collector_.Health();
    res.status = h.healthy ? 200 : 503;
    res.set_content(h.reason + "\n", "text/plain; charset=utf-8");
  });
  // Kubernetes probes (deploy/kubernetes): readiness once a collection succeeded, liveness
  // whenever the server answers. Liveness never looks at the GPU: restarting the exporter
  // cannot fix a wedged GPU, it would only lose the Xid counters.
  s.Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
    const bool ready = collector_.EverSucceeded();
    res.status = ready ? 200 : 503;
    res.set_content(ready ? "ready: a collection has succeeded\n"
                          : "not ready: no successful collection yet; /healthz says why\n",
                    "text/plain; charset=utf-8");
  });
  s.Get("/livez", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain; charset=utf-8");
  });
  s.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(ExporterIndexPage(), "text/html; charset=utf-8");
  });
  s.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty()) {
      res.set_content(fmt::format("HTTP status {}\n", res.status), "text/plain");
    }
  });
}

ExporterServer::~ExporterServer() = default;

Result<int> ExporterServer::Bind() {
  errno = 0;
  int port = options_.port;
  if (port == 0) {
    port = server_->bind_to_any_port(options_.host);
    if (port < 0) port = 0;
  } else if (!server_->bind_to_port(options_.host, port)) {
    port = 0;
  }
  if (port == 0) {
    int err = errno;
    return Status(StatusCode::kUnavailable,
                  fmt::format("cannot listen on {}:{}{}", options_.host, options_.port,
                              err != 0 ? std::string(": ") + std::strerror(err) : ""));
  }
  return port;
}

bool ExporterServer::Run() { return server_->listen_after_bind(); }

void ExporterServer::Stop() { server_->stop(); }

}  // namespace gpuvet
