// HttpServer: one thread, one poll() over the listening socket, a wake-up pipe and every
// connection. Each connection is a small state machine (idle -> reading headers -> writing the
// response -> idle, or draining before close) with one deadline for its current state, so a
// client that trickles bytes is dropped when its header deadline passes however often it
// sends, and one that never reads its response is dropped when the write deadline passes.
// Handlers run inline: the exporter's answer is a copy of a cached string, never a wait.
#include "cli/exporter/exporter_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <utility>

#include "cli/exporter/exporter_collector.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kExpositionType = "text/plain; version=0.0.4; charset=utf-8";
// Bytes read and thrown away from a connection that is being closed after an error answer, so
// its unread request bytes do not turn the close into a reset that loses the answer.
constexpr size_t kDrainMax = 65536;
constexpr std::chrono::milliseconds kDrainTimeout{1000};

std::string_view Reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 413:
      return "Payload Too Large";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
  }
  return "Unknown";
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

bool ContainsToken(std::string_view value, std::string_view token) {
  for (std::string_view part : Split(value, ',')) {
    if (EqualsIgnoreCase(Trim(part), token)) return true;
  }
  return false;
}

enum class ConnState { kIdle, kReading, kWriting, kDraining };

struct Connection {
  int fd = -1;
  ConnState state = ConnState::kIdle;
  Clock::time_point deadline;
  Clock::time_point state_since;
  std::string in;
  std::string out;
  size_t out_off = 0;
  bool close_after_write = false;
  int requests = 0;
  size_t drained = 0;
};

}  // namespace

struct HttpServer::Impl {
  ServerOptions options;
  std::vector<std::string> paths;
  HttpHandler handler;
  int listen_fd = -1;
  int wake_read = -1, wake_write = -1;
  std::atomic<bool> stop{false};
  mutable std::mutex stats_mu;
  ServerStats stats;
  std::vector<std::unique_ptr<Connection>> conns;

  void Count(uint64_t ServerStats::*field) {
    std::lock_guard<std::mutex> lock(stats_mu);
    ++(stats.*field);
  }

  void SetState(Connection& c, ConnState s, Clock::time_point now, std::chrono::milliseconds d) {
    c.state = s;
    c.state_since = now;
    c.deadline = now + d;
  }

  void Queue(Connection& c, int status, std::string_view content_type, const std::string& body,
             const std::string& extra, bool head, bool close, Clock::time_point now) {
    c.close_after_write = close;
    c.out = fmt::format("HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n{}{}\r\n",
                        status, Reason(status), content_type, body.size(), extra,
                        close ? "Connection: close\r\n" : "");
    if (!head) c.out += body;
    c.out_off = 0;
    SetState(c, ConnState::kWriting, now, options.write_timeout);
  }

  void Error(Connection& c, int status, std::string_view text, Clock::time_point now,
             std::string extra = "") {
    Queue(c, status, "text/plain; charset=utf-8", std::string(text) + "\n", extra, false, true,
          now);
  }

  bool KnownPath(const std::string& p) const {
    return std::find(paths.begin(), paths.end(), p) != paths.end();
  }

