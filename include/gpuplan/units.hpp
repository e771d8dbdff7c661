#pragma once
// Scale factors and edge conversions. The only place 1e9 / 1024 / 8 appear as unit factors:
// code stores SI base units (bytes, bytes/s, FLOP/s, s, W, USD) and converts only at the edges.

#include <cstdint>
#include <string_view>

namespace gpuplan::units {

inline constexpr double kBitsPerByte = 8.0;
inline constexpr double kKB = 1e3;
inline constexpr double kMB = 1e6;
inline constexpr double kGB = 1e9;                        ///< decimal: datasheets, default display
inline constexpr double kTB = 1e12;
inline constexpr double kKiB = 1024.0;
inline constexpr double kMiB = 1024.0 * 1024.0;           ///< nvidia-smi reports MiB
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;  ///< binary: nvidia-smi, --units gib
inline constexpr double kTera = 1e12;                     ///< TFLOP/s -> FLOP/s
inline constexpr double kGiga = 1e9;                      ///< "B" in "70B" parameters
inline constexpr double kMega = 1e6;                      ///< "per million tokens"
inline constexpr double kSecondsPerHour = 3600.0;
inline constexpr double kJoulesPerKwh = 3.6e6;

/// Network links are quoted in bits: 400 Gb/s InfiniBand moves 50e9 bytes/s.
constexpr double gbit_per_s_to_bytes_per_s(double gbit_per_s) {
  return gbit_per_s * kGiga / kBitsPerByte;
}

/// Parses a byte size >= 0 such as "1.5GiB", "2GB", "512MiB" or "0". Decimal suffixes (kB, MB,
/// GB, TB) are powers of 1000 and binary ones (KiB, MiB, GiB, TiB) powers of 1024; suffixes are
/// case-insensitive and required except for zero. Throws InputError naming `field`.
double parse_bytes(std::string_view text, std::string_view field);

/// Parses a count with an optional decimal suffix: "744B" (1e9), "8.03b", "70e9", "1.5T", "350M".
/// Throws InputError naming `field`.
double parse_count(std::string_view text, std::string_view field);

}  // namespace gpuplan::units
