// TempTree: mkdtemp under the test temp dir, files written through std::filesystem, and a
// best-effort recursive removal that never throws from the destructor.
#include "testing/temp_tree.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace gpuvet::test {

namespace fs = std::filesystem;

std::string TestTempDir() {
  const char* base = std::getenv("GPUVET_TEST_TMPDIR");
  fs::path dir = base != nullptr ? fs::path(base) : fs::path(::testing::TempDir());
  std::error_code ec;
  fs::create_directories(dir, ec);
  return dir.string();
}

TempTree::TempTree(std::string_view prefix) {
  std::string templ = (fs::path(TestTempDir()) / (std::string(prefix) + "_XXXXXX")).string();
  const char* made = ::mkdtemp(templ.data());
  EXPECT_NE(made, nullptr) << "mkdtemp " << templ;
  root_ = made != nullptr ? made : templ;
}

TempTree::~TempTree() {
  std::error_code ec;
  fs::remove_all(root_, ec);
}

std::string TempTree::Path(std::string_view rel) const { return (fs::path(root_) / rel).string(); }

void TempTree::Write(std::string_view rel, std::string_view text) const {
  fs::path p = fs::path(root_) / rel;
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

void TempTree::Link(std::string_view rel, std::string_view target) const {
  fs::path p = fs::path(root_) / rel;
  fs::create_directories(p.parent_path());
  fs::create_symlink(fs::path(target), p);
}

}  // namespace gpuvet::test
