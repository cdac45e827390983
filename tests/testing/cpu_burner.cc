// A workload for tests of the sampler and `gpuvet record`: `cpu_burner BUSY [SECONDS]` starts BUSY
// threads named "burner" that spin, while the main thread sleeps; it exits after SECONDS (default
// 30) so a test that dies never leaves it running. A separate program, so tests need not fork a
// multi-threaded test process and start threads in the child.
#include <pthread.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: cpu_burner BUSY_THREADS [SECONDS]\n");
    return 2;
  }
  const int busy = std::atoi(argv[1]);
  const int seconds = argc == 3 ? std::atoi(argv[2]) : 30;
  if (busy < 0 || busy > 256 || seconds <= 0) {
    std::fprintf(stderr, "cpu_burner: 0-256 threads, a positive number of seconds\n");
    return 2;
  }
  for (int i = 0; i < busy; ++i) {
    std::thread([] {
      pthread_setname_np(pthread_self(), "burner");
      volatile unsigned long x = 0;
      while (true) x = x + 1;
    }).detach();
  }
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  return 0;  // exits with the spinning threads
}
