# ncdump on the enhanced model: user-defined types and values of any type
# live in dumptypes.c; groups, attributes and data in ncdump.c.
target_sources(nctools PRIVATE ${CMAKE_CURRENT_LIST_DIR}/dumptypes.c)

# ncdump reads the next slab of a variable on a helper thread while it
# formats the current one.
find_package(Threads REQUIRED)
target_link_libraries(nctools PUBLIC Threads::Threads)

# Those files are HDF5: a build without HDF5 cannot read them.
if(BUILD_TESTING AND NETCDF_ENABLE_HDF5)
  # Every CDL of test/cdl4 (made into netCDF-4 and netCDF-4 classic-model
  # files by the reference ncgen), plus netCDF4-python and h5py files,
  # dumped by ours and by the reference ncdump with each option set.
  add_test(NAME tools_ncdump4
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test/run_ncdump4_tests.sh
            $<TARGET_FILE:ncdump> ${CMAKE_CURRENT_SOURCE_DIR}/test/cdl4
            ${CMAKE_CURRENT_BINARY_DIR}/test_ncdump4)
  set_tests_properties(tools_ncdump4 PROPERTIES LABELS "tools;interop"
                       SKIP_RETURN_CODE 77 TIMEOUT 600)

  # Dimensions of groups that are not ancestors (a sibling's, a sibling's
  # child) or hidden by a nearer name: declared with their full names.
  add_test(NAME tools_dim_other_group
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test/tst_dim_other_group.sh
            $<TARGET_FILE:ncdump> $<TARGET_FILE:ncgen>
            ${CMAKE_CURRENT_BINARY_DIR}/test_dim_other_group)
  set_tests_properties(tools_dim_other_group PROPERTIES LABELS "tools;interop")
endif()
