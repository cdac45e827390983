// The catalogue table. Keep it sorted by id (a test checks). Thresholds quoted in the text are the
// built-in policy defaults; the policy file can change them (docs/policy.md). The `trace.<label>`
// findings that restate a bottleneck label are not written here: they are generated from the
// label's row of core/bottleneck (TraceFindingId), so `gpuvet explain X` and `gpuvet explain
// trace.X` give one answer.
#include "core/catalogue.h"

#include <algorithm>
#include <vector>

#include "core/bottleneck.h"

namespace gpuvet {

namespace {

constexpr CatalogueEntry kCatalogue[] = {
    {"bench.compute", "bench", "Compute throughput",
     "Measured FP32 or tensor throughput is well below what this GPU model delivers: clocks are "
     "capped (power limit, thermal, application clocks) or the GPU is shared.",
     "Check throttling and power limits (`gpuvet check --only throttle,power,clocks`), make sure "
     "nothing else runs on the GPU, and compare with the fleet."},
    {"bench.copy_bandwidth", "bench", "Host-device copy bandwidth",
     "Pinned host-device copies reach well below what the PCIe link should carry: the link is "
     "narrow or slow, the host memory or socket is the bottleneck, or something else shares the "
     "link.",
     "Check the link under load (bench.pcie_under_load, pcie.* in `gpuvet check`), the NUMA "
     "placement (bench.numa_penalty), and other traffic on the same switch."},
    {"bench.driver", "bench", "CUDA driver usable for benchmarks",
     "The CUDA driver could not be loaded or found no device, so no benchmark ran.",
     "Install or fix the NVIDIA driver (libcuda.so.1) and run `gpuvet check` for the reason."},
    {"bench.gpu_error", "bench", "GPU failed during the benchmark",
     "A benchmark hit a CUDA error or wrong data on this GPU (illegal address, ECC error, launch "
     "failure, a GPU that stopped answering): the GPU or its driver is broken, not slow.",
     "Drain the node; run `gpuvet check` for Xid and ECC errors and read the kernel log; reset the "
     "GPU (or reboot) and bench again; replace the GPU if it fails again."},
    {"bench.launch_overhead", "bench", "Kernel launch overhead",
     "Launching an empty kernel takes longer than usual on this node: every small kernel of a "
     "job pays it, and launch-bound jobs slow down in proportion.",
     "Check CPU frequency governor and C-states (`gpuvet check --only cpu`), CPU contention, and "
     "the driver version; capture hot loops in CUDA graphs."},
    {"bench.memory_bandwidth", "bench", "Device memory bandwidth",
     "Device-to-device copy bandwidth is well below what this GPU's memory delivers: memory "
     "clocks are reduced or the GPU is degraded.",
     "Check memory clock and throttling; reset the GPU; if the figure stays low, drain it for "
     "hardware inspection."},
    {"bench.nccl", "bench", "NCCL all-reduce bus bandwidth",
     "Single-node all-reduce bus bandwidth is below what the GPUs' interconnect should give: "
     "NVLink/NVSwitch trouble, P2P disabled, or traffic forced through the host.",
     "Check NVLink state (nvlink.* in `gpuvet check`), fabric manager, ACS/IOMMU settings that "
     "block P2P, and NCCL_P2P_* environment variables."},
    {"bench.numa_penalty", "bench", "Cost of the wrong NUMA node",
     "Copies driven from a CPU socket remote to the GPU are markedly slower: jobs placed on the "
     "wrong socket lose that bandwidth on every transfer.",
     "Bind data loaders and copy threads to the GPU's NUMA node (numa.process_affinity in "
     "`gpuvet check`; Slurm --cpu-bind, numactl, Kubernetes topology manager)."},
    {"bench.p2p_bandwidth", "bench", "GPU peer-to-peer bandwidth",
     "Peer-to-peer copies between two GPUs are unsupported or far slower than their link allows.",
     "Check NVLink state, PCIe ACS settings and IOMMU passthrough; a pair slower than its "
     "siblings points at one link or switch."},
    {"bench.pageable_copies", "bench", "Pageable vs pinned copies",
     "Copies from pageable host memory reach a small share of pinned bandwidth: jobs that do not "
     "pin their buffers pay that on every batch.",
     "Pin host buffers in the job (DataLoader(pin_memory=True), cudaHostAlloc) and copy with "
     "non_blocking=True."},
    {"bench.pcie_under_load", "bench", "PCIe generation under load",
     "While a copy kept the link busy, it still ran below its maximum generation: this is a real "
     "downgrade, not idle power saving.",
     "Drain the node; reseat the GPU and riser and check the slot's PCIe speed setting in the "
     "BIOS."},
    {"bench.regression", "bench", "Regression against a baseline",
     "A figure dropped well below the same node's earlier baseline run (--baseline).",
     "Compare the two runs' settings (driver, clocks, power limit, topology); a drop with "
     "unchanged settings points at degrading hardware."},
    {"cgroup.cpu_quota", "cgroup", "CPU quota per visible GPU",
     "The cgroup this process runs in (the job's container or Slurm step) may use fewer CPU cores "
     "per GPU than the policy minimum. Input pipelines, tokenisers and launch threads are then "
     "throttled by the kernel scheduler and the GPU waits, even though the host looks idle.",
     "Raise the container/job CPU limit (Kubernetes resources.limits.cpu, Slurm --cpus-per-gpu) to "
     "at least the policy minimum per GPU, or lower the data-loader worker count to fit."},
    {"cgroup.memory_limit", "cgroup", "cgroup memory limit",
     "The cgroup memory limit is small relative to the host; pinned host buffers and data-loader "
     "workers count against it and the OOM killer ends the job without a GPU error.",
     "Raise the memory limit of the job or container, or reduce loader workers and prefetch "
     "depth."},
    {"clocks.sm_below_max", "clocks", "SM clock while busy",
     "The GPU is busy but its SM clock is well below the maximum and no throttle reason explains "
     "it: application clocks or a locked clock may be set lower than the part allows.",
     "Inspect `nvidia-smi -q -d CLOCK`; reset application clocks (`nvidia-smi -rac`) or unlock "
     "clocks (`nvidia-smi -rgc`) unless the lower clock is deliberate."},
    {"container.device_cgroup", "container", "GPU device nodes allowed by the device cgroup",
     "A /dev/nvidia* node exists but the device cgroup of this process does not let it be "
     "opened (cgroup v1 devices.list has no rule for it, or open() fails with EPERM, the device "
     "cgroup's refusal; wrong file modes give EACCES instead). CUDA and NVML fail with 'Unknown "
     "Error' or find no GPU although the nodes are there. The usual cause is a `systemctl "
     "daemon-reload` on the host: systemd re-applies the container's cgroup from its own unit and "
     "drops the GPU rules the NVIDIA runtime added (runc needs /dev/char links to re-add them).",
     "Fix it on the node, not in the application: recreate the container or pod to get the "
     "devices back now; for good, let the NVIDIA Container Toolkit create the /dev/char symlinks "
     "(`nvidia-ctk system create-dev-char-symlinks --create-all`, or the udev rule it installs), "
     "or switch Docker to the cgroupfs driver (`exec-opts: native.cgroupdriver=cgroupfs`), or "
     "run with a toolkit and runtime version that pass the devices with CDI (`nvidia-ctk cdi "
     "generate`)."},
    {"container.nvml_unknown_error", "container", "NVML starts inside the container",
     "NVML fails to initialise with 'Unknown Error' (NVML_ERROR_UNKNOWN, 999) inside a "
     "container: the known failure where the container loses access to its GPUs after the host "
     "runs `systemctl daemon-reload` (systemd cgroup driver), or its device nodes were never "
     "allowed. Nothing in the application or the image causes or fixes this.",
     "Recreate the container (restart the pod) to restore the GPUs now. On the node, fix the "
     "cause: configure the NVIDIA Container Toolkit so device access survives reloads (`nvidia-ctk "
     "system create-dev-char-symlinks --create-all`; CDI mode with `nvidia-ctk cdi generate`), or "
     "use the cgroupfs cgroup driver for Docker/containerd; avoid daemon-reloads on busy GPU "
     "nodes until then."},
    {"container.runtime", "container", "Running inside a container",
     "gpuvet (or the process it inspects) runs inside a container: host-level facts (kernel log, "
     "cgroup limits, device nodes) are those the container sees, and GPU access depends on the "
     "container runtime passing the devices and driver libraries in.",
     "Nothing to fix by itself. Read the other container.* findings; run `gpuvet check` on the "
     "host as well to see what the container cannot."},
    {"container.visible_devices", "container", "GPU visibility variables",
     "NVIDIA_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES hides every GPU (empty, `void`, `none`, "
     "-1) or names GPUs this node or container does not have (an index past the last GPU, an "
     "unknown UUID). CUDA then finds no device or stops at the first bad entry, and the job "
     "fails or runs on the CPU.",
     "Fix the launcher or the scheduler's GPU assignment, not the application: indices count "
     "from 0 among the GPUs the container sees; UUIDs come from `nvidia-smi -L` on this node. "
     "For containers, request GPUs through the runtime (`--gpus`, Kubernetes nvidia.com/gpu "
     "resources) instead of setting NVIDIA_VISIBLE_DEVICES by hand."},
    {"cpu.governor", "cpu", "CPU frequency governor",
     "Cores use a frequency governor other than `performance`. Ramp-up latency slows the short, "
     "bursty host work that feeds a GPU (kernel launches, decode, collation).",
     "Set the governor to performance (`cpupower frequency-set -g performance` or the tuned/BIOS "
     "profile for throughput) on GPU nodes."},
    {"device.nodes", "device", "GPU device nodes and access",
     "A /dev/nvidia* node the driver needs is missing or not accessible to this user: CUDA fails "
     "to "
     "initialise or silently falls back to the CPU.",
     "Load nvidia-uvm (`nvidia-modprobe -u -c=0`), fix node permissions/udev rules, or, in a "
     "container, make sure the runtime passed the devices through."},
    {"driver.cuda_version_allowed", "driver", "CUDA driver version in the allowed set",
     "The CUDA version the driver supports is outside the set the policy allows: applications "
     "built "
     "for a newer CUDA fail to start, and the node drifts from its peers.",
     "Install the approved driver branch, or add the version to the policy after validating it."},
    {"driver.gpus_visible", "driver", "GPUs visible to the driver",
     "The driver sees fewer GPUs than there are NVIDIA GPU functions on the PCI bus, or none: a "
     "GPU "
     "fell off the bus, failed to initialise, or is hidden.",
     "Check the kernel log for Xid 79 or initialisation errors. A GPU missing from the driver "
     "needs "
     "a node reboot; if it stays missing, drain the node for hardware inspection."},
    {"driver.loaded", "driver", "NVIDIA driver and NVML",
     "The NVIDIA driver or its management library could not be used, so no GPU check could run.",
     "Install or load the NVIDIA driver (`modprobe nvidia`), make libnvidia-ml.so.1 visible to the "
     "loader, and look at the kernel log for why the module did not load."},
    {"driver.version_allowed", "driver", "Driver version in the allowed set",
     "The driver version is not one the policy allows: the node has drifted from the fleet's "
     "validated stack.",
     "Reinstall the approved driver version, or extend the policy once the version is validated."},
    {"driver.version_mismatch", "driver", "Kernel module vs NVML library version",
     "The loaded kernel module and the user-space NVML library come from different driver "
     "versions, usually after a driver upgrade without a reboot. CUDA calls fail with "
     "'driver/library version mismatch'.",
     "Reboot the node (or unload and reload the nvidia modules) so the module matches the "
     "installed libraries; drain it until then."},
    {"ecc.aggregate_dbe", "ecc", "Lifetime uncorrectable ECC errors",
     "The GPU has had uncorrectable (double-bit) memory errors over its lifetime. Each one killed "
     "whatever was running; a growing count marks failing memory.",
     "Watch the trend; with retired pages or remapped rows also rising, plan an RMA."},
    {"ecc.mode", "ecc", "ECC mode",
     "ECC is disabled on a GPU that supports it, or a mode change is pending until the next reset. "
     "Without ECC, memory faults corrupt results silently.",
     "Enable ECC (`nvidia-smi -e 1`) and reset the GPU or reboot to apply a pending change."},
    {"ecc.repair_pending", "ecc", "Memory repairs applied",
     "The driver (570 and later) found memory it can repair by remapping a channel or a TPC, and "
     "the repair takes effect at the next GPU reset (nvidia-smi: Channel / TPC Repair Pending: "
     "Yes). The GPU keeps working until then.",
     "Reset the GPU at a convenient time (`nvidia-smi -r -i <PCI address>` with no processes on "
     "it, or at the next reboot) to apply the repair; not a reason to drain."},
    {"ecc.retired_pages", "ecc", "Retired memory pages",
     "The GPU retired memory pages because of ECC errors (pre-Ampere page retirement). At the "
     "retirement limit the part can no longer protect itself.",
     "Above the limit, or with retirements pending, drain the GPU: reset it to apply pending "
     "retirements and open an RMA if the count keeps rising."},
    {"ecc.row_remap", "ecc", "Memory row remapping",
     "Row remapping (Ampere and newer) replaced faulty memory rows. A pending remap needs a GPU "
     "reset to take effect; a remap failure means the spare rows ran out.",
     "Pending: drain and reset the GPU. Failure, or uncorrectable remaps over the limit: take the "
     "GPU out of service and open an RMA."},
    {"ecc.sram_threshold", "ecc", "SRAM uncorrectable errors below threshold",
     "Uncorrectable errors in the GPU's on-chip SRAM passed the threshold the driver (570 and "
     "later) keeps for them (nvidia-smi: SRAM Threshold Exceeded: Yes): the part is failing.",
     "Drain the GPU and open an RMA with NVIDIA or the system vendor, attaching "
     "`nvidia-bug-report.sh`; a reset does not clear this."},
    {"ecc.unrepairable_memory", "ecc", "GPU memory repairable",
     "The driver (570 and later) reports memory it can no longer repair (nvidia-smi: "
     "Unrepairable Memory: Yes): its row-remapping or channel/TPC repair resources are used up "
     "where errors keep coming.",
     "Drain the GPU and open an RMA with NVIDIA or the system vendor, attaching "
     "`nvidia-bug-report.sh`."},
    {"ecc.volatile_dbe", "ecc", "Uncorrectable ECC errors since last reset",
     "An uncorrectable memory error occurred since the driver loaded. The process using that "
     "memory was killed and results computed around it cannot be trusted.",
     "Drain the node, reset the GPU (or reboot) and check whether rows were remapped or pages "
     "retired; repeat offenders go to RMA."},
    {"ecc.volatile_sbe", "ecc", "Corrected ECC errors since last reset",
     "Corrected (single-bit) memory errors are normal in small numbers; a high count since the "
     "last "
     "reset points to degrading memory.",
     "Track the rate; if it keeps climbing or rows are being remapped, schedule a reset and "
     "inspection."},
    {"gpu.count_expected", "gpu", "Expected GPU count",
     "The node has a different number of GPUs than the policy expects for it: a card is missing, "
     "fell off the bus, or the node is not the model it is thought to be.",
     "Drain the node and check the kernel log and `lspci` for the missing GPU; reseat or replace "
     "it."},
    {"gpu.error_value", "gpu", "nvidia-smi values readable",
     "In a capture, nvidia-smi printed its own error text (\"Unknown Error\", ...) in place of "
     "some values of this GPU: the driver failed to answer those queries. A few fields (the "
     "addressing mode of consumer boards, the host's maximum link generation) read so on sound "
     "GPUs and are info.",
     "Rerun `nvidia-smi -q` on the node; if the fields still read \"Unknown Error\", read the "
     "kernel log for Xid lines and reset the GPU at a convenient time."},
    {"gpu.lost", "gpu", "GPU reachable",
     "The driver reports the GPU as lost (it stopped responding on the bus). Nothing can run on it "
     "until the node is reset.",
     "Drain the node and reboot it. A GPU that is lost again after a reboot needs hardware "
     "inspection (power, riser, seating)."},
    {"gpu.query_failed", "gpu", "GPU queries answered",
     "A management query to the GPU failed or did not return in time. A hung query often means the "
     "GPU or driver is wedged; the affected checks could not be evaluated.",
     "Rerun the check; if the same call hangs again, drain the node and collect "
     "`nvidia-bug-report.sh`."},
    {"gpu.recovery_action", "gpu", "No recovery action pending",
     "The driver (570 and later) asks for a recovery action on this GPU (nvidia-smi: GPU "
     "Recovery Action; NVML field GPU_RECOVERY_ACTION): Reset, Drain and Reset, Node Reboot "
     "Required or Drain P2P. Until it is done the GPU does not run work correctly.",
     "Do what the driver asks, named in the finding: reset the GPU, drain and then reset it, or "
     "drain and reboot the node; then check again."},
    {"gpu.reset_required", "gpu", "GPU usable without a reset",
     "The driver answers NVML_ERROR_RESET_REQUIRED for this GPU (nvidia-smi shows \"GPU requires "
     "reset\"): an earlier fault (an uncorrectable ECC error, a contained error, a recovery the "
     "driver could not finish) left it unusable until it is reset. Jobs on it fail.",
     "Drain the node; stop the processes on the GPU and reset it (`nvidia-smi -r -i <PCI "
     "address>`), or reboot the node; then run `gpuvet check` again. If it needs a reset again "
     "soon, read the Xid lines and ECC counters and plan an RMA."},
    {"gpu.unresponsive", "gpu", "GPU answers its driver",
     "The NVIDIA management library did not answer: a call on this GPU hung past "
     "--nvml-timeout-ms, nvmlInit or the device enumeration hung, every call on the GPU failed "
     "(UNKNOWN) without one answer, the driver counts the GPU but could not open it (nvidia-smi: "
     "\"Unable to determine the device handle for GPU…: Unknown Error\"), or `check --timeout` "
     "ran out before it answered. A GPU that "
     "does not answer its driver is not healthy: CUDA programs on it usually hang the same way. "
     "(A call the GPU does not support is a skip, never this.)",
     "Drain the node; capture `nvidia-bug-report.sh` and the kernel log (Xid lines) while it is "
     "wedged; reset the GPU (`nvidia-smi -r -i N`, with no processes on it) or reboot, then run "
     "`gpuvet check` again. A policy can report this as unknown instead: `\"gpu.unresponsive\" = "
     "\"unknown\"` under [severity]."},
    {"host.virtual_machine", "host", "Virtual machine",
     "The host is a virtual machine (the CPU's hypervisor flag, the DMI vendor, or a virtual PCIe "
     "port above a GPU says so). The GPUs are passed through by a hypervisor: their PCIe ports "
     "and slots are the hypervisor's model, and a link fault is fixed on the physical host, not "
     "by reseating anything from here.",
     "Nothing to fix by itself. For PCIe, NVLink or GPU hardware findings, stop and start the "
     "instance (it moves to other hardware) or report them to the provider; on your own "
     "hypervisor run `gpuvet check` on the host."},
    {"ib.gpu_nic_affinity", "ib", "GPU's nearest RDMA NIC on its own NUMA node",
     "The RDMA device closest to this GPU over PCIe (the `nvidia-smi topo -m` relation, read from "
     "the sysfs device paths) sits on the other CPU socket (SYS). GPUDirect RDMA between them "
     "crosses the inter-socket link: on current two-socket servers that costs a large share of "
     "the NIC's bandwidth and adds latency to every all-reduce step, and NCCL may fall back to "
     "staging through host memory.",
     "Run the GPU's ranks with a NIC of the same NUMA node: set `NCCL_IB_HCA` (or use the "
     "topology file of the platform) so each GPU uses its local HCA, and bind the rank's CPUs and "
     "memory to that node (`numactl`, Slurm `--gpu-bind`/`--cpu-bind`). If no NIC shares the "
     "node, move the card to a slot on that socket; confirm with `nvidia-smi topo -m` and an "
     "`ib_write_bw --use_cuda` run."},
    {"ib.port_errors", "ib", "InfiniBand/RoCE port error counters",
     "A port's error counters since the driver loaded exceed their budget (policy "
     "`ib_*_max`, the infiniband-diags `ibcheckerrs` defaults): symbol errors and link recoveries "
     "mean bit errors on a marginal cable, transceiver or port; link downs mean the link dropped "
     "and retrained (jobs on it stall or fail); receive errors and discards mean packets were lost "
     "or dropped for congestion. NCCL retransmits, so the job slows before it fails.",
     "Watch whether the counter still grows (`perfquery` or a second `gpuvet check`); if it does, "
     "reseat or replace the cable or transceiver on this port and the switch side "
     "(`ibdiagnet` names the peer port), then clear the counters (`perfquery -R`). Discards alone "
     "point at fabric congestion: check the switch's counters and the adaptive routing setup."},
    {"ib.port_rate", "ib", "InfiniBand/RoCE port rate and width",
     "An active port trained below the width its peers run (for example 2X of 4X: half its "
     "bandwidth), below the policy's `ib_min_rate_gbps`, or at a lower speed than the node's other "
     "ports of the same HCA type at the same width. Multi-node collectives run at the pace of the "
     "slowest rail, so one slow port slows every rank's all-reduce.",
     "Reseat or replace the cable or transceiver, check the switch port's configuration and its "
     "error counters (`ibstat`, `ibportstate`, `mlxlink -d DEV` show the trained and supported "
     "widths and speeds); the port retrains when the link is reset (`ibportstate ... reset`, or a "
     "cable reseat)."},
    {"ib.port_state", "ib", "InfiniBand/RoCE ports up",
     "An RDMA port is not ACTIVE with its physical link up: DOWN (no cable, a dead transceiver, "
     "the switch port disabled) while the same port of its peers is up, or INIT/ARMED with the "
     "link up (InfiniBand: no subnet manager activated it). Traffic meant for this rail is missing "
     "or moves to the others, and NCCL jobs that list this HCA fail to start or run slower.",
     "Check the cable and the switch port (`ibstat`, `iblinkinfo`, the switch's port state); for "
     "INIT/ARMED check that a subnet manager runs (`sminfo`) and sees this port. Drain the node "
     "from multi-node jobs until the port is ACTIVE."},
    {"kernel.comm_lib_segfault", "kernel", "Crashes inside GPU communication libraries",
     "A process crashed (segfault, general protection fault) inside NCCL, the CUDA driver, an "
     "NVIDIA library, UCX, libfabric/EFA or the verbs stack. Common causes: mismatched NCCL and "
     "network-plugin versions, an RDMA stack that does not match the driver, or corrupted memory "
     "handed to a collective.",
     "Compare NCCL, its net plugin (aws-ofi-nccl, nccl-rdma-sharp) and the CUDA/driver versions "
     "with a known-good node; rerun with NCCL_DEBUG=INFO. The same library crashing in many jobs "
     "on one node only points at that node's installed stack."},
    {"kernel.cpu_stall", "kernel", "CPU soft lockups, hard lockups and RCU stalls",
     "The kernel's watchdogs saw a CPU stuck in the kernel for tens of seconds (soft lockup), a "
     "CPU that stopped taking interrupts (hard lockup) or RCU grace periods that did not end (RCU "
     "stall). Every job on that CPU stalls meanwhile; common causes are a driver spinning with "
     "interrupts off (GPU, NIC, storage), firmware (SMIs) or an overloaded, swapping host.",
     "Read the stack trace after the message to see which driver or task held the CPU; update "
     "that driver or firmware. A hard lockup leaves the kernel in doubt: drain the node and "
     "reboot. Repeated soft lockups under GPU jobs point at the NVIDIA driver or the IOMMU "
     "configuration."},
    {"kernel.crash", "kernel", "Kernel panics, Oopses and BUGs",
     "The kernel crashed or hit a BUG: `Kernel panic - not syncing`, `Oops:` or `BUG:` lines, "
     "live or in a pstore/ERST dump the firmware kept from an earlier boot. After an Oops the "
     "running kernel is in doubt; a panic took the node down. A crash provoked on purpose (SysRq "
     "'c', a crash-test module, LKDTM) is a kdump or pstore test, not a fault (info).",
     "Drain the node and read the whole report (the RIP and call trace name the driver); update "
     "or remove that driver, check memory (EDAC, kernel.edac_memory) and reboot before the node "
     "takes work again. Clear old pstore records after reading them."},
    {"kernel.driver_mismatch", "kernel", "NVIDIA driver parts of one version",
     "The kernel log says the NVIDIA kernel module and a user-space part differ in version "
     "(\"NVRM: API mismatch: the client has the version X, but this kernel module has the version "
     "Y\", or an nvidia-modeset / nvidia-drm version mismatch): NVML, nvidia-smi and CUDA fail "
     "with \"Driver/library version mismatch\" until they agree. Usually a driver upgrade "
     "without a reboot (or a container carrying its own driver libraries).",
     "Drain the node and reboot it so the new kernel module loads (or reinstall the driver the "
     "kernel module belongs to); in containers, do not ship driver libraries in the image."},
    {"kernel.edac_memory", "kernel", "Host memory (EDAC) errors",
     "The EDAC driver logged memory errors on a memory controller: corrected errors (CE) were "
     "fixed by ECC; uncorrectable ones (UE) corrupted data or killed processes. A stream of "
     "corrected errors on one DIMM means it is wearing out.",
     "For uncorrectable errors drain the node and replace the DIMM the message names (check "
     "`edac-util -v`, the BMC's SEL); for 10 or more corrected errors plan the replacement and "
     "watch the rate."},
    {"kernel.gpu_init_failed", "kernel", "NVIDIA GPUs initialised",
     "The driver could not initialise a GPU (\"NVRM: … RmInitAdapter failed\", "
     "\"rm_init_adapter failed\", or \"The NVIDIA probe routine failed\"): that GPU is missing "
     "from NVML and nvidia-smi. Causes: the GPU fell off the bus or lacks power, a firmware (GSP) "
     "fault, or a driver that does not support it.",
     "Drain the node; read the lines around it (Xid, AER, GSP errors) and reboot. If the GPU "
     "fails to initialise again, check its power and seating, then RMA."},
    {"kernel.hung_task", "kernel", "Tasks blocked in the kernel",
     "The kernel's hung-task detector saw tasks stuck in uninterruptible sleep (D state) for "
     "more than its timeout (120 s by default): usually waiting on storage or a network "
     "filesystem. Jobs stall for that long, often at checkpoints or data loading.",
     "Look at what the tasks wait on (the stack after the message, `cat /proc/PID/stack`) and at "
     "the storage: NFS/Lustre server health, kernel.nfs_not_responding and kernel.io_error "
     "findings, disk latency. "
     "Stage data locally or checkpoint asynchronously if the filesystem is the bottleneck."},
    {"kernel.io_error", "kernel", "Block and filesystem I/O errors",
     "The kernel logged I/O errors on a block device or filesystem (blk_update_request / Buffer "
     "I/O errors, EXT4-fs or XFS errors, NVMe timeouts and controller resets). Reads and writes "
     "failed or were retried: checkpoints and datasets may be corrupt, and a filesystem may have "
     "gone read-only.",
     "Check the device (`smartctl -a`, `nvme smart-log`), the filesystem (fsck when unmounted) and "
     "the cabling or controller; drain the node if a local scratch or root disk is failing."},
    {"kernel.log_access", "kernel", "Kernel log readable",
     "The kernel log could not be read, so Xid, AER and other driver events were not checked.",
     "Run as root (or with CAP_SYSLOG / kernel.dmesg_restrict=0), or pass a saved log with "
     "--kernel-log FILE."},
    {"kernel.nfs_not_responding", "kernel", "NFS server answering",
     "An NFS server stopped answering this client (`nfs: server X not responding`). Every "
     "process reading or writing that mount blocks until it comes back: the job pauses, "
     "typically at checkpoints, and GPUs idle meanwhile. An outage without a following `OK` "
     "line may still be going on.",
     "Check the NFS server's load and the network path to it (drops, MTU, bonding); move "
     "checkpoints and hot datasets to local NVMe or a parallel filesystem, and write checkpoints "
     "asynchronously."},
    {"kernel.nic_slot_power", "kernel", "NICs short of PCIe slot power",
     "A Mellanox/NVIDIA ConnectX NIC reported `Detected insufficient power on the PCIe slot`: the "
     "slot advertises less power than the card needs (or advertises none). Some firmware then "
     "throttles the NIC (reports of ConnectX-7 capped near 13 Gb/s); on many servers the message "
     "is benign because the BIOS under-reports slot power.",
     "Confirm before acting: `lspci -vv -s ADDR | grep -i SlotPowerLimit` and an RDMA bandwidth "
     "test (`ib_write_bw`) against a known-good node. If the NIC is slow, fix the slot power "
     "setting in the BIOS, move the card to a slot that supplies its power, or update the NIC "
     "firmware."},
    {"kernel.nvlink_training", "kernel", "NVLink links that failed to train",
     "The driver logged NVLink links that did not come up at initialisation (link training or "
     "receiver detection failed, e.g. `postRxDetLinkMask failed`). Peer-to-peer traffic over "
     "those links falls back to PCIe or fails, and on NVSwitch systems the GPU may not join the "
     "fabric.",
     "Drain the node; check `nvidia-smi nvlink -s` and the fabric-manager log, reset the GPUs "
     "(and NVSwitches) or reboot; if the same links fail again, inspect the NVLink cables, "
     "bridges or baseboard."},
    {"kernel.nvswitch_sxid", "kernel", "NVSwitch SXid errors",
     "An NVSwitch logged SXid errors (the switch's counterpart of Xid). Fatal SXids stop the "
     "switch's links and the GPUs' NVLink traffic across it; non-fatal ones were corrected but "
     "mean a degrading link or switch.",
     "For fatal SXids drain the node and reset the fabric (restart nvidia-fabricmanager, reset "
     "the GPUs and switches, or reboot); repeated SXids on the same switch or link need hardware "
     "inspection. Non-fatal ones: watch the rate and the link's error counters."},
    {"kernel.oom_kill", "kernel", "Processes ended by the OOM killer",
     "The kernel's out-of-memory killer ended a process, either because its cgroup (container, "
     "Slurm job) hit its memory limit or because the host ran out of memory. A killed training "
     "process shows up as a vanished rank or a collective timeout, not as a GPU error.",
     "For a cgroup kill raise the job's memory limit or lower data-loader workers, prefetch and "
     "pinned-memory pools; for a host-wide kill find the consumers and keep headroom for the "
     "page cache. Check memory.* and cgroup.memory_limit findings."},
    {"kernel.pcie_aer", "kernel", "PCIe AER reports in the kernel log",
     "The PCIe Advanced Error Reporting driver logged errors on a device (`AER: Corrected / "
     "Uncorrected (Non-Fatal) / Uncorrected (Fatal) error received`). Corrected errors cost "
     "retries; uncorrected ones lose transactions and usually take the GPU (Xid 79) or NIC "
     "down with them.",
     "Correlate with pcie.* and xid.* findings for the same GPU or bridge. Reseat or replace the "
     "riser, cable or card; fatal errors need at least a reboot and, when repeated, hardware "
     "inspection."},
    {"kernel.peermem_error", "kernel", "GPUDirect RDMA (peermem) errors",
     "The nvidia-peermem (or older nv_peer_mem) module that lets the NIC read and write GPU "
     "memory directly logged errors, e.g. `nv_get_p2p_free_callback … detected invalid "
     "context`: GPU memory registered with the NIC was freed or invalidated under it. Repeated, "
     "it means GPUDirect RDMA transfers fail or fall back to slower paths.",
     "Check that nvidia-peermem matches the installed driver and the MLNX_OFED/inbox RDMA stack "
     "(reload it after driver upgrades), and update NCCL/UCX; if it repeats on one node only, "
     "drain and reboot it."},
    {"memory.available", "memory", "Available host memory",
     "Little host memory is available. Pinned buffers, loader workers and page cache compete; the "
     "job swaps, stalls on reclaim, or is OOM-killed.",
     "Find the consumers (`ps aux --sort=-rss`), reduce loader workers or prefetch, or move the "
     "job "
     "to a node with more memory."},
    {"memory.pressure", "memory", "Memory, CPU and I/O pressure (PSI)",
     "Tasks on this host spend a noticeable share of time stalled waiting for memory, CPU or I/O "
     "(Linux pressure stall information). GPU feeders stall with them.",
     "Find what saturates the resource (memory: reclaim/swap; io: storage; cpu: oversubscription) "
     "before blaming the GPU."},
    {"mig.mode", "mig", "MIG mode",
     "The GPU is partitioned with MIG, or a MIG mode change is pending until the next GPU reset. "
     "Jobs see a slice, not the whole GPU, and tools without MIG support misreport it.",
     "Confirm the partitioning is intended for this node's role; apply a pending change with a GPU "
     "reset, or disable MIG (`nvidia-smi -mig 0`) for whole-GPU jobs."},
    {"numa.process_affinity", "numa", "Process CPUs local to its GPUs",
     "The process may only run on CPUs of a different NUMA node than the GPU it uses. Every copy "
     "and launch crosses the socket interconnect.",
     "Bind the job to the GPU's NUMA node (Slurm --gpu-bind/--cpu-bind, numactl --cpunodebind, "
     "Kubernetes topology manager single-numa-node)."},
    {"nvlink.errors", "nvlink", "NVLink error counters",
     "NVLink error counters (CRC, replay, recovery) exceed their budget: the link retransmits and "
     "collective bandwidth drops, or the link is about to fail.",
     "Reset the GPUs; if errors return, drain the node for NVLink/NVSwitch inspection."},
    {"nvlink.fabric", "nvlink", "NVSwitch fabric registration",
     "On NVSwitch systems each GPU registers with the fabric manager at start (nvidia-smi: Fabric "
     "State / Status). Until the state is Completed with status Success the GPU cannot use "
     "NVLink to its peers: CUDA reports errors or jobs run without peer access.",
     "Check `systemctl status nvidia-fabricmanager` and its log (/var/log/fabricmanager.log); "
     "restart it, or reboot the node. A status other than Success after Completed needs the "
     "fabric manager log and usually a reboot."},
    {"nvlink.link_down", "nvlink", "NVLink links up",
     "Some NVLink links of the GPU are inactive while others are up. Peer traffic falls back to "
     "fewer links or PCIe and collectives slow down.",
     "Check fabric manager on NVSwitch systems, reset the GPUs, and drain for inspection if a link "
     "stays down."},
    {"pcie.aer_corrected", "pcie", "PCIe corrected errors (AER)",
     "The PCIe link logged corrected errors above the budget. They are retried in hardware, cost "
     "bandwidth, and often precede a link that degrades or drops.",
     "Reseat or replace the riser/cable and check the slot; drain the node if counts keep rising."},
    {"pcie.aer_uncorrected", "pcie", "PCIe uncorrected errors (AER)",
     "The PCIe link logged uncorrectable (non-fatal or fatal) errors: transactions were lost and "
     "the GPU may have been reset or dropped off the bus.",
     "Drain the node and inspect the slot, riser and GPU; fatal errors need a reboot at least."},
    {"pcie.link_gen_reduced", "pcie", "PCIe link generation",
     "The link runs below the highest generation both ends support. GPUs lower the link speed when "
     "idle to save power, so this matters only under load; under load it halves host-device "
     "bandwidth per generation lost.",
     "If the GPU was idle, confirm under load (`gpuvet bench`, or read the link while a job runs). "
     "A link slow under load points to a riser, slot or BIOS setting: reseat or fix the slot "
     "speed. A host port of an older generation than the card (Gen3 host, Gen4 GPU) is info: the "
     "link can go no faster in that host."},
    {"pcie.link_width_reduced", "pcie", "PCIe link width",
     "The link trained with fewer lanes than both ends support (e.g. x8 in a x16 slot): the "
     "link should reach the smaller of the GPU's maximum and its slot's (the upstream port's "
     "maximum in sysfs). Width, unlike speed, does not drop for power saving: host-device "
     "bandwidth is cut for good. A GPU at its slot's maximum in a slot wired with fewer lanes "
     "(x8/x8 boards, x8-wired slots) is info, a design cost rather than a fault; where the slot's "
     "maximum is unknown (an offline capture, a virtual machine) a reduced width is a warning "
     "until confirmed.",
     "On a fail: drain the node; reseat the GPU or riser, check the slot's bifurcation setting in "
     "the BIOS, and replace the riser or cable if it persists. On a warning: confirm the slot's "
     "width (`lspci -vv`, LnkCap of the port above the GPU), or in a virtual machine ask the "
     "provider or move to another instance; nothing here is reseated. On info: nothing is broken; "
     "use a x16 slot if the job is transfer-bound."},
    {"pcie.replay_counter", "pcie", "PCIe replay counter",
     "The GPU had to replay PCIe packets more often than the bit-error budget for its link allows: "
     "signal integrity is poor and effective bandwidth drops.",
     "Reseat the GPU and riser; if the rate stays over budget, drain for hardware inspection."},
    {"power.limit", "power", "Power limit vs default",
     "The enforced power limit is below the board's default. Clocks are capped under load and the "
     "GPU delivers less than its rating.",
     "If unintended, restore the default (`nvidia-smi -pl <default>`) or fix the management policy "
     "that lowered it."},
    {"process.gpu_context", "process", "Process uses a GPU",
     "The given process holds no GPU context and maps no CUDA library: it is running on the CPU, "
     "usually because the framework found no GPU (empty CUDA_VISIBLE_DEVICES, a CPU-only build, or "
     "missing device nodes in the container).",
     "Check `torch.cuda.is_available()` (or the framework's equivalent) inside the job's "
     "environment, its CUDA_VISIBLE_DEVICES, and that the container runtime passes the GPUs."},
    {"settings.persistence_mode", "settings", "Persistence mode",
     "Persistence mode is off: the driver tears the GPU state down when the last client exits, so "
     "every job start pays seconds of initialisation and settings may be lost.",
     "Enable nvidia-persistenced (preferred) or `nvidia-smi -pm 1` on compute nodes."},
    {"thermal.margin", "thermal", "Temperature margin to slowdown",
     "The GPU is close to its slowdown temperature; a little more load or heat and the hardware "
     "cuts clocks. Ada and newer GPUs report the margin below T.Limit (their maximum operating "
     "temperature) and where slowdown engages relative to it (e.g. -2 °C); the distance to "
     "slowdown is the margin less that offset.",
     "Check cooling: fans, airflow, inlet temperature, blocked filters, neighbouring hot cards."},
    {"throttle.hw_slowdown", "throttle", "Hardware slowdown active",
     "The hardware is cutting clocks hard (HW slowdown): typically overheating or a power supply "
     "signal. Performance drops by half or more.",
     "Check the PSU and power cables and the cooling; drain the node if slowdown persists at "
     "idle."},
    {"throttle.power_brake", "throttle", "Power brake active",
     "An external power-brake signal from the system (not the GPU) is holding clocks down: the "
     "chassis or PSU is asking GPUs to shed power.",
     "Check the server's power supplies and BMC events; the node cannot deliver full performance."},
    {"throttle.sw_power_cap", "throttle", "Power cap reached",
     "The GPU is drawing its power limit and the driver is lowering clocks to stay under it. Under "
     "full load this is expected for some parts; with a reduced limit it is self-inflicted.",
     "Compare the limit with the default (see power.limit); raise it if it was lowered, otherwise "
     "this is the card's normal ceiling."},
    {"throttle.thermal", "throttle", "Thermal slowdown active",
     "Clocks are reduced because the GPU (or its memory) is too hot.",
     "Fix cooling: airflow, fan curves, inlet temperature, dust; check neighbouring cards."},
    {"trace.input", "trace", "Trace readable and complete",
     "The trace could not be read completely (truncated or corrupted), holds no GPU activity (a "
     "CPU-only rank) or too little to judge, was recorded in counter mode (no timeline), or its "
     "files do not form one run: results cover only what was read.",
     "Re-capture or re-copy the trace, covering a few complete steps; for a CPU-only rank check "
     "that the process saw a GPU (CUDA_VISIBLE_DEVICES, device placement); give files of "
     "different runs to separate invocations."},
    {"trace.kernel_counters", "trace", "Kernels on the roofline (hardware counters)",
     "The trace carries per-kernel hardware counters from the CUPTI range profiler. FLOPs and DRAM "
     "bytes place each kernel on the roofline: below the ridge point (peak FLOP/s over memory "
     "bandwidth) a kernel is limited by memory bandwidth, above it by arithmetic throughput.",
     "Memory-bound kernels gain from fusion, data reuse, narrower types (BF16/FP8) or a GPU with "
     "more memory bandwidth; compute-bound ones from tensor cores, lower precision or a faster "
     "GPU. Take a normal (timeline) trace as well: counter mode cannot show idle or launch "
     "overhead."},
    {"trace.pageable_copies", "trace", "Host-device copies from pageable memory",
     "Host-device copies use pageable (non-pinned) host memory: they are staged through a "
     "bounce buffer, run slower and block the host even when called asynchronously. The share "
     "of the span the host spends blocked in such copies (and in synchronous cudaMemcpy) says "
     "what they cost.",
     "Pin the host buffers (DataLoader(pin_memory=True), tensor.pin_memory(), cudaHostAlloc) and "
     "copy with non_blocking=True."},
    {"trace.separate_runs", "trace", "Inputs from separate runs",
     "The trace files do not form one run: they differ in world size or device, do not overlap in "
     "time, or claim the same rank. Their ranks are not compared (a straggler needs ranks of one "
     "job); each run's mean step is compared instead.",
     "Give each run to its own `gpuvet trace` when you want its cross-rank view; read the runs' "
     "step times side by side for a before/after comparison."},
    {"trace.straggler", "trace", "Straggler ranks",
     "One or more ranks start collectives consistently later than the others; every other rank "
     "waits for them at each collective.",
     "Inspect the straggler's host (CPU load, data loading, thermal or power throttling, a "
     "degraded link) with `gpuvet check` on that node."},
    {"trace.sync_stalls", "trace", "Host synchronisation",
     "The host blocks on the GPU (cudaDeviceSynchronize, cudaStreamSynchronize, synchronous "
     "copies, `.item()`/`.cpu()` scalar reads) while the GPU has nothing to run: host and GPU "
     "take turns. Sync time while the GPU is busy is not counted; it costs the GPU nothing.",
     "Remove per-step synchronisation: keep metrics on the GPU and read them every N steps, use "
     "non_blocking copies and events instead of full synchronisation."},
    {"xid.application", "xid", "Xid errors caused by applications",
     "The driver logged Xid errors that application faults cause (illegal address, exceptions, "
     "killed contexts). They are not hardware faults by themselves.",
     "Debug the application (compute-sanitizer, CUDA_LAUNCH_BLOCKING=1). Only if many unrelated "
     "jobs hit them on this GPU alone, suspect the GPU."},
    {"xid.critical", "xid", "Xid errors that mean hardware or driver failure",
     "The driver logged Xid errors that mean the GPU, its memory, NVLink or the PCIe link failed "
     "(e.g. fallen off the bus, uncontained ECC, GSP errors, fatal NVLink5 errors, an Xid 154 "
     "recovery action): NVIDIA's immediate action is to reset the GPU, restart the machine or "
     "drain.",
     "Drain the node; reset the GPU or reboot as the Xid's action says, and send repeat offenders "
     "to hardware inspection."},
    {"xid.informational", "xid", "Xid events NVIDIA says to ignore",
     "The driver logged Xid events whose immediate action in NVIDIA's Xid catalogue is IGNORE "
     "(e.g. a row remap event that repaired memory, a BMC test message, a corrected C2C error, "
     "or Xid 154 clearing its recovery action). They are recorded for context, not faults.",
     "No action on the node; look at them only together with other Xids or failing jobs."},
    {"xid.recoverable", "xid", "Xid errors that need a restart or a watch",
     "The driver logged Xid errors the hardware or driver contained (e.g. contained ECC, copy "
     "engine errors, non-fatal NVLink5 errors) whose immediate action in NVIDIA's catalogue is to "
     "restart the job, update software or contact support, not to reset the GPU.",
     "Restart the affected job; reset the GPU when it is free if the Xid repeats, and escalate to "
     "hardware inspection if it repeats after resets."},
};

// Decisions per severity for the entries whose decision depends on it (CatalogueDecision).
struct SeverityDecision {
  std::string_view id;
  Severity severity;
  std::string_view decision;
};
constexpr SeverityDecision kSeverityDecisions[] = {
    {"pcie.link_width_reduced", Severity::kFail,
     "Drain the node; reseat the GPU or riser, check the slot's bifurcation setting in the BIOS, "
     "and replace the riser or cable if it persists."},
    {"pcie.link_width_reduced", Severity::kWarn,
     "Confirm the slot's width (`lspci -vv`, LnkCap of the port above the GPU), or in a virtual "
     "machine ask the provider or move to another instance; nothing here is reseated."},
    {"pcie.link_width_reduced", Severity::kInfo,
     "Nothing is broken; use a x16 slot if the job is transfer-bound."},
};

// The written entries and the generated `trace.<label>` ones, sorted by id. Built once.
const std::vector<CatalogueEntry>& Table() {
  static const std::vector<CatalogueEntry> table = [] {
    std::vector<CatalogueEntry> t(std::begin(kCatalogue), std::end(kCatalogue));
    for (int i = 0; i < kBottleneckCount; ++i) {
      const auto label = static_cast<Bottleneck>(i);
      const std::string_view id = TraceFindingId(label);
      const BottleneckInfo* row = FindBottleneckRow(label, Subcase::kNone);
      if (id.empty() || !row) continue;
      t.push_back({id, "trace", row->title, row->meaning, row->decision});
    }
    std::sort(t.begin(), t.end(),
              [](const CatalogueEntry& a, const CatalogueEntry& b) { return a.id < b.id; });
    return t;
  }();
  return table;
}

}  // namespace

std::span<const CatalogueEntry> Catalogue() { return Table(); }

const CatalogueEntry* FindCatalogueEntry(std::string_view id) {
  const std::vector<CatalogueEntry>& t = Table();
  auto it = std::lower_bound(t.begin(), t.end(), id,
                             [](const CatalogueEntry& e, std::string_view v) { return e.id < v; });
  if (it == t.end() || it->id != id) return nullptr;
  return &*it;
}

std::string_view CatalogueDecision(std::string_view id, Severity s) {
  for (const SeverityDecision& d : kSeverityDecisions) {
    if (d.id == id && d.severity == s) return d.decision;
  }
  const CatalogueEntry* e = FindCatalogueEntry(id);
  return e ? e->decision : "";
}

std::string AreaOf(std::string_view id) { return std::string(id.substr(0, id.find('.'))); }

bool IsCatalogueArea(std::string_view area) {
  for (const CatalogueEntry& e : Table()) {
    if (e.area == area) return true;
  }
  return false;
}

}  // namespace gpuvet
