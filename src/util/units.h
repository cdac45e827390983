// The one formatter of byte sizes that text, HTML and JSON evidence share, so one quantity reads
// the same on every screen: one rounding rule, one set of units.
#pragma once

#include <string>

namespace gpuvet {

// Bytes with a binary unit: whole bytes below 1 KiB ("512 B"), else one decimal in the largest
// unit up to TiB that keeps the value >= 1 ("1.5 KiB", "12.0 GiB", "2048.0 TiB"). Negative values
// keep their sign ("-1.5 MiB"); NaN and infinities read "–".
std::string FormatBytes(double bytes);

}  // namespace gpuvet
