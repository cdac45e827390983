// The spec rows. Tensor figures are dense (datasheets print "with sparsity" figures twice as
// large; the table halves them). Memory bandwidth and host link as the datasheet gives; typical
// host copy rates from AzNHC. Merged from the forecast's table and the bench model table.
#include "core/hw/gpu_specs.h"

#include <cctype>
#include <vector>

#include "core/hw/pcie.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// Sources. Dense figures are half of the "with sparsity" figures the datasheets print.
constexpr std::string_view kA100 =
    "NVIDIA A100 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/a100): BF16 312 TFLOPS "
    "dense, TF32 156, INT8 624 TOPS, FP64 tensor 19.5, FP32 19.5 TFLOPS, 1,555 GB/s (40GB) / "
    "1,935 GB/s (80GB PCIe) / 2,039 GB/s (80GB SXM), NVLink 3 600 GB/s, PCIe Gen4";
constexpr std::string_view kH100 =
    "NVIDIA H100 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/h100): SXM BF16 1,979 "
    "TFLOPS with sparsity, TF32 989, FP8 3,958, FP64 tensor 67, FP32 67, 3.35 TB/s, NVLink 900 "
    "GB/s; NVL 1,671 / 835 / 3,341 / 60 / 60 / 3.9 TB/s, NVLink bridge 600 GB/s; PCIe product "
    "brief PB-11133-001: 1,513 / 756 / 3,026 / 51 / 51 / 2 TB/s, NVLink bridge 600 GB/s; PCIe "
    "Gen5 x16";
constexpr std::string_view kH200 =
    "NVIDIA H200 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/h200): SXM BF16 1,979 "
    "TFLOPS with sparsity, TF32 989, FP8 3,958, FP64 tensor 67, FP32 67, 4.8 TB/s, NVLink 900 "
    "GB/s; NVL 1,671 / 835 / 3,341 / 60 / 60 / 4.8 TB/s, NVLink bridge 900 GB/s; PCIe Gen5 x16";
constexpr std::string_view kGh200 =
    "NVIDIA GH200 Grace Hopper Superchip datasheet (nvidia.com/en-us/data-center/grace-hopper-"
    "superchip): BF16 1,979 TFLOPS with sparsity, TF32 989, FP8 3,958, FP64 tensor 67, FP32 67, "
    "4 TB/s (96GB HBM3) / 4.9 TB/s (144GB HBM3e), NVLink-C2C 900 GB/s (both directions), NVLink "
    "900 GB/s";
constexpr std::string_view kB200 =
    "NVIDIA HGX B200 datasheet (nvidia.com/en-us/data-center/hgx): per GPU FP16/BF16 4.5 PFLOPS "
    "with sparsity, TF32 2.2 PFLOPS, FP8 9 PFLOPS, INT8 9 POPS, FP64 40 TFLOPS, FP32 75 TFLOPS, "
    "7.7 TB/s, NVLink 5 1.8 TB/s, PCIe Gen5 128 GB/s (x16)";
constexpr std::string_view kGb200 =
    "NVIDIA GB200 NVL72 datasheet (nvidia.com/en-us/data-center/gb200-nvl72), rack figures / 72 "
    "GPUs: FP16/BF16 360 PFLOPS with sparsity (5 per GPU), TF32 180, FP8 720, FP64 3,240 TFLOPS, "
    "FP32 6,480 TFLOPS, HBM3e 576 TB/s (8 per GPU), NVLink 5 1.8 TB/s per GPU, NVLink-C2C 900 "
    "GB/s per superchip";
constexpr std::string_view kL40S =
    "NVIDIA L40S datasheet (nvidia.com/en-us/data-center/l40s): BF16 733 TFLOPS with sparsity, "
    "TF32 366, FP8 1,466, INT8 1,466 TOPS, FP32 91.6 TFLOPS, 864 GB/s, no NVLink, PCIe Gen4 x16";
constexpr std::string_view kL4 =
    "NVIDIA L4 datasheet (nvidia.com/en-us/data-center/l4): FP16 242 TFLOPS with sparsity, TF32 "
    "120, FP8 485, INT8 485 TOPS, FP32 30.3 TFLOPS, 300 GB/s, no NVLink, PCIe Gen4 x16";
constexpr std::string_view kA10 =
    "NVIDIA A10 datasheet (nvidia.com/en-us/data-center/products/a10-gpu): BF16 250 TFLOPS with "
    "sparsity, TF32 125, INT8 500 TOPS, FP32 31.2 TFLOPS, 600 GB/s, no NVLink, PCIe Gen4 x16";
