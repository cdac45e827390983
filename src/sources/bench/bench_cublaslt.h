// BF16/FP16 tensor-core throughput through cuBLASLt, opened with dlopen when the library is present
// (it ships with the CUDA toolkit and PyTorch wheels, not with the driver), never linked. The few
// cuBLASLt declarations needed are in the .cc, copied from the public cublasLt.h.
#pragma once

#include <memory>
#include <string>

#include "core/bench.h"
#include "sources/bench/bench_measure.h"
#include "util/status.h"

namespace gpuvet::bench {

class CublasLt;  // the opened library (bench_cublaslt.cc)

// Opens the first of libcublasLt.so.13, .12, .11 and libcublasLt.so that loads and resolves every
// function used. NotFound naming every file tried (with the last dlopen error) when none does.
Result<std::shared_ptr<const CublasLt>> LoadCublasLt();

// The sonames LoadCublasLt tries, joined for a skip reason ("libcublasLt.so.13, …").
std::string CublasLtNames();

// bf16_tensor (bf16 == true) or fp16_tensor: a square matmul D = A x B of plan.tensor_dim with
// 16-bit inputs and outputs and FP32 accumulation, the algorithm cuBLASLt's heuristic ranks first,
// plan.tensor_reps per sample between events. TFLOP/s counting 2 x M x N x K per matmul.
Status MeasureTensor(const CublasLt& lib, bool bf16, const GpuBench& b, BenchMeasurement& m);

}  // namespace gpuvet::bench
