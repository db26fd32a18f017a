# data_tests.cmake: the Zarr data path - chunk keys, codecs and their
# chains, shards, the write-back cache, conversions; interop with
# zarr-python 2 (Debian python3-zarr) and, for Zarr v3 and sharding, zarrita
# from npm (installed into the build tree at test time; skips when absent).

# White-box: crc32c, keys, strided copies, codec pipes, shards (hostile too).
pkg_check_modules(ZDATA_JSONC REQUIRED IMPORTED_TARGET json-c)
add_executable(tst_zdata_units tst_zdata_units.c)
target_link_libraries(tst_zdata_units PRIVATE nctst Threads::Threads PkgConfig::ZDATA_JSONC)
target_include_directories(tst_zdata_units PRIVATE ${CMAKE_SOURCE_DIR}/libnczarr
  ${CMAKE_SOURCE_DIR}/libsrc4 ${NCF_CODEC_DIR} ${CMAKE_SOURCE_DIR}/libchunk)
add_test(NAME tst_zdata_units COMMAND tst_zdata_units)
set_tests_properties(tst_zdata_units PROPERTIES LABELS nczarr)

# Round trips through the public API on each layout and storage.
nczarr_program(tst_zdata_rt)
set(_zrt_dir ${CMAKE_CURRENT_BINARY_DIR}/zdata_rt)
file(MAKE_DIRECTORY ${_zrt_dir})
foreach(m "nczarr,file" "zarr,file" "zarr,v3,file" "zarr,v3,file,shard")
  string(REPLACE "," "_" _n "${m}")
  add_test(NAME tst_zdata_rt_${_n} COMMAND tst_zdata_rt ${_zrt_dir}/${_n} ${m})
  set_tests_properties(tst_zdata_rt_${_n} PROPERTIES LABELS nczarr)
  file(MAKE_DIRECTORY ${_zrt_dir}/${_n})
endforeach()
if(NETCDF_ENABLE_NCZARR_ZIP)
  add_test(NAME tst_zdata_rt_nczarr_zip COMMAND tst_zdata_rt ${_zrt_dir}/nczarr_zip "nczarr,zip")
  file(MAKE_DIRECTORY ${_zrt_dir}/nczarr_zip)
  set_tests_properties(tst_zdata_rt_nczarr_zip PROPERTIES LABELS nczarr)
endif()

