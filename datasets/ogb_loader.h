/* ogb_loader.h - loader for the OGB raw node-property layout. */
#ifndef GS_OGB_LOADER_H
#define GS_OGB_LOADER_H

#include <stddef.h>

#include "dataset.h"

/* Loads an OGB raw directory into d (which must be zeroed). On error d is
 * left partially filled; the caller frees it with dataset_free. */
int ogb_load(dataset_t *d, const char *dir, gs_err_t *err);

/* Writes DIR/BASE.csv.gz or DIR/BASE.csv (whichever exists) into out;
 * returns 1 if found, else 0 with the .csv.gz name in out. */
int ogb_find_file(const char *dir, const char *base, char *out, size_t outsz);

#endif
