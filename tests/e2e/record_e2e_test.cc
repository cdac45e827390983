// `gpuvet record` end to end: the real binary, the fake NVML and the small workloads of
// tests/workloads. Exit codes are the workload's, signals reach it, --pid attaches, --work-regex
// counts progress, the recording holds the workload's processes and threads, a write error stops
// only the recording; `gpuvet import` and `gpuvet watch` through the binary too.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "run_binary.h"
#include "sources/recording/recording_store.h"

namespace gpuvet::e2e {
namespace {

std::string Workload(const std::string& name) {
  return std::string(GPUVET_WORKLOADS_DIR) + "/workload_" + name;
}

std::vector<std::string> Env() {
  return {"GPUVET_FAKE_NVML_SCENARIO=" + std::string(GPUVET_FIXTURES_DIR) +
          "/healthy-8gpu/nvml.json"};
}

std::vector<std::string> Record(const std::string& out, std::vector<std::string> rest) {
  std::vector<std::string> argv = {GPUVET_BINARY, "record",     "-o",
                                   out,           "--nvml-lib", GPUVET_FAKE_NVML_LIB};
  if (std::find(rest.begin(), rest.end(), "--interval") == rest.end()) {
    argv.push_back("--interval");
    argv.push_back("200ms");
  }
  argv.insert(argv.end(), rest.begin(), rest.end());
  return argv;
}

// A per-process scratch directory, removed at the end of the test.
class Scratch {
 public:
  Scratch() {
    const char* base = std::getenv("GPUVET_TEST_TMPDIR");
    std::string dir = std::string(base ? base : "/tmp") + "/record_e2e_XXXXXX";
    std::string cmd = "mkdir -p " + std::string(base ? base : "/tmp");
    if (std::system(cmd.c_str()) != 0) ADD_FAILURE() << cmd;
    char* made = mkdtemp(dir.data());
    EXPECT_NE(made, nullptr);
    dir_ = dir;
  }
  ~Scratch() {
    std::string cmd = "rm -rf '" + dir_ + "'";
    if (std::system(cmd.c_str()) != 0) ADD_FAILURE() << cmd;
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

 private:
  std::string dir_;
};

// Query helper: the first column of every row, as text.
std::vector<std::string> Query(const std::string& db_path, const std::string& sql) {
  std::vector<std::string> rows;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << "cannot open " << db_path;
    sqlite3_close(db);
    return rows;
  }
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << sqlite3_errmsg(db) << ": " << sql;
  } else {
    while (sqlite3_step(st) == SQLITE_ROW) {
      const unsigned char* t = sqlite3_column_text(st, 0);
      rows.push_back(t ? reinterpret_cast<const char*>(t) : "NULL");
    }
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return rows;
}

std::string Meta(const std::string& db, const std::string& key) {
  auto rows = Query(db, "SELECT value FROM meta WHERE key = '" + key + "'");
  return rows.empty() ? "<absent>" : rows[0];
}

// The workload processes of every sample (packed into the samples row since schema version 3),
// read with gpuvet's reader; counts the processes for which `pred` holds.
template <typename Pred>
int CountProcesses(const std::string& path, Pred pred) {
  auto rec = gpuvet::ReadRecording(path);
  if (!rec.ok()) {
    ADD_FAILURE() << rec.status().message();
    return -1;
  }
  int n = 0;
  for (const gpuvet::Sample& s : rec->samples) {
    for (const gpuvet::ProcessSample& p : s.processes) n += pred(s, p) ? 1 : 0;
  }
  return n;
}

int Count(const std::string& db, const std::string& sql) {
  auto rows = Query(db, sql);
  return rows.empty() ? -1 : std::atoi(rows[0].c_str());
}

// Starts argv with stdout/stderr into files, optionally with a file-size limit (SIGXFSZ ignored,
// so writes fail with EFBIG as on a full disk). Returns the pid.
pid_t Launch(const std::vector<std::string>& argv, const std::string& out, const std::string& err,
             rlim_t fsize_limit = RLIM_INFINITY) {
  std::vector<std::string> env = Env();
  pid_t pid = fork();
  if (pid == 0) {
    int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(o, 1);
    dup2(e, 2);
    for (const std::string& kv : env) putenv(const_cast<char*>(kv.c_str()));
    if (fsize_limit != RLIM_INFINITY) {
      signal(SIGXFSZ, SIG_IGN);
      struct rlimit r = {fsize_limit, fsize_limit};
      setrlimit(RLIMIT_FSIZE, &r);
    }
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(99);
  }
  return pid;
}

int WaitExit(pid_t pid, int timeout_s = 60) {
  for (int i = 0; i < timeout_s * 100; ++i) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return -1;
}

std::string Slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(RecordTest, ReturnsTheWorkloadsExitCodeAndRecordsItsThreads) {
  Scratch dir;
  std::string rec = dir.Path("feeder.gpuvet");
  RunResult r = RunBinary(Record(rec, {"--", Workload("cpu_feeder"), "2", "3"}), Env());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("recording written to " + rec), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("step 1\n"), std::string::npos);  // output not captured: inherited
  EXPECT_EQ(Meta(rec, "exit_code"), "3");
  EXPECT_NE(Meta(rec, "end_unix_s"), "<absent>");
  EXPECT_NE(Meta(rec, "command").find("cpu_feeder"), std::string::npos);
  EXPECT_GE(Count(rec, "SELECT count(*) FROM samples"), 5);
  EXPECT_GT(Count(rec, "SELECT count(*) FROM samples WHERE length(gpus) > 0"), 0);
  // The workload's process, and its pegged "feeder" thread in the packed thread list.
  EXPECT_GT(CountProcesses(rec,
                           [](const gpuvet::Sample&, const gpuvet::ProcessSample& p) {
                             return p.comm.rfind("workload_cpu", 0) == 0 && p.cpu_pct > 0;
                           }),
            0);
  // Its busiest thread (first in the packed list) is the spinning "feeder", whatever share of a
  // core this machine's load leaves it.
  EXPECT_GT(CountProcesses(rec,
                           [](const gpuvet::Sample&, const gpuvet::ProcessSample& p) {
                             return !p.top_threads.empty() &&
                                    p.top_threads[0].comm.rfind("feeder", 0) == 0;
                           }),
            0);
}

TEST(RecordTest, ForwardsASignalAndReturnsTheWorkloadsCode) {
  Scratch dir;
  std::string rec = dir.Path("signal.gpuvet"), ready = dir.Path("ready");
  pid_t pid = Launch(Record(rec, {"--", Workload("signal_exit"), ready, "20"}), dir.Path("out"),
                     dir.Path("err"));
  for (int i = 0; i < 3000 && access(ready.c_str(), F_OK) != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(access(ready.c_str(), F_OK), 0) << Slurp(dir.Path("err"));
  kill(pid, SIGUSR1);  // sent to gpuvet only: it must pass it on
  EXPECT_EQ(WaitExit(pid), 100 + SIGUSR1) << Slurp(dir.Path("err"));
  EXPECT_EQ(Meta(rec, "exit_code"), std::to_string(100 + SIGUSR1));
}

TEST(RecordTest, AWorkloadKilledBySignalGives128PlusN) {
  Scratch dir;
  std::string rec = dir.Path("killed.gpuvet");
  RunResult r = RunBinary(Record(rec, {"--", "/bin/sh", "-c", "kill -KILL $$"}), Env());
  EXPECT_EQ(r.exit_code, 128 + SIGKILL) << r.err;
  EXPECT_EQ(Meta(rec, "exit_code"), std::to_string(128 + SIGKILL));
}

TEST(RecordTest, CountsWorkFromTheWorkloadsOutput) {
  Scratch dir;
  std::string rec = dir.Path("work.gpuvet");
  RunResult r = RunBinary(Record(rec, {"--work-regex", R"(step (\d+))", "--work-unit", "steps",
                                       "--", Workload("cpu_feeder"), "2"}),
                          Env());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("step 1\nstep 2\n"), std::string::npos) << "output passes through";
  EXPECT_EQ(Meta(rec, "work_unit"), "steps");
  auto last = Query(rec, "SELECT work_total FROM samples ORDER BY sample_id DESC LIMIT 1");
  ASSERT_EQ(last.size(), 1u);
  EXPECT_GE(std::atof(last[0].c_str()), 10) << "work_total " << last[0];
  EXPECT_EQ(Count(rec,
                  "SELECT count(*) FROM samples a JOIN samples b ON b.sample_id = "
                  "a.sample_id + 1 WHERE b.work_total < a.work_total"),
            0)
      << "the counter never goes back";
}

TEST(RecordTest, AttachesToARunningProcessTree) {
  Scratch dir;
  std::string rec = dir.Path("attach.gpuvet");
  pid_t worker = fork();
  if (worker == 0) {
    std::string w = Workload("no_gpu_worker");
    execl(w.c_str(), w.c_str(), "2", static_cast<char*>(nullptr));
    _exit(99);
  }
  RunResult r = RunBinary(Record(rec, {"--pid", std::to_string(worker)}), Env());
  int status = 0;
  waitpid(worker, &status, 0);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(r.seconds, 10);  // ended when the worker ended
  EXPECT_EQ(Meta(rec, "target_pid"), std::to_string(worker));
  EXPECT_EQ(Meta(rec, "exit_code"), "<absent>");
  EXPECT_EQ(Meta(rec, "command"), "[]");
  // Parent and forked child, both with their "worker" thread.
  EXPECT_GT(
      CountProcesses(rec, [](const gpuvet::Sample& s,
                             const gpuvet::ProcessSample&) { return s.processes.size() >= 2; }),
      0);
  EXPECT_GT(CountProcesses(rec,
                           [](const gpuvet::Sample&, const gpuvet::ProcessSample& p) {
                             for (const gpuvet::ThreadSample& t : p.top_threads) {
                               if (t.comm.find("worker") != std::string::npos) return true;
                             }
                             return false;
                           }),
            0);
}

TEST(RecordTest, RecordsStorageReadsOfAnIoBoundWorkload) {
  Scratch dir;
  std::string rec = dir.Path("io.gpuvet");
  RunResult r =
      RunBinary(Record(rec, {"--", Workload("odirect_reader"), dir.Path(""), "2"}), Env());
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_GT(CountProcesses(rec,
                           [](const gpuvet::Sample&, const gpuvet::ProcessSample& p) {
                             return p.rchar_per_s.value_or(0) > 1048576;
                           }),
            0)
      << r.out;
}

TEST(RecordTest, DurationAloneRecordsTheHost) {
  Scratch dir;
  std::string rec = dir.Path("host.gpuvet");
  RunResult r = RunBinary(Record(rec, {"--duration", "1s"}), Env());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GE(Count(rec, "SELECT count(*) FROM samples"), 3);
  EXPECT_EQ(
      CountProcesses(rec, [](const gpuvet::Sample&, const gpuvet::ProcessSample&) { return true; }),
      0);
  EXPECT_EQ(Meta(rec, "exit_code"), "<absent>");
  EXPECT_GT(Count(rec, "SELECT count(*) FROM gpus"), 0);
}

// The recording says who ran the job (docs/gpu-owners.md): with no --pid, gpuvet's own owner,
// which a spawned workload inherits; here the governor-quota tree, whose /proc/self/cgroup is
// /slurm/uid_1000/job_4242/step_0. The diagnosis header names it.
TEST(RecordTest, TheRecordingNamesTheJobsOwner) {
  Scratch dir;
  std::string rec = dir.Path("owner.gpuvet");
  RunResult r = RunBinary(Record(rec, {"--duration", "1s", "--root",
                                       std::string(GPUVET_FIXTURES_DIR) + "/governor-quota/root"}),
                          Env());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Count(rec, "SELECT count(*) FROM notes WHERE key = 'owner' AND value = 'job 4242'"), 1);
  EXPECT_EQ(Count(rec,
                  "SELECT count(*) FROM notes WHERE key = 'owner.slurm_job' AND value = "
                  "'4242'"),
            1);
  EXPECT_NE(r.out.find("  owner: job 4242\n"), std::string::npos) << r.out;
}

