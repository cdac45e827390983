// Tests of the kernel log signals beyond Xid: each signal from real-format lines, look-alike lines
// that must not match, deduplication with count and first/last time, multi-line report merging,
// NFS outage pairing with durations, ISO time conversion, and the real logs in ../shared/data.
#include "sources/kmsg/kernel_log_signals.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>

#include "sources/kmsg/kernel_log.h"

namespace gpuvet {
namespace {

namespace fs = std::filesystem;

std::string SharedKmsgDir() { return std::string(GPUVET_SHARED_DATA_DIR) + "/kmsg/"; }

KernelSignalMatch Classify(std::string_view text) {
  auto m = ClassifyKernelMessage(text);
  EXPECT_TRUE(m.has_value()) << text;
  return m.value_or(KernelSignalMatch{});
}

void ExpectNone(std::string_view text) {
  auto m = ClassifyKernelMessage(text);
  EXPECT_FALSE(m.has_value()) << text << " -> " << (m ? KernelSignalName(m->signal) : "");
}

TEST(KernelSignalClassifyTest, Nfs) {
  auto m = Classify("nfs: server fs01.cluster not responding, still trying");
  EXPECT_EQ(m.signal, KernelSignal::kNfsNotResponding);
  EXPECT_EQ(m.key, "fs01.cluster");
  EXPECT_EQ(m.detail, "still_trying");
  EXPECT_EQ(Classify("nfs: server 10.0.0.5 not responding, timed out").detail, "timed_out");
  m = Classify("nfs: server fs01.cluster OK");
  EXPECT_EQ(m.detail, "ok");
  EXPECT_EQ(Classify("lockd: server 10.0.0.5 not responding, still trying").key, "10.0.0.5");
  ExpectNone("FS-Cache: Netfs 'nfs' registered for caching");
  ExpectNone("RPC: Registered tcp NFSv4.1 backchannel transport module.");
}

TEST(KernelSignalClassifyTest, HungTask) {
  auto m = Classify("INFO: task python3:48211 blocked for more than 122 seconds.");
  EXPECT_EQ(m.signal, KernelSignal::kHungTask);
  EXPECT_EQ(m.key, "python3");
  EXPECT_EQ(m.pid, 48211);
  EXPECT_EQ(m.extra, "pid 48211");
  EXPECT_EQ(m.value, 122);
  // A comm with ':' in it (kernel worker names).
  EXPECT_EQ(Classify("INFO: task kworker/u16:3:1187 blocked for more than 245 seconds.").key,
            "kworker/u16:3");
  ExpectNone("INFO: task python3 blocked for more than a while");
  ExpectNone("\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.");
}

TEST(KernelSignalClassifyTest, IoErrors) {
  struct Case {
    std::string_view text, key, detail;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"blk_update_request: I/O error, dev sdb, sector 2048 op 0x1:(WRITE) flags 0x800 "
            "phys_seg 1 prio class 0",
            "sdb", "block"},
           {"I/O error, dev nvme1n1, sector 9437184 op 0x0:(READ) flags 0x80700 phys_seg 1 prio "
            "class 2",
            "nvme1n1", "block"},
           {"critical medium error, dev sdc, sector 123 op 0x0:(READ) flags 0x0", "sdc", "block"},
           {"Buffer I/O error on dev sdb1, logical block 0, async page read", "sdb1", "buffer"},
           {"EXT4-fs error (device nvme1n1p1): ext4_find_entry:1455: inode #2: comm ls: reading "
            "directory lblock 0",
            "nvme1n1p1", "ext4"},
           {"EXT4-fs (sdb1): Remounting filesystem read-only", "sdb1", "ext4"},
           {"EXT4-fs (sdb1): I/O error while writing superblock", "sdb1", "ext4"},
           {"XFS (md0): metadata I/O error in \"xfs_imap_to_bp+0x5c/0xa0\" at daddr 0x1f40 len 32 "
            "error 5",
            "md0", "xfs"},
           {"XFS (dm-0): Corruption detected. Unmount and run xfs_repair", "dm-0", "xfs"},
           {"XFS (md0): Filesystem has been shut down due to log error (0x2).", "md0", "xfs"},
           {"nvme nvme2: I/O 123 QID 4 timeout, aborting", "nvme2", "nvme_timeout"},
           {"nvme nvme2: I/O 9 QID 0 timeout, reset controller", "nvme2", "nvme_timeout"},
           {"nvme nvme3: controller is down; will reset: CSTS=0x3, PCI_STATUS=0x10", "nvme3",
            "nvme_reset"},
           {"nvme nvme1: Removing after probe failure status: -19", "nvme1", "nvme_reset"},
           {"nvme0n1: I/O Cmd(0x2) @ LBA 5000, 8 blocks, I/O Error (sct 0x2 / sc 0x81) DNR",
            "nvme0n1", "block"},
       }) {
    auto m = Classify(c.text);
    EXPECT_EQ(m.signal, KernelSignal::kIoError) << c.text;
    EXPECT_EQ(m.key, c.key) << c.text;
    EXPECT_EQ(m.detail, c.detail) << c.text;
  }
  // Look-alikes from real boot logs.
  ExpectNone("nvme nvme1: Shutdown timeout set to 11 seconds");
  ExpectNone("nvme nvme6: 104/0/0 default/read/poll queues");
  ExpectNone("EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Opts: (null).");
  ExpectNone("EXT4-fs (sda1): mounted filesystem with ordered data mode. Opts: errors=remount-ro");
  ExpectNone("XFS (sdb1): Mounting V5 Filesystem");
  ExpectNone("XFS (sdb1): Ending clean mount");
}

