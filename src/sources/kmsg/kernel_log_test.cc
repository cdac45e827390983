// Tests of kernel log parsing (each format from inline text), Xid extraction and the reader on
// fixture trees, plus the real logs in the shared data folder when it is present.
#include "sources/kmsg/kernel_log.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <string>

#include "sources/kmsg/kernel_log_time.h"
#include "testing/temp_tree.h"
#include "util/file.h"
#include "util/strings.h"

namespace gpuvet {
namespace {

namespace fs = std::filesystem;

std::string SharedKmsgDir() { return std::string(GPUVET_SHARED_DATA_DIR) + "/kmsg/"; }

KernelLogRecord ParseOne(std::string_view line) {
  auto records = ParseKernelLog(line);
  EXPECT_EQ(records.size(), 1u) << line;
  return records.empty() ? KernelLogRecord{} : records[0];
}

TEST(KernelLogParseTest, RawKmsgRecordSkipsDictionaryLines) {
  auto records = ParseKernelLog(
      "6,3964,206764307,-;nvidia-nvswitch2: open (major=510)\n"
      " SUBSYSTEM=pci\n"
      " DEVICE=+pci:0000:00:01.0\n"
      "4,3965,1000000,c,extra;NVRM: Xid (PCI:0000:38:00): 13, pid=1, name=x, boom\n");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].time, "206.764307");
  EXPECT_DOUBLE_EQ(records[0].monotonic_s, 206.764307);
  EXPECT_EQ(records[0].text, "nvidia-nvswitch2: open (major=510)");
  EXPECT_EQ(records[1].time, "1.000000");
  EXPECT_EQ(records[1].text, "NVRM: Xid (PCI:0000:38:00): 13, pid=1, name=x, boom");
  EXPECT_EQ(DetectKernelLogFormat("6,1,2,-;a\n6,2,3,-;b\n"), KernelLogFormat::kKmsg);
}

TEST(KernelLogParseTest, PlainDmesg) {
  KernelLogRecord r = ParseOne("[  123.456789] nvidia 0000:3b:00.0: enabling device\n");
  EXPECT_EQ(r.time, "[123.456789]");
  EXPECT_DOUBLE_EQ(r.monotonic_s, 123.456789);
  EXPECT_EQ(r.text, "nvidia 0000:3b:00.0: enabling device");
}

TEST(KernelLogParseTest, DmesgCtime) {
  KernelLogRecord r = ParseOne("[Tue Jan 21 02:21:33 2025] NVRM: loading driver");
  EXPECT_EQ(r.time, "Tue Jan 21 02:21:33 2025");
  EXPECT_EQ(r.monotonic_s, -1);
  EXPECT_EQ(r.text, "NVRM: loading driver");
}

TEST(KernelLogParseTest, DmesgDecodeIso) {
  std::string text =
      "kern  :warn  : 2025-01-21T02:21:33,498559+00:00 NVRM: Xid (PCI:0000:38:00): 13, x\n";
  KernelLogRecord r = ParseOne(text);
  EXPECT_EQ(r.time, "2025-01-21T02:21:33,498559+00:00");
  EXPECT_EQ(r.monotonic_s, -1);
  EXPECT_EQ(r.text, "NVRM: Xid (PCI:0000:38:00): 13, x");
  EXPECT_EQ(DetectKernelLogFormat(text), KernelLogFormat::kDmesgDecode);
}

TEST(KernelLogParseTest, DmesgDecodeWithBracketTime) {
  KernelLogRecord r = ParseOne("daemon:info  : [   12.5] systemd[1]: started");
  EXPECT_EQ(r.time, "[12.5]");
  EXPECT_DOUBLE_EQ(r.monotonic_s, 12.5);
  EXPECT_EQ(r.text, "systemd[1]: started");
}

TEST(KernelLogParseTest, DmesgIsoWithoutDecode) {
  std::string text = "2025-01-21T02:21:33,498559+00:00 pci 0000:00:01.0: [8086:2030] type 01\n";
  KernelLogRecord r = ParseOne(text);
  EXPECT_EQ(r.time, "2025-01-21T02:21:33,498559+00:00");
  EXPECT_EQ(r.text, "pci 0000:00:01.0: [8086:2030] type 01");
  EXPECT_EQ(DetectKernelLogFormat(text), KernelLogFormat::kDmesgIso);
}

