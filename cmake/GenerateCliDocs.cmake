# Writes the bash and zsh completions and the man page's COMMANDS section from the built binary's
# own --help output, so they list exactly the commands and options it has.
#   cmake -DGPUPLAN=<exe> -DOUT_DIR=<dir> -P GenerateCliDocs.cmake
# Output: <dir>/gpuplan.bash, <dir>/_gpuplan (zsh), <dir>/commands.h2m (help2man --include).
cmake_minimum_required(VERSION 3.25)

# Reads `gpuplan <words> --help`; sets <prefix>_subs (subcommand names), <prefix>_opts (option
# names) and <prefix>_help (the text).
function(read_help prefix)
  execute_process(COMMAND "${GPUPLAN}" ${ARGN} --help OUTPUT_VARIABLE text RESULT_VARIABLE code)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "gpuplan ${ARGN} --help exited ${code}")
  endif()
  string(REPLACE "${GPUPLAN}" "gpuplan" text "${text}")  # "Usage: gpuplan fit", not the build path
  string(REPLACE ";" "," lines "${text}")
  string(REPLACE "\n" ";" lines "${lines}")
  set(section "")
  set(subs "")
  set(opts "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^([A-Za-z]+):$")
      set(section "${CMAKE_MATCH_1}")
    elseif(section STREQUAL "Subcommands" AND line MATCHES "^  ([a-z][a-z0-9-]*)( |$)")
      list(APPEND subs "${CMAKE_MATCH_1}")
    elseif(section STREQUAL "Options" AND line MATCHES "^  (-[^ ]*)")
      string(REPLACE "," ";" names "${CMAKE_MATCH_1}")
      list(APPEND opts ${names})
    endif()
  endforeach()
  set(${prefix}_subs "${subs}" PARENT_SCOPE)
  set(${prefix}_opts "${opts}" PARENT_SCOPE)
  set(${prefix}_help "${text}" PARENT_SCOPE)
endfunction()

read_help(top)
set(cases "")        # "key|words" for both shells; key "" is the top level
set(nested "")       # commands that have subcommands
list(JOIN top_subs " " words)
list(JOIN top_opts " " opts)
list(APPEND cases "|${words}|${opts}")
set(roff "[COMMANDS]\n")
foreach(cmd IN LISTS top_subs)
  read_help(c ${cmd})
  list(JOIN c_subs " " words)
  list(JOIN c_opts " " opts)
  list(APPEND cases "${cmd}|${words}|${opts}")
  string(APPEND roff ".SS \"gpuplan ${cmd}\"\n.nf\n${c_help}.fi\n")
  if(c_subs)
    list(APPEND nested "${cmd}")
    foreach(sub IN LISTS c_subs)
      read_help(s ${cmd} ${sub})
      list(JOIN s_opts " " opts)
      list(APPEND cases "${cmd} ${sub}||${opts}")
      string(APPEND roff ".SS \"gpuplan ${cmd} ${sub}\"\n.nf\n${s_help}.fi\n")
    endforeach()
  endif()
endforeach()
# roff: a backslash is written \e; a line starting with '.' or '\'' would be a request.
string(REPLACE "\\" "\\e" roff "${roff}")
string(REGEX REPLACE "\n([.'])([^SnfS])" "\n\\\\&\\1\\2" roff "${roff}")
list(JOIN nested " " nested)

set(bash_cases "")
set(zsh_cases "")
foreach(entry IN LISTS cases)
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 key)
  list(GET parts 1 words)
  list(GET parts 2 opts)
  string(APPEND bash_cases "    \"${key}\") cmds=\"${words}\" opts=\"${opts}\" ;;\n")
  string(APPEND zsh_cases "    \"${key}\") cmds=(${words}) opts=(${opts}) ;;\n")
endforeach()

file(WRITE "${OUT_DIR}/gpuplan.bash" "# bash completion for gpuplan, generated from 'gpuplan --help' at build time.
_gpuplan() {
  local cur=\${COMP_WORDS[COMP_CWORD]} cmd='' sub='' i w cmds='' opts=''
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=\${COMP_WORDS[i]}
    [[ \$w == -* ]] && continue
    if [[ -z \$cmd ]]; then
      cmd=\$w
    elif [[ -z \$sub && ' ${nested} ' == *\" \$cmd \"* ]]; then
      sub=\$w
    fi
  done
  case \"\$cmd\${sub:+ \$sub}\" in
${bash_cases}    *) return 0 ;;
  esac
  if [[ \$cur == -* ]]; then
    COMPREPLY=(\$(compgen -W \"\$opts\" -- \"\$cur\"))
  elif [[ -n \$cmds ]] && [[ -z \$cmd || -z \$sub ]]; then
    COMPREPLY=(\$(compgen -W \"\$cmds\" -- \"\$cur\"))
  fi
  return 0
}
complete -o default -F _gpuplan gpuplan
")

file(WRITE "${OUT_DIR}/_gpuplan" "#compdef gpuplan
# zsh completion for gpuplan, generated from 'gpuplan --help' at build time.
_gpuplan() {
  local cmd='' sub='' i w
  local -a cmds opts
  for (( i = 2; i < CURRENT; i++ )); do
    w=\${words[i]}
    [[ \$w == -* ]] && continue
    if [[ -z \$cmd ]]; then
      cmd=\$w
    elif [[ -z \$sub && ' ${nested} ' == *\" \$cmd \"* ]]; then
      sub=\$w
    fi
  done
  case \"\$cmd\${sub:+ \$sub}\" in
${zsh_cases}    *) _files; return ;;
  esac
  if [[ \$PREFIX == -* ]]; then
    compadd -a opts
  elif (( \${#cmds} )) && [[ -z \$cmd || -z \$sub ]]; then
    compadd -a cmds
  else
    _files
  fi
}
_gpuplan \"\$@\"
")

file(WRITE "${OUT_DIR}/commands.h2m" "${roff}")
