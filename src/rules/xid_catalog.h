// The Xid catalogue: what each NVIDIA Xid code means for an operator. Every code gets NVIDIA's
// own immediate action (the "resolution bucket" of NVIDIA's Xid catalogue), a class derived from
// it (the application's fault, informational, recoverable, or a failure that needs a reset,
// reboot or drain) and gpuvet's next step, so the Xid rule can turn kernel log events into
// findings of the right severity. A few codes are judged by their message too: the NVLink5 codes
// 144-150 say "Fatal" or "Nonfatal", and Xid 154 names the recovery action the driver now
// requires. Built from NVIDIA's public Xid catalogue; the wording is gpuvet's own (docs/xid.md
// lists the table).
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace gpuvet {

enum class XidClass {
  kApplication,    // a user program's fault (bad address, exception): not a hardware fault alone
  kInformational,  // NVIDIA says IGNORE: logged for the record, no action on the node
  kRecoverable,    // contained; restart the job, watch, update software or contact support
  kCritical,       // NVIDIA says reset the GPU, restart the machine or drain: the node is unfit
};

// "application", "informational", "recoverable", "critical".
std::string_view XidClassName(XidClass c);

// Where an entry's facts come from.
enum class XidSource {
  kNvidiaCatalog,   // NVIDIA's Xid catalogue (Ampere and newer), with its immediate action
  kNvidiaOlder,     // NVIDIA's Xid list for Volta and older GPUs (unused on newer ones)
  kNvidiaNoAction,  // NVIDIA's catalogue lists the code but gives no immediate action yet
};

// "NVIDIA Xid catalogue", "NVIDIA Xid catalogue (Volta and older)", "NVIDIA Xid catalogue (no
// action given; gpuvet's judgement)".
std::string_view XidSourceName(XidSource s);

struct XidInfo {
  int code = 0;
  std::string_view name;  // short meaning: "GPU has fallen off the bus"
  XidClass xid_class = XidClass::kRecoverable;
  // NVIDIA's immediate action as its catalogue spells it ("RESET_GPU", "RESTART_BM", "IGNORE",
  // "RESTART_APP", "WORKFLOW_XID_48", …); "" when NVIDIA gives none.
  std::string_view nvidia_action;
  std::string_view action;  // what the operator should do (gpuvet's wording)
  XidSource source = XidSource::kNvidiaCatalog;
};

// The entry for `code`, or nullptr when the catalogue does not list it. The table is static;
// the pointer stays valid for the program's lifetime. Thread-safe.
const XidInfo* FindXid(int code);

// The entry for `code`, or for an unlisted code a recoverable entry named "unknown Xid" whose
// action says to look the code up in NVIDIA's Xid catalogue.
XidInfo ClassifyXid(int code);

// The entry for one event of `code` refined by its message detail (XidEvent::detail):
// - NVLink5 codes 144-150: "fatal" is critical (NVIDIA: RESET_GPU), "nonfatal" recoverable;
//   without either the catalogue's recoverable entry stands.
// - Xid 154: the recovery action the driver now requires ("Drain and Reset", "GPU Reset
//   Required", "Node Reboot Required", "Drain P2P", "None"): "None" is informational, every other
//   action critical, with the action's own decision.
// Other codes ignore `detail`.
XidInfo ClassifyXidEvent(int code, std::string_view detail);

// Every listed entry, sorted by code (for docs and tests).
std::span<const XidInfo> XidCatalog();

// The whole table as the Markdown of docs/xid.md (a test keeps the file equal to it).
std::string XidCatalogMarkdown();

}  // namespace gpuvet
