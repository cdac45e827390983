#include "sources/recording/read_ahead.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace gpuvet {

namespace {

// Each side wakes the other only once a batch of samples (or of free slots) is ready, not per
// sample: a wake per sample made both threads sleep and wake through futex calls about a million
// times on a week's recording, which cost more system time than the overlap saved.
constexpr size_t kMaxBatch = 32;

}  // namespace

void ForEachSampleReadAhead(const std::function<bool(Sample*)>& next,
                            const std::function<void(const Sample&)>& consume, size_t depth) {
  depth = std::max<size_t>(depth, 2);
  const size_t batch = std::min(kMaxBatch, depth / 2);
  std::vector<Sample> ring(depth);
  std::mutex mu;
  std::condition_variable data_cv, space_cv;
  // Samples [head, tail) are filled and not yet consumed; the reader fills slot tail % depth only
  // while tail - head < depth, so it never writes a slot the consumer may be reading.
  size_t head = 0, tail = 0;
  bool done = false, stop = false, consumer_waiting = false, reader_waiting = false;
  std::exception_ptr reader_error;

  auto read = [&] {
    size_t filled = 0, known_head = 0;  // known_head <= head: a stale value errs towards waiting
    try {
      for (;;) {
        if (filled - known_head >= depth) {
          std::unique_lock<std::mutex> lock(mu);
          tail = filled;  // the consumer may proceed with everything filled so far
          if (consumer_waiting) data_cv.notify_one();
          // Then wait for a batch of free slots, not one.
          while (!stop && filled - head + batch > depth) {
            reader_waiting = true;
            space_cv.wait(lock);
            reader_waiting = false;
          }
          known_head = head;
          if (stop) break;
        }
        if (!next(&ring[filled % depth])) break;
        ++filled;
        if (filled % batch == 0) {
          bool wake;
          {
            std::lock_guard<std::mutex> lock(mu);
            tail = filled;
            known_head = head;
            wake = consumer_waiting;
          }
          if (wake) data_cv.notify_one();
        }
      }
    } catch (...) {
      reader_error = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      tail = filled;
      done = true;
    }
    data_cv.notify_one();
  };

  std::thread reader;
  try {
    reader = std::thread(read);
  } catch (const std::system_error&) {
    Sample s;  // no thread (a process or cgroup at its thread limit): the plain loop
    while (next(&s)) consume(s);
    return;
  }

  std::exception_ptr consumer_error;
  try {
    size_t pos = 0;
    for (;;) {
      size_t available;
      {
        std::unique_lock<std::mutex> lock(mu);
        while (pos == tail && !done) {
          consumer_waiting = true;
          data_cv.wait(lock);
          consumer_waiting = false;
        }
        available = tail;
        if (pos == available) break;  // the reader is done and every sample consumed
      }
      while (pos < available) {
        const size_t end = std::min(available, pos + batch);
        for (; pos < end; ++pos) consume(ring[pos % depth]);
        bool wake;
        {
          std::lock_guard<std::mutex> lock(mu);
          head = pos;
          wake = reader_waiting && tail - head + batch <= depth;
        }
        if (wake) space_cv.notify_one();
      }
    }
  } catch (...) {
    consumer_error = std::current_exception();
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    stop = true;
  }
  space_cv.notify_one();
  reader.join();
  if (consumer_error) std::rethrow_exception(consumer_error);
  if (reader_error) std::rethrow_exception(reader_error);
}

}  // namespace gpuvet
