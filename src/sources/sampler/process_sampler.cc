// Process-tree sampler. The tree comes from the kernel's per-task "children" files, walked down
// from the root (a scan of every /proc/PID/stat for its ppid where the kernel lacks them); each
// member is then read in detail. State between samples is keyed by pid and checked against the
// start time, so a recycled pid is a new process.
#include "sources/sampler/process_sampler.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "sources/sampler/cgroup_throttle.h"
#include "util/file.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

uint64_t Delta(uint64_t a, uint64_t b) { return b >= a ? b - a : 0; }

// Numeric entries of a directory (pids under /proc, tids under task/, fds under fd/).
// Returns false when the directory cannot be opened (errno kept).
bool ListNumeric(const std::string& dir, std::vector<int>* out) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return false;
  while (const dirent* e = ::readdir(d)) {
    const char* n = e->d_name;
    if (n[0] < '0' || n[0] > '9') continue;
    std::optional<int64_t> v = ParseInt(n);
    if (v && *v >= 0 && *v <= INT32_MAX) out->push_back(static_cast<int>(*v));
  }
  ::closedir(d);
  return true;
}

}  // namespace

ProcessSampler::ProcessSampler(const HostPaths& paths) : paths_(paths), proc_dir_(paths.Proc("")) {
  if (long hz = ::sysconf(_SC_CLK_TCK); hz > 0) ticks_per_s_ = static_cast<double>(hz);
  if (long page = ::sysconf(_SC_PAGESIZE); page > 0) page_bytes_ = static_cast<uint64_t>(page);
}

void ProcessSampler::Note(const std::string& key, const std::string& text) {
  notes_.emplace(key, text);
}

void ProcessSampler::SetRoot(int pid) {
  root_ = pid;
  prev_.clear();
  throttle_file_.reset();
  prev_throttle_.reset();
  if (pid <= 0) return;
  Result<std::string> file = FindThrottleStatFile(paths_, pid);
  if (file.ok()) {
    throttle_file_ = *file;
  } else {
    Note("sampler.cgroup", file.status().message());
  }
  WorkloadSample ignored;
  Take(0, &ignored);  // baseline
}

std::optional<std::vector<int>> ProcessSampler::ChildrenOf(int pid) {
  const std::string task_dir = proc_dir_ + std::to_string(pid) + "/task/";
  std::vector<int> tids;
  if (!ListNumeric(task_dir, &tids)) return std::nullopt;
  std::vector<int> children;
  for (int tid : tids) {
    Result<std::string> text = ReadFile(task_dir + std::to_string(tid) + "/children", 1 << 20);
    if (!text.ok()) {
      // No such file at all: a kernel without CONFIG_PROC_CHILDREN. A thread that just exited
      // has lost its directory too, so only the first thread decides.
      if (tid == tids.front() && text.status().code() == StatusCode::kNotFound &&
          PathExists(task_dir + std::to_string(tid))) {
        return std::nullopt;
      }
      continue;
    }
    for (std::string_view w : SplitWhitespace(*text)) {
      if (std::optional<int64_t> c = ParseInt(w); c && *c > 0 && *c <= INT32_MAX) {
        children.push_back(static_cast<int>(*c));
      }
    }
  }
  return children;
}

std::vector<int> ProcessSampler::TreeByChildren() {
  std::vector<int> tree{root_};
  for (size_t at = 0; at < tree.size(); ++at) {
    std::optional<std::vector<int>> children = ChildrenOf(tree[at]);
    if (!children) {
      if (at == 0 && PathExists(proc_dir_ + std::to_string(root_))) return {};  // no support
      continue;                                                                 // exited meanwhile
    }
    for (int c : *children) {
      if (tree.size() >= kMaxTreeProcesses) {
        Note("sampler.process.cap", "tree larger than " + std::to_string(kMaxTreeProcesses) +
                                        " processes; the rest are not followed");
        return tree;
      }
      if (std::find(tree.begin(), tree.end(), c) == tree.end()) tree.push_back(c);
    }
  }
  return tree;
}

