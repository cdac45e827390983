// Kernel log source: reads /dev/kmsg (never blocking) or a saved log file, parses the line formats
// operators actually have (raw kmsg, dmesg with its time/decode options, journalctl, syslog,
// pstore) into KernelLogRecords, and extracts NVIDIA Xid events from them. Parsing is separate
// from reading so every format is testable from inline strings.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/host_paths.h"
#include "core/host_state.h"

namespace gpuvet {

// The line formats ParseKernelLog recognises.
enum class KernelLogFormat {
  kUnknown,      // not recognised: kept as text without a time
  kKmsg,         // raw /dev/kmsg record "6,3964,206764307,-;message"
  kDmesg,        // "[  123.456789] message" (also "[Tue Jan 21 02:21:33 2025]" from dmesg -T)
  kDmesgRaw,     // "<6>[  123.456789] message" (dmesg -r, pstore dumps)
  kDmesgIso,     // "2025-01-21T02:21:33,498559+00:00 message" (dmesg --time-format iso)
  kDmesgDecode,  // "kern  :warn  : <time> message" (dmesg --decode, any time format)
  kJournalctl,   // "2025-01-17T17:10:43+0000 host kernel: message" (journalctl -k -o short-iso)
  kSyslog,       // "Jan 17 17:10:43 host kernel: [123.4] message"
};

// A short human name for `format`, e.g. "dmesg --time-format iso".
std::string_view KernelLogFormatName(KernelLogFormat format);

// Parses kernel log text in any of the formats above, auto-detected per line. Never fails:
// unrecognised lines are kept with an empty time and the whole line as text; kmsg dictionary
// continuation lines (starting with a space) and empty lines are skipped. Trailing '\r' is
// dropped. Records come back in input order.
std::vector<KernelLogRecord> ParseKernelLog(std::string_view text);

// The format most lines of `text` are in (kUnknown when none is recognised).
KernelLogFormat DetectKernelLogFormat(std::string_view text);

// Finds NVIDIA Xid reports in `records`: "NVRM: Xid (PCI:0000:38:00): 13, pid=…, …" and its
// variants (no "PCI:" prefix, no pid, MIG "(PCI:… GPU-I:05)", NVLink5 extended forms), plus
// "NVRM: GPU at PCI:0000:3b:00: GPU has fallen off the bus." as Xid 79 (not counted again when it
// directly follows an Xid 79 line of the same GPU), and the probe-time report without an Xid
// number ("NVRM: The NVIDIA GPU 0000:5d:00.0" … "fallen off the bus and is not responding to
// commands.", in one, two or three lines) as Xid 79 on that address ("" when no address line
// precedes it within 3 records). NVLink5 reports carry "fatal"/"nonfatal" and Xid 154 its new
// recovery action as detail. Addresses are normalised to "0000:38:00.0".
// Events are deduplicated per (address, xid) with count, first/last time and the first message
// as sample, and sorted by address then xid.
std::vector<XidEvent> ExtractXidEvents(const std::vector<KernelLogRecord>& records);

// The Xid reports of `records` one by one, in input order, with the same matching and
// fallen-off-the-bus echo rule as ExtractXidEvents (which groups exactly these).
std::vector<XidOccurrence> ExtractXidOccurrences(const std::vector<KernelLogRecord>& records);

// Groups occurrences per (address, xid) as ExtractXidEvents describes; NVLink5 codes 144-150
// per (address, xid, fatal/nonfatal). Xid 154 events carry their latest recovery action as
// detail. First/last times are ISO 8601 where the log's format allows (IsoLogTime).
std::vector<XidEvent> GroupXidOccurrences(const std::vector<XidOccurrence>& occurrences);

// The driver's "NVRM: Rate limiting GSP RPC error prints for GPU at PCI:0000:61:00 (printing 1
// of every 30)" notices, in log order: after one, each printed Xid 119/120 stands for up to N.
std::vector<XidRateLimit> ExtractXidRateLimits(const std::vector<KernelLogRecord>& records);

// Reads the kernel log and extracts Xid events. With a non-empty `log_file`, reads that file (any
// format above; the last 64 MiB of larger files). Otherwise reads paths.Dev("kmsg"): a character
// device is read record by record without blocking, from the oldest record, until EAGAIN or
// 16 MiB; a regular file (fixture trees) is read whole. Failures are not returned but recorded in
// `record_count`: Error with the reason (permission denied names /dev/kmsg as the host sees it
// and how to get access), or Unsupported when /dev/kmsg does not exist.
KernelLogState ReadKernelLog(const HostPaths& paths, const std::string& log_file);

}  // namespace gpuvet
