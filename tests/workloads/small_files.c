// A metadata-bound input pipeline: writes COUNT small files (4 KiB each) in DIR, then, for the
// given seconds, opens, reads and closes them one after another with O_DIRECT (no page cache;
// where O_DIRECT is refused, e.g. tmpfs, reads normally and drops the pages with
// posix_fadvise(DONTNEED)) — the million-JPEG dataset in miniature. Removes its files at the end.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { kFileBytes = 4096 };

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void file_name(char* out, size_t n, const char* dir, int i) {
  snprintf(out, n, "%s/small_%d_%05d.jpg", dir, (int)getpid(), i);
}

static void remove_all(const char* dir, int count) {
  char path[4096];
  for (int i = 0; i < count; ++i) {
    file_name(path, sizeof(path), dir, i);
    unlink(path);
  }
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: small_files DIR [seconds=3] [count=2000]\n");
    return 2;
  }
  const double seconds = argc > 2 ? atof(argv[2]) : 3;
  const int count = argc > 3 ? atoi(argv[3]) : 2000;
  void* buf = NULL;
  if (posix_memalign(&buf, 4096, kFileBytes) != 0) return 1;
  memset(buf, 0x5a, kFileBytes);
  char path[4096];
  for (int i = 0; i < count; ++i) {
    file_name(path, sizeof(path), argv[1], i);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || write(fd, buf, kFileBytes) != kFileBytes) {
      perror(path);
      remove_all(argv[1], i + 1);
      return 1;
    }
    fdatasync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
  }
  const double end = now() + seconds;
  long files = 0;
  while (now() < end) {
    for (int i = 0; i < count && now() < end; ++i) {
      file_name(path, sizeof(path), argv[1], i);
      int fd = open(path, O_RDONLY | O_DIRECT);
      int direct = fd >= 0;
      if (fd < 0) fd = open(path, O_RDONLY);
      if (fd < 0) {
        perror(path);
        remove_all(argv[1], count);
        return 1;
      }
      if (read(fd, buf, kFileBytes) < 0) perror("read");
      if (!direct) posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
      close(fd);
      ++files;
    }
    printf("read %ld files\n", files);
    fflush(stdout);
  }
  remove_all(argv[1], count);
  free(buf);
  return 0;
}