std::vector<int> ProcessSampler::TreeByScan() {
  std::vector<int> pids;
  if (!ListNumeric(proc_dir_, &pids)) {
    Note("sampler.process", "cannot list " + proc_dir_ + ": " + std::strerror(errno));
    return {};
  }
  std::multimap<int, int> children;  // ppid -> pid
  for (int pid : pids) {
    Result<PidStat> st = ReadPidStat(paths_, pid);
    if (!st.ok()) continue;  // exited since the listing (or unreadable: not followed)
    if (st->ppid != pid) children.emplace(st->ppid, pid);
  }
  std::vector<int> tree{root_};
  for (size_t at = 0; at < tree.size(); ++at) {
    auto [b, e] = children.equal_range(tree[at]);
    for (auto it = b; it != e; ++it) {
      if (tree.size() >= kMaxTreeProcesses) {
        Note("sampler.process.cap", "tree larger than " + std::to_string(kMaxTreeProcesses) +
                                        " processes; the rest are not followed");
        return tree;
      }
      tree.push_back(it->second);
    }
  }
  return tree;
}

std::vector<PidStat> ProcessSampler::ReadTree() {
  // The kernel's per-task children lists (CONFIG_PROC_CHILDREN) cost a few reads per process of
  // the tree; without them, every process on the host is read for its ppid.
  std::vector<int> pids = use_children_ ? TreeByChildren() : std::vector<int>{};
  if (pids.empty()) {
    if (use_children_ && !PathExists(proc_dir_ + std::to_string(root_))) {
      Note("sampler.process", "root process " + std::to_string(root_) + " is gone");
      return {};
    }
    use_children_ = false;
    pids = TreeByScan();
  }
  std::vector<PidStat> tree;
  for (int pid : pids) {
    Result<PidStat> st = ReadPidStat(paths_, pid);
    if (!st.ok()) {
      if (pid == root_) {
        // A file that cannot be read means the process exited; one that does not parse is named.
        Note("sampler.process", st.status().code() == StatusCode::kInvalidInput
                                    ? st.status().message()
                                    : "root process " + std::to_string(root_) + " is gone");
        return {};
      }
      continue;  // exited meanwhile
    }
    tree.push_back(std::move(st).value());
  }
  std::sort(tree.begin() + (tree.empty() ? 0 : 1), tree.end(),
            [](const PidStat& a, const PidStat& b) { return a.pid < b.pid; });
  return tree;
}

std::vector<ProcessSample> ProcessSampler::Take(double interval_s, WorkloadSample* workload) {
  std::vector<ProcessSample> out;
  if (root_ <= 0) return out;
  ReadThrottle(interval_s, workload);
  std::vector<PidStat> tree = ReadTree();
  // The kernel adds a reaped child's I/O counters to its parent's: I/O already counted while the
  // child was alive would count twice. Children gone since the last sample are subtracted from
  // their parent's delta.
  std::map<int, PidIo> reaped;  // parent pid -> last totals of its children that vanished
  for (const auto& entry : prev_) {
    const int pid = entry.first;
    const Prev& p = entry.second;
    const bool alive = std::any_of(tree.begin(), tree.end(), [&](const PidStat& st) {
      return st.pid == pid && st.starttime == p.starttime;
    });
    if (alive || !p.io) continue;
    PidIo& r = reaped[p.ppid];
    r.rchar += p.io->rchar;
    r.syscr += p.io->syscr;
    r.read_bytes += p.io->read_bytes;
    r.write_bytes += p.io->write_bytes;
  }
  std::map<int, Prev> next;
  for (const PidStat& st : tree) {
    auto it = prev_.find(st.pid);
    const Prev* prev =
        it != prev_.end() && it->second.starttime == st.starttime ? &it->second : nullptr;
    Prev& n = next[st.pid];
    auto r = reaped.find(st.pid);
    ProcessSample s =
        ReadProcess(st, interval_s, prev, r != reaped.end() && prev ? &r->second : nullptr, &n);
    if (interval_s > 0) out.push_back(std::move(s));
  }
  prev_ = std::move(next);
  return out;
}