TEST(KernelSignalClassifyTest, OomKill) {
  auto h = Classify(
      "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,"
      "oom_memcg=/kubepods.slice/pod1,task_memcg=/kubepods.slice/pod1/cri-x,task=python3,"
      "pid=48211,uid=1000");
  EXPECT_EQ(h.signal, KernelSignal::kOomKill);
  EXPECT_EQ(h.key, "python3");
  EXPECT_EQ(h.detail, "cgroup");
  EXPECT_FALSE(h.continuation);
  EXPECT_EQ(h.pid, 48211);
  auto k = Classify(
      "Out of memory: Killed process 48211 (python3) total-vm:81234567kB, anon-rss:7000000kB, "
      "file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:20000kB oom_score_adj:0");
  EXPECT_EQ(k.key, "python3");
  EXPECT_EQ(k.detail, "system");
  EXPECT_TRUE(k.continuation);
  EXPECT_EQ(Classify("Memory cgroup out of memory: Killed process 77 (pt_data_worker) "
                     "total-vm:1kB")
                .detail,
            "cgroup");
  ExpectNone("oom_reaper: reaped process 48211 (python3), now anon-rss:0kB");
  ExpectNone("Killed process (python3)");
}

TEST(KernelSignalClassifyTest, CommLibSegfaults) {
  auto m = Classify(
      "python3[48211]: segfault at 8 ip 00007f3a2c1d2e10 sp 00007ffd4b2c1a30 error 4 in "
      "libnccl.so.2.18.3[7f3a2c000000+1c00000] likely on CPU 12 (core 12, socket 0)");
  EXPECT_EQ(m.signal, KernelSignal::kCommLibSegfault);
  EXPECT_EQ(m.key, "libnccl.so");
  EXPECT_EQ(m.detail, "python3");
  EXPECT_EQ(m.extra, "pid 48211");
  EXPECT_EQ(Classify("traps: pt_main_thread[9001] general protection fault ip:7f0 sp:7ff "
                     "error:0 in libcuda.so.550.90.07[7f0000+200000]")
                .key,
            "libcuda.so");
  EXPECT_EQ(Classify("python3[1]: segfault at 0 ip 0 sp 0 error 6 in "
                     "libucp.so.0.0.0[7f00+1000]")
                .key,
            "libucp.so");
  EXPECT_EQ(Classify("python3[1]: segfault at 0 ip 0 sp 0 error 6 in libnccl-net.so[7f+1]").key,
            "libnccl-net.so");
  // A crash elsewhere is not this signal.
  ExpectNone("python3[48211]: segfault at 0 ip 00007f sp 00007ff error 4 in libc.so.6[7f+1]");
}

TEST(KernelSignalClassifyTest, Peermem) {
  auto m = Classify(
      "nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping "
      "further processing");
  EXPECT_EQ(m.signal, KernelSignal::kPeermemError);
  EXPECT_EQ(m.key, "nv_get_p2p_free_callback");
  EXPECT_EQ(Classify("nv_peer_mem: failed to get p2p pages").signal, KernelSignal::kPeermemError);
  ExpectNone("nvidia-peermem: loaded");
}

TEST(KernelSignalClassifyTest, PcieAer) {
  auto m = Classify("pcieport 0000:17:01.0: AER: Corrected error received: 0000:18:00.0");
  EXPECT_EQ(m.signal, KernelSignal::kPcieAer);
  EXPECT_EQ(m.key, "0000:18:00.0");
  EXPECT_EQ(m.detail, "corrected");
  EXPECT_FALSE(m.continuation);
  m = Classify("pcieport 0000:d9:01.0: AER: Uncorrected (Non-Fatal) error received: 0000:da:00.0");
  EXPECT_EQ(m.detail, "uncorrected_nonfatal");
  EXPECT_EQ(m.key, "0000:da:00.0");
  m = Classify(
      "pcieport 0000:d9:01.0: AER: Multiple Uncorrected (Fatal) error message received from "
      "0000:d9:01.0");
  EXPECT_EQ(m.detail, "uncorrected_fatal");
  EXPECT_EQ(m.key, "0000:d9:01.0");
  // Older kernels name only the requester id: the reporting port is the subject.
  EXPECT_EQ(Classify("pcieport 0000:00:03.0: AER: Corrected error received: id=0018").key,
            "0000:00:03.0");
  m = Classify(
      "nvidia 0000:18:00.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, "
      "(Receiver ID)");
  EXPECT_TRUE(m.continuation);
  EXPECT_EQ(m.key, "0000:18:00.0");
  EXPECT_EQ(m.extra, "Physical Layer");
  ExpectNone("pcieport 0000:00:01.0: AER: enabled with IRQ 27");
  ExpectNone(
      "acpi PNP0A08:00: _OSC: OS now controls [PCIeHotplug SHPCHotplug PME AER PCIeCapability]");
}

TEST(KernelSignalClassifyTest, GarbageNeverMatchesOrCrashes) {
  for (std::string_view s :
       {"", " ", "nfs: server ", "nfs: server  not responding", "task : blocked for more than ",
        "Killed process 1 (", "oom-kill:", "segfault at", " in lib", "AER: error received",
        "PCIe Bus Error: severity=", "EXT4-fs (", "XFS (", "nvme nvme", "nvidia-peermem"}) {
    (void)ClassifyKernelMessage(s);  // must not crash; some may match, none may throw
  }
  ExpectNone("nfs: server  not responding");
  ExpectNone("oom-kill:");
  ExpectNone("AER: error received");
}

