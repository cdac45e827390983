// Kernel classes from real kernel names: one row per family, the name as a trace carries it
// (from ../shared/data/traces: TraceLens B200/H100/vLLM, HTA, the Kineto TB plugin, MI300 unless
// noted), the function name gpuvet reads and the category and type it gives.
#include "analysis/trace/kernel_class.h"

#include <gtest/gtest.h>

namespace gpuvet {
namespace {

struct Row {
  const char* family;
  const char* name;
  const char* category;
  HtaKernelType type;
};

constexpr HtaKernelType kComp = HtaKernelType::kComputation;
constexpr HtaKernelType kComm = HtaKernelType::kCommunication;
constexpr HtaKernelType kMem = HtaKernelType::kMemory;

const Row kRows[] = {
    // cuBLASLt's nvjet kernels (Hopper/Blackwell), B200 eager trace.
    {"cublaslt nvjet", "nvjet_tst_64x64_64x16_2x1_2cta_v_bz_bias_TNT", "gemm", kComp},
    // TensorRT-LLM / FlashInfer batched (MoE) GEMMs, B200 eager trace.
    {"trtllm bmm",
     "bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_"
     "transOut_schedP2x1x2x3_biasM_bN_tma_tmaOpt_clmp_swiGlu_dynBatch_sm100f",
     "gemm", kComp},
    // cuBLAS xmma / cuDNN implicit GEMM convolutions (resnet50, TB plugin).
    {"cudnn xmma conv",
     "sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_"
     "stage4_warpsize2x2x1_g1_tensor16x8x8_execute_kernel_cudnn_infer",
     "gemm", kComp},
    {"cudnn conv", "cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1", "gemm", kComp},
    // CUTLASS inside cuDNN, as a mangled name.
    {"cutlass mangled",
     "_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_11threadblock22"
     "ImplicitGemmMultistageINS_4gemm9GemmShapeILi128ELi128ELi32EEE",
     "gemm", kComp},
    // A generic CUTLASS launcher is named by its kernel: a GEMM, or FlashAttention-3 (not in the
    // shared traces; the names follow CUTLASS 3 and Dao-AILab/flash-attention hopper/).
    {"cutlass launcher gemm",
     "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>("
     "cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::Params)",
     "gemm", kComp},
    {"flashattention-3",
     "void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<"
     "flash::CollectiveMainloopFwdSm90<2, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> > > > >"
     ">(flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<int> >::Params)",
     "attention", kComp},
    // cuBLAS GEMV (H100 Qwen trace).
    {"cublas gemv",
     "std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, "
     "float, false, true, true, false, 7, cublasGemvParams<cublasGemvTensorStridedBatched<float "
     "const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, "
     "float> >(cublasGemvParams<cublasGemvTensorStridedBatched<float const>, "
     "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>)",
     "gemm", kComp},
    // rocBLAS/hipBLASLt Tensile (MI300 / MI250).
    {"hipblaslt tensile",
     "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x192x64_MI16x16x1_SN_LDSB1_AFC1", "gemm",
     kComp},
    // TensorRT-LLM FMHA (B200 eager trace).
    {"trtllm fmha",
     "fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128PersistentContext",
     "attention", kComp},
    // A MoE finalize (weighted sum of expert outputs) templated on cutlass types is a reduction,
    // not a GEMM (B200 eager trace).
    {"moe finalize",
     "void moe::dev::finalize::finalizeKernelVecLoad<moe::dev::finalize::KernelParams<cutlass::"
     "bfloat16_t, cutlass::bfloat16_t, 4, true> >(moe::dev::finalize::KernelParams<cutlass::"
     "bfloat16_t, cutlass::bfloat16_t, 4, true>)",
     "reduction", kComp},
    {"cudnn batch norm",
     "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 128, true, 1, true>("
     "cudnnTensorStruct, float const*)",
     "reduction", kComp},
    {"vllm rms norm (enable_if return type)",
     "std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type "
     "vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, long, c10::BFloat16*, "
     "c10::BFloat16 const*, float, int, int)",
     "reduction", kComp},
    // Triton (torch.compile): pointwise, reduction.
    {"triton pointwise", "triton_poi_fused__unsafe_view_mul_silu_2", "elementwise", kComp},
    {"triton reduction", "triton_red_fused_add_mean_mul_pow_rsqrt_0", "reduction", kComp},
    // ATen copies and elementwise ops (B200 eager trace).
    {"aten direct copy",
     "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::"
     "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()"
     "#12}::operator()() const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, at::native::"
     "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()"
     "#12}::operator()() const::{lambda(c10::BFloat16)#1} const&)::{lambda(int)#1}>(int, "
     "at::native::gpu_kernel_impl_nocast<int>)",
     "elementwise", kComp},
    {"aten softmax (anonymous namespace)",
     "void (anonymous namespace)::softmax_warp_forward<float, float, float, 1, false, false>("
     "float*, float const*, int, int, int, bool const*, int, bool)",
     "reduction", kComp},
    // Communication: NCCL (as HTA), PyTorch SymmetricMemory (B200), DeepEP, NVSHMEM.
    {"nccl", "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "communication",
     kComm},
    {"symmetric memory",
     "void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, "
     "unsigned long, unsigned int**, unsigned long, unsigned long)",
     "communication", kComm},
    // DeepEP (deepseek-ai/DeepEP csrc/kernels), DeepSeek's dpsk::ep build (the 64-rank
    // trace) and NVSHMEM: not in the shared traces, the names are constructed.
    {"deepep", "void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*, long*)",
     "communication", kComm},
    {"dpsk ep",
     "void dpsk::ep::internode::combine<__nv_bfloat16, 8, 512>(int4*, float*, int const*, void*)",
     "communication", kComm},
    {"nvshmem", "void nvshmemi_barrier_all_kernel<int>(int)", "communication", kComm},
    // A compute kernel whose template arguments name a collective is not communication
    // (constructed).
    {"compute with comm template arg",
     "void at::native::vectorized_elementwise_kernel<4, FunctorForAllReduceScale<float>, "
     "std::array<char*, 2ul> >(int, FunctorForAllReduceScale<float>, std::array<char*, 2ul>)",
     "elementwise", kComp},
    // MTIA DMA ops are copies (the name follows the MTIA fixture's mtia:: op names).
    {"mtia dma", "mtia::dma_copy_h2d", "memory", kMem},
};

TEST(KernelClassTest, FamiliesFromTheFunctionName) {
  for (const Row& r : kRows) {
    GpuOp op;
    op.kind = GpuOpKind::kKernel;
    EXPECT_EQ(KernelCategory(op, r.name), r.category) << r.family;
    EXPECT_EQ(ClassifyKernel(op, r.name), r.type) << r.family;
  }
}

TEST(KernelClassTest, FunctionName) {
  EXPECT_EQ(KernelFunctionName("void moe::dev::finalize::finalizeKernelVecLoad<cutlass::x>(int)"),
            "moe::dev::finalize::finalizekernelvecload");
  EXPECT_EQ(KernelFunctionName("nvjet_tst_64x64"), "nvjet_tst_64x64");
  EXPECT_EQ(KernelFunctionName("void (anonymous namespace)::multimem_all_reduce_kernel<int>(int)"),
            "multimem_all_reduce_kernel");
  EXPECT_EQ(KernelFunctionName("void cutlass::device_kernel<flash::FlashAttnFwdSm90<int> >(int)"),
            "flash::flashattnfwdsm90");
  EXPECT_EQ(KernelFunctionName("void f<(((8)>(0)))>() const"), "f");
  EXPECT_EQ(KernelFunctionName(""), "");
}

// HTA's own rule is unchanged: only NCCL/RCCL are communication, memcpy/memset are memory.
TEST(KernelClassTest, HtaRuleUnchanged) {
  GpuOp op;
  op.kind = GpuOpKind::kKernel;
  EXPECT_EQ(ClassifyHta(op, "void deep_ep::intranode::dispatch<8>(int)"), kComp);
  EXPECT_EQ(ClassifyHta(op, "mtia::dma_copy_h2d"), kComp);
  EXPECT_EQ(ClassifyHta(op, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)"), kComm);
}

}  // namespace
}  // namespace gpuvet
