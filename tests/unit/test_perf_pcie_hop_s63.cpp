// PCIe ring hops (session 63). A TP group of PCIe cards (no NVLink between them) all-reduces through
// the host's root complex or a PCIe switch, and GeForce cards, without peer access, through host
// memory. perf charged such a hop NVLink's ~1 us, so an all-reduce of a decode step's few KB over 8
// PCIe GPUs cost 14 us where NCCL measures 42 us on RTX 4090s (NVIDIA/nccl#1530) and 54 us on RTX
// 3090s (NVIDIA/nccl#1439). GLM-4.6-FP8 at TP 8 on RTX PRO 6000s decoded one sequence at 28.94 ms
// per token against 11.85 ms estimated (tools/heldout/community-2026aj.json, cloudrift-ai
// server-benchmark): 184 all-reduces a token, all latency at batch 1.
#include <catch2/catch.hpp>

#include <gpuplan/comm.hpp>
#include <gpuplan/perf.hpp>

#include "test_support.hpp"

using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using gpuplan::test::cat;

TEST_CASE("comm: a PCIe group's ring hop costs kPcieHopLatencyS, NVLink's and the roofline's do not", "[perf][comm][s63]") {
  const auto& l40s = cat().gpu("l40s");
  const auto pcie = gpuplan::group_link(l40s, 8, 8, 50e9, 1.0, 1e-6);
  CHECK(pcie.over_pcie);
  CHECK_FALSE(pcie.crosses_nodes);
  CHECK_THAT(pcie.hop_latency_s, WithinRel(gpuplan::kPcieHopLatencyS, 1e-12));
  // The roofline charges no hop at all, on PCIe too.
  CHECK_THAT(gpuplan::group_link(l40s, 8, 8, 50e9, 1.0, 0.0).hop_latency_s, WithinAbs(0.0, 0.0));
  // NVLink inside the domain keeps the calibrated 1 us; across nodes the network's 5 us still wins.
  const auto nvlink = gpuplan::group_link(cat().gpu("h100-sxm"), 8, 8, 50e9, 1.0, 1e-6);
  CHECK_FALSE(nvlink.over_pcie);
  CHECK_THAT(nvlink.hop_latency_s, WithinRel(1e-6, 1e-12));
  CHECK_THAT(gpuplan::group_link(l40s, 16, 8, 50e9, 1.0, 1e-6).hop_latency_s,
             WithinRel(gpuplan::kNetworkHopLatencyS, 1e-12));
  // A larger calibrated hop is never lowered.
  CHECK_THAT(gpuplan::group_link(l40s, 8, 8, 50e9, 1.0, 4e-6).hop_latency_s, WithinRel(4e-6, 1e-12));
}

TEST_CASE("comm: an 8-byte all-reduce over 8 PCIe RTX 4090s takes NCCL's measured 42 us", "[perf][comm][s63]") {
  // nccl#1530: 'all_reduce_perf -g 8' on 8 x RTX 4090, size 8 B, out-of-place 42.14 us (in-place
  // 40.06): 2 x (8 - 1) ring hops, the bytes negligible.
  const auto link = gpuplan::group_link(cat().gpu("rtx-4090"), 8, 8, 50e9, 0.8, 1e-6);
  CHECK(link.over_pcie);
  const double t = gpuplan::allreduce_s(8.0, 8, link);
  CHECK_THAT(t, WithinRel(14 * 3e-6, 0.01));
  CHECK(t > 40.06e-6);
  CHECK(t < 42.14e-6 * 1.05);
}

TEST_CASE("perf: TP 8 decode over PCIe pays two latency-bound all-reduces a layer at 3 us a hop", "[perf][s63]") {
  gpuplan::PerfRequest req;
  req.fit.layout = gpuplan::Layout{.tp = 8};
  req.fit.weights_dtype = gpuplan::DType::bf16;
  req.input_tokens = 1000;
  req.output_tokens = 1000;
  const auto& m = cat().model("llama-3.1-8b");  // 32 layers, hidden 4096
  const gpuplan::PerfModel l40s(m, cat().gpu("l40s"), req);
  const gpuplan::PerfModel h100(m, cat().gpu("h100-sxm"), req);
  const double pcie_s = l40s.evaluate(1, gpuplan::Efficiency{}).decode.communication_s;
  const double nvlink_s = h100.evaluate(1, gpuplan::Efficiency{}).decode.communication_s;
  // 2 all-reduces x 32 layers x 14 hops x 3 us = 2.688 ms of latency, plus a few us of bytes
  // (2 x 7/8 x 8 KB at tens of GB/s). At NVLink's 1 us a hop it was 0.9 ms.
  const double latency_s = 2.0 * 32 * 14 * gpuplan::kPcieHopLatencyS;
  CHECK(pcie_s >= latency_s);
  CHECK(pcie_s < latency_s * 1.25);
  CHECK(nvlink_s < 2.0 * 32 * 14 * 1.5e-6);
  // The roofline (best case) still charges no hop.
  gpuplan::Efficiency best = gpuplan::Efficiency::roofline();
  CHECK(l40s.evaluate(1, best).decode.communication_s < latency_s / 10);
}

TEST_CASE("perf: an engine's own all-reduce over PCIe peers skips NCCL's hop latency", "[perf][s63]") {
  // TensorRT-LLM's custom all-reduce on any group of P2P cards, vLLM's and SGLang's on two PCIe
  // GPUs, exchange through peer-mapped buffers in one kernel; GeForce cards have no peer access and
  // only NCCL's host-staged ring.
  const auto& m = cat().model("llama-3.1-8b");
  const auto comm = [&](const char* gpu, std::uint64_t tp, gpuplan::Engine kernels) {
    gpuplan::PerfRequest req;
    req.fit.layout = gpuplan::Layout{.tp = tp};
    req.fit.weights_dtype = gpuplan::DType::bf16;
    req.input_tokens = 1000;
    req.output_tokens = 1000;
    req.kernels = kernels;
    return gpuplan::PerfModel(m, cat().gpu(gpu), req).evaluate(1, gpuplan::Efficiency{}).decode.communication_s;
  };
  const double nccl_tp8 = 2.0 * 32 * 14 * gpuplan::kPcieHopLatencyS;
  CHECK(comm("l40s", 8, gpuplan::Engine::vllm) >= nccl_tp8);
  CHECK(comm("l40s", 8, gpuplan::Engine::trtllm) < nccl_tp8 / 2);
  // TP 2: 2 hops an all-reduce, 64 all-reduces: 0.384 ms at 3 us, 0.128 ms at 1 us.
  const double nccl_tp2 = 2.0 * 32 * 2 * gpuplan::kPcieHopLatencyS;
  CHECK(comm("l40s", 2, gpuplan::Engine::vllm) < nccl_tp2);
  CHECK(comm("rtx-4090", 2, gpuplan::Engine::vllm) >= nccl_tp2);
  CHECK(comm("rtx-4090", 8, gpuplan::Engine::trtllm) >= nccl_tp8);
}
