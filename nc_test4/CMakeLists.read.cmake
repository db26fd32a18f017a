# nc_test4/CMakeLists.read.cmake: read-side tests of netCDF-4/HDF5,
# included by nc_test4/CMakeLists.txt.  tst_h5read_dump is built against ours
# and against the reference; tst_h5read.sh runs both on a corpus made by the
# reference's ncgen and by h5py and diffs them.
nc4_program(tst_h5read_dump REF)
add_test(NAME tst_h5read
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tst_h5read.sh $<TARGET_FILE:tst_h5read_dump>
          "$<IF:$<BOOL:${_nc4_have_ref}>,${CMAKE_CURRENT_BINARY_DIR}/ref_tst_h5read_dump,none>"
          ${CMAKE_CURRENT_SOURCE_DIR}
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(tst_h5read PROPERTIES LABELS "hdf5;interop" SKIP_RETURN_CODE 77 TIMEOUT 300)

# The data path (vara/vars, conversions, bounds, unlimited growth, fill past
# an extent, user types, define-mode rules): ours vs the reference.
nc4_program(tst_h5read_data REF)
add_test(NAME tst_h5read_data_cmp
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/run_diff.sh h5read_data $<TARGET_FILE:tst_h5read_data>
          "$<IF:$<BOOL:${_nc4_have_ref}>,${CMAKE_CURRENT_BINARY_DIR}/ref_tst_h5read_data,none>"
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(tst_h5read_data_cmp PROPERTIES LABELS "hdf5;interop" SKIP_RETURN_CODE 77 TIMEOUT 300)

# Strided reads (box-and-gather and HDF5-stride paths) against computed values.
nc4_program(tst_h5read_strided)
nc4_test(tst_h5read_strided)

# Unfiltered datasets of a read-only file read straight from it (chunks never
# written as fill, byte order, conversion) against a model; also built
# against the reference to check the model.
nc4_program(tst_h5read_plain REF)
nc4_test(tst_h5read_plain)

# Attribute layout on disk (h5dump -A) of files written by ours and the reference.
nc4_program(tst_h5read_atts REF)
add_test(NAME tst_h5read_atts
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tst_h5read_atts.sh $<TARGET_FILE:tst_h5read_atts>
          "$<IF:$<BOOL:${_nc4_have_ref}>,${CMAKE_CURRENT_BINARY_DIR}/ref_tst_h5read_atts,none>"
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(tst_h5read_atts PROPERTIES LABELS "hdf5;interop" SKIP_RETURN_CODE 77 TIMEOUT 300)

# The native metadata reader (libhdf5/h5n*.c) gives the same model, data and
# ncdump output as the HDF5 path on a corpus, and survives bad input.
if(TARGET ncdump AND TARGET ncgen)
  add_test(NAME tst_h5native
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tst_h5native.sh $<TARGET_FILE:tst_h5read_dump>
            $<TARGET_FILE:ncdump> $<TARGET_FILE:ncgen> ${CMAKE_SOURCE_DIR}
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(tst_h5native PROPERTIES LABELS "hdf5" TIMEOUT 600)
endif()
