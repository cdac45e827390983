// Per-line matchers for the kernel log signals beyond Xid (kernel_log_signals.h). Each matcher
// looks for the fixed words the kernel prints and declines anything else, so a garbled or merely
// similar line ("Shutdown timeout set to", "errors=remount-ro" in mount options) is not a signal.
#include "sources/kmsg/kernel_log_signals.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "sources/kmsg/kernel_log_scan.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

using kernel_log_internal::CountDigits;
using kernel_log_internal::NormalizePciAddress;
using kernel_log_internal::SkipSpaces;

using Match = std::optional<KernelSignalMatch>;

std::string_view SkipSpacesAndColon(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == ':')) s.remove_prefix(1);
  return s;
}

bool Contains(std::string_view s, std::string_view what) {
  return s.find(what) != std::string_view::npos;
}

// The token at the start of `s` up to one of `stops` (or the end), bounded to 64 bytes.
std::string TokenUntil(std::string_view s, std::string_view stops) {
  size_t end = s.find_first_of(stops);
  return std::string(s.substr(0, std::min<size_t>(end, 64)));
}

KernelSignalMatch Make(KernelSignal signal, std::string key, std::string detail = "",
                       std::string extra = "") {
  KernelSignalMatch m;
  m.signal = signal;
  m.key = std::move(key);
  m.detail = std::move(detail);
  m.extra = std::move(extra);
  return m;
}

// "nfs: server fs01 not responding, still trying" / "…, timed out" / "nfs: server fs01 OK"
// (also lockd's identical pair).
Match MatchNfs(std::string_view text) {
  for (std::string_view prefix : {"nfs: server ", "lockd: server "}) {
    size_t at = text.find(prefix);
    if (at == std::string_view::npos) continue;
    std::string_view rest = text.substr(at + prefix.size());
    size_t space = rest.find(' ');
    if (space == 0 || space == std::string_view::npos) continue;
    std::string server(rest.substr(0, std::min<size_t>(space, 128)));
    std::string_view after = rest.substr(space + 1);
    if (StartsWith(after, "not responding")) {
      return Make(KernelSignal::kNfsNotResponding, server,
                  Contains(after, "timed out") ? "timed_out" : "still_trying");
    }
    if (StartsWith(after, "OK")) return Make(KernelSignal::kNfsNotResponding, server, "ok");
  }
  return std::nullopt;
}

// "INFO: task python3:48211 blocked for more than 122 seconds." (comm may itself hold ':').
Match MatchHungTask(std::string_view text) {
  constexpr std::string_view kTask = "task ";
  constexpr std::string_view kBlocked = " blocked for more than ";
  size_t blocked = text.find(kBlocked);
  if (blocked == std::string_view::npos) return std::nullopt;
  size_t task = text.rfind(kTask, blocked);
  if (task == std::string_view::npos) return std::nullopt;
  std::string_view who = text.substr(task + kTask.size(), blocked - task - kTask.size());
  size_t colon = who.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  auto pid = ParseInt(who.substr(colon + 1));
  std::string_view secs = text.substr(blocked + kBlocked.size());
  size_t n = CountDigits(secs);
  if (!pid || n == 0) return std::nullopt;
  KernelSignalMatch m = Make(KernelSignal::kHungTask, std::string(who.substr(0, colon)), "",
                             "pid " + std::to_string(*pid));
  m.pid = static_cast<int>(*pid);
  m.value = static_cast<double>(ParseInt(secs.substr(0, std::min<size_t>(n, 9))).value_or(-1));
  return m;
}

