# Run with cmake -P: installs the library's build tree into a fresh prefix, configures the
# consumer against that prefix only, builds and runs it. Any failing step fails the test.
foreach(var BUILD_DIR CONSUMER_SOURCE_DIR WORK_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "run_consumer_test.cmake: ${var} is not set")
  endif()
endforeach()
if(NOT BUILD_TYPE)
  set(BUILD_TYPE Release)
endif()

set(prefix ${WORK_DIR}/prefix)
set(consumer_build ${WORK_DIR}/build)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok\n${out}")
endfunction()

run_step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --config ${BUILD_TYPE})
foreach(installed include/acl/acl.h include/aclnn/aclnn_base.h
                  include/aclnnop/aclnn_upsample_trilinear_3d_backward.h lib/libtrilinear3d.so
                  lib/cmake/Trilinear3d/Trilinear3dConfig.cmake)
  if(NOT EXISTS ${prefix}/${installed})
    message(FATAL_ERROR "the install tree lacks ${installed}")
  endif()
endforeach()

set(configure_args -S ${CONSUMER_SOURCE_DIR} -B ${consumer_build} -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
if(CXX_COMPILER)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()
if(SANITIZE)
  # A sanitized library needs the sanitizer runtime in the consumer too.
  list(APPEND configure_args "-DCMAKE_CXX_FLAGS=-fsanitize=${SANITIZE}"
       "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=${SANITIZE}")
endif()
run_step("configure consumer" ${CMAKE_COMMAND} ${configure_args})
run_step("build consumer" ${CMAKE_COMMAND} --build ${consumer_build} --config ${BUILD_TYPE})
find_program(consumer_exe consumer PATHS ${consumer_build} ${consumer_build}/${BUILD_TYPE} NO_DEFAULT_PATH)
if(NOT consumer_exe)
  message(FATAL_ERROR "the consumer executable was not built")
endif()
run_step("run consumer" ${consumer_exe})
