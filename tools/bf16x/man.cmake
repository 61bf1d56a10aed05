# Writes the man page bf16x.1 from the CLI's own --help texts (the top level and every subcommand's), so that the
# page lists exactly the subcommands and options the binary has, with their defaults.
# cmake -DCLI=<bf16x> -DOUT=<bf16x.1> -DVERSION=<x.y.z> -P man.cmake
set(ENV{ASAN_OPTIONS} "detect_leaks=0")  # a sanitizer build runs the CLI here too

function(help_of out)
  execute_process(COMMAND ${CLI} ${ARGN} --help OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${CLI} ${ARGN} --help exited ${rc}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Preformatted roff: backslashes escaped, and a line starting with . or ' is not taken for a request.
function(roff_block out text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} ".nf\n${text}.fi\n" PARENT_SCOPE)
endfunction()

help_of(top)
# The subcommands: the lines of the "Subcommands:" section, up to the blank line after it.
string(REGEX MATCH "Subcommands:\n([^\n]+\n)+" section "${top}")
string(REGEX MATCHALL "\n  [a-z]+ " names "${section}")
if(NOT names)
  message(FATAL_ERROR "no subcommands in bf16x --help")
endif()

roff_block(body "${top}")
set(page ".TH BF16X 1 \"\" \"bf16x ${VERSION}\" \"User Commands\"\n")
string(APPEND page ".SH NAME\nbf16x \\- FP32/FP64 GEMM from BF16 and INT8 matrix-engine products: demo, accuracy, ")
string(APPEND page "speed and bit-for-bit checks\n")
string(APPEND page ".SH SYNOPSIS\n.B bf16x\n.I subcommand\n[\\fIoptions\\fR]\n.br\n.B bf16x\n[\\fB\\-\\-help\\fR] ")
string(APPEND page "[\\fB\\-\\-version\\fR]\n.SH DESCRIPTION\n")
string(APPEND page "This page is generated from the output of \\fBbf16x \\-\\-help\\fR and of each subcommand's ")
string(APPEND page "\\fB\\-\\-help\\fR at build time.\n")
string(APPEND page "${body}.SH SUBCOMMANDS\n")
foreach(name IN LISTS names)
  string(STRIP "${name}" name)
  help_of(sub ${name})
  roff_block(block "${sub}")
  string(APPEND page ".SS bf16x ${name}\n${block}")
endforeach()
string(APPEND page ".SH SEE ALSO\nREADME.md and docs/ in the bf16x source tree; LICENSE in the documentation ")
string(APPEND page "directory.\n")
file(WRITE "${OUT}" "${page}")