// Block, buffer-cache, ext4, XFS and NVMe errors; key = the device.
Match MatchIoError(std::string_view text) {
  // "blk_update_request: I/O error, dev sda, sector 2048 op 0x1:(WRITE) …", "critical medium
  // error, dev sdb, …", "print_req_error: I/O error, dev nvme0n1, sector …", and newer kernels'
  // bare "I/O error, dev sdb, sector …".
  if (size_t at = text.find(" error, dev "); at != std::string_view::npos) {
    return Make(KernelSignal::kIoError, TokenUntil(text.substr(at + 12), ", "), "block");
  }
  // "Buffer I/O error on dev sda1, logical block 0, async page read"
  if (size_t at = text.find("Buffer I/O error on dev "); at != std::string_view::npos) {
    return Make(KernelSignal::kIoError, TokenUntil(text.substr(at + 24), ", "), "buffer");
  }
  // "EXT4-fs error (device nvme1n1p1): ext4_find_entry:1455: inode #2: …"
  if (size_t at = text.find("EXT4-fs error (device "); at != std::string_view::npos) {
    return Make(KernelSignal::kIoError, TokenUntil(text.substr(at + 22), ")"), "ext4");
  }
  // "EXT4-fs (sdb1): Remounting filesystem read-only", "… I/O error while writing superblock"
  if (size_t at = text.find("EXT4-fs ("); at != std::string_view::npos) {
    std::string_view rest = text.substr(at + 9);
    size_t close = rest.find("): ");
    if (close != std::string_view::npos) {
      std::string_view what = rest.substr(close + 3);
      for (std::string_view bad : {"I/O error", "Remounting filesystem read-only",
                                   "error count since last fsck", "mounting fs with errors"}) {
        if (Contains(what, bad)) {
          return Make(KernelSignal::kIoError, std::string(rest.substr(0, close)), "ext4");
        }
      }
    }
  }
  // "XFS (sdb1): metadata I/O error in …", "XFS (dm-0): Corruption detected. …",
  // "XFS (sdb1): Filesystem has been shut down due to log error (0x2)."
  if (size_t at = text.find("XFS ("); at != std::string_view::npos) {
    std::string_view rest = text.substr(at + 5);
    size_t close = rest.find("): ");
    if (close != std::string_view::npos) {
      std::string_view what = rest.substr(close + 3);
      for (std::string_view bad : {"error", "orruption", "shut down", "shutdown"}) {
        if (Contains(what, bad)) {
          return Make(KernelSignal::kIoError, std::string(rest.substr(0, close)), "xfs");
        }
      }
    }
  }
  // "nvme nvme0: I/O 123 QID 4 timeout, aborting", "nvme nvme0: I/O 9 QID 0 timeout, reset
  // controller", "nvme nvme0: controller is down; will reset: CSTS=0x3, …",
  // "nvme nvme1: Removing after probe failure status: -19".
  if (size_t at = text.find("nvme nvme"); at != std::string_view::npos) {
    std::string_view rest = text.substr(at + 5);
    size_t colon = rest.find(": ");
    if (colon != std::string_view::npos && colon < 16) {
      std::string dev(rest.substr(0, colon));
      std::string_view what = rest.substr(colon + 2);
      if (StartsWith(what, "I/O ") && Contains(what, "timeout")) {
        return Make(KernelSignal::kIoError, dev, "nvme_timeout");
      }
      // "nvme nvme1: Disabling device after reset failure: -19": the drive is gone.
      if (StartsWith(what, "Disabling device")) {
        return Make(KernelSignal::kIoError, dev, "nvme_disabled");
      }
      for (std::string_view bad : {"controller is down", "reset controller",
                                   "Removing after probe failure", "Device not ready"}) {
        if (Contains(what, bad)) return Make(KernelSignal::kIoError, dev, "nvme_reset");
      }
    }
  }
  // Newer kernels: "nvme0n1: I/O Cmd(0x2) @ LBA 5000, 8 blocks, I/O Error (sct 0x2 / sc 0x81)"
  if (size_t at = text.find(": I/O Cmd(");
      at != std::string_view::npos && Contains(text, "I/O Error")) {
    std::string_view dev = text.substr(0, at);
    dev = dev.substr(dev.rfind(' ') == std::string_view::npos ? 0 : dev.rfind(' ') + 1);
    return Make(KernelSignal::kIoError, std::string(dev), "block");
  }
  // NVMe multipath: "block nvme0n1: no usable path - requeuing I/O", "… no available path -
  // failing I/O".
  if (size_t at = text.find("block nvme");
      at != std::string_view::npos &&
      (Contains(text, ": no usable path") || Contains(text, ": no available path"))) {
    return Make(KernelSignal::kIoError, TokenUntil(text.substr(at + 6), ":"), "nvme_path_lost");
  }
  // md RAID: "md/raid1:md0: Disk failure on sdb1, disabling device." (redundancy lost) and
  // "md/raid:md0: not enough operational devices (2/4 failed)" (the array failed).
  if (size_t at = text.find("md/raid"); at != std::string_view::npos) {
    std::string_view rest = text.substr(at);
    size_t colon = rest.find(':');
    if (colon != std::string_view::npos && colon < 16) {
      std::string_view after = rest.substr(colon + 1);
      std::string md = TokenUntil(after, ":");
      // "md/raid1:md0: … failing array": the last device went, the array has failed (checked
      // first: the same line may name the disk failure too).
      if (StartsWith(md, "md") && Contains(after, "failing array")) {
        return Make(KernelSignal::kIoError, md, "md_failed");
      }
      if (size_t disk = after.find("Disk failure on ");
          StartsWith(md, "md") && disk != std::string_view::npos) {
        return Make(KernelSignal::kIoError, md, "md_degraded",
                    TokenUntil(after.substr(disk + 16), ", "));
      }
      if (StartsWith(md, "md") && (Contains(after, "not enough operational devices") ||
                                   Contains(after, "cannot start array"))) {
        return Make(KernelSignal::kIoError, md, "md_failed");
      }
    }
  }
  // "attempt to access beyond end of device" (older kernels add "sda1: rw=0, want=…, limit=…" on
  // the same or the next line; ClassifyKernelLog takes the device from that line).
  if (Contains(text, "attempt to access beyond end of device")) {
    size_t at = text.find("device");
    std::string dev = TokenUntil(SkipSpacesAndColon(text.substr(at + 6)), ": ");
    return Make(KernelSignal::kIoError, dev, "beyond_end");
  }
  // "sda1: rw=0, want=105, limit=104" / "nvme0n1p1: rw=2048, sector=…, nr_sectors = 8 limit=…":
  // the device line of a beyond-end report.
  if (size_t at = text.find(": rw="); at != std::string_view::npos && at > 0 && at < 32 &&
                                      (Contains(text, "want=") || Contains(text, "sector=")) &&
                                      Contains(text, "limit=")) {
    std::string_view dev = Trim(text.substr(0, at));
    if (dev.find(' ') == std::string_view::npos) {
      KernelSignalMatch m = Make(KernelSignal::kIoError, std::string(dev), "beyond_end");
      m.continuation = true;
      return m;
    }
  }
  return std::nullopt;
}

