#include <cmath>

#include <catch2/catch.hpp>

#include <gpuplan/error.hpp>
#include <gpuplan/units.hpp>

using Catch::Matchers::WithinRel;
namespace units = gpuplan::units;

TEST_CASE("units: GB and GiB are different numbers", "[units]") {
  CHECK_THAT(80 * units::kGiB / units::kGB, WithinRel(85.899345920, 1e-12));
  // 400 Gb/s InfiniBand moves 50 GB/s.
  CHECK_THAT(units::gbit_per_s_to_bytes_per_s(400.0), WithinRel(50e9, 1e-12));
}

TEST_CASE("units: parse_bytes keeps decimal and binary prefixes apart", "[units]") {
  CHECK_THAT(units::parse_bytes("1.5GiB", "--reserve"), WithinRel(1.5 * 1073741824.0, 1e-12));
  CHECK_THAT(units::parse_bytes("2GB", "--reserve"), WithinRel(2e9, 1e-12));
  CHECK_THAT(units::parse_bytes("512 MiB", "--reserve"), WithinRel(512.0 * 1048576.0, 1e-12));
  CHECK_THAT(units::parse_bytes("1000B", "--reserve"), WithinRel(1000.0, 1e-12));
  CHECK(units::parse_bytes("0", "--reserve") < 1.0);
  CHECK(units::parse_bytes("0GB", "--reserve") < 1.0);
  CHECK_THROWS_WITH(units::parse_bytes("1.5", "--reserve"),
                    "--reserve: '1.5' needs a unit (B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)");
  CHECK_THROWS_WITH(units::parse_bytes("2 parsecs", "--reserve"),
                    "--reserve: unknown unit in '2 parsecs' (expected a size such as 1.5GiB or 2GB)");
  CHECK_THROWS_WITH(units::parse_bytes("-1GB", "--reserve"),
                    "--reserve: expected a size such as 1.5GiB or 2GB of zero or more, got '-1GB'");
  CHECK_THROWS_AS(units::parse_bytes("nan", "--reserve"), gpuplan::InputError);
  CHECK_THROWS_AS(units::parse_bytes("", "--reserve"), gpuplan::InputError);
}

TEST_CASE("units: parse_bytes reads a negative zero as zero", "[units]") {
  // "-0GB" printed as "-0.00" in fit's runtime reserve (helper s53 badinput, finding 2).
  CHECK_FALSE(std::signbit(units::parse_bytes("-0GB", "--reserve")));
  CHECK_FALSE(std::signbit(units::parse_bytes("-0.0 MiB", "--memory-in-use")));
  CHECK_FALSE(std::signbit(units::parse_bytes("-0", "--reserve")));
}

TEST_CASE("units: parse_count reads 744B as 744e9", "[units]") {
  CHECK_THAT(units::parse_count("744B", "--params"), WithinRel(744e9, 1e-12));
  CHECK_THAT(units::parse_count("8.03b", "--params"), WithinRel(8.03e9, 1e-12));
  CHECK_THAT(units::parse_count("70e9", "--params"), WithinRel(70e9, 1e-12));
  CHECK_THAT(units::parse_count("1.5T", "--params"), WithinRel(1.5e12, 1e-12));
  CHECK_THROWS_WITH(units::parse_count("70GB", "--params"),
                    "--params: unknown unit in '70GB' (expected a count such as 744B, 70e9 or 350M)");
  CHECK_THROWS_AS(units::parse_count("0B", "--params"), gpuplan::InputError);
  CHECK_THROWS_AS(units::parse_count("inf", "--params"), gpuplan::InputError);
}

// s52 U8: "5Gb" is 5 gigabits by SI convention (0.625 GB); read as bytes it was 8x too much.
TEST_CASE("units: a lower-case b after an upper-case prefix reads as bits and is refused", "[units]") {
  CHECK_THROWS_WITH(units::parse_bytes("5Gb", "--reserve"), Catch::Contains("--reserve: '5Gb' reads as bits") &&
                                                                Catch::Contains("write B (5GB)"));
  CHECK_THROWS_WITH(units::parse_bytes("5Mb", "--memory-in-use"), Catch::Contains("reads as bits"));
  CHECK_THROWS_WITH(units::parse_bytes("5b", "--reserve"), Catch::Contains("reads as bits"));
  // All lower case stays bytes, as it is typed.
  CHECK_THAT(units::parse_bytes("5gb", "--reserve"), WithinRel(5e9, 1e-12));
  CHECK_THAT(units::parse_bytes("1.5gib", "--reserve"), WithinRel(1.5 * 1073741824.0, 1e-12));
}

// s52 U7: 1e300B overflows to inf: the reason is its size, not "greater than zero".
TEST_CASE("units: a count too large to represent says so", "[units]") {
  CHECK_THROWS_WITH(units::parse_count("1e300B", "--params"), Catch::Contains("'1e300B' is too large"));
}
