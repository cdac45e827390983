// Hand-written PTX for the bench kernels (contracts in ptx_kernels.h). Only the FMA kernel's
// unrolled block is generated, from kFmaChains x kFmaUnroll, so the count the FLOP formula uses and
// the instructions the GPU runs cannot drift apart.
#include "sources/cuda/ptx_kernels.h"

#include <fmt/format.h>

#include <cstring>
#include <vector>

namespace gpuvet {

namespace {

// PTX ISA 6.0 (CUDA 9.0) and sm_50: old enough for every driver that supports Volta, and any newer
// GPU JIT-compiles PTX written for an older target. 64-bit addresses only.
constexpr std::string_view kHeader = R"(.version 6.0
.target sm_50
.address_size 64

)";

constexpr std::string_view kEmpty = R"(.visible .entry gpuvet_empty()
{
	ret;
}
)";

// i = ctaid.x * ntid.x + tid.x; stride = nctaid.x * ntid.x; 64-bit indices so n may exceed 2^32.
constexpr std::string_view kCopy = R"(.visible .entry gpuvet_copy(
	.param .u64 gpuvet_copy_dst,
	.param .u64 gpuvet_copy_src,
	.param .u64 gpuvet_copy_n
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<9>;
	.reg .b64 %rd<10>;

	ld.param.u64 %rd1, [gpuvet_copy_dst];
	ld.param.u64 %rd2, [gpuvet_copy_src];
	ld.param.u64 %rd3, [gpuvet_copy_n];
	cvta.to.global.u64 %rd1, %rd1;
	cvta.to.global.u64 %rd2, %rd2;
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mov.u32 %r4, %nctaid.x;
	mul.wide.u32 %rd4, %r1, %r2;
	cvt.u64.u32 %rd5, %r3;
	add.u64 %rd4, %rd4, %rd5;
	mul.wide.u32 %rd6, %r4, %r2;
	setp.ge.u64 %p1, %rd4, %rd3;
	@%p1 bra $Lcopy_done;
$Lcopy_loop:
	shl.b64 %rd7, %rd4, 4;
	add.u64 %rd8, %rd2, %rd7;
	ld.global.nc.v4.u32 {%r5, %r6, %r7, %r8}, [%rd8];
	add.u64 %rd9, %rd1, %rd7;
	st.global.v4.u32 [%rd9], {%r5, %r6, %r7, %r8};
	add.u64 %rd4, %rd4, %rd6;
	setp.lt.u64 %p1, %rd4, %rd3;
	@%p1 bra $Lcopy_loop;
$Lcopy_done:
	ret;
}
)";

constexpr std::string_view kTriad = R"(.visible .entry gpuvet_triad(
	.param .u64 gpuvet_triad_a,
	.param .u64 gpuvet_triad_b,
	.param .u64 gpuvet_triad_c,
	.param .f32 gpuvet_triad_s,
	.param .u64 gpuvet_triad_n
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<5>;
	.reg .f32 %f<14>;
	.reg .b64 %rd<13>;

	ld.param.u64 %rd1, [gpuvet_triad_a];
	ld.param.u64 %rd2, [gpuvet_triad_b];
	ld.param.u64 %rd3, [gpuvet_triad_c];
	ld.param.f32 %f13, [gpuvet_triad_s];
	ld.param.u64 %rd4, [gpuvet_triad_n];
	cvta.to.global.u64 %rd1, %rd1;
	cvta.to.global.u64 %rd2, %rd2;
	cvta.to.global.u64 %rd3, %rd3;
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mov.u32 %r4, %nctaid.x;
	mul.wide.u32 %rd5, %r1, %r2;
	cvt.u64.u32 %rd6, %r3;
	add.u64 %rd5, %rd5, %rd6;
	mul.wide.u32 %rd7, %r4, %r2;
	setp.ge.u64 %p1, %rd5, %rd4;
	@%p1 bra $Ltriad_done;
$Ltriad_loop:
	shl.b64 %rd8, %rd5, 4;
	add.u64 %rd9, %rd2, %rd8;
	add.u64 %rd10, %rd3, %rd8;
	add.u64 %rd11, %rd1, %rd8;
	ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd9];
	ld.global.nc.v4.f32 {%f5, %f6, %f7, %f8}, [%rd10];
	fma.rn.f32 %f9, %f5, %f13, %f1;
	fma.rn.f32 %f10, %f6, %f13, %f2;
	fma.rn.f32 %f11, %f7, %f13, %f3;
	fma.rn.f32 %f12, %f8, %f13, %f4;
	st.global.v4.f32 [%rd11], {%f9, %f10, %f11, %f12};
	add.u64 %rd5, %rd5, %rd7;
	setp.lt.u64 %p1, %rd5, %rd4;
	@%p1 bra $Ltriad_loop;