  // Parses the complete header block in c.in[0, end) and queues the answer.
  void HandleRequest(Connection& c, size_t end, Clock::time_point now) {
    std::string_view head(c.in.data(), end);
    Count(&ServerStats::requests);
    ++c.requests;
    std::vector<std::string_view> lines;
    for (std::string_view l : Split(head, '\n')) {
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
      lines.push_back(l);
    }
    while (!lines.empty() && lines.back().empty()) lines.pop_back();
    // RFC 9112: a server should ignore empty lines before the request line.
    size_t first = 0;
    while (first < lines.size() && lines[first].empty()) ++first;
    if (first >= lines.size()) return Error(c, 400, "bad request: no request line", now);
    std::vector<std::string_view> parts = Split(lines[first], ' ');
    if (parts.size() != 3 || parts[0].empty() || parts[1].empty() || parts[1][0] != '/')
      return Error(c, 400, "bad request: malformed request line", now);
    const std::string_view version = parts[2];
    if (version != "HTTP/1.1" && version != "HTTP/1.0")
      return Error(c, 505, "only HTTP/1.0 and HTTP/1.1 are served", now);
    HttpRequest req;
    req.method = std::string(parts[0]);
    std::string_view target = parts[1];
    req.path = std::string(target.substr(0, target.find('?')));
    bool keep_alive = version == "HTTP/1.1";
    bool has_body = false;
    for (size_t i = first + 1; i < lines.size(); ++i) {
      std::string_view l = lines[i];
      size_t colon = l.find(':');
      if (colon == std::string_view::npos || colon == 0)
        return Error(c, 400, "bad request: malformed header line", now);
      std::string_view name = l.substr(0, colon), value = Trim(l.substr(colon + 1));
      if (EqualsIgnoreCase(name, "Connection")) {
        if (ContainsToken(value, "close")) keep_alive = false;
        if (ContainsToken(value, "keep-alive")) keep_alive = true;
      } else if (EqualsIgnoreCase(name, "Accept-Encoding")) {
        req.accept_encoding = std::string(value);
      } else if (EqualsIgnoreCase(name, "Content-Length")) {
        if (value != "0") has_body = true;
      } else if (EqualsIgnoreCase(name, "Transfer-Encoding")) {
        has_body = true;
      }
    }
    c.in.erase(0, end);
    const bool get = req.method == "GET", head_req = req.method == "HEAD";
    if (!get && !head_req) {
      if (!KnownPath(req.path)) return Error(c, 404, "not found", now);
      return Error(c, 405, "method not allowed: this exporter is read-only", now,
                   "Allow: GET, HEAD\r\n");
    }
    if (has_body) return Error(c, 413, "request bodies are not accepted", now);
    if (!KnownPath(req.path)) return Error(c, 404, "not found", now);
    HttpResponse res;
    try {
      res = handler(req);
    } catch (const std::exception& e) {
      return Error(c, 500, std::string("internal error: ") + e.what(), now);
    }
    const bool close = !keep_alive || c.requests >= options.keep_alive_max;
    Queue(c, res.status, res.content_type, res.body, res.extra_headers, head_req, close, now);
  }

  // Looks for a complete header block in c.in and handles it; enforces the size and line caps.
  void TryParse(Connection& c, Clock::time_point now) {
    size_t end = c.in.find("\r\n\r\n");
    size_t term = 4;
    if (size_t lf = c.in.find("\n\n");
        lf != std::string::npos && (end == std::string::npos || lf < end)) {
      end = lf;
      term = 2;
    }
    const size_t limit = std::min(c.in.size(), end == std::string::npos ? c.in.size() : end);
    if (limit > options.max_header_bytes ||
        std::count(c.in.begin(), c.in.begin() + static_cast<std::ptrdiff_t>(limit), '\n') >
            options.max_header_lines) {
      Count(&ServerStats::header_too_large);
      return Error(c, 431,
                   fmt::format("request headers larger than {} bytes or {} lines",
                               options.max_header_bytes, options.max_header_lines),
                   now);
    }
    if (end == std::string::npos) return;
    HandleRequest(c, end + term, now);
  }

  // Returns false when the connection is to be closed.
  bool OnReadable(Connection& c, Clock::time_point now) {
    char buf[8192];
    for (;;) {
      ssize_t n = ::recv(c.fd, buf, sizeof(buf), 0);
      if (n == 0) return false;
      if (n < 0) {
        if (errno == EINTR) continue;
        return errno == EAGAIN || errno == EWOULDBLOCK;
      }
      if (c.state == ConnState::kDraining) {
        c.drained += static_cast<size_t>(n);
        if (c.drained > kDrainMax) return false;
        continue;
      }
      if (c.state == ConnState::kIdle)
        SetState(c, ConnState::kReading, now, options.header_timeout);
      c.in.append(buf, static_cast<size_t>(n));
      TryParse(c, now);
      if (c.state == ConnState::kWriting) return OnWritable(c, now);
      if (c.in.size() > options.max_header_bytes) return false;  // cannot happen after TryParse
    }
  }

  bool OnWritable(Connection& c, Clock::time_point now) {
    while (c.out_off < c.out.size()) {
      ssize_t n = ::send(c.fd, c.out.data() + c.out_off, c.out.size() - c.out_off, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        return errno == EAGAIN || errno == EWOULDBLOCK;
      }
      c.out_off += static_cast<size_t>(n);
    }
    c.out.clear();
    c.out.shrink_to_fit();
    c.out_off = 0;
    if (c.close_after_write) {
      ::shutdown(c.fd, SHUT_WR);
      c.in.clear();
      SetState(c, ConnState::kDraining, now, kDrainTimeout);
      return true;
    }
    SetState(c, ConnState::kIdle, now, options.idle_timeout);
    if (!c.in.empty()) {  // a pipelined request already arrived
      SetState(c, ConnState::kReading, now, options.header_timeout);
      TryParse(c, now);
      if (c.state == ConnState::kWriting) return OnWritable(c, now);
    }
    return true;
  }

