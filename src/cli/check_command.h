// `gpuvet check`: read the sources, run the rules, render the report, return the exit code.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace gpuvet {

struct CheckFlags {
  std::string root;             // --root: host filesystem root ("" = live system)
  std::string kernel_log;       // --kernel-log FILE
  std::string env_file;         // --env-file FILE (environment to check GPU visibility in)
  std::string nvml_lib;         // --nvml-lib PATH (or GPUVET_NVML_LIB)
  int nvml_timeout_ms = 2000;   // --nvml-timeout-ms
  int timeout_s = 0;            // --timeout: overall NVML budget (0: 5 s per GPU, at least 10 s)
  std::string policy;           // --policy FILE
  std::string format = "text";  // --format text|json
  std::vector<std::string> only, skip;
  int pid = 0;                 // --pid
  std::string nvidia_smi_xml;  // --nvidia-smi-xml FILE
  std::string nvidia_smi_q;    // --nvidia-smi-q FILE (plain `nvidia-smi -q` text)
  std::string now;             // --now (ISO timestamp, for reproducible output)
  std::string color = "auto";  // --color auto|always|never
  bool verbose = false;
  std::string textfile;  // --textfile PATH: also write gpuvet_check_status for node_exporter
  std::string html;      // --html PATH: also write the report as an HTML page
};

// Registers the `check` subcommand on `app`; the callback stores its exit code in *exit_code.
void AddCheckCommand(CLI::App& app, int* exit_code);

// Runs a check with already-parsed flags.
int RunCheck(const CheckFlags& flags);

}  // namespace gpuvet
