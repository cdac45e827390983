// The one colour of each severity on a terminal. Screens colour a finding by its severity and a
// bottleneck label by LabelSeverity (core/bottleneck); none picks a colour for a label itself.
#pragma once

#include <string>

#include "core/finding.h"

namespace gpuvet {

// The ANSI SGR parameters of a severity: "32" green ok, "36" cyan info, "33" yellow warn, "35"
// magenta unknown, "1;31" bold red fail. Static storage.
const char* SeveritySgr(Severity s);

// `text` wrapped in the severity's colour and a reset; `text` itself when `color` is false.
std::string PaintSeverity(const std::string& text, Severity s, bool color);

}  // namespace gpuvet
