// The spec rows. Tensor figures are dense (datasheets print "with sparsity" figures twice as
// large; the table halves them). Memory bandwidth and host link as the datasheet gives; typical
// host copy rates from AzNHC. Merged from the forecast's table and the bench model table.
#include "core/hw/gpu_specs.h"

#include <cctype>
#include <vector>

#include "util/strings.h"

namespace gpuvet {

namespace {

// Sources.
constexpr std::string_view kA100 =
    "NVIDIA A100 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/a100): BF16 312 TFLOPS "
    "dense, FP32 19.5 TFLOPS, 1,555 GB/s (40GB) / 1,935 GB/s (80GB PCIe) / 2,039 GB/s (80GB SXM), "
    "PCIe Gen4";
constexpr std::string_view kH100 =
    "NVIDIA H100 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/h100): SXM BF16 1,979 "
    "TFLOPS with sparsity, FP32 67, 3.35 TB/s; NVL 1,671 / 60 / 3.9 TB/s; PCIe product brief "
    "PB-11133-001: 1,513 / 51 / 2 TB/s; PCIe Gen5 x16";
constexpr std::string_view kH200 =
    "NVIDIA H200 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/h200): SXM BF16 1,979 "
    "TFLOPS with sparsity, FP32 67, 4.8 TB/s; NVL 1,671 / 60 / 4.8 TB/s; PCIe Gen5 x16";
constexpr std::string_view kB200 =
    "NVIDIA HGX B200 datasheet (nvidia.com/en-us/data-center/hgx): per GPU FP16/BF16 4.5 PFLOPS "
    "with sparsity, FP32 75 TFLOPS, 7.7 TB/s, PCIe Gen5 128 GB/s (x16)";
constexpr std::string_view kL40S =
    "NVIDIA L40S datasheet (nvidia.com/en-us/data-center/l40s): BF16 733 TFLOPS with sparsity, "
    "FP32 91.6 TFLOPS, 864 GB/s, PCIe Gen4 x16";
constexpr std::string_view kL4 =
    "NVIDIA L4 datasheet (nvidia.com/en-us/data-center/l4): FP16 242 TFLOPS with sparsity, FP32 "
    "30.3 TFLOPS, 300 GB/s, PCIe Gen4 x16";
constexpr std::string_view kA10 =
    "NVIDIA A10 datasheet (nvidia.com/en-us/data-center/products/a10-gpu): BF16 250 TFLOPS with "
    "sparsity, FP32 31.2 TFLOPS, 600 GB/s, PCIe Gen4 x16";
constexpr std::string_view kT4 =
    "NVIDIA T4 datasheet (nvidia.com/en-us/data-center/tesla-t4): FP16 65 TFLOPS (no "
    "sparsity), FP32 8.1 TFLOPS, 320 GB/s, PCIe Gen3 x16";
constexpr std::string_view kV100 =
    "NVIDIA V100 datasheet (nvidia.com/en-us/data-center/v100): tensor 125 (SXM2) / 112 (PCIe) "
    "TFLOPS, FP32 15.7 / 14 TFLOPS, 900 GB/s, PCIe Gen3 x16";

// Typical pinned host copies: AzNHC's nvbandwidth minimums (azurehpc-health-checks README).
constexpr std::string_view kAzNhc = "AzNHC nvbandwidth minimum, azurehpc-health-checks README";

struct SpecRow {
  std::string_view needles[3];  // all must be whole tokens of the lowercased name
  GpuSpec spec;
};

// Most specific first: the NVL and PCIe variants before the SXM part (whose NVML name, "H100
// 80GB HBM3", says neither), the 80GB A100 before the 40GB one, L40S before L4, A100 before A10.
// T4 and V100 have no BF16 (Turing, Volta). Columns: key, bench_key, BF16, FP16, FP32, memory,
// bench memory, PCIe gen, width, typical H2D, its source, datasheet.
const SpecRow kRows[] = {
    {{"h200", "nvl"}, {"H200 NVL", "H200 NVL", 835, 835, 60, 4800, 4800, 5, 16, 0, {}, kH200}},
    {{"h200"}, {"H200", "H200", 989, 989, 67, 4800, 4800, 5, 16, 55, kAzNhc, kH200}},
    {{"h100", "pcie"}, {"H100 PCIe", "H100 PCIe", 756, 756, 51, 2000, 2000, 5, 16, 0, {}, kH100}},
    {{"h100", "nvl"}, {"H100 NVL", "H100 NVL", 835, 835, 60, 3900, 3900, 5, 16, 0, {}, kH100}},
    {{"h100"}, {"H100 SXM", "H100 SXM", 989, 989, 67, 3350, 3350, 5, 16, 52, kAzNhc, kH100}},
    {{"b200"}, {"B200", "B200", 2250, 2250, 75, 7700, 7700, 5, 16, 0, {}, kB200}},
    {{"a100", "80gb", "pcie"},
     {"A100 80GB PCIe", "A100 PCIe", 312, 312, 19.5, 1935, 1935, 4, 16, 23, kAzNhc, kA100}},
    {{"a100", "pcie"},
     {"A100 40GB PCIe", "A100 PCIe", 312, 312, 19.5, 1555, 1935, 4, 16, 23, kAzNhc, kA100}},
    {{"a100", "80gb"},
     {"A100 80GB", "A100 SXM", 312, 312, 19.5, 2039, 2039, 4, 16, 23, kAzNhc, kA100}},
    {{"a100"}, {"A100 40GB", "A100 SXM", 312, 312, 19.5, 1555, 2039, 4, 16, 23, kAzNhc, kA100}},
    {{"l40s"}, {"L40S", "L40S", 362, 362, 91.6, 864, 864, 4, 16, 0, {}, kL40S}},
    {{"l4"}, {"L4", "L4", 121, 121, 30.3, 300, 300, 4, 16, 0, {}, kL4}},
    {{"a10"}, {"A10", "A10", 125, 125, 31.2, 600, 600, 4, 16, 0, {}, kA10}},
    {{"t4"}, {"T4", "T4", 0, 65, 8.1, 320, 320, 3, 16, 0, {}, kT4}},
    {{"v100", "pcie"}, {"V100 PCIe", "V100 PCIe", 0, 112, 14, 900, 900, 3, 16, 0, {}, kV100}},
    {{"v100"}, {"V100 SXM2", "V100 SXM2", 0, 125, 15.7, 900, 900, 3, 16, 0, {}, kV100}},
};

std::vector<std::string> Tokens(std::string_view name) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!cur.empty()) {
      out.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

bool HasToken(const std::vector<std::string>& tokens, std::string_view t) {
  for (const std::string& x : tokens) {
    if (x == t) return true;
  }
  return false;
}

}  // namespace

std::span<const GpuSpec> GpuSpecs() {
  static const std::vector<GpuSpec> specs = [] {
    std::vector<GpuSpec> v;
    for (const SpecRow& r : kRows) v.push_back(r.spec);
    return v;
  }();
  return specs;
}

const GpuSpec* FindGpuSpec(std::string_view name) {
  std::vector<std::string> tokens = Tokens(name);
  if (tokens.empty()) return nullptr;
  // Rows are returned from GpuSpecs(), so a lookup and a walk over the table agree on identity.
  const std::span<const GpuSpec> specs = GpuSpecs();
  for (size_t i = 0; i < specs.size(); ++i) {  // a key given exactly ("H100 SXM", "a100-80gb-pcie")
    if (Tokens(kRows[i].spec.key) == tokens) return &specs[i];
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    bool all = true;
    for (std::string_view n : kRows[i].needles) {
      if (!n.empty() && !HasToken(tokens, n)) all = false;
    }
    if (all) return &specs[i];
  }
  return nullptr;
}

std::string GpuSpecKeys() {
  std::vector<std::string> keys;
  for (const SpecRow& r : kRows) keys.emplace_back(r.spec.key);
  return Join(keys, ", ");
}

}  // namespace gpuvet