constexpr std::string_view kT4 =
    "NVIDIA T4 datasheet (nvidia.com/en-us/data-center/tesla-t4): FP16 65 TFLOPS (no "
    "sparsity), INT8 130 TOPS, FP32 8.1 TFLOPS, 320 GB/s, no NVLink, PCIe Gen3 x16";
constexpr std::string_view kV100 =
    "NVIDIA V100 datasheet (nvidia.com/en-us/data-center/v100): tensor 125 (SXM2) / 112 (PCIe) "
    "TFLOPS, FP64 7.8 / 7, FP32 15.7 / 14 TFLOPS, 900 GB/s, NVLink 2 300 GB/s (SXM2), PCIe Gen3 "
    "x16";

// Typical pinned host copies: AzNHC's nvbandwidth minimums (azurehpc-health-checks README).
constexpr std::string_view kAzNhc = "AzNHC nvbandwidth minimum, azurehpc-health-checks README";

struct SpecRow {
  std::string_view needles[3];  // all must be whole tokens of the lowercased name
  GpuSpec spec;
};

// Most specific first: the NVL and PCIe variants before the SXM part (whose NVML name, "H100
// 80GB HBM3", says neither), the 80GB A100 before the 40GB one, L40S before L4, A100 before A10.
// T4 and V100 have no BF16 (Turing, Volta). Columns: key, bench_key, BF16, FP16, FP32, memory,
// bench memory, PCIe gen, width, typical H2D, its source, datasheet; then TF32, FP8, INT8, FP64,
// NVLink generation, NVLink GB/s (both directions), NVLink-C2C GB/s per direction.
const SpecRow kRows[] = {
    // H200 NVL: kH200 (NVL column).
    {{"h200", "nvl"},
     {"H200 NVL",
      "H200 NVL",
      835,
      835,
      60,
      4800,
      4800,
      5,
      16,
      0,
      {},
      kH200,
      417.5,
      1670.5,
      1670.5,
      60,
      4,
      900,
      0}},
    // H200 SXM: kH200 (SXM column).
    {{"h200"},
     {"H200", "H200", 989, 989, 67, 4800, 4800, 5, 16, 55, kAzNhc, kH200, 494.5, 1979, 1979, 67, 4,
      900, 0}},
    // GH200: kGh200 (its NVML names carry "GH200", never the "H100"/"H200" token).
    {{"gh200", "hbm3e"},
     {"GH200 144GB",
      "GH200 144GB",
      989,
      989,
      67,
      4900,
      4900,
      5,
      16,
      0,
      {},
      kGh200,
      494.5,
      1979,
      1979,
      67,
      4,
      900,
      450}},
    {{"gh200"},
     {"GH200",
      "GH200",
      989,
      989,
      67,
      4000,
      4000,
      5,
      16,
      0,
      {},
      kGh200,
      494.5,
      1979,
      1979,
      67,
      4,
      900,
      450}},
    // H100 PCIe: kH100 (PCIe product brief).
    {{"h100", "pcie"},
     {"H100 PCIe",
      "H100 PCIe",
      756,
      756,
      51,
      2000,
      2000,
      5,
      16,
      0,
      {},
      kH100,
      378,
      1513,
      1513,
      51,
      4,
      600,
      0}},
    // H100 NVL: kH100 (NVL column).
    {{"h100", "nvl"},
     {"H100 NVL",
      "H100 NVL",
      835,
      835,
      60,
      3900,
      3900,
      5,
      16,
      0,
      {},
      kH100,
      417.5,
      1670.5,
      1670.5,
      60,
      4,
      600,
      0}},
    // H100 SXM: kH100 (SXM column).
    {{"h100"},
     {"H100 SXM", "H100 SXM", 989, 989, 67, 3350, 3350, 5, 16, 52, kAzNhc, kH100, 494.5, 1979, 1979,
      67, 4, 900, 0}},
    // GB200: kGb200 (before B200: its name's token is "gb200", never "b200").
    {{"gb200"},
     {"GB200",
      "GB200",
      2500,
      2500,
      90,
      8000,
      8000,
      5,
      16,
      0,
      {},
      kGb200,
      1250,
      5000,
      5000,
      45,
      5,
      1800,
      450}},
    // B200 (HGX): kB200.
    {{"b200"},
     {"B200",
      "B200",
      2250,
      2250,
      75,
      7700,
      7700,
      5,
      16,
      0,
      {},
      kB200,
      1100,
      4500,
      4500,
      40,
      5,
      1800,
      0}},
    // A100 rows: kA100 (memory per variant; NVLink bridge on PCIe cards).
    {{"a100", "80gb", "pcie"},
     {"A100 80GB PCIe", "A100 PCIe", 312, 312, 19.5, 1935, 1935, 4, 16, 23, kAzNhc, kA100, 156, 0,
      624, 19.5, 3, 600, 0}},
    {{"a100", "pcie"},
     {"A100 40GB PCIe", "A100 PCIe", 312, 312, 19.5, 1555, 1935, 4, 16, 23, kAzNhc, kA100, 156, 0,
      624, 19.5, 3, 600, 0}},
    {{"a100", "80gb"},
     {"A100 80GB", "A100 SXM", 312, 312, 19.5, 2039, 2039, 4, 16, 23, kAzNhc, kA100, 156, 0, 624,
      19.5, 3, 600, 0}},
    {{"a100"},
     {"A100 40GB", "A100 SXM", 312, 312, 19.5, 1555, 2039, 4, 16, 23, kAzNhc, kA100, 156, 0, 624,
      19.5, 3, 600, 0}},
    // L40S: kL40S.
    {{"l40s"},
     {"L40S", "L40S", 362, 362, 91.6, 864, 864, 4, 16, 0, {}, kL40S, 183, 733, 733, 0, 0, 0, 0}},
    // L4: kL4.
    {{"l4"},
     {"L4", "L4", 121, 121, 30.3, 300, 300, 4, 16, 0, {}, kL4, 60, 242.5, 242.5, 0, 0, 0, 0}},
    // A10: kA10.
    {{"a10"},
     {"A10", "A10", 125, 125, 31.2, 600, 600, 4, 16, 0, {}, kA10, 62.5, 0, 250, 0, 0, 0, 0}},
    // T4: kT4 (Turing: FP16 and INT8 tensor cores only).
    {{"t4"}, {"T4", "T4", 0, 65, 8.1, 320, 320, 3, 16, 0, {}, kT4, 0, 0, 130, 0, 0, 0, 0}},
    // V100: kV100 (Volta: FP16 tensor cores only).
    {{"v100", "pcie"},
     {"V100 PCIe", "V100 PCIe", 0, 112, 14, 900, 900, 3, 16, 0, {}, kV100, 0, 0, 0, 7, 0, 0, 0}},
    {{"v100"},
     {"V100 SXM2",
      "V100 SXM2",
      0,
      125,
      15.7,
      900,
      900,
      3,
      16,
      0,
      {},
      kV100,
      0,
      0,
      0,
      7.8,
      2,
      300,
      0}},
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

std::string_view PrecisionName(MathPrecision p) {
  switch (p) {
    case MathPrecision::kFp64:
      return "FP64";
    case MathPrecision::kFp32:
      return "FP32";
    case MathPrecision::kTf32:
      return "TF32";
    case MathPrecision::kFp16:
      return "FP16";
    case MathPrecision::kBf16:
      return "BF16";
    case MathPrecision::kFp8:
      return "FP8";
    case MathPrecision::kInt8:
      return "INT8";
    case MathPrecision::kUnknown:
      break;
  }
  return "unknown";
}

double DenseTflops(const GpuSpec& spec, MathPrecision p) {
  switch (p) {
    case MathPrecision::kFp64:
      return spec.fp64_tflops;
    case MathPrecision::kFp32:
      return spec.fp32_tflops;
    case MathPrecision::kTf32:
      return spec.tf32_tflops;
    case MathPrecision::kFp16:
      return spec.fp16_tflops;
    case MathPrecision::kBf16:
      return spec.bf16_tflops;
    case MathPrecision::kFp8:
      return spec.fp8_tflops;
    case MathPrecision::kInt8:
      return spec.int8_tops;
    case MathPrecision::kUnknown:
      break;
  }
  return 0;
}

double HostLinkGbps(const GpuSpec& spec, std::string* name) {
  if (spec.c2c_gbps > 0) {
    if (name) *name = "NVLink-C2C";
    return spec.c2c_gbps;
  }
  if (name)
    *name = "PCIe Gen" + std::to_string(spec.pcie_gen) + " x" + std::to_string(spec.pcie_width);
  return PcieLinkGbps(spec.pcie_gen, spec.pcie_width);
}

std::string GpuSpecKeys() {
  std::vector<std::string> keys;
  for (const SpecRow& r : kRows) keys.emplace_back(r.spec.key);
  return Join(keys, ", ");
}

}  // namespace gpuvet
