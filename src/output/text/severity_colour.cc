// Severity colours (see severity_colour.h).
#include "output/text/severity_colour.h"

namespace gpuvet {

const char* SeveritySgr(Severity s) {
  switch (s) {
    case Severity::kOk:
      return "32";
    case Severity::kInfo:
      return "36";
    case Severity::kWarn:
      return "33";
    case Severity::kUnknown:
      return "35";
    case Severity::kFail:
      return "1;31";
  }
  return "0";
}

std::string PaintSeverity(const std::string& text, Severity s, bool color) {
  if (!color) return text;
  return "\033[" + std::string(SeveritySgr(s)) + "m" + text + "\033[0m";
}

}  // namespace gpuvet