// A write error (EFBIG here, ENOSPC on a full disk) is reported once; the workload runs to its
// end undisturbed and its exit code is returned; the file keeps what was written.
TEST(RecordTest, AWriteErrorStopsOnlyTheRecording) {
  Scratch dir;
  std::string rec = dir.Path("full.gpuvet");
  pid_t pid = Launch(Record(rec, {"--interval", "100ms", "--", Workload("cpu_feeder"), "3", "4"}),
                     dir.Path("out"), dir.Path("err"), 300 * 1024);
  int code = WaitExit(pid);
  std::string err = Slurp(dir.Path("err"));
  EXPECT_EQ(code, 4) << err;
  std::string out = Slurp(dir.Path("out"));
  EXPECT_NE(err.find("recording stopped, the workload keeps running"), std::string::npos) << err;
  EXPECT_EQ(err.find("recording stopped"), err.rfind("recording stopped")) << "reported once";
  EXPECT_NE(err.find(rec), std::string::npos) << err;
  EXPECT_NE(out.find("step 10\nstep 11\n"), std::string::npos) << "the output keeps flowing";
  EXPECT_NE(out.find("feeder done\n"), std::string::npos) << "the workload ran to its end";
  EXPECT_GT(Count(rec, "SELECT count(*) FROM samples"), 0);
}

