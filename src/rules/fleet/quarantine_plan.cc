// Quarantine commands, sanitisers, breaker and the scontrol parser (see quarantine_plan.h).
#include "rules/fleet/quarantine_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "util/strings.h"

namespace gpuvet {

namespace {

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool IsReasonChar(char c) {
  if (IsAlnum(c)) return true;
  for (char ok : std::string_view(" .,:_/+%@-")) {
    if (c == ok) return true;
  }
  return false;
}

}  // namespace

bool IsSafeNodeName(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  if (!IsAlnum(name.front()) || !IsAlnum(name.back())) return false;
  for (char c : name) {
    if (!IsAlnum(c) && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

std::string SanitizeSlurmReason(std::string_view raw) {
  std::string body;
  for (char c : raw) {
    char mapped = c == ';' ? ',' : (IsReasonChar(c) ? c : ' ');
    if (mapped == ' ' && (body.empty() || body.back() == ' ')) continue;
    if (mapped == ',' && !body.empty() && body.back() == ' ') body.pop_back();
    body.push_back(mapped);
  }
  while (!body.empty() && body.back() == ' ') body.pop_back();
  std::string out = std::string(kSlurmReasonPrefix) + (body.empty() ? "unhealthy" : body);
  if (out.size() > kMaxReasonLength) {
    out.resize(kMaxReasonLength - 3);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += "...";
  }
  return out;
}

bool IsLabelValue(std::string_view v) {
  if (v.empty()) return true;
  if (v.size() > 63 || !IsAlnum(v.front()) || !IsAlnum(v.back())) return false;
  for (char c : v) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

std::string TaintValue(const std::vector<std::string>& reason_ids) {
  std::string v;
  for (const std::string& id : reason_ids) {
    std::string_view name = id;
    if (StartsWith(name, "fleet.")) name.remove_prefix(6);
    if (!v.empty()) v.push_back('.');
    for (char c : name) v.push_back(IsAlnum(c) || c == '-' || c == '_' || c == '.' ? c : '_');
  }
  if (v.size() > 63) v.resize(63);
  while (!v.empty() && !IsAlnum(v.back())) v.pop_back();
  size_t start = 0;
  while (start < v.size() && !IsAlnum(v[start])) ++start;
  v = v.substr(start);
  return v.empty() ? "unhealthy" : v;
}

Argv SlurmShowNode(const std::string& node) { return {"scontrol", "show", "node", node}; }

Argv SlurmShowAllNodes() { return {"scontrol", "show", "node"}; }

Argv SlurmDrain(const std::string& node, const std::string& sanitized_reason) {
  return {"scontrol", "update", "NodeName=" + node, "State=DRAIN", "Reason=" + sanitized_reason};
}

Argv SlurmResume(const std::string& node) {
  return {"scontrol", "update", "NodeName=" + node, "State=RESUME"};
}

std::vector<Argv> K8sQuarantine(const std::string& node, const std::string& taint_value) {
  return {
      {"kubectl", "taint", "nodes", node, fmt::format("{}={}:NoSchedule", kTaintKey, taint_value),
       "--overwrite"},
      {"kubectl", "label", "nodes", node, fmt::format("{}=true", kQuarantineLabel), "--overwrite"}};
}

std::vector<Argv> K8sRelease(const std::string& node) {
  return {{"kubectl", "taint", "nodes", node, fmt::format("{}:NoSchedule-", kTaintKey)},
          {"kubectl", "label", "nodes", node, fmt::format("{}-", kQuarantineLabel)}};
}

Argv K8sListQuarantined() {
  return {"kubectl", "get", "nodes", "-l", fmt::format("{}=true", kQuarantineLabel), "-o", "name"};
}

std::string FormatCommand(const Argv& argv) {
  std::vector<std::string> parts;
  for (const std::string& a : argv) {
    bool plain = !a.empty();
    for (char c : a) {
      if (!IsAlnum(c) && std::string_view("-_./=:,@%+").find(c) == std::string_view::npos) {
        plain = false;
      }
    }
    if (plain) {
      parts.push_back(a);
    } else {
      std::string q = "'";
      for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
      parts.push_back(q + "'");
    }
  }
  return Join(parts, " ");
}

bool SlurmNodeState::drained() const { return state.find("DRAIN") != std::string::npos; }

bool SlurmNodeState::set_by_gpuvet() const { return StartsWith(reason, "gpuvet:"); }

std::vector<SlurmNodeState> ParseScontrolShowNode(std::string_view text) {
  std::vector<SlurmNodeState> out;
  for (std::string_view line : Split(text, '\n')) {
    std::string_view t = Trim(line);
    if (StartsWith(t, "Reason=")) {
      if (out.empty()) continue;
      std::string_view r = t.substr(7);
      // Slurm appends " [user@2026-11-30T08:00:00]" to the reason it shows.
      size_t bracket = r.rfind(" [");
      if (bracket != std::string_view::npos && EndsWith(r, "]")) r = r.substr(0, bracket);
      out.back().reason = std::string(r);
      continue;
    }
    for (std::string_view token : SplitWhitespace(t)) {
      if (StartsWith(token, "NodeName=")) {
        out.push_back({});
        out.back().name = std::string(token.substr(9));
      } else if (StartsWith(token, "State=") && !out.empty()) {
        out.back().state = std::string(token.substr(6));
      }
    }
  }
  return out;
}

BreakerDecision CheckBreaker(int requested, int fleet_size, double max_fraction, int already) {
  BreakerDecision d;
  d.requested = requested;
  d.already = already;
  d.fleet_size = fleet_size;
  d.limit = std::max(1, static_cast<int>(std::floor(max_fraction * fleet_size + 1e-9)));
  const int total = requested + already;
  d.allowed = requested == 0 || total <= d.limit;
  if (d.allowed) return d;
  const char* kAdvice =
      "Nothing was changed. So many failures at once usually have one cause (a policy or driver "
      "rollout, a Prometheus or exporter outage): check the audit, or raise --max-fraction if "
      "they really are all sick.";
  const double pct = fleet_size ? 100.0 * total / fleet_size : 0.0;
  if (already == 0) {
    d.message = fmt::format(
        "circuit breaker: refusing to quarantine {} of {} nodes ({:.1f}%); --max-fraction {} "
        "allows at most {} at once. {}",
        requested, fleet_size, pct, max_fraction, d.limit, kAdvice);
  } else {
    d.message = fmt::format(
        "circuit breaker: refusing to quarantine {} more of {} nodes: gpuvet already holds {} out "
        "of service from earlier runs, {} in all would be {:.1f}%; --max-fraction {} allows at "
        "most {} at once. Release the repaired nodes first (fleet quarantine --undo NODE). {}",
        requested, fleet_size, already, total, pct, max_fraction, d.limit, kAdvice);
  }
  return d;
}

BreakerDecision CheckBreaker(const std::vector<std::string>& requested,
                             const std::vector<std::string>& held,
                             const std::vector<std::string>& audited, double max_fraction) {
  std::set<std::string> held_set(held.begin(), held.end());
  std::set<std::string> fleet(audited.begin(), audited.end());
  fleet.insert(held_set.begin(), held_set.end());
  std::set<std::string> fresh;
  for (const std::string& n : requested) {
    if (!held_set.count(n)) fresh.insert(n);
  }
  BreakerDecision d = CheckBreaker(static_cast<int>(fresh.size()), static_cast<int>(fleet.size()),
                                   max_fraction, static_cast<int>(held_set.size()));
  if (!d.allowed && !held_set.empty()) {
    std::vector<std::string> names;
    for (const std::string& n : held_set) {
      if (names.size() == 5) {
        names.push_back(fmt::format("and {} more", held_set.size() - 5));
        break;
      }
      names.push_back(n);
    }
    d.message += fmt::format(" Held by gpuvet: {}.", Join(names, ", "));
  }
  return d;
}

std::vector<std::string> SlurmNodesHeldByGpuvet(const std::vector<SlurmNodeState>& nodes) {
  std::vector<std::string> out;
  for (const SlurmNodeState& s : nodes) {
    if (s.drained() && s.set_by_gpuvet()) out.push_back(s.name);
  }
  return out;
}

std::vector<std::string> ParseKubectlNodeNames(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view line : Split(text, '\n')) {
    line = Trim(line);
    if (StartsWith(line, "node/")) line.remove_prefix(5);
    if (!line.empty()) out.emplace_back(line);
  }
  return out;
}

}  // namespace gpuvet
