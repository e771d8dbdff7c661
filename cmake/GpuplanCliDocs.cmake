# Shell completions and the man page, generated from the built binary's --help so they list its
# real commands and options, and installed with it. The man page needs help2man (Debian package
# help2man); without it the man page is skipped with a note.
set(cli_docs_dir "${PROJECT_BINARY_DIR}/cli-docs")
set(cli_docs "${cli_docs_dir}/gpuplan.bash" "${cli_docs_dir}/_gpuplan" "${cli_docs_dir}/commands.h2m")
add_custom_command(
  OUTPUT ${cli_docs}
  COMMAND ${CMAKE_COMMAND} -E make_directory "${cli_docs_dir}"
  COMMAND ${CMAKE_COMMAND} -DGPUPLAN=$<TARGET_FILE:gpuplan> -DOUT_DIR=${cli_docs_dir}
          -P ${PROJECT_SOURCE_DIR}/cmake/GenerateCliDocs.cmake
  DEPENDS gpuplan "${PROJECT_SOURCE_DIR}/cmake/GenerateCliDocs.cmake"
  COMMENT "Generating shell completions from gpuplan --help"
  VERBATIM)
find_program(HELP2MAN help2man)
if(HELP2MAN)
  set(man_page "${cli_docs_dir}/gpuplan.1")
  add_custom_command(
    OUTPUT "${man_page}"
    # Run through PATH so the usage lines say "gpuplan", not the build path.
    COMMAND ${CMAKE_COMMAND} -E env "PATH=$<TARGET_FILE_DIR:gpuplan>:$ENV{PATH}"
            ${HELP2MAN} --no-info --name "capacity planner for LLM inference on GPUs"
            --include "${cli_docs_dir}/commands.h2m" --output "${man_page}" gpuplan
    DEPENDS gpuplan ${cli_docs}
    COMMENT "Generating the man page with help2man"
    VERBATIM)
  list(APPEND cli_docs "${man_page}")
  install(FILES "${man_page}" DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "help2man not found: no man page (apt-get install help2man)")
endif()
add_custom_target(gpuplan_cli_docs ALL DEPENDS ${cli_docs})
install(FILES "${cli_docs_dir}/gpuplan.bash" RENAME gpuplan
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES "${cli_docs_dir}/_gpuplan" DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
