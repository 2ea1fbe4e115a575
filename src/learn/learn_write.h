/* learn_write.h: what the writers share. */
#ifndef IMAPSTRESS_LEARN_WRITE_H
#define IMAPSTRESS_LEARN_WRITE_H

#include <stdio.h>

#include "learn/learn_int.h"

/* fopen for writing, the failure said. */
FILE *learn_open_out(const char *path);
/* fclose, a write error said: 0 or -1. */
int learn_close_out(FILE *f, const char *path);
int lnames_top(const struct lnames *t);
/* Indexes by count, most first (free it), NULL without memory. */
size_t *lnames_sorted(const struct lnames *t);

/* A comment line: the folders used, by the names the outputs show. */
void learn_write_folders(const struct learn *l, FILE *f);

#endif
