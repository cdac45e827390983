#include "sources/recording/read_ahead.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

namespace gpuvet {
namespace {

// A producer of `n` samples: sample i has t = i and i % 5 processes with pid i * 10 + k. It
// overwrites what a reused slot held, as RecordingCursor::Next does.
struct Producer {
  int n;
  std::atomic<int> made{0};
  bool operator()(Sample* s) {
    const int i = made.load();
    if (i >= n) return false;
    s->t = i;
    s->processes.clear();
    for (int k = 0; k < i % 5; ++k) {
      ProcessSample p;
      p.pid = i * 10 + k;
      s->processes.push_back(p);
    }
    made.store(i + 1);
    return true;
  }
};

void ExpectSample(const Sample& s, int i) {
  ASSERT_EQ(s.t, i);
  ASSERT_EQ(s.processes.size(), static_cast<size_t>(i % 5));
  for (int k = 0; k < i % 5; ++k) ASSERT_EQ(s.processes[k].pid, i * 10 + k);
}

TEST(ReadAheadTest, EverySampleInOrderWhateverTheDepth) {
  for (size_t depth : {0u, 1u, 2u, 3u, 7u, 64u}) {
    Producer p{20000};
    int seen = 0;
    ForEachSampleReadAhead([&](Sample* s) { return p(s); },
                           [&](const Sample& s) { ExpectSample(s, seen++); }, depth);
    EXPECT_EQ(seen, 20000) << "depth " << depth;
  }
}

TEST(ReadAheadTest, NothingToReadConsumesNothing) {
  int calls = 0, consumed = 0;
  ForEachSampleReadAhead(
      [&](Sample*) {
        ++calls;
        return false;
      },
      [&](const Sample&) { ++consumed; });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(consumed, 0);
}

TEST(ReadAheadTest, TheReaderStaysWithinTheDepthOfASlowConsumer) {
  Producer p{300};
  std::atomic<int> consumed{0};
  int most_ahead = 0;
  ForEachSampleReadAhead([&](Sample* s) { return p(s); },
                         [&](const Sample& s) {
                           most_ahead = std::max(most_ahead, p.made.load() - consumed.load());
                           std::this_thread::sleep_for(std::chrono::microseconds(50));
                           ExpectSample(s, consumed.fetch_add(1));
                         },
                         16);
  EXPECT_EQ(consumed.load(), 300);
  EXPECT_LE(most_ahead, 16);
  EXPECT_GE(most_ahead, 2);  // it did read ahead
}

TEST(ReadAheadTest, AConsumerErrorStopsTheReaderAndIsRethrown) {
  Producer p{1000000};
  int consumed = 0;
  EXPECT_THROW(ForEachSampleReadAhead([&](Sample* s) { return p(s); },
                                      [&](const Sample&) {
                                        if (++consumed == 100) throw std::runtime_error("stop");
                                      },
                                      32),
               std::runtime_error);
  EXPECT_EQ(consumed, 100);
  EXPECT_LE(p.made.load(), 100 + 32 + 1);  // it stopped reading soon after
}

TEST(ReadAheadTest, AReaderErrorComesAfterTheSamplesBeforeIt) {
  Producer p{1000};
  int consumed = 0;
  EXPECT_THROW(ForEachSampleReadAhead(
                   [&](Sample* s) {
                     if (p.made.load() == 50) throw std::runtime_error("damaged");
                     return p(s);
                   },
                   [&](const Sample& s) { ExpectSample(s, consumed++); }),
               std::runtime_error);
  EXPECT_EQ(consumed, 50);
}

}  // namespace
}  // namespace gpuvet
