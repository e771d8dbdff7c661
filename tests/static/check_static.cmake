# Checks that the gpuplan binary of a -DGPUPLAN_STATIC=ON build needs no shared library:
# readelf lists no NEEDED entry (none for libfmt in particular), and the binary runs.
#   cmake -DBINARY=<gpuplan> -P check_static.cmake
find_program(READELF NAMES readelf REQUIRED)
execute_process(COMMAND ${READELF} --dynamic "${BINARY}" OUTPUT_VARIABLE dynamic RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "readelf failed on ${BINARY}")
endif()
if(dynamic MATCHES "libfmt")
  message(FATAL_ERROR "${BINARY} still needs libfmt:\n${dynamic}")
endif()
if(dynamic MATCHES "\\(NEEDED\\)")
  message(FATAL_ERROR "${BINARY} needs shared libraries:\n${dynamic}")
endif()
execute_process(COMMAND "${BINARY}" --version OUTPUT_VARIABLE version RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT version MATCHES "^[0-9]+\\.[0-9]+")
  message(FATAL_ERROR "${BINARY} --version failed (${rc}): ${version}")
endif()
