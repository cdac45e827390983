// The Kineto reader walks the top level of the document, handles each traceEvents element as it
// arrives and keeps a few fields of the events the model needs; everything else (cpu_op args,
// deviceProperties, flow events) is skipped by the tokenizer without being materialised.
#include "sources/trace/kineto_reader.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "sources/trace/kineto_builder.h"
#include "sources/trace/kineto_schema.h"
#include "util/json_stream.h"
#include "util/strings.h"

namespace gpuvet {
namespace {

// Distinct category strings remembered with their class; more than Kineto has ever defined.
constexpr size_t kCategoryCacheSize = 64;

// Key comparison against a literal: a length check and a fixed-size memcmp the compiler inlines
// (the reader compares every key of every event).
template <size_t N>
bool Is(const std::string& key, const char (&literal)[N]) {
  return key.size() == N - 1 && std::memcmp(key.data(), literal, N - 1) == 0;
}

int32_t ClampInt32(int64_t v) {
  return static_cast<int32_t>(std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(),
                                                  std::numeric_limits<int32_t>::max()));
}

bool IsGpuOp(KinetoCategory c) {
  return c == KinetoCategory::kKernel || c == KinetoCategory::kMemcpy ||
         c == KinetoCategory::kMemset;
}

class KinetoParser {
 public:
  KinetoParser(ChunkSource* source, std::string_view origin)
      : origin_(origin),
        source_(source),
        js_(source, std::string(origin)),
        builder_(&trace_, std::string(origin)) {
    trace_.source = std::string(origin);
  }

  Result<RankTrace> Run() {
    int c = js_.Peek();
    if (c == '{') {
      trace_.format = "kineto-json";
      js_.Advance();
      ParseTopObject();
    } else if (c == '[') {
      trace_.format = "kineto-json (bare list)";
      ParseEvents();
    } else if (c == JsonStream::kEnd) {
      if (js_.source_status().ok()) return InvalidInput(origin_ + ": empty file, not a trace");
      js_.Fail("no data");  // the source stopped early: reported as the input ending
    } else {
      js_.Fail("expected '{' or '[' at the start of a trace (not a JSON trace)");
    }
    if (js_.failed()) return OnFailure();
    if (!events_reached_) return InvalidInput(origin_ + ": no traceEvents array at the top level");
    if (trace_.events_seen == 0 && builder_.non_objects() > 0) {
      // [1, 2, "a"]: a JSON list, but nothing in it is an event.
      return InvalidInput(origin_ + ": traceEvents holds " +
                          std::to_string(builder_.non_objects()) +
                          " element(s) and none is an event object: not a trace");
    }
    if (js_.Peek() != JsonStream::kEnd) {
      AddWarning("byte " + std::to_string(js_.offset()) +
                 ": ignored data after the end of the JSON document");
    } else if (!js_.source_status().ok()) {
      AddWarning(StripOrigin(js_.source_status().message()) +
                 "; the JSON document before it is complete");
    }
    return Finish();
  }

 private:
  void AddWarning(const std::string& text) { trace_.warnings.push_back(origin_ + ": " + text); }

  std::string StripOrigin(const std::string& msg) const {
    std::string prefix = origin_ + ": ";
    return StartsWith(msg, prefix) ? msg.substr(prefix.size()) : msg;
  }

  // A syntax error is an error; the input ending (or the gzip stream breaking) after the events
  // were reached gives what was read, marked truncated.
  Result<RankTrace> OnFailure() {
    if (!js_.failed_at_end()) {
      // A document broken before its events (or before the first complete one) is not a trace
      // we can read.
      if (!events_reached_) return js_.status();
      const Status& source = js_.DrainVerifiedSource();
      if (trace_.events_seen == 0 && source.ok()) return js_.status();
      // Garbage in gzip data whose CRC or deflate codes turn out bad is corruption of the file;
      // in plain JSON a syntax error inside or after the events is damage too (a partial copy,
      // a crash while writing). Either way the complete events before it are kept.
      const std::string why =
          source.ok() ? StripOrigin(js_.status().message()) : StripOrigin(source.message());
      trace_.truncated = true;
      AddWarning("input is unreadable from byte " + std::to_string(js_.offset()) +
                 (in_events_ ? " inside" : " after") + " traceEvents (" + why + "); analysed the " +
                 std::to_string(trace_.events_seen) + " complete events before it");
      return Finish();
    }
    std::string where = "input ends at byte " + std::to_string(js_.bytes_received());
    std::string why;
    if (!js_.source_status().ok()) why = " (" + StripOrigin(js_.source_status().message()) + ")";
    if (!events_reached_) {
      return InvalidInput(origin_ + ": " + where + why + " before traceEvents");
    }
    trace_.truncated = true;
    if (in_events_) {
      AddWarning(where + " inside traceEvents" + why + "; analysed the " +
                 std::to_string(trace_.events_seen) + " complete events before it");
    } else {
      AddWarning(where + " after traceEvents" + why + "; analysed all " +
                 std::to_string(trace_.events_seen) + " events");
    }
    return Finish();
  }

