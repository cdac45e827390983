// The Xid catalogue: what each NVIDIA Xid code means for an operator. Every code gets a class
// (the application's fault, recoverable with a reset or a watch, or a hardware/driver failure)
// and the next step, so the Xid rule can turn kernel log events into findings of the right
// severity. Built from NVIDIA's public Xid catalogue; the wording is gpuvet's own.
#pragma once

#include <span>
#include <string_view>

namespace gpuvet {

enum class XidClass {
  kApplication,  // a user program's fault (bad address, exception): not a hardware fault alone
  kRecoverable,  // contained by the hardware or driver; needs a GPU reset or watching
  kCritical,     // the GPU, its memory, NVLink, PCIe or firmware failed: drain the node
};

// "application", "recoverable", "critical".
std::string_view XidClassName(XidClass c);

struct XidInfo {
  int code = 0;
  std::string_view name;  // short meaning: "GPU has fallen off the bus"
  XidClass xid_class = XidClass::kRecoverable;
  std::string_view action;  // what the operator should do
};

// The entry for `code`, or nullptr when the catalogue does not list it. The table is static;
// the pointer stays valid for the program's lifetime. Thread-safe.
const XidInfo* FindXid(int code);

// The entry for `code`, or for an unlisted code a recoverable entry named "unknown Xid" whose
// action says to look the code up in NVIDIA's Xid catalogue.
XidInfo ClassifyXid(int code);

// Every listed entry, sorted by code (for docs and tests).
std::span<const XidInfo> XidCatalog();

}  // namespace gpuvet
