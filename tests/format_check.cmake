# The C++ of app/, tuner/ and tests/ follows .clang-format: run as a test so a
# change that is not formatted fails CI with the files to fix.
#   cmake -DCLANG_FORMAT=... -DSOURCE_DIR=... -P tests/format_check.cmake
# Kernels (kernels/) are left as written: their inline PTX is laid out by hand.
if(NOT CLANG_FORMAT)
  message("clang-format not found: the format check is skipped (install clang-format)")
  return()
endif()
file(GLOB_RECURSE files RELATIVE ${SOURCE_DIR}
  ${SOURCE_DIR}/app/*.cpp ${SOURCE_DIR}/app/*.hpp
  ${SOURCE_DIR}/tuner/*.cpp ${SOURCE_DIR}/tuner/*.hpp
  ${SOURCE_DIR}/tests/*.cpp ${SOURCE_DIR}/tests/*.hpp)
list(LENGTH files count)
execute_process(COMMAND ${CLANG_FORMAT} --dry-run -Werror ${files}
  WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE rc ERROR_VARIABLE diagnostics)
if(NOT rc EQUAL 0)
  string(REGEX MATCHALL "[^\n:]+:[0-9]+:[0-9]+: error" where "${diagnostics}")
  list(TRANSFORM where REPLACE ":[0-9]+:[0-9]+: error$" "")
  list(REMOVE_DUPLICATES where)
  string(REPLACE ";" "\n  " where "${where}")
  message(FATAL_ERROR "not formatted (run clang-format -i on them):\n  ${where}")
endif()
message("${count} files follow .clang-format")