TEST(RecordTest, UsageErrors) {
  Scratch dir;
  std::string rec = dir.Path("x.gpuvet");
  EXPECT_EQ(RunBinary(Record(rec, {"--interval", "50ms", "--", "true"}), Env()).exit_code, 2);
  EXPECT_EQ(RunBinary(Record(rec, {}), Env()).exit_code, 2);
  EXPECT_EQ(RunBinary(Record(rec, {"--duration", "soon"}), Env()).exit_code, 2);
  // Without a workload to wrap, an output that cannot be created is a usage error.
  EXPECT_EQ(RunBinary(Record("/nonexistent-dir/x.gpuvet", {"--duration", "1s"}), Env()).exit_code,
            2);
  EXPECT_EQ(RunBinary(Record(rec, {"--", "/nonexistent/command"}), Env()).exit_code, 127);
  // The file exists now: replacing it needs --force.
  RunResult again = RunBinary(Record(rec, {"--", "true"}), Env());
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("already exists"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("--force"), std::string::npos) << again.err;
  EXPECT_EQ(RunBinary(Record(rec, {"--force", "--no-analyze", "--", "true"}), Env()).exit_code, 0);
  EXPECT_EQ(RunBinary(Record(rec, {"--pid", "999999999"}), Env()).exit_code, 2);
}