TEST(KernelLogParseTest, JournalctlShortIso) {
  std::string text =
      "2025-01-17T17:10:43+0000 node-1.example kernel: IPv6: ADDRCONF(NETDEV_CHANGE): eth0: up\n";
  KernelLogRecord r = ParseOne(text);
  EXPECT_EQ(r.time, "2025-01-17T17:10:43+0000");
  EXPECT_EQ(r.text, "IPv6: ADDRCONF(NETDEV_CHANGE): eth0: up");
  EXPECT_EQ(DetectKernelLogFormat(text), KernelLogFormat::kJournalctl);
  // Another program's line in a full journal keeps its identifier.
  EXPECT_EQ(ParseOne("2025-01-17T17:10:43.123456+00:00 host systemd[1]: Started x.").text,
            "systemd[1]: Started x.");
}

TEST(KernelLogParseTest, ClassicSyslog) {
  KernelLogRecord r =
      ParseOne("Jan  7 17:10:43 gpu-node kernel: [123.4] NVRM: GPU at PCI:0000:3b:00: GPU-1\r\n");
  EXPECT_EQ(r.time, "Jan  7 17:10:43");
  EXPECT_DOUBLE_EQ(r.monotonic_s, 123.4);
  EXPECT_EQ(r.text, "NVRM: GPU at PCI:0000:3b:00: GPU-1");
  KernelLogRecord r2 = ParseOne("Jan 17 17:10:43 gpu-node kernel: no printk time");
  EXPECT_EQ(r2.monotonic_s, -1);
  EXPECT_EQ(r2.text, "no printk time");
}

TEST(KernelLogParseTest, PstoreDump) {
  auto records = ParseKernelLog(
      "dmesg-erst-7530486857247752194:\n"
      "Panic#1 Part2\n"
      "<6>[    2.608284] mlx5_core 0000:41:00.1: 63.008 Gb/s available PCIe bandwidth\n"
      "<4>[  201.668783] PGD 0 \n");
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[0].time, "");
  EXPECT_EQ(records[0].text, "dmesg-erst-7530486857247752194:");
  EXPECT_EQ(records[2].time, "[2.608284]");
  EXPECT_EQ(records[2].text, "mlx5_core 0000:41:00.1: 63.008 Gb/s available PCIe bandwidth");
  EXPECT_EQ(records[3].text, "PGD 0 ");
}

TEST(KernelLogParseTest, UnrecognisedAndGarbageLinesAreKeptWithoutCrashing) {
  std::string garbage =
      "hello world\n[\n[]\n[ 12.x] a\n<\n<99999>\n6,;\n6,1,2;\n1,2,x,-;y\nkern:\n:::\n"
      "2025-01-21T02:21:33,\n2025-13\nJan 17\nJan 17 17:10:43 host\n"
      "NVRM: Xid (\nNVRM: Xid (PCI:0000:38:00\nNVRM: Xid (PCI:0000:38:00):\n"
      "NVRM: Xid (PCI:0000:38:00): x, y\nNVRM: Xid (PCI:zz): 13, q\n";
  garbage.push_back('\0');
  garbage += "\xff\xfe tail";
  auto records = ParseKernelLog(garbage);
  EXPECT_FALSE(records.empty());
  EXPECT_EQ(records[0].time, "");
  EXPECT_EQ(records[0].text, "hello world");
  auto xids = ExtractXidEvents(records);
  // Only the line with a number parses; its unparseable address is kept, lower-cased.
  ASSERT_EQ(xids.size(), 1u);
  EXPECT_EQ(xids[0].pci_address, "pci:zz");
  EXPECT_EQ(xids[0].xid, 13);
  // Every truncation of a real line parses without crashing.
  std::string line =
      "kern  :warn  : 2025-01-21T02:21:33,498559+00:00 NVRM: Xid (PCI:0000:38:00): 13, m";
  for (size_t n = 0; n <= line.size(); ++n) {
    ExtractXidEvents(ParseKernelLog(line.substr(0, n)));
  }
  EXPECT_TRUE(ParseKernelLog("").empty());
  EXPECT_TRUE(ParseKernelLog("\n\n\r\n").empty());
}

