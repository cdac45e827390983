// The ids of RecordingEventKind as the recording file stores them.
#include "core/recording.h"

#include <iterator>

namespace gpuvet {

namespace {

struct KindRow {
  RecordingEventKind kind;
  const char* id;
};

constexpr KindRow kKinds[] = {
    {RecordingEventKind::kXid, "xid"},
    {RecordingEventKind::kNfsNotResponding, "nfs_not_responding"},
    {RecordingEventKind::kNfsOk, "nfs_ok"},
    {RecordingEventKind::kHungTask, "hung_task"},
    {RecordingEventKind::kIoError, "io_error"},
    {RecordingEventKind::kOomKill, "oom_kill"},
    {RecordingEventKind::kKernelOther, "kernel"},
    {RecordingEventKind::kGpuLost, "gpu_lost"},
    {RecordingEventKind::kNvmlHung, "nvml_hung"},
    {RecordingEventKind::kNvmlRecovered, "nvml_recovered"},
};

}  // namespace

const char* RecordingEventKindId(RecordingEventKind kind) {
  for (const KindRow& r : kKinds) {
    if (r.kind == kind) return r.id;
  }
  return "kernel";
}

std::optional<RecordingEventKind> FindRecordingEventKind(const std::string& id) {
  for (const KindRow& r : kKinds) {
    if (id == r.id) return r.kind;
  }
  return std::nullopt;
}

bool IsRecorderFault(RecordingEventKind kind) {
  return kind == RecordingEventKind::kGpuLost || kind == RecordingEventKind::kNvmlHung ||
         kind == RecordingEventKind::kNvmlRecovered;
}

}  // namespace gpuvet
