// GPU process owners from /proc and /etc/passwd (see gpu_owner.h).
#include "sources/host/gpu_owner.h"

#include <algorithm>
#include <string>

#include "util/file.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// Most bytes read of one /proc/PID/environ (a job's environment is rarely above a few KiB).
constexpr size_t kEnvironCap = 256 * 1024;

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool IsHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

// A pod UID: a UUID, or a static pod's 32-character hash; lower-case hex and '-'.
bool IsPodUid(std::string_view s) {
  return s.size() >= 8 && s.size() <= 64 &&
         std::all_of(s.begin(), s.end(), [](char c) { return IsHex(c) || c == '-'; });
}

// A container id: 12 to 128 lower-case hex characters.
bool IsContainerId(std::string_view s) {
  return s.size() >= 12 && s.size() <= 128 && std::all_of(s.begin(), s.end(), IsHex);
}

bool IsSlurmRoot(std::string_view c) {
  return c == "slurm" || StartsWith(c, "slurm_") || c == "slurmstepd.scope" ||
         EndsWith(c, "_slurmstepd.scope");
}

// "pod<UID>" (cgroupfs) or "kubepods[-<qos>]-pod<UID with '_'>.slice" (systemd); "" otherwise.
std::string PodUidOf(std::string_view c) {
  std::string_view uid;
  if (StartsWith(c, "pod")) {
    uid = c.substr(3);
  } else if (StartsWith(c, "kubepods") && EndsWith(c, ".slice")) {
    c.remove_suffix(6);
    const size_t at = c.rfind("-pod");
    if (at == std::string_view::npos) return "";
    uid = c.substr(at + 4);
  } else {
    return "";
  }
  std::string out(uid);
  std::replace(out.begin(), out.end(), '_', '-');
  return IsPodUid(out) ? out : "";
}

// The QoS class a kubepods component names, or "".
std::string QosOf(std::string_view c) {
  for (const char* q : {"burstable", "besteffort"}) {
    if (c == q || c == std::string("kubepods-") + q + ".slice") return q;
  }
  return "";
}

// "<CID>" (cgroupfs) or "<runtime>-<CID>.scope" (systemd). Returns false for anything else
// (crio-conmon-<CID>.scope is the monitor, not the container).
bool ContainerOf(std::string_view c, std::string* id, std::string* runtime) {
  if (IsContainerId(c)) {
    *id = std::string(c);
    runtime->clear();
    return true;
  }
  if (!EndsWith(c, ".scope")) return false;
  c.remove_suffix(6);
  static constexpr std::pair<const char*, const char*> kPrefixes[] = {
      {"cri-containerd-", "containerd"}, {"docker-", "docker"}, {"crio-", "crio"}};
  for (const auto& [prefix, name] : kPrefixes) {
    if (StartsWith(c, prefix) && IsContainerId(c.substr(std::string_view(prefix).size()))) {
      *id = std::string(c.substr(std::string_view(prefix).size()));
      *runtime = name;
      return true;
    }
  }
  return false;
}

}  // namespace

bool OwnerFromCgroupPath(std::string_view path, GpuProcessOwner& owner) {
  bool slurm = false, kube = false, found = false;
  std::string pod, qos, cid, runtime;
  for (std::string_view c : Split(path, '/')) {
    if (c.empty()) continue;
    if (IsSlurmRoot(c)) {
      slurm = true;
    } else if (slurm && StartsWith(c, "job_") && AllDigits(c.substr(4))) {
      owner.slurm_job = std::string(c.substr(4));
      owner.slurm_job_from = "cgroup";
      found = true;
    } else if (c == "kubepods" || c == "kubepods.slice") {
      kube = true;
    } else if (kube && pod.empty()) {
      if (std::string q = QosOf(c); !q.empty()) {
        qos = q;
      } else if (std::string u = PodUidOf(c); !u.empty()) {
        pod = u;
      }
    } else if (kube && cid.empty()) {
      ContainerOf(c, &cid, &runtime);
    }
  }
  if (!pod.empty()) {
    owner.pod_uid = pod;
    owner.qos = qos.empty() ? "guaranteed" : qos;
    owner.container_id = cid;
    owner.container_runtime = runtime;
    found = true;
  }
  if (found) owner.cgroup = std::string(path);
  return found;
}

