// BoundedExecutor: runs NVML calls on one worker thread and waits for each with a deadline, so a
// wedged GPU cannot hang `gpuvet check`. NVML serialises calls behind a global lock, so after one
// call hangs every later call would queue behind it: the executor is then "wedged" and answers the
// rest at once. A hung worker is detached and leaked; it never blocks the destructor or exit.
// RunBatch hands a whole sequence of calls (one GPU's read) to the worker at once: the calls run
// there back to back, without a thread hand-off each, and each is still bounded by the timeout.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "util/status.h"

namespace gpuvet {

// What a call that returned in time produced: the NVML return code and the output it wrote.
template <typename T>
struct BoundedAnswer {
  int code = 0;
  T out{};
};

// What NVML readers call through: the executor on the caller's thread, or the batch runner
// RunBatch hands to a job on the worker thread.
class CallRunner {
 public:
  virtual ~CallRunner() = default;
  // Runs `fn` bounded (see BoundedExecutor::Call for the contract).
  virtual Result<int> Call(std::string_view name, std::function<int()> fn) = 0;

  // Like Call, for a function that writes its output into a `T&` owned on the heap, so a call
  // that returns after its caller gave up writes into memory that is still alive.
  // fn: int(T& out). The answer carries the code and `out` (also for non-success codes, which
  // NVML uses to report counts, e.g. INSUFFICIENT_SIZE).
  template <typename T, typename F>
  Result<BoundedAnswer<T>> CallWith(std::string_view name, F fn, T initial = T{}) {
    auto out = std::make_shared<T>(std::move(initial));
    Result<int> code = Call(name, [out, fn]() mutable { return fn(*out); });
    if (!code.ok()) return code.status();
    // The worker finished with `out` before signalling completion, so reading it here is safe.
    return BoundedAnswer<T>{*code, std::move(*out)};
  }
};

// Not thread-safe: one caller thread at a time (the worker runs the calls, one by one).
class BoundedExecutor : public CallRunner {
 public:
  // `timeout` bounds each call (gpuvet's default is 2000 ms, set by the caller).
  explicit BoundedExecutor(std::chrono::milliseconds timeout);
  // Returns at once: an idle worker is told to stop, a hung worker is left running detached.
  ~BoundedExecutor();
  BoundedExecutor(const BoundedExecutor&) = delete;
  BoundedExecutor& operator=(const BoundedExecutor&) = delete;

  // Runs `fn` (returning an NVML return code) on the worker and waits up to the timeout. Returns
  // the code; Timeout("<name> did not return within N ms") when it did not return in time (the
  // executor is wedged from then on); Timeout("skipped: <hung call> hung earlier") once wedged.
  // `fn` may outlive this call (when it hangs), so it must own or copy everything it touches:
  // capture by value, and write outputs only into storage it owns (see CallWith).
  Result<int> Call(std::string_view name, std::function<int()> fn) override;

  // Runs `job` on the worker thread with a CallRunner whose calls run inline there, one hand-off
  // for the whole job. Each call is bounded as Call's are (the per-call timeout, the overall
  // deadline), watched from this thread, which sleeps until the job ends or a call's deadline
  // passes. Returns Ok when the job finished. When a call ran past its deadline, returns
  // Timeout with that call's message ("<name> did not return within N ms"); the executor is then
  // wedged as after a hung Call, the job's later calls are skipped, and the next Call on this
  // executor answers that same message once (so a caller replaying the job's answers sees the
  // hung call where it was) before the usual "skipped" ones. `job` must own everything it
  // touches (it may outlive this call), like Call's `fn`. Once wedged or out of time, returns
  // that state's Timeout without running `job`. `on_hang` (optional) runs when the hang is
  // declared, under the lock the job's calls take, so the job can be cut off atomically (e.g.
  // stop recording answers: a hung call returning just after must not count as answered).
  Status RunBatch(std::function<void(CallRunner&)> job, std::function<void()> on_hang = {});

  // An overall deadline on top of the per-call timeout (`gpuvet check --timeout`): a call still
  // running when it passes counts as hung (the executor wedges), and once it has passed every call
  // is skipped with "skipped: the time budget of <budget_text> ran out". `budget_text` says how
  // the budget was set ("16 s (--timeout)"). Without one, only the per-call timeout applies.
  void SetDeadline(std::chrono::steady_clock::time_point deadline, std::string budget_text);
  // True once the overall deadline has passed (a call was cut short or skipped because of it).
  bool out_of_time() const { return out_of_time_; }
  // How the budget was set, as given to SetDeadline ("" when none was).
  const std::string& budget_text() const { return budget_text_; }

  // True after a call timed out; every later call is skipped.
  bool wedged() const { return !hung_call_.empty(); }
  // For long-lived users (the recording sampler): when the call that hung has returned since,
  // clears the wedged state so later calls run again, and returns true. Returns false while it
  // is still running; true when nothing hung.
  bool Recover();
  // The call that hung ("" when none did).
  const std::string& hung_call() const { return hung_call_; }
  std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  struct Shared;  // queue and state shared with the worker thread (outlives this object if hung)
  struct Slot;    // one queued call
  class InlineRunner;  // the CallRunner of a batch, on the worker thread
  static void WorkerLoop(std::shared_ptr<Shared> shared);
  void StartWorker();
  // The state-dependent refusal before any work (budget gone, wedged); nullopt when free to run.
  std::optional<Status> Refusal();

  std::chrono::milliseconds timeout_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  std::string budget_text_;
  bool out_of_time_ = false;
  std::shared_ptr<Shared> shared_;
  bool worker_started_ = false;
  std::string hung_call_;
  std::shared_ptr<Slot> hung_slot_;  // the call that timed out, until Recover sees it finish
  std::string pending_timeout_;      // a batch's hung call message, answered once by Call
};

}  // namespace gpuvet
