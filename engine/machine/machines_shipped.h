/* machines_shipped.h - the shipped machines' files by name (machine_file.h). */
#ifndef GS_MACHINES_SHIPPED_H
#define GS_MACHINES_SHIPPED_H

typedef struct {
    const char *name;
    const char *text; /* a machine file */
} shipped_machine_t;

const shipped_machine_t *shipped_machine_at(int i); /* NULL past the last */
const shipped_machine_t *shipped_machine_find(const char *name);

#endif
