// `gpuvet fleet quarantine`: turns the audit's quarantine list into exact Slurm or Kubernetes
// commands, prints them, and with --apply runs them without a shell (sources/command_runner),
// one node at a time, reporting each node's outcome. Slurm drains never overwrite a drain an
// admin set, and undo resumes only drains whose reason gpuvet wrote.
#include <fmt/format.h>

#include <cstdio>

#include "cli/common/cli_util.h"
#include "cli/fleet_command.h"
#include "core/report.h"
#include "rules/fleet/quarantine_plan.h"
#include "util/command_runner.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

void Print(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
}

struct Outcome {
  int failed = 0;
  int done = 0;
};

// Runs one command, printing it and how it ended. Returns its result.
CommandResult Run(const Argv& argv, const FleetFlags& flags) {
  CommandResult r = RunCommand(argv, flags.command_timeout_s);
  return r;
}

// Slurm: read the node's drain state, refuse to touch an admin's drain, then drain.
void SlurmQuarantine(const std::string& node, const std::string& reason, const FleetFlags& flags,
                     Outcome& o) {
  CommandResult show = Run(SlurmShowNode(node), flags);
  if (!show.ok()) {
    Print(fmt::format("  FAILED  {}: {}: {}\n", node, FormatCommand(SlurmShowNode(node)),
                      show.Describe()));
    ++o.failed;
    return;
  }
  std::vector<SlurmNodeState> states = ParseScontrolShowNode(show.out);
  if (!states.empty() && states[0].drained() && !states[0].set_by_gpuvet()) {
    Print(
        fmt::format("  SKIPPED {}: already drained by someone else (State={} Reason={}); "
                    "left as it is\n",
                    node, states[0].state, states[0].reason));
    return;
  }
  Argv drain = SlurmDrain(node, reason);
  CommandResult r = Run(drain, flags);
  if (r.ok()) {
    Print(fmt::format("  DONE    {}: {}\n", node, FormatCommand(drain)));
    ++o.done;
  } else {
    Print(fmt::format("  FAILED  {}: {}: {}\n", node, FormatCommand(drain), r.Describe()));
    ++o.failed;
  }
}

void RunAll(const std::string& node, const std::vector<Argv>& cmds, const FleetFlags& flags,
            Outcome& o) {
  for (const Argv& c : cmds) {
    CommandResult r = Run(c, flags);
    if (!r.ok()) {
      Print(fmt::format("  FAILED  {}: {}: {}\n", node, FormatCommand(c), r.Describe()));
      ++o.failed;
      return;
    }
    Print(fmt::format("  DONE    {}: {}\n", node, FormatCommand(c)));
  }
  ++o.done;
}

// The nodes gpuvet holds out of service now: Slurm nodes drained with a "gpuvet:" reason, or
// Kubernetes nodes carrying gpuvet's quarantine label (set together with its taint).
Result<std::vector<std::string>> HeldByGpuvet(const FleetFlags& flags) {
  const Argv list = flags.apply == "slurm" ? SlurmShowAllNodes() : K8sListQuarantined();
  CommandResult r = Run(list, flags);
  if (!r.ok()) return Unavailable(fmt::format("{}: {}", FormatCommand(list), r.Describe()));
  if (flags.apply == "slurm") return SlurmNodesHeldByGpuvet(ParseScontrolShowNode(r.out));
  return ParseKubectlNodeNames(r.out);
}

