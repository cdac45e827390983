// HttpExchange (see prometheus_http.h): a non-blocking socket driven by poll() against one
// deadline; a Transport hides plain TCP vs TLS (OpenSSL 3 resolved with dlsym, no link-time
// dependency).
#include "sources/fleet/prometheus_http.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>

#include "util/strings.h"

namespace gpuvet {

namespace {

using Clock = std::chrono::steady_clock;

// --- OpenSSL, loaded on first use -------------------------------------------------------------

struct Ssl {
  void* (*TLS_client_method)();
  void* (*SSL_CTX_new)(void*);
  void (*SSL_CTX_free)(void*);
  int (*SSL_CTX_set_default_verify_paths)(void*);
  void (*SSL_CTX_set_verify)(void*, int, void*);
  void* (*SSL_new)(void*);
  void (*SSL_free)(void*);
  int (*SSL_set_fd)(void*, int);
  long (*SSL_ctrl)(void*, int, long, void*);
  int (*SSL_set1_host)(void*, const char*);
  int (*SSL_connect)(void*);
  int (*SSL_read)(void*, void*, int);
  int (*SSL_write)(void*, const void*, int);
  int (*SSL_get_error)(const void*, int);
  long (*SSL_get_verify_result)(const void*);
  const char* (*X509_verify_cert_error_string)(long);
  unsigned long (*ERR_get_error)();
  void (*ERR_error_string_n)(unsigned long, char*, size_t);
};
constexpr int kSslVerifyPeer = 1;
constexpr int kSslCtrlSetTlsextHostname = 55;
constexpr long kTlsextNametypeHostName = 0;
constexpr int kSslErrorWantRead = 2;
constexpr int kSslErrorWantWrite = 3;
constexpr int kSslErrorZeroReturn = 6;

// The loaded library, or the reason it could not be loaded.
const Ssl* LoadSsl(std::string* why) {
  static std::once_flag once;
  static std::optional<Ssl> ssl;
  static std::string error;
  std::call_once(once, [] {
    void* h = dlopen("libssl.so.3", RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      const char* e = dlerror();
      error = std::string("https needs OpenSSL 3 (Debian package libssl3): ") +
              (e != nullptr ? e : "libssl.so.3 not found");
      return;
    }
    Ssl s{};
    bool ok = true;
    auto get = [&](auto& fn, const char* name) {
      void* p = dlsym(h, name);
      if (p == nullptr) {
        ok = false;
        error = fmt::format("libssl.so.3 has no {}", name);
      }
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
    };
    get(s.TLS_client_method, "TLS_client_method");
    get(s.SSL_CTX_new, "SSL_CTX_new");
    get(s.SSL_CTX_free, "SSL_CTX_free");
    get(s.SSL_CTX_set_default_verify_paths, "SSL_CTX_set_default_verify_paths");
    get(s.SSL_CTX_set_verify, "SSL_CTX_set_verify");
    get(s.SSL_new, "SSL_new");
    get(s.SSL_free, "SSL_free");
    get(s.SSL_set_fd, "SSL_set_fd");
    get(s.SSL_ctrl, "SSL_ctrl");
    get(s.SSL_set1_host, "SSL_set1_host");
    get(s.SSL_connect, "SSL_connect");
    get(s.SSL_read, "SSL_read");
    get(s.SSL_write, "SSL_write");
    get(s.SSL_get_error, "SSL_get_error");
    get(s.SSL_get_verify_result, "SSL_get_verify_result");
    // libcrypto's, found through libssl's dependencies.
    get(s.X509_verify_cert_error_string, "X509_verify_cert_error_string");
    get(s.ERR_get_error, "ERR_get_error");
    get(s.ERR_error_string_n, "ERR_error_string_n");
    if (ok) ssl = s;  // the handle stays open for the process
  });
  if (!ssl) *why = error;
  return ssl ? &*ssl : nullptr;
}

// --- transport ----------------------------------------------------------------------------------

class Deadline {
 public:
  explicit Deadline(double seconds)
      : end_(Clock::now() +
             std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds))) {}
  // Milliseconds left (at least 0), for poll().
  int LeftMs() const {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end_ - Clock::now()).count();
    return static_cast<int>(std::clamp<int64_t>(left, 0, 1 << 30));
  }
  bool Passed() const { return Clock::now() >= end_; }

 private:
  Clock::time_point end_;
};

