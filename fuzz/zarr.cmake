# zarr.cmake: libFuzzer target for the Zarr metadata parsers
# (libnczarr/zmeta_*.c).  Included from fuzz/CMakeLists.txt; only with NETCDF_ENABLE_NCZARR.
#   build-fuzz/fuzz/fuzz_zmeta -max_total_time=600 CORPUS_DIR fuzz/corpus_zmeta
if(NETCDF_ENABLE_NCZARR)
  nc_fuzz_target(fuzz_zmeta netcdf)
  nc_fuzz_seeds(fuzz_zmeta "nczarr;slow" corpus_zmeta)
  if(BUILD_TESTING)
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
  nc_fuzz_target(fuzz_zshard netcdf)
  target_link_libraries(fuzz_zshard PRIVATE PkgConfig::FZ_JSONC)
  target_include_directories(fuzz_zshard PRIVATE ${CMAKE_SOURCE_DIR}/libnczarr ${CMAKE_SOURCE_DIR}/libsrc4
                             ${CMAKE_SOURCE_DIR}/libfilter ${CMAKE_SOURCE_DIR}/libchunk ${CMAKE_SOURCE_DIR}/libdispatch ${CMAKE_BINARY_DIR})
  nc_fuzz_seeds(fuzz_zshard "nczarr;slow" corpus_zshard)
endif()

# The S3 listing parser, URL forms and key checks (fuzz_zs3list.c),
# white-box: it compiles against libnczarr's headers.
if(NETCDF_ENABLE_NCZARR AND NETCDF_ENABLE_S3 AND EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_zs3list.c)
  nc_fuzz_target(fuzz_zs3list netcdf)
  target_include_directories(fuzz_zs3list PRIVATE ${CMAKE_SOURCE_DIR}/libnczarr ${CMAKE_SOURCE_DIR}/libdispatch)
  nc_fuzz_seeds(fuzz_zs3list "nczarr;slow" corpus_zs3list)
endif()
