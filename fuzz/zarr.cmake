# zarr.cmake: libFuzzer target for the Zarr metadata parsers (libnczarr,
# Z2).  Included from fuzz/CMakeLists.txt; only with NETCDF_ENABLE_NCZARR.
#   build-fuzz/fuzz/fuzz_zmeta -max_total_time=600 CORPUS_DIR fuzz/corpus_zmeta
if(NETCDF_ENABLE_NCZARR)
  add_executable(fuzz_zmeta fuzz_zmeta.c)
  target_link_libraries(fuzz_zmeta PRIVATE netcdf)
  target_compile_options(fuzz_zmeta PRIVATE
    -fsanitize=fuzzer,${NC_FUZZ_SANITIZE} -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g)
  target_link_options(fuzz_zmeta PRIVATE -fsanitize=fuzzer,${NC_FUZZ_SANITIZE})
  if(BUILD_TESTING)
    add_test(NAME fuzz_zmeta_seeds COMMAND fuzz_zmeta -runs=0 ${CMAKE_CURRENT_SOURCE_DIR}/corpus_zmeta)
    set_tests_properties(fuzz_zmeta_seeds PROPERTIES LABELS "nczarr;slow")
  endif()
endif()
