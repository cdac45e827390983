// File reads via POSIX calls so errno is kept and turned into a precise Status, and so the file
// type is checked before anything reads (a FIFO blocks read() forever when nobody writes to it).
#include "util/file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>

#include "util/strings.h"

namespace gpuvet {

namespace {
Status ErrnoStatus(const std::string& what, const std::string& path, int err) {
  std::string msg = what + " " + path + ": " + std::strerror(err);
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return NotFound(msg);
    case EACCES:
    case EPERM:
      return PermissionDenied(msg);
    default:
      return Unavailable(msg);
  }
}

// What stands at a path in words, for the refusal message.
const char* KindName(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

Status CheckKind(const std::string& path, mode_t mode, FileKinds kinds) {
  if (S_ISREG(mode)) return Status::Ok();
  if (S_ISFIFO(mode) && kinds == FileKinds::kRegularOrPipe) return Status::Ok();
  return InvalidInput(path + ": " + KindName(mode) +
                      ", not a regular file: refused (reading it could block or have effects)");
}
}  // namespace

Result<int> OpenForReading(const std::string& path, FileKinds kinds) {
  // stat() first, so a device is never opened (opening one can have effects of its own); fstat()
  // after open, so a path swapped in between is caught too. stat follows symlinks, as sysfs needs.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return ErrnoStatus("cannot open", path, errno);
  if (Status s = CheckKind(path, st.st_mode, kinds); !s.ok()) return s;
  // A FIFO the user named is opened blocking (it waits for its writer, as `cat` would); anything
  // else non-blocking, which changes nothing for a regular file and keeps a swapped-in FIFO from
  // blocking the open.
  const int flags = O_RDONLY | O_NOCTTY | O_CLOEXEC | (S_ISFIFO(st.st_mode) ? 0 : O_NONBLOCK);
  int fd;
  do {
    fd = ::open(path.c_str(), flags);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return ErrnoStatus("cannot open", path, errno);
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return ErrnoStatus("cannot stat", path, err);
  }
  if (Status s = CheckKind(path, st.st_mode, kinds); !s.ok()) {
    ::close(fd);
    return s;
  }
  return fd;
}

Status ReadFileInto(const std::string& path, size_t max_bytes, std::string& out, FileKinds kinds) {
  out.clear();
  Result<int> opened = OpenForReading(path, kinds);
  if (!opened.ok()) return opened.status();
  const int fd = *opened;
  // Straight into `out`'s storage, grown as needed: no copy, and a reused buffer is not
  // reallocated for a file no larger than the ones before.
  size_t len = 0;
  while (len < max_bytes) {
    if (len == out.size()) {
      out.resize(std::min(max_bytes, std::max({size_t{16384}, 2 * out.size(), out.capacity()})));
    }
    ssize_t n = ::read(fd, out.data() + len, out.size() - len);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      out.clear();
      return ErrnoStatus("cannot read", path, err);
    }
    if (n == 0) break;
    len += static_cast<size_t>(n);
  }
  ::close(fd);
  out.resize(len);
  return Status::Ok();
}

Result<std::string> ReadFile(const std::string& path, size_t max_bytes, FileKinds kinds) {
  std::string out;
  if (Status s = ReadFileInto(path, max_bytes, out, kinds); !s.ok()) return s;
  return out;
}

Result<std::string> ReadAttribute(const std::string& path) {
  auto r = ReadFile(path, kAttributeReadCap);
  if (!r.ok()) return r.status();
  return std::string(Trim(r.value()));
}

bool PathExists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

Status WriteFileAtomic(const std::string& path, const std::string& contents) {
  // The temporary file is created in the target's directory (so rename() is atomic) with
  // O_CREAT|O_EXCL|O_NOFOLLOW: whatever already stands at a candidate name (a file, or a symlink
  // planted by another user of a shared directory such as node_exporter's textfile directory) is
  // never opened, followed or truncated; the next candidate, with random bits, is tried instead.
  std::random_device random;
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = path + ".tmp." + std::to_string(::getpid());
    if (attempt > 0) tmp += fmt::format(".{:08x}", random());
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST) return ErrnoStatus("cannot create", tmp, errno);
  }
  if (fd < 0) return ErrnoStatus("cannot create", tmp, EEXIST);
  size_t off = 0;
  while (off < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + off, contents.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return ErrnoStatus("cannot write", tmp, err);
    }
    off += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return ErrnoStatus("cannot flush", tmp, err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return ErrnoStatus("cannot rename to", path, err);
  }
  return Status::Ok();
}

}  // namespace gpuvet