TEST(XidExtractTest, FormsAndNormalisation) {
  std::vector<KernelLogRecord> records = {
      {"t1", -1, "NVRM: Xid (PCI:0000:38:00): 13, pid=42, name=python, Graphics Exception"},
      {"t2", -1, "NVRM: Xid (0000:3B:00): 31, Ch 00000008, intr 10000000"},
      {"t3", -1, "NVRM: Xid (PCI:0000:04:00): 145, RLW_REMAP Nonfatal XC0 i0 Link 00 (0x4)"},
      {"t4", -1, "NVRM: Xid (PCI:0000:05:00 GPU-I:05): 43, pid=7, name=x, Ch 00000008"},
      {"t5", -1, "NVRM: Xid (PCI:00000000:06:00.1): 79, GPU has fallen off the bus."},
      {"t6", -1, "NVRM: Xid (PCI:0000:07:00): 48"},
      {"t7", -1, "some other line mentioning Xid 13"},
  };
  auto xids = ExtractXidEvents(records);
  ASSERT_EQ(xids.size(), 6u);
  EXPECT_EQ(xids[0].pci_address, "0000:04:00.0");
  EXPECT_EQ(xids[0].xid, 145);
  EXPECT_EQ(xids[1].pci_address, "0000:05:00.0");
  EXPECT_EQ(xids[1].xid, 43);
  EXPECT_EQ(xids[2].pci_address, "0000:06:00.1");
  EXPECT_EQ(xids[2].xid, 79);
  EXPECT_EQ(xids[3].pci_address, "0000:07:00.0");
  EXPECT_EQ(xids[3].xid, 48);
  EXPECT_EQ(xids[4].pci_address, "0000:38:00.0");
  EXPECT_EQ(xids[4].xid, 13);
  EXPECT_EQ(xids[4].sample,
            "NVRM: Xid (PCI:0000:38:00): 13, pid=42, name=python, Graphics Exception");
  EXPECT_EQ(xids[5].pci_address, "0000:3b:00.0");
  EXPECT_EQ(xids[5].xid, 31);
}

TEST(XidExtractTest, FallenOffTheBusIsXid79) {
  auto xids = ExtractXidEvents(
      ParseKernelLog("[  100.0] NVRM: GPU at PCI:0000:3b:00: GPU has fallen off the bus.\n"
                     "[  200.0] NVRM: GPU 0000:86:00.0: GPU has fallen off the bus.\n"));
  ASSERT_EQ(xids.size(), 2u);
  EXPECT_EQ(xids[0].pci_address, "0000:3b:00.0");
  EXPECT_EQ(xids[0].xid, 79);
  EXPECT_EQ(xids[0].first_time, "[100.0]");
  EXPECT_EQ(xids[1].pci_address, "0000:86:00.0");
  EXPECT_EQ(xids[1].xid, 79);
}

TEST(XidExtractTest, FallenOffTheBusEchoOfXid79IsNotCountedTwice) {
  auto xids = ExtractXidEvents(ParseKernelLog(
      "[  100.0] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen "
      "off the bus.\n"
      "[  100.0] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.\n"
      "[  100.1] NVRM: A GPU crash dump has been created.\n"));
  ASSERT_EQ(xids.size(), 1u);
  EXPECT_EQ(xids[0].count, 1);
}

TEST(XidExtractTest, DeduplicatesWithCountAndFirstLastTimes) {
  auto xids = ExtractXidEvents(
      ParseKernelLog("[  10.0] NVRM: Xid (PCI:0000:38:00): 13, first message\n"
                     "[  11.0] NVRM: Xid (PCI:0000:38:00): 43, pid=1, Ch 8\n"
                     "[  12.0] NVRM: Xid (PCI:0000:38:00): 13, second message\n"
                     "[  13.0] NVRM: Xid (PCI:0000:38:00.0): 13, third message\n"));
  ASSERT_EQ(xids.size(), 2u);
  EXPECT_EQ(xids[0].xid, 13);
  EXPECT_EQ(xids[0].count, 3);
  EXPECT_EQ(xids[0].first_time, "[10.0]");
  EXPECT_EQ(xids[0].last_time, "[13.0]");
  EXPECT_EQ(xids[0].sample, "NVRM: Xid (PCI:0000:38:00): 13, first message");
  EXPECT_EQ(xids[1].xid, 43);
  EXPECT_EQ(xids[1].count, 1);
  EXPECT_EQ(xids[1].first_time, xids[1].last_time);
}

