# install.cmake: what `cmake --install` puts into the prefix, as upstream:
# the library, public headers (with the plugin helpers netcdf_json.h,
# netcdf_proplist.h and netcdf_vutils.h), netcdf.pc, nc-config, libnetcdf.settings and
# the CMake package (netCDFConfig.cmake exporting netCDF::netcdf).
include(CMakePackageConfigHelpers)

set(NC_PUBLIC_HEADERS
  include/netcdf.h include/netcdf_mem.h include/netcdf_aux.h include/netcdf_filter.h
  include/netcdf_filter_build.h include/netcdf_par.h include/netcdf_dispatch.h
  include/netcdf_json.h include/netcdf_proplist.h include/netcdf_vutils.h)
foreach(h ${NC_PUBLIC_HEADERS})
  if(EXISTS ${CMAKE_SOURCE_DIR}/${h})
    install(FILES ${h} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  endif()
endforeach()
install(FILES ${CMAKE_BINARY_DIR}/include/netcdf_meta.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(TARGETS netcdf EXPORT netCDFTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT netCDFTargets NAMESPACE netCDF::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/netCDF)

# Feature words for nc-config, netcdf.pc and libnetcdf.settings.
macro(nc_yesno var flag)
  if(${flag})
    set(${var} yes)
  else()
    set(${var} no)
  endif()
endmacro()
nc_yesno(NC_CFG_NC2 NETCDF_ENABLE_V2_API)
nc_yesno(NC_CFG_CDF5 NETCDF_ENABLE_CDF5)
nc_yesno(NC_CFG_NC4 NETCDF_ENABLE_NETCDF_4)
nc_yesno(NC_CFG_HDF5 NETCDF_ENABLE_HDF5)
nc_yesno(NC_CFG_HDF4 NC_HAS_HDF4)
nc_yesno(NC_CFG_DAP2 NC_HAS_DAP2)
nc_yesno(NC_CFG_DAP4 NC_HAS_DAP4)
nc_yesno(NC_CFG_NCZARR NETCDF_ENABLE_NCZARR)
nc_yesno(NC_CFG_S3 NETCDF_ENABLE_S3)
# netcdf_meta.h's NC_HAS_NCZARR / NC_HAS_S3 follow the options: the top
# level writes the header with both 0, so NCZarr builds write it again.
if(NETCDF_ENABLE_NCZARR)
  nc_bool01(NC_HAS_NCZARR NETCDF_ENABLE_NCZARR)
  nc_bool01(NC_HAS_S3 NETCDF_ENABLE_S3)
  configure_file(include/netcdf_meta.h.in ${CMAKE_BINARY_DIR}/include/netcdf_meta.h @ONLY)
endif()
nc_yesno(NC_CFG_PNETCDF NETCDF_ENABLE_PNETCDF)
nc_yesno(NC_CFG_PARALLEL4 NETCDF_ENABLE_PARALLEL4)
nc_yesno(NC_CFG_PARALLEL NC_HAS_PARALLEL)
nc_yesno(NC_CFG_PLUGINS NETCDF_ENABLE_PLUGINS)
nc_yesno(NC_CFG_BENCHMARKS OFF)
nc_yesno(NC_CFG_ERANGE_FILL NC_HAS_ERANGE_FILL)
nc_yesno(NC_CFG_SZLIB NC_HAS_SZIP)
nc_yesno(NC_CFG_ZSTD NC_HAS_ZSTD)
nc_yesno(NC_CFG_BZ2 NC_HAS_BZ2)
nc_yesno(NC_CFG_BLOSC NC_HAS_BLOSC)
nc_yesno(NC_CFG_QUANTIZE NC_HAS_QUANTIZE)
nc_yesno(NC_CFG_MULTIFILTERS NC_HAS_MULTIFILTERS)
# --has-stdfilters: upstream's order (deflate, szip, blosc, zstd, bz2).
set(NC_CFG_STDFILTERS "")
if(NETCDF_ENABLE_NETCDF_4)
  set(NC_CFG_STDFILTERS "deflate")
  foreach(_f SZIP BLOSC ZSTD BZ2)
    if(NC_HAS_${_f})
      string(TOLOWER ${_f} _fl)
      set(NC_CFG_STDFILTERS "${NC_CFG_STDFILTERS} ${_fl}")
    endif()
  endforeach()
endif()
# --plugin-searchpath: where the library looks for plugins with no
# HDF5_PLUGIN_PATH set: HDF5's default directory, then our own.
set(NC_CFG_PLUGIN_SEARCHPATH "/usr/local/hdf5/lib/plugin")
if(NOT PLUGIN_INSTALL_DIR STREQUAL "/usr/local/hdf5/lib/plugin")
  set(NC_CFG_PLUGIN_SEARCHPATH "${NC_CFG_PLUGIN_SEARCHPATH}:${PLUGIN_INSTALL_DIR}")
endif()
set(NC_CFG_PREFIX "@NC_INSTALL_TIME_PREFIX@")   # filled in at install time
set(NC_CFG_LIBDIR ${CMAKE_INSTALL_FULL_LIBDIR})
set(NC_CFG_INCLUDEDIR ${CMAKE_INSTALL_FULL_INCLUDEDIR})
set(NC_CFG_CC ${CMAKE_C_COMPILER})
# The parallel variant's clients compile with the MPI wrapper (mpicc), as
# upstream's nc-config --cc says in such builds.
if(NC_HAS_PARALLEL AND MPI_C_COMPILER)
  set(NC_CFG_CC ${MPI_C_COMPILER})
endif()
# nc-config computes its prefix from where it is installed; the plugin
# directory follows that prefix when it is the default one under it (so
# `cmake --install --prefix P` reports P/hdf5/lib/plugin), and stays as given
# when PLUGIN_INSTALL_DIR names an absolute directory.
if(NC_PLUGIN_INSTALL AND IS_ABSOLUTE "${NC_PLUGIN_INSTALL_DEST}")
  set(NC_CFG_PLUGINDIR "${NC_PLUGIN_INSTALL_DEST}")
else()
  set(NC_CFG_PLUGINDIR "\${prefix}/hdf5/lib/plugin")
endif()
# Libs.private and nc-config --static: every library libnetcdf links
# (check_consumer.sh links a client with them).
set(NC_CFG_LIBS_PRIVATE "")
if(NETCDF_ENABLE_HDF5)
  string(REPLACE ";" " " _h5libs "${HDF5_LDFLAGS}")
  string(APPEND NC_CFG_LIBS_PRIVATE "${_h5libs} ")
endif()
if(NETCDF_ENABLE_NCZARR)
  string(APPEND NC_CFG_LIBS_PRIVATE "-ljson-c ")
  if(NETCDF_ENABLE_NCZARR_ZIP)
    string(APPEND NC_CFG_LIBS_PRIVATE "-lzip ")
  endif()
  if(NETCDF_ENABLE_S3)
    string(APPEND NC_CFG_LIBS_PRIVATE "-lcurl -lxml2 -lcrypto ")
  endif()
endif()
if(NC_HAS_ISAL)
  string(APPEND NC_CFG_LIBS_PRIVATE "-lisal ")
endif()
if(NETCDF_ENABLE_PNETCDF)
  string(APPEND NC_CFG_LIBS_PRIVATE "-lpnetcdf ")
endif()
if(NC_HAS_PARALLEL)
  foreach(_l ${MPI_C_LIBRARIES})
    string(APPEND NC_CFG_LIBS_PRIVATE "${_l} ")
  endforeach()
endif()
string(APPEND NC_CFG_LIBS_PRIVATE "-ldeflate -lzstd -lbz2 -lblosc -lsz -lutf8proc -lpthread -lm -ldl")

configure_file(cmake/netcdf.pc.in ${CMAKE_BINARY_DIR}/netcdf.pc @ONLY)
configure_file(cmake/nc-config.in ${CMAKE_BINARY_DIR}/nc-config @ONLY)
configure_file(cmake/libnetcdf.settings.in ${CMAKE_BINARY_DIR}/libnetcdf.settings @ONLY)
configure_file(cmake/netCDFConfig.cmake.in ${CMAKE_BINARY_DIR}/netCDFConfig.cmake @ONLY)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/netCDFConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)

install(FILES ${CMAKE_BINARY_DIR}/netcdf.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
install(PROGRAMS ${CMAKE_BINARY_DIR}/nc-config DESTINATION ${CMAKE_INSTALL_BINDIR})
# libnetcdf.settings names the prefix given to `cmake --install --prefix`
# (CMAKE_INSTALL_PREFIX at install time), not the configure-time one.
install(CODE "
  file(READ \"${CMAKE_BINARY_DIR}/libnetcdf.settings\" _nc_settings)
  string(REPLACE \"@NC_INSTALL_TIME_PREFIX@\" \"\${CMAKE_INSTALL_PREFIX}\" _nc_settings \"\${_nc_settings}\")
  file(WRITE \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/libnetcdf.settings\" \"\${_nc_settings}\")
  message(STATUS \"Installing: \$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/libnetcdf.settings\")")
install(FILES ${CMAKE_BINARY_DIR}/netCDFConfig.cmake ${CMAKE_BINARY_DIR}/netCDFConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/netCDF)
