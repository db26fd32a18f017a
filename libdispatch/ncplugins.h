/* ncplugins.h: the library's plugin search path (owned by dplugin.c).
 *
 * The path starts as HDF5_PLUGIN_PATH (':' or ';' separated) or, when that
 * is unset, the build's default plugin directory; nc_plugin_path_set()
 * replaces it.  State is kept behind one mutex.  Format layers that keep
 * their own copy (HDF5's H5PL path, the NCZarr loader) register a listener
 * and are told of every change after it is made.
 */
#ifndef NCPLUGINS_H
#define NCPLUGINS_H

#include "netcdf.h"
#include "netcdf_filter.h"

/* Called with the new path after each nc_plugin_path_set() (and once on
 * registration with the current path).  dirs is borrowed for the call. */
typedef int (*NC_plugin_path_listener)(const NCPluginList *dirs);

/* Register a listener (at most 8); NC_EINVAL for NULL, NC_ENOMEM when full. */
int NC_plugin_path_add_listener(NC_plugin_path_listener fn);

/* Free the path and forget listeners; the next use starts afresh from the
 * environment.  Called by nc_finalize(). */
int NC_plugin_path_finalize(void);

#endif /* NCPLUGINS_H */