TEST(KernelLogReadTest, FixtureKmsgRegularFile) {
  test::TempTree tree("kernel_log_fixture");
  const std::string& root = tree.root();
  tree.Write("dev/kmsg",
             "6,1,5000000,-;NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.90.07\n"
             " SUBSYSTEM=module\n"
             "3,2,7000000,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=x, GPU has fallen off the "
             "bus.\n");
  KernelLogState state = ReadKernelLog(HostPaths(root), "");
  ASSERT_TRUE(state.record_count.has()) << state.record_count.note;
  EXPECT_EQ(*state.record_count, 2);
  EXPECT_EQ(state.source, "/dev/kmsg");
  ASSERT_EQ(state.xids.size(), 1u);
  EXPECT_EQ(state.xids[0].xid, 79);
  EXPECT_EQ(state.xids[0].pci_address, "0000:3b:00.0");
  // No /proc/stat btime in this tree: the raw time keeps its unit.
  EXPECT_EQ(state.xids[0].first_time, "7.000000 s after boot");
}

TEST(KernelLogReadTest, KmsgTimesBecomeWallClockWithTheBootTime) {
  test::TempTree tree("kernel_log_btime");
  tree.Write("proc/stat", "cpu  1 2 3 4\nintr 5\nbtime 1767261600\nprocesses 9\n");  // 10:00 UTC
  tree.Write("dev/kmsg",
             "3,2,227996662,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=x, GPU has fallen off "
             "the bus.\n");
  KernelLogState state = ReadKernelLog(HostPaths(tree.root()), "");
  ASSERT_EQ(state.xids.size(), 1u);
  EXPECT_EQ(state.xids[0].first_time, "2026-01-01T10:03:47,996662+00:00");
  // A saved kmsg dump comes from a boot whose time this host does not know.
  tree.Write("saved.kmsg", "3,2,227996662,-;NVRM: Xid (PCI:0000:3b:00): 13, pid=1, name=x, y\n");
  state = ReadKernelLog(HostPaths(tree.root()), tree.Path("saved.kmsg"));
  ASSERT_EQ(state.xids.size(), 1u);
  EXPECT_EQ(state.xids[0].first_time, "227.996662 s after boot");
  // A garbled btime is not used.
  tree.Write("proc/stat", "btime 99999999999999999999\n");
  state = ReadKernelLog(HostPaths(tree.root()), "");
  ASSERT_EQ(state.xids.size(), 1u);
  EXPECT_EQ(state.xids[0].first_time, "227.996662 s after boot");
}

TEST(KernelLogReadTest, MissingKmsgIsUnsupported) {
  test::TempTree tree("kernel_log_nokmsg");
  const std::string& root = tree.root();
  KernelLogState state = ReadKernelLog(HostPaths(root), "");
  EXPECT_TRUE(state.record_count.unsupported());
  EXPECT_NE(state.record_count.note.find("--kernel-log"), std::string::npos);
}

TEST(KernelLogReadTest, UnreadableKmsgNamesHostPath) {
  if (::geteuid() == 0) GTEST_SKIP() << "root can read a mode-000 file";
  test::TempTree tree("kernel_log_denied");
  const std::string& root = tree.root();
  tree.Write("dev/kmsg", "6,1,2,-;x\n");
  ::chmod((root + "/dev/kmsg").c_str(), 0);
  KernelLogState state = ReadKernelLog(HostPaths(root), "");
  ASSERT_TRUE(state.record_count.error());
  EXPECT_EQ(state.record_count.note,
            "cannot read /dev/kmsg: Permission denied (needs root, CAP_SYSLOG or "
            "kernel.dmesg_restrict=0); pass a saved log with --kernel-log FILE");
}

TEST(KernelLogReadTest, LogFileWithFormatInSource) {
  test::TempTree tree("kernel_log_logfile");
  const std::string& dir = tree.root();
  std::string path = dir + "/dmesg.log";
  tree.Write("dmesg.log",
             "2025-01-21T02:21:33,498559+00:00 NVRM: Xid (PCI:0000:38:00): 13, a\n"
             "2025-01-21T02:21:34,000000+00:00 NVRM: Xid (PCI:0000:38:00): 13, b\n");
  KernelLogState state = ReadKernelLog(HostPaths("/nonexistent-root"), path);
  ASSERT_TRUE(state.record_count.has()) << state.record_count.note;
  EXPECT_EQ(*state.record_count, 2);
  EXPECT_EQ(state.source, path + " (dmesg --time-format iso)");
  ASSERT_EQ(state.xids.size(), 1u);
  EXPECT_EQ(state.xids[0].count, 2);
  EXPECT_EQ(state.xids[0].last_time, "2025-01-21T02:21:34,000000+00:00");
}

