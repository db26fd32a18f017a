# nc_test4/CMakeLists.write.cmake: tests of libhdf5's write side,
# included by nc_test4/CMakeLists.txt.
# Files written by ours and by the reference, one per construct, must have
# the same HDF5 structure (h5dump) and the same reference ncdump -s.
nc4_program(tst_h5write_cmp REF)
set(_h5w_ref "$<IF:$<BOOL:${_nc4_have_ref}>,${CMAKE_CURRENT_BINARY_DIR}/ref_tst_h5write_cmp,none>")
add_test(NAME tst_h5write_cmp
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tst_h5write_cmp.sh $<TARGET_FILE:tst_h5write_cmp> ${_h5w_ref}
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(tst_h5write_cmp PROPERTIES LABELS "hdf5;interop" SKIP_RETURN_CODE 77 TIMEOUT 600
  RESOURCE_LOCK h5w_dirs)
# Quantized data: attributes, values and the setting read back.
  add_test(NAME tst_h5write_cmp_quantize
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tst_h5write_cmp.sh $<TARGET_FILE:tst_h5write_cmp> ${_h5w_ref} quantize
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(tst_h5write_cmp_quantize PROPERTIES LABELS "hdf5;interop" SKIP_RETURN_CODE 77 TIMEOUT 300
    RESOURCE_LOCK h5w_dirs)  # the same scratch directories

# Lifecycle of a file (create modes, define mode, abort, memory/diskless,
# HDF5 limits): the same program must pass against ours and the reference.
nc4_program(tst_h5write_api REF)
nc4_test(tst_h5write_api)
if(_nc4_have_ref)
  add_test(NAME ref_tst_h5write_api COMMAND ref_tst_h5write_api
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(ref_tst_h5write_api PROPERTIES LABELS "hdf5;interop" TIMEOUT 300)
endif()

# The chunk pipeline keeps a caller's hold of the HDF5 lock (nc_sync encodes
# under it) and releases a data call's own (reads of another file go on).
nc4_program(tst_h5lockhold)
nc4_test(tst_h5lockhold)
set_tests_properties(tst_h5lockhold PROPERTIES ENVIRONMENT NETCDF_FILTER_THREADS=2)

# Filtered chunked variables through every path of the write-back cache,
# read back against a model (also against the reference, which checks the
# model).  nc_test4/h5wb_bytes.sh compares the files it leaves with those
# of another install (byte identity of a change to the chunk engine).
nc4_program(tst_h5wb_order REF)
nc4_test(tst_h5wb_order)
set_tests_properties(tst_h5wb_order PROPERTIES ENVIRONMENT NETCDF_FILTER_THREADS=2)
if(_nc4_have_ref)
  add_test(NAME ref_tst_h5wb_order COMMAND ref_tst_h5wb_order
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(ref_tst_h5wb_order PROPERTIES LABELS "hdf5;interop" SKIP_RETURN_CODE 77 TIMEOUT 300
    RESOURCE_LOCK h5wb_order_files)
  set_tests_properties(tst_h5wb_order PROPERTIES RESOURCE_LOCK h5wb_order_files)
endif()
