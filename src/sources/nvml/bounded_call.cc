// One worker thread fed by a queue. Completion is a flag in a heap slot shared by caller and
// worker, so whichever finishes last frees it; nothing here ever joins the worker. A batch slot
// also carries the progress of its job (which call runs, since when), written by the worker
// without waking the caller, read by the caller when its deadline wakes it.
#include "sources/nvml/bounded_call.h"

#include <fmt/format.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace gpuvet {

// One queued call and its outcome, shared by the caller and the worker.
struct BoundedExecutor::Slot {
  std::function<int()> fn;
  bool done = false;       // worker finished fn
  bool abandoned = false;  // caller gave up: do not run it (a batch: skip its remaining calls)
  int code = 0;
  // Batches: the call in progress (guarded by Shared::mu).
  bool in_call = false;
  std::string call;
  std::chrono::steady_clock::time_point call_start;
  uint64_t calls = 0;
  bool out_of_time = false;  // a call of the batch was skipped because the deadline passed
};

struct BoundedExecutor::Shared {
  std::mutex mu;
  std::condition_variable cv;  // signals both "work queued" and "work done"
  std::deque<std::shared_ptr<Slot>> queue;
  bool stop = false;
};

// The worker-side runner of one batch: calls run inline, bounded by the caller's watch. Holds
// only heap state (the shared queue, the slot), never the executor, which may be gone by the
// time a hung call returns.
class BoundedExecutor::InlineRunner : public CallRunner {
 public:
  InlineRunner(std::shared_ptr<Shared> shared, std::shared_ptr<Slot> slot,
               std::optional<std::chrono::steady_clock::time_point> deadline,
               std::string budget_text)
      : shared_(std::move(shared)),
        slot_(std::move(slot)),
        deadline_(deadline),
        budget_text_(std::move(budget_text)) {}

  Result<int> Call(std::string_view name, std::function<int()> fn) override {
    {
      std::lock_guard<std::mutex> lock(shared_->mu);
      if (slot_->abandoned) return Timeout("skipped: the batch was abandoned after a hang");
      const auto now = std::chrono::steady_clock::now();
      if (slot_->out_of_time || (deadline_ && now >= *deadline_)) {
        slot_->out_of_time = true;
        return Timeout(fmt::format("skipped: the time budget of {} ran out", budget_text_));
      }
      slot_->in_call = true;
      slot_->call = std::string(name);
      slot_->call_start = now;
      ++slot_->calls;
    }
    const int code = fn();
    std::lock_guard<std::mutex> lock(shared_->mu);
    slot_->in_call = false;
    return code;
  }

 private:
  std::shared_ptr<Shared> shared_;
  std::shared_ptr<Slot> slot_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  std::string budget_text_;
};

BoundedExecutor::BoundedExecutor(std::chrono::milliseconds timeout)
    : timeout_(timeout), shared_(std::make_shared<Shared>()) {}

BoundedExecutor::~BoundedExecutor() {
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    shared_->stop = true;
  }
  shared_->cv.notify_all();
  // No join: the worker is detached. An idle one exits; a hung one exits whenever its call returns
  // (or never, and the process ends without waiting for it).
}

void BoundedExecutor::SetDeadline(std::chrono::steady_clock::time_point deadline,
                                  std::string budget_text) {
  deadline_ = deadline;
  budget_text_ = std::move(budget_text);
}

std::optional<Status> BoundedExecutor::Refusal() {
  const auto now = std::chrono::steady_clock::now();
  if (out_of_time_ || (deadline_ && now >= *deadline_)) {
    out_of_time_ = true;
    return Timeout(fmt::format("skipped: the time budget of {} ran out", budget_text_));
  }
  if (wedged()) return Timeout(fmt::format("skipped: {} hung earlier", hung_call_));
  return std::nullopt;
}

void BoundedExecutor::StartWorker() {
  if (worker_started_) return;
  // Detached at once so neither this object nor process exit ever waits for it.
  std::thread([shared = shared_] { WorkerLoop(shared); }).detach();
  worker_started_ = true;
}