  void Close(size_t i) {
    ::close(conns[i]->fd);
    conns[i] = std::move(conns.back());
    conns.pop_back();
  }

  // Closes the connection that has waited longest without a request in progress (idle, or still
  // sending its headers); false when every connection is sending a response.
  bool Evict() {
    size_t victim = conns.size();
    for (size_t i = 0; i < conns.size(); ++i) {
      const Connection& c = *conns[i];
      if (c.state == ConnState::kWriting) continue;
      if (victim == conns.size() || c.state_since < conns[victim]->state_since) victim = i;
    }
    if (victim == conns.size()) return false;
    Count(&ServerStats::evicted);
    Close(victim);
    return true;
  }

  void Accept(Clock::time_point now) {
    for (;;) {
      int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR) continue;
        return;  // EAGAIN, or a transient error (EMFILE, ECONNABORTED): retry on the next wake
      }
      Count(&ServerStats::accepted);
      if (static_cast<int>(conns.size()) >= options.max_connections && !Evict()) {
        ::close(fd);
        continue;
      }
      int yes = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
      auto c = std::make_unique<Connection>();
      c->fd = fd;
      SetState(*c, ConnState::kIdle, now, options.header_timeout);
      conns.push_back(std::move(c));
    }
  }

  // Closes what is past its deadline.
  void Expire(Clock::time_point now) {
    for (size_t i = conns.size(); i-- > 0;) {
      Connection& c = *conns[i];
      if (now < c.deadline) continue;
      if (c.state == ConnState::kReading) {
        Count(&ServerStats::header_timeouts);
        // Best effort, never blocking: the client may not read it.
        Error(c, 408, "request headers not received in time", now);
        (void)::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      } else if (c.state == ConnState::kIdle) {
        Count(c.requests == 0 ? &ServerStats::header_timeouts : &ServerStats::idle_closed);
      } else if (c.state == ConnState::kWriting) {
        Count(&ServerStats::write_timeouts);
      }
      Close(i);
    }
  }
};

HttpServer::HttpServer(ServerOptions options, std::vector<std::string> paths, HttpHandler handler)
    : impl_(new Impl) {
  impl_->options = std::move(options);
  impl_->paths = std::move(paths);
  impl_->handler = std::move(handler);
  int p[2];
  if (::pipe2(p, O_NONBLOCK | O_CLOEXEC) == 0) {
    impl_->wake_read = p[0];
    impl_->wake_write = p[1];
  }
}

HttpServer::~HttpServer() {
  for (auto& c : impl_->conns) ::close(c->fd);
  if (impl_->listen_fd >= 0) ::close(impl_->listen_fd);
  if (impl_->wake_read >= 0) ::close(impl_->wake_read);
  if (impl_->wake_write >= 0) ::close(impl_->wake_write);
  delete impl_;
}

Result<int> HttpServer::Bind() {
  const ServerOptions& o = impl_->options;
  const std::string where = fmt::format("{}:{}", o.host, o.port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  const std::string port = std::to_string(o.port);
  if (int rc = ::getaddrinfo(o.host.c_str(), port.c_str(), &hints, &res); rc != 0) {
    return Unavailable(fmt::format("cannot listen on {}: {}", where, gai_strerror(rc)));
  }
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> guard(res, freeaddrinfo);
  int err = 0;
  for (addrinfo* a = res; a != nullptr; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      err = errno;
      continue;
    }
    // SO_REUSEADDR for quick restarts; never SO_REUSEPORT, which would let a second exporter
    // bind the same port and silently take half the scrapes.
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, 1024) != 0) {
      err = errno;
      ::close(fd);
      continue;
    }
    sockaddr_storage bound{};
    socklen_t len = sizeof(bound);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
    int bound_port = bound.ss_family == AF_INET6
                         ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                         : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    impl_->listen_fd = fd;
    return bound_port;
  }
  return Unavailable(fmt::format("cannot listen on {}{}", where,
                                 err != 0 ? std::string(": ") + std::strerror(err) : ""));
}