TEST(KernelLogReadTest, MissingOrUnreadableLogFileIsAnErrorNamingIt) {
  test::TempTree tree("kernel_log_badfile");
  const std::string& dir = tree.root();
  KernelLogState missing = ReadKernelLog(HostPaths(), dir + "/nope.log");
  ASSERT_TRUE(missing.record_count.error());
  EXPECT_NE(missing.record_count.note.find(dir + "/nope.log"), std::string::npos);
  EXPECT_NE(missing.record_count.note.find("No such file or directory"), std::string::npos);

  KernelLogState directory = ReadKernelLog(HostPaths(), dir);
  ASSERT_TRUE(directory.record_count.error());
  EXPECT_NE(directory.record_count.note.find("is a directory"), std::string::npos);

  std::string journal = dir + "/system.journal";
  tree.Write("system.journal", std::string("LPKSHHRH\0\0\0\0\x01\x02", 14));
  KernelLogState binary = ReadKernelLog(HostPaths(), journal);
  ASSERT_TRUE(binary.record_count.error());
  EXPECT_NE(binary.record_count.note.find("journalctl -k"), std::string::npos);

  std::string blob = dir + "/blob.bin";
  tree.Write("blob.bin", std::string(4096, '\x01'));
  KernelLogState garbled = ReadKernelLog(HostPaths(), blob);
  ASSERT_TRUE(garbled.record_count.error());
  EXPECT_NE(garbled.record_count.note.find(blob + ": binary data"), std::string::npos);

  if (::geteuid() != 0) {
    std::string locked = dir + "/locked.log";
    tree.Write("locked.log", "[1.0] x\n");
    ::chmod(locked.c_str(), 0);
    KernelLogState denied = ReadKernelLog(HostPaths(), locked);
    ASSERT_TRUE(denied.record_count.error());
    EXPECT_NE(denied.record_count.note.find(locked), std::string::npos);
    EXPECT_NE(denied.record_count.note.find("Permission denied"), std::string::npos);
  }
}

TEST(KernelLogReadTest, CharacterDeviceIsReadWithoutBlocking) {
  // /dev/null is a character device that answers EOF at once; the reader must return.
  if (!PathExists("/dev/null")) GTEST_SKIP() << "no /dev/null";
  KernelLogState state = ReadKernelLog(HostPaths(), "/dev/null");
  ASSERT_TRUE(state.record_count.has()) << state.record_count.note;
  EXPECT_EQ(*state.record_count, 0);
}

TEST(KernelLogSharedDataTest, AllRealLogsParse) {
  if (!fs::is_directory(SharedKmsgDir())) {
    GTEST_SKIP() << "shared data folder absent: " << SharedKmsgDir();
  }
  for (const auto& entry : fs::directory_iterator(SharedKmsgDir())) {
    KernelLogState state = ReadKernelLog(HostPaths(), entry.path().string());
    ASSERT_TRUE(state.record_count.has()) << entry.path() << ": " << state.record_count.note;
    EXPECT_GT(*state.record_count, 0) << entry.path();
    EXPECT_EQ(state.source.find("unrecognised"), std::string::npos) << state.source;
    // Every line has a recognised time, except the headers pstore puts between dumps.
    auto text = ReadFile(entry.path().string());
    ASSERT_TRUE(text.ok()) << text.status().message();
    for (const KernelLogRecord& r : ParseKernelLog(*text)) {
      if (StartsWith(r.text, "dmesg-erst-") || StartsWith(r.text, "Panic#")) continue;
      EXPECT_FALSE(r.time.empty()) << entry.path() << ": " << r.text;
    }
  }
}