  void ParseTopObject() {
    bool first = true;
    while (js_.NextMember(&first, &key_)) {
      if (Is(key_, "traceEvents") && !events_reached_) {
        if (js_.Peek() != '[') {
          js_.Fail("traceEvents is not an array");
          return;
        }
        ParseEvents();
      } else if (Is(key_, "distributedInfo") && js_.Peek() == '{') {
        ParseDistributedInfo();
      } else if (Is(key_, "deviceProperties") && js_.Peek() == '[') {
        ParseDeviceProperties();
      } else {
        js_.SkipValue();
      }
    }
  }

  void ParseDistributedInfo() {
    js_.Advance();
    bool first = true;
    while (js_.NextMember(&first, &key_)) {
      if (Is(key_, "rank")) {
        if (auto v = ReadInt()) trace_.rank = ClampInt32(*v);
      } else if (Is(key_, "world_size")) {
        if (auto v = ReadInt()) trace_.world_size = ClampInt32(*v);
      } else {
        js_.SkipValue();
      }
    }
  }

  // deviceProperties: [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", ...}, ...]; keeps the first
  // name (a rank drives one device).
  void ParseDeviceProperties() {
    js_.Advance();
    bool first = true;
    while (js_.NextElement(&first)) {
      if (js_.Peek() != '{') {
        js_.SkipValue();
        continue;
      }
      js_.Advance();
      bool first_member = true;
      while (js_.NextMember(&first_member, &key_)) {
        if (Is(key_, "name") && js_.Peek() == '"' && trace_.gpu_name.empty()) {
          js_.ReadString(&trace_.gpu_name);
        } else {
          js_.SkipValue();
        }
      }
    }
  }

  // At '[' of the events array.
  void ParseEvents() {
    events_reached_ = true;
    in_events_ = true;
    js_.Advance();
    bool first = true;
    while (js_.NextElement(&first)) {
      if (js_.Peek() == '{') {
        if (!ParseEvent()) return;
      } else {
        uint64_t at = js_.offset();
        if (!js_.SkipValue()) return;
        builder_.AddNonObject(at);
      }
    }
    if (!js_.failed()) in_events_ = false;
  }

  // Reads a scalar (number, or a string holding one) as text into num_; false for anything else.
  bool ReadScalarAsText() {
    int c = js_.Peek();
    if (c == '"') return js_.ReadString(&num_);
    if (c == '{' || c == '[') {
      js_.SkipValue();
      return false;
    }
    return js_.ReadScalarText(&num_);
  }

  std::optional<int64_t> ReadInt() {
    if (!ReadScalarAsText()) return std::nullopt;
    return ParseInt(num_);
  }

  std::optional<int64_t> ReadTime() {
    if (!ReadScalarAsText()) return std::nullopt;
    return MicrosTextToNanos(num_);
  }

  void ReadTid() {
    int c = js_.Peek();
    if (c == '"') {
      if (!js_.ReadString(&num_)) return;
      auto v = ParseInt(num_);
      ev_.tid = v ? FoldThreadId(*v) : HashThreadName(num_);
    } else if (auto v = ReadInt()) {
      ev_.tid = FoldThreadId(*v);
    }
  }

  // ClassifyCategory through a small cache of the exact strings seen (a trace uses a dozen).
  KinetoCategory CachedCategory(const std::string& text) {
    for (const auto& [seen, category] : category_cache_) {
      if (seen == text) return category;
    }
    KinetoCategory category = ClassifyCategory(text);
    if (category_cache_.size() < kCategoryCacheSize) category_cache_.emplace_back(text, category);
    return category;
  }

  // True once what was read shows the model has no use for the event: not a complete event, an
  // ignored category, or a host op that is neither a profiler step nor a DataLoader/optimizer
  // phase. Its other fields are then skipped
  // unparsed (Kineto writes ph, cat and name first).
  bool Useless() const {
    if (ev_.ph != 0 && ev_.ph != 'X') return true;
    if (!ev_.has_cat) return false;
    if (ev_.cat == KinetoCategory::kIgnored) return true;
    return ev_.cat == KinetoCategory::kHostOp && ev_.has_name && !IsProfilerStepName(ev_.name) &&
           !ClassifyHostPhase(ev_.name);
  }

  // args is read only when the event may be a GPU op or runtime call; cpu_op args (shapes,
  // call stacks) are skipped unread.
  bool WantArgs() const {
    if (ev_.ph != 0 && ev_.ph != 'X') return false;
    return !ev_.has_cat || IsGpuOp(ev_.cat) || ev_.cat == KinetoCategory::kRuntime ||
           ev_.cat == KinetoCategory::kProfilerRange;
  }

