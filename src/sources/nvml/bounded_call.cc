// One worker thread fed by a queue. Completion is a flag in a heap slot shared by caller and
// worker, so whichever finishes last frees it; nothing here ever joins the worker.
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
  bool abandoned = false;  // caller gave up before the worker started it: do not run it
  int code = 0;
};

struct BoundedExecutor::Shared {
  std::mutex mu;
  std::condition_variable cv;  // signals both "work queued" and "work done"
  std::deque<std::shared_ptr<Slot>> queue;
  bool stop = false;
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

Result<int> BoundedExecutor::Call(std::string_view name, std::function<int()> fn) {
  const auto now = std::chrono::steady_clock::now();
  if (out_of_time_ || (deadline_ && now >= *deadline_)) {
    out_of_time_ = true;
    return Timeout(fmt::format("skipped: the time budget of {} ran out", budget_text_));
  }
  if (wedged()) return Timeout(fmt::format("skipped: {} hung earlier", hung_call_));
  auto deadline = now + timeout_;
  const bool budget_cuts = deadline_ && *deadline_ <= deadline;  // the budget ends first
  if (budget_cuts) deadline = *deadline_;
  if (!worker_started_) {
    // Detached at once so neither this object nor process exit ever waits for it.
    std::thread([shared = shared_] { WorkerLoop(shared); }).detach();
    worker_started_ = true;
  }
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
