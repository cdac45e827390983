// The PTX kernels: each declares the entry its header promises, and each assembles with the
// toolkit's ptxas for Volta (sm_70) and Hopper (sm_90) when a toolkit is installed (a visible skip
// otherwise, or for an architecture the installed ptxas no longer targets: CUDA 13 dropped sm_70).
#include "sources/cuda/ptx_kernels.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace gpuvet {
namespace {

namespace fs = std::filesystem;

std::string TempDir() {
  const char* env = std::getenv("GPUVET_TEST_TMPDIR");
  fs::path dir = env != nullptr && env[0] != '\0' ? fs::path(env) : fs::path(testing::TempDir());
  dir /= "ptx_kernels_test";
  std::error_code ec;
  fs::create_directories(dir, ec);
  return dir.string();
}

// ptxas in the versioned toolkit folders (/usr/local/cuda-13.0/bin, …), newest version first; CI
// machines may have only a versioned folder and no /usr/local/cuda link. `root` is "/usr/local".
std::string FindVersionedPtxas(const fs::path& root) {
  std::vector<std::pair<std::vector<int>, fs::path>> found;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(root, ec)) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with("cuda-")) continue;
    const fs::path ptxas = e.path() / "bin" / "ptxas";
    if (access(ptxas.c_str(), X_OK) != 0) continue;
    std::vector<int> version;  // "13.0" -> {13, 0}; a non-numeric suffix sorts as 0
    std::stringstream parts(name.substr(5));
    for (std::string part; std::getline(parts, part, '.');)
      version.push_back(std::atoi(part.c_str()));
    found.emplace_back(version, ptxas);
  }
  if (found.empty()) return "";
  std::sort(found.begin(), found.end());
  return found.back().second.string();
}

// ptxas from PATH, else the default toolkit location, else the newest /usr/local/cuda-*/bin; ""
// when none exists.
std::string FindPtxas() {
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');) {
      if (dir.empty()) continue;
      const fs::path candidate = fs::path(dir) / "ptxas";
      if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
  }
  if (access("/usr/local/cuda/bin/ptxas", X_OK) == 0) return "/usr/local/cuda/bin/ptxas";
  return FindVersionedPtxas("/usr/local");
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Assembled {
  int exit_code = -1;
  std::string output;  // stdout and stderr of ptxas
};

Assembled Assemble(const std::string& ptxas, const std::string& arch, const std::string& name,
                   const std::string& ptx) {
  const std::string base = TempDir() + "/" + name + "_" + arch;
  std::ofstream(base + ".ptx") << ptx;
  const std::string command = "'" + ptxas + "' -arch=" + arch + " '" + base + ".ptx' -o '" + base +
                              ".cubin' > '" + base + ".log' 2>&1";
  const int status = std::system(command.c_str());
  Assembled result;
  result.exit_code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.output = ReadAll(base + ".log");
  return result;
}

TEST(PtxKernels, EachModuleDeclaresItsEntry) {
  const std::string_view expected[] = {kPtxEmptyKernel, kPtxCopyKernel, kPtxTriadKernel,
                                       kPtxFmaKernel, kPtxSpinKernel};
  ASSERT_EQ(AllPtxKernels().size(), std::size(expected));
  const std::string all = GpuvetPtxModule();
  for (size_t i = 0; i < std::size(expected); ++i) {
    const PtxKernel& k = AllPtxKernels()[i];
    EXPECT_EQ(k.entry, expected[i]);
    const std::string declaration = ".visible .entry " + std::string(k.entry) + "(";
    EXPECT_NE(PtxModuleFor(k).find(declaration), std::string::npos) << k.entry;
    EXPECT_NE(all.find(declaration), std::string::npos) << k.entry;
  }
}

TEST(PtxKernels, ModulesTargetTheLowIsa) {
  EXPECT_EQ(GpuvetPtxModule().rfind(".version 6.0\n.target sm_50\n.address_size 64\n", 0), 0u);
  EXPECT_EQ(GpuvetPtxModule().find(".version", 1), std::string::npos) << "one header only";
}

// The FLOP formula in ptx_kernels.h counts exactly the FMAs the loop body holds.
TEST(PtxKernels, FmaLoopHoldsTheDocumentedCount) {
  const PtxKernel& fma = AllPtxKernels()[3];
  ASSERT_EQ(fma.entry, kPtxFmaKernel);
  const size_t loop = fma.body.find("$Lfma_loop:\n");
  const size_t end = fma.body.find("\tsub.u32", loop);
  ASSERT_NE(loop, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  const std::string body = fma.body.substr(loop, end - loop);
  int count = 0;
  for (size_t pos = body.find("fma.rn.f32"); pos != std::string::npos;
       pos = body.find("fma.rn.f32", pos + 1)) {
    ++count;
  }
  EXPECT_EQ(count, kFmaPerIteration);
}

TEST(PtxasSearchTest, FindsTheNewestVersionedToolkit) {
  const fs::path root = fs::path(TempDir()) / ("usr-local-" + std::to_string(getpid()));
  fs::remove_all(root);
  for (const char* v : {"cuda-12.4", "cuda-13.0", "cuda-12.10", "cudnn"}) {
    fs::create_directories(root / v / "bin");
    const fs::path ptxas = root / v / "bin" / "ptxas";
    std::ofstream(ptxas) << "#!/bin/sh\n";
    fs::permissions(ptxas, fs::perms::owner_all);
  }
  EXPECT_EQ(FindVersionedPtxas(root), (root / "cuda-13.0" / "bin" / "ptxas").string());
  fs::remove_all(root / "cuda-13.0");
  EXPECT_EQ(FindVersionedPtxas(root), (root / "cuda-12.10" / "bin" / "ptxas").string());
  fs::remove_all(root);
  EXPECT_EQ(FindVersionedPtxas(root), "");
}

class PtxAssemble : public testing::TestWithParam<const char*> {};

TEST_P(PtxAssemble, EveryKernelAssembles) {
  const std::string ptxas = FindPtxas();
  if (ptxas.empty()) {
    GTEST_SKIP() << "ptxas not found (PATH, /usr/local/cuda/bin, /usr/local/cuda-*/bin): CUDA "
                    "toolkit not installed, "
                    "PTX kernels not assembled";
  }
  const std::string arch = GetParam();
  for (const PtxKernel& k : AllPtxKernels()) {
    const Assembled a = Assemble(ptxas, arch, std::string(k.entry), PtxModuleFor(k));
    if (a.exit_code != 0 && a.output.find("is not defined for option") != std::string::npos) {
      GTEST_SKIP() << ptxas << " does not target " << arch << " ("
                   << a.output.substr(0, a.output.find_last_not_of('\n') + 1)
                   << "); this toolkit cannot check it";
    }
    EXPECT_EQ(a.exit_code, 0) << k.entry << " for " << arch << ":\n" << a.output;
  }
  const Assembled all = Assemble(ptxas, arch, "gpuvet_all", GpuvetPtxModule());
  EXPECT_EQ(all.exit_code, 0) << "whole module for " << arch << ":\n" << all.output;
}

// sm_70 (Volta, the oldest GPU bench supports; ptxas before CUDA 13), sm_75 (what CUDA 13 still
// targets), sm_90 (Hopper) and sm_100 (Blackwell).
INSTANTIATE_TEST_SUITE_P(Ptx, PtxAssemble, testing::Values("sm_70", "sm_75", "sm_90", "sm_100"),
                         [](const testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

}  // namespace
}  // namespace gpuvet