  // A counter of a cuda_profiler_range event: a number (or a string holding one).
  void ReadMetric() {
    if (!ReadScalarAsText()) return;
    std::optional<double> v = ParseDouble(num_);
    if (!v) return;
    if (ev_.metric_count == ev_.metrics.size()) ev_.metrics.emplace_back();
    ev_.metrics[ev_.metric_count].first = key_;
    ev_.metrics[ev_.metric_count].second = *v;
    ++ev_.metric_count;
  }

  void ParseArgs() {
    if (js_.Peek() != '{' || !WantArgs()) {
      js_.SkipValue();
      return;
    }
    js_.Advance();
    bool first = true;
    while (js_.NextMember(&first, &key_)) {
      if (Is(key_, "device")) {
        ev_.device = ReadInt().value_or(-1);
      } else if (Is(key_, "stream")) {
        ev_.stream = ReadInt().value_or(-1);
      } else if (Is(key_, "correlation")) {
        ev_.correlation = ReadInt().value_or(-1);
      } else if (Is(key_, "bytes")) {
        ev_.bytes = ReadInt().value_or(0);
      } else if (Is(key_, "size") && ev_.has_cat && ev_.cat == KinetoCategory::kRuntime) {
        ev_.size = ReadInt().value_or(0);
      } else if (Is(key_, "Collective name") || Is(key_, "Process Group Name") ||
                 Is(key_, "Process Group Ranks")) {
        ev_.collective = true;  // NCCL metadata Kineto puts on collective kernels
        js_.SkipValue();
      } else if (Is(key_, "kind") && js_.Peek() == '"') {
        if (js_.ReadString(&num_)) ev_.rocm_dispatch = num_ == "Dispatch Kernel";
      } else if (ev_.has_cat && ev_.cat == KinetoCategory::kProfilerRange) {
        ReadMetric();
      } else {
        js_.SkipValue();
      }
    }
  }

  // At '{' of an event. False on a (sticky) stream error.
  bool ParseEvent() {
    uint64_t start = js_.offset();
    js_.Advance();
    ev_.Reset();
    bool first = true;
    while (js_.NextMember(&first, &key_)) {
      if (Is(key_, "ph")) {
        if (js_.Peek() == '"') {
          if (js_.ReadString(&num_)) ev_.ph = num_.size() == 1 ? num_[0] : '?';
        } else {
          js_.SkipValue();
          ev_.ph = '?';
        }
      } else if (Is(key_, "cat")) {
        if (js_.Peek() == '"') {
          if (js_.ReadString(&ev_.cat_text)) {
            ev_.has_cat = true;
            ev_.cat = CachedCategory(ev_.cat_text);
          }
        } else {
          js_.SkipValue();
        }
      } else if (Useless()) {
        js_.SkipValue();  // the rest of a flow, metadata or plain cpu_op event is not needed
      } else if (Is(key_, "name")) {
        if (js_.Peek() == '"') {
          ev_.has_name = js_.ReadString(&ev_.name);
        } else {
          js_.SkipValue();
        }
      } else if (Is(key_, "ts")) {
        ev_.ts_ns = ReadTime();
      } else if (Is(key_, "dur")) {
        ev_.dur_ns = ReadTime();
      } else if (Is(key_, "tid")) {
        ReadTid();
      } else if (Is(key_, "args")) {
        ParseArgs();
      } else {
        js_.SkipValue();
      }
    }
    if (js_.failed()) return false;
    ++trace_.events_seen;
    builder_.Add(ev_, start);
    return true;
  }

  Result<RankTrace> Finish() {
    builder_.Finish();
    // Trailing bytes after gzip data: the events are read, but the file is not only the trace.
    if (std::string notice = source_->notice(); !notice.empty()) AddWarning(StripOrigin(notice));
    trace_.input_bytes = js_.bytes_received();
    return std::move(trace_);
  }

  std::string origin_;
  ChunkSource* source_;  // not owned
  JsonStream js_;
  RankTrace trace_;
  KinetoTraceBuilder builder_;
  KinetoEvent ev_;
  std::string key_;  // scratch: the current object key
  std::string num_;  // scratch: scalar text
  bool events_reached_ = false;
  bool in_events_ = false;
  std::vector<std::pair<std::string, KinetoCategory>> category_cache_;
};

}  // namespace

Result<RankTrace> ParseKinetoStream(ChunkSource* source, std::string_view origin) {
  return KinetoParser(source, origin).Run();
}

Result<RankTrace> ParseKinetoTrace(std::string_view json, std::string_view origin) {
  std::unique_ptr<ChunkSource> source = MemoryChunkSource(json);
  return ParseKinetoStream(source.get(), origin);
}

Result<RankTrace> ReadKinetoTrace(const std::string& path, const KinetoOptions& opts) {
  Result<std::unique_ptr<ChunkSource>> source = OpenChunkSource(path, opts.chunk_bytes);
  if (!source.ok()) return source.status();
  return ParseKinetoStream(source.value().get(), path);
}

}  // namespace gpuvet