void OwnerFromProcCgroup(std::string_view text, GpuProcessOwner& owner) {
  std::string fallback;
  for (std::string_view line : Split(text, '\n')) {
    const size_t a = line.find(':');
    const size_t b = a == std::string_view::npos ? a : line.find(':', a + 1);
    if (b == std::string_view::npos) continue;
    const std::string_view path = line.substr(b + 1);
    if (OwnerFromCgroupPath(path, owner)) return;
    if (fallback.empty() || line.substr(0, b + 1) == "0::") fallback = std::string(path);
  }
  owner.cgroup = fallback;
}

std::optional<std::string> SlurmJobFromEnviron(std::string_view environ) {
  std::optional<std::string> job;
  for (std::string_view var : Split(environ, '\0')) {
    for (std::string_view key : {"SLURM_JOB_ID=", "SLURM_JOBID="}) {
      if (StartsWith(var, key) && AllDigits(var.substr(key.size()))) {
        // SLURM_JOB_ID is the current name; it wins over SLURM_JOBID wherever it appears.
        if (!job || key == std::string_view("SLURM_JOB_ID="))
          job = std::string(var.substr(key.size()));
      }
    }
  }
  return job;
}

void OwnerFromProcStatus(std::string_view status, GpuProcessOwner& owner) {
  for (std::string_view line : Split(status, '\n')) {
    if (StartsWith(line, "Name:")) {
      owner.comm = std::string(Trim(line.substr(5)));
    } else if (StartsWith(line, "Uid:")) {
      std::vector<std::string_view> f = SplitWhitespace(line.substr(4));
      if (!f.empty() && AllDigits(f[0]) && f[0].size() <= 10) {
        const uint64_t v = std::stoull(std::string(f[0]));
        if (v <= UINT32_MAX) owner.uid = static_cast<uint32_t>(v);
      }
    }
  }
}

std::string UserNameOf(std::string_view passwd, uint32_t uid) {
  const std::string want = std::to_string(uid);
  for (std::string_view line : Split(passwd, '\n')) {
    std::vector<std::string_view> f = Split(line, ':');
    if (f.size() >= 3 && f[2] == want && !f[0].empty()) return std::string(f[0]);
  }
  return "";
}

GpuProcessOwner ReadProcessOwner(const HostPaths& paths, const std::string& proc_entry,
                                 uint32_t pid, std::optional<std::string>* passwd) {
  GpuProcessOwner o;
  o.pid = pid;
  const std::string dir = proc_entry + "/";
  Result<std::string> status = ReadFile(paths.Proc(dir + "status"));
  if (!status.ok()) {
    o.note = status.status().code() == StatusCode::kNotFound
                 ? "process not found (it ended, or runs in another PID namespace: read the "
                   "host's /proc)"
                 : "/proc/" + dir + "status: " + status.status().message();
    return o;
  }
  OwnerFromProcStatus(*status, o);
  if (Result<std::string> cg = ReadFile(paths.Proc(dir + "cgroup")); cg.ok()) {
    OwnerFromProcCgroup(*cg, o);
  }
  if (o.slurm_job.empty() && o.pod_uid.empty()) {
    Result<std::string> env = ReadFile(paths.Proc(dir + "environ"), kEnvironCap);
    if (env.ok()) {
      if (std::optional<std::string> job = SlurmJobFromEnviron(*env)) {
        o.slurm_job = *job;
        o.slurm_job_from = "environ";
      }
    } else if (env.status().code() == StatusCode::kPermissionDenied) {
      o.note = "environment not readable (another user's process; gpuvet needs root for it)";
    }
  }
  if (o.uid) {
    if (!*passwd) {
      Result<std::string> text = ReadFile(paths.Resolve("/etc/passwd"));
      *passwd = text.ok() ? *text : "";
    }
    o.user = UserNameOf(**passwd, *o.uid);
  }
  return o;
}

std::vector<GpuProcessOwner> ReadGpuProcessOwners(const HostPaths& paths,
                                                  std::vector<uint32_t> pids) {
  std::sort(pids.begin(), pids.end());
  pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
  std::vector<GpuProcessOwner> out;
  std::optional<std::string> passwd;
  for (uint32_t pid : pids) {
    if (pid != 0) out.push_back(ReadProcessOwner(paths, std::to_string(pid), pid, &passwd));
  }
  return out;
}

}  // namespace gpuvet
