// Quarantine planning for `gpuvet fleet quarantine`: the exact argv of every Slurm and Kubernetes
// command (run without a shell), the sanitisers that make node names, Slurm reasons and taint
// values safe to pass, the circuit breaker, and the parser of `scontrol show node` that lets undo
// touch only drains gpuvet set. Pure functions; cli/fleet_quarantine.cc runs the commands.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpuvet {

using Argv = std::vector<std::string>;

// Every Slurm drain reason gpuvet sets starts with this; undo resumes only such nodes.
inline constexpr std::string_view kSlurmReasonPrefix = "gpuvet: ";
// Kubernetes taint key and label gpuvet sets (and only ever removes).
inline constexpr std::string_view kTaintKey = "gpuvet.io/quarantine";
inline constexpr std::string_view kQuarantineLabel = "gpuvet.io/quarantined";
// Longest Slurm reason gpuvet writes, prefix included.
inline constexpr size_t kMaxReasonLength = 128;

// True for a plain host name: 1–253 characters of [A-Za-z0-9._-], starting and ending with a
// letter or digit. Anything else (a Slurm hostlist "n[1-9]", "a,b", a leading '-', spaces) is
// refused: it could name other nodes or be read as an option.
bool IsSafeNodeName(std::string_view name);

// The Slurm reason for `raw`: "gpuvet: " + the text with every character outside
// [A-Za-z0-9 .,:_/+%@-] replaced ("; " joins become ", ", quotes, $, `, |, &, <, >, (, ), =, \,
// control and non-ASCII characters become spaces), runs of spaces collapsed, and cut to
// kMaxReasonLength ("..." marks a cut).
std::string SanitizeSlurmReason(std::string_view raw);

// True when `v` is a Kubernetes label value: at most 63 characters of [A-Za-z0-9._-], starting
// and ending with a letter or digit (or empty).
bool IsLabelValue(std::string_view v);

// The taint value for a node quarantined for these finding ids ("fleet.pcie_downgrade" ->
// "pcie_downgrade", several joined with '.'), always a valid label value ("unhealthy" if empty).
std::string TaintValue(const std::vector<std::string>& reason_ids);

// Commands. Node names must have passed IsSafeNodeName.
Argv SlurmShowNode(const std::string& node);  // scontrol show node N
Argv SlurmShowAllNodes();                     // scontrol show node
Argv SlurmDrain(const std::string& node, const std::string& sanitized_reason);
Argv SlurmResume(const std::string& node);
std::vector<Argv> K8sQuarantine(const std::string& node, const std::string& taint_value);
std::vector<Argv> K8sRelease(const std::string& node);
Argv K8sListQuarantined();  // kubectl get nodes -l gpuvet.io/quarantined=true -o name

// The argv as one line for people: arguments with spaces or special characters in single quotes.
// Display only; nothing ever passes this to a shell.
std::string FormatCommand(const Argv& argv);

// One node of `scontrol show node` output.
struct SlurmNodeState {
  std::string name;      // NodeName=
  std::string state;     // State= ("IDLE+DRAIN")
  std::string reason;    // Reason= up to the end of its line, Slurm's " [user@time]" suffix removed
  bool drained() const;  // State has DRAIN (DRAINING / DRAINED / +DRAIN)
  bool set_by_gpuvet() const;  // Reason starts with "gpuvet:"
};

// Parses the multi-line `scontrol show node` format (one block per node, starting at NodeName=).
std::vector<SlurmNodeState> ParseScontrolShowNode(std::string_view text);

// The circuit breaker: at most max(1, floor(max_fraction × fleet_size)) nodes quarantined at once,
// counting the nodes gpuvet already holds out of service from earlier runs (Slurm: drained with a
// "gpuvet:" reason; Kubernetes: gpuvet's label/taint), so repeated runs cannot drain a pool one
// node at a time.
struct BreakerDecision {
  bool allowed = true;
  int requested = 0;   // nodes this run would quarantine that gpuvet does not hold yet
  int already = 0;     // nodes gpuvet already holds out of service
  int fleet_size = 0;  // audited nodes plus held nodes the audit did not see
  int limit = 0;
  std::string message;  // why it refused (empty when allowed)
};

// `requested` new nodes on top of `already` held ones, in a fleet of `fleet_size`.
BreakerDecision CheckBreaker(int requested, int fleet_size, double max_fraction, int already = 0);

// The breaker over node names: `requested` (this run's list), `held` (nodes gpuvet already holds
// out of service, as read from Slurm or Kubernetes) and `audited` (every node of the audit). A
// requested node that is already held counts once; held nodes outside the audit count in the
// fleet too (a drained node that stopped reporting is still part of the pool). The message names
// up to five held nodes.
BreakerDecision CheckBreaker(const std::vector<std::string>& requested,
                             const std::vector<std::string>& held,
                             const std::vector<std::string>& audited, double max_fraction);

// The nodes gpuvet holds out of service according to `scontrol show node`: drained with a reason
// gpuvet wrote (an admin's drain is not gpuvet's and does not count).
std::vector<std::string> SlurmNodesHeldByGpuvet(const std::vector<SlurmNodeState>& nodes);

// The node names in `kubectl get nodes -l gpuvet.io/quarantined=true -o name` output
// ("node/NAME" lines; blank lines skipped).
std::vector<std::string> ParseKubectlNodeNames(std::string_view text);

}  // namespace gpuvet
