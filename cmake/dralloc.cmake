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

# dralloc_grpc_library(NAME PROTO_ROOT DIR PROTOS P.proto... [DEPENDS F...]):
# a static library of the C++ and gRPC code that Debian's protoc and
# grpc_cpp_plugin generate for PROTOS (paths relative to DIR, the import
# root). DEPENDS: further files every generation step waits for (protos the
# others import). Headers are included by their proto path, with ".proto"
# replaced by ".pb.h" or ".grpc.pb.h".
function(dralloc_grpc_library name)
  cmake_parse_arguments(ARG "" "PROTO_ROOT" "PROTOS;DEPENDS" ${ARGN})
  find_package(Protobuf REQUIRED)
  find_package(gRPC CONFIG REQUIRED)
  find_program(GRPC_CPP_PLUGIN grpc_cpp_plugin REQUIRED)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/gen)
  set(generated_srcs)
  foreach(proto ${ARG_PROTOS})
    string(REGEX REPLACE "\\.proto$" "" stem ${proto})
    add_custom_command(
      OUTPUT ${out}/${stem}.pb.cc ${out}/${stem}.pb.h
             ${out}/${stem}.grpc.pb.cc ${out}/${stem}.grpc.pb.h
      COMMAND ${CMAKE_COMMAND} -E make_directory ${out}
      COMMAND protobuf::protoc --proto_path=${ARG_PROTO_ROOT}
              --cpp_out=${out} --grpc_out=${out}
              --plugin=protoc-gen-grpc=${GRPC_CPP_PLUGIN}
              ${ARG_PROTO_ROOT}/${proto}
      DEPENDS ${ARG_PROTO_ROOT}/${proto} ${ARG_DEPENDS}
      COMMENT "protoc ${proto}"
      VERBATIM)
    list(APPEND generated_srcs ${out}/${stem}.pb.cc ${out}/${stem}.grpc.pb.cc)
  endforeach()
  add_library(${name} STATIC ${generated_srcs})
  # Generated code: not ours to warn about.
  target_compile_options(${name} PRIVATE -w)
  target_include_directories(${name} SYSTEM PUBLIC ${out})
  target_link_libraries(${name} PUBLIC gRPC::grpc++ protobuf::libprotobuf)
endfunction()
