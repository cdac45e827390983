// The plain-text offline GPU source: reads a saved `nvidia-smi -q` report (what support engineers
// are sent most often) into the same GpuInventory the XML reader fills. The report is read by label
// and indentation into the element tree of `nvidia-smi -q -x`, then walked by the XML reader, so
// both formats give the same fields and notes. Labels renamed between drivers 525 and 610 (Linux
// and Windows) are all accepted; unknown labels and sections are skipped.
#pragma once

#include <string>
#include <string_view>

#include "core/gpu_state.h"
#include "util/status.h"

namespace gpuvet {

// What a capture file holds, judged from its first lines.
enum class CaptureFormat {
  kXml,        // `nvidia-smi -q -x`
  kQueryText,  // `nvidia-smi -q`
  kTable,      // plain `nvidia-smi` (the summary table): not a -q report
  kUnknown,    // none of these
};

// Sniffs `text`: XML when the first non-blank byte is '<'; -q text when it starts with the
// "NVSMI LOG" banner or has a top-level "Driver Version : " line before any GPU section; the
// summary table when it has the "| NVIDIA-SMI " header row. Pure.
CaptureFormat SniffCaptureFormat(std::string_view text);

// "nvidia-smi -q -x", "nvidia-smi -q", "plain nvidia-smi table", "unknown".
std::string_view CaptureFormatName(CaptureFormat format);

// Parses the text of an `nvidia-smi -q` report. `origin` names the file and appears in the
// inventory's origin ("nvidia-smi-q (ORIGIN)") and in every error. Returns InvalidInput when the
// text is not a -q report (naming what it looks like instead) or holds bytes that are not text. A
// report that ends inside a GPU section (truncated) is a partial read: the GPUs read so far, the
// last one with a CallFailure "capture" saying where the text ends, and every field after it "not
// in capture". Field errors name the line and label ("line 212 Temperature > GPU Current Temp:
// cannot parse 'abc' as an integer in C"). Thread-safe (no shared state).
Result<GpuInventory> ParseNvidiaSmiText(std::string_view text, std::string_view origin);

// Reads `path` (at most 64 MiB) and parses it as `format`; kUnknown sniffs the content (the
// `--nvidia-smi-xml` flag accepts either). Returns the ReadFile status when the file cannot be
// read, InvalidInput naming the detected format when it does not match the one asked for (or is
// the summary table, or neither), and the parser's error otherwise. `*detected` (when not null)
// receives the format the content was read as.
Result<GpuInventory> LoadNvidiaSmiCapture(const std::string& path, CaptureFormat format,
                                          CaptureFormat* detected = nullptr);

}  // namespace gpuvet
