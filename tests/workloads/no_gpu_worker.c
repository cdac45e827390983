// A job that silently runs on the CPU: a parent and one forked child, each with a thread named
// "worker" busy about 90 % of the time, for the given seconds. It never opens /dev/nvidia*.
// Together they ask for ~1.8 cores, so even on a 2-core machine shared with a parallel build
// (load 5) they keep more than the 50 % of a core cpu_fallback needs.
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds = 2;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void* work(void* arg) {
  (void)arg;
  double end = now() + seconds;
  volatile double x = 1;
  while (now() < end) {
    double busy_until = now() + 0.009;
    while (now() < busy_until) x = x * 1.0000001 + 1e-9;
    struct timespec d = {0, 1 * 1000 * 1000};
    nanosleep(&d, NULL);
  }
  return NULL;
}

static void run(void) {
  pthread_t t;
  pthread_create(&t, NULL, work, NULL);
  pthread_setname_np(t, "worker");
  pthread_join(t, NULL);
}

int main(int argc, char** argv) {
  if (argc > 1) seconds = atof(argv[1]);
  pid_t child = fork();
  if (child == 0) {
    run();
    _exit(0);
  }
  run();
  int status = 0;
  if (child > 0) waitpid(child, &status, 0);
  return 0;
}
