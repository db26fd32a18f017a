# nc_test4/CMakeLists.robust.cmake: netCDF-4 on bad input and faults (a full
# disk, damaged files, filtered reads), included by nc_test4/CMakeLists.txt.

# A file-size limit hit while records are written: the error reaches the
# caller, and what a successful sync covered survives.
nc4_program(tst_h5full REF)
nc4_test(tst_h5full)
