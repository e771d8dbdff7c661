# Precompiled headers: the third-party headers most translation units include (catch.hpp,
# nlohmann/json, fmt, CLI11) are parsed once per target instead of once per source file. This
# is only a build-time saving (a fresh CI build of the three workflows), so it is off when a
# compiler launcher such as ccache is set: ccache would not cache objects built with a PCH
# without extra sloppiness settings, and a warm cache beats a PCH.
if(CMAKE_CXX_COMPILER_LAUNCHER)
  set(gpuplan_pch_default OFF)
else()
  set(gpuplan_pch_default ON)
endif()
option(GPUPLAN_PCH "Precompile the common third-party headers (off with a compiler launcher)"
       ${gpuplan_pch_default})

# gpuplan_precompile_headers(<target> <header>...): <header>s are system headers (<...>).
function(gpuplan_precompile_headers target)
  if(GPUPLAN_PCH)
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()

# The CLI's sources (gpuplan, and fuzz_cli_sources in the fuzz build).
set(GPUPLAN_CLI_PCH <algorithm> <string> <vector> <CLI/CLI.hpp> <fmt/format.h> <fmt/ranges.h>
                    <nlohmann/json.hpp>)
