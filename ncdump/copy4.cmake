# nccopy for the enhanced model: the -c and -F spec parsers, and the
# differential tests of nccopy on netCDF-4 files against the reference.
target_sources(nctools PRIVATE ${CMAKE_CURRENT_LIST_DIR}/chunkspec.c ${CMAKE_CURRENT_LIST_DIR}/filteropt.c)

if(BUILD_TESTING)
  # Differential tests of nccopy on netCDF-4 inputs (the shared CDL corpus
  # ncdump/test/cdl4 and nccopy's own ncdump/test/copy4) against the
  # reference nccopy, both copies dumped by the reference ncdump -s.
  # core: 6 option sets for every input; cases: ~90 more (copy4/cases.txt), slow.
  # They copy HDF5 files: not in a build without HDF5.
  if(NETCDF_ENABLE_HDF5)
    foreach(mode core cases)
      add_test(NAME tools_nccopy4_${mode}
        COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/test/run_nccopy4_tests.sh
                $<TARGET_FILE:nccopy> ${CMAKE_CURRENT_BINARY_DIR}/test_nccopy4_${mode} ${mode}
                ${CMAKE_CURRENT_LIST_DIR}/test/cdl4 ${CMAKE_CURRENT_LIST_DIR}/test/copy4)
      set_tests_properties(tools_nccopy4_${mode} PROPERTIES LABELS "tools;interop" SKIP_RETURN_CODE 77 TIMEOUT 900)
    endforeach()
    set_tests_properties(tools_nccopy4_cases PROPERTIES LABELS "tools;interop;slow")
  endif()

  # The -c/-F spec parsers over the fuzz corpus, without libFuzzer.
  add_executable(nccopy_spec_regress ${CMAKE_SOURCE_DIR}/fuzz/fuzz_nccopy_spec.c)
  target_compile_definitions(nccopy_spec_regress PRIVATE NCCOPY_SPEC_MAIN)
  target_link_libraries(nccopy_spec_regress PRIVATE nctools)
  file(GLOB _nccopy_spec_corpus ${CMAKE_SOURCE_DIR}/fuzz/corpus_nccopy_spec/*)
  # It parses against an in-memory netCDF-4 (HDF5) file.
  if(NETCDF_ENABLE_HDF5)
    add_test(NAME tools_nccopy_spec COMMAND nccopy_spec_regress ${_nccopy_spec_corpus})
    set_tests_properties(tools_nccopy_spec PROPERTIES LABELS "tools")
  endif()
endif()
