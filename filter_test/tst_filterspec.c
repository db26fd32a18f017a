/* tst_filterspec.c: print how ncaux_h5filterspec_* parse each line of a
 * file of filter specs, one result line per input line, so the output of
 * this program built on our library can be compared with the same program
 * built on the reference library (run_filterspec.sh).  Uses only the public
 * API; compiles against either library's headers.
 *
 *   tst_filterspec SPECFILE
 * Each input line ('#' comment; a leading '~' is dropped): "list:" + text for ncaux_h5filterspec_parselist,
 * "one:" + text for ncaux_h5filterspec_parse, "param:" + text for
 * ncaux_h5filterspec_parse_parameter.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>
#include <netcdf_filter.h>
#include <netcdf_aux.h>

static void
print_params(size_t n, const unsigned *p)
{
    size_t i;
    printf(" n=%zu", n);
    for (i = 0; i < n; i++)
        printf(" %u", p[i]);
}

int
main(int argc, char **argv)
{
    FILE *f;
    char line[8192];
    if (argc != 2 || (f = fopen(argv[1], "r")) == NULL)
        return 2;
    while (fgets(line, sizeof(line), f)) {
        size_t len = strlen(line);
        int stat;
        if (line[0] == '#')
            continue;
        if (len && line[len - 1] == '\n')
            line[--len] = '\0';
        if (line[0] == '~') /* a line where the reference differs */
            memmove(line, line + 1, len--);
        if (strncmp(line, "list:", 5) == 0) {
            size_t n = 0, i;
            int format = -1;
            NC_H5_Filterspec **vec = NULL;
            stat = ncaux_h5filterspec_parselist(line + 5, &format, &n, &vec);
            printf("list [%s] -> %d", line + 5, stat);
            if (stat == NC_NOERR) {
                printf(" format=%d nspecs=%zu", format, n);
                for (i = 0; i < n; i++) {
                    printf(" | id=%u", vec[i]->filterid);
                    print_params(vec[i]->nparams, vec[i]->params);
                    ncaux_h5filterspec_free(vec[i]);
                }
                free(vec);
            }
        } else if (strncmp(line, "one:", 4) == 0) {
            unsigned id = 0, *params = NULL;
            size_t n = 0;
            stat = ncaux_h5filterspec_parse(line + 4, &id, &n, &params);
            printf("one [%s] -> %d", line + 4, stat);
            if (stat == NC_NOERR) {
                printf(" id=%u", id);
                print_params(n, params);
                free(params);
            }
        } else if (strncmp(line, "param:", 6) == 0) {
            unsigned p[2] = {0, 0};
            size_t n = 0;
            stat = ncaux_h5filterspec_parse_parameter(line + 6, &n, p);
            printf("param [%s] -> %d", line + 6, stat);
            if (stat == NC_NOERR)
                print_params(n, p);
        } else {
            continue;
        }
        printf("\n");
    }
    fclose(f);
    return 0;
}
