// Fuzz target: a saved kernel log in any format (kmsg, dmesg and its time/decode options,
// journalctl, syslog, pstore) through the file reader, Xid and signal extraction, every rule and
// every renderer.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "sources/kmsg/kernel_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuvet;
  std::string path = fuzz::WriteScratchFile(fuzz::AsText(data, size), ".log");
  CheckReport report;
  report.host.kernel_log = ReadKernelLog(HostPaths(), path);
  fuzz::JudgeAndRender(report);
  return 0;
}