int Undo(const FleetFlags& flags) {
  if (flags.apply.empty()) {
    Print(
        "Commands (run with --apply slurm|k8s; Slurm resumes only drains whose Reason starts "
        "with \"gpuvet:\"):\n");
    for (const std::string& node : flags.undo) {
      if (!IsSafeNodeName(node)) continue;
      Print(fmt::format("  {}\n", FormatCommand(SlurmResume(node))));
      for (const Argv& c : K8sRelease(node)) Print(fmt::format("  {}\n", FormatCommand(c)));
    }
    if (flags.undo_all) {
      Print(fmt::format("  {}   (then resume each node drained by gpuvet)\n",
                        FormatCommand(SlurmShowAllNodes())));
      Print(fmt::format("  {}   (then release each listed node)\n",
                        FormatCommand(K8sListQuarantined())));
    }
    return kExitHealthy;
  }
  Outcome o;
  std::vector<std::string> nodes = flags.undo;
  std::vector<SlurmNodeState> all;
  if (flags.undo_all) {
    Argv list = flags.apply == "slurm" ? SlurmShowAllNodes() : K8sListQuarantined();
    CommandResult r = Run(list, flags);
    if (!r.ok()) {
      Print(fmt::format("FAILED: {}: {}\n", FormatCommand(list), r.Describe()));
      return kExitActionFailed;
    }
    if (flags.apply == "slurm") {
      all = ParseScontrolShowNode(r.out);
      for (const SlurmNodeState& s : all) {
        if (s.drained() && s.set_by_gpuvet()) nodes.push_back(s.name);
      }
    } else {
      for (std::string& n : ParseKubectlNodeNames(r.out)) nodes.push_back(std::move(n));
    }
  }
  Print(fmt::format("Releasing {} node(s) ({}):\n", nodes.size(), flags.apply));
  for (const std::string& node : nodes) {
    if (!IsSafeNodeName(node)) {
      Print(fmt::format("  REFUSED {}: not a plain host name\n", node));
      ++o.failed;
      continue;
    }
    if (flags.apply == "k8s") {
      RunAll(node, K8sRelease(node), flags, o);
      continue;
    }
    CommandResult show = Run(SlurmShowNode(node), flags);
    if (!show.ok()) {
      Print(fmt::format("  FAILED  {}: {}: {}\n", node, FormatCommand(SlurmShowNode(node)),
                        show.Describe()));
      ++o.failed;
      continue;
    }
    std::vector<SlurmNodeState> states = ParseScontrolShowNode(show.out);
    if (states.empty() || !states[0].drained() || !states[0].set_by_gpuvet()) {
      Print(fmt::format("  REFUSED {}: not drained by gpuvet (State={} Reason={}); left as it is\n",
                        node, states.empty() ? "?" : states[0].state,
                        states.empty() ? "?" : states[0].reason));
      ++o.failed;
      continue;
    }
    RunAll(node, {SlurmResume(node)}, flags, o);
  }
  return o.failed ? kExitActionFailed : kExitHealthy;
}

}  // namespace

int RunQuarantine(const FleetFlags& flags, const FleetReport* report) {
  if (!report) return Undo(flags);
  std::vector<const FleetNodeResult*> list;
  for (const FleetNodeResult& n : report->nodes) {
    if (n.quarantine) list.push_back(&n);
  }
  const int fleet_size = static_cast<int>(report->nodes.size());
  Print(fmt::format("gpuvet fleet quarantine — {} — {} of {} nodes to quarantine\n", report->origin,
                    list.size(), fleet_size));
  if (list.empty()) return kExitHealthy;
  std::vector<std::string> requested, audited, held;
  for (const FleetNodeResult* n : list) requested.push_back(n->node);
  for (const FleetNodeResult& n : report->nodes) audited.push_back(n.node);
  if (!flags.apply.empty()) {
    // The breaker counts what earlier runs already took out of service; when that cannot be
    // read it does not guess.
    Result<std::vector<std::string>> h = HeldByGpuvet(flags);
    if (!h.ok()) {
      std::fprintf(stderr,
                   "gpuvet fleet quarantine: circuit breaker: cannot count the nodes gpuvet "
                   "already holds out of service: %s. Nothing was changed.\n",
                   h.status().message().c_str());
      return kExitBreaker;
    }
    held = std::move(h).value();
    if (!held.empty()) {
      Print(fmt::format("{} node(s) already held out of service by gpuvet ({})\n", held.size(),
                        flags.apply));
    }
  }
  BreakerDecision breaker = CheckBreaker(requested, held, audited, flags.max_fraction);
  Outcome o;
  for (const FleetNodeResult* n : list) {
    const std::string reason = SanitizeSlurmReason(n->reason);
    Print(fmt::format("\n{}: {}\n", n->node, n->reason));
    if (!IsSafeNodeName(n->node)) {
      Print(
          fmt::format("  REFUSED {}: not a plain host name (letters, digits, '.', '_', '-'); "
                      "no command is built for it\n",
                      n->node));
      ++o.failed;
      continue;
    }
    if (flags.apply.empty() || !breaker.allowed) {
      Print(fmt::format("  slurm: {}\n", FormatCommand(SlurmDrain(n->node, reason))));
      std::string prefix = "  k8s:   ";
      for (const Argv& c : K8sQuarantine(n->node, TaintValue(n->reason_ids))) {
        Print(prefix + FormatCommand(c) + "\n");
        prefix = "         ";
      }
      continue;
    }
    if (flags.apply == "slurm") {
      SlurmQuarantine(n->node, reason, flags, o);
    } else {
      RunAll(n->node, K8sQuarantine(n->node, TaintValue(n->reason_ids)), flags, o);
    }
  }
  if (!breaker.allowed) {
    std::fprintf(stderr, "gpuvet fleet quarantine: %s\n", breaker.message.c_str());
    return kExitBreaker;
  }
  if (o.failed) {
    std::fprintf(stderr, "gpuvet fleet quarantine: %d node(s) failed or refused (see above)\n",
                 o.failed);
    return kExitActionFailed;
  }
  return kExitUnhealthy;
}

}  // namespace gpuvet
