/* zmap_sigv4.h: an AWS Signature Version 4 signer of our own (OpenSSL
 * libcrypto), used only by the tests: checked against AWS's published test
 * vectors, it then checks the signatures curl computes for the S3 store. */
#ifndef ZMAP_SIGV4_H
#define ZMAP_SIGV4_H

#include <stddef.h>

/* The Authorization header of a request, taken apart. */
typedef struct sigv4_auth {
    char access_key[128];
    char date[16];       /* YYYYMMDD of the credential scope */
    char region[64];
    char service[64];
    char signed_headers[1024];
    char signature[65];
} sigv4_auth;

/* Parse "AWS4-HMAC-SHA256 Credential=AK/DATE/REGION/SERVICE/aws4_request,
 * SignedHeaders=a;b, Signature=HEX".  0 on success. */
int sigv4_parse_auth(const char *value, sigv4_auth *a);

/* Signature (64 hex digits + NUL into sig) of the raw HTTP request text req
 * ("METHOD TARGET HTTP/1.1", header lines "Name:value", blank line, body;
 * lines end in "\n" or "\r\n"), with the headers its Authorization header
 * lists, the given secret, and the scope in that header.  s3: the path is
 * used as sent (S3 does not normalise or re-encode it); otherwise it is
 * URI-encoded once more, as the other AWS services want.  The payload hash
 * is x-amz-content-sha256 when the request has it, else SHA-256 of the
 * body.  *auth gets the parsed Authorization header.  0 on success. */
int sigv4_sign_request(const char *req, size_t len, const char *secret, int s3, char sig[65],
                       sigv4_auth *auth);

/* SHA-256 of data as 64 hex digits + NUL. */
void sigv4_sha256_hex(const void *data, size_t len, char out[65]);

#endif
