/* nctools.h: ncdump and nccopy as functions.
 *
 * Each tool's main() is a one-line call to its run function; a fuzz target
 * calls the same functions in-process.  A run parses argv with getopt
 * (re-initialised on every call), never calls exit(), and on any error
 * prints its message to `err`, releases everything it opened or allocated
 * and returns 1.  argv strings may be modified (as the tools always did
 * with comma-separated lists).  Not thread-safe: one run at a time. */
#ifndef NCTOOLS_H
#define NCTOOLS_H

#include <stdio.h>

/* ncdump: output to `out` (NULL: stdout), diagnostics to `err` (NULL:
 * stderr; any other stream also silences getopt's own messages).
 * Returns the exit status. */
int ncdump_run(int argc, char *argv[], FILE *out, FILE *err);

/* nccopy: diagnostics to `err` as above.  Returns the exit status. */
int nccopy_run(int argc, char *argv[], FILE *err);

#endif