$Ltriad_done:
	ret;
}
)";

// Registers %x0..%x7 are the chains, seeded from the thread index so each thread's values differ;
// {seed}, {block} and {sum} are replaced by the generated lines (FmaBody).
constexpr std::string_view kFmaTemplate = R"(.visible .entry gpuvet_fma(
	.param .u64 gpuvet_fma_out,
	.param .u32 gpuvet_fma_iterations,
	.param .f32 gpuvet_fma_a,
	.param .f32 gpuvet_fma_b
)
{{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .f32 %f<4>;
	.reg .f32 %x<{chains}>;
	.reg .b64 %rd<4>;

	ld.param.u64 %rd1, [gpuvet_fma_out];
	ld.param.u32 %r5, [gpuvet_fma_iterations];
	ld.param.f32 %f1, [gpuvet_fma_a];
	ld.param.f32 %f2, [gpuvet_fma_b];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.u32 %r4, %r1, %r2, %r3;
	cvt.rn.f32.u32 %f3, %r4;
{seed}	setp.eq.u32 %p1, %r5, 0;
	@%p1 bra $Lfma_store;
$Lfma_loop:
{block}	sub.u32 %r5, %r5, 1;
	setp.ne.u32 %p1, %r5, 0;
	@%p1 bra $Lfma_loop;
$Lfma_store:
{sum}	mul.wide.u32 %rd2, %r4, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.f32 [%rd3], %x0;
	ret;
}}
)";

std::string FmaBody() {
  std::string seed, block, sum;
  for (int k = 0; k < kFmaChains; ++k) {
    // x_k = thread * 1e-6 + k / 8: distinct, small, finite starting values (0f358637BD = 1e-6).
    const float offset = static_cast<float>(k) / 8.0f;
    uint32_t bits;
    static_assert(sizeof(bits) == sizeof(offset));
    std::memcpy(&bits, &offset, sizeof(bits));
    seed += fmt::format("\tfma.rn.f32 %x{}, %f3, 0f358637BD, 0f{:08X};\n", k, bits);
  }
  for (int u = 0; u < kFmaUnroll; ++u) {
    for (int k = 0; k < kFmaChains; ++k) {
      block += fmt::format("\tfma.rn.f32 %x{0}, %x{0}, %f1, %f2;\n", k);
    }
  }
  for (int k = 1; k < kFmaChains; ++k) sum += fmt::format("\tadd.f32 %x0, %x0, %x{};\n", k);
  return fmt::format(kFmaTemplate, fmt::arg("chains", kFmaChains), fmt::arg("seed", seed),
                     fmt::arg("block", block), fmt::arg("sum", sum));
}

constexpr std::string_view kSpin = R"(.visible .entry gpuvet_spin(
	.param .u64 gpuvet_spin_flag,
	.param .u64 gpuvet_spin_max_spins
)
{
	.reg .pred %p<3>;
	.reg .b32 %r<2>;
	.reg .b64 %rd<4>;

	ld.param.u64 %rd1, [gpuvet_spin_flag];
	ld.param.u64 %rd2, [gpuvet_spin_max_spins];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u64 %rd3, 0;
$Lspin_loop:
	ld.volatile.global.u32 %r1, [%rd1];
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra $Lspin_done;
	add.u64 %rd3, %rd3, 1;
	setp.lt.u64 %p2, %rd3, %rd2;
	@%p2 bra $Lspin_loop;
$Lspin_done:
	ret;
}
)";

}  // namespace

std::span<const PtxKernel> AllPtxKernels() {
  static const std::vector<PtxKernel>* kernels = new std::vector<PtxKernel>{
      {kPtxEmptyKernel, std::string(kEmpty)}, {kPtxCopyKernel, std::string(kCopy)},
      {kPtxTriadKernel, std::string(kTriad)}, {kPtxFmaKernel, FmaBody()},
      {kPtxSpinKernel, std::string(kSpin)},
  };
  return *kernels;
}

std::string PtxModuleFor(const PtxKernel& kernel) { return std::string(kHeader) + kernel.body; }

std::string GpuvetPtxModule() {
  std::string text(kHeader);
  for (const PtxKernel& kernel : AllPtxKernels()) text += kernel.body + "\n";
  return text;
}

}  // namespace gpuvet
