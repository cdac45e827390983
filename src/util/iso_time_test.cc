// ISO 8601 parser and formatter: every accepted form, garbage, out-of-range fields, leap days and
// numbers that do not fit their field. Also the cases the kernel log and fleet readers relied on
// before they shared this parser.
#include "util/iso_time.h"

#include <gtest/gtest.h>

namespace gpuvet {
namespace {

double Parsed(std::string_view s) {
  Result<double> r = ParseIsoTime(s);
  EXPECT_TRUE(r.ok()) << s << ": " << r.status().message();
  return r.ok() ? *r : -1;
}

std::string ErrorOf(std::string_view s) {
  Result<double> r = ParseIsoTime(s);
  EXPECT_FALSE(r.ok()) << s << " parsed as " << (r.ok() ? *r : 0);
  return r.ok() ? "" : r.status().message();
}

TEST(IsoTimeTest, AcceptedForms) {
  EXPECT_DOUBLE_EQ(Parsed("1970-01-01T00:00:00Z"), 0);
  EXPECT_DOUBLE_EQ(Parsed("1970-01-01T00:01:00Z"), 60);
  EXPECT_DOUBLE_EQ(Parsed("2026-01-01T00:00:00Z"), 1767225600);
  EXPECT_DOUBLE_EQ(Parsed("2026-01-01T00:00:00"), 1767225600);   // no zone: UTC
  EXPECT_DOUBLE_EQ(Parsed("2026-01-01 00:00:00Z"), 1767225600);  // space separator (journalctl)
  EXPECT_DOUBLE_EQ(Parsed("  2026-01-01T00:00:00Z\n"), 1767225600);
  EXPECT_DOUBLE_EQ(Parsed("1970-01-01T01:00:00.5+01:00"), 0.5);
  EXPECT_DOUBLE_EQ(Parsed("2025-01-17T17:10:43+0000"), 1737133843);
  EXPECT_DOUBLE_EQ(Parsed("2025-01-17T18:10:43+01:00"), 1737133843);
  EXPECT_DOUBLE_EQ(Parsed("2025-01-17T16:10:43-01:00"), 1737133843);
  EXPECT_DOUBLE_EQ(Parsed("2025-01-17T16:10:43-0100"), 1737133843);
  EXPECT_NEAR(Parsed("2025-02-10T16:28:06,502716+00:00"), 1739204886.502716, 1e-5);
  EXPECT_NEAR(Parsed("2025-02-10T16:28:06.25Z"), 1739204886.25, 1e-6);
  EXPECT_DOUBLE_EQ(Parsed("1969-12-31T23:59:59Z"), -1);
}

TEST(IsoTimeTest, LeapDaysAndLeapSeconds) {
  EXPECT_DOUBLE_EQ(Parsed("2024-02-29T00:00:00"), 1709164800);
  EXPECT_DOUBLE_EQ(Parsed("2000-02-29T00:00:00Z"), 951782400);  // divisible by 400: leap
  EXPECT_NE(ErrorOf("2025-02-29T00:00:00Z").find("day 29 is out of range 1..28"),
            std::string::npos);
  EXPECT_NE(ErrorOf("1900-02-29T00:00:00Z").find("day 29 is out of range 1..28"),
            std::string::npos);  // divisible by 100, not by 400: no leap day
  EXPECT_DOUBLE_EQ(Parsed("2016-12-31T23:59:60Z"), 1483228800);  // leap second = next second
}

TEST(IsoTimeTest, OutOfRangeFields) {
  EXPECT_NE(ErrorOf("2025-13-01T00:00:00Z").find("month 13 is out of range 1..12"),
            std::string::npos);
  EXPECT_NE(ErrorOf("2025-00-01T00:00:00Z").find("month 0"), std::string::npos);
  EXPECT_NE(ErrorOf("2025-04-31T00:00:00Z").find("day 31 is out of range 1..30"),
            std::string::npos);
  EXPECT_NE(ErrorOf("2025-01-00T00:00:00Z").find("day 0"), std::string::npos);
  EXPECT_NE(ErrorOf("2025-01-01T24:00:00Z").find("hour 24"), std::string::npos);
  EXPECT_NE(ErrorOf("2025-01-01T00:60:00Z").find("minute 60"), std::string::npos);
  EXPECT_NE(ErrorOf("2025-01-01T00:00:61Z").find("second 61"), std::string::npos);
  EXPECT_NE(ErrorOf("2025-01-01T00:00:00+24:00").find("UTC offset hours 24"), std::string::npos);
  EXPECT_NE(ErrorOf("2025-01-01T00:00:00+01:60").find("UTC offset minutes 60"), std::string::npos);
}

TEST(IsoTimeTest, NumbersThatDoNotFitTheirField) {
  // Fixed widths: a five-digit year or a three-digit hour is not a larger value but garbage.
  EXPECT_NE(ErrorOf("12026-01-01T00:00:00Z").find("expected '-' after the year"),
            std::string::npos);
  EXPECT_NE(ErrorOf("2026-011-01T00:00:00Z").find("expected '-' after the month"),
            std::string::npos);
  EXPECT_NE(ErrorOf("2026-01-01T100:00:00Z").find("expected ':' after the hour"),
            std::string::npos);
  EXPECT_NE(ErrorOf("2026-1-01T00:00:00Z").find("2 digits of the month"), std::string::npos);
  EXPECT_NE(ErrorOf("99999999999999999999-01-01T00:00:00Z").find("after the year"),
            std::string::npos);
  // A fraction longer than a double can hold is read, not rejected.
  EXPECT_NEAR(Parsed("1970-01-01T00:00:00.50000000000000000000000000000000000001Z"), 0.5, 1e-12);
}

TEST(IsoTimeTest, Garbage) {
  EXPECT_NE(ErrorOf("yesterday").find("'yesterday' is not an ISO 8601 time"), std::string::npos);
  EXPECT_NE(ErrorOf("yesterday").find("2026-01-01T00:00:00Z"), std::string::npos);  // the form
  ErrorOf("");
  ErrorOf("[123.456]");
  ErrorOf("2026-01-01");
  ErrorOf("2026-01-01T00:00");
  EXPECT_NE(ErrorOf("2026-01-01X00:00:00Z").find("expected 'T' or ' ' after the date"),
            std::string::npos);
  EXPECT_NE(ErrorOf("1970-01-01T00:00:00Zjunk").find("unexpected 'junk' after the time"),
            std::string::npos);
  EXPECT_NE(ErrorOf("2025-01-01T00:00:00+0").find("UTC offset hours"), std::string::npos);
  EXPECT_NE(ErrorOf("2025-01-01T00:00:00+01:0").find("UTC offset minutes"), std::string::npos);
  EXPECT_NE(ErrorOf("2025-01-01T00:00:00.Z").find("digits after the decimal mark"),
            std::string::npos);
  ErrorOf("2025-01-01T00:00:00Z Z");
  ErrorOf("2025-01-01T00:00:00 Z");
}

TEST(IsoTimeTest, DaysFromCivilCountsOnLikeTimegm) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(1969, 12, 31), -1);
  EXPECT_EQ(DaysFromCivil(2024, 3, 1) - DaysFromCivil(2024, 2, 28), 2);
  EXPECT_EQ(DaysFromCivil(2026, 2, 30), DaysFromCivil(2026, 3, 2));  // day past the month
}

TEST(IsoTimeTest, FormatRoundTrips) {
  EXPECT_EQ(FormatIsoTime(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatIsoTime(1767225600), "2026-01-01T00:00:00Z");
  EXPECT_EQ(FormatIsoTime(1709164800 + 86399), "2024-02-29T23:59:59Z");
  EXPECT_EQ(FormatIsoTime(-1), "1969-12-31T23:59:59Z");
  for (int64_t t : {int64_t{0}, int64_t{951782400}, int64_t{1737133843}, int64_t{253402300799}}) {
    EXPECT_DOUBLE_EQ(Parsed(FormatIsoTime(t)), static_cast<double>(t)) << t;
  }
}

}  // namespace
}  // namespace gpuvet