TEST(RecordTest, AnOutputThatCannotBeCreatedStillRunsTheWorkload) {
  RunResult r = RunBinary(
      Record("/nonexistent-dir/x.gpuvet", {"--", "/bin/sh", "-c", "echo ran; exit 7"}), Env());
  EXPECT_EQ(r.exit_code, 7) << "the workload's own exit code: " << r.err;
  EXPECT_NE(r.out.find("ran"), std::string::npos) << "a wrapper never stops the job it wraps";
  EXPECT_NE(r.err.find("the recording failed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/nonexistent-dir/x.gpuvet"), std::string::npos) << r.err;
}

TEST(RecordTest, AFullFileSystemAtTheStartStillRunsTheWorkload) {
  Scratch dir;
  std::string rec = dir.Path("full.gpuvet");
  // A file-size limit below one database page makes the recording's first write fail with
  // EFBIG, as a full disk would, while the short lines on stdout/stderr still fit.
  pid_t pid = Launch(Record(rec, {"--", "/bin/sh", "-c", "echo ran; exit 5"}), dir.Path("out"),
                     dir.Path("err"), 2048);
  EXPECT_EQ(WaitExit(pid), 5) << Slurp(dir.Path("err"));
  EXPECT_NE(Slurp(dir.Path("out")).find("ran"), std::string::npos);
  EXPECT_NE(Slurp(dir.Path("err")).find("the recording failed"), std::string::npos)
      << Slurp(dir.Path("err"));
}

