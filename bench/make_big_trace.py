#!/usr/bin/env python3
"""Writes a large synthetic Kineto trace for the `gpuvet trace` benchmark.

usage: bench/make_big_trace.py SIZE_MB OUT.json
The mix resembles a real PyTorch profile: cpu_op events with args, cuda_runtime launches, kernels
with launch arguments, flow events, memcpy and profiler steps. Streams the output; deterministic.
"""
import sys


def main():
    target = int(sys.argv[1]) * 1024 * 1024
    out = open(sys.argv[2], "w")
    out.write('{"schemaVersion":1,"distributedInfo":{"rank":0,"world_size":1},'
              '"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3"}],"traceEvents":[\n')
    ts, corr, written, step, first = 1700000000000000, 1, 0, 0, True
    names = ["sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1",
             "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>",
             "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float>>>",
             "flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>>"]
    while written < target:
        if corr % 1000 == 1:
            ev = ('{"ph":"X","cat":"user_annotation","name":"ProfilerStep#%d","pid":1,"tid":1,'
                  '"ts":%d,"dur":100000,"args":{}}' % (step, ts))
            step += 1
            chunk = ev
        else:
            n = names[corr % len(names)]
            chunk = ",\n".join([
                '{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":%d.%03d,"dur":35.5,'
                '"args":{"External id":%d,"Record function id":0,"Ev Idx":%d,"Input Dims":[[64,1024],[4096,1024],[4096]],'
                '"Input type":["c10::BFloat16","c10::BFloat16","c10::BFloat16"],"Concrete Inputs":["","",""]}}'
                % (ts, corr % 1000, corr, corr),
                '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":%d.%03d,"dur":5.2,'
                '"args":{"External id":%d,"cbid":211,"correlation":%d}}' % (ts + 30, corr % 1000, corr, corr),
                '{"ph":"X","cat":"kernel","name":"%s","pid":0,"tid":7,"ts":%d.%03d,"dur":18.75,'
                '"args":{"External id":%d,"queued":0,"device":0,"context":1,"stream":7,"correlation":%d,'
                '"registers per thread":168,"shared memory":213248,"blocks per SM":0.969697,'
                '"warps per SM":7.757576,"grid":[1,128,1],"block":[384,1,1],"est. achieved occupancy %%":0}}'
                % (n, ts + 40, corr % 1000, corr, corr),
                '{"ph":"f","id":%d,"pid":0,"tid":7,"ts":%d,"cat":"ac2g","name":"ac2g","bp":"e"}' % (corr, ts + 40),
            ])
        out.write(("" if first else ",\n") + chunk)
        first = False
        written += len(chunk) + 2
        ts += 50
        corr += 1
    out.write('\n],"traceName":"big"}\n')


if __name__ == "__main__":
    main()
