# nc_test4/CMakeLists.api.cmake: regression tests of netCDF-4 API behaviour,
# included by nc_test4/CMakeLists.txt.  Each program is also built against
# the reference (ref_<name>) and run there, to check its expectations; where
# 4.10.1 differs from the 4.9.0 reference the program says so itself.
function(nc4_api_test t)
  nc4_program(${t} REF)
  nc4_test(${t})
  if("HDF5" IN_LIST ARGN)
    foreach(x ${t} ref_${t})
      if(TARGET ${x})
        target_include_directories(${x} PRIVATE ${HDF5_INCLUDE_DIRS})
        target_link_libraries(${x} PRIVATE ${HDF5_LINK_LIBRARIES})
      endif()
    endforeach()
  endif()
  if(_nc4_have_ref)
    # Its own directory: the two twins write the same file names and may run
    # at the same time under ctest -j.
    file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/ref_${t}.d)
    add_test(NAME ref_${t} COMMAND ref_${t} WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/ref_${t}.d)
    set_tests_properties(ref_${t} PROPERTIES LABELS "hdf5;interop" SKIP_RETURN_CODE 77 TIMEOUT 300)
  endif()
endfunction()

# The access settings HDF5 sees: nc_set_alignment, fclose degree WEAK.
nc4_api_test(tst_h5access HDF5)

# An enum value no member has: 0 (HDF5's default fill) is "_UNDEFINED", and
# ncdump prints such a variable.
nc4_api_test(tst_enum_ident4)
if(TARGET ncdump)
  add_test(NAME tst_enum_ident4_ncdump COMMAND tst_enum_ident4 $<TARGET_FILE:ncdump>
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/enum_ident4_ncdump)
  file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/enum_ident4_ncdump)
  set_tests_properties(tst_enum_ident4_ncdump PROPERTIES LABELS "hdf5;tools" TIMEOUT 300)
endif()
# nc_close / nc_enddef with a member-less enum: NC_EINVAL, the file stays open.
nc4_api_test(tst_enum_close4)
# An attribute written again with the same type and length keeps its place.
nc4_api_test(tst_att_inplace4)
# _FillValue after an implicit end of define mode.
nc4_api_test(tst_fill_late4)
# Default chunks of record variables defined in a reopened file.
nc4_api_test(tst_chunks_reopen4)
# NULL and invalid names of new objects (also tst_apicodes4e_cmp, names).
nc4_api_test(tst_names4)