// "oom-kill:constraint=CONSTRAINT_MEMCG,…,task=python3,pid=48211,uid=1000" (header) and
// "Out of memory: Killed process 48211 (python3) total-vm:…", "Memory cgroup out of memory:
// Killed process 48211 (python3) …" (older: "Killed process 48211 (python3) total-vm:…").
Match MatchOom(std::string_view text) {
  if (size_t at = text.find("oom-kill:"); at != std::string_view::npos) {
    std::string_view fields = text.substr(at + 9);
    std::string task, constraint;
    int pid = 0;
    for (std::string_view f : Split(fields, ',')) {
      if (StartsWith(f, "task=")) task = std::string(f.substr(5, 64));
      if (StartsWith(f, "constraint=")) constraint = std::string(f.substr(11));
      if (StartsWith(f, "pid=")) pid = static_cast<int>(ParseInt(f.substr(4)).value_or(0));
    }
    if (task.empty() || pid <= 0) return std::nullopt;
    KernelSignalMatch m =
        Make(KernelSignal::kOomKill, task, constraint == "CONSTRAINT_MEMCG" ? "cgroup" : "system",
             "pid " + std::to_string(pid));
    m.pid = pid;
    return m;
  }
  // Kernels before 4.19: "Out of memory: Kill process 48211 (python3) score 912 or sacrifice
  // child" (also "Memory cgroup out of memory: Kill process …"), then "Killed process 48211 …".
  // ("ut of memory" matches both "Out of memory" and "cgroup out of memory".)
  if (size_t at = text.find("Kill process ");
      at != std::string_view::npos && Contains(text.substr(0, at), "ut of memory")) {
    std::string_view rest = text.substr(at + 13);
    size_t n = CountDigits(rest);
    size_t close = rest.find(')');
    if (n > 0 && n <= 9 && rest.size() > n + 2 && rest.substr(n, 2) == " (" &&
        close != std::string_view::npos && close > n + 2) {
      int pid = static_cast<int>(ParseInt(rest.substr(0, n)).value_or(0));
      KernelSignalMatch m =
          Make(KernelSignal::kOomKill,
               std::string(rest.substr(n + 2, std::min<size_t>(close - n - 2, 64))),
               Contains(text, "Memory cgroup out of memory") ? "cgroup" : "system",
               "pid " + std::to_string(pid));
      m.pid = pid;
      return m;
    }
  }
  constexpr std::string_view kKilled = "Killed process ";
  size_t at = text.find(kKilled);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(at + kKilled.size());
  size_t n = CountDigits(rest);
  if (n == 0 || n > 9 || rest.size() < n + 3 || rest.substr(n, 2) != " (") return std::nullopt;
  size_t close = rest.find(')', n + 2);
  if (close == std::string_view::npos) return std::nullopt;
  int pid = static_cast<int>(ParseInt(rest.substr(0, n)).value_or(0));
  std::string comm(rest.substr(n + 2, std::min<size_t>(close - n - 2, 64)));
  KernelSignalMatch m = Make(KernelSignal::kOomKill, comm,
                             Contains(text, "Memory cgroup out of memory") ? "cgroup" : "system",
                             "pid " + std::to_string(pid));
  m.pid = pid;
  m.continuation = true;  // merged into a preceding "oom-kill:" header of the same pid
  return m;
}

