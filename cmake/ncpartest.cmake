# ncpartest.cmake: parallel tests run under mpiexec (label `parallel`).
#
# nc_par_test(name src ranks labels)
#   builds the program `name` from `src` (once) against libnetcdf and MPI,
#   and registers one test per entry of `ranks` (a list, e.g. "1;2;4"),
#   named name_npN, run as `mpiexec -n N name` in the current binary
#   directory.  `labels` are added to `parallel`.  Exit code 77 is a skip.
# Every program joins the target nc_par_tests (test.sh builds only that).
# Open MPI refuses root unless told, and 4 ranks oversubscribe 2 cores.
if(NOT TARGET nc_par_tests)
  add_custom_target(nc_par_tests)
  add_dependencies(nc_par_tests netcdf ncdump)
endif()
set(NC_MPIEXEC_FLAGS "")
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _nc_mpiexec_version ERROR_QUIET)
if(_nc_mpiexec_version MATCHES "Open MPI|OpenRTE")
  set(NC_MPIEXEC_FLAGS --allow-run-as-root --oversubscribe)
endif()

function(nc_par_test name src ranks labels)
  if(NOT TARGET ${name})
    add_executable(${name} ${src})
    target_link_libraries(${name} PRIVATE netcdf MPI::MPI_C)
    add_dependencies(nc_par_tests ${name})
  endif()
  foreach(n ${ranks})
    add_test(NAME ${name}_np${n}
      COMMAND ${MPIEXEC_EXECUTABLE} ${NC_MPIEXEC_FLAGS} ${MPIEXEC_NUMPROC_FLAG} ${n}
              $<TARGET_FILE:${name}>
      WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
    set_tests_properties(${name}_np${n} PROPERTIES
      LABELS "parallel;${labels}" SKIP_RETURN_CODE 77 PROCESSORS ${n}
      TIMEOUT 300)
  endforeach()
endfunction()
