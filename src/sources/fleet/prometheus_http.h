// One HTTP/1.1 request with hard bounds, for the Prometheus client: a single deadline covers
// name resolution's result, connect, TLS handshake, sending and every read (so a server that
// drips a byte at a time cannot stretch it past the timeout), and the answer is refused once it
// exceeds a byte cap (so an endless body cannot grow memory). Content-Length, chunked and
// read-until-close bodies are understood. https uses the system's OpenSSL, loaded with dlopen
// on first use: commands that never use https never map libssl or libcrypto.
#pragma once

#include <cstddef>
#include <string>

#include "util/status.h"

namespace gpuvet {

struct HttpCall {
  bool tls = false;  // https
  std::string host;  // name or address (IPv6 without brackets)
  int port = 80;
  std::string method = "POST";
  std::string path = "/";  // with the query string, if any
  std::string content_type;
  std::string body;
  double timeout_s = 10;               // the whole exchange
  size_t max_bytes = size_t{1} << 27;  // headers + decoded body
};

struct HttpAnswer {
  int status = 0;
  std::string body;
};

// Runs `call`. Unavailable with what went wrong: "cannot connect (...)", "no answer within N s
// (the limit for the whole request)", "answer larger than N bytes", "TLS: ...", or a malformed
// answer. Thread-compatible (no shared state beyond the one-time OpenSSL load).
Result<HttpAnswer> HttpExchange(const HttpCall& call);

}  // namespace gpuvet
