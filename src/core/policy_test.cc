#include "core/policy.h"

#include <gtest/gtest.h>

namespace gpuvet {
namespace {

TEST(PolicyTest, DefaultsWhenEmpty) {
  auto p = ParsePolicy("", "p.toml");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_FALSE(p->expected_gpu_count.has_value());
  EXPECT_EQ(p->thresholds.retired_pages_fail, 63);
  EXPECT_EQ(p->source, "p.toml");
}

TEST(PolicyTest, FullFile) {
  auto p = ParsePolicy(R"(
[gpu]
expected_count = 8
[driver]
allowed_versions = ["550.90.07", "550.127.*"]
allowed_cuda_versions = ["12.4"]
[thresholds]
temperature_margin_warn_c = 5
power_limit_min_ratio = 0.9
cpu_cores_per_gpu_min = 2
[checks]
skip = ["cpu.governor", "mig"]
[severity]
"settings.persistence_mode" = "fail"
)",
                       "node.toml");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(*p->expected_gpu_count, 8);
  EXPECT_EQ(p->allowed_driver_versions.size(), 2u);
  EXPECT_EQ(p->thresholds.temperature_margin_warn_c, 5);
  EXPECT_DOUBLE_EQ(p->thresholds.power_limit_min_ratio, 0.9);
  EXPECT_DOUBLE_EQ(p->thresholds.cpu_cores_per_gpu_min, 2);
  EXPECT_TRUE(gpuvet::IsSkipped(*p, "cpu.governor"));
  EXPECT_TRUE(gpuvet::IsSkipped(*p, "mig.mode"));
  EXPECT_FALSE(gpuvet::IsSkipped(*p, "ecc.mode"));
  EXPECT_EQ(p->severity_overrides.at("settings.persistence_mode"), Severity::kFail);
}

void ExpectError(const char* text, const char* fragment) {
  auto p = ParsePolicy(text, "bad.toml");
  ASSERT_FALSE(p.ok()) << text;
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(p.status().message().find(fragment), std::string::npos) << p.status().message();
}

TEST(PolicyTest, UnknownKeyPointsAtTheKey) {
  // Column 3 is the key's first character, not the value's (column 19).
  ExpectError("[thresholds]\n  temperature_margin = 3\n", "bad.toml:2:3: unknown key");
  ExpectError("[gpu]\nexpected_cnt = 8\n", "bad.toml:2:1: unknown key 'gpu.expected_cnt'");
}

TEST(PolicyTest, ErrorsCarryPosition) {
  ExpectError("[gpu]\nexpected_count = \"eight\"\n", "bad.toml:2:");
  ExpectError("[gpu]\nexpected_count = \"eight\"\n", "must be an integer");
  // A float where an integer goes, even one no integer type holds (found by fuzz_policy).
  ExpectError("[gpu]\nexpected_count = 8.0\n", "must be an integer");
  ExpectError("[thresholds]\necc_corrected_volatile_warn = 2e30\n", "must be an integer");
  ExpectError("[gpu\n", "bad.toml:1:");
  ExpectError("[gpus]\nexpected_count = 8\n", "unknown table [gpus]");
  ExpectError("[thresholds]\ntemperature_margin = 3\n",
              "unknown key 'thresholds.temperature_margin'");
  ExpectError("[thresholds]\npower_limit_min_ratio = 3\n", "between 0 and 1");
  ExpectError("[checks]\nskip = [\"pcie.nope\"]\n", "'pcie.nope' is neither");
  ExpectError("[severity]\n\"ecc.mode\" = \"critical\"\n", "must be one of");
  ExpectError("[severity]\n\"ecc.nope\" = \"warn\"\n", "not a check id");
  ExpectError("[driver]\nallowed_versions = [1]\n", "only strings");
  ExpectError("gpu = 3\n", "must be a table");
}

// Issue 16: values a check cannot compare against must not switch it off silently.
TEST(PolicyTest, NonFiniteNumbersAreRefused) {
  ExpectError("[thresholds]\npcie_replay_ber = nan\n",
              "bad.toml:2:19: 'thresholds.pcie_replay_ber' must be a finite number");
  ExpectError("[thresholds]\nmemory_available_min_pct = nan\n", "must be a finite number");
  ExpectError("[thresholds]\naer_corrected_per_min = inf\n", "must be a finite number");
  ExpectError("[bench]\nmin_fraction_of_expected = -nan\n", "must be a finite number");
  ExpectError("[bench.minimums]\nh2d_pinned = +inf\n", "must be a finite number");
  ExpectError("[fleet]\nbench_z = inf\n", "bad.toml:2:11:");
}

TEST(PolicyTest, NegativeCountsAndPercentagesOutOfRange) {
  ExpectError("[thresholds]\nretired_pages_fail = -1\n", "between 1 and 100000, got -1");
  ExpectError("[thresholds]\nnvlink_crc_max = -5\n", "between 0 and");
  ExpectError("[gpu]\nexpected_count = -8\n", "between 0 and 1024");
  ExpectError("[thresholds]\nmemory_available_min_pct = 101\n", "between 0 and 100");
  ExpectError("[thresholds]\nbusy_util_pct = -1\n", "between 0 and 100");
}

TEST(PolicyTest, WarnLevelsAboveFailLevelsAreRefused) {
  ExpectError("[fleet]\necc_sbe_rate_warn_per_h = 200\n",
              "bad.toml:2:27: 'fleet.ecc_sbe_rate_warn_per_h' (200) must not be above "
              "'fleet.ecc_sbe_rate_fail_per_h' (100)");
  // Only the fail level set: the error points at it.
  ExpectError("[fleet]\nthermal_share_fail = 0.01\n", "bad.toml:2:22: 'fleet.thermal_share_warn'");
  ExpectError("[fleet]\nbench_min_drop = 0.3\nbench_fail_drop = 0.2\n",
              "bad.toml:2:18: 'fleet.bench_min_drop' (0.3) must not be above");
  auto ok = ParsePolicy("[fleet]\nbench_min_drop = 0.2\nbench_fail_drop = 0.2\n", "ok.toml");
  EXPECT_TRUE(ok.ok()) << ok.status().message();
}

TEST(PolicyTest, TextThatIsNotUtf8IsRefusedWithItsPosition) {
  // A Latin-1 byte in a comment and in a string.
  ExpectError("[gpu]\n# caf\xe9\nexpected_count = 8\n", "bad.toml:2:6: byte 0xe9 is not UTF-8");
  ExpectError("[driver]\nallowed_versions = [\"550\xff\"]\n", "bad.toml:2:25:");
}

TEST(PolicyTest, MissingFile) {
  auto p = LoadPolicy("/nonexistent/policy.toml");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("/nonexistent/policy.toml"), std::string::npos);
}

}  // namespace
}  // namespace gpuvet
