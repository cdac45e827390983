// A CPU-bound "data loader": one thread named "feeder" spins for the given seconds while the main
// thread prints progress ("step N", every 100 ms) for --work-regex, then "feeder done". Exits with
// the given code.
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double seconds = 3;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void* spin(void* arg) {
  (void)arg;
  double end = now() + seconds;
  volatile unsigned long x = 0;
  while (now() < end) {
    for (int i = 0; i < 100000; ++i) x += (unsigned long)i * 2654435761u;
  }
  return (void*)(unsigned long)x; /* read once: clang warns on a volatile set but never read */
}

int main(int argc, char** argv) {
  if (argc > 1) seconds = atof(argv[1]);
  int code = argc > 2 ? atoi(argv[2]) : 0;
  pthread_t t;
  pthread_create(&t, NULL, spin, NULL);
  pthread_setname_np(t, "feeder");
  double end = now() + seconds;
  int step = 0;
  while (now() < end) {
    struct timespec d = {0, 100 * 1000 * 1000};
    nanosleep(&d, NULL);
    printf("step %d\n", ++step);
    fflush(stdout);
  }
  pthread_join(t, NULL);
  printf("feeder done\n");
  return code;
}
