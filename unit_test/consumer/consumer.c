/* A minimal client: prints the library version and checks it is ours. */
#include <stdio.h>
#include <string.h>
#include <netcdf.h>
#include <netcdf_meta.h>

int
main(void)
{
    const char *v = nc_inq_libvers();
    printf("%s\n", v);
    return strncmp(v, NC_VERSION, strlen(NC_VERSION)) != 0;
}
