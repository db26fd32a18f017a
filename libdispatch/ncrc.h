/* ncrc.h: the run-time configuration table (.ncrc and friends), owned by drc.c.
 *
 * Loaded lazily on first use from, in order (later files override earlier
 * ones): $HOME/.ncrc, $HOME/.daprc, $HOME/.dodsrc, ./.ncrc, ./.daprc,
 * ./.dodsrc.  NCRCENV_HOME replaces $HOME; NCRCENV_RC names the one file to
 * read instead; NCRCENV_IGNORE set means no file is read and nc_rc_set() is
 * ignored.  Lines are "[url]key=value" or "key=value"; '#' starts a comment
 * line.  Guarded by one mutex.
 */
#ifndef NCRC_H
#define NCRC_H

/* Value of key for url; url NULL: plain entries only.  An entry's
 * "[host:port/path]" applies when host and port equal url's (user:password
 * in url ignored) and its path, if any, is a prefix of url's; the longest
 * such entry wins over a plain one.  Returns a copy (caller frees) or NULL. */
char *NC_rc_lookup(const char *key, const char *url);

/* Free the table; the next use reloads the files.  Called by nc_finalize(). */
int NC_rc_finalize(void);

#endif /* NCRC_H */