# zarr-python 2 both ways (through ctypes on our library; skips under ASan).
if(EXISTS /usr/bin/python3)
  add_test(NAME tst_zdata_zarrpy COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/tst_zdata_zarrpy.py
    $<TARGET_FILE:netcdf> ${_zrt_dir})
  set_tests_properties(tst_zdata_zarrpy PROPERTIES LABELS "nczarr;interop" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()

# Zarr v3 and sharding with zarrita (npm, installed into the build tree on
# first run; skips with 77 without node/npm/network or under ASan).
if(EXISTS /usr/bin/python3)
  add_test(NAME tst_zdata_zarrita COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/tst_zdata_zarrita.py
    $<TARGET_FILE:netcdf> ${_zrt_dir} ${CMAKE_CURRENT_SOURCE_DIR}/tst_zdata_zarrita.mjs)
  set_tests_properties(tst_zdata_zarrita PROPERTIES LABELS "nczarr;interop" SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()

# The same round trips on S3 (a local s3rver through s3server.sh;
# skips with 77 without node/npm).
if(NETCDF_ENABLE_S3)
  set(_zrt_s3env "HOME=${_zrt_dir};AWS_ACCESS_KEY_ID=S3RVER;AWS_SECRET_ACCESS_KEY=S3RVER;AWS_REGION=us-east-1")
  foreach(m "nczarr,s3" "zarr,v3,s3,shard")
    string(REPLACE "," "_" _n "${m}")
    add_test(NAME tst_zdata_rt_${_n}
             COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/s3server.sh run ${_zrt_dir}/${_n}.srv zd
                     sh -c "exec \"$0\" \"$NCZ_S3_ENDPOINT/$NCZ_S3_BUCKET/${_n}\" ${m}" $<TARGET_FILE:tst_zdata_rt>)
    set_tests_properties(tst_zdata_rt_${_n} PROPERTIES LABELS "nczarr;interop" SKIP_RETURN_CODE 77
                         ENVIRONMENT "${_zrt_s3env}" TIMEOUT 300)
  endforeach()
endif()

# Variable-length strings (v3 vlen-utf8, v2 "|O"): lengths, fill, strides,
# shards, evictions, abort with dirty chunks, hostile lengths.
nczarr_program(tst_zstr)
foreach(m "zarr,v3,file" "zarr,v3,file,shard")
  string(REPLACE "," "_" _n "${m}")
  file(MAKE_DIRECTORY ${_zrt_dir}/zstr_${_n})
  add_test(NAME tst_zstr_${_n} COMMAND tst_zstr ${_zrt_dir}/zstr_${_n} ${m})
  set_tests_properties(tst_zstr_${_n} PROPERTIES LABELS nczarr)
endforeach()
if(EXISTS /usr/bin/python3)
  add_test(NAME tst_zstr_interop COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/tst_zstr_interop.py
    $<TARGET_FILE:netcdf> ${_zrt_dir} ${CMAKE_CURRENT_SOURCE_DIR}/tst_zstr_zarrita.mjs)
  set_tests_properties(tst_zstr_interop PROPERTIES LABELS "nczarr;interop" SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()

# Partial writes of sharded arrays go by inner chunk.
nczarr_program(tst_zdata_shardw)
file(MAKE_DIRECTORY ${_zrt_dir}/shardw)
add_test(NAME tst_zdata_shardw COMMAND tst_zdata_shardw ${_zrt_dir}/shardw)
set_tests_properties(tst_zdata_shardw PROPERTIES LABELS nczarr)

# Threads sharing one handle: first reads of each variable at once, writes
# of distinct variables (test.sh also runs it under TSan).
nczarr_program(tst_zdata_threads)
file(MAKE_DIRECTORY ${_zrt_dir}/threads)
add_test(NAME tst_zdata_threads COMMAND tst_zdata_threads ${_zrt_dir}/threads)
set_tests_properties(tst_zdata_threads PROPERTIES LABELS nczarr)

# Two threads reading one variable of a read-only handle at once: a read held
# in its chunk's I/O does not keep the other out.
nczarr_program(tst_zdata_samevar)
file(MAKE_DIRECTORY ${_zrt_dir}/samevar)
add_test(NAME tst_zdata_samevar COMMAND tst_zdata_samevar ${_zrt_dir}/samevar)
set_tests_properties(tst_zdata_samevar PROPERTIES LABELS nczarr SKIP_RETURN_CODE 77)

# Point reads of a compressed variable read each chunk once while it stays
# in the variable's cache (bounded); two threads on one handle.
nczarr_program(tst_zdata_pointreads)
file(MAKE_DIRECTORY ${_zrt_dir}/pointreads)
add_test(NAME tst_zdata_pointreads COMMAND tst_zdata_pointreads ${_zrt_dir}/pointreads)
set_tests_properties(tst_zdata_pointreads PROPERTIES LABELS nczarr SKIP_RETURN_CODE 77)

# Two threads' point reads of different chunks of one variable fetch and
# decode at the same time (the cache insertion alone is exclusive); a
# writer beside them leaves no stale chunk cached.
nczarr_program(tst_zdata_keepshare)
file(MAKE_DIRECTORY ${_zrt_dir}/keepshare)
add_test(NAME tst_zdata_keepshare COMMAND tst_zdata_keepshare ${_zrt_dir}/keepshare)
set_tests_properties(tst_zdata_keepshare PROPERTIES LABELS nczarr SKIP_RETURN_CODE 77)

# NOFILL variables store their all-zero chunks: zarr-python (v2, dir and
# zip) and zarrita (v3, plain and sharded) read exactly what was written.
if(EXISTS /usr/bin/python3)
  add_test(NAME tst_zdata_nofill COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/tst_zdata_nofill.py
    $<TARGET_FILE:netcdf> ${_zrt_dir} ${CMAKE_CURRENT_SOURCE_DIR}/tst_zdata_zarrita.mjs)
  set_tests_properties(tst_zdata_nofill PROPERTIES LABELS "nczarr;interop" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()

# Misuse and hostile stores: NULL buffers, symbolic links and special files
# in a directory store, zip durability, arrays of one unlimited dimension
# whose shapes disagree.
nczarr_program(tst_zdata_faults)
file(MAKE_DIRECTORY ${_zrt_dir}/faults)
add_test(NAME tst_zdata_faults COMMAND tst_zdata_faults ${_zrt_dir}/faults)
set_tests_properties(tst_zdata_faults PROPERTIES LABELS nczarr TIMEOUT 120)

# Parts of uncompressed chunks written into their files in place on
# directory stores: the bytes the cache path stores, reads around them,
# hard links, a failing write.
nczarr_program(tst_zdata_inplace)
foreach(m "zarr,file" "nczarr,file" "zarr,v3,file")
  string(REPLACE "," "_" _n "${m}")
  file(MAKE_DIRECTORY ${_zrt_dir}/inplace_${_n})
  add_test(NAME tst_zdata_inplace_${_n} COMMAND tst_zdata_inplace ${_zrt_dir}/inplace_${_n} ${m})
  set_tests_properties(tst_zdata_inplace_${_n} PROPERTIES LABELS nczarr)
endforeach()
