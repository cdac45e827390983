// Owner groups per GPU (see gpu_owner.h).
#include "core/gpu_owner.h"

#include <algorithm>
#include <tuple>

namespace gpuvet {

std::string OwnerUser(const GpuProcessOwner& owner) {
  if (!owner.user.empty()) return owner.user;
  if (owner.uid) return "uid " + std::to_string(*owner.uid);
  return "";
}

std::vector<GpuOwnerGroup> GpuOwnerGroups(const GpuState& gpu,
                                          const std::vector<GpuProcessOwner>& owners) {
  std::vector<GpuOwnerGroup> out;
  if (!gpu.compute_processes.has()) return out;
  std::vector<GpuProcess> procs = *gpu.compute_processes;
  std::sort(procs.begin(), procs.end(),
            [](const GpuProcess& a, const GpuProcess& b) { return a.pid < b.pid; });
  for (const GpuProcess& p : procs) {
    auto it = std::lower_bound(owners.begin(), owners.end(), p.pid,
                               [](const GpuProcessOwner& o, uint32_t pid) { return o.pid < pid; });
    const GpuProcessOwner* o = it != owners.end() && it->pid == p.pid ? &*it : nullptr;
    GpuOwnerGroup key;
    if (o) {
      key.job = o->slurm_job;
      key.pod_uid = o->pod_uid;
      key.container_id = o->container_id;
      key.user = OwnerUser(*o);
    }
    auto same = [&](const GpuOwnerGroup& g) {
      return std::tie(g.job, g.pod_uid, g.container_id, g.user) ==
             std::tie(key.job, key.pod_uid, key.container_id, key.user);
    };
    // A process nothing is known about stays alone: it may be anyone's.
    const bool known = !key.job.empty() || !key.pod_uid.empty() || !key.user.empty();
    auto g = known ? std::find_if(out.begin(), out.end(), same) : out.end();
    if (g == out.end()) {
      out.push_back(std::move(key));
      g = out.end() - 1;
    }
    g->pids.push_back(p.pid);
    if (o && !o->comm.empty() &&
        std::find(g->comms.begin(), g->comms.end(), o->comm) == g->comms.end()) {
      g->comms.push_back(o->comm);
    }
    g->used_memory_bytes += p.used_memory_bytes;
    if (g->note.empty()) g->note = o ? o->note : std::string(kOwnerNotRead);
  }
  return out;
}

std::string DescribeOwner(const GpuOwnerGroup& group) {
  std::string s;
  if (!group.job.empty()) s = "job " + group.job;
  if (!group.pod_uid.empty()) {
    if (!s.empty()) s += ", ";
    s += "pod " + group.pod_uid;
    if (!group.container_id.empty()) s += " container " + group.container_id.substr(0, 12);
  }
  if (!group.user.empty()) s += (s.empty() ? "(" : " (") + group.user + ")";
  return s;
}

std::string DescribeProcessOwner(const GpuProcessOwner& owner) {
  GpuOwnerGroup g;
  g.job = owner.slurm_job;
  g.pod_uid = owner.pod_uid;
  g.container_id = owner.container_id;
  g.user = OwnerUser(owner);
  return DescribeOwner(g);
}

void AddOwnerNotes(const GpuProcessOwner& owner, std::map<std::string, std::string>* notes) {
  const std::string what = DescribeProcessOwner(owner);
  if (what.empty()) return;
  (*notes)["owner"] = what;
  const std::pair<const char*, std::string> fields[] = {{"owner.slurm_job", owner.slurm_job},
                                                        {"owner.pod_uid", owner.pod_uid},
                                                        {"owner.container_id", owner.container_id},
                                                        {"owner.user", OwnerUser(owner)}};
  for (const auto& [key, value] : fields) {
    if (!value.empty()) (*notes)[key] = value;
  }
}

}  // namespace gpuvet