// Libraries on the GPU communication path: NCCL (and its net plugins), the CUDA driver and
// runtime, other NVIDIA user-space libraries, UCX, libfabric/EFA, verbs and mlx5, NVSHMEM, gdrcopy.
bool IsCommLibrary(std::string_view lib) {
  static constexpr std::array<std::string_view, 13> kPrefixes = {
      "libnccl",   "libcuda", "libnvidia-", "libucp",  "libucs",     "libuct",   "libucm",
      "libfabric", "libefa",  "libibverbs", "libmlx5", "libnvshmem", "libgdrapi"};
  for (std::string_view p : kPrefixes) {
    if (StartsWith(lib, p)) return true;
  }
  return false;
}

// "python3[48211]: segfault at 8 ip 00007f… sp 00007ff… error 4 in libnccl.so.2.18.3[7f…+…]",
// "traps: python3[48211] general protection fault ip:7f… sp:… error:0 in libcuda.so.1[…]".
Match MatchSegfault(std::string_view text) {
  bool fault = Contains(text, ": segfault at ") || Contains(text, "general protection fault") ||
               Contains(text, "trap invalid opcode") || Contains(text, "trap divide error");
  if (!fault) return std::nullopt;
  size_t in = text.find(" in ", text.find(" error"));
  if (in == std::string_view::npos) return std::nullopt;
  std::string_view lib = text.substr(in + 4);
  lib = lib.substr(0, lib.find('['));
  if (size_t slash = lib.rfind('/'); slash != std::string_view::npos) lib.remove_prefix(slash + 1);
  if (!IsCommLibrary(lib)) return std::nullopt;
  // "libnccl.so.2.18.3" -> "libnccl.so": versions differ between jobs, the library does not.
  std::string base(lib.substr(0, std::min(lib.find(".so"), lib.size())));
  if (Contains(lib, ".so")) base += ".so";
  // The comm: the token before "[PID]" that starts the report.
  std::string_view head = text.substr(0, text.find('['));
  if (size_t sp = head.rfind(' '); sp != std::string_view::npos) head.remove_prefix(sp + 1);
  std::string pid;
  if (size_t lb = text.find('['); lb != std::string_view::npos) {
    pid = TokenUntil(text.substr(lb + 1), "]");
  }
  return Make(KernelSignal::kCommLibSegfault, base, std::string(head.substr(0, 64)),
              pid.empty() ? "" : "pid " + pid);
}

// "nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further
// processing" (and the older nv_peer_mem module's errors).
Match MatchPeermem(std::string_view text) {
  size_t at = std::string_view::npos;
  size_t len = 0;
  for (std::string_view name : {"nvidia-peermem", "nvidia_peermem", "nv_peer_mem"}) {
    if (size_t p = text.find(name); p != std::string_view::npos) {
      at = p;
      len = name.size();
      break;
    }
  }
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = SkipSpacesAndColon(text.substr(at + len));
  bool error = Contains(rest, "ERROR") || Contains(rest, "error") || Contains(rest, "fail") ||
               Contains(rest, "invalid");
  if (!error) return std::nullopt;
  // "nv_get_p2p_free_callback:127 …": name the function; otherwise the start of the message.
  std::string_view first = rest.substr(0, rest.find(' '));
  size_t colon = first.find(':');
  std::string key = colon != std::string_view::npos && colon > 0 &&
                            CountDigits(first.substr(colon + 1)) == first.size() - colon - 1
                        ? std::string(first.substr(0, colon))
                        : std::string(rest.substr(0, 48));
  return Make(KernelSignal::kPeermemError, key);
}

std::string AerAddress(std::string_view raw) {
  if (auto a = NormalizePciAddress(raw)) return *a;
  return "";
}

// The normalised address, or the raw text (bounded, printable) when it is not one.
std::string AerAddressOrRaw(std::string_view raw) {
  if (auto a = NormalizePciAddress(raw)) return *a;
  std::string out;
  for (char c : raw.substr(0, 32)) {
    if (c > ' ' && c < 127) out.push_back(c);
  }
  return out;
}

// The "DRIVER ADDR: " prefix the kernel's dev_printk puts before AER lines.
std::string ReporterAddress(std::string_view text, size_t aer_at) {
  std::string_view head = Trim(text.substr(0, aer_at));
  if (EndsWith(head, ":")) head.remove_suffix(1);
  if (size_t sp = head.rfind(' '); sp != std::string_view::npos) head.remove_prefix(sp + 1);
  return AerAddress(head);
}