TEST(KernelSignalClassifyTest, EveryPrefixAndByteFlipIsSafe) {
  // Truncated lines (a log cut mid-record) and corrupted bytes must never read out of bounds.
  const std::string lines[] = {
      "nfs: server fs01 not responding, still trying",
      "INFO: task kworker/u16:3:1187 blocked for more than 245 seconds.",
      "blk_update_request: I/O error, dev sdb, sector 2048 op 0x1:(WRITE) flags 0x800",
      "EXT4-fs (sdb1): Remounting filesystem read-only",
      "XFS (md0): metadata I/O error in \"xfs_imap_to_bp\" at daddr 0x1f40 len 32 error 5",
      "nvme nvme2: I/O 123 QID 4 timeout, aborting",
      "nvme0n1: I/O Cmd(0x2) @ LBA 5000, 8 blocks, I/O Error (sct 0x2 / sc 0x81) DNR",
      "oom-kill:constraint=CONSTRAINT_MEMCG,task=python3,pid=48211,uid=1000",
      "Out of memory: Killed process 48211 (python3) total-vm:1kB",
      "python3[48211]: segfault at 8 ip 0 sp 0 error 4 in libnccl.so.2.18.3[7f00+1000]",
      "nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context",
      "pcieport 0000:17:01.0: AER: Multiple Uncorrected (Fatal) error message received from "
      "0000:18:00.0",
      "nvidia 0000:18:00.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Rec",
  };
  int matched = 0;
  for (const std::string& line : lines) {
    for (size_t cut = 0; cut <= line.size(); ++cut) {
      matched += ClassifyKernelMessage(std::string_view(line).substr(0, cut)).has_value();
    }
    for (size_t i = 0; i < line.size(); ++i) {
      for (char c : {'\0', ':', ' ', '(', ')', '[', ',', '\xff'}) {
        std::string bad = line;
        bad[i] = c;
        matched += ClassifyKernelMessage(bad).has_value();
      }
    }
    EXPECT_TRUE(ClassifyKernelMessage(line).has_value()) << line;
  }
  EXPECT_GT(matched, 0);
}

std::vector<KernelLogRecord> Log(std::string_view text) { return ParseKernelLog(text); }

TEST(KernelSignalEventsTest, DeduplicatesWithCountAndTimes) {
  auto records =
      Log("[  100.000000] INFO: task python3:4001 blocked for more than 122 seconds.\n"
          "[  100.100000] INFO: task python3:4002 blocked for more than 122 seconds.\n"
          "[  150.000000] blk_update_request: I/O error, dev sdb, sector 1 op 0x1:(WRITE) flags 0\n"
          "[  222.500000] INFO: task python3:4001 blocked for more than 245 seconds.\n"
          "[  300.000000] INFO: task rsync:77 blocked for more than 122 seconds.\n");
  std::vector<KernelEvent> events = ExtractKernelEvents(records);
  ASSERT_EQ(events.size(), 3u);
  const KernelEvent& py = events[0];  // sorted by signal (hung task first), then key
  EXPECT_EQ(py.signal, KernelSignal::kHungTask);
  EXPECT_EQ(py.key, "python3");
  EXPECT_EQ(py.count, 3);
  EXPECT_EQ(py.first_time, "[100.000000]");
  EXPECT_EQ(py.last_time, "[222.500000]");
  EXPECT_EQ(py.extras, (std::vector<std::string>{"pid 4001", "pid 4002"}));
  EXPECT_EQ(py.max_value, 245);  // the longest block, not the first
  EXPECT_EQ(events[1].key, "rsync");
  EXPECT_EQ(events[2].signal, KernelSignal::kIoError);
  EXPECT_EQ(events[2].count, 1);
}

// Issue 26: the NVIDIA driver's own failures, and an md array whose last device failed.
TEST(KernelSignalClassifyTest, NvidiaDriverFailures) {
  KernelSignalMatch m = Classify(
      "NVRM: API mismatch: the client has the version 550.127.05, but this kernel module has the "
      "version 550.90.07.  Please make sure that this kernel module and all NVIDIA driver "
      "components have the same version.");
  EXPECT_EQ(m.signal, KernelSignal::kDriverMismatch);
  EXPECT_EQ(m.key, "nvidia");
  EXPECT_EQ(m.extra, "client 550.127.05, kernel module 550.90.07");
  EXPECT_TRUE(Classify("NVRM: this kernel module has the version 550.90.07.  Please").continuation);
  EXPECT_EQ(Classify("nvidia-modeset: Version mismatch: nvidia.ko(550.90.07) "
                     "nvidia-modeset.ko(550.127.05)")
                .key,
            "nvidia-modeset");
  m = Classify("NVRM: GPU 0000:db:00.0: RmInitAdapter failed! (0x26:0x65:1457)");
  EXPECT_EQ(m.signal, KernelSignal::kGpuInitFailed);
  EXPECT_EQ(m.key, "0000:db:00.0");
  EXPECT_EQ(m.detail, "rm_init_adapter");
  EXPECT_EQ(Classify("NVRM: GPU 0000:3b:00.0: rm_init_adapter failed, device minor number 0").key,
            "0000:3b:00.0");
  m = Classify("NVRM: The NVIDIA probe routine failed for 1 device(s).");
  EXPECT_EQ(m.key, "nvidia");
  EXPECT_EQ(m.detail, "probe");
  ExpectNone("NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.90.07");
  EXPECT_EQ(Classify("md/raid1:md0: failing array").detail, "md_failed");
}