TEST(RecordTest, RecordingsAreCreatedOwnerOnly) {
  Scratch dir;
  std::string rec = dir.Path("mode.gpuvet");
  ASSERT_EQ(RunBinary(Record(rec, {"--no-analyze", "--", "true"}), Env()).exit_code, 0);
  struct stat st = {};
  ASSERT_EQ(stat(rec.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(RecordTest, FollowsTheKernelLogAndStoresItsEvents) {
  Scratch dir;
  std::string rec = dir.Path("k.gpuvet"), log = dir.Path("kern.log");
  { std::ofstream(log) << "[ 1.0] nfs: server before not responding, still trying\n"; }
  std::string script = "sleep 0.5; echo '[ 2.0] nfs: server fs1 not responding, still trying' >> " +
                       log + "; sleep 0.6; echo '[ 3.0] nfs: server fs1 OK' >> " + log +
                       "; sleep 0.5";
  RunResult r = RunBinary(
      Record(rec, {"--kernel-log", log, "--no-analyze", "--", "/bin/sh", "-c", script}), Env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Query(rec, "SELECT kind || ' ' || subject FROM events ORDER BY t"),
            (std::vector<std::string>{"nfs_not_responding fs1", "nfs_ok fs1"}))
      << "only lines logged during the run";
  auto t = Query(rec, "SELECT t FROM events ORDER BY t");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_GT(std::atof(t[0].c_str()), 0.3);
  EXPECT_LT(std::atof(t[0].c_str()), 1.5);
  EXPECT_EQ(Meta(rec, "schema_version"), "3");
  // A kernel log that cannot be followed when asked for by name is a usage error.
  EXPECT_EQ(
      RunBinary(Record(dir.Path("x.gpuvet"), {"--kernel-log", dir.Path("none"), "--", "true"}),
                Env())
          .exit_code,
      2);
}

TEST(RecordTest, AGpuLostMidRunIsStoredAndReportedFirst) {
  Scratch dir;
  std::string rec = dir.Path("lost.gpuvet");
  RunResult r = RunBinary(Record(rec, {"--interval", "200ms", "--", "/bin/sh", "-c", "sleep 2"}),
                          {"GPUVET_FAKE_NVML_SCENARIO=" + std::string(GPUVET_SOURCE_DIR) +
                           "/tests/e2e/record/gpu-lost.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lost = Query(rec, "SELECT subject || ' ' || t FROM events WHERE kind = 'gpu_lost'");
  ASSERT_EQ(lost.size(), 1u) << r.out << r.err;
  EXPECT_EQ(lost[0].rfind("gpu1 ", 0), 0u) << lost[0];
  double t = std::atof(lost[0].substr(5).c_str());
  EXPECT_GT(t, 0.5);
  EXPECT_LT(t, 1.9);
  // The diagnosis printed at the end names the fault before the phases and in the decision.
  size_t faults = r.out.find("faults during the recording");
  ASSERT_NE(faults, std::string::npos) << r.out;
  EXPECT_LT(faults, r.out.find("phases")) << r.out;
  EXPECT_NE(r.out.find("what to do: First the node: gpu1 was lost"), std::string::npos) << r.out;
}

TEST(ImportTest, ImportsADmonLogThroughTheBinary) {
  Scratch dir;
  std::string rec = dir.Path("dmon.gpuvet");
  RunResult r = RunBinary(
      {GPUVET_BINARY, "import",
       std::string(GPUVET_SOURCE_DIR) + "/tests/data/smi-logs/dmon-pucvmet-dt.txt", "-o", rec},
      {});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("imported 4 samples of 1 GPU"), std::string::npos) << r.out;
  EXPECT_EQ(Count(rec, "SELECT count(*) FROM samples"), 4);
  EXPECT_NE(Meta(rec, "producer").find("nvidia-smi dmon"), std::string::npos);
  RunResult bad = RunBinary(
      {GPUVET_BINARY, "import", "--format", "query-csv",
       std::string(GPUVET_SOURCE_DIR) + "/tests/data/smi-logs/dmon-puc-2gpu.txt", "-o", rec},
      {});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("line "), std::string::npos) << bad.err;
}

// Issue 14: an A100 dmon log (-s puc -o DT) of a loader that delivers a batch every 5 s which the
// GPU consumes in 2 s. Before, analyze called it "idle, no host data" with no word of the cycle;
// now it names the cycle from GPU activity alone.
TEST(ImportTest, ADmonLogFedInBurstsNamesTheCycle) {
  Scratch dir;
  std::string rec = dir.Path("bursts.gpuvet");
  RunResult r = RunBinary(
      {GPUVET_BINARY, "import",
       std::string(GPUVET_SOURCE_DIR) + "/tests/data/smi-logs/dmon-a100-bursts.txt", "-o", rec},
      {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  RunResult a = RunBinary({GPUVET_BINARY, "analyze", rec, "--format", "json"}, {});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  nlohmann::json j = nlohmann::json::parse(a.out);
  EXPECT_EQ(j["verdict"]["label"], "periodic_stall") << a.out;
  EXPECT_EQ(j["verdict"]["detail"], "input_bursts") << a.out;
  std::string reason = j["verdict"]["reason"];
  EXPECT_NE(reason.find("input arrives in bursts every 5.0 s"), std::string::npos) << reason;
  EXPECT_NE(reason.find("40 % duty cycle"), std::string::npos) << reason;
  EXPECT_DOUBLE_EQ(j["feeding_cycle"]["period_s"].get<double>(), 5.0);
}

TEST(WatchTest, PlainLinesWhenNotATerminalAndCountStops) {
  std::vector<std::string> argv = {GPUVET_BINARY, "watch", "--nvml-lib", GPUVET_FAKE_NVML_LIB,
                                   "--interval",  "100ms", "--count",    "3"};
  RunResult r = RunBinary(argv, Env());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << "no escape codes on a pipe";
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 3) << r.out;
  EXPECT_EQ(r.out.rfind("t=", 0), 0u) << r.out;
  EXPECT_NE(r.out.find(" gpu7 util="), std::string::npos) << r.out;
  EXPECT_EQ(RunBinary({GPUVET_BINARY, "watch", "--interval", "10ms"}, Env()).exit_code, 2);
  EXPECT_EQ(RunBinary({GPUVET_BINARY, "watch", "--pid", "999999999"}, Env()).exit_code, 2);
}

// On a terminal: the alternate screen, redrawn in place, and the terminal restored on SIGINT.
TEST(WatchTest, RestoresTheTerminalOnSigint) {
  int master = -1;
  std::vector<std::string> env = Env();
  pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    for (const std::string& kv : env) putenv(const_cast<char*>(kv.c_str()));
    execl(GPUVET_BINARY, GPUVET_BINARY, "watch", "--nvml-lib", GPUVET_FAKE_NVML_LIB, "--interval",
          "100ms", static_cast<char*>(nullptr));
    _exit(99);
  }
  std::string screen;
  auto read_for = [&](int ms) {
    for (int i = 0; i < ms / 10; ++i) {
      pollfd p = {master, POLLIN, 0};
      if (poll(&p, 1, 10) > 0) {
        char buf[4096];
        ssize_t n = read(master, buf, sizeof(buf));
        if (n > 0) screen.append(buf, static_cast<size_t>(n));
        if (n <= 0) return;
      }
    }
  };
  for (int i = 0; i < 100 && screen.find("verdict:") == std::string::npos; ++i) read_for(100);
  EXPECT_NE(screen.find("\x1b[?1049h"), std::string::npos);
  EXPECT_NE(screen.find("\x1b[H"), std::string::npos);
  EXPECT_NE(screen.find("GPU"), std::string::npos);
  kill(pid, SIGINT);
  read_for(1000);
  EXPECT_EQ(WaitExit(pid), 0);
  EXPECT_NE(screen.rfind("\x1b[?25h\x1b[?1049l"), std::string::npos) << "terminal restored";
  close(master);
}

// `q` quits on a terminal, the screen and the terminal's mode (echo, line editing) come back, and
// the frame shows the PCIe link, health and history columns, in colour by default on a TTY.
TEST(WatchTest, QQuitsAndRestoresTheTerminalMode) {
  int master = -1;
  std::vector<std::string> env = Env();
  pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    for (const std::string& kv : env) putenv(const_cast<char*>(kv.c_str()));
    unsetenv("NO_COLOR");
    execl(GPUVET_BINARY, GPUVET_BINARY, "watch", "--nvml-lib", GPUVET_FAKE_NVML_LIB, "--interval",
          "100ms", static_cast<char*>(nullptr));
    _exit(99);
  }
  std::string screen;
  auto read_for = [&](int ms) {
    for (int i = 0; i < ms / 10; ++i) {
      pollfd p = {master, POLLIN, 0};
      if (poll(&p, 1, 10) > 0) {
        char buf[4096];
        ssize_t n = read(master, buf, sizeof(buf));
        if (n > 0) screen.append(buf, static_cast<size_t>(n));
        if (n <= 0) return;
      }
    }
  };
  // Two frames, so the history has two points.
  auto frames = [&screen] {
    int n = 0;
    for (size_t pos = 0; (pos = screen.find("verdict:", pos)) != std::string::npos; ++pos) ++n;
    return n;
  };
  for (int i = 0; i < 100 && frames() < 2; ++i) read_for(100);
  termios mode = {};
  ASSERT_EQ(tcgetattr(master, &mode), 0);
  EXPECT_EQ(mode.c_lflag & ECHO, 0u) << "watch reads single keys without echo";
  EXPECT_NE(screen.find("PCIe link"), std::string::npos);
  EXPECT_NE(screen.find("health"), std::string::npos);
  EXPECT_NE(screen.find("gpu0 util \u2581"), std::string::npos) << "a history line per GPU";
  EXPECT_NE(screen.find("(q quits)"), std::string::npos);
  ASSERT_EQ(write(master, "q", 1), 1);
  read_for(1000);
  EXPECT_EQ(WaitExit(pid), 0);
  EXPECT_NE(screen.rfind("\x1b[?25h\x1b[?1049l"), std::string::npos) << "terminal restored";
  ASSERT_EQ(tcgetattr(master, &mode), 0);
  EXPECT_NE(mode.c_lflag & ECHO, 0u) << "echo restored";
  EXPECT_NE(mode.c_lflag & ICANON, 0u) << "line editing restored";
  close(master);
}

// ---- the diagnosis `record` prints at the end, on real workloads (issue: record prints a correct
// verdict for a CPU-bound feeder, an I/O-bound reader and a job that never touches the GPU) ----

std::string Scenario(const std::string& name) {
  return std::string(GPUVET_SOURCE_DIR) + "/tests/e2e/record/" + name + ".json";
}

// Records `workload` under the scenario and returns the JSON diagnosis `record` printed last on
// stdout (the workload's own lines come before it).
nlohmann::json RecordVerdict(const std::string& scenario, std::vector<std::string> workload,
                             std::vector<std::string> flags = {}) {
  Scratch dir;
  std::vector<std::string> rest = {"--format", "json"};
  rest.insert(rest.end(), flags.begin(), flags.end());
  rest.push_back("--");
  rest.insert(rest.end(), workload.begin(), workload.end());
  RunResult r = RunBinary(Record(dir.Path("run.gpuvet"), rest),
                          {"GPUVET_FAKE_NVML_SCENARIO=" + Scenario(scenario)});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const size_t start = r.out.find("{\n");
  if (start == std::string::npos) {
    ADD_FAILURE() << "no JSON diagnosis on stdout:\n" << r.out << r.err;
    return nlohmann::json::object();
  }
  nlohmann::json j = nlohmann::json::parse(r.out.substr(start), nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out.substr(start);
  return j.is_discarded() ? nlohmann::json::object() : j;
}

std::string Label(const nlohmann::json& j) { return j.value("/verdict/label"_json_pointer, ""); }

TEST(RecordVerdictTest, ACpuBurningFeederIsHostCpuBound) {
  nlohmann::json j = RecordVerdict("gpu-waiting", {Workload("cpu_feeder"), "3"});
  EXPECT_EQ(Label(j), "host_cpu_bound") << j.dump(1);
}

TEST(RecordVerdictTest, AJobThatNeverOpensTheGpuIsCpuFallback) {
  nlohmann::json j = RecordVerdict("gpu-idle", {Workload("no_gpu_worker"), "3"});
  EXPECT_EQ(Label(j), "cpu_fallback") << j.dump(1);
}

TEST(RecordVerdictTest, AnODirectReaderIsHostIoBound) {
  Scratch data;
  nlohmann::json j = RecordVerdict("gpu-waiting", {Workload("odirect_reader"), data.Path(""), "3"});
  if (Label(j) != "host_io_bound") {
    // Storage that never makes a task wait (tmpfs, or a page cache that absorbs the reads when
    // O_DIRECT is refused) cannot show an I/O-bound job: say so instead of passing silently.
    double iowait = 0;
    for (const auto& p : j.value("phases", nlohmann::json::array())) {
      iowait = std::max(iowait, p.value("iowait_pct", 0.0));
    }
    if (iowait < 1) GTEST_SKIP() << "no I/O wait on this machine's storage: " << j.dump(1);
  }
  EXPECT_EQ(Label(j), "host_io_bound") << j.dump(1);
}

TEST(RecordVerdictTest, ThousandsOfSmallFilesAreMetadataBound) {
  Scratch data;
  nlohmann::json j =
      RecordVerdict("gpu-waiting", {Workload("small_files"), data.Path(""), "3", "1500"});
  EXPECT_EQ(Label(j), "host_io_bound") << j.dump(1);
  EXPECT_EQ(j.value("/verdict/detail"_json_pointer, ""), "small_files") << j.dump(1);
}

TEST(RecordVerdictTest, WorkPerJouleFromTheWorkloadsProgressAndTheEnergyCounter) {
  nlohmann::json j = RecordVerdict(
      "gpu-waiting", {Workload("cpu_feeder"), "3"},
      {"--work-regex", R"(step (\d+))", "--work-unit", "steps", "--price-per-gpu-hour", "2.5"});
  const nlohmann::json& e = j["energy"];
  ASSERT_TRUE(e.is_object()) << j.dump(1);
  EXPECT_EQ(e.value("work_unit", ""), "steps");
  // The fake counter rises 45 J per 500 ms (90 W) and the feeder prints ~10 steps a second, so
  // the run's work per kJ is about 10 / 0.09 = 111; the machine's load moves it a little.
  const double joules = e.value("joules", 0.0), work = e.value("work", 0.0);
  EXPECT_GT(joules, 100) << e.dump(1);
  EXPECT_GT(work, 10) << e.dump(1);
  EXPECT_NEAR(e.value("work_per_kj", 0.0), work / (joules / 1000), 0.5) << e.dump(1);
  EXPECT_GT(e.value("work_per_dollar", 0.0), 0) << e.dump(1);
  EXPECT_GT(e.value("starved_pct", 0.0), 90) << "12 % GPU-Util is starved the whole run";
}

}  // namespace
}  // namespace gpuvet::e2e
