# Run with cmake -P: installs the library's build tree into a fresh prefix, configures the
# consumer against that prefix only, builds and runs it; then builds the seed's sample with the
# flags `pkg-config --cflags --libs trilinear3d` gives for that prefix alone, and runs it (skipped,
# with a message, where pkg-config is not installed). Any failing step fails the test.
cmake_minimum_required(VERSION 3.20)  # policies of this version (find_program wants executables)
foreach(var BUILD_DIR CONSUMER_SOURCE_DIR WORK_DIR SAMPLE_SOURCE INSTALL_LIBDIR)
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
                  include/aclnnop/aclnn_upsample_trilinear_3d_backward.h ${INSTALL_LIBDIR}/libtrilinear3d.so
                  ${INSTALL_LIBDIR}/cmake/Trilinear3d/Trilinear3dConfig.cmake
                  ${INSTALL_LIBDIR}/pkgconfig/trilinear3d.pc)
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

# pkg-config: the seed's sample, compiled and linked with the .pc file's flags and nothing else.
find_program(pkg_config NAMES pkg-config pkgconf)
if(NOT pkg_config)
  message(STATUS "pkg-config consumer: SKIPPED, pkg-config is not installed (apt-get install pkg-config, "
                 "or bash tools/install_deps.sh test)")
  return()
endif()
if(NOT CXX_COMPILER)
  set(CXX_COMPILER c++)
endif()
# PKG_CONFIG_LIBDIR (not only PKG_CONFIG_PATH) so that no system .pc file can stand in for ours.
set(pc_env PKG_CONFIG_PATH=${prefix}/${INSTALL_LIBDIR}/pkgconfig PKG_CONFIG_LIBDIR=${prefix}/${INSTALL_LIBDIR}/pkgconfig)
execute_process(COMMAND ${CMAKE_COMMAND} -E env ${pc_env} ${pkg_config} --cflags --libs trilinear3d
  RESULT_VARIABLE rc OUTPUT_VARIABLE pc_flags ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config --cflags --libs trilinear3d failed (${rc}): ${err}")
endif()
message(STATUS "pkg-config --cflags --libs trilinear3d: ${pc_flags}")
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
set(sample ${WORK_DIR}/sample_pkgconfig)
set(sanitize_flags)
if(SANITIZE)
  set(sanitize_flags -fsanitize=${SANITIZE})
endif()
run_step("build the sample with pkg-config" ${CXX_COMPILER} -std=c++17 ${sanitize_flags} ${SAMPLE_SOURCE}
         ${pc_flags} -o ${sample})
# The .pc file gives no run path (as usual): the loader finds the library through LD_LIBRARY_PATH.
# The seed's sample, kept as CANN ships it, never destroys its two int arrays: LeakSanitizer would
# report those, not a leak of the library's.
set(run_env LD_LIBRARY_PATH=${prefix}/${INSTALL_LIBDIR})
if(SANITIZE)
  list(APPEND run_env ASAN_OPTIONS=detect_leaks=0)
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env ${run_env} ${sample}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES
   "result\\[0\\] is: 36\\.000000\nresult\\[1\\] is: 100\\.000000\nresult\\[2\\] is: 164\\.000000\nresult\\[3\\] is: 228\\.000000")
  message(FATAL_ERROR "the pkg-config-built sample failed (${rc}) or printed other results:\n${out}\n${err}")
endif()
message(STATUS "run the pkg-config-built sample: ok\n${out}")
