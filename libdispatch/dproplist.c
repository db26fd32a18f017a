/* dproplist.c: libnetcdf's exported NCproplist functions (the code is in
 * netcdf_proplist.h, whose readers plugins get as private copies). */
#define NETCDF_PROPLIST_EXPORT 1
#include "netcdf_proplist.h"