TEST(KernelSignalEventsTest, WrappedApiMismatchIsOneEventWithBothVersions) {
  auto records =
      Log("[  10.000000] NVRM: API mismatch: the client has the version 550.127.05, but\n"
          "[  10.000000] NVRM: this kernel module has the version 550.90.07.  Please\n"
          "[  10.000000] NVRM: make sure that this kernel module and all NVIDIA driver\n"
          "[  70.000000] NVRM: API mismatch: the client has the version 550.127.05, but\n"
          "[  70.000000] NVRM: this kernel module has the version 550.90.07.  Please\n");
  std::vector<KernelEvent> events = ExtractKernelEvents(records);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].signal, KernelSignal::kDriverMismatch);
  EXPECT_EQ(events[0].count, 2);
  EXPECT_EQ(events[0].extras,
            (std::vector<std::string>{"client 550.127.05, kernel module 550.90.07"}));
  EXPECT_EQ(events[0].last_time, "[70.000000]");
}

TEST(KernelSignalEventsTest, OomHeaderAndKillLineAreOneEvent) {
  auto records =
      Log("6,1,1000000,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,"
          "mems_allowed=0,oom_memcg=/job,task_memcg=/job,task=python3,pid=500,uid=0\n"
          "6,2,1000100,-;Memory cgroup out of memory: Killed process 500 (python3) total-vm:1kB\n"
          "6,3,2000000,-;Out of memory: Killed process 600 (python3) total-vm:1kB\n"
          "6,4,3000000,-;oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,"
          "mems_allowed=0,task=java,pid=700,uid=0\n");  // log cut before its kill line
  std::vector<KernelSignalEvent> stream = ClassifyKernelLog(records);
  ASSERT_EQ(stream.size(), 3u);
  EXPECT_EQ(stream[0].detail, "cgroup");
  EXPECT_DOUBLE_EQ(stream[0].monotonic_s, 1.0);
  EXPECT_EQ(stream[1].detail, "system");  // no header: the kill line counts
  EXPECT_EQ(stream[2].key, "java");
  std::vector<KernelEvent> events = ExtractKernelEvents(records);
  ASSERT_EQ(events.size(), 3u);  // (java, system), (python3, cgroup), (python3, system)
  EXPECT_EQ(events[1].key, "python3");
  EXPECT_EQ(events[1].detail, "cgroup");
  EXPECT_EQ(events[1].count, 1);
}

TEST(KernelSignalEventsTest, AerDetailLinesDoNotCountTwice) {
  auto records = Log(
      "kern  :err   : 2026-01-01T10:00:00,000000+00:00 pcieport 0000:17:01.0: AER: Corrected "
      "error received: 0000:18:00.0\n"
      "kern  :err   : 2026-01-01T10:00:00,000100+00:00 nvidia 0000:18:00.0: AER: PCIe Bus Error: "
      "severity=Corrected, type=Physical Layer, (Receiver ID)\n"
      "kern  :err   : 2026-01-01T10:00:00,000200+00:00 nvidia 0000:18:00.0: AER:   device "
      "[10de:2330] error status/mask=00000001/0000e000\n"
      "kern  :err   : 2026-01-01T10:00:00,000300+00:00 nvidia 0000:18:00.0: AER:    [ 0] RxErr\n"
      "kern  :err   : 2026-01-01T11:00:00,000000+00:00 nvidia 0000:18:00.0: PCIe Bus Error: "
      "severity=Corrected, type=Data Link Layer, (Transmitter ID)\n");
  std::vector<KernelEvent> events = ExtractKernelEvents(records);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].pci_address, "0000:18:00.0");
  EXPECT_EQ(events[0].count, 2);  // the header, and the later bus error with no header
  EXPECT_EQ(events[0].extras, (std::vector<std::string>{"Physical Layer", "Data Link Layer"}));
  EXPECT_EQ(events[0].last_time, "2026-01-01T11:00:00,000000+00:00");
}

TEST(KernelSignalEventsTest, NfsOutagesPairWithDurations) {
  auto records =
      Log("[ 1000.000000] nfs: server fs01 not responding, still trying\n"
          "[ 1010.000000] nfs: server fs01 not responding, still trying\n"
          "[ 1012.000000] nfs: server fs02 not responding, timed out\n"
          "[ 1094.500000] nfs: server fs01 OK\n"
          "[ 2000.000000] nfs: server fs01 not responding, still trying\n"
          "[ 2030.000000] nfs: server fs01 OK\n"
          "[ 2100.000000] nfs: server fs03 OK\n");  // an OK with no outage in this log
  std::vector<NfsOutage> outages = ExtractNfsOutages(records);
  ASSERT_EQ(outages.size(), 3u);
  EXPECT_EQ(outages[0].server, "fs01");
  EXPECT_EQ(outages[0].not_responding_lines, 2);
  EXPECT_DOUBLE_EQ(outages[0].duration_s, 94.5);
  EXPECT_EQ(outages[0].end_time, "[1094.500000]");
  EXPECT_EQ(outages[1].server, "fs02");
  EXPECT_TRUE(outages[1].end_time.empty());  // still down at the end of the log
  EXPECT_EQ(outages[1].duration_s, -1);
  EXPECT_DOUBLE_EQ(outages[2].duration_s, 30.0);
  // OK lines are not events; not-responding lines are, per (server, detail).
  std::vector<KernelEvent> events = ExtractKernelEvents(records);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].key, "fs01");
  EXPECT_EQ(events[0].count, 3);
}