// Waits until `fd` is ready for `events`; false when the deadline passed first.
bool WaitFor(int fd, short events, const Deadline& d) {
  for (;;) {
    if (d.Passed()) return false;
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, std::max(d.LeftMs(), 1));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return true;  // let the next read/write report the error
  }
}

struct Failure {
  bool timeout = false;
  std::string message;
};

class Transport {
 public:
  Transport(int fd, const Deadline& d) : fd_(fd), d_(d) {}
  virtual ~Transport() { ::close(fd_); }
  // Sends all of `data`; nullopt on success.
  virtual std::optional<Failure> Send(std::string_view data) = 0;
  // Reads some bytes into `out` (appending); 0 at end of stream; nullopt-like via failure.
  virtual std::optional<Failure> Receive(std::string* out, bool* eof) = 0;

 protected:
  int fd_;
  const Deadline& d_;
};

class PlainTransport : public Transport {
 public:
  using Transport::Transport;
  std::optional<Failure> Send(std::string_view data) override {
    size_t off = 0;
    while (off < data.size()) {
      ssize_t n = ::send(fd_, data.data() + off, data.size() - off, MSG_NOSIGNAL);
      if (n >= 0) {
        off += static_cast<size_t>(n);
        continue;
      }
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK)
        return Failure{false, std::string("send failed: ") + std::strerror(errno)};
      if (!WaitFor(fd_, POLLOUT, d_)) return Failure{true, ""};
    }
    return std::nullopt;
  }
  std::optional<Failure> Receive(std::string* out, bool* eof) override {
    char buf[65536];
    for (;;) {
      ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n > 0) {
        out->append(buf, static_cast<size_t>(n));
        return std::nullopt;
      }
      if (n == 0) {
        *eof = true;
        return std::nullopt;
      }
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK)
        return Failure{false, std::string("read failed: ") + std::strerror(errno)};
      if (!WaitFor(fd_, POLLIN, d_)) return Failure{true, ""};
    }
  }
};

class TlsTransport : public Transport {
 public:
  TlsTransport(int fd, const Deadline& d, const Ssl& ssl) : Transport(fd, d), s_(ssl) {}
  ~TlsTransport() override {
    if (ssl_ != nullptr) s_.SSL_free(ssl_);
    if (ctx_ != nullptr) s_.SSL_CTX_free(ctx_);
  }

  // Handshake with certificate and host name verification against the system's CA store.
  std::optional<Failure> Handshake(const std::string& host) {
    ctx_ = s_.SSL_CTX_new(s_.TLS_client_method());
    if (ctx_ == nullptr) return Failure{false, "TLS: cannot create a context: " + LastError()};
    s_.SSL_CTX_set_default_verify_paths(ctx_);
    s_.SSL_CTX_set_verify(ctx_, kSslVerifyPeer, nullptr);
    ssl_ = s_.SSL_new(ctx_);
    if (ssl_ == nullptr) return Failure{false, "TLS: " + LastError()};
    s_.SSL_set_fd(ssl_, fd_);
    s_.SSL_ctrl(ssl_, kSslCtrlSetTlsextHostname, kTlsextNametypeHostName,
                const_cast<char*>(host.c_str()));
    s_.SSL_set1_host(ssl_, host.c_str());
    for (;;) {
      int r = s_.SSL_connect(ssl_);
      if (r == 1) return std::nullopt;
      int e = s_.SSL_get_error(ssl_, r);
      if (e == kSslErrorWantRead || e == kSslErrorWantWrite) {
        if (!WaitFor(fd_, e == kSslErrorWantRead ? POLLIN : POLLOUT, d_)) return Failure{true, ""};
        continue;
      }
      long v = s_.SSL_get_verify_result(ssl_);
      if (v != 0) {
        return Failure{false, std::string("TLS: certificate verification failed: ") +
                                  s_.X509_verify_cert_error_string(v)};
      }
      return Failure{false, "TLS handshake failed: " + LastError()};
    }
  }

  std::optional<Failure> Send(std::string_view data) override {
    size_t off = 0;
    while (off < data.size()) {
      const int chunk = static_cast<int>(std::min<size_t>(data.size() - off, 1 << 20));
      int r = s_.SSL_write(ssl_, data.data() + off, chunk);
      if (r > 0) {
        off += static_cast<size_t>(r);
        continue;
      }
      int e = s_.SSL_get_error(ssl_, r);
      if (e != kSslErrorWantRead && e != kSslErrorWantWrite)
        return Failure{false, "TLS write failed: " + LastError()};
      if (!WaitFor(fd_, e == kSslErrorWantRead ? POLLIN : POLLOUT, d_)) return Failure{true, ""};
    }
    return std::nullopt;
  }

