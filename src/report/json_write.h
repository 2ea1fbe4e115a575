/* json_write.h: the JSON value writers (json_write.c), for every writer
 * of JSON lines (report_json.c and its sections, `imapstress compare`):
 * strings escaped, numbers with up to three decimals. */
#ifndef IMAPSTRESS_JSON_WRITE_H
#define IMAPSTRESS_JSON_WRITE_H

#include <stdint.h>
#include <stdio.h>

/* A JSON string; bytes that are not UTF-8 become U+FFFD. */
void json_str(FILE *f, const char *s);
/* Up to three decimals, trailing zeros dropped; 0 for NaN/infinity. */
void json_num(FILE *f, double v);
/* "key": */
void json_key(FILE *f, const char *key);
void json_u64(FILE *f, const char *key, uint64_t v);

#endif
