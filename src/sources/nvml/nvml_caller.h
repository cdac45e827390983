// Internal to the NVML source: NvmlCaller runs every NVML call through the bounded executor,
// classifies the answer (value / not supported / lost / error / hung) and records failures, so the
// per-field readers (nvml_device_reader.cc, nvml_source.cc) say only "which call, which unit".
#pragma once

#include <any>
#include <initializer_list>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/gpu_state.h"
#include "sources/nvml/bounded_call.h"
#include "sources/nvml/nvml_loader.h"

namespace gpuvet::nvml_internal {

// Pseudo return codes (never NVML codes): this call hung; this call was skipped after a hang.
constexpr int kTimedOut = -1;
constexpr int kSkipped = -2;

// What an NVML return code says about the GPU that answered it (GpuFault, one meaning per code).
GpuFault GpuFaultOf(int code);

// What one bounded call came to.
struct Outcome {
  bool called = true;  // false: skipped because the GPU was lost earlier
  int code = NVML_SUCCESS;
  std::string note;  // for readings: "nvmlX: not supported" / "nvmlX: UNKNOWN" / hang text
  bool ok() const { return called && code == NVML_SUCCESS; }
  bool unsupported() const {
    return called && (code == NVML_ERROR_NOT_SUPPORTED || code == NVML_ERROR_FUNCTION_NOT_FOUND);
  }
  // Timed out, or skipped after an earlier hang.
  bool stalled() const { return code == kTimedOut || code == kSkipped; }
};

// The raw answers of one GPU's calls in order, recorded on the worker thread during a batch and
// replayed on the caller's thread, so the GpuState is built there by the same code from the same
// answers, whether the batch finished or hung part way (then the replay runs out of answers at
// the hung call, which the executor answers with its timeout). Thread-safe.
class CallTape {
 public:
  template <typename T>
  void Record(const Result<BoundedAnswer<T>>& answer) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!closed_) entries_.emplace_back(answer);
  }
  // Stops recording (a hung call that returns later adds nothing) and returns the answers.
  std::vector<std::any> Close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    return entries_;
  }

 private:
  std::mutex mu_;
  std::vector<std::any> entries_;
  bool closed_ = false;
};

// Answers recorded on a tape, handed out in order.
struct TapeReplay {
  std::vector<std::any> entries;
  size_t next = 0;
};

// Runs NVML calls through the executor and records what went wrong. `gpu` is null for system
// calls (then GPU_IS_LOST is just an error). `lib`, `exec`, `failures` and `gpu` must outlive it.
// Not thread-safe (one caller per GPU, used from one thread).
class NvmlCaller {
 public:
  NvmlCaller(const NvmlLibrary& lib, CallRunner& exec, std::vector<CallFailure>* failures,
             GpuState* gpu)
      : lib_(lib), exec_(exec), failures_(failures), gpu_(gpu) {}

  // Records every raw answer on `tape` (the worker side of a batch); not owned.
  void RecordTo(CallTape* tape) { record_ = tape; }
  // Takes answers from `replay` while it has them, then calls through the executor; not owned.
  void ReplayFrom(TapeReplay* replay) { replay_ = replay; }

  // Runs fn(lib, out) bounded. Codes in `expected` are protocol answers (INSUFFICIENT_SIZE for a
  // count query) and are returned without being recorded.
  template <typename T, typename F>
  std::pair<Outcome, T> Query(const char* call, F fn, std::initializer_list<int> expected = {},
                              T initial = T{}) {
    if (gpu_ != nullptr && gpu_->lost) return {Outcome{false, NVML_ERROR_GPU_IS_LOST, {}}, T{}};
    const NvmlLibrary* lib = &lib_;
    Result<BoundedAnswer<T>> r =
        replay_ != nullptr && replay_->next < replay_->entries.size()
            ? std::any_cast<Result<BoundedAnswer<T>>>(replay_->entries[replay_->next++])
            : exec_.CallWith<T>(
                  call, [lib, fn](T& out) { return fn(*lib, out); }, std::move(initial));
    if (record_ != nullptr) record_->Record(r);
    if (!r.ok()) return {TimedOut(call, r.status().message()), T{}};
    Outcome o{true, r->code, {}};
    if (gpu_ != nullptr && (o.code == NVML_SUCCESS || o.code == NVML_ERROR_INSUFFICIENT_SIZE)) {
      ++gpu_->answered_calls;
    }
    for (int e : expected) {
      if (o.code == e) return {o, std::move(r.value().out)};
    }
    Classify(call, &o);
    return {o, std::move(r.value().out)};
  }

 private:
  // Outcome of a call that did not return in time, or was skipped after an earlier hang.
  Outcome TimedOut(const char* call, const std::string& message);
  // Sets the note of a failed call; marks the GPU lost or records the failure.
  void Classify(const char* call, Outcome* o);
  // Records a failure once per function (ECC counters call it four times).
  void AddFailure(const char* call, std::string message, bool timed_out);

  const NvmlLibrary& lib_;
  CallRunner& exec_;
  CallTape* record_ = nullptr;
  TapeReplay* replay_ = nullptr;
  std::vector<CallFailure>* failures_;
  GpuState* gpu_;
};

// Turns an outcome and the converted value into a Reading; absent when the call was skipped.
template <typename R>
Reading<R> ToReading(const Outcome& o, R value) {
  if (!o.called) return Reading<R>{};
  if (o.ok()) return Reading<R>::Of(std::move(value));
  if (o.unsupported()) return Reading<R>::Unsupported(o.note);
  return Reading<R>::Error(o.note);
}

}  // namespace gpuvet::nvml_internal
