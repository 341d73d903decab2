# dralloc_library(NAME SRCS ... DEPS ...): one static library per src/ folder.
# Headers are included as "common/status.h", "api/codec.h", relative to src/.
function(dralloc_library name)
  cmake_parse_arguments(ARG "" "" "SRCS;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SRCS})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
endfunction()

# dralloc_test(NAME SRCS ... DEPS ...): one GoogleTest program per folder,
# registered with CTest as a single test whose working directory is the
# source root (so tests can read tests/ and examples/ by relative path).
function(dralloc_test name)
  if(NOT DRALLOC_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "SRCS;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SRCS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  add_test(NAME ${name} COMMAND ${name} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endfunction()
