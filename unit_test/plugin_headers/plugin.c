/* A filter-plugin-like library: it includes only the installed plugin
 * headers, links nothing from libnetcdf, and uses their JSON parser and
 * unparser, property-list readers and growable list and string. */
#include <stdio.h>
#include "netcdf_json.h"
#include "netcdf_proplist.h"
#include "netcdf_vutils.h"

/* Describe a codec configuration (JSON text) and the host's properties in
 * one line; *out is malloc'd.  Returns 0 or -1. */
int
plugin_describe(const NCproplist* props, const char* config, char** out)
{
    NCjson *json = NULL, *id = NULL, *opts = NULL, *copy = NULL;
    struct NCJconst level = NCJconst_empty;
    VString* vs = vsnew();
    VList* keys = vlistnew();
    uintptr_t value = 0, size = 0;
    char buf[128], *text = NULL;
    size_t i;
    int stat = -1;

    if (NCJparse(config, 0, &json) != NCJ_OK || NCJsort(json) != NCJ_DICT) goto done;
    if (NCJdictget(json, "id", &id) != NCJ_OK || id == NULL || NCJsort(id) != NCJ_INT) goto done;
    vscat(vs, "id=");
    vscat(vs, NCJstring(id));
    /* the property overrides the configuration's level */
    if (ncplistget(props, "level", &value, NULL) == NC_NOERR) {
        snprintf(buf, sizeof buf, " level=%lu", (unsigned long)value);
    } else {
        NCjson* jl = NULL;
        if (NCJdictget(json, "level", &jl) != NCJ_OK || jl == NULL || NCJcvt(jl, NCJ_INT, &level) != NCJ_OK)
            goto done;
        snprintf(buf, sizeof buf, " level=%lld", level.ival);
    }
    vscat(vs, buf);
    if (ncplistget(props, "name", &value, &size) != NC_NOERR) goto done;
    vscat(vs, " name=");
    vsappendn(vs, (const char*)value, (unsigned)size);
    if (ncplistget(props, "missing", NULL, NULL) != NC_ENOOBJECT) goto done;
    /* every key, in order, through the list */
    for (i = 0; i < ncplistlen(props); i++) {
        char* key = NULL;
        if (ncplistith(props, i, &key, NULL, NULL) != NC_NOERR) goto done;
        vlistpush(keys, key);
    }
    if (ncplistith(props, ncplistlen(props), NULL, NULL, NULL) != NC_EINVAL) goto done;
    vscat(vs, " keys=");
    while (vlistlength(keys) > 0) {
        vscat(vs, (const char*)vlistfirst(keys));
        if (vlistlength(keys) > 0) vsappend(vs, ',');
    }
    /* a modified deep copy of the options, unparsed */
    if (NCJdictget(json, "opts", &opts) != NCJ_OK || opts == NULL) goto done;
    if (NCJclone(opts, &copy) != NCJ_OK || NCJaddstring(copy, NCJ_STRING, "q\"uote") != NCJ_OK) goto done;
    if (NCJunparse(copy, 0, &text) != NCJ_OK) goto done;
    vscat(vs, " opts=");
    vscat(vs, text);
    snprintf(buf, sizeof buf, " n=%zu", NCJlength(copy));
    vscat(vs, buf);
    *out = vsextract(vs);
    stat = 0;
done:
    free(text);
    NCJreclaim(copy);
    NCJreclaim(json);
    vlistfree(keys);
    vsfree(vs);
    return stat;
}