TEST(KernelLogSharedDataTest, EachFormatDetected) {
  if (!fs::is_directory(SharedKmsgDir())) {
    GTEST_SKIP() << "shared data folder absent: " << SharedKmsgDir();
  }
  auto format_of = [](const std::string& name) {
    auto text = ReadFile(SharedKmsgDir() + name);
    EXPECT_TRUE(text.ok()) << text.status().message();
    return text.ok() ? DetectKernelLogFormat(*text) : KernelLogFormat::kUnknown;
  };
  EXPECT_EQ(format_of("dmesg.decode.iso.log.1"), KernelLogFormat::kDmesgDecode);
  EXPECT_EQ(format_of("journalctl-time-format-short-iso-2.log"), KernelLogFormat::kJournalctl);
  EXPECT_EQ(format_of("kmsg.1.log"), KernelLogFormat::kKmsg);
  EXPECT_EQ(format_of("pstore.dmesg.txt"), KernelLogFormat::kDmesgRaw);

  auto journal = ReadFile(SharedKmsgDir() + "journalctl-time-format-short-iso-2.log");
  ASSERT_TRUE(journal.ok());
  for (const KernelLogRecord& r : ParseKernelLog(*journal)) {
    EXPECT_FALSE(r.time.empty()) << r.text;
    EXPECT_EQ(r.text.find("kernel:"), std::string::npos) << r.text;
  }
}

TEST(KernelLogSharedDataTest, DecodeIsoLogHasXid13And43) {
  std::string path = SharedKmsgDir() + "dmesg.decode.iso.log.0";
  if (!fs::exists(path)) GTEST_SKIP() << "shared data file absent: " << path;
  KernelLogState state = ReadKernelLog(HostPaths(), path);
  ASSERT_TRUE(state.record_count.has()) << state.record_count.note;
  EXPECT_EQ(state.source, path + " (dmesg --decode)");
  ASSERT_EQ(state.xids.size(), 2u);
  EXPECT_EQ(state.xids[0].pci_address, "0000:38:00.0");
  EXPECT_EQ(state.xids[0].xid, 13);
  EXPECT_EQ(state.xids[0].count, 629);
  EXPECT_EQ(state.xids[1].pci_address, "0000:38:00.0");
  EXPECT_EQ(state.xids[1].xid, 43);
  EXPECT_EQ(state.xids[1].count, 7);
  EXPECT_EQ(state.xids[1].first_time, "2025-01-21T02:21:33,502278+00:00");
  EXPECT_EQ(state.xids[1].last_time, "2025-01-21T04:41:44,287197+00:00");
}

// The exporter counts records one by one: occurrences keep each record's time and text, drop the
// fallen-off-the-bus echo of an Xid 79, and group back into exactly ExtractXidEvents's result.
TEST(KernelLogXid, OccurrencesAreTheUngroupedEvents) {
  std::vector<KernelLogRecord> records = ParseKernelLog(
      "[  100.5] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', GPU has fallen off the bus.\n"
      "[  100.5] NVRM: GPU at PCI:0000:3b:00: GPU has fallen off the bus.\n"
      "[  120.0] NVRM: Xid (PCI:0000:5d:00): 13, pid=42, Graphics Exception\n"
      "[  121.0] NVRM: Xid (PCI:0000:5d:00): 13, pid=42, Graphics Exception\n");
  std::vector<XidOccurrence> occ = ExtractXidOccurrences(records);
  ASSERT_EQ(occ.size(), 3u);
  EXPECT_EQ(occ[0].pci_address, "0000:3b:00.0");
  EXPECT_EQ(occ[0].xid, 79);
  EXPECT_EQ(occ[1].time, records[2].time);
  EXPECT_EQ(occ[2].text, "NVRM: Xid (PCI:0000:5d:00): 13, pid=42, Graphics Exception");
  std::vector<XidEvent> grouped = GroupXidOccurrences(occ);
  std::vector<XidEvent> direct = ExtractXidEvents(records);
  ASSERT_EQ(grouped.size(), direct.size());
  for (size_t i = 0; i < grouped.size(); ++i) {
    EXPECT_EQ(grouped[i].pci_address, direct[i].pci_address);
    EXPECT_EQ(grouped[i].count, direct[i].count);
    EXPECT_EQ(grouped[i].last_time, direct[i].last_time);
  }
}

// ---- Issue 17: NVLink5 Fatal/Nonfatal, Xid 154's recovery action, rate-limit notices, GPUs lost
// without an Xid number, ISO 8601 times.