// "pcieport 0000:00:03.1: AER: Corrected error received: 0000:3b:00.0",
// "… AER: Uncorrected (Non-Fatal) error received: 0000:3b:00.0", "… AER: Multiple Uncorrected
// (Fatal) error message received from 0000:3b:00.0", and the per-device detail line
// "nvidia 0000:3b:00.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver
// ID)" (older kernels without "AER:").
Match MatchAer(std::string_view text) {
  auto severity_of = [](std::string_view s) -> std::string {
    if (Contains(s, "Uncorrected (Fatal)")) return "uncorrected_fatal";
    if (Contains(s, "Non-Fatal")) return "uncorrected_nonfatal";
    if (Contains(s, "Corrected")) return "corrected";
    return "";
  };
  size_t at = text.find("error received");
  if (at == std::string_view::npos) at = text.find("error message received");
  if (at != std::string_view::npos) {
    size_t aer = text.find("AER:");
    if (aer == std::string_view::npos || aer > at) return std::nullopt;
    std::string sev = severity_of(text.substr(aer, at - aer));
    if (sev.empty()) return std::nullopt;
    std::string_view after = text.substr(at);
    std::string address;
    if (size_t c = after.find(": "); c != std::string_view::npos) {
      address = AerAddress(TokenUntil(after.substr(c + 2), " ,"));
    } else if (size_t f = after.find("from "); f != std::string_view::npos) {
      address = AerAddress(TokenUntil(after.substr(f + 5), " ,"));
    }
    if (address.empty()) address = ReporterAddress(text, aer);  // "received: id=0018"
    return Make(KernelSignal::kPcieAer, address, sev);
  }
  at = text.find("PCIe Bus Error: severity=");
  if (at != std::string_view::npos) {
    std::string_view after = text.substr(at + 25);
    std::string sev = severity_of("severity=" + std::string(after.substr(0, after.find(','))));
    if (sev.empty()) return std::nullopt;
    std::string type;
    if (size_t t = after.find("type="); t != std::string_view::npos) {
      type = TokenUntil(after.substr(t + 5), ",");
    }
    size_t aer = text.find("AER:");
    std::string address = ReporterAddress(text, aer == std::string_view::npos ? at : aer);
    KernelSignalMatch m = Make(KernelSignal::kPcieAer, address, sev, type);
    m.continuation = true;
    return m;
  }
  return std::nullopt;
}

// "nvidia-nvswitch3: SXid (PCI:0000:c6:00.0): 24007, Fatal, Link 27 sourcetrack …" and
// "…: 12028, Non-fatal, Link 38 egress non-posted PRIV error (First)". The report's follow-up lines
// ("12028, Severity 0 Engine instance …", "12028, Data {…}") carry no severity and are skipped.
Match MatchSxid(std::string_view text) {
  constexpr std::string_view kPrefix = "SXid (";
  size_t at = text.find(kPrefix);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(at + kPrefix.size());
  size_t close = rest.find(')');
  if (close == std::string_view::npos || close > 64) return std::nullopt;
  std::string address = AerAddressOrRaw(rest.substr(0, close));
  rest = SkipSpacesAndColon(rest.substr(close + 1));
  size_t n = CountDigits(rest);
  if (n == 0 || n > 6) return std::nullopt;
  std::string code(rest.substr(0, n));
  std::string_view after = SkipSpaces(rest.substr(n));
  if (!StartsWith(after, ",")) return std::nullopt;
  after = SkipSpaces(after.substr(1));
  std::string severity;
  if (StartsWith(after, "Non-fatal") || StartsWith(after, "Nonfatal")) {
    severity = "nonfatal";
  } else if (StartsWith(after, "Fatal")) {
    severity = "fatal";
  } else {
    return std::nullopt;
  }
  return Make(KernelSignal::kNvswitchSxid, address, severity, "SXid " + code);
}