TEST(KernelSignalEventsTest, NfsDurationFromIsoAndJournalTimes) {
  auto records =
      Log("2026-01-01T23:59:30+0000 node kernel: nfs: server fs01 not responding, still trying\n"
          "2026-01-02T00:01:00+0000 node kernel: nfs: server fs01 OK\n");
  auto outages = ExtractNfsOutages(records);
  ASSERT_EQ(outages.size(), 1u);
  EXPECT_DOUBLE_EQ(outages[0].duration_s, 90.0);
  // syslog times carry no year: the duration stays unknown rather than guessed.
  records =
      Log("Jan  1 23:59:30 node kernel: nfs: server fs01 not responding, still trying\n"
          "Jan  2 00:01:00 node kernel: nfs: server fs01 OK\n");
  outages = ExtractNfsOutages(records);
  ASSERT_EQ(outages.size(), 1u);
  EXPECT_EQ(outages[0].duration_s, -1);
  EXPECT_FALSE(outages[0].end_time.empty());
}

TEST(KernelSignalSharedDataTest, PeermemLinesFromRealLogs) {
  if (!fs::is_directory(SharedKmsgDir())) {
    GTEST_SKIP() << "shared data folder absent: " << SharedKmsgDir();
  }
  struct Case {
    const char* file;
    int count;
  };
  // dmesg.peermem.log.0: 7 lines (its 8th line is cut after the time); kmsg.2: 7 records;
  // journalctl: 14 lines.
  for (const Case& c : {Case{"dmesg.peermem.log.0", 7}, Case{"kmsg.2.peermem.log", 7},
                        Case{"journalctl-time-format-short-iso-2.log", 14}}) {
    KernelLogState state = ReadKernelLog(HostPaths(), SharedKmsgDir() + c.file);
    ASSERT_EQ(state.events.size(), 1u) << c.file;
    EXPECT_EQ(state.events[0].signal, KernelSignal::kPeermemError) << c.file;
    EXPECT_EQ(state.events[0].key, "nv_get_p2p_free_callback") << c.file;
    EXPECT_EQ(state.events[0].count, c.count) << c.file;
  }
  KernelLogState iso = ReadKernelLog(HostPaths(), SharedKmsgDir() + "dmesg.peermem.log.0");
  EXPECT_EQ(iso.events[0].first_time, "2025-02-10T16:28:06,502716+00:00");
  EXPECT_EQ(iso.events[0].last_time, "2025-02-10T16:28:06,570939+00:00");
}

TEST(KernelSignalSharedDataTest, RealBootLogsHaveNoFalseSignals) {
  if (!fs::is_directory(SharedKmsgDir())) {
    GTEST_SKIP() << "shared data folder absent: " << SharedKmsgDir();
  }
  // A 2,381-line boot log with NVMe, EXT4, pcieport, EDAC banner and AER-capability lines, Xid
  // logs, pstore crash dumps: none holds an NFS, hung-task, I/O, OOM, AER, SXid, NVLink, lockup or
  // EDAC error. What they do hold is asserted exactly below (and in the next tests).
  for (const char* file : {"dmesg.decode.iso.log.0", "dmesg.decode.iso.log.1", "kmsg.1.log",
                           "pstore.dmesg.txt", "pstore.dmesg-erst.txt"}) {
    KernelLogState state = ReadKernelLog(HostPaths(), SharedKmsgDir() + file);
    ASSERT_TRUE(state.record_count.has()) << file;
    for (const KernelEvent& e : state.events) {
      if (e.signal == KernelSignal::kKernelCrash && std::string(file).starts_with("pstore")) {
        continue;  // KernelSignalSharedDataTest.PstoreDumpsAreDeliberateTestCrashes
      }
      if (e.signal == KernelSignal::kNicSlotPower &&
          std::string(file) == "dmesg.decode.iso.log.1") {
        continue;  // KernelSignalSharedDataTest.BootLogNicsReportSlotPower
      }
      ADD_FAILURE() << file << ": unexpected " << KernelSignalName(e.signal) << " " << e.key << ": "
                    << e.sample;
    }
    EXPECT_TRUE(state.nfs_outages.empty()) << file;
  }
}

TEST(KernelSignalSharedDataTest, PstoreDumpsAreDeliberateTestCrashes) {
  if (!fs::is_directory(SharedKmsgDir())) {
    GTEST_SKIP() << "shared data folder absent: " << SharedKmsgDir();
  }
  // pstore.dmesg.txt: "Kernel panic - not syncing: Test panic triggered by crash_test module";
  // pstore.dmesg-erst.txt: "sysrq: SysRq : Trigger a crash", then BUG, Oops (one crash).
  struct Case {
    const char* file;
    const char* detail;
  };
  for (const Case& c : {Case{"pstore.dmesg.txt", "panic_deliberate"},
                        Case{"pstore.dmesg-erst.txt", "oops_deliberate"}}) {
    KernelLogState state = ReadKernelLog(HostPaths(), SharedKmsgDir() + c.file);
    std::vector<const KernelEvent*> crashes;
    for (const KernelEvent& e : state.events) {
      if (e.signal == KernelSignal::kKernelCrash) crashes.push_back(&e);
    }
    ASSERT_EQ(crashes.size(), 1u) << c.file;
    EXPECT_EQ(crashes[0]->detail, c.detail) << c.file;
    EXPECT_EQ(crashes[0]->count, 1) << c.file;
  }
}