  std::optional<Failure> Receive(std::string* out, bool* eof) override {
    char buf[65536];
    for (;;) {
      int r = s_.SSL_read(ssl_, buf, sizeof(buf));
      if (r > 0) {
        out->append(buf, static_cast<size_t>(r));
        return std::nullopt;
      }
      int e = s_.SSL_get_error(ssl_, r);
      if (e == kSslErrorZeroReturn || (r == 0 && e != kSslErrorWantRead)) {
        *eof = true;
        return std::nullopt;
      }
      if (e != kSslErrorWantRead && e != kSslErrorWantWrite) {
        // A peer that closes without close_notify ends the stream too (read-until-close bodies).
        *eof = true;
        return std::nullopt;
      }
      if (!WaitFor(fd_, e == kSslErrorWantRead ? POLLIN : POLLOUT, d_)) return Failure{true, ""};
    }
  }

 private:
  std::string LastError() {
    unsigned long e = s_.ERR_get_error();
    if (e == 0) return "unknown error";
    char buf[256];
    s_.ERR_error_string_n(e, buf, sizeof(buf));
    return buf;
  }

  const Ssl& s_;
  void* ctx_ = nullptr;
  void* ssl_ = nullptr;
};

// Connects a non-blocking socket to host:port before the deadline.
Result<int> Connect(const HttpCall& call, const Deadline& d, bool* timed_out) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* res = nullptr;
  const std::string port = std::to_string(call.port);
  if (int rc = ::getaddrinfo(call.host.c_str(), port.c_str(), &hints, &res); rc != 0) {
    return Unavailable(fmt::format("cannot resolve {}: {}", call.host, gai_strerror(rc)));
  }
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> guard(res, freeaddrinfo);
  std::string why = "cannot connect (connection refused or host unreachable)";
  for (addrinfo* a = res; a != nullptr; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) return fd;
    if (errno == EINPROGRESS) {
      if (!WaitFor(fd, POLLOUT, d)) {
        ::close(fd);
        *timed_out = true;
        return Unavailable("timeout");
      }
      int err = 0;
      socklen_t len = sizeof(err);
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err == 0) return fd;
    }
    ::close(fd);
  }
  return Unavailable(why);
}

// Decodes a chunked body; nullopt while incomplete, "" with *error set when malformed.
std::optional<std::string> Dechunk(std::string_view in, std::string* error) {
  std::string out;
  size_t pos = 0;
  for (;;) {
    size_t eol = in.find("\r\n", pos);
    if (eol == std::string_view::npos) return std::nullopt;
    std::string_view size_text = in.substr(pos, eol - pos);
    size_text = size_text.substr(0, size_text.find(';'));  // chunk extensions
    size_text = Trim(size_text);
    if (size_text.empty() || size_text.size() > 15) {
      *error = "malformed chunk size";
      return std::string();
    }
    uint64_t n = 0;
    for (char c : size_text) {
      int v =
          std::isxdigit(static_cast<unsigned char>(c))
              ? (std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : std::tolower(c) - 'a' + 10)
              : -1;
      if (v < 0) {
        *error = "malformed chunk size";
        return std::string();
      }
      n = n * 16 + static_cast<uint64_t>(v);
    }
    pos = eol + 2;
    if (n == 0) return out;  // trailers ignored
    if (in.size() < pos + n + 2) return std::nullopt;
    out.append(in.substr(pos, n));
    pos += n + 2;
  }
}

}  // namespace