ProcessSample ProcessSampler::ReadProcess(const PidStat& st, double interval_s, const Prev* prev,
                                          const PidIo* reaped, Prev* next) {
  ProcessSample s;
  s.pid = st.pid;
  s.ppid = st.ppid;
  s.comm = st.comm;
  s.threads = st.num_threads;
  if (st.rss_pages >= 0) s.rss_bytes = static_cast<uint64_t>(st.rss_pages) * page_bytes_;
  next->starttime = st.starttime;
  next->ppid = st.ppid;
  next->cpu_ticks = st.utime + st.stime;
  if (interval_s > 0) {
    const uint64_t ticks = Delta(prev != nullptr ? prev->cpu_ticks : 0, next->cpu_ticks);
    s.cpu_pct = 100.0 * static_cast<double>(ticks) / ticks_per_s_ / interval_s;
  }

  const std::string dir = proc_dir_ + std::to_string(st.pid);
  if (Result<std::string> text = ReadFile(dir + "/io", 4096); !text.ok()) {
    Note("sampler.process.io", text.status().message());
  } else if (Result<PidIo> io = ParsePidIo(*text); !io.ok()) {
    Note("sampler.process.io", dir + "/io: " + io.status().message());
  } else {
    next->io = *io;
    // A process seen for the first time counts from zero; one whose io was unreadable before
    // has no baseline and stays absent this once.
    if (interval_s > 0 && (prev == nullptr || prev->io)) {
      PidIo base = prev != nullptr ? *prev->io : PidIo{};
      if (reaped != nullptr) {
        base.read_bytes += reaped->read_bytes;
        base.write_bytes += reaped->write_bytes;
        base.rchar += reaped->rchar;
        base.syscr += reaped->syscr;
      }
      s.read_bytes_per_s = static_cast<double>(Delta(base.read_bytes, io->read_bytes)) / interval_s;
      s.write_bytes_per_s =
          static_cast<double>(Delta(base.write_bytes, io->write_bytes)) / interval_s;
      s.rchar_per_s = static_cast<double>(Delta(base.rchar, io->rchar)) / interval_s;
      s.read_syscalls_per_s = static_cast<double>(Delta(base.syscr, io->syscr)) / interval_s;
    }
  }
  ReadThreads(st, interval_s, prev, next, &s);
  ReadFds(st.pid, interval_s, prev, next, &s);
  return s;
}

void ProcessSampler::ReadThreads(const PidStat& st, double interval_s, const Prev* prev, Prev* next,
                                 ProcessSample* out) {
  auto thread_pct = [&](int tid, uint64_t ticks) {
    next->thread_ticks[tid] = ticks;
    uint64_t base = 0;
    if (prev != nullptr) {
      if (auto it = prev->thread_ticks.find(tid); it != prev->thread_ticks.end()) base = it->second;
    }
    return interval_s > 0
               ? 100.0 * static_cast<double>(Delta(base, ticks)) / ticks_per_s_ / interval_s
               : 0.0;
  };
  std::vector<ThreadSample> threads;
  if (st.num_threads <= 1) {  // the process is its only thread: no need to read task/
    threads.push_back(ThreadSample{st.pid, st.comm, thread_pct(st.pid, st.utime + st.stime)});
  } else {
    const std::string task_dir = proc_dir_ + std::to_string(st.pid) + "/task/";
    std::vector<int> tids;
    if (!ListNumeric(task_dir, &tids)) {
      Note("sampler.process.threads", "cannot list " + task_dir + ": " + std::strerror(errno));
    }
    if (tids.size() > kMaxThreadsRead) {
      Note("sampler.process.threads.cap", "a process has more than " +
                                              std::to_string(kMaxThreadsRead) +
                                              " threads; only the first are read");
      std::sort(tids.begin(), tids.end());
      tids.resize(kMaxThreadsRead);
    }
    for (int tid : tids) {
      Result<PidStat> t = ReadStatFile(task_dir + std::to_string(tid) + "/stat");
      if (!t.ok()) continue;  // the thread exited
      threads.push_back(ThreadSample{tid, t->comm, thread_pct(tid, t->utime + t->stime)});
    }
  }
  if (interval_s <= 0) return;
  const size_t keep = std::min(kMaxTopThreads, threads.size());
  std::partial_sort(threads.begin(), threads.begin() + static_cast<std::ptrdiff_t>(keep),
                    threads.end(), [](const ThreadSample& a, const ThreadSample& b) {
                      return a.cpu_pct != b.cpu_pct ? a.cpu_pct > b.cpu_pct : a.tid < b.tid;
                    });
  threads.resize(keep);
  out->top_threads = std::move(threads);
}