TEST(XidExtractTest, Nvlink5FatalAndNonfatalAreSeparateEvents) {
  auto xids = ExtractXidEvents(ParseKernelLog(
      "[  10.0] NVRM: Xid (PCI:0000:04:00): 149, NETIR_LINK_EVT/NETIR_LINK_DOWN Fatal XC0 i0 Link "
      "00 (0x00000011 0x00000000 0x00000000 0x00000000)\n"
      "[  11.0] NVRM: Xid (PCI:0000:04:00): 149, NETIR_BER_EVENT Nonfatal XC0 i0 Link 00 "
      "(0x00000013 0x00000000 0x00000000 0x00000000)\n"
      "[  12.0] NVRM: Xid (PCI:0000:04:00): 149, NETIR_BER_EVENT Nonfatal XC0 i0 Link 01 (0x13)\n"
      "[  13.0] NVRM: Xid (PCI:0000:04:00): 146, TLW_CTRL (no severity word)\n"));
  ASSERT_EQ(xids.size(), 3u);
  EXPECT_EQ(xids[0].xid, 146);
  EXPECT_EQ(xids[0].detail, "");
  EXPECT_EQ(xids[1].xid, 149);
  EXPECT_EQ(xids[1].detail, "fatal");
  EXPECT_EQ(xids[1].count, 1);
  EXPECT_EQ(xids[2].detail, "nonfatal");
  EXPECT_EQ(xids[2].count, 2);
}

TEST(XidExtractTest, Xid154KeepsTheLatestRecoveryAction) {
  auto xids = ExtractXidEvents(ParseKernelLog(
      "[  10.0] NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to "
      "0x1 (GPU Reset Required)\n"
      "[  20.0] NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x1 (GPU Reset "
      "Required) to 0x0 (None)\n"
      "[  30.0] NVRM: Xid (PCI:0000:02:00): 154, GPU recovery action changed from 0x0 (None) to "
      "0x4 (Drain and Reset)\n"));
  ASSERT_EQ(xids.size(), 2u);
  EXPECT_EQ(xids[0].detail, "None");
  EXPECT_EQ(xids[0].count, 2);
  EXPECT_EQ(xids[1].detail, "Drain and Reset");
}

TEST(XidExtractTest, RateLimitNotices) {
  auto limits = ExtractXidRateLimits(ParseKernelLog(
      "[ 3959.592099] NVRM: Rate limiting GSP RPC error prints for GPU at PCI:0000:61:00 (printing "
      "1 of every 30).  The GPU likely needs to be reset.\n"
      "[ 3960.0] NVRM: Rate limiting GSP RPC error prints for GPU at PCI:0000:61:00 (printing 1 of "
      "every x).\n"
      "[ 3961.0] mlx5_core 0000:1b:00.0: Rate limit: 127 rates are supported\n"));
  ASSERT_EQ(limits.size(), 1u);
  EXPECT_EQ(limits[0].pci_address, "0000:61:00.0");
  EXPECT_EQ(limits[0].every, 30);
  EXPECT_EQ(limits[0].time, "[3959.592099]");
}

TEST(XidExtractTest, GpuLostAtProbeWithoutAnXidNumber) {
  auto xids = ExtractXidEvents(ParseKernelLog(
      // three lines (syslog, each line its own record)
      "Jan  3 07:39:45 node kernel: [17257.355375] NVRM: The NVIDIA GPU 0000:5d:00.0\n"
      "Jan  3 07:39:45 node kernel: [17257.355375] NVRM: (PCI ID: 10de:2330) installed in this "
      "system has\n"
      "Jan  3 07:39:45 node kernel: [17257.355375] NVRM: fallen off the bus and is not responding "
      "to commands.\n"
      // two lines, the address and PCI ID on the first
      "Mar  7 19:30:42 node kernel: NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:2d04) "
      "installed in this system has\n"
      "Mar  7 19:30:42 node kernel: NVRM: fallen off the bus and is not responding to commands.\n"
      // journald keeps the continuation lines indented under one entry
      "Mar  7 19:31:00 node kernel: NVRM: The NVIDIA GPU 0000:b3:00.0\n"
      "                            NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
      "                            NVRM: fallen off the bus and is not responding to commands.\n"
      // no address line at all
      "Mar  7 19:40:00 node kernel: NVRM: fallen off the bus and is not responding to "
      "commands.\n"));
  ASSERT_EQ(xids.size(), 4u);
  EXPECT_EQ(xids[0].pci_address, "");
  EXPECT_EQ(xids[1].pci_address, "0000:01:00.0");
  EXPECT_EQ(xids[2].pci_address, "0000:5d:00.0");
  EXPECT_EQ(xids[2].first_time, "Jan  3 07:39:45");
  EXPECT_EQ(xids[3].pci_address, "0000:b3:00.0");
  for (const XidEvent& x : xids) {
    EXPECT_EQ(x.xid, 79);
    EXPECT_EQ(x.count, 1);
  }
  // The probe report right after an Xid 79 of the same GPU is its echo.
  xids = ExtractXidEvents(ParseKernelLog(
      "[  1.0] NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', GPU has fallen off the bus.\n"
      "[  1.1] NVRM: The NVIDIA GPU 0000:5d:00.0\n"
      "[  1.1] NVRM: fallen off the bus and is not responding to commands.\n"));
  ASSERT_EQ(xids.size(), 1u);
  EXPECT_EQ(xids[0].count, 1);
}