TEST(KernelSignalSharedDataTest, BootLogNicsReportSlotPower) {
  std::string path = SharedKmsgDir() + "dmesg.decode.iso.log.1";
  if (!fs::exists(path)) GTEST_SKIP() << "shared data file absent: " << path;
  // Each of the node's 12 ConnectX functions that warn prints the 27 W line once at boot.
  KernelLogState state = ReadKernelLog(HostPaths(), path);
  std::vector<const KernelEvent*> power;
  for (const KernelEvent& e : state.events) {
    if (e.signal == KernelSignal::kNicSlotPower) power.push_back(&e);
  }
  ASSERT_EQ(power.size(), 1u);
  EXPECT_EQ(power[0]->key, "27W");
  EXPECT_EQ(power[0]->count, 12);
  EXPECT_EQ(power[0]->first_time, "2025-01-17T15:36:26,478631+00:00");
  EXPECT_EQ(power[0]->extras.front(), "0000:1a:00.0");
}

// ---- The signals of issue 17: SXid, NVLink training, crashes, stalls, EDAC, NIC power, I/O.

TEST(KernelSignalClassifyTest, NvswitchSxidFatalAndNonFatal) {
  KernelSignalMatch m = Classify(
      "nvidia-nvswitch3: SXid (PCI:0000:c6:00.0): 24007, Fatal, Link 27 sourcetrack TCEN0 "
      "crumbstore ECC DBE Error");
  EXPECT_EQ(m.signal, KernelSignal::kNvswitchSxid);
  EXPECT_EQ(m.key, "0000:c6:00.0");
  EXPECT_EQ(m.detail, "fatal");
  EXPECT_EQ(m.extra, "SXid 24007");
  m = Classify(
      "nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 12028, Non-fatal, Link 38 egress non-posted "
      "PRIV error (First)");
  EXPECT_EQ(m.detail, "nonfatal");
  // The report's follow-up lines carry no severity: not counted again.
  ExpectNone(
      "nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 12028, Severity 0 Engine instance 38 "
      "Sub-engine instance 00");
  ExpectNone("nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 12028, Data {0x0, 0x8}");
  ExpectNone("nvidia-nvswitch0: open (major=510)");
}

TEST(KernelSignalClassifyTest, NvlinkTrainingFailures) {
  KernelSignalMatch m = Classify(
      "NVRM: knvlinkDiscoverPostRxDetLinks_GH100: Getting peer0's postRxDetLinkMask "
      "failed!");
  EXPECT_EQ(m.signal, KernelSignal::kNvlinkTraining);
  EXPECT_EQ(m.key, "knvlinkDiscoverPostRxDetLinks_GH100");
  m = Classify(
      "NVRM: knvlinkUpdatePostRxDetectLinkMask_IMPL: Failed to update Rx Detect Link "
      "mask!");
  EXPECT_EQ(m.signal, KernelSignal::kNvlinkTraining);
  m = Classify("NVRM: GPU at PCI:0000:3a:00: NVLink link 7 training failed");
  EXPECT_EQ(m.key, "0000:3a:00.0");
  ExpectNone("NVRM: NVLink link training completed");
  ExpectNone("nvidia-nvlink: Nvlink Core is being initialized, major device number 511");
}

TEST(KernelSignalClassifyTest, KernelCrashes) {
  KernelSignalMatch m = Classify("Kernel panic - not syncing: Fatal exception in interrupt");
  EXPECT_EQ(m.signal, KernelSignal::kKernelCrash);
  EXPECT_EQ(m.detail, "panic");
  EXPECT_EQ(m.extra, "Fatal exception in interrupt");
  EXPECT_EQ(Classify("Oops: 0002 [#1] SMP").detail, "oops");
  EXPECT_EQ(Classify("BUG: unable to handle kernel NULL pointer dereference at (null)").detail,
            "bug");
  EXPECT_EQ(Classify("kernel BUG at mm/slub.c:3871!").detail, "bug");
  // Look-alikes: firmware bug notes, a soft lockup (a stall, not a crash), boot parameters.
  ExpectNone("[Firmware Bug]: TSC_DEADLINE disabled due to Errata; please update microcode");
  ExpectNone("Kernel command line: BOOT_IMAGE=/vmlinuz panic=10 quiet");
  ExpectNone("ACPI BIOS Error (bug): Could not resolve symbol [\\_SB.PC00], AE_NOT_FOUND");
  EXPECT_EQ(Classify("watchdog: BUG: soft lockup - CPU#3 stuck for 23s! [python3:4242]").signal,
            KernelSignal::kCpuStall);
}

TEST(KernelSignalClassifyTest, CpuStalls) {
  KernelSignalMatch m =
      Classify("watchdog: BUG: soft lockup - CPU#12 stuck for 23s! [python3:4242]");
  EXPECT_EQ(m.detail, "soft_lockup");
  EXPECT_EQ(m.extra, "CPU#12 python3");
  EXPECT_EQ(m.value, 23);
  m = Classify("NMI watchdog: Watchdog detected hard LOCKUP on cpu 5");
  EXPECT_EQ(m.detail, "hard_lockup");
  EXPECT_EQ(m.extra, "CPU#5");
  EXPECT_EQ(Classify("rcu: INFO: rcu_sched self-detected stall on CPU").detail, "rcu_stall");
  EXPECT_EQ(Classify("INFO: rcu_preempt detected stalls on CPUs/tasks:").detail, "rcu_stall");
  ExpectNone("rcu: Hierarchical RCU implementation.");
  ExpectNone("rcu: RCU calculated value of scheduler-enlistment delay is 100 jiffies.");
  ExpectNone("NMI watchdog: Enabled. Permanently consumes one hw-PMU counter.");
}

