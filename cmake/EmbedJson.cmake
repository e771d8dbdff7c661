# Build-time script: turn one data/<kind>.json into a C++ source holding it as a string_view.
#   cmake -DIN=<json> -DOUT=<cpp> -DSYMBOL=<name> -P EmbedJson.cmake
# The text is split into chunks so no single literal exceeds compilers' length limits.
file(READ "${IN}" text)
string(FIND "${text}" ")gpuplan_json\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN} contains the raw-string delimiter")
endif()
get_filename_component(name "${IN}" NAME)
string(LENGTH "${text}" len)
set(chunk 16000)
set(body "")
set(pos 0)
while(pos LESS len)
  string(SUBSTRING "${text}" ${pos} ${chunk} piece)
  string(APPEND body "R\"gpuplan_json(${piece})gpuplan_json\"\n")
  math(EXPR pos "${pos} + ${chunk}")
endwhile()
file(WRITE "${OUT}.tmp"
"// Generated from ${name} by cmake/EmbedJson.cmake; do not edit.\n"
"#include <string_view>\n"
"namespace gpuplan::detail {\n"
"extern const std::string_view ${SYMBOL};\n"
"namespace { constexpr char kText[] =\n${body};\n}\n"
"const std::string_view ${SYMBOL}{kText, sizeof(kText) - 1};\n"
"}  // namespace gpuplan::detail\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
