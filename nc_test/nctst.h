/* nctst.h: small harness shared by the classic-format test programs.
 * Counters and CHECK macros, the list of memory types with typed API
 * wrappers (so one loop can drive nc_put_vara_short, nc_get_vars_uint, ...),
 * and the value/conversion rules the tests use to compute expected results
 * (exact values are carried as long double, which holds every int64, uint64,
 * float and double value exactly). Uses only the public API. */
#ifndef NCTST_H
#define NCTST_H

#include <stddef.h>
#include <stdio.h>
#include <netcdf.h>

extern long nct_pass, nct_fail;

void nct_report(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Print "NAME: N passed, M failed"; returns the process exit status. */
int nct_summary(const char *name);

/* The whole of a non-empty file in a malloc'ed buffer (*lenp its size), or
 * NULL; and a buffer written out as a file (1 on success). */
unsigned char *nct_slurp(const char *path, size_t *lenp);
int nct_write_file(const char *path, const unsigned char *b, size_t len);

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (cond) nct_pass++;                                              \
        else { nct_fail++; nct_report(__FILE__, __LINE__, __VA_ARGS__); }  \
    } while (0)

/* Expect a call to return a given NC_* status. */
#define EXPECT(call, want)                                                 \
    do {                                                                   \
        int nct_e_ = (call), nct_w_ = (want);                              \
        if (nct_e_ == nct_w_) nct_pass++;                                  \
        else {                                                             \
            nct_fail++;                                                    \
            nct_report(__FILE__, __LINE__, "%s: expected %d (%s), got %d (%s)", \
                       #call, nct_w_, nc_strerror(nct_w_), nct_e_, nc_strerror(nct_e_)); \
        }                                                                  \
    } while (0)
#define OK(call) EXPECT(call, NC_NOERR)

/* Call that must succeed for the rest of a section to make sense. */
#define MUST(call)                                                         \
    do {                                                                   \
        int nct_e_ = (call);                                               \
        if (nct_e_) {                                                      \
            nct_fail++;                                                    \
            nct_report(__FILE__, __LINE__, "%s: fatal: %d (%s)", #call,    \
                       nct_e_, nc_strerror(nct_e_));                       \
            return;                                                        \
        } else nct_pass++;                                                 \
    } while (0)

/* ---- formats ---------------------------------------------------------- */
typedef struct { int cmode; int fmt; const char *name; } nct_format;
extern const nct_format nct_formats[3];   /* CDF-1, CDF-2, CDF-5 */
int nct_format_ntypes(int cmode);          /* 6 for CDF-1/2, 11 for CDF-5 */
/* CDF-1, CDF-2, CDF-5 and NC_NETCDF4|NC_CLASSIC_MODEL (6 types, like CDF-1);
 * NCT_NFORMATS4 is 3 in a library that cannot create NC_NETCDF4 files
 * (built without HDF5: NCZarr alone keeps NC_HAS_NC4 but has no file format). */
extern const nct_format nct_formats4[4];
int nct_is_nc4(int cmode);
#include <netcdf_meta.h>
#if NC_HAS_HDF5
#define NCT_NFORMATS4 4
#else
#define NCT_NFORMATS4 3
#endif
extern const nc_type nct_ext_types[11];    /* byte char short int float double ubyte ushort uint int64 uint64 */

/* ---- memory types -------------------------------------------------------- */
enum nct_mem {
    M_TEXT, M_SCHAR, M_UCHAR, M_SHORT, M_INT, M_LONG, M_FLOAT, M_DOUBLE,
    M_UBYTE, M_USHORT, M_UINT, M_LONGLONG, M_ULONGLONG, M_NMEM
};
extern const char *const nct_mem_name[M_NMEM];
nc_type nct_mem_nctype(int m);     /* nc_type equivalent of a memory type */
size_t nct_type_size(nc_type t);

/* Typed API families; memtype M_NMEM means the untyped nc_put_vara etc. */
enum nct_family { F_VAR, F_VAR1, F_VARA, F_VARS, F_VARM, F_NFAM };
extern const char *const nct_fam_name[F_NFAM];
int nct_put(int fam, int m, int ncid, int varid, const size_t *start, const size_t *count,
            const ptrdiff_t *stride, const ptrdiff_t *imap, const void *buf);
int nct_get(int fam, int m, int ncid, int varid, const size_t *start, const size_t *count,
            const ptrdiff_t *stride, const ptrdiff_t *imap, void *buf);

/* ---- values ---------------------------------------------------------------- */
long double nct_ld_get(nc_type t, const void *buf, size_t i);
void nct_ld_put(nc_type t, void *buf, size_t i, long double v);
long double nct_type_min(nc_type t);
long double nct_type_max(nc_type t);
long double nct_default_fill(nc_type t);
/* Convert exact value v to type `to` as the library does; returns 1 if in
 * range (value in *out), 0 if NC_ERANGE. */
int nct_convert(long double v, nc_type to, long double *out);
/* Equality that treats NaN == NaN. */
int nct_same(long double a, long double b);

#endif
