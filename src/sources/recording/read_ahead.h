// Reading a recording ahead of its analysis: one thread reads and decodes samples (SQLite, the
// kernel's copies of the file, the packed-blob decoders) while the caller's thread analyses the
// ones already read. `analyze` streams a recording twice; on two cores this overlaps the reading
// of each pass with its analysis. The results are those of the plain loop (same samples, same
// order, same thread doing the analysis), and memory stays bounded (a ring of reused samples).
#pragma once

#include <cstddef>
#include <functional>

#include "core/recording.h"

namespace gpuvet {

// Calls `consume` on every sample `next` yields, in order, until `next` returns false. `next`
// runs on a second thread at most `depth` samples ahead, filling Sample objects of a ring that
// are reused (its vectors keep their capacity, as with one reused Sample). `next` is only ever
// called from that thread and `consume` from the caller's, so neither needs to be thread-safe
// with itself. An exception from either side stops both and is rethrown here (the consumer's
// first). When no thread can be started it runs the plain loop.
void ForEachSampleReadAhead(const std::function<bool(Sample*)>& next,
                            const std::function<void(const Sample&)>& consume, size_t depth = 32);

}  // namespace gpuvet
