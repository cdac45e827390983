// Status and Result<T>: errors as values (leveldb/abseil style). gpuvet never throws across
// layers; a function that can fail returns one of these and the caller decides what it means.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace gpuvet {

enum class StatusCode {
  kOk,
  kNotFound,          // a file, symbol or device that is not there
  kNotSupported,      // the hardware or driver does not offer this; neither zero nor an error
  kPermissionDenied,  // present but we may not read it
  kInvalidInput,      // malformed file, bad flag value, garbled sysfs text
  kTimeout,           // a bounded call did not return in time
  kUnavailable,       // a dependency (driver, library) is missing or failed
  kInternal,
};

// The outcome of an operation: ok, or a code with a human-readable message that names what failed
// (the file, the call, the byte offset) so it can be shown to an operator unchanged.
class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status NotSupported(std::string m) { return {StatusCode::kNotSupported, std::move(m)}; }
inline Status PermissionDenied(std::string m) {
  return {StatusCode::kPermissionDenied, std::move(m)};
}
inline Status InvalidInput(std::string m) { return {StatusCode::kInvalidInput, std::move(m)}; }
inline Status Timeout(std::string m) { return {StatusCode::kTimeout, std::move(m)}; }
inline Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
inline Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

// A value or the Status that explains its absence. Accessing value() of an error is a bug.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) { assert(!status_.ok()); }  // NOLINT

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  const T& value() const& { return *value_; }
  T& value() & { return *value_; }
  T&& value() && { return std::move(*value_); }
  const T& operator*() const& { return *value_; }
  const T* operator->() const { return &*value_; }
  T value_or(T fallback) const { return ok() ? *value_ : std::move(fallback); }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace gpuvet