TEST(XidExtractTest, TimesAreIso8601WhereTheLogAllows) {
  auto xids = ExtractXidEvents(
      ParseKernelLog("[Tue Jan  6 10:15:00 2026] NVRM: Xid (PCI:0000:3a:00): 13, a\n"
                     "2026-01-06T10:16:00+0000 node kernel: NVRM: Xid (PCI:0000:3a:00): 13, b\n"));
  ASSERT_EQ(xids.size(), 1u);
  EXPECT_EQ(xids[0].first_time, "2026-01-06T10:15:00");
  EXPECT_EQ(xids[0].last_time, "2026-01-06T10:16:00+00:00");
  using kernel_log_internal::IsoLogTime;
  EXPECT_EQ(IsoLogTime("2025-01-21T02:21:33,498559+00:00"), "2025-01-21T02:21:33,498559+00:00");
  EXPECT_EQ(IsoLogTime("2026-01-06 10:17:00,5+0100"), "2026-01-06T10:17:00,5+01:00");
  EXPECT_EQ(IsoLogTime("2026-01-06T10:17:00Z"), "2026-01-06T10:17:00Z");
  EXPECT_EQ(IsoLogTime("Mon Dec 15 23:59:59 2025"), "2025-12-15T23:59:59");
  EXPECT_EQ(IsoLogTime("[12.5]"), "[12.5]");
  EXPECT_EQ(IsoLogTime("7.000000 s after boot"), "7.000000 s after boot");
  EXPECT_EQ(IsoLogTime("Jan 17 17:10:43"), "Jan 17 17:10:43");
  EXPECT_EQ(IsoLogTime("Tue Foo  6 10:15:00 2026"), "Tue Foo  6 10:15:00 2026");
  EXPECT_EQ(IsoLogTime(""), "");
}

TEST(XidExtractTest, NewFormsSurviveEveryCutAndRandomMutation) {
  const std::string log =
      "[Tue Jan  6 10:15:00 2026] NVRM: Xid (PCI:0000:3a:00): 149, NETIR_LINK_DOWN Fatal XC0\n"
      "<4>[  1.0] NVRM: Xid (PCI:0000:3a:00): 154, GPU recovery action changed from 0x0 (None) to "
      "0x4 (Drain and Reset)\n"
      "2026-01-01T09:00:03+0000 node kernel: NVRM: The NVIDIA GPU 0000:ab:00.0\n"
      "2026-01-01T09:00:03+0000 node kernel: NVRM: fallen off the bus and is not responding to "
      "commands.\n"
      "[ 2.0] NVRM: Rate limiting GSP RPC error prints for GPU at PCI:0000:61:00 (printing 1 of "
      "every 30).\n";
  auto run = [](std::string_view text) {
    auto records = ParseKernelLog(text);
    auto events = GroupXidOccurrences(ExtractXidOccurrences(records));
    auto limits = ExtractXidRateLimits(records);
    return events.size() + limits.size();
  };
  EXPECT_EQ(run(log), 4u);
  for (size_t cut = 0; cut <= log.size(); ++cut) (void)run(std::string_view(log).substr(0, cut));
  std::mt19937 rng(154);
  for (int k = 0; k < 300; ++k) {
    std::string bad = log;
    for (int flips = 1 + static_cast<int>(rng() % 4); flips > 0; --flips) {
      bad[rng() % bad.size()] = static_cast<char>(rng() % 256);
    }
    (void)run(bad);  // never crashes, throws or reads out of bounds
  }
}

}  // namespace
}  // namespace gpuvet