// NVLink links that did not train: "NVRM: knvlinkDiscoverPostRxDetLinks_GH100: Getting peer0's
// postRxDetLinkMask failed!", "NVRM: knvlinkUpdatePostRxDetectLinkMask_IMPL: Failed to update Rx
// Detect Link mask!", and NVLink/NVSwitch lines that say link training failed.
Match MatchNvlinkTraining(std::string_view text) {
  bool rx_detect = Contains(text, "postRxDetLinkMask failed") ||
                   Contains(text, "Failed to update Rx Detect Link mask");
  bool nvlink = Contains(text, "NVLink") || Contains(text, "nvlink") || Contains(text, "Nvlink");
  bool training = Contains(text, "training failed") || Contains(text, "Training failed") ||
                  Contains(text, "training failure") || Contains(text, "failed to train") ||
                  Contains(text, "Failed to train");
  if (!rx_detect && !(nvlink && training)) return std::nullopt;
  // Key: the GPU's address when the line names one, else the driver function.
  std::string key;
  if (size_t pci = text.find("PCI:"); pci != std::string_view::npos) {
    std::string token = TokenUntil(text.substr(pci), " )]");
    while (!token.empty() && token.back() == ':') token.pop_back();
    key = AerAddressOrRaw(token);
  }
  if (key.empty()) {
    size_t nvrm = text.find("NVRM: ");
    std::string_view rest = nvrm == std::string_view::npos ? text : text.substr(nvrm + 6);
    key = TokenUntil(rest, ": ");
  }
  return Make(KernelSignal::kNvlinkTraining, key);
}

// "Kernel panic - not syncing: Fatal exception", "Oops: 0002 [#1] SMP", "BUG: unable to handle
// kernel NULL pointer dereference at …", "kernel BUG at mm/slub.c:123!". Soft lockups
// ("BUG: soft lockup") are CPU stalls, not crashes.
Match MatchCrash(std::string_view text) {
  std::string_view t = Trim(text);
  if (size_t at = t.find("Kernel panic - not syncing"); at != std::string_view::npos) {
    std::string_view reason = SkipSpacesAndColon(t.substr(at + 26));
    return Make(KernelSignal::kKernelCrash, "kernel", "panic",
                std::string(reason.substr(0, std::min<size_t>(reason.size(), 96))));
  }
  if (StartsWith(t, "Oops: ") || StartsWith(t, "Oops - ")) {
    return Make(KernelSignal::kKernelCrash, "kernel", "oops",
                std::string(t.substr(0, std::min<size_t>(t.size(), 96))));
  }
  if ((StartsWith(t, "BUG: ") && !Contains(t, "soft lockup") && !Contains(t, "workqueue lockup")) ||
      StartsWith(t, "kernel BUG at ")) {
    return Make(KernelSignal::kKernelCrash, "kernel", "bug",
                std::string(t.substr(0, std::min<size_t>(t.size(), 96))));
  }
  return std::nullopt;
}

// "watchdog: BUG: soft lockup - CPU#12 stuck for 23s! [python3:4242]", "NMI watchdog: Watchdog
// detected hard LOCKUP on cpu 5", "rcu: INFO: rcu_sched self-detected stall on CPU", "INFO:
// rcu_preempt detected stalls on CPUs/tasks:".
Match MatchCpuStall(std::string_view text) {
  if (size_t at = text.find("soft lockup - CPU#"); at != std::string_view::npos) {
    std::string_view rest = text.substr(at + 18);
    std::string cpu = "CPU#" + TokenUntil(rest, " ");
    std::string who;
    if (size_t lb = rest.find('['); lb != std::string_view::npos) {
      who = TokenUntil(rest.substr(lb + 1), "]");
      if (size_t colon = who.rfind(':'); colon != std::string::npos) who.resize(colon);
    }
    KernelSignalMatch m =
        Make(KernelSignal::kCpuStall, "host", "soft_lockup", who.empty() ? cpu : cpu + " " + who);
    if (size_t stuck = rest.find("stuck for "); stuck != std::string_view::npos) {
      std::string_view secs = rest.substr(stuck + 10);
      size_t n = CountDigits(secs);
      if (n > 0)
        m.value =
            static_cast<double>(ParseInt(secs.substr(0, std::min<size_t>(n, 9))).value_or(-1));
    }
    return m;
  }
  if (Contains(text, "detected hard LOCKUP")) {
    std::string cpu;
    if (size_t at = text.find("on cpu "); at != std::string_view::npos) {
      cpu = "CPU#" + TokenUntil(text.substr(at + 7), " ");
    }
    return Make(KernelSignal::kCpuStall, "host", "hard_lockup", cpu);
  }
  if (Contains(text, "rcu") &&
      (Contains(text, "detected stall") || Contains(text, "detected stalls") ||
       Contains(text, "detected expedited stalls"))) {
    return Make(KernelSignal::kCpuStall, "host", "rcu_stall");
  }
  return std::nullopt;
}

