// Schema discovery, query building, enum translation and string resolution over an nsys export.
#include "sources/trace/nsys_export.h"

#include <algorithm>
#include <utility>

#include "core/trace/trace_time.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

constexpr char kStringTable[] = "StringIds";
// Export enum ids above this are not translated (documented ids are all below 16).
constexpr int64_t kMaxEnumId = 255;

}  // namespace

std::string WithoutPath(const std::string& path, const std::string& message) {
  return StartsWith(message, path + ": ") ? message.substr(path.size() + 2) : message;
}

NsysExport::NsysExport(SqliteDb db, RankTrace* trace) : db_(std::move(db)), t_(*trace) {
  t_.names.assign(1, "");
}

Status NsysExport::ListTables() {
  auto tables = db_.Tables();
  if (!tables.ok()) return tables.status();
  tables_.clear();
  for (std::string& name : tables.value()) tables_.insert(std::move(name));
  return Status::Ok();
}

bool NsysExport::HasColumn(const std::string& table, std::string_view col) {
  if (!Has(table)) return false;
  auto it = columns_.find(table);
  if (it == columns_.end()) {
    auto cols = db_.Columns(table);
    if (!cols.ok()) {
      Warn(table + ": columns unreadable: " + WithoutPath(db_.path(), cols.status().message()));
      corrupt_ = true;
    }
    it = columns_.emplace(table, cols.ok() ? std::move(cols).value() : std::vector<std::string>())
             .first;
  }
  return std::find(it->second.begin(), it->second.end(), col) != it->second.end();
}

std::string NsysExport::FirstColumn(const std::string& table,
                                    std::initializer_list<std::string_view> cols) {
  for (std::string_view c : cols) {
    if (HasColumn(table, c)) return std::string(c);
  }
  return "";
}

std::string NsysExport::Select(const std::string& table,
                               std::initializer_list<std::string_view> cols) {
  std::string sql = "SELECT ";
  bool first = true;
  for (std::string_view c : cols) {
    if (!first) sql += ", ";
    first = false;
    sql += !c.empty() && HasColumn(table, c) ? QuoteIdentifier(c) : "NULL";
  }
  return sql + " FROM " + QuoteIdentifier(table);
}

std::vector<int> NsysExport::LoadEnumRemap(const std::string& table, NsysEnum which) {
  std::vector<int> remap;
  if (!HasColumn(table, "id") || !HasColumn(table, "name")) return remap;
  std::vector<int> built(kMaxEnumId + 1, -1);
  bool any = false;
  Status s = Scan(
      table, Select(table, {"id", "name"}),
      [&](const SqliteStatement& row) {
        int64_t id = row.Int(0);
        if (row.IsNull(0) || id < 0 || id > kMaxEnumId) return;
        built[id] = DocumentedNsysId(which, row.Text(1));
        any = true;
      },
      false);
  if (s.ok() && any) remap = std::move(built);
  return remap;
}

int NsysExport::Remap(const std::vector<int>& remap, const SqliteStatement& row, int col) {
  if (row.IsNull(col)) return -1;
  int64_t id = row.Int(col);
  if (remap.empty()) return id >= 0 && id <= kMaxEnumId ? static_cast<int>(id) : -1;
  return id >= 0 && id < static_cast<int64_t>(remap.size()) ? remap[id] : -1;
}

bool NsysExport::ReadSpan(const SqliteStatement& row, int64_t* start, int64_t* dur,
                          RowProblems* p) {
  if (row.IsNull(0) || row.IsNull(1)) {
    ++p->no_time;
    return false;
  }
  *start = row.Int(0);
  int64_t end = row.Int(1);
  if (__builtin_sub_overflow(end, *start, dur)) {
    ++p->no_time;
    return false;
  }
  if (*dur < 0) {
    ++p->end_before;
    *dur = 0;
  }
  // Outside the range analyses can add and subtract without overflow (core/trace/trace_time.h).
  if (!TraceSpanFits(*start, *dur)) {
    ++p->no_time;
    return false;
  }
  return true;
}

void NsysExport::ReportProblems(const std::string& table, const RowProblems& p) {
  if (p.no_time > 0) {
    Warn(table + ": " + std::to_string(p.no_time) + " rows without a usable start/end skipped");
  }
  if (p.end_before > 0) {
    Warn(table + ": " + std::to_string(p.end_before) +
         " rows end before they start; kept with duration 0");
  }
}

uint32_t NsysExport::Intern(std::string_view s) {
  // Keyed by hash, compared against names[], so each string is held once (in the model).
  size_t h = std::hash<std::string_view>{}(s);
  auto [lo, hi] = interned_.equal_range(h);
  for (auto it = lo; it != hi; ++it) {
    if (t_.names[it->second] == s) return it->second;
  }
  uint32_t idx = static_cast<uint32_t>(t_.names.size());
  t_.names.emplace_back(s);
  interned_.emplace(h, idx);
  return idx;
}

uint32_t NsysExport::NameAt(const SqliteStatement& row, int col) {
  if (row.IsNull(col)) return 0;
  if (row.IsText(col)) return Intern(row.Text(col));
  return StringName(row.Int(col));
}

uint32_t NsysExport::StringName(int64_t id) {
  auto it = string_ids_.find(id);
  if (it != string_ids_.end()) return it->second;
  if (!string_lookup_ && HasColumn(kStringTable, "id") && HasColumn(kStringTable, "value")) {
    auto stmt = db_.Prepare("SELECT value FROM StringIds WHERE id = ?");
    if (stmt.ok()) string_lookup_.emplace(std::move(stmt).value());
  }
  std::optional<uint32_t> name;
  if (string_lookup_) {
    string_lookup_->Reset();
    string_lookup_->BindInt(1, id);
    auto row = string_lookup_->Step();
    if (row.ok() && row.value()) name = Intern(string_lookup_->Text(0));
  }
  if (!name) {
    ++unresolved_strings_;
    name = Intern("string#" + std::to_string(id));
  }
  string_ids_.emplace(id, *name);
  return *name;
}

void NsysExport::Warn(const std::string& what) { t_.warnings.push_back(db_.path() + ": " + what); }

void NsysExport::Finish() {
  if (unresolved_strings_ > 0) {
    Warn(std::to_string(unresolved_strings_) +
         " string ids not found in StringIds; shown as \"string#<id>\"");
  }
}

}  // namespace gpuvet
