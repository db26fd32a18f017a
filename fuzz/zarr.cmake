# zarr.cmake: libFuzzer target for the Zarr metadata parsers
# (libnczarr/zmeta_*.c).  Included from fuzz/CMakeLists.txt; only with NETCDF_ENABLE_NCZARR.
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
    # What the fuzzer found (fixed), replayed.
    file(GLOB _zmeta_regress ${CMAKE_CURRENT_SOURCE_DIR}/regress_zmeta/*)
    if(_zmeta_regress)
      add_test(NAME fuzz_zmeta_regress COMMAND fuzz_zmeta ${_zmeta_regress})
      set_tests_properties(fuzz_zmeta_regress PROPERTIES LABELS "nczarr;slow")
    endif()
  endif()
endif()

# The sharding index parser (fuzz_zshard.c), white-box: it compiles
# against libnczarr's headers.
if(NETCDF_ENABLE_NCZARR AND EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_zshard.c)
  pkg_check_modules(FZ_JSONC REQUIRED IMPORTED_TARGET json-c)
  add_executable(fuzz_zshard fuzz_zshard.c)
  target_link_libraries(fuzz_zshard PRIVATE netcdf PkgConfig::FZ_JSONC)
  target_include_directories(fuzz_zshard PRIVATE ${CMAKE_SOURCE_DIR}/libnczarr ${CMAKE_SOURCE_DIR}/libsrc4
                             ${CMAKE_SOURCE_DIR}/libfilter ${CMAKE_SOURCE_DIR}/libchunk ${CMAKE_SOURCE_DIR}/libdispatch ${CMAKE_BINARY_DIR})
  target_compile_options(fuzz_zshard PRIVATE
    -fsanitize=fuzzer,${NC_FUZZ_SANITIZE} -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g)
  target_link_options(fuzz_zshard PRIVATE -fsanitize=fuzzer,${NC_FUZZ_SANITIZE})
  if(BUILD_TESTING)
    add_test(NAME fuzz_zshard_seeds COMMAND fuzz_zshard -runs=0 ${CMAKE_CURRENT_SOURCE_DIR}/corpus_zshard)
    set_tests_properties(fuzz_zshard_seeds PROPERTIES LABELS "nczarr;slow")
  endif()
endif()

# The S3 listing parser, URL forms and key checks (fuzz_zs3list.c),
# white-box: it compiles against libnczarr's headers.
if(NETCDF_ENABLE_NCZARR AND NETCDF_ENABLE_S3 AND EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_zs3list.c)
  add_executable(fuzz_zs3list fuzz_zs3list.c)
  target_link_libraries(fuzz_zs3list PRIVATE netcdf)
  target_include_directories(fuzz_zs3list PRIVATE ${CMAKE_SOURCE_DIR}/libnczarr ${CMAKE_SOURCE_DIR}/libdispatch)
  target_compile_options(fuzz_zs3list PRIVATE
    -fsanitize=fuzzer,${NC_FUZZ_SANITIZE} -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g)
  target_link_options(fuzz_zs3list PRIVATE -fsanitize=fuzzer,${NC_FUZZ_SANITIZE})
  if(BUILD_TESTING)
    add_test(NAME fuzz_zs3list_seeds COMMAND fuzz_zs3list -runs=0 ${CMAKE_CURRENT_SOURCE_DIR}/corpus_zs3list)
    set_tests_properties(fuzz_zs3list_seeds PROPERTIES LABELS "nczarr;slow")
  endif()
endif()