// "EDAC MC0: 1 CE memory read error on CPU_SrcID#0_MC#0_Chan#0_DIMM#0 (channel:0 slot:0 …)",
// "EDAC MC1: 1 UE memory scrubbing error on …" (edac_mc's report; driver banners such as "EDAC
// MC0: Giving out device to module …" are not errors).
Match MatchEdac(std::string_view text) {
  size_t at = text.find("EDAC MC");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(at + 5);
  size_t colon = rest.find(": ");
  if (colon == std::string_view::npos || colon > 8) return std::nullopt;
  std::string mc(rest.substr(0, colon));
  std::string_view what = rest.substr(colon + 2);
  size_t n = CountDigits(what);
  if (n == 0 || n > 9 || what.size() < n + 4 || what[n] != ' ') return std::nullopt;
  std::string_view kind = what.substr(n + 1, 3);
  std::string detail;
  if (kind == "CE ") detail = "ce";
  if (kind == "UE ") detail = "ue";
  if (detail.empty()) return std::nullopt;
  std::string where;
  if (size_t on = what.find(" on "); on != std::string_view::npos) {
    where = TokenUntil(what.substr(on + 4), " (");
  }
  KernelSignalMatch m = Make(KernelSignal::kEdacMemory, mc, detail, where);
  m.value = static_cast<double>(ParseInt(what.substr(0, n)).value_or(1));
  return m;
}

// "mlx5_core 0000:1a:00.0: mlx5_pcie_event:299:(pid 9): Detected insufficient power on the PCIe
// slot (27W)." Keyed by the power the NIC reports; the NIC's address is the extra.
Match MatchNicSlotPower(std::string_view text) {
  constexpr std::string_view kWhat = "Detected insufficient power on the PCIe slot";
  size_t at = text.find(kWhat);
  if (at == std::string_view::npos) return std::nullopt;
  std::string watts;
  if (size_t lp = text.find('(', at); lp != std::string_view::npos) {
    watts = TokenUntil(text.substr(lp + 1), ")");
  }
  return Make(KernelSignal::kNicSlotPower, watts.empty() ? "slot power" : watts, "",
              ReporterAddress(text, text.find(": ")));
}

// The NVIDIA driver's own failures. "NVRM: API mismatch: the client has the version 550.90.07,
// but this kernel module has the version 535.183.01. Please make sure that this kernel module and
// all NVIDIA driver components have the same version." (keyed by module, the versions as extra);
// "nvidia-modeset: … version mismatch" / "[drm] … nvidia-drm … version mismatch" likewise.
Match MatchDriverMismatch(std::string_view text) {
  if (size_t at = text.find("API mismatch: the client has the version ");
      at != std::string_view::npos) {
    std::string_view rest = text.substr(at + 41);
    std::string client = TokenUntil(rest, ", ");
    std::string module;
    constexpr std::string_view kModule = "kernel module has the version ";
    if (size_t m = rest.find(kModule); m != std::string_view::npos) {
      module = TokenUntil(rest.substr(m + kModule.size()), " ");
      if (!module.empty() && module.back() == '.') module.pop_back();
    }
    return Make(KernelSignal::kDriverMismatch, "nvidia", "api",
                module.empty() ? "client " + client
                               : fmt::format("client {}, kernel module {}", client, module));
  }
  // The message's second line on kernels that wrap it: "NVRM: this kernel module has the version
  // 550.90.07.  Please".
  if (size_t at = text.find("NVRM: this kernel module has the version ");
      at != std::string_view::npos) {
    std::string module = TokenUntil(text.substr(at + 41), " ");
    if (!module.empty() && module.back() == '.') module.pop_back();
    KernelSignalMatch m = Make(KernelSignal::kDriverMismatch, "nvidia", "api", module);
    m.continuation = true;
    return m;
  }
  if (Contains(text, "version mismatch") || Contains(text, "Version mismatch")) {
    if (Contains(text, "nvidia-modeset")) {
      return Make(KernelSignal::kDriverMismatch, "nvidia-modeset", "module");
    }
    if (Contains(text, "nvidia-drm") || Contains(text, "nvidia_drm")) {
      return Make(KernelSignal::kDriverMismatch, "nvidia-drm", "module");
    }
  }
  return std::nullopt;
}

// "NVRM: GPU 0000:3b:00.0: RmInitAdapter failed! (0x26:0x65:1457)", "NVRM: GPU 0000:3b:00.0:
// rm_init_adapter failed, device minor number 0", "NVRM: The NVIDIA probe routine failed for 1
// device(s)." Keyed by the GPU's address when the line names one.
Match MatchGpuInitFailed(std::string_view text) {
  const bool init =
      Contains(text, "RmInitAdapter failed") || Contains(text, "rm_init_adapter failed");
  const bool probe = Contains(text, "NVIDIA probe routine failed");
  if (!init && !probe) return std::nullopt;
  std::string address;
  if (size_t at = text.find("GPU "); at != std::string_view::npos) {
    std::string raw = TokenUntil(text.substr(at + 4), " ,");
    if (!raw.empty() && raw.back() == ':') raw.pop_back();  // "GPU 0000:db:00.0: RmInit…"
    if (raw.find(':') != std::string::npos && raw.find('.') != std::string::npos) {
      address = ToLower(raw);
      if (std::count(address.begin(), address.end(), ':') == 1) address = "0000:" + address;
    }
  }
  return Make(KernelSignal::kGpuInitFailed, address.empty() ? "nvidia" : address,
              init ? "rm_init_adapter" : "probe");
}

}  // namespace

