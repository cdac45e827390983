// Flag parsing of `gpuvet exporter`: durations and listen addresses.
#include "cli/exporter/exporter_command.h"

#include <gtest/gtest.h>

namespace gpuvet {
namespace {

using std::chrono::milliseconds;

TEST(ExporterFlags, ParsesDurations) {
  EXPECT_EQ(ParseDuration("15s"), milliseconds(15000));
  EXPECT_EQ(ParseDuration("15"), milliseconds(15000));
  EXPECT_EQ(ParseDuration("500ms"), milliseconds(500));
  EXPECT_EQ(ParseDuration("2m"), milliseconds(120000));
  EXPECT_EQ(ParseDuration("1h"), milliseconds(3600000));
  for (const char* bad : {"", "s", "0s", "-1s", "1.5s", "15 s", "15x", "9999999999s"}) {
    EXPECT_FALSE(ParseDuration(bad).has_value()) << bad;
  }
}

TEST(ExporterFlags, ParsesListenAddresses) {
  std::string host;
  int port = -1;
  ASSERT_TRUE(ParseListenAddress("127.0.0.1:9835", &host, &port));
  EXPECT_EQ(host, "127.0.0.1");
  EXPECT_EQ(port, 9835);
  ASSERT_TRUE(ParseListenAddress(":9835", &host, &port));
  EXPECT_EQ(host, "0.0.0.0");
  ASSERT_TRUE(ParseListenAddress("[::1]:0", &host, &port));
  EXPECT_EQ(host, "::1");
  EXPECT_EQ(port, 0);
  for (const char* bad : {"9835", "host:", "host:70000", "host:-1", "::1:9835", "host:x"}) {
    EXPECT_FALSE(ParseListenAddress(bad, &host, &port)) << bad;
  }
}

}  // namespace
}  // namespace gpuvet
