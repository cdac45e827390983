// An I/O-bound input pipeline: writes a 64 MiB file, then reads it back again and again with
// O_DIRECT (no page cache) for the given seconds. Where O_DIRECT is refused (tmpfs), reads
// normally and drops the file's pages with posix_fadvise(DONTNEED) after each pass.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { kChunk = 1 << 20, kChunks = 64 };

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: odirect_reader DIR [seconds]\n");
    return 2;
  }
  double seconds = argc > 2 ? atof(argv[2]) : 3;
  char path[4096];
  snprintf(path, sizeof(path), "%s/odirect_reader.%d.bin", argv[1], (int)getpid());
  void* buf = NULL;
  if (posix_memalign(&buf, 4096, kChunk) != 0) return 1;
  memset(buf, 0x5a, kChunk);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) {
    perror(path);
    return 1;
  }
  for (int i = 0; i < kChunks; ++i) {
    if (write(fd, buf, kChunk) != kChunk) {
      perror("write");
      unlink(path);
      return 1;
    }
  }
  fsync(fd);
  close(fd);
  int direct = 1;
  int rfd = open(path, O_RDONLY | O_DIRECT);
  if (rfd < 0) {
    direct = 0;
    rfd = open(path, O_RDONLY);
  }
  if (rfd < 0) {
    perror(path);
    unlink(path);
    return 1;
  }
  posix_fadvise(rfd, 0, 0, POSIX_FADV_DONTNEED);
  double end = now() + seconds;
  long long mib = 0;
  while (now() < end) {
    ssize_t n = pread(rfd, buf, kChunk, (mib % kChunks) * (off_t)kChunk);
    if (n < 0 && direct) {  // O_DIRECT opened but reads refused: fall back
      close(rfd);
      direct = 0;
      rfd = open(path, O_RDONLY);
      continue;
    }
    if (n <= 0) break;
    ++mib;
    if (!direct && mib % kChunks == 0) posix_fadvise(rfd, 0, 0, POSIX_FADV_DONTNEED);
    if (mib % 64 == 0) {
      printf("read %lld MiB\n", mib);
      fflush(stdout);
    }
  }
  close(rfd);
  unlink(path);
  free(buf);
  printf("read %lld MiB (%s)\n", mib, direct ? "O_DIRECT" : "page cache dropped");
  return 0;
}