std::string_view KernelSignalName(KernelSignal signal) {
  switch (signal) {
    case KernelSignal::kNfsNotResponding:
      return "nfs_not_responding";
    case KernelSignal::kHungTask:
      return "hung_task";
    case KernelSignal::kIoError:
      return "io_error";
    case KernelSignal::kOomKill:
      return "oom_kill";
    case KernelSignal::kCommLibSegfault:
      return "comm_lib_segfault";
    case KernelSignal::kPeermemError:
      return "peermem_error";
    case KernelSignal::kPcieAer:
      return "pcie_aer";
    case KernelSignal::kNvswitchSxid:
      return "nvswitch_sxid";
    case KernelSignal::kNvlinkTraining:
      return "nvlink_training";
    case KernelSignal::kKernelCrash:
      return "crash";
    case KernelSignal::kCpuStall:
      return "cpu_stall";
    case KernelSignal::kEdacMemory:
      return "edac_memory";
    case KernelSignal::kNicSlotPower:
      return "nic_slot_power";
    case KernelSignal::kDriverMismatch:
      return "driver_mismatch";
    case KernelSignal::kGpuInitFailed:
      return "gpu_init_failed";
    // Classified by no matcher yet: the names are reserved for them.
    case KernelSignal::kNetCarrier:
      return "net_carrier";
    case KernelSignal::kPcieHwError:
      return "pcie_hw_error";
    case KernelSignal::kPcieDpc:
      return "pcie_dpc";
    case KernelSignal::kPcieHotplug:
      return "pcie_hotplug";
    case KernelSignal::kMachineCheck:
      return "machine_check";
    case KernelSignal::kNicHealth:
      return "nic_health";
    case KernelSignal::kNfsLockReclaim:
      return "nfs_lock_reclaim";
    case KernelSignal::kFileMax:
      return "file_max";
  }
  return "unknown";
}

std::optional<KernelSignalMatch> ClassifyKernelMessage(std::string_view text) {
  // Cheap substring filters keep a multi-megabyte boot log fast: most lines match none.
  if (Contains(text, "nfs: server ") || Contains(text, "lockd: server ")) return MatchNfs(text);
  if (Contains(text, " blocked for more than ")) return MatchHungTask(text);
  if (Contains(text, "peermem") || Contains(text, "nv_peer_mem")) return MatchPeermem(text);
  if (Contains(text, "AER") || Contains(text, "PCIe Bus Error")) {
    if (Match m = MatchAer(text)) return m;
  }
  if (Contains(text, "oom-kill:") || Contains(text, "Killed process ") ||
      Contains(text, "Kill process ")) {
    if (Match m = MatchOom(text)) return m;
  }
  if (Contains(text, "segfault at ") || Contains(text, "general protection") ||
      Contains(text, "trap ")) {
    if (Match m = MatchSegfault(text)) return m;
  }
  if (Contains(text, "SXid (")) return MatchSxid(text);
  if (Contains(text, "lockup") || Contains(text, "LOCKUP") || Contains(text, "rcu")) {
    if (Match m = MatchCpuStall(text)) return m;
  }
  if (Contains(text, "panic") || Contains(text, "Oops") || Contains(text, "BUG")) {
    if (Match m = MatchCrash(text)) return m;
  }
  if (Contains(text, "EDAC MC")) {
    if (Match m = MatchEdac(text)) return m;
  }
  if (Contains(text, "mismatch") || Contains(text, "NVRM: this kernel module")) {
    if (Match m = MatchDriverMismatch(text)) return m;
  }
  if (Contains(text, "failed")) {
    if (Match m = MatchGpuInitFailed(text)) return m;
  }
  if (Contains(text, "insufficient power")) {
    if (Match m = MatchNicSlotPower(text)) return m;
  }
  if (Contains(text, "ink") || Contains(text, "RxDet") || Contains(text, "Rx Detect")) {
    if (Match m = MatchNvlinkTraining(text)) return m;
  }
  return MatchIoError(text);
}

}  // namespace gpuvet
