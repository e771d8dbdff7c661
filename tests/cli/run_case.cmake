# Runs one CLI golden case: cmake -DGPUPLAN=<exe> -DCASE=<dir>/<name> -P run_case.cmake
#   <name>.args  arguments, one line, shell-like quoting
#   <name>.env   optional NAME=VALUE lines for the environment
#   <name>.out   expected stdout, then "--- stderr ---" and stderr when there is any
#   <name>.code  expected exit code
file(READ "${CASE}.args" args_line)
string(STRIP "${args_line}" args_line)
separate_arguments(args UNIX_COMMAND "${args_line}")
set(ENV{GPUPLAN_CATALOG} "")
# Price ages are counted to a fixed day so outputs do not change with the calendar.
set(ENV{GPUPLAN_TODAY} "2026-12-01")
if(EXISTS "${CASE}.env")
  file(STRINGS "${CASE}.env" env_lines)
  foreach(line IN LISTS env_lines)
    string(REGEX MATCH "^([A-Za-z_][A-Za-z0-9_]*)=(.*)$" _ "${line}")
    set(ENV{${CMAKE_MATCH_1}} "${CMAKE_MATCH_2}")
  endforeach()
endif()
execute_process(COMMAND "${GPUPLAN}" ${args}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE code)
if(NOT err STREQUAL "")
  string(APPEND out "--- stderr ---\n${err}")
endif()
# Provenance changes with every catalog edit; goldens keep its place, not its value.
string(REGEX REPLACE "fnv1a64:[0-9a-f]+" "fnv1a64:<catalog>" out "${out}")
string(REGEX REPLACE "\"newest_price_date\": \"[0-9-]+\"" "\"newest_price_date\": \"<date>\"" out "${out}")
string(REGEX REPLACE "newest price [0-9-]+" "newest price <date>" out "${out}")
if(UPDATE OR "$ENV{GPUPLAN_UPDATE_GOLDEN}")
  file(WRITE "${CASE}.out" "${out}")
  file(WRITE "${CASE}.code" "${code}\n")
  return()
endif()
file(READ "${CASE}.out" want_out)
file(STRINGS "${CASE}.code" want_code LIMIT_COUNT 1)
if(NOT code STREQUAL want_code OR NOT out STREQUAL want_out)
  message(FATAL_ERROR "exit ${code} (want ${want_code})\n--- got ---\n${out}--- want ---\n${want_out}")
endif()
