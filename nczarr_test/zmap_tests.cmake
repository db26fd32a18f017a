# zmap_tests.cmake: the storage backends of libnczarr (zmap.h) - directory
# tree, zip archive, S3 on a local server started by the test.
nczarr_program(zmap_ops)

add_test(NAME zmap_ops_file
         COMMAND zmap_ops file://${CMAKE_CURRENT_BINARY_DIR}/zmap_ops_file.zarr file)
add_test(NAME zmap_ops_path
         COMMAND zmap_ops ${CMAKE_CURRENT_BINARY_DIR}/zmap_ops_path.zarr "")
set_tests_properties(zmap_ops_file zmap_ops_path PROPERTIES LABELS nczarr)
if(NETCDF_ENABLE_NCZARR_ZIP)
  add_test(NAME zmap_ops_zip
           COMMAND zmap_ops file://${CMAKE_CURRENT_BINARY_DIR}/zmap_ops.zip zip)
  add_test(NAME zmap_ops_zip_root
           COMMAND zmap_ops ${CMAKE_CURRENT_BINARY_DIR}/zmap_ops_root.zip zip,zarr)
  set_tests_properties(zmap_ops_zip zmap_ops_zip_root PROPERTIES LABELS nczarr)
endif()
if(NETCDF_ENABLE_S3)
  # Against a local s3rver (skips with 77 without node/npm); signed with test
  # credentials, and anonymous.  HOME points at an empty directory so a real
  # ~/.aws never leaks in.
  set(zs3_home ${CMAKE_CURRENT_BINARY_DIR}/zs3_home)
  file(MAKE_DIRECTORY ${zs3_home})
  add_test(NAME zmap_ops_s3
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/s3server.sh run
                   ${CMAKE_CURRENT_BINARY_DIR}/zmap_ops_s3.srv zb
                   sh -c "exec \"$0\" \"$NCZ_S3_ENDPOINT/$NCZ_S3_BUCKET/p/store\" s3"
                   $<TARGET_FILE:zmap_ops>)
  set_tests_properties(zmap_ops_s3 PROPERTIES LABELS "nczarr;interop" SKIP_RETURN_CODE 77
    ENVIRONMENT "HOME=${zs3_home};AWS_ACCESS_KEY_ID=S3RVER;AWS_SECRET_ACCESS_KEY=S3RVER;AWS_REGION=us-east-1")
  add_test(NAME zmap_ops_s3_anon
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/s3server.sh run
                   ${CMAKE_CURRENT_BINARY_DIR}/zmap_ops_s3_anon.srv zb
                   sh -c "exec \"$0\" \"$NCZ_S3_ENDPOINT/$NCZ_S3_BUCKET\" s3"
                   $<TARGET_FILE:zmap_ops>)
  set_tests_properties(zmap_ops_s3_anon PROPERTIES LABELS "nczarr;interop" SKIP_RETURN_CODE 77
    ENVIRONMENT "HOME=${zs3_home};AWS_PROFILE=no")
endif()
if(NETCDF_ENABLE_S3)
  # SigV4 against AWS's vectors and curl's signatures, profiles, and hostile
  # HTTP answers, all on a scripted server inside the test (no network).
  pkg_check_modules(ZS3CRYPTO REQUIRED IMPORTED_TARGET libcrypto)
  add_executable(zmap_s3sig zmap_s3sig.c zmap_sigv4.c)
  target_link_libraries(zmap_s3sig PRIVATE nctst Threads::Threads PkgConfig::ZS3CRYPTO)
  target_include_directories(zmap_s3sig PRIVATE ${CMAKE_SOURCE_DIR}/libnczarr ${CMAKE_SOURCE_DIR}/libdispatch)
  file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/zs3sig_home)
  add_test(NAME zmap_s3sig COMMAND zmap_s3sig ${CMAKE_CURRENT_BINARY_DIR}/zs3sig_home)
  set_tests_properties(zmap_s3sig PROPERTIES LABELS nczarr SKIP_RETURN_CODE 77)
endif()

# Object-level interop with zarr-python 2 (directory and zip stores, and S3
# through the local server); zmap_cat is a small tool on zmap.h.
nczarr_program(zmap_cat)
find_program(ZM_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(ZM_PYTHON3 AND NETCDF_ENABLE_NCZARR_ZIP)
  add_test(NAME zmap_interop
           COMMAND ${ZM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/zmap_interop.py
                   $<TARGET_FILE:zmap_cat> ${CMAKE_CURRENT_BINARY_DIR}/zmap_interop)
  set_tests_properties(zmap_interop PROPERTIES LABELS "nczarr;interop" SKIP_RETURN_CODE 77)
  if(NETCDF_ENABLE_S3)
    add_test(NAME zmap_interop_s3
             COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/s3server.sh run
                     ${CMAKE_CURRENT_BINARY_DIR}/zmap_interop_s3.srv zb
                     ${ZM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/zmap_interop.py
                     $<TARGET_FILE:zmap_cat> ${CMAKE_CURRENT_BINARY_DIR}/zmap_interop_s3)
    set_tests_properties(zmap_interop_s3 PROPERTIES LABELS "nczarr;interop" SKIP_RETURN_CODE 77
      ENVIRONMENT "HOME=${zs3_home};AWS_ACCESS_KEY_ID=S3RVER;AWS_SECRET_ACCESS_KEY=S3RVER")
  endif()
endif()

# write_many/read_many against one-by-one on every backend; on S3 through a
# proxy that delays each request by 30 ms and counts overlapping requests
# (the assertion is on the overlap, never on timing), with an injected 503.
nczarr_program(zmap_many)
add_test(NAME zmap_many_file
         COMMAND zmap_many file://${CMAKE_CURRENT_BINARY_DIR}/zmap_many.zarr file 64 4096)
set_tests_properties(zmap_many_file PROPERTIES LABELS nczarr)
if(NETCDF_ENABLE_NCZARR_ZIP)
  add_test(NAME zmap_many_zip
           COMMAND zmap_many file://${CMAKE_CURRENT_BINARY_DIR}/zmap_many.zip zip 64 4096)
  # 80 MiB in all: past the 32 MiB zip writes keep in memory, into the spill file
  add_test(NAME zmap_many_zip_spill
           COMMAND zmap_many file://${CMAKE_CURRENT_BINARY_DIR}/zmap_many_spill.zip zip 40 1048576)
  set_tests_properties(zmap_many_zip zmap_many_zip_spill PROPERTIES LABELS nczarr)
endif()
if(NETCDF_ENABLE_S3 AND ZM_PYTHON3)
  add_test(NAME zmap_many_s3
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/s3server.sh run
                   ${CMAKE_CURRENT_BINARY_DIR}/zmap_many_s3.srv zb
                   sh ${CMAKE_CURRENT_SOURCE_DIR}/zmap_many_s3.sh ${ZM_PYTHON3}
                   ${CMAKE_CURRENT_SOURCE_DIR}/zmap_slowproxy.py $<TARGET_FILE:zmap_many>
                   ${CMAKE_CURRENT_BINARY_DIR}/zmap_many_s3.state)
  set_tests_properties(zmap_many_s3 PROPERTIES LABELS "nczarr;interop" SKIP_RETURN_CODE 77
    TIMEOUT 120
    ENVIRONMENT "HOME=${zs3_home};AWS_ACCESS_KEY_ID=S3RVER;AWS_SECRET_ACCESS_KEY=S3RVER;AWS_REGION=us-east-1")
endif()

# AWS settings from .ncrc (plain and [url]-scoped) under the environment.
if(NETCDF_ENABLE_S3)
  nczarr_program(zmap_ncrc)
  target_include_directories(zmap_ncrc PRIVATE ${CMAKE_SOURCE_DIR}/libdispatch)
  file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/zncrc_home)
  add_test(NAME zmap_ncrc COMMAND zmap_ncrc ${CMAKE_CURRENT_BINARY_DIR}/zncrc_home)
  set_tests_properties(zmap_ncrc PROPERTIES LABELS nczarr)
endif()