TEST(KernelSignalClassifyTest, EdacMemoryErrors) {
  KernelSignalMatch m = Classify(
      "EDAC MC0: 2 CE memory read error on CPU_SrcID#0_MC#0_Chan#1_DIMM#0 (channel:1 slot:0)");
  EXPECT_EQ(m.signal, KernelSignal::kEdacMemory);
  EXPECT_EQ(m.key, "MC0");
  EXPECT_EQ(m.detail, "ce");
  EXPECT_EQ(m.value, 2);
  EXPECT_EQ(m.extra, "CPU_SrcID#0_MC#0_Chan#1_DIMM#0");
  EXPECT_EQ(Classify("EDAC MC1: 1 UE memory scrubbing error on DIMM_B1 (page:0x0)").detail, "ue");
  // Driver banners of a healthy boot (real lines from ../shared/data/kmsg).
  ExpectNone(
      "EDAC MC0: Giving out device to module i10nm_edac controller Intel_10nm Socket#0 "
      "IMC#0: DEV 0000:7e:0c.0 (INTERRUPT)");
  ExpectNone("EDAC MC: UMC0 chip selects:");
  ExpectNone("EDAC amd64: MC: 0: 16384MB 1: 16384MB");
}

TEST(KernelSignalClassifyTest, NicSlotPower) {
  KernelSignalMatch m = Classify(
      "mlx5_core 0000:dc:00.0: mlx5_pcie_event:299:(pid 1304): Detected insufficient power on "
      "the PCIe slot (27W).");
  EXPECT_EQ(m.signal, KernelSignal::kNicSlotPower);
  EXPECT_EQ(m.key, "27W");
  EXPECT_EQ(m.extra, "0000:dc:00.0");
  ExpectNone(
      "mlx5_core 0000:cc:00.0: mlx5_pcie_event:301:(pid 1304): PCIe slot advertised "
      "sufficient power (27W).");
  ExpectNone("mlx5_core 0000:cc:00.0: PCIe slot power capability was not advertised.");
}

TEST(KernelSignalClassifyTest, MoreIoErrors) {
  KernelSignalMatch m = Classify("nvme nvme1: Disabling device after reset failure: -19");
  EXPECT_EQ(m.signal, KernelSignal::kIoError);
  EXPECT_EQ(m.key, "nvme1");
  EXPECT_EQ(m.detail, "nvme_disabled");
  m = Classify("block nvme2n1: no usable path - requeuing I/O");
  EXPECT_EQ(m.key, "nvme2n1");
  EXPECT_EQ(m.detail, "nvme_path_lost");
  EXPECT_EQ(Classify("block nvme0n1: no available path - failing I/O").detail, "nvme_path_lost");
  m = Classify("md/raid1:md0: Disk failure on sdb1, disabling device.");
  EXPECT_EQ(m.key, "md0");
  EXPECT_EQ(m.detail, "md_degraded");
  EXPECT_EQ(m.extra, "sdb1");
  EXPECT_EQ(Classify("md/raid:md1: not enough operational devices (2/4 failed)").detail,
            "md_failed");
  m = Classify("attempt to access beyond end of device");
  EXPECT_EQ(m.detail, "beyond_end");
  EXPECT_EQ(m.key, "");
  m = Classify("sda1: rw=0, want=105, limit=104");
  EXPECT_TRUE(m.continuation);
  EXPECT_EQ(m.key, "sda1");
  ExpectNone("md/raid1:md0: Operation continuing on 1 devices.");
  ExpectNone("md: md0: resync done.");
  ExpectNone("Disabling lock debugging due to kernel taint");
}

TEST(KernelSignalClassifyTest, OldOomWording) {
  KernelSignalMatch m =
      Classify("Out of memory: Kill process 48211 (python3) score 912 or sacrifice child");
  EXPECT_EQ(m.signal, KernelSignal::kOomKill);
  EXPECT_EQ(m.key, "python3");
  EXPECT_EQ(m.detail, "system");
  EXPECT_FALSE(m.continuation);
  EXPECT_EQ(m.pid, 48211);
  EXPECT_EQ(Classify("Memory cgroup out of memory: Kill process 77 (dl) score 0 or sacrifice child")
                .detail,
            "cgroup");
}

TEST(KernelSignalClassifyTest, NewSignalsSurviveEveryPrefixAndByteFlip) {
  const std::string lines[] = {
      "nvidia-nvswitch3: SXid (PCI:0000:c6:00.0): 24007, Fatal, Link 27 sourcetrack TCEN0",
      "NVRM: knvlinkDiscoverPostRxDetLinks_GH100: Getting peer0's postRxDetLinkMask failed!",
      "Kernel panic - not syncing: Fatal exception",
      "Oops: 0002 [#1] SMP",
      "watchdog: BUG: soft lockup - CPU#12 stuck for 23s! [python3:4242]",
      "NMI watchdog: Watchdog detected hard LOCKUP on cpu 5",
      "rcu: INFO: rcu_sched self-detected stall on CPU",
      "EDAC MC0: 2 CE memory read error on CPU_SrcID#0_MC#0_Chan#1_DIMM#0 (channel:1)",
      "mlx5_core 0000:dc:00.0: mlx5_pcie_event:299:(pid 1): Detected insufficient power on the "
      "PCIe slot (27W).",
      "nvme nvme1: Disabling device after reset failure: -19",
      "block nvme2n1: no usable path - requeuing I/O",
      "md/raid1:md0: Disk failure on sdb1, disabling device.",
      "sda1: rw=0, want=105, limit=104",
      "Out of memory: Kill process 48211 (python3) score 912 or sacrifice child",
  };
  std::mt19937 rng(17);
  for (const std::string& line : lines) {
    EXPECT_TRUE(ClassifyKernelMessage(line).has_value()) << line;
    for (size_t cut = 0; cut <= line.size(); ++cut) {
      (void)ClassifyKernelMessage(std::string_view(line).substr(0, cut));
    }
    for (int k = 0; k < 200; ++k) {
      std::string bad = line;
      for (int flips = 1 + static_cast<int>(rng() % 3); flips > 0; --flips) {
        bad[rng() % bad.size()] = static_cast<char>(rng() % 256);
      }
      (void)ClassifyKernelMessage(bad);  // must not crash or read out of bounds
    }
  }
}

