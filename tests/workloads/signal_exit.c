// Signal-forwarding target: installs handlers for the signals gpuvet record forwards, creates
// READY_FILE (so a test knows the handlers are in place), then waits. Exits 100 + the signal
// number when one arrives, 0 after the timeout.
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got = 0;

static void on_signal(int s) { got = s; }

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  double seconds = argc > 2 ? atof(argv[2]) : 10;
  int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
  for (unsigned i = 0; i < sizeof(signals) / sizeof(signals[0]); ++i) signal(signals[i], on_signal);
  int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd >= 0) close(fd);
  for (int i = 0; i < seconds * 100 && !got; ++i) {
    struct timespec d = {0, 10 * 1000 * 1000};
    nanosleep(&d, NULL);
  }
  return got ? 100 + got : 0;
}
