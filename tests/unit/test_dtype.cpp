#include <catch2/catch.hpp>

#include <gpuplan/dtype.hpp>
#include <gpuplan/error.hpp>

using Catch::Matchers::WithinRel;
using gpuplan::DType;

TEST_CASE("dtype: widths include quantization scales", "[dtype]") {
  CHECK_THAT(gpuplan::bits_per_element(DType::bf16), WithinRel(16.0, 1e-12));
  CHECK_THAT(gpuplan::bits_per_element(DType::fp8), WithinRel(8.0, 1e-12));
  // DESIGN.md: INT4 with a 16-bit scale per group of 128 is 4.125 bits.
  CHECK_THAT(gpuplan::bits_per_element(DType::int4), WithinRel(4.125, 1e-12));
  CHECK_THAT(gpuplan::bits_per_element(DType::fp4), WithinRel(4.5, 1e-12));
  CHECK_THAT(gpuplan::bits_per_element(DType::mxfp4), WithinRel(4.25, 1e-12));
  CHECK(gpuplan::is_quantized(DType::fp8));
  CHECK_FALSE(gpuplan::is_quantized(DType::fp16));
}

TEST_CASE("dtype: names round-trip and unknown names list the known ones", "[dtype]") {
  for (DType d : gpuplan::all_dtypes()) {
    CHECK(gpuplan::parse_dtype(gpuplan::to_string(d), "x") == d);
  }
  CHECK_THROWS_WITH(gpuplan::parse_dtype("fp6", "--weights-dtype"),
                    "--weights-dtype: unknown dtype 'fp6'; closest: fp16; known: fp32, bf16, fp16, fp8, int8, int4, fp4, mxfp4");
  CHECK_THROWS_WITH(gpuplan::parse_kv_dtype("int4", "--kv-dtype"),
                    "--kv-dtype: unknown KV-cache dtype 'int4'; closest: int8; known: fp32, bf16, fp16, fp8, int8");
}