TEST(KernelSignalEventsTest, OneCrashIsOneEventNamedByItsWorstLine) {
  auto records =
      Log("<1>[  100.000000] BUG: kernel NULL pointer dereference, address: 0000000000000008\n"
          "<4>[  100.000100] Oops: 0000 [#1] PREEMPT SMP NOPTI\n"
          "<4>[  100.000200] RIP: 0010:os_acquire_spinlock+0x8/0x20 [nvidia]\n"
          "<0>[  100.001000] Kernel panic - not syncing: Fatal exception\n");
  std::vector<KernelEvent> events = ExtractKernelEvents(records);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].signal, KernelSignal::kKernelCrash);
  EXPECT_EQ(events[0].detail, "panic");
  EXPECT_EQ(events[0].count, 1);
  EXPECT_EQ(events[0].extras, (std::vector<std::string>{"Fatal exception"}));
  EXPECT_EQ(events[0].sample, "BUG: kernel NULL pointer dereference, address: 0000000000000008");
}

TEST(KernelSignalEventsTest, SysrqAndCrashTestCrashesAreDeliberate) {
  auto events = ExtractKernelEvents(
      Log("<6>[  201.650687] sysrq: SysRq : Trigger a crash\n"
          "<1>[  201.654822] BUG: unable to handle kernel NULL pointer dereference at (null)\n"
          "<1>[  201.662670] IP: [<ffffffffbd3d1956>] sysrq_handle_crash+0x16/0x20\n"
          "<4>[  201.670809] Oops: 0002 [#1] SMP\n"));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].detail, "oops_deliberate");
  // The marker may come after the panic line too (the module in the call trace).
  events =
      ExtractKernelEvents(Log("<0>[ 3098.275469] Kernel panic - not syncing: oops\n"
                              "<4>[ 3098.275505]  crash_write.cold+0x1d/0x1d [crash_test]\n"));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].detail, "panic_deliberate");
  // Far from any marker, two crashes are two real crashes.
  std::string far = "<6>[    1.000000] sysrq: Trigger a crash\n";
  for (int i = 0; i < 70; ++i) far += "<6>[    2.000000] filler\n";
  far += "<4>[    3.000000] Oops: 0000 [#1] SMP\n";
  for (int i = 0; i < 110; ++i) far += "<6>[    4.000000] filler\n";
  far += "<4>[    5.000000] Oops: 0000 [#2] SMP\n";
  events = ExtractKernelEvents(Log(far));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].detail, "oops");
  EXPECT_EQ(events[0].count, 2);
}

TEST(KernelSignalEventsTest, BeyondEndTakesTheDeviceFromTheNextLine) {
  auto events =
      ExtractKernelEvents(Log("[   10.000000] attempt to access beyond end of device\n"
                              "[   10.000001] sdc1: rw=0, want=7814037169, limit=7814037168\n"
                              "[   11.000000] attempt to access beyond end of device\n"
                              "[   12.000000] something else\n"
                              "[   12.000001] something else\n"
                              "[   12.000002] sdd1: rw=0, want=9, limit=8\n"));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].key, "");  // its device line never came: an unnamed device
  EXPECT_EQ(events[1].key, "sdc1");
  EXPECT_EQ(events[1].detail, "beyond_end");
}

TEST(KernelSignalEventsTest, OldOomHeaderAndKillLineAreOneEventAndEdacCountsAdd) {
  auto events = ExtractKernelEvents(
      Log("[   10.0] Out of memory: Kill process 48211 (python3) score 912 or sacrifice child\n"
          "[   10.1] Killed process 48211 (python3) total-vm:96210432kB, anon-rss:62914560kB\n"
          "[   20.0] EDAC MC1: 2 CE memory read error on DIMM_A1 (page:0x1)\n"
          "[   21.0] EDAC MC1: 3 CE memory read error on DIMM_A1 (page:0x2)\n"));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].signal, KernelSignal::kOomKill);
  EXPECT_EQ(events[0].count, 1);
  EXPECT_EQ(events[1].signal, KernelSignal::kEdacMemory);
  EXPECT_EQ(events[1].count, 2);
  EXPECT_EQ(events[1].sum_value, 5);
}

TEST(KernelSignalEventsTest, TimesAreIso8601WhereTheLogAllows) {
  auto events = ExtractKernelEvents(
      Log("[Tue Jan  6 10:15:00 2026] nvme nvme1: Disabling device after reset failure: -19\n"
          "2026-01-06T10:16:00+0000 node kernel: nvme nvme2: Disabling device after reset "
          "failure: -19\n"));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].first_time, "2026-01-06T10:15:00");
  EXPECT_EQ(events[1].first_time, "2026-01-06T10:16:00+00:00");
}

}  // namespace
}  // namespace gpuvet
