// Fixture trees for unit tests: a fresh directory under the test temp dir that a test fills with
// the files a source reads (a fake /proc, /sys or /dev), removed again when the test ends.
#pragma once

#include <string>
#include <string_view>

namespace gpuvet::test {

// The directory tests write into: $GPUVET_TEST_TMPDIR (set by ctest) or gtest's temp dir. Creates
// it when missing. Never fails the test: a failure surfaces when a file under it cannot be made.
std::string TestTempDir();

// A fresh directory "<prefix>_XXXXXX" under TestTempDir(), removed with everything in it by the
// destructor. Not copyable. Thread-compatible.
class TempTree {
 public:
  explicit TempTree(std::string_view prefix);
  ~TempTree();
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  // The absolute path of the tree; what a test passes as --root (HostPaths).
  const std::string& root() const { return root_; }

  // root()/rel.
  std::string Path(std::string_view rel) const;

  // Writes `text` (bytes as given) to root()/rel, creating parent directories; replaces a file.
  void Write(std::string_view rel, std::string_view text) const;

  // Creates the symlink root()/rel -> `target` (taken literally: relative targets stay relative),
  // creating parent directories.
  void Link(std::string_view rel, std::string_view target) const;

 private:
  std::string root_;
};

}  // namespace gpuvet::test
