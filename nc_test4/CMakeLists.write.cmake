# nc_test4/CMakeLists.write.cmake: tests of libhdf5's write side (owner: H3),
# included by nc_test4/CMakeLists.txt.
nc4_program(tst_h5write_cmp REF)
if(NCT_NC4_PENDING)
  add_test(NAME tst_h5write_cmp
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tst_h5write_cmp.sh $<TARGET_FILE:tst_h5write_cmp>
            "$<IF:$<BOOL:${_nc4_have_ref}>,${CMAKE_CURRENT_BINARY_DIR}/ref_tst_h5write_cmp,none>"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(tst_h5write_cmp PROPERTIES LABELS "hdf5;interop" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()

# Lifecycle of a file (create modes, define mode, abort, memory/diskless,
# HDF5 limits): the same program must pass against ours and the reference.
nc4_program(tst_h5write_api REF)
nc4_test(tst_h5write_api)
if(_nc4_have_ref)
  add_test(NAME ref_tst_h5write_api COMMAND ref_tst_h5write_api
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(ref_tst_h5write_api PROPERTIES LABELS "hdf5;interop" TIMEOUT 300)
endif()