void ProcessSampler::ReadFds(int pid, double interval_s, const Prev* prev, Prev* next,
                             ProcessSample* out) {
  const std::string fd_dir = proc_dir_ + std::to_string(pid) + "/fd/";
  std::vector<int> fds;
  if (!ListNumeric(fd_dir, &fds)) {
    Note("sampler.process.opens", "cannot list " + fd_dir + ": " + std::strerror(errno));
    return;
  }
  const bool resolve = fds.size() <= kMaxFdsResolved;
  if (!resolve) {
    Note("sampler.process.opens.cap",
         "a process holds more than " + std::to_string(kMaxFdsResolved) +
             " descriptors; its opens are counted by new descriptor numbers only");
  }
  char target[4096];
  for (int fd : fds) {
    std::string t;
    if (resolve) {
      const ssize_t n = ::readlink((fd_dir + std::to_string(fd)).c_str(), target, sizeof(target));
      if (n < 0) continue;  // closed since the listing
      t.assign(target, static_cast<size_t>(n));
    }
    next->fds.emplace(fd, std::move(t));
  }
  next->fds_known = true;
  next->fds_resolved = resolve;
  if (interval_s <= 0) return;
  // A first-seen process opened everything it holds during the interval; one whose fd table was
  // unreadable before has no baseline.
  if (prev != nullptr && !prev->fds_known) return;
  size_t opened = 0;
  for (const auto& e : next->fds) {
    if (prev == nullptr) {
      ++opened;
    } else if (resolve && prev->fds_resolved) {
      opened += prev->fds.count(e) == 0 ? 1 : 0;
    } else {
      auto it = prev->fds.lower_bound({e.first, std::string()});
      opened += it == prev->fds.end() || it->first != e.first ? 1 : 0;
    }
  }
  out->opens_per_s = static_cast<double>(opened) / interval_s;
}

void ProcessSampler::ReadThrottle(double interval_s, WorkloadSample* workload) {
  if (!throttle_file_) return;
  Result<std::string> text = ReadFile(*throttle_file_, 1 << 16);
  if (!text.ok()) {
    Note("sampler.cgroup", text.status().message());
    prev_throttle_.reset();
    return;
  }
  Result<CgroupThrottle> t = ParseCgroupCpuStat(*text);
  if (!t.ok()) {
    Note("sampler.cgroup", *throttle_file_ + ": " + t.status().message());
    prev_throttle_.reset();
    return;
  }
  if (prev_throttle_ && interval_s > 0) {
    workload->cgroup_throttled_pct =
        static_cast<double>(Delta(prev_throttle_->throttled_us, t->throttled_us)) /
        (interval_s * 1e4);
    workload->cgroup_nr_throttled_per_s =
        static_cast<double>(Delta(prev_throttle_->nr_throttled, t->nr_throttled)) / interval_s;
  }
  prev_throttle_ = *t;
}

}  // namespace gpuvet
