/* djson.c: libnetcdf's exported copy of the NCjson API of netcdf_json.h
 * (the header holds the code; plugins that include it get private copies),
 * plus NCJdump and NCJtotext, which only the library has. */
#define NETCDF_JSON_EXPORT 1
#include "netcdf_json.h"

/* Print the tree's text and a newline to out (stderr when NULL). */
void
NCJdump(const NCjson* json, unsigned flags, FILE* out)
{
    char* text = NULL;
    if (out == NULL) out = stderr;
    if (NCJunparse(json, flags, &text) == NCJ_OK) fprintf(out, "%s\n", text);
    else fputs("<invalid json>\n", out);
    fflush(out);
    free(text);
}

/* The tree's text, valid until the calling thread's next call. */
const char*
NCJtotext(const NCjson* json)
{
    static _Thread_local char* text = NULL;
    free(text);
    text = NULL;
    if (NCJunparse(json, 0, &text) != NCJ_OK) return "";
    return text;
}
