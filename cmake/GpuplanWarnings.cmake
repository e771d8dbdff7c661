# gpuplan_warnings: the warning set every gpuplan target links privately.
add_library(gpuplan_warnings INTERFACE)
target_compile_options(gpuplan_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wold-style-cast
  -Wnon-virtual-dtor -Woverloaded-virtual -Wdouble-promotion -Wformat=2
  -Wimplicit-fallthrough -Wcast-align -Werror=float-equal
  # Designated initialisers that leave members at their defaults are the intended style
  # (FitRequest{.concurrency = 64}); g++ 12 would warn on every one of them.
  -Wno-missing-field-initializers)
# -Wnull-dereference is left out: with optimisation g++ 12 reports it inside libstdc++'s
# std::string as inlined into CLI11 (a false positive no source change here can avoid).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_compile_options(gpuplan_warnings INTERFACE
    -Wduplicated-cond -Wduplicated-branches -Wlogical-op -Wuseless-cast)
endif()
if(GPUPLAN_WARNINGS_AS_ERRORS)
  target_compile_options(gpuplan_warnings INTERFACE -Werror)
endif()