Result<int> BoundedExecutor::Call(std::string_view name, std::function<int()> fn) {
  // A batch's hung call, replayed by its caller: the same message it would have had.
  if (!pending_timeout_.empty()) return Timeout(std::exchange(pending_timeout_, std::string()));
  if (std::optional<Status> refused = Refusal()) return *refused;
  const auto now = std::chrono::steady_clock::now();
  auto deadline = now + timeout_;
  const bool budget_cuts = deadline_ && *deadline_ <= deadline;  // the budget ends first
  if (budget_cuts) deadline = *deadline_;
  StartWorker();
  auto slot = std::make_shared<Slot>();
  slot->fn = std::move(fn);
  std::unique_lock<std::mutex> lock(shared_->mu);
  shared_->queue.push_back(slot);
  shared_->cv.notify_all();
  if (!shared_->cv.wait_until(lock, deadline, [&] { return slot->done; })) {
    slot->abandoned = true;
    hung_call_ = std::string(name);
    hung_slot_ = slot;
    if (budget_cuts) {
      out_of_time_ = true;
      return Timeout(fmt::format("{} had not returned when the time budget of {} ran out", name,
                                 budget_text_));
    }
    return Timeout(fmt::format("{} did not return within {} ms", name, timeout_.count()));
  }
  return slot->code;
}

Status BoundedExecutor::RunBatch(std::function<void(CallRunner&)> job,
                                 std::function<void()> on_hang) {
  if (std::optional<Status> refused = Refusal()) return *refused;
  StartWorker();
  auto slot = std::make_shared<Slot>();
  auto runner = std::make_shared<InlineRunner>(shared_, slot, deadline_, budget_text_);
  slot->fn = [runner, job = std::move(job)]() {
    job(*runner);
    return 0;
  };
  std::unique_lock<std::mutex> lock(shared_->mu);
  shared_->queue.push_back(slot);
  shared_->cv.notify_all();
  for (;;) {
    // Sleep until the running call's deadline (or, between calls, a full timeout from now: the
    // job's own code between calls is quick, and the runner applies the overall deadline to
    // each call it starts); the worker wakes this thread only when the job is done.
    const auto now = std::chrono::steady_clock::now();
    const bool was_in_call = slot->in_call;
    const uint64_t calls = slot->calls;
    auto deadline = was_in_call ? slot->call_start + timeout_ : now + timeout_;
    const bool budget_cuts = deadline_ && *deadline_ <= deadline;
    if (budget_cuts) deadline = *deadline_;
    // Between calls past the budget the runner skips the rest: wait a little, do not spin.
    if (!was_in_call) deadline = std::max(deadline, now + std::chrono::milliseconds(1));
    if (shared_->cv.wait_until(lock, deadline, [&] { return slot->done; })) break;
    // Past the deadline: a hang only when the call watched is still the one running.
    if (!was_in_call || !slot->in_call || slot->calls != calls) continue;
    slot->abandoned = true;
    if (on_hang) on_hang();
    hung_call_ = slot->call;
    hung_slot_ = slot;
    if (budget_cuts) {
      out_of_time_ = true;
      pending_timeout_ = fmt::format("{} had not returned when the time budget of {} ran out",
                                     slot->call, budget_text_);
    } else {
      pending_timeout_ =
          fmt::format("{} did not return within {} ms", slot->call, timeout_.count());
    }
    return Timeout(pending_timeout_);
  }
  if (slot->out_of_time) out_of_time_ = true;
  return Status::Ok();
}

bool BoundedExecutor::Recover() {
  if (!wedged()) return true;
  std::lock_guard<std::mutex> lock(shared_->mu);
  if (!hung_slot_->done) return false;
  hung_call_.clear();
  hung_slot_.reset();
  return true;
}

void BoundedExecutor::WorkerLoop(std::shared_ptr<Shared> shared) {
  std::unique_lock<std::mutex> lock(shared->mu);
  while (true) {
    shared->cv.wait(lock, [&] { return shared->stop || !shared->queue.empty(); });
    if (shared->queue.empty()) return;  // stopped and idle
    std::shared_ptr<Slot> slot = std::move(shared->queue.front());
    shared->queue.pop_front();
    if (slot->abandoned) {  // never run; "done" for Recover
      slot->done = true;
      continue;
    }
    lock.unlock();
    const int code = slot->fn();
    slot->fn = nullptr;  // release captures on this thread, before the caller reads outputs
    lock.lock();
    slot->code = code;
    slot->done = true;
    shared->cv.notify_all();
  }
}

}  // namespace gpuvet
