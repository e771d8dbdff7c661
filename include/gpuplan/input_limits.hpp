#pragma once
// Explicit limits on what gpuplan reads, so any input costs bounded time and memory and every
// rejection is one short line. No real catalog, config.json, benchmarks file or command line
// comes near them; hostile ones (a 60 MB key, a million-element array, 60,000 batch sizes) fail
// fast with exit 2 instead of taking seconds and gigabytes.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <string_view>

namespace gpuplan::limits {

/// Catalogs, config.json, benchmarks and measured-point files (the shipped catalog is < 100 kB).
inline constexpr std::uintmax_t kMaxFileBytes = 16u << 20;
/// model.safetensors.index.json lists every tensor (a 1T-parameter MoE: ~15 MB); only its
/// metadata is kept, the weight map is skipped while parsing.
inline constexpr std::uintmax_t kMaxIndexFileBytes = 64u << 20;
/// JSON nesting: copying or walking a value recurses per level.
inline constexpr int kMaxJsonDepth = 64;
/// JSON values kept in one document (every number, string, array and object counts one): the
/// parsed tree stays near 20 MB whatever the file holds (the shipped catalog has ~30,000).
inline constexpr std::size_t kMaxJsonValues = 200'000;
/// One JSON object key, and one JSON string value.
inline constexpr std::size_t kMaxJsonKeyBytes = 256;
inline constexpr std::size_t kMaxJsonStringBytes = 64u << 10;
/// One command-line argument (a path, a name, a comma-separated list).
inline constexpr std::size_t kMaxArgumentBytes = 4096;
/// Values of one list flag (--batch 1,8,64; repeated --gpu, --price, --measured ...).
inline constexpr std::size_t kMaxListItems = 256;
/// GPUs in a layout, a benchmark row, a cost or a scaling curve (65,536 is past any single job;
/// the cap keeps searches and products finite).
inline constexpr std::uint64_t kMaxGpus = 1u << 16;
/// The range of a limit a deployment is held to, the same whether a flag (--max-itl-ms,
/// --max-ttft-ms, --max-usd-per-mtok) or a plan file's expectation (max_itl_ms, ...) gives it: a
/// plan's "max_itl_ms": 1e-308 was a FAIL (exit 1) where the flag refused it (helper s55 F3).
inline constexpr double kMinLatencyLimitMs = 1e-3;
inline constexpr double kMaxLatencyLimitMs = 1e7;
inline constexpr double kMinUsdPerMtokLimit = 1e-6;
inline constexpr double kMaxUsdPerMtokLimit = 1e6;
/// Output tokens per second (--min-tokens-per-s-per-user, a plan's min_output_tokens_per_s), and
/// a monthly bill (a plan's max_monthly_usd): below these no deployment is meant.
inline constexpr double kMinTokensPerSLimit = 1e-3;
inline constexpr double kMinMonthlyUsdLimit = 1e-6;
/// A deployment's latency targets in the library's seconds (plan's and scale's): an hour of ITL,
/// a day of TTFT.
inline constexpr double kMaxItlLimitS = 3600.0;
inline constexpr double kMaxTtftLimitS = 86400.0;
/// Characters of offending input an error message quotes.
inline constexpr std::size_t kMaxQuotedChars = 40;

/// `text` if short, else its first kMaxQuotedChars characters and "... (N bytes)"; control
/// characters are shown as '?', so the message stays one line.
std::string excerpt(std::string_view text);
/// `text` with control characters (ESC, NUL, newline, DEL) as \xNN and bidirectional controls as
/// bidi_escaped does: names echoed back must not drive the terminal (an ESC sequence in --unit
/// cleared the screen).
std::string escaped(std::string_view text);
/// `text` with the bidirectional controls (U+202A..U+202E, U+2066..U+2069) as "<U+202E>": quoted
/// input must not reverse the rest of a terminal line.
std::string bidi_escaped(std::string_view text);

/// Reads all of `in`, but throws InputError "<what> is larger than the limit of N MiB" as soon
/// as it passes `max_bytes` (a pipe may never end).
std::string read_stream(std::istream& in, std::string_view what, std::uintmax_t max_bytes = kMaxFileBytes);

/// Whether an optional file (a sidecar beside config.json) is there: false when no entry has the
/// name, true for a regular file or a link to one; anything else under the name (a directory, a
/// FIFO, a dangling link, a link loop) throws InputError "<path>: <what> is ...", as reading it as
/// absent would size the checkpoint without what it says.
bool optional_file_present(const std::filesystem::path& path, std::string_view what);

/// For inputs read as a stream (batch's requests, scale's --measured-file): throws InputError
/// "<flag>: <path> is ..." for a directory, a device (/dev/zero never ends), a socket or a named
/// FIFO (which blocks until a writer comes); a regular file and a pipe given as /dev/fd/N (a
/// shell's <(...)) pass.
void check_stream_input(const std::filesystem::path& path, std::string_view flag);

/// Reads a regular file of at most `max_bytes`; anything else (missing, a directory, a device,
/// too large, unreadable) throws InputError "<path>: <what> ...".
std::string read_text_file(const std::filesystem::path& path, std::string_view what,
                           std::uintmax_t max_bytes = kMaxFileBytes);

}  // namespace gpuplan::limits
