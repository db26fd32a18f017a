/* Loads plugin.so, hands it a property list built with libnetcdf's
 * exported ncplist* functions, and checks the line it returns; then checks
 * libnetcdf's exported NCJ* functions directly. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf_proplist.h"

/* libnetcdf's exports (no public header declares them for clients) */
NCproplist* ncplistnew(void);
int ncplistfree(NCproplist*);
int ncplistadd(NCproplist*, const char*, uintptr_t);
int ncplistaddstring(NCproplist*, const char*, const char*);
typedef struct NCjson NCjson;
int NCJparse(const char*, unsigned, NCjson**);
int NCJunparse(const NCjson*, unsigned, char**);
void NCJreclaim(NCjson*);

static int failures;
static void
expect(const char* what, const char* got, const char* want)
{
    if (got == NULL || strcmp(got, want) != 0) {
        printf("FAIL %s:\n  got  %s\n  want %s\n", what, got ? got : "(null)", want);
        failures++;
    } else {
        printf("ok %s\n", what);
    }
}

int
main(int argc, char** argv)
{
    int (*describe)(const NCproplist*, const char*, char**);
    NCproplist* props = ncplistnew();
    NCjson* j = NULL;
    char *line = NULL, *text = NULL, *name = malloc(5);
    void* h;
    if (argc < 2 || props == NULL || name == NULL) return 1;
    if ((h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL)) == NULL) { printf("FAIL dlopen: %s\n", dlerror()); return 1; }
    *(void**)&describe = dlsym(h, "plugin_describe");
    if (describe == NULL) { printf("FAIL dlsym\n"); return 1; }
    memcpy(name, "zstd", 5);
    if (ncplistadd(props, "level", 7) || ncplistaddstring(props, "name", name)) return 1;
    if (describe(props, " {\"id\": 32015, \"level\": 3,\n \"opts\": [1, -2.5e3, true, null, \"a\\tb\", {\"k\": []}]} ", &line)) {
        printf("FAIL plugin_describe\n");
        failures++;
    } else {
        expect("plugin line", line,
               "id=32015 level=7 name=zstd keys=level,name "
               "opts=[1,-2.5e3,true,null,\"a\\tb\",{\"k\": []},\"q\\\"uote\"] n=7");
    }
    free(line);
    line = NULL;
    /* without the property the plugin reads the configuration's level */
    ncplistfree(props);
    props = ncplistnew();
    name = malloc(3);
    memcpy(name, "lz", 3);
    ncplistaddstring(props, "name", name);
    if (describe(props, "{\"id\": 1, \"level\": \"9\", \"opts\": []}", &line)) { printf("FAIL describe 2\n"); failures++; }
    else expect("plugin line 2", line, "id=1 level=9 name=lz keys=name opts=[\"q\\\"uote\"] n=1");
    free(line);
    line = NULL;
    /* a configuration the plugin's parser must refuse */
    if (describe(props, "{\"id\": 1,}x", &line) == 0) { printf("FAIL bad json accepted\n"); failures++; }
    else printf("ok bad json refused\n");
    free(line);
    ncplistfree(props);
    dlclose(h);

    /* libnetcdf's own copy */
    if (NCJparse("{\"a\": [1,2], \"b\": \"c\\\"d\", \"e\": false}", 0, &j) || NCJunparse(j, 0, &text)) {
        printf("FAIL libnetcdf NCJparse/NCJunparse\n");
        failures++;
    } else {
        expect("libnetcdf round trip", text, "{\"a\": [1,2], \"b\": \"c\\\"d\", \"e\": false}");
    }
    free(text);
    NCJreclaim(j);
    printf("%s\n", failures ? "FAILED" : "all ok");
    return failures != 0;
}