Result<HttpAnswer> HttpExchange(const HttpCall& call) {
  const Deadline d(call.timeout_s);
  const std::string timeout_text = fmt::format(
      "no answer within {} s (the limit for the whole request, --http-timeout)", call.timeout_s);
  const Ssl* ssl = nullptr;
  if (call.tls) {
    std::string why;
    ssl = LoadSsl(&why);
    if (ssl == nullptr) return Unavailable(why);
  }
  bool timed_out = false;
  Result<int> fd = Connect(call, d, &timed_out);
  if (!fd.ok()) return timed_out ? Unavailable(timeout_text) : fd.status();
  std::unique_ptr<Transport> t;
  if (call.tls) {
    auto tls = std::make_unique<TlsTransport>(*fd, d, *ssl);
    if (auto f = tls->Handshake(call.host))
      return Unavailable(f->timeout ? timeout_text : f->message);
    t = std::move(tls);
  } else {
    t = std::make_unique<PlainTransport>(*fd, d);
  }
  const bool v6 = call.host.find(':') != std::string::npos;
  std::string request = fmt::format(
      "{} {} HTTP/1.1\r\nHost: {}{}{}:{}\r\nUser-Agent: gpuvet\r\nAccept: application/json\r\n"
      "Accept-Encoding: identity\r\nConnection: close\r\n",
      call.method, call.path, v6 ? "[" : "", call.host, v6 ? "]" : "", call.port);
  if (!call.content_type.empty() || !call.body.empty()) {
    request += fmt::format("Content-Type: {}\r\nContent-Length: {}\r\n", call.content_type,
                           call.body.size());
  }
  request += "\r\n";
  request += call.body;
  if (auto f = t->Send(request)) return Unavailable(f->timeout ? timeout_text : f->message);

  std::string in;
  size_t header_end = std::string::npos;
  HttpAnswer answer;
  std::optional<size_t> content_length;
  bool chunked = false;
  const std::string too_large = fmt::format(
      "answer larger than {} bytes: refused (raise it with --http-max-mb)", call.max_bytes);
  for (;;) {
    bool eof = false;
    if (auto f = t->Receive(&in, &eof)) return Unavailable(f->timeout ? timeout_text : f->message);
    if (in.size() > call.max_bytes + (header_end == std::string::npos ? 0 : header_end)) {
      return Unavailable(too_large);
    }
    if (header_end == std::string::npos) {
      header_end = in.find("\r\n\r\n");
      if (header_end == std::string::npos) {
        if (in.size() > 65536) return Unavailable("malformed answer: headers larger than 64 KiB");
        if (eof) return Unavailable("the server closed the connection without an answer");
        continue;
      }
      std::vector<std::string_view> lines = Split(std::string_view(in).substr(0, header_end), '\n');
      std::vector<std::string_view> status = Split(Trim(lines[0]), ' ');
      if (status.size() < 2 || !StartsWith(status[0], "HTTP/1.")) {
        return Unavailable("malformed answer: not HTTP");
      }
      auto code = ParseInt(status[1]);
      if (!code || *code < 100 || *code > 999) return Unavailable("malformed answer: bad status");
      answer.status = static_cast<int>(*code);
      for (size_t i = 1; i < lines.size(); ++i) {
        std::string_view l = Trim(lines[i]);
        size_t colon = l.find(':');
        if (colon == std::string_view::npos) continue;
        std::string name = ToLower(Trim(l.substr(0, colon)));
        std::string_view value = Trim(l.substr(colon + 1));
        if (name == "content-length") {
          auto n = ParseInt(value);
          if (!n || *n < 0) return Unavailable("malformed answer: bad Content-Length");
          if (static_cast<uint64_t>(*n) > call.max_bytes) return Unavailable(too_large);
          content_length = static_cast<size_t>(*n);
        } else if (name == "transfer-encoding") {
          chunked = ToLower(value).find("chunked") != std::string::npos;
        }
      }
      header_end += 4;
    }
    std::string_view body = std::string_view(in).substr(header_end);
    if (chunked) {
      // Decode only once the terminating chunk may have arrived (a body ends "0\r\n\r\n" when
      // there are no trailers), not on every read.
      if (body.size() < 5 || body.substr(body.size() - 4) != "\r\n\r\n") {
        if (eof)
          return Unavailable("the server closed the connection before the answer was complete");
        continue;
      }
      std::string error;
      std::optional<std::string> decoded = Dechunk(body, &error);
      if (!error.empty()) return Unavailable("malformed answer: " + error);
      if (decoded) {
        answer.body = std::move(*decoded);
        return answer;
      }
    } else if (content_length && body.size() >= *content_length) {
      answer.body = std::string(body.substr(0, *content_length));
      return answer;
    } else if (!content_length && eof) {
      answer.body = std::string(body);
      return answer;
    }
    if (eof) return Unavailable("the server closed the connection before the answer was complete");
  }
}

}  // namespace gpuvet
