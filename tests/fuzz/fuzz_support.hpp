#pragma once
// What every fuzz target shares: bad input must end in gpuplan::InputError (exit 2), never in
// another exception, a signal or a non-finite figure. Anything else aborts so libFuzzer keeps
// the input.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>

#include <gpuplan/error.hpp>

namespace gpuplan::fuzz {

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Runs `body`; InputError is the expected answer to bad input, anything else is a finding.
template <typename Body>
void expect_input_errors_only(Body&& body) {
  try {
    body();
  } catch (const InputError&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: unexpected exception (exit 3 in the CLI): %s\n", e.what());
    std::abort();
  }
}

/// A figure the library returned must be finite and not negative.
inline void require_figure(double x, const char* what) {
  if (!std::isfinite(x) || x < 0) {
    std::fprintf(stderr, "fuzz: %s is %g\n", what, x);
    std::abort();
  }
}

}  // namespace gpuplan::fuzz
