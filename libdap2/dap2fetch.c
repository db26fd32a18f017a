/* dap2fetch.c: getting DAP2 responses.
 *
 * file:// URLs read NAME.dds, NAME.das and NAME.dods from disk (upstream's
 * test mode); the whole .dods is read once and every read subsets it.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "dap2int.h"

/* The whole file (plus a NUL byte, not counted).  ENOENT when missing. */
int
d2_read_file(const char *path, unsigned char **bufp, size_t *lenp)
{
    FILE *fp = fopen(path, "rb");
    struct stat st;
    unsigned char *buf;
    size_t got;

    if (fp == NULL)
        return errno ? errno : ENOENT;
    if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0
        || (unsigned long long)st.st_size > (unsigned long long)SIZE_MAX - 1) {
        fclose(fp);
        return ENOENT;
    }
    if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
        fclose(fp);
        return NC_ENOMEM;
    }
    got = fread(buf, 1, (size_t)st.st_size, fp);
    fclose(fp);
    if (got != (size_t)st.st_size) {
        free(buf);
        return NC_EIO;
    }
    buf[got] = '\0';
    *bufp = buf;
    *lenp = got;
    return NC_NOERR;
}

static char *
with_ext(const char *base, const char *ext)
{
    size_t l = strlen(base) + strlen(ext) + 2;
    char *p = malloc(l);
    if (p)
        snprintf(p, l, "%s.%s", base, ext);
    return p;
}

int
d2_fetch_text(D2file *f, const char *ext, char **textp, size_t *lenp)
{
    int stat;
    char *path;
    unsigned char *buf = NULL;
    if (!f->isfile)
        return NC_EDAP;
    if ((path = with_ext(f->base, ext)) == NULL)
        return NC_ENOMEM;
    stat = d2_read_file(path, &buf, lenp);
    free(path);
    if (stat == NC_NOERR)
        *textp = (char *)buf;
    return stat;
}

int
d2_load_data(D2file *f)
{
    int stat;
    size_t off;
    char *path;

    if (f->dataloaded)
        return f->data ? NC_NOERR : NC_EDATADDS;
    if (!f->isfile)
        return NC_EDAP;
    f->dataloaded = 1;
    if ((path = with_ext(f->base, "dods")) == NULL)
        return NC_ENOMEM;
    stat = d2_read_file(path, &f->dods, &f->dodslen);
    free(path);
    if (stat)
        return stat;
    if ((stat = d2_find_data(f->dods, f->dodslen, &off)))
        return stat;
    if ((stat = d2_parse_dds((const char *)f->dods, off, &f->data, NULL)))
        return stat == NC_EDDS ? NC_EDATADDS : stat;
    if ((stat = d2_decode(f->data, f->dods + off, f->dodslen - off))) {
        d2_node_free(f->data);
        f->data = NULL;
        return stat;
    }
    return NC_NOERR;
}
