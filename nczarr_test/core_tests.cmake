# core_tests.cmake: the Zarr metadata part of libnczarr (dispatch, model,
# NCZarr v2, pure Zarr v2, Zarr v3, consolidated metadata).
nczarr_program(tst_zcore_model)
set(_zc_dir ${CMAKE_CURRENT_BINARY_DIR}/zcore)
file(MAKE_DIRECTORY ${_zc_dir})
set(_zc_modes "nczarr,file" "zarr,file" "nczarr,file,consolidated" "zarr,file,noxarray"
  "nczarr,v3,file" "zarr,v3,file" "nczarr,v3,file,consolidated")
if(NETCDF_ENABLE_NCZARR_ZIP)
  list(APPEND _zc_modes "nczarr,zip" "zarr,zip" "nczarr,v3,zip")
endif()
foreach(_m ${_zc_modes})
  string(REPLACE "," "_" _n ${_m})
  file(MAKE_DIRECTORY ${_zc_dir}/${_n})
  add_test(NAME tst_zcore_model_${_n} COMMAND tst_zcore_model ${_zc_dir}/${_n} ${_m})
  set_tests_properties(tst_zcore_model_${_n} PROPERTIES LABELS nczarr)
endforeach()

# Interop with zarr-python 2 and xarray, both directions (ctypes on our
# library; skips with 77 without zarr-python or in sanitized builds).
find_program(NC_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NC_PYTHON3)
  add_test(NAME tst_zcore_interop
           COMMAND ${NC_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/tst_zcore_interop.py
                   $<TARGET_FILE:netcdf> ${_zc_dir}/interop)
  set_tests_properties(tst_zcore_interop PROPERTIES LABELS "nczarr;interop" SKIP_RETURN_CODE 77)
endif()

# Hostile metadata: clean errors, no crash.
nczarr_program(tst_zcore_bad)
add_test(NAME tst_zcore_bad COMMAND tst_zcore_bad ${_zc_dir}/bad)
set_tests_properties(tst_zcore_bad PROPERTIES LABELS nczarr)

# Compatibility with upstream's reading: relative file:// URLs, stores
# without root metadata, JSON text attributes, fill values.
nczarr_program(tst_zmeta_compat)
add_test(NAME tst_zmeta_compat COMMAND tst_zmeta_compat ${_zc_dir}/compat)
set_tests_properties(tst_zmeta_compat PROPERTIES LABELS nczarr)
add_test(NAME tst_zmeta_urls
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tst_zmeta_urls.sh $<TARGET_FILE:ncgen>
                 $<TARGET_FILE:ncdump> $<TARGET_FILE:nccopy> ${_zc_dir}/urls)
set_tests_properties(tst_zmeta_urls PROPERTIES LABELS "nczarr;tools")
# Default chunk sizes of arrays defined without chunking, against upstream's.
add_test(NAME tst_zmeta_chunks
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tst_zmeta_chunks.sh $<TARGET_FILE:ncgen>
                 $<TARGET_FILE:nccopy> ${_zc_dir}/chunks)
set_tests_properties(tst_zmeta_chunks PROPERTIES LABELS "nczarr;tools")
if(NC_PYTHON3)
  add_test(NAME tst_zmeta_zarrpy
           COMMAND ${NC_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/tst_zmeta_zarrpy.py
                   $<TARGET_FILE:ncdump> ${_zc_dir}/zarrpy)
  set_tests_properties(tst_zmeta_zarrpy PROPERTIES LABELS "nczarr;interop" SKIP_RETURN_CODE 77)
endif()

# nc_test's conformance programs with their netCDF-4 (classic model) cases
# on NCZarr stores (zcore_redirect.h maps the paths to Zarr URLs).
foreach(t tst_types tst_fill_ranges tst_varm_counts tst_access tst_api_regress tst_share_redef)
  if(EXISTS ${CMAKE_SOURCE_DIR}/nc_test/${t}.c)
    add_executable(zc_${t} ${CMAKE_SOURCE_DIR}/nc_test/${t}.c)
    target_link_libraries(zc_${t} PRIVATE nctst)
    target_compile_options(zc_${t} PRIVATE -include ${CMAKE_CURRENT_SOURCE_DIR}/zcore_redirect.h)
    file(MAKE_DIRECTORY ${_zc_dir}/${t})
    add_test(NAME tst_zcore_nc_test_${t} COMMAND zc_${t} WORKING_DIRECTORY ${_zc_dir}/${t})
    set_tests_properties(tst_zcore_nc_test_${t} PROPERTIES LABELS nczarr SKIP_RETURN_CODE 77 TIMEOUT 300)
  endif()
endforeach()

# The same model test and the open's request count on a local S3 server
# (s3server.sh; skips with 77 without node/npm).
if(NETCDF_ENABLE_S3)
  nczarr_program(tst_zcore_s3count)
  target_link_libraries(tst_zcore_s3count PRIVATE netcdf)
  target_include_directories(tst_zcore_s3count PRIVATE ${CMAKE_SOURCE_DIR}/libsrc4 ${CMAKE_SOURCE_DIR}/libfilter)
  set(_zc_s3env "HOME=${_zc_dir};AWS_ACCESS_KEY_ID=S3RVER;AWS_SECRET_ACCESS_KEY=S3RVER;AWS_REGION=us-east-1")
  add_test(NAME tst_zcore_s3count
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/s3server.sh run ${_zc_dir}/s3count.srv zc
                   sh -c "exec \"$0\" \"$NCZ_S3_ENDPOINT/$NCZ_S3_BUCKET/p\"" $<TARGET_FILE:tst_zcore_s3count>)
  add_test(NAME tst_zcore_model_s3
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/s3server.sh run ${_zc_dir}/model_s3.srv zc
                   sh -c "exec \"$0\" \"$NCZ_S3_ENDPOINT/$NCZ_S3_BUCKET/m\" nczarr,s3" $<TARGET_FILE:tst_zcore_model>)
  set_tests_properties(tst_zcore_s3count tst_zcore_model_s3 PROPERTIES LABELS "nczarr;interop"
                       SKIP_RETURN_CODE 77 ENVIRONMENT "${_zc_s3env}")
endif()