bool HttpServer::Run() {
  Impl& s = *impl_;
  if (s.listen_fd < 0 || s.wake_read < 0) return false;
  std::vector<pollfd> fds;
  while (!s.stop.load()) {
    Clock::time_point now = Clock::now();
    s.Expire(now);
    Clock::time_point next = now + std::chrono::seconds(1);
    fds.clear();
    fds.push_back({s.wake_read, POLLIN, 0});
    fds.push_back({s.listen_fd, POLLIN, 0});
    for (const auto& c : s.conns) {
      short events = c->state == ConnState::kWriting ? POLLOUT : POLLIN;
      fds.push_back({c->fd, events, 0});
      next = std::min(next, c->deadline);
    }
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count();
    int n = ::poll(fds.data(), fds.size(), static_cast<int>(std::max<int64_t>(wait, 0) + 1));
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (fds[0].revents != 0) {
      char drain[64];
      while (::read(s.wake_read, drain, sizeof(drain)) > 0) {
      }
    }
    now = Clock::now();
    // Connections first (their indexes match fds[2...]); closing swaps in the last one, so walk
    // backwards and look each fd up by position before any close.
    const size_t count = s.conns.size();
    for (size_t i = count; i-- > 0;) {
      const pollfd& p = fds[i + 2];
      if (p.revents == 0) continue;
      Connection& c = *s.conns[i];
      bool keep = true;
      if (p.revents & (POLLERR | POLLNVAL)) {
        keep = false;
      } else if (c.state == ConnState::kWriting) {
        keep = (p.revents & POLLHUP) == 0 && s.OnWritable(c, now);
      } else {
        keep = s.OnReadable(c, now);
      }
      if (!keep) s.Close(i);
    }
    if (fds[1].revents & POLLIN) s.Accept(now);
  }
  return true;
}

void HttpServer::Stop() {
  impl_->stop.store(true);
  if (impl_->wake_write >= 0) {
    char b = 1;
    ssize_t r = ::write(impl_->wake_write, &b, 1);
    (void)r;
  }
}

ServerStats HttpServer::stats() const {
  std::lock_guard<std::mutex> lock(impl_->stats_mu);
  return impl_->stats;
}

bool AcceptsGzip(const std::string& accept) {
  size_t at = accept.find("gzip");
  if (at == std::string::npos) return false;
  size_t end = accept.find(',', at);
  std::string item = accept.substr(at, end == std::string::npos ? std::string::npos : end - at);
  item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
  return item.find("q=0") == std::string::npos || item.find("q=0.") != std::string::npos;
}

std::string ExporterIndexPage() {
  return "<!DOCTYPE html>\n<html><head><title>gpuvet exporter</title></head><body>\n"
         "<h1>gpuvet exporter</h1>\n"
         "<p>Prometheus metrics of this node's GPUs and the results of <code>gpuvet check"
         "</code>.</p>\n<ul>\n"
         "<li><a href=\"/metrics\">/metrics</a>: Prometheus text exposition</li>\n"
         "<li><a href=\"/healthz\">/healthz</a>: liveness: 200 whenever the server runs</li>\n"
         "<li><a href=\"/livez\">/livez</a>: the same, with a fixed body (Kubernetes "
         "liveness)</li>\n"
         "<li><a href=\"/readyz\">/readyz</a>: readiness: 200 when the last collection "
         "succeeded recently, 503 with the reason otherwise</li>\n"
         "</ul>\n</body></html>\n";
}

ExporterServer::ExporterServer(Collector& collector, ServerOptions options)
    : collector_(collector),
      server_(std::move(options), {"/", "/metrics", "/healthz", "/livez", "/readyz"},
              [this](const HttpRequest& req) { return Handle(req); }) {}

HttpResponse ExporterServer::Handle(const HttpRequest& req) {
  HttpResponse res;
  if (req.path == "/metrics") {
    const bool gzip = AcceptsGzip(req.accept_encoding);
    res.content_type = kExpositionType;
    res.body = collector_.RenderScrape(gzip);
    res.extra_headers =
        gzip ? "Content-Encoding: gzip\r\nVary: Accept-Encoding\r\n" : "Vary: Accept-Encoding\r\n";
  } else if (req.path == "/healthz") {
    res.body = "ok: serving; " + collector_.Health().reason + "\n";
  } else if (req.path == "/livez") {
    // Liveness never looks at the GPU: restarting the exporter cannot fix a wedged GPU, it
    // would only lose the Xid counters.
    res.body = "ok\n";
  } else if (req.path == "/readyz") {
    ExporterHealth h = collector_.Health();
    res.status = h.healthy ? 200 : 503;
    res.body = h.reason + "\n";
  } else {
    res.content_type = "text/html; charset=utf-8";
    res.body = ExporterIndexPage();
  }
  return res;
}

}  // namespace gpuvet
