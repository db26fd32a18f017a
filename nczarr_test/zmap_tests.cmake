# zmap_tests.cmake: the storage backends of libnczarr (zmap.h) - directory
# tree, zip archive, S3 on a local server started by the test.
nczarr_program(zmap_ops)

add_test(NAME zmap_ops_file
         COMMAND zmap_ops file://${CMAKE_CURRENT_BINARY_DIR}/zmap_ops_file.zarr file)
add_test(NAME zmap_ops_path
         COMMAND zmap_ops ${CMAKE_CURRENT_BINARY_DIR}/zmap_ops_path.zarr "")
set_tests_properties(zmap_ops_file zmap_ops_path PROPERTIES LABELS nczarr)
