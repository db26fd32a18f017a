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
