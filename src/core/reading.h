// Reading<T>: one measured field with its three honest outcomes. A value; "not supported / not
// present" (the hardware or driver does not offer it: reported as skipped, never as zero); or an
// error (the read failed, hung, or returned garbage), each with the reason in words.
#pragma once

#include <string>
#include <utility>

namespace gpuvet {

template <typename T>
struct Reading {
  enum class State { kAbsent, kValue, kNotSupported, kError };

  State state = State::kAbsent;  // kAbsent: nobody tried to read it (e.g. source skipped)
  T value{};
  std::string note;  // why not supported / what failed (names the call or file)

  static Reading Of(T v) { return Reading{State::kValue, std::move(v), {}}; }
  static Reading Unsupported(std::string why) {
    return Reading{State::kNotSupported, T{}, std::move(why)};
  }
  static Reading Error(std::string why) { return Reading{State::kError, T{}, std::move(why)}; }

  bool has() const { return state == State::kValue; }
  bool unsupported() const { return state == State::kNotSupported; }
  bool error() const { return state == State::kError; }
  const T& operator*() const { return value; }
  const T* operator->() const { return &value; }
};

}  // namespace gpuvet
