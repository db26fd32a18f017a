# nc_test4/CMakeLists.robust.cmake: netCDF-4 on bad input and faults (a full
# disk, damaged files, filtered reads), included by nc_test4/CMakeLists.txt.

# A file-size limit hit while records are written: the error reaches the
# caller, and what a successful sync covered survives.
nc4_program(tst_h5full REF)
nc4_test(tst_h5full)

# Filtered reads of every kind (var1, vara, vars, varm, var) through one
# path: a missing filter, a decompression bomb, a short chunk.  Damages its
# file through HDF5 and zlib directly.
find_package(ZLIB QUIET)
if(ZLIB_FOUND)
  nc4_program(tst_h5filtread)
  target_include_directories(tst_h5filtread PRIVATE ${HDF5_INCLUDE_DIRS})
  target_link_libraries(tst_h5filtread PRIVATE ${HDF5_LINK_LIBRARIES} ZLIB::ZLIB)
  nc4_test(tst_h5filtread)
  set_tests_properties(tst_h5filtread PROPERTIES LABELS "hdf5;filters")
endif()

# Sizes from a damaged file (a DIMENSION_LIST length, a chunk's stored
# size) are bounded before anything is allocated from them.
nc4_program(tst_h5bigsize)
target_include_directories(tst_h5bigsize PRIVATE ${HDF5_INCLUDE_DIRS})
target_link_libraries(tst_h5bigsize PRIVATE ${HDF5_LINK_LIBRARIES})
nc4_test(tst_h5bigsize)

# A dataset with a damaged object header is an error, not left out.
nc4_program(tst_h5damaged)
target_include_directories(tst_h5damaged PRIVATE ${HDF5_INCLUDE_DIRS})
target_link_libraries(tst_h5damaged PRIVATE ${HDF5_LINK_LIBRARIES})
nc4_test(tst_h5damaged)

# Damaged global-heap references of strings and vlens (data and
# attributes) refused on every open path before HDF5 reads them.
nc4_program(tst_h5heap)
nc4_test(tst_h5heap)

# Damaged dataset storage (a chunk B-tree with a cycle or too many
# entries, a short compact dataset) refused at the first read.
nc4_program(tst_h5storage)
target_include_directories(tst_h5storage PRIVATE ${HDF5_INCLUDE_DIRS})
target_link_libraries(tst_h5storage PRIVATE ${HDF5_LINK_LIBRARIES})
nc4_test(tst_h5storage)

# A NULL data buffer (strided forms too): NC_EHDFERR, never a crash.
nc4_program(tst_nullbuf4 REF)
nc4_test(tst_nullbuf4)

# The mutation campaign (docs/hdf5-fuzz.md): 150 mutants in the normal run,
# 3,000 under the slow label.
nc4_program(tst_h5mutate)
nc4_test(tst_h5mutate)
add_test(NAME tst_h5mutate_slow COMMAND tst_h5mutate 3000 150
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/mutate_slow)
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/mutate_slow)
set_tests_properties(tst_h5mutate_slow PROPERTIES LABELS "hdf5;slow" TIMEOUT 3600)
